#!/usr/bin/env bash
# supraseal many_callers: 5 caller processes at once on 2 slots, 2 partitions each: every call is
# proved and verified, none starves (all finish within a bound), slots hand over in job order.
. "$(dirname "$0")/common.sh" "$@"
SLOTS=2 write_config
start_sup
export ZKPIPE_CONFIG=$CFG
make_key
"$H" prove "$KEY" "$ROWS" "$PUB" 1 >/dev/null || fail "warm-up call"
pids=()
for i in 1 2 3 4 5; do
  "$H" prove "$KEY" "$ROWS" "$PUB" 2 --seed $((i * 10)) > "$T/c$i.out" 2>&1 & pids+=($!)
done
for i in 1 2 3 4 5; do wait "${pids[$((i-1))]}" || { cat "$T/c$i.out"; fail "caller $i"; }; done
cat "$T"/c*.out | grep call
wait_until 60 no_busy_slots || fail "slots held at the end"
log "PASS"
