#!/usr/bin/env bash
# Job ids are unique for the life of the run directory:
#  1. keep_arena = no, a clean stop, a restart: the new arena's ids are above every id in
#     results/, tokens/ and cancel/ (a reused id would inherit the old job's cancel flag);
#  2. keep_arena = no at SIGTERM with an accepted job: a warning, and the job is recorded
#     FAILED "dropped" (status answers it after the restart, not "unknown job");
#  3. the arena wiped while the supervisor is down (SIGKILL of everything, its /dev/shm file
#     removed): the unfinished job answers FAILED "lost", new ids stay above the old ones.
. "$(dirname "$0")/lib.sh" "$@"
state_of() { status_json "$1" | jget "d['state']"; }
error_of() { status_json "$1" | jget "d['error']"; }
stop_sup() { kill -TERM "$SUP_PID"; wait "$SUP_PID"; SUP_PID=; }
max_id_on_disk() {
  { ls "$T/run/results" | sed 's/\.json$//'; ls "$T/run/cancel"; cat "$T/run/tokens/"*; } | sort -n | tail -1
}

# The jobs that must be unfinished at a step are held by the [debug] hold_at gate (nothing is
# proved until hold_open), not by a delay that a fast or a slow machine defeats.
# 1.
KEEP_ARENA=no
EXTRA=$'[debug]\nhold_at = prove'
write_config
start_sup
a=$(submit_job a 1); b=$(submit_job b 1 1)
c=$("$ZK" submit --config "$CFG" --key chain --output "$T/out/c" "$EX/w2.wtns" "$EX/w3.wtns" "$EX/w4.wtns") || fail "submit c"
"$ZK" cancel --config "$CFG" "$c" >/dev/null || fail "cancel $c"
hold_open
"$ZK" wait --config "$CFG" --timeout 300 "$a" "$b" >/dev/null || fail "a, b"
"$ZK" wait --config "$CFG" --timeout 300 "$c" >/dev/null; [ $? = 11 ] || fail "cancelled job $c did not FAIL"
[ -e "$T/run/cancel/$c" ] || fail "no cancel flag for $c (the test's premise)"
stop_sup
hw=$(max_id_on_disk)
start_sup
grep -q "ids continue after" "$T/supervisor.log" || fail "no log of the id floor"
new=()
for k in 1 2 3 4; do new+=("$(submit_job n$k 1 $k)"); done
for id in "${new[@]}"; do [ "$id" -gt "$hw" ] || fail "job id $id reused (the run directory has up to $hw)"; done
"$ZK" wait --config "$CFG" --timeout 300 "${new[@]}" >/dev/null || fail "new jobs did not all finish DONE (a reused cancel flag?)"
[ "$(state_of "$a")" = DONE ] || fail "old job $a: $(state_of "$a")"
log "re-created arena: ids ${new[*]} above $hw"

# 2.
stop_sup
EXTRA=$'[debug]\nhold_at = prove'; rm -f "$T/run/hold/open" # g stays unfinished
write_config
start_sup
g=$(submit_job g 1)
stop_sup
grep -q "WARNING: job $g dropped" "$T/supervisor.log" || fail "no warning that job $g was dropped"
EXTRA=
write_config
start_sup
[ "$(state_of "$g")" = FAILED ] || fail "dropped job $g: '$(state_of "$g")'"
error_of "$g" | grep -q "keep_arena" || fail "job $g's reason: $(error_of "$g")"
log "keep_arena = no at SIGTERM: job $g recorded FAILED"

# 3.
backing=$(status_json | jget "d['groups'][0]['backing']")
stop_sup
KEEP_ARENA=yes
EXTRA=$'[debug]\nhold_at = prove'; rm -f "$T/run/hold/open" # h stays unfinished
write_config
start_sup
h=$(submit_job h 1)
pids=$(arena_pids)
kill -KILL "$SUP_PID" $pids; wait "$SUP_PID" 2>/dev/null; SUP_PID=
case $backing in
  shm*) rm -f /dev/shm/zkpipe."$ARENA"* ;;
  *) echo "SKIP part 3: arena backing $backing is not a /dev/shm file"
     # the cancelled, dropped and killed jobs have no proofs to verify (as at the end below)
     grep -Ev "^($c|$g|$h) " "$T/ids" > "$T/ids.ok"; mv "$T/ids.ok" "$T/ids"
     verify_all || fail proofs; exit 0 ;;
esac
# the killed daemons gone before the next start (was "sleep 0.2": too short on a loaded machine)
for p in $pids; do wait_until 120 dead "$p" || fail "daemon $p outlived SIGKILL"; done
EXTRA=
write_config
start_sup
[ "$(state_of "$h")" = FAILED ] || fail "job $h of the wiped arena: '$(state_of "$h")'"
error_of "$h" | grep -q "lost" || fail "job $h's reason: $(error_of "$h")"
"$ZK" status --config "$CFG" "$h" >/dev/null || fail "zkpipe status $h (the lost job's record) failed"
i=$(submit_job i 1)
[ "$i" -gt "$h" ] || fail "id $i reused after the wipe (had $h)"
"$ZK" wait --config "$CFG" --timeout 300 "$i" >/dev/null || fail "job $i"
grep -Ev "^($c|$g|$h) " "$T/ids" > "$T/ids.ok"; mv "$T/ids.ok" "$T/ids"
verify_all || fail "proofs"
echo "PASS: ids never reused across arena re-creation; dropped and lost jobs answer FAILED"
