#!/usr/bin/env bash
# Cluster mode, one real PostgreSQL server: the schema's versioned migrations (init is idempotent;
# a node's clusterd upgrades a schema-1 database in place to the current version); client
# errors (unknown key, missing witness, inline over the limit, bad priority) refuse the job;
# a token makes a resubmission the same job; inline witnesses; an output directory written by the
# node (and one outside its allow_output FAILS the job with the reason); cancel; a second node whose
# key "chain" has another verifying key refuses it and proves none of its jobs; the local client
# API keeps working on a cluster node.
. "$(dirname "$0")/lib.sh" "$@"
pg_init
"$ZK" cluster init --database "$DB" --to 1 > "$T/init1.log" || fail "init --to 1"
[ "$(psql_ "SELECT v FROM zkpipe.meta WHERE k = 'schema_version'")" = 1 ] || fail "schema not at version 1"
psql_ "SELECT 1 FROM zkpipe.events" >/dev/null 2>&1 && fail "version 1 already has events"
node_config n1
start_node n1
# a database an older zkpipe made is upgraded in place by the new clusterd (issue 34 item 6)
wait_until 120 grep -q "schema migrated from version 1 to 5" "$T/n1/run/log/node0.cluster0" ||
  fail "clusterd did not migrate the schema"
wait_until 60 node_up n1 || fail "n1 did not join after the upgrade"
"$ZK" cluster init --database "$DB" > "$T/init2.log" || fail "init (after the node's upgrade)"
grep -q "version 5, unchanged (was 5)" "$T/init2.log" || fail "upgrade: $(cat "$T/init2.log")"
"$ZK" cluster init --database "$DB" --inline-max 300k > "$T/init3.log" || fail "init again"
grep -q "unchanged" "$T/init3.log" || fail "init not idempotent: $(cat "$T/init3.log")"

# client errors: nothing queued
sub() { "$ZK" submit --database "$DB" "$@" 2>"$T/sub.err"; }
sub --key nope "$EX/w0.wtns"; [ $? = 13 ] || fail "unknown key: not exit 13 (as the local submit)"
grep -q "chain" "$T/sub.err" || fail "unknown key: the served keys are not named: $(cat "$T/sub.err")"
sub --key chain "$T/missing.wtns"; [ $? = 3 ] || fail "missing witness: not exit 3"
sub --key chain --priority -4 "$EX/w0.wtns"; [ $? = 2 ] || fail "bad priority: not exit 2"
head -c 400000 /dev/zero > "$T/in/big.wtns"; cp "$EX/w1.wtns" "$T/in/big.wtns"; truncate -s 400000 "$T/in/big.wtns"
sub --key chain --inline "$T/in/big.wtns"; [ $? = 3 ] || fail "inline over the limit: not exit 3"
grep -q "inline limit" "$T/sub.err" || fail "inline over the limit: $(cat "$T/sub.err")"
[ "$(psql_ "SELECT count(*) FROM zkpipe.jobs")" = 0 ] || fail "a refused submit queued a job"
"$ZK" status --database "host=$T/nowhere port=1" 2>/dev/null; [ $? = "$EX_DB" ] || fail "unreachable database: not exit 10"

