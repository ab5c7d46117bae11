#!/usr/bin/env bash
# Paths are confined for real (pipeline/files.c): symlinks planted in an output directory (at
# the final names and at the writers' temporary names) never redirect a write — the victim is
# unchanged and the proofs land as regular files; an output directory swapped for a symlink
# after submit is never written through; an output whose last component is a symlink leading
# out of allow_output is refused; two active jobs cannot share one output directory however
# its path is spelled; a TCP listener named without a host binds to loopback; file modes
# follow `public`.
. "$(dirname "$0")/lib.sh" "$@"
RAW=$B/tests/pipeline/api_raw
PORT=$(free_port); HPORT=$(free_port)
WORKERS=1 SLOTS=1 MAXPARTS=4
EXTRA_RUN="listen = tcp://*:$PORT
http = :$HPORT
public = yes"
EXTRA=$'[debug]\nhold_at = synth'
write_config
# --- a shared run directory (dir = /tmp, sticky and world-writable) is refused, its mode untouched
mkdir -m 1777 "$T/shared"; chmod 1777 "$T/shared"
sed "s|^dir = .*|dir = $T/shared|" "$CFG" > "$T/shared.ini"
if timeout -k 10 120 "$SUP" --config "$T/shared.ini" > "$T/shared.log" 2>&1; then fail "a supervisor ran on a shared run directory"; fi
grep -q "shared directory" "$T/shared.log" || fail "shared run dir: no reason: $(cat "$T/shared.log")"
[ "$(stat -c %a "$T/shared")" = 1777 ] || fail "the shared directory's mode was changed to $(stat -c %a "$T/shared")"
log "shared run directory refused: $(grep -m1 "shared directory" "$T/shared.log")"
start_sup
URL=tcp://127.0.0.1:$PORT
# --- listeners: loopback only
python3 - "$PORT" "$HPORT" <<'PY' || fail "listener binding"
import sys
want = {int(sys.argv[1]), int(sys.argv[2])}
seen = {}
for f in ("/proc/net/tcp", "/proc/net/tcp6"):
    for line in open(f).readlines()[1:]:
        loc, st = line.split()[1], line.split()[3]
        ip, port = loc.split(":"); port = int(port, 16)
        if st == "0A" and port in want:
            seen.setdefault(port, []).append(ip)
for p in want:
    assert p in seen, f"nothing listens on {p}: {seen}"
    for ip in seen[p]:
        assert ip in ("0100007F", "00000000000000000000000001000000"), f"port {p} listens on {ip} (not loopback)"
print("listeners:", seen)
PY
status_json >/dev/null || fail "status over the tcp listener"
gpud_pid=$(status_json | jget "[p['pid'] for p in d['processes'] if p['role']=='gpud'][0]")
# the synthd claims nothing until the [debug] hold_at = synth gate opens: the jobs below are
# submitted and their outputs tampered with while each is still ACTIVE and unwritten, whatever
# the machine's load (a SIGSTOPped synthd would meet the stuck watchdog on a slow enough run)
# --- symlinks planted in an existing output directory
echo "VICTIM" > "$T/victim"; chmod 644 "$T/victim"; cp "$T/victim" "$T/victim.orig"
mkdir -p "$T/out/plant"
for n in part-0.proof.json part-0.public.json part-0.gpu.json proofs.json error.txt; do
  ln -s "$T/victim" "$T/out/plant/$n"
  for pid in "$gpud_pid" "$SUP_PID"; do ln -s "$T/victim" "$T/out/plant/$n.tmp.$pid"; done
done
submit_job plant 1 >/dev/null
# --- an output directory swapped for a symlink after submit (while its job waits to synthesize)
mkdir -p "$T/elsewhere"
submit_job swap 2 3 >/dev/null
swap_id=$(tail -1 "$T/ids" | cut -d' ' -f1)
mv "$T/out/swap" "$T/out/swap.moved" && ln -s "$T/elsewhere" "$T/out/swap"
sed -i '$d' "$T/ids" # not expected DONE
# --- the last component a symlink leading out of allow_output: refused, nothing created there
# (sent raw: the client resolves paths itself, the supervisor must not rely on that)
# raw_refused OUTPUT WHY: a submit naming OUTPUT, sent byte for byte, gets ok: false naming "output"
raw_refused() {
  printf '{"op":"submit","key":"chain","inputs":["%s"],"output":"%s"}' "$EX/w5.wtns" "$1" > "$T/req"
  "$RAW" "$URL" "$T/req" 10000 > "$T/rep" || fail "no reply"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["ok"] is False and "output" in d["error"], d' \
    "$T/rep" || fail "output $1 ($2) accepted: $(cat "$T/rep")"
  log "refused $1: $(cat "$T/rep")"
}
mkdir -p "$T/outside"; ln -s "$T/outside" "$T/out/esc"
for o in "$T/out/esc" "$T/out/esc/j" "$T/out/../outside/j"; do raw_refused "$o" "out of allow_output"; done
[ -z "$(ls -A "$T/outside")" ] || fail "a refused output created $(ls "$T/outside")"
# --- one output directory, several spellings (sent raw: the client would canonicalize them)
submit_job busy 3 4 >/dev/null
ln -s "$T/out/busy" "$T/out/alias"
for o in "$T/out/./busy" "$T/out/busy/" "$T/out//busy" "$T/out/plant/../busy" "$T/out/alias"; do
  raw_refused "$o" "shared with an active job"
