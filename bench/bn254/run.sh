#!/usr/bin/env bash
# BN254 Groth16 on the CPU, side by side in one run: `zkpipe prove` vs `snarkjs groth16 prove` vs
# rapidsnark's prover, on the same zkey and witness, with the same threads; a table appended to
# bench/RESULTS.md (date, machine, command, commit).
#
#   bench/bn254/run.sh RAPIDSNARK_PROVER [log2-domain ...]        (default: 16)
#
# RAPIDSNARK_PROVER is iden3 rapidsnark's `prover` binary, built beside the project from its public
# source (never part of this repository). Per size k: a Poseidon chain (bench/bn254/poseidon_chain.circom.in,
# h_{i+1} = Poseidon(h_i, x): as many hashes as fill a domain of 2^k) compiled by circom2 --prime bn128,
# its witness from circom's WebAssembly generator, and a snarkjs-format development key from
# bench/groth16/devkey.c (seeded toxic waste, INSECURE, fine for timing; snarkjs's own ceremony takes
# hours past 2^16 here). Everything is cached under build-bench/bn254-k<k>/.
# Threads: ZP_THREADS for zkpipe, OMP_NUM_THREADS for rapidsnark, both = THREADS (default: nproc);
# snarkjs uses one worker per CPU. Each command is timed whole (load + prove + write), best of 2
# (once from 2^20), each after the zkey and witness were read into the page cache; every proof must pass
# `snarkjs groth16 verify`, and the three public.json must be byte-equal.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] && [ -x "$1" ] || { echo "usage: bench/bn254/run.sh RAPIDSNARK_PROVER [log2-domain ...]" >&2; exit 2; }
rs=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); shift
sizes=("${@:-16}")
threads=${THREADS:-$(nproc)}
bash scripts/build.sh
zk=$PWD/build/tools/zkpipe
ox=$PWD/tests/oracle
[ -x $ox/node_modules/.bin/snarkjs ] || (cd $ox && npm ci --no-audit --no-fund)
sj=$ox/node_modules/.bin/snarkjs
out=$PWD/build-bench; mkdir -p $out
best() { sort -n | head -1; }
# "wall cpu" seconds of a command (cpu = user + sys, children included)
secs() { /usr/bin/time -f "%e %U %S" -o $out/time.txt "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; return 1; }
         awk '{printf "%s %.2f\n", $1, $2 + $3}' $out/time.txt; }
ratio() { echo "scale=2; $1 / $2" | bc; }
verify() { $sj groth16 verify $d/vk.json $d/$1_public.json $d/$1_proof.json | grep -q OK ||
             { echo "snarkjs rejects $1's proof at 2^$k" >&2; exit 1; }; }
