#!/usr/bin/env bash
# zkpipe setup for BN254 against circom2 + snarkjs (issue 20), and proofs read in the key's curve:
#  1. setup on a circom2 --prime bn128 r1cs (the curve taken from its prime field; --curve bn254 the same
#     key for the same seed, --curve bls12-381 refused naming both curves; coeff H, roots 7 refused;
#     --gpu: the CPU's key on a GPU host, refused elsewhere); zkpipe prove with the .zpk; `zkpipe export vk` = snarkjs's export of our .zkey;
#     snarkjs groth16 verify accepts the proof with zkpipe's vk; snarkjs proves with our .zkey and
#     zkpipe verifies it; public.json = snarkjs's.
#  2. zkpipe's proof with snarkjs's own zkey still passes snarkjs.
#  3. verify: a proof without "curve" (as rapidsnark writes them) is read in the vk's curve (BN254 and
#     BLS12-381 keys); a tampered curve-less proof is INVALID; a proof naming the other curve is refused
#     (exit 4) with both curves named; export calldata --curve reads a curve-less proof in that curve.
# Usage: setup_bn254.sh ZKPIPE FIXTURES_BN128 FIXTURES_BLS. Exit 77 (skip) without node/npm.
set -uo pipefail
zk="$1"; fx="$2"; fxb="$3"
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/../oracle/fixtures.sh" --prime bn128 "$fx" poseidon mul; rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || { echo "fixtures failed"; exit 1; }
bash "$here/../oracle/fixtures.sh" "$fxb" mul || { echo "BLS12-381 fixtures failed"; exit 1; }
sj="$here/../oracle/node_modules/.bin/snarkjs"
d="$fx/poseidon"; c=poseidon
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
fails=0
ok()   { if "$@" >"$t/log" 2>&1; then echo "ok: $*"; else echo "FAIL (expected success): $*"; cat "$t/log"; fails=$((fails+1)); fi; }
code() { local want=$1; shift; "$@" >"$t/log" 2>&1; local got=$?
         if [ $got = "$want" ]; then echo "ok (exit $got): $*"; else echo "FAIL (exit $got, want $want): $*"; cat "$t/log"; fails=$((fails+1)); fi; }
has()  { grep -q -- "$1" "$t/log" && echo "ok: says '$1'" || { echo "FAIL: no '$1' in: $(cat "$t/log")"; fails=$((fails+1)); }; }
sjok() { if "$sj" groth16 verify "$@" >"$t/log" 2>&1 && grep -q "OK" "$t/log"; then echo "ok: snarkjs verify $*"; else
           echo "FAIL: snarkjs rejects $*"; cat "$t/log"; fails=$((fails+1)); fi; }

# 1. the key, its curve from the r1cs
ok "$zk" setup --r1cs "$d/$c.r1cs" --out "$t/k.zpk" --zkey "$t/k.zkey" --cpu
has "ok: bn254"
ok "$zk" key info "$t/k.zpk"
has "bn254"
ok "$zk" setup --r1cs "$d/$c.r1cs" --out "$t/s1.zpk" --toxic-seed 11
ok "$zk" setup --r1cs "$d/$c.r1cs" --curve bn254 --out "$t/s2.zpk" --toxic-seed 11
cmp -s "$t/s1.zpk" "$t/s2.zpk" && echo "ok: the same seed, the same key" || { echo "FAIL: seeded keys differ"; fails=$((fails+1)); }
ok "$zk" setup --r1cs "$d/$c.r1cs" --curve bn128 --out "$t/s3.zpk" --toxic-seed 12
cmp -s "$t/s1.zpk" "$t/s3.zpk" && { echo "FAIL: another seed, the same key"; fails=$((fails+1)); } || echo "ok: another seed, another key"
code 4 "$zk" setup --r1cs "$d/$c.r1cs" --curve bls12-381 --out "$t/x.zpk"
has "bls12-381"; has "bn254"
code 4 "$zk" setup --r1cs "$fxb/mul/mul.r1cs" --curve bn254 --out "$t/x.zpk"
has "bls12-381"; has "bn254"
code 2 "$zk" setup --r1cs "$d/$c.r1cs" --curve secp256k1 --out "$t/x.zpk"
code 4 "$zk" setup --synth n=64,pub=1 --curve bn254 --out "$t/x.zpk"
code 3 "$zk" setup --r1cs "$d/$c.r1cs" --h-mode coeff --out "$t/x.zpk"
code 3 "$zk" setup --r1cs "$d/$c.r1cs" --roots 7 --out "$t/x.zpk"
# --gpu: on a GPU host the same key as the CPU's for the same seed; elsewhere refused, no key written
if "$zk" setup --r1cs "$d/$c.r1cs" --gpu --toxic-seed 11 --out "$t/g.zpk" >"$t/log" 2>&1; then
  cmp -s "$t/s1.zpk" "$t/g.zpk" && echo "ok: setup --gpu = setup --cpu (same seed)" ||
    { echo "FAIL: the GPU's bn254 key differs from the CPU's"; fails=$((fails+1)); }
else
  has "GPU"
  [ -e "$t/g.zpk" ] && { echo "FAIL: a failed setup wrote a key"; fails=$((fails+1)); }
