#!/usr/bin/env bash
# Key regions (shm/keyregion.h, gpud/keys.c): gpud keeps its loaded key in a key region; a gpud
# restarted after SIGKILL takes the key from it ("key from region", health/status source "region")
# without reading the key file — checked by overwriting the file in place with zeros (same size, same
# mtime: the same identity) before the kill: the restarted gpud still proves valid proofs. A real change
# of the file (new content and mtime) invalidates the region: the next restart loads the file again.
# /status shows each key's source and its device memory by use (the pipelined CPU backend's stand-in),
# the figures adding up to the total. A stop with keep_arena = no removes the regions; a key that left
# the config loses its region at the next start.
# Both curves: a BN254 key (examples/chain-bn254) is kept beside the BLS12-381 one — its region's header
# names bn254 — and survives the restart the same way (its file zeroed too); with [debug] fixed_blinding
# the proofs after the restart, of both keys, are byte for byte the proofs before it.
. "$(dirname "$0")/lib.sh" "$@"
export ZKPIPE_GPUD_PIPELINE=1
EXB=$T/chain-bn254; cp -r "$SRC/examples/chain-bn254" "$EXB"   # copied, as lib.sh does examples/chain
cp "$EX/chain.zkey" "$T/chain.zkey"
cp "$EXB/chain.zkey" "$T/chainbn.zkey"
for i in 0 1; do cp "$EXB/w$i.wtns" "$T/bn$i.wtns"; done
EXTRA_KEYS="[key chainbn]
zkey = $T/chainbn.zkey
r1cs = $EXB/chain.r1cs" EXTRA="[debug]
fixed_blinding = yes" KEEP_ARENA=yes write_config
sed -i "s|^zkey = .*chain.zkey|zkey = $T/chain.zkey|" "$CFG"
regions() { # the region files of this arena's keys, wherever the backing put them
  local d
  for d in /dev/shm $(awk '$3 == "hugetlbfs" {print $2}' /proc/mounts); do ls "$d"/zkpipe."$ARENA".key.* 2>/dev/null; done
}
gpud_pid() { status_json | jget "[p['pid'] for p in d['processes'] if p['role']=='gpud' and p['alive']][0]" 2>/dev/null; }
new_gpud() { # old pid: a live gpud with another pid, kept in NEW (between the kill and the restart no
  # gpud is alive and gpud_pid prints nothing: that is not yet the new one)
  NEW=$(gpud_pid); [ -n "$NEW" ] && [ "$NEW" != "$1" ]
}
key_field() { status_json | jget "[p for p in d['processes'] if p['role']=='gpud'][0]['keys']['${KF:-chain}']$1" 2>/dev/null; }
ready_from() { # pid source [key]: that gpud reports the key (chain) ready, taken from source
  local KF=${3:-chain}
  [ "$(gpud_pid)" = "$1" ] && [ "$(key_field "['state']")" = ready ] && [ "$(key_field "['source']")" = "$2" ]
}
prove_bn() { # a job of the BN254 key on bn0, bn1: DONE, valid; its proofs kept under $T/bnproofs.<name>
  local id
  id=$("$ZK" submit --config "$CFG" --key chainbn --output "$T/out/$1" "$T/bn0.wtns" "$T/bn1.wtns") || fail "submit $1"
  "$ZK" wait --config "$CFG" --timeout 90 "$id" >"$T/wait.out" || { cat "$T/wait.out"; fail "job $1 did not finish DONE"; }
  for p in 0 1; do
    "$ZK" verify --vk "$EXB/vk.json" --proof "$T/out/$1/part-$p.proof.json" --public "$T/out/$1/part-$p.public.json" \
      >/dev/null 2>&1 || fail "job $1 part $p: invalid BN254 proof"
    grep -q '"bn128"' "$T/out/$1/part-$p.proof.json" || fail "job $1 part $p: not a bn128 proof"
  done
}
same_proofs() { # job job parts: the proof files equal, part by part
  for p in $(seq 0 $(($3 - 1))); do
    cmp -s "$T/out/$1/part-$p.proof.json" "$T/out/$2/part-$p.proof.json" ||
      fail "$2 part $p: not the same proof as $1's (fixed blinding, the same witness)"
  done
}
region_curve() { # key: the curve name its region's header records (offset 120, 16 bytes)
  local f; f=$(regions | grep "\.key\.$1\$" | head -1)
  [ -n "$f" ] && python3 -c 'import sys; print(open(sys.argv[1], "rb").read(136)[120:136].rstrip(b"\0").decode())' "$f"
}
prove_one() { # a job on the key, DONE and valid
  : > "$T/ids"
  submit_job "$1" 2 "$2" >/dev/null
  wait_all 90 || { cat "$T/wait.out"; fail "job $1 did not finish DONE"; }
  verify_all || fail "job $1: proofs"
}

