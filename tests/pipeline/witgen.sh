#!/usr/bin/env bash
# Proving from inputs (issue 23 item 7) with circom2's own wasm witness generators (fixtures made
# by tests/oracle/fixtures.sh: circom2 + snarkjs from npm; skipped without node/npm):
#  - `zkpipe prove --input input.json --wasm` proves: public.json byte-equal to snarkjs's, proof
#    valid; `zkpipe prove` takes a .zpk with --r1cs (and refuses one without, exit 2);
#  - the service: `submit --input` (and .json positionals) with [key] wasm =: every partition's
#    proof valid and its public inputs those of its input; a file name full of shell syntax
#    reaches no shell; the generator's directories are removed;
#  - a failing generator (input missing a signal), one past its timeout (killed with its whole
#    process group, within a bound) and one past its memory limit fail their partitions with the
#    reason; an input.json for a key without a generator is refused at submit.
. "$(dirname "$0")/lib.sh" "$@"
FX=$B/oracle-fixtures
bash "$SRC/tests/oracle/fixtures.sh" "$FX" mul poseidon; rc=$?
[ $rc = 77 ] && skip "node/npm unavailable"
[ $rc = 0 ] || fail "fixtures"
M=$FX/mul; P=$FX/poseidon; CI=$SRC/tests/oracle/circuits
SJ=$SRC/tests/oracle/node_modules/.bin/snarkjs

# ---- one-shot
for c in mul poseidon; do
  "$ZK" prove --zkey "$FX/$c/$c.zkey" --input "$CI/$c.input.json" --wasm "$FX/$c/${c}_js/$c.wasm" \
    --proof "$T/$c.proof.json" --public "$T/$c.public.json" --quiet 2>"$T/p.err" || fail "prove --input $c: $(cat "$T/p.err")"
  cmp -s "$T/$c.public.json" "$FX/$c/public.json" || fail "$c: public.json differs from snarkjs's"
  "$ZK" verify --vk "$FX/$c/vk.json" --proof "$T/$c.proof.json" --public "$T/$c.public.json" >/dev/null || fail "$c: proof invalid"
  "$SJ" groth16 verify "$FX/$c/vk.json" "$T/$c.public.json" "$T/$c.proof.json" >/dev/null 2>&1 || fail "$c: snarkjs rejects the proof"
done
# circom's C++ generator (circom2 --c, built with g++, nasm, gmp, nlohmann-json), cached in the fixtures
cpp_gen() { # cpp_gen CIRCUIT: prints the generator binary's path, builds it once per circuit source
  local c=$1 d=$FX/$1/cpp st
  st=$(cat "$CI/$c.circom" "$SRC/tests/oracle/package-lock.json" | sha256sum | cut -c1-16)
  if [ ! -x "$d/${c}_cpp/$c" ] || [ "$(cat "$d/stamp" 2>/dev/null)" != "$st" ]; then
    rm -rf "$d"; mkdir -p "$d"
    (cd "$SRC/tests/oracle" && node_modules/.bin/circom2 "circuits/$c.circom" --c --prime bls12381 -l node_modules -o "$d") \
      >"$d/circom.log" 2>&1 && make -C "$d/${c}_cpp" -j2 >"$d/make.log" 2>&1 || return 1
    echo "$st" > "$d/stamp"
  fi
  echo "$d/${c}_cpp/$c"
}
if command -v g++ >/dev/null && command -v nasm >/dev/null && { [ -f /usr/include/gmp.h ] || [ -f /usr/include/$(gcc -dumpmachine)/gmp.h ]; } &&
   [ -f /usr/include/nlohmann/json.hpp ]; then
  G=$(cpp_gen mul) || fail "building circom's C++ generator for mul: $(tail -5 "$FX/mul/cpp/make.log" "$FX/mul/cpp/circom.log" 2>/dev/null)"
  "$ZK" prove --zkey "$M/mul.zkey" --input "$CI/mul.input.json" --witness-bin "$G" --proof "$T/cpp.proof.json" \
    --public "$T/cpp.public.json" --quiet || fail "prove --witness-bin (C++ generator)"
  cmp -s "$T/cpp.public.json" "$M/public.json" || fail "C++ generator: public.json differs from snarkjs's"
  "$ZK" verify --vk "$M/vk.json" --proof "$T/cpp.proof.json" --public "$T/cpp.public.json" >/dev/null || fail "C++ generator: invalid"
  CPP_KEY="[key mulcpp]
zkey = $M/mul.zkey
witness_bin = $G"
  log "C++ generator: proved"
