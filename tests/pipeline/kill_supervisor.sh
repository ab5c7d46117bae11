#!/usr/bin/env bash
# SIGKILL the supervisor under load. Its daemons keep proving (the arena holds the jobs);
# a client's `zkpipe wait` rides through (REQ re-sends to the restarted REP); a new
# supervisor re-attaches the arena, adopts the live daemons (no second set is started),
# accepts new jobs, and every job ends DONE with valid proofs, each partition proved once.
# The partitions pass gpud only with tokens of the [debug] hold_at gate, so the work left at
# the kill and proved without a supervisor is the test's choice, whatever the machine's speed.
. "$(dirname "$0")/lib.sh" "$@"
EXTRA=$'[debug]\nhold_at = prove'
ORPHAN_S=600 # the daemons wait for their next supervisor however slowly this test moves
write_config
start_sup
for j in 0 1 2 3 4; do submit_job j$j 3 $j >/dev/null; done
"$ZK" wait --config "$CFG" --timeout 400 $(cut -d' ' -f1 "$T/ids") > "$T/early_wait.out" 2>&1 &
waiter=$!
hold_release 2
wait_until 120 proved_at_least 2 || fail "no progress before the kill"
old_pids=$(status_json | jget "' '.join(str(p['pid']) for p in d['processes'])")
log "SIGKILL supervisor $SUP_PID (daemons: $old_pids)"
kill -KILL "$SUP_PID"; wait "$SUP_PID" 2>/dev/null; SUP_PID=
before=$(shm_counter parts_proved)
[ "$before" = 2 ] || fail "the gate let $before partitions through, 2 were released"
hold_release 3
wait_until 120 proved_at_least 5 ||
  fail "daemons stopped proving without their supervisor ($before -> $(shm_counter parts_proved), 3 released)"
after=$(shm_counter parts_proved)
[ "$after" = 5 ] || fail "the gate let $after partitions through, 5 were released"
log "proved $before -> $after with no supervisor; restarting it"
start_sup
grep -c "adopted" "$T/supervisor.log" | grep -qx 3 || fail "the new supervisor did not adopt the 3 daemons"
new_pids=$(status_json | jget "' '.join(str(p['pid']) for p in d['processes'])")
[ "$old_pids" = "$new_pids" ] || fail "daemons replaced ($old_pids -> $new_pids)"
hold_open
submit_job late 2 3 >/dev/null
all_proved_once 300
wait "$waiter" || { cat "$T/early_wait.out"; fail "the client's wait across the restart failed"; }
echo "PASS: supervisor killed and replaced; daemons adopted; $n partitions proved once each"
