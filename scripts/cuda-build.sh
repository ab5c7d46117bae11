# scripts/cuda-build.sh — sourced (from the repository root) by the scripts that build CUDA binaries for a GPU
# host: scripts/gpu-bin.sh, scripts/gpu-ntt-bundle.sh, tests/cuda/run-{gpu-tests,g16-gpu,gpuscale}.sh,
# bench/gpu/build-*.sh. cuda_build [MESON_SETUP_ARG...]: the meson build directory BUILD (default build; relative
# to the repository root), set up with -Dcuda=enabled (and the arguments given) when it has no build.ninja yet.
# One configured without CUDA is refused in one line naming it (never reconfigured behind the user's back):
# meson configure BUILD -Dcuda=enabled, or BUILD=DIR for a second build directory.
# cuda_variant DIR CUDA_ARGS: DIR (set up with -Dcuda=enabled if new) builds with -Dcuda_args=CUDA_ARGS (the A/B
# variant builds of bench/gpu/build-*.sh; "" = the sources' defaults).
cuda_build() {
  BUILD=${BUILD:-build}
  export PATH=/usr/local/cuda/bin:$PATH
  if [ ! -f "$BUILD/build.ninja" ]; then
    meson setup "$BUILD" -Dcuda=enabled "$@" >/dev/null || { echo "meson setup $BUILD -Dcuda=enabled failed" >&2; return 1; }
  fi
  grep -q '^rule cuda_COMPILER' "$BUILD/build.ninja" || {
    echo "build directory $BUILD has no CUDA (configured with -Dcuda=disabled, or nvcc not found):" \
      "meson configure $BUILD -Dcuda=enabled, or BUILD=DIR for another build directory" >&2
    return 1
  }
}

cuda_variant() {
  if [ -f "$1/build.ninja" ]; then meson configure "$1" "-Dcuda_args=$2" >/dev/null
  else meson setup "$1" -Dcuda=enabled "-Dcuda_args=$2" >/dev/null; fi
}
