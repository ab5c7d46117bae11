#!/usr/bin/env bash
# The map check fails on forbidden arrows: on a copy of the tree, each injected violation must make
# map_check.py exit 1 with a line naming the file and the arrow; the untouched copy must pass.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
# one copy; each case edits one file (inject FILE) and the next case puts it back first
mkdir -p "$tmp/t"
(cd "$src" && tar --exclude=./build --exclude=./.git --exclude='./build-*' --exclude=node_modules -cf - .) | tar -C "$tmp/t" -xf -
last=""
copy() { [ -z "$last" ] || { rm -f "$tmp/t/$last"; [ -e "$src/$last" ] && cp -p "$src/$last" "$tmp/t/$last"; }; last=""; }
inject() { copy; last=$1; }
expect() {   # expect WHAT PATTERN: map_check fails and prints PATTERN
  out=$(python3 "$src/tests/map/map_check.py" "$tmp/t" 2>&1); rc=$?
  if [ $rc -ne 1 ] || ! grep -qF -- "$2" <<<"$out"; then
    echo "FAIL $1: rc $rc, want a line with: $2"; echo "$out" | tail -5; fails=$((fails + 1))
  fi
}
copy
python3 "$src/tests/map/map_check.py" "$tmp/t" >/dev/null || { echo "FAIL: the clean tree does not pass"; fails=$((fails + 1)); }
inject synthd/synthd.c; echo '#include "keystore.h"' >> "$tmp/t/synthd/synthd.c"
expect "synthd includes gpud" "synthd/synthd.c: synthd -> gpud"
inject common/par.c; echo '#include "arena.h"' >> "$tmp/t/common/par.c"
expect "common includes shm" "common/par.c: common -> shm"
inject shm/slot.c; echo '#include "daemon.h"' >> "$tmp/t/shm/slot.c"
expect "shm includes a daemon's header" "shm/slot.c: shm -> pipeline"
inject prover/backend_cpu.c; echo 'static void f(void) { void *p; cudaMalloc(&p, 1); }' >> "$tmp/t/prover/backend_cpu.c"
expect "the CUDA runtime outside cuda/" "prover/backend_cpu.c: prover -> the CUDA runtime (cudaMalloc)"
inject pipeline/sys.c; echo '#include <cuda_runtime_api.h>' >> "$tmp/t/pipeline/sys.c"
expect "the CUDA runtime's header outside cuda/" "pipeline/sys.c: pipeline -> the CUDA runtime"
inject pipeline/sys.c; echo '/* cudaMalloc in a comment is no call */' >> "$tmp/t/pipeline/sys.c"
python3 "$src/tests/map/map_check.py" "$tmp/t" >/dev/null || { echo "FAIL: a comment counted as a call"; fails=$((fails + 1)); }
inject pipeline/sys.c; echo 'static const char *f(void) { return getenv("ZP_SOMETHING"); }' >> "$tmp/t/pipeline/sys.c"
expect "a knob read outside knobs.c" "pipeline/sys.c: reads ZP_SOMETHING with getenv"
inject common/knobs.c; sed -i 's/"ZP_THREADS"/"ZP_THREADZ"/' "$tmp/t/common/knobs.c"
expect "a knob without a row" "docs/knobs.md: no row for ZP_THREADZ"
inject shm/meson.build; echo 'x = [pipe_dep]' >> "$tmp/t/shm/meson.build"
expect "a meson arrow" "shm/meson.build: shm -> pipeline (meson pipe_dep)"
# pipeline/ is below the prover: never a prover header, directly or through one of its own, nor prover_dep
inject pipeline/files.c; echo '#include "zkey.h"' >> "$tmp/t/pipeline/files.c"
expect "pipeline includes a prover header" "pipeline/files.c: pipeline -> prover"
inject pipeline/sys.h; sed -i '0,/#include "/s//#include "wtns.h"\n#include "/' "$tmp/t/pipeline/sys.h"
expect "pipeline reaches the prover through its own header" "pipeline -> prover (through #include pipeline/sys.h -> prover/wtns.h)"
inject pipeline/meson.build; echo 'x = [prover_dep]' >> "$tmp/t/pipeline/meson.build"
expect "pipeline links the prover" "pipeline/meson.build: pipeline -> prover (meson prover_dep)"
# a folder with source that the map does not name
inject newpart/x.c; mkdir -p "$tmp/t/newpart"; echo 'int x;' > "$tmp/t/newpart/x.c"
expect "an unmapped folder" "newpart/ holds source (newpart/x.c) but docs/DESIGN.md's map does not name it"
inject newpart/x.sh; echo 'true' > "$tmp/t/newpart/x.sh"
expect "an unmapped folder of shell" "newpart/ holds source (newpart/x.sh)"
# a forbidden part reached through an allowed part's header (synthd -> prover is allowed, cuda is not)
inject synthd/synthd.c; echo '#include "setup_cuda.h"' >> "$tmp/t/synthd/synthd.c"
expect "cuda through a prover header" "synthd/synthd.c: synthd -> cuda (through #include prover/setup_cuda.h -> cuda/zp_cuda.h)"
# ... and through a chain of two headers (a pipeline header that starts including a gpud header)
inject pipeline/daemon.h; sed -i '0,/#include "/s//#include "keystore.h"\n#include "/' "$tmp/t/pipeline/daemon.h"
expect "gpud through two headers" "synthd -> gpud (through #include pipeline/daemon.h -> gpud/keystore.h)"
# an exception is one file's: gpud/gpud.h's does not excuse a gpud file that reaches cuda another way
inject gpud/pipe.c; echo '#include "zp_cuda.h"' >> "$tmp/t/gpud/pipe.c"
expect "an exception covers only its chain" "gpud/pipe.c: gpud -> cuda (#include \"cuda/zp_cuda.h\")"
# an exception whose file is gone fails as stale (the first allow: line of the map, if any is left)
allow=$(sed -n 's/^allow: *\([^ #]*\) *\([^ #]*\).*/\1 \2/p' "$src/docs/DESIGN.md" | head -1)
if [ -n "$allow" ]; then
  inject "${allow%% *}"; rm -f "$tmp/t/${allow%% *}"
  expect "a stale exception" "'allow: $allow' no longer occurs"
fi
[ $fails -eq 0 ] && echo "map_check_test: all passed"
exit $((fails > 0))
