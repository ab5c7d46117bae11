#!/usr/bin/env bash
# Cluster mode against a real PostgreSQL server on this machine (docs/cluster.md):
#  1. the same work (JOBS jobs x PARTS partitions of examples/chain, queued by one SQL statement) on
#     one node, then on three: throughput, claim -> start, database round trips and server load per job;
#  2. done -> visible to a client (`zkpipe wait --database` on NOTIFY + polling), sequential jobs;
#  3. the database alone: pgbench replays a node's per-job statements (claim, PARTS_DB partition
#     commits, done) from N concurrent clients, fsync on: jobs/s and latency as N grows.
# usage: bench/cluster/cluster_bench.sh BUILD_DIR [--results bench/RESULTS.md]
set -u
SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
: "${1:?build dir}"
BUILD=$(cd "$1" && pwd); shift
RESULTS=""; [ "${1:-}" = --results ] && RESULTS=$(realpath "$2")
JOBS=${JOBS:-40}; PARTS=${PARTS:-3}; PARTS_DB=${PARTS_DB:-10}; SECS=${SECS:-10}
PG_OPTS="-c shared_buffers=256MB"   # fsync and synchronous_commit on (the defaults)
. "$SRCDIR/tests/cluster/lib.sh" "$BUILD" "$SRCDIR"
OUT=$T/results.md
pg_init
"$ZK" cluster init --database "$DB" >/dev/null || fail "cluster init"

pg_cpu_s() { # CPU seconds so far of the server processes serving the nodes (their clusterd connections)
  local p
  for p in $(psql_ "SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'zkpipe-clusterd%'"); do
    awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null
  done | awk -v hz="$(getconf CLK_TCK)" '{s += $1} END {printf "%.3f", s / hz}'
}
db_stat() { psql_ "SELECT tup_inserted + tup_updated + tup_deleted FROM pg_stat_database WHERE datname = 'postgres'"; }
rts() { psql_ "SELECT coalesce(sum(round_trips), 0) FROM zkpipe.nodes WHERE state = 'UP'"; }
stop_nodes() {
  local n p
  for n in $NODES; do kill -TERM "$(cat "$T/$n/sup.pid")" 2>/dev/null; done
  for n in $NODES; do p=$(cat "$T/$n/sup.pid"); wait_until 30 dead "$p"; done
  NODES=""
}

# phase COUNT: COUNT nodes, the standard work; prints one table row
wait_until_slow() { local t=$1; shift; for _ in $(seq "$t"); do "$@" && return 0; sleep 1; done; return 1; }
phase() {
  local k=$1 n
  for n in $(seq 1 "$k"); do rm -rf "$T/p$k-n$n"; node_config "p$k-n$n"; start_node "p$k-n$n"; done
  for n in $(seq 1 "$k"); do wait_until 30 node_up "p$k-n$n" || fail "node p$k-n$n"; done
  sleep 3 # idle heartbeats, measured apart below
  local rt0 c0 s0 rt1 t0 t1 c1 s1 first last
  rt0=$(rts); c0=$(pg_cpu_s)
  sleep 5; rt1=$(rts); c1=$(pg_cpu_s)
  idle_rt=$(python3 -c "print(round(($rt1 - $rt0) / 5 / $k, 2))")
  idle_cpu=$(python3 -c "print(round(($c1 - $c0) / 5 / $k * 1000, 2))")
  rt0=$(rts); c0=$(pg_cpu_s); s0=$(db_stat)
  first=$(psql_ "SELECT coalesce(max(id), 0) FROM zkpipe.jobs")
  t0=$(date +%s.%N)
  psql_ "WITH j AS (INSERT INTO zkpipe.jobs (key, nparts) SELECT 'chain', $PARTS FROM generate_series(1, $JOBS) RETURNING id)
    INSERT INTO zkpipe.inputs (job, part, path) SELECT id, p, '$EX/w' || ((id + p) % 8) || '.wtns' FROM j,
    generate_series(0, $((PARTS - 1))) p; SELECT pg_notify('zkpipe_jobs', 'chain')" >/dev/null || fail "queue"
  wait_until_slow 900 sql_is "SELECT count(*) FROM zkpipe.jobs WHERE id > $first AND state <> 'DONE'" = 0 ||
    fail "phase $k did not finish"
  t1=$(date +%s.%N); rt1=$(rts); c1=$(pg_cpu_s); s1=$(db_stat)
  last=$(psql_ "SELECT max(id) FROM zkpipe.jobs")
  local lat; lat=$(psql_ "SELECT
      round(1000 * percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - claimed_at)))::int || ' / ' ||
      round(1000 * percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - claimed_at)))::int
    FROM zkpipe.jobs WHERE id > $first")
  python3 - "$k" "$t0" "$t1" "$rt0" "$rt1" "$c0" "$c1" "$s0" "$s1" "$lat" "$idle_rt" "$idle_cpu" <<'PY' >> "$OUT"
