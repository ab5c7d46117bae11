#!/usr/bin/env bash
# Only gpud and the CLI link the CUDA runtime. Usage: cudart_links.sh HAVE_CUDA SYNTHD SUPERVISOR SHM GPUD ZKPIPE
# A program links it when it holds cudart's code: its symbols (nm) or, stripped, the driver library name
# cudart_static loads (strings). With CUDA, gpud and zkpipe must hold it (so this check can fail).
set -u
have_cuda=$1; shift
has_cudart() {
  nm "$1" 2>/dev/null | grep -qE ' [TtWw] (cudaMalloc|cudaGetDeviceCount|__cudaRegisterFatBinary)$' ||
    grep -qa 'libcuda\.so' "$1" || readelf -d "$1" 2>/dev/null | grep -q 'libcudart'
}
fails=0
for b in "$1" "$2" "$3"; do
  if has_cudart "$b"; then echo "FAIL: $b links the CUDA runtime (only zkpipe-gpud and zkpipe may)"; fails=$((fails + 1)); fi
done
if [ "$have_cuda" = 1 ]; then
  for b in "$4" "$5"; do
    has_cudart "$b" || { echo "FAIL: $b does not link the CUDA runtime in a CUDA build"; fails=$((fails + 1)); }
  done
fi
[ $fails -eq 0 ] && echo "cudart_links: synthd, supervisor, zkpipe-shm without the CUDA runtime"
exit $((fails > 0))