# token: the same job twice
a=$(sub --key chain --token tok-1 "$EX/w0.wtns" "$EX/w1.wtns") || fail "submit with token"
b=$(sub --key chain --token tok-1 "$EX/w0.wtns" "$EX/w1.wtns") || fail "resubmit with token"
[ "$a" = "$b" ] || fail "token: two jobs ($a, $b)"
echo "$a" >> "$T/ids"
# inline witnesses, and a node-written output directory
c=$(sub --key chain --inline "$EX/w2.wtns" "$EX/w3.wtns" "$EX/w4.wtns") || fail "inline submit: $(cat "$T/sub.err")"
echo "$c" >> "$T/ids"
d=$(sub --key chain --output "$T/out/d" "$EX/w5.wtns") || fail "submit --output"
echo "$d" >> "$T/ids"
e=$(sub --key chain --output /tmp/not-allowed-$TAG "$EX/w6.wtns") || fail "submit --output elsewhere"
"$ZK" wait --database "$DB" --timeout 60 "$a" "$c" "$d" > "$T/wait.log" || fail "wait: $(cat "$T/wait.log")"
"$ZK" wait --database "$DB" --timeout 60 "$e" > "$T/wait_e.log"; rc=$?
[ $rc = "$EX_JOB_FAILED" ] || fail "a job whose output is outside allow_output: wait exited $rc"
grep -q "allow" "$T/wait_e.log" || fail "no reason for the output refusal: $(cat "$T/wait_e.log")"
[ -e /tmp/not-allowed-$TAG ] && fail "the node wrote outside allow_output"
[ -f "$T/out/d/proofs.json" ] || fail "the node did not write the job's output directory"
"$ZK" verify --vk "$EX/vk.json" --proof "$T/out/d/part-0.proof.json" --public "$T/out/d/part-0.public.json" \
  >/dev/null || fail "the output directory's proof"
[ -z "$(ls "$T/in" | grep -v big.wtns)" ] || fail "inline witnesses left in the shared input dir"
check_all_done

