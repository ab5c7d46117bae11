#!/usr/bin/env bash
# Oracle test against circom2 + snarkjs for one circuit:
#   oracle.sh [--prime bn128] ZKPIPE FIXTURE_DIR CIRCUIT OTHER_CIRCUIT
# (--prime: the circuits' curve, bls12381 by default; one FIXTURE_DIR per curve)
# zkpipe's proofs (both H conventions, random and fixed r,s) pass `snarkjs groth16 verify`;
# snarkjs's proof passes `zkpipe verify` (from vk.json and from the zkey); a tampered proof and
# a wrong public input fail both; a witness of another circuit, an unsatisfying witness and an
# r1cs of another circuit stop `zkpipe prove` with the documented exit codes and no output.
set -uo pipefail
prime=bls12381
[ "${1:-}" = --prime ] && { prime="$2"; shift 2; }
zkpipe="$1"; fx="$2"; c="$3"; other="$4"
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/../oracle/fixtures.sh" --prime "$prime" "$fx" "$c" "$other"; rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || { echo "fixtures failed"; exit 1; }
sj="$here/../oracle/node_modules/.bin/snarkjs"
d="$fx/$c"; o="$fx/$c/out.$$"; mkdir -p "$o"; trap 'rm -rf "$o"' EXIT
fails=0
ok()   { if "$@" >"$o/log" 2>&1; then echo "ok: $*"; else echo "FAIL (expected success): $*"; cat "$o/log"; fails=$((fails+1)); fi; }
code() { local want=$1; shift; "$@" >"$o/log" 2>&1; local got=$?
         if [ $got = "$want" ]; then echo "ok (exit $got): $*"; else echo "FAIL (exit $got, want $want): $*"; cat "$o/log"; fails=$((fails+1)); fi; }
sjv()  { "$sj" groth16 verify "$d/vk.json" "$1" "$2"; }   # public proof
sj_rejects() { if sjv "$1" "$2" >"$o/log" 2>&1; then echo "FAIL: snarkjs accepted $1 $2"; fails=$((fails+1)); else echo "ok: snarkjs rejects $2"; fi; }

P="$zkpipe prove --zkey $d/$c.zkey --wtns $d/$c.wtns --quiet"
# zkpipe -> snarkjs
ok $P --proof "$o/p.json" --public "$o/u.json"
ok sjv "$o/u.json" "$o/p.json"
cmp -s "$o/u.json" "$d/public.json" || { echo "FAIL: public.json differs from snarkjs's"; fails=$((fails+1)); }
# bellperson's H convention (--h-mode coeff) is BLS12-381's: BN254 keys prove with snarkjs's only
hc="--h-mode coeff"; [ "$prime" = bn128 ] && hc=""
ok $P --r1cs "$d/$c.r1cs" $hc --proof "$o/pc.json" --public "$o/uc.json"
ok sjv "$o/uc.json" "$o/pc.json"
ok $P --r 12345 --s 67890 --proof "$o/d1.json" --public "$o/u1.json"
ok $P --r 12345 --s 67890 $hc --proof "$o/d2.json" --public "$o/u2.json"
cmp -s "$o/d1.json" "$o/d2.json" && echo "ok: fixed r,s: the same proof (${hc:-twice})" ||
  { echo "FAIL: fixed r,s proofs differ"; fails=$((fails+1)); }
ok sjv "$o/u1.json" "$o/d1.json"
# snarkjs -> zkpipe
ok "$zkpipe" verify --vk "$d/vk.json" --proof "$d/snarkjs_proof.json" --public "$d/public.json"
ok "$zkpipe" verify --zkey "$d/$c.zkey" --proof "$d/snarkjs_proof.json" --public "$d/public.json"
ok "$zkpipe" verify --vk "$d/vk.json" --proof "$o/p.json" --public "$o/u.json"
# tampered proof (pi_a and pi_c swapped: valid points, wrong proof), and a bumped coordinate (off curve)
python3 - "$o/p.json" "$o/t1.json" "$o/t2.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
t = dict(p); t["pi_a"], t["pi_c"] = p["pi_c"], p["pi_a"]; json.dump(t, open(sys.argv[2], "w"))
t = json.loads(json.dumps(p)); t["pi_c"][1] = str(int(t["pi_c"][1]) + 1); json.dump(t, open(sys.argv[3], "w"))
PY
code 1 "$zkpipe" verify --vk "$d/vk.json" --proof "$o/t1.json" --public "$o/u.json"
sj_rejects "$o/u.json" "$o/t1.json"
code 1 "$zkpipe" verify --vk "$d/vk.json" --proof "$o/t2.json" --public "$o/u.json"
sj_rejects "$o/u.json" "$o/t2.json"
# wrong public input (last one + 1), and one too few
python3 - "$o/u.json" "$o/w1.json" "$o/w2.json" <<'PY'
import json, sys
u = json.load(open(sys.argv[1]))
w = list(u); w[-1] = str(int(w[-1]) + 1); json.dump(w, open(sys.argv[2], "w"))
json.dump(u[:-1], open(sys.argv[3], "w"))
PY
code 1 "$zkpipe" verify --vk "$d/vk.json" --proof "$o/p.json" --public "$o/w1.json"
sj_rejects "$o/w1.json" "$o/p.json"
code 4 "$zkpipe" verify --vk "$d/vk.json" --proof "$o/p.json" --public "$o/w2.json"
code 1 "$zkpipe" verify --vk "$d/vk.json" --proof "$d/snarkjs_proof.json" --public "$o/w1.json"
# inputs that do not belong together, or do not satisfy the circuit: no proof written
rm -f "$o/x.json"
code 4 "$zkpipe" prove --zkey "$d/$c.zkey" --wtns "$fx/$other/$other.wtns" --proof "$o/x.json" --public "$o/xu.json"
code 4 $P --r1cs "$fx/$other/$other.r1cs" --proof "$o/x.json" --public "$o/xu.json"
python3 - "$d/$c.wtns" "$o/bad.wtns" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[-32] ^= 1                       # last witness value (an internal signal), stays < r
open(sys.argv[2], "wb").write(b)
PY
code 5 "$zkpipe" prove --zkey "$d/$c.zkey" --wtns "$o/bad.wtns" --r1cs "$d/$c.r1cs" --proof "$o/x.json" --public "$o/xu.json"
code 6 "$zkpipe" prove --zkey "$d/$c.zkey" --wtns "$o/bad.wtns" --proof "$o/x.json" --public "$o/xu.json"
code 3 "$zkpipe" prove --zkey "$d/$c.r1cs" --wtns "$d/$c.wtns" --proof "$o/x.json" --public "$o/xu.json"
code 3 "$zkpipe" verify --vk "$d/$c.wtns" --proof "$o/p.json" --public "$o/u.json"
code 2 "$zkpipe" prove --zkey "$d/$c.zkey"
[ -e "$o/x.json" ] && { echo "FAIL: a failed prove wrote a proof"; fails=$((fails+1)); }
echo "$fails failures"
[ $fails = 0 ]
