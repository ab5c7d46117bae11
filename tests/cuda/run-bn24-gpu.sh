#!/usr/bin/env bash
# Issue #20's two GPU items for BN254, in one run on the device machine (builds nothing there):
#   1. cuda/setup.cu's BN254 instance = the CPU: tests/cuda/run-gpusetup.sh with CURVES=bn254 (setup_gpu
#      fb bn254: fixed base G1/G2; setup_gpu bnkey: key bytes at 2^10/14/16 and a CUDA proof with each GPU
#      key; zkpipe setup --gpu = --cpu at 2^14, .zpk and .zkey bytes, CUDA proof = CPU proof, verified)
#   2. the 2^24 chain: bench/groth16/gen_chain.py --prime bn128 16777214 (r1cs 2.75 GB, wtns 0.54 GB),
#      started at once in the background (one core) while 1 runs
#   3. its key made on the GPU: zkpipe setup --gpu --r1cs chain.r1cs --zkey chain.zkey (snarkjs format, as
#      g16_devkey's, which would take ~4-5 min on the host's 16 cores); only when 1 passed
#   4. bench/pipeline/gpu-e2e.sh CIRCUIT=chain:bn128 ROWS=16777214 PARTS=5 JOBS=2 with that key resident in
#      gpud (every proof verified again outside gpud)
#   5. the same with VERBOSE=2 and PARTS=2 JOBS=1: each proof's GPU stages synchronized and timed
# then prints a summary table last (checks, figures, and where the time went). Exit 1 when a check failed.
#
#   tests/cuda/run-bn24-gpu.sh BIN
#   BIN: from DEVICE_LIBS=/work/shared/tools/device-libs GPU_BIN_ONLY=1 scripts/gpu-bin.sh BIN tools/zkpipe
#        tools/zkpipe-shm tests/cuda/setup_gpu  (zkpipe, zkpipe-shm, setup_gpu, the daemons, lib/)
#   env: LOG=dir (default $OUT/bn24 when $OUT is set, else a temporary directory): logs, gpu-e2e's tables
#        and its bench/RESULTS.md rows (RESULTS-bn24.md); WORK=dir for the 2^24 files (default /tmp/bn24;
#        ~19 GB of disk: r1cs, wtns, .zkey 7.9 GB; the .zpk that zkpipe setup also writes is deleted);
#        ROWS=16777214; SKIP="gpusetup e2e verbose": parts to leave out; FORCE=1: go on to 3-5 even if 1 failed
set -u
: "${1:?usage: run-bn24-gpu.sh BIN}"   # in $(...) a failed ${N:?} would only end the subshell
BIN=$(readlink -f "$1")
cd "$(dirname "$0")/../.."
REPO=$PWD
LOG=${LOG:-${OUT:+$OUT/bn24}}; LOG=${LOG:-$(mktemp -d)}; mkdir -p "$LOG"; LOG=$(readlink -f "$LOG")
WORK=${WORK:-/tmp/bn24}; mkdir -p "$WORK/data"; WORK=$(readlink -f "$WORK")
ROWS=${ROWS:-16777214}; SKIP=" ${SKIP:-} "
[ -d "$BIN/lib" ] && export LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}"
Z=$BIN/zkpipe
LG=$(python3 -c "n = $ROWS + 2; print((n - 1).bit_length())")   # the domain: 2^LG >= ROWS + 2 wires
c=$WORK/data/chain-bn128-$ROWS   # the names gpu-e2e.sh looks for in DATA (it makes neither when present)
T0=$(date +%s.%N)
now() { awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $1 }"; }
declare -a SUM TIMES
sum() { SUM+=("| $1 | $2 |"); }
tim() { TIMES+=("| $1 | $2 s | $3 |"); }
fails=0
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null); $(nproc) CPUs; $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); commit $(git rev-parse --short HEAD 2>/dev/null)"

# 2 (background): the circuit, while the GPU checks run
GEN=
if [ -f "$c.r1cs" ] && [ -f "$c.wtns" ]; then echo 0 > "$WORK/gen.rc"; echo "(present)" > "$LOG/gen_chain.log"
else ( tg=$(date +%s.%N)
       python3 bench/groth16/gen_chain.py --prime bn128 "$ROWS" "$c.r1cs.tmp" "$c.wtns.tmp" &&
         mv "$c.r1cs.tmp" "$c.r1cs" && mv "$c.wtns.tmp" "$c.wtns"; rc=$?
       echo "gen_chain: $(now $tg) s wall (exit $rc)"; echo $rc > "$WORK/gen.rc"
     ) >"$LOG/gen_chain.log" 2>&1 &
  GEN=$!
