#!/usr/bin/env bash
# Build and run every test, then the sanitizer run (scripts/test-sanitize.sh under ASAN + UBSAN +
# LeakSanitizer in build-san): by default the shm and groth16 suites and the pipeline-san set
# (tests/pipeline/meson.build: the CLI, daemons, kills, reshape, crash points under the sanitizers);
# ZKPIPE_SANITIZE=full runs the whole pipeline suite instead (about 15 more minutes on 2 cores: run
# before a release, result recorded in bench/RESULTS.md), ZKPIPE_SANITIZE=0 skips it. The last line
# is "N passed, N failed[, N skipped]", both runs counted.
set -u
cd "$(dirname "$0")/.."
bash scripts/build.sh "$@" || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }
meson test -C build --print-errorlogs --num-processes 2 --timeout-multiplier 4
rc=$?
san=""
if [ "${ZKPIPE_SANITIZE:-1}" != 0 ]; then
  echo "=== sanitizer run (scripts/test-sanitize.sh)"
  suites="shm groth16 pipeline-san"; [ "${ZKPIPE_SANITIZE:-1}" = full ] && suites="shm groth16 pipeline"
  SAN_SUITES=$suites bash scripts/test-sanitize.sh | tee build/sanitize.out
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
  san=$(tail -n 1 build/sanitize.out)
fi
. scripts/test-count.sh
count_tests build/meson-logs/testlog.json "$san"
exit $rc
