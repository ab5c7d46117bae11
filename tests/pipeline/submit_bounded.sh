#!/usr/bin/env bash
# The supervisor's loop does bounded work per submit (issue 31 item 3): an input.json is checked
# there only for being a regular file within 64 MiB whose first non-blank byte is '{'; synthd
# parses it in full (pipeline/jsonscan.c, bounded memory) before the key's generator runs.
#  - 16 input.json of 64 MiB (hard links of one file, 32 M array elements each) in one submit:
#    `zkpipe status` keeps answering while it is submitted (each within a bound), the
#    supervisor's peak RSS stays far below one parsed file, and the job ends DONE;
#  - an integer beyond 64 bits (a field element, as circom and snarkjs take it) is accepted;
#  - a file whose first non-blank byte is not '{' is refused at submit; a malformed one past its
#    first byte fails its partition in synthd, naming the line and column.
# The generator is a script (witness_bin) that writes one of the chain circuit's witnesses.
. "$(dirname "$0")/lib.sh" "$@"
cat > "$T/gen" <<SH
#!/bin/sh
# argv: input.json out.wtns
cp "$EX/w0.wtns" "\$2"
SH
chmod +x "$T/gen"; : > "$T/gen.dat"   # circom's C++ generators carry a .dat beside them
EXTRA_KEYS="[key gen]
zkey = $EX/chain.zkey
r1cs = $EX/chain.r1cs
witness_bin = $T/gen"
MAXPARTS=16
write_config
start_sup
mkdir -p "$T/in"
python3 - "$T/in/big0.json" <<'PY'
import sys
k = ((64 << 20) - 16) // 2 - 8   # '{"a": [' + k x "1," + '1]}': just under 64 MiB
with open(sys.argv[1], "w") as f:
    f.write('{"a": [')
    chunk = "1," * (1 << 20)
    for _ in range(k >> 20):
        f.write(chunk)
    f.write("1," * (k & ((1 << 20) - 1)) + "1]}")
PY
sz=$(stat -c %s "$T/in/big0.json")
[ "$sz" -le $((64 << 20)) ] && [ "$sz" -gt $((63 << 20)) ] || fail "big input is $sz bytes"
ins=("$T/in/big0.json")
for i in $(seq 1 15); do ln "$T/in/big0.json" "$T/in/big$i.json"; ins+=("$T/in/big$i.json"); done
rss0=$(awk '/VmHWM/ {print $2}' "/proc/$SUP_PID/status")
"$ZK" submit --config "$CFG" --key gen --output "$T/out/big" "${ins[@]}" >"$T/big.id" 2>"$T/big.err" &
SUBMIT=$!
polls=0
while kill -0 "$SUBMIT" 2>/dev/null || [ $polls -lt 3 ]; do
  # 60 s: a stalled loop, not a speed (10 s was a loaded machine's reaction time); a file parsed on
  # the loop is caught by the peak RSS below, whatever the machine's speed
  timeout 60 "$ZK" status --config "$CFG" >/dev/null 2>&1 ||
    fail "zkpipe status did not answer within 60 s while 16 x 64 MiB input.json were being submitted"
  polls=$((polls + 1))
done
wait "$SUBMIT" || fail "submit of 16 x 64 MiB: $(cat "$T/big.err")"
rss1=$(awk '/VmHWM/ {print $2}' "/proc/$SUP_PID/status")
log "status answered $polls times during the submit; supervisor peak RSS $rss0 -> $rss1 KiB"
[ $((rss1 - rss0)) -lt $((64 << 10)) ] || fail "the supervisor's peak RSS grew by $((rss1 - rss0)) KiB (a file parsed on its loop)"
echo "$(cat "$T/big.id") big 16" >> "$T/ids"

# an integer beyond 64 bits (a BN254 field element) is accepted at submit and reaches the generator
echo '{"a": 21888242871839275222246405745257275088548364400416034343698204186575808495616, "b": ["12345678901234567890123456789"]}' > "$T/in/wide.json"
id=$("$ZK" submit --config "$CFG" --key gen --output "$T/out/wide" "$T/in/wide.json" 2>"$T/w.err") ||
  fail "an integer beyond 64 bits refused: $(cat "$T/w.err")"
echo "$id wide 1" >> "$T/ids"
wait_all 300 || { cat "$T/wait.out"; fail "jobs not DONE"; }
verify_all || fail "proofs"

# the top level is not an object: refused at submit, naming the input
printf '  \n [1, 2]' > "$T/in/arr.json"
"$ZK" submit --config "$CFG" --key gen --output "$T/out/arr" "$T/in/arr.json" >"$T/a.out" 2>&1; rc=$?
[ $rc = 10 ] || fail "an array input.json: exit $rc: $(cat "$T/a.out")"
grep -q "inputs\[0\].*arr.json.*not a JSON object" "$T/a.out" || fail "reason: $(cat "$T/a.out")"
: > "$T/in/empty.json"
"$ZK" submit --config "$CFG" --key gen --output "$T/out/e" "$T/in/empty.json" >"$T/e.out" 2>&1 && fail "an empty input.json accepted"
grep -q "empty or blank" "$T/e.out" || fail "reason: $(cat "$T/e.out")"
# malformed past its first byte: the partition fails in synthd with the line and column
printf '{"a": 1,\n "b": [1, 2,]}\n' > "$T/in/bad.json"
"$ZK" submit --config "$CFG" --key gen --output "$T/out/bad" "$T/in/bad.json" --wait >"$T/b.out" 2>&1; rc=$?
[ $rc = 11 ] || fail "a malformed input.json: exit $rc: $(cat "$T/b.out")"
grep -q "bad.json: not valid JSON: line 2 column 13: a value expected, ']' found" "$T/b.out" || fail "reason: $(cat "$T/b.out")"
[ -z "$(find "$T/run/witgen" -name "zpwit.*" 2>/dev/null)" ] || fail "generator directories left: $(find "$T/run/witgen" -name "zpwit.*")"
echo "PASS: 16 x 64 MiB input.json submitted while status answered ($polls polls), peak RSS +$((rss1 - rss0)) KiB; wide integers accepted; malformed inputs refused with the reason"
