#!/usr/bin/env bash
# Build what run-variants.sh needs (any machine with nvcc; no GPU) into BIN_DIR (default
# .gpu/variants): the tree as on main ("old") and two variant builds of the same sources
# (meson -Dcuda_args), so that one device run of <= 5 minutes compiles nothing:
#   gpu_bench.old                      default macros (as validated on main)
#   gpu_test.A, gpu_bench.A            VAR_A (default: -DZP_G2_LOWREG=1 -DZP_FP2_LAZY=1 -DZP_NTT_RADIX_LOG=2)
#   gpu_test.B, gpu_bench.B            VAR_B (default: -DZP_G2_LOWREG=2 -DZP_FP2_LAZY=1 -DZP_NTT_RADIX_LOG=3)
#   gpu_bench.C, gpu_bench.D           VAR_C (default -DZP_FP2_LAZY=1), VAR_D (default -DZP_G2_LOWREG=1):
#                                      one switch each, benchmarked on G2 only (their code is
#                                      covered by gpu_test.A / .B)
#   ff_emul, ec_emul                   host checks of the product / Fp2 / point formulas (no GPU)
#   run-variants.sh                    the driver
# A and B differ in ZP_G2_LOWREG (1: point add/dbl calls; 2: the mixed add too) and the NTT radix;
# C and D isolate the Fp2 product and the point-call change (msm.cu and ntt.cu share no code). Build dirs build-gpu, build-gpu-varA,
# build-gpu-varB. Prints each build's time (CI has 2 cores; each .cu should stay under ~2 min).
# Usage: tests/cuda/build-variants.sh [BIN_DIR]
set -eu
cd "$(dirname "$0")/../.."
BIN_DIR=${1:-.gpu/variants}
VAR_A=${VAR_A:--DZP_G2_LOWREG=1 -DZP_FP2_LAZY=1 -DZP_NTT_RADIX_LOG=2}
VAR_B=${VAR_B:--DZP_G2_LOWREG=2 -DZP_FP2_LAZY=1 -DZP_NTT_RADIX_LOG=3}
VAR_C=${VAR_C:--DZP_FP2_LAZY=1}
VAR_D=${VAR_D:--DZP_G2_LOWREG=1}
export PATH=/usr/local/cuda/bin:$PATH
setup() {  # dir, cuda_args
  if [ -f "$1/build.ninja" ]; then meson configure "$1" "-Dcuda_args=$2" >/dev/null
  else meson setup "$1" -Dcuda=enabled "-Dcuda_args=$2" >/dev/null; fi
}
setup build-gpu ""
setup build-gpu-varA "$VAR_A"
setup build-gpu-varB "$VAR_B"
setup build-gpu-varC "$VAR_C"
setup build-gpu-varD "$VAR_D"
# meson 1.0 does not see .cuh changes: force the .cu objects to rebuild
touch cuda/*.cu tests/cuda/ff_emul.cu tests/cuda/ec_emul.cu
for b in build-gpu build-gpu-varA build-gpu-varB build-gpu-varC build-gpu-varD; do
  t0=$(date +%s)
  case $b in
  build-gpu) ninja -C $b bench/cuda/gpu_bench tests/cuda/ff_emul tests/cuda/ec_emul >/dev/null;;
  build-gpu-varA|build-gpu-varB) ninja -C $b tests/cuda/gpu_test bench/cuda/gpu_bench >/dev/null;;
  *) ninja -C $b bench/cuda/gpu_bench >/dev/null;;
  esac
  echo "$b: built in $(( $(date +%s) - t0 )) s"
done
mkdir -p "$BIN_DIR"
cp build-gpu/bench/cuda/gpu_bench "$BIN_DIR/gpu_bench.old"
cp build-gpu/tests/cuda/ff_emul build-gpu/tests/cuda/ec_emul "$BIN_DIR/"
for v in A B; do
  cp build-gpu-var$v/tests/cuda/gpu_test "$BIN_DIR/gpu_test.$v"
  cp build-gpu-var$v/bench/cuda/gpu_bench "$BIN_DIR/gpu_bench.$v"
done
cp build-gpu-varC/bench/cuda/gpu_bench "$BIN_DIR/gpu_bench.C"
cp build-gpu-varD/bench/cuda/gpu_bench "$BIN_DIR/gpu_bench.D"
printf 'A: %s\nB: %s\nC: %s\nD: %s\n' "$VAR_A" "$VAR_B" "$VAR_C" "$VAR_D" >"$BIN_DIR/variants.txt"
cp tests/cuda/run-variants.sh tests/cuda/bench_compare.py "$BIN_DIR/"
ls -la "$BIN_DIR"
