#!/usr/bin/env bash
# SIGKILL a synthd while it fills a slot (held there by the [debug] hold_at = synthesized gate:
# the witness read, the slot still FILLING): its slot goes back to FREE, its partition back to
# PENDING (attempts + 1), the supervisor restarts it, the other synthd and the gpud keep working,
# and every job ends DONE with valid proofs, each partition proved once.
. "$(dirname "$0")/lib.sh" "$@"
EXTRA=$'[debug]\nhold_at = synthesized'
write_config
start_sup
for j in 0 1 2 3; do submit_job j$j 3 $j >/dev/null; done
held() { cat "$T"/run/log/*synthd* 2>/dev/null | grep -q "hold_at = synthesized: job [0-9]* part [0-9]* held"; }
wait_until 120 held || fail "no synthd held a filled slot at the gate"
# the owner of a FILLING slot: a synthd held at the gate (no slot turns READY while the gate is shut)
victim=$("$SHM" --json "$ARENA" | python3 -c '
import json,sys
d=json.load(sys.stdin)
print(next(s["owner_pid"] for s in d["slots"] if s["state"] == "FILLING" and s["owner_alive"]))') ||
  fail "no FILLING slot although a synthd is held"
kill -KILL "$victim"
hold_open
log "SIGKILLed synthd pid $victim mid-synthesis"
all_proved_once 300
[ "$(counter synth_started)" -gt "$n" ] || fail "no synthesis was interrupted"
[ "$(counter parts_retried)" -ge 1 ] || fail "the killed synthd's partition was not retried"
[ "$(counter slots_reclaimed)" -ge 1 ] || fail "the killed synthd's slot was not reclaimed"
restarts=$(status_json | jget "sum(p['restarts'] for p in d['processes'] if p['role']=='synthd')")
[ "$restarts" -ge 1 ] || fail "synthd not restarted"
grep -q "pid $victim killed by signal 9" "$T/supervisor.log" || fail "death not logged"
echo "PASS: synthd $victim killed mid-synthesis; $n partitions proved once each"
