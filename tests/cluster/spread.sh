#!/usr/bin/env bash
# Issue 34 item 6: one job, many machines. Partitions are leased one by one (schema 4).
# 1. A database made by schema 3 with work in flight is migrated in place by a new node's clusterd:
#    a job a (now dead) node held whole keeps the partition it committed, its other partitions are
#    re-queued one by one and proved; a queued job runs; a DONE job stays DONE.
# 2. A 10-partition job over three nodes of capacity 4 each (so no node can hold it whole): every
#    node proves some of its partitions. One node commits one of its partitions and is SIGKILLed
#    whole holding the others: they are re-queued on their own (epoch raised), its committed
#    partition is kept, the survivors prove the rest; the job is DONE once, every partition
#    committed once, every proof valid; the proofs.json the completing node wrote is byte for byte
#    the one `zkpipe wait --output` writes.
# 3. A RUNNING job (partly committed) whose other partitions no node can ever take: `wait` ends 13.
# No timing: every step waits for a state, the [debug] hold_at gates keep partitions unproved.
. "$(dirname "$0")/lib.sh" "$@"
pg_init
q() { psql_ "$1"; }

# ---- 1. schema 3 -> 5 in place, by the node (4: per-partition leases; 5: jobs.committed recounted, so the
#      job the dead node left partly committed completes when the rest is committed)
"$ZK" cluster init --database "$DB" --to 3 >/dev/null || fail "cluster init --to 3"
q "INSERT INTO zkpipe.nodes (name, host, heartbeat, instance, state) VALUES ('ghost', 'gone', now() - interval '1 hour', 'dead', 'UP')" >/dev/null
ja=$(q "WITH j AS (INSERT INTO zkpipe.jobs (key, nparts, state, owner, epoch, claimed_at) VALUES ('chain', 3, 'RUNNING', 'ghost', 7, now()) RETURNING id)
  INSERT INTO zkpipe.inputs (job, part, path) SELECT id, p, '$EX/w' || p || '.wtns' FROM j, generate_series(0, 2) p RETURNING job" | head -n 1) ||
  fail "v3 RUNNING job"
q "INSERT INTO zkpipe.partitions (job, part, proof, public, node, gpu, epoch) VALUES ($ja, 0, '{\"ghost\": 1}', '[]', 'ghost', 'g', 7)" >/dev/null
jb=$(q "WITH j AS (INSERT INTO zkpipe.jobs (key, nparts) VALUES ('chain', 2) RETURNING id)
  INSERT INTO zkpipe.inputs (job, part, path) SELECT id, p, '$EX/w' || (p + 3) || '.wtns' FROM j, generate_series(0, 1) p RETURNING job" | head -n 1) ||
  fail "v3 QUEUED job"
jc=$(q "WITH j AS (INSERT INTO zkpipe.jobs (key, nparts, state, done_at) VALUES ('chain', 1, 'DONE', now()) RETURNING id)
  INSERT INTO zkpipe.inputs (job, part, path) SELECT id, 0, '$EX/w0.wtns' FROM j RETURNING job") || fail "v3 DONE job"
q "INSERT INTO zkpipe.partitions (job, part, proof, public, node, gpu, epoch) VALUES ($jc, 0, '{}', '[]', 'ghost', 'g', 1)" >/dev/null
for n in n1 n2 n3; do EXTRA_CLUSTER="capacity = 4" EXTRA=$'[debug]\nhold_at = prove' node_config "$n"; done
start_node n1
hold_open n1
wait_until 120 grep -q "schema migrated from version 3 to 5" "$T/n1/run/log/node0.cluster0" || fail "n1 did not migrate the schema"
[ "$(q "SELECT v FROM zkpipe.meta WHERE k = 'schema_version'")" = 5 ] || fail "schema not at version 5"
"$ZK" wait --database "$DB" --timeout 300 "$ja" "$jb" > "$T/ab.log" || fail "the migrated jobs did not finish: $(cat "$T/ab.log")"
[ "$(q "SELECT node || ':' || epoch FROM zkpipe.partitions WHERE job = $ja AND part = 0")" = ghost:7 ] ||
  fail "the partition the dead node committed before the migration was not kept"
[ "$(q "SELECT string_agg(part || ':' || node, ',' ORDER BY part) FROM zkpipe.partitions WHERE job = $ja AND epoch > 7")" = "1:n1,2:n1" ] ||
  fail "job $ja: partitions 1, 2 not proved by n1 on new leases: $(q "SELECT part, node, epoch FROM zkpipe.partitions WHERE job = $ja")"
q "SELECT detail FROM zkpipe.events WHERE job = $ja AND what = 'requeued'" | grep -q "node ghost silent for [0-9]* s: partition(s) 1, 2" ||
  fail "job $ja: the dead node's partitions were not re-queued one by one: $(q "SELECT what, detail FROM zkpipe.events WHERE job = $ja")"
[ "$(q "SELECT string_agg(state, ',' ORDER BY part) FROM zkpipe.inputs WHERE job IN ($ja, $jc)")" = "DONE,DONE,DONE,DONE" ] ||
  fail "partition leases of the finished jobs: $(q "SELECT job, part, state FROM zkpipe.inputs WHERE job IN ($ja, $jc)")"
[ "$(q "SELECT state FROM zkpipe.jobs WHERE id = $jc")" = DONE ] || fail "the DONE job changed"
rm -rf "$T/mig"; "$ZK" wait --database "$DB" --timeout 60 --output "$T/mig" "$ja" "$jb" >/dev/null || fail "wait --output (migrated)"
for f in "$ja/part-1" "$ja/part-2" "$jb/part-0" "$jb/part-1"; do
  "$ZK" verify --vk "$EX/vk.json" --proof "$T/mig/$f.proof.json" --public "$T/mig/$f.public.json" >/dev/null ||
    fail "migrated job: $f invalid"
done
log "schema 3 -> 4 in place: job $ja kept ghost's partition 0, n1 proved 1, 2; job $jb DONE"

# ---- 2. one 10-partition job over three nodes, one of them SIGKILLed mid-job
hold_close n1
start_node n2
start_node n3
for n in n1 n2 n3; do wait_until 60 node_up "$n" || fail "$n did not join"; done
mkdir -p "$T/out/spread"
ins=(); for i in $(seq 0 9); do ins+=("$EX/w$((i % 8)).wtns"); done
id=$("$ZK" submit --database "$DB" --key chain --output "$T/out/spread" "${ins[@]}") || fail "submit"
echo "$id" > "$T/ids"
# capacity 4 a node: the 10 partitions are all claimed only once all three nodes hold some
wait_until 180 sql_is "SELECT count(*) || ' ' || count(DISTINCT owner) FROM zkpipe.inputs WHERE job = $id AND state = 'RUNNING'" = '10 3' ||
  fail "the job's partitions were not leased over three nodes: $(q "SELECT part, state, owner, epoch FROM zkpipe.inputs WHERE job = $id ORDER BY part")"
over=$(q "SELECT owner || ' ' || count(*) FROM zkpipe.inputs WHERE job = $id AND state = 'RUNNING' GROUP BY owner HAVING count(*) > 4")
[ -z "$over" ] || fail "a node holds more partitions than its capacity: $over"
"$ZK" status --database "$DB" --json "$id" > "$T/st.json" || fail "status --json"
python3 - "$T/st.json" <<'PY' || fail "status --json leases: $(cat "$T/st.json")"
import json, sys
d = json.load(open(sys.argv[1]))
L = d["leases"]
assert [l["part"] for l in L] == list(range(10)) and all(l["state"] == "RUNNING" for l in L), L
assert len({l["owner"] for l in L}) == 3 and d["state"] == "RUNNING", d
PY
"$ZK" wait --database "$DB" --timeout 1 "$id" 2> "$T/progress.log" >/dev/null
grep -q "\[rrrrrrrrrr\] RUNNING on n1, n2, n3" "$T/progress.log" || fail "wait's progress line: $(tr '\r' '\n' < "$T/progress.log" | tail -n 3)"
# n3 commits one of its partitions, then dies whole holding the others
n3parts=$(q "SELECT string_agg(part::text, ',' ORDER BY part) FROM zkpipe.inputs WHERE job = $id AND owner = 'n3'")
hold_release n3 1
wait_until 180 sql_is "SELECT count(*) FROM zkpipe.partitions WHERE job = $id AND node = 'n3'" = 1 ||
  fail "n3 did not commit the partition its gate let through"
kept=$(q "SELECT part || ':' || epoch FROM zkpipe.partitions WHERE job = $id AND node = 'n3'")
pids=$(node_pids n3 | sort -u | tr '\n' ' ')
log "SIGKILL n3 (pids $pids): it held partitions $n3parts of job $id and committed $kept"
kill -KILL $pids
n3_dead() { local p; for p in $pids; do alive "$p" && return 1; done; return 0; }
wait_until 120 n3_dead || fail "n3 survived SIGKILL"
hold_open n1
hold_open n2
"$ZK" wait --database "$DB" --timeout 300 "$id" > "$T/w.log" || fail "job $id: $(cat "$T/w.log")"
check_all_done
[ "$(q "SELECT part || ':' || epoch FROM zkpipe.partitions WHERE job = $id AND node = 'n3'")" = "$kept" ] ||
  fail "n3's committed partition was not kept as it was"
[ "$(q "SELECT count(DISTINCT node) FROM zkpipe.partitions WHERE job = $id")" = 3 ] ||
  fail "not three nodes proved the job: $(q "SELECT node, count(*) FROM zkpipe.partitions WHERE job = $id GROUP BY node")"
# capacity 4 each: each survivor held at least 2 of the 10 at once
for n in n1 n2; do
  [ "$(q "SELECT count(*) FROM zkpipe.partitions WHERE job = $id AND node = '$n'")" -ge 2 ] || fail "$n proved under 2 partitions"
done
# n3's other partitions were re-queued by a survivor (one event for the job) and proved on newer leases
q "SELECT detail FROM zkpipe.events WHERE job = $id AND what = 'requeued'" | grep -q "^node n3 silent for [0-9]* s: partition(s) " ||
  fail "no 'requeued' event for n3's partitions: $(q "SELECT what, node, detail FROM zkpipe.events WHERE job = $id")"
lost=$(q "SELECT count(*) FROM zkpipe.partitions p JOIN zkpipe.inputs i USING (job, part) WHERE p.job = $id
  AND p.node <> 'n3' AND p.part IN ($n3parts) AND p.epoch > (SELECT min(epoch) FROM zkpipe.events e WHERE e.job = $id AND e.node = 'n3' AND e.what = 'claimed')")
[ "$lost" = $(( $(echo "$n3parts" | tr ',' '\n' | wc -l) - 1 )) ] || fail "n3's uncommitted partitions: $lost re-proved on newer leases"
[ "$(q "SELECT count(*) FROM zkpipe.inputs WHERE job = $id AND state = 'DONE'")" = 10 ] || fail "leases not all DONE"
[ "$(q "SELECT count(*) FROM zkpipe.events WHERE job = $id AND what = 'fenced'")" = 0 ] || fail "a commit was fenced"
# the completing node's output directory = what the client writes, byte for byte
for f in proofs.json $(cd "$T/got/$id" && ls part-*.json); do
  cmp -s "$T/out/spread/$f" "$T/got/$id/$f" || fail "$f: the node's output differs from wait --output's"
done
# a job partly committed whose other partitions are queued again with no node that could ever take
# them (key chain9: a node that served it left; here written by SQL): wait says so and ends 13 at once,
# as for a QUEUED job, instead of waiting on a RUNNING job nobody works on
j9=$(q "WITH j AS (INSERT INTO zkpipe.jobs (key, nparts, state) VALUES ('chain9', 2, 'RUNNING') RETURNING id)
  INSERT INTO zkpipe.inputs (job, part, path, state) SELECT id, p, '$EX/w0.wtns', CASE p WHEN 0 THEN 'DONE' ELSE 'QUEUED' END
  FROM j, generate_series(0, 1) p RETURNING job" | head -n 1) || fail "SQL job of key chain9"
q "INSERT INTO zkpipe.partitions (job, part, proof, public, node, gpu, epoch) VALUES ($j9, 0, '{}', '[]', 'gone', 'g', 1)" >/dev/null
"$ZK" wait --database "$DB" --timeout 60 "$j9" > "$T/w9.out" 2>/dev/null; rc=$?
[ $rc = 13 ] || fail "a RUNNING job no node can finish: wait exit $rc: $(cat "$T/w9.out")"
grep -q "job $j9 cannot finish: no node of the cluster serves key chain9 (it stays RUNNING until such a node joins)" "$T/w9.out" ||
  fail "a RUNNING job no node can finish: $(cat "$T/w9.out")"
echo "PASS: schema 3 -> 4 migrated in place by clusterd; a 10-partition job over 3 nodes, one SIGKILLed: its committed partition kept, the rest re-queued one by one; DONE once, proofs valid"
