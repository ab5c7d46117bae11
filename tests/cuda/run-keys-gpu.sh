#!/usr/bin/env bash
# Issue 22 items 1 and 2 on the GPU host (builds nothing; root for hugepages and drop_caches):
#   check    the GPU's .params decoding and checks against the CPU's, point by point, planted bad points of
#            every kind in G1 and G2 (params_gpu_test check), and the kernel's speed (params_gpu_test bench)
#   store    proof bytes: CPU backend = CUDA backend making the split bases = CUDA backend taking them from
#            a split store (g16_backend_cmp synth 20 with G16_CMP_SPLIT_STORE=1)
#   upload   a hugetlbfs key region to the GPU each way cuda/upload.c has (upload_bench UP_GIB): register
#            whole then copy, pinning piece i+1 while piece i goes up, a bounce ring
#   restart  gpud restart -> ready at 2^LOG27 (restart_small: 2^LOG_SMALL) (setup = device key, PoRep-shaped): the first
#            start makes the key on the GPU, keeps it in its key region and the split bases in their split
#            region; then RESTARTS x (SIGKILL gpud, the supervisor restarts it, the key and split bases come
#            from the regions): median; per-phase times from gpud's log (ZP_CUDA_VERBOSE=1)
#   params   a synthetic PoRep-shaped .params (2^PARAMS_LOG, ~47 GB at 27, scaled down to the free disk):
#            first at 2^16 with planted bad points (flags, coordinate, off curve, (0,0), outside the subgroup;
#            G1 and G2): the GPU load must fail naming the same point with the same message as the CPU load,
#            and a clean file must decode to the same bytes on both; then load into a key region with every
#            check on the GPU, warm (page cache) and cold (drop_caches), against dd's read of the same file
#   oneshot  (not by default) `zkpipe synth prove --backend cuda` at 2^20, one-shot policy against ZP_CUDA_SPLIT=1
#
#   tests/cuda/run-keys-gpu.sh BIN_DIR    BIN_DIR: GPU_BIN_ONLY=1 scripts/gpu-bin.sh BIN_DIR bench/keys/params_bench
#                                         bench/keys/upload_bench tests/cuda/params_gpu_test tests/cuda/g16_backend_cmp
#   env: PARTS="check store upload restart restart_small params"  LOG27=27 LOG_SMALL=24 RESTARTS=3 UP_GIB=16 PARAMS_LOG=27
#        BUDGET_S=460 (a part that would not fit in what is left is skipped and says so)  D=/tmp/zpkeys
#        CHECK_BENCH=0 (no kernel timings)  CPU_ROW=0 (no CPU load row)
# Every step has its own timeout. Prints a table last; logs under $OUT when set.
set -u
: "${1:?usage: run-keys-gpu.sh BIN_DIR}"   # in $(...) a failed ${N:?} would only end the subshell
BIN=$(readlink -f "$1")
cd "$(dirname "$0")/../.."
PARTS=${PARTS:-check store upload restart restart_small params}; LOG27=${LOG27:-27}; LOG_SMALL=${LOG_SMALL:-24}; RESTARTS=${RESTARTS:-3}
UP_GIB=${UP_GIB:-16}; PARAMS_LOG=${PARAMS_LOG:-27}; BUDGET_S=${BUDGET_S:-460}
D=${D:-/tmp/zpkeys}; O=${OUT:-$D/out}
[ -d "$BIN/lib" ] && export LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}"
rm -rf "$D"; mkdir -p "$D" "$O"
ROWS=()
row() { ROWS+=("$(printf '| %-66s | %s |' "$1" "$2")"); echo "## $1: $2"; }
now() { date +%s.%N; }
dt() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null); $(nproc) CPUs; $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); disk $(df -h --output=avail "$D" | tail -1) free; commit $(git rev-parse --short HEAD 2>/dev/null)"

NR0=$(cat /proc/sys/vm/nr_hugepages)
trap 'echo "$NR0" > /proc/sys/vm/nr_hugepages' EXIT
. tests/cuda/gpu-host.sh   # hugepages N, cleanup_regions (cwd: the repository root)
hugepages 0 >/dev/null
export ZKPIPE_HUGETLBFS=$(awk '$3 == "hugetlbfs" { print $2; exit }' /proc/mounts)

