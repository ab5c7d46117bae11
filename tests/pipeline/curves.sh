#!/usr/bin/env bash
# Both curves in one group (issue 20 item 4): circom2/snarkjs fixtures of the same circuits for BLS12-381 and
# BN254 (tests/oracle/fixtures.sh; skipped without node/npm), served by one supervisor, one synthd pool, one
# gpud (CPU backend) and one arena:
#  - status shows each key's curve; jobs of a BN254 key (.zkey; .zpk + r1cs; input.json through the wasm
#    generator) and of a BLS12-381 key, submitted together, all prove: every BN254 proof passes snarkjs's
#    verifier and zkpipe's, public inputs are snarkjs's; the BLS12-381 ones likewise;
#  - a witness of the other curve is refused at submit, naming both curves, and nothing is queued;
#  - a key whose r1cs is of the other curve fails validation naming both curves (submits refused), the others serve;
#  - the pipelined gpud path (ZKPIPE_GPUD_PIPELINE=1: the CPU backend behind the device pipeline) proves BN254 too;
#  - `zkpipe demo --curve bn254` runs its bundled BN254 circuit and verifies every proof.
. "$(dirname "$0")/lib.sh" "$@"
FXL=$B/oracle-fixtures; FXB=$B/oracle-fixtures-bn128
bash "$SRC/tests/oracle/fixtures.sh" "$FXL" mul poseidon; rc=$?
[ $rc = 77 ] && skip "node/npm unavailable"
[ $rc = 0 ] || fail "fixtures (bls12381)"
bash "$SRC/tests/oracle/fixtures.sh" --prime bn128 "$FXB" mul poseidon; rc=$?
[ $rc = 77 ] && skip "node/npm unavailable"
[ $rc = 0 ] || fail "fixtures (bn128)"
SJ=$SRC/tests/oracle/node_modules/.bin/snarkjs
CI=$SRC/tests/oracle/circuits
LP=$FXL/poseidon; BP=$FXB/poseidon; BM=$FXB/mul
# witnesses where the service may read them (allow_input = examples:$T)
cp "$LP/poseidon.wtns" "$T/bls.wtns"; cp "$BP/poseidon.wtns" "$T/bn.wtns"; cp "$BM/mul.wtns" "$T/bnmul.wtns"
cp "$CI/mul.input.json" "$T/mul.json"
"$ZK" key convert --from "$BM/mul.zkey" --to "$T/bnmul.zpk" >/dev/null 2>&1 || fail "key convert (BN254 .zpk)"

