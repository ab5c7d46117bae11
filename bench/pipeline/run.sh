#!/usr/bin/env bash
# Pipeline throughput and memory vs slot count: `zkpipe demo` (supervisor + W synthd +
# 1 gpud, CPU backend) on the bundled chain circuit with slots = 1, W, 2W; partitions/s,
# peak RSS of every process and the arena's slot data (must be slots x slot size whatever
# the load). Prints a table and appends it to bench/RESULTS.md.
#   usage: bench/pipeline/run.sh [JOBS=8] [PARTS=4] [WORKERS=2]
set -eu
cd "$(dirname "$0")/../.."
bash scripts/build.sh
JOBS=${1:-8}; PARTS=${2:-4}; W=${3:-2}
rows=""
for S in 1 $W $((2 * W)); do
  out=$(build/tools/zkpipe demo --jobs "$JOBS" --parts "$PARTS" --workers "$W" --gpuds 1 --slots "$S")
  echo "$out" | grep -E "verified|throughput" >&2
  row=$(echo "$out" | python3 -c '
import re, sys
t = sys.stdin.read()
rate = re.search(r"= ([0-9.]+) proofs/s", t).group(1)
ver = re.search(r"verified (\d+)/(\d+)", t)
rss = {}
for m in re.finditer(r"^\s+(?:node0\s+)?(supervisor|gpud|synthd)\s+(?:\d+\s+)?pid \d+\s+(\d+) KiB", t, re.M):
    rss.setdefault(m.group(1), []).append(int(m.group(2)))
arena = re.search(r"(\d+) slots x (\d+) MiB = (\d+) MiB of slot data \((\d+) MiB mapped", t)
print("| %s | %s | %s/%s | %d | %d | %s | %s MiB | %s MiB |" % (arena.group(1), rate, ver.group(1), ver.group(2),
      rss["supervisor"][0], rss["gpud"][0], " / ".join(str(x) for x in rss["synthd"]), arena.group(3), arena.group(4)))
')
  rows="$rows$row"$'\n'
done
table="| slots | partitions/s | verified | supervisor KiB | gpud KiB | synthd KiB | slot data | arena mapped |
|---:|---:|---:|---:|---:|---|---:|---:|
$rows"
echo "$table"
{
  echo
  echo "## pipeline: throughput vs slots, CPU backend ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo
  echo "Machine: $(uname -srm); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(nproc) CPUs"
  echo
  echo "Command: \`bench/pipeline/run.sh $JOBS $PARTS $W\` ($JOBS jobs x $PARTS partitions of examples/chain," \
       "1000 constraints; $W synthd, 1 gpud; peak RSS = VmHWM; slot size 2 MiB)"
  echo
  echo "$table"
} >> bench/RESULTS.md