per_hash=517   # circom2 0.2.23's constraints for circomlib's Poseidon(2) (checked below)
rows=""
for k in ${sizes[@]}; do
  d=$out/bn254-k$k; mkdir -p $d
  n=$(( ((1 << k) - 2) / per_hash ))
  if [ ! -f $d/pc.wtns ]; then
    sed "s/@N@/$n/" bench/bn254/poseidon_chain.circom.in > $d/pc.circom
    # circom2 runs as WASI: the include path resolves against the working directory
    (cd $ox && node_modules/.bin/circom2 $d/pc.circom --r1cs --wasm --prime bn128 -l node_modules -o $d >/dev/null)
    echo '{"x":"7"}' > $d/input.json
    node $d/pc_js/generate_witness.js $d/pc_js/pc.wasm $d/input.json $d/pc.wtns
  fi
  m=$(python3 -c 'import struct,sys
b=open(sys.argv[1],"rb").read(); o=12
while True:
    t,s=struct.unpack_from("<IQ",b,o)
    if t==1: print(struct.unpack_from("<I",b,o+12+4+32+16+8)[0]); break
    o+=12+s' $d/pc.r1cs)
  [ $((m + 2)) -le $((1 << k)) ] && [ $((m + 2)) -gt $((1 << (k - 1))) ] ||
    { echo "2^$k: $m constraints do not fill the domain (Poseidon(2) is no longer $per_hash constraints?)" >&2; exit 1; }
  if [ ! -f $d/pc.zkey ]; then
    build/bench/groth16/g16_devkey $d/pc.r1cs $d/pc.zkey.tmp >/dev/null
    mv $d/pc.zkey.tmp $d/pc.zkey
  fi
  [ -f $d/vk.json ] || $sj zkey export verificationkey $d/pc.zkey $d/vk.json >/dev/null
  runs=2; [ $k -ge 20 ] && runs=1
  # before each timed command the inputs are read into the page cache, so that no prover's time includes
  # the disk (this machine's page cache does not keep a 450 MB zkey between runs)
  warm() { cat $d/pc.zkey $d/pc.wtns > /dev/null; }
  z=$(for i in $(seq $runs); do warm; ZP_THREADS=$threads secs $zk prove --zkey $d/pc.zkey --wtns $d/pc.wtns \
        --proof $d/zkpipe_proof.json --public $d/zkpipe_public.json; done | best)
  r=$(for i in $(seq $runs); do warm; OMP_NUM_THREADS=$threads secs $rs $d/pc.zkey $d/pc.wtns \
        $d/rapidsnark_proof.json $d/rapidsnark_public.json; done | best)
  s=$(for i in $(seq $runs); do warm; secs $sj groth16 prove $d/pc.zkey $d/pc.wtns $d/snarkjs_proof.json \
        $d/snarkjs_public.json; done | best)
  for p in zkpipe rapidsnark snarkjs; do verify $p; done
  python3 -c 'import json,sys; v=[json.load(open(f)) for f in sys.argv[1:]]; sys.exit(v[0]!=v[1] or v[0]!=v[2])' \
    $d/zkpipe_public.json $d/rapidsnark_public.json $d/snarkjs_public.json ||
    { echo "2^$k: the provers' public signals differ" >&2; exit 1; }
  cmp -s $d/zkpipe_public.json $d/snarkjs_public.json || { echo "2^$k: zkpipe's public.json is not snarkjs's bytes" >&2; exit 1; }
  zw=${z% *}; zc=${z#* }; rw=${r% *}; rc=${r#* }; sw=${s% *}; sc=${s#* }
  line="| 2^$k | $m | $zw / $zc | $rw / $rc | $sw / $sc | $(ratio $rw $zw)× / $(ratio $rc $zc)× | $(ratio $sw $zw)× / $(ratio $sc $zc)× | $(ratio $sw $rw)× |"
  echo "$line"
  rows="$rows$line
"
done
cpu=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!bench/RESULTS.md' || echo "+uncommitted")
{
  echo
  echo "## BN254 Groth16 prove on the CPU: zkpipe vs rapidsnark vs snarkjs 0.7.6 ($(date -u '+%Y-%m-%d %H:%M') UTC)"
  echo
  echo "Machine: $(uname -srm); $cpu; $(nproc) CPUs; $(free -g | awk '/Mem:/ {print $2}') GiB; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "Command: \`bench/bn254/run.sh $rs ${sizes[*]}\` at commit $commit, $threads threads each (ZP_THREADS, OMP_NUM_THREADS;"
  echo "snarkjs: one worker per CPU). Per size, on one zkey and one witness: \`zkpipe prove --zkey pc.zkey --wtns pc.wtns\`,"
  echo "rapidsnark's \`prover pc.zkey pc.wtns proof.json public.json\` (iden3/rapidsnark master, built beside the project"
  echo "with its committed x86-64 field assembly, GMP, OpenMP) and \`snarkjs groth16 prove\`, each timed whole (load + prove + write;"
  echo "best of 2, once from 2^20; inputs read into the page cache before each). Circuit: Poseidon chain (circomlib Poseidon(2), $per_hash constraints each), circom2 --prime bn128;"
  echo "key: bench/groth16/devkey.c (snarkjs format, development). Every proof passed snarkjs groth16 verify; public.json equal."
  echo
  echo "Times are wall / CPU seconds (CPU = user + sys of all threads)."
  echo
  echo "| domain | constraints | zkpipe (s) | rapidsnark (s) | snarkjs (s) | zkpipe vs rapidsnark (wall / CPU) | zkpipe vs snarkjs (wall / CPU) | rapidsnark vs snarkjs (wall) |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  printf "%s" "$rows"
} >> bench/RESULTS.md
tail -8 bench/RESULTS.md
