#!/usr/bin/env bash
# What a gpud SIGKILLed mid-write leaves in a job's output (part-N.gpu.json.tmp.<its pid>) is
# removed when the job finishes, not only at the next start (issue 31, smaller item): the gpud is
# SIGKILLed for real mid-proof; the temporary it would have left (named with its pid: the write
# itself lasts microseconds, too short to hit) is put in the job's output beside a live writer's;
# the restarted gpud finishes the job; once its record is freed (retain_s = 0) the dead writer's
# temporary is gone, the live one's kept, and the supervisor was never restarted.
. "$(dirname "$0")/lib.sh" "$@"
# held mid-proof by the [debug] hold_at = proved gate (proof computed, the partition still PROVING),
# not "probably still proving" (a 1.5 s prove delay and a stop while polling: on a loaded machine
# the job was done before the first look, and the test timed out)
EXTRA=$'[debug]\nhold_at = proved'
write_config
start_sup
id=$(submit_job a 2)
held() { cat "$T"/run/log/*gpud* 2>/dev/null | grep -q "hold_at = proved: job [0-9]* part [0-9]* held"; }
wait_until 120 held || fail "gpud never held a proof at the gate"
victim=$(status_json | jget "[p['pid'] for p in d['processes'] if p['role']=='gpud'][0]")
echo '{"job": ' > "$T/out/a/part-0.gpu.json.tmp.$victim"
sleep 1000 & live=$!
trap 'kill $live 2>/dev/null; cleanup' EXIT
echo '{"job": ' > "$T/out/a/part-1.gpu.json.tmp.$live"
log "SIGKILL gpud pid $victim mid-proof (held at the gate)"
kill -KILL "$victim"
hold_open
wait_all 300 || { cat "$T/wait.out"; fail "the job did not finish DONE"; }
verify_all || fail "proofs"
wait_until 120 test ! -e "$T/out/a/part-0.gpu.json.tmp.$victim" ||
  fail "the killed gpud's temporary is still in the finished job's output: $(ls "$T/out/a" | tr "\n" " ")"
[ -e "$T/out/a/part-1.gpu.json.tmp.$live" ] || fail "a live writer's temporary was removed"
kill "$live"
grep -q "removed stale $T/out/a/part-0.gpu.json.tmp.$victim" "$T/supervisor.log" || fail "removal not logged"
[ "$(grep -c "serving ipc" "$T/supervisor.log")" = 1 ] || fail "the supervisor restarted"
echo "PASS: a SIGKILLed gpud's temporary removed when its job finished; a live writer's kept"
