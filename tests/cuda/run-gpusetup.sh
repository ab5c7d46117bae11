#!/usr/bin/env bash
# The GPU setup on a GPU machine (builds nothing). Usage:
#   tests/cuda/run-gpusetup.sh BIN_DIR
#   BIN_DIR   prebuilt zkpipe and setup_gpu (from a -Dcuda=enabled build: ninja tools/zkpipe
#             tests/cuda/setup_gpu; copy BUILD/tools/zkpipe and BUILD/tests/cuda/setup_gpu
#             there); shared libraries in BIN_DIR/lib if any
#   LOG=dir          logs there too (default: a temporary directory)
#   KEY_SIZES="12 14 16"   .zpk byte-compare sizes (log2 of the domain)
#   TIME_GPU="20 22"       setup timings on the GPU (zkpipe setup --gpu, and the device-resident setup)
#   TIME_CPU="20"          setup timings on the CPU (slow: ~1 min per 2^22 on 16 cores)
#   SETUP_BIG=27           also the device-resident setup at 2^27 (stage times; ~76 GB of GPU memory,
#                          ~45 GB of host memory); SETUP_BIG_PROVE=1 then proves with it too
#   CURVES="bls12-381 bn254"   the curves whose checks run (bn254: python3 for bench/groth16/gen_chain.py)
#   BN_SIZES="10 14 16"    BN254 key byte-compare sizes (log2 of the domain; gen_chain.py's multiplication
#                          chain, 2^lg - 2 constraints): setup_gpu bnkey (the GPU sink against the CPU,
#                          then a CUDA proof with the GPU key); BN_CLI=14: zkpipe setup --gpu = --cpu on the
#                          chain r1cs (.zpk and .zkey bytes), CUDA proof = CPU proof, verified (needs a zkpipe
#                          whose setup accepts --gpu for BN254: it fails where prover/setup.c refuses it)
# Prints a PASS/FAIL table and a timing table; exits 1 when any check failed.
set -u
: "${1:?usage: run-gpusetup.sh BIN_DIR}"   # in $(...) a failed ${N:?} would only end the subshell
BIN=$(readlink -f "$1")
LOG=${LOG:-$(mktemp -d)}
mkdir -p "$LOG"
[ -d "$BIN/lib" ] && export LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}"
ZK=$BIN/zkpipe; SG=$BIN/setup_gpu
REPO=$(cd "$(dirname "$0")/../.." && pwd)
CURVES=" ${CURVES:-bls12-381 bn254} "
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
RES=(); TIMES=()
res() { RES+=("$(printf '%-44s %s' "$1" "$2")"); }
tim() { TIMES+=("$(printf '%-44s %10.2f s' "$1" "$2")"); }
run() { # name timeout cmd...: log, PASS/FAIL row, TIME lines into the timing table
  local name=$1 t=$2; shift 2
  local s=$(date +%s.%N)
  timeout "$t" "$@" >"$LOG/$name.log" 2>&1; local rc=$?
  local e=$(awk "BEGIN { print $(date +%s.%N) - $s }")
  sed 's/^/  /' "$LOG/$name.log" | tail -n 25
  res "$name" "$([ $rc = 0 ] && echo PASS || { [ $rc = 77 ] && echo "FAIL (exit 77: no GPU)" || echo "FAIL (exit $rc)"; }) ($(printf %.1f "$e") s)"
  while read -r _ k v; do tim "$k" "$v"; done < <(grep '^TIME ' "$LOG/$name.log")
  return $rc
}
rows() { echo $(( (1 << $1) - 329 )); }   # synthetic rows that fill a 2^lg domain (328 public inputs)
setup_secs() { sed -n 's/.*, setup \([0-9.]*\) s,.*/\1/p' "$1"; }
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null); $(nproc) CPUs"

# a BN254 chain of domain 2^lg (2^lg - 2 constraints, wires ONE, y, x, s_1..): $W/bn$lg.r1cs, .wtns
bn_chain() { [ -f "$W/bn$1.r1cs" ] || python3 "$REPO/bench/groth16/gen_chain.py" --prime bn128 $(( (1 << $1) - 2 )) "$W/bn$1.r1cs" "$W/bn$1.wtns"; }
# BN254 through the CLI: --gpu and --cpu with the same toxic waste give the same .zpk and .zkey; the GPU
# key's CUDA proof equals the CPU backend's (fixed r, s) and verifies
cmpkey_bn() { # lg
  local r=$W/bn$1.r1cs w=$W/bn$1.wtns
  "$ZK" setup --cpu --r1cs "$r" --toxic-seed 77 --out "$W/bcpu.zpk" --zkey "$W/bcpu.zkey" >"$LOG/bn_zpk_cpu_$1.log" 2>&1 &&
  "$ZK" setup --gpu --r1cs "$r" --toxic-seed 77 --out "$W/bgpu.zpk" --zkey "$W/bgpu.zkey" &&
  cmp "$W/bcpu.zpk" "$W/bgpu.zpk" && cmp "$W/bcpu.zkey" "$W/bgpu.zkey" &&
  echo "BN254 2^$1: identical .zpk ($(stat -c %s "$W/bgpu.zpk") bytes) and .zkey ($(stat -c %s "$W/bgpu.zkey") bytes)" &&
  for b in cpu cuda; do
    "$ZK" prove --zkey "$W/bgpu.zkey" --wtns "$w" --r1cs "$r" --backend $b --r 5 --s 7 --proof "$W/bp-$b.json" --public "$W/bpub.json" || return 1
  done &&
  cmp "$W/bp-cpu.json" "$W/bp-cuda.json" && echo "CUDA proof = CPU proof (r, s fixed)" &&
  "$ZK" verify --zkey "$W/bgpu.zkey" --proof "$W/bp-cuda.json" --public "$W/bpub.json"
}
export -f bn_chain cmpkey_bn; export ZK SG W LOG REPO

