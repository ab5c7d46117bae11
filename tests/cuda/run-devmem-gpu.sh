#!/usr/bin/env bash
# The device-memory plan's placements on a GPU (issue 32): every placement the plan can choose proves
# the CPU backend's bytes. Works on an H100 80 GB (and anything from 8 GB: the fixtures are small).
#   [ONLY=GLOB] tests/cuda/run-devmem-gpu.sh BIN_DIR   (scripts/gpu-bin.sh BIN_DIR tests/cuda/plan_test: g16_backend_cmp,
#                                             zkpipe, plan_test, lib/)
# Steps, each CUDA = CPU bytes (g16_backend_cmp) in several staged ranges (ZP_CUDA_KEY_STAGE small):
#   stream1    the full input set, every array streamed                (ZP_CUDA_KEY_STREAM=1)
#   lean       the lean set (a, b on the device, w and c from host), every array streamed (=2)
#   lean_part  the lean set, A, B2 and H resident                       (=2, ZP_CUDA_KEY_RES=21)
#   full_part  the full set, B1 and C resident                          (=1, ZP_CUDA_KEY_RES=10)
# on chain (BLS12-381, snarkjs H), chain-bn254 (BN254), mul, and synth 18 (bellperson's coefficient H);
# then a compact .params key (g16_backend_cmp params: the CUDA compact table's proofs = the CPU density
# ops' bytes, several proofs on one state, bad input refused) resident, with split bases (2^20), every
# array streamed, partly resident both ways, under a cap, from registered memory, and at 25 % non-0/1
# witnesses; with the lean set (its scalars
# gathered on the host: the floor for 16 GB cards) streamed and partly resident, at 1 % and 25 %;
# then `zkpipe prove` under a 64 MiB cap: refused in one sentence naming the cap; plan_test live (the
# recorded kernel sizes are current). Prints a table last.
set -u
: "${1:?usage: run-devmem-gpu.sh BIN_DIR}"   # in $(...) a failed ${N:?} would only end the subshell
BIN=$(readlink -f "$1")
cd "$(dirname "$0")/../.."
[ -d "$BIN/lib" ] && export LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}"
LOG=${LOG:-$(mktemp -d)}; mkdir -p "$LOG"
D=$(mktemp -d)
cp examples/chain/chain.zkey "$D/"; cp examples/chain/w0.wtns "$D/chain.wtns"
cp examples/chain-bn254/chain.zkey "$D/bn.zkey"; cp examples/chain-bn254/w0.wtns "$D/bn.wtns"
cp tests/groth16/data/mul.zkey tests/groth16/data/mul.wtns "$D/"
rows=""; fails=0
step() { # name timeout cmd...
  local name=$1 t=$2; shift 2
  case $name in ${ONLY:-*}) ;; *) return 0;; esac   # ONLY=GLOB: the steps whose names match (e.g. 'params_*')
  local s=$(date +%s.%N)
  timeout "$t" "$@" >"$LOG/$name.log" 2>&1; local rc=$?
  # a lean step proves with the lean set, or it proves nothing about it
  case $name in *lean*) [ $rc = 0 ] && ! grep -q "lean (a, b on the device" "$LOG/$name.log" && { echo "not lean"; rc=99; };; esac
  local dt=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $s }")
  tail -n 4 "$LOG/$name.log"
  echo "## $name: exit $rc ($dt s)"
  [ $rc = 0 ] || fails=$((fails + 1))
  rows="$rows| $name | $([ $rc = 0 ] && echo PASS || echo "FAIL ($rc)") | $dt s | $(grep -m1 -o 'resident \[[^]]*\], streamed from host memory \[[^]]*\]; [a-z]*' "$LOG/$name.log" | head -1) |\n"
}
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null); $(nproc) CPUs"
declare -A ENVS=( [stream1]="ZP_CUDA_KEY_STREAM=1" [lean]="ZP_CUDA_KEY_STREAM=2" [lean_part]="ZP_CUDA_KEY_STREAM=2 ZP_CUDA_KEY_RES=21"
                  [full_part]="ZP_CUDA_KEY_STREAM=1 ZP_CUDA_KEY_RES=10" )