# ---------------------------------------------------------------- GPU checks = CPU checks
check_part() {
  timeout 120 "$BIN/params_gpu_test" check 262144 > "$O/check.log" 2>&1; local rc=$?
  cat "$O/check.log"
  row "check: GPU decode+checks = CPU, 2^18 G1 + 2^16 G2, planted bad points" "$([ $rc = 0 ] && echo PASS || echo "FAIL (rc $rc)"): $(grep -E '^G[12]' "$O/check.log" | sed 's/ (planted.*//' | tr '\n' ';')"
  [ "${CHECK_BENCH:-1}" = 1 ] || return 0
  timeout 120 "$BIN/params_gpu_test" bench 24 > "$O/check-bench.log" 2>&1
  cat "$O/check-bench.log"
  local r
  while IFS= read -r r; do
    row "check speed: $(echo "$r" | cut -d'|' -f2 | sed 's/^ //;s/ *$//')" "$(echo "$r" | awk -F'|' '{printf "%s ms, %s Mpoints/s, %s GB/s", $4, $5, $6}' | tr -s ' ')"
  done < <(grep '^| G' "$O/check-bench.log")
}

# ---------------------------------------------------------------- proof bytes with stored split bases
store_part() {
  G16_CMP_SPLIT_STORE=1 ZP_CUDA_VERBOSE=1 timeout 240 "$BIN/g16_backend_cmp" synth 20 1 > "$O/store.log" 2>&1; local rc=$?
  grep -E "PASS|FAIL|split|create in|up in" "$O/store.log" | cut -c1-220
  row "store: 2^20 proofs, CPU = CUDA (split made) = CUDA (split from store)" "$([ $rc = 0 ] && echo PASS || echo "FAIL (rc $rc)") ($(grep -c PASS "$O/store.log") checks passed, $(grep -c FAIL "$O/store.log") failed)"
}

# ---------------------------------------------------------------- uploads
upload_part() {
  local got; got=$(hugepages $(( UP_GIB * 512 + 64 )))
  timeout 240 "$BIN/upload_bench" "$UP_GIB" 2 > "$O/upload.log" 2>&1; local rc=$?
  cat "$O/upload.log"
  local r
  while IFS= read -r r; do
    row "upload ${UP_GIB} GiB region ($got pages): $(echo "$r" | awk -F'|' '{printf "%s, %s, %s thr, %s str", $2, $3, $4, $5}' | tr -s ' ')" \
      "$(echo "$r" | awk -F'|' '{printf "%s s, %s GB/s (pinning %s s, unpinning %s s)", $6, $7, $8, $9}' | tr -s ' ')"
  done < <(grep -E '^\| (whole|pin|ring) ' "$O/upload.log")
  row "upload: every copy checked" "$([ $rc = 0 ] && echo PASS || echo "FAIL (rc $rc)")"
  cleanup_regions; hugepages 0 >/dev/null
}

