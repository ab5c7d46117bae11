#!/usr/bin/env bash
# The arena's shape changes in the config while it holds accepted, unfinished jobs:
#  1. a shape that cannot hold them (max_parts below a job's partitions) is refused: the
#     supervisor exits 14 (config error) naming the difference and the way out, the arena and its jobs stay;
#  2. a shape that can (slots 3 -> 5, slot_size 2M -> 4M, jobs 64 -> 32) is applied after a
#     SIGKILLed supervisor left its daemons running: they are stopped, the jobs are written to a
#     plan, the old arena destroyed, the supervisor SIGKILLed there; the next start creates the
#     new arena and migrates the jobs with their ids (partitions already proved are kept), and
#     every job ends DONE with valid proofs, each partition proved once.
. "$(dirname "$0")/lib.sh" "$@"
KEEP_ARENA=yes
alive() { local st; st=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) && [ "$st" != Z ]; }
# gpud proves only the partitions the test lets through the [debug] hold_at gate: the jobs are
# unfinished at every step below, however fast the machine
EXTRA=$'[debug]\nhold_at = prove'
ORPHAN_S=600
write_config
start_sup
submit_job a 1 >/dev/null; submit_job b 3 2 >/dev/null; submit_job c 2 5 >/dev/null; submit_job d 3 7 >/dev/null
n=$(total_parts)
hold_release 2
wait_until 120 proved_at_least 2 || fail "no partition proved"
proved_before=$(counter parts_proved)
[ "$proved_before" = 2 ] || fail "the gate let $proved_before partitions through, 2 were released"
pids=$(arena_pids)
kill -KILL "$SUP_PID"; wait "$SUP_PID" 2>/dev/null; SUP_PID=
log "supervisor SIGKILLed with $proved_before of $n partitions proved; daemons left running: $pids"

# 1. refused: job b has 3 partitions
MAXPARTS=2 write_config
timeout -k 10 120 "$SUP" --config "$CFG" >>"$T/supervisor.log" 2>&1; rc=$?
[ $rc = 14 ] || fail "an inapplicable shape: supervisor exited $rc"
grep -q "max_parts 8 -> 2" "$T/supervisor.log" || fail "the difference is not named"
grep -q "zkpipe-shm --remove $ARENA" "$T/supervisor.log" || fail "the resolving command is not named"
"$SHM" --json "$ARENA" >/dev/null || fail "the arena was removed by a refused reshape"
for p in $pids; do [ "$p" = "$(head -1 <<<"$pids")" ] || alive "$p" || fail "a refused reshape stopped daemon $p"; done
[ -z "$(ls "$T/run/migrate")" ] || fail "a refused reshape left a plan"

# 2. applied, with a SIGKILL of the supervisor between destroying the old arena and creating the
#    new one ([debug] crash_at): the next start resumes from migrate/<group>.json
EXTRA=$'[debug]\nhold_at = prove\ncrash_at = reshape-after-destroy'
SLOTS=5 SLOT_SIZE=4M write_config
sed -i 's/^jobs = 64/jobs = 32/' "$CFG"
timeout -k 10 120 "$SUP" --config "$CFG" >>"$T/supervisor.log" 2>&1; rc=$?
[ $rc = 137 ] || fail "crash_at = reshape-after-destroy: supervisor exited $rc"
[ -s "$T/run/migrate/node0.json" ] || fail "no migration plan after the crash"
! "$SHM" --json "$ARENA" >/dev/null 2>&1 || fail "the old arena was not destroyed before the crash point"
EXTRA=$'[debug]\nhold_at = prove'
SLOTS=5 SLOT_SIZE=4M write_config
sed -i 's/^jobs = 64/jobs = 32/' "$CFG"
start_sup
grep -q "slots 3 -> 5, slot_size 2M -> 4M, jobs 64 -> 32" "$T/supervisor.log" || fail "the reshape is not logged"
migrated=$(grep -c "migrated job" "$T/supervisor.log")
# 2 partitions proved can finish job a (1 partition) at most: b, c and d are unfinished
[ "$migrated" -ge 3 ] || fail "$migrated job(s) migrated, 3 or 4 were unfinished"
for p in $pids; do ! alive "$p" || fail "old daemon $p still runs"; done
[ "$(status_json | jget "d['groups'][0]['slot_count']")" = 5 ] || fail "slot_count"
hold_open
wait_all 300 || { cat "$T/wait.out"; fail "migrated jobs did not all finish DONE"; }
verify_all || fail "proofs"
after=$(counter parts_proved)
# every partition proved exactly once, by the old arena's gpud or the new one's (gpud logs a proof after marking
# it DONE: the last one's line may follow the job's DONE, so the lines are waited for, not read at once)
proved_lines() { cat "$T"/run/log/*.gpud* | grep -o "job [0-9]* part [0-9]* proved" | sort -u | wc -l; }
wait_until 60 eval '[ "$(proved_lines)" -ge "$n" ]'
total=$(cat "$T"/run/log/*.gpud* | grep -c " part [0-9]* proved on ")
distinct=$(proved_lines)
[ "$distinct" = "$n" ] && [ "$total" = "$n" ] || fail "$total proofs of $distinct partitions for $n (lost or proved twice)"
[ -z "$(ls "$T/run/migrate")" ] || fail "the migration plan was not removed"
log "reshaped: $(grep -c 'migrated job' "$T/supervisor.log") job(s) migrated, $after partition(s) proved in the new arena"
echo "PASS: inapplicable shape refused with the difference; applicable one migrates accepted jobs to DONE"
