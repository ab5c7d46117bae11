#!/usr/bin/env bash
# The G1 MSM's GLV path, the witness MSMs beside the H step, and the 2^27 partition, on a GPU host.
# Builds nothing. Usage: tests/cuda/run-msm-gpu.sh DIR   (DIR: the bundle of scripts/gpu-bin.sh)
#   env: STEPS="check bench e2e" (any subset)  BUDGET=350 (s: an e2e run starts only if E2E_EST=150 s more fit)
#        E2E="0.99 0.75" (BOOL settings)  E2E_PARTS=10  BENCH="..." (gpu_bench cases)
# 1. check: GPU = CPU bit for bit: gpu_test glv (GLV = plain = known dlog for 0, 1, r-1, the cut's edges,
#    all 255 bits, sparse, 0/1-heavy, 64-bit, random; passes of all/1/2 windows; the flat and the
#    bucket-aligned level 0), whole proofs of g16_backend_cmp synth (CPU backend = CUDA backend, byte for
#    byte, the pipeline ops included) with overlap + GLV + density on, and with all three off.
# 2. bench: gpu_bench G1 plain (ZP_MSM_GLV=0) / split bases 2 parts / GLV at 2^24, 2^26, 2^27 (CUDA
#    events after a warm-up, median), GLV in passes as the 2^27 partition's scratch allows.
# 3. e2e: bench/pipeline/gpu-e2e.sh at 2^27 (130.3M rows) for each E2E setting, ZP_CUDA_VERBOSE=1
#    (gpud logs the plan and each proof's non-0/1 share). Prints a table last; logs under $OUT.
set -u
BIN=$(readlink -f "${1:?usage: run-msm-gpu.sh DIR}")
cd "$(dirname "$0")/../.."
OUT=${OUT:-$(mktemp -d)}; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}"
STEPS=${STEPS:-check bench e2e}; BUDGET=${BUDGET:-350}
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
SUM=$OUT/summary.md; : > "$SUM"
fails=0
step() { # name timeout cmd...
  local name=$1 t=$2; shift 2
  local s=$(date +%s.%N)
  timeout "$t" "$@" >"$OUT/$name.log" 2>&1; local rc=$?
  tail -n 40 "$OUT/$name.log"
  local d=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $s }")
  echo "## $name: exit $rc ($d s)"
  echo "| $name | exit $rc | $d s |" >> "$SUM"
  [ $rc = 0 ] || fails=$((fails + 1))
}
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null); $(nproc) CPUs; commit $(cat "$BIN/COMMIT" 2>/dev/null || git rev-parse --short HEAD 2>/dev/null)"
case " $STEPS " in *" check "*)
  step glv_check 120 "$BIN/gpu_test" glv 20
  step glv_check_aligned 60 env ZP_MSM_FLAT=0 "$BIN/gpu_test" glv 16
  [ -x "$BIN/bn254_gpu_test" ] && step bn254 120 "$BIN/bn254_gpu_test" test 16 14 16   # BN254 shares the kernels
  step proofs_new 150 "$BIN/g16_backend_cmp" synth 18 2 0.75
  step proofs_old 150 env ZP_CUDA_OVERLAP=0 ZP_MSM_GLV=0 ZP_CUDA_DENSITY=0 "$BIN/g16_backend_cmp" synth 18 2 0.75
  ;; esac
case " $STEPS " in *" bench "*)
  B=${BENCH:-g1:24 g1:26 g1:27 g1h:27}
  G=${BENCH_GLV:-g1g:24 g1g:26 g1g:27 g1g:27:0:4}
  step bench_old 200 env ZP_MSM_GLV=0 "$BIN/gpu_bench" $B
  step bench_glv 200 "$BIN/gpu_bench" $G
  # where the time goes (digits+sort, bucket sums, segments, tree), per call: plain vs GLV in 4-window passes
  step bench_prof 90 env ZP_MSM_PROFILE=1 ZP_MSM_GLV=0 "$BIN/gpu_bench" g1:26 g1g:26:0:4
  ;; esac
E2E_T=""
case " $STEPS " in *" e2e "*)
  for b in ${E2E:-0.99 0.75}; do
    if [ $(( $(el) + ${E2E_EST:-150} )) -gt "$BUDGET" ]; then echo "## e2e $b: skipped (elapsed $(el) s of $BUDGET)"; echo "| e2e $b | skipped (time) | |" >> "$SUM"; continue; fi
    step "e2e_$b" 260 env RUN=/tmp/zpe2e-$b RESULTS="$OUT/e2e-$b.md" LABEL="$b, GLV H MSM + witness MSMs beside the H step" \
      ZP_CUDA_VERBOSE=1 PARTS=${E2E_PARTS:-10} JOBS=1 BOOL=$b bench/pipeline/gpu-e2e.sh "$BIN"
    cp /tmp/zpe2e-$b/r/log/*gpud* "$OUT/" 2>/dev/null
    sh=$(grep -ho "are not 0/1 ([0-9.]* %)" /tmp/zpe2e-$b/r/log/*gpud* 2>/dev/null | head -1 | grep -o "[0-9.]* %")
    row=$(grep "^| [0-9]" "$OUT/e2e-$b.md" 2>/dev/null | tail -1)
    E2E_T="$E2E_T
bool=$b (non-0/1 witness share $sh): $row"
    rm -rf /tmp/zpe2e-$b
  done
  ;; esac
echo
echo "# summary ($(el) s, $fails failing steps)"
cat "$SUM"
for f in "$OUT"/bench_old.log "$OUT"/bench_glv.log; do [ -f "$f" ] && grep "^| MSM" "$f"; done
grep -h "^| MSM G1 GLV" "$OUT"/glv_check.log 2>/dev/null | awk -F'|' '{ print $4 }' | sort | uniq -c
grep -h "identical\|differ\|PASS\|FAIL" "$OUT"/proofs_*.log 2>/dev/null | tail -n 8
grep -h "^msm n=" "$OUT"/bench_prof.log 2>/dev/null | sort | uniq -c | head -n 6
[ -n "$E2E_T" ] && { echo "| partitions | verified | synthesis | wait | copy | GPU stage median / max | ... |"; echo "$E2E_T"; }
[ $fails = 0 ]
