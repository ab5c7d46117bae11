#!/usr/bin/env bash
# Two nodes, each in a network namespace of this test's making, reach the database over TCP
# through veth pairs. n2's link is taken down for longer than dead_after_s while it holds
# partitions (leased one by one, schema 4): n1 re-queues them and proves them; n2 keeps proving locally but, when its link comes back, finds
# its leases gone and drops its copies (nothing it computed under a lost lease is committed: no
# partition of n2's is newer than the re-queue of its job). n2 then serves again. Every job DONE
# exactly once, proofs valid.
. "$(dirname "$0")/lib.sh" "$@"
command -v ip >/dev/null || skip "no ip (iproute2)"
ip netns add "zc${TAG}x" 2>/dev/null || skip "cannot make network namespaces here"
ip netns del "zc${TAG}x"
NET=10.$((RANDOM % 200 + 20)).$((RANDOM % 250))
ip -4 addr | grep -q "inet $NET\." && NET=10.$((RANDOM % 200 + 20)).$((RANDOM % 250))
for i in 1 2; do make_netns "$i"; done
PG_LISTEN="$NET.5,$NET.9"
pg_init "host all all $NET.0/24 trust"
"$ZK" cluster init --database "$DB" >/dev/null || fail "cluster init"
# both nodes prove only what their [debug] hold_at gates let through: n1 waits until n2 holds jobs
# (else it could drain the queue first), n2 until it is cut off (else it could finish them first)
for i in 1 2; do
  EXTRA=$'[debug]\nhold_at = prove' node_config "n$i" "host=$NET.$((4 * i + 1)) port=$PORT user=postgres dbname=postgres"
done
for i in 1 2; do start_node "n$i" "zc$TAG$i"; done
for i in 1 2; do wait_until 60 node_up "n$i" || fail "n$i did not join over TCP"; done
ip netns exec "zc${TAG}2" ss -tn 2>/dev/null | grep -q "$NET.9:$PORT" || fail "n2 is not connected over its veth"
submit_jobs 24 2
wait_until 120 sql_is "SELECT count(*) FROM zkpipe.inputs WHERE owner = 'n2' AND state = 'RUNNING'" -ge 1 ||
  fail "n2 holds no job"
held=$(psql_ "SELECT string_agg(DISTINCT job::text, ',') FROM zkpipe.inputs WHERE owner = 'n2' AND state = 'RUNNING'")
log "cutting n2 off (link zv${TAG}2 down) while it holds jobs $held"
ip link set "zv${TAG}2" down
hold_open n1
cut=$(date +%s)
wait_until 120 sql_is "SELECT job FROM zkpipe.inputs WHERE job IN ($held) AND owner = 'n2' AND state = 'RUNNING'" = "" ||
  fail "n2's jobs were not re-queued while it was cut off"
log "n2's jobs re-queued after $(( $(date +%s) - cut )) s"
# n2 keeps proving its (now stale) copies meanwhile: its gate opens, and the link comes back once
# it has proved one
n2_proved() { "$ZK" status --config "$T/n2/zkpipe.ini" --json 2>/dev/null | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["groups"][0]["counters"]["parts_proved"] >= 1 else 1)'; }
hold_open n2
wait_until 120 n2_proved || fail "n2 proved nothing while cut off"
ip link set "zv${TAG}2" up
log "n2's link is back"
wait_until 120 sql_is "SELECT count(*) FROM zkpipe.events WHERE node = 'n2' AND what IN ('dropped', 'fenced')" -ge 1 ||
  fail "n2 did not notice its leases were taken"
wait_until 120 sql_is "SELECT count(*) FROM zkpipe.nodes WHERE name = 'n2' AND heartbeat > now() - interval '3 seconds'" = 1 ||
  fail "n2 does not heartbeat again"
before=$(psql_ "SELECT count(*) FROM zkpipe.partitions WHERE node = 'n2'")
submit_jobs 12 2
wait_until 300 sql_is "SELECT count(*) FROM zkpipe.jobs WHERE state IN ('QUEUED', 'RUNNING')" = 0 ||
  fail "jobs left: $(psql_ "SELECT state, count(*) FROM zkpipe.jobs GROUP BY state")"
check_all_done
stale=$(psql_ "SELECT p.job || '/' || p.part FROM zkpipe.partitions p JOIN zkpipe.events e ON e.job = p.job
  AND e.what = 'requeued' AND e.detail LIKE 'node n2 %' WHERE p.node = 'n2' AND p.proved_at > e.at")
[ -z "$stale" ] || fail "n2 committed after its lease was taken: $stale"
[ "$(psql_ "SELECT count(*) FROM zkpipe.partitions WHERE node = 'n2'")" -gt "$before" ] || fail "n2 did not serve again"
grep -q "lease was taken away" "$T/n2/run/log/node0.cluster0" || fail "n2's log does not say why it dropped its copies"
echo "PASS: node cut off (veth down) past dead_after_s: jobs re-queued, stale copies dropped, all DONE once"
