#!/usr/bin/env bash
# The operator's view (issue 34 item 4), with a real PostgreSQL and headless Chromium: node n1's
# status page gets a cluster section drawn from <run>/cluster/view.json, which its zkpipe-clusterd
# writes from the database every view_s (the supervisor never queries the database): n1 UP with
# its key, load and capacity, n2 SIGKILLed whole shown DOWN with its heartbeat age; the cluster
# jobs n1 holds RUNNING with owner n1, partitions and the local job id that /status's job_list
# names back (cluster_job); the history (DONE, CANCELLED, a FAILED row) with its filters
# (?hstate=, ?hnode=). /metrics gains zkpipe_cluster_* (claims, commits, requeues, lease losses,
# the DB round-trip histogram, heartbeat age per node), strictly parsed. clusterd is role
# "clusterd". [cluster] retain_days = 1 deletes the finished jobs whose done_at SQL put 2-3 days
# back, with their inputs, partitions and events, and keeps the recent ones.
. "$(dirname "$0")/lib.sh" "$@"
CHROME=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROME" ] || skip "no chromium (scripts/deps.sh installs Debian's)"
PY=$SRC/tests/pipeline/promtext.py
pg_init
"$ZK" cluster init --database "$DB" >/dev/null || fail "cluster init"

# finished rows written by SQL: two older than retain_days (with inputs, partitions, events), one recent
old_job() { # STATE DAYS -> id
  psql_ "WITH j AS (INSERT INTO zkpipe.jobs (key, nparts, state, created_at, done_at, error)
      VALUES ('chain', 1, '$1', now() - interval '$2 days', now() - interval '$2 days', 'old row') RETURNING id),
    i AS (INSERT INTO zkpipe.inputs (job, part, path) SELECT id, 0, '/nowhere' FROM j),
    p AS (INSERT INTO zkpipe.partitions (job, part, proof, public, node, epoch) SELECT id, 0, '{}', '[]', 'gone', 1 FROM j)
    INSERT INTO zkpipe.events (job, what) SELECT id, 'done' FROM j RETURNING job" | head -n 1
}
OLD1=$(old_job DONE 3); OLD2=$(old_job FAILED 2)
[ -n "$OLD1" ] && [ -n "$OLD2" ] || fail "inserting old rows"
RECENT=$(psql_ "INSERT INTO zkpipe.jobs (key, nparts, state, created_at, done_at, error)
  VALUES ('chain', 2, 'FAILED', now() - interval '2 hours', now() - interval '1 hour', 'boom by sql') RETURNING id" | head -n 1)

HPORT=$(free_port)
# n1: partitions wait at the [debug] hold_at gate (jobs stay RUNNING until the test lets them through)
EXTRA_CLUSTER=$'capacity = 4\nview_s = 1\nretain_days = 1' EXTRA=$'[debug]\nhold_at = prove' node_config n1
sed -i "/^\[run\]/a http = 127.0.0.1:$HPORT" "$T/n1/zkpipe.ini"
EXTRA_CLUSTER=$'view_s = 1' node_config n2
start_node n1; start_node n2
wait_until 60 node_up n1 || fail "n1 not UP"
wait_until 60 node_up n2 || fail "n2 not UP"
for p in $(node_pids n2); do kill -KILL "$p" 2>/dev/null; done
log "n2 SIGKILLed whole"

URL=http://127.0.0.1:$HPORT/
get() { python3 -c "import sys,urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())" "$URL$1"; }
jobstate() { psql_ "SELECT state FROM zkpipe.jobs WHERE id = $1"; }

D=$("$ZK" submit --database "$DB" --key chain "$EX/w0.wtns") || fail "submit D"
hold_release n1 1
wait_until 60 eval '[ "$(jobstate $D)" = DONE ]' || fail "job $D not DONE: $(jobstate "$D")"
A=$("$ZK" submit --database "$DB" --key chain "$EX/w1.wtns" "$EX/w2.wtns") || fail "submit A"
Bj=$("$ZK" submit --database "$DB" --key chain "$EX/w3.wtns" "$EX/w4.wtns") || fail "submit B"
wait_until 60 eval '[ "$(jobstate $A)$(jobstate $Bj)" = RUNNINGRUNNING ]' || fail "A, B not RUNNING"
C=$("$ZK" submit --database "$DB" --key chain "$EX/w5.wtns") || fail "submit C"
"$ZK" cancel --database "$DB" "$C" >/dev/null || fail "cancel C"
[ "$(jobstate "$C")" = CANCELLED ] || fail "C: $(jobstate "$C")"
log "jobs: D=$D (DONE) A=$A B=$Bj (RUNNING on n1) C=$C (CANCELLED) recent FAILED=$RECENT old=$OLD1,$OLD2"

# /status carries clusterd's view once it shows all of this (bounded wait; the view is rewritten every view_s),
# n1's load of 4 included (checked below)
ready() {
  get status > "$T/status.json" 2>/dev/null || return 1
  python3 - "$T/status.json" "$A" "$Bj" "$D" "$C" "$RECENT" <<'EOF'
import json, sys
st = json.load(open(sys.argv[1])); a, b, d, c, rec = map(int, sys.argv[2:])
cl = st.get("cluster") or {}
nodes = {n["name"]: n for n in cl.get("nodes", [])}
jobs = {j["id"]: j for j in cl.get("jobs", [])}
hist = {j["id"] for j in cl.get("history", [])}
# n1's load is its heartbeat's (every heartbeat_s), not its claims': A and B may show their local ids a
# heartbeat before the load that counts them
ok = (nodes.get("n2", {}).get("state") == "DOWN" and nodes.get("n1", {}).get("state") == "UP"
      and nodes.get("n1", {}).get("load") == 4
      and all(jobs.get(x, {}).get("local") for x in (a, b)) and {d, c, rec} <= hist)
sys.exit(0 if ok else 1)
EOF
}
ready_within() { local end=$((SECONDS + $1)); while [ $SECONDS -lt $end ]; do ready && return 0; sleep 0.2; done; return 1; }
ready_within 120 || { cat "$T/status.json" | head -c 3000; fail "the cluster view never showed n2 DOWN, A and B with local ids, the history"; }

python3 - "$T/status.json" "$A" "$Bj" "$OLD1" "$OLD2" <<'EOF' || fail "/status cluster"
import json, sys
st = json.load(open(sys.argv[1])); a, b, o1, o2 = map(int, sys.argv[2:])
cl = st["cluster"]
assert cl["connected"] is True and cl["node"] == "n1", cl.get("error")
n = {x["name"]: x for x in cl["nodes"]}
assert n["n2"]["heartbeat_age_s"] >= n["n2"]["dead_after_s"], n["n2"]
assert "chain" in n["n1"]["keys"] and n["n1"]["capacity"] == 4 and n["n1"]["load"] == 4, n["n1"]
assert isinstance(n["n1"]["parts_60s"], int) and isinstance(n["n2"]["parts_60s"], int), n
jl = {j["job"]: j for j in st["job_list"]}
for cid in (a, b):
    cj = [j for j in cl["jobs"] if j["id"] == cid][0]
    assert cj["state"] == "RUNNING" and cj["owner"] == "n1" and cj["nparts"] == 2, cj
    loc = jl.get(cj["local"])
    assert loc and loc.get("cluster_job") == cid, ("local job", cj["local"], loc)
assert not {o1, o2} & {j["id"] for j in cl["history"]}, "pruned rows still in the history"
roles = [p["role"] for p in st["processes"]]
assert "clusterd" in roles and "client" not in roles, roles
c = cl["counters"]
assert c["claims"] >= 3 and c["commits"] >= 1, c
print("status: ok", c)
EOF

# retention: the old rows are gone with their inputs, partitions and events; the recent ones stay
left=$(psql_ "SELECT (SELECT count(*) FROM zkpipe.jobs WHERE id IN ($OLD1, $OLD2)) + (SELECT count(*) FROM zkpipe.inputs WHERE job IN ($OLD1, $OLD2))
  + (SELECT count(*) FROM zkpipe.partitions WHERE job IN ($OLD1, $OLD2)) + (SELECT count(*) FROM zkpipe.events WHERE job IN ($OLD1, $OLD2))")
[ "$left" = 0 ] || fail "retain_days: $left row(s) of the old jobs left"
[ "$(psql_ "SELECT count(*) FROM zkpipe.jobs WHERE id IN ($D, $C, $RECENT)")" = 3 ] || fail "retain_days deleted recent jobs"
grep -q "retain_days = 1: 2 finished job(s) deleted" "$T/n1/run/log/node0.cluster0" || fail "no pruning line in clusterd's log"

# /metrics: zkpipe_cluster_* parse strictly
get metrics > "$T/metrics.txt" || fail "GET /metrics"
python3 "$PY" "$T/metrics.txt" zkpipe_cluster_claims_total zkpipe_cluster_commits_total zkpipe_cluster_requeues_total \
  zkpipe_cluster_lease_losses_total zkpipe_cluster_db_seconds zkpipe_cluster_node_heartbeat_age_seconds || fail "metrics parse"
python3 - "$T/metrics.txt" "$PY" <<'EOF' || fail "metrics values"
import sys, importlib.util
spec = importlib.util.spec_from_file_location("promtext", sys.argv[2]); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
fam = m.parse(open(sys.argv[1]).read())
val = lambda f, **l: [v for (n, lab, v) in fam[f]["samples"] if all(lab.get(k) == x for k, x in l.items()) and not n.endswith(("_sum",))]
assert val("zkpipe_cluster_claims_total")[0] >= 3
assert val("zkpipe_cluster_commits_total")[0] >= 1
cnt = [v for (n, lab, v) in fam["zkpipe_cluster_db_seconds"]["samples"] if n.endswith("_count")][0]
assert cnt > 10, cnt
hb = {lab["node"]: (lab["state"], v) for (n, lab, v) in fam["zkpipe_cluster_node_heartbeat_age_seconds"]["samples"]}
assert hb["n2"][0] == "DOWN" and hb["n2"][1] >= 4 and hb["n1"][0] == "UP" and hb["n1"][1] < hb["n2"][1], hb
up = {lab["node"]: v for (n, lab, v) in fam["zkpipe_cluster_node_up"]["samples"]}
assert up == {"n1": 1, "n2": 0}, up
assert any(lab.get("role") == "clusterd" for (n, lab, v) in fam["zkpipe_process_restarts"]["samples"])
print("metrics: ok, %d DB round trips observed" % cnt)
EOF

# the page in headless Chromium (flags as tests/pipeline/status_page.sh)
dump_dom() { # QUERY OUT
  timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --user-data-dir="$T/chrome" \
    --virtual-time-budget=4000 --dump-dom "$URL$1" > "$2" 2>"$T/chrome.err" || { tail -5 "$T/chrome.err"; return 1; }
}
dump_dom "" "$T/dom.html" || fail "chromium"
dump_dom "?hstate=FAILED" "$T/dom_failed.html" || fail "chromium (filter)"
dump_dom "?hnode=n1" "$T/dom_n1.html" || fail "chromium (filter)"
mkdir -p "$B/meson-logs"
timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --user-data-dir="$T/chrome" --hide-scrollbars \
  --virtual-time-budget=4000 --window-size=1400,1400 --screenshot="$B/meson-logs/cluster_view.png" "$URL" >/dev/null 2>"$T/chrome.err" || true
python3 - "$T" "$A" "$Bj" "$D" "$C" "$RECENT" <<'EOF' || fail "the page's cluster section"
import sys
from html.parser import HTMLParser
t = sys.argv[1]; a, b, d, c, rec = map(int, sys.argv[2:])
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.rows = {}; s.cur = None; s.td = None; s.table = None; s.section = {}; s.body = {}; s.jobcids = {}
    def handle_starttag(s, tag, at):
        at = dict(at)
        if tag == "body": s.body = at
        if tag == "section" and at.get("id"): s.section[at["id"]] = at
        if tag == "table": s.table = at.get("id")
        if tag == "tr" and any(k.startswith("data-") for k in at):
            s.cur = {"attrs": at, "cells": []}; s.rows.setdefault(s.table, []).append(s.cur)
        if tag == "td" and s.cur is not None:
            s.td = {"class": at.get("class", ""), "text": ""}; s.cur["cells"].append(s.td)
        if tag == "span" and "data-cluster-job" in at and s.cur is not None:
            s.jobcids[int(s.cur["attrs"]["data-job"])] = int(at["data-cluster-job"])
    def handle_endtag(s, tag):
        if tag == "td": s.td = None
        if tag == "tr": s.cur = None
    def handle_data(s, x):
        if s.td is not None: s.td["text"] += x
def load(f):
    p = P(); p.feed(open(f).read()); return p
def cell(r, cls): return [x["text"].strip() for x in r["cells"] if cls in x["class"].split()][0]
p = load(t + "/dom.html")
assert int(p.body.get("data-refreshes", "0")) >= 1, "the script never drew"
assert "hidden" not in p.section.get("cluster", {"hidden": ""}), p.section
nodes = {r["attrs"]["data-node"]: r for r in p.rows.get("cnodes", [])}
assert nodes["n1"]["attrs"]["data-state"] == "UP" and nodes["n2"]["attrs"]["data-state"] == "DOWN", nodes.keys()
assert cell(nodes["n1"], "keys").startswith("chain") and cell(nodes["n1"], "load") == "4/4", nodes["n1"]
hb = cell(nodes["n2"], "hb").split(); assert float(hb[0]) * {"s": 1, "min": 60, "h": 3600}[hb[1]] >= 4, hb
jobs = {int(r["attrs"]["data-cjob"]): r for r in p.rows.get("cjobs", [])}
for x in (a, b):
    r = jobs[x]
    assert r["attrs"]["data-state"] == "RUNNING" and cell(r, "owner") == "n1" and cell(r, "parts") == "0/2", r
    loc = int(cell(r, "local")); assert loc == int(r["attrs"]["data-local"])
    assert p.jobcids.get(loc) == x, ("local job row names its cluster job", loc, p.jobcids)
hist = {int(r["attrs"]["data-cjob"]): r["attrs"]["data-state"] for r in p.rows.get("chistory", [])}
assert hist.get(d) == "DONE" and hist.get(c) == "CANCELLED" and hist.get(rec) == "FAILED", hist
hist_d = [r for r in p.rows["chistory"] if int(r["attrs"]["data-cjob"]) == d][0]
assert cell(hist_d, "nodes") == "n1" and cell(hist_d, "parts") == "1/1", hist_d
f = load(t + "/dom_failed.html")
hf = {int(r["attrs"]["data-cjob"]): r["attrs"]["data-state"] for r in f.rows.get("chistory", [])}
assert hf and set(hf.values()) == {"FAILED"} and rec in hf, hf
n = load(t + "/dom_n1.html")
hn = {int(r["attrs"]["data-cjob"]) for r in n.rows.get("chistory", [])}
assert d in hn and c not in hn and rec not in hn, hn
print("page: %d nodes, %d cluster jobs, %d history rows (%d FAILED, %d on n1)" % (len(nodes), len(jobs), len(hist), len(hf), len(hn)))
EOF
# cluster job ids beside the local ids: /status's job_list (D's finished local job too), zkpipe status,
# the logs of clusterd and the supervisor, the timeline
LA=$(python3 -c "import json,sys; print([j['local'] for j in json.load(open(sys.argv[1]))['cluster']['jobs'] if j['id'] == int(sys.argv[2])][0])" "$T/status.json" "$A")
LD=$(python3 -c "import json,sys; print([j['job'] for j in json.load(open(sys.argv[1]))['job_list'] if j.get('cluster_job') == int(sys.argv[2])][0])" "$T/status.json" "$D") ||
  fail "no local job names cluster job $D in /status"
"$ZK" status --config "$T/n1/zkpipe.ini" > "$T/st.txt" || fail "zkpipe status"
grep -q "^  cluster job $A chain RUNNING, 0/2 partitions, owner n1, local job $LA\$" "$T/st.txt" || { cat "$T/st.txt"; fail "zkpipe status: no line for cluster job $A"; }
grep -q "^  nodes:.* n2 DOWN" "$T/st.txt" || { cat "$T/st.txt"; fail "zkpipe status: n2 not DOWN"; }
"$ZK" status --config "$T/n1/zkpipe.ini" "$LD" > "$T/st1.txt" || fail "zkpipe status $LD"
grep -q "^job $LD (cluster job $D) DONE: 1/1" "$T/st1.txt" || { cat "$T/st1.txt"; fail "zkpipe status JOB: no cluster id"; }
grep -q "job $A epoch [0-9]*: local job $LA (2 partition(s))" "$T/n1/run/log/node0.cluster0" || fail "clusterd's log: no local id for $A"
grep -q "job $LA: cluster job $A (token c${A}e[0-9]*), 2 partition(s)" "$T/n1/supervisor.log" "$T/n1/run/log/"* || fail "supervisor's log: no cluster id for $LA"
grep -qF "job $LD (cluster job $D) DONE" "$T/n1/supervisor.log" "$T/n1/run/log/"* || fail "supervisor's log: no cluster id at DONE"
"$ZK" timeline --config "$T/n1/zkpipe.ini" --out "$T/tl.svg" > /dev/null || fail "timeline"
python3 - "$T/tl.svg" "$LD" "$D" "$LA" "$A" <<'EOF' || fail "timeline: cluster ids"
import sys, xml.etree.ElementTree as ET
t = ET.parse(sys.argv[1]); ld, d, la, a = sys.argv[2:]
jobs = {g.get("data-job"): g for g in t.iter() if g.tag.endswith("}g") or g.tag == "g" if g.get("class") == "job"}
assert jobs[ld].get("data-cluster-job") == d and jobs[la].get("data-cluster-job") == a, {k: v.attrib for k, v in jobs.items()}
txt = "".join(jobs[ld].itertext()); assert "(cluster %s)" % d in txt, txt
print("timeline: ok")
EOF
hold_open n1
log "PASS"
