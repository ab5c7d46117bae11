#!/usr/bin/env bash
# Build the binaries that run-cudaperf.sh needs (on any machine with nvcc; no GPU needed) into
# BIN_DIR (default .gpu/cudaperf):
#   gpu_test, gpu_bench                 this tree as it is (even/odd product, DIT H step)
#   gpu_test.legacy, gpu_bench.legacy   the same sources with -DZP_FF_MUL_EO=0 -DZP_NTT_H_DIT=0 -DZP_NTT_BLOCK_TW=0
#                                       (the original product and H step), for the old/new table
#   gpu_bench.mulonly                   new product, old NTT structure (-DZP_NTT_H_DIT=0
#                                       -DZP_NTT_BLOCK_TW=0): separates the two NTT effects
#   ff_emul                             host check of the device product (no GPU)
#   run-cudaperf.sh                     the driver script
# Build dirs: build-gpu, build-gpu-legacy, build-gpu-mulonly (meson, -Dcuda=enabled). About 3
# minutes per build on 2 cores (cuda/msm.cu alone ~65 s). Usage: tests/cuda/build-cudaperf.sh [BIN_DIR]
set -eu
cd "$(dirname "$0")/../.."
BIN_DIR=${1:-.gpu/cudaperf}
export PATH=/usr/local/cuda/bin:$PATH
setup() {  # dir, cuda_args
  if [ -f "$1/build.ninja" ]; then meson configure "$1" "-Dcuda_args=$2" >/dev/null
  else meson setup "$1" -Dcuda=enabled "-Dcuda_args=$2" >/dev/null; fi
}
setup build-gpu ""
setup build-gpu-legacy "-DZP_FF_MUL_EO=0 -DZP_NTT_H_DIT=0 -DZP_NTT_BLOCK_TW=0"
setup build-gpu-mulonly "-DZP_NTT_H_DIT=0 -DZP_NTT_BLOCK_TW=0"
# meson 1.0 does not see .cuh changes: force the .cu objects to rebuild
touch cuda/*.cu tests/cuda/ff_emul.cu
for b in build-gpu build-gpu-legacy build-gpu-mulonly; do
  t0=$(date +%s)
  if [ $b = build-gpu-mulonly ]; then ninja -C $b bench/cuda/gpu_bench >/dev/null
  else ninja -C $b tests/cuda/gpu_test bench/cuda/gpu_bench tests/cuda/ff_emul >/dev/null; fi
  echo "$b: built in $(( $(date +%s) - t0 )) s"
done
mkdir -p "$BIN_DIR"
cp build-gpu/tests/cuda/gpu_test build-gpu/bench/cuda/gpu_bench build-gpu/tests/cuda/ff_emul "$BIN_DIR/"
cp build-gpu-legacy/tests/cuda/gpu_test "$BIN_DIR/gpu_test.legacy"
cp build-gpu-legacy/bench/cuda/gpu_bench "$BIN_DIR/gpu_bench.legacy"
cp build-gpu-mulonly/bench/cuda/gpu_bench "$BIN_DIR/gpu_bench.mulonly"
cp tests/cuda/run-cudaperf.sh tests/cuda/bench_compare.py "$BIN_DIR/"
ls -la "$BIN_DIR"
