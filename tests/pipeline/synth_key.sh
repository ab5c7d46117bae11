#!/usr/bin/env bash
# Synthetic-circuit keys in the pipeline (CPU backend): a key made by `zkpipe setup --synth`
# (.zpk, loaded by gpud as zkpipe's own key file) proves synth:<seed> partitions and every proof
# verifies against the key; a setup = device key under backend = cpu fails to load with a clear
# reason, and its partitions fail with it while the other key keeps working.
. "$(dirname "$0")/lib.sh" "$@"
SPEC="synth:n=3000,pub=4,seed=3"
"$ZK" setup --cpu --synth "$SPEC" --out "$T/syn.zpk" --zkey "$T/syn.zkey" --threads 1 >"$T/setup.log" 2>&1 ||
  { cat "$T/setup.log"; fail "zkpipe setup"; }
EXTRA_KEYS="[key syn]
synth = $SPEC
zkey = $T/syn.zpk
[key dev]
synth = $SPEC
setup = device"
# the daemons wait at the [debug] hold_at = start gate, before any key loads: both jobs are submitted
# while the keys are still "loading in gpud", whatever the machine's speed (else gpud may have
# failed the dev key before its submit, which is then refused: the case checked further down)
EXTRA=$'[debug]\nhold_at = start'
write_config
start_sup
id=$("$ZK" submit --config "$CFG" --key syn --output "$T/out/s" synth:1 synth:2 synth:77) || fail "submit syn"
echo "$id s 3" >> "$T/ids"
d=$("$ZK" submit --config "$CFG" --key dev --output "$T/out/d" synth:5) || fail "submit dev"
hold_open
wait_all 300 || { cat "$T/wait.out"; fail "the syn job did not finish DONE"; }
for p in 0 1 2; do
  "$ZK" verify --zkey "$T/syn.zkey" --proof "$T/out/s/part-$p.proof.json" --public "$T/out/s/part-$p.public.json" \
    >/dev/null 2>&1 || fail "part $p: the proof does not verify against the key"
  "$ZK" verify --vk "$T/run/keys/syn.vk.json" --proof "$T/out/s/part-$p.proof.json" \
    --public "$T/out/s/part-$p.public.json" >/dev/null 2>&1 || fail "part $p: not valid under gpud's keys/syn.vk.json"
done
[ -f "$T/out/s/proofs.json" ] || fail "no proofs.json"
# distinct witnesses give distinct public inputs... and proofs
cmp -s "$T/out/s/part-0.proof.json" "$T/out/s/part-1.proof.json" && fail "two partitions, one proof"
grep -q "key syn: .*INSECURE development key" "$T"/run/log/*gpud* || fail "gpud did not log the .zpk key"
"$ZK" wait --config "$CFG" --timeout 300 "$d" > "$T/d.out"; rc=$?
# the job cannot finish: FAILED by gpud (11), or its key seen failed first (13); either way with the reason
[ $rc = 11 ] || [ $rc = 13 ] || fail "the setup = device job under backend = cpu: wait exited $rc: $(cat "$T/d.out")"
grep -q "backend = cuda" "$T/d.out" || fail "reason: $(cat "$T/d.out")"
# the key is reported failed, and a new submit for it is refused with the reason (exit 13)
# (the key's own state, not one gpud's: the supervisor folds the gpuds' health files into it every 0.5 s)
key_failed() { "$ZK" status --config "$CFG" --json | python3 -c 'import json,sys
sys.exit(0 if any(k["name"] == "dev" and k["state"] == "failed" for k in json.load(sys.stdin)["keys"]) else 1)'; }
wait_until 60 key_failed || fail "key dev not reported failed"
"$ZK" submit --config "$CFG" --key dev --output "$T/out/d2" synth:6 >"$T/d2.out" 2>&1; rc=$?
[ $rc = 13 ] || fail "submit for the failed key dev exited $rc: $(cat "$T/d2.out"); status: $("$ZK" status --config "$CFG" --json)"
grep -q "backend = cuda" "$T/d2.out" || fail "refusal without the reason: $(cat "$T/d2.out")"
[ ! -d "$T/out/d2" ] || fail "a refused submit created its output directory"
grep -q "key dev: setup = device .*backend = cuda" "$T"/run/log/*gpud* || fail "gpud log has no reason for key dev"
echo "PASS: 3 synth partitions proved with a .zpk key and verified; setup = device on cpu fails clearly"
