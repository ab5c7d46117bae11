#!/usr/bin/env bash
# gpud writes a partition's proof file into the caller's out directory (<run>/ss/<pid>.<seq>) as tmp +
# rename: a symlink planted at the temporary name (part-N.proof.bin.tmp.<gpud pid>) is replaced, never
# written through, and the call still gets its proof (issue 35 item 3: O_EXCL | O_NOFOLLOW).
. "$(dirname "$0")/common.sh" "$@"
make_key
EXTRA=$'[debug]\nhold_at = prove' write_config
export ZKPIPE_CONFIG=$CFG
start_sup
gpud_pid() { shm_json | python3 -c '
import json,sys; d=json.load(sys.stdin)
print(" ".join(str(p["pid"]) for p in d["processes"] if p["role"] == "gpud" and p["alive"]))'; }
has_gpud() { [ -n "$(gpud_pid)" ]; }
wait_until 60 has_gpud || fail "no gpud registered"
G=$(gpud_pid)
echo precious > "$T/victim"
"$H" prove "$KEY" "$ROWS" "$PUB" 1 > "$T/harness.log" 2>&1 &
HP=$!
out_dir() { ls -d "$T/run/ss/$HP".* 2>/dev/null | head -1; }
has_out() { [ -n "$(out_dir)" ]; }
wait_until 60 has_out || fail "the call made no out directory"
D=$(out_dir)
ln -s "$T/victim" "$D/part-0.proof.bin.tmp.$G" || fail "plant"
hold_open
wait "$HP" || { cat "$T/harness.log"; fail "the call failed"; }
[ "$(cat "$T/victim")" = precious ] || fail "gpud wrote through the planted symlink: victim now $(od -An -tx1 "$T/victim" | head -2)"
log "PASS"
