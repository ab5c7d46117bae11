#!/usr/bin/env bash
# Another local user whom the service's socket denies is told so at once (issue 31, smaller item):
# a second local user, made and removed by this test, runs `zkpipe status` and `zkpipe submit`
# against an owner-only service (public = no: the run directory 0700). Before, the client waited
# its whole timeout (10 s) and said "no reply"; now it says "permission denied", names the socket,
# and does not wait. The service's own user is still answered.
. "$(dirname "$0")/lib.sh" "$@"
[ "$(id -u)" = 0 ] || skip "needs root to make a second local user"
command -v useradd >/dev/null && command -v setpriv >/dev/null || skip "useradd/setpriv unavailable"
U=zpd$$
useradd -M -r -s /usr/sbin/nologin "$U" 2>/dev/null || skip "cannot make a local user"
trap 'cleanup; userdel "$U" 2>/dev/null' EXIT
id "$U" >/dev/null || fail "user $U not made"
write_config
start_sup
chmod 711 "$T"; chmod 644 "$CFG"; OZK=$(other_user_zk) || fail "copy of the client"
AS=(setpriv --reuid="$(id -u "$U")" --regid="$(id -g "$U")" --clear-groups)
"${AS[@]}" "$OZK" status --config "$CFG" >"$T/o.out" 2>&1; rc=$?
log "another user's status: exit $rc: $(cat "$T/o.out")"
[ $rc != 0 ] || fail "another user's status succeeded on an owner-only service"
grep -q "api.ipc: permission denied" "$T/o.out" || fail "another user's status: $(cat "$T/o.out")"
grep -q "no reply" "$T/o.out" && fail "another user's status waited for a reply: $(cat "$T/o.out")"
"${AS[@]}" "$OZK" submit --config "$CFG" --key chain --output "$T/out/x" "$EX/w0.wtns" >"$T/s.out" 2>&1 &&
  fail "another user's submit succeeded"
grep -q "permission denied" "$T/s.out" || fail "another user's submit: $(cat "$T/s.out")"
"$ZK" status --config "$CFG" >/dev/null || fail "the service's own user is not answered"
echo "PASS: another local user ($U) is told 'permission denied' by name, without waiting; the owner is answered"