if [ -z "${CURVES##* bls12-381 *}" ]; then
# 1. fixed-base kernels == CPU on random scalars (G1, G2; 8- and 13-bit windows; 0, 1, r − 1)
run fixed_base 300 "$SG" fb

# 2. zkpipe setup --gpu and --cpu with the same toxic waste: identical .zpk files
cmpkey() { # lg h-mode
  local spec="n=$(rows $1)"
  "$ZK" setup --cpu --synth "$spec" --h-mode $2 --toxic-seed 77 --out "$W/cpu.zpk" >"$LOG/zpk_cpu_$1_$2.log" 2>&1 &&
  "$ZK" setup --gpu --synth "$spec" --h-mode $2 --toxic-seed 77 --out "$W/gpu.zpk" &&
  cmp "$W/cpu.zpk" "$W/gpu.zpk" && echo "2^$1 $2: identical .zpk files ($(stat -c %s "$W/gpu.zpk") bytes)"
}
# a proof with a GPU-made .zpk (CPU prover, which verifies its proof)
prove_zpk() { # lg
  local spec="n=$(rows $1)"
  "$ZK" setup --gpu --synth "$spec" --out "$W/p.zpk" && "$ZK" synth prove --synth "$spec" --key "$W/p.zpk" --runs 1
}
t_setup() { # cpu|gpu lg
  "$ZK" setup --$1 --synth "n=$(rows $2)" --out "$W/t.zpk"; local rc=$?; rm -f "$W/t.zpk"; return $rc
}
export -f cmpkey prove_zpk t_setup rows
for lg in ${KEY_SIZES-12 14 16}; do
  run "zpk_cmp_2^${lg}_snarkjs" 600 bash -c "cmpkey $lg snarkjs"
  [ "$lg" = 14 ] && run "zpk_cmp_2^${lg}_coeff" 600 bash -c "cmpkey $lg coeff"
done
run proof_gpu_zpk_2^14 300 bash -c "prove_zpk 14"
run key_bytes_and_cuda_proof_2^14 300 "$SG" key 14
run device_key_2^16 300 "$SG" dev 16

# 3. timings
for lg in ${TIME_GPU-20 22}; do
  run "setup_gpu_zpk_2^$lg" 600 bash -c "t_setup gpu $lg" &&
    tim "zkpipe setup --gpu 2^$lg" "$(setup_secs "$LOG/setup_gpu_zpk_2^$lg.log")"
  run "device_setup_2^$lg" 600 "$SG" dev "$lg"
done
for lg in ${TIME_CPU-20}; do
  run "setup_cpu_zpk_2^$lg" 900 bash -c "t_setup cpu $lg" &&
    tim "zkpipe setup --cpu 2^$lg" "$(setup_secs "$LOG/setup_cpu_zpk_2^$lg.log")"
done
if [ -n "${SETUP_BIG:-}" ]; then
  run "device_setup_2^$SETUP_BIG" 1800 "$SG" dev "$SETUP_BIG" $([ "${SETUP_BIG_PROVE:-0}" = 1 ] || echo noprove)
fi
fi   # bls12-381

# 4. BN254: zp_cuda_bn254_fixed_base == CPU (G1, G2; 8- and 13-bit windows), the GPU sink's keys == the CPU's
if [ -z "${CURVES##* bn254 *}" ]; then
run fixed_base_bn254 300 "$SG" fb bn254
for lg in ${BN_SIZES-10 14 16}; do
  run "bn254_key_bytes_and_cuda_proof_2^$lg" 300 bash -c "bn_chain $lg && \"$SG\" bnkey \"$W/bn$lg.r1cs\" \"$W/bn$lg.wtns\""
done
for lg in ${BN_CLI-14}; do
  run "bn254_zkpipe_setup_gpu_2^$lg" 300 bash -c "bn_chain $lg && cmpkey_bn $lg"
done
fi

echo; echo "## checks"; printf '%s\n' "${RES[@]}"
echo; echo "## timings"; printf '%s\n' "${TIMES[@]}"
fails=$(printf '%s\n' "${RES[@]}" | grep -c FAIL)
echo "# run-gpusetup: $fails failing check(s); logs in $LOG"
exit $((fails > 0))
