#!/usr/bin/env bash
# A real PoRep-shaped .params at 2^LOG on a GPU host (issue 22 item 2), in one run that builds nothing:
#   key   `zkpipe setup --gpu --out k.params` (a dev key: roots 7, coefficient H, 328 public inputs, the
#         circuit ss_harness synthesizes), written as bellperson's .params (~47 GB at 2^27)
#   load  params_bench load into a key region, every check (flags, coordinates, curve, subgroup) on the GPU:
#         warm (page cache) and cold (O_DIRECT) against dd
#   job   a supervisor with one gpud (backend cuda) and ss_harness calling libzkpipe-supraseal as bellperson
#         does: REPS calls of PARTS partitions (--same-witness: one partition's memory), every proof verified;
#         gpud loads the key from the .params itself (its "loading" lines), per-partition times and the
#         library's overhead (bench/supraseal/run.sh's columns)
# Prints a table last. Usage: [LOG=27] [PARTS=10] [REPS=3] [STEPS="key load job"] [BACKEND=cuda] [KEEP=1: leave the key
#   in $D for a later run without the key step]
#   bench/gpu/porep-params.sh BIN_DIR     BIN_DIR: zkpipe, zkpipe-supervisor, zkpipe-synthd, zkpipe-gpud,
#   ss_harness, params_bench, libzkpipe-supraseal.so.0, lib/ (GPU_BIN_ONLY=1 scripts/gpu-bin.sh). BACKEND=cpu and a
#   small LOG: a dry run without a GPU (load with --cpu). GPU_MEMORY=24G: the job's gpud plans its device memory as
#   if the card had that much ([group] gpu_memory; 24G, 24GiB, 24576M, bytes; unset or 0 = the whole card).
set -u
: "${1:?usage: porep-params.sh BIN_DIR}"   # in $(...) a failed ${N:?} would only end the subshell
BIN=$(readlink -f "$1")
cd "$(dirname "$0")/../.."
LOG=${LOG:-27}; PARTS=${PARTS:-10}; REPS=${REPS:-3}; STEPS=${STEPS:-key load job}; BACKEND=${BACKEND:-cuda}
D=${D:-/tmp/zpporep}; O=${OUT:-$D/out}; PUB=328
export LD_LIBRARY_PATH="$BIN:$BIN/lib:${LD_LIBRARY_PATH:-}"
case " $STEPS " in *" key "*) rm -rf "$D";; esac   # without the key step: the key a KEEP=1 run left in $D
mkdir -p "$D" "$O"
ROWS=()
row() { ROWS+=("$(printf '| %-60s | %s |' "$1" "$2")"); echo "## $1: $2"; }
now() { date +%s.%N; }
dt() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null); $(nproc) CPUs; $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); disk $(df -h --output=avail "$D" | tail -1) free; commit $(git rev-parse --short HEAD 2>/dev/null)"
NR0=$(cat /proc/sys/vm/nr_hugepages); SUP=
trap '[ -n "$SUP" ] && kill -TERM $SUP 2>/dev/null; wait 2>/dev/null; echo "$NR0" > /proc/sys/vm/nr_hugepages 2>/dev/null; rm -f "${ZKPIPE_HUGETLBFS:-/nonexistent}"/zkpipe.* /dev/shm/zkpipe.* 2>/dev/null' EXIT
. tests/cuda/gpu-host.sh   # hugepages N, cleanup_regions (cwd: the repository root)
drop() { sync; [ -w /proc/sys/vm/drop_caches ] && echo 3 > /proc/sys/vm/drop_caches; }
hugepages 0 >/dev/null; export ZKPIPE_HUGETLBFS=$(awk '$3 == "hugetlbfs" { print $2; exit }' /proc/mounts)
rows=$(( (1 << LOG) - PUB - 1 )); K=$D/porep-$LOG.params; CHK=$([ "$BACKEND" = cuda ] && echo --gpu || echo --cpu)

