#!/usr/bin/env bash
# Several registered .params on one card that holds one at a time (docs/filecoin.md §6): PoRep C2 and then
# WindowPoSt on one gpud, where the second key's create is refused for device memory. gpud gives the
# least recently used key's device state back ("parked": still loaded, its key region kept), loads the
# new one, and takes the parked one up again — from its region, the file not read again — at its next
# call, parking the other. Every call proves (each proof verified by the harness), alternating several
# times; no key is decoded from its file twice. The card's refusal is [debug] inject = one-srs-card on the
# CPU backend: a registered key's create fails with ENOMEM while another registered key holds its state,
# as a 2^27 key's plan leaves a real card (bench/RESULTS.md).
. "$(dirname "$0")/common.sh" "$@"

EXTRA="[debug]
inject = one-srs-card" write_config
export ZKPIPE_CONFIG=$CFG
GLOG=$T/run/log/node0.gpud0
POST=$T/post.params; PROWS=700; PPUB=9
start_sup; make_key
"$H" keygen "$POST" "$PROWS" "$PPUB" >/dev/null || fail "keygen $POST"
porep() { "$H" prove "$KEY" "$ROWS" "$PUB" 2 > "$T/p.out" 2>&1 || { cat "$T/p.out"; dump; fail "$1: the PoRep-shaped call failed"; }; }
post() { "$H" prove "$POST" "$PROWS" "$PPUB" 1 > "$T/p.out" 2>&1 || { cat "$T/p.out"; dump; fail "$1: the PoSt-shaped call failed"; }; }
count() { grep -c "$1" "$GLOG" 2>/dev/null; }

porep "first PoRep call"
[ "$(count 'given back')" = 0 ] || { dump; fail "a key was parked with one key loaded"; }
post "first PoSt call"          # the PoRep key is parked to make room
[ "$(count 'its device state given back .* to make room for')" = 1 ] || { dump; fail "the PoRep key was not parked for the PoSt key"; }
grep -q "another key holds the card" "$GLOG" || { dump; fail "gpud did not log the refusal it parked for"; }
# the status says which key is parked (the PoRep key, the least recently used)
parked() { status_json | jget "[p.get('parked') for p in d['processes'] if p['role']=='gpud'][0]"; }
parked_is() { [ "$(parked)" = "['$1']" ]; }
first_id=$(grep -o "srs ss:[0-9a-f]*: .*porep.params decoded" "$GLOG" | grep -o "ss:[0-9a-f]*")
wait_until 30 parked_is "$first_id" || { status_json; fail "status: parked $(parked), want ['$first_id']"; }
"$ZK" status --config "$CFG" | grep -q "(parked for another key's room, taken up again at their next call: $first_id)" ||
  { "$ZK" status --config "$CFG"; fail "zkpipe status does not say the PoRep key is parked"; }
porep "second PoRep call"       # taken up again, the PoSt key parked
post "second PoSt call"
porep "third PoRep call"
[ "$(count 'its device state given back')" = 4 ] || { dump; fail "parkings: $(count 'its device state given back'), want 4"; }
[ "$(count 'taken up again in .* (from its region)')" = 3 ] || { dump; fail "keys taken up again: $(count 'taken up again'), want 3"; }
[ "$(count 'decoded and checked into region')" = 2 ] || { dump; fail "the keys were decoded $(count 'decoded and checked into region') times (want once each)"; }
grep -q "FAILED at load" "$GLOG" && { dump; fail "a key failed at load"; }
wait_until 60 no_busy_slots || fail "slots still held after the calls"
log "5 calls alternating two keys on a one-key card: 4 parkings, 3 take-ups, each file decoded once"
log "PASS"