fi

# 1. cuda/setup.cu's BN254 instance against the CPU
ok1=1
case "$SKIP" in *" gpusetup "*) sum "1 BN254 GPU setup = CPU (run-gpusetup.sh CURVES=bn254)" "skipped";; *)
  t=$(date +%s.%N)
  BS=${BN_SIZES:-10 14 16}; BC=${BN_CLI:-14}; want=$(( 1 + $(echo $BS | wc -w) + $(echo $BC | wc -w) ))
  CURVES=bn254 BN_SIZES="$BS" BN_CLI="$BC" LOG="$LOG/gpusetup" tests/cuda/run-gpusetup.sh "$BIN" >"$LOG/gpusetup.log" 2>&1
  rc=$?; e=$(now $t)
  cat "$LOG/gpusetup.log"
  np=$(grep -cE '^(fixed_base|bn254)_.* PASS' "$LOG/gpusetup.log"); nf=$(grep -cE '^(fixed_base|bn254)_.* FAIL' "$LOG/gpusetup.log")
  [ $rc = 0 ] && [ "$nf" = 0 ] && [ "$np" = "$want" ] || { ok1=0; fails=$((fails + 1)); }
  sum "1 BN254 GPU setup = CPU (run-gpusetup.sh CURVES=bn254)" "$([ $ok1 = 1 ] && echo PASS || echo FAIL): $np PASS, $nf FAIL of $want (exit $rc)"
  for lg in $BS; do
    g=$(awk -v k="bn254_setup_gpu_2^$lg" '$1 == k { print $2 }' "$LOG/gpusetup.log"); cc=$(awk -v k="bn254_setup_cpu_2^$lg" '$1 == k { print $2 }' "$LOG/gpusetup.log")
    [ -n "$g" ] && sum "  BN254 key 2^$lg: CPU / GPU setup" "$cc / $g s"
  done
  tim "1 GPU setup checks (fixed base; keys 2^{$BS}; CLI 2^{$BC})" "$e" "GPU + CPU reference setups" ;;
esac
if [ $ok1 = 0 ] && [ "${FORCE:-0}" != 1 ]; then
  echo "run-bn24-gpu: a BN254 GPU setup check failed: no 2^$LG key from the GPU (FORCE=1 goes on)"
  SKIP="$SKIP key e2e verbose "
fi

# wait for 2
t=$(date +%s.%N)
[ -n "$GEN" ] && wait $GEN 2>/dev/null
grc=$(cat "$WORK/gen.rc" 2>/dev/null || echo 1)
cat "$LOG/gen_chain.log"
tim "2 gen_chain.py 2^$LG (in the background from the start; waited for after 1)" "$(now $t)" "$(grep -o 'gen_chain: .*' "$LOG/gen_chain.log" || cat "$LOG/gen_chain.log")"
sum "2 chain 2^$LG r1cs + wtns (gen_chain.py)" "$([ "$grc" = 0 ] && echo ok || echo "FAIL (exit $grc)"): $(grep -o '[0-9.]* s wall' "$LOG/gen_chain.log" || echo present)"
[ "$grc" = 0 ] || { fails=$((fails + 1)); SKIP="$SKIP key e2e verbose "; }

# 3. the 2^24 key on the GPU (snarkjs .zkey; the .zpk zkpipe setup also writes is dropped)
case "$SKIP" in *" key "*) sum "3 zkpipe setup --gpu 2^$LG" "skipped";; *)
  t=$(date +%s.%N)
  if [ -f "$c.zkey" ]; then echo "(present)" > "$LOG/setup24.log"; rc=0
  else "$Z" setup --gpu --r1cs "$c.r1cs" --out "$WORK/chain24.zpk" --zkey "$c.zkey.tmp" >"$LOG/setup24.log" 2>&1 && mv "$c.zkey.tmp" "$c.zkey"
    rc=$?; rm -f "$WORK/chain24.zpk"
  fi
  e=$(now $t)
  grep -v "ETA\|: .*of .*(" "$LOG/setup24.log" | tail -n 6
  st=$(sed -n 's/.*setup \([0-9.]*\) s, write \([0-9.]*\) s (\([0-9.]*\) MiB).*points on the \([A-Z]*\).*/setup \1 s, write .zpk \2 s (\3 MiB), points on the \4/p' "$LOG/setup24.log")
  sg=$(sed -n 's/^zkpipe setup: stages: //p' "$LOG/setup24.log")
  [ $rc = 0 ] || { fails=$((fails + 1)); SKIP="$SKIP e2e verbose "; }
  sum "3 zkpipe setup --gpu 2^$LG (.zkey $( [ -f "$c.zkey" ] && stat -c %s "$c.zkey" | awk '{printf "%.2f GB", $1/1e9}'))" "$([ $rc = 0 ] && echo ok || echo "FAIL (exit $rc: $(tail -n 1 "$LOG/setup24.log"))"): $st; $sg"
  tim "3 zkpipe setup --gpu 2^$LG (circuit from the r1cs, setup, .zpk + .zkey written)" "$e" "$st" ;;
