#!/usr/bin/env bash
# Records are never lost on a full or read-only disk (real tmpfs mounts in the test's directory):
#  - stale *.tmp.* files in the run directory are removed at start;
#  - output full (inodes for the part files, none for proofs.json): the job is FAILED with the
#    reason, never DONE; proofs.json absent;
#  - output read-only: partitions fail to write, the job is FAILED with the reason; a submit that
#    would create its output directory there is refused;
#  - run directory full, then read-only (bind mounts of results/, tokens/, in/): an accepted job
#    still answers status (DONE, from its kept arena record) while results/ cannot be written;
#    its record is written once space returns; a submit refused meanwhile leaves no manifest and
#    no output directory behind.
. "$(dirname "$0")/lib.sh" "$@"
[ "$(id -u)" = 0 ] || skip "needs root to mount a tmpfs"
MOUNTS=()
unmount_all() { local i; for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount -l "${MOUNTS[i]}" 2>/dev/null; done; }
trap 'cleanup 2>/dev/null; unmount_all; rm -rf "$T"' EXIT
mnt() { mkdir -p "$1"; mount -t tmpfs -o "$2" tmpfs "$1" 2>/dev/null || skip "cannot mount a tmpfs here"; MOUNTS+=("$1"); }
ro_bind() { mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || fail "ro bind $1"; MOUNTS+=("$1"); }
rw_unbind() { umount "$1" || fail "umount $1"; unset 'MOUNTS[${#MOUNTS[@]}-1]'; }
# fill DIR inodes|blocks [LEAVE]: create files until the fs says ENOSPC, then free LEAVE of them
fill() {
  python3 - "$@" <<'PY'
import errno, os, sys
d, what, leave = sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 0
os.makedirs(d, exist_ok=True)
n = 0
try:
    if what == "inodes":
        while True:
            open(os.path.join(d, str(n)), "w").close(); n += 1
    with open(os.path.join(d, "big"), "wb") as f:
        while True:
            f.write(b"\0" * 65536); f.flush(); os.fsync(f.fileno())
except OSError as e:
    assert e.errno == errno.ENOSPC, e
for i in range(leave):
    os.unlink(os.path.join(d, str(n - 1 - i)))
PY
}
state_of() { status_json "$1" | jget "d['state']"; }
error_of() { status_json "$1" | jget "d['error']"; }

mnt "$T/run" size=16m,mode=0700   # the service's own: a tmpfs root is 1777 by default (refused as shared)
mnt "$T/out" size=16m,nr_inodes=256
MAX_ATTEMPTS=2
EXTRA_LIMITS="write_retry_s = 2"   # a full or read-only output is waited on this long (output_full.sh)
# the jobs that must finish while the run directory is full / read-only wait at the [debug] hold_at
# gate until the test has made it so (not a delay a loaded machine outlasts)
EXTRA=$'[debug]\nhold_at = prove'
write_config
mkdir -p "$T/run/results" "$T/run/tokens" "$T/run/in"
echo junk > "$T/run/results/77.json.tmp.12345"; echo junk > "$T/run/tokens/x.tmp.99"
start_sup
[ ! -e "$T/run/results/77.json.tmp.12345" ] && [ ! -e "$T/run/tokens/x.tmp.99" ] || fail "stale tmp files kept"
hold_open

# --- output full: the part files fit, proofs.json does not
mkdir "$T/out/a"
fill "$T/out/fill" inodes 3
a=$(submit_job a 1)
"$ZK" wait --config "$CFG" --timeout 300 "$a" >/dev/null; rc=$?
[ $rc = 11 ] || fail "job $a with no room for proofs.json: wait exited $rc (want 11, FAILED)"
[ "$(state_of "$a")" = FAILED ] || fail "job $a: $(state_of "$a")"
error_of "$a" | grep -q "proofs.json" || fail "job $a's reason: $(error_of "$a")"
[ -f "$T/out/a/part-0.proof.json" ] || fail "the partition's proof was not written (the test's premise)"
[ ! -e "$T/out/a/proofs.json" ] || fail "proofs.json exists"
[ "$(python3 -c "import json;print(json.load(open('$T/run/results/$a.json'))['state'])")" = FAILED ] ||
  fail "results/$a.json is not FAILED"
