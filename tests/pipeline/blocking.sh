#!/usr/bin/env bash
# Nothing a client names can block the service: a FIFO, a directory or a device named as a
# witness is refused at submit, at once, naming the path; a witness swapped after submit for a
# FIFO, a device, a directory, a symlink, or a file the prover's reader refuses (wrong prime,
# w[0] != 1, another value count) fails that job with the reason in the job, while the same
# synthd stays alive and the supervisor keeps answering within a bound.
. "$(dirname "$0")/lib.sh" "$@"
WORKERS=1 SLOTS=1 MAXPARTS=4
EXTRA_RUN="public = yes"   # over ipc: api.ipc 0666 in a 0711 run directory (checked at the end)
# the synthd claims nothing until the [debug] hold_at = synth gate opens (the witnesses are swapped first)
EXTRA=$'[debug]\nhold_at = synth'
write_config
start_sup
mkdir -p "$T/in"
# answers STEP: a status request answered (a blocked supervisor never answers: timeout's bound
# tells the two apart; a clock would only say how loaded the machine is)
answers() {
  timeout 60 "$ZK" status --config "$CFG" >/dev/null 2>&1 || fail "$1: the supervisor did not answer"
}
# --- at submit
mkfifo "$T/in/fifo.wtns"; mkdir "$T/in/dir.wtns"
bad=("$T/in/fifo.wtns" "$T/in/dir.wtns")
if mknod "$T/in/dev.wtns" c 1 3 2>/dev/null; then bad+=("$T/in/dev.wtns"); else log "mknod not permitted: device case skipped"; fi
for f in "${bad[@]}"; do
  if timeout 60 "$ZK" submit --config "$CFG" --key chain --output "$T/out/x" "$f" 2>"$T/err"; then fail "accepted $f"; fi
  grep -q "inputs\[0\]: .*$(basename "$f")" "$T/err" || fail "refusal of $f does not name it: $(cat "$T/err")"
  log "refused: $(cat "$T/err")"
  answers "after $f"
done
synthd_pid=$(status_json | jget "[p['pid'] for p in d['processes'] if p['role']=='synthd'][0]")
# --- after submit: the synthd is held at the gate while the witnesses are swapped, so it reads
# each one only after the swap
python3 - "$EX/w2.wtns" "$T/in" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
d = sys.argv[2]
p = bytearray(b); p[28] ^= 1; open(d + "/prime.bad", "wb").write(p)             # §1 prime's low byte
w = bytearray(b); w[12 + 12 + 40 + 12] = 2; open(d + "/w0.bad", "wb").write(w)  # w[0] = 2
n = struct.unpack_from("<I", b, 60)[0]                                          # one value more, consistently
c = bytearray(b) + bytes(32); struct.pack_into("<I", c, 60, n + 1)
struct.pack_into("<Q", c, 12 + 12 + 40 + 4, (n + 1) * 32); open(d + "/count.bad", "wb").write(c)
PY
cases="fifo dev dir link prime w0 count"
declare -A id
for c in $cases; do
  cp "$EX/w2.wtns" "$T/in/s_$c.wtns"
  id[$c]=$("$ZK" submit --config "$CFG" --key chain --output "$T/out/$c" "$EX/w1.wtns" "$T/in/s_$c.wtns") ||
    fail "submit $c"
done
for c in $cases; do
  f=$T/in/s_$c.wtns; rm -f "$f"
  case $c in
    fifo) mkfifo "$f" ;;
    dev) mknod "$f" c 1 3 2>/dev/null || mkfifo "$f" ;;
    dir) mkdir "$f" ;;
    link) ln -s "$EX/w2.wtns" "$f" ;;  # the same valid witness, but through a symlink
    *) mv "$T/in/$c.bad" "$f" ;;
  esac
done
# a symlink planted at each failing job's error.txt (and the supervisor's temporary name for it)
echo VICTIM > "$T/victim"; cp "$T/victim" "$T/victim.orig"
for c in $cases; do
  ln -s "$T/victim" "$T/out/$c/error.txt"; ln -s "$T/victim" "$T/out/$c/error.txt.tmp.$SUP_PID"
done
hold_open
for c in $cases; do
  "$ZK" wait --config "$CFG" --timeout 300 "${id[$c]}" > "$T/$c.out"; rc=$?
  [ $rc = 11 ] || fail "$c: wait exited $rc (not FAILED): $(cat "$T/$c.out")"
  err=$(status_json "${id[$c]}" | jget "d['error']")
  echo "$err" | grep -q "s_$c.wtns" || fail "$c: the job's reason does not name the witness: $err"
  case $c in prime) want=prime ;; w0) want='w\[0\]' ;; count) want=wires ;; *) want= ;; esac
  [ -z "$want" ] || echo "$err" | grep -q "$want" || fail "$c: reason '$err' lacks '$want'"
  wait_until 60 test -f "$T/out/$c/error.txt" -a ! -L "$T/out/$c/error.txt" || fail "$c: error.txt not replaced"
  log "$c: FAILED: $err"
  answers "after $c"
done
cmp -s "$T/victim" "$T/victim.orig" || fail "error.txt was written through a planted symlink"
kill -0 "$synthd_pid" 2>/dev/null || fail "synthd $synthd_pid died"
[ "$(status_json | jget "[p['restarts'] for p in d['processes'] if p['role']=='synthd'][0]")" = 0 ] ||
  fail "synthd was restarted"
[ "$(status_json | jget "[p['pid'] for p in d['processes'] if p['role']=='synthd'][0]")" = "$synthd_pid" ] ||
  fail "another synthd serves now"
# and the service still proves
submit_job after 2 >/dev/null
wait_all 60 || { cat "$T/wait.out"; fail "job after the swaps not DONE"; }
verify_all || fail "proofs"
# public = yes over ipc: another local user reaches api.ipc and nothing else of the run directory
[ "$(stat -c %a "$T/run")" = 711 ] && [ "$(stat -c %a "$T/run/api.ipc")" = 666 ] ||
  fail "public modes: run $(stat -c %a "$T/run"), api.ipc $(stat -c %a "$T/run/api.ipc")"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  chmod 711 "$T"; chmod 644 "$CFG"; OZK=$(other_user_zk) || fail "copy of the client"
  setpriv --reuid=65534 --regid=65534 --clear-groups "$OZK" status --config "$CFG" >/dev/null ||
    fail "another local user cannot reach api.ipc with public = yes"
  setpriv --reuid=65534 --regid=65534 --clear-groups ls "$T/run" >/dev/null 2>&1 && fail "another user lists the run directory"
fi
echo "PASS: FIFO/directory/device refused at submit; swapped witnesses fail their jobs; synthd alive, supervisor answering"
