#!/usr/bin/env bash
# supraseal kill_caller: a caller SIGKILLed mid-call (partitions handed over, more waiting for a
# slot) leaves no slot held and no partition owned; its job FAILS; the next caller is proved and
# sweeps the dead caller's output folder.
. "$(dirname "$0")/common.sh" "$@"
# gpud takes no READY slot while the [debug] hold_at = prove gate is shut: the victim below is
# blocked on the 2 slots when it is killed, with partitions handed over, however fast the machine
SLOTS=2 EXTRA=$'[debug]\nhold_at = prove' write_config
start_sup
export ZKPIPE_CONFIG=$CFG
make_key
hold_open
"$H" prove "$KEY" "$ROWS" "$PUB" 1 >/dev/null || fail "warm-up call"
hold_close
"$H" prove "$KEY" "$ROWS" "$PUB" 6 > "$T/victim.out" 2>&1 & V=$!
# wait until it has handed partitions over and is blocked on the 2 slots
wait_until 120 python3 -c '
import json,subprocess,sys
d=json.loads(subprocess.run([sys.argv[1],"--json",sys.argv[2]],capture_output=True,text=True).stdout)
js=[j for j in d["jobs"] if j["key_id"].startswith("ss:") and j["state"]=="ACTIVE"]
sys.exit(0 if js and sum(p["state"] == "READY" for p in js[0]["partitions"])>=2 else 1)' "$SHM" "$ARENA" ||
  fail "victim never handed partitions over"
log "killing caller $V mid-call"
kill -KILL $V; wait $V 2>/dev/null
hold_open
wait_until 120 no_ext_jobs || { shm_json; fail "the dead caller's job stayed ACTIVE"; }
wait_until 120 no_busy_slots || { shm_json; fail "slots still held after the caller died"; }
grep -q "caller pid $V is gone" "$T"/run/log/node0.gpud0 || fail "gpud did not fail the orphaned partitions"
ls "$T/run/ss" | grep -q "^$V\." || fail "the dead caller's output folder is gone before the next caller: $(ls "$T/run/ss")"
"$H" prove "$KEY" "$ROWS" "$PUB" 2 || fail "next caller"
# the next caller's connect sweeps the dead caller's output folder (run/ss/<pid>.<n>)
ls "$T/run/ss" | grep -q "^$V\." && fail "the dead caller's output folder outlived the next caller: $(ls "$T/run/ss")"
wait_until 60 no_busy_slots || fail "slots held at the end"
log "PASS"
