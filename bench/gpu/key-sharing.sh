#!/usr/bin/env bash
# Two registered .params keys on one card that holds one of them at a time (gpud/keys.c parking;
# docs/filecoin.md §6), on a GPU: keys A and B (the same PoRep-shaped circuit at 2^SIZE, two setups), a
# supervisor with gpu_memory = GPU_MEMORY (default 20G: a 2^25 key's plan takes it to the margin), then
# calls A, B, A, B, A through libzkpipe-supraseal (ss_cmp, one partition, fixed witness and r, s). Every
# proof is pairing-checked by ss_cmp; a key's proofs must be the same bytes before and after it was parked
# and taken up again; gpud must park 4 times and take a key up 3 times. Prints each call's time (the
# whole call as bellperson sees it; a switch includes the take-up) and gpud's take-up times, then a table.
#   usage: [SIZE=25] [GPU_MEMORY=20G] [BACKEND=cuda] bench/gpu/key-sharing.sh BIN_DIR
#   BIN_DIR: zkpipe, zkpipe-supervisor, zkpipe-gpud, zkpipe-synthd, ss_cmp, libzkpipe-supraseal.so.0
#            (GPU_BIN_ONLY=1 scripts/gpu-bin.sh DIR tools/zkpipe tests/supraseal/ss_cmp supraseal/libzkpipe-supraseal.so.0.1.0)
#   Card: any (the cap makes the card); 2^25 keys: ~9 GB of disk each, ~1 minute each to make on an H100.
#   BACKEND=cpu SIZE=12: a dry run without a GPU ([debug] inject = one-srs-card stands for the card's refusal).
set -u
: "${1:?usage: key-sharing.sh BIN_DIR}"
BIN=$(readlink -f "$1"); SIZE=${SIZE:-25}; BACKEND=${BACKEND:-cuda}; CAP=${GPU_MEMORY-20G}
export LD_LIBRARY_PATH="$BIN:$BIN/lib:${LD_LIBRARY_PATH:-}"
D=$(mktemp -d "${TMPDIR:-/tmp}/zpshare.XXXXXX"); SUP=
trap '[ -n "$SUP" ] && kill -TERM $SUP 2>/dev/null; wait 2>/dev/null; rm -rf "$D"' EXIT
fail() { echo "FAIL: $*"; tail -25 "$D"/run/log/*gpud* 2>/dev/null; exit 1; }
PUB=328; SPEC="n=$(( (1 << SIZE) - PUB - 1 )),pub=$PUB,bool=0.99"
flag=--gpu; [ "$BACKEND" = cpu ] && flag=--cpu
for k in A B; do
  t=$(date +%s.%N)
  "$BIN/zkpipe" setup $flag --synth "$SPEC" --h-mode coeff --roots 7 --toxic-seed $([ $k = A ] && echo 11 || echo 22) \
    --out "$D/$k.params" >"$D/setup$k.log" 2>&1 || { tail -5 "$D/setup$k.log"; fail "setup $k"; }
  echo "# key $k: 2^$SIZE, $(du -h "$D/$k.params" | cut -f1), made in $(python3 -c "print(round($(date +%s.%N)-$t,1))") s"
done
. "$(dirname "$0")/../../tests/cuda/gpu-host.sh"   # ss_slot_mb, ss_config
ss_config "$D" "$BIN" "$BACKEND" 1 "$(ss_slot_mb "$SIZE")" 4 "$CAP" "$([ "$BACKEND" = cpu ] && printf '[debug]\ninject = one-srs-card')" ||
  fail "config"
"$BIN/zkpipe-supervisor" --config "$D/z.ini" >"$D/sup.log" 2>&1 & SUP=$!
for _ in $(seq 1200); do "$BIN/zkpipe" status --config "$D/z.ini" 2>/dev/null | grep -q "key idle: ready" && break; sleep 0.2; done
"$BIN/zkpipe" status --config "$D/z.ini" 2>/dev/null | grep -q "key idle: ready" || { cat "$D/sup.log"; fail "supervisor not ready"; }
GLOG=$(ls "$D"/run/log/*gpud0* | head -1)
ROWS=()
n=0
for k in A B A B A; do
  n=$((n + 1))
  "$BIN/ss_cmp" prove "$BIN/libzkpipe-supraseal.so.0" "$D/$k.params" "$SPEC" 1 --seed 1 --rs-seed 1 --out "$D/$k.$n.bin" \
    >"$D/call$n.out" 2>&1 || { tail -5 "$D/call$n.out"; fail "call $n (key $k)"; }
  ms=$(sed -n 's/^result: calls [0-9]* first_ms \([0-9.]*\).*/\1/p' "$D/call$n.out")
  up=-; [ $n -ge 3 ] && up=$(grep -o "taken up again in [0-9]* ms" "$GLOG" | sed -n "$((n - 2))p" | grep -o "[0-9]*")
  echo "## share | call $n | key $k | call ms $ms | take-up ms ${up:--}"
  ROWS+=("| $n | $k | $ms | ${up:--} |")
done
cmp -s "$D/A.1.bin" "$D/A.3.bin" && cmp -s "$D/A.1.bin" "$D/A.5.bin" || fail "key A's proofs differ after it was parked"
cmp -s "$D/B.2.bin" "$D/B.4.bin" || fail "key B's proofs differ after it was parked"
cmp -s "$D/A.1.bin" "$D/B.2.bin" && fail "keys A and B gave the same proof: not two keys"
parks=$(grep -c "its device state given back" "$GLOG"); ups=$(grep -c "taken up again in" "$GLOG")
[ "$parks" = 4 ] && [ "$ups" = 3 ] || fail "parkings $parks (want 4), take-ups $ups (want 3)"
grep -E "device state given back|taken up again|needs at least|refused" "$GLOG" | sed 's/^/# gpud: /' | cut -c1-240
echo
echo "Two 2^$SIZE .params keys on one card capped at ${CAP:-the whole card} (backend $BACKEND): calls A B A B A, one partition each;"
echo "$parks parkings, $ups take-ups; each key's proofs the same bytes before and after; every proof pairing-checked."
echo
echo "| call | key | whole call ms | gpud's take-up ms |"
echo "|---:|---|---:|---:|"
printf '%s\n' "${ROWS[@]}"
