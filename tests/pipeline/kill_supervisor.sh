#!/usr/bin/env bash
# SIGKILL the supervisor under load. Its daemons keep proving (the arena holds the jobs);
# a client's `zkpipe wait` rides through (REQ re-sends to the restarted REP); a new
# supervisor re-attaches the arena, adopts the live daemons (no second set is started),
# accepts new jobs, and every job ends DONE with valid proofs, each partition proved once.
. "$(dirname "$0")/lib.sh" "$@"
EXTRA=$'[debug]\nsynth_delay_ms = 100'
write_config
start_sup
for j in 0 1 2 3 4; do submit_job j$j 3 $j >/dev/null; done
"$ZK" wait --config "$CFG" --timeout 120 $(cut -d' ' -f1 "$T/ids") > "$T/early_wait.out" 2>&1 &
waiter=$!
shm_counter() { "$SHM" --json "$ARENA" | python3 -c "import json,sys; print(json.load(sys.stdin)['counters']['$1'])"; }
wait_until 30 bash -c "[ \$($(declare -f shm_counter); SHM=$SHM ARENA=$ARENA shm_counter parts_proved) -ge 2 ]" ||
  fail "no progress before the kill"
old_pids=$(status_json | jget "' '.join(str(p['pid']) for p in d['processes'])")
log "SIGKILL supervisor $SUP_PID (daemons: $old_pids)"
kill -KILL "$SUP_PID"; wait "$SUP_PID" 2>/dev/null; SUP_PID=
before=$(shm_counter parts_proved)
sleep 2
after=$(shm_counter parts_proved)
[ "$after" -gt "$before" ] || fail "daemons stopped proving without their supervisor ($before -> $after)"
log "proved $before -> $after with no supervisor; restarting it"
start_sup
grep -c "adopted" "$T/supervisor.log" | grep -qx 3 || fail "the new supervisor did not adopt the 3 daemons"
new_pids=$(status_json | jget "' '.join(str(p['pid']) for p in d['processes'])")
[ "$old_pids" = "$new_pids" ] || fail "daemons replaced ($old_pids -> $new_pids)"
submit_job late 2 3 >/dev/null
wait_all 120 || { cat "$T/wait.out"; fail "jobs did not all finish DONE"; }
wait "$waiter" || { cat "$T/early_wait.out"; fail "the client's wait across the restart failed"; }
verify_all || fail "proofs"
n=$(total_parts)
[ "$(counter parts_proved)" = "$n" ] || fail "parts_proved $(counter parts_proved) != $n (lost or proved twice)"
echo "PASS: supervisor killed and replaced; daemons adopted; $n partitions proved once each"
