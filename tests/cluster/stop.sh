#!/usr/bin/env bash
# SIGTERM of a busy cluster node (issue 34 item 5), one real PostgreSQL server:
# - [cluster] stop = drain: the node claims nothing new, finishes the job it holds (held at the
#   hold_at gate until the test lets it through: the supervisor must still be running then),
#   then stops; nothing was handed back, the job is DONE, a job queued meanwhile stays QUEUED;
# - stop = release (the default): the job held is handed back at once (QUEUED, event 'released'),
#   and every second of the stop is accounted for in the supervisor's log (a line a second naming
#   what it waits for, then the total), and clusterd's log says what each step took.
. "$(dirname "$0")/lib.sh" "$@"
q_eq() { [ "$(psql_ "$2" 2>/dev/null)" = "$1" ]; }
grep_q() { grep -q -- "$1" "$2" 2>/dev/null; }
pg_init
"$ZK" cluster init --database "$DB" >/dev/null || fail "cluster init"
EXTRA_CLUSTER="stop = drain" EXTRA=$'[debug]\nhold_at = prove' node_config n1
start_node n1
wait_until 60 node_up n1 || fail "n1 did not join"
sup=$(cat "$T/n1/sup.pid")

# ---- stop = drain
hold_close n1
j1=$("$ZK" submit --database "$DB" --key chain "$EX/w0.wtns" "$EX/w1.wtns") || fail "submit j1"
wait_until 60 q_eq RUNNING "SELECT state FROM zkpipe.jobs WHERE id = $j1" || fail "j1 not claimed"
log "SIGTERM n1 (stop = drain) holding job $j1"
kill -TERM "$sup"
wait_until 60 grep_q "draining before the stop (\[cluster\] stop = drain): 1 job(s), 2 partition(s) held" \
  "$T/n1/run/log/node0.cluster0" || fail "clusterd did not start draining: $(tail -5 "$T/n1/run/log/node0.cluster0")"
wait_until 60 q_eq DRAINING "SELECT state FROM zkpipe.nodes WHERE name = 'n1'" || fail "n1 not DRAINING"
j2=$("$ZK" submit --database "$DB" --key chain "$EX/w2.wtns") || fail "submit j2 (while draining)"
alive "$sup" || fail "the supervisor stopped while its node was draining: $(tail -5 "$T/n1/supervisor.log")"
q_eq RUNNING "SELECT state FROM zkpipe.jobs WHERE id = $j1" || fail "j1 was handed back by a draining node"
hold_open n1
wait_until 120 dead "$sup" || fail "n1 did not stop after draining"
[ "$(psql_ "SELECT state FROM zkpipe.jobs WHERE id = $j1")" = DONE ] || fail "j1 not DONE: $(psql_ "SELECT state, error FROM zkpipe.jobs WHERE id = $j1")"
[ "$(psql_ "SELECT count(*) FROM zkpipe.events WHERE job = $j1 AND what = 'released'")" = 0 ] || fail "j1 was released"
[ "$(psql_ "SELECT state FROM zkpipe.jobs WHERE id = $j2")" = QUEUED ] || fail "a draining node claimed j2"
[ "$(psql_ "SELECT state FROM zkpipe.nodes WHERE name = 'n1'")" = STOPPED ] || fail "n1 not STOPPED"
grep -q "drained for the stop in" "$T/n1/run/log/node0.cluster0" || fail "clusterd did not log the drain's end"
grep -q "cluster node drained after" "$T/n1/supervisor.log" || fail "the supervisor did not log the drain"

# ---- stop = release (default): handed back at once, every second accounted for
sed -i '/^stop = drain$/d' "$T/n1/zkpipe.ini"
hold_close n1
start_node n1
sup=$(cat "$T/n1/sup.pid")
wait_until 60 q_eq RUNNING "SELECT state FROM zkpipe.jobs WHERE id = $j2" || fail "j2 not claimed"
log "SIGTERM n1 (stop = release) holding job $j2"
kill -TERM "$sup"
wait_until 60 dead "$sup" || fail "n1 did not stop"
[ "$(psql_ "SELECT state FROM zkpipe.jobs WHERE id = $j2")" = QUEUED ] || fail "j2 not handed back"
[ "$(psql_ "SELECT count(*) FROM zkpipe.events WHERE job = $j2 AND what = 'released'")" = 1 ] || fail "no 'released' event"
c=$T/n1/run/log/node0.cluster0
grep -q "signal 15: stopping, handing the jobs held back" "$c" || fail "clusterd: $(tail -5 "$c")"
grep -q "stop: 1 job(s) given back to the queue, node marked STOPPED" "$c" || fail "clusterd: $(tail -5 "$c")"
grep -q "stopped in [0-9.]* s" "$c" || fail "clusterd did not log its stop's time"
python3 - "$T/n1/supervisor.log" <<'PY' || fail "the supervisor's stop is not accounted for second by second"
import re, sys
log = open(sys.argv[1]).read().split("signal 15: shutting down")[-1]
m = re.search(r"every child stopped in ([0-9.]+) s", log)
assert m, "no 'every child stopped in' line"
for k in range(1, int(float(m.group(1))) + 1):
    assert re.search(r"stopping: %d s; waiting for \S" % k, log), f"second {k} of {m.group(1)} s not accounted for"
print("stop took", m.group(1), "s, every second logged")
PY
echo "PASS: SIGTERM drains (stop = drain) or hands back at once (release) with the stop's time accounted for"
