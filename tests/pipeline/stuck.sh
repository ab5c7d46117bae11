#!/usr/bin/env bash
# Stuck daemons ([limits] stuck_timeout_s, the supervisor's watchdog over progress heartbeats):
# a daemon that stops making progress mid-partition is SIGKILLed within the bound — not before
# the timeout, not long after — reclaimed like a dead one and restarted; its partition is
# retried, every job ends DONE with valid proofs, each partition proved once, and no slot or
# process entry is left behind. Arg 3:
#   synthd  SIGSTOP a synthd while it fills a slot
#   gpud    SIGSTOP the gpud while it proves
#   hang    gpud's GPU thread blocks in a call that never returns ([debug] inject = hang@1,
#           device pipeline) while its main thread keeps looping: beats are progress, not a timer
# Legitimate long stages must not trip it: every daemon starts up for longer than the timeout
# ([debug] start_delay_ms, like a key load, exempt as start-up) and each synthesis and proof is
# stretched past the timeout by loops that report progress; no other daemon may be killed.
. "$(dirname "$0")/lib.sh" "$@"
WHAT=${3:-synthd}
# The timeout must exceed the longest stage that reports no progress: here the CPU backend's proof
# of the test circuit, milliseconds, but seconds in a sanitizer build (portable arithmetic under
# ASAN, scripts/test-sanitize.sh), which therefore gets a longer timeout.
STUCK=2
ldd "$B/gpud/zkpipe-gpud" 2>/dev/null | grep -q libasan && STUCK=8
# headroom for a loaded machine above the bound: a hang guard, not a speed; the kill takes ~2 s here (STUCK plus
# the watchdog's look), under load 12 on 2 cores too, and STUCK + SLACK is 10 times that
SLACK=18
EXTRA_LIMITS="stuck_timeout_s = $STUCK"$'\nstart_timeout_s = 60'
long=$((STUCK * 1000 + 500))   # legitimate stages longer than the timeout, reporting progress
DEBUG=$'[debug]\nstart_delay_ms = '$((long + 500))$'\nsynth_delay_ms = '$long$'\nprove_delay_ms = '$long
# the victim's partition cannot leave its stage before the SIGSTOP: it is held there by the
# [debug] hold_at gate (synthesized: the slot still FILLING; proved: the partition still PROVING)
case $WHAT in
  synthd) DEBUG+=$'\nhold_at = synthesized' ;;
  gpud) DEBUG+=$'\nhold_at = proved' ;;
  hang)
    [ "${ZKPIPE_GPUD_PIPELINE:-}" = 1 ] || skip "hang needs ZKPIPE_GPUD_PIPELINE=1 (the device pipeline)"
    DEBUG+=$'\ninject = hang@1' ;;
  *) fail "unknown case $WHAT" ;;
esac
EXTRA=$DEBUG
write_config
start_sup
submit_job a 2 0 >/dev/null; submit_job b 2 2 >/dev/null

# Stop the victim at the right moment (or, for hang, see the hung proof start), then time its
# death: the seconds from the stop (or from the partition turning PROVING) until the pid is gone.
out=$(python3 - "$SHM" "$ARENA" "$WHAT" <<'PY'
import json, os, signal, subprocess, sys, time
shm, arena, what = sys.argv[1:]
def state():
    return json.loads(subprocess.run([shm, "--json", arena], capture_output=True).stdout)
victim = None
end = time.time() + 60
while victim is None and time.time() < end:
    d = state()
    if what == "synthd":
        for s in d["slots"]:
            if s["state"] == "FILLING" and s["owner_alive"]:
                victim = s["owner_pid"]
    elif any(p["state"] == "PROVING" for j in d["jobs"] for p in j["partitions"]):
        victim = [p["pid"] for p in d["processes"] if p["role"] == "gpud" and p["alive"]][0]
    if victim is None:
        time.sleep(0.02)
if victim is None:
    sys.exit(1)
if what != "hang":
    os.kill(victim, signal.SIGSTOP)
t0 = time.time()
while time.time() < t0 + 60:
    try:
        os.kill(victim, 0)
    except ProcessLookupError:
        break
    time.sleep(0.02)
print(victim, round(time.time() - t0, 2))
PY
) || fail "no partition in flight seen"
read -r victim took <<<"$out"
hold_open
log "$WHAT pid $victim stopped making progress; gone after $took s (stuck_timeout_s = $STUCK)"
python3 -c "import sys; t=float(sys.argv[1]); sys.exit(0 if $STUCK - 0.5 <= t <= $STUCK + $SLACK else 1)" "$took" ||
  fail "$WHAT pid $victim gone after $took s: outside [$STUCK - 0.5, $STUCK + $SLACK] s"
all_proved_once 300
[ "$(counter parts_retried)" -ge 1 ] || fail "the stuck daemon's partition was not retried"
role=$([ "$WHAT" = synthd ] && echo synthd || echo gpud)
st=$(status_json)
[ "$(echo "$st" | jget "sum(p['restarts'] for p in d['processes'] if p['role']=='$role')")" = 1 ] ||
  fail "the stuck $role was not restarted exactly once: $st"
[ "$(echo "$st" | jget "sum(p['restarts'] for p in d['processes'])")" = 1 ] ||
  fail "another daemon was killed (a legitimate long stage or start-up tripped the watchdog): $st"
# nothing leaked: every slot FREE, one live entry per daemon + the supervisor, no DEAD entry
"$SHM" --json "$ARENA" | python3 -c '
import json, sys
d = json.load(sys.stdin)
bad = [s["state"] for s in d["slots"] if s["state"] != "FREE"]
procs = d["processes"]           # FREE entries are not listed
dead = [p for p in procs if not p["alive"]]
want = int(sys.argv[1])
ok = not bad and len(procs) == want and not dead
sys.exit(0 if ok else print("slots", bad, "entries", len(procs), "want", want, "dead", dead) or 1)
' $((1 + ${WORKERS:-2} + ${GPUDS:-1})) || fail "a slot or process entry leaked"
echo "PASS ($WHAT): stuck pid $victim killed after $took s (timeout $STUCK s), partition retried; $n partitions proved once each"