import sys, os
k, t0, t1, rt0, rt1, c0, c1, w0, w1, lat, irt, icpu = sys.argv[1:13]
J, P = int(os.environ["JOBS"]), int(os.environ["PARTS"])
dt = float(t1) - float(t0)
print(f"| {k} | {J} x {P} | {dt:.1f} | {J * P / dt:.2f} | {lat} | {(int(rt1) - int(rt0)) / J:.1f} | {irt} | "
      f"{(float(c1) - float(c0)) / J * 1000:.2f} | {icpu} | {(int(w1) - int(w0)) / J:.1f} |")
PY
  stop_nodes
}

export JOBS PARTS
{
  echo "## Cluster mode: nodes sharing one PostgreSQL (bench/cluster/cluster_bench.sh, $(date -u '+%Y-%m-%d %H:%M') UTC)"
  echo
  echo "Machine: $(uname -sr) $(uname -m); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(nproc) CPUs;"
  echo "load average at start $(cut -d' ' -f1-3 /proc/loadavg). PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on a Unix"
  echo "socket, fsync on. Commit $(git -C "$SRCDIR" rev-parse --short HEAD). Command: \`bench/cluster/cluster_bench.sh build --results bench/RESULTS.md\`"
  echo "(JOBS=$JOBS PARTS=$PARTS PARTS_DB=$PARTS_DB SECS=$SECS). Each node: 1 gpud + 1 synthd (CPU backend, ZP_THREADS=1), heartbeat 1 s."
  echo
  echo "Same work on one node, then three (queued by one SQL statement, finished when all are DONE):"
  echo
  echo "| nodes | jobs x parts | wall s | partitions/s | claim -> start ms (p50 / p90) | node round trips / job | idle round trips / node / s | server CPU ms / job (nodes' connections) | idle server CPU ms / node / s | rows written / job |"
  echo "|---:|---|---:|---:|---|---:|---:|---:|---:|---:|"
} > "$OUT"
phase 1
phase 3

# done -> visible: one node, sequential jobs, each waited for by `zkpipe wait --database`
node_config lat; start_node lat; wait_until 30 node_up lat || fail "node lat"
vis=""
for i in $(seq 1 10); do
  id=$("$ZK" submit --database "$DB" --key chain "$EX/w$((i % 8)).wtns") || fail "submit"
  "$ZK" wait --database "$DB" --timeout 60 "$id" >/dev/null || fail "wait"
  seen=$(date +%s.%N)
  vis="$vis $(psql_ "SELECT round(1000 * ($seen - extract(epoch FROM done_at)))::int || ':' ||
     round(1000 * extract(epoch FROM claimed_at - created_at))::int FROM zkpipe.jobs WHERE id = $id")"
done
stop_nodes
python3 - $vis <<'PY' >> "$OUT"
import statistics as s, sys
v = [tuple(map(int, x.split(":"))) for x in sys.argv[1:]]
d, q = sorted(a for a, _ in v), sorted(b for _, b in v)
print(f"\nDone -> visible to `zkpipe wait --database` (10 sequential 1-partition jobs, NOTIFY + 500 ms polling):"
      f" median {s.median(d)} ms, max {d[-1]} ms. Submit -> claimed (NOTIFY wakes the idle node): median {s.median(q)} ms,"
      f" max {q[-1]} ms.\n")
PY

# the database alone: a node's statements per job (schema 4: the job's partitions claimed in one statement,
# each committed in its own fenced transaction, the last one marking the job DONE), N concurrent clients
psql_ "WITH j AS (INSERT INTO zkpipe.jobs (key, nparts) SELECT 'pgb', $PARTS_DB FROM generate_series(1, ${PGB_JOBS:-100000}) RETURNING id)
  INSERT INTO zkpipe.inputs (job, part, path) SELECT id, p, '/x' FROM j, generate_series(0, $((PARTS_DB - 1))) p" >/dev/null
