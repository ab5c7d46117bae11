# gpu-host.sh — shell helpers of the GPU-host scripts (tests/cuda/run-keys-gpu.sh, bench/gpu/porep-params.sh), sourced.
# hugepages N: the 2 MiB pool at N pages (compacting between tries), a hugetlbfs mount; prints what it got
# (as root; otherwise it leaves the pool alone and prints it). cleanup_regions: key regions and arenas gone.
hugepages() {
  local want=$1
  if [ "$(id -u)" = 0 ]; then
    for _ in $(seq 1 10); do
      echo "$want" > /proc/sys/vm/nr_hugepages
      [ "$(cat /proc/sys/vm/nr_hugepages)" -ge "$want" ] && break
      echo 1 > /proc/sys/vm/compact_memory 2>/dev/null; sleep 0.5
    done
    grep -q hugetlbfs /proc/mounts || { mkdir -p /dev/hugepages && mount -t hugetlbfs -o pagesize=2M none /dev/hugepages; }
  fi
  cat /proc/sys/vm/nr_hugepages
}
cleanup_regions() { rm -f "${ZKPIPE_HUGETLBFS:-/nonexistent}"/zkpipe.* /dev/shm/zkpipe.* 2>/dev/null; }
