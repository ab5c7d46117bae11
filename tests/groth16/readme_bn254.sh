#!/usr/bin/env bash
# The README's BN254 walk-through, run as written (issue 37):   readme_bn254.sh ZKPIPE SRC
# The fenced block after "<!-- walkthrough-bn254 -->" in README.md runs in an empty directory holding
# circuit.circom (tests/oracle/circuits/mul.circom) and its input.json, with circom2 and snarkjs from
# tests/oracle's pinned npm packages and this build's zkpipe on PATH: every command must succeed,
# snarkjs must accept zkpipe's proof, and Verifier.sol / the calldata must come out. Then the block
# after "<!-- service-bn254 -->" (supervisor, submit --input --wait, snarkjs verify) runs there with the
# config the README describes (my.ini), and snarkjs accepts the service's proof. Also: the docs a
# circom user reads first say both curves (README, `zkpipe prove --help`, prover/README.md,
# examples/circom.ini), and the README names the libraries and their documents.
set -uo pipefail
zkpipe="$1"; src="$2"
ox="$src/tests/oracle"
command -v node >/dev/null && command -v npm >/dev/null || { echo "node/npm not found: skip"; exit 77; }
fails=0
bad() { echo "FAIL: $*"; fails=$((fails+1)); }
# --- the docs say both curves
"$zkpipe" prove --help > "/tmp/zkh.$$" 2>&1
grep -q "bn128" "/tmp/zkh.$$" && grep -q "bls12381" "/tmp/zkh.$$" || bad "zkpipe prove --help does not name both curves"
rm -f "/tmp/zkh.$$"
for f in README.md prover/README.md examples/circom.ini; do
  grep -q "bn128" "$src/$f" && grep -q "bls12381" "$src/$f" || bad "$f does not name both curves (bn128, bls12381)"
done
grep -qi "BN254 ptau files are BN254 and will not do\|zkpipe proves over BLS12-381, so" "$src/README.md" &&
  bad "README.md still tells BN254 users their ptau will not do"
for w in libzkpipe-rapidsnark libzkpipe-supraseal docs/cluster.md docs/rapidsnark.md docs/supraseal.md ldconfig rpath; do
  grep -q -- "$w" "$src/README.md" || bad "README.md does not name $w"
done
# --- the walk-through
if [ ! -x "$ox/node_modules/.bin/snarkjs" ] || [ ! -x "$ox/node_modules/.bin/circom2" ]; then
  (cd "$ox" && flock package.json sh -c '[ -x node_modules/.bin/snarkjs ] && [ -x node_modules/.bin/circom2 ] ||
    npm ci --no-audit --no-fund' >&2) || { echo "npm ci failed (offline?): skip"; exit 77; }
fi
o="$(mktemp -d)"; trap 'rm -rf "$o"' EXIT
mkdir -p "$o/bin" "$o/w"
ln -s "$ox/node_modules/.bin/circom2" "$o/bin/circom2"; ln -s "$ox/node_modules/.bin/snarkjs" "$o/bin/snarkjs"
ln -s "$zkpipe" "$o/bin/zkpipe"; ln -s "$(dirname "$(dirname "$zkpipe")")/supervisor/zkpipe-supervisor" "$o/bin/zkpipe-supervisor"
cp "$ox/circuits/mul.circom" "$o/w/circuit.circom"; cp "$ox/circuits/mul.input.json" "$o/w/input.json"
block() { # block MARKER: the fenced block after <!-- MARKER --> in README.md
  python3 - "$src/README.md" "$1" <<'PY'
import sys
t = open(sys.argv[1]).read()
i = t.index("<!-- %s -->" % sys.argv[2])
b = t.index("```sh\n", i) + 6
print(t[b:t.index("```", b)])
PY
}
block walkthrough-bn254 > "$o/walk.sh" || { echo "FAIL: no walk-through block in README.md"; exit 1; }
# the service block, with the config the README describes; the supervisor it starts is stopped after
{ echo 'trap '"'"'[ -n "${!:-}" ] && kill -TERM $! 2>/dev/null && wait $! 2>/dev/null'"'"' EXIT'
  block service-bn254; } > "$o/service.sh" || { echo "FAIL: no service block in README.md"; exit 1; }
cat > "$o/w/my.ini" <<INI
[run]
dir = $o/run
keep_arena = no
allow_input = .
allow_output = out
[key mine]
zkey = circuit.zkey
r1cs = circuit.r1cs
wasm = circuit_js/circuit.wasm
[group g]
slot_size = auto
synth_workers = 1
INI
(cd "$o/w" && PATH="$o/bin:$PATH" bash -eo pipefail -x "$o/walk.sh") > "$o/walk.log" 2>&1 ||
  { tail -30 "$o/walk.log"; bad "the README's walk-through failed (above)"; }
grep -q "OK!" "$o/walk.log" || bad "snarkjs did not print OK! for zkpipe's proof"
(cd "$o/w" && PATH="$o/bin:$PATH" timeout 300 bash -eo pipefail -x "$o/service.sh") > "$o/service.log" 2>&1 ||
  { tail -30 "$o/service.log"; tail -20 "$o"/run/log/* 2>/dev/null; bad "the README's service block failed (above)"; }
[ "$(grep -c "OK!" "$o/service.log")" = 1 ] || bad "snarkjs did not accept the service's proof"
[ -s "$o/w/Verifier.sol" ] && grep -q "function verifyProof" "$o/w/Verifier.sol" || bad "no Verifier.sol"
grep -q '^\["0x' "$o/walk.log" || bad "no calldata printed"
[ $fails = 0 ] && echo "PASS: README's BN254 walk-through runs as written; docs name both curves and the libraries" || exit 1
