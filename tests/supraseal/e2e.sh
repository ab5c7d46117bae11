#!/usr/bin/env bash
# supraseal e2e: bellperson-shaped calls (one-shot and curio's split API) through a running pipeline
# shared with snarkjs jobs; every proof verifies; the key is loaded once; no slot is left held;
# the library exports exactly supraseal-c2's symbols (+ zkpipe_supraseal_stats).
. "$(dirname "$0")/common.sh" "$@"

want="clone_SRS create_SRS create_gpu_mutex destroy_gpu_mutex destroy_pending_proof drop_SRS evict_SRS finalize_groth16_proof_c generate_groth16_proofs_c generate_groth16_proofs_start_c zkpipe_supraseal_stats"
got=$(nm -D --defined-only "$LIB" | awk '$2=="T"{sub(/@.*/, "", $3); print $3}' | sort | tr '\n' ' ' | sed 's/ $//')
[ "$got" = "$want" ] || fail "exported symbols: got [$got], want [$want]"
log "exports: $got"

write_config; start_sup
export ZKPIPE_CONFIG=$CFG
make_key
log "key: $(ls -l "$KEY" | awk '{print $5}') bytes"

# a snarkjs job on the same group at the same time: synthd must not take our partitions
submit_job chain 3 >/dev/null
"$H" prove "$KEY" "$ROWS" "$PUB" 3 --repeat 2 > "$T/a.out" 2>&1 & A=$!
"$H" prove "$KEY" "$ROWS" "$PUB" 2 --split --seed 7 > "$T/b.out" 2>&1 & B=$!
wait $A || { cat "$T/a.out"; fail "one-shot calls"; }
wait $B || { cat "$T/b.out"; fail "split calls"; }
cat "$T/a.out" "$T/b.out"
wait_all 90 || fail "snarkjs job"
verify_all || fail "snarkjs proofs"

n=$(grep -c "srs ss:.*loaded in" "$T"/run/log/node0.gpud0 2>/dev/null || echo 0)
[ "$n" = 1 ] || fail "gpud loaded the key $n times (want once)"
wait_until 60 no_busy_slots || fail "slots still held after the calls"
wait_until 60 no_ext_jobs || fail "external jobs left ACTIVE"
left=$(ls "$T/run/ss" 2>/dev/null | wc -l)
[ "$left" = 0 ] || fail "$left job directories left in run/ss"
log "PASS"
