#!/usr/bin/env bash
# Slots sized from keys (issue 23 item 2):
#  - `zkpipe key info` prints the slot a partition needs (4 KiB header + w + a, b, c), for a
#    .zkey and for a .zpk of the same key, equal to what the payload layout computes here;
#  - slot_size = auto sizes the arena from its keys (the need rounded up to 2 MiB) and proves;
#  - a slot_size too small for a key fails the key with the size it needs (submits refused, 13);
#  - zkpipe-shm --remove refuses while the arena's processes live (15, arena intact) and removes
#    it once they are gone (0, arena gone).
. "$(dirname "$0")/lib.sh" "$@"
# the need, from the zkey's header: nVars and domainSize in section 2 (after n8q, q, n8r, r)
need=$(python3 - "$EX/chain.zkey" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read(); pos = 12
for _ in range(struct.unpack('<I', d[8:12])[0]):
    sid, sz = struct.unpack('<IQ', d[pos:pos + 12]); pos += 12
    if sid == 2:
        n8q = struct.unpack('<I', d[pos:pos + 4])[0]; o = pos + 4 + n8q
        n8r = struct.unpack('<I', d[o:o + 4])[0]; o += 4 + n8r
        nvars, npub, dom = struct.unpack('<III', d[o:o + 12])
        print(4096 + (nvars * 32 + 63) // 64 * 64 + 3 * dom * 32); break
    pos += sz
PY
)
"$ZK" key info "$EX/chain.zkey" > "$T/info.txt" || fail "key info chain.zkey: $(cat "$T/info.txt")"
grep -q "slot size: *$need bytes" "$T/info.txt" || fail "key info: want $need bytes: $(cat "$T/info.txt")"
"$ZK" key convert --from "$EX/chain.zkey" --to "$T/chain.zpk" >/dev/null 2>&1 || fail "key convert"
"$ZK" key info "$T/chain.zpk" | grep -q "slot size: *$need bytes" || fail "key info chain.zpk: $("$ZK" key info "$T/chain.zpk")"
round=$(( (need + 2097151) / 2097152 * 2097152 ))

SLOT_SIZE=auto KEEP_ARENA=yes write_config
start_sup
got=$(status_json | jget "d['groups'][0]['slot_size']")
[ "$got" = "$round" ] || fail "slot_size = auto: arena slots of $got bytes, want $round"
grep -q "slot_size = auto: .*key chain" "$T/supervisor.log" || fail "the supervisor did not say how it sized the group"
grep -q "key chain: .*needs a slot of .*($need bytes)" "$T/supervisor.log" || fail "the supervisor did not show the key's need"
status_json | jget "[k for k in d['keys'] if k['name']=='chain'][0]['slot_bytes']" | grep -qx "$need" ||
  fail "/status keys: slot_bytes"
submit_job a 2 >/dev/null
wait_all 60 || { cat "$T/wait.out"; fail "jobs under slot_size = auto"; }
verify_all || fail "proofs"
# --remove while the supervisor and its daemons live: refused, the arena stays
"$SHM" --remove "$ARENA" >"$T/rm.out" 2>&1; rc=$?
[ $rc = 15 ] || fail "zkpipe-shm --remove of a live arena exited $rc: $(cat "$T/rm.out")"
grep -q "supervisor.*alive" "$T/rm.out" || fail "--remove did not name the live processes: $(cat "$T/rm.out")"
"$SHM" --json "$ARENA" >/dev/null 2>&1 || fail "the refused --remove removed the arena"
kill -TERM "$SUP_PID"; wait "$SUP_PID" 2>/dev/null; SUP_PID=
"$SHM" --json "$ARENA" >/dev/null 2>&1 || fail "keep_arena = yes: the arena is gone after a clean stop"
"$SHM" --remove "$ARENA" >"$T/rm.out" 2>&1 || fail "--remove of an idle arena exited $?: $(cat "$T/rm.out")"
"$SHM" --json "$ARENA" >/dev/null 2>&1 && fail "--remove left the arena"
"$SHM" --remove "$ARENA" >/dev/null 2>&1; [ $? = 3 ] || fail "--remove of a missing arena: not exit 3"

# slots too small for a key (a synthetic circuit of 2^17 rows needs ~16 MiB; slots are 2 MiB):
# that key fails with its need and submits for it are refused, the other key is served
rm -rf "$T/run"
EXTRA_KEYS="[key big]
synth = synth:n=100000
setup = device"
SLOT_SIZE=2M KEEP_ARENA=no write_config
start_sup
st=$(status_json | jget "[k for k in d['keys'] if k['name']=='big'][0]")
case "$st" in *"'failed'"*"bytes"*"slot_size = auto or >="*) ;; *) fail "key with too small slots: $st";; esac
big=$(status_json | jget "[k for k in d['keys'] if k['name']=='big'][0]['slot_bytes']")
[ "$big" -gt 2097152 ] || fail "big key's need $big"
"$ZK" submit --config "$CFG" --key big --output "$T/out/s" synth:1 >"$T/s.out" 2>&1; rc=$?
[ $rc = 13 ] || fail "submit to too small slots exited $rc: $(cat "$T/s.out")"
grep -q "$big" "$T/s.out" || fail "refusal does not say the need: $(cat "$T/s.out")"
echo "PASS: key info shows $need bytes (zkey and zpk); auto = $round; too small slots fail the key; --remove refuses live arenas"
