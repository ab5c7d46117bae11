#!/usr/bin/env bash
# Build and run every test, then the sanitizer run (scripts/test-sanitize.sh under ASAN + UBSAN in
# build-san): by default the shm and groth16 suites; ZKPIPE_SANITIZE=full adds the pipeline suite
# (about 15 more minutes on 2 cores: run before a release, result recorded in bench/RESULTS.md),
# ZKPIPE_SANITIZE=0 skips it. The last line is "N passed, N failed[, N skipped]", both runs counted.
set -u
cd "$(dirname "$0")/.."
bash scripts/build.sh "$@" || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }
meson test -C build --print-errorlogs --num-processes 2 --timeout-multiplier 4
rc=$?
san=""
if [ "${ZKPIPE_SANITIZE:-1}" != 0 ]; then
  echo "=== sanitizer run (scripts/test-sanitize.sh)"
  suites="shm groth16"; [ "${ZKPIPE_SANITIZE:-1}" = full ] && suites="shm groth16 pipeline"
  SAN_SUITES=$suites bash scripts/test-sanitize.sh | tee build/sanitize.out
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
  san=$(tail -n 1 build/sanitize.out)
fi
python3 - build/meson-logs/testlog.json "$san" <<'PY'
import json, re, sys
p = f = s = 0
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    if r == "OK": p += 1
    elif r == "SKIP": s += 1
    else: f += 1
m = re.match(r"(\d+) passed, (\d+) failed(?:, (\d+) skipped)?", sys.argv[2])
if m:
    p += int(m[1]); f += int(m[2]); s += int(m[3] or 0)
elif sys.argv[2]:
    f += 1
print(f"{p} passed, {f} failed" + (f", {s} skipped" if s else ""))
PY
exit $rc