for m in stream1 lean lean_part full_part; do
  for f in chain bn mul; do
    step "${m}_$f" 120 env ${ENVS[$m]} ZP_CUDA_KEY_STAGE=8 ZP_CUDA_VERBOSE=1 "$BIN/g16_backend_cmp" zkey "$D/$f.zkey" "$D/$f.wtns"
  done
  step "${m}_synth18" 300 env ${ENVS[$m]} ZP_CUDA_KEY_STAGE=14 ZP_CUDA_VERBOSE=1 "$BIN/g16_backend_cmp" synth 18 1
done
# compact .params keys through the one prover (issue 32 item 4)
P="$BIN/g16_backend_cmp params"
step params_res18 300 env ZP_CUDA_VERBOSE=1 $P 18 3
step params_split20 600 env ZP_CUDA_VERBOSE=1 $P 20 3
step params_split20_b75 600 env ZP_CUDA_VERBOSE=1 $P 20 2 0.75
step params_wsplit18 300 env ZP_CUDA_SPLIT=1 ZP_CUDA_VERBOSE=1 $P 18 2
step params_stream1 300 env ZP_CUDA_KEY_STREAM=1 ZP_CUDA_KEY_STAGE=12 ZP_CUDA_VERBOSE=1 $P 18 2
step params_lean18 300 env ZP_CUDA_KEY_STREAM=2 ZP_CUDA_KEY_STAGE=12 ZP_CUDA_VERBOSE=1 $P 18 2
step params_lean18_b75 300 env ZP_CUDA_KEY_STREAM=2 ZP_CUDA_KEY_STAGE=12 ZP_CUDA_VERBOSE=1 $P 18 2 0.75
step params_lean_part 300 env ZP_CUDA_KEY_STREAM=2 ZP_CUDA_KEY_RES=21 ZP_CUDA_KEY_STAGE=12 ZP_CUDA_VERBOSE=1 $P 18 2
step params_lean20 600 env ZP_CUDA_KEY_STREAM=2 ZP_CUDA_VERBOSE=1 $P 20 2
step params_part21 300 env ZP_CUDA_KEY_STREAM=1 ZP_CUDA_KEY_RES=21 ZP_CUDA_KEY_STAGE=12 ZP_CUDA_VERBOSE=1 $P 18 2
step params_part10 300 env ZP_CUDA_KEY_STREAM=1 ZP_CUDA_KEY_RES=10 ZP_CUDA_KEY_STAGE=12 ZP_CUDA_VERBOSE=1 $P 18 2
step params_cap20 600 env ZP_CUDA_MEM_CAP_MB=${CAP20:-3000} ZP_CUDA_VERBOSE=1 $P 20 2
step params_reg 300 env G16_CMP_REGISTER=1 ZP_CUDA_VERBOSE=2 $P 18 2
# the plan's own choice at 2^20 under a cap that forces streaming on any card: the same bytes
step cap_synth20 300 env ZP_CUDA_MEM_CAP_MB=${CAP20:-3000} ZP_CUDA_VERBOSE=1 "$BIN/g16_backend_cmp" synth 20 1
# a cap below the floor: one sentence, not "ready"
capref() {
  local o; o=$(ZP_CUDA_MEM_CAP_MB=64 "$BIN/zkpipe" prove --backend cuda --zkey "$D/chain.zkey" --wtns "$D/chain.wtns" \
    --proof "$D/p.json" --public "$D/pub.json" 2>&1); local rc=$?
  echo "$o"; echo "exit $rc"
  [ $rc != 0 ] && echo "$o" | grep -q "memory cap" && [ "$(echo "$o" | grep -c 'CUDA backend')" -le 1 ]
}
export -f capref; export BIN D
step cap_refused 60 bash -c capref
[ -x "$BIN/plan_test" ] && step plan_live 120 "$BIN/plan_test" live tests/cuda/plan_sizes.txt
echo
echo "| step | result | time | placement (ZP_CUDA_VERBOSE) |"
echo "|---|---|---:|---|"
printf "$rows"
echo "# run-devmem-gpu: $fails failing step(s)"
exit $((fails > 0))