# the SQL of docs/cluster.md, from any client: one statement queues a job (no NOTIFY: the node
# finds it by polling), two read its proofs back
sid=$(psql_ "WITH j AS (INSERT INTO zkpipe.jobs (key, nparts) VALUES ('chain', 2) RETURNING id)
  INSERT INTO zkpipe.inputs (job, part, path) SELECT id, p, '$EX/w' || p || '.wtns' FROM j, generate_series(0, 1) p
  RETURNING job" | head -n 1) || fail "SQL submit"
wait_until 60 sql_is "SELECT state FROM zkpipe.jobs WHERE id = $sid" = DONE ||
  fail "the SQL-submitted job did not finish: $(psql_ "SELECT state, error FROM zkpipe.jobs WHERE id = $sid")"
for p in 0 1; do
  psql_ "SELECT proof FROM zkpipe.partitions WHERE job = $sid AND part = $p" > "$T/sql.proof.json"
  psql_ "SELECT public FROM zkpipe.partitions WHERE job = $sid AND part = $p" > "$T/sql.public.json"
  "$ZK" verify --vk "$EX/vk.json" --proof "$T/sql.proof.json" --public "$T/sql.public.json" >/dev/null ||
    fail "proof read back by SQL, part $p"
done
# a job with fewer input rows than partitions FAILS with the reason (never hangs)
bad=$(psql_ "WITH j AS (INSERT INTO zkpipe.jobs (key, nparts) VALUES ('chain', 3) RETURNING id)
  INSERT INTO zkpipe.inputs (job, part, path) SELECT id, 0, '$EX/w0.wtns' FROM j RETURNING job") || fail "SQL submit 2"
"$ZK" wait --database "$DB" --timeout 60 "$bad" > "$T/bad.log"; [ $? = "$EX_JOB_FAILED" ] || fail "short inputs: not FAILED"
grep -q "1 input row(s) for 3 partitions" "$T/bad.log" || fail "short inputs: $(cat "$T/bad.log")"
# a witness outside the node's allow_input: FAILED by the node, with the reason
mkdir -p "$T/elsewhere"; cp "$EX/w0.wtns" "$T/elsewhere/"
o=$(sub --key chain "$T/elsewhere/w0.wtns") || fail "submit elsewhere"
"$ZK" wait --database "$DB" --timeout 60 "$o" > "$T/o.log"; [ $? = "$EX_JOB_FAILED" ] || fail "outside allow_input: not FAILED"
grep -q "outside" "$T/o.log" || fail "outside allow_input: $(cat "$T/o.log")"

# the local API still works beside the cluster
mkdir -p "$T/out/local"
lid=$("$ZK" submit --config "$T/n1/zkpipe.ini" --key chain --output "$T/out/local" "$EX/w7.wtns") || fail "local submit"
"$ZK" wait --config "$T/n1/zkpipe.ini" --timeout 60 "$lid" >/dev/null || fail "local job"
"$ZK" verify --vk "$EX/vk.json" --proof "$T/out/local/part-0.proof.json" --public "$T/out/local/part-0.public.json" \
  >/dev/null || fail "local proof"

# cancel: a queued job nobody can take (the node is stopped)
kill -TERM "$(cat "$T/n1/sup.pid")"; wait_until 60 dead "$(cat "$T/n1/sup.pid")" || fail "n1 did not stop"
[ "$(psql_ "SELECT state FROM zkpipe.nodes WHERE name = 'n1'")" = STOPPED ] || fail "n1 not marked STOPPED"
f=$(sub --key chain "$EX/w0.wtns") || fail "submit f"
"$ZK" cancel --database "$DB" "$f" >/dev/null || fail "cancel"
[ "$(psql_ "SELECT state FROM zkpipe.jobs WHERE id = $f")" = CANCELLED ] || fail "not CANCELLED"
"$ZK" wait --database "$DB" --timeout 60 "$f" >/dev/null; [ $? = "$EX_JOB_FAILED" ] || fail "wait on a cancelled job: not exit $EX_JOB_FAILED"

# priority, then age: with room for one partition, the later high-priority job is claimed first
lo=$(sub --key chain "$EX/w1.wtns") || fail "submit lo"
hi=$(sub --key chain --priority 5 "$EX/w2.wtns") || fail "submit hi"
EXTRA_CLUSTER="capacity = 1" node_config n1
start_node n1
"$ZK" wait --database "$DB" --timeout 60 "$lo" "$hi" >/dev/null || fail "lo/hi jobs"
order=$(psql_ "SELECT string_agg(job::text, ' ' ORDER BY id) FROM zkpipe.events WHERE what = 'claimed' AND job IN ($lo, $hi)")
[ "$order" = "$hi $lo" ] || fail "claim order $order, want $hi $lo (priority first)"

# a node whose key "chain" is another key: refused, proves nothing
"$ZK" setup --cpu --r1cs "$EX/chain.r1cs" --out "$T/other.zpk" --zkey "$T/other.zkey" --threads 1 >/dev/null 2>&1 ||
  fail "setup of another key"
node_config n2
sed -i "s|^zkey = .*chain.zkey|zkey = $T/other.zkey|" "$T/n2/zkpipe.ini"
start_node n2
wait_until 60 sql_is "SELECT count(*) FROM zkpipe.nodes WHERE name = 'n2' AND refused LIKE '%differs%'" = 1 ||
  fail "n2 did not refuse the differing key"
"$ZK" cluster nodes --database "$DB" --json > "$T/nodes.json" || fail "cluster nodes"
python3 - "$T/nodes.json" <<'PY' || fail "cluster nodes --json: $(cat "$T/nodes.json")"
import json, sys
n = {x["name"]: x for x in json.load(open(sys.argv[1]))}
assert "chain" in n["n2"]["refused"] and "differs" in n["n2"]["refused"]["chain"], n["n2"]
assert n["n2"]["keys"] == {} and "chain" in n["n1"]["keys"], n
assert n["n1"]["state"] == "UP" and n["n1"]["heartbeat_age_s"] < 10 and n["n1"]["capacity"] > 0
PY
: > "$T/ids"
submit_jobs 4 1
"$ZK" wait --database "$DB" --timeout 60 $(cat "$T/ids") > /dev/null || fail "jobs with n2 refusing"
[ "$(psql_ "SELECT count(*) FROM zkpipe.partitions WHERE node = 'n2'")" = 0 ] || fail "n2 proved with a refused key"
"$ZK" status --database "$DB" "$(head -1 "$T/ids")" --json > "$T/st.json" || fail "status JOB --json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['state']=='DONE' and d['partitions'][0]['node']=='n1' and [e['what'] for e in d['events']][:2]==['submitted','claimed'], d" "$T/st.json" ||
  fail "status --json: $(cat "$T/st.json")"
check_all_done
echo "PASS: schema migrations, client errors, token, inline, output dir, cancel, key refusal, local API"
