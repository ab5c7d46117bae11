#!/usr/bin/env bash
# The CUDA backend at scale, checked small (GPU host; builds nothing): chunked MSMs, the 0/1 split,
# the pipeline ops, memory-failure reporting, and gpud with backend = cuda (arena DMA, release after
# copy, gpu + tail threads). Prints a PASS/FAIL table; exit 0 when every row passes.
#
#   tests/cuda/run-gpuscale.sh BIN_DIR
#   BIN_DIR  prebuilt (meson -Dcuda=enabled): g16_backend_cmp, zkpipe, zkpipe-supervisor,
#            zkpipe-synthd, zkpipe-gpud, zkpipe-shm (shared libraries, if any, in BIN_DIR/lib)
#   run from the repository root (examples/chain is used); LOG=dir keeps the logs
#
# Rows 1-8: g16_backend_cmp synth LOG 1 BOOL (bool 1.0: ~99.5% of wires 0/1 — the 328 public inputs are
# not; 0.99: ~98.7%; 0.67: ~75%) — CPU backend vs CUDA backend with fixed r, s (bytes
# equal, both verify), through upload/h/msm, the pipeline ops on every input set and
# zp_g16_prover_prove_abc; ZP_CUDA_MSM_CHUNK=k forces 2^k-entry MSM chunks (so every MSM, and the
# gathered non-0/1 part, runs in many chunks added on the host).
#   tests/cuda/run-gpuscale.sh --pack DIR   (on the build machine, not the GPU host) builds those
#            targets in BUILD (default build; set up with CUDA if new: scripts/cuda-build.sh) and
#            copies them, with their non-glibc shared libraries in DIR/lib, to DIR: a BIN_DIR for the GPU host
set -u
TARGETS="tests/cuda/g16_backend_cmp tools/zkpipe tools/zkpipe-shm supervisor/zkpipe-supervisor synthd/zkpipe-synthd gpud/zkpipe-gpud"
if [ "${1:-}" = --pack ]; then
  D=${2:?usage: run-gpuscale.sh --pack DIR}
  cd "$(dirname "$0")/../.."
  . scripts/cuda-build.sh; cuda_build || exit 1
  ninja -C "$BUILD" $TARGETS >/dev/null || exit 1
  mkdir -p "$D/lib"
  for t in $TARGETS; do
    cp "$BUILD/$t" "$D/"
    ldd "$BUILD/$t" | awk '$3 ~ /^\// { print $3 }' |
      grep -Ev '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libgcc_s|libstdc\+\+)\.so' | xargs -r cp -Ln -t "$D/lib/"
  done
  echo "packed into $D: $(ls "$D" | tr '\n' ' ')"
  exit 0
fi
: "${1:?usage: run-gpuscale.sh BIN_DIR}"   # in $(...) a failed ${N:?} would only end the subshell
BIN=$(readlink -f "$1")
cd "$(dirname "$0")/../.."
SRC=$(pwd)
LOG=${LOG:-$(mktemp -d)}
mkdir -p "$LOG"
[ -d "$BIN/lib" ] && export LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}"
export ZP_CUDA_VERBOSE=1
ROWS=()
row() { # name rc seconds
  local r=PASS; [ "$2" = 0 ] || r=FAIL
  ROWS+=("$(printf '| %-44s | %s | %6.1f s |' "$1" "$r" "$3")")
  echo "## $1: $r (exit $2)"
}
# step NAME TIMEOUT ENV... -- CMD...
step() {
  local name=$1 t=$2; shift 2
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  local s=$(date +%s.%N)
  env "${envs[@]}" timeout "$t" "$@" >"$LOG/$name.log" 2>&1; local rc=$?
  tail -n 12 "$LOG/$name.log"
  row "$name" $rc "$(awk "BEGIN { print $(date +%s.%N) - $s }")"
}
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null); $(nproc) CPUs; memlock $(ulimit -l)"
CMP=$BIN/g16_backend_cmp
step synth16_bits100_chunk2^10        300 ZP_CUDA_MSM_CHUNK=10 -- "$CMP" synth 16 1 1.0
step synth16_bits99_chunk2^10         300 ZP_CUDA_MSM_CHUNK=10 -- "$CMP" synth 16 1 0.99
step synth16_bits75_chunk2^10_dma     300 ZP_CUDA_MSM_CHUNK=10 G16_CMP_REGISTER=1 -- "$CMP" synth 16 1 0.67
step synth17_bits99_chunk2^8_1set     400 ZP_CUDA_MSM_CHUNK=8 ZP_CUDA_BUFS=1 -- "$CMP" synth 17 1 0.99
step synth17_bits75_chunk2^12_2sets   300 ZP_CUDA_MSM_CHUNK=12 ZP_CUDA_BUFS=2 -- "$CMP" synth 17 1 0.67
step synth18_bits100_chunk2^14        400 ZP_CUDA_MSM_CHUNK=14 -- "$CMP" synth 18 1 1.0
step synth18_bits99_chunk2^13_dma     400 ZP_CUDA_MSM_CHUNK=13 G16_CMP_REGISTER=1 -- "$CMP" synth 18 1 0.99
step synth18_bits75_auto_chunk        400 -- "$CMP" synth 18 1 0.67
step chain_zkey_chunk2^8              120 ZP_CUDA_MSM_CHUNK=8 -- "$CMP" zkey examples/chain/chain.zkey examples/chain/w0.wtns