else
  CPP_KEY=""
  log "SKIP (part): circom's C++ generator needs g++, nasm, libgmp-dev, nlohmann-json3-dev (scripts/deps.sh)"
fi
"$ZK" key convert --from "$M/mul.zkey" --to "$T/mul.zpk" >/dev/null 2>&1 || fail "key convert"
"$ZK" prove --zkey "$T/mul.zpk" --r1cs "$M/mul.r1cs" --wtns "$M/mul.wtns" --proof "$T/z.proof.json" \
  --public "$T/z.public.json" --quiet || fail "prove with a .zpk"
"$ZK" verify --vk "$M/vk.json" --proof "$T/z.proof.json" --public "$T/z.public.json" >/dev/null || fail ".zpk proof invalid"
"$ZK" prove --zkey "$T/mul.zpk" --wtns "$M/mul.wtns" --proof "$T/y.json" --public "$T/y.pub" 2>/dev/null; rc=$?
[ $rc = 2 ] || fail ".zpk without --r1cs exited $rc"
[ ! -e "$T/y.json" ] || fail ".zpk without --r1cs wrote a proof"
echo '{"a": "3"}' > "$T/short.json"
"$ZK" prove --zkey "$M/mul.zkey" --input "$T/short.json" --wasm "$M/mul_js/mul.wasm" --proof "$T/s.json" \
  --public "$T/s.pub" 2>"$T/s.err"; rc=$?
[ $rc = 18 ] || fail "prove with a failing generator exited $rc: $(cat "$T/s.err")"
grep -q "witness generator" "$T/s.err" || fail "no reason: $(cat "$T/s.err")"
# the generator's own words, not node's closing version line (issue 37)
grep -q "witness generator: Not all inputs have been set. Only 1 out of 2 " "$T/s.err" ||
  fail "the generator's error line is not in the CLI's message: $(cat "$T/s.err")"
grep -q "Node.js v" "$T/s.err" && fail "node's version line as the reason: $(cat "$T/s.err")"
# circom's assert failure as node prints it: the message and the line under it, without "Error: Error:"
cat > "$T/assertgen" <<'SH'
#!/bin/sh
cat >&2 <<'EOT'
/x/mul_js/witness_calculator.js:191
            throw new Error(err);
            ^

Error: Error: Assert Failed.
Error in template Mul_0 line: 9
    at /x/mul_js/witness_calculator.js:191:19
    at WitnessCalculator._doCalculateWitness (/x/mul_js/witness_calculator.js:178:14)

Node.js v20.20.2
EOT
exit 1
SH
chmod +x "$T/assertgen"
"$ZK" prove --zkey "$M/mul.zkey" --input "$CI/mul.input.json" --witness-bin "$T/assertgen" --proof "$T/s.json" \
  --public "$T/s.pub" 2>"$T/a.err"; rc=$?
[ $rc = 18 ] && grep -q "witness generator: Assert Failed.; Error in template Mul_0 line: 9 (" "$T/a.err" ||
  fail "an assert failure's reason: exit $rc: $(cat "$T/a.err")"
# relative paths, as the README writes them: they mean the caller's directory, not the generator's
# temporary one (issue 37: exit 18, "Node.js v20: witness generator failed")
mkdir -p "$T/rel/c_js" && cp "$M/mul_js/"* "$T/rel/c_js/" && cp "$CI/mul.input.json" "$T/rel/input.json"
(cd "$T/rel" && "$ZK" prove --zkey "$M/mul.zkey" --input input.json --wasm c_js/mul.wasm --proof proof.json \
  --public public.json --quiet) 2>"$T/rel.err" || fail "prove --input with relative paths: $(cat "$T/rel.err")"
cmp -s "$T/rel/public.json" "$M/public.json" || fail "relative paths: public.json differs from snarkjs's"
(cd "$T/rel" && "$ZK" prove --zkey "$M/mul.zkey" --input input.json --wasm nowhere/mul.wasm --proof p2.json \
  --public u2.json) 2>"$T/rel.err"; rc=$?
[ $rc = 18 ] && grep -q "nowhere/mul.wasm: No such file" "$T/rel.err" || fail "a missing wasm: exit $rc: $(cat "$T/rel.err")"
[ ! -e "$T/s.json" ] || fail "a failed generator left a proof"
# node as Debian 12 has it (18.20: an option it does not know ends it, exit 9 "bad option"): the wasm generator
# runs with no node option (issue 37: a fresh Debian machine failed every --input job on
# --disable-wasm-trap-handler); its memory limit is RLIMIT_DATA, so V8's wasm guard reservation does not count
cat > "$T/node18" <<SH
#!/bin/sh
case "\$1" in -*) echo "\$0: bad option: \$1" >&2; exit 9;; esac
exec $(command -v node) "\$@"
SH
chmod +x "$T/node18"
"$ZK" prove --zkey "$M/mul.zkey" --input "$CI/mul.input.json" --wasm "$M/mul_js/mul.wasm" --node "$T/node18" \
  --proof "$T/n18.json" --public "$T/n18.pub" --quiet 2>"$T/n18.err" || fail "prove with node 18's options: $(cat "$T/n18.err")"
