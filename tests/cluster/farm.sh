#!/usr/bin/env bash
# Cluster mode as a farm operator meets it (issue 34 items 1, 2, 3, 5), one real PostgreSQL server:
# - exit codes: docs/cluster.md's table = each command's --help = what the commands do (unknown
#   job 12, unknown key 13 with --database and locally, a job too large for every node 10,
#   timeout 9, FAILED 11, the job that no registered node can ever claim 13);
# - refusals: a submit no node could ever claim is refused with the reason; a job that only
#   absent nodes could claim waits, and `wait` (its progress line) and `status` say for whom; when
#   the last node serving its key leaves, `wait` ends 13 and `status` says it cannot be claimed;
# - `wait --database` draws the per-partition progress line;
# - no job wedges a node: partitions not numbered 0..n-1 FAIL at claim (part -1 is refused by the
#   schema's CHECK), an inline witness over the node's inline_max FAILS unfetched, a job whose
#   inputs cannot be set up counts attempts and ends FAILED with the reason, the spool directories
#   of FAILED jobs go with them;
# - drain / undrain: the node claims nothing new, finishes what it holds, then reports DRAINED;
# - a second node started with a taken name is refused (proves nothing, shares no row);
# - a node SIGKILLed whole is DOWN in `cluster nodes` and `status` once past its dead_after_s.
. "$(dirname "$0")/lib.sh" "$@"
q_eq() { [ "$(psql_ "$2" 2>/dev/null)" = "$1" ]; }          # q_eq VALUE SQL
grep_q() { grep -q -- "$1" "$2" 2>/dev/null; }              # grep_q PATTERN FILE
state_of() { psql_ "SELECT state || ' ' || error FROM zkpipe.jobs WHERE id = $1"; }

# ---- the exit-code table: docs = --help (no server needed for this part)
python3 - "$SRC/docs/cluster.md" "$ZK" <<'PY' || fail "exit codes: docs/cluster.md and --help disagree"
import re, subprocess, sys
doc, zk = sys.argv[1], sys.argv[2]
text = open(doc).read().split("### Exit codes", 1)[1].split("\n## ", 1)[0]
table = {}
for line in text.splitlines():
    m = re.match(r"\|\s*(\d+)\s*\|(.*)\|(.*)\|\s*$", line)
    if m:
        for c in m.group(3).split(","):
            table.setdefault(c.strip(), set()).add(int(m.group(1)))
assert set(table) == {"submit", "wait", "status", "cancel", "cluster"}, table
glob = subprocess.run([zk, "--help"], capture_output=True, text=True).stdout
for cmd, codes in table.items():
    h = subprocess.run([zk, cmd, "--database", "x", "--help"] if cmd != "cluster" else [zk, "cluster", "--help"],
                       capture_output=True, text=True).stdout
    ex = h[h.index("  Exit "):]
    got = {int(x) for x in re.findall(r"\b(\d+)\b", ex)}
    assert got == codes, f"{cmd}: --help says {sorted(got)}, docs/cluster.md {sorted(codes)}:\n{ex}"
    for c in codes:
        assert re.search(r"^\s*%d  " % c, glob, re.M), f"code {c} is not in zkpipe --help's table"
print("exit codes: docs/cluster.md = --help for", ", ".join(sorted(table)))
PY