run_service() { # run_service TAG: the whole check on a fresh supervisor
  local tag=$1
  EXTRA_KEYS="[key pbls]
zkey = $LP/poseidon.zkey
r1cs = $LP/poseidon.r1cs
[key pbn]
zkey = $BP/poseidon.zkey
r1cs = $BP/poseidon.r1cs
[key mbn]
zkey = $T/bnmul.zpk
r1cs = $BM/mul.r1cs
wasm = $BM/mul_js/mul.wasm
[key mixed]
zkey = $BP/poseidon.zkey
r1cs = $LP/poseidon.r1cs"
  SLOT_SIZE=4M write_config
  start_sup
  wait_until 60 sh -c "\"$ZK\" status --config \"$CFG\" --json 2>/dev/null | python3 -c '
import json,sys; d=json.load(sys.stdin); k={x[\"name\"]: x for x in d[\"keys\"]}
sys.exit(0 if k[\"pbn\"][\"state\"] == \"ready\" and k[\"pbls\"][\"state\"] == \"ready\" and k[\"mbn\"][\"state\"] == \"ready\" else 1)'" ||
    fail "$tag: keys not ready: $(status_json)"
  status_json | python3 -c '
import json,sys; d=json.load(sys.stdin); k={x["name"]: x for x in d["keys"]}
assert k["pbn"]["curve"] == "bn254" and k["mbn"]["curve"] == "bn254" and k["pbls"]["curve"] == "bls12-381", k
assert k["mixed"]["state"] == "failed" and "bn254" in k["mixed"]["error"] and "bls12-381" in k["mixed"]["error"], k["mixed"]
' || fail "$tag: key curves / the mixed key in status: $(status_json)"
  "$ZK" status --config "$CFG" 2>/dev/null | grep -q "key pbn: ready, bn254" || fail "$tag: zkpipe status does not show pbn's curve"
  # both curves at once
  local a b c
  a=$("$ZK" submit --config "$CFG" --key pbn --output "$T/out/$tag-bn" "$T/bn.wtns" "$T/bn.wtns" "$T/bn.wtns") || fail "$tag: submit pbn"
  b=$("$ZK" submit --config "$CFG" --key pbls --output "$T/out/$tag-bls" "$T/bls.wtns" "$T/bls.wtns") || fail "$tag: submit pbls"
  c=$("$ZK" submit --config "$CFG" --key mbn --output "$T/out/$tag-mbn" "$T/bnmul.wtns" --input "$T/mul.json") || fail "$tag: submit mbn"
  "$ZK" wait --config "$CFG" --timeout 120 "$a" "$b" "$c" >"$T/wait.out" || { cat "$T/wait.out"; fail "$tag: jobs did not finish DONE"; }
  local p
  for p in 0 1 2; do
    "$SJ" groth16 verify "$BP/vk.json" "$T/out/$tag-bn/part-$p.public.json" "$T/out/$tag-bn/part-$p.proof.json" >/dev/null 2>&1 ||
      fail "$tag: BN254 part $p: snarkjs rejects it"
    "$ZK" verify --vk "$BP/vk.json" --proof "$T/out/$tag-bn/part-$p.proof.json" --public "$T/out/$tag-bn/part-$p.public.json" >/dev/null ||
      fail "$tag: BN254 part $p invalid"
    cmp -s "$T/out/$tag-bn/part-$p.public.json" "$BP/public.json" || fail "$tag: BN254 part $p: public inputs"
  done
  for p in 0 1; do
    "$ZK" verify --vk "$LP/vk.json" --proof "$T/out/$tag-bls/part-$p.proof.json" --public "$T/out/$tag-bls/part-$p.public.json" >/dev/null ||
      fail "$tag: BLS12-381 part $p invalid"
    cmp -s "$T/out/$tag-bls/part-$p.public.json" "$LP/public.json" || fail "$tag: BLS12-381 part $p: public inputs"
    "$SJ" groth16 verify "$BM/vk.json" "$T/out/$tag-mbn/part-$p.public.json" "$T/out/$tag-mbn/part-$p.proof.json" >/dev/null 2>&1 ||
      fail "$tag: BN254 .zpk part $p: snarkjs rejects it"
    cmp -s "$T/out/$tag-mbn/part-$p.public.json" "$BM/public.json" || fail "$tag: BN254 .zpk part $p: public inputs"
  done
  grep -q '"curve": "bn128"' "$T/out/$tag-bn/part-0.proof.json" || fail "$tag: BN254 proof does not say bn128"
  # the other curve's witness: refused at submit, both curves named, nothing queued
  "$ZK" submit --config "$CFG" --key pbn --output "$T/out/$tag-x" "$T/bls.wtns" >"$T/x.out" 2>&1 && fail "$tag: BLS witness for a BN254 key accepted"
  grep -q bn254 "$T/x.out" && grep -q bls12-381 "$T/x.out" || fail "$tag: refusal does not name both curves: $(cat "$T/x.out")"
  "$ZK" submit --config "$CFG" --key pbls --output "$T/out/$tag-y" "$T/bn.wtns" >"$T/y.out" 2>&1 && fail "$tag: BN witness for a BLS12-381 key accepted"
  grep -q bn254 "$T/y.out" && grep -q bls12-381 "$T/y.out" || fail "$tag: refusal does not name both curves: $(cat "$T/y.out")"
  "$ZK" submit --config "$CFG" --key mixed --output "$T/out/$tag-z" "$T/bn.wtns" >/dev/null 2>&1 && fail "$tag: a submit to the failed key accepted"
  [ ! -e "$T/out/$tag-x" ] && [ ! -e "$T/out/$tag-y" ] || fail "$tag: a refused job left an output directory"
  log "$tag: BN254 and BLS12-381 jobs proved in one group; cross-curve witnesses refused"
  kill -TERM "$SUP_PID"; wait "$SUP_PID" 2>/dev/null; SUP_PID=
  for _ in $(seq 100); do [ -z "$(arena_pids)" ] && break; sleep 0.1; done
}
run_service plain
ZKPIPE_GPUD_PIPELINE=1 run_service pipelined
# the demo on its bundled BN254 circuit (examples/chain-bn254)
timeout -k 10 600 "$ZK" demo --curve bn254 --jobs 2 --parts 2 >"$T/demo.out" 2>&1 || { cat "$T/demo.out"; fail "demo --curve bn254"; }
grep -q "chain-bn254" "$T/demo.out" && grep -q "^verified 4/4 proofs" "$T/demo.out" ||
  { cat "$T/demo.out"; fail "demo --curve bn254 did not verify its 4 proofs"; }
echo "PASS"
