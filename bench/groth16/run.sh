#!/usr/bin/env bash
# zkpipe prove next to snarkjs groth16 prove on the same zkey and witness, appended to
# bench/RESULTS.md.      bench/groth16/run.sh [log2-domain ...]      (default: 16)
#
# Per size k: a chain circuit with 2^k − 2 multiplication constraints (domain 2^k: one public
# output + the ONE row), compiled by circom2 --prime bls12381 (from 2^20: written by gen_chain.py,
# the same constraints and witness, since circom2 takes over half an hour there), and a key:
#   ZP_BENCH_KEYS=devkey (default): g16_devkey (bench/groth16/devkey.c) — a snarkjs-format key from
#       seeded toxic waste, seconds to make at any size; insecure, fine for timing.
#   ZP_BENCH_KEYS=ptau: the snarkjs route (powers of tau new/contribute/prepare phase2, groth16
#       setup) — prepare phase2 in JavaScript takes ~30 min at 2^16 on 2 cores and hours beyond.
# Everything is cached under build-bench/k<k>/ and reused. Then: zkpipe bench prove (key loaded
# once, best of 3, each proof with its pairing self-check), the whole zkpipe prove command (best
# of 2) and snarkjs groth16 prove (whole command, best of 2); zkpipe's proof must pass
# snarkjs groth16 verify.
set -euo pipefail
cd "$(dirname "$0")/../.."
sizes=("${@:-16}")
bash scripts/build.sh
zk=build/tools/zkpipe
ox=tests/oracle
[ -x $ox/node_modules/.bin/snarkjs ] || (cd $ox && npm ci --no-audit --no-fund)
sj=$ox/node_modules/.bin/snarkjs
out=build-bench; mkdir -p $out
best() { sort -n | head -1; }
# "wall cpu" seconds of a command (cpu = user + sys, children included)
secs() { /usr/bin/time -f "%e %U %S" -o $out/time.txt "$@" >/dev/null 2>&1; awk '{printf "%s %.2f\n", $1, $2 + $3}' $out/time.txt; }
rows=""
for k in ${sizes[@]}; do
  d=$out/k$k; mkdir -p $d
  n=$(( (1 << k) - 2 ))
  ptau=$d/pot$k.ptau
  keys=${ZP_BENCH_KEYS:-devkey}
  if [ $keys = ptau ] && [ ! -f $ptau ]; then
    $sj powersoftau new bls12381 $k $d/p0.ptau >/dev/null
    $sj powersoftau contribute $d/p0.ptau $d/p1.ptau -e="zkpipe bench $k" >/dev/null
    $sj powersoftau prepare phase2 $d/p1.ptau $ptau.tmp >/dev/null && mv $ptau.tmp $ptau
    rm -f $d/p0.ptau $d/p1.ptau
  fi
  if [ ! -f $d/chain.wtns ] && [ $k -ge 20 ]; then
    # circom2 (WebAssembly) needs over half an hour for this size on 2 cores: write the same
    # constraints and witness directly (gen_chain.py; the g16_gen_chain test checks it against circom2)
    python3 bench/groth16/gen_chain.py $n $d/chain.r1cs $d/chain.wtns
  elif [ ! -f $d/chain.wtns ]; then
    sed "s/@N@/$n/" $ox/circuits/chain.circom.in > $d/chain.circom
    $ox/node_modules/.bin/circom2 $d/chain.circom --r1cs --wasm --prime bls12381 -o $d >/dev/null
    node $d/chain_js/generate_witness.js $d/chain_js/chain.wasm $ox/circuits/chain.input.json $d/chain.wtns
  fi
  if [ ! -f $d/chain.$keys.zkey ]; then
    if [ $keys = ptau ]; then
      $sj groth16 setup $d/chain.r1cs $ptau $d/chain.zkey.tmp >/dev/null
    else
      build/bench/groth16/g16_devkey $d/chain.r1cs $d/chain.zkey.tmp $k
    fi
    mv $d/chain.zkey.tmp $d/chain.$keys.zkey
  fi
  ln -sf chain.$keys.zkey $d/chain.zkey
  $sj zkey export verificationkey $d/chain.zkey $d/vk.json >/dev/null
  zruns=3; cruns=2; [ $k -ge 20 ] && { zruns=1; cruns=1; }   # minutes per run there
  zlog=$($zk bench prove --zkey $d/chain.zkey --wtns $d/chain.wtns --runs $zruns)
  echo "$zlog"
  zbest=$(echo "$zlog" | awk '/^best:/ {print $2}')
  zbcpu=$(echo "$zlog" | awk '/^best:/ {print $5}')
  $zk prove --zkey $d/chain.zkey --wtns $d/chain.wtns --proof $d/zp_proof.json --public $d/zp_public.json --quiet
  $sj groth16 verify $d/vk.json $d/zp_public.json $d/zp_proof.json | grep -q "OK" ||
    { echo "snarkjs rejected zkpipe's proof at 2^$k" >&2; exit 1; }
  z=$(for i in $(seq $cruns); do secs $zk prove --zkey $d/chain.zkey --wtns $d/chain.wtns --proof $d/zp_proof.json --public $d/zp_public.json; done | best)
  s=$(for i in $(seq $cruns); do secs $sj groth16 prove $d/chain.zkey $d/chain.wtns $d/sj_proof.json $d/sj_public.json; done | best)
  zw=${z% *}; zc=${z#* }; sw=${s% *}; sc=${s#* }
  rw=$(echo "scale=1; $sw / $zw" | bc); rc=$(echo "scale=1; $sc / $zc" | bc)
  echo "2^$k: zkpipe prove ${zbest}s (cpu ${zbcpu}s); command ${zw}s (cpu ${zc}s); snarkjs ${sw}s (cpu ${sc}s); ${rw}x wall, ${rc}x cpu"
  rows="$rows| 2^$k | $n | $zbest / $zbcpu | $zw / $zc | $sw / $sc | ${rw}× | ${rc}× |
"
done
cpu=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
{
  echo
  echo "## Groth16 prove: zkpipe (CPU backend) vs snarkjs 0.7.6 ($(date -u '+%Y-%m-%d %H:%M') UTC)"
  echo
  echo "Machine: $(uname -srm); $cpu; $(nproc) CPUs; $(free -g | awk '/Mem:/ {print $2}') GiB; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "Command: \`bench/groth16/run.sh ${sizes[*]}\` — per size: \`zkpipe bench prove --zkey chain.zkey --wtns chain.wtns --runs 3\`"
  echo "(best of 3; each proof includes a, b, c, H, the MSMs, blinding and the pairing self-check; key and witness"
  echo "loaded once), the whole \`zkpipe prove\` command (load + prove + write, best of 2) and \`snarkjs groth16 prove chain.zkey"
  echo "chain.wtns proof.json public.json\` (whole command, best of 2). From 2^20 everything runs once."
  echo "Circuit: chain of 2^k − 2 multiplications (circom2 --prime bls12381 below 2^20; bench/groth16/gen_chain.py from 2^20, same constraints); key: ${ZP_BENCH_KEYS:-devkey}; zkpipe's proof checked by snarkjs groth16 verify."
  echo
  echo "Times are wall / CPU seconds (CPU = user + sys of all threads). On a shared machine the CPU-time ratio is the"
  echo "steadier figure; wall times depend on what else runs (see the load average)."
  echo
  echo "| domain | constraints | zkpipe prove (s) | zkpipe command (s) | snarkjs command (s) | speed-up, wall (command) | speed-up, CPU (command) |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  printf "%s" "$rows"
} >> bench/RESULTS.md
tail -12 bench/RESULTS.md
