#!/usr/bin/env bash
# supraseal errors: every failure comes back as the ABI's error value (errno code + message):
# no config, no daemon running, key not found, not a .params file, sizes that disagree with the
# key, a partition that does not satisfy its circuit (gpud's pairing check), too many partitions.
. "$(dirname "$0")/common.sh" "$@"
make_key

unset ZKPIPE_CONFIG
"$H" srs "$KEY" --expect-code 22 || fail "no ZKPIPE_CONFIG"          # EINVAL
write_config
export ZKPIPE_CONFIG=$CFG
"$H" srs "$KEY" --expect-code 111 || fail "no daemon running"        # ECONNREFUSED
start_sup
"$H" srs "$T/nope.params" --expect-code 2 || fail "key not found"    # ENOENT
head -c 5000 "$KEY" > "$T/short.params"
"$H" srs "$T/short.params" --expect-code 74 || fail "truncated key"  # EBADMSG
"$H" prove "$KEY" "$ROWS" "$PUB" 1 --aux-off -1 --expect-code 22 || fail "aux size mismatch"
"$H" prove "$KEY" "$ROWS" "$PUB" 9 --expect-code 7 || fail "too many partitions"   # E2BIG (max_parts 8)
"$H" prove "$KEY" "$ROWS" "$PUB" 2 --bad-witness || fail "unsatisfied partition"
# and the pipeline still proves afterwards
"$H" prove "$KEY" "$ROWS" "$PUB" 1 || fail "good call after the errors"
# a key for another circuit: sizes disagree
"$H" keygen "$T/other.params" 900 "$PUB" >/dev/null || fail keygen
ROWS2=$ROWS
"$H" prove "$T/other.params" 900 "$PUB" 1 >/dev/null || fail "other key proves its own circuit"
wait_until 60 no_busy_slots || fail "slots still held"
log "PASS"
