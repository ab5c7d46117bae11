#!/usr/bin/env bash
# Pipeline benchmarks through `zkpipe demo` (supervisor + W synthd + 1 gpud). Prints a table and appends
# it to bench/RESULTS.md ($RESULTS).
#
#   bench/pipeline/run.sh [JOBS=8] [PARTS=4] [WORKERS=2]
#     throughput and memory vs slot count, CPU backend, the bundled chain circuit, slots = 1, W, 2W:
#     partitions/s, peak RSS of every process and the arena's slot data (must be slots x slot size
#     whatever the load).
#
#   bench/pipeline/run.sh --curves [--backend cpu|cuda] [--bin DIR] [--k K] [JOBS PARTS WORKERS]
#     proofs per second for BN254 and BLS12-381 circuits of the same size (~2^K constraints, default
#     16), side by side in one run, each curve's key made by `zkpipe setup` (seeded, INSECURE: timing
#     only) on the CPU:
#       poseidon  a Poseidon chain (bench/bn254/poseidon_chain.circom.in) compiled by circom2 with
#                 --prime bn128 and --prime bls12381, witnesses from circom's wasm generator (needs
#                 node and tests/oracle's npm packages: run where circom2 is);
#       chain     the multiplication chain x_{i+1} = x_i^2 + x_0 of 2^K - 2 constraints in circom's r1cs
#                 layout, written by bench/groth16/gen_chain.py for either prime (python3 only: this is
#                 what runs on the GPU host, which has no node).
#     CIRCUITS="poseidon chain" picks them (default: both where circom2 is, else chain). Every proof is
#     verified by the demo against the key's vk; the row also shows the one-shot CPU prover
#     (`zkpipe bench prove`, all threads, load excluded) on the same key for scale. With --backend cuda
#     (--bin DIR: the bundle from scripts/gpu-bin.sh, LD_LIBRARY_PATH=DIR/lib) each key is first proved
#     made again by `zkpipe setup --gpu` with the same seed (the .zpk must be the CPU's bytes) and proved
#     by `zkpipe prove` with the CPU and the CUDA backend with the same r, s: the proofs must be the
#     same bytes. Defaults: JOBS x PARTS = 4 x 4 (cpu) / 8 x 8 (cuda), WORKERS = 2 (cpu) / 4 (cuda),
#     slots = 2 x WORKERS. Work files: $WORK (default build-bench/pipeline-k<K>, or /tmp/... when OUT
#     is set: a device run); with OUT set the table is also written to $OUT/pipeline-curves.md.
#     STEP_TIMEOUT (600 s) bounds every step (compile, witness, setup, prove, demo).
set -eu
cd "$(dirname "$0")/../.."
REPO=$PWD
if [ "${1:-}" != --curves ]; then
bash scripts/build.sh
JOBS=${1:-8}; PARTS=${2:-4}; W=${3:-2}
rows=""
for S in 1 $W $((2 * W)); do
  out=$(build/tools/zkpipe demo --jobs "$JOBS" --parts "$PARTS" --workers "$W" --gpuds 1 --slots "$S")
  echo "$out" | grep -E "verified|throughput" >&2
  row=$(echo "$out" | python3 -c '
import re, sys
t = sys.stdin.read()
rate = re.search(r"= ([0-9.]+) proofs/s", t).group(1)
ver = re.search(r"verified (\d+)/(\d+)", t)
rss = {}
for m in re.finditer(r"^\s+(?:node0\s+)?(supervisor|gpud|synthd)\s+(?:\d+\s+)?pid \d+\s+(\d+) KiB", t, re.M):
    rss.setdefault(m.group(1), []).append(int(m.group(2)))
arena = re.search(r"(\d+) slots x (\d+) MiB = (\d+) MiB of slot data \((\d+) MiB mapped", t)
print("| %s | %s | %s/%s | %d | %d | %s | %s MiB | %s MiB |" % (arena.group(1), rate, ver.group(1), ver.group(2),
      rss["supervisor"][0], rss["gpud"][0], " / ".join(str(x) for x in rss["synthd"]), arena.group(3), arena.group(4)))
')
  rows="$rows$row"$'\n'
done
table="| slots | partitions/s | verified | supervisor KiB | gpud KiB | synthd KiB | slot data | arena mapped |
|---:|---:|---:|---:|---:|---|---:|---:|
$rows"
echo "$table"
{
  echo
  echo "## pipeline: throughput vs slots, CPU backend ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo
  echo "Machine: $(uname -srm); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(nproc) CPUs"
  echo
  echo "Command: \`bench/pipeline/run.sh $JOBS $PARTS $W\` ($JOBS jobs x $PARTS partitions of examples/chain," \
       "1000 constraints; $W synthd, 1 gpud; peak RSS = VmHWM; slot size 2 MiB)"
  echo
  echo "$table"
} >> bench/RESULTS.md
exit 0
fi

# ---- --curves ----
shift
BACKEND=cpu; BIN=; K=16; args=("$@")
while [ $# -gt 0 ]; do
  case $1 in
    --backend) BACKEND=$2; shift 2;;
    --bin) BIN=$(readlink -f "$2"); shift 2;;
    --k) K=$2; shift 2;;
    --*) echo "bench/pipeline/run.sh --curves: unknown option $1" >&2; exit 2;;
    *) break;;
  esac
