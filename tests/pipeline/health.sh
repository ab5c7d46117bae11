#!/usr/bin/env bash
# Health that tells the truth (issue 23 item 1), on this GPU-less machine:
#  1. a missing zkey, a zkey of another prime and a .zpk without its circuit are reported failed (zkpipe status, /status,
#     the supervisor's log) with the file and the reason, while the good key becomes ready;
#     submits for a failed key are refused with the reason (exit 13, no output directory);
#     `zkpipe wait` on an unknown job ends at once (exit 12);
#  2. backend = cuda: gpud fails at start (exit 8, backend unavailable) the same way 3 times, is
#     then no longer restarted (given_up, its restarts stop growing), the key is failed with the
#     reason, submits are refused (13), and `submit --wait` of a job accepted before ends (13).
. "$(dirname "$0")/lib.sh" "$@"
HTTP_PORT=$(free_port)
python3 - "$EX/chain.zkey" "$T/badq.zkey" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
d[44] ^= 1            # section 2 starts at 40: n8q (4 bytes), then q: no longer BLS12-381's prime
open(sys.argv[2], 'wb').write(d)
PY
"$ZK" key convert --from "$EX/chain.zkey" --to "$T/chain.zpk" >/dev/null 2>&1 || fail "key convert"
EXTRA_RUN="http = 127.0.0.1:$HTTP_PORT"
EXTRA_KEYS="[key gone]
zkey = $T/missing.zkey
[key badq]
zkey = $T/badq.zkey
[key nocirc]
zkey = $T/chain.zpk"
write_config
start_sup
key_state() { status_json | python3 -c "
import json,sys
d=json.load(sys.stdin)
k=[k for k in d['keys'] if k['name']=='$1']
print(k[0]['state'] if k else 'absent')"; }
key_is() { [ "$(key_state "$1")" = "$2" ]; }
wait_until 60 key_is chain ready || fail "key chain never ready: $(status_json)"
[ "$(key_state gone)" = failed ] || fail "missing zkey: key gone is $(key_state gone)"
[ "$(key_state badq)" = failed ] || fail "zkey of another prime: key badq is $(key_state badq)"
[ "$(key_state nocirc)" = failed ] || fail "a .zpk without r1cs (no circuit for synthd): $(key_state nocirc)"
status_json | python3 -c '
import json,sys
d=json.load(sys.stdin); k={x["name"]: x for x in d["keys"]}
assert "missing.zkey" in k["gone"]["error"], k["gone"]
assert "BLS12-381" in k["badq"]["error"], k["badq"]
assert k["chain"]["error"] == "" and k["chain"]["gpuds_ready"] == 1, k["chain"]
for f in ("groups", "processes", "pid", "uptime_s"): assert f in d, f   # the old fields stay
' || fail "status keys: $(status_json)"
# /status over HTTP carries the same keys array
curl -sf "http://127.0.0.1:$HTTP_PORT/status" | python3 -c '
import json,sys; d=json.load(sys.stdin); s={k["name"]: k["state"] for k in d["keys"]}
assert s == {"chain": "ready", "gone": "failed", "badq": "failed", "nocirc": "failed"}, s' || fail "/status keys"
# the text status and the supervisor's log say it too
"$ZK" status --config "$CFG" | grep -q "key gone: failed.*missing.zkey" || fail "zkpipe status text: $("$ZK" status --config "$CFG")"
grep -q "key gone: FAILED validation: .*missing.zkey" "$T/supervisor.log" || fail "supervisor log: key gone"
grep -q "key badq: FAILED validation: .*BLS12-381" "$T/supervisor.log" || fail "supervisor log: key badq"
grep -q "serving .*gone (FAILED)" "$T/supervisor.log" || fail "the serving line does not say key gone failed"
# submits for a failed key are refused with the reason; nothing is created
"$ZK" submit --config "$CFG" --key gone --output "$T/out/g" "$EX/w0.wtns" >"$T/g.out" 2>&1; rc=$?
[ $rc = 13 ] || fail "submit for key gone exited $rc: $(cat "$T/g.out")"
grep -q "missing.zkey" "$T/g.out" || fail "refusal without its reason: $(cat "$T/g.out")"
[ "$(grep -o "key gone" "$T/g.out" | wc -l)" = 1 ] || fail "the refusal names the key more than once: $(cat "$T/g.out")"
[ ! -e "$T/out/g" ] || fail "a refused submit created its output directory"
# the good key proves
id=$("$ZK" submit --config "$CFG" --key chain --output "$T/out/a" "$EX/w0.wtns") || fail "submit chain"
"$ZK" wait --config "$CFG" --timeout 60 "$id" >/dev/null || fail "chain job"
# wait on an unknown job: exit 12, at once (without --timeout wait would wait for ever: timeout's
# 124 would say so; a clock would only say how loaded the machine is)
timeout 120 "$ZK" wait --config "$CFG" 999999 >"$T/u.out" 2>&1; rc=$?
[ $rc = 12 ] || fail "wait on an unknown job exited $rc: $(cat "$T/u.out")"
log "part 1 ok: missing and wrong-prime zkeys failed and refused, chain ready and proved, unknown job 12"
kill -TERM "$SUP_PID"; wait "$SUP_PID" 2>/dev/null; SUP_PID=

# ---- 2. backend = cuda without a GPU (or without a CUDA build)
rm -rf "$T/run"
EXTRA_RUN=""; EXTRA_KEYS=""
EXTRA="backend = cuda" write_config
start_sup
# accepted while the key still loads (gpud not yet failed), waited for in the background
"$ZK" submit --config "$CFG" --key chain --output "$T/out/c" --wait "$EX/w1.wtns" >"$T/c.out" 2>&1 &
SW=$!
gpud_given_up() { status_json | python3 -c '
import json,sys
d=json.load(sys.stdin); g=[p for p in d["processes"] if p["role"]=="gpud"][0]
sys.exit(0 if g.get("given_up") else 1)'; }
wait_until 120 gpud_given_up || fail "gpud still restarted after repeated failures: $(status_json)"
r1=$(status_json | jget '[p for p in d["processes"] if p["role"]=="gpud"][0]["restarts"]')
sleep 3
r2=$(status_json | jget '[p for p in d["processes"] if p["role"]=="gpud"][0]["restarts"]')
[ "$r1" = "$r2" ] || fail "gpud restarts grew from $r1 to $r2 after it was given up"
[ "$r1" -le 3 ] || fail "gpud restarted $r1 times before it was given up"
status_json | jget '[p for p in d["processes"] if p["role"]=="gpud"][0]["error"]' | grep -q "status 8.*cuda" ||
  fail "give-up reason: $(status_json | jget '[p for p in d["processes"] if p["role"]=="gpud"][0]')"
grep -q "NOT restarting: failed at start 3 times in a row: exited with status 8" "$T/supervisor.log" ||
  fail "the supervisor log does not say why gpud is not restarted"
wait_until 60 key_is chain failed || fail "key chain not failed under backend = cuda"
"$ZK" submit --config "$CFG" --key chain --output "$T/out/d" "$EX/w2.wtns" >"$T/d.out" 2>&1; rc=$?
[ $rc = 13 ] || fail "submit under a failed backend exited $rc: $(cat "$T/d.out")"
grep -qi "cuda" "$T/d.out" || fail "refusal without the reason: $(cat "$T/d.out")"
# the backend names itself once (issue 37: "backend cuda: backend cuda: ...")
grep -h "backend cuda: backend cuda" "$T/d.out" "$T"/run/log/* && fail "the backend's name twice in its error"
grep -q "backend cuda: " "$T"/run/log/*gpud* || fail "gpud's log does not name the backend"
for _ in $(seq 600); do kill -0 $SW 2>/dev/null || break; sleep 0.1; done
kill -0 $SW 2>/dev/null && fail "submit --wait still waiting on a job whose key failed"
wait $SW; rc=$?
[ $rc = 13 ] || fail "submit --wait exited $rc: $(cat "$T/c.out")"
grep -q "cannot finish: key chain failed\|cannot be served" "$T/c.out" || fail "submit --wait: $(cat "$T/c.out")"
echo "PASS: failed keys reported (status, /status, log) and refused (13); unknown job 12; gpud given up after 3 identical start failures"