psql_ "ANALYZE" >/dev/null
PROOF=$(python3 -c "print('x' * 780)")
{
  echo "WITH c AS (SELECT i.job, i.part FROM zkpipe.jobs j JOIN zkpipe.inputs i ON i.job = j.id WHERE j.state IN ('QUEUED', 'RUNNING') AND j.key = ANY('{pgb}'::text[]) AND j.nparts <= 16 AND i.state = 'QUEUED' ORDER BY j.priority DESC, j.id, i.part LIMIT $PARTS_DB FOR UPDATE OF i SKIP LOCKED), s AS (SELECT nextval('zkpipe.epochs') AS e WHERE EXISTS (SELECT 1 FROM c)), u AS (UPDATE zkpipe.inputs i SET state = 'RUNNING', owner = 'pgb' || :client_id, epoch = s.e, claimed_at = now() FROM c, s WHERE i.job = c.job AND i.part = c.part RETURNING i.job, i.part, i.epoch), q AS (UPDATE zkpipe.jobs j SET state = 'RUNNING', claimed_at = now() WHERE j.id IN (SELECT job FROM u) AND j.state = 'QUEUED'), e AS (INSERT INTO zkpipe.events (job, node, epoch, what, detail) SELECT job, 'pgb', min(epoch), 'claimed', 'partition(s) ' || string_agg(part::text, ', ') FROM u GROUP BY job) SELECT min(job) AS job, min(epoch) AS ep FROM u"
  echo "\\gset"
  for p in $(seq 0 $((PARTS_DB - 1))); do
    echo "BEGIN;"
    echo "SELECT nparts FROM zkpipe.jobs WHERE id = :job AND state = 'RUNNING' FOR UPDATE;"
    echo "WITH u AS (UPDATE zkpipe.inputs SET state = 'DONE' WHERE job = :job AND epoch = :ep AND owner = 'pgb' || :client_id AND state = 'RUNNING' AND part = ANY('{$p}'::int[]) RETURNING part), ins AS (INSERT INTO zkpipe.partitions (job, part, proof, public, node, gpu, epoch, stages) SELECT :job, p.part, p.proof, p.public, 'pgb', p.gpu, :ep, p.stages FROM unnest('{$p}'::int[], '{$PROOF}'::text[], '{pub}'::text[], '{g}'::text[], '{\"{}\"}'::text[]) AS p(part, proof, public, gpu, stages) JOIN u ON u.part = p.part ON CONFLICT (job, part) DO NOTHING RETURNING part) SELECT coalesce((SELECT string_agg(part::text, ',') FROM u), ''), (SELECT count(*) FROM ins) + (SELECT count(*) FROM zkpipe.partitions WHERE job = :job) >= (SELECT nparts FROM zkpipe.jobs WHERE id = :job);"
    [ "$p" = $((PARTS_DB - 1)) ] &&
      echo "WITH u AS (UPDATE zkpipe.jobs SET state = 'DONE', done_at = now(), error = '' WHERE id = :job AND state = 'RUNNING' AND (SELECT count(*) FROM zkpipe.partitions WHERE job = :job) = nparts RETURNING id) INSERT INTO zkpipe.events (job, node, epoch, what) SELECT id, 'pgb', :ep, 'done' FROM u;"
    echo "COMMIT;"
  done
} > "$T/job.sql"
{
  echo "The database alone (pgbench, \`-f job.sql -T $SECS\`): one transaction = one job's statements as a node sends them"
  echo "(schema 4: one claim of its $PARTS_DB partitions with SKIP LOCKED, then each partition committed in its own fenced"
  echo "transaction of 4 statements — BEGIN, job lock, commit of a 780-byte proof, COMMIT — the last one with the DONE),"
  echo "each client a node claiming from the same queue (${PGB_JOBS:-100000} jobs queued):"
  echo
  echo "| clients (nodes) | jobs/s | ms / job (mean) | statements/s | jobs/s, synchronous_commit off | ms / job, off |"
  echo "|---:|---:|---:|---:|---:|---:|"
} >> "$OUT"
pgb() { # pgb CLIENTS [PGOPTIONS]: "jobs/s ms/job"
  local r; r=$(PGOPTIONS=${2:-} "$PGBIN/pgbench" -n -c "$1" -j "$(($1 < 2 ? 1 : 2))" -T "$SECS" -f "$T/job.sql" "$DB" 2>&1)
  local tps; tps=$(echo "$r" | awk '/^tps/ {print $3; exit}')
  [ -n "$tps" ] || { echo "$r" | tail -5 >&2; fail "pgbench"; }
  echo "$tps $(echo "$r" | awk '/latency average/ {print $4}')"
}
for c in 1 2 4 8 16 32; do
  read -r tps lat <<< "$(pgb "$c")"; read -r tps2 lat2 <<< "$(pgb "$c" "-c synchronous_commit=off")"
  echo "| $c | $(printf %.0f "$tps") | $(printf %.1f "$lat") | $(python3 -c "print(round($tps * (4 * $PARTS_DB + 2)))") |" \
    "$(printf %.0f "$tps2") | $(printf %.1f "$lat2") |" >> "$OUT"
done
echo >> "$OUT"
cat "$OUT"
if [ -n "$RESULTS" ]; then cat "$OUT" >> "$RESULTS"; fi
