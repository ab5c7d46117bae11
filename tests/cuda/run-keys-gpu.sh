#!/usr/bin/env bash
# Issue 22 items 1, 2, 5, 6 on the GPU host (builds nothing; root for hugepages and drop_caches):
#   restart  gpud restart -> ready at 2^27 (setup = device key, PoRep-shaped, as bench/pipeline/gpu-e2e.sh):
#            the first start makes the key on the GPU and copies it into a key region (hugetlbfs); gpud
#            SIGKILLed, the restarted gpud takes the key from the region (no setup, no circuit) and uploads
#            it from page-locked memory. Also the device memory by use gpud logs.
#   params   a synthetic PoRep-shaped .params (bench/keys/run.sh: 2^PARAMS_LOG, ~47 GB at 27, scaled down
#            when the disk is short) loaded into a key region warm and cold against dd's raw read; every
#            check on all cores at 2^FULL_LOG, curve checks only at the large size (see the notes).
#   oneshot  `zkpipe synth prove --backend cuda` at 2^20 (one-shot policy: no split bases) against
#            ZP_CUDA_SPLIT=1 (the split bases every call made before).
#
#   tests/cuda/run-keys-gpu.sh BIN_DIR        BIN_DIR: scripts/gpu-bin.sh DIR bench/keys/params_bench (+ lib/)
#   env: PARTS="restart oneshot params"  LOG27=27 (the restart's domain)  PARAMS_LOG=23  FULL_LOG=19  D=/tmp/zpkeys
# Every step has its own timeout; by default the whole run stays under ~300 s (the 2^27 first start is ~130 s of
# it). Prints a table last.
set -u
BIN=$(readlink -f "${1:?usage: run-keys-gpu.sh BIN_DIR}")
cd "$(dirname "$0")/../.."
REPO=$PWD
PARTS=${PARTS:-restart oneshot params}; LOG27=${LOG27:-27}; PARAMS_LOG=${PARAMS_LOG:-23}; FULL_LOG=${FULL_LOG:-19}
D=${D:-/tmp/zpkeys}
[ -d "$BIN/lib" ] && export LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}"
rm -rf "$D"; mkdir -p "$D"
ROWS=()
row() { ROWS+=("$(printf '| %-62s | %s |' "$1" "$2")"); echo "## $1: $2"; }
now() { date +%s.%N; }
dt() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null); $(nproc) CPUs; $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); commit $(git rev-parse --short HEAD 2>/dev/null)"

NR0=$(cat /proc/sys/vm/nr_hugepages)
trap 'echo "$NR0" > /proc/sys/vm/nr_hugepages' EXIT
hugepages() { # N: the pool at N 2 MiB pages (compacting as gpu-e2e.sh does), a hugetlbfs mount; prints what it got
  local want=$1
  for _ in $(seq 1 10); do
    echo "$want" > /proc/sys/vm/nr_hugepages
    [ "$(cat /proc/sys/vm/nr_hugepages)" -ge "$want" ] && break
    echo 1 > /proc/sys/vm/compact_memory 2>/dev/null; sleep 0.5
  done
  grep -q hugetlbfs /proc/mounts || { mkdir -p /dev/hugepages && mount -t hugetlbfs -o pagesize=2M none /dev/hugepages; }
  cat /proc/sys/vm/nr_hugepages
}
export ZKPIPE_HUGETLBFS=$(awk '$3 == "hugetlbfs" { print $2; exit }' /proc/mounts)

