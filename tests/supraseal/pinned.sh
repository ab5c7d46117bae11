#!/usr/bin/env bash
# supraseal pinned bytes: a Filecoin partition through gpud's CPU backend gives exactly the proof bytes
# the pre-refactor gpud (supraseal/gpud_ss.c, main 7b20ca1) gave: a key from fixed toxic waste, the
# caller's r and s from a fixed seed, three partitions; the sha256 of the 3 x 384 proof bytes is pinned.
# Run twice: the plain CPU backend and the pipelined CPU backend (ZKPIPE_GPUD_PIPELINE=1).
. "$(dirname "$0")/common.sh" "$@"
PIN=cca739d8a710e66ce69b67ba8bf0fed3da99efa7936168896d5f37219821ee32
"$H" keygen "$KEY" "$ROWS" "$PUB" --toxic-seed 1907 >/dev/null || fail "keygen"
write_config
export ZKPIPE_CONFIG=$CFG
for mode in plain pipelined; do
  [ $mode = pipelined ] && export ZKPIPE_GPUD_PIPELINE=1
  start_sup
  "$H" prove "$KEY" "$ROWS" "$PUB" 3 --seed 5 --rs-seed 77 --out "$T/proofs.$mode" > "$T/$mode.out" 2>&1 ||
    { cat "$T/$mode.out"; fail "$mode: prove"; }
  got=$(sha256sum < "$T/proofs.$mode" | cut -d' ' -f1)
  log "$mode: proofs sha256 $got"
  [ "$got" = "$PIN" ] || fail "$mode: proof bytes differ from the pinned ones ($got, want $PIN)"
  kill -TERM "$SUP_PID"; wait "$SUP_PID" 2>/dev/null; SUP_PID=
  wait_until 60 sh -c "! ls /dev/shm/zkpipe.$ARENA* >/dev/null 2>&1" || true
done
log "PASS"
