#!/usr/bin/env bash
# Regenerate the bundled demo circuit (examples/chain/): circom2 --prime bls12381 compiles
# tests/oracle/circuits/chain.circom.in with N constraints, snarkjs makes a Groth16 key
# (powers of tau + one contribution) and one witness per input x = 2..(1+W).
# The outputs are committed, so the demo needs neither node nor npm; run this only to change them.
#   usage: examples/make.sh [N=1000] [W=8]
#   PRIME=bn128 examples/make.sh: the same circuit on BN254 into examples/chain-bn254/ (`zkpipe demo --curve bn254`)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000}; W=${2:-8}
oracle=tests/oracle
[ -x $oracle/node_modules/.bin/snarkjs ] || (cd $oracle && npm ci --no-audit --no-fund >&2)
bin=$PWD/$oracle/node_modules/.bin
prime=${PRIME:-bls12381}
case $prime in bls12381) out=examples/chain;; bn128) out=examples/chain-bn254;; *) echo "PRIME: bls12381 or bn128" >&2; exit 2;; esac
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
power=1; while [ $((1 << power)) -lt $((N + 2)) ]; do power=$((power + 1)); done
sed "s/@N@/$N/" $oracle/circuits/chain.circom.in > "$tmp/chain.circom"
"$bin/circom2" "$tmp/chain.circom" --r1cs --wasm --prime "$prime" -o "$tmp" >/dev/null
"$bin/snarkjs" powersoftau new "$prime" $((power + 1)) "$tmp/p0.ptau" >/dev/null
"$bin/snarkjs" powersoftau contribute "$tmp/p0.ptau" "$tmp/p1.ptau" -e="zkpipe example" >/dev/null
"$bin/snarkjs" powersoftau prepare phase2 "$tmp/p1.ptau" "$tmp/pot.ptau" >/dev/null
"$bin/snarkjs" groth16 setup "$tmp/chain.r1cs" "$tmp/pot.ptau" "$tmp/c0.zkey" >/dev/null
"$bin/snarkjs" zkey contribute "$tmp/c0.zkey" "$tmp/chain.zkey" -e="zkpipe example chain" >/dev/null
rm -rf "$out"; mkdir -p "$out"
cp "$tmp/chain.r1cs" "$tmp/chain.zkey" "$out/"
"$bin/snarkjs" zkey export verificationkey "$out/chain.zkey" "$out/vk.json" >/dev/null
for i in $(seq 0 $((W - 1))); do
  echo "{\"x\": \"$((i + 2))\"}" > "$tmp/in.json"
  node "$tmp/chain_js/generate_witness.js" "$tmp/chain_js/chain.wasm" "$tmp/in.json" "$out/w$i.wtns"
done
echo "chain N=$N ($prime): $(ls $out | tr '\n' ' ')"