done
case $BACKEND in cpu) dj=4; dp=4; dw=2;; cuda) dj=8; dp=8; dw=4;; *) echo "--backend cpu|cuda" >&2; exit 2;; esac
JOBS=${1:-$dj}; PARTS=${2:-$dp}; W=${3:-$dw}; SLOTS=${SLOTS:-$((2 * W))}
if [ -z "$BIN" ]; then bash scripts/build.sh; BIN=$REPO/build/tools; SUPBIN=$REPO/build/supervisor; else SUPBIN=$BIN; fi
[ -d "$BIN/lib" ] && export LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}"
Z=$BIN/zkpipe
[ -x "$Z" ] && [ -x "$SUPBIN/zkpipe-supervisor" ] || { echo "no zkpipe / zkpipe-supervisor in $BIN" >&2; exit 2; }
ox=$REPO/tests/oracle
have_circom() { command -v node >/dev/null && [ -x $ox/node_modules/.bin/circom2 ]; }
if [ -z "${CIRCUITS:-}" ]; then
  if ! have_circom && command -v npm >/dev/null; then (cd $ox && npm ci --no-audit --no-fund >/dev/null 2>&1) || true; fi
  if have_circom; then CIRCUITS="poseidon chain"; else CIRCUITS=chain; fi
fi
WORK=${WORK:-${OUT:+/tmp/zkpipe-bench-pipeline-k$K}}; WORK=${WORK:-$REPO/build-bench/pipeline-k$K}; mkdir -p "$WORK"
COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
TO=${STEP_TIMEOUT:-600}
per_hash=517   # circom2 0.2.23's constraints for circomlib's Poseidon(2) (bench/bn254/run.sh checks it too)

# prepare CIRCUIT PRIME DIR: chain.r1cs, w0..w7.wtns, chain.zkey (zkpipe setup, seeded) in DIR
prepare() {
  local c=$1 prime=$2 d=$3 i
  mkdir -p "$d"
  if [ ! -f "$d/w7.wtns" ]; then
    if [ "$c" = poseidon ]; then
      sed "s/@N@/$(( ((1 << K) - 2) / per_hash ))/" bench/bn254/poseidon_chain.circom.in > "$d/pc.circom"
      (cd $ox && timeout $TO node_modules/.bin/circom2 "$d/pc.circom" --r1cs --wasm --prime $prime -l node_modules \
         -o "$d" >/dev/null)
      mv "$d/pc.r1cs" "$d/chain.r1cs"
      for i in 0 1 2 3 4 5 6 7; do
        echo "{\"x\":\"$((i + 3))\"}" > "$d/in$i.json"
        timeout $TO node "$d/pc_js/generate_witness.js" "$d/pc_js/pc.wasm" "$d/in$i.json" "$d/w$i.wtns"
      done
    else
      for i in 0 1 2 3 4 5 6 7; do
        timeout $TO python3 bench/groth16/gen_chain.py --prime $prime $(( (1 << K) - 2 )) "$d/chain.r1cs" "$d/w$i.wtns" $((i + 3))
      done
    fi
  fi
  if [ ! -f "$d/chain.zkey" ]; then
    timeout $TO "$Z" setup --r1cs "$d/chain.r1cs" --zkey "$d/chain.zkey.tmp" --out "$d/chain.zpk" --cpu --toxic-seed 20261202 \
      >"$d/setup.log" 2>&1 || { cat "$d/setup.log" >&2; exit 1; }
    mv "$d/chain.zkey.tmp" "$d/chain.zkey"
  fi
}

