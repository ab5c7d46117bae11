#!/usr/bin/env bash
# The CPU side of the byte-identity comparison with supraseal-c2 (issue 32 item 5): ss_cmp calls
# libzkpipe-supraseal, loaded by path as tests/cuda/run-ssc2-cmp.sh loads both it and supraseal-c2,
# with fixed PoRep-shaped synthetic partitions (domain 2^12, 328 public inputs; 1 % and 25 % non-0/1
# witnesses, the share measured), a key from fixed toxic waste and fixed r, s, through a running
# pipeline (CPU backend). The proof bytes are pinned: run-ssc2-cmp.sh proves the same case on a GPU
# host with zkpipe's CUDA backend and with supraseal-c2 and checks both against these pins.
. "$(dirname "$0")/common.sh" "$@"
CMP=$B/tests/supraseal/ss_cmp
# the case, shared with tests/cuda/run-ssc2-cmp.sh (which reads these lines)
CASE_ROWS=3767 CASE_TOXIC=32 CASE_K=2 CASE_SEED=5 CASE_RS=77
PIN_099=611f8c86d7891fee2475189899894080d1a3c1aa65df3d050b3beaf9b700a2cf
PIN_075=ee070fd791034de5ccbbce87539d114aa624cff2bfc86007a24e49c3a9d1282f
write_config; start_sup
export ZKPIPE_CONFIG=$CFG
for mix in 0.99 0.75; do
  spec="n=$CASE_ROWS,pub=328,bool=$mix"
  "$ZK" setup --cpu --synth "$spec" --h-mode coeff --roots 7 --toxic-seed $CASE_TOXIC --out "$T/k$mix.params" \
    > "$T/setup.$mix" 2>&1 || { cat "$T/setup.$mix"; fail "setup $spec"; }
  "$CMP" prove "$LIB" "$T/k$mix.params" "$spec" $CASE_K --seed $CASE_SEED --rs-seed $CASE_RS --reps 1 \
    --out "$T/p$mix" > "$T/cmp.$mix" 2>&1 || { cat "$T/cmp.$mix"; fail "ss_cmp prove $spec"; }
  cat "$T/cmp.$mix"
  share=$(sed -n 's/^share: \([0-9.]*\) %.*/\1/p' "$T/cmp.$mix")
  want=$(awk -v m=$mix 'BEGIN { print (1 - m) * 100 }')
  awk -v s="$share" -v w="$want" 'BEGIN { exit !(s > w * 0.6 && s < w * 1.4) }' ||
    fail "bool=$mix: measured non-0/1 share $share % is not near $want %"
  got=$(sha256sum < "$T/p$mix" | cut -d' ' -f1)
  pin=PIN_0${mix#0.}
  log "bool=$mix: share $share %, proofs sha256 $got"
  [ "$got" = "${!pin}" ] || fail "bool=$mix: proof bytes $got differ from the pinned ${!pin}"
done
# the comparison can fail: two different cases' proofs are reported different, partition by partition
"$CMP" cmp "$T/p0.99" "$T/p0.75" $CASE_K > "$T/diff.out" && { cat "$T/diff.out"; fail "ss_cmp cmp called different proofs equal"; }
grep -q "^DIFFERENT: 2 proofs, 2 differ" "$T/diff.out" || { cat "$T/diff.out"; fail "ss_cmp cmp output"; }
"$CMP" cmp "$T/p0.99" "$T/p0.99" $CASE_K | grep -q "^EQUAL" || fail "ss_cmp cmp: a file differs from itself"
log "PASS"