log "output full: job $a FAILED: $(error_of "$a")"
rm -rf "$T/out/fill"

# --- output read-only
mkdir "$T/out/b"
mount -o remount,ro "$T/out" || fail "remount ro"
b=$(submit_job b 1)
"$ZK" wait --config "$CFG" --timeout 300 "$b" >/dev/null; rc=$?
[ $rc = 11 ] || fail "job $b on a read-only output: wait exited $rc"
error_of "$b" | grep -q "Read-only file system" || fail "job $b's reason: $(error_of "$b")"
[ ! -e "$T/out/b/part-0.proof.json" ] && [ ! -e "$T/out/b/proofs.json" ] || fail "files written on a ro fs?"
nin=$(ls "$T/run/in" | wc -l)
if "$ZK" submit --config "$CFG" --key chain --output "$T/out/new" "$EX/w0.wtns" 2>/dev/null; then
  fail "a submit into a read-only output was accepted"; fi
[ "$(ls "$T/run/in" | wc -l)" = "$nin" ] || fail "a refused submit left a manifest"
mount -o remount,rw "$T/out" || fail "remount rw"
log "output read-only: job $b FAILED: $(error_of "$b")"

# --- run directory full
hold_close
c=$(submit_job c 2)
fill "$T/run/fill" blocks
if "$ZK" submit --config "$CFG" --key chain --output "$T/out/d" "$EX/w0.wtns" 2>"$T/d.err"; then
  fail "a submit with a full run directory was accepted"; fi
[ ! -e "$T/out/d" ] || fail "a refused submit left its output directory"
hold_open
"$ZK" wait --config "$CFG" --timeout 300 "$c" >/dev/null || fail "job $c did not finish DONE"
[ "$(state_of "$c")" = DONE ] || fail "job $c: status '$(state_of "$c")' while results/ is full"
[ ! -e "$T/run/results/$c.json" ] || fail "results/$c.json written on a full fs?"
sleep 0.5
[ "$(state_of "$c")" = DONE ] || fail "job $c unknown after its scan: $(status_json "$c")"
rm -rf "$T/run/fill"
wait_until 60 test -f "$T/run/results/$c.json" || fail "results/$c.json not written once space returned"
[ "$(state_of "$c")" = DONE ] || fail "job $c after its record was written: $(state_of "$c")"
log "run directory full: job $c answered DONE throughout, recorded once space returned"

# --- run directory read-only (bind mounts: daemons keep their logs open for writing)
hold_close
e=$(submit_job e 1)
for d in results tokens in; do ro_bind "$T/run/$d"; done
hold_open
if "$ZK" submit --config "$CFG" --key chain --output "$T/out/f" "$EX/w0.wtns" 2>/dev/null; then
  fail "a submit with a read-only run directory was accepted"; fi
[ ! -e "$T/out/f" ] || fail "a refused submit left its output directory"
"$ZK" wait --config "$CFG" --timeout 300 "$e" >/dev/null || fail "job $e did not finish DONE"
sleep 0.5
[ "$(state_of "$e")" = DONE ] || fail "job $e: '$(state_of "$e")' while results/ is read-only"
[ ! -e "$T/run/results/$e.json" ] || fail "results/$e.json on a ro mount?"
for d in in tokens results; do rw_unbind "$T/run/$d"; done
wait_until 60 test -f "$T/run/results/$e.json" || fail "results/$e.json not written once writable"
[ "$(state_of "$e")" = DONE ] || fail "job $e: $(state_of "$e")"
verify_all_of() { local id name n; grep -E "^($c|$e) " "$T/ids" > "$T/ids.ok"; mv "$T/ids.ok" "$T/ids"; verify_all; }
verify_all_of || fail "proofs of $c and $e"
echo "PASS: full and read-only output / run directory: FAILED with reasons, records kept, nothing left by refusals"
