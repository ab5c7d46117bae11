#!/usr/bin/env bash
# The CUDA prover backend on a GPU machine: proofs with fixed r, s from both backends must be the
# same bytes and verify; then timings at a synthetic size. Usage (on the GPU host):
#   tests/cuda/run-g16-gpu.sh [BIN_DIR] [DATA_DIR]
#   BIN_DIR   prebuilt zkpipe and g16_backend_cmp, shared libraries in BIN_DIR/lib (default: built here
#             with nvcc in BUILD, default build/, set up with CUDA if new: scripts/cuda-build.sh)
#   DATA_DIR  chain.{zkey,wtns}, mul.{zkey,wtns}, poseidon.{zkey,wtns} (default: the repo's examples/chain,
#             tests/groth16/data and BUILD/oracle-fixtures/poseidon)
#   LOG=dir   logs there too; SYNTH="18 20" the synthetic sizes (log2), SYNTH_RUNS=2
set -u
BIN=${1:+$(readlink -f "$1")}; DATA=${2:+$(readlink -f "$2")}
[ -n "$BIN" ] || cd "$(dirname "$0")/../.."
if [ -z "$BIN" ]; then
  . scripts/cuda-build.sh; cuda_build || exit 1
  ninja -C "$BUILD" tools/zkpipe tests/cuda/g16_backend_cmp >/dev/null || exit 1
  mkdir -p "$BUILD/g16bin"; cp "$BUILD/tools/zkpipe" "$BUILD/tests/cuda/g16_backend_cmp" "$BUILD/g16bin/"
  BIN=$(readlink -f "$BUILD/g16bin")
fi
if [ -z "$DATA" ]; then
  DATA=$(mktemp -d)
  cp examples/chain/chain.zkey "$DATA/"; cp examples/chain/w0.wtns "$DATA/chain.wtns"
  cp tests/groth16/data/mul.zkey tests/groth16/data/mul.wtns "$DATA/"
  cp "${BUILD:-build}"/oracle-fixtures/poseidon/poseidon.{zkey,wtns} "$DATA/" 2>/dev/null || true
fi
LOG=${LOG:-$(mktemp -d)}; mkdir -p "$LOG"
[ -d "$BIN/lib" ] && export LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}"
fails=0
step() { # name timeout cmd...
  local name=$1 t=$2; shift 2
  local s=$(date +%s.%N)
  timeout "$t" "$@" >"$LOG/$name.log" 2>&1; local rc=$?
  cat "$LOG/$name.log"
  printf '## %s: exit %d (%.1f s)\n' "$name" "$rc" "$(awk "BEGIN { print $(date +%s.%N) - $s }")"
  [ $rc = 0 ] || fails=$((fails + 1))
}
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null); $(nproc) CPUs"
# 1. the CLI: zkpipe prove --backend cpu|cuda with --r/--s; the proof files must be identical
cli() {
  local o=$(mktemp -d) b rc=0
  for b in cpu cuda; do
    "$BIN/zkpipe" prove --zkey "$DATA/chain.zkey" --wtns "$DATA/chain.wtns" --proof "$o/$b.proof.json" \
      --public "$o/$b.public.json" --backend $b --r 123456789 --s 987654321987654321987654321 || rc=1
  done
  cmp "$o/cpu.proof.json" "$o/cuda.proof.json" && echo "chain: zkpipe prove proof.json cpu == cuda" || rc=1
  "$BIN/zkpipe" verify --zkey "$DATA/chain.zkey" --proof "$o/cuda.proof.json" --public "$o/cuda.public.json" || rc=1
  return $rc
}
export -f cli; export BIN DATA
step cli_chain 60 bash -c cli
# 2. the ops table on every fixture, both H conventions
for f in chain mul poseidon; do
  [ -f "$DATA/$f.zkey" ] || { echo "## $f: no fixture, skipped"; continue; }
  step "cmp_$f" 60 "$BIN/g16_backend_cmp" zkey "$DATA/$f.zkey" "$DATA/$f.wtns"
done
# 3. synthetic PoRep-shaped circuits with a dev key made here
for lg in ${SYNTH:-18 20}; do
  step "synth_$lg" ${SYNTH_TIMEOUT:-100} "$BIN/g16_backend_cmp" synth "$lg" "${SYNTH_RUNS:-2}"
done
# 4. the key streamed from host memory (as when it does not fit on the GPU), in several staged ranges:
#    the same proof bytes as the CPU backend
for f in poseidon; do
  [ -f "$DATA/$f.zkey" ] || continue
  step "cmp_${f}_keystream" 60 env ZP_CUDA_KEY_STREAM=1 ZP_CUDA_KEY_STAGE=8 ZP_CUDA_VERBOSE=1 \
    "$BIN/g16_backend_cmp" zkey "$DATA/$f.zkey" "$DATA/$f.wtns"
done
step synth_18_keystream ${SYNTH_TIMEOUT:-100} env ZP_CUDA_KEY_STREAM=1 ZP_CUDA_KEY_STAGE=16 ZP_CUDA_VERBOSE=1 \
  "$BIN/g16_backend_cmp" synth 18 1
echo "# run-g16-gpu: $fails failing step(s)"
exit $((fails > 0))
