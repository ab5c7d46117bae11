#!/usr/bin/env bash
# The README's main command: build, then run the whole pipeline on the bundled circuit
# (supervisor + synthd + gpud on a temporary run directory), verify every proof, report.
# Extra arguments go to `zkpipe demo` (e.g. --jobs 16 --parts 4 --keep).
set -eu
cd "$(dirname "$0")/.."
bash scripts/build.sh
exec build/tools/zkpipe demo "$@"
