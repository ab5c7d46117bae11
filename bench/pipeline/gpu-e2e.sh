#!/usr/bin/env bash
# End to end on a GPU host: zkpipe-supervisor + synthd x W + one gpud per GPU (backend cuda) proving
# PoRep-shaped synthetic partitions; every proof verified again outside gpud. Prints a table (per
# partition: synthesis, wait for the GPU, copy, GPU stage; partitions/s, time per 10-partition job,
# slot waits, peak RSS per process, arena size) and appends it to $RESULTS (default bench/RESULTS.md).
#
#   bench/pipeline/gpu-e2e.sh BIN_DIR
#   BIN_DIR: zkpipe, zkpipe-supervisor, zkpipe-synthd, zkpipe-gpud, zkpipe-shm, shared libraries in lib/
#   env: ROWS=130300000 (constraints)  BOOL=0.99 (share of rows whose output is a bit: 0.99 = "1 %",
#        0.75 = "25 %")  PARTS=10  JOBS=2  GPUS=1  WORKERS=1  SLOTS=2  SYNTH_THREADS=nproc/WORKERS
#        KEY=device (gpud makes the key on its GPU) | a .zpk/.zkey path   BACKEND=cuda
#        HUGE=1 (hugetlbfs arena; root)   RUN=/tmp/zpe2e   RESULTS=bench/RESULTS.md   LABEL=text
#        CIRCUIT=synth (PoRep-shaped, BLS12-381) | chain:bn128 | chain:bls12381 — the multiplication chain of
#        bench/groth16/gen_chain.py (ROWS constraints, default 2^20 - 2; one public output) as an r1cs and a
#        witness, with a development key from g16_devkey (BIN/g16_devkey: scripts/gpu-bin.sh DIR
#        bench/groth16/g16_devkey), made on the host's cores once and cached in DATA (default $RUN.data);
#        every partition proves that witness (synthd: a, b, c from the r1cs)
#        VERBOSE=2: ZP_CUDA_VERBOSE=2 for gpud (each proof's GPU stage times in its log; stages synchronized)
#        KEY_REGIONS=yes (no: gpud keeps no copy of the key for a restart, ~45 s less start at 2^27)
#        GPU_MEMORY=24G: each gpud plans its device memory as if its card had that much ([group] gpu_memory;
#        sizes as 24G, 24GiB, 24576M, bytes; unset or 0 = the whole card). A key that cannot be served on it
#        stops the run with gpud's reason
set -u
: "${1:?usage: gpu-e2e.sh BIN_DIR}"
BIN=$(readlink -f "$1")
cd "$(dirname "$0")/../.."
REPO=$PWD
CIRCUIT=${CIRCUIT:-synth}
case $CIRCUIT in synth) ROWS=${ROWS:-130300000};; chain:bn128|chain:bls12381) ROWS=${ROWS:-1048574};;
  *) echo "gpu-e2e.sh: CIRCUIT=$CIRCUIT: synth, chain:bn128 or chain:bls12381"; exit 2;; esac
BOOL=${BOOL:-0.99}; PARTS=${PARTS:-10}; JOBS=${JOBS:-2}; GPUS=${GPUS:-1}
WORKERS=${WORKERS:-1}; SLOTS=${SLOTS:-2}; KEY=${KEY:-device}; BACKEND=${BACKEND:-cuda}; HUGE=${HUGE:-1}
RUN=${RUN:-/tmp/zpe2e}; RESULTS=${RESULTS:-$REPO/bench/RESULTS.md}; LABEL=${LABEL:-}; KEY_REGIONS=${KEY_REGIONS:-yes}
NCPU=$(nproc); SYNTH_THREADS=${SYNTH_THREADS:-$((NCPU / WORKERS))}
[ -d "$BIN/lib" ] && export LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}"
Z=$BIN/zkpipe
[ "${VERBOSE:-0}" = 2 ] && export ZP_CUDA_VERBOSE=2
rm -rf "$RUN"; mkdir -p "$RUN/out"
PUB=328; KNAME=porep
if [ "$CIRCUIT" = synth ]; then
  SPEC="synth:n=$ROWS,bool=$BOOL"
