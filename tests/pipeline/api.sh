#!/usr/bin/env bash
# Client API: requests are validated with clear errors (unknown key, missing or unreadable
# input, witness for another circuit, too many partitions, paths outside the allowed
# directories); a token makes submit idempotent; cancel ends a job FAILED "cancelled";
# /metrics and /status answer over HTTP.
. "$(dirname "$0")/lib.sh" "$@"
PORT=$((20000 + RANDOM % 20000))
EXTRA_RUN="http = 127.0.0.1:$PORT"
MAXPARTS=4
# nothing is proved until the test opens the [debug] hold_at gate: the job to cancel is unfinished
# when cancelled, however fast the machine
EXTRA=$'[debug]\nhold_at = prove'
write_config
start_sup
expect_err() { # expect_err PATTERN submit-args...
  local pat=$1; shift
  if "$ZK" submit --config "$CFG" "$@" >"$T/out.txt" 2>"$T/err.txt"; then fail "accepted: $*"; fi
  grep -q -- "$pat" "$T/err.txt" || fail "expected '$pat', got: $(cat "$T/err.txt")"
  log "refused as expected: $(cat "$T/err.txt")"
}
W=$EX/w0.wtns
expect_err "unknown key 'nope'" --key nope --output "$T/out/x" "$W"
expect_err "No such file" --key chain --output "$T/out/x" "$T/missing.wtns"
expect_err "too many partitions: 5" --key chain --output "$T/out/x" "$W" "$W" "$W" "$W" "$W"
expect_err "outside the directories" --key chain --output "$T/out/x" /etc/hostname
expect_err "output: .*outside the directories" --key chain --output /tmp/zkpipe-not-allowed "$W"
cp "$SRC/tests/groth16/data/mul.wtns" "$T/mul.wtns"
expect_err "circuit has 1002 wires" --key chain --output "$T/out/x" "$T/mul.wtns"
printf 'garbage' > "$T/bad.wtns"
expect_err "inputs\[0\]: .*bad.wtns: .*12-byte header" --key chain --output "$T/out/x" "$T/bad.wtns"
touch "$T/unreadable.wtns"; chmod 000 "$T/unreadable.wtns"
if [ "$(id -u)" != 0 ]; then expect_err "Permission denied" --key chain --output "$T/out/x" "$T/unreadable.wtns"; fi
# idempotent submit
a=$("$ZK" submit --config "$CFG" --key chain --token tok-1 --output "$T/out/t" "$W") || fail "submit"
b=$("$ZK" submit --config "$CFG" --key chain --token tok-1 --output "$T/out/t" "$W") || fail "re-submit"
[ "$a" = "$b" ] || fail "same token gave two jobs ($a, $b)"
echo "$a t 1" >> "$T/ids"
# cancel a 4-partition job before any of its partitions is proved (held at the gate)
c=$("$ZK" submit --config "$CFG" --key chain --output "$T/out/c" "$W" "$W" "$W" "$W") || fail "submit c"
"$ZK" cancel --config "$CFG" "$c" >/dev/null || fail "cancel"
hold_open
"$ZK" wait --config "$CFG" --timeout 300 "$c" > "$T/c.out"; rc=$?
[ $rc = 11 ] || fail "wait on a cancelled job exited $rc: $(cat "$T/c.out")"
grep -q "cancelled" "$T/c.out" || fail "cancel reason: $(cat "$T/c.out")"
wait_until 60 grep -q cancelled "$T/out/c/error.txt" || fail "error.txt"
wait_all 300 || fail "the token job did not finish"
verify_all || fail "proofs"
# HTTP
python3 - "$PORT" <<'PY' || fail "http endpoints"
import json, sys, urllib.request
base = f"http://127.0.0.1:{sys.argv[1]}"
m = urllib.request.urlopen(base + "/metrics", timeout=5).read().decode()
assert 'zkpipe_parts_proved{group="node0"}' in m, m[:300]
assert 'zkpipe_slots{group="node0",state="FREE"}' in m
s = json.loads(urllib.request.urlopen(base + "/status", timeout=5).read())
assert s["ok"] and s["groups"][0]["slot_count"] == 3
PY
echo "PASS: validation errors, idempotent submit, cancel, /metrics, /status"
