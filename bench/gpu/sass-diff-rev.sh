#!/usr/bin/env bash
# Did a change to cuda/ change BLS12-381's machine code? Builds the .cubin of each kernel file at REV
# (default main) and in the working tree, with cuda/meson.build's flags, and compares them function by
# function (bench/gpu/sass-diff.py: .text sections paired by hash; another curve's instances skipped).
# No GPU needed; ~5 min on 2 cores. Usage: bench/gpu/sass-diff-rev.sh [REV] [file ...] (default msm ntt field setup bits)
# ALL=1 keeps every curve's instances (BN254's too): for a change to code both curves share.
set -eu
cd "$(dirname "$0")/../.."
rev=${1:-main}; shift || true
files=${*:-msm ntt field setup bits}
export PATH=/usr/local/cuda/bin:$PATH
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/base" "$tmp/new"
git archive "$rev" cuda common | tar -x -C "$tmp/base"
rc=0
for f in $files; do
  nvcc -O3 -std=c++17 -arch=sm_90 -I"$tmp/base/common" -I"$tmp/base/cuda" -cubin "$tmp/base/cuda/$f.cu" -o "$tmp/base/$f.cubin"
  nvcc -O3 -std=c++17 -arch=sm_90 -Icommon -Icuda -cubin "cuda/$f.cu" -o "$tmp/new/$f.cubin"
  skip="--skip bn_ --skip bn254"; [ "${ALL:-0}" = 1 ] && skip=
  python3 bench/gpu/sass-diff.py "$tmp/base/$f.cubin" "$tmp/new/$f.cubin" $skip || rc=1
done
exit $rc
