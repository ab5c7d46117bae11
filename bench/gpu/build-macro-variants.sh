#!/usr/bin/env bash
# Build what run-macro-variants.sh needs (any machine with nvcc; no GPU) into BIN_DIR (default
# .gpu/variants): the tree as on main ("old") and two variant builds of the same sources
# (meson -Dcuda_args), so that one device run of <= 5 minutes compiles nothing:
#   gpu_bench.old                      default macros (as validated on main)
#   gpu_test.A, gpu_bench.A            VAR_A (default: -DZP_G2_LOWREG=1 -DZP_FP2_LAZY=1 -DZP_NTT_RADIX_LOG=2)
#   gpu_test.B, gpu_bench.B            VAR_B (default: -DZP_G2_LOWREG=2 -DZP_FP2_LAZY=1 -DZP_NTT_RADIX_LOG=3)
#   gpu_bench.C, gpu_bench.D           VAR_C (default -DZP_FP2_LAZY=1), VAR_D (default -DZP_G2_LOWREG=1):
#                                      one switch each, benchmarked on G2 only (their code is
#                                      covered by gpu_test.A / .B)
#   ff_emul, ec_emul                   host checks of the product / Fp2 / point formulas (no GPU)
#   run-macro-variants.sh, gpu-bench-compare.py   the driver and its table
# A and B differ in ZP_G2_LOWREG (1: point add/dbl calls; 2: the mixed add too) and the NTT radix;
# C and D isolate the Fp2 product and the point-call change (msm.cu and ntt.cu share no code). Build dirs BUILD
# (default build; set up with CUDA if new: scripts/cuda-build.sh; its cuda_args are reset to none),
# BUILD-varA .. BUILD-varD. Prints each build's time (CI has 2 cores; each .cu should stay under ~2 min).
# Usage: [BUILD=dir] bench/gpu/build-macro-variants.sh [BIN_DIR]
set -eu
cd "$(dirname "$0")/../.."
BIN_DIR=${1:-.gpu/variants}
VAR_A=${VAR_A:--DZP_G2_LOWREG=1 -DZP_FP2_LAZY=1 -DZP_NTT_RADIX_LOG=2}
VAR_B=${VAR_B:--DZP_G2_LOWREG=2 -DZP_FP2_LAZY=1 -DZP_NTT_RADIX_LOG=3}
VAR_C=${VAR_C:--DZP_FP2_LAZY=1}
VAR_D=${VAR_D:--DZP_G2_LOWREG=1}
. scripts/cuda-build.sh; cuda_build
B=$BUILD
cuda_variant "$B" ""
cuda_variant "$B-varA" "$VAR_A"
cuda_variant "$B-varB" "$VAR_B"
cuda_variant "$B-varC" "$VAR_C"
cuda_variant "$B-varD" "$VAR_D"
# meson 1.0 does not see .cuh changes: force the .cu objects to rebuild
touch cuda/*.cu tests/cuda/ff_emul.cu tests/cuda/ec_emul.cu
for v in "" A B C D; do
  b=$B${v:+-var$v}; t0=$(date +%s)
  case $v in
  "") ninja -C "$b" bench/cuda/gpu_bench tests/cuda/ff_emul tests/cuda/ec_emul >/dev/null;;
  A|B) ninja -C "$b" tests/cuda/gpu_test bench/cuda/gpu_bench >/dev/null;;
  *) ninja -C "$b" bench/cuda/gpu_bench >/dev/null;;
  esac
  echo "$b: built in $(( $(date +%s) - t0 )) s"
done
mkdir -p "$BIN_DIR"
cp "$B/bench/cuda/gpu_bench" "$BIN_DIR/gpu_bench.old"
cp "$B/tests/cuda/ff_emul" "$B/tests/cuda/ec_emul" "$BIN_DIR/"
for v in A B; do
  cp "$B-var$v/tests/cuda/gpu_test" "$BIN_DIR/gpu_test.$v"
  cp "$B-var$v/bench/cuda/gpu_bench" "$BIN_DIR/gpu_bench.$v"
done
cp "$B-varC/bench/cuda/gpu_bench" "$BIN_DIR/gpu_bench.C"
cp "$B-varD/bench/cuda/gpu_bench" "$BIN_DIR/gpu_bench.D"
printf 'A: %s\nB: %s\nC: %s\nD: %s\n' "$VAR_A" "$VAR_B" "$VAR_C" "$VAR_D" >"$BIN_DIR/variants.txt"
cp bench/gpu/run-macro-variants.sh bench/gpu/gpu-bench-compare.py "$BIN_DIR/"
ls -la "$BIN_DIR"
