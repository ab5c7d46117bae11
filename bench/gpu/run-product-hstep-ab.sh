#!/usr/bin/env bash
# Correctness, then old-vs-new timings of the CUDA kernels, on the GPU machine, from prebuilt
# binaries (bench/gpu/build-product-hstep-ab.sh makes BIN_DIR). Usage:
#   run-product-hstep-ab.sh BIN_DIR            (BIN_DIR: gpu_test, gpu_bench [, *.legacy, ff_emul])
#   TEST_ARGS  "g1 g2 ntt" max logs for gpu_test (default "20 18 22")
#   CASES      benchmark cases (default "ntt:24 ntt:27 intt:27 h:27 g1:24 g1:26 g2:24 bits:27")
#   LOG        directory for the logs (default: a temp dir; $OUT if set)
#   BUDGET     seconds for the whole run (default 290); each step gets what is left.
# Steps: ff_emul (host); gpu_test (new build: field ops, point ops, NTT, H, MSM, GPU == CPU);
# gpu_test.legacy is not run (that is the tree already on main). Then gpu_bench (new) and
# gpu_bench.legacy on the same cases, gpu_bench.mulonly on the NTT cases, and a table: median ms
# old / new product with old NTT / new / new÷old / target.
# Exit status: nonzero when a correctness step fails or a benchmark prints WRONG.
set -u
BIN=${1:?usage: run-product-hstep-ab.sh BIN_DIR}
BIN=$(cd "$BIN" && pwd)
LOG=${LOG:-${OUT:-$(mktemp -d)}}
mkdir -p "$LOG"
CASES=${CASES:-"ntt:24 ntt:27 intt:27 h:27 g1:24 g1:26 g2:24 bits:27"}
BUDGET=${BUDGET:-290}
start=$(date +%s)
left() { local l=$(( BUDGET - ($(date +%s) - start) )); [ $l -lt 5 ] && l=5; echo $l; }
rc=0
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
if [ -x "$BIN/ff_emul" ]; then
  "$BIN/ff_emul" 200000 >"$LOG/ff_emul.log" 2>&1 || rc=1
  echo "ff_emul: $(tail -1 "$LOG/ff_emul.log")"
fi
t0=$(date +%s)
timeout $(( $(left) * 2 / 5 )) "$BIN/gpu_test" ${TEST_ARGS:-20 18 22} >"$LOG/gpu_test.log" 2>&1
trc=$?
grep -E "FAIL|PASS|failure" "$LOG/gpu_test.log" | tail -15
echo "gpu_test: exit $trc in $(( $(date +%s) - t0 )) s (log $LOG/gpu_test.log)"
[ $trc -ne 0 ] && rc=1
for v in new legacy mulonly; do
  exe="$BIN/gpu_bench"; [ $v != new ] && exe="$BIN/gpu_bench.$v"
  [ -x "$exe" ] || continue
  t0=$(date +%s)
  cases=$CASES; lim=$(left)
  [ $v = new ] && [ -x "$BIN/gpu_bench.legacy" ] && lim=$(( (lim - 30) / 2 ))
  # mulonly differs from new only in the NTT code: its NTT cases alone
  [ $v = mulonly ] && cases=$(for c in $CASES; do case $c in ntt:*|intt:*|h:*) echo -n "$c ";; esac; done)
  [ -z "$cases" ] && continue
  timeout $lim "$exe" $cases >"$LOG/bench.$v.log" 2>&1
  echo "gpu_bench ($v): exit $? in $(( $(date +%s) - t0 )) s"
  grep -q WRONG "$LOG/bench.$v.log" && { echo "  $v: a benchmark result is WRONG"; rc=1; }
done
cat "$LOG/bench.new.log" 2>/dev/null
echo
python3 "$(dirname "$0")/gpu-bench-compare.py" old="$LOG/bench.legacy.log" "new product, old NTT"="$LOG/bench.mulonly.log" \
  new="$LOG/bench.new.log"
echo "total $(( $(date +%s) - start )) s; logs in $LOG; exit $rc"
exit $rc