pg_init
# schema 2 -> 3: a job written by SQL with partition -1 (possible before the CHECK) is FAILED by the
# migration, with the reason, before the CHECK goes on
"$ZK" cluster init --database "$DB" --to 2 >/dev/null || fail "cluster init --to 2"
jneg=$(psql_ "WITH j AS (INSERT INTO zkpipe.jobs (key, nparts) VALUES ('chain', 1) RETURNING id)
  INSERT INTO zkpipe.inputs (job, part, path) SELECT id, -1, '$EX/w0.wtns' FROM j RETURNING job") || fail "SQL submit (part -1, schema 2)"
"$ZK" cluster init --database "$DB" --inline-max 1M >"$T/init.out" || fail "cluster init (2 -> 3): $(cat "$T/init.out")"
grep -q "version 5 (was 2)" "$T/init.out" || fail "upgrade: $(cat "$T/init.out")"
[ "$(psql_ "SELECT state || ': ' || error FROM zkpipe.jobs WHERE id = $jneg")" = \
  "FAILED: an input row has a negative partition number (schema 3 refuses them)" ] ||
  fail "the migration did not FAIL the job with partition -1: $(psql_ "SELECT state, error FROM zkpipe.jobs WHERE id = $jneg")"
EXTRA_CLUSTER="inline_max = 200k" EXTRA=$'[debug]\nhold_at = prove' node_config n1
start_node n1
wait_until 60 node_up n1 || fail "n1 did not join"
hold_open n1

# ---- exit codes, behaviour
"$ZK" wait --database "$DB" 999999 >"$T/w.out" 2>&1; rc=$?
[ $rc = 12 ] || fail "wait on an unknown job: exit $rc, want 12: $(cat "$T/w.out")"
"$ZK" status --database "$DB" 999999 >/dev/null 2>&1; rc=$?; [ $rc = 12 ] || fail "status of an unknown job: exit $rc"
"$ZK" cancel --database "$DB" 999999 >/dev/null 2>&1; rc=$?; [ $rc = 12 ] || fail "cancel of an unknown job: exit $rc"
"$ZK" submit --database "$DB" --key nope "$EX/w0.wtns" 2>"$T/s.err"; rc=$?
[ $rc = 13 ] || fail "submit --database of an unknown key: exit $rc, want 13: $(cat "$T/s.err")"
grep -q "no node of the cluster serves key nope" "$T/s.err" || fail "unknown key: $(cat "$T/s.err")"
mkdir -p "$T/out/l"
"$ZK" submit --config "$T/n1/zkpipe.ini" --key nope --output "$T/out/l" "$EX/w0.wtns" 2>"$T/s.err"; rc=$?
[ $rc = 13 ] || fail "local submit of an unknown key: exit $rc, want 13 (as --database): $(cat "$T/s.err")"
ins=(); for i in $(seq 0 16); do ins+=("$EX/w$((i % 8)).wtns"); done
"$ZK" submit --database "$DB" --key chain "${ins[@]}" 2>"$T/s.err"; rc=$?
[ $rc = 10 ] || fail "17 partitions, every node's max_parts 16: exit $rc, want 10: $(cat "$T/s.err")"
grep -q "17 partitions exceed the max_parts of every node serving key chain (largest 16)" "$T/s.err" ||
  fail "too many partitions: $(cat "$T/s.err")"
[ "$(psql_ "SELECT count(*) FROM zkpipe.jobs WHERE id <> $jneg")" = 0 ] || fail "a refused submit queued a job"

# ---- the progress line of wait --database: a job held at the gate, then let through
hold_close n1
j1=$("$ZK" submit --database "$DB" --key chain "$EX/w0.wtns" "$EX/w1.wtns") || fail "submit j1"
ZKPIPE_PROGRESS_S=0.2 "$ZK" wait --database "$DB" --timeout 120 "$j1" >"$T/w1.out" 2>"$T/w1.err" &
wpid=$!
wait_until 60 grep_q "job $j1 partitions.*\[rr\] RUNNING on n1" "$T/w1.err" ||
  fail "no progress line for a running job: $(tail -c 600 "$T/w1.err")"
hold_release n1 1
wait_until 60 grep_q "\[Dr\] RUNNING on n1\|\[rD\] RUNNING on n1" "$T/w1.err" ||
  fail "the progress line does not show one partition committed: $(tail -c 600 "$T/w1.err")"
hold_open n1
wait "$wpid"; rc=$?
[ $rc = 0 ] || fail "wait j1: exit $rc: $(cat "$T/w1.out")"
grep -q "job $j1 DONE" "$T/w1.out" || fail "wait j1: $(cat "$T/w1.out")"

# ---- no job wedges a node
# partitions not exactly 0..nparts-1: FAILED at claim, with the reason; part -1 is refused outright
psql_ "WITH j AS (INSERT INTO zkpipe.jobs (key, nparts) VALUES ('chain', 1) RETURNING id)
  INSERT INTO zkpipe.inputs (job, part, path) SELECT id, -1, '$EX/w0.wtns' FROM j" >/dev/null 2>"$T/neg.err" &&
  fail "an input row with partition -1 was accepted"
grep -q "inputs_part_nonneg" "$T/neg.err" || fail "part -1: $(cat "$T/neg.err")"
j7=$(psql_ "WITH j AS (INSERT INTO zkpipe.jobs (key, nparts) VALUES ('chain', 1) RETURNING id)
  INSERT INTO zkpipe.inputs (job, part, path) SELECT id, 7, '$EX/w0.wtns' FROM j RETURNING job") || fail "SQL submit (part 7)"
"$ZK" wait --database "$DB" --timeout 60 "$j7" >"$T/w7.out" 2>/dev/null; rc=$?
[ $rc = 11 ] || fail "a job of 1 partition with input row 7: exit $rc: $(cat "$T/w7.out")"
grep -q "partition(s) 7: a job of 1 partition(s) has rows 0..0 exactly" "$T/w7.out" || fail "part 7: $(cat "$T/w7.out")"
[ "$(psql_ "SELECT count(*) FROM zkpipe.partitions WHERE job = $j7")" = 0 ] || fail "part 7: a partition was committed"
# an inline witness over this node's inline_max (200k; the cluster's is 1M): FAILED, not fetched
jb=$(psql_ "WITH j AS (INSERT INTO zkpipe.jobs (key, nparts) VALUES ('chain', 1) RETURNING id)
  INSERT INTO zkpipe.inputs (job, part, data) SELECT id, 0, decode(repeat('00', 300000), 'hex') FROM j RETURNING job") ||
  fail "SQL submit (inline)"
"$ZK" wait --database "$DB" --timeout 60 "$jb" >"$T/wb.out" 2>/dev/null; rc=$?
[ $rc = 11 ] || fail "inline over the node's limit: exit $rc"
grep -q "300000 bytes, over this node's \[cluster\] inline_max 204800 (not fetched)" "$T/wb.out" ||
  fail "inline over the node's limit: $(cat "$T/wb.out")"
# a job whose inputs cannot be set up on the node (its spool directory cannot be made: a file is in
# the way at every epoch): each try is an attempt, the last one FAILS it with the reason. The node
# is drained while the job is queued, so its id (and the epochs to block: the next two lease numbers
# of the sequence zkpipe.epochs, drawn only by claims that take something) are known before a claim.
"$ZK" cluster drain --database "$DB" --timeout 60 n1 >"$T/drain0.out" 2>&1 || fail "drain of an idle node: $(cat "$T/drain0.out")"
grep -q "node n1: drained" "$T/drain0.out" || fail "drain of an idle node: $(cat "$T/drain0.out")"
jm=$("$ZK" submit --database "$DB" --key chain --max-attempts 2 "$EX/w2.wtns") || fail "submit jm"
"$ZK" status --database "$DB" "$jm" >"$T/stm.out" || fail "status jm"
grep -q "cannot be claimed: no live node serves key chain now (n1 DRAINED)" "$T/stm.out" ||
  fail "status of a job only a drained node serves: $(cat "$T/stm.out")"
e1=$(psql_ "SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM zkpipe.epochs")
for e in $e1 $((e1 + 1)); do : > "$T/n1/run/cluster/j${jm}e$e"; done
"$ZK" cluster undrain --database "$DB" n1 >/dev/null || fail "undrain"
"$ZK" wait --database "$DB" --timeout 60 "$jm" >"$T/wm.out" 2>/dev/null; rc=$?
[ $rc = 11 ] || fail "a job whose inputs cannot be set up: exit $rc: $(cat "$T/wm.out") ($(state_of "$jm"))"
grep -q "node n1 could not set up the job's inputs: .*j${jm}e$((e1 + 1)).* (attempt 2 of 2)" "$T/wm.out" ||
  fail "materialize failures: $(cat "$T/wm.out")"
[ "$(psql_ "SELECT string_agg(what, ' ' ORDER BY id) FROM zkpipe.events WHERE job = $jm")" = \
  "submitted claimed requeued claimed failed" ] || fail "materialize failures: events $(psql_ "SELECT string_agg(what, ' ' ORDER BY id) FROM zkpipe.events WHERE job = $jm")"
rm -f "$T/n1/run/cluster/j${jm}e"*
# the spool directories of the FAILED jobs go with them
spool_clean() { ! ls -d "$T/n1/run/cluster/j${jb}e"* "$T/n1/run/cluster/j${j7}e"* >/dev/null 2>&1; }
wait_until 60 spool_clean || fail "spool directories of FAILED jobs left: $(ls "$T/n1/run/cluster")"

# ---- drain: a busy node finishes what it holds, claims nothing new, then reports DRAINED
hold_close n1
jd=$("$ZK" submit --database "$DB" --key chain "$EX/w3.wtns" "$EX/w4.wtns") || fail "submit jd"
wait_until 60 q_eq RUNNING "SELECT state FROM zkpipe.jobs WHERE id = $jd" || fail "jd not claimed"
"$ZK" cluster drain --database "$DB" --timeout 120 n1 >"$T/drain.out" 2>"$T/drain.err" &
dpid=$!
wait_until 60 q_eq DRAINING "SELECT state FROM zkpipe.nodes WHERE name = 'n1'" || fail "n1 not DRAINING"
"$ZK" cluster nodes --database "$DB" | grep -q "^n1 *DRAINING" || fail "cluster nodes does not show DRAINING"
jq=$("$ZK" submit --database "$DB" --key chain "$EX/w5.wtns") || fail "submit jq (while draining)"
alive "$dpid" || fail "drain returned while the node held a job: $(cat "$T/drain.out")"
hold_open n1
wait "$dpid"; rc=$?
[ $rc = 0 ] || fail "drain: exit $rc: $(cat "$T/drain.out" "$T/drain.err")"
grep -q "node n1: drained" "$T/drain.out" || fail "drain: $(cat "$T/drain.out")"
[ "$(psql_ "SELECT state FROM zkpipe.jobs WHERE id = $jd")" = DONE ] || fail "drained before the held job was DONE"
[ "$(psql_ "SELECT state FROM zkpipe.jobs WHERE id = $jq")" = QUEUED ] || fail "a draining node claimed a new job"
grep -q "draining: claiming nothing new" "$T/n1/run/log/node0.cluster0" || fail "clusterd did not log the drain"
"$ZK" cluster undrain --database "$DB" n1 >/dev/null || fail "undrain"
"$ZK" wait --database "$DB" --timeout 120 "$jq" >/dev/null 2>&1 || fail "jq after undrain"

# ---- a second node with a taken name: refused, proves nothing, shares no row
node_config n1b
sed -i "s/^node = n1b$/node = n1/" "$T/n1b/zkpipe.ini"
start_node n1b
wait_until 60 grep_q "REFUSED: node name n1 is held by another live node" "$T/n1b/run/log/node0.cluster0" ||
  fail "a second node named n1 was not refused: $(tail -5 "$T/n1b/run/log/node0.cluster0")"
inst=$(cat "$T/n1/run/cluster/instance")
q_eq "$inst" "SELECT instance FROM zkpipe.nodes WHERE name = 'n1'" || fail "the n1 row is not n1's"
: > "$T/ids"
submit_jobs 3 1
"$ZK" wait --database "$DB" --timeout 120 $(cat "$T/ids") >/dev/null 2>&1 || fail "jobs with n1b refused"
proved=$("$ZK" status --config "$T/n1b/zkpipe.ini" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["groups"][0]["counters"]["parts_proved"])')
[ "$proved" = 0 ] || fail "the refused second n1 proved $proved partition(s)"
q_eq "$inst" "SELECT instance FROM zkpipe.nodes WHERE name = 'n1'" || fail "the n1 row was taken by the second n1"
check_all_done
kill -TERM "$(cat "$T/n1b/sup.pid")"
wait_until 60 dead "$(cat "$T/n1b/sup.pid")" || fail "n1b did not stop"
q_eq UP "SELECT state FROM zkpipe.nodes WHERE name = 'n1'" || fail "the refused node's stop marked n1's row"

# ---- a job only absent nodes could take waits, and says so; when the last node serving its key
# leaves, it can never be claimed: wait ends 13, status says so, and a new submit is refused
kill -TERM "$(cat "$T/n1/sup.pid")"
wait_until 60 dead "$(cat "$T/n1/sup.pid")" || fail "n1 did not stop"
jw=$("$ZK" submit --database "$DB" --key chain "$EX/w6.wtns" 2>"$T/s.err") || fail "submit while n1 is STOPPED: $(cat "$T/s.err")"
ZKPIPE_PROGRESS_S=0.2 "$ZK" wait --database "$DB" --timeout 2 "$jw" >"$T/ww.out" 2>"$T/ww.err"; rc=$?
[ $rc = 9 ] || fail "wait on a job nobody live can claim: exit $rc"
grep -q "QUEUED: no live node serves key chain now (n1 STOPPED)" "$T/ww.err" ||
  fail "the progress line does not say who is missing: $(tail -c 400 "$T/ww.err")"
sed -i 's/^\[key chain\]$/[key chain2]/' "$T/n1/zkpipe.ini"
start_node n1
wait_until 60 q_eq 1 "SELECT count(*) FROM zkpipe.nodes WHERE name = 'n1' AND keys LIKE '%chain2%' AND keys NOT LIKE '%\"chain\"%'" ||
  fail "n1 did not come back serving chain2 only"
"$ZK" wait --database "$DB" --timeout 60 "$jw" >"$T/ww.out" 2>/dev/null; rc=$?
[ $rc = 13 ] || fail "wait on a job no node serves any more: exit $rc, want 13: $(cat "$T/ww.out")"
grep -q "cannot finish: no node of the cluster serves key chain" "$T/ww.out" || fail "wait: $(cat "$T/ww.out")"
"$ZK" status --database "$DB" --json "$jw" >"$T/stw.json" || fail "status jw"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['claimable']=='never' and 'no node of the cluster serves key chain' in d['waiting'], d" \
  "$T/stw.json" || fail "status of a job no node serves: $(cat "$T/stw.json")"
"$ZK" submit --database "$DB" --key chain "$EX/w0.wtns" 2>/dev/null; rc=$?
[ $rc = 13 ] || fail "submit for a key no node serves any more: exit $rc"

# ---- a node SIGKILLed whole is DOWN everywhere a reader looks, once past its dead_after_s
for p in $(node_pids n1); do kill -KILL "$p" 2>/dev/null; done
down() { "$ZK" cluster nodes --database "$DB" --json 2>/dev/null |
  python3 -c 'import json,sys; n={x["name"]: x for x in json.load(sys.stdin)}; sys.exit(n["n1"]["state"] != "DOWN")'; }
wait_until 60 down || fail "n1 SIGKILLed is not DOWN in cluster nodes: $("$ZK" cluster nodes --database "$DB")"
"$ZK" cluster nodes --database "$DB" | grep -q "^n1 *DOWN" || fail "cluster nodes (text) does not say DOWN"
"$ZK" status --database "$DB" >"$T/st.out" || fail "status"
grep -q "cluster: 0/1 node(s) up (n1 DOWN)" "$T/st.out" || fail "status: $(cat "$T/st.out")"
echo "PASS: exit codes (docs = --help = behaviour), refusals and unclaimable jobs, wait progress, no wedged node, drain, taken names, DOWN"