start_sup
has_gpud() { [ -n "$(gpud_pid)" ]; }
wait_until 60 has_gpud || fail "no gpud"
p1=$(gpud_pid)
wait_until 60 ready_from "$p1" file || fail "first start: key not ready from its file ($(key_field ''))"
wait_until 60 ready_from "$p1" file chainbn || fail "first start: BN254 key not ready from its file"
[ -n "$(regions)" ] || fail "no key region after the first load"
grep -q "kept in region" "$T"/run/log/*gpud* || fail "gpud did not say it kept the key in a region"
[ "$(region_curve chainbn)" = bn254 ] || fail "the BN254 key's region: curve '$(region_curve chainbn)' ($(regions))"
[ "$(region_curve chain)" = bls12-381 ] || fail "the BLS12-381 key's region: curve '$(region_curve chain)'"
grep -q "fixed_blinding" "$T"/run/log/*gpud* || fail "gpud did not warn about [debug] fixed_blinding"
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
prove_bn bn-a

# the same identity (size, mtime, inode), content destroyed: only a region can still prove
touch -r "$T/chain.zkey" "$T/mtime.ref"
dd if=/dev/zero of="$T/chain.zkey" bs=4096 count=$(( ($(stat -c %s "$T/chain.zkey") + 4095) / 4096 )) conv=notrunc status=none
truncate -s "$(stat -c %s "$EX/chain.zkey")" "$T/chain.zkey"
touch -r "$T/mtime.ref" "$T/chain.zkey"
touch -r "$T/chainbn.zkey" "$T/mtime-bn.ref"
dd if=/dev/zero of="$T/chainbn.zkey" bs=4096 count=$(( ($(stat -c %s "$T/chainbn.zkey") + 4095) / 4096 )) conv=notrunc \
  status=none
truncate -s "$(stat -c %s "$EXB/chain.zkey")" "$T/chainbn.zkey"
touch -r "$T/mtime-bn.ref" "$T/chainbn.zkey"
log "SIGKILL gpud $p1 (its key files are now zeros)"
kill -KILL "$p1"
wait_until 60 new_gpud "$p1" || fail "gpud not restarted"
p2=$NEW
wait_until 60 ready_from "$p2" region || fail "restart: key not from its region ($(key_field ''))"
wait_until 60 ready_from "$p2" region chainbn || fail "restart: BN254 key not from its region ($(KF=chainbn key_field ''))"
grep -q "key from region" "$T"/run/log/*gpud* || fail "the restarted gpud did not say key from region"
prove_one b 2
prove_one a2 0
same_proofs a a2 2
prove_bn bn-b
same_proofs bn-a bn-b 2
log "proofs after the restart (from the regions) = before (from the files), both curves"

# a real change: the region is stale, the file is read again
cp "$EX/chain.zkey" "$T/chain.zkey"
touch -d '+2 seconds' "$T/chain.zkey"
kill -KILL "$p2"
wait_until 60 new_gpud "$p2" || fail "gpud not restarted (2)"
p3=$NEW
wait_until 60 ready_from "$p3" file || fail "changed key file: not loaded from the file ($(key_field ''))"
wait_until 60 ready_from "$p3" region chainbn || fail "the unchanged BN254 key: not from its region"
grep -q "made from another version" "$T"/run/log/*gpud* || fail "the stale region was not refused as another version"
prove_one c 4

# the key leaves the config: its region goes at the next start
kill -TERM "$SUP_PID"; wait "$SUP_PID" 2>/dev/null; SUP_PID=
for p in $(arena_pids); do wait_until 120 dead "$p" || fail "daemon $p outlived the supervisor's stop"; done
[ -n "$(regions)" ] || fail "keep_arena = yes: the region should survive a stop"
sed -i 's/^\[key chain\]/[key chain2]/' "$CFG"
start_sup
wait_until 30 grep -q "key region(s) removed" "$T/supervisor.log" || fail "no prune of the key that left the config"
regions | grep -q '\.key\.chain$' && fail "region of the removed key still there: $(regions)"
# keep_arena = no: a clean stop removes every region
kill -TERM "$SUP_PID"; wait "$SUP_PID" 2>/dev/null; SUP_PID=
for p in $(arena_pids); do wait_until 120 dead "$p" || fail "daemon $p outlived the supervisor's stop"; done
sed -i 's/^keep_arena = yes/keep_arena = no/' "$CFG"
start_sup
has_chain2() { regions | grep -q '\.key\.chain2$'; }
wait_until 60 has_chain2 || fail "chain2 made no region"
kill -TERM "$SUP_PID"; wait "$SUP_PID" 2>/dev/null; SUP_PID=
[ -z "$(regions)" ] || fail "keep_arena = no stop left regions: $(regions)"
echo "PASS: keys of both curves from their regions after SIGKILL (files not read, the same proofs), stale region refused, pruned and removed"
