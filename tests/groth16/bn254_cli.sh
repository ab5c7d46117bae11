#!/usr/bin/env bash
# BN254 beside BLS12-381 in the CLI (issue 20 item 2):   bn254_cli.sh ZKPIPE FIXTURES_BLS FIXTURES_BN
# - a circom --prime bn128 circuit (poseidon) proves on the CPU and snarkjs verifies it; public.json equals snarkjs's;
# - `zkpipe export calldata` prints exactly what `snarkjs zkey export soliditycalldata` prints, for zkpipe's and
#   snarkjs's BN254 proofs and for a BLS12-381 proof;
# - every pairing of files of different curves is refused (exit 4, inputs do not match), naming both curves, and
#   writes nothing: witness vs key, .r1cs vs key, proof vs vk, .r1cs vs .zpk on convert;
# - a BN254 .zpk carries its curve (key info), proves, and converts back to a .zkey that gives the same proof
#   (fixed r, s); bellperson's coefficient H and .params are refused for BN254 keys;
# - a tampered BN254 proof and a wrong public input are INVALID.
set -uo pipefail
zkpipe="$1"; fxl="$2"; fxb="$3"
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/../oracle/fixtures.sh" "$fxl" poseidon mul; rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] && bash "$here/../oracle/fixtures.sh" --prime bn128 "$fxb" poseidon mul; rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || { echo "fixtures failed"; exit 1; }
sj="$here/../oracle/node_modules/.bin/snarkjs"
B="$fxb/poseidon"; L="$fxl/poseidon"
o="$(mktemp -d)"; trap 'rm -rf "$o"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails+1)); }
ok()  { if "$@" >"$o/log" 2>&1; then echo "ok: $*"; else bad "expected success: $*"; cat "$o/log"; fi; }
# refused: exit 4, both curve names in the message, the output file not written
refused() { local out=$1; shift; rm -f "$out"; "$@" >"$o/log" 2>&1; local got=$?
  if [ $got != 4 ]; then bad "exit $got, want 4: $*"; cat "$o/log"
  elif ! grep -q bn254 "$o/log" || ! grep -q bls12-381 "$o/log"; then bad "message does not name both curves: $*"; cat "$o/log"
  elif [ -e "$out" ]; then bad "wrote $out: $*"
  else echo "ok (refused, both curves named): $*"; fi; }
code() { local want=$1; shift; "$@" >"$o/log" 2>&1; local got=$?
  [ $got = "$want" ] && echo "ok (exit $got): $*" || { bad "exit $got, want $want: $*"; cat "$o/log"; }; }

