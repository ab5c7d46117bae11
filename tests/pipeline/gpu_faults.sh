#!/usr/bin/env bash
# GPU-side failures in gpud's device pipeline (ZKPIPE_GPUD_PIPELINE=1: the CPU backend behind the
# copy → release → gpu thread → tail thread pipeline; the failures injected by [debug] inject, as a
# machine without a GPU cannot make real ones): a CUDA error at gpud's 2nd proof attempt, a proof
# that fails its self-check at the 4th, a sticky CUDA error at the 6th. Each failed partition is
# failed with its error and retried; after the first two the same gpud serves on, after the sticky
# one it exits 3 and the supervisor restarts it. Every job ends DONE, every proof verifies, each
# partition is proved once.
. "$(dirname "$0")/lib.sh" "$@"
export ZKPIPE_GPUD_PIPELINE=1
EXTRA=$'[debug]\ninject = gpu-error@2, bad-proof@4, sticky@6' write_config
start_sup
four_jobs_proved 120
[ "$(counter parts_retried)" -ge 3 ] || fail "parts_retried $(counter parts_retried) < 3: the failed partitions were not retried"
log=$(cat "$T"/run/log/*gpud* 2>/dev/null)
for what in gpu-error bad-proof sticky; do
  echo "$log" | grep -q "inject: $what" || fail "injection $what did not fire"
done
echo "$log" | grep -q "a CUDA error (gpu-error@2)" || fail "the CUDA error is not in gpud's log"
echo "$log" | grep -q "self-check" || fail "the self-check failure is not in gpud's log"
echo "$log" | grep -q "sticky error state" || fail "gpud did not report the sticky error before exiting"
restarts=$(status_json | jget "sum(p['restarts'] for p in d['processes'] if p['role']=='gpud')")
[ "$restarts" = 1 ] || fail "gpud restarts $restarts != 1 (only the sticky error may end a gpud)"
grep -q "status 16" "$T/supervisor.log" || { grep -i gpud "$T/supervisor.log" | tail -5; fail "supervisor did not see gpud exit 16"; }
echo "PASS: CUDA error, failed self-check and sticky error each failed one partition, which was retried; $n proved once each"
