#!/usr/bin/env bash
# Build and run every test. The last line is "N passed, N failed[, N skipped]".
set -u
cd "$(dirname "$0")/.."
bash scripts/build.sh "$@" || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }
meson test -C build --print-errorlogs --num-processes 2 --timeout-multiplier 4
rc=$?
python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
p = f = s = 0
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    if r == "OK": p += 1
    elif r == "SKIP": s += 1
    else: f += 1
print(f"{p} passed, {f} failed" + (f", {s} skipped" if s else ""))
PY
exit $rc