esac

# 4, 5. gpu-e2e with that key
e2e() { # name verbose parts jobs
  local name=$1 t=$(date +%s.%N)
  env $( [ "$2" = 1 ] && echo VERBOSE=2 ) CIRCUIT=chain:bn128 ROWS=$ROWS PARTS=$3 JOBS=$4 DATA="$WORK/data" RUN="$WORK/$name" \
    RESULTS="$LOG/RESULTS-bn24.md" LABEL="BN254 2^$LG, key made by zkpipe setup --gpu$( [ "$2" = 1 ] && echo ", VERBOSE=2")" \
    bench/pipeline/gpu-e2e.sh "$BIN" >"$LOG/$name.log" 2>&1
  local rc=$? e=$(now $t)
  tail -n 30 "$LOG/$name.log"
  mkdir -p "$LOG/$name"; cp "$WORK/$name"/table.md "$WORK/$name"/status.txt "$WORK/$name"/sup.log "$LOG/$name/" 2>/dev/null
  cp "$WORK/$name"/r/log/*gpud* "$WORK/$name"/r/log/*synthd* "$LOG/$name/" 2>/dev/null
  local row=$(grep -m1 '^| [0-9]' "$WORK/$name/table.md" 2>/dev/null)
  local ver=$(echo "$row" | awk -F'|' '{ gsub(/ /, "", $3); print $3 }') gpu=$(echo "$row" | awk -F'|' '{ gsub(/^ +| +$/, "", $7); print $7 }')
  local rate=$(echo "$row" | awk -F'|' '{ gsub(/ /, "", $9); print $9 }') syn=$(echo "$row" | awk -F'|' '{ gsub(/^ +| +$/, "", $4); print $4 }')
  local ready=$(grep -o 'gpuds ready after [0-9.]* s' "$LOG/$name.log")
  [ $rc = 0 ] || fails=$((fails + 1))
  sum "$5" "$([ $rc = 0 ] && echo PASS || echo "FAIL (exit $rc)"): verified outside gpud ${ver:-none}; GPU stage median / max $gpu; synthesis $syn; partitions/s steady $rate; $ready"
  local stages=$(grep -o 'gpud GPU stages of the last proof.*' "$WORK/$name/table.md" 2>/dev/null)
  if [ -n "$stages" ]; then
    sum "  GPU stages, last proof (ms, synchronized)" "$(echo "$stages" | sed 's/^[^:]*: //') = $(echo "$stages" | sed 's/^[^:]*: //' | tr ',' '\n' | awk '{ s += $NF } END { printf "%.1f ms", s }')"
  fi
  tim "$5" "$e" "$ready; key load, $3 x $4 partitions, verification outside gpud"
}
case "$SKIP" in *" e2e "*) sum "4 gpu-e2e 2^$LG PARTS=5 JOBS=2" "skipped";; *) e2e e2e 0 5 2 "4 gpu-e2e 2^$LG PARTS=5 JOBS=2";; esac
case "$SKIP" in *" verbose "*) sum "5 gpu-e2e 2^$LG VERBOSE=2 PARTS=2 JOBS=1" "skipped";; *) e2e e2e-v 1 2 1 "5 gpu-e2e 2^$LG VERBOSE=2 PARTS=2 JOBS=1";; esac
grep -h "key chain\|CUDA backend: .*GiB\|device memory\|ready" "$LOG"/e2e/*gpud* 2>/dev/null | tail -n 8

echo
echo "## where the time went (wall seconds; total $(now $T0) s)"
echo "| step | wall | detail |"
echo "|---|---:|---|"
printf '%s\n' "${TIMES[@]}"
echo
echo "## run-bn24-gpu summary (logs and gpu-e2e's RESULTS rows in $LOG)"
echo "| check / figure | result |"
echo "|---|---|"
printf '%s\n' "${SUM[@]}"
echo "# run-bn24-gpu: $fails failing step(s)"
exit $((fails > 0))
