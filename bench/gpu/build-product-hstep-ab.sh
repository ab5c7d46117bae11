#!/usr/bin/env bash
# Build the binaries that run-product-hstep-ab.sh needs (on any machine with nvcc; no GPU needed) into
# BIN_DIR (default .gpu/product-hstep-ab):
#   gpu_test, gpu_bench                 this tree as it is (even/odd product, DIT H step)
#   gpu_test.legacy, gpu_bench.legacy   the same sources with -DZP_FF_MUL_EO=0 -DZP_NTT_H_DIT=0 -DZP_NTT_BLOCK_TW=0
#                                       (the original product and H step), for the old/new table
#   gpu_bench.mulonly                   new product, old NTT structure (-DZP_NTT_H_DIT=0
#                                       -DZP_NTT_BLOCK_TW=0): separates the two NTT effects
#   ff_emul                             host check of the device product (no GPU)
#   run-product-hstep-ab.sh, gpu-bench-compare.py   the driver and its table
# Build dirs: BUILD (default build; set up with CUDA if new: scripts/cuda-build.sh; its cuda_args are reset
# to none), BUILD-legacy, BUILD-mulonly (meson, -Dcuda=enabled). About 3 minutes per build on 2 cores
# (cuda/msm.cu alone ~65 s). Usage: [BUILD=dir] bench/gpu/build-product-hstep-ab.sh [BIN_DIR]
set -eu
cd "$(dirname "$0")/../.."
BIN_DIR=${1:-.gpu/product-hstep-ab}
. scripts/cuda-build.sh; cuda_build
B=$BUILD
cuda_variant "$B" ""
cuda_variant "$B-legacy" "-DZP_FF_MUL_EO=0 -DZP_NTT_H_DIT=0 -DZP_NTT_BLOCK_TW=0"
cuda_variant "$B-mulonly" "-DZP_NTT_H_DIT=0 -DZP_NTT_BLOCK_TW=0"
# meson 1.0 does not see .cuh changes: force the .cu objects to rebuild
touch cuda/*.cu tests/cuda/ff_emul.cu
for b in "$B" "$B-legacy" "$B-mulonly"; do
  t0=$(date +%s)
  if [ "$b" = "$B-mulonly" ]; then ninja -C "$b" bench/cuda/gpu_bench >/dev/null
  else ninja -C "$b" tests/cuda/gpu_test bench/cuda/gpu_bench tests/cuda/ff_emul >/dev/null; fi
  echo "$b: built in $(( $(date +%s) - t0 )) s"
done
mkdir -p "$BIN_DIR"
cp "$B/tests/cuda/gpu_test" "$B/bench/cuda/gpu_bench" "$B/tests/cuda/ff_emul" "$BIN_DIR/"
cp "$B-legacy/tests/cuda/gpu_test" "$BIN_DIR/gpu_test.legacy"
cp "$B-legacy/bench/cuda/gpu_bench" "$BIN_DIR/gpu_bench.legacy"
cp "$B-mulonly/bench/cuda/gpu_bench" "$BIN_DIR/gpu_bench.mulonly"
cp bench/gpu/run-product-hstep-ab.sh bench/gpu/gpu-bench-compare.py "$BIN_DIR/"
ls -la "$BIN_DIR"