fi

ok "$zk" prove --zkey "$t/k.zpk" --r1cs "$d/$c.r1cs" --wtns "$d/$c.wtns" --proof "$t/p.json" --public "$t/u.json" --quiet
cmp -s "$t/u.json" "$d/public.json" && echo "ok: public.json = snarkjs's" || { echo "FAIL: public.json differs"; fails=$((fails+1)); }
ok "$zk" export vk --key "$t/k.zpk" --out "$t/vk.json"
ok "$zk" export vk --key "$t/k.zkey" --out "$t/vk2.json"
ok "$sj" zkey export verificationkey "$t/k.zkey" "$t/sjvk.json"
python3 - "$t/vk.json" "$t/vk2.json" "$t/sjvk.json" >"$t/log" 2>&1 <<'PY'
import json, sys
a, b, s = (json.load(open(f)) for f in sys.argv[1:])
keys = ["protocol", "curve", "nPublic", "vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2", "IC"]
for k in keys:
    assert a[k] == s[k], f"{k}: zkpipe {a[k]} snarkjs {s[k]}"
    assert b[k] == s[k], f"{k} (from the .zkey)"
PY
[ $? = 0 ] && echo "ok: zkpipe's vk (from .zpk and .zkey) = snarkjs's export" || { echo "FAIL: vk differs"; cat "$t/log"; fails=$((fails+1)); }
sjok "$t/vk.json" "$t/u.json" "$t/p.json"
ok "$zk" verify --vk "$t/vk.json" --proof "$t/p.json" --public "$t/u.json"
ok "$sj" groth16 prove "$t/k.zkey" "$d/$c.wtns" "$t/sp.json" "$t/su.json"
ok "$zk" verify --vk "$t/vk.json" --proof "$t/sp.json" --public "$t/su.json"
ok "$zk" verify --zkey "$t/k.zkey" --proof "$t/sp.json" --public "$t/su.json"
# 2. snarkjs's own key keeps working
ok "$zk" prove --zkey "$d/$c.zkey" --wtns "$d/$c.wtns" --proof "$t/p0.json" --public "$t/u0.json" --quiet
sjok "$d/vk.json" "$t/u0.json" "$t/p0.json"

# 3. proofs without a curve, and of the other curve
python3 - "$t/p.json" "$t" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); o = sys.argv[2]
q = dict(p); del q["curve"]; json.dump(q, open(o + "/nocurve.json", "w"))
q = dict(q); q["pi_a"], q["pi_c"] = p["pi_c"], p["pi_a"]; json.dump(q, open(o + "/nocurve_bad.json", "w"))
q = dict(p); q["curve"] = "bls12381"; json.dump(q, open(o + "/bls.json", "w"))
PY
ok "$zk" verify --vk "$t/vk.json" --proof "$t/nocurve.json" --public "$t/u.json"
ok "$zk" verify --zkey "$t/k.zkey" --proof "$t/nocurve.json" --public "$t/u.json"
code 1 "$zk" verify --vk "$t/vk.json" --proof "$t/nocurve_bad.json" --public "$t/u.json"
# export calldata: a curve-less proof with --curve bn128 gives the tagged proof's text
"$zk" export calldata --proof "$t/p.json" --public "$t/u.json" >"$t/cd1.txt" 2>"$t/log"
"$zk" export calldata --proof "$t/nocurve.json" --public "$t/u.json" --curve bn128 >"$t/cd2.txt" 2>>"$t/log"
[ -s "$t/cd1.txt" ] && cmp -s "$t/cd1.txt" "$t/cd2.txt" && echo "ok: calldata --curve bn128 of a curve-less proof" ||
  { echo "FAIL: calldata of the curve-less proof"; cat "$t/log"; fails=$((fails+1)); }
# (a bn128 proof labelled bls12381: its coordinates are read as BLS12-381 Fp values and fail the curve check,
#  or, if read, the curves differ: never verified)
"$zk" verify --vk "$t/vk.json" --proof "$t/bls.json" --public "$t/u.json" >"$t/log" 2>&1; r=$?
[ $r = 1 ] || [ $r = 4 ] && echo "ok (exit $r): a proof labelled bls12381 against a bn128 vk" ||
  { echo "FAIL (exit $r): a proof labelled bls12381 against a bn128 vk"; cat "$t/log"; fails=$((fails+1)); }
# a real BLS12-381 proof against the BN254 vk: refused naming both curves
b="$fxb/mul"
ok "$zk" prove --zkey "$b/mul.zkey" --wtns "$b/mul.wtns" --proof "$t/bp.json" --public "$t/bu.json" --quiet
code 4 "$zk" verify --vk "$t/vk.json" --proof "$t/bp.json" --public "$t/u.json"
has "bls12-381"; has "bn254"
# BLS12-381: a curve-less proof is still read as BLS12-381
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); del p["curve"]; json.dump(p, open(sys.argv[2], "w"))' \
  "$t/bp.json" "$t/bnc.json"
ok "$zk" verify --vk "$b/vk.json" --proof "$t/bnc.json" --public "$t/bu.json"
echo "$fails failures"
[ $fails = 0 ]
