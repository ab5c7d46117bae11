#!/usr/bin/env bash
# Configure (once) and build into ./build. Usage: scripts/build.sh [meson options...]
# ninja's progress shows ([done/total, seconds]): a first build takes ~5 minutes on 2 cores.
set -eu
cd "$(dirname "$0")/.."
eval "$(bash scripts/deps.sh)"
if [ ! -f build/build.ninja ]; then
  echo "scripts/build.sh: configuring build/ (meson setup)" >&2
  meson setup build "$@" >/dev/null
fi
echo "scripts/build.sh: building build/ (a first build takes ~5 min on 2 cores)" >&2
# a terminal gets ninja's one updating line; a log one line a step
NINJA_STATUS="[%f/%t, %e s] " ninja -C build
