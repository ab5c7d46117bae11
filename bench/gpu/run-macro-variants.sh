#!/usr/bin/env bash
# On the GPU machine, from prebuilt binaries (bench/gpu/build-macro-variants.sh makes BIN_DIR; nothing is
# compiled here): correctness of the variant builds, then old vs variant timings. Usage:
#   run-macro-variants.sh BIN_DIR
#   CASES    benchmark cases (default "g2:24 g2:25 ntt:24 ntt:27 h:27 g1:26")
#   CASES_B  cases for variant B (default "g2:24 g2:25 ntt:27 h:27")
#   CASES_CD cases for the one-switch G2 builds C and D (default "g2:24")
#   TEST_ARGS "g1 g2 ntt" max logs for gpu_test.A (default "20 18 22"); gpu_test.B gets TEST_ARGS_B
#            (default "18 16 22")
#   BUDGET   seconds for the whole run (default 290); LOG directory for logs (default $OUT or a temp dir)
#            gpu_test.A gets 2/5 of it, gpu_test.B 1/5 of what is left, then the benchmarks share the
#            rest (a timed-out gpu_test reads FAIL with exit 124: rerun it alone with a larger BUDGET).
# Prints: host checks, gpu_test.A / gpu_test.B PASS or FAIL, then a table of median ms
# old / A / B and A÷old, B÷old, target. Exit status nonzero when a check fails or a result is WRONG.
set -u
BIN=${1:?usage: run-macro-variants.sh BIN_DIR}
BIN=$(cd "$BIN" && pwd)
LOG=${LOG:-${OUT:-$(mktemp -d)}}
mkdir -p "$LOG"
CASES=${CASES:-"g2:24 g2:25 ntt:24 ntt:27 h:27 g1:26"}
CASES_B=${CASES_B:-"g2:24 g2:25 ntt:27 h:27"}
CASES_CD=${CASES_CD:-"g2:24"}
BUDGET=${BUDGET:-290}
start=$(date +%s)
left() { local l=$(( BUDGET - ($(date +%s) - start) )); [ $l -lt 5 ] && l=5; echo $l; }
rc=0
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
sed 's/^/# variant /' "$BIN/variants.txt" 2>/dev/null
for h in ff_emul ec_emul; do
  [ -x "$BIN/$h" ] || continue
  "$BIN/$h" >"$LOG/$h.log" 2>&1 || rc=1
  echo "$h: $(tail -1 "$LOG/$h.log")"
done
for v in A B; do
  [ -x "$BIN/gpu_test.$v" ] || continue
  args=${TEST_ARGS:-20 18 22}; [ $v = B ] && args=${TEST_ARGS_B:-18 16 22}
  t0=$(date +%s)
  tl=$(( $(left) * 2 / 5 )); [ $v = B ] && tl=$(( $(left) / 5 ))
  timeout $tl "$BIN/gpu_test.$v" $args >"$LOG/gpu_test.$v.log" 2>&1
  trc=$?
  nf=$(grep -c FAIL "$LOG/gpu_test.$v.log")
  if [ $trc -eq 0 ] && [ "$nf" = 0 ]; then res=PASS; else res=FAIL; rc=1; fi
  echo "gpu_test.$v ($args): $res (exit $trc, $nf FAIL lines, $(( $(date +%s) - t0 )) s; log $LOG/gpu_test.$v.log)"
  [ $res = FAIL ] && grep -E "FAIL|failure" "$LOG/gpu_test.$v.log" | head -10
done
for v in old A B C D; do
  exe="$BIN/gpu_bench.$v"
  [ -x "$exe" ] || continue
  cases=$CASES; [ $v = B ] && cases=$CASES_B; case $v in C|D) cases=$CASES_CD;; esac
  # shares of what is left: old 2/5, A 1/2, B 2/3 (C and D: one small case each, ~10 s)
  lim=$(left); [ $v = old ] && lim=$(( lim * 2 / 5 )); [ $v = A ] && lim=$(( lim / 2 )); [ $v = B ] && lim=$(( lim * 2 / 3 ))
  t0=$(date +%s)
  timeout $lim "$exe" $cases >"$LOG/bench.$v.log" 2>&1
  echo "gpu_bench.$v: exit $? in $(( $(date +%s) - t0 )) s"
  grep -q WRONG "$LOG/bench.$v.log" && { echo "  $v: a benchmark result is WRONG"; rc=1; }
done
echo
python3 "$(dirname "$0")/gpu-bench-compare.py" old="$LOG/bench.old.log" A="$LOG/bench.A.log" B="$LOG/bench.B.log" \
  C="$LOG/bench.C.log" D="$LOG/bench.D.log"
echo "total $(( $(date +%s) - start )) s; logs in $LOG; exit $rc"
exit $rc