rows=""; checks=""; bad=0
for c in $CIRCUITS; do
  for prime in bn128 bls12381; do
    d=$WORK/$c-$prime
    prepare $c $prime "$d"
    # counts from the r1cs header (constraints) and the key (wires, domain)
    read -r m nw < <(python3 -c 'import struct,sys
b=open(sys.argv[1],"rb").read(); o=12
while True:
    t,s=struct.unpack_from("<IQ",b,o)
    if t==1:
        f=struct.unpack_from("<I",b,o+12)[0]; h=o+12+4+f
        print(struct.unpack_from("<I",b,h+24)[0], struct.unpack_from("<I",b,h)[0]); break
    o+=12+s' "$d/chain.r1cs")
    if [ "$BACKEND" = cuda ]; then   # CPU = GPU, bit for bit: the key (zkpipe setup --gpu, same seed), proofs (same r, s)
      # (a failure here is reported and the run goes on: the pipeline proves with the CPU's key)
      if ! timeout $TO "$Z" setup --r1cs "$d/chain.r1cs" --out "$d/gpu.zpk" --gpu --toxic-seed 20261202 >"$d/setup-gpu.log" 2>&1; then
        cat "$d/setup-gpu.log" >&2; checks="$checks$c $prime: FAIL: zkpipe setup --gpu failed"$'\n'; bad=1
      elif cmp -s "$d/chain.zpk" "$d/gpu.zpk"; then checks="$checks$c $prime: zkpipe setup --gpu key = --cpu key (same bytes)"$'\n'
      else checks="$checks$c $prime: FAIL: the GPU setup's key differs from the CPU's"$'\n'; bad=1; fi
      for b in cpu cuda; do
        timeout $TO "$Z" prove --zkey "$d/chain.zkey" --wtns "$d/w0.wtns" --backend $b --r 12345 --s 67890 --quiet \
          --proof "$d/p-$b.json" --public "$d/u-$b.json" || { echo "$c $prime: prove --backend $b failed" >&2; exit 1; }
      done
      if cmp -s "$d/p-cpu.json" "$d/p-cuda.json"; then checks="$checks$c $prime: CUDA proof = CPU proof (same bytes)"$'\n'
      else echo "$c $prime: the CUDA backend's proof differs from the CPU's" >&2; exit 1; fi
    fi
    one=$(timeout $TO "$Z" bench prove --zkey "$d/chain.zkey" --wtns "$d/w0.wtns" --runs 2 | awk '/^best:/ {print $2}')
    out=$(timeout $TO "$Z" demo --circuit "$d" --jobs "$JOBS" --parts "$PARTS" --workers "$W" --gpuds 1 --slots "$SLOTS" \
            --backend $BACKEND 2>&1) || { echo "$out" >&2; echo "$c $prime: demo failed" >&2; exit 1; }
    echo "$out" | grep -E "verified|throughput" >&2
    row=$(echo "$out" | python3 -c '
import re, sys
c, prime, m, nw, one = sys.argv[1:6]
t = sys.stdin.read()
rate = float(re.search(r"= ([0-9.]+) proofs/s", t).group(1))
ver = re.search(r"verified (\d+)/(\d+)", t)
if ver.group(1) != ver.group(2):
    sys.exit("%s %s: only %s of %s proofs verified" % (c, prime, ver.group(1), ver.group(2)))
rss = {}
for x in re.finditer(r"^\s+(?:node0\s+)?(supervisor|gpud|synthd)\s+(?:\d+\s+)?pid \d+\s+(\d+) KiB", t, re.M):
    rss.setdefault(x.group(1), []).append(int(x.group(2)))
arena = re.search(r"(\d+) slots x (\d+) MiB", t)
curve = {"bn128": "BN254", "bls12381": "BLS12-381"}[prime]
print("| %s | %s | %s | %s | %.2f | %s/%s | %s s (%.2f/s) | %d | %s x %s MiB |" % (c, curve, m, nw, rate, ver.group(1),
      ver.group(2), one, 1 / float(one), rss["gpud"][0] // 1024, arena.group(1), arena.group(2)))
' "$c" "$prime" "$m" "$nw" "$one")
    echo "$row" >&2
    rows="$rows$row"$'\n'
  done
done
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
gpu=; [ "$BACKEND" = cuda ] && gpu="; GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
table="| circuit | curve | constraints | wires | pipeline proofs/s | verified | one-shot CPU prove (bench prove) | gpud peak RSS MiB | slots |
|---|---|---:|---:|---:|---:|---:|---:|---:|
$rows"
text="
## pipeline: BN254 beside BLS12-381, proofs/s at 2^$K, $BACKEND backend ($(date -u '+%Y-%m-%d %H:%M UTC'))

Machine: $(uname -srm); $cpu; $(nproc) CPUs$gpu. Commit $COMMIT.

Command: \`bench/pipeline/run.sh --curves ${args[*]}\` (zkpipe demo: supervisor + $W synthd (1 thread each) + 1 gpud
($BACKEND backend, all threads), $SLOTS slots, $JOBS jobs x $PARTS partitions per row, every proof verified; keys by
\`zkpipe setup --toxic-seed\` (INSECURE, timing only); witnesses w0..w7 of different inputs; poseidon = circom2
Poseidon chain ($per_hash constraints a hash), chain = gen_chain.py's multiplication chain; one-shot = \`zkpipe bench
prove\` on the CPU, best of 2, load excluded)

$table"
[ -n "$checks" ] && text="$text
$checks"
echo "$text" >> "${RESULTS:-$REPO/bench/RESULTS.md}"
[ -n "${OUT:-}" ] && echo "$text" > "$OUT/pipeline-curves.md"
echo "$text"   # the table last
exit $bad
