#!/usr/bin/env bash
# Progress of the commands a user waits on, as a log sees them (stderr not a terminal,
# ZKPIPE_PROGRESS_S=0.05): `zkpipe key convert` names its stages (checking the .zkey's points
# with a byte count, writing the .zpk) and ends with "converted, done in"; `zkpipe setup` shows
# its stages with counts and ends with "key written"; stdout stays free of progress; the keys
# made are whole (`zkpipe key info` checks every checksum).
set -u
B=$(cd "$1" && pwd); SRC=$(cd "$2" && pwd); ZK=$B/tools/zkpipe
T=$(mktemp -d /tmp/zpprog.XXXXXX); trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export ZKPIPE_PROGRESS_S=0.05 ZP_THREADS=1
"$ZK" key convert --from "$SRC/examples/chain/chain.zkey" --to "$T/c.zpk" >"$T/conv.out" 2>"$T/conv.err" ||
  { cat "$T/conv.err"; fail "convert"; }
[ ! -s "$T/conv.out" ] || fail "progress on stdout: $(cat "$T/conv.out")"
grep -Eq "^[0-9:.]+ zkpipe key convert\[[0-9]+\]: (checking the points of .*chain.zkey: [0-9.]+ [KM]?i?B of [0-9.]+ KiB|writing .*c.zpk)" "$T/conv.err" ||
  { cat "$T/conv.err"; fail "no stage line"; }
tail -n1 "$T/conv.err" | grep -Eq "zkpipe key convert\[[0-9]+\]: converted, done in [0-9.]+ s$" || { cat "$T/conv.err"; fail "final line"; }
"$ZK" key info "$T/c.zpk" >/dev/null 2>&1 || fail "converted key"
"$ZK" setup --synth n=8192 --out "$T/s.zpk" --toxic-seed 1 >"$T/setup.out" 2>"$T/setup.err" || { cat "$T/setup.err"; fail "setup"; }
[ ! -s "$T/setup.out" ] || fail "progress on stdout"
grep -Eq "zkpipe setup\[[0-9]+\]: setup: (A, B1, B2 points|H points|IC and C points|L_j).*: [0-9]+ of [0-9]+ \([0-9]+ %\)" "$T/setup.err" ||
  { cat "$T/setup.err"; fail "no setup stage with counts"; }
grep -Eq "zkpipe setup\[[0-9]+\]: key written, done in" "$T/setup.err" || { cat "$T/setup.err"; fail "setup's final line"; }
"$ZK" key info "$T/s.zpk" >/dev/null 2>&1 || fail "setup's key"
echo "PASS: key convert and setup progress"
