#!/usr/bin/env bash
# A/B of the CPU NTT between two built trees (CUDA off is enough), old and new alternating in one loop so
# load from others hits both alike (the order swapped each round); prints the medians as a markdown table.
#   bench/arith/ntt_ab.sh OLD_TREE [NEW_TREE (default: this one)]      ROUNDS (default 7), WORK (/tmp/ntt-ab)
# Per round and side: ntt_ab.c built against the tree's libzpcommon.a (forward + inverse, both curves, 2^16
# and 2^20, the snarkjs H step at 2^16; again with ZP_FIELD_PORTABLE=1, the scalar path, one repetition), and
# one whole CPU proof per curve at 2^16
# (`zkpipe bench prove --runs 1`: wall and process CPU seconds) on a chain circuit with a g16_devkey key.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
OLD=$(cd "$1" && pwd); NEW=$(cd "${2:-$here}" && pwd)
ROUNDS=${ROUNDS:-7}; W=${WORK:-/tmp/ntt-ab}
mkdir -p "$W"; cd "$W"
for c in bls12381 bn128; do
  [ -f $c.zkey ] && continue
  python3 "$NEW/bench/groth16/gen_chain.py" --prime $c $(( (1 << 16) - 2 )) $c.r1cs $c.wtns
  "$NEW/build/bench/groth16/g16_devkey" $c.r1cs $c.zkey >/dev/null
done
for s in old new; do
  d=$OLD; [ $s = new ] && d=$NEW
  gcc -O2 -std=gnu11 -D_GNU_SOURCE -I"$d/common" -o ${s}_bench "$NEW/bench/arith/ntt_ab.c" \
    "$d/build/common/libzpcommon.a" -luring -lpthread -lm
done
out=results.txt; : > $out
one() {
  local s=$1 d=$OLD; [ $s = new ] && d=$NEW
  ./${s}_bench 16 20 | sed "s/^/$s ntt /" >> $out
  ZP_FIELD_PORTABLE=1 BENCH_REPS=1 ./${s}_bench 16 20 | sed "s/^/$s scalar-ntt /" >> $out
  for c in bls12381 bn128; do
    "$d/build/tools/zkpipe" bench prove --zkey $c.zkey --wtns $c.wtns --runs 1 2>&1 |
      awk -v s=$s -v c=$c '/^run 1/ { gsub(/[()]/, "")
        print s, "prove", c, "2^16", "wall", $4; print s, "prove", c, "2^16", "cpu", $7 }' >> $out
  done
}
for r in $(seq "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then one old; one new; else one new; one old; fi
  echo "round $r/$ROUNDS $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)" >&2
done
python3 - $out <<'PY'
import statistics, sys
v = {}
for line in open(sys.argv[1]):
    f = line.split()
    v.setdefault((f[1], f[2], f[3], f[4]), {}).setdefault(f[0], []).append(float(f[5]))
print("| what | curve | size | measure | old median | new median | new/old | runs |")
print("|---|---|---|---|---|---|---|---|")
for (what, curve, size, m), s in v.items():
    o, n = statistics.median(s["old"]), statistics.median(s["new"])
    u = "s" if what == "prove" else "ms"
    print("| %s | %s | %s | %s | %.3g %s | %.3g %s | %.2f | %d + %d |"
          % (what, curve, size, m, o, u, n, u, n / o, len(s["old"]), len(s["new"])))
PY
