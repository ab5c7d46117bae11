# helpers.sh — the helpers the pipeline tests (tests/pipeline/lib.sh) and the cluster tests
# (tests/cluster/lib.sh) share; sourced by both, no side effect but the variables below.
# Each lib.sh defines dump (what a failure prints) and its own hold_* (where its hold dirs are).
set -u
B=$(cd "$1" && pwd); SRC=$(cd "$2" && pwd)
ZK=$B/tools/zkpipe; SUP=$B/supervisor/zkpipe-supervisor; SHM=$B/tools/zkpipe-shm
export ZP_THREADS=1

fail() { echo "FAIL: $*"; dump; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
log() { echo "[$(date +%T.%N | cut -c1-12)] $*"; }

# pids_of_arena NAME: every live process the arena knows (none when it is gone or unreadable)
pids_of_arena() { "$SHM" --json "$1" 2>/dev/null | python3 -c '
import json,sys
try: d=json.load(sys.stdin)
except Exception: sys.exit(0)
for p in d["processes"]:
    if p.get("alive"): print(p["pid"])'; }

# alive PID: running (a zombie is not: a killed daemon nobody reaped yet is dead); dead PID: not alive
alive() { [ -r "/proc/$1/stat" ] && ! awk '{exit $3 == "Z" ? 0 : 1}' "/proc/$1/stat" 2>/dev/null; }
dead() { ! alive "$1"; }

# free_port: a TCP port that nothing on this machine holds now, as the kernel picks one (bind to port 0), for
# a listener the test configures; not a random pick from a range that another test, another run of this
# suite or an outgoing connection on the machine may hold (the listener would then fail to start)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# wait_until SECONDS CMD...: poll CMD until it succeeds (a bound, counted in polls: a loaded
# machine, whose polls take longer, gets longer)
wait_until() {
  local t=$1; shift
  for _ in $(seq $((t * 20))); do "$@" && return 0; sleep 0.05; done
  return 1
}

# await_api CONFIG PID [WHAT]: until `zkpipe status` answers on CONFIG, up to 60 s (a loaded machine
# starts slowly); fails when PID (the supervisor) exits first
await_api() {
  for _ in $(seq 600); do
    "$ZK" status --config "$1" >/dev/null 2>&1 && return 0
    kill -0 "$2" 2>/dev/null || fail "${3:+$3: }supervisor exited at start"
    sleep 0.1
  done
  fail "${3:+$3: }supervisor did not answer"
}

# The [debug] hold_at gate (pipeline/daemon.h): with hold_at = synth | prove in the config, the
# daemons start that stage only for a token in their run directory's hold/, or for all once
# hold/open exists. gate_release DIR N: let N more partitions through; gate_open DIR: let all
# through; gate_close DIR: hold again (DIR: the run directory's hold/).
HOLD_SEQ=0
gate_release() {
  mkdir -p "$1"; local i
  for i in $(seq "$2"); do HOLD_SEQ=$((HOLD_SEQ + 1)); : > "$1/t$HOLD_SEQ"; done
}
gate_open() { mkdir -p "$1"; : > "$1/open"; }
gate_close() { mkdir -p "$1"; rm -f "$1/open"; }
