#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer run of the shm, groth16 and pipeline suites in a
# second build directory (build-san, -Dcuda=disabled). Every process — the test programs and the
# daemons the pipeline tests start — stops at its first report (halt_on_error, abort_on_error)
# and writes it under build-san/sanitizer-logs/; a report from any process fails the run, also one
# from a daemon that the supervisor restarted. LeakSanitizer is on: every process that exits frees
# what it owns (memory still reachable at exit — a daemon's keys and circuits — is not a leak to it;
# SIGKILLed processes are not checked). scripts/lsan.supp lists the deliberate exceptions, each
# with its reason.
# Usage: scripts/test-sanitize.sh [meson test args...]. Prints "N passed, N failed[, N skipped]".
set -u
cd "$(dirname "$0")/.."
eval "$(bash scripts/deps.sh)"
B=${SAN_BUILD:-build-san}
if [ ! -f $B/build.ninja ]; then
  meson setup $B -Dcuda=disabled -Db_sanitize=address,undefined >/dev/null || { echo "0 passed, 1 failed"; exit 1; }
fi
ninja -C $B >/dev/null || { echo "sanitizer build failed"; echo "0 passed, 1 failed"; exit 1; }
# the groth16 oracle fixtures (circom + snarkjs, minutes) are the same for any build: reuse the main
# build's (fixtures.sh keeps a circuit's outputs while its sources are unchanged)
if [ -d build/oracle-fixtures ] && [ ! -d $B/oracle-fixtures ]; then cp -a build/oracle-fixtures $B/; fi
LOGS=$PWD/$B/sanitizer-logs
rm -rf "$LOGS"; mkdir -p "$LOGS"
common=halt_on_error=1:abort_on_error=1:print_summary=1
export ASAN_OPTIONS=$common:detect_leaks=1:log_path=$LOGS/asan
export LSAN_OPTIONS=suppressions=$PWD/scripts/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=$common:print_stacktrace=1:log_path=$LOGS/ubsan
# SAN_SUITES: the suites to run (default shm groth16 pipeline); scripts/test.sh passes its choice
suites=""; for s in ${SAN_SUITES:-shm groth16 pipeline}; do suites="$suites --suite $s"; done
meson test -C $B --print-errorlogs --num-processes 2 --timeout-multiplier 4 $suites "$@"
rc=$?
reports=$(ls "$LOGS" | wc -l)
if [ "$reports" != 0 ]; then
  echo "sanitizer reports ($reports):"
  for f in "$LOGS"/*; do echo "--- $f"; head -n 30 "$f"; done
fi
. scripts/test-count.sh
# a report from a daemon fails the run even when its test passed
count_tests $B/meson-logs/testlog.json "" $(( reports > 0 ))
[ $rc = 0 ] && [ "$reports" = 0 ]
