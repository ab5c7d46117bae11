#!/usr/bin/env bash
# Client API: requests are validated with clear errors (unknown key, missing or unreadable
# input, witness for another circuit, too many partitions, paths outside the allowed
# directories); a token makes submit idempotent; cancel ends a job FAILED "cancelled";
# /metrics and /status answer over HTTP. Issue 37: cancel prints the state reached (not ACTIVE); wait on a
# long-finished job prints no "done in 0.0 s" line; an earlier job's output is refused, --overwrite clears
# its files (not the client's); submit --wait --timeout gives up with exit 9.
. "$(dirname "$0")/lib.sh" "$@"
PORT=$(free_port)
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
expect_err "missing.wtns' does not exist or is outside the directories the config allows" --key chain --output "$T/out/x" "$T/missing.wtns"
expect_err "too many partitions: 5" --key chain --output "$T/out/x" "$W" "$W" "$W" "$W" "$W"
expect_err "'/etc/hostname' does not exist or is outside the directories the config allows" --key chain --output "$T/out/x" /etc/hostname
# no existence oracle: a file that exists outside and one that does not get the same sentence (issue 31)
expect_err "'/etc/zkpipe-no-such-file' does not exist or is outside the directories the config allows" --key chain \
  --output "$T/out/x" /etc/zkpipe-no-such-file
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
"$ZK" cancel --config "$CFG" "$c" >"$T/cancel.out" || fail "cancel"
# the state the job reached, not the ACTIVE of the moment the request came (issue 37)
# (held at the gate, its partitions may still be in flight: then it says so, and wait below sees the end)
grep -Eq "^job $c( cancelled \(FAILED: cancelled|: cancel requested, still finishing)" "$T/cancel.out" &&
  ! grep -q ACTIVE "$T/cancel.out" || fail "cancel printed: $(cat "$T/cancel.out")"
hold_open
"$ZK" wait --config "$CFG" --timeout 300 "$c" > "$T/c.out" 2>"$T/c.err"; rc=$?
[ $rc = 11 ] || fail "wait on a cancelled job exited $rc: $(cat "$T/c.out")"
grep -q "cancelled" "$T/c.out" || fail "cancel reason: $(cat "$T/c.out")"
wait_until 60 grep -q cancelled "$T/out/c/error.txt" || fail "error.txt"
wait_all 300 || fail "the token job did not finish"
verify_all || fail "proofs"
# waiting on a job finished before: its result line, no "done in 0.0 s" progress line (issue 37)
"$ZK" wait --config "$CFG" "$a" >"$T/w.out" 2>"$T/w.err" || fail "wait on a finished job: $(cat "$T/w.out" "$T/w.err")"
grep -q "^job $a DONE" "$T/w.out" || fail "wait on a finished job printed: $(cat "$T/w.out")"
grep -q "done in" "$T/w.err" && fail "wait on a long-finished job printed a progress line: $(cat "$T/w.err")"
"$ZK" wait --help | grep -q "P proving" || fail "wait --help does not explain the progress letters"
# an output directory holding an earlier job's files: refused (the proofs would mix), or cleared with
# --overwrite (issue 37); the cancelled job's error.txt counts, a file of the client's own is kept
expect_err "output .*/out/t holds an earlier job's files (.*proof" --key chain --output "$T/out/t" "$W"
expect_err "output .*/out/c holds an earlier job's files (.*error.txt" --key chain --output "$T/out/c" "$W"
echo mine > "$T/out/t/notes.txt"
o=$("$ZK" submit --config "$CFG" --key chain --output "$T/out/t" --overwrite --wait --timeout 60 "$W" "$W" 2>"$T/o.err") ||
  fail "submit --overwrite: $(cat "$T/o.err")"
o=$(head -1 <<<"$o")
[ "$(cat "$T/out/t/notes.txt")" = mine ] || fail "--overwrite removed a file of the client's"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["job"] == int(sys.argv[2]) and len(d["partitions"]) == 2, d' \
  "$T/out/t/proofs.json" "$o" || fail "proofs.json after --overwrite is not the new job's"
"$ZK" submit --config "$CFG" --key chain --output "$T/out/x" --timeout 5 "$W" >/dev/null 2>&1 && fail "--timeout without --wait accepted"
# --wait --timeout gives up (exit 9, the job goes on): 4 partitions of >= 300 ms synthesis each on 2 synthds
# cannot be done in 0.1 s, however fast the machine
"$ZK" submit --config "$CFG" --key chain --output "$T/out/slow" --wait --timeout 0.1 "$W" "$W" "$W" "$W" >"$T/s.out" 2>&1; rc=$?
[ $rc = 9 ] && grep -q "still ACTIVE after" "$T/s.out" || fail "submit --wait --timeout 0.1: exit $rc: $(cat "$T/s.out")"
"$ZK" wait --config "$CFG" --timeout 60 "$(head -1 "$T/s.out")" >/dev/null || fail "the job after --timeout did not go on to DONE"
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
