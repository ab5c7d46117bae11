#!/usr/bin/env bash
# The scale benchmark's simulated nodes (cluster/sim.h, bench/cluster/scale_bench.sh) go through the
# real claim / commit / DONE / re-queue paths: three clusterd processes with --simulate-prove-ms and no
# supervisor against a real PostgreSQL. Checked by counts and states, never times:
#  - refused unless the database is marked for simulation (clusterd exits, saying why);
#  - a key that is not synthetic (setup = device) is refused by a simulated node (nodes.refused);
#  - 40 jobs of 1..6 partitions: every job DONE once, every partition committed once with a simulated
#    proof; a node SIGKILLed while holding a partly committed job: the job is re-queued, its committed
#    partitions kept, the rest proved by another node;
#  - each survivor's own count of rows its commits inserted (sim-stats.tsv, written at SIGTERM) equals
#    the partition rows credited to it;
#  - issue 34 item 7, the database's cost: every statement a node sends is prepared once per connection
#    (the server's log names them zp<N>, never <unnamed>); a commit is one statement (no BEGIN, no
#    separate job lock), the claim returns the inputs and sets started_at (no statement of its own);
#    jobs.committed = nparts for every DONE job; a table altered under the prepared statements (the
#    heartbeat's result type changed) costs no node its heartbeat; a commit that waited for another
#    node's commit of the same job counts it (jobs.committed is read at the row's latest version) and
#    marks the job DONE.
. "$(dirname "$0")/lib.sh" "$@"
CD=$B/cluster/zkpipe-clusterd
PG_OPTS="-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_preload_libraries=pg_stat_statements"
PG_OPTS="$PG_OPTS -c pg_stat_statements.track_utility=on -c log_statement=all"
pg_init
psql_ "CREATE EXTENSION pg_stat_statements" >/dev/null || fail "pg_stat_statements"
"$ZK" cluster init --database "$DB" >/dev/null || fail "cluster init"

sim_config() { # NAME: a node with the synthetic key 'sim' (served) and chain (refused when simulated)
  EXTRA_KEYS="[key sim]
synth = synth:n=64
setup = device" node_config "$1"
}
start_sim() { # NAME PROVE_MS
  setsid "$CD" --config "$T/$1/zkpipe.ini" --simulate-prove-ms "$2" >>"$T/$1/clusterd.log" 2>&1 &
  echo $! > "$T/$1/cd.pid"
}
dump_sim() { for n in $NODES; do echo "--- $n"; tail -n 15 "$T/$n/clusterd.log"; done; }

# 1. refused without the database's mark
sim_config s0; start_sim s0 10
p=$(cat "$T/s0/cd.pid")
wait_until 30 dead "$p" || { dump_sim; fail "a simulated node ran on an unmarked database"; }
wait "$p"; rc=$?
[ "$rc" = 1 ] || fail "unmarked database: clusterd exit $rc, want 1"
grep -q "not marked for simulated nodes" "$T/s0/clusterd.log" || { dump_sim; fail "no reason logged"; }
[ "$(psql_ "SELECT count(*) FROM zkpipe.nodes WHERE name = 's0'")" = 0 ] || fail "the refused node registered itself"
log "unmarked database refused"
"$CD" --config "$T/s0/zkpipe.ini" --simulate-prove-ms -5 >/dev/null 2>"$T/bad.log"; rc=$?
[ "$rc" = 2 ] && grep -q "simulate-prove-ms -5" "$T/bad.log" || fail "bad --simulate-prove-ms: rc $rc $(cat "$T/bad.log")"

