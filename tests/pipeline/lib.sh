# lib.sh — shared by the pipeline tests: a supervisor on a temporary run directory, the
# bundled chain circuit, job submission, waiting, proof verification and arena inspection.
# Usage from a test:  . "$(dirname "$0")/lib.sh" "$@"   (args: build dir, source dir)
# (fail, skip, log, alive, dead, wait_until, the hold gate's files: helpers.sh, shared with tests/cluster)
. "$(dirname "${BASH_SOURCE[0]}")/helpers.sh"
T=$(mktemp -d /tmp/zpt.XXXXXX)
# the bundled circuit, copied: a test never depends on the checkout being readable by anyone but its owner
# (a second local user, tests/pipeline/confine.sh, must reach the inputs it submits)
EX=$T/chain; cp -r "$SRC/examples/chain" "$EX"
CFG=$T/zkpipe.ini
SUP_PID=

# other_user_zk: a copy of the client a second local user can run, whatever the checkout's modes
other_user_zk() { install -d -m 755 "$T/bin" && install -m 755 "$ZK" "$T/bin/zkpipe" && echo "$T/bin/zkpipe"; }

dump() {
  echo "--- supervisor.log"; tail -n 40 "$T/supervisor.log" 2>/dev/null
  for f in "$T"/run/log/*; do [ -f "$f" ] && { echo "--- $f"; tail -n 15 "$f"; }; done
}

# Every daemon pid the arena knows, for cleanup whatever state the test left.
arena_pids() { pids_of_arena "$ARENA"; }

cleanup() {
  local pids; pids=$(arena_pids)
  [ -n "$SUP_PID" ] && kill -TERM "$SUP_PID" 2>/dev/null && for _ in $(seq 100); do
    kill -0 "$SUP_PID" 2>/dev/null || break; sleep 0.1; done
  for p in $pids $(arena_pids); do kill -KILL "$p" 2>/dev/null; done
  "$SHM" --json "$ARENA" >/dev/null 2>&1 && rm -f /dev/shm/zkpipe."$ARENA"* 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT

# write_config [extra INI lines appended to the group / a [debug] block ...]
# Variables: WORKERS GPUDS SLOTS MAXPARTS EXTRA_RUN EXTRA
write_config() {
  ARENA=zpt$(basename "$T" | cut -d. -f2).node0
  mkdir -p "$T/out"
  cat > "$CFG" <<INI
[run]
dir = $T/run
keep_arena = ${KEEP_ARENA:-no}
allow_input = $EX:$T
allow_output = $T/out
${EXTRA_RUN:-}
[limits]
max_attempts = ${MAX_ATTEMPTS:-3}
orphan_timeout_s = ${ORPHAN_S:-30}
restart_min_ms = 50
restart_max_ms = 1000
${EXTRA_LIMITS:-}
[key chain]
zkey = $EX/chain.zkey
r1cs = $EX/chain.r1cs
${EXTRA_KEYS:-}
[group node0]
arena = $ARENA
node = 0
gpus = ${GPUDS:-1}
synth_workers = ${WORKERS:-2}
slots = ${SLOTS:-3}
slot_size = ${SLOT_SIZE:-2M}
jobs = 64
max_parts = ${MAXPARTS:-8}
synth_threads = 1
gpud_threads = 1
${EXTRA:-}
INI
}

start_sup() {
  "$SUP" --config "$CFG" >>"$T/supervisor.log" 2>&1 &
  SUP_PID=$!
  await_api "$CFG" "$SUP_PID"
}

# submit_job NAME PARTS [first witness index] -> appends the id to $T/ids
submit_job() {
  local name=$1 n=$2 w=${3:-0} ins=() i
  for i in $(seq 0 $((n - 1))); do ins+=("$EX/w$(((w + i) % 8)).wtns"); done
  local id; id=$("$ZK" submit --config "$CFG" --key chain --output "$T/out/$name" "${ins[@]}") ||
    fail "submit $name"
  echo "$id $name $n" >> "$T/ids"
  echo "$id"
}

status_json() { "$ZK" status --config "$CFG" --json "$@" 2>/dev/null; }
jget() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"; }

# The hold gate of $T/run (helpers.sh): hold_release N: let N more partitions through;
# hold_open: let all through; hold_close: hold again.
hold_release() { gate_release "$T/run/hold" "$1"; }
hold_open() { gate_open "$T/run/hold"; }
hold_close() { gate_close "$T/run/hold"; }
shm_counter() { "$SHM" --json "$ARENA" | python3 -c "import json,sys; print(json.load(sys.stdin)['counters']['$1'])"; }
# proved_at_least N: the arena's parts_proved counter (read without the supervisor) is >= N
proved_at_least() { [ "$(shm_counter parts_proved 2>/dev/null || echo 0)" -ge "$1" ]; }

wait_all() { "$ZK" wait --config "$CFG" --timeout "${1:-90}" $(cut -d' ' -f1 "$T/ids") >"$T/wait.out"; }

# Every job DONE, every partition's proof valid, and proofs.json present.
verify_all() {
  local id name n p bad=0
  while read -r id name n; do
    [ -f "$T/out/$name/proofs.json" ] || { echo "job $id: no proofs.json"; bad=1; }
    for p in $(seq 0 $((n - 1))); do
      "$ZK" verify --vk "$EX/vk.json" --proof "$T/out/$name/part-$p.proof.json" \
        --public "$T/out/$name/part-$p.public.json" >/dev/null 2>&1 || { echo "job $id part $p: invalid"; bad=1; }
    done
  done < "$T/ids"
  return $bad
}

total_parts() { awk '{s += $3} END {print s}' "$T/ids"; }
counter() { status_json | jget "d['groups'][0]['counters']['$1']"; }
# all_proved_once TIMEOUT: every job submitted (in $T/ids) DONE within TIMEOUT s, every proof verifies, each
# partition proved exactly once (the parts_proved counter). Leaves the partition count in $n.
all_proved_once() {
  wait_all "$1" || { cat "$T/wait.out"; fail "jobs did not all finish DONE"; }
  verify_all || fail "proofs"
  n=$(total_parts)
  [ "$(counter parts_proved)" = "$n" ] || fail "parts_proved $(counter parts_proved) != $n (lost or proved twice)"
}
# The standard load (4 jobs, 9 partitions), all_proved_once within TIMEOUT s.
four_jobs_proved() {
  submit_job a 1 >/dev/null; submit_job b 3 2 >/dev/null; submit_job c 2 5 >/dev/null; submit_job d 3 7 >/dev/null
  all_proved_once "$1"
}
