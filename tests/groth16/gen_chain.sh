#!/usr/bin/env bash
# bench/groth16/gen_chain.py writes the same circuit and witness as circom2 compiling
# tests/oracle/circuits/chain.circom.in (headers equal, witnesses equal, each constraint's terms
# equal as sets: circom orders terms its own way). Skipped (77) without node/npm.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../.."; ox="$root/tests/oracle"
command -v node >/dev/null || exit 77
# npm ci under the lock every user of tests/oracle/node_modules takes (it empties node_modules first)
[ -x "$ox/node_modules/.bin/circom2" ] || (cd "$ox" && flock package.json sh -c '[ -x node_modules/.bin/snarkjs ] &&
  [ -x node_modules/.bin/circom2 ] || npm ci --no-audit --no-fund' >&2) || exit 77
o=$(mktemp -d); trap 'rm -rf "$o"' EXIT
n=300
sed "s/@N@/$n/" "$ox/circuits/chain.circom.in" > "$o/chain.circom"
(cd "$ox" && node_modules/.bin/circom2 "$o/chain.circom" --r1cs --wasm --prime bls12381 -o "$o") >/dev/null
node "$o/chain_js/generate_witness.js" "$o/chain_js/chain.wasm" "$ox/circuits/chain.input.json" "$o/c.wtns"
python3 "$root/bench/groth16/gen_chain.py" $n "$o/g.r1cs" "$o/g.wtns"
python3 - "$o/chain.r1cs" "$o/g.r1cs" "$o/c.wtns" "$o/g.wtns" <<'PY'
import struct, sys
def secs(p):
    b = open(p, "rb").read(); n = struct.unpack_from("<I", b, 8)[0]; o = 12; out = {}
    for _ in range(n):
        sid, sz = struct.unpack_from("<IQ", b, o); o += 12; out[sid] = b[o:o + sz]; o += sz
    return out
def constraints(body, count):
    o, res = 0, []
    for _ in range(count):
        lcs = []
        for _ in range(3):
            k = struct.unpack_from("<I", body, o)[0]; o += 4
            lcs.append(frozenset((struct.unpack_from("<I", body, o + 36 * i)[0], body[o + 36 * i + 4:o + 36 * i + 36]) for i in range(k)))
            o += 36 * k
        res.append(tuple(lcs))
    return res
a, b = secs(sys.argv[1]), secs(sys.argv[2])
assert a[1] == b[1], "r1cs headers differ"
nc = struct.unpack_from("<I", a[1], 60)[0]
assert constraints(a[2], nc) == constraints(b[2], nc), "constraints differ"
assert secs(sys.argv[3]) == secs(sys.argv[4]), "witnesses differ"
print(f"gen_chain matches circom2 ({nc} constraints)")
PY
