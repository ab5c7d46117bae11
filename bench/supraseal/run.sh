#!/usr/bin/env bash
# libzkpipe-supraseal overhead: per-partition time the library and the hand-off add to a proof.
# A supervisor (1 gpud on every CPU, CPU backend), a PoRep-shaped dev key per size (328 public
# inputs, .params, roots 7), then REPS one-partition calls through generate_groth16_proofs_c per
# size; the library's stats give copy-in, slot wait, hand-off (READY -> gpud starts), gpud's proof
# time (H + MSMs + finish + pairing self-check) and the call's total. overhead = total - prove.
# Prints a table and appends it to bench/RESULTS.md.
# Copy-in bandwidth = payload bytes / the library's copy_ms (best and median). MODES (default
# "stream", this build's library: streaming stores) runs each size with each mode, alternating process
# by process; the mode "preload" runs the harness with LD_PRELOAD=$PRELOAD (e.g. an older build of the
# library, for before/after).
# BACKEND=cuda proves on the GPU (gpud's [group] backend); BIN=DIR takes prebuilt binaries
# (scripts/gpu-bin.sh DIR tests/supraseal/ss_harness supraseal/libzkpipe-supraseal.so.0) instead of
# building here (a GPU host has no build dependencies).
# PARTS=k (default 1) partitions a call, as bellperson sends a PoRep's 10: the library copies the
# next partition into a free slot while gpud proves the previous one. With BACKEND=cuda gpud's
# DMA slot -> GPU (COPY_START -> COPY_END, the library's take_ms) is counted as proving work, as
# supraseal-c2's own host -> device upload is inside its proof: overhead = total - prove - DMA.
#   usage: [MODES="stream preload"] [BACKEND=cpu] [BIN=] [PARTS=1] bench/supraseal/run.sh [LOG2 sizes, default "14 16 17"] [REPS=3]
set -eu
cd "$(dirname "$0")/../.."
BACKEND=${BACKEND:-cpu}
if [ -n "${BIN:-}" ]; then
  BIN=$(readlink -f "$BIN"); SUPV=$BIN/zkpipe-supervisor; H=$BIN/ss_harness
  export LD_LIBRARY_PATH="$BIN:$BIN/lib:${LD_LIBRARY_PATH:-}"
else
  bash scripts/build.sh
  B=$PWD/build; SUPV=$B/supervisor/zkpipe-supervisor; H=$B/tests/supraseal/ss_harness
