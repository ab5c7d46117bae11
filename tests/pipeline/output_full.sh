#!/usr/bin/env bash
# A full or read-only output keeps the proof (issue 31 item 7): on a real tmpfs mounted in the
# test's directory and filled to ENOSPC,
#  - a 3-partition job's proofs are computed once, kept by gpud and written again with backoff
#    while the output stays full; once the filler is removed the job ends DONE with valid proofs,
#    and no partition was synthesized or proved twice (parts_synthesized = 3, parts_retried = 0);
#  - with write_retry_s = 3 and the output left full, the job FAILS "write proof: ... No space
#    left on device (... write_retry_s = 3)" and its partition was proved once, not re-proved.
. "$(dirname "$0")/lib.sh" "$@"
[ "$(id -u)" = 0 ] || skip "needs root to mount a tmpfs"
mkdir -p "$T/out"
mount -t tmpfs -o size=1m,mode=0700 tmpfs "$T/out" 2>/dev/null || skip "cannot mount a tmpfs here"
trap 'cleanup_all' EXIT
cleanup_all() { local t=$T; cleanup 2>/dev/null; umount -l "$t/out" 2>/dev/null; rm -rf "$t"; }
fill() { # fill DIR: one file grown until the tmpfs says ENOSPC
  python3 - "$1" <<'PY'
import errno, os, sys
try:
    with open(os.path.join(sys.argv[1], "filler"), "wb") as f:
        while True:
            f.write(b"\0" * 4096); f.flush()
except OSError as e:
    assert e.errno == errno.ENOSPC, e
PY
}
gpud_log() { cat "$T"/run/log/*gpud* 2>/dev/null; }
EXTRA_LIMITS="write_retry_s = 120"
write_config
start_sup
mkdir "$T/out/a" "$T/out/b"
fill "$T/out"
a=$(submit_job a 3)
wait_until 60 eval 'gpud_log | grep -q "No space left on device; the proof is kept and written again"' ||
  fail "gpud never said it kept a proof for a full output"
[ "$(status_json "$a" | jget "d['state']")" = ACTIVE ] || fail "job $a: $(status_json "$a" | jget "d['state']") while the output is full"
[ "$(counter parts_retried)" = 0 ] || fail "a partition was sent back while its proof was kept"
log "output full: proof kept; freeing the space"
rm "$T/out/filler"
wait_all 90 || { cat "$T/wait.out"; fail "job $a not DONE once the output had room"; }
verify_all || fail "proofs"
[ "$(counter parts_synthesized)" = 3 ] && [ "$(counter parts_retried)" = 0 ] && [ "$(counter parts_proved)" = 3 ] ||
  fail "synthesized $(counter parts_synthesized), retried $(counter parts_retried), proved $(counter parts_proved) (3, 0, 3 wanted)"
gpud_log | grep -q "written after" || fail "no 'written after' line"

# the output stays full past write_retry_s: FAILED as before, the proof computed once
kill -TERM "$SUP_PID"; wait "$SUP_PID"; SUP_PID=
: > "$T/ids"
EXTRA_LIMITS="write_retry_s = 3"
write_config
start_sup
fill "$T/out"
b=$(submit_job b 1)
"$ZK" wait --config "$CFG" --timeout 60 "$b" >"$T/b.out" 2>&1; rc=$?
[ $rc = 11 ] || fail "job $b on a full output: wait exited $rc: $(cat "$T/b.out")"
err=$(status_json "$b" | jget "d['error']")
echo "$err" | grep -q "write proof: .*No space left on device (the output full or read-only for [0-9]* s; write_retry_s = 3)" ||
  fail "job $b's reason: $err"
[ "$(counter parts_synthesized)" = 1 ] && [ "$(counter parts_retried)" = 0 ] ||
  fail "synthesized $(counter parts_synthesized), retried $(counter parts_retried) (1, 0 wanted: no re-proving)"
rm "$T/out/filler"
echo "PASS: a full output kept 3 proofs until space returned (DONE, each proved once); past write_retry_s FAILED without re-proving"
