#!/usr/bin/env bash
# BN254 Groth16 prove on a host's CPUs, zkpipe beside rapidsnark, where neither node nor circom is installed
# (the GPU host): the multiplication chain of bench/groth16/gen_chain.py --prime bn128 (python3 only) at each
# size, a snarkjs-format development key from g16_devkey, then `zkpipe prove` and rapidsnark's prover on the
# same zkey and witness with the same threads, each timed whole (load + prove + write; inputs read into the
# page cache first), best of RUNS; zkpipe verifies both proofs (`zkpipe verify --zkey`) and the two
# public.json must be equal. Prints a table and appends it to RESULTS (default bench/RESULTS.md).
#
#   bench/bn254/cpu-host.sh BIN RAPIDSNARK_PROVER [log2-domain ...]      (default: 16 20)
#   BIN: zkpipe and g16_devkey (scripts/gpu-bin.sh DIR bench/groth16/g16_devkey), lib/ on LD_LIBRARY_PATH
#   env: THREADS (default nproc)  RUNS=2  WORK=/tmp/zpcpu  RESULTS  COMMIT (shown in the table)
# rapidsnark is built beside the project from iden3's public source, never part of this repository.
set -euo pipefail
: "${1:?usage: cpu-host.sh BIN RAPIDSNARK_PROVER [k ...]}" "${2:?rapidsnark prover}"
BIN=$(readlink -f "$1"); RS=$(readlink -f "$2"); shift 2
cd "$(dirname "$0")/../.."
sizes=("${@:-16 20}"); sizes=(${sizes[*]})
threads=${THREADS:-$(nproc)}; runs=${RUNS:-2}; W=${WORK:-/tmp/zpcpu}; RESULTS=${RESULTS:-$PWD/bench/RESULTS.md}
[ -d "$BIN/lib" ] && export LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}"
mkdir -p "$W"
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>"$W/err" || { echo "failed: $*" >&2; cat "$W/err" >&2; return 1; }
         t1=$(date +%s.%N); awk "BEGIN { printf \"%.3f\", $t1 - $t0 }"; }
best() { tr ' ' '\n' | sort -n | head -1; }
rows=""
for k in "${sizes[@]}"; do
  d=$W/k$k; mkdir -p "$d"; n=$(( (1 << k) - 2 ))
  [ -f "$d/c.wtns" ] || python3 bench/groth16/gen_chain.py --prime bn128 $n "$d/c.r1cs" "$d/c.wtns"
  [ -f "$d/c.zkey" ] || "$BIN/g16_devkey" "$d/c.r1cs" "$d/c.zkey" >/dev/null
  z=""; r=""
  for i in $(seq "$runs"); do
    cat "$d/c.zkey" "$d/c.wtns" >/dev/null
    z="$z $(ZP_THREADS=$threads secs "$BIN/zkpipe" prove --zkey "$d/c.zkey" --wtns "$d/c.wtns" --proof "$d/z_proof.json" --public "$d/z_public.json")"
    cat "$d/c.zkey" "$d/c.wtns" >/dev/null
    r="$r $(OMP_NUM_THREADS=$threads secs "$RS" "$d/c.zkey" "$d/c.wtns" "$d/r_proof.json" "$d/r_public.json")"
  done
  for p in z r; do "$BIN/zkpipe" verify --zkey "$d/c.zkey" --proof "$d/${p}_proof.json" --public "$d/${p}_public.json" >/dev/null ||
    { echo "2^$k: zkpipe verify rejects the $p proof" >&2; exit 1; }; done
  python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' "$d/z_public.json" "$d/r_public.json" ||
    { echo "2^$k: public signals differ" >&2; exit 1; }
  zb=$(echo $z | best); rb=$(echo $r | best)
  line="| 2^$k | $n | $zb | $rb | $(awk "BEGIN { printf \"%.2f\", $rb / $zb }")× | both verified, public equal |"
  echo "$line"; rows="$rows$line
"
done
cpu=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
{
  echo
  echo "## BN254 Groth16 prove on the CPU, zkpipe vs rapidsnark, $(nproc) CPUs ($(date -u '+%Y-%m-%d %H:%M') UTC)"
  echo
  echo "Machine: $(uname -srm); $cpu; $(nproc) CPUs. Commit ${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}."
  echo "Command: \`bench/bn254/cpu-host.sh BIN RAPIDSNARK_PROVER ${sizes[*]}\`, $threads threads each (ZP_THREADS, OMP_NUM_THREADS);"
  echo "multiplication chain (gen_chain.py --prime bn128), g16_devkey key; wall seconds of the whole command, best of $runs."
  echo
  echo "| domain | constraints | zkpipe (s) | rapidsnark (s) | zkpipe vs rapidsnark | checks |"
  echo "|---|---:|---:|---:|---:|---|"
  printf "%s" "$rows"
} | tee -a "$RESULTS"
