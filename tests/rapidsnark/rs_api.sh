#!/usr/bin/env bash
# libzkpipe-rapidsnark against rapidsnark's contract, per curve:
#   rs_api.sh RS_API LIB FIXTURES_BLS FIXTURES_BN CURVE
# CURVE is bn128 (rapidsnark's curve) or bls12381 (the extension). Fixtures (circom2 + snarkjs, made at
# test time, cached in the build tree) for both curves: the other curve's witness is the wrong-curve
# input. rs_api (a C program on prover.h / verifier.h only) runs every call and error path; then the
# proofs it wrote must pass `snarkjs groth16 verify`, be printed as rapidsnark prints them (compact,
# keys sorted), and their public signals must equal snarkjs's public.json. The library must export
# exactly rapidsnark's ten functions.
set -uo pipefail
rs_api="$1"; lib="$2"; fx_bls="$3"; fx_bn="$4"; curve="$5"
here="$(cd "$(dirname "$0")" && pwd)"
for p in "bls12381 $fx_bls" "bn128 $fx_bn"; do
  set -- $p
  bash "$here/../oracle/fixtures.sh" --prime "$1" "$2" mul poseidon; rc=$?
  [ $rc = 77 ] && exit 77
  [ $rc = 0 ] || { echo "fixtures ($1) failed"; exit 1; }
done
if [ "$curve" = bn128 ]; then fx=$fx_bn; fo=$fx_bls; else fx=$fx_bls; fo=$fx_bn; fi
sj="$here/../oracle/node_modules/.bin/snarkjs"
o=$(mktemp -d /tmp/rsapi.XXXXXX); trap 'rm -rf "$o"' EXIT
fails=0
want="groth16_proof_size groth16_prover groth16_prover_create groth16_prover_create_zkey_file groth16_prover_destroy
groth16_prover_prove groth16_prover_zkey_file groth16_public_size_for_zkey_buf groth16_public_size_for_zkey_file groth16_verify"
got=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRW]$/ {sub(/@.*/, "", $3); print $3}' | sort | tr '\n' ' ')
[ "$got" = "$(echo $want | tr ' ' '\n' | sort | tr '\n' ' ')" ] && echo "ok: exports exactly rapidsnark's functions" ||
  { echo "FAIL: exported: $got"; fails=$((fails+1)); }
d=$fx/mul
ZP_THREADS=2 "$rs_api" "$d/mul.zkey" "$d/mul.wtns" "$fx/poseidon/poseidon.wtns" "$fo/mul/mul.wtns" "$d/vk.json" "$o" ||
  fails=$((fails+1))
for f in proof.json proof_obj.json; do
  [ -s "$o/$f" ] || { echo "FAIL: $f not written"; fails=$((fails+1)); continue; }
  "$sj" groth16 verify "$d/vk.json" "$o/public.json" "$o/$f" >"$o/log" 2>&1 && echo "ok: snarkjs verifies $f" ||
    { echo "FAIL: snarkjs rejects $f"; cat "$o/log"; fails=$((fails+1)); }
done
python3 - "$o/proof.json" "$o/public.json" "$d/public.json" <<'PY' || fails=$((fails+1))
import json, sys
text = open(sys.argv[1]).read(); pub = open(sys.argv[2]).read()
p = json.loads(text)
assert sorted(p) == ["pi_a", "pi_b", "pi_c", "protocol"] and p["protocol"] == "groth16", sorted(p)
assert p["pi_a"][2] == "1" and p["pi_c"][2] == "1" and p["pi_b"][2] == ["1", "0"], "affine z"
compact = lambda v: json.dumps(v, separators=(",", ":"), sort_keys=True)
assert text == compact(p), "proof not printed compact with sorted keys: " + text[:80]
assert pub == compact(json.loads(pub)), "public not compact: " + pub[:80]
assert json.loads(pub) == json.load(open(sys.argv[3])), "public signals differ from snarkjs's public.json"
print("ok: rapidsnark's JSON layout; public signals = snarkjs's")
PY
# snarkjs's own proof through groth16_verify (the C program checked its own proofs), and with a
# public signal changed
"$rs_api" verify "$d/snarkjs_proof.json" "$d/public.json" "$d/vk.json" && echo "ok: groth16_verify accepts snarkjs's proof" ||
  { echo "FAIL: groth16_verify rejects snarkjs's proof"; fails=$((fails+1)); }
python3 -c 'import json,sys; u=json.load(open(sys.argv[1])); u[0]=str(int(u[0])+1); json.dump(u,open(sys.argv[2],"w"))' \
  "$d/public.json" "$o/wrong.json"
"$rs_api" verify "$d/snarkjs_proof.json" "$o/wrong.json" "$d/vk.json"; rc=$?
[ $rc = 1 ] && echo "ok: VERIFIER_INVALID_PROOF for a wrong public signal" ||
  { echo "FAIL: wrong public signal: code $rc"; fails=$((fails+1)); }
echo "$fails failures"
[ $fails = 0 ]
