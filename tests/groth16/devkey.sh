#!/usr/bin/env bash
# A key made by g16_devkey (bench/groth16/devkey.c: from the r1cs and seeded toxic waste, an
# independent route to a snarkjs-format key) proves and verifies with zkpipe; when snarkjs is
# installed, snarkjs accepts zkpipe's proof and zkpipe accepts snarkjs's.
#   devkey.sh G16_DEVKEY ZKPIPE DATA_DIR [--prime bn128]
# DATA_DIR holds mul.r1cs, mul.wtns and a snarkjs proof.json/public.json of another key; with --prime
# bn128 it is made by tests/oracle/fixtures.sh (circom2 --prime bn128, snarkjs's key), so the BN254
# instantiation of g16_devkey is checked the same way.
set -euo pipefail
devkey="$1"; zk="$2"; data="$3"
if [ "${4:-}" = --prime ]; then
  here="$(cd "$(dirname "$0")" && pwd)"
  rc=0; bash "$here/../oracle/fixtures.sh" --prime "$5" "$data" mul || rc=$?
  [ $rc = 77 ] && exit 77
  [ $rc = 0 ] || { echo "fixtures failed"; exit 1; }
  data="$data/mul"; ln -sf snarkjs_proof.json "$data/proof.json"
fi
here="$(cd "$(dirname "$0")" && pwd)"
o=$(mktemp -d); trap 'rm -rf "$o"' EXIT
"$devkey" "$data/mul.r1cs" "$o/k.zkey" 77
"$zk" prove --zkey "$o/k.zkey" --wtns "$data/mul.wtns" --r1cs "$data/mul.r1cs" --proof "$o/p.json" --public "$o/u.json"
"$zk" verify --zkey "$o/k.zkey" --proof "$o/p.json" --public "$o/u.json"
# the snarkjs key's proof must not verify under the dev key
if "$zk" verify --zkey "$o/k.zkey" --proof "$data/proof.json" --public "$data/public.json"; then
  echo "FAIL: a proof for another key verified"; exit 1
fi
sj="$here/../oracle/node_modules/.bin/snarkjs"
if [ -x "$sj" ]; then
  "$sj" zkey export verificationkey "$o/k.zkey" "$o/vk.json" >/dev/null
  "$sj" groth16 verify "$o/vk.json" "$o/u.json" "$o/p.json" | grep -q "OK"
  "$sj" groth16 prove "$o/k.zkey" "$data/mul.wtns" "$o/sp.json" "$o/su.json"
  "$zk" verify --vk "$o/vk.json" --proof "$o/sp.json" --public "$o/su.json"
  echo "snarkjs agrees"
fi
