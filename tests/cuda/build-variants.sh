#!/usr/bin/env bash
# Build what run-variants.sh needs (any machine with nvcc; no GPU) into BIN_DIR (default
# .gpu/variants): the tree as on main ("old") and two variant builds of the same sources
# (meson -Dcuda_args), so that one device run of <= 5 minutes compiles nothing:
#   gpu_bench.old                      default macros (as validated on main)
#   gpu_test.A, gpu_bench.A            VAR_A (default: -DZP_G2_LOWREG=1 -DZP_FP2_LAZY=1 -DZP_NTT_RADIX_LOG=2)
#   gpu_test.B, gpu_bench.B            VAR_B (default: -DZP_FP2_LAZY=1 -DZP_NTT_RADIX_LOG=3)
#   ff_emul, ec_emul                   host checks of the product / Fp2 / point formulas (no GPU)
#   run-variants.sh                    the driver
# A and B differ in ZP_G2_LOWREG (G2 only) and the NTT radix (NTT only), so old/A/B separate the
# three switches (msm.cu and ntt.cu do not share code). Build dirs build-gpu, build-gpu-varA,
# build-gpu-varB. Prints each build's time (CI has 2 cores; each .cu should stay under ~2 min).
# Usage: tests/cuda/build-variants.sh [BIN_DIR]
set -eu
cd "$(dirname "$0")/../.."
BIN_DIR=${1:-.gpu/variants}
VAR_A=${VAR_A:--DZP_G2_LOWREG=1 -DZP_FP2_LAZY=1 -DZP_NTT_RADIX_LOG=2}
VAR_B=${VAR_B:--DZP_FP2_LAZY=1 -DZP_NTT_RADIX_LOG=3}
export PATH=/usr/local/cuda/bin:$PATH
setup() {  # dir, cuda_args
  if [ -f "$1/build.ninja" ]; then meson configure "$1" "-Dcuda_args=$2" >/dev/null
  else meson setup "$1" -Dcuda=enabled "-Dcuda_args=$2" >/dev/null; fi
}
setup build-gpu ""
setup build-gpu-varA "$VAR_A"
setup build-gpu-varB "$VAR_B"
# meson 1.0 does not see .cuh changes: force the .cu objects to rebuild
touch cuda/*.cu tests/cuda/ff_emul.cu tests/cuda/ec_emul.cu
for b in build-gpu build-gpu-varA build-gpu-varB; do
  t0=$(date +%s)
  if [ $b = build-gpu ]; then ninja -C $b bench/cuda/gpu_bench tests/cuda/ff_emul tests/cuda/ec_emul >/dev/null
  else ninja -C $b tests/cuda/gpu_test bench/cuda/gpu_bench >/dev/null; fi
  echo "$b: built in $(( $(date +%s) - t0 )) s"
done
mkdir -p "$BIN_DIR"
cp build-gpu/bench/cuda/gpu_bench "$BIN_DIR/gpu_bench.old"
cp build-gpu/tests/cuda/ff_emul build-gpu/tests/cuda/ec_emul "$BIN_DIR/"
for v in A B; do
  cp build-gpu-var$v/tests/cuda/gpu_test "$BIN_DIR/gpu_test.$v"
  cp build-gpu-var$v/bench/cuda/gpu_bench "$BIN_DIR/gpu_bench.$v"
done
printf 'A: %s\nB: %s\n' "$VAR_A" "$VAR_B" >"$BIN_DIR/variants.txt"
cp tests/cuda/run-variants.sh "$BIN_DIR/"
ls -la "$BIN_DIR"