key_step() {
  local t0 t1
  t0=$(now)
  timeout 420 "$BIN/zkpipe" setup --synth "n=$rows,pub=$PUB,win=256,gen=1" --h-mode coeff --roots 7 \
    $([ "$BACKEND" = cuda ] && echo --gpu) --out "$K" > "$O/setup.log" 2>&1 || { tail -5 "$O/setup.log"; row "key: setup 2^$LOG" FAIL; return 1; }
  t1=$(now)
  grep "ok:\|stages" "$O/setup.log" | cut -c1-230
  row "key: zkpipe setup 2^$LOG straight to .params" "$(awk -v b=$(stat -c %s "$K") 'BEGIN{printf "%.2f GB", b/1e9}') in $(dt "$t0" "$t1") s ($(grep -o 'write [0-9.]* s' "$O/setup.log"))"
}
load_step() {
  local B l need secs
  B=$(stat -c %s "$K"); need=$(( B / 2097152 + 64 ))
  hugepages "$need" >/dev/null
  gbs() { awk -v b="$B" -v s="$1" 'BEGIN { printf "%.2f GB/s", (s > 0 ? b / s / 1e9 : 0) }'; }
  ld() { # env...: one load into a fresh key region; prints the seconds
    cleanup_regions
    l=$(env "$@" timeout 200 "$BIN/params_bench" load "$K" $CHK ${IO:-} 2>"$D/ld.err")
    [ -n "$l" ] || { tail -2 "$D/ld.err" >&2; echo FAIL; return; }
    echo "$l" >> "$O/loads.log"; echo "$l" | awk '{print $2}'
  }
  cat "$K" > /dev/null
  local t0 t1; t0=$(now); timeout 120 dd if="$K" of=/dev/null bs=16M 2>/dev/null; t1=$(now)
  row "load: dd warm (page cache)" "$(dt "$t0" "$t1") s, $(gbs "$(dt "$t0" "$t1")")"
  secs=$(IO="--io buffered" ld ZP_NONE=)
  row "load warm, every check (target <= 20 s)" "$secs s, $(gbs "$secs") ($(tail -1 "$O/loads.log" | grep -o 'idle=[0-9.]*'))"
  drop; t0=$(now); timeout 200 dd if="$K" of=/dev/null bs=16M iflag=direct 2>/dev/null; t1=$(now)
  local ddc; ddc=$(dt "$t0" "$t1")
  row "load: dd cold (iflag=direct bs=16M)" "$ddc s, $(gbs "$ddc")"
  drop; secs=$(ld ZP_NONE=)
  row "load cold, every check (target <= 1.2 x dd)" "$secs s, $(gbs "$secs"), $(awk -v g="$secs" -v d="$ddc" 'BEGIN{printf "%.2f", g/d}') x dd ($(tail -1 "$O/loads.log" | grep -o 'io=[a-z]*'))"
  grep -h "loading" "$D/ld.err" | tail -1 | cut -c1-200
  cleanup_regions
}
job_step() {
  local slot slots=2 mem need_key
  slot=$(( (1 << LOG) * 160 / 1048576 + 4 ))
  mem=$(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo)
  need_key=$(( $(stat -c %s "$K") / 1048576 ))
  # the key region, the arena and the harness's one partition (~ slot) must fit: one slot when two do not
  [ $(( need_key + 3 * slot + 24576 )) -gt "$mem" ] && slots=1
  hugepages $(( (need_key + slots * slot) / 2 + 512 )) >/dev/null
  cat > "$D/z.ini" <<INI
[run]
dir = $D/run
keep_arena = no
[limits]
memory_limit = off
[key chain]
zkey = $PWD/examples/chain/chain.zkey
[group g]
gpus = 1
synth_workers = 1
slots = $slots
slot_size = ${slot}M
jobs = 16
max_parts = $PARTS
backend = $BACKEND
gpu_memory = ${GPU_MEMORY:-0}
INI
  export ZKPIPE_CONFIG=$D/z.ini
  drop   # gpud reads the .params from the disk, as after a reboot
  "$BIN/zkpipe-supervisor" --config "$D/z.ini" > "$D/sup.log" 2>&1 & SUP=$!
  for _ in $(seq 600); do grep -q "backend $BACKEND ready" "$D"/run/log/*gpud* 2>/dev/null && break; sleep 0.1; done
  local t0 t1; t0=$(now)
  ZP_CUDA_VERBOSE=1 timeout 400 "$BIN/ss_harness" prove "$K" "$rows" "$PUB" "$PARTS" --same-witness --stats --repeat "$REPS" \
    > "$O/job.out" 2> "$O/job.err"; local rc=$?
  t1=$(now)
  cat "$O/job.out" | cut -c1-250; tail -3 "$O/job.err"
  grep -h "loading\|params\|key from\|ready\|FAILED at load" "$D"/run/log/*gpud* 2>/dev/null | tail -6 | cut -c1-400
  cp "$D"/run/log/*gpud* "$O/" 2>/dev/null
  row "job: $REPS calls x $PARTS partitions, 2^$LOG, $slots slot(s) of ${slot} MiB$( [ "${GPU_MEMORY:-0}" != 0 ] && echo ", GPU memory cap $GPU_MEMORY")" "exit $rc, $(grep -c 'proved and verified' "$O/job.out") calls verified, $(dt "$t0" "$t1") s in all"
  local k v
  while IFS='|' read -r k v; do row "$k" "$v"; done < <(python3 - "$O/job.out" "$BACKEND" <<'EOF'

import re, sys
runs = []
for l in open(sys.argv[1]):
    d = dict((m.group(1), float(m.group(2))) for m in re.finditer(r"(\w+)_ms ([0-9.]+)", l))
    if l.startswith("stats:"): d["parts"] = int(re.search(r"parts (\d+)", l).group(1)); runs.append(d)
    elif l.startswith("timeline:") and runs: runs[-1].update(("t_" + k, v) for k, v in d.items())
if not runs: sys.exit(0)
dma = sys.argv[2] == "cuda"
for i, r in enumerate(runs):
    P = r["parts"]; work = r["prove"] + (r.get("take", 0) if dma else 0)
    print("job: call %d (%s): a partition|total %.1f ms, gpud proof %.1f ms, DMA slot->GPU %.1f ms, overhead %.1f ms (%.2f %%)" % (
        i, "includes gpud's .params load" if i == 0 else "key resident", r["total"] / P, r["prove"] / P,
        r.get("take", 0) / P if dma else 0, (r["total"] - work) / P, 100 * (r["total"] - work) / work))
EOF
)
  kill -TERM $SUP 2>/dev/null; wait $SUP 2>/dev/null; SUP=
}
for s in $STEPS; do
  case $s in key) key_step || break;; load) load_step;; job) job_step;; esac
done
[ "${KEEP:-0}" = 1 ] || rm -f "$K"
echo
echo "| what | result |"
echo "|---|---|"
printf '%s\n' "${ROWS[@]}"
