#!/usr/bin/env bash
# A supervisor restart keeps a registered .params key in memory (docs/filecoin.md §5): the first call
# registers the file (<run>/srs/<id>) and gpud decodes it into a key region; after a stop (keep_arena =
# yes) and a start, gpud takes the key from that region — the file is not read again — and the calls
# prove. A .params that changed (a new mtime: another id) is not loaded under its old id by a gpud
# restarted meanwhile, loses its registration and its region at the next start, and the next call
# registers and loads it anew; a .params that went loses them the same way. Regions of the keys still registered are never pruned.
. "$(dirname "$0")/common.sh" "$@"

KEEP_ARENA=yes write_config
export ZKPIPE_CONFIG=$CFG
GLOG=$T/run/log/node0.gpud0
stop_sup() { kill -TERM "$SUP_PID"; wait "$SUP_PID" 2>/dev/null; SUP_PID=; }
regions() { # this arena's key and split regions of registered keys, wherever the backing put them
  local d
  for d in /dev/shm $(awk '$3 == "hugetlbfs" {print $2}' /proc/mounts); do
    ls "$d" 2>/dev/null | grep -E "^zkpipe\.$ARENA\.(key|split)\.ss_"; done | sort
}
reg_ids() { ls "$T/run/srs" 2>/dev/null | grep -E '^[0-9a-f]{16}$' | sort; }
prove() { "$H" prove "$KEY" "$ROWS" "$PUB" 2 > "$T/p.out" 2>&1 || { cat "$T/p.out"; dump; fail "$1: the call failed"; }; }
loads() { grep -c "srs ss:$1: .* decoded and checked into region" "$GLOG" 2>/dev/null; }
takes() { grep -c "key ss:$1: key from region" "$GLOG" 2>/dev/null; }
took_1() { [ "$(takes "$id1")" -ge 1 ]; }

start_sup; make_key
prove "first call"
id1=$(reg_ids); [ -n "$id1" ] && [ "$(echo "$id1" | wc -l)" = 1 ] || fail "registrations after the first call: [$id1]"
[ "$(loads "$id1")" = 1 ] || { dump; fail "gpud did not decode $KEY into a region once ($(loads "$id1") times)"; }
regions | grep -q "\.key\.ss_$id1\$" || fail "no key region for ss_$id1: [$(regions)]"
log "first call: registered $id1, decoded into $(regions | tr '\n' ' ')"

# 1. stop and start: the region stays, gpud takes the key from it, the call proves, the file is not read again
stop_sup
regions | grep -q "\.key\.ss_$id1\$" || fail "the stop removed the region (keep_arena = yes)"
# planted beside it (a client in public mode writes registrations): a FIFO (the start must not block on it), a
# symlink to the real registration (not followed), an oversized file, one naming another file (its id differs):
# each removed with a line that says why; a name that is no id left alone
S=$T/run/srs
mkfifo "$S/aaaaaaaaaaaaaaaa"; ln -s "$S/$id1" "$S/bbbbbbbbbbbbbbbb"
head -c 8192 /dev/zero | tr '\0' a > "$S/cccccccccccccccc"; echo "$EX/chain.zkey" > "$S/dddddddddddddddd"
echo "$KEY" > "$S/not-an-id"
start_sup
for h in aaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbb cccccccccccccccc dddddddddddddddd; do
  [ ! -e "$S/$h" ] && [ ! -L "$S/$h" ] || fail "planted registration $h stayed"
  grep -q "srs $h: .*registration removed" "$T/supervisor.log" || { dump; fail "no line for planted registration $h"; }
done
grep -q "srs dddddddddddddddd: $EX/chain.zkey changed since it was registered" "$T/supervisor.log" ||
  { dump; fail "the registration naming another file: not said as such"; }