# create() with no room for even the smallest chunk: a clear error naming bytes needed and free
nomem() {
  ZP_CUDA_MEM_MARGIN_MB=1000000 "$CMP" synth 12 1 2>&1 | tee /dev/stderr | grep -q "MSM scratch needs at least"
}
export -f nomem; export CMP
step create_fails_when_scratch_cannot_fit 120 -- bash -c nomem

# gpud with backend = cuda under a supervisor (chain circuit): every proof verifies; the log shows
# the DMA registration (or its fallback) and the input sets
gpud_run() { # MODE: dma | stage
  local mode=$1 T; T=$(mktemp -d /tmp/zpgs.XXXXXX)
  local ARENA=zpgs$(basename "$T" | cut -d. -f2) CFG=$T/zkpipe.ini rc=0
  mkdir -p "$T/out"
  cat > "$CFG" <<INI
[run]
dir = $T/run
bin_dir = $BIN
allow_input = $SRC/examples/chain:$T
allow_output = $T/out
[limits]
max_attempts = 2
orphan_timeout_s = 30
[key chain]
zkey = $SRC/examples/chain/chain.zkey
r1cs = $SRC/examples/chain/chain.r1cs
[group node0]
arena = $ARENA
node = -1
gpus = 1
synth_workers = 2
slots = 3
slot_size = 2M
jobs = 16
max_parts = 8
synth_threads = 1
gpud_threads = 2
backend = cuda
INI
  if [ "$mode" = stage ]; then export ZP_CUDA_NO_REGISTER=1 ZP_CUDA_BUFS=1; else export ZP_CUDA_MSM_CHUNK=8; fi
  "$BIN/zkpipe-supervisor" --config "$CFG" >"$T/supervisor.log" 2>&1 &
  local sup=$!
  for _ in $(seq 100); do "$BIN/zkpipe" status --config "$CFG" >/dev/null 2>&1 && break; sleep 0.1; done
  local ids=() j
  for j in 0 1 2; do
    local ins=() i
    for i in $(seq 0 $((j + 1))); do ins+=("$SRC/examples/chain/w$(((j + i) % 8)).wtns"); done
    ids+=("$("$BIN/zkpipe" submit --config "$CFG" --key chain --output "$T/out/j$j" "${ins[@]}")") || rc=1
  done
  "$BIN/zkpipe" wait --config "$CFG" --timeout 120 "${ids[@]}" || rc=1
  for j in 0 1 2; do
    [ -f "$T/out/j$j/proofs.json" ] || { echo "job j$j: no proofs.json"; rc=1; }
    for p in $(seq 0 $((j + 1))); do
      "$BIN/zkpipe" verify --vk "$SRC/examples/chain/vk.json" --proof "$T/out/j$j/part-$p.proof.json" \
        --public "$T/out/j$j/part-$p.public.json" >/dev/null 2>&1 || { echo "j$j part $p: invalid"; rc=1; }
      grep -q '"backend": "cuda"' "$T/out/j$j/part-$p.gpu.json" 2>/dev/null || { echo "j$j part $p: not cuda"; rc=1; }
    done
  done
  kill -TERM $sup; wait $sup
  echo "--- gpud log"; cat "$T"/run/log/*gpud* 2>/dev/null | tail -n 30
  if [ "$mode" = stage ]; then
    grep -q "cannot register the arena" "$T"/run/log/*gpud* || { echo "no registration-fallback line"; rc=1; }
    grep -q "1 device input set" "$T"/run/log/*gpud* || { echo "ZP_CUDA_BUFS=1 not seen"; rc=1; }
  else
    grep -Eq "arena registered for DMA|cannot register the arena" "$T"/run/log/*gpud* || { echo "no DMA line"; rc=1; }
    grep -q "2 device input set" "$T"/run/log/*gpud* || { echo "no second input set"; rc=1; }
  fi
  grep -q "sticky" "$T"/run/log/*gpud* && { echo "sticky CUDA error"; rc=1; }
  rm -rf "$T"; rm -f /dev/shm/zkpipe."$ARENA"* 2>/dev/null
  return $rc
}
export -f gpud_run; export BIN SRC
step gpud_cuda_dma_2sets_9parts       240 -- bash -c "gpud_run dma"
step gpud_cuda_staged_1set_9parts     240 -- bash -c "gpud_run stage"

echo
echo "| check                                        | result |  time    |"
echo "|----------------------------------------------|--------|----------|"
fails=0
for r in "${ROWS[@]}"; do echo "$r"; case $r in *FAIL*) fails=$((fails + 1));; esac; done
echo "# run-gpuscale: ${#ROWS[@]} checks, $fails failing (logs in $LOG)"
exit $((fails > 0))
