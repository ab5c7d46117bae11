#!/usr/bin/env bash
# End to end: supervisor + 2 synthd + 1 gpud prove 4 jobs (9 partitions) of the chain
# circuit; every proof verifies; the job's proofs.json exists; counters add up; the arena
# holds exactly slots x slot size of slot data; a clean SIGTERM stops everything.
. "$(dirname "$0")/lib.sh" "$@"
write_config
start_sup
four_jobs_proved 90
[ "$(counter parts_synthesized)" = "$n" ] || fail "parts_synthesized != $n"
[ "$(counter slots_released)" = "$n" ] || fail "slots_released != $n"
bytes=$(status_json | jget "d['groups'][0]['slot_count'] * d['groups'][0]['slot_size']")
[ "$bytes" = $((3 * 2 * 1024 * 1024)) ] || fail "slot data $bytes != 3 x 2 MiB"
# a finished job's status comes from its results record
id=$(head -n1 "$T/ids" | cut -d' ' -f1)
[ "$(status_json "$id" | jget "d['state']")" = DONE ] || fail "status of finished job"
# owner-only run directory and socket
[ "$(stat -c %a "$T/run")" = 700 ] || fail "run dir mode $(stat -c %a "$T/run")"
[ "$(stat -c %a "$T/run/api.ipc")" = 600 ] || fail "api socket mode"
kill -TERM "$SUP_PID"
wait_until 60 dead "$SUP_PID" || fail "supervisor did not stop on SIGTERM"
wait "$SUP_PID"; rc=$?
[ $rc = 0 ] || fail "supervisor exit status $rc"
SUP_PID=
[ -z "$(arena_pids)" ] || fail "daemons left behind"
grep -q stopped "$T/supervisor.log" || fail "no clean stop"
echo "PASS: $n partitions proved and verified"
