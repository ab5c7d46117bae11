#!/usr/bin/env bash
# `zkpipe export verifier` in a real EVM (issue 37):   verifier_evm.sh ZKPIPE FIXTURES_BN FIXTURES_BLS
# The contract zkpipe writes for a circom --prime bn128 key is compiled by solc-js and deployed in
# @ethereumjs/evm (npm packages pinned in tests/evm, installed on first use; skipped, 77, offline or
# without node/npm). verifyProof on `zkpipe export calldata`'s text returns true for zkpipe's proof and
# for snarkjs's, false for a wrong public input, an input >= r, a moved A, a B with its coordinates in
# the wrong order, a C of another proof, and a coordinate >= q (never a revert). A BLS12-381 key is
# refused (exit 4, naming the curve), and so is a contract name that is no Solidity identifier.
set -uo pipefail
zkpipe="$1"; fxb="$2"; fxl="$3"
here="$(cd "$(dirname "$0")" && pwd)"; evm="$here/../evm"
bash "$here/../oracle/fixtures.sh" --prime bn128 "$fxb" mul poseidon; rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] && bash "$here/../oracle/fixtures.sh" "$fxl" mul; rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || { echo "fixtures failed"; exit 1; }
if [ ! -d "$evm/node_modules/solc" ] || [ ! -d "$evm/node_modules/@ethereumjs/evm" ]; then
  (cd "$evm" && flock "$evm/package.json" npm ci --no-audit --no-fund >&2) || { echo "npm ci in tests/evm failed (offline?): skip"; exit 77; }
fi
o="$(mktemp -d)"; trap 'rm -rf "$o"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails+1)); }
M="$fxb/mul"; P="$fxb/poseidon"

"$zkpipe" export verifier --vk "$M/vk.json" --out "$o/V.sol" || { echo "FAIL: export verifier"; exit 1; }
"$zkpipe" export verifier --vk "$M/vk.json" --name MulVerifier > "$o/V2.sol" || bad "export verifier to stdout"
grep -q "^contract MulVerifier {" "$o/V2.sol" || bad "--name: $(grep contract "$o/V2.sol")"
"$zkpipe" prove --zkey "$M/mul.zkey" --wtns "$M/mul.wtns" --proof "$o/p.json" --public "$o/u.json" --quiet || bad "prove"
"$zkpipe" export calldata --proof "$o/p.json" --public "$o/u.json" > "$o/valid" || bad "calldata"
"$zkpipe" export calldata --proof "$M/snarkjs_proof.json" --public "$M/public.json" > "$o/snarkjs" || bad "calldata (snarkjs)"
# a second valid proof (other r, s) gives a C that belongs to another proof
"$zkpipe" prove --zkey "$M/mul.zkey" --wtns "$M/mul.wtns" --proof "$o/p2.json" --public "$o/u2.json" --quiet || bad "prove 2"
"$zkpipe" export calldata --proof "$o/p2.json" --public "$o/u2.json" > "$o/valid2" || bad "calldata 2"
python3 - "$o" <<'PY' || bad "tampering"
import json, sys
d = sys.argv[1]
Q = 21888242871839275222246405745257275088696311157297823662689037894645226208583
R = 21888242871839275222246405745257275088548364400416034343698204186575808495617
def load(n): return json.loads("[" + open(f"{d}/{n}").read() + "]")
def save(n, a): open(f"{d}/{n}", "w").write(",".join(json.dumps(x) for x in a))
h = lambda v: "0x%064x" % v
a = load("valid"); a[3][0] = h(int(a[3][0], 16) + 1); save("input+1", a)
a = load("valid"); a[3][1] = h(int(a[3][1], 16) + R); save("input+r", a)          # the same value mod r: refused
a = load("valid"); a[0][1] = h(Q - int(a[0][1], 16)); save("negA", a)              # -A: on the curve, wrong
a = load("valid"); a[1][0] = a[1][0][::-1]; save("Bswap", a)                       # x as (c0, c1): off the curve
a = load("valid"); a[2] = load("valid2")[2]; save("otherC", a)
a = load("valid"); a[0][0] = h(int(a[0][0], 16) + Q); save("A+q", a)
PY
node "$evm/evm_verify.mjs" "$o/V.sol" Groth16Verifier "$o/valid" "$o/snarkjs" "$o/valid2" "$o/input+1" "$o/input+r" \
  "$o/negA" "$o/Bswap" "$o/otherC" "$o/A+q" > "$o/res" 2>"$o/err" || { cat "$o/err"; echo "FAIL: evm_verify"; exit 1; }
cat "$o/res" | sed "s|$o/||"
want() { local f=$1 w=$2 got; got=$(awk -v f="$o/$f" '$1 == f {print $2}' "$o/res")
  [ "$got" = "$w" ] && echo "ok: $f -> $w" || bad "$f: verifyProof gave '$got', want $w"; }
want valid true; want snarkjs true; want valid2 true
for f in input+1 input+r negA Bswap otherC A+q; do want "$f" false; done
# another key with as many public inputs (poseidon's): mul's proof is false under its verifier
"$zkpipe" export verifier --vk "$P/vk.json" --out "$o/P.sol" || bad "export verifier (poseidon)"
node "$evm/evm_verify.mjs" "$o/P.sol" Groth16Verifier "$o/valid" > "$o/res2" 2>"$o/err2" || { cat "$o/err2"; bad "evm_verify (poseidon)"; }
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nPublic"])' "$P/vk.json")
[ "$n" = 2 ] || bad "poseidon's key has $n public inputs, not mul's 2: the check below needs as many"
grep -q " false " "$o/res2" && echo "ok: mul's proof under poseidon's verifier -> false" || bad "mul's proof under poseidon's verifier: $(cat "$o/res2")"
# refusals
"$zkpipe" export verifier --vk "$fxl/mul/vk.json" --out "$o/L.sol" 2>"$o/l.err"; rc=$?
[ $rc = 4 ] && grep -q "bls12-381" "$o/l.err" && grep -q "BN254" "$o/l.err" || bad "BLS12-381 key: exit $rc: $(cat "$o/l.err")"
[ ! -e "$o/L.sol" ] || bad "a refused key left $o/L.sol"
"$zkpipe" export verifier --vk "$M/vk.json" --name 'X{}' >/dev/null 2>&1; rc=$?
[ $rc = 2 ] || bad "--name 'X{}': exit $rc"
[ $fails = 0 ] && echo "PASS: zkpipe export verifier: true for valid proofs, false for 6 tamperings, in @ethereumjs/evm" || exit 1
