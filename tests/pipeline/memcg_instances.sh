#!/usr/bin/env bash
# Two supervisors on one host, each on its own run directory, with synthd memory limits in
# memory cgroups (v1). Each instance's cgroups are its own (named from its run directory):
# A (48 MiB) and B (256 MiB) get distinct directories, each holding only that instance's
# synthds, each with its own limit. A too-large job on A ends FAILED and its error says the
# synthd was OOM-killed at A's limit, while B's jobs, run at the same time, end DONE with valid
# proofs and B's synthds are never OOM-killed. A synthd's cgroup goes with it (SIGKILL on B:
# gone before the restart, a fresh one after), and a stopped instance leaves none behind while
# the other's stay.
. "$(dirname "$0")/lib.sh" "$@"
python3 "$SRC/tests/pipeline/gen_big.py" 300000 "$T/big.r1cs" "$T/big.wtns" || fail "gen_big"
MAX_ATTEMPTS=2
EXTRA_LIMITS=$'synthd_memory = 48M\nmemory_limit = cgroup'
EXTRA_KEYS=$'[key big]\nzkey = '"$EX"$'/chain.zkey\nr1cs = '"$T/big.r1cs"
write_config
# B: the same config on another run directory and arena, a larger limit, a slow first restart
CFGB=$T/b.ini ARENAB=${ARENA}b
sed -e "s|^dir = .*|dir = $T/runb|" -e "s|^arena = .*|arena = $ARENAB|" -e "s|^synthd_memory = .*|synthd_memory = 256M|" \
    -e "s|^restart_min_ms = .*|restart_min_ms = 3000|" -e "s|^restart_max_ms = .*|restart_max_ms = 5000|" "$CFG" > "$CFGB"
SUPB=
cleanup_b() {
  local pids; pids=$(ARENA=$ARENAB arena_pids)
  [ -n "$SUPB" ] && kill -TERM "$SUPB" 2>/dev/null && for _ in $(seq 100); do kill -0 "$SUPB" 2>/dev/null || break; sleep 0.1; done
  for p in $pids; do kill -KILL "$p" 2>/dev/null; done
  "$SHM" --json "$ARENAB" >/dev/null 2>&1 && rm -f /dev/shm/zkpipe."$ARENAB"* 2>/dev/null
}
trap 'cleanup_b; cleanup' EXIT
start_sup
grep -q "no writable memory cgroup" "$T/supervisor.log" && skip "no writable memory cgroup (v1) here"
"$SUP" --config "$CFGB" >>"$T/supb.log" 2>&1 &
SUPB=$!
wait_until 60 "$ZK" status --config "$CFGB" || fail "supervisor B did not answer"
synthds() { "$ZK" status --config "$1" --json | jget "' '.join(str(p['pid']) for p in d['processes'] if p['role']=='synthd' and p['pid'])"; }
two_synthds() { [ "$(synthds "$1" | wc -w)" = 2 ]; }
wait_until 60 two_synthds "$CFG" || fail "A's synthds not started"
wait_until 60 two_synthds "$CFGB" || fail "B's synthds not started"
# memory cgroup directory of a pid (v1 hierarchy)
cg_of() { echo "/sys/fs/cgroup/memory$(sed -n 's/^[0-9]*:memory://p' "/proc/$1/cgroup")"; }
# check_instance CFG LIMIT_BYTES OUTFILE: each synthd alone in its cgroup, with the instance's limit
check_instance() {
  local p d
  : > "$3"
  for p in $(synthds "$1"); do
    d=$(cg_of "$p")
    [ "$(cat "$d/memory.limit_in_bytes")" = "$2" ] || fail "synthd $p in $d: limit $(cat "$d/memory.limit_in_bytes") != $2"
    [ "$(tr '\n' ' ' < "$d/cgroup.procs")" = "$p " ] || fail "$d holds $(tr '\n' ' ' < "$d/cgroup.procs") (want only $p)"
    echo "$d" >> "$3"
  done
}
check_instance "$CFG" $((48 << 20)) "$T/cg_a"
check_instance "$CFGB" $((256 << 20)) "$T/cg_b"
dirs_a=$(cat "$T/cg_a"); dirs_b=$(cat "$T/cg_b")
[ "$(sort -u "$T/cg_a" "$T/cg_b" | wc -l)" = 4 ] || fail "cgroups shared between instances: A $dirs_a B $dirs_b"
log "A's cgroups: $dirs_a; B's: $dirs_b"

# load both at once: the big job on A, normal jobs on both
big=$("$ZK" submit --config "$CFG" --key big --output "$T/out/big" "$T/big.wtns") || fail "submit big"
submit_job a0 2 0 >/dev/null
for j in 0 1; do
  id=$("$ZK" submit --config "$CFGB" --key chain --output "$T/out/b$j" "$EX/w$j.wtns" "$EX/w$((j + 2)).wtns") || fail "submit b$j"
  echo "$id b$j 2" >> "$T/ids"; echo "$id" >> "$T/ids_b"
done
"$ZK" wait --config "$CFG" --timeout 90 "$big" > "$T/big.out"; rc=$?
[ $rc = 11 ] || fail "big job: wait exited $rc: $(cat "$T/big.out")"
err=$(status_json "$big" | jget "d['error']")
log "big job's error: $err"
case $err in *OOM-killed*"48 MiB"*) ;; *) fail "the job's error does not say OOM-killed at 48 MiB: $err";; esac
"$ZK" wait --config "$CFG" --timeout 90 "$(sed -n 1p "$T/ids" | cut -d' ' -f1)" >/dev/null || fail "A's normal job not DONE"
"$ZK" wait --config "$CFGB" --timeout 90 $(cat "$T/ids_b") >/dev/null || fail "B's jobs not DONE"
verify_all || fail "proofs"
[ "$("$ZK" status --config "$CFGB" --json | jget "sum(p['oom_kills'] + p['restarts'] for p in d['processes'])")" = 0 ] ||
  fail "B's daemons were OOM-killed or restarted (a shared limit?)"
[ "$(status_json | jget "sum(p['oom_kills'] for p in d['processes'])")" -ge 2 ] || fail "A's OOM kills not counted"

# a synthd's cgroup goes with it: B restarts after 3 s, so the directory must be gone before that
victim=$(synthds "$CFGB" | cut -d' ' -f1); vdir=$(cg_of "$victim")
kill -KILL "$victim"
wait_until 60 test ! -d "$vdir" || fail "$vdir still there after its synthd $victim died"
wait_until 60 test -d "$vdir" || fail "$vdir not made again for the restarted synthd"
wait_until 60 grep -q . "$vdir/cgroup.procs" || fail "restarted synthd not in $vdir"
[ "$(cat "$vdir/cgroup.procs")" != "$victim" ] || fail "$vdir still lists $victim"
check_instance "$CFGB" $((256 << 20)) "$T/cg_b2"

# stopping A removes A's cgroups, not B's
kill -TERM "$SUP_PID"; wait "$SUP_PID"; SUP_PID=
for d in $dirs_a; do [ ! -d "$d" ] || fail "$d left behind by the stopped instance A"; done
check_instance "$CFGB" $((256 << 20)) "$T/cg_b3"
kill -TERM "$SUPB"; wait "$SUPB"; SUPB=
for d in $dirs_b; do [ ! -d "$d" ] || fail "$d left behind by the stopped instance B"; done
echo "PASS: two instances, distinct cgroups and limits; A's job FAILED '$err'; B unaffected; cgroups removed with their daemons"
