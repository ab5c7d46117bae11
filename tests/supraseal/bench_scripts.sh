#!/usr/bin/env bash
# The GPU host's scripts for issues 32, 33 and 35, dry-run on the CPU backend from a folder laid out as
# scripts/gpu-bin.sh's (a lent GPU's minutes go to measuring, not to a script that broke since the last one):
#  1. tests/cuda/run-ssc2-cmp.sh without a peer: the CPU-pinned case (both witnesses; zkpipe's bytes must be the
#     pin) and 2^12 at two caps, keeping the key and the partitions in KEYS; run again, both are reused and give
#     the same proof bytes;
#  2. bench/supraseal/crate_porep.sh: 2 proofs of 10 partitions through the crate's driver (porep_stream, built
#     offline), on the key and template partition run 1 left, every proof verified;
#  3. bench/gpu/key-sharing.sh: two registered keys on a card that holds one (gpud's parking), A B A B A.
. "$(dirname "$0")/common.sh" "$@"
write_config   # (the arena's name, for the cleanup; the scripts run their own supervisors)
BIN=$T/gpubin; mkdir -p "$BIN"
for f in tools/zkpipe supervisor/zkpipe-supervisor gpud/zkpipe-gpud synthd/zkpipe-synthd tests/supraseal/ss_cmp; do
  ln -s "$B/$f" "$BIN/" || fail "no $B/$f"
done
ln -s "$LIB" "$BIN/libzkpipe-supraseal.so.0"
cargo_setup
cp -r "$SRC/rust/supraseal-c2" "$T/crate"
CARGO_HOME=$T/cargo-home CARGO_TARGET_DIR=$T/target ZKPIPE_SUPRASEAL_LIB_DIR=$(dirname "$LIB") \
  "$CARGO" build --offline --example porep_stream --manifest-path "$T/crate/Cargo.toml" >"$T/cargo.log" 2>&1 ||
  { cat "$T/cargo.log"; fail "cargo build --example porep_stream"; }
export TMPDIR=$T   # the scripts' own temporary folders, removed with the test's

# --- 1. run-ssc2-cmp.sh, twice
cmp_run() { # cmp_run N
  KEYS=$T/keys OUT=$T/o$1 RESULTS=$T/results.md BACKEND=cpu SIZES=12 MIXES=0.99 CAPS="- 15000M" REPS=1 PARTS=1 \
    bash "$SRC/tests/cuda/run-ssc2-cmp.sh" "$BIN" - >"$T/cmp$1.log" 2>&1 || { tail -30 "$T/cmp$1.log"; fail "run-ssc2-cmp.sh run $1"; }
}
mkdir -p "$T/keys"; : > "$T/results.md"   # (the script appends to a RESULTS file that exists)
cmp_run 1
[ "$(grep -c '^| 2^12 (CI case) .*= CPU pin (zkpipe rc 0' "$T/cmp1.log")" = 4 ] ||
  { grep '^|' "$T/cmp1.log"; fail "the pinned case: 4 rows (2 witnesses x 2 caps) with the CPU pin's bytes"; }
rows() { grep '^| 2^12 | 0.99 ' "$1" | sed 's/.*proofs sha256 \([0-9a-f]*\)).*/\1/'; }
[ "$(rows "$T/cmp1.log" | sort -u | wc -l)" = 1 ] && [ "$(rows "$T/cmp1.log" | wc -l)" = 2 ] ||
  { grep '^|' "$T/cmp1.log"; fail "2^12: two rows (the caps) with the same proof bytes"; }
# zkpipe's side, a line a cap as it ended (a device call cut by its budget keeps these): rc 0, the rows' bytes
zk=$(grep '^## zk | 2^12 | 0.99 | cap ' "$T/cmp1.log")
[ "$(echo "$zk" | grep -c '| rc 0 | proofs sha256 [0-9a-f]\{12\} | call ms [0-9.]* / [0-9.]* | GPU ms [0-9.]')" = 2 ] &&
  [ "$(echo "$zk" | sed 's/.*proofs sha256 \([0-9a-f]*\) .*/\1/' | sort -u)" = "$(rows "$T/cmp1.log" | sort -u | cut -c1-12)" ] ||
  { grep '^## zk' "$T/cmp1.log"; fail "2^12: a '## zk' line a cap, rc 0, the rows' bytes"; }
cmp_run 2
grep -q "key $T/keys/k.params, made by an earlier run" "$T/cmp2.log" || fail "run 2 made the key again"
grep -q "partitions $T/keys/dump, dumped by an earlier run" "$T/cmp2.log" || fail "run 2 dumped the partitions again"
[ "$(rows "$T/cmp2.log" | sort -u)" = "$(rows "$T/cmp1.log" | sort -u)" ] || fail "run 2's proof bytes differ from run 1's"
grep -q "^## Byte-identical to supraseal-c2" "$T/results.md" || fail "no table appended to RESULTS"
log "run-ssc2-cmp.sh: the pin matched at both caps; run 2 reused the key and the partitions, same bytes"

# --- 2. crate_porep.sh on run 1's key and partitions
BACKEND=cpu LOG=12 PROOFS=2 KEY=$T/keys/k.params SPEC="n=3767,pub=328,bool=0.99" \
  bash "$SRC/bench/supraseal/crate_porep.sh" "$BIN" "$T/target/debug/examples/porep_stream" >"$T/crate.log" 2>&1 ||
  { tail -30 "$T/crate.log"; fail "crate_porep.sh"; }
grep -q "template partition: $T/keys/dump, dumped by an earlier run" "$T/crate.log" || fail "crate_porep.sh did not reuse the partition"
grep -q "^# zkpipe through the crate: result: proofs 2 parts 10 .* 20 proofs verified" "$T/crate.log" ||
  { cat "$T/crate.log"; fail "crate_porep.sh: 20 proofs verified"; }
# --- 3. key-sharing.sh: two keys on a one-key card (the CPU backend's stand-in refusal), A B A B A
BACKEND=cpu SIZE=12 bash "$SRC/bench/gpu/key-sharing.sh" "$BIN" >"$T/share.log" 2>&1 || { tail -30 "$T/share.log"; fail "key-sharing.sh"; }
[ "$(grep -c '^## share | call [1-5] | key [AB] | call ms [0-9.]* | take-up ms ' "$T/share.log")" = 5 ] &&
  grep -q "^4 parkings, 3 take-ups; each key's proofs the same bytes" "$T/share.log" ||
  { cat "$T/share.log"; fail "key-sharing.sh: 5 calls, 4 parkings, 3 take-ups"; }
log "PASS: run-ssc2-cmp.sh, crate_porep.sh and key-sharing.sh dry-run on the CPU backend"
