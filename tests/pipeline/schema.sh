#!/usr/bin/env bash
# Requests are validated against a schema (supervisor/jobs.c): a wrong type, an unknown field,
# a control character in a path, a duplicated key, an oversized message — each gets ok: false
# naming the field (an oversized request gets an error reply, not silence), nothing is created
# for it, and the supervisor goes on serving. A witness the service's reader refuses (wrong
# prime, w[0] != 1, wrong count: the checks `zkpipe prove` makes) is refused at submit naming it.
. "$(dirname "$0")/lib.sh" "$@"
RAW=$B/tests/pipeline/api_raw
write_config
start_sup
URL=ipc://$T/run/api.ipc
W=$EX/w0.wtns
# expect_refused FIELD-REGEX JSON-TEXT-OR-@FILE: a reply with ok false whose error names the field
expect_refused() {
  local pat=$1 req=$2
  if [ "${req:0:1}" = @ ]; then cp "${req:1}" "$T/req"; else printf '%s' "$req" > "$T/req"; fi
  "$RAW" "$URL" "$T/req" 60000 > "$T/rep" || fail "no reply to $(head -c 200 "$T/req")" # a dropped request: none
  python3 - "$pat" "$T/rep" <<'PY' || fail "reply to $(head -c 200 "$T/req"): $(cat "$T/rep")"
import json, re, sys
d = json.load(open(sys.argv[2]))
assert d.get("ok") is False, d
assert re.search(sys.argv[1], d["error"]), (sys.argv[1], d["error"])
PY
  log "refused: $(cut -c1-160 "$T/rep")"
}
sub() { printf '{"op":"submit","key":"chain","inputs":["%s"],"output":"%s"%s}' "$W" "$T/out/$1" "${2:-}"; }
expect_refused '"key"' '{"op":"submit","key":7,"inputs":["'"$W"'"],"output":"'"$T/out/a"'"}'
expect_refused '"inputs"' '{"op":"submit","key":"chain","inputs":"'"$W"'","output":"'"$T/out/a"'"}'
expect_refused 'inputs\[0\]' '{"op":"submit","key":"chain","inputs":[5],"output":"'"$T/out/a"'"}'
expect_refused '"output"' '{"op":"submit","key":"chain","inputs":["'"$W"'"],"output":["x"]}'
expect_refused '"output"' '{"op":"submit","key":"chain","inputs":["'"$W"'"]}'
expect_refused '"priority"' "$(sub a ',"priority":"high"')"
expect_refused '"priority"' "$(sub a ',"priority":1.5')"
expect_refused '"token"' "$(sub a ',"token":true')"
expect_refused 'unknown field "colour"' "$(sub a ',"colour":"red"')"
expect_refused 'unknown field "inputs"' '{"op":"status","inputs":[]}'
expect_refused '"job"' '{"op":"cancel"}'
expect_refused '"job"' '{"op":"status","job":"12"}'
expect_refused '"op"' '{"op":3}'
expect_refused '"op"|op' '{"op":"submit","op":"status"}'   # a duplicated key is not a JSON object we take
expect_refused 'output' '{"op":"submit","key":"chain","inputs":["'"$W"'"],"output":"'"$T/out/b\\u0007c"'"}'
expect_refused 'inputs\[0\]' '{"op":"submit","key":"chain","inputs":["'"$EX/w0\\u001b.wtns"'"],"output":"'"$T/out/a"'"}'
expect_refused 'inputs\[1\]' '{"op":"submit","key":"chain","inputs":["'"$W"'","'"$W\\n"'"],"output":"'"$T/out/a"'"}'
# 2 MiB: over the 1 MiB limit, answered (nanomsg alone would drop it and close the connection)
python3 - "$T/big" "$W" "$T/out/a" <<'PY'
import json, sys
json.dump({"op": "submit", "key": "chain", "inputs": [sys.argv[2]] * 4, "output": sys.argv[3],
           "token": "x", "pad": "p" * (2 << 20)}, open(sys.argv[1], "w"))
PY
expect_refused 'request of [0-9]+ bytes' "@$T/big"
[ ! -e "$T/out/a" ] && [ ! -e "$T/out/b" ] || fail "a refused request created an output directory"
[ -z "$(ls "$T/run/in")" ] || fail "a refused request left a manifest: $(ls "$T/run/in")"
# witnesses the prover's reader refuses, refused at submit by the same reader
python3 - "$W" "$T" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
# layout: magic ver nsec | id=1 size=40 | n8 prime[32] n | id=2 size | values
assert b[:4] == b"wtns" and struct.unpack_from("<I", b, 12)[0] == 1
p = bytearray(b); p[24 + 4] ^= 1; open(sys.argv[2] + "/prime.wtns", "wb").write(p)     # prime's low byte
w = bytearray(b); off = 12 + 12 + 40 + 12; w[off] = 2; open(sys.argv[2] + "/w0.wtns", "wb").write(w)  # w[0] = 2
n = struct.unpack_from("<I", b, 24 + 36)[0]
c = bytearray(b); struct.pack_into("<I", c, 24 + 36, n - 1); open(sys.argv[2] + "/count.wtns", "wb").write(c)  # nWitness - 1 vs §2
v = bytearray(b); v[4] = 1; open(sys.argv[2] + "/version.wtns", "wb").write(v)
PY
for f in prime w0 count version; do
  expect_refused "inputs\\[0\\]: .*$f.wtns" '{"op":"submit","key":"chain","inputs":["'"$T/$f.wtns"'"],"output":"'"$T/out/$f"'"}'
done
# still serving: a well-formed submit is proved
id=$("$ZK" submit --config "$CFG" --key chain --output "$T/out/ok" "$W") || fail "valid submit refused"
echo "$id ok 1" >> "$T/ids"
wait_all 60 || { cat "$T/wait.out"; fail "job not DONE"; }
verify_all || fail "proofs"
# public = no: everything owner-only
mode() { stat -c %a "$1"; }
[ "$(mode "$T/run")" = 700 ] && [ "$(mode "$T/run/api.ipc")" = 600 ] || fail "run dir / api.ipc modes"
[ "$(mode "$T/out/ok")" = 700 ] || fail "output dir mode $(mode "$T/out/ok")"
for f in "$T"/out/ok/*.json; do [ "$(mode "$f")" = 600 ] || fail "$f mode $(mode "$f")"; done
echo "PASS: schema (types, unknown and duplicate fields, control characters, 2 MiB request answered), witness checks at submit"
