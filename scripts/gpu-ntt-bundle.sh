#!/usr/bin/env bash
# The bundle tests/cuda/run-ntt-gpu.sh needs (small: ntt_check, g16_backend_cmp, lib/), built in
# BUILD (default build; set up with CUDA if new: scripts/cuda-build.sh).
# Usage: scripts/gpu-ntt-bundle.sh DIR [SPPARK_BIN_DIR]  (SPPARK_BIN_DIR: sppark_ntt_{bls,bn} built outside
# the repo, copied to DIR/sppark when given)
set -eu
cd "$(dirname "$0")/.."
dest=${1:?usage: scripts/gpu-ntt-bundle.sh DIR [SPPARK_BIN_DIR]}
. scripts/cuda-build.sh; cuda_build
ninja -C "$BUILD" tests/cuda/ntt_check tests/cuda/g16_backend_cmp >/dev/null
mkdir -p "$dest/lib"
for t in tests/cuda/ntt_check tests/cuda/g16_backend_cmp; do cp "$BUILD/$t" "$dest/"; strip "$dest/$(basename $t)"; done
bash "${DEVICE_LIBS:-$(dirname "$PWD")/shared/tools/device-libs}" "$dest/lib" >/dev/null 2>&1 ||
  for f in $(ldd "$dest/g16_backend_cmp" | awk '$1 ~ /^lib(xxhash|uring)/ { print $3 }'); do cp -L "$f" "$dest/lib/"; done
if [ -n "${2:-}" ]; then mkdir -p "$dest/sppark"; cp "$2"/sppark_ntt_bls "$2"/sppark_ntt_bn "$dest/sppark/"; fi
du -sh "$dest"
