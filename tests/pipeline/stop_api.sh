#!/usr/bin/env bash
# The API while the supervisor stops: its children get SIGTERM and up to stop_timeout_s before SIGKILL, and
# meanwhile every request is answered at once, "stopping: retry later" (code "stopping"), not left to
# the client's timeout. (A zkpipe-clusterd between two requests of one tick waited 5 s for each, met
# the SIGKILL and never marked its node STOPPED: cluster_basic failed so under load.) The stop is held
# open by a gpud stopped with SIGSTOP, and stop_timeout_s = 600 keeps it open however slow the machine
# (with the default 10 s a loaded machine could reach the SIGKILL before the requests); the answer's text is
# checked, not how fast it came.
. "$(dirname "$0")/lib.sh" "$@"
EXTRA_LIMITS="stop_timeout_s = 600" write_config
start_sup
gp=$(status_json | jget "[p['pid'] for p in d['processes'] if p['role']=='gpud'][0]")
[ -n "$gp" ] || fail "no gpud"
kill -STOP "$gp"
kill -TERM "$SUP_PID"
stopping() { grep -q "stopping: 1 s; waiting for .*gpud" "$T/supervisor.log"; }
wait_until 60 stopping || { kill -CONT "$gp"; fail "the supervisor's stop did not wait for the stopped gpud"; }
grep -q "stopping: 1 s; waiting for .*gpud.*(SIGKILL at 600 s)" "$T/supervisor.log" ||
  { kill -CONT "$gp"; fail "stop_timeout_s = 600 not in the stop's note: $(grep stopping: "$T/supervisor.log" | head -1)"; }
out=$("$ZK" status --config "$CFG" 2>&1); rc=$?
printf '{"op":"status"}' > "$T/req"
raw=$("$B/tests/pipeline/api_raw" "ipc://$T/run/api.ipc" "$T/req" 60000 2>&1)
kill -CONT "$gp"
[ $rc != 0 ] || fail "zkpipe status succeeded during the stop: $out"
echo "$out" | grep -q "the supervisor is stopping: retry later" || fail "zkpipe status during the stop: $out"
echo "$raw" | grep -q '"code":"stopping"' || fail "the raw reply during the stop: $raw"
wait_until 60 dead "$SUP_PID" || fail "the supervisor did not stop"
grep -q "every child stopped in" "$T/supervisor.log" || fail "no stop line: $(tail -5 "$T/supervisor.log")"
echo "PASS: requests during the stop answered 'stopping: retry later' at once"