# 2. the marked database: three nodes; s1 slower (it is the one killed mid-job). Its partitions are proved one
#    after another, so a job it holds stays partly committed for one simulated proof: 15 s, a window the looks
#    below (each a few psql runs, seconds apiece under load 12 on 2 cores; was 400 ms, missed there) do not miss
psql_ "INSERT INTO zkpipe.meta (k, v) VALUES ('bench_simulation', 'yes')"
for n in s1 s2 s3; do sim_config "$n"; done
start_sim s1 15000; start_sim s2 30; start_sim s3 30
sim_up() { [ "$(psql_ "SELECT count(*) FROM zkpipe.nodes WHERE name = '$1' AND state = 'UP' AND keys LIKE '%\"sim\":\"sim-%'")" = 1 ]; }
for n in s1 s2 s3; do wait_until 30 sim_up "$n" || { dump_sim; fail "node $n did not come up serving sim"; }; done
psql_ "SELECT refused FROM zkpipe.nodes WHERE name = 's1'" | grep -q '"chain":"a simulated node serves only synthetic keys' ||
  fail "the real key was not refused: $(psql_ "SELECT refused FROM zkpipe.nodes WHERE name = 's1'")"
[ "$(psql_ "SELECT vk_hash FROM zkpipe.keys WHERE name = 'sim'" | cut -c1-4)" = sim- ] || fail "sim key hash"
[ "$(psql_ "SELECT count(*) FROM zkpipe.keys WHERE name = 'chain'")" = 0 ] || fail "a simulated node registered chain"

psql_ "WITH j AS (INSERT INTO zkpipe.jobs (key, nparts) SELECT 'sim', 1 + g % 6 FROM generate_series(1, 40) g RETURNING id, nparts)
  INSERT INTO zkpipe.inputs (job, part, path) SELECT id, p, 'synth:' || (id * 10 + p) FROM j, generate_series(0, 5) p
  WHERE p < j.nparts; SELECT pg_notify('zkpipe_jobs', 'sim')" >/dev/null
psql_ "SELECT id FROM zkpipe.jobs WHERE key = 'sim' ORDER BY id" > "$T/ids"

# 3. catch s1 holding a job with some partitions committed and some not (SIGSTOP, look, SIGKILL), looked for
#    until s1 holds nothing and no partition is queued that it could claim (not until no job is QUEUED: jobs are
#    RUNNING once any partition is claimed, and what s1 holds can still become partly committed)
caught=""
partly_sql="SELECT i.job FROM zkpipe.inputs i WHERE i.owner = 's1' AND i.state = 'RUNNING' AND
  EXISTS (SELECT 1 FROM zkpipe.partitions p WHERE p.job = i.job AND p.node = 's1') LIMIT 1"
