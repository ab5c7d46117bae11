#!/usr/bin/env bash
# Build (unless BIN holds prebuilt gpu_test/gpu_bench), run the GPU checks, then the benchmarks;
# print both tables. Run on a machine with the GPU. Usage:
#   tests/cuda/run-gpu-tests.sh [test|bench|all] [bench cases...]
#   BIN=dir      use prebuilt binaries from dir instead of building them in BUILD (default build/, relative to
#                the repository root; set up with CUDA if new: scripts/cuda-build.sh)
#   TEST_ARGS    "max_log_g1 max_log_g2 max_log_ntt" for gpu_test (default "20 18 22")
#   LOG=dir      also write the logs there
set -eu
cd "$(dirname "$0")/../.."
what=${1:-all}; [ $# -gt 0 ] && shift
if [ -z "${BIN:-}" ]; then
  . scripts/cuda-build.sh; cuda_build -Dgpu-tests=true
  ninja -C "$BUILD" tests/cuda/gpu_test bench/cuda/gpu_bench tests/cuda/plan_test >/dev/null
  BIN_TEST=$BUILD/tests/cuda/gpu_test; BIN_BENCH=$BUILD/bench/cuda/gpu_bench; BIN_PLAN=$BUILD/tests/cuda/plan_test
else
  BIN_TEST=$BIN/gpu_test; BIN_BENCH=$BIN/gpu_bench; BIN_PLAN=$BIN/plan_test
fi
LOG=${LOG:-$(mktemp -d)}
rc=0
if [ "$what" = test ] || [ "$what" = all ]; then
  $BIN_TEST ${TEST_ARGS:-20 18 22} >"$LOG/gpu_test.log" 2>&1 || rc=$?
  cat "$LOG/gpu_test.log"
  # the memory plan's CI test runs on scratch sizes recorded here: are they still the kernels'?
  if [ -x "$BIN_PLAN" ]; then
    $BIN_PLAN live tests/cuda/plan_sizes.txt 2>&1 | tee "$LOG/plan_live.log"; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
  fi
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  echo "# $(date -u +%F) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null); $BIN_BENCH $*"
  ZP_MSM_PROFILE=${ZP_MSM_PROFILE:-} $BIN_BENCH "$@" 2>&1 | tee "$LOG/gpu_bench.log"
fi
exit $rc
