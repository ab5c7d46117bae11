#!/bin/bash
# msm_ab.sh OLD NEW [ROUNDS] — A/B of two zkpipe-bench-msm binaries (two builds), interleaved: each
# round runs every (curve, size) once with each binary, the order swapped every round, so load from
# others hits both alike. Prints a markdown table of the medians (ms, one thread, best of 3 a run).
# Sizes: BN254 and BLS12-381 G1 at 2^16 and 2^18 (MSM_AB_SIZES="16 18" to change); groups MSM_AB_GROUPS
# ("g1" unless set: "g1 g2" adds G2, whose binary must take the fourth argument).
set -euo pipefail
[ $# -ge 2 ] && [ -x "$1" ] && [ -x "$2" ] || { echo "usage: msm_ab.sh OLD-BIN NEW-BIN [ROUNDS]" >&2; exit 2; }
old=$1 new=$2 rounds=${3:-5}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for r in $(seq "$rounds"); do
	for curve in bn254 bls12-381; do
		for lg in ${MSM_AB_SIZES:-16 18}; do
		for grp in ${MSM_AB_GROUPS:-g1}; do
			if [ $((r % 2)) = 1 ]; then order="old new"; else order="new old"; fi
			for side in $order; do
				bin=$old; [ "$side" = new ] && bin=$new
				echo "$side $("$bin" "$curve" "$lg" 3 "$grp")" >> "$out"
			done
		done
		done
	done
done
python3 - "$out" "$rounds" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    side, curve, lg, ms = line.split()
    rows.setdefault((curve, int(lg)), {}).setdefault(side, []).append(float(ms))
print("| MSM, 1 thread | old ms (median of %s) | new ms | new/old | old runs | new runs |" % sys.argv[2])
print("|---|---|---|---|---|---|")
for (curve, lg), v in sorted(rows.items()):
    o, n = statistics.median(v["old"]), statistics.median(v["new"])
    print("| %s 2^%d | %.1f | %.1f | %.3f | %s | %s |" % (curve, lg, o, n, n / o,
          " ".join("%.0f" % x for x in v["old"]), " ".join("%.0f" % x for x in v["new"])))
PY
