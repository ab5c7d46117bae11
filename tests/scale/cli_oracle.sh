#!/usr/bin/env bash
# zkpipe setup / key / synth from the command line, checked by snarkjs where it can be:
#  1. setup on circom's mul.r1cs -> .zpk + .zkey; zkpipe prove with the .zkey; snarkjs exports the
#     verification key from our .zkey and accepts the proof; snarkjs's own prover accepts our .zkey.
#  2. synthetic circuit: setup -> .zkey; zkpipe synth prove -> proof.json; snarkjs verify accepts it.
#  3. key convert .zkey -> .zpk (coeff) -> .params -> .zpk: the two coeff .zpk have the same points
#     (key info checksums of A..C equal); synth prove works with the converted key.
#  4. a damaged .zpk: exit 3 and a message naming the section.
# Usage: cli_oracle.sh ZKPIPE DATA_DIR ORACLE_DIR. Exit 77 (skip) without node/snarkjs.
set -euo pipefail
zk="$1"; data="$2"; oracle="$3"
sj="$oracle/node_modules/.bin/snarkjs"
if [ ! -x "$sj" ]; then
  command -v npm >/dev/null || { echo "npm not found: skip" >&2; exit 77; }
  # under the lock every user of tests/oracle/node_modules takes (npm ci empties it first), looked at again
  (cd "$oracle" && flock package.json sh -c '[ -x node_modules/.bin/snarkjs ] && [ -x node_modules/.bin/circom2 ] ||
    npm ci --no-audit --no-fund' >&2) || { echo "npm ci failed (offline?): skip" >&2; exit 77; }
fi
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
q() { "$@" >"$t/log" 2>&1 || { cat "$t/log" >&2; echo "FAILED: $*" >&2; exit 1; }; }

q "$zk" setup --r1cs "$data/mul.r1cs" --out "$t/mul.zpk" --zkey "$t/mul.zkey"
grep -q INSECURE "$t/log" || { echo "setup did not warn INSECURE" >&2; exit 1; }
q "$zk" prove --zkey "$t/mul.zkey" --wtns "$data/mul.wtns" --r1cs "$data/mul.r1cs" --proof "$t/p.json" --public "$t/u.json"
q "$sj" zkey export verificationkey "$t/mul.zkey" "$t/vk.json"
q "$sj" groth16 verify "$t/vk.json" "$t/u.json" "$t/p.json"
grep -q "OK" "$t/log" || { echo "snarkjs rejected zkpipe's proof with a zkpipe-setup key" >&2; exit 1; }
q "$sj" groth16 prove "$t/mul.zkey" "$data/mul.wtns" "$t/p2.json" "$t/u2.json"
q "$zk" verify --vk "$t/vk.json" --proof "$t/p2.json" --public "$t/u2.json"

spec="n=700,pub=3,win=128,seed=9"
q "$zk" setup --synth "$spec" --out "$t/s.zpk" --zkey "$t/s.zkey"
q "$zk" synth prove --synth "$spec" --key "$t/s.zpk" --wseed 4 --proof "$t/sp.json" --public "$t/su.json"
q "$sj" zkey export verificationkey "$t/s.zkey" "$t/svk.json"
q "$sj" groth16 verify "$t/svk.json" "$t/su.json" "$t/sp.json"
grep -q "OK" "$t/log" || { echo "snarkjs rejected a synthetic-circuit proof" >&2; exit 1; }

q "$zk" key convert --from "$t/s.zkey" --to "$t/c1.zpk" --h-mode coeff
q "$zk" key convert --from "$t/c1.zpk" --to "$t/c.params"
q "$zk" key convert --from "$t/c.params" --to "$t/c2.zpk" --synth "$spec" --roots 5
for f in c1 c2; do "$zk" key info "$t/$f.zpk" | grep -E "section [2-6]" | awk '{print $NF}' >"$t/$f.sums"; done
cmp "$t/c1.sums" "$t/c2.sums" || { echo ".zpk -> .params -> .zpk changed the points" >&2; exit 1; }
q "$zk" synth prove --synth "$spec" --key "$t/c2.zpk" --wseed 5
if "$zk" key convert --from "$t/c.params" --to "$t/x.zpk" --synth "n=700,pub=3,win=128,seed=10" 2>"$t/err"; then
  echo "params accepted for another circuit" >&2; exit 1; fi

cp "$t/s.zpk" "$t/bad.zpk"
printf '\x55' | dd of="$t/bad.zpk" bs=1 seek=20000 conv=notrunc status=none
set +e; "$zk" key info "$t/bad.zpk" 2>"$t/err"; rc=$?; set -e
[ "$rc" = 3 ] && grep -q "checksum mismatch" "$t/err" || { echo "damaged key: exit $rc: $(cat "$t/err")" >&2; exit 1; }
echo "all CLI checks passed"
