#!/usr/bin/env bash
# Three nodes on one machine share one PostgreSQL server and prove a few hundred partitions.
# Mid-run, node n3 is killed whole (SIGKILL to its supervisor, clusterd and daemons) and, later,
# the database is restarted (immediate stop: a crash for its clients). Every job ends DONE exactly
# once with valid proofs; every partition's proving node is recorded; n3's RUNNING partitions
# were re-queued one by one (schema 4's per-partition leases) by the others after dead_after_s with the partitions it had committed kept (never re-proved:
# the survivors proved exactly the partitions they committed).
# synchronous_commit stays on here, so the immediate stop loses nothing the server acknowledged
# and "never re-proved" is exact; a server that loses acknowledged commits is restart.sh's case.
PG_OPTS="-c fsync=off -c full_page_writes=off"
. "$(dirname "$0")/lib.sh" "$@"
JOBS=${CLUSTER_JOBS:-80}
pg_init
"$ZK" cluster init --database "$DB" >/dev/null || fail "cluster init"
# Every node proves only what its [debug] hold_at gate lets through (pipeline/daemon.h): n3 gets 3
# tokens, then holds its running jobs until it is killed, whatever the machine's speed; n1 and n2
# are let go once n3 holds jobs (before that they could drain the queue n3 should take from).
for n in n1 n2 n3; do EXTRA=$'[debug]\nhold_at = prove' node_config "$n"; start_node "$n"; done
for n in n1 n2 n3; do wait_until 60 node_up "$n" || fail "$n did not join"; done
t0=$(date +%s)
submit_jobs "$JOBS" 3
total=$((JOBS * 3))
log "$JOBS jobs, $total partitions queued"
committed() { psql_ "SELECT count(*) FROM zkpipe.partitions${1:+ WHERE node = '$1'}"; }
n3_running() { psql_ "SELECT count(*) FROM zkpipe.inputs WHERE owner = 'n3' AND state = 'RUNNING'"; }
mkdir -p "$T/n3/run/hold"; for i in 1 2 3; do : > "$T/n3/run/hold/t$i"; done
n3_holds() { [ "$(committed n3)" -ge 3 ] && [ "$(n3_running)" -ge 1 ]; }
wait_until 300 n3_holds ||
  fail "n3 made no progress"
for n in n1 n2; do mkdir -p "$T/$n/run/hold"; : > "$T/$n/run/hold/open"; done
over=$(psql_ "SELECT name || ' ' || load || '/' || capacity FROM zkpipe.nodes WHERE load > capacity")
[ -z "$over" ] || fail "a node holds more partitions than its capacity: $over"
pids=$(node_pids n3 | sort -u | tr '\n' ' ')
# n3's gate is closed: its running jobs cannot finish, and nothing it committed can change
held=$(psql_ "SELECT string_agg(DISTINCT job::text, ' ') FROM zkpipe.inputs WHERE owner = 'n3' AND state = 'RUNNING'")
[ -n "$held" ] || fail "n3 holds no running job to lose"
n3_before=$(committed n3)
[ "$n3_before" = 3 ] || fail "n3 committed $n3_before partitions, its gate let 3 through"
log "SIGKILL node n3 (pids $pids) holding jobs $held; it had committed $n3_before partitions"
kill -KILL $pids
n3_dead() { local p; for p in $pids; do alive "$p" && return 1; done; return 0; }
wait_until 120 n3_dead || fail "n3 processes survived SIGKILL: $pids"
wait_until 120 sql_is "SELECT job FROM zkpipe.inputs WHERE owner = 'n3' AND state = 'RUNNING'" = "" ||
  fail "n3's jobs were not re-queued"
requeued=$(psql_ "SELECT count(DISTINCT job) FROM zkpipe.events WHERE what = 'requeued' AND detail LIKE 'node n3 %'")
[ "$requeued" -ge 1 ] || fail "no 'requeued' event for n3's jobs"
log "n3's $requeued job(s) re-queued; $(committed) of $total partitions committed"
half_committed() { [ "$(committed)" -ge $((total / 2)) ]; }
wait_until 300 half_committed ||
  fail "no progress towards half the partitions"
log "database restart (immediate stop) at $(committed) of $total partitions"
pg_stop immediate
# the database stays down until both survivors have noticed (their heartbeats fail), however slowly
# they are scheduled
lost() { grep -q "database lost\|database unreachable" "$T/$1/run/log/node0.cluster0"; }
for n in n1 n2; do wait_until 120 lost "$n" || fail "$n never saw the database go away"; done
pg_start
wait_until 600 sql_is "SELECT count(*) FROM zkpipe.jobs WHERE state IN ('QUEUED', 'RUNNING')" = 0 ||
  fail "jobs left unfinished: $(psql_ "SELECT state, count(*) FROM zkpipe.jobs GROUP BY state")"
log "all jobs finished in $(( $(date +%s) - t0 )) s"
check_all_done
[ "$(committed n3)" -ge "$n3_before" ] || fail "n3's committed partitions were lost"
[ "$(committed)" = "$total" ] || fail "$(committed) partitions committed, $total submitted"
for n in n1 n2; do
  proved=$("$ZK" status --config "$T/$n/zkpipe.ini" --json | python3 -c 'import json,sys; print(sum(g["counters"]["parts_proved"] for g in json.load(sys.stdin)["groups"]))')
  [ "$proved" = "$(committed $n)" ] || fail "$n proved $proved partitions but committed $(committed $n): work redone or lost"
done
for n in n1 n2; do [ "$(committed $n)" -gt 0 ] || fail "$n proved nothing"; done
echo "PASS: 3 nodes, $total partitions, node SIGKILL + database restart: every job DONE once, proofs valid"