cmp -s "$T/n18.pub" "$M/public.json" || fail "node 18: public.json differs from snarkjs's"

# ---- the service
cat > "$T/slow" <<SH
#!/bin/sh
# a generator that never finishes (and a child in its process group); their pids noted for the test
echo \$\$ >> "$T/slow.pids"
sleep 31.25 & echo \$! >> "$T/slow.pids"
exec sleep 31.25
SH
# a wasm generator over its memory limit (node's RLIMIT_DATA): its generate_witness.js allocates 1 GiB
mkdir -p "$T/hogjs"; : > "$T/hogjs/hog.wasm"
echo 'const b = Buffer.alloc(1 << 30); b.fill(1); console.log("allocated", b.length);' > "$T/hogjs/generate_witness.js"
cat > "$T/hog" <<'SH'
#!/usr/bin/python3
import sys
x = bytearray(1 << 30)      # 1 GiB: over its 256 MiB RLIMIT_AS
SH
chmod +x "$T/slow" "$T/hog"; : > "$T/slow.dat"; : > "$T/hog.dat"
EXTRA_KEYS="[key mul]
zkey = $M/mul.zkey
r1cs = $M/mul.r1cs
wasm = $M/mul_js/mul.wasm
[key poseidon]
zkey = $P/poseidon.zkey
wasm = $P/poseidon_js/poseidon.wasm
[key slow]
zkey = $M/mul.zkey
witness_bin = $T/slow
witness_timeout_s = 2
[key hog]
zkey = $M/mul.zkey
witness_bin = $T/hog
witness_memory = 256M
[key hogjs]
zkey = $M/mul.zkey
wasm = $T/hogjs/hog.wasm
witness_memory = 256M
$CPP_KEY"
PORT=$(free_port)
EXTRA_RUN="http = 127.0.0.1:$PORT"
write_config
start_sup
cp "$CI/mul.input.json" "$T/a.json"
echo '{"a": "5", "b": "7"}' > "$T/b.json"
weird="$T/x;touch pwned;\$(touch pwned1)\`touch pwned2\` \"q\" | touch pwned3 .json"
echo '{"a": "2", "b": "9"}' > "$weird"
"$ZK" submit --config "$CFG" --key mul --output "$T/out/m" --input "$T/a.json" --input "$T/b.json" "$weird" \
  --wait >"$T/m.out" 2>&1 || fail "submit --input mul --wait: $(cat "$T/m.out")"
for p in 0 1 2; do
  "$ZK" verify --vk "$M/vk.json" --proof "$T/out/m/part-$p.proof.json" --public "$T/out/m/part-$p.public.json" \
    >/dev/null || fail "mul part $p invalid"
done
cmp -s "$T/out/m/part-0.public.json" "$M/public.json" || fail "part 0: public inputs are not its input's"
# c = (a*b)^2 * a + b, public [c, a]
python3 - "$T/out/m" <<'PY' || fail "public inputs of parts 1 and 2"
import json, sys
for p, (a, b) in ((1, (5, 7)), (2, (2, 9))):
    got = json.load(open(f"{sys.argv[1]}/part-{p}.public.json"))
    assert got == [str((a * b) ** 2 * a + b), str(a)], (p, got)
PY
[ -z "$(find "$T" "$B" "$PWD" /tmp -maxdepth 1 -name 'pwned*' 2>/dev/null)" ] || fail "a file name reached a shell"
[ -z "$(find "$T/run/witgen" -name "zpwit.*" 2>/dev/null)" ] || fail "generator directories left: $(find "$T/run/witgen" -name "zpwit.*")"
"$ZK" submit --config "$CFG" --key poseidon --output "$T/out/p" --input "$CI/poseidon.input.json" --wait \
  >"$T/p.out" 2>&1 && fail "poseidon input outside allow_input accepted"
cp "$CI/poseidon.input.json" "$T/pos.json"
"$ZK" submit --config "$CFG" --key poseidon --output "$T/out/p" --input "$T/pos.json" --wait >"$T/p.out" 2>&1 ||
  fail "poseidon: $(cat "$T/p.out")"
