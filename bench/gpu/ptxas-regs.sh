#!/usr/bin/env bash
# ptxas register / spill report per kernel of one .cu file (no GPU needed):
#   bench/gpu/ptxas-regs.sh cuda/msm.cu [extra nvcc args, e.g. -DZP_G2_LOWREG=1] [| grep fp2]
# Prints: registers, stack frame, spill stores, spill loads (bytes a thread), demangled kernel name,
# then the compile time. Same flags as cuda/meson.build.
set -eu
cd "$(dirname "$0")/../.."
src=$1; shift
export PATH=/usr/local/cuda/bin:$PATH
tmp=$(mktemp -d)
t0=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas=-v -Icommon -Icuda "$@" -c "$src" -o "$tmp/o.o" >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
t1=$(date +%s)
python3 - "$tmp/log" <<'PY'
import sys, re, subprocess
cur = None; stk = None; entries = set(); fns = []
dm = lambda s: subprocess.run(['c++filt', s], capture_output=True, text=True).stdout.strip().replace('ff<fp_cfg>', 'fp').replace('ff<fr_cfg>', 'fr')
for l in open(sys.argv[1]):
    m = re.search(r"Compiling entry function '([^']+)'", l)
    if m: entries.add(m.group(1))
    m = m or re.search(r"Function properties for (\S+)", l)
    if m: cur = m.group(1); continue
    m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", l)
    if m:
        stk = m.groups()
        if cur not in entries and (cur, stk) not in fns: fns.append((cur, stk))
    m = re.search(r"Used (\d+) registers", l)
    if m and cur and stk:
        name = subprocess.run(['c++filt', cur], capture_output=True, text=True).stdout.strip()
        name = name.replace('ff<fp_cfg>', 'fp').replace('ff<fr_cfg>', 'fr')
        print("%3s regs  stack %5s  spill st %5s  ld %5s  %s" % (m.group(1), stk[0], stk[1], stk[2], name.split('(')[0]))
        cur = None
for f, stk in fns:
    print("  (call) stack %5s  spill st %5s  ld %5s  %s" % (stk[0], stk[1], stk[2], dm(f).split('(')[0]))
PY
echo "# $src $*: nvcc $((t1 - t0)) s"
rm -rf "$tmp"
