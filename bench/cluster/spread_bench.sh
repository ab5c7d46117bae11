#!/usr/bin/env bash
# One job, many machines (issue 34 item 6), measured: the latency of one PARTS-partition job (default 10)
# on 1, 2 and 5 nodes (NODES_LIST), with partitions leased one by one (schema 4). Each node is a
# simulated node (zkpipe-clusterd --simulate-prove-ms, cluster/sim.h: the real clusterd code and SQL,
# no supervisor) with one simulated GPU proving a partition in PROVE_MS (default 2000 ms) and capacity
# CAP partitions (default 2: one proving, one waiting; the default capacity of a node of one slot),
# plain processes on this machine against one PostgreSQL server (Unix socket, fsync on).
# Per N: start N nodes, wait until all are UP, then REPEAT times: queue one job (one SQL statement +
# NOTIFY, as `zkpipe submit` does), wait until it is DONE, and read its latency from the database's
# clock (done_at - created_at) and which nodes proved its partitions. The table gives the median and
# the range, the ideal (ceil(PARTS / N) x PROVE_MS: one GPU a node, no overhead), and the machine's
# load average while it ran. Not a test: nothing here asserts a time.
# usage: bench/cluster/spread_bench.sh BUILD_DIR [--results bench/RESULTS.md]
set -u
SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
: "${1:?build dir}"
BUILD=$(cd "$1" && pwd); shift
RESULTS=""; [ "${1:-}" = --results ] && RESULTS=$(realpath "$2")
NODES_LIST=${NODES_LIST:-1 2 5}; PROVE_MS=${PROVE_MS:-2000}; PARTS=${PARTS:-10}; CAP=${CAP:-2}; REPEAT=${REPEAT:-3}
. "$SRCDIR/tests/cluster/lib.sh" "$BUILD" "$SRCDIR"
PG_OPTS="-c shared_buffers=128MB"
pg_init
"$ZK" cluster init --database "$DB" >/dev/null || fail "cluster init"
SIM_ARENA=zsp SIM_GPUS=1 SIM_CAP=$CAP SIM_VIEW_S=0
. "$SRCDIR/bench/cluster/sims.sh"

row() { # N: one table row on stdout
  local n=$1 i k id lat=() la0 la1 who
  psql_ "TRUNCATE zkpipe.jobs, zkpipe.inputs, zkpipe.partitions, zkpipe.events" >/dev/null
  start_sims "$n" "$PROVE_MS"
  la0=$(cut -d' ' -f1 /proc/loadavg)
  for k in $(seq 1 "$REPEAT"); do
    id=$(psql_ "WITH j AS (INSERT INTO zkpipe.jobs (key, nparts) VALUES ('sim', $PARTS) RETURNING id)
      INSERT INTO zkpipe.inputs (job, part, path) SELECT id, p, 'synth:' || (id * 100 + p) FROM j, generate_series(0, $((PARTS - 1))) p
      RETURNING job" | head -n 1)
    psql_ "SELECT pg_notify('zkpipe_jobs', 'sim')" >/dev/null
    wait_until 600 sql_is "SELECT state FROM zkpipe.jobs WHERE id = $id" = DONE ||
      fail "$n nodes: job $id not DONE"
    lat+=("$(psql_ "SELECT round(1000 * extract(epoch FROM done_at - created_at))::int FROM zkpipe.jobs WHERE id = $id")")
    who=$(psql_ "SELECT string_agg(node || ' ' || c, ', ' ORDER BY node) FROM (SELECT node, count(*) AS c FROM zkpipe.partitions WHERE job = $id GROUP BY node) x")
    echo "  $n node(s), job $id: ${lat[-1]} ms; partitions proved: $who" >&2
  done
  la1=$(cut -d' ' -f1 /proc/loadavg)
  stop_sims
  python3 - "$n" "$PROVE_MS" "$PARTS" "$la0" "$la1" "$who" "${lat[@]}" <<'PY'
import sys, math, statistics
n, ms, parts = map(int, sys.argv[1:4])
la0, la1, who = sys.argv[4:7]
lat = [int(x) for x in sys.argv[7:]]
ideal = math.ceil(parts / n) * ms
med = statistics.median(lat)
print(f"| {n} | {med / 1000:.2f} | {min(lat) / 1000:.2f}–{max(lat) / 1000:.2f} | {ideal / 1000:.1f} | "
      f"{med / ideal:.2f} | {who} | {la0} → {la1} |")
PY
}

OUT=$T/results.md
{
  echo "## Cluster: one ${PARTS}-partition job on 1, 2, 5 nodes, partitions leased one by one (bench/cluster/spread_bench.sh, $(date -u '+%Y-%m-%d %H:%M') UTC)"
  echo
  echo "Machine: $(uname -sr) $(uname -m); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(nproc) CPUs,"
  echo "$(free -g | awk '/^Mem/ {print $2}') GiB; load average at start $(cut -d' ' -f1-3 /proc/loadavg) (shared: a stress run of the"
  echo "whole test suite beside stress-ng, and other builds). PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on a Unix socket, fsync on."
  echo "Commit $(git -C "$SRCDIR" rev-parse --short HEAD). Command: \`bench/cluster/spread_bench.sh build --results bench/RESULTS.md\`"
  echo "(NODES_LIST=\"$NODES_LIST\" PROVE_MS=$PROVE_MS PARTS=$PARTS CAP=$CAP REPEAT=$REPEAT). Each node: plain processes (one"
  echo "zkpipe-clusterd --simulate-prove-ms $PROVE_MS, one simulated GPU, capacity $CAP, heartbeat 2 s, poll 1000 ms; the submit's"
  echo "NOTIFY wakes them). Latency: done_at − created_at on the database's clock; ideal: ceil($PARTS / N) × $PROVE_MS ms."
  echo
  echo "| nodes | latency s (median) | range s | ideal s | median / ideal | partitions proved (last job) | load average during |"
  echo "|---:|---:|---|---:|---:|---|---|"
} > "$OUT"
for n in $NODES_LIST; do
  log "$n node(s)" >&2
  row "$n" | tee -a "$OUT" >&2
done
echo >> "$OUT"
cat "$OUT"
if [ -n "$RESULTS" ]; then cat "$OUT" >> "$RESULTS"; fi
