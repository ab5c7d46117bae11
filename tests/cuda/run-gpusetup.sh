#!/usr/bin/env bash
# The GPU setup on a GPU machine (builds nothing). Usage:
#   tests/cuda/run-gpusetup.sh BIN_DIR
#   BIN_DIR   prebuilt zkpipe and setup_gpu (from a -Dcuda=enabled build: ninja tools/zkpipe
#             tests/cuda/setup_gpu; copy build-gpu/tools/zkpipe and build-gpu/tests/cuda/setup_gpu
#             there); shared libraries in BIN_DIR/lib if any
#   LOG=dir          logs there too (default: a temporary directory)
#   KEY_SIZES="12 14 16"   .zpk byte-compare sizes (log2 of the domain)
#   TIME_GPU="20 22"       setup timings on the GPU (zkpipe setup --gpu, and the device-resident setup)
#   TIME_CPU="20"          setup timings on the CPU (slow: ~1 min per 2^22 on 16 cores)
#   SETUP_BIG=27           also the device-resident setup at 2^27 (stage times; ~76 GB of GPU memory,
#                          ~45 GB of host memory); SETUP_BIG_PROVE=1 then proves with it too
# Prints a PASS/FAIL table and a timing table; exits 1 when any check failed.
set -u
BIN=$(readlink -f "${1:?usage: run-gpusetup.sh BIN_DIR}")
LOG=${LOG:-$(mktemp -d)}
mkdir -p "$LOG"
[ -d "$BIN/lib" ] && export LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}"
ZK=$BIN/zkpipe; SG=$BIN/setup_gpu
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
export -f cmpkey prove_zpk t_setup rows; export ZK W LOG
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

echo; echo "## checks"; printf '%s\n' "${RES[@]}"
echo; echo "## timings"; printf '%s\n' "${TIMES[@]}"
fails=$(printf '%s\n' "${RES[@]}" | grep -c FAIL)
echo "# run-gpusetup: $fails failing check(s); logs in $LOG"
exit $((fails > 0))