else
  PRIME=${CIRCUIT#chain:}; PUB=1; KNAME=chain; DATA=$(readlink -m "${DATA:-$RUN.data}"); mkdir -p "$DATA"
  SPEC="chain:$PRIME,n=$ROWS"; c=$DATA/chain-$PRIME-$ROWS
  t=$(date +%s.%N)
  [ -f $c.wtns ] || python3 bench/groth16/gen_chain.py --prime $PRIME $ROWS $c.r1cs $c.wtns || exit 1
  [ -f $c.zkey ] || { "$BIN/g16_devkey" $c.r1cs $c.zkey.tmp && mv $c.zkey.tmp $c.zkey; } || exit 1
  echo "chain circuit and key: $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t}") s ($c.*)"
  KEY=$c.zkey
fi
# slot = 4 KiB header + w (n_vars) + a, b, c (domain each), 32 bytes a value
read NV DOM < <(python3 -c "
n=$ROWS; pub=$PUB; nv=n+pub+1; d=1
while d < n+pub+1: d*=2
print(nv, d)")
SLOT=$(( (4096 + (NV + 3 * DOM) * 32 + (2 << 20) - 1) / (2 << 20) * (2 << 20) ))
ARENA_MB=$(( SLOTS * GPUS * SLOT / 1048576 ))
backing=auto
if [ "$HUGE" = 1 ] && [ "$(id -u)" = 0 ]; then
  pages=$(( SLOTS * GPUS * SLOT / 2097152 + 64 ))
  # the kernel grows the pool as far as it can per write: compact and ask again until it is there
  for i in $(seq 1 60); do
    echo $pages > /proc/sys/vm/nr_hugepages
    [ "$(cat /proc/sys/vm/nr_hugepages)" -ge "$pages" ] && break
    echo 1 > /proc/sys/vm/compact_memory 2>/dev/null; sleep 0.5
  done
  grep -q hugetlbfs /proc/mounts || { mkdir -p /dev/hugepages && mount -t hugetlbfs none /dev/hugepages; }
  backing=hugetlbfs
  [ "$(cat /proc/sys/vm/nr_hugepages)" -ge "$pages" ] || { echo "hugepage pool short: using shm"; backing=shm; }
  echo "hugepages: $(cat /proc/sys/vm/nr_hugepages) x 2 MiB (wanted $pages)"
fi
if [ "$KEY" = device ]; then keyline="setup = device"; else keyline="zkey = $(readlink -f "$KEY")"; fi
[ "$CIRCUIT" = synth ] && keyline="synth = $SPEC
$keyline" || keyline="r1cs = $c.r1cs
$keyline"
inline=""; [ "$CIRCUIT" = synth ] || inline="allow_input = $DATA"
cat > "$RUN/z.ini" <<EOF
[run]
dir = $RUN/r
allow_output = $RUN/out
$inline
backing = $backing
keep_arena = no
key_regions = $KEY_REGIONS
[limits]
memory_limit = off
max_attempts = 3
[key $KNAME]
$keyline
[group g]
gpus = $GPUS
synth_workers = $WORKERS
slots = $((SLOTS * GPUS))
slot_size = $SLOT
jobs = 16
max_parts = $PARTS
backend = $BACKEND
synth_threads = $SYNTH_THREADS
gpud_threads = $NCPU
gpu_memory = ${GPU_MEMORY:-0}
EOF
t0=$(date +%s.%N)
"$BIN/zkpipe-supervisor" --config "$RUN/z.ini" >"$RUN/sup.log" 2>&1 &
SUP=$!
trap 'kill $SUP 2>/dev/null; wait $SUP 2>/dev/null' EXIT
# ready when every gpud logged "backend ... ready" (its key is resident); a key FAILED at load (its plan cannot be
# met on this card or GPU_MEMORY cap) ends the run with gpud's reason: every submit would be refused
for i in $(seq 1 1200); do
  n=$(cat "$RUN"/r/log/*gpud* 2>/dev/null | grep -c "backend $BACKEND ready" || true)
  [ "$n" -ge "$GPUS" ] && break
  if grep -h "FAILED at load\|DEGRADED" "$RUN"/r/log/*gpud* 2>/dev/null; then echo "a gpud cannot serve the key (GPU_MEMORY=${GPU_MEMORY:-0})"; exit 1; fi
  if ! kill -0 $SUP 2>/dev/null; then echo "supervisor died"; cat "$RUN/sup.log"; exit 1; fi
  sleep 0.5
done
t_ready=$(date +%s.%N)
echo "gpuds ready after $(awk "BEGIN{printf \"%.1f\", $t_ready - $t0}") s"
grep -h "key\|setup\|ready\|circuit" "$RUN"/r/log/*gpud* | tail -n 20
export ZKPIPE_CONFIG=$RUN/z.ini
ids=""
for j in $(seq 1 "$JOBS"); do
  inputs=""; for p in $(seq 1 "$PARTS"); do
    [ "$CIRCUIT" = synth ] && inputs="$inputs synth:$((j * 1000 + p))" || inputs="$inputs $c.wtns"; done
  id=$("$Z" submit --key $KNAME --output "$RUN/out/j$j" $inputs) || { echo "submit failed"; exit 1; }
  ids="$ids $id"
done
"$Z" wait --timeout 3000 $ids >/dev/null 2>&1 || "$Z" wait $ids
t_done=$(date +%s.%N)
"$Z" status > "$RUN/status.txt"
cat "$RUN/status.txt"
arena=$(grep -o "arena [^ ]*" "$RUN/status.txt" | head -1 | cut -d' ' -f2)
"$BIN/zkpipe-shm" --json "$arena" > "$RUN/shm.json" 2>/dev/null || true
# every proof again, outside gpud, with the verification key gpud wrote
vk=$(ls "$RUN"/r/keys/$KNAME*.vk.json 2>/dev/null | head -1)
vkarg="--vk $vk"; case "$KEY" in *.zkey) vk=$KEY; vkarg="--zkey $KEY";; esac
nver=0; nbad=0
for j in $(seq 1 "$JOBS"); do for p in $(seq 0 $((PARTS - 1))); do
  f=$RUN/out/j$j/part-$p
  va=$vkarg   # a device key is each gpud's own: take the vk of the gpud that proved this partition
  gi=$(python3 -c "import json; print(json.load(open('$f.gpu.json'))['gpud'])" 2>/dev/null)
  [ -n "$gi" ] && [ -f "$RUN/r/keys/$KNAME.g.gpud$gi.vk.json" ] && va="--vk $RUN/r/keys/$KNAME.g.gpud$gi.vk.json"
  if [ -n "$vk" ] && "$Z" verify $va --proof "$f.proof.json" --public "$f.public.json" >/dev/null 2>&1; then
    nver=$((nver + 1)); else nbad=$((nbad + 1)); fi
done; done
python3 - "$RUN" "$JOBS" "$PARTS" "$t_ready" "$t_done" "$nver" "$nbad" "$SLOT" "$((SLOTS * GPUS))" <<'EOF' > "$RUN/table.md"
import json, sys, glob, re, statistics as st
run, jobs, parts, t_ready, t_done, nver, nbad, slot, nslots = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]), int(sys.argv[8]), int(sys.argv[9])
res = [json.load(open(f)) for f in sorted(glob.glob(run + "/r/results/*.json"))]
rows = []
for r in res:
    for p in r["partitions"]:
        t = p["ts"]
        if p["state"] != "DONE" or "gpu_end" not in t:
            print("partition not done: %s %s" % (p["state"], r.get("error", "")), file=sys.stderr)
            continue
        rows.append(dict(synth=(t["synth_end"] - t["synth_start"]) / 1e9, wait=(t["copy_start"] - t["ready"]) / 1e9,
                         copy=(t["copy_end"] - t["copy_start"]) / 1e9, gpu=(t["gpu_end"] - t["gpu_start"]) / 1e9,
                         done=t["done"], start=t["claimed"]))
if not rows:
    print("no partition was proved"); sys.exit(0)
jw = [(r["done_ns"] - r["submit_ns"]) / 1e9 for r in res]
first = min(x["start"] for x in rows); last = max(x["done"] for x in rows)
n = len(rows)
rate = n / ((last - first) / 1e9)
# steady state: partitions finished after the first one, over the time since the first finished
dones = sorted(x["done"] for x in rows)
steady = (n - 1) / ((dones[-1] - dones[0]) / 1e9) if n > 1 else 0
med = lambda k: st.median(x[k] for x in rows)
mx = lambda k: max(x[k] for x in rows)
status = open(run + "/status.txt").read()
rss = {}
for m in re.finditer(r"^\s+\S+\s+(gpud|synthd)\s+(\d+)\s+pid \d+.*peak RSS (\d+) KiB", status, re.M):
    rss.setdefault(m.group(1), []).append(int(m.group(3)) / 1048576)
sup = re.search(r"supervisor pid \d+, up \d+ s, peak RSS (\d+) KiB", status)
try:
    shm = json.load(open(run + "/shm.json")); c = shm.get("counters", shm)
    waits = "%s claims waited, %.1f s" % (c.get("free_slot_waits", "?"), c.get("free_slot_wait_ns", 0) / 1e9)
except Exception:
    waits = "n/a"
logs = "".join(open(f).read() for f in glob.glob(run + "/r/log/*gpud*"))
setup = re.findall(r"key (?:porep|chain): .*", logs)
stages = re.findall(r"CUDA backend: (.+?) +([0-9.]+) ms$", logs, re.M) if __import__("os").environ.get("ZP_CUDA_VERBOSE") == "2" else []
print("| partitions | verified (outside gpud) | synthesis median / max | wait for GPU median | copy median | GPU stage median / max | partitions/s (all) | partitions/s (steady) | time per %d-partition job | slot waits | peak RSS GiB: gpud / synthd / supervisor | arena |" % parts)
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|")
print("| %d | %d/%d | %.2f / %.2f s | %.2f s | %.3f s | %.3f / %.3f s | %.3f | %.3f | %s | %s | %s / %s / %.2f | %d x %.2f GiB = %.1f GiB |" % (
    n, nver, nver + nbad, med("synth"), mx("synth"), med("wait"), med("copy"), med("gpu"), mx("gpu"), rate, steady,
    " / ".join("%.1f s" % x for x in jw), waits,
    " / ".join("%.2f" % x for x in rss.get("gpud", [])), " / ".join("%.2f" % x for x in rss.get("synthd", [])),
    int(sup.group(1)) / 1048576 if sup else 0, nslots, slot / 2**30, nslots * slot / 2**30))
for s in setup[-4:]:
    print("\ngpud: " + s.strip())
if stages:  # the last proof's stages (ZP_CUDA_VERBOSE=2), from "H step" on
    last = max(i for i, x in enumerate(stages) if x[0] == "H step")
    print("\ngpud GPU stages of the last proof (ms, each synchronized): " + ", ".join("%s %s" % x for x in stages[last:]))
EOF
cat "$RUN/table.md"
{
  echo
  echo "## pipeline on the GPU: $( [ "$CIRCUIT" = synth ] && echo "PoRep-shaped partitions" || echo "$SPEC partitions"), $LABEL ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo
  echo "Machine: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | sed 's/^ *//' | tr '\n' ' ')host $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
  echo
  echo "Command: \`CIRCUIT=$CIRCUIT ROWS=$ROWS BOOL=$BOOL PARTS=$PARTS JOBS=$JOBS GPUS=$GPUS WORKERS=$WORKERS SLOTS=$SLOTS KEY=$KEY bench/pipeline/gpu-e2e.sh BIN\`" \
       "(circuit $SPEC; $WORKERS synthd x $SYNTH_THREADS threads; $GPUS gpud, backend $BACKEND$( [ "${GPU_MEMORY:-0}" != 0 ] && echo ", device memory capped at $GPU_MEMORY"); key made $( [ "$KEY" = device ] && echo "on the GPU at gpud start" || echo "from $KEY"); gpuds ready $(awk "BEGIN{printf \"%.0f\", $t_ready - $t0}") s after start)"
  echo
  cat "$RUN/table.md"
} >> "$RESULTS"
[ "$nbad" = 0 ] && [ "$nver" -gt 0 ]
