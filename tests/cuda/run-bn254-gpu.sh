#!/usr/bin/env bash
# BN254 on the GPU, in one run on the device machine (builds nothing there):
#   1. bn254_gpu_test test: BN254 field, point, NTT, MSM (G1, G2, 0/1 paths, split) = CPU bit for bit
#   2. gpu_test: BLS12-381's checks, unchanged (the kernels are now templates: non-regression)
#   3. g16_backend_cmp zkey: whole proofs, CUDA backend = CPU backend (same r, s: same bytes, verified), for
#      BN254 circom keys (DATA/mul, DATA/poseidon: tests/oracle/fixtures.sh --prime bn128) and BLS12-381's
#      examples/chain, each with the backend's default plan, forced small chunks (ZP_CUDA_MSM_CHUNK=8), the
#      key streamed from host memory (ZP_CUDA_KEY_STREAM=1) and split MSMs (ZP_CUDA_SPLIT=1); synth 16
#   4. bn254_gpu_test bench: MSM G1 2^20/2^24/2^26, G2 2^24, NTT 2^24/2^27 (median of 7, CUDA events);
#      gpu_bench (BLS12-381) g1:24 g2:24 ntt:24 beside it, to compare with bench/RESULTS.md's earlier rows
# then prints a summary table last. Usage:
#   tests/cuda/run-bn254-gpu.sh [BIN_DIR [DATA]]  BIN_DIR: bn254_gpu_test, gpu_test, optionally gpu_bench and
#                                            g16_backend_cmp (default build/tests/cuda + build/bench/cuda);
#                                            DATA: {mul,poseidon}.{zkey,wtns} of bn128 (default gpudata)
#   TEST_ARGS="20 20 22"  bn254_gpu_test's max_log G1, G2, NTT;  BLS_ARGS="18 16 20"  gpu_test's
#   PARTS="..."           the parts, in order (default: test bls proofs bench bls-bench); also bench-ab: the
#                         bench cases g1-20 g1-24 g2-24 of BIN/inl/bn254_gpu_test (a ZP_BN_FP_INLINE=1 build) and of
#                         the default one, alternately, in one run. PROOF_T: seconds a proof comparison may take (30)
#   SKIP="bench ..."      parts to leave out;  LOG=dir  logs there too
set -u
cd "$(dirname "$0")/../.."
BIN=${1:-}; DATA=${2:-gpudata}
pick() { # name: the binary from BIN, else the build tree
  if [ -n "$BIN" ]; then [ -x "$BIN/$1" ] && echo "$BIN/$1"; return; fi
  for d in build/tests/cuda build/bench/cuda; do [ -x "$d/$1" ] && { echo "$d/$1"; return; }; done
}
[ -n "$BIN" ] && [ -d "$BIN/lib" ] && export LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}"   # libxxhash, liburing
T=$(pick bn254_gpu_test); G=$(pick gpu_test); B=$(pick gpu_bench); C=$(pick g16_backend_cmp)
LOG=${LOG:-$(mktemp -d)}; mkdir -p "$LOG"
SKIP=" ${SKIP:-} "
declare -a SUM
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null); $(nproc) CPUs; commit $(git rev-parse --short HEAD 2>/dev/null)"
part() { # name timeout cmd...: run, show, record "name | exit | seconds | checks"
  local name=$1 t=$2; shift 2
  case "$SKIP" in *" $name "*) SUM+=("| $name | skipped | | |"); return;; esac
  if [ -z "$1" ]; then SUM+=("| $name | not built | | |"); return; fi
  local s=$(date +%s)
  if declare -F "$1" >/dev/null; then "$@" >"$LOG/$name.log" 2>&1; else timeout "$t" "$@" >"$LOG/$name.log" 2>&1; fi
  local rc=$?
  cat "$LOG/$name.log"
  local pass=$(grep -c '| PASS |' "$LOG/$name.log") fail=$(grep -c '| FAIL |' "$LOG/$name.log")
  SUM+=("| $name | exit $rc | $(( $(date +%s) - s )) s | $pass PASS, $fail FAIL |")
}
proofs() { # every key under every plan variant; exit 1 if any comparison failed
  local rc=0 e k
  for e in "" ZP_CUDA_MSM_CHUNK=8 ZP_CUDA_KEY_STREAM=1 ZP_CUDA_SPLIT=1; do
    for k in "$DATA/mul" "$DATA/poseidon" examples/chain/chain:examples/chain/w0; do
      local z=${k%%:*} w=${k#*:}; [ "$w" = "$k" ] && w=$z
      [ -f "$z.zkey" ] || { echo "| $z.zkey missing | FAIL |"; rc=1; continue; }
      echo "## ${e:-default plan}: $z"
      env $e timeout "${PROOF_T:-30}" "$C" zkey "$z.zkey" "$w.wtns" || { echo "| exit $? | FAIL |"; rc=1; }
    done
  done
  [ -n "${NO_SYNTH:-}" ] || timeout 120 "$C" synth 16 2 || rc=1
  return $rc
}
bench_ab() { # the inline-Fp build against the default one, same cases, alternately
  local c rc=0
  for c in g1-20 g1-24 g2-24; do
    echo "## default (ZP_BN_FP_INLINE=0) $c"; timeout 40 "$T" bench "$c" || rc=1
    echo "## inline (ZP_BN_FP_INLINE=1) $c"; timeout 40 "$BIN/inl/bn254_gpu_test" bench "$c" || rc=1
  done
  return $rc
}
for p in ${PARTS:-test bls proofs bench bls-bench}; do
  case $p in
  test) part test 900 $T test ${TEST_ARGS:-20 20 22};;
  bls) part bls 900 $G ${BLS_ARGS:-18 16 20};;
  proofs) part proofs 600 ${C:+proofs};;
  bench) part bench 900 $T bench;;
  bls-bench) [ -n "$B" ] && part bls-bench 600 $B g1:24 g2:24 ntt:24;;
  bench-ab) [ -x "$BIN/inl/bn254_gpu_test" ] && part bench-ab 300 bench_ab;;
  esac
done
echo
echo "## summary (logs in $LOG)"
echo "| part | result | time | checks |"
echo "|---|---|---|---|"
printf '%s\n' "${SUM[@]}"
echo
grep -h '^| \(MSM\|NTT\|BN254 bench\)' "$LOG/bench.log" 2>/dev/null
grep -h '^## \|^| MSM' "$LOG/bench-ab.log" 2>/dev/null
grep -h '^|' "$LOG/bls-bench.log" 2>/dev/null | head -8
