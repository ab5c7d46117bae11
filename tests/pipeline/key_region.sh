#!/usr/bin/env bash
# Key regions (shm/keyregion.h, gpud/keys.c): gpud keeps its loaded key in a key region; a gpud
# restarted after SIGKILL takes the key from it ("key from region", health/status source "region")
# without reading the key file — checked by overwriting the file in place with zeros (same size, same
# mtime: the same identity) before the kill: the restarted gpud still proves valid proofs. A real change
# of the file (new content and mtime) invalidates the region: the next restart loads the file again.
# /status shows each key's source and its device memory by use (the pipelined CPU backend's stand-in),
# the figures adding up to the total. A stop with keep_arena = no removes the regions; a key that left
# the config loses its region at the next start.
. "$(dirname "$0")/lib.sh" "$@"
export ZKPIPE_GPUD_PIPELINE=1
cp "$EX/chain.zkey" "$T/chain.zkey"
KEEP_ARENA=yes write_config
sed -i "s|^zkey = .*chain.zkey|zkey = $T/chain.zkey|" "$CFG"
regions() { # the region files of this arena's keys, wherever the backing put them
  local d
  for d in /dev/shm $(awk '$3 == "hugetlbfs" {print $2}' /proc/mounts); do ls "$d"/zkpipe."$ARENA".key.* 2>/dev/null; done
}
gpud_pid() { status_json | jget "[p['pid'] for p in d['processes'] if p['role']=='gpud' and p['alive']][0]" 2>/dev/null; }
key_field() { status_json | jget "[p for p in d['processes'] if p['role']=='gpud'][0]['keys']['chain']$1" 2>/dev/null; }
ready_from() { # pid source: that gpud reports the key ready, taken from source
  [ "$(gpud_pid)" = "$1" ] && [ "$(key_field "['state']")" = ready ] && [ "$(key_field "['source']")" = "$2" ]
}
prove_one() { # a job on the key, DONE and valid
  : > "$T/ids"
  submit_job "$1" 2 "$2" >/dev/null
  wait_all 90 || { cat "$T/wait.out"; fail "job $1 did not finish DONE"; }
  verify_all || fail "job $1: proofs"
}

start_sup
wait_until 60 bash -c '[ -n "$('"$(declare -f status_json jget gpud_pid)"'; ZK='"$ZK"' CFG='"$CFG"' gpud_pid)" ]' ||
  fail "no gpud"
p1=$(gpud_pid)
wait_until 60 ready_from "$p1" file || fail "first start: key not ready from its file ($(key_field ''))"
[ -n "$(regions)" ] || fail "no key region after the first load"
grep -q "kept in region" "$T"/run/log/*gpud* || fail "gpud did not say it kept the key in a region"
# device memory by use, present and adding up
status_json | python3 -c '
import json, sys
d = json.load(sys.stdin)
m = [p for p in d["processes"] if p["role"] == "gpud"][0]["keys"]["chain"]["device_memory"]
parts = ["key", "split_bases", "input_sets", "scratch", "tables", "other", "free"]
missing = [k for k in parts + ["total"] if k not in m]
assert not missing, "missing %s" % missing
assert sum(m[k] for k in parts) == m["total"], "by use %d != total %d" % (sum(m[k] for k in parts), m["total"])
assert m["key"] > 0 and m["input_sets"] > 0 and m["total"] > 0, m
' || fail "/status device_memory by use"
prove_one a 0

# the same identity (size, mtime, inode), content destroyed: only a region can still prove
touch -r "$T/chain.zkey" "$T/mtime.ref"
dd if=/dev/zero of="$T/chain.zkey" bs=4096 count=$(( ($(stat -c %s "$T/chain.zkey") + 4095) / 4096 )) conv=notrunc status=none
truncate -s "$(stat -c %s "$EX/chain.zkey")" "$T/chain.zkey"
touch -r "$T/mtime.ref" "$T/chain.zkey"
log "SIGKILL gpud $p1 (its key file is now zeros)"
kill -KILL "$p1"
wait_until 60 bash -c '[ "$('"$(declare -f status_json jget gpud_pid)"'; ZK='"$ZK"' CFG='"$CFG"' gpud_pid)" != '"$p1"' ]' ||
  fail "gpud not restarted"
p2=$(gpud_pid)
wait_until 60 ready_from "$p2" region || fail "restart: key not from its region ($(key_field ''))"
grep -q "key from region" "$T"/run/log/*gpud* || fail "the restarted gpud did not say key from region"
prove_one b 2

# a real change: the region is stale, the file is read again
cp "$EX/chain.zkey" "$T/chain.zkey"
touch -d '+2 seconds' "$T/chain.zkey"
kill -KILL "$p2"
wait_until 60 bash -c '[ "$('"$(declare -f status_json jget gpud_pid)"'; ZK='"$ZK"' CFG='"$CFG"' gpud_pid)" != '"$p2"' ]' ||
  fail "gpud not restarted (2)"
p3=$(gpud_pid)
wait_until 60 ready_from "$p3" file || fail "changed key file: not loaded from the file ($(key_field ''))"
grep -q "made from another version" "$T"/run/log/*gpud* || fail "the stale region was not refused as another version"
prove_one c 4

# the key leaves the config: its region goes at the next start
kill -TERM "$SUP_PID"; wait "$SUP_PID" 2>/dev/null; SUP_PID=
for p in $(arena_pids); do wait_until 20 bash -c "! kill -0 $p 2>/dev/null"; done
[ -n "$(regions)" ] || fail "keep_arena = yes: the region should survive a stop"
sed -i 's/^\[key chain\]/[key chain2]/' "$CFG"
start_sup
wait_until 30 grep -q "key region(s) removed" "$T/supervisor.log" || fail "no prune of the key that left the config"
regions | grep -q '\.key\.chain$' && fail "region of the removed key still there: $(regions)"
# keep_arena = no: a clean stop removes every region
kill -TERM "$SUP_PID"; wait "$SUP_PID" 2>/dev/null; SUP_PID=
for p in $(arena_pids); do wait_until 20 bash -c "! kill -0 $p 2>/dev/null"; done
sed -i 's/^keep_arena = yes/keep_arena = no/' "$CFG"
start_sup
has_chain2() { regions | grep -q '\.key\.chain2$'; }
wait_until 60 has_chain2 || fail "chain2 made no region"
kill -TERM "$SUP_PID"; wait "$SUP_PID" 2>/dev/null; SUP_PID=
[ -z "$(regions)" ] || fail "keep_arena = no stop left regions: $(regions)"
echo "PASS: key from region after SIGKILL (file not read), stale region refused, pruned and removed"