fi
SIZES=${1:-"14 16 17"}; REPS=${2:-3}; PUB=328; PARTS=${PARTS:-1}
T=$(mktemp -d /tmp/zpbench.XXXXXX)
maxk=0; for k in $SIZES; do [ "$k" -gt "$maxk" ] && maxk=$k; done
slot=$(( (1 << maxk) * 160 / 1048576 + 4 ))
cat > "$T/zkpipe.ini" <<INI
[run]
dir = $T/run
keep_arena = no
[key chain]
zkey = $PWD/examples/chain/chain.zkey
[group node0]
node = 0
gpus = 1
synth_workers = 1
slots = 2
slot_size = ${slot}M
jobs = 16
max_parts = $(( PARTS > 4 ? PARTS : 4 ))
backend = $BACKEND
INI
export ZKPIPE_CONFIG=$T/zkpipe.ini
"$SUPV" --config "$ZKPIPE_CONFIG" >"$T/sup.log" 2>&1 & SUP=$!
trap 'kill -TERM $SUP 2>/dev/null; wait $SUP 2>/dev/null; rm -rf "$T"' EXIT
sleep 1
rows=""
for k in $SIZES; do
  rows_k=$(( (1 << k) - PUB - 1 ))
  t0=$(date +%s.%N)
  "$H" keygen "$T/k$k.params" "$rows_k" "$PUB" >/dev/null
  echo "2^$k: key in $(python3 -c "print(round($(date +%s.%N)-$t0,1))") s" >&2
  "$H" prove "$T/k$k.params" "$rows_k" "$PUB" 1 >/dev/null   # warm-up: gpud loads the key
  declare -A outs=()
  for rep in 1 2 3; do for m in ${MODES:-stream}; do
    pre=""; [ "$m" = preload ] && pre=$PRELOAD
    o=$(LD_PRELOAD=$pre "$H" prove "$T/k$k.params" "$rows_k" "$PUB" "$PARTS" --repeat "$REPS" --stats)
    outs[$m]+="$o"$'\n'
  done; done
  for m in ${MODES:-stream}; do
  out=${outs[$m]}
  echo "$out" | grep -E "stats|timeline" >&2
  row=$(echo "$out" | K=$k M=$m DMA=$([ "$BACKEND" = cuda ] && echo 1 || echo 0) python3 -c '
import os, re, sys
runs = []
first = False
for l in sys.stdin:
    if l.startswith("call "): first = l.startswith("call 0:")
    if l.startswith("stats:") or l.startswith("timeline:"):
        d = dict((m.group(1), float(m.group(2))) for m in re.finditer(r"(\w+)_ms ([0-9.]+)", l))
        b = re.search(r"bytes (\d+)", l)
        if b: d["bytes"] = float(b.group(1))
        pp = re.search(r"parts (\d+)", l)
        if pp: d["parts"] = int(pp.group(1))
        if l.startswith("stats:"): d["first"] = first
        if l.startswith("stats:"): runs.append(d)
        else: runs[-1].update(("t_" + k, v) for k, v in d.items())
runs = [r for r in runs if not r["first"]] or runs  # a process'"'"'s first call also connects: drop it
med = lambda f: sorted(r[f] for r in runs)[len(runs) // 2]
bw = sorted(r["bytes"] / r["copy"] / 1e6 for r in runs if r["copy"] > 0)
dma = os.environ["DMA"] == "1"
for r in runs:
    r["work"] = r["prove"] + (r.get("take", 0) if dma else 0)
    r["ov"] = r["total"] - r["work"]
    r["ovr"] = r["ov"] / r["work"]
P = runs[0]["parts"]
tot, wk = med("total") / P, med("work") / P
ov = med("ov") / P
print("| 2^%s | %s | %d | %d | %.1f | %s | %.2f | %.2f | %.2f | %.2f / %.2f | %.2f | %.2f | %.2f | %.2f %% |" % (os.environ["K"], os.environ["M"], P, len(runs), med("prove") / P,
      "%.1f" % (med("take") / P) if dma else "-", tot, med("t_ready"), med("copy") / P, bw[-1], bw[len(bw) // 2],
      med("t_gpu_start") - med("t_ready"), med("t_total") - med("t_gpu_end"), ov, 100 * med("ovr")))')
  echo "$row" >&2
  rows="$rows$row"$'\n'
  done
  unset outs
done
table="| domain | copy path | partitions a call | calls | gpud proof ms a partition | DMA slot -> GPU ms a partition | call total ms a partition | call -> last READY ms (checks, slots, copy-in) | copy-in ms a partition | copy-in GB/s best / median | last READY -> gpud starts ms (hand-off: copy-out, or DMA to the GPU) | last proof -> call returns ms | overhead ms a partition | overhead / (proof + DMA) |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
$rows"
echo "$table"
{
  echo
  echo "## libzkpipe-supraseal: per-partition overhead vs proof time ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo
  echo "Machine: $(uname -sr) $(uname -m); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(nproc) CPUs"
  echo
  echo "Command: \`MODES=\"${MODES:-stream}\" BACKEND=$BACKEND PARTS=$PARTS bench/supraseal/run.sh \"$SIZES\" $REPS\` ($PARTS-partition calls of a synthetic PoRep-shaped circuit, 328 public inputs, through a running pipeline: 1 gpud, backend $BACKEND$( [ "$BACKEND" = cuda ] && nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | sed 's/^/ on /'), CPU work on all CPUs; 3 processes x $REPS calls per copy path, the paths alternating process by process, each process's first call dropped; medians unless marked; gpud proof time includes its pairing self-check; overhead = call total - gpud proof$( [ "$BACKEND" = cuda ] && echo " - gpud DMA slot -> GPU (supraseal-c2 uploads inside its proof too)"), per partition)"
  echo
  echo "$table"
} >> "${RESULTS:-bench/RESULTS.md}"
