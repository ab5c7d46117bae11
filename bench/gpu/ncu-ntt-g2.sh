#!/usr/bin/env bash
# Nsight Compute readings of the hot CUDA kernels on the GPU host (builds nothing): duration, SM and memory
# throughput, IPC, issue slots, cycles between a warp's instructions, occupancy and registers, for the NTT
# passes at 2^27 and the G2 level-0 bucket kernel at 2^22. Clocks are left alone (--clock-control none).
#   bench/gpu/ncu-ntt-g2.sh BIN_DIR [OUT_DIR]     (BIN_DIR from scripts/gpu-bin.sh; full reports in OUT_DIR)
# Readings of 2026-11-29 are in cuda/NOTES.md ("fourth round").
set -u
: "${1:?usage: ncu-ntt-g2.sh BIN_DIR [OUT_DIR]}"   # in $(...) a failed ${N:?} would only end the subshell
BIN=$(readlink -f "$1"); OUTD=${2:-$(mktemp -d)}; mkdir -p "$OUTD"
[ -d "$BIN/lib" ] && export LD_LIBRARY_PATH="$BIN/lib:${LD_LIBRARY_PATH:-}"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -x "$NCU" ] || { echo "ncu-ntt-g2: no ncu on this host"; exit 77; }
sections="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats"
keys='^  [a-z_]+.*\(|Duration|Compute \(SM\) Throughput|DRAM Throughput|Executed Ipc Active|Issue Slots Busy|Warp Cycles Per Issued|Achieved Occupancy|Registers Per Thread|highest-utilized'
run() { # name kernel-regex launches case
  timeout 300 "$NCU" --clock-control none -k "regex:$2" --launch-count "$3" $sections "$BIN/gpu_bench" "$4" \
    >"$OUTD/$1.txt" 2>&1
  echo "== $1 (exit $?)"; grep -E "$keys" "$OUTD/$1.txt" | sed 's/(ff<.*//; s/  */ /g' | cut -c1-110
}
run ntt_27 'pass2|pass4|pass_r|bitrev_tiles' 4 ntt:27   # pass4 (or pass_r): every pass with k >= 2
run g2_acc_22 'acc_flat|acc_affine' 1 g2:22