# ---------------------------------------------------------------- restart
restart_at() { # LOG
  local lg=$1 rows nv dom keyb splitb pages got R=$D/run$1
  rows=$(python3 -c "print(130300000 if $lg == 27 else int((1 << $lg) * 0.971))")
  read -r nv dom < <(python3 -c "
n=$rows; pub=328; nv=n+pub+1; d=1
while d < n+pub+1: d*=2
print(nv, d)")
  keyb=$(( nv * (2 * 96 + 192) + (nv - 329) * 96 + dom * 96 + 328 * 96 ))
  splitb=$(( lg >= 26 ? dom * 96 : 3 * (dom + nv * 3) * 96 + 3 * nv * 192 )) # 2^27: H in 2 parts; 2^24: H and A, B1, B2, C in 4
  # 2^27: the pool holds the key only (70 GiB; the first start's circuit and setup need the rest of the 126 GiB),
  # the split region then lives on /dev/shm (THP); smaller: both on hugetlbfs
  pages=$(( (keyb + (lg >= 27 ? 0 : splitb)) / 2097152 + 128 ))
  got=$(hugepages $pages); export ZKPIPE_HUGETLBFS=$(awk '$3 == "hugetlbfs" { print $2; exit }' /proc/mounts)
  row "restart 2^$lg: hugepages for key (+ split) regions" "$got of $pages wanted ($(awk -v b=$keyb -v s=$splitb 'BEGIN{printf "%.1f + %.1f", b/1073741824, s/1073741824}') GiB)"
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
restart_max_ms = 100
[key porep]
synth = synth:n=$rows,bool=0.99
setup = device
[group g]
gpus = 1
synth_workers = 1
slots = 1
slot_size = auto
jobs = 4
max_parts = 10
backend = cuda
synth_threads = $(nproc)
gpud_threads = $(nproc)
EOF
  local t0 t1 pid sup glog=$R/r/log/g.gpud0 first_to=$(( lg >= 27 ? 230 : 90 ))
  ready_n() { local n; n=$(grep -c "ready, done in" "$glog" 2>/dev/null); echo "${n:-0}"; }
  t0=$(now)
  ZP_CUDA_VERBOSE=1 "$BIN/zkpipe-supervisor" --config "$R/z.ini" >"$R/sup.log" 2>&1 &
  sup=$!
  # 2^27: once the key is in its region (the circuit and setup are done with their memory), the pool grows by
  # the split bases, so that their region is on hugetlbfs too (as an operator would size it); SPLIT_SHM=1 not
  if [ "$lg" -ge 27 ] && [ "${SPLIT_SHM:-0}" != 1 ]; then
    ( for _ in $(seq 1 1500); do grep -q "kept in region" "$glog" 2>/dev/null && break; sleep 0.2; done
      hugepages $(( pages + splitb / 2097152 + 64 )) > "$R/pool2" ) &
  fi
  for _ in $(seq 1 $(( first_to * 5 ))); do [ "$(ready_n)" -ge 1 ] && break; kill -0 $sup 2>/dev/null || break; sleep 0.2; done
  t1=$(now)
  grep -E "key porep|ready|region|CUDA backend: (create|split|the key)|memory by use" "$glog" | cut -c1-260 | tail -n 14
  row "restart 2^$lg: first start -> ready (setup on the GPU, no regions yet)" "$(dt "$t0" "$t1") s ($(grep -o 'ready, done in [0-9.]* s' "$glog" | head -1))"
  row "restart 2^$lg: first start: key into its region" "$(grep -o 'kept in region [^ ]* ([0-9.]* GiB, [0-9]* ms)' "$glog" | head -1 || echo none)"
  [ -s "$R/pool2" ] && row "restart 2^$lg: hugepages after the key was kept (for the split region)" "$(cat "$R/pool2")"
  row "restart 2^$lg: split region backing" "$(grep -o 'split bases kept for the next start in region [^ ]*' "$glog" | head -1); $(ls -la "${ZKPIPE_HUGETLBFS:-/nonexistent}" 2>/dev/null | grep -c split) on hugetlbfs, $(ls /dev/shm 2>/dev/null | grep -c split) on /dev/shm"
  row "restart 2^$lg: first start: split bases" "$(grep -o 'create in .*' "$glog" | head -1 | cut -c1-150); $(grep -o 'split bases offered to the key.s store in [0-9.]* s' "$glog" | head -1)"
  local ts=() i
  for i in $(seq 1 "$RESTARTS"); do
    [ "$(ready_n)" -ge "$i" ] || break
    pid=$(grep -o 'started gpud.0@g pid [0-9]*' "$R/sup.log" | tail -1 | awk '{print $4}')
    [ -n "$pid" ] || break
    local a b; a=$(now); kill -KILL "$pid"
    for _ in $(seq 1 900); do [ "$(ready_n)" -ge $(( i + 1 )) ] && break; sleep 0.05; done # <= 45 s
    b=$(now)
    [ "$(ready_n)" -ge $(( i + 1 )) ] && ts+=("$(dt "$a" "$b")")
  done
  grep -E "key porep|ready|region|CUDA backend: (create|split|the key)|kept|adopted|holding|handing" "$glog" "$R/sup.log" | cut -c1-260 | tail -n 10
  # proofs from the key as the last restart got it: a 2-partition job, every proof verified outside gpud
  local vk=$R/r/keys/porep.g.gpud0.vk.json nok=0 jid
  if jid=$(ZKPIPE_CONFIG=$R/z.ini "$BIN/zkpipe" submit --key porep --output "$R/out/j1" synth:1001 synth:1002 2>"$R/submit.err") &&
     ZKPIPE_CONFIG=$R/z.ini "$BIN/zkpipe" wait --timeout 400 $jid >/dev/null 2>&1; then
    for p in 0 1; do
      "$BIN/zkpipe" verify --vk "$vk" --proof "$R/out/j1/part-$p.proof.json" --public "$R/out/j1/part-$p.public.json" >/dev/null 2>&1 && nok=$((nok + 1))
    done
  fi
  row "restart 2^$lg: proofs after the last restart verified outside gpud" "$nok / 2 $(head -c 200 "$R/submit.err")"
  row "restart 2^$lg: restarts that adopted the key kept on the device (no upload)" "$(grep -c 'key adopted from the device' "$glog") of $RESTARTS; $(grep -o 'key adopted from the device ([^)]*)' "$glog" | tail -1)"
  row "restart 2^$lg: SIGKILL -> restarted gpud ready (median of ${#ts[@]}; target <= 5 s at 2^27)" "$(echo "${ts[@]:-}" | median) s (runs: ${ts[*]:-none}; gpud's own: $(grep -o 'ready, done in [0-9.]* s' "$glog" | sed 1d | awk '{print $4}' | tr '\n' ' '))"
  row "restart 2^$lg: restarts that took key and split bases from their regions" "$(grep -c 'key from region' "$glog") x key, $(grep -c 'split bases from the store' "$glog") x split bases"
  row "restart 2^$lg: last restart, key upload" "$(grep -o 'CUDA backend: the key: .*' "$glog" | tail -1 | cut -c21-200)"
  row "restart 2^$lg: last restart, split bases upload" "$(grep -o 'CUDA backend: the split bases from the store: .*' "$glog" | tail -1 | cut -c47-200)"
  row "restart 2^$lg: last restart, backend create" "$(grep -o 'CUDA backend: create in .*' "$glog" | tail -1 | cut -c15-220)"
  row "restart 2^$lg: last restart, gpud start -> key attached" "$(grep -E 'key from region' "$glog" | tail -1 | cut -c1-12) (gpud started $(grep -E 'gpud.*(start|pid)' "$glog" | tail -1 | cut -c1-12))"
  row "restart 2^$lg: device memory by use (GiB)" "$(grep -o 'device memory by use (GiB): .*' "$glog" | tail -1 | cut -d: -f2- | cut -c1-150)"
  cp "$glog" "$O/restart-$lg.gpud.log" 2>/dev/null; cp "$R/sup.log" "$O/restart-$lg.sup.log" 2>/dev/null
  kill -TERM $sup 2>/dev/null
  for _ in $(seq 1 100); do kill -0 $sup 2>/dev/null || break; sleep 0.2; done
  kill -KILL $sup 2>/dev/null; wait $sup 2>/dev/null
  cleanup_regions; rm -rf "$R"; hugepages 0 >/dev/null
}
restart_part() { restart_at "$LOG27"; }
restart_small_part() { restart_at "$LOG_SMALL"; }

# ---------------------------------------------------------------- .params
params_part() {
  local PB=$BIN/params_bench F=$D/small.params k v out_g out_c n_ok=0 n_bad=0
  drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }
  # correctness at 2^16: a clean file decodes to the same bytes on the GPU and the CPU; every planted bad point
  # is named the same way by both
  if [ "${PLANT:-1}" = 1 ]; then   # PLANT=0: the speed rows only
  timeout 30 "$PB" write "$F" 16 >/dev/null
  out_g=$(timeout 30 "$PB" load "$F" --gpu 2>/dev/null); out_c=$(timeout 60 "$PB" load "$F" --cpu 2>/dev/null)
  if [ -n "$out_g" ] && [ "${out_g##*hash=}" = "${out_c##*hash=}" ]; then n_ok=$((n_ok + 1)); else n_bad=$((n_bad + 1)); echo "clean: gpu [$out_g] cpu [$out_c]"; fi
  for v in 2 5; do for k in flags coord curve zero subgroup; do
    cp "$F" "$D/bad.params"; "$PB" plant "$D/bad.params" $k $v $(( (RANDOM % 900) + 17 ))
    out_g=$(timeout 30 "$PB" load "$D/bad.params" --gpu 2>&1 >/dev/null | grep 'params_bench:'); out_c=$(timeout 60 "$PB" load "$D/bad.params" --cpu 2>&1 >/dev/null | grep 'params_bench:')
    if [ -n "$out_g" ] && [ "$out_g" = "$out_c" ]; then n_ok=$((n_ok + 1)); echo "planted $k in vector $v: both: $out_g"
    else n_bad=$((n_bad + 1)); echo "planted $k in vector $v: MISMATCH gpu [$out_g] cpu [$out_c]"; fi
  done; done
  rm -f "$F" "$D/bad.params"
  row "params: GPU = CPU at 2^16 (clean file's bytes; 5 kinds x G1, G2 planted)" "$([ $n_bad = 0 ] && echo PASS || echo FAIL): $n_ok of $((n_ok + n_bad)) agree"
  fi
  # speed: the largest PoRep-shaped file that fits the disk and memory
  local lg=$PARAMS_LOG need avail mem
  while :; do
    need=$(python3 -c "d=1<<$lg; l=d//1000*971; a=329+l; b=a//4; print(864+24+(329+d-1+l+a+b)*96+b*192)")
    avail=$(df --output=avail -B1 "$D" | tail -1); mem=$(awk '/MemAvailable/ {print $2 * 1024}' /proc/meminfo)
    [ "$need" -lt $(( avail - (3 << 30) )) ] && [ $(( 2 * need )) -lt $(( mem - (12 << 30) )) ] && break
    lg=$((lg - 1))
  done
  [ "$lg" != "$PARAMS_LOG" ] && row "params: size" "scaled down to 2^$lg: $(( avail >> 30 )) GiB disk, $(( mem >> 30 )) GiB memory free"
  hugepages $(( need / 2097152 + 64 )) >/dev/null
  export ZKPIPE_HUGETLBFS=$(awk '$3 == "hugetlbfs" { print $2; exit }' /proc/mounts)
  F=$D/porep-$lg.params
  local t0 t1; t0=$(now); timeout 200 "$PB" write "$F" "$lg" >/dev/null; t1=$(now)
  local B; B=$(stat -c %s "$F")
  row "params 2^$lg: file" "$(awk -v b=$B 'BEGIN{printf "%.2f GB", b/1e9}') written in $(dt "$t0" "$t1") s"
  secs() { local a b; a=$(now); "$@" >/dev/null 2>&1; b=$(now); dt "$a" "$b"; }
  gbs() { awk -v b="$B" -v s="$1" 'BEGIN { printf "%.2f GB/s", (s > 0 ? b / s / 1e9 : 0) }'; }
  ld() { local l; l=$(timeout 150 env ${LDENV:-ZP_NONE=} "$PB" load "$F" "$@" 2>"$D/ld.err"); [ -n "$l" ] || { tail -2 "$D/ld.err" >&2; echo "FAIL"; return; }; echo "$l" | awk '{print $2}'; echo "$l" >> "$O/params-loads.log"; }
  local dd_c dd_w g_c g_w c_w
  # warm first: the file just written is in the page cache (the pool was reserved before it was written)
  t0=$(now); sync; t1=$(now)
  row "params 2^$lg: sync after writing" "$(dt "$t0" "$t1") s"
  cat "$F" > /dev/null
  dd_w=$(secs timeout 90 dd if="$F" of=/dev/null bs=16M)
  row "params 2^$lg: dd warm (page cache)" "$dd_w s, $(gbs "$dd_w")"
  g_w=$(ld --gpu --io buffered)
  row "params 2^$lg: load warm into a key region, every check on the GPU (target <= 20 s at 2^27)" "$g_w s, $(gbs "$g_w") ($(tail -1 "$O/params-loads.log" | grep -o 'idle=[0-9.]*'): reader waiting for the GPU)"
  if [ "${CPU_ROW:-1}" = 1 ]; then
    c_w=$(ld --cpu --io buffered --no-subgroup)
    row "params 2^$lg: load warm, CPU, curve checks only (the old path, no subgroup checks)" "$c_w s, $(gbs "$c_w")"
  fi
  drop; dd_c=$(secs timeout 150 dd if="$F" of=/dev/null bs=16M iflag=direct)
  row "params 2^$lg: dd cold (iflag=direct bs=16M)" "$dd_c s, $(gbs "$dd_c")"
  drop; g_c=$(ld --gpu)
  row "params 2^$lg: load cold, every check on the GPU (target <= 1.2 x dd)" "$g_c s, $(gbs "$g_c"), $(awk -v g="$g_c" -v d="$dd_c" 'BEGIN{printf "%.2f", g/d}') x dd ($(tail -1 "$O/params-loads.log" | grep -o 'io=[a-z]*'))"
  grep -h "loading" "$D/ld.err" | tail -1 | cut -c1-200
  rm -f "$F"; cleanup_regions; hugepages 0 >/dev/null
}

# ---------------------------------------------------------------- one-shot 2^20 (issue 22 item 5; not in the default PARTS:
# needs BIN_DIR/zkpipe, i.e. a bundle built without GPU_BIN_ONLY)
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
for p in $PARTS; do
  left=$((BUDGET_S - ($(date +%s) - START)))
  case $p in restart) want=$(( LOG27 >= 27 ? 200 : 60 ));; restart_small) want=45;; params) want=$(( PARAMS_LOG >= 26 ? 150 : 60 ));; *) want=30;; esac
  if [ "$left" -lt "$want" ]; then row "$p" "skipped: ${left} s of the time budget left"; continue; fi
  echo "# ---- $p ($(( $(date +%s) - START )) s in)"
  "${p}_part"
done
# the device returns at most 8 files: every log in one archive
( cd "$O" && ls | grep -v '^keys-logs.tgz$' > "$D/logs.lst" && [ -s "$D/logs.lst" ] && tar czf keys-logs.tgz -T "$D/logs.lst" && xargs rm -f < "$D/logs.lst" ) 2>/dev/null
echo
echo "# run-keys-gpu.sh: $(( $(date +%s) - START )) s"
echo "| what | result |"
echo "|---|---|"
printf '%s\n' "${ROWS[@]}"
