#!/usr/bin/env bash
# The operator's device-memory cap and keys that cannot be served (issue 32 items 2 and 3), CPU backend:
#  1. [group] gpu_memory = 24G reaches gpud as ZP_CUDA_MEM_CAP_MB=24576 (its /proc/PID/environ), and gpud's
#     health and the supervisor's /status show the cap (and `zkpipe status` the group's gpuds);
#     a key whose backend create fails ([debug] inject create-fail@bad: the error a card too small gives)
#     is FAILED at load with one sentence — whole, the key named once, the backend's context once — in
#     gpud's log, its health file, /status and the refusal of a submit ("key bad cannot be served: <reason>");
#     gpud serves the other key (its health says which), which proves; the group is degraded.
#  2. the group's only key fails: gpud stays up, "degraded" (not "ready"), is not restarted; /status says the
#     group is degraded and why; absent gpu_memory gives the gpud a cap of 0 (the whole card) even when
#     the supervisor's own environment has ZP_CUDA_MEM_CAP_MB.
# Run also with ZKPIPE_GPUD_PIPELINE=1 (the device pipeline over the CPU backend, whose stand-in card has a size).
. "$(dirname "$0")/lib.sh" "$@"
gpud_pid() { status_json | jget "[p['pid'] for p in d['processes'] if p['role']=='gpud'][0]"; }
health() { cat "$T/run/health/node0.gpud0.json"; }
key_is() { status_json | python3 -c "
import json,sys
d=json.load(sys.stdin); k=[k for k in d['keys'] if k['name']=='$1']
sys.exit(0 if k and k[0]['state']=='$2' else 1)"; }
gpud_stage_is() { health 2>/dev/null | python3 -c "import json,sys; sys.exit(json.load(sys.stdin).get('stage') != '$1')"; }

# one sentence: the reason as gpud made it, whole (it ends with the allocator's own words), the key and
# the backend's context once each
check_reason() { # WHAT TEXT KEY
  python3 - "$1" "$2" "$3" <<'PY' || fail "$1: $2"
import sys
what, t, key = sys.argv[1], sys.argv[2], sys.argv[3]
assert "[debug] inject create-fail@%s: cpu backend: the key kept on the device (" % key in t, "no reason"
assert t.rstrip().endswith("Cannot allocate memory"), "cut, or more after the cause"
assert t.count("cpu backend") == 1, "the backend's context twice"
assert t.count("Cannot allocate memory") == 1, "the cause twice"
assert t.count("key %s" % key) <= 1 and t.count("key %s:" % key) == 0, "the key named twice"
assert len(t) > 200, "shorter than the old 200-byte buffer: the test would not see a cut"
PY
}

# ---- 1. a cap, and one key of two that cannot be served
EXTRA_KEYS="[key bad]
zkey = $EX/chain.zkey
r1cs = $EX/chain.r1cs
[debug]
inject = create-fail@bad"
EXTRA="gpu_memory = 24GiB" write_config
start_sup
wait_until 60 key_is chain ready || fail "key chain never ready: $(status_json)"
wait_until 60 key_is bad failed || fail "key bad not failed: $(status_json)"
wait_until 30 gpud_stage_is ready || fail "gpud not ready: $(health)"
P=$(gpud_pid)
tr '\0' '\n' < "/proc/$P/environ" | grep -qx "ZP_CUDA_MEM_CAP_MB=24576" ||
  fail "gpud $P: no ZP_CUDA_MEM_CAP_MB=24576 in its environment: $(tr '\0' ' ' < "/proc/$P/environ" | grep -o 'ZP_CUDA[^ ]*')"
health | python3 -c '
import json,sys
h=json.load(sys.stdin)
assert h["gpu"]["memory_cap_bytes"] == 24 << 30, h.get("gpu")
assert h["serves"] == ["chain"] and h["failed"] == ["bad"], (h.get("serves"), h.get("failed"))
assert h["keys"]["bad"]["state"] == "failed", h["keys"]' || fail "health file: $(health)"
check_reason "health file" "$(health | jget 'd["keys"]["bad"]["error"]')" bad
status_json | python3 -c '
import json,os,sys
d=json.load(sys.stdin); g=d["groups"][0]; p=[p for p in d["processes"] if p["role"]=="gpud"][0]
assert g["gpu_memory"] == 24 << 30, g
pl = os.environ.get("ZKPIPE_GPUD_PIPELINE") == "1"  # the pipelined CPU backend has a stand-in card: a total
assert p["gpu_memory"]["cap"] == 24 << 30 and ("total" in p["gpu_memory"]) == pl, p
assert p["gpu"] == "" and p["backend"] == "cpu", p    # the GPU as configured ("" = ordinal) stays what it was
assert p["serves"] == ["chain"] and p["failed"] == ["bad"] and p["stage"] == "ready", p
assert g["state"] == "degraded" and "key bad failed on gpud.0" in g["error"], g' || fail "/status: $(status_json)"
check_reason "/status key bad" "$(status_json | jget '[k for k in d["keys"] if k["name"]=="bad"][0]["error"]')" bad
"$ZK" status --config "$CFG" >"$T/st.out"
grep -q "device memory capped at 24.00 GiB\(, card [0-9.]* GiB\)\?; serves: chain" "$T/st.out" || fail "zkpipe status: $(cat "$T/st.out")"
grep -q "DEGRADED: key bad failed" "$T/st.out" || fail "zkpipe status, group: $(cat "$T/st.out")"
# gpud's log: one line for the failure, and ready for what it serves
grep -c "key bad FAILED at load" "$T/run/log/node0.gpud0" | grep -qx 1 || fail "gpud log: $(grep 'key bad' "$T/run/log/node0.gpud0")"
check_reason "gpud log" "$(grep "key bad FAILED at load" "$T/run/log/node0.gpud0" | sed 's/.*key bad FAILED at load: //; s/ (not served.*//')" bad
# (gpud writes its health stage, then this line: the stage waited for above does not mean the line is there yet)
wait_until 30 grep -q "backend cpu ready for key(s) chain; FAILED: bad (device memory capped at 24576 MiB: \[group\] gpu_memory)" \
  "$T/run/log/node0.gpud0" || fail "gpud's ready line: $(grep ready "$T/run/log/node0.gpud0")"
# a submit for it: refused with the reason, the key named once
"$ZK" submit --config "$CFG" --key bad --output "$T/out/b" "$EX/w0.wtns" >"$T/b.out" 2>&1; rc=$?
[ $rc = 13 ] || fail "submit for key bad exited $rc: $(cat "$T/b.out")"
grep -q "key bad cannot be served: \[debug\] inject create-fail@bad: cpu backend: " "$T/b.out" || fail "refusal: $(cat "$T/b.out")"
check_reason "refusal" "$(sed 's/.*key bad cannot be served: //' "$T/b.out")" bad
# the other key proves
id=$("$ZK" submit --config "$CFG" --key chain --output "$T/out/a" "$EX/w0.wtns") || fail "submit chain"
"$ZK" wait --config "$CFG" --timeout 60 "$id" >/dev/null || fail "chain job"
log "part 1 ok: the cap reached gpud and /status; key bad FAILED with one whole sentence everywhere; chain proved"
kill -TERM "$SUP_PID"; wait "$SUP_PID" 2>/dev/null; SUP_PID=

# ---- 2. the only key fails: gpud up but degraded; no gpu_memory: cap 0, whatever the supervisor's environment
rm -rf "$T/run"
EXTRA_KEYS="[debug]
inject = create-fail@chain"
EXTRA="" write_config
ZP_CUDA_MEM_CAP_MB=4096 start_sup
wait_until 60 key_is chain failed || fail "key chain not failed: $(status_json)"
wait_until 30 gpud_stage_is degraded || fail "gpud not degraded: $(health)"
P=$(gpud_pid)
tr '\0' '\n' < "/proc/$P/environ" | grep -qx "ZP_CUDA_MEM_CAP_MB=0" || fail "gpud $P: the supervisor's ZP_CUDA_MEM_CAP_MB passed on"
health | python3 -c '
import json,sys
h=json.load(sys.stdin)
assert h["serves"] == [] and h["failed"] == ["chain"] and h["gpu"]["memory_cap_bytes"] == 0, h
assert "serves no key" in h["error"] and "key chain: [debug] inject create-fail@chain" in h["error"], h["error"]' ||
  fail "health: $(health)"
status_json | python3 -c '
import json,sys
d=json.load(sys.stdin); g=d["groups"][0]; p=[p for p in d["processes"] if p["role"]=="gpud"][0]
assert g["state"] == "degraded" and g["gpu_memory"] == 0 and "gpud.0 serves no key" in g["error"], g
assert p["alive"] and p["restarts"] == 0 and not p.get("given_up") and p["stage"] == "degraded", p
assert p["gpu_memory"]["cap"] == 0 and p["serves"] == [] and p["failed"] == ["chain"], p' ||
  fail "/status: $(status_json)"
"$ZK" submit --config "$CFG" --key chain --output "$T/out/c" "$EX/w0.wtns" >"$T/c.out" 2>&1; rc=$?
[ $rc = 13 ] || fail "submit for key chain exited $rc: $(cat "$T/c.out")"
check_reason "refusal (only key)" "$(sed 's/.*key chain cannot be served: //' "$T/c.out")" chain
wait_until 30 grep -q "backend cpu up but DEGRADED: it serves no key (FAILED: chain)" "$T/run/log/node0.gpud0" ||
  fail "gpud log: $(tail -3 "$T/run/log/node0.gpud0")"  # (written after the health stage: waited for)
! grep -q "backend cpu.* ready" "$T/run/log/node0.gpud0" || fail "gpud said ready with no key to serve"
grep -q "ZP_CUDA_MEM_CAP_MB=4096 in this environment is not passed to gpuds" "$T/supervisor.log" ||
  fail "the supervisor did not say it ignores its ZP_CUDA_MEM_CAP_MB"
[ "$(gpud_pid)" = "$P" ] || fail "gpud restarted"
log "part 2 ok: the only key failed: gpud up and degraded, not restarted; group degraded; cap 0"
echo "gpu_config: ok"
