#!/usr/bin/env bash
# The GPU host's run of bench/bn254/cpu-host.sh (issue 20 item 7: BN254 `zkpipe prove` on the CPU >= 3x
# rapidsnark with the same threads, at 2^16 and 2^20). Builds nothing: DIR is a bundle made on the 2-core
# machine with
#   GPU_BIN_ONLY=1 scripts/gpu-bin.sh DIR tools/zkpipe bench/groth16/g16_devkey
#   cp /work/peers/rapidsnark/build_prover/src/prover DIR/rapidsnark-prover; cp -L <its libgmp.so.10> DIR/lib/
# (rapidsnark: iden3's public source, built outside the repository, never committed). Prints the CPU (whether it
# has AVX-512 IFMA: zkpipe's BN254 MSM and NTT take it), one `zkpipe prove` timing line per size (load, witness,
# prove), and cpu-host.sh's table last; the table also goes to $OUT/bn254-cpu-host.md (or RESULTS).
#   bench/bn254/cpu-host-device.sh DIR [log2-domain ...]     (default: 16 20; env RUNS, default 3)
set -euo pipefail
: "${1:?usage: cpu-host-device.sh DIR [k ...]}"
D=$(readlink -f "$1"); shift
cd "$(dirname "$0")/../.."
sizes=("${@:-16 20}"); sizes=(${sizes[*]})
export LD_LIBRARY_PATH="$D/lib:${LD_LIBRARY_PATH:-}"
W=${WORK:-/tmp/zpcpu}
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); $(nproc) CPUs;" \
     "avx512ifma: $(grep -qw avx512ifma /proc/cpuinfo && echo yes || echo NO); adx: $(grep -qw adx /proc/cpuinfo && echo yes || echo no)"
RUNS=${RUNS:-3} WORK=$W RESULTS=${RESULTS:-${OUT:-/tmp}/bn254-cpu-host.md} \
  bench/bn254/cpu-host.sh "$D" "$D/rapidsnark-prover" "${sizes[@]}" > "$W.table"
for k in "${sizes[@]}"; do
  echo -n "2^$k: "
  ZP_THREADS=$(nproc) "$D/zkpipe" prove --zkey "$W/k$k/c.zkey" --wtns "$W/k$k/c.wtns" --proof "$W/k$k/z_proof.json" \
    --public "$W/k$k/z_public.json" 2>&1 | sed 's/^zkpipe prove: //'
done
cat "$W.table"   # cpu-host.sh's rows as they came, then its RESULTS section with the table last