# ---------------------------------------------------------------- restart at 2^27
restart_part() {
  local rows dom nv keyb pages got R=$D/run
  rows=$(python3 -c "print(130300000 if $LOG27 == 27 else int((1 << $LOG27) * 0.971))")
  read -r nv dom < <(python3 -c "
n=$rows; pub=328; nv=n+pub+1; d=1
while d < n+pub+1: d*=2
print(nv, d)")
  keyb=$(( nv * (2 * 96 + 192) + (nv - 329) * 96 + dom * 96 + 328 * 96 ))
  pages=$(( keyb / 2097152 + 64 ))
  got=$(hugepages $pages); export ZKPIPE_HUGETLBFS=$(awk '$3 == "hugetlbfs" { print $2; exit }' /proc/mounts)
  row "restart: hugepages for the key region" "$got of $pages wanted ($(awk -v b=$keyb 'BEGIN{printf "%.1f", b/1073741824}') GiB key)"
  mkdir -p "$R/out"
  cat > "$R/z.ini" <<EOF
[run]
dir = $R/r
allow_output = $R/out
backing = shm
keep_arena = no
[limits]
memory_limit = off
restart_min_ms = 100
[key porep]
synth = synth:n=$rows,bool=0.99
setup = device
[group g]
gpus = 1
synth_workers = 1
slots = 1
slot_size = 64M
jobs = 4
max_parts = 10
backend = cuda
synth_threads = $(nproc)
gpud_threads = $(nproc)
EOF
  # slot_size 64M: no partition is proved here (the restart is what is measured), so the arena stays small
  local t0 t1 t2 t3 pid1 pid2 glog=$R/r/log/g.gpud0
  t0=$(now)
  "$BIN/zkpipe-supervisor" --config "$R/z.ini" >"$R/sup.log" 2>&1 &
  local sup=$!
  ready_n() { local n; n=$(grep -c "ready, done in" "$glog" 2>/dev/null); echo "${n:-0}"; }
  for _ in $(seq 1 340); do [ "$(ready_n)" -ge 1 ] && break; kill -0 $sup 2>/dev/null || break; sleep 0.5; done # <= 170 s
  t1=$(now)
  grep -E "key porep|ready|region|memory by use|setup" "$glog" | tail -n 12
  row "restart: first start -> ready (setup on the GPU, no region yet)" "$(dt "$t0" "$t1") s ($(grep -o 'ready, done in [0-9.]* s' "$glog" | head -1))"
  row "restart: copy of the key into its region (first start)" "$(grep -o 'kept in region [^ ]* ([0-9.]* GiB, [0-9]* ms)' "$glog" | head -1 || echo none)"
  pid1=$(grep -o 'started gpud.0@g pid [0-9]*' "$R/sup.log" | tail -1 | awk '{print $4}')
  if [ -n "$pid1" ] && [ "$(ready_n)" -ge 1 ]; then
    t2=$(now); kill -KILL "$pid1"
    for _ in $(seq 1 900); do [ "$(ready_n)" -ge 2 ] && break; sleep 0.05; done # <= 45 s
    t3=$(now)
    grep -E "key porep|ready|region|memory by use" "$glog" | tail -n 6
    row "restart: SIGKILL -> restarted gpud ready (key from region)" "$(dt "$t2" "$t3") s ($(grep -o 'ready, done in [0-9.]* s' "$glog" | sed -n 2p); target <= 5 s)"
    row "restart: the restarted gpud's key" "$(grep -c 'key from region' "$glog") x 'key from region'"
  fi
  row "restart: device memory by use (GiB)" "$(grep -o 'device memory by use (GiB): .*' "$glog" | tail -1 | cut -d: -f2- | cut -c1-150)"
  kill -TERM $sup 2>/dev/null
  for _ in $(seq 1 100); do kill -0 $sup 2>/dev/null || break; sleep 0.2; done # <= 20 s, then by force
  kill -KILL $sup 2>/dev/null; wait $sup 2>/dev/null
  rm -f "${ZKPIPE_HUGETLBFS:-/nonexistent}"/zkpipe.zp*.g.key.* /dev/shm/zkpipe.zp*.g.key.* 2>/dev/null # keep_arena = no did it
  echo "$NR0" > /proc/sys/vm/nr_hugepages
}

# ---------------------------------------------------------------- .params at disk speed
params_part() {
  local lg=$PARAMS_LOG need avail
  while :; do
    need=$(python3 -c "d=1<<$lg; l=d//1000*971; a=329+l; b=a//4; print(864+24+(329+d-1+l+a+b)*96+b*192)")
    avail=$(df --output=avail -B1 "$D" | tail -1)
    [ "$need" -lt $(( avail - (4 << 30) )) ] && break
    lg=$((lg - 1))
  done
  [ "$lg" != "$PARAMS_LOG" ] && row "params: size" "scaled down to 2^$lg: the disk has $(( avail >> 30 )) GiB free"
  hugepages $(( need / 2097152 + 64 )) >/dev/null
  export ZKPIPE_HUGETLBFS=$(awk '$3 == "hugetlbfs" { print $2; exit }' /proc/mounts)
  TMPDIR=$D timeout 60 bash bench/keys/run.sh "$lg" --bin "$BIN/params_bench" --curve-only | tee "$D/params-$lg.md"
  TMPDIR=$D timeout 40 bash bench/keys/run.sh "$FULL_LOG" --bin "$BIN/params_bench" | tee "$D/params-$FULL_LOG.md"
  local r
  for f in "$D/params-$lg.md" "$D/params-$FULL_LOG.md"; do
    while IFS= read -r r; do row "params 2^$(basename "$f" .md | cut -d- -f2): $(echo "$r" | cut -d'|' -f2 | sed 's/ *$//;s/^ //')" \
      "$(echo "$r" | cut -d'|' -f3,4 | sed 's/|/s,/') GB/s"; done < <(grep '^| [lr]' "$f")
  done
  echo "$NR0" > /proc/sys/vm/nr_hugepages
}

# ---------------------------------------------------------------- one-shot 2^20
oneshot_part() {
  local Z=$BIN/zkpipe spec=n=1000000
  timeout 45 "$Z" setup --synth "$spec" --out "$D/k20.zpk" --gpu >"$D/setup20.log" 2>&1 || { tail "$D/setup20.log"; row "oneshot: setup 2^20" FAIL; return; }
  ZP_CUDA_VERBOSE=1 timeout 30 "$Z" synth prove --synth "$spec" --key "$D/k20.zpk" --backend cuda --runs 2 >"$D/one.log" 2>&1
  ZP_CUDA_VERBOSE=1 ZP_CUDA_SPLIT=1 timeout 30 "$Z" synth prove --synth "$spec" --key "$D/k20.zpk" --backend cuda --runs 2 >"$D/split.log" 2>&1
  cat "$D/one.log" "$D/split.log" | grep -E "run|split|CUDA backend:" | cut -c1-200
  best() { grep -o 'self-check) [0-9.]* s' "$1" | awk '{print $2}' | sort -n | head -1; }
  row "oneshot: 2^20 prove step, one-shot policy (best of 2; target <= 0.4 s)" "$(best "$D/one.log") s"
  row "oneshot: 2^20 prove step, ZP_CUDA_SPLIT=1 (split bases each call)" "$(best "$D/split.log") s"
  row "oneshot: split bases made by the one-shot runs" "$(grep -c 'H MSM split' "$D/one.log") (want 0; ZP_CUDA_SPLIT=1 runs: $(grep -c 'H MSM split' "$D/split.log"))"
}

START=$(date +%s)
for p in $PARTS; do # stay within ~290 s: a part that would not fit is skipped and says so
  left=$((290 - ($(date +%s) - START)))
  if [ "$left" -lt 45 ]; then row "$p" "skipped: ${left} s of the time budget left"; continue; fi
  "${p}_part"
done
echo
echo "| what | result |"
echo "|---|---|"
printf '%s\n' "${ROWS[@]}"
