#!/usr/bin/env bash
# A submit and its idempotency token become durable together: the supervisor is SIGKILLed
# ([debug] crash_at) after the manifest is written but before the arena record, and after the
# arena record but before tokens/<token>. In both cases the client's own request (nanomsg REQ
# re-sends it) is answered by the restarted supervisor, a re-submit with the token gets the same
# job, exactly one job exists, and it ends DONE with valid proofs. A submit without --token too:
# `zkpipe submit` makes one, so its re-sent request is the same job for the restarted supervisor (a
# token the supervisor drew per copy made the re-sent copy a refusal: "output ... in use").
. "$(dirname "$0")/lib.sh" "$@"
KEEP_ARENA=yes

crash_case() { # crash_case POINT TOKEN NAME
  local point=$1 tok=$2 name=$3
  EXTRA=$'[debug]\ncrash_at = '"$point"
  write_config
  start_sup
  local before; before=$(counter jobs_submitted)
  # the client's request: it is re-sent every second until a supervisor answers (timeout 10 s)
  "$ZK" submit --config "$CFG" --key chain ${tok:+--token "$tok"} --output "$T/out/$name" "$EX/w1.wtns" "$EX/w2.wtns" \
    >"$T/$name.ack" 2>"$T/$name.err" &
  local cli=$!
  wait_until 60 dead "$SUP_PID" || fail "$point: the supervisor did not crash"
  wait "$SUP_PID" 2>/dev/null; SUP_PID=
  grep -q "crash_at = $point" "$T/supervisor.log" || fail "$point: not killed at the point"
  log "$point: supervisor SIGKILLed; restarting without the hook"
  EXTRA=
  write_config
  start_sup
  wait "$cli" || fail "$point: the client's submit was not answered: $(cat "$T/$name.err")"
  local a b; a=$(cat "$T/$name.ack")
  if [ -n "$tok" ]; then
    b=$("$ZK" submit --config "$CFG" --key chain --token "$tok" --output "$T/out/$name" "$EX/w1.wtns" "$EX/w2.wtns") ||
      fail "$point: re-submit"
    [ -n "$a" ] && [ "$a" = "$b" ] || fail "$point: ack '$a', re-submit '$b': two jobs or a lost acknowledgement"
    [ "$(cat "$T/run/tokens/$tok")" = "$a" ] || fail "$point: tokens/$tok is not durable"
  else
    [ -n "$a" ] || fail "$point: no acknowledgement"
    grep -rqx "$a" "$T/run/tokens" || fail "$point: no token of the client's names job $a"
  fi
  [ "$(counter jobs_submitted)" = $((before + 1)) ] || fail "$point: $(counter jobs_submitted) jobs after $before"
  echo "$a $name 2" >> "$T/ids"
  "$ZK" wait --config "$CFG" --timeout 60 "$a" >/dev/null || fail "$point: job $a did not finish DONE"
  kill -TERM "$SUP_PID"; wait "$SUP_PID"; SUP_PID=
}

crash_case submit-after-manifest tok-m m
# the orphan manifest a crash before the arena record leaves is not kept
crash_case submit-before-token tok-t t
crash_case submit-before-token "" n
verify_all || fail "proofs"
[ -z "$(ls "$T/run/in")" ] || fail "manifests left: $(ls "$T/run/in")"
n=$(ls "$T/run/results" | wc -l)
[ "$n" = 3 ] || fail "$n job records for three submits"
echo "PASS: crash between manifest/arena/token: one job per token (the client's own when none given), acknowledgement kept"
