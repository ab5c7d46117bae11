#!/usr/bin/env bash
# Configure (once) and build into ./build. Usage: scripts/build.sh [meson options...]
set -eu
cd "$(dirname "$0")/.."
eval "$(bash scripts/deps.sh)"
if [ ! -f build/build.ninja ]; then
  meson setup build "$@" >/dev/null
fi
ninja -C build >/dev/null
