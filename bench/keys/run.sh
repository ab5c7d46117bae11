#!/usr/bin/env bash
# bench/keys/run.sh LOG [--record] [--dir D] [--bin B] [--curve-only] — a synthetic PoRep-shaped .params for domain 2^LOG
# (zp_params_counts_porep: LOG 27 ≈ 47 GB, what a Filecoin 32 GiB PoRep key weighs), loaded into a key region
# as gpud loads it, warm (page cache) and cold (echo 3 > drop_caches, root), against the disk's raw
# sequential read of the same file (dd, O_DIRECT, 16 MiB blocks) and a warm read of it; the curve-only rows
# show what the subgroup checks cost. Prints a table; --record appends it to bench/RESULTS.md.
set -eu
cd "$(dirname "$0")/../.."
LOG=${1:?usage: run.sh LOG [--record] [--dir D] [--bin B]}; shift
REC=0 DIR=${TMPDIR:-/var/tmp} BIN=build/bench/keys/params_bench FULL=1
while [ $# -gt 0 ]; do
  case $1 in --record) REC=1 ;; --dir) DIR=$2; shift ;; --bin) BIN=$2; shift ;; --curve-only) FULL=0 ;;
    *) echo "run.sh: $1?" >&2; exit 2 ;; esac
  shift
done
F=$DIR/zkpipe-bench-$LOG.params
trap 'rm -f "$F"' EXIT
rm -f "$F"
"$BIN" write "$F" "$LOG" >&2
BYTES=$(stat -c %s "$F")
drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'; }
row() { awk -v w="$1" -v s="$2" -v n="$BYTES" 'BEGIN { printf "| %s | %.2f | %.2f |\n", w, s, (s > 0 ? n / s / 1e9 : 0) }'; }
load() { "$BIN" load "$F" "$@" 2>/dev/null | sed -n 's/^load \([0-9.]*\) s.*/\1/p'; }
cold_ok=1; drop 2>/dev/null || cold_ok=0
T=$(mktemp)
{
  echo "| what | s | GB/s |"
  echo "|---|---:|---:|"
  if [ $cold_ok = 1 ]; then
    drop; row "raw read, cold (dd iflag=direct bs=16M)" "$(secs dd if="$F" of=/dev/null bs=16M iflag=direct)"
    [ $FULL = 1 ] && { drop; row "load, cold (auto: O_DIRECT), every check" "$(load)"; }
    drop; row "load, cold, curve checks only" "$(load --no-subgroup)"
  fi
  cat "$F" >/dev/null
  row "raw read, warm (dd bs=16M)" "$(secs dd if="$F" of=/dev/null bs=16M)"
  [ $FULL = 1 ] && row "load, warm (buffered), every check" "$(load --io buffered)"
  row "load, warm, curve checks only" "$(load --io buffered --no-subgroup)"
} > "$T"
HDR="## .params into a key region (bench/keys/run.sh $LOG) — $(date -u '+%Y-%m-%d %H:%M UTC')

Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs; file $BYTES bytes on $(df --output=source "$DIR" | tail -1) ($DIR). Commit $(git rev-parse --short HEAD 2>/dev/null || echo ?).
Command: \`bench/keys/run.sh $LOG$([ $FULL = 1 ] || echo ' --curve-only')\`$([ $cold_ok = 1 ] || echo ' (not root: no cold rows)')
"
printf '%s\n' "$HDR"; cat "$T"
if [ $REC = 1 ]; then { echo; printf '%s\n' "$HDR"; cat "$T"; } >> bench/RESULTS.md; fi
rm -f "$T"
