# gpu-host.sh — shell helpers of the GPU-host scripts (tests/cuda/run-keys-gpu.sh, bench/gpu/porep-params.sh,
# bench/supraseal/crate_porep.sh, bench/gpu/key-sharing.sh), sourced.
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
# The supraseal-ABI scripts' supervisor (bench/supraseal/crate_porep.sh, bench/gpu/key-sharing.sh):
# ss_slot_mb LOG: the slot (MiB) a PoRep-shaped partition of domain 2^LOG needs: 32 bytes x (inputs + aux +
#   3 x abc) + the bit vectors + the header.
ss_slot_mb() { echo $(( (32 * ((1 << $1) * 4 + 1024) + 3 * (1 << $1) / 8) / 1048576 + 8 )); }
# ss_config DIR BIN BACKEND SLOTS SLOT_MB MAX_PARTS [CAP] [MORE]: DIR/z.ini with run dir DIR/run (arena dropped at
#   the stop), no memory limit, a long start timeout, an idle configured key made in DIR (gpud needs one; the
#   registered .params are the work), one group of one GPU; CAP its gpu_memory (empty: the whole card); MORE lines
#   after it (a [debug] block). Exports ZKPIPE_CONFIG.
ss_config() {
  local d=$1 bin=$2 be=$3 slots=$4 slot=$5 maxp=$6 cap=${7:-} more=${8:-}
  mkdir -p "$d/out"
  "$bin/zkpipe" setup --cpu --synth n=1024,pub=1 --out "$d/idle.zpk" >/dev/null 2>&1 || { echo "FAIL: idle key"; return 1; }
  cat > "$d/z.ini" <<INI
[run]
dir = $d/run
keep_arena = no
allow_input = $d
allow_output = $d/out
[limits]
memory_limit = off
start_timeout_s = 1800
[key idle]
zkey = $d/idle.zpk
synth = synth:n=1024,pub=1
[group node0]
node = 0
gpus = 1
backend = $be
synth_workers = 1
slots = $slots
slot_size = ${slot}M
max_parts = $maxp
$([ -n "$cap" ] && echo "gpu_memory = $cap")
$more
INI
  export ZKPIPE_CONFIG=$d/z.ini
}
