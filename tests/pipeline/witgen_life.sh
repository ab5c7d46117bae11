#!/usr/bin/env bash
# A witness generator's life is tied to its synthd (issue 31 item 4), with real generators (shell
# scripts named as witness_bin, writing one of the chain circuit's witnesses) and real signals:
#  - a synthd's generator directory left by a killed predecessor is removed when it starts;
#  - generation is a declared long stage: a generator slower than stuck_timeout_s (2 s) but
#    within witness_timeout_s ends DONE, no daemon killed as stuck, and the start says so;
#  - a generator that exits 0 but leaves a setsid'ed child behind: the child is killed;
#  - SIGKILL of the synthd while its generator runs (with a setsid'ed child out of its group):
#    both die (PR_SET_PDEATHSIG, and the supervisor as subreaper kills the escaped one);
#  - a cancel and the supervisor's SIGTERM stop running generators and their escaped children.
. "$(dirname "$0")/lib.sh" "$@"
STUCK=2
mk() { cat > "$T/$1"; chmod +x "$T/$1"; : > "$T/$1.dat"; }
mk slowok <<SH
#!/bin/sh
sleep $((STUCK * 3))
cp "$EX/w0.wtns" "\$2"
SH
mk leak <<SH
#!/bin/sh
setsid sh -c 'echo \$\$ >> "$T/leak.pids"; exec sleep 1000' &
while [ ! -s "$T/leak.pids" ]; do sleep 0.05; done
cp "$EX/w0.wtns" "\$2"
SH
mk fork <<SH
#!/bin/sh
echo \$\$ >> "$T/gen.pids"
setsid sh -c 'echo \$\$ >> "$T/escaped.pids"; exec sleep 1000' &
sleep 1000
SH
EXTRA_KEYS=""
for g in slowok leak fork; do
  EXTRA_KEYS+="[key $g]
zkey = $EX/chain.zkey
r1cs = $EX/chain.r1cs
witness_bin = $T/$g
witness_timeout_s = 60
"
done
EXTRA_LIMITS="stuck_timeout_s = $STUCK"
WORKERS=1
write_config
echo '{"a": 1}' > "$T/in.json"
install -d -m 0700 "$T/run" "$T/run/witgen" "$T/run/witgen/node0.synthd0/zpwit.stale"
echo junk > "$T/run/witgen/node0.synthd0/zpwit.stale/input.json"
start_sup
wait_until 120 test ! -e "$T/run/witgen/node0.synthd0/zpwit.stale" || fail "a stale generator directory survived synthd's start"
grep -q "key slowok: witness_timeout_s = 60 is not below stuck_timeout_s = $STUCK: fine, a witness generator is a declared long stage" \
  "$T/supervisor.log" || fail "no word at start on witness_timeout_s vs stuck_timeout_s"

gone() { local p; for p in "$@"; do [ -e "/proc/$p" ] && return 1; done; return 0; }
# a generator slower than stuck_timeout_s
"$ZK" submit --config "$CFG" --key slowok --output "$T/out/s" "$T/in.json" --wait >"$T/s.out" 2>&1 ||
  fail "a generator slower than stuck_timeout_s: $(cat "$T/s.out")"
grep -q "stuck: no progress" "$T/supervisor.log" && fail "a daemon was killed as stuck: $(grep "stuck: no progress" "$T/supervisor.log")"
# a generator that leaves a setsid'ed child
"$ZK" submit --config "$CFG" --key leak --output "$T/out/l" "$T/in.json" --wait >"$T/l.out" 2>&1 ||
  fail "leak: $(cat "$T/l.out")"
wait_until 120 gone $(cat "$T/leak.pids") || fail "the generator's setsid'ed child $(cat "$T/leak.pids") outlived it"

# SIGKILL of synthd while its generator runs
id=$("$ZK" submit --config "$CFG" --key fork --output "$T/out/f" "$T/in.json") || fail "submit fork"
wait_until 30 test -s "$T/escaped.pids" || fail "the generator did not start"
gen=$(head -1 "$T/gen.pids"); esc=$(head -1 "$T/escaped.pids")
syn=$(awk '{print $4}' "/proc/$gen/stat")
[ "$(cat "/proc/$syn/comm")" = zkpipe-synthd ] || fail "the generator's parent $syn is $(cat "/proc/$syn/comm")"
log "SIGKILL synthd $syn (generator $gen, its setsid'ed child $esc)"
kill -KILL "$syn"
wait_until 120 gone "$gen" "$esc" || fail "after synthd's SIGKILL: $(for p in $gen $esc; do [ -e /proc/$p ] && echo "$p alive ($(tr '\0' ' ' < /proc/$p/cmdline))"; done)"
# the partition is retried: the next synthd's generator runs; a cancel stops it and its child
wait_until 30 eval '[ "$(wc -l < "$T/escaped.pids")" -ge 2 ]' || fail "the retried generator did not start"
"$ZK" cancel --config "$CFG" "$id" >/dev/null || fail "cancel"
"$ZK" wait --config "$CFG" --timeout 30 "$id" >"$T/c.out" 2>&1; rc=$?
[ $rc = 11 ] && grep -q "cancelled by client" "$T/c.out" || fail "cancelled job: exit $rc: $(cat "$T/c.out")"
wait_until 120 gone $(cat "$T/gen.pids" "$T/escaped.pids") || fail "a cancelled generator or its child lived on"
# the supervisor's SIGTERM while a generator runs
id=$("$ZK" submit --config "$CFG" --key fork --output "$T/out/g" "$T/in.json") || fail "submit fork 2"
wait_until 30 eval '[ "$(wc -l < "$T/escaped.pids")" -ge 3 ]' || fail "the third generator did not start"
kill -TERM "$SUP_PID"; wait "$SUP_PID"; SUP_PID=
wait_until 120 gone $(cat "$T/gen.pids" "$T/escaped.pids") || fail "a generator or its child outlived the supervisor's stop"
[ -z "$(find "$T/run/witgen" -name 'zpwit.*')" ] || fail "generator directories left: $(find "$T/run/witgen" -name 'zpwit.*')"
echo "PASS: stale witgen dir cleared; slow generator not taken for stuck; setsid'ed children killed on exit, synthd SIGKILL, cancel and stop"
