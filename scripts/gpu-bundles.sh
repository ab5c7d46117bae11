#!/usr/bin/env bash
# Build here (nvcc, no GPU needed) what bench/gpu/device-steps.sh runs on a GPU host, into .gpu/ (git-ignored),
# each piece small enough for a device call's 64 MiB:
#   .gpu/bin.tgz       scripts/gpu-bin.sh's bundle + plan_test (the GPU tests, gpu_bench, the daemons, zkpipe) ~31 MB
#   .gpu/ssc2.tgz      the daemons, zkpipe, ss_cmp and libzkpipe-supraseal (GPU_BIN_ONLY), and PEERS_DIR's
#                      supraseal-c2 libraries (lib*.so + PROVENANCE, built beside the project, never in the repo), and
#                      shim/libzkpipe-supraseal.so.0 (bench/supraseal/ssc2_shim.c: the crate's programs on a peer) ~19 MB
#   .gpu/porep_stream  rust/supraseal-c2's example driving the crate (Debian's or rustup's cargo, offline)  ~5 MB
#   .gpu/before.tgz    WHAT=before BEFORE=DIR: the daemons, zkpipe and libzkpipe-supraseal of another build directory
#                      (an earlier commit's worktree, set up with CUDA), with this tree's ss_cmp (the driver; the ABI
#                      is the same): device-steps.sh p27ab runs a 2^27 partition through both, same key and inputs
# Usage: scripts/gpu-bundles.sh [PEERS_DIR]   (BUILD=dir as for gpu-bin.sh; WHAT="bin ssc2 drive" any subset)
set -eu
cd "$(dirname "$0")/.."
PEERS=${1:-}; WHAT=${WHAT:-bin ssc2 drive}
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p .gpu; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
commit="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!bench/RESULTS.md' || echo +changes)"
for w in $WHAT; do case $w in
  bin)
    scripts/gpu-bin.sh "$T/bin" tests/cuda/plan_test >/dev/null
    rm -f "$T/bin/setup_gpu" "$T/bin/ss_gather_gpu" "$T/bin/ss_harness"   # not run by device-steps.sh: the 64 MiB
    echo "$commit" > "$T/bin/COMMIT"; tar czf .gpu/bin.tgz -C "$T" bin ;;
  ssc2)
    GPU_BIN_ONLY=1 scripts/gpu-bin.sh "$T/ssc2/bin" tools/zkpipe tests/supraseal/ss_cmp supraseal/libzkpipe-supraseal.so.0.1.0 >/dev/null
    echo "$commit" > "$T/ssc2/bin/COMMIT"; mkdir -p "$T/ssc2/peer" "$T/ssc2/shim"
    cc -O2 -shared -fPIC -Isupraseal -Wl,-soname,libzkpipe-supraseal.so.0 \
      -Wl,--version-script,supraseal/libzkpipe-supraseal.map -o "$T/ssc2/shim/libzkpipe-supraseal.so.0" \
      bench/supraseal/ssc2_shim.c -ldl
    if [ -n "$PEERS" ]; then
      cp "$PEERS"/lib*.so "$T/ssc2/peer/"
      for f in PROVENANCE PEERS.txt; do if [ -f "$PEERS/$f" ]; then cp "$PEERS/$f" "$T/ssc2/peer/PROVENANCE"; fi; done
    fi
    tar czf .gpu/ssc2.tgz -C "$T/ssc2" bin peer shim ;;
  before)
    [ -n "${BEFORE:-}" ] && [ -f "$BEFORE/build.ninja" ] || { echo "gpu-bundles.sh: before needs BEFORE=<a build directory>" >&2; exit 2; }
    BUILD=$(readlink -f "$BEFORE") GPU_BIN_ONLY=1 scripts/gpu-bin.sh "$T/before/bin" tools/zkpipe \
      supraseal/libzkpipe-supraseal.so.0.1.0 >/dev/null
    ninja -C "${BUILD:-build}" tests/supraseal/ss_cmp >/dev/null && cp "${BUILD:-build}/tests/supraseal/ss_cmp" "$T/before/bin/"
    echo "$(git -C "$BEFORE/.." rev-parse --short HEAD 2>/dev/null || echo unknown) (ss_cmp: $commit)" > "$T/before/bin/COMMIT"
    tar czf .gpu/before.tgz -C "$T/before" bin ;;
  drive)
    ZKPIPE_SUPRASEAL_LIB_DIR=$PWD/${BUILD:-build}/supraseal cargo build -q --release --offline --example porep_stream \
      --manifest-path rust/supraseal-c2/Cargo.toml --target-dir "${CARGO_TARGET:-/tmp/zp-porep-stream}"
    cp "${CARGO_TARGET:-/tmp/zp-porep-stream}/release/examples/porep_stream" .gpu/ ;;
  *) echo "gpu-bundles.sh: unknown piece '$w' (bin, ssc2, drive, before)" >&2; exit 2 ;;
esac; done
ls -la .gpu/*.tgz .gpu/porep_stream 2>/dev/null | awk '{ printf "%s %.1f MB\n", $NF, $5 / 1048576 }'
