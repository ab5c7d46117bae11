#!/usr/bin/env bash
# tower_ab.sh OLD_BUILD NEW_BUILD [ROUNDS] [N] — the tower/pairing A/B of issue 35 item 4: tower_ab.c built
# against each build tree's libraries (configured -Dcuda=disabled), then OLD and NEW alternating (either first by turns) ROUNDS times
# per curve (BLS12-381: tests/groth16/data's snarkjs mul proof; BN254: a proof of examples/chain-bn254 made
# by NEW's zkpipe and checked by OLD's), ZP_THREADS=1, N calls a round; prints the medians in µs (CPU time).
set -eu
old=$(cd "$1" && pwd); new=$(cd "$2" && pwd); rounds=${3:-7}; n=${4:-20}
root=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
for s in old new; do
  b=${!s}; src=$(dirname "$b")
  cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$src/common" -I"$src/prover" "$root/bench/arith/tower_ab.c" \
     "$b/prover/libzpprover.a" "$b/prover/libzpproverclient.a" "$b/common/libzpcommon.a" \
     -ljansson -lxxhash -luring -lpthread -lm -o "$t/ab_$s"
done
ex="$root/examples/chain-bn254"
"$new/tools/zkpipe" prove --zkey "$ex/chain.zkey" --wtns "$ex/w0.wtns" --proof "$t/bp.json" --public "$t/bu.json" --quiet
"$old/tools/zkpipe" verify --vk "$ex/vk.json" --proof "$t/bp.json" --public "$t/bu.json" >/dev/null
d="$root/tests/groth16/data"
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for c in bls bn254; do
  if [ $c = bls ]; then f=("$d/vk.json" "$d/proof.json" "$d/public.json"); else f=("$ex/vk.json" "$t/bp.json" "$t/bu.json"); fi
  for i in $(seq "$rounds"); do
    order="old new"; [ $((i % 2)) = 0 ] && order="new old"   # either first, by turns
    for s in $order; do ZP_THREADS=1 "$t/ab_$s" "${f[@]}" "$n" >> "$t/$c.$s"; done
  done
  for s in old new; do
    echo "$c $s verify_us $(cut -d' ' -f1 "$t/$c.$s" | med) pairing_us $(cut -d' ' -f2 "$t/$c.$s" | med) rounds $rounds x $n"
  done
  # new/old of each round's adjacent pair, median: steadier than the ratio of medians under changing load
  for k in 1 2; do paste -d' ' <(cut -d' ' -f$k "$t/$c.new") <(cut -d' ' -f$k "$t/$c.old") | awk '{printf "%.4f\n", $1/$2}' | med; done |
    paste -sd' ' | awk -v c=$c '{print c " new/old (median of rounds) verify " $1 " pairing " $2}'
done
