#!/usr/bin/env bash
# SIGKILL the gpud while it proves (held mid-proof by the [debug] hold_at = proved gate: its
# proof computed, the partition still PROVING): it released its slot before proving, so the slot
# is already FREE; its PROVING partition goes back to PENDING, is synthesized again and proved by
# the restarted gpud. Every job ends DONE, each partition proved once.
. "$(dirname "$0")/lib.sh" "$@"
EXTRA=$'[debug]\nhold_at = proved'
write_config
start_sup
for j in 0 1 2; do submit_job j$j 3 $j >/dev/null; done
held() { cat "$T"/run/log/*gpud* 2>/dev/null | grep -q "hold_at = proved: job [0-9]* part [0-9]* held"; }
wait_until 120 held || fail "gpud never held a proof at the gate"
victim=$(status_json | jget "[p['pid'] for p in d['processes'] if p['role']=='gpud'][0]")
log "SIGKILL gpud pid $victim mid-proof"
kill -KILL "$victim"
hold_open
all_proved_once 300
[ "$(counter synth_started)" -gt "$n" ] || fail "the killed proof was not redone"
[ "$(counter parts_retried)" -ge 1 ] || fail "the killed gpud's partition was not retried"
restarts=$(status_json | jget "sum(p['restarts'] for p in d['processes'] if p['role']=='gpud')")
[ "$restarts" -ge 1 ] || fail "gpud not restarted"
echo "PASS: gpud $victim killed mid-proof; $n partitions proved once each"
