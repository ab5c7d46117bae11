#!/usr/bin/env bash
# How many nodes one PostgreSQL serves, measured: N simulated nodes (zkpipe-clusterd --simulate-prove-ms,
# cluster/sim.h: the real clusterd and SQL, no supervisor, each partition "proved" in PROVE_MS on one of
# the node's GPUS simulated GPUs) against one PostgreSQL server (fsync on, Unix socket) on this machine.
# Two regimes, each at every N of NODES_LIST:
#   farm: PROVE_MS = 1360 (a PoRep C2 partition on one H200, bench/RESULTS.md), jobs of PARTS = 10
#         partitions: the load a real farm of N single-GPU nodes puts on the database;
#   sat:  SAT_MS = 0, the same jobs: nodes ask as fast as clusterd goes, so the database (or this
#         machine) saturates: commits per second at saturation.
# The node settings are the defaults (heartbeat 2 s, poll 1000 ms, dead after 15 s), capacity 2 jobs.
# Per phase (database emptied before): queue enough jobs, start N nodes, wait until all are UP, WARM s,
# then a SECS s window: partitions committed in it (partitions.proved_at), the server's CPU (postmaster
# and all its children, /proc), statements and their execution time (pg_stat_statements), the nodes'
# own claim and commit round trips (sim-stats.tsv), the nodes' CPU, and the machine's CPU use by others.
# usage: bench/cluster/scale_bench.sh BUILD_DIR [--results bench/RESULTS.md]
set -u
SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
: "${1:?build dir}"
BUILD=$(cd "$1" && pwd); shift
RESULTS=""; [ "${1:-}" = --results ] && RESULTS=$(realpath "$2")
NODES_LIST=${NODES_LIST:-10 50 100 200}; MODES=${MODES:-farm sat}
PROVE_MS=${PROVE_MS:-1360}; SAT_MS=${SAT_MS:-0}; PARTS=${PARTS:-10}; GPUS=${GPUS:-1}
SECS=${SECS:-30}; WARM=${WARM:-10}
export GPUS PARTS
MAXN=$(echo $NODES_LIST | tr ' ' '\n' | sort -n | tail -1)
# PLANS=1: pg_stat_statements also times planning (track_planning), and the statements table gains plans, plan ms
PG_OPTS="-c shared_buffers=256MB -c shared_preload_libraries=pg_stat_statements ${PG_EXTRA:-} ${PLANS:+-c pg_stat_statements.track_planning=on}"
. "$SRCDIR/tests/cluster/lib.sh" "$BUILD" "$SRCDIR"
HZ=$(getconf CLK_TCK)
# lib.sh's pg_start with room for every node's connection (a later -c wins)
pg_start() {
  pg pg_ctl -D "$PG/data" -l "$PG/log" -w -t 60 -o "-k $PG -p $PORT -c listen_addresses='' $PG_OPTS \
    -c max_connections=$((MAXN + 20))" start >/dev/null || { tail "$PG/log"; fail "pg_ctl start"; }
  PG_UP=1
}
ulimit -n 65536 2>/dev/null

pg_init
"$ZK" cluster init --database "$DB" >/dev/null || fail "cluster init"
psql_ "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null || fail "pg_stat_statements"
# the node settings; the operator's view (cluster/view.c) off, as when the figures in bench/RESULTS.md were
# taken (VIEW_S=5 to count it)
SIM_ARENA=zps SIM_GPUS=$GPUS SIM_CAP=$((2 * PARTS)) SIM_VIEW_S=${VIEW_S:-0}
. "$SRCDIR/bench/cluster/sims.sh"
PM=$(head -1 "$PG/data/postmaster.pid")

pg_cpu() { # CPU seconds of the server: postmaster (with its reaped children) and its live children
  { awk '{print $14 + $15 + $16 + $17}' "/proc/$PM/stat"
    for c in $(ps -o pid= --ppid "$PM"); do awk '{print $14 + $15}' "/proc/$c/stat" 2>/dev/null; done
  } | awk -v hz="$HZ" '{s += $1} END {printf "%.3f", s / hz}'
}
nodes_cpu() { for p in $PIDS; do awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null; done | awk -v hz="$HZ" '{s += $1} END {printf "%.3f", s / hz}'; }

