#!/usr/bin/env bash
# Make the oracle fixtures: circuits compiled by circom2 (--prime bls12381, or bn128 with --prime), a
# small powers of tau for that curve, Groth16 keys by snarkjs (setup + one contribution), witnesses,
# snarkjs's own proofs and verification keys.   Usage: fixtures.sh [--prime bn128] OUTDIR [circuit...]
# (one OUTDIR per curve: the curve is not part of the file names).
#
# Idempotent and safe to run from several tests at once (flock); a circuit's outputs are
# reused while its sources are unchanged. Installs the pinned npm packages (package-lock.json)
# into tests/oracle/node_modules on first use. Exit 77 (skip) when node/npm are missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
prime=bls12381
[ "${1:-}" = --prime ] && { prime="$2"; shift 2; }
case $prime in bls12381|bn128) ;; *) echo "fixtures.sh: --prime bls12381 or bn128, not $prime" >&2; exit 2;; esac
out="$1"; shift
circuits=("${@:-mul poseidon}")
command -v node >/dev/null && command -v npm >/dev/null || { echo "node/npm not found" >&2; exit 77; }
mkdir -p "$out"
exec 9>"$out/.lock"
flock 9
if [ ! -x "$here/node_modules/.bin/snarkjs" ] || [ ! -x "$here/node_modules/.bin/circom2" ]; then
  # the lock is per OUTDIR above; node_modules is shared by both curves' fixtures and by tests that do not
  # come here: npm ci (which empties it first) under the lock they all take, looked at again once held
  (cd "$here" && flock package.json sh -c '[ -x node_modules/.bin/snarkjs ] && [ -x node_modules/.bin/circom2 ] ||
    npm ci --no-audit --no-fund' >&2) || { echo "npm ci failed (offline?)" >&2; exit 77; }
fi
bin="$here/node_modules/.bin"
sj() { "$bin/snarkjs" "$@" >"$out/snarkjs.log" 2>&1 || { cat "$out/snarkjs.log" >&2; return 1; }; }

power=${ZP_PTAU_POWER:-10}   # poseidon (518 constraints + 2 public) needs a 2^10 domain
ptau="$out/pot$power.ptau"
if [ ! -f "$ptau" ]; then
  sj powersoftau new "$prime" "$power" "$out/pot_0.ptau"
  sj powersoftau contribute "$out/pot_0.ptau" "$out/pot_1.ptau" -e="zkpipe oracle $power"
  sj powersoftau prepare phase2 "$out/pot_1.ptau" "$ptau.tmp"
  mv "$ptau.tmp" "$ptau"
  rm -f "$out/pot_0.ptau" "$out/pot_1.ptau"
fi

for c in ${circuits[@]}; do
  src="$here/circuits/$c.circom"
  stamp="$(cat "$src" "$here/circuits/$c.input.json" "$here/package-lock.json" | sha256sum | cut -c1-16)-$power-$prime"
  d="$out/$c"
  [ -f "$d/stamp" ] && [ "$(cat "$d/stamp")" = "$stamp" ] && continue
  rm -rf "$d"; mkdir -p "$d"
  # circom2 runs as WASI: include paths resolve against the working directory, so run it from here
  (cd "$here" && node_modules/.bin/circom2 "circuits/$c.circom" --r1cs --wasm --prime "$prime" -l node_modules \
     -o "$d") >"$d/circom.log" 2>&1 ||
    { cat "$d/circom.log" >&2; exit 1; }
  node "$d/${c}_js/generate_witness.js" "$d/${c}_js/$c.wasm" "$here/circuits/$c.input.json" "$d/$c.wtns"
  sj groth16 setup "$d/$c.r1cs" "$ptau" "$d/${c}_0.zkey"
  sj zkey contribute "$d/${c}_0.zkey" "$d/$c.zkey" -e="zkpipe oracle $c"
  rm -f "$d/${c}_0.zkey"
  sj zkey export verificationkey "$d/$c.zkey" "$d/vk.json"
  sj groth16 prove "$d/$c.zkey" "$d/$c.wtns" "$d/snarkjs_proof.json" "$d/public.json"
  echo "$stamp" >"$d/stamp"
done
