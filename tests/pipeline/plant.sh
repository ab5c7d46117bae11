#!/usr/bin/env bash
# Nothing another local user plants in shared memory is trusted (issue 31), played for real by a second
# local user this test makes (useradd) and removes (userdel):
#  1. Before the service's first start the other user runs a supervisor of their own naming the
#     service's arena, and stops it keeping the arena: a real arena of the right shape, theirs, sits at
#     /dev/shm/zkpipe.<arena>, with their key region beside it. The service refuses to start, naming
#     the object and its owner's uid — it never attaches it (before: it adopted it).
#  2. With that arena gone, the other user plants a key region made from their own setup of the same
#     r1cs, carrying the real key file's identity (stat is public): gpud refuses it (another uid's),
#     removes it, loads the key file and makes its own; every proof verifies under the real vk, and the
#     published keys/chain.vk.json is the real one (before: "key from region", proofs invalid). The
#     other user's zkpipe-shm on the service's arena says whose it is (before: "not found").
#  3. The same forged region made under the service's own uid but without its secret (another run
#     directory's): refused by its MAC, rebuilt; proofs verify under the real vk.
#  4. A process entry written into the service's arena for a process the service did not start (a
#     root-owned sleep, its public start time, a heartbeat of long ago) in a dead synthd's place, then
#     a supervisor restart: it is not adopted (the run directory's procs/ record is what counts) and
#     not killed by the watchdog; a new synthd takes the place; the daemons the service did start are
#     adopted as before.
. "$(dirname "$0")/lib.sh" "$@"
[ "$(id -u)" = 0 ] || skip "needs root: makes a second local user"
command -v useradd >/dev/null && command -v userdel >/dev/null && command -v setpriv >/dev/null ||
  skip "needs useradd, userdel and setpriv"
