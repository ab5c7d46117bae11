#!/usr/bin/env bash
# SIGKILL a synthd while it fills a slot (synthesis stretched by [debug] synth_delay_ms):
# its slot goes back to FREE, its partition back to PENDING (attempts + 1), the supervisor
# restarts it, the other synthd and the gpud keep working, and every job ends DONE with
# valid proofs, each partition proved once.
. "$(dirname "$0")/lib.sh" "$@"
EXTRA=$'[debug]\nsynth_delay_ms = 400'
write_config
start_sup
for j in 0 1 2 3; do submit_job j$j 3 $j >/dev/null; done
# Kill, from one python process, a synthd whose slot turned FILLING < 150 ms ago: with
# synthesis stretched to 400 ms it is certainly still filling when the signal lands.
victim=$(python3 - "$SHM" "$ARENA" <<'PY'
import json, os, signal, subprocess, sys, time
end = time.time() + 20
while time.time() < end:
    d = json.loads(subprocess.run([sys.argv[1], "--json", sys.argv[2]], capture_output=True).stdout)
    for s in d["slots"]:
        if s["state"] == "FILLING" and s["owner_alive"] and time.time_ns() - s["state_ns"] < 150_000_000:
            os.kill(s["owner_pid"], signal.SIGKILL)
            print(s["owner_pid"]); sys.exit(0)
    time.sleep(0.01)
sys.exit(1)
PY
) || fail "no freshly FILLING slot seen"
log "SIGKILLed synthd pid $victim mid-synthesis"
wait_all 120 || { cat "$T/wait.out"; fail "jobs did not all finish DONE"; }
verify_all || fail "proofs"
n=$(total_parts)
[ "$(counter parts_proved)" = "$n" ] || fail "parts_proved $(counter parts_proved) != $n (lost or proved twice)"
[ "$(counter synth_started)" -gt "$n" ] || fail "no synthesis was interrupted"
[ "$(counter parts_retried)" -ge 1 ] || fail "the killed synthd's partition was not retried"
[ "$(counter slots_reclaimed)" -ge 1 ] || fail "the killed synthd's slot was not reclaimed"
restarts=$(status_json | jget "sum(p['restarts'] for p in d['processes'] if p['role']=='synthd')")
[ "$restarts" -ge 1 ] || fail "synthd not restarted"
grep -q "pid $victim killed by signal 9" "$T/supervisor.log" || fail "death not logged"
echo "PASS: synthd $victim killed mid-synthesis; $n partitions proved once each"
