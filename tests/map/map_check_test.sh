#!/usr/bin/env bash
# The map check fails on forbidden arrows: on a copy of the tree, each injected violation must make
# map_check.py exit 1 with a line naming the file and the arrow; the untouched copy must pass.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
copy() {
  rm -rf "$tmp/t"; mkdir -p "$tmp/t"
  (cd "$src" && tar --exclude=./build --exclude=./.git --exclude='./build-*' -cf - .) | tar -C "$tmp/t" -xf -
}
expect() {   # expect WHAT PATTERN: map_check fails and prints PATTERN
  out=$(python3 "$src/tests/map/map_check.py" "$tmp/t" 2>&1); rc=$?
  if [ $rc -ne 1 ] || ! grep -qF -- "$2" <<<"$out"; then
    echo "FAIL $1: rc $rc, want a line with: $2"; echo "$out" | tail -5; fails=$((fails + 1))
  fi
}
copy
python3 "$src/tests/map/map_check.py" "$tmp/t" >/dev/null || { echo "FAIL: the clean tree does not pass"; fails=$((fails + 1)); }
copy; echo '#include "keyload.h"' >> "$tmp/t/synthd/synthd.c"
expect "synthd includes gpud" "synthd/synthd.c: synthd -> gpud"
copy; echo '#include "arena.h"' >> "$tmp/t/common/par.c"
expect "common includes shm" "common/par.c: common -> shm"
copy; echo '#include "daemon.h"' >> "$tmp/t/shm/slot.c"
expect "shm includes a daemon's header" "shm/slot.c: shm -> pipeline"
copy; echo 'static void f(void) { void *p; cudaMalloc(&p, 1); }' >> "$tmp/t/prover/backend_cpu.c"
expect "the CUDA runtime outside cuda/" "prover/backend_cpu.c: prover -> the CUDA runtime (cudaMalloc)"
copy; echo '#include <cuda_runtime_api.h>' >> "$tmp/t/pipeline/sys.c"
expect "the CUDA runtime's header outside cuda/" "pipeline/sys.c: pipeline -> the CUDA runtime"
copy; echo '/* cudaMalloc in a comment is no call */' >> "$tmp/t/pipeline/sys.c"
python3 "$src/tests/map/map_check.py" "$tmp/t" >/dev/null || { echo "FAIL: a comment counted as a call"; fails=$((fails + 1)); }
copy; echo 'static const char *f(void) { return getenv("ZP_SOMETHING"); }' >> "$tmp/t/pipeline/sys.c"
expect "a knob read outside knobs.c" "pipeline/sys.c: reads ZP_SOMETHING with getenv"
copy; sed -i 's/"ZP_THREADS"/"ZP_THREADZ"/' "$tmp/t/common/knobs.c"
expect "a knob without a row" "docs/knobs.md: no row for ZP_THREADZ"
copy; echo 'x = [pipe_dep]' >> "$tmp/t/shm/meson.build"
expect "a meson arrow" "shm/meson.build: shm -> pipeline (meson pipe_dep)"
# an exception whose file is gone fails as stale (the first allow: line of the map, if any is left)
allow=$(sed -n 's/^allow: *\([^ #]*\) *\([^ #]*\).*/\1 \2/p' "$src/docs/DESIGN.md" | head -1)
if [ -n "$allow" ]; then
  copy; rm -f "$tmp/t/${allow%% *}"
  expect "a stale exception" "'allow: $allow' no longer occurs"
fi
[ $fails -eq 0 ] && echo "map_check_test: all passed"
exit $((fails > 0))