PLANT=$B/tests/pipeline/plant
ATK=zpatk$$
useradd --system --no-create-home --shell /usr/sbin/nologin "$ATK" >/dev/null 2>&1 || skip "useradd $ATK failed"
AU=$(id -u "$ATK"); AG=$(id -g "$ATK")
AS=(setpriv --reuid="$AU" --regid="$AG" --clear-groups)
A=$(mktemp -d /tmp/zpatk.XXXXXX); chmod 755 "$A"
VPID=; ASUP=
plant_cleanup() {
  [ -n "$VPID" ] && kill -KILL "$VPID" 2>/dev/null
  [ -n "$ASUP" ] && kill -TERM "$ASUP" 2>/dev/null
  for _ in $(seq 100); do [ -n "$(ps -u "$AU" -o pid= 2>/dev/null)" ] || break; sleep 0.1; done
  for p in $(ps -u "$AU" -o pid= 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done  # the other user's, by pid
  rm -f /dev/shm/zkpipe."$ARENA" /dev/shm/zkpipe."$ARENA".* 2>/dev/null
  userdel "$ATK" 2>/dev/null || { sleep 1; userdel -f "$ATK"; }
  rm -rf "$A"
  cleanup
}
trap plant_cleanup EXIT

EXTRA_LIMITS="stuck_timeout_s = 10" write_config   # short: a wrongly adopted process would be killed soon
chmod 711 "$T"; chmod -R a+rX "$EX"   # the key file's identity is public: anyone may stat it
REGION=$ARENA.key.chain
gpud_log() { cat "$T"/run/log/node0.gpud0 2>/dev/null; }
key_ready() { [ "$(status_json | jget "[p for p in d['processes'] if p['role']=='gpud' and p['alive']][0]['keys']['chain']['state']" 2>/dev/null)" = ready ]; }
region_file() { local d; for d in /dev/shm $(awk '$3 == "hugetlbfs" {print $2}' /proc/mounts); do
  [ -e "$d/zkpipe.$REGION" ] && echo "$d/zkpipe.$REGION"; done; }
same_vk() { # the published vk is the real one (the fixed points and IC)
  python3 - "$EX/vk.json" "$T/run/keys/chain.vk.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ks = ["vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2", "IC"]
bad = [k for k in ks if a[k] != b.get(k)]
for k in bad: print(k, a[k], b.get(k), file=sys.stderr)
sys.exit("published vk differs in " + ",".join(bad) if bad or not ks else 0)
PY
}
STEP=0
prove_real() { # two jobs (3 partitions) DONE, every proof valid under the real vk (lib.sh), the published vk real
  STEP=$((STEP + 1)); : > "$T/ids"
  submit_job "s$STEP.a" 1 >/dev/null; submit_job "s$STEP.b" 2 3 >/dev/null
  wait_all 120 || { cat "$T/wait.out"; fail "$1: jobs did not all finish DONE"; }
  verify_all || fail "$1: proofs invalid under the real verifying key"
  same_vk || fail "$1: keys/chain.vk.json is not the real verifying key"
}

# ---- the other user's own setup: binaries, the same r1cs, a key of their own toxic waste
install -d -o "$AU" -g "$AG" -m 755 "$A/bin" "$A/out"
for b in "$ZK" "$SUP" "$SHM" "$B/synthd/zkpipe-synthd" "$B/gpud/zkpipe-gpud" "$PLANT"; do install -m 755 "$b" "$A/bin/"; done
install -o "$AU" -m 644 "$EX/chain.r1cs" "$EX/chain.zkey" "$A/"
chown "$AU:$AG" "$A"
"${AS[@]}" "$A/bin/zkpipe" setup --r1cs "$A/chain.r1cs" --out "$A/own.zpk" --zkey "$A/own.zkey" >"$A/setup.log" 2>&1 ||
  { cat "$A/setup.log"; fail "the other user's setup"; }
sed -e "s|^dir = .*|dir = $A/run|" -e "s|^keep_arena = .*|keep_arena = yes\nbin_dir = $A/bin|" \
    -e "s|^allow_input = .*|allow_input = $A|" -e "s|^allow_output = .*|allow_output = $A/out|" \
    -e "s|^zkey = .*|zkey = $A/chain.zkey|" -e "s|^r1cs = .*|r1cs = $A/chain.r1cs|" "$CFG" > "$A/zkpipe.ini"
chmod 644 "$A/zkpipe.ini"

# ---- 1. a real arena of the right shape, the other user's, before the service's first start
( cd "$A" && exec "${AS[@]}" "$A/bin/zkpipe-supervisor" --config "$A/zkpipe.ini" >"$A/sup.log" 2>&1 ) &
ASUP=$!
wait_until 60 "${AS[@]}" "$A/bin/zkpipe" status --config "$A/zkpipe.ini" >/dev/null 2>&1 ||
  { cat "$A/sup.log"; fail "the other user's supervisor did not start"; }
kill -TERM "$ASUP"; wait "$ASUP"; ASUP=
planted=$(ls -d /dev/shm/zkpipe."$ARENA" /dev/shm/zkpipe."$ARENA".memfd 2>/dev/null | head -1)
[ -n "$planted" ] && [ "$(stat -c %u "$planted")" = "$AU" ] || fail "no arena of uid $AU planted: $(ls -l /dev/shm)"
log "planted by uid $AU: $(ls -l /dev/shm | grep "zkpipe.$ARENA")"
timeout 60 "$SUP" --config "$CFG" >>"$T/supervisor.log" 2>&1; rc=$?
[ $rc != 124 ] || fail "the supervisor ran on the planted arena (it did not refuse it)"
[ $rc != 0 ] || fail "the supervisor exited 0 with a planted arena"
grep -q "zkpipe.$ARENA.*owned by uid $AU" "$T/supervisor.log" ||
  fail "the refusal does not name the planted object and its owner: $(tail -3 "$T/supervisor.log")"
log "refused (exit $rc): $(grep "owned by uid $AU" "$T/supervisor.log" | tail -1)"
"$SHM" "$ARENA" 2>"$T/shm.err" && fail "zkpipe-shm showed the planted arena"
grep -q "owned by uid $AU" "$T/shm.err" || fail "zkpipe-shm: $(cat "$T/shm.err") (not the owner)"

# ---- 2. the arena gone; a key region from the other user's own setup, with the real key's identity
"${AS[@]}" rm -f /dev/shm/zkpipe."$ARENA" /dev/shm/zkpipe."$ARENA".memfd /dev/shm/zkpipe."$REGION"
"${AS[@]}" "$A/bin/plant" region "$REGION" "$EX/chain.zkey" "$A/own.zkey" || fail "planting the region"
[ "$(stat -c %u "/dev/shm/zkpipe.$REGION")" = "$AU" ] || fail "the forged region is not uid $AU's"
start_sup
wait_until 60 key_ready || fail "gpud did not get the key ready"
gpud_log | grep -q "key from region" && fail "gpud used the other user's region: $(gpud_log | grep 'key from region')"
gpud_log | grep -q "zkpipe.$REGION.*owned by uid $AU" || fail "gpud does not say whose region it refused: $(gpud_log | tail -5)"
prove_real "another user's region"
f=$(region_file); [ -n "$f" ] && [ "$(stat -c %u "$f")" = 0 ] || fail "the region was not rebuilt as the service's: $f"
log "another user's region refused and rebuilt: $(gpud_log | grep "owned by uid $AU" | head -1)"
# the other user inspecting the service's arena: a permission problem, said as one (not "not found")
"${AS[@]}" "$A/bin/zkpipe-shm" "$ARENA" >/dev/null 2>"$T/shm.err" && fail "the other user read the service's arena"
grep -q "owned by uid 0, not by uid $AU" "$T/shm.err" || fail "zkpipe-shm as uid $AU: $(cat "$T/shm.err")"

# ---- 3. the same forgery under the service's uid, without its secret (another run directory's)
kill -TERM "$SUP_PID"; wait "$SUP_PID"; SUP_PID=   # keep_arena = no: the stop removes the regions too
[ -z "$(region_file)" ] || fail "the stop left the key region"
install -d -m 700 "$A/othersecret"
"$PLANT" region "$REGION" "$EX/chain.zkey" "$A/own.zkey" "$A/othersecret" || fail "planting the region as uid 0"
: > "$T/run/log/node0.gpud0"
start_sup
wait_until 60 key_ready || fail "gpud did not get the key ready"
gpud_log | grep -q "key from region" && fail "gpud used a region made without the service's secret"
gpud_log | grep -q "MAC is not this service's" || fail "gpud does not say why it refused the region: $(gpud_log | tail -5)"
prove_real "a region without the secret"
log "a region without the service's secret refused and rebuilt"

# ---- 4. a process entry for a process the service did not start, in a dead synthd's place
sleep 600 & VPID=$!
syn1=$(status_json | jget "[p['pid'] for p in d['processes'] if p['role']=='synthd' and p['index']==1 and p['alive']][0]") ||
  fail "no synthd.1"
kill -KILL "$SUP_PID"; wait "$SUP_PID" 2>/dev/null; SUP_PID=
kill -KILL "$syn1"
wait_until 120 sh -c "! kill -0 $syn1 2>/dev/null" || fail "synthd.1 did not die"
"$PLANT" proc "$ARENA" "$VPID" synthd.1 || fail "planting the process entry"
start_sup
new_syn() { local p; p=$(status_json | jget "[p['pid'] for p in d['processes'] if p['role']=='synthd' and p['index']==1 and p['alive']][0]" 2>/dev/null)
  [ -n "$p" ] && [ "$p" != "$VPID" ] && [ "$p" != "$syn1" ]; }
wait_until 60 new_syn || fail "no new synthd.1 (the planted entry held its place?)"
grep -q "NOT adopting synthd.1 pid $VPID" "$T/supervisor.log" || fail "the planted entry was not refused: $(grep -i adopt "$T/supervisor.log" | tail -3)"
grep -q "adopted synthd.0" "$T/supervisor.log" || fail "the service's own synthd.0 was not adopted"
grep -q "adopted gpud.0" "$T/supervisor.log" || fail "the service's own gpud.0 was not adopted"
prove_real "after the restart"
kill -0 "$VPID" 2>/dev/null || fail "the process named by the planted entry was killed"
log "planted entry not adopted, pid $VPID alive; own daemons adopted"
echo "PASS"
