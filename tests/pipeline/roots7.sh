#!/usr/bin/env bash
# Keys say how they are proved (issue 19 item 4): a .zpk whose header says root family 7 proves with
# that family on every path. Family-7 keys made both ways — `zkpipe setup --roots 7` (snarkjs H and
# coefficient H) and `zkpipe key convert` from a bellperson .params (family 7 by default) — prove
# through the CLI (`zkpipe synth prove`: its self-check used to fail, exit 6) and through the service
# (gpud, CPU backend and the pipelined CPU backend), and every proof verifies against the key.
. "$(dirname "$0")/lib.sh" "$@"
SPEC="synth:n=2000,pub=3,seed=9"
q() { "$@" >"$T/cmd.log" 2>&1; local rc=$?; [ $rc = 0 ] || { cat "$T/cmd.log"; fail "$* (exit $rc)"; }; }
q "$ZK" setup --cpu --synth "$SPEC" --roots 7 --out "$T/s7.zpk" --zkey "$T/s7.zkey" --threads 1
q "$ZK" setup --cpu --synth "$SPEC" --roots 7 --h-mode coeff --out "$T/c7.zpk" --threads 1
q "$ZK" key convert --from "$T/c7.zpk" --to "$T/c7.params"
q "$ZK" key convert --from "$T/c7.params" --to "$T/p7.zpk" --synth "$SPEC"
# setup straight to .params (--out's extension) = the same toxic waste's .zpk converted
q "$ZK" setup --cpu --synth "$SPEC" --roots 7 --h-mode coeff --toxic-seed 11 --out "$T/d7.params" --threads 1
q "$ZK" setup --cpu --synth "$SPEC" --roots 7 --h-mode coeff --toxic-seed 11 --out "$T/d7.zpk" --threads 1
q "$ZK" key convert --from "$T/d7.zpk" --to "$T/d7c.params"
cmp -s "$T/d7.params" "$T/d7c.params" || fail "setup --out d7.params differs from the converted d7.zpk"
"$ZK" setup --cpu --synth "$SPEC" --out "$T/x.params" >"$T/x.log" 2>&1 && fail "setup --out .params without --h-mode coeff was accepted"
grep -q "coefficient H" "$T/x.log" || fail "setup --out .params, snarkjs H: no clear error: $(cat "$T/x.log")"
[ -e "$T/x.params" ] && fail "setup --out .params, snarkjs H: a file was written"
log "CLI: setup --out K.params writes bellperson's .params (= convert of the .zpk); snarkjs H refused"
for k in s7 c7 p7; do
  "$ZK" key info "$T/$k.zpk" > "$T/$k.info" 2>&1 || fail "key info $k"
  grep -q "family 7" "$T/$k.info" || fail "$k.zpk does not record root family 7: $(cat "$T/$k.info")"
  "$ZK" synth prove --synth "$SPEC" --key "$T/$k.zpk" --wseed 4 --proof "$T/$k.proof.json" \
    --public "$T/$k.public.json" >"$T/$k.cli" 2>&1; rc=$?
  [ $rc = 0 ] || { cat "$T/$k.cli"; fail "CLI: synth prove with $k.zpk (exit $rc)"; }
done
"$ZK" verify --zkey "$T/s7.zkey" --proof "$T/s7.proof.json" --public "$T/s7.public.json" >/dev/null 2>&1 ||
  fail "CLI: the s7 proof does not verify against its .zkey"
log "CLI: family-7 keys (setup snarkjs H, setup coeff H, converted from .params) prove and self-check"

EXTRA_KEYS="[key s7]
synth = $SPEC
zkey = $T/s7.zpk
[key c7]
synth = $SPEC
zkey = $T/c7.zpk
[key p7]
synth = $SPEC
zkey = $T/p7.zpk"
write_config
for mode in plain pipelined; do
  [ $mode = pipelined ] && export ZKPIPE_GPUD_PIPELINE=1
  start_sup
  : > "$T/ids"
  for k in s7 c7 p7; do
    id=$("$ZK" submit --config "$CFG" --key $k --output "$T/out/$mode.$k" synth:1 synth:2) || fail "submit $k"
    echo "$id $mode.$k 2" >> "$T/ids"
  done
  wait_all 120 || { cat "$T/wait.out"; fail "$mode: family-7 jobs did not finish DONE"; }
  for k in s7 c7 p7; do
    for p in 0 1; do
      "$ZK" verify --vk "$T/run/keys/$k.vk.json" --proof "$T/out/$mode.$k/part-$p.proof.json" \
        --public "$T/out/$mode.$k/part-$p.public.json" >/dev/null 2>&1 || fail "$mode: $k part $p does not verify"
    done
  done
  "$ZK" verify --zkey "$T/s7.zkey" --proof "$T/out/$mode.s7/part-0.proof.json" \
    --public "$T/out/$mode.s7/part-0.public.json" >/dev/null 2>&1 || fail "$mode: s7 proof vs its .zkey"
  log "service ($mode): 3 family-7 keys x 2 partitions proved and verified"
  kill -TERM "$SUP_PID"; wait "$SUP_PID" 2>/dev/null; SUP_PID=
done
log "PASS"