partly() { psql_ "$partly_sql"; }
# one look: the job s1 holds partly committed (or nothing) | partitions s1 holds | partitions queued
look() { psql_ "SELECT coalesce(($partly_sql)::text, '') || '|' ||
  (SELECT count(*) FROM zkpipe.inputs WHERE owner = 's1' AND state = 'RUNNING') || '|' ||
  (SELECT count(*) FROM zkpipe.inputs WHERE state = 'QUEUED')"; }
for _ in $(seq 600); do
  IFS='|' read -r pj held queued <<<"$(look)"
  if [ -n "$pj" ]; then
    kill -STOP "$(cat "$T/s1/cd.pid")"
    caught=$(partly)
    [ -n "$caught" ] && break
    kill -CONT "$(cat "$T/s1/cd.pid")"
  fi
  [ "$held" = 0 ] && [ "$queued" = 0 ] && break
  sleep 0.1
done
[ -n "$caught" ] || { dump_sim; fail "never saw s1 holding a partly committed job (jobs: $(psql_ "SELECT state, count(*) FROM zkpipe.jobs GROUP BY 1"))"; }
kept=$(psql_ "SELECT string_agg(part || ':' || epoch, ',' ORDER BY part) FROM zkpipe.partitions WHERE job = $caught AND node = 's1'")
kill -KILL "$(cat "$T/s1/cd.pid")"
log "s1 killed holding job $caught (committed $kept)"

wait_until 120 sql_is "SELECT count(*) FROM zkpipe.jobs WHERE state <> 'DONE'" = 0 ||
  { dump_sim; fail "not all DONE: $(psql_ "SELECT state, count(*) FROM zkpipe.jobs GROUP BY 1")"; }

# 4. every job DONE once, every partition once, simulated proofs, the caught job finished elsewhere
ids=$(tr '\n' ',' < "$T/ids" | sed 's/,$//')
twice=$(psql_ "SELECT job FROM zkpipe.events WHERE what = 'done' AND job IN ($ids) GROUP BY job HAVING count(*) <> 1")
[ -z "$twice" ] || fail "jobs delivered other than once: $twice"
[ "$(psql_ "SELECT count(*) FROM zkpipe.events WHERE what = 'done'")" = 40 ] || fail "done events"
miss=$(psql_ "SELECT j.id FROM zkpipe.jobs j WHERE (SELECT count(*) FROM zkpipe.partitions p WHERE p.job = j.id
  AND p.part BETWEEN 0 AND j.nparts - 1 AND p.proof LIKE '%\"protocol\":\"simulated\"%' AND p.gpu LIKE 'node0/gpud_ simulated (sim)'
  AND p.stages LIKE '%\"done\":%') <> j.nparts")
[ -z "$miss" ] || fail "jobs whose partitions are not all committed once with a simulated proof: $miss"
[ "$(psql_ "SELECT count(*) FROM zkpipe.partitions")" = "$(psql_ "SELECT sum(nparts) FROM zkpipe.jobs")" ] || fail "partition rows"
[ "$(psql_ "SELECT string_agg(part || ':' || epoch, ',' ORDER BY part) FROM zkpipe.partitions WHERE job = $caught AND node = 's1'")" = "$kept" ] ||
  fail "job $caught: s1's committed partitions were not kept"
[ "$(psql_ "SELECT count(*) FROM zkpipe.events WHERE job = $caught AND what = 'requeued'")" = 1 ] || fail "job $caught not re-queued once"
[ "$(psql_ "SELECT count(*) FROM zkpipe.partitions WHERE job = $caught AND node IN ('s2', 's3')
  AND epoch > (SELECT max(epoch) FROM zkpipe.events WHERE job = $caught AND node = 's1' AND what = 'claimed')")" -ge 1 ] || fail "job $caught: no partition proved after the re-queue"
[ "$(psql_ "SELECT count(DISTINCT node) FROM zkpipe.partitions")" -ge 2 ] || fail "one node did everything"
log "40 jobs DONE once; job $caught re-queued with its committed partitions kept"

# 4b. what the nodes sent: prepared statements; one statement a commit; nothing after a claim
stmt() { psql_ "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE query LIKE '$1%'"; }
[ "$(grep -c 'execute zp[0-9]*: WITH c AS (SELECT i.job, i.part FROM zkpipe.jobs' "$PG/log")" -ge 1 ] &&
  ! grep -q 'execute <unnamed>: WITH c AS' "$PG/log" || fail "the claim was not sent as a prepared statement"
! grep -q 'execute <unnamed>: WITH lk AS' "$PG/log" || fail "a commit was not sent as a prepared statement"
[ "$(stmt 'WITH lk AS (SELECT id FROM zkpipe.jobs')" -ge 40 ] || fail "fewer commit statements than jobs"
for s in BEGIN COMMIT 'SELECT nparts FROM zkpipe.jobs' 'UPDATE zkpipe.jobs SET started_at' 'SELECT i.part, coalesce(i.path'; do
  [ "$(stmt "$s")" = 0 ] || fail "a node sent '$s' ($(stmt "$s") times): a commit is one statement, the claim returns the inputs"
done
[ "$(psql_ "SELECT count(*) FROM zkpipe.jobs WHERE state = 'DONE' AND started_at IS NOT NULL AND committed = nparts
  AND committed = (SELECT count(*) FROM zkpipe.partitions p WHERE p.job = jobs.id)")" = 40 ] ||
  fail "jobs without started_at or with committed <> nparts: $(psql_ "SELECT id, started_at, committed, nparts FROM zkpipe.jobs
  WHERE started_at IS NULL OR committed <> nparts")"
# the heartbeat's result type changes under its prepared statement: sent again, not failed for good
# (t0 is read after the ALTER has committed: a heartbeat begun before it would pass the wait and never meet it)
psql_ "ALTER TABLE zkpipe.nodes ALTER COLUMN state TYPE varchar(16)" >/dev/null || fail "alter nodes.state"
t0=$(psql_ "SELECT now()")
wait_until 30 sql_is "SELECT count(*) FROM zkpipe.nodes
  WHERE name IN ('s2', 's3') AND heartbeat > '$t0'" = 2 || { dump_sim; fail "a node's heartbeat failed after the table changed"; }
grep -q "cached plan must not change result type" "$PG/log" || fail "the prepared heartbeat never met the changed table"
log "prepared statements, one-statement commits; a changed table costs no heartbeat"

# 4c. the commit that completes a job counts the commit it waited for: job J of 2 partitions, partition 0
#     leased to a fake node px whose commit (by SQL, as a node's) holds the job row while a simulated node's
#     commit of partition 1 waits for it; that commit must see committed = 1 (the row's latest version,
#     not its snapshot's) and mark J DONE, once
J=$(psql_ "WITH j AS (INSERT INTO zkpipe.jobs (key, nparts, state) VALUES ('sim', 2, 'RUNNING') RETURNING id)
  INSERT INTO zkpipe.inputs (job, part, path, state, owner, epoch) SELECT id, p, 'synth:' || p, 'RUNNING', 'px',
  nextval('zkpipe.epochs') FROM j, generate_series(0, 1) p RETURNING job" | head -n 1) || fail "job J"
mkfifo "$T/locker"
"$PGBIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 "$DB application_name=locker" < "$T/locker" > "$T/locker.out" 2>&1 &
lpid=$!
exec 7>"$T/locker"
echo "BEGIN; SELECT id FROM zkpipe.jobs WHERE id = $J FOR UPDATE;" >&7
# the row lock is held once the SELECT ... FOR UPDATE has run in the open transaction (psql sends BEGIN on its
# own first: 'idle in transaction' alone is already true between the two, before the lock is taken)
wait_until 30 sql_is "SELECT count(*) FROM pg_stat_activity
  WHERE application_name = 'locker' AND state = 'idle in transaction' AND query LIKE '%FOR UPDATE%'" = 1 ||
  fail "the locker did not take J's row"
psql_ "UPDATE zkpipe.inputs SET state = 'QUEUED', owner = NULL WHERE job = $J AND part = 1; SELECT pg_notify('zkpipe_jobs', 'sim')" >/dev/null
# (one or more: a commit that waits past clusterd's statement timeout, 5 s, is sent again on a new connection
# while the first one's backend still waits; a loaded machine's look comes after that)
wait_until 60 sql_is "SELECT count(*) FROM pg_stat_activity
  WHERE wait_event_type = 'Lock' AND query LIKE 'WITH lk AS%'" -ge 1 ||
  { dump_sim; fail "no node's commit of J's partition 1 waited for the job row: $(psql_ "SELECT part, state, owner FROM zkpipe.inputs WHERE job = $J")"; }
# a commit given up at clusterd's statement deadline ends on the server too (the node dropped its connection):
# the first waiting backend goes while the locker still holds the row (it waited for good before)
w1=$(psql_ "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'WITH lk AS%' ORDER BY query_start LIMIT 1")
[ -z "$w1" ] || wait_until 60 sql_is "SELECT count(*) FROM pg_stat_activity WHERE pid = $w1" = 0 ||
  { dump_sim; fail "the commit given up at the statement deadline still waits on the server (backend $w1)"; }
[ "$(psql_ "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'locker' AND state = 'idle in transaction'")" = 1 ] ||
  fail "the locker let go of J's row before the abandoned commit ended"
echo "UPDATE zkpipe.inputs SET state = 'DONE' WHERE job = $J AND part = 0;
  INSERT INTO zkpipe.partitions (job, part, proof, public, node, gpu, epoch) SELECT $J, 0, '{}', '[]', 'px', 'g', epoch
  FROM zkpipe.inputs WHERE job = $J AND part = 0; UPDATE zkpipe.jobs SET committed = committed + 1 WHERE id = $J; COMMIT;" >&7
exec 7>&-
wait "$lpid" || fail "the locker's commit: $(cat "$T/locker.out")"
wait_until 30 sql_is "SELECT state FROM zkpipe.jobs WHERE id = $J" = DONE ||
  { dump_sim; fail "J not DONE after both partitions were committed: $(psql_ "SELECT state, committed FROM zkpipe.jobs WHERE id = $J")"; }
[ "$(psql_ "SELECT committed || ' ' || (SELECT count(*) FROM zkpipe.partitions WHERE job = $J) || ' ' ||
  (SELECT count(*) FROM zkpipe.events WHERE job = $J AND what = 'done') FROM zkpipe.jobs WHERE id = $J")" = "2 2 1" ] ||
  fail "J: committed, partitions, done events: $(psql_ "SELECT committed FROM zkpipe.jobs WHERE id = $J")"
log "a commit waiting for another one of the same job completes it"

# 5. the survivors' own counts (written at a clean stop) against the database's rows
for n in s2 s3; do kill -TERM "$(cat "$T/$n/cd.pid")"; done
for n in s2 s3; do
  p=$(cat "$T/$n/cd.pid")
  wait_until 30 dead "$p" || fail "$n did not stop"
  f=$T/$n/run/sim-stats.tsv
  [ -s "$f" ] || fail "$n wrote no $f"
  ins=$(awk -F'\t' '$1 == "commit" {s += $4} END {print s + 0}' "$f")
  claims=$(awk -F'\t' '$1 == "claim" && $4 > 0 {s += $4} END {print s + 0}' "$f")
  rows=$(psql_ "SELECT count(*) FROM zkpipe.partitions WHERE node = '$n'")
  [ "$ins" = "$rows" ] || fail "$n: its commits inserted $ins rows, the database credits it $rows"
  cl=$(psql_ "SELECT count(*) FROM zkpipe.events WHERE what = 'claimed' AND node = '$n'")
  [ "$claims" = "$cl" ] || fail "$n: it counted $claims claimed jobs, the events say $cl"
  grep -q "^# node $n: round_trips [1-9]" "$f" || fail "$n: no round-trip count"
  [ "$(psql_ "SELECT state FROM zkpipe.nodes WHERE name = '$n'")" = STOPPED ] || fail "$n not STOPPED"
done

# 6. a busy node whose free room fits no queued job does not repeat its empty claim every poll (each one
#    costs the server row locks): s4 (capacity 35, poll 100 ms) holds all 30 partitions of three jobs
#    "proving" for 10 minutes, with room for 5 more and nothing queued; over the next >= 4 s it may claim
#    about once a second (a fallback every 10 polls), never every poll. An upper bound only: a slower
#    machine claims less, not more.
POLL_MS=100 EXTRA_CLUSTER="capacity = 35" sim_config s4
psql_ "WITH j AS (INSERT INTO zkpipe.jobs (key, nparts) SELECT 'sim', 10 FROM generate_series(1, 3) RETURNING id)
  INSERT INTO zkpipe.inputs (job, part, path) SELECT id, p, 'synth:' || p FROM j, generate_series(0, 9) p" >/dev/null
start_sim s4 600000
wait_until 60 sql_is "SELECT count(*) FROM zkpipe.inputs WHERE owner = 's4'
  AND state = 'RUNNING' AND claimed_at < now() - interval '4 s'" = 30 || { dump_sim; fail "s4 did not hold 30 partitions for 4 s"; }
span=$(psql_ "SELECT extract(epoch FROM now() - max(claimed_at)) FROM zkpipe.inputs WHERE owner = 's4'")
from=$(psql_ "SELECT (1000 * extract(epoch FROM max(claimed_at)))::bigint FROM zkpipe.inputs WHERE owner = 's4'")
p=$(cat "$T/s4/cd.pid"); kill -TERM "$p"
wait_until 30 dead "$p" || fail "s4 did not stop"
empty=$(awk -F'\t' -v from="$from" '$1 == "claim" && $4 == 0 && $2 > from {n++} END {print n + 0}' "$T/s4/run/sim-stats.tsv")
python3 -c "import sys; sys.exit(0 if $empty <= 3 * $span + 2 else 1)" ||
  fail "s4 repeated its empty claim $empty times in $span s (every poll; want about once a second)"
log "busy node: $empty empty claim(s) in $span s"
NODES=""
echo "PASS: simulated nodes: unmarked database refused; 40 jobs, node SIGKILLed mid-job, each partition committed once; no empty claim every poll"