# prove on the CPU, snarkjs verifies; public.json byte-equal
ok "$zkpipe" prove --zkey "$B/poseidon.zkey" --wtns "$B/poseidon.wtns" --proof "$o/p.json" --public "$o/u.json" --quiet
grep -q '"curve": "bn128"' "$o/p.json" || bad "proof.json does not say curve bn128"
ok "$sj" groth16 verify "$B/vk.json" "$o/u.json" "$o/p.json"
cmp -s "$o/u.json" "$B/public.json" || bad "public.json differs from snarkjs's"
ok "$zkpipe" verify --vk "$B/vk.json" --proof "$B/snarkjs_proof.json" --public "$B/public.json"
ok "$zkpipe" verify --zkey "$B/poseidon.zkey" --proof "$o/p.json" --public "$o/u.json"
# calldata = snarkjs's, both curves
for pr in "$o/p.json:$o/u.json" "$B/snarkjs_proof.json:$B/public.json" "$L/snarkjs_proof.json:$L/public.json"; do
  p=${pr%%:*}; u=${pr##*:}
  "$zkpipe" export calldata --proof "$p" --public "$u" >"$o/cd.zk" 2>"$o/log" || { bad "export calldata $p"; cat "$o/log"; }
  "$sj" zkey export soliditycalldata "$u" "$p" >"$o/cd.sj" 2>&1
  cmp -s "$o/cd.zk" "$o/cd.sj" && echo "ok: calldata of $p = snarkjs's" || { bad "calldata of $p differs"; diff "$o/cd.zk" "$o/cd.sj" | head -5; }
done
# tampered proof and wrong input: INVALID
python3 - "$o/p.json" "$o/u.json" "$o/t.json" "$o/w.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); u = json.load(open(sys.argv[2]))
t = dict(p); t["pi_a"], t["pi_c"] = p["pi_c"], p["pi_a"]; json.dump(t, open(sys.argv[3], "w"))
w = list(u); w[-1] = str(int(w[-1]) + 1); json.dump(w, open(sys.argv[4], "w"))
PY
code 1 "$zkpipe" verify --vk "$B/vk.json" --proof "$o/t.json" --public "$o/u.json"
code 1 "$zkpipe" verify --vk "$B/vk.json" --proof "$o/p.json" --public "$o/w.json"

# refusals across curves
refused "$o/x.json" "$zkpipe" prove --zkey "$B/poseidon.zkey" --wtns "$L/poseidon.wtns" --proof "$o/x.json" --public "$o/xu.json"
refused "$o/x.json" "$zkpipe" prove --zkey "$L/poseidon.zkey" --wtns "$B/poseidon.wtns" --proof "$o/x.json" --public "$o/xu.json"
refused "$o/x.json" "$zkpipe" prove --zkey "$B/poseidon.zkey" --wtns "$B/poseidon.wtns" --r1cs "$L/poseidon.r1cs" --proof "$o/x.json" --public "$o/xu.json"
refused "$o/none" "$zkpipe" verify --vk "$L/vk.json" --proof "$o/p.json" --public "$o/u.json"
refused "$o/none" "$zkpipe" verify --zkey "$B/poseidon.zkey" --proof "$L/snarkjs_proof.json" --public "$L/public.json"
refused "$o/none" "$zkpipe" bench prove --zkey "$B/poseidon.zkey" --wtns "$L/poseidon.wtns" --runs 1

# .zpk: curve carried and shown; proves; back to .zkey: same proof with fixed r, s
ok "$zkpipe" key convert --from "$B/poseidon.zkey" --to "$o/k.zpk"
"$zkpipe" key info "$o/k.zpk" >"$o/info" 2>&1; grep -q '^curve: *bn254' "$o/info" && echo "ok: key info shows bn254" || { bad "key info: no curve bn254"; cat "$o/info"; }
"$zkpipe" key info "$B/poseidon.zkey" >"$o/info" 2>&1; grep -q '^curve: *bn254' "$o/info" || bad "key info of the .zkey: no curve bn254"
"$zkpipe" key info "$L/poseidon.zkey" >"$o/info" 2>&1; grep -q '^curve: *bls12-381' "$o/info" || bad "key info of the BLS .zkey: no curve bls12-381"
ok "$zkpipe" prove --zkey "$o/k.zpk" --r1cs "$B/poseidon.r1cs" --wtns "$B/poseidon.wtns" --proof "$o/pz.json" --public "$o/uz.json" --quiet
ok "$sj" groth16 verify "$B/vk.json" "$o/uz.json" "$o/pz.json"
refused "$o/x.json" "$zkpipe" prove --zkey "$o/k.zpk" --r1cs "$L/poseidon.r1cs" --wtns "$B/poseidon.wtns" --proof "$o/x.json" --public "$o/xu.json"
refused "$o/x.zkey" "$zkpipe" key convert --from "$o/k.zpk" --to "$o/x.zkey" --r1cs "$L/poseidon.r1cs"
ok "$zkpipe" key convert --from "$o/k.zpk" --to "$o/k2.zkey" --r1cs "$B/poseidon.r1cs"
ok "$zkpipe" prove --zkey "$o/k2.zkey" --wtns "$B/poseidon.wtns" --r 11 --s 22 --proof "$o/f1.json" --public "$o/fu1.json" --quiet
ok "$zkpipe" prove --zkey "$B/poseidon.zkey" --wtns "$B/poseidon.wtns" --r 11 --s 22 --proof "$o/f2.json" --public "$o/fu2.json" --quiet
cmp -s "$o/f1.json" "$o/f2.json" && echo "ok: .zkey -> .zpk -> .zkey: same proof" || bad ".zkey round trip changed the proof"
code 3 "$zkpipe" prove --zkey "$B/poseidon.zkey" --wtns "$B/poseidon.wtns" --h-mode coeff --proof "$o/x.json" --public "$o/xu.json"
code 3 "$zkpipe" key convert --from "$B/poseidon.zkey" --to "$o/x.params"
[ -e "$o/x.json" ] || [ -e "$o/x.params" ] && bad "a refused command wrote its output"
echo "$fails failures"
[ $fails = 0 ]
