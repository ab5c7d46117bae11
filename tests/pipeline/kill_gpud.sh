#!/usr/bin/env bash
# SIGKILL the gpud while it proves (proof stretched by [debug] prove_delay_ms): it released
# its slot before proving, so the slot is already FREE; its PROVING partition goes back to
# PENDING, is synthesized again and proved by the restarted gpud. Every job ends DONE,
# each partition proved once.
. "$(dirname "$0")/lib.sh" "$@"
EXTRA=$'[debug]\nprove_delay_ms = 600'
write_config
start_sup
for j in 0 1 2; do submit_job j$j 3 $j >/dev/null; done
proving() { "$SHM" --json "$ARENA" | python3 -c '
import json,sys
d=json.load(sys.stdin)
sys.exit(0 if any(p["state"]=="PROVING" for j in d["jobs"] for p in j["partitions"]) else 1)'; }
wait_until 20 bash -c "$(declare -f proving); SHM=$SHM ARENA=$ARENA proving" || fail "no PROVING partition seen"
victim=$(status_json | jget "[p['pid'] for p in d['processes'] if p['role']=='gpud'][0]")
log "SIGKILL gpud pid $victim mid-proof"
kill -KILL "$victim"
wait_all 120 || { cat "$T/wait.out"; fail "jobs did not all finish DONE"; }
verify_all || fail "proofs"
n=$(total_parts)
[ "$(counter parts_proved)" = "$n" ] || fail "parts_proved $(counter parts_proved) != $n (lost or proved twice)"
[ "$(counter synth_started)" -gt "$n" ] || fail "the killed proof was not redone"
[ "$(counter parts_retried)" -ge 1 ] || fail "the killed gpud's partition was not retried"
restarts=$(status_json | jget "sum(p['restarts'] for p in d['processes'] if p['role']=='gpud')")
[ "$restarts" -ge 1 ] || fail "gpud not restarted"
echo "PASS: gpud $victim killed mid-proof; $n partitions proved once each"
