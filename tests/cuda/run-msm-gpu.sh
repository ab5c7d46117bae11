#!/usr/bin/env bash
# The G1 MSM's GLV path, the witness MSMs beside the H step, and the 2^27 partition, on a GPU host.
# Builds nothing. Usage: tests/cuda/run-msm-gpu.sh DIR   (DIR: the bundle of scripts/gpu-bin.sh)
#   env: STEPS="check e2e bench" (any subset, in that order)  BUDGET=350 (s: an e2e run starts only if E2E_EST=150 s
#        more fit, the bench if BENCH_EST=80)  E2E="0.99 0.75" (BOOL settings)  E2E_PARTS=10  BENCH="..." (plain, ZP_MSM_GLV=0) BENCH_GLV="..."
#        GLV_MAX=20  BN=1 PROF=1 (extra checks / the per-phase profile)
# 1. check: GPU = CPU bit for bit: gpu_test glv (GLV = plain = known dlog for 0, 1, r-1, the cut's edges,
#    all 255 bits, sparse, 0/1-heavy, 64-bit, random; passes of all/1/2 windows; the flat and the
#    bucket-aligned level 0), whole proofs of g16_backend_cmp synth (CPU backend = CUDA backend, byte for
#    byte, the pipeline ops included) with overlap + GLV + density on, and with all three off.
# 2. bench: gpu_bench G1 plain (ZP_MSM_GLV=0) / split bases 2 parts / GLV at 2^24, 2^26, 2^27 (CUDA
#    events after a warm-up, median), GLV in passes as the 2^27 partition's scratch allows.
# 3. e2e: bench/pipeline/gpu-e2e.sh at 2^27 (130.3M rows) for each E2E setting, ZP_CUDA_VERBOSE=1
#    (gpud logs the plan and each proof's non-0/1 share). Prints a table last; logs under $OUT.
set -u
: "${1:?usage: run-msm-gpu.sh DIR}"   # in $(...) a failed ${N:?} would only end the subshell
BIN=$(readlink -f "$1")
cd "$(dirname "$0")/../.."
OUT=${OUT:-$(mktemp -d)}; mkdir -p "$OUT"
export LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}"
STEPS=${STEPS:-check e2e bench}; BUDGET=${BUDGET:-350}
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
do_check() {
  step glv_check 120 env ZP_MSM_GLV=16 "$BIN/gpu_test" glv ${GLV_MAX:-20}
  [ -n "${BN:-}" ] && [ -x "$BIN/bn254_gpu_test" ] && step bn254 120 "$BIN/bn254_gpu_test" test 16 14 16   # BN254 shares the kernels
  step proofs_new 150 "$BIN/g16_backend_cmp" synth 18 2 0.75
  step proofs_99 150 "$BIN/g16_backend_cmp" synth 18 3 0.99
  step proofs_glv 150 env ZP_MSM_GLV=16 "$BIN/g16_backend_cmp" synth 18 2 0.75
}
do_bench() {
  if [ $(( $(el) + ${BENCH_EST:-80} )) -gt "$BUDGET" ]; then echo "## bench: skipped (elapsed $(el) s of $BUDGET)"; echo "| bench | skipped (time) | |" >> "$SUM"; return; fi
  local B=${BENCH:-} G=${BENCH_GLV:-g1g:24 g1g:26 g1g:27 g1g:27:0:3}
  [ -n "$B" ] && step bench_old 200 env ZP_MSM_GLV=0 "$BIN/gpu_bench" $B
  step bench_glv 200 "$BIN/gpu_bench" $G
  # where the time goes (digits+sort, bucket sums, segments, tree), per call: plain vs GLV in 4-window passes
  [ -n "${PROF:-}" ] && step bench_prof 90 env ZP_MSM_PROFILE=1 ZP_MSM_GLV=0 "$BIN/gpu_bench" g1:26 g1g:26:0:4
}
E2E_T=""
do_e2e() {
  for b in ${E2E:-0.99 0.75}; do
    if [ $(( $(el) + ${E2E_EST:-150} )) -gt "$BUDGET" ]; then echo "## e2e $b: skipped (elapsed $(el) s of $BUDGET)"; echo "| e2e $b | skipped (time) | |" >> "$SUM"; continue; fi
    step "e2e_$b" 260 env RUN=/tmp/zpe2e-$b RESULTS="$OUT/e2e-$b.md" LABEL="$b" \
      ZP_CUDA_VERBOSE=1 KEY_REGIONS=no PARTS=${E2E_PARTS:-10} JOBS=1 BOOL=$b \
      bench/pipeline/gpu-e2e.sh "$BIN"
    for g in /tmp/zpe2e-$b/r/log/*gpud*; do [ -f "$g" ] && cp "$g" "$OUT/e2e-$b.$(basename "$g")"; done
    sh=$(grep -ho "are not 0/1 ([0-9.]* %)" /tmp/zpe2e-$b/r/log/*gpud* 2>/dev/null | head -1 | grep -o "[0-9.]* %")
    row=$(grep "^| [0-9]" "$OUT/e2e-$b.md" 2>/dev/null | tail -1)
    # per proof (gpud log, CUDA events): medians by order, the first proof (caches warming) left out
    per=$(cat /tmp/zpe2e-$b/r/log/*gpud* 2>/dev/null | python3 -c '
import sys, re, statistics as st
rows = {}
for l in sys.stdin:
    m = re.search(r"proof (\d+) \(([^)]*)\): H step ([\d.]+) ms, witness MSMs ([\d.]+) ms, H MSM ([\d.]+) ms; GPU ([\d.]+) ms, host ([\d.]+) ms", l)
    if m and int(m.group(1)) > 1: rows.setdefault(m.group(2), []).append([float(m.group(i)) for i in range(3, 8)])
for k, v in rows.items():
    med = [st.median(x[i] for x in v) for i in range(5)]
    print("  %-17s (%d proofs, median ms): H step %.1f, witness %.1f, H MSM %.1f, GPU %.1f, host %.1f" % (k, len(v), *med))
')
    E2E_T="$E2E_T
bool=$b (non-0/1 witness share $sh): $row
$per"
    rm -rf /tmp/zpe2e-$b
  done
}
for st_ in $STEPS; do
  case $st_ in check) do_check ;; bench) do_bench ;; e2e) do_e2e ;; esac
done
echo
echo "# summary ($(el) s, $fails failing steps)"
cat "$SUM"
for f in "$OUT"/bench_old.log "$OUT"/bench_glv.log; do [ -f "$f" ] && grep "^| MSM" "$f"; done
grep -h "^| density" "$OUT"/glv_check.log 2>/dev/null
grep -h "^| MSM G1 GLV" "$OUT"/glv_check.log 2>/dev/null | awk -F'|' '{ print $4 }' | sort | uniq -c
grep -h "identical\|differ\|PASS\|FAIL" "$OUT"/proofs_*.log 2>/dev/null | tail -n 8
grep -h "^msm n=" "$OUT"/bench_prof.log 2>/dev/null | sort | uniq -c | head -n 6
[ -n "$E2E_T" ] && { echo "| partitions | verified | synthesis median / max | wait | copy | GPU stage median / max | partitions/s all / steady | job | slot waits | RSS | arena |"; echo "$E2E_T"; }
# the device returns a few files only: everything in one archive beside the summary
tgz=$(mktemp /tmp/msm-out.XXXXXX.tgz)
(cd "$OUT" && tar czf "$tgz" --exclude=msm-out.tgz . && find . -mindepth 1 ! -name summary.md -delete && mv "$tgz" msm-out.tgz) 2>/dev/null
[ $fails = 0 ]
