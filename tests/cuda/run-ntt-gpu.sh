#!/usr/bin/env bash
# The NTT on a GPU, in one run on the device machine (builds nothing there):
#   1. ntt_check check: cuda/ntt.cu = the CPU NTTs bit for bit (BLS12-381 both root families, BN254; forward,
#      inverse, cosets, both H steps) at 2^1..2^20, then 2^24
#   2. g16_backend_cmp: whole proofs, CUDA backend = CPU backend bytes (examples/chain, tests/groth16/data/mul,
#      examples/chain-bn254, synthetic 2^16 and 2^18 bellperson-mode circuits)
#   3. ntt_check bench beside sppark's NTT (DIR/sppark/sppark_ntt_{bls,bn}: a harness built outside the repo,
#      never committed; skipped when absent) in the same run: 2^24 and 2^27, fwd, inv, coset fwd, coset inv,
#      the H step at 2^27; optional per-kernel times (ncu, gpu__time_duration) of the H step
# then prints the side-by-side table last. Usage: tests/cuda/run-ntt-gpu.sh DIR
#   DIR: ntt_check, g16_backend_cmp, lib/ (libxxhash, liburing), sppark/ (optional)
#   SKIP="ncu proofs ..." parts left out,
#   OUT: the device folder that comes back: gpu-ntt-logs.tgz (every log) is written there
set -u
cd "$(dirname "$0")/../.."
: "${1:?usage: run-ntt-gpu.sh DIR}"   # in $(...) a failed ${N:?} would only end the subshell
BIN=$(readlink -f "$1")
[ -d "$BIN/lib" ] && export LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}"
LOG=$(mktemp -d)   # logs here; with $OUT set (the device) they are packed into $OUT/gpu-ntt-logs.tgz at the end
SKIP=" ${SKIP:-} "
T0=$(date +%s)
declare -a SUM
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader 2>/dev/null); $(nproc) CPUs; commit $(git rev-parse --short HEAD 2>/dev/null)"
part() { # name timeout cmd...: run, show the tail, record "name | exit | seconds | checks"
  local name=$1 t=$2; shift 2
  case "$SKIP" in *" $name "*) SUM+=("| $name | skipped | | |"); return;; esac
  local s=$(date +%s)
  if declare -F "$1" >/dev/null; then "$@" >"$LOG/$name.log" 2>&1; else timeout "$t" "$@" >"$LOG/$name.log" 2>&1; fi
  local rc=$?
  grep -E 'FAIL|failure|MISMATCH|error|exit [1-9]' "$LOG/$name.log" | head -20
  tail -n 3 "$LOG/$name.log"
  local pass=$(grep -c '| PASS |' "$LOG/$name.log") fail=$(grep -c '| FAIL |' "$LOG/$name.log")
  SUM+=("| $name | exit $rc | $(( $(date +%s) - s )) s | $pass PASS, $fail FAIL |")
}
C=$BIN/ntt_check
part check-small 100 "$C" check 1 5 10 13 17 20
part check-24-bls 60 env CURVES=bls "$C" check 24
part check-24-bn 100 env CURVES=bn "$C" check 24
proofs() { # CUDA proof bytes = CPU proof bytes (and verified)
  local rc=0 k
  for k in examples/chain/chain.zkey:examples/chain/w0.wtns examples/chain-bn254/chain.zkey:examples/chain-bn254/w0.wtns \
           tests/groth16/data/mul.zkey:tests/groth16/data/mul.wtns; do
    echo "## ${k%%:*}"
    timeout 40 "$BIN/g16_backend_cmp" zkey "${k%%:*}" "${k#*:}" || { echo "| exit $? | FAIL |"; rc=1; }
  done
  echo "## synth 16"
  timeout 60 "$BIN/g16_backend_cmp" synth 16 1 || { echo "| synth 16 exit $? | FAIL |"; rc=1; }
  echo "## synth 18"
  timeout 90 "$BIN/g16_backend_cmp" synth 18 1 || { echo "| synth 18 exit $? | FAIL |"; rc=1; }
  return $rc
}
part proofs 300 proofs
bench() {
  timeout 150 "$C" bench
  local s
  for s in bls bn; do
    [ -x "$BIN/sppark/sppark_ntt_$s" ] && timeout 60 "$BIN/sppark/sppark_ntt_$s" 24 27
  done
  return 0
}
part bench 220 bench
ncu_part() { # per-kernel device times of the H step at 2^27 (warm-up + one timed call: 2 H steps)
  local N=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  [ -n "$N" ] || { echo "no ncu"; return 0; }
  RUNS=1 timeout 40 "$N" --clock-control none --metrics gpu__time_duration.sum --csv \
    "$C" bench ${NCU_CASE:-bls:h:27} > "$LOG/ncu.csv" 2>"$LOG/ncu.err"
  echo "### ${NCU_CASE:-bls:h:27}, warm-up + 1 call"
  python3 - "$LOG/ncu.csv" <<'EOF'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows: print("ncu: no rows"); sys.exit(0)
h = rows[0]; ki = h.index("Kernel Name"); vi = h.index("Metric Value"); ui = h.index("Metric Unit")
agg = collections.OrderedDict()
for r in rows[1:]:
    v = float(r[vi].replace(",", "")); u = r[ui]
    v = v / 1e6 if u == "nsecond" else v / 1e3 if u == "usecond" else v * 1e3 if u == "second" else v
    a = agg.setdefault(r[ki][:90], [0, 0.0]); a[0] += 1; a[1] += v
print("| kernel | launches | total ms |"); print("|---|---:|---:|")
for k, (c, t) in agg.items(): print("| %s | %d | %.2f |" % (k, c, t))
EOF
}
part ncu 130 ncu_part
[ -f "$LOG/ncu.log" ] && { echo; echo "## per-kernel device times (ncu)"; grep -v "^==" "$LOG/ncu.log" | head -60; }
# the side-by-side table, last
python3 - "$LOG/bench.log" <<'EOF'
import re, sys
z, sp = {}, {}
for line in open(sys.argv[1]):
    c = [x.strip() for x in line.strip().strip("|").split("|")]
    if len(c) == 6 and c[0] in ("bls12-381", "bn254"):
        z[(c[0], c[1], c[2])] = float(c[3])
    m = re.match(r"\| sppark (\S+) \| (.*) \| (2\^\d+) \| ([\d.]+) \|", line)
    if m: sp[(m.group(1), m.group(2), m.group(3))] = float(m.group(4))
