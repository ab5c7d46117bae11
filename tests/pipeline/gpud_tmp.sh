#!/usr/bin/env bash
# What a gpud SIGKILLed mid-write leaves in a job's output (part-N.gpu.json.tmp.<its pid>) is
# removed when the job finishes, not only at the next start (issue 31, smaller item): the gpud is
# SIGKILLed for real mid-proof; the temporary it would have left (named with its pid: the write
# itself lasts microseconds, too short to hit) is put in the job's output beside a live writer's;
# the restarted gpud finishes the job; once its record is freed (retain_s = 0) the dead writer's
# temporary is gone, the live one's kept, and the supervisor was never restarted.
. "$(dirname "$0")/lib.sh" "$@"
EXTRA=$'[debug]\nprove_delay_ms = 1500'
write_config
start_sup
id=$(submit_job a 2)
proving() { "$SHM" --json "$ARENA" | python3 -c '
import json,sys
d=json.load(sys.stdin)
sys.exit(0 if any(p["state"]=="PROVING" for j in d["jobs"] for p in j["partitions"]) else 1)'; }
victim=$(status_json | jget "[p['pid'] for p in d['processes'] if p['role']=='gpud'][0]")
# stopped while a partition of the job is PROVING: the job cannot finish before the kill. Looked at
# first with gpud running: stopped during every look (a second or more each on a loaded machine),
# it hardly ran at all and the job crept (a 480 s time-out at load 70)
stopped_proving() {
  proving || return 1
  kill -STOP "$victim"
  bash -c "$(declare -f proving); SHM=$SHM ARENA=$ARENA proving" && return 0
  kill -CONT "$victim"; return 1
}
wait_until 30 stopped_proving || fail "no PROVING partition seen"
echo '{"job": ' > "$T/out/a/part-0.gpu.json.tmp.$victim"
sleep 1000 & live=$!
trap 'kill $live 2>/dev/null; cleanup' EXIT
echo '{"job": ' > "$T/out/a/part-1.gpu.json.tmp.$live"
log "SIGKILL gpud pid $victim mid-proof (stopped)"
kill -KILL "$victim"
wait_all 120 || { cat "$T/wait.out"; fail "the job did not finish DONE"; }
verify_all || fail "proofs"
wait_until 120 test ! -e "$T/out/a/part-0.gpu.json.tmp.$victim" ||
  fail "the killed gpud's temporary is still in the finished job's output: $(ls "$T/out/a" | tr "\n" " ")"
[ -e "$T/out/a/part-1.gpu.json.tmp.$live" ] || fail "a live writer's temporary was removed"
kill "$live"
grep -q "removed stale $T/out/a/part-0.gpu.json.tmp.$victim" "$T/supervisor.log" || fail "removal not logged"
[ "$(grep -c "serving ipc" "$T/supervisor.log")" = 1 ] || fail "the supervisor restarted"
echo "PASS: a SIGKILLed gpud's temporary removed when its job finished; a live writer's kept"
