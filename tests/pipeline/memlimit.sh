#!/usr/bin/env bash
# A synthd memory limit ([limits] synthd_memory) exceeded by a too-large job: a 300k-
# constraint circuit whose matrices do not fit in 48 MiB. With a memory cgroup (v1: a child
# of our own with memory.limit_in_bytes) the kernel OOM-kills the synthd each attempt; with
# RLIMIT_DATA its allocation fails. Either way the other synthd and the gpud keep working:
# the normal jobs end DONE with valid proofs and the big job ends FAILED, with its reason,
# after max_attempts. Arg 3 (optional): cgroup | rlimit (default: auto).
. "$(dirname "$0")/lib.sh" "$@"
MODE=${3:-auto}
# AddressSanitizer reserves terabytes of shadow address space at start: under RLIMIT_DATA a synthd
# of a sanitizer build cannot start at all (scripts/test-sanitize.sh); the cgroup mode still works.
[ "$MODE" = rlimit ] && ldd "$B/synthd/zkpipe-synthd" 2>/dev/null | grep -q libasan &&
  skip "RLIMIT_DATA and AddressSanitizer's shadow memory do not mix"
python3 "$SRC/tests/pipeline/gen_big.py" 300000 "$T/big.r1cs" "$T/big.wtns" || fail "gen_big"
MAX_ATTEMPTS=2
EXTRA_LIMITS=$'synthd_memory = 48M\nmemory_limit = '"$MODE"
# the big key's proving key is chain's: the job never gets past synthesis
EXTRA_KEYS=$'[key big]\nzkey = '"$EX"$'/chain.zkey\nr1cs = '"$T/big.r1cs"
write_config
start_sup
wait_until 60 grep -q "started synthd.1" "$T/supervisor.log" || fail "synthds not started"
# the synthd's start line says "(memory cgroup)" when it runs in one; "memory cgroup" alone also
# matched "no writable memory cgroup (v1)", the line of a machine without v1 (a fresh Debian 12:
# cgroup v2 only), and the test then waited for an OOM kill that RLIMIT_DATA never makes
if grep -q "started synthd\.[0-9]*@.* (memory cgroup)" "$T/supervisor.log"; then how=cgroup; else how=rlimit; fi
[ "$MODE" = cgroup ] && [ $how != cgroup ] && skip "no writable memory cgroup (v1) here"
submit_job n0 2 0 >/dev/null
big=$("$ZK" submit --config "$CFG" --key big --output "$T/out/big" "$T/big.wtns") || fail "submit big"
submit_job n1 2 2 >/dev/null; submit_job n2 2 4 >/dev/null
"$ZK" wait --config "$CFG" --timeout 90 "$big" > "$T/big.out"; rc=$?
[ $rc = 11 ] || fail "big job: wait exited $rc: $(cat "$T/big.out")"
log "big job: $(cat "$T/big.out")"
all_proved_once 90
st=$(status_json "$big")
[ "$(echo "$st" | jget "d['state']")" = FAILED ] || fail "big job not FAILED"
[ "$(echo "$st" | jget "d['partitions'][0]['attempts']")" = 2 ] || fail "attempts != max_attempts: $st"
if [ $how = cgroup ]; then
  grep -q "OOM-killed" "$T/supervisor.log" || fail "no OOM kill logged"
  oom=$(status_json | jget "sum(p['oom_kills'] for p in d['processes'])")
  [ "$oom" -ge 2 ] || fail "oom_kills $oom < 2"
else
  grep -q "Cannot allocate memory\|out of memory" "$T/big.out" || fail "reason: $(cat "$T/big.out")"
fi
echo "PASS ($how): too-large job FAILED after 2 attempts; $n other partitions proved"