ops = {"fwd": ("NTT forward (NN)", "NTT forward (NR)", "NTT forward (RN)"), "inv": ("NTT inverse (NN)", "NTT inverse (NR)", "NTT inverse (RN)"),
       "cfwd": ("NTT coset forward (NN)",), "cinv": ("NTT coset inverse (NN)",), "h": ("H step (supraseal order)",)}
print("\n## zkpipe vs sppark (ms, median of 7, CUDA events, device-resident, natural order in and out)")
print("| curve | op | size | zkpipe | sppark NN | sppark NR/RN | zkpipe / sppark NN |")
print("|---|---|---|---:|---:|---:|---:|")
for (cv, op, sz) in sorted(z, key=lambda k: (k[0], int(k[2][2:]), list(ops).index(k[1]))):
    v = z[(cv, op, sz)]
    nn = sp.get((cv, ops[op][0], sz)); other = [sp.get((cv, o, sz)) for o in ops[op][1:] if sp.get((cv, o, sz))]
    print("| %s | %s | %s | %.2f | %s | %s | %s |" % (cv, op, sz, v, "%.2f" % nn if nn else "-",
          " / ".join("%.2f" % o for o in other) or "-", "%.3f" % (v / nn) if nn else "-"))
EOF
echo
echo "## check rows that did not pass, and errors"
grep -h -E '\| FAIL \||error|->' "$LOG"/check-*.log "$LOG"/proofs.log 2>/dev/null | head -20
echo
echo "## parts ($(( $(date +%s) - T0 )) s; logs in $LOG)"
echo "| part | result | time | checks |"
echo "|---|---|---|---|"
printf '%s\n' "${SUM[@]}"
# every log in one file (the device returns only a few files)
[ -n "${OUT:-}" ] && tar czf "$OUT/gpu-ntt-logs.tgz" -C "$LOG" . 2>/dev/null && echo "logs: \$OUT/gpu-ntt-logs.tgz"