# phase MODE N: one table row on stdout
phase() {
  local mode=$1 n=$2 ms i need
  ms=$([ "$mode" = farm ] && echo "$PROVE_MS" || echo "$SAT_MS")
  psql_ "TRUNCATE zkpipe.jobs, zkpipe.inputs, zkpipe.partitions, zkpipe.events" >/dev/null
  psql_ "VACUUM ANALYZE" >/dev/null
  # enough work for the phase: the ideal rate (farm) or a generous ceiling (sat) for the start and warm-up,
  # topped up again just before the window (a loaded machine may take minutes to start 200 nodes)
  if [ "$mode" = farm ]; then need=$(( (n * GPUS * 1000 / (ms > 0 ? ms : 1) + 1) * (WARM + SECS + 60) ))
  else need=${SAT_PARTS:-$(( (SECS + WARM + 30) * 3000 ))}; fi
  queue() { # PARTITIONS
    psql_ "WITH j AS (INSERT INTO zkpipe.jobs (key, nparts) SELECT 'sim', $PARTS FROM generate_series(1, $(( $1 / PARTS + 1 ))) RETURNING id)
      INSERT INTO zkpipe.inputs (job, part, path) SELECT id, p, 'synth:' || (id * 100 + p) FROM j, generate_series(0, $((PARTS - 1))) p" >/dev/null ||
      fail "queue"
  }
  queue "$need"
  psql_ "ANALYZE" >/dev/null
  start_sims "$n" "$ms"
  sleep "$WARM"
  local q; q=$(psql_ "SELECT coalesce(sum(nparts), 0) FROM zkpipe.jobs WHERE state = 'QUEUED'")
  [ "$q" -ge "$need" ] || queue $((need - q))
  local c0 n0 t0 c1 n1 t1 ss la
  la=$(cut -d' ' -f1 /proc/loadavg)
  psql_ "SELECT pg_stat_statements_reset()" >/dev/null
  t0=$(date +%s.%N); c0=$(pg_cpu); n0=$(nodes_cpu)
  sleep "$SECS"
  c1=$(pg_cpu); n1=$(nodes_cpu); t1=$(date +%s.%N)
  local left; left=$(psql_ "SELECT count(*) FROM zkpipe.jobs WHERE state = 'QUEUED'") # at the window's end
  ss=$(psql_ "SELECT coalesce(sum(calls), 0) || ' ' || round(coalesce(sum(total_exec_time), 0)::numeric, 1) FROM pg_stat_statements
    WHERE query NOT LIKE '%pg_stat_statements%'")
  psql_ "SELECT calls, round(total_exec_time::numeric, 1), round((total_exec_time / calls)::numeric, 3),
    $( [ -n "${PLANS:-}" ] && echo "plans, round(total_plan_time::numeric, 1)," )
    left(regexp_replace(query, '\s+', ' ', 'g'), 110) FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'
    ORDER BY total_exec_time DESC LIMIT 10" > "$T/top.$mode.$n"
  local parts cs
  cs=$(psql_ "SELECT round(sum(total_exec_time)::numeric / greatest(sum(calls), 1), 2) || ' / ' || round(max(max_exec_time)::numeric, 1)
    FROM pg_stat_statements WHERE query LIKE 'WITH c AS (SELECT i.job, i.part FROM zkpipe.jobs%'")
  parts=$(psql_ "SELECT count(*) FROM zkpipe.partitions WHERE proved_at BETWEEN to_timestamp($t0) AND to_timestamp($t1)")
  [ "$left" -gt 0 ] || { echo "warning: $mode $n: the queue ran dry; raise the work queued" >&2; mode="$mode (queue ran dry)"; }
  stop_sims
  cat "$T"/n*/run/sim-stats.tsv > "$T/stats.$mode.$n" 2>/dev/null
  python3 - "$mode" "$n" "$ms" "$t0" "$t1" "$c0" "$c1" "$n0" "$n1" "$ss" "$parts" "$la" "$T/stats.$mode.$n" "$cs" <<'PY'
import sys, os
mode, n, ms, t0, t1, c0, c1, n0, n1, ss, parts, la, stats, cs = sys.argv[1:15]
n, ms, parts = int(n), int(ms), int(parts)
t0, t1 = float(t0), float(t1)
dt = t1 - t0
calls, exec_ms = ss.split()
G, P = int(os.environ["GPUS"]), int(os.environ["PARTS"])
claims, commits = [], []
for line in open(stats):
    if line.startswith("#"):
        continue
    what, wall, us, rows = line.split("\t")
    if t0 * 1000 <= int(wall) <= t1 * 1000:
        (claims if what == "claim" else commits).append(int(us) / 1000)
def pct(v, q):
    if not v:
        return float("nan")
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]
pg, nd = float(c1) - float(c0), float(n1) - float(n0)
ideal = n * G * 1000 / ms if ms else float("inf")
rate = parts / dt
pp = max(parts, 1)
eff = f"{100 * rate / ideal:.0f} %" if ms else "–"
ideal_s = f"{ideal:.1f}" if ms else "–"
print(f"| {mode} | {n} | {ms} | {rate:.1f} | {ideal_s} | {eff} | {pg / pp * 1000:.2f} | {float(exec_ms) / pp:.2f} | "
      f"{int(calls) / pp:.2f} | {len(claims)} | {pct(claims, .5):.1f} / {pct(claims, .99):.1f} / {max(claims or [0]):.0f} | {cs} | "
      f"{pct(commits, .5):.1f} / {pct(commits, .99):.1f} | {pg / dt:.2f} | {nd / dt:.2f} | {la} |")
PY
}

OUT=$T/results.md
{
  echo "## Cluster scale: N simulated nodes against one PostgreSQL (bench/cluster/scale_bench.sh, $(date -u '+%Y-%m-%d %H:%M') UTC)"
  echo
  echo "Machine: $(uname -sr) $(uname -m); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(nproc) CPUs,"
  echo "$(free -g | awk '/^Mem/ {print $2}') GiB; load average at start $(cut -d' ' -f1-3 /proc/loadavg) (shared with other work). PostgreSQL"
  echo "$("$PGBIN/postgres" --version | awk '{print $3}') on a Unix socket, fsync on, shared_buffers 256MB, pg_stat_statements. Commit"
  echo "$(git -C "$SRCDIR" rev-parse --short HEAD). Command: \`bench/cluster/scale_bench.sh build --results bench/RESULTS.md\`"
  echo "(NODES_LIST=\"$NODES_LIST\" PROVE_MS=$PROVE_MS SAT_MS=$SAT_MS PARTS=$PARTS GPUS=$GPUS SECS=$SECS WARM=$WARM). Each node: one"
  echo "zkpipe-clusterd --simulate-prove-ms, $GPUS simulated GPU(s), capacity $((2 * PARTS)) partitions, heartbeat 2 s, poll 1000 ms;"
  echo "jobs of $PARTS partitions."
  echo
  echo "| regime | nodes | ms / partition | partitions/s | ideal | of ideal | server CPU ms / partition | statement exec ms / partition | statements / partition | claims | claim ms p50 / p99 / max | claim in the server, ms mean / max | commit ms p50 / p99 | server CPU s/s | nodes CPU s/s | load |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---:|---:|---:|"
} > "$OUT"
for mode in $MODES; do
  for n in $NODES_LIST; do
    log "$mode, $n nodes" >&2
    phase "$mode" "$n" | tee -a "$OUT" >&2
  done
done
for mode in $MODES; do
  n=$(echo $NODES_LIST | tr ' ' '\n' | awk '$1 <= 100' | sort -n | tail -1)
  { echo; echo "Where the server's time goes ($mode, $n nodes; pg_stat_statements over the window: calls, total ms, ms per call, statement):"
    echo; echo '```'; cat "$T/top.$mode.$n"; echo '```'; } >> "$OUT"
done
echo >> "$OUT"
cat "$OUT"
if [ -n "$RESULTS" ]; then cat "$OUT" >> "$RESULTS"; fi