[ -e "$S/not-an-id" ] || fail "a file that is no registration was removed"
grep -q "1 registered .params file(s) unchanged" "$T/supervisor.log" || { dump; fail "the start did not keep the registered key's region"; }
regions | grep -q "\.key\.ss_$id1\$" || { dump; fail "the start pruned the region of a registered, unchanged .params"; }
wait_until 60 took_1 || { dump; fail "gpud did not take ss:$id1 from its region after the restart"; }
prove "the call after the restart"
[ "$(loads "$id1")" = 1 ] || { dump; fail "gpud decoded $KEY again after the restart ($(loads "$id1") times in all)"; }
log "restart: key taken from its region, the call proved, the file decoded once in all"

# 2. the file changes: a gpud restarted meanwhile does not load it under its old id (it is another key
# now); the next start removes its registration and its region
touch -d '+1 minute' "$KEY"
old=$(status_json | jget "[p['pid'] for p in d['processes'] if p['role']=='gpud' and p['alive']][0]")
kill -KILL "$old"
stale_seen() { grep -q "srs $id1: $KEY changed since it was registered .*: not loaded" "$GLOG"; }
wait_until 60 stale_seen || { dump; fail "the restarted gpud did not refuse the changed .params's old registration"; }
sleep 1   # several of gpud's ticks (every 250 ms): the refusal is said once, not at each
[ "$(grep -c "srs $id1: .*: not loaded" "$GLOG")" = 1 ] || { dump; fail "gpud said the refusal more than once"; }
stop_sup
start_sup
[ -z "$(reg_ids)" ] || { dump; fail "the registration of the changed .params stayed: [$(reg_ids)]"; }
grep -q "srs $id1: $KEY changed since it was registered" "$T/supervisor.log" ||
  { dump; fail "the supervisor did not say why the registration went"; }
[ -z "$(regions | grep "ss_$id1\$")" ] || fail "the changed .params's region stayed: [$(regions)]"
prove "the call on the changed .params"
id2=$(reg_ids); [ -n "$id2" ] && [ "$id2" != "$id1" ] || fail "registrations after the change: [$id2] (was $id1)"
[ "$(loads "$id2")" = 1 ] || { dump; fail "gpud did not decode the changed $KEY anew"; }
log "changed .params: $id1 and its region removed, $id2 loaded"

# 3. a long-lived caller (bellperson keeps one SRS handle for the process's life) across supervisor restarts: the
# .params touched while the service is down (its registration goes at the start), then the run directory's
# registrations lost; each next call registers the handle again, following its file, and proves
G=$T/gate; mkdir -p "$G"
"$H" prove "$KEY" "$ROWS" "$PUB" 1 --repeat 3 --gate "$G" > "$T/long.out" 2>&1 & LONG=$!
gate_done() { [ -e "$G/done.$1" ] || ! kill -0 $LONG 2>/dev/null; }
wait_until 120 gate_done 0 || fail "the long-lived caller's first call did not end"
stop_sup; touch -d '+2 minutes' "$KEY"; start_sup
touch "$G/go.1"; wait_until 120 gate_done 1 || fail "the long-lived caller's second call did not end"
stop_sup; rm -rf "$T/run/srs"; start_sup
touch "$G/go.2"
wait $LONG || { cat "$T/long.out"; dump; fail "the long-lived caller failed after the restarts"; }
[ "$(grep -c "proved and verified" "$T/long.out")" = 3 ] || { cat "$T/long.out"; fail "the long-lived caller: 3 calls"; }
id3=$(reg_ids); [ -n "$id3" ] && [ "$id3" != "$id2" ] || fail "the touched .params was not registered again: [$id3]"
log "long-lived caller: proved across a restart with its .params touched ($id2 -> $id3) and one with its registration lost"

# 4. the file goes: the same at the next start
stop_sup
mv "$KEY" "$KEY.gone"
start_sup
[ -z "$(reg_ids)" ] || { dump; fail "the registration of a removed .params stayed: [$(reg_ids)]"; }
grep -q "srs $id3: key not found: $KEY" "$T/supervisor.log" || { dump; fail "the supervisor did not say the .params went"; }
[ -z "$(regions)" ] || fail "regions left for a removed .params: [$(regions)]"
log "removed .params: registration and region removed"
log "PASS"