cmp -s "$T/out/p/part-0.public.json" "$P/public.json" || fail "poseidon: public inputs"
if [ -n "$CPP_KEY" ]; then
  "$ZK" submit --config "$CFG" --key mulcpp --output "$T/out/cpp" --input "$T/b.json" --wait >"$T/cpp.out" 2>&1 ||
    fail "submit to the C++ generator's key: $(cat "$T/cpp.out")"
  cmp -s "$T/out/cpp/part-0.public.json" "$T/out/m/part-1.public.json" || fail "C++ generator in synthd: public inputs"
fi
# failures: generator error, timeout, memory limit
"$ZK" submit --config "$CFG" --key mul --output "$T/out/f" --input "$T/short.json" --wait >"$T/f.out" 2>&1; rc=$?
[ $rc = 11 ] || fail "failing generator: exited $rc: $(cat "$T/f.out")"
grep -q "witness generator: Not all inputs have been set. Only 1 out of 2 (.*exit status" "$T/f.out" ||
  fail "failing generator reason: $(cat "$T/f.out")"
# the job's error (what the status page draws, from /status) carries it too
fid=$(head -1 "$T/f.out")
status_json "$fid" | jget "d['error']" | grep -q "Not all inputs have been set" ||
  fail "the job's error: $(status_json "$fid")"
python3 - "$PORT" "$fid" <<'PY' || fail "/status does not carry the generator's line for job $fid"
import json, sys, urllib.request
d = json.load(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/status", timeout=5))
jobs = d["job_list"]
assert any(str(j["job"]) == sys.argv[2] and "Not all inputs have been set" in j.get("error", "") for j in jobs), jobs
PY
t0=$(date +%s)
"$ZK" submit --config "$CFG" --key slow --output "$T/out/t" --input "$T/a.json" --wait >"$T/t.out" 2>&1; rc=$?
dt=$(($(date +%s) - t0))
[ $rc = 11 ] || fail "slow generator: exited $rc: $(cat "$T/t.out")"
grep -q "killed at its 2 s timeout" "$T/t.out" || fail "slow generator reason: $(cat "$T/t.out")"
# killed at its timeout: the job ended before the generator's own 31.25 s sleep could have (a causal
# bound however loaded the machine, not a race with it)
[ $dt -lt 31 ] || fail "the timed-out job took $dt s: as long as the generator's own sleep"
# its own processes (not any "sleep 31.25" on the machine: another run of this test may have one), gone before
# their sleep could have ended by itself (SIGKILL's delivery is waited for, within that causal bound)
[ "$(wc -l < "$T/slow.pids")" -ge 2 ] || fail "the slow generator did not note its pids: $(cat "$T/slow.pids")"
slow_gone() { local p; for p in $(cat "$T/slow.pids"); do alive "$p" && return 1; done; return 0; }
wait_until $((31 - dt)) slow_gone || fail "the generator's process group outlived its timeout: $(cat "$T/slow.pids")"
"$ZK" submit --config "$CFG" --key hog --output "$T/out/h" --input "$T/a.json" --wait >"$T/h.out" 2>&1; rc=$?
[ $rc = 11 ] || fail "memory hog: exited $rc: $(cat "$T/h.out")"
grep -q "MemoryError\|exit status" "$T/h.out" || fail "memory hog reason: $(cat "$T/h.out")"
"$ZK" submit --config "$CFG" --key hogjs --output "$T/out/hj" --input "$T/a.json" --wait >"$T/hj.out" 2>&1; rc=$?
[ $rc = 11 ] || fail "wasm memory hog: exited $rc: $(cat "$T/hj.out")"
grep -q "allocation failed" "$T/hj.out" || fail "wasm memory hog reason: $(cat "$T/hj.out")"
# an input.json for a key without a generator: refused at submit
"$ZK" submit --config "$CFG" --key chain --output "$T/out/n" --input "$T/a.json" >"$T/n.out" 2>&1; rc=$?
[ $rc = 10 ] || fail "json for a key without a generator: exited $rc: $(cat "$T/n.out")"
grep -q "names no witness generator" "$T/n.out" || fail "reason: $(cat "$T/n.out")"
[ -z "$(find "$T/run/witgen" -name "zpwit.*" 2>/dev/null)" ] || fail "generator directories left after failures"
echo "PASS: prove --input (mul, poseidon) = snarkjs, also with node 18's options; .zpk prove; submit --input proves; generator failure, timeout, memory limit (binary and wasm) fail with reasons"