done
# the same directory under another canonical path (a bind mount): refused by st_dev/st_ino
mkdir -p "$T/out/bound"
if mount --bind "$T/out/busy" "$T/out/bound" 2>/dev/null; then
  ( raw_refused "$T/out/bound" "a bind mount of an active job's output" ); rc=$?
  umount "$T/out/bound"; [ $rc = 0 ] || exit 1
else
  log "no bind mount here (not root?): identity check by st_dev/st_ino not exercised"
fi
hold_open
wait_all 300 || { cat "$T/wait.out"; fail "jobs not DONE"; }
verify_all || fail "proofs"
# once the busy job is done, the same spelling is refused for holding its files (issue 37: the jobs'
# proofs would mix), and accepted with "overwrite": the refusals above were for sharing it
raw_refused "$T/out/./busy" "a finished job's output"
grep -q "earlier job's files" "$T/rep" || fail "a finished job's output refused for another reason: $(cat "$T/rep")"
printf '{"op":"submit","key":"chain","inputs":["%s"],"output":"%s","overwrite":true}' "$EX/w5.wtns" "$T/out/./busy" > "$T/req"
"$RAW" "$URL" "$T/req" 10000 > "$T/rep" || fail "no reply"
again=$(jget "d['job'] if d['ok'] else ''" < "$T/rep")
[ -n "$again" ] || fail "the busy job's output refused after it finished: $(cat "$T/rep")"
"$ZK" wait --config "$CFG" --timeout 300 "$again" >/dev/null || fail "the resubmitted job is not DONE"
cmp -s "$T/victim" "$T/victim.orig" || fail "the victim file was written through a planted symlink: $(head -c 200 "$T/victim")"
for n in part-0.proof.json part-0.public.json part-0.gpu.json proofs.json; do
  [ -f "$T/out/plant/$n" ] && [ ! -L "$T/out/plant/$n" ] || fail "$n is not a regular file"
done
# the swapped job: never written through the symlink; FAILED with the reason
"$ZK" wait --config "$CFG" --timeout 60 "$swap_id" > "$T/swap.out"; rc=$?
[ $rc = 11 ] || fail "swapped-output job: wait exited $rc: $(cat "$T/swap.out")"
[ -z "$(ls -A "$T/elsewhere")" ] || fail "written through a swapped output symlink: $(ls "$T/elsewhere")"
status_json "$swap_id" | jget "d['error']" | grep -q "swap" || fail "reason does not name the output: $(status_json "$swap_id")"
log "swapped output: $(status_json "$swap_id" | jget "d['error']")"
# --- modes with public = yes: run dir traversable only, API 0666, the rest owner-only;
# output directories 0755 and their files 0644 (the submitter reads its proofs)
mode() { stat -c %a "$1"; }
[ "$(mode "$T/run")" = 711 ] || fail "run dir mode $(mode "$T/run")"
for d in in results tokens cancel log; do [ "$(mode "$T/run/$d")" = 700 ] || fail "run/$d mode $(mode "$T/run/$d")"; done
[ "$(mode "$T/out/busy")" = 755 ] || fail "output dir mode $(mode "$T/out/busy")"
for f in "$T"/out/busy/*.json; do [ "$(mode "$f")" = 644 ] || fail "$f mode $(mode "$f")"; done
# --- another local user (public = yes): submits into allow_output and reads its proofs; cannot list
# or read the run directory's records; cannot have the service write outside allow_output
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  chmod 711 "$T"; chmod 644 "$CFG"; chmod 755 "$EX"; OZK=$(other_user_zk) || fail "copy of the client"
  "${AS[@]}" ls "$T/run" >/dev/null 2>&1 && fail "another user lists the run directory"
  "${AS[@]}" ls "$T/run/tokens" >/dev/null 2>&1 && fail "another user lists tokens/"
  "${AS[@]}" cat "$T/run/in/"* >/dev/null 2>&1 && fail "another user reads a manifest"
  oid=$("${AS[@]}" "$OZK" submit --config "$CFG" --key chain --output "$T/out/other" "$EX/w6.wtns") ||
    fail "another user's submit into allow_output was refused"
  "${AS[@]}" "$OZK" wait --config "$CFG" --timeout 60 "$oid" >/dev/null || fail "another user's job not DONE"
  "${AS[@]}" cat "$T/out/other/proofs.json" >/dev/null || fail "another user cannot read its proofs"
  if "${AS[@]}" "$OZK" submit --config "$CFG" --key chain --output /tmp "$EX/w6.wtns" 2>/dev/null; then
    fail "another user submitted into /tmp"; fi
  log "another local user: submitted and read its proofs; run directory closed to it"
fi
echo "PASS: planted symlinks, swapped output, escaping output, shared output, loopback listeners, public modes"
