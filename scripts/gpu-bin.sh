#!/usr/bin/env bash
# Build zkpipe with CUDA here (nvcc, no GPU needed) and gather what a GPU host needs to run it into
# one folder: the daemons, the CLI, the GPU tests and benchmarks, and lib/ with the Debian libraries
# they link (the GPU host lacks nanomsg, liburing, ...). Usage: scripts/gpu-bin.sh DIR [EXTRA_TARGET...]
# On the GPU host: LD_LIBRARY_PATH=DIR/lib, then e.g. bench/pipeline/gpu-e2e.sh DIR.
# BUILD=dir: the meson build directory (default build; set up with CUDA if new: scripts/cuda-build.sh).
set -eu
cd "$(dirname "$0")/.."
dest=${1:?usage: scripts/gpu-bin.sh DIR [EXTRA_TARGET...]}; shift
. scripts/cuda-build.sh; cuda_build
targets="tools/zkpipe tools/zkpipe-shm supervisor/zkpipe-supervisor synthd/zkpipe-synthd gpud/zkpipe-gpud
         tests/cuda/gpu_test bench/cuda/gpu_bench tests/cuda/g16_backend_cmp tests/cuda/setup_gpu tests/supraseal/ss_harness tests/supraseal/ss_gather_gpu
         supraseal/libzkpipe-supraseal.so.0.1.0 $*"
# GPU_BIN_ONLY=1: the daemons and the EXTRA_TARGETs only (a smaller bundle: a device run's carry is 64 MiB)
[ "${GPU_BIN_ONLY:-0}" = 1 ] && targets="supervisor/zkpipe-supervisor synthd/zkpipe-synthd gpud/zkpipe-gpud $*"
ninja -C "$BUILD" $targets >/dev/null
mkdir -p "$dest/lib"
for t in $targets; do
  f=$(basename "$t"); case $f in *.so.*) f=${f%.*.*}; esac   # a library goes by its soname
  cp "$BUILD/$t" "$dest/$f"; strip "$dest/$f" 2>/dev/null || true
done
bash "${DEVICE_LIBS:-$(dirname "$PWD")/shared/tools/device-libs}" "$dest/lib" >/dev/null
# libpq (the cluster client in zkpipe and zkpipe-clusterd, cluster/): shared/tools/device-libs does not list
# it, and its own dependencies (OpenLDAP 2.5, SASL, ...) differ from the GPU host's: take it with everything
# it links beyond the C runtime, when the bundle has either. zkpipe loads it with dlopen on first use
# (cluster/db.c), so ldd of zkpipe does not show it: find libpq.so.5 as the loader would, in ld.so's cache.
case " $(echo $targets) " in *" tools/zkpipe "*|*" cluster/zkpipe-clusterd "*)
  ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
  pq=$("$ldconfig" -p | awk '$1 == "libpq.so.5" && /x86-64/ { print $NF; exit }')
  [ -n "$pq" ] || { echo "gpu-bin.sh: libpq.so.5 not in ldconfig -p (install libpq5)" >&2; exit 1; }
  cp -L "$pq" "$dest/lib/"
  ldd "$pq" | awk '$3 ~ /^\// { print $3 }' | grep -vE '/(libc|libm|libpthread|libdl|librt|libresolv|ld-linux[^/]*|libstdc\+\+|libgcc_s)\.so' |
    while read -r d; do cp -L "$d" "$dest/lib/"; done
esac
du -sh "$dest"
