#!/usr/bin/env bash
# Issue 33 item 4: whole PoRep-shaped proofs through rust/supraseal-c2's split API on a GPU host (figures:
# bench/RESULTS.md). A supervisor (one gpud, backend cuda, 2 slots), a PoRep-shaped development .params at
# 2^LOG (setup on the GPU), one template partition written by `ss_cmp dump`, then
# rust/supraseal-c2/examples/porep_stream: synthesis beside the proving writes each partition's assignment
# (fresh buffers; SYNTH_WORKERS partitions at once (default 1), each by SYNTH_THREADS threads (default: the CPUs
# / workers) at RATE_GBS GB/s (0 = memcpy speed), SYNTH_QUEUE (default 0) waiting; bellperson's own pace:
# SYNTH_WORKERS=2 SYNTH_THREADS=1 RATE_GBS=0.41, one thread ~39 s a partition, what a 128 GiB host
# has room for at 2^27: porep_stream holds the template + (workers + queue + 1) partitions, 16 GB each) while the
# previous ones are proved, start_groth16_proof per partition (buffers dropped at once), a finisher
# thread calls finish_groth16_proof. PROOFS proofs of PARTS partitions: wall time a proof, steady
# proofs per hour, porep_stream's peak RSS, the host's peak used memory and the card's peak memory
# (nvidia-smi every 0.5 s), every proof pairing-checked (ss_cmp verify).
# SSC2=lib.so: then the same driver, key and template on supraseal-c2 (built beside the project, as for
# tests/cuda/run-ssc2-cmp.sh), the supervisor stopped so it has the card to itself: porep_stream again, its
# libzkpipe-supraseal.so.0 replaced by bench/supraseal/ssc2_shim.c's (SSC2_SHIM: its directory; default ../shim
# beside the library, as scripts/gpu-bundles.sh packs it), with --hold --queue 0; the same figures, every proof
# verified.
# Compare with cuzk's published figures: 32.1 s a proof alone, 37.7 s steady (RTX 5070 Ti, 96-core Zen 4).
# KEY=path: the key file to use, made there (and kept, with path.spec naming its SPEC) when absent or made for another
# SPEC (the synth spec; default the PoRep-shaped n=ROWS,pub=328,win=256,gen=1): a later run on the same host skips the
# key's setup (137 s at 2^27 on an H100).
#   GPU_MEMORY=15000M: zkpipe's gpud plans as if its card had that much ([group] gpu_memory; supraseal-c2 has the
#   whole card); the steady rate at a cap.
#   DRIVE_OPTS: more porep_stream options for zkpipe's run (e.g. --hold, to hold buffers as the supraseal-c2 run must).
#   usage: [LOG=27] [PROOFS=3] [PARTS=10] [RATE_GBS=0] [SYNTH_WORKERS=1] [SYNTH_QUEUE=0] [SYNTH_THREADS=nproc/workers] [BACKEND=cuda] [SSC2=] [SSC2_SHIM=]
#          bench/supraseal/crate_porep.sh BIN_DIR DRIVE
#   BIN_DIR: zkpipe-supervisor, zkpipe-gpud, zkpipe-synthd, zkpipe, ss_cmp, libzkpipe-supraseal.so.0
#            (scripts/gpu-bin.sh DIR tools/zkpipe tests/supraseal/ss_cmp supraseal/libzkpipe-supraseal.so.0.1.0)
#   DRIVE:   porep_stream built on a host with cargo: ZKPIPE_SUPRASEAL_LIB_DIR=build/supraseal
#            cargo build --release --offline --example porep_stream --manifest-path rust/supraseal-c2/Cargo.toml
# Host memory at 2^27: the template partition (~16 GB) + one being synthesized + one in start's copy (+ SYNTH_QUEUE
# waiting) + the arena's 2 slots (~32 GB) + the key region (~40 GB): ~120 GB, which is why the queue defaults to 0
# here (the run in bench/RESULTS.md with one waiting peaked at 82.4 GiB RSS beside them); LOG=26 halves it.
# supraseal-c2's run: its SRS in pinned memory (~40 GB) + the template + one synthesized + two held (--hold).
# BACKEND=cpu LOG=12: a dry run of the script without a GPU.
set -u
: "${1:?usage: crate_porep.sh BIN_DIR DRIVE}" "${2:?usage: crate_porep.sh BIN_DIR DRIVE}"
BIN=$(readlink -f "$1"); DRIVE=$(readlink -f "$2")
SW=${SYNTH_WORKERS:-1}; STH=${SYNTH_THREADS:-$(( $(nproc) / SW > 0 ? $(nproc) / SW : 1 ))}; LOG=${LOG:-27}; PROOFS=${PROOFS:-3}; PARTS=${PARTS:-10}; RATE=${RATE_GBS:-0}; BACKEND=${BACKEND:-cuda}
PUB=328; ROWS=$(( (1 << LOG) - PUB - 1 )); SPEC=${SPEC:-n=$ROWS,pub=$PUB,win=256,gen=1}   # the PoRep-shaped dev key of bench/RESULTS.md's 2^27 runs
export LD_LIBRARY_PATH="$BIN:$BIN/lib:${LD_LIBRARY_PATH:-}"
D=$(mktemp -d "${TMPDIR:-/tmp}/zpcrate.XXXXXX"); SUP=; MON=
trap '[ -n "$MON" ] && kill $MON 2>/dev/null; [ -n "$SUP" ] && kill -TERM $SUP 2>/dev/null; wait 2>/dev/null; rm -rf "$D"' EXIT
fail() { echo "FAIL: $*"; tail -20 "$D"/run/log/* 2>/dev/null; exit 1; }
. "$(dirname "$0")/../../tests/cuda/gpu-host.sh"   # ss_slot_mb, ss_config
slot=$(ss_slot_mb "$LOG")
ss_config "$D" "$BIN" "$BACKEND" 2 "$slot" 16 "${GPU_MEMORY:-}" || fail "config"
setup_flag=--gpu; [ "$BACKEND" = cpu ] && setup_flag=--cpu
t=$(date +%s.%N); K=${KEY:-$D/k.params}
if [ -n "${KEY:-}" ] && [ -s "$KEY" ] && [ "$(cat "$KEY.spec" 2>/dev/null)" = "$SPEC" ]; then
  echo "# key 2^$LOG: $KEY, made by an earlier run for $SPEC"
else
  # the old key and its partitions go first: a .params is written beside the one it replaces (2 x 38 GiB at 2^27)
  rm -rf "$K" "$K.spec" "$(dirname "$K")/dump"
  "$BIN/zkpipe" setup $setup_flag --synth "$SPEC" --h-mode coeff --roots 7 --out "$K" >"$D/setup.log" 2>&1 ||
    { cat "$D/setup.log"; fail "setup"; }
  echo "$SPEC" > "$K.spec"
  echo "# key 2^$LOG: $(du -h "$K" | cut -f1) in $(python3 -c "print(round($(date +%s.%N)-$t,1))") s"
fi
# the template partition: the one an earlier tests/cuda/run-ssc2-cmp.sh (KEYS=) dumped beside the key for this SPEC
# (the same seeds), else dumped here (16 GB at 2^27: the device's disk holds the key and one dump)
P=$D
if [ -n "${KEY:-}" ] && [ "$(cat "$(dirname "$KEY")/dump/case" 2>/dev/null)" = "$SPEC k=1" ]; then
  P=$(dirname "$KEY")/dump; echo "# template partition: $P, dumped by an earlier run"
else
  "$BIN/ss_cmp" dump "$SPEC" 1 "$D" --seed 1 --rs-seed 1 || fail "ss_cmp dump"
fi
"$BIN/zkpipe-supervisor" --config "$D/z.ini" >"$D/sup.log" 2>&1 & SUP=$!
for _ in $(seq 600); do "$BIN/zkpipe" status --config "$D/z.ini" 2>/dev/null | grep -q "key idle: ready" && break; sleep 0.2; done
# peaks: the card's used memory, the host's used memory, since mon_start (in $D/peaks)
mon_start() {
  [ -n "$MON" ] && kill $MON 2>/dev/null; echo "0 0" > "$D/peaks"
  ( gpu=0; host=0
    while :; do
      g=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -1); g=${g:-0}
      h=$(awk '/MemTotal/ {t=$2} /MemAvailable/ {a=$2} END {print int((t-a)/1024)}' /proc/meminfo)
      [ "$g" -gt "$gpu" ] && gpu=$g; [ "$h" -gt "$host" ] && host=$h
      echo "$gpu $host" > "$D/peaks"; sleep 0.5
    done ) & MON=$!
}
# every proof of FILE against the template's public inputs, read from its dump (no circuit or witness built again:
# a minute at 2^27); prints the count verified, fails naming the first that does not
verify_all() {
  local n=$(( PROOFS * PARTS )) i m
  [ "$(stat -c %s "$1" 2>/dev/null)" = $(( n * 384 )) ] || fail "$1: not $n proofs of 384 bytes"
  for i in $(seq 0 64 $((n - 1))); do
    m=$(( n - i < 64 ? n - i : 64 ))
    dd if="$1" of="$D/some.bin" bs=384 skip="$i" count="$m" status=none || fail "$1: cannot read"
    "$BIN/ss_cmp" verify "$K" "$SPEC" "$m" "$D/some.bin" --dump "$P" >"$D/verify.out" 2>&1 ||
      { cat "$D/verify.out"; fail "proofs of $1 did not verify (above)"; }
  done
  echo "$n"
}
drive() { # drive OUT [options]: porep_stream over the key and the template, PROOFS proofs of PARTS partitions
  local out=$1; shift
  "$DRIVE" "$K" "$P" "$PROOFS" --parts "$PARTS" --rate-gbs "$RATE" --workers "$SW" --synth-threads "$STH" \
    --out "$D/$out.bin" "$@" | tee "$D/$out.out"
  return "${PIPESTATUS[0]}"
}
mon_start
drive proofs --queue "${SYNTH_QUEUE:-0}" ${DRIVE_OPTS:-} || fail "porep_stream"
read -r gpu_peak host_peak < "$D/peaks"
n=$(verify_all "$D/proofs.bin") || { echo "$n"; exit 1; }
echo "# zkpipe through the crate: $(grep '^result:' "$D/proofs.out"); GPU peak ${gpu_peak} MiB; host used peak ${host_peak} MiB; $n proofs verified"
if [ -n "${SSC2:-}" ]; then
  # supraseal-c2 through the same crate, driver, inputs and card: ssc2_shim.c's libzkpipe-supraseal.so.0 forwards
  # to it. --hold (its b_g2_msm reads the witness after start returns) and no queue, for the host's memory.
  kill -TERM $SUP; wait $SUP 2>/dev/null; SUP=
  SHIM=${SSC2_SHIM:-$(dirname "$(readlink -f "$SSC2")")/../shim}
  [ -f "$SHIM/libzkpipe-supraseal.so.0" ] || fail "no $SHIM/libzkpipe-supraseal.so.0 (scripts/gpu-bundles.sh builds it)"
  mon_start
  LD_LIBRARY_PATH="$SHIM:$LD_LIBRARY_PATH" ZP_SSC2_LIB=$(readlink -f "$SSC2") drive ssc2 --queue 0 --hold ||
    fail "porep_stream on supraseal-c2"
  read -r gpu_peak host_peak < "$D/peaks"
  n=$(verify_all "$D/ssc2.bin") || { echo "$n"; exit 1; }
  echo "# supraseal-c2 ($(basename "$SSC2")) through the crate: $(grep '^result:' "$D/ssc2.out"); GPU peak ${gpu_peak} MiB; host used peak ${host_peak} MiB; $n proofs verified"
fi
echo "# card: $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -1); $(nproc) CPUs; cuzk: 32.1 s a proof alone, 37.7 s steady"
