#!/usr/bin/env bash
# On a GPU host, from the bundles scripts/gpu-bundles.sh made (.gpu/, carried to the device), builds nothing:
#   check   the CUDA backend = the CPU backend: gpu_test (kernels, both curves), tests/cuda/run-devmem-gpu.sh (every
#           placement of the memory plan, .params and expanded keys), then, as BUDGET allows, run-msm-gpu.sh's check
#           and run-gpuscale.sh (gpud with backend cuda). Needs .gpu/bin.tgz. Any card from 16 GB. DEVMEM="glob ...":
#           only those run-devmem-gpu steps (e.g. "params_* lean_*" for a short call).
#   p27     a 2^27 PoRep-shaped .params partition through zkpipe at each of CAPS ("-" the whole card; default
#           "- 15000M") and through every supraseal-c2 library of the bundle (PEER=name.so: that one only), the
#           same key and inputs, bytes compared (tests/cuda/run-ssc2-cmp.sh; MIX=0.99 or 0.75, REPS=3; PEER=none:
#           zkpipe alone); the key and its partitions are kept in /tmp/zpk for a later step on the same machine.
#           Needs .gpu/ssc2.tgz; an 80 GB card (zkpipe's capped rows plan for the cap; the peer needs ~13 GiB) and a
#           128 GiB host.
#   crate   issue 33's 10-partition PoRep proofs through rust/supraseal-c2's split API, beside supraseal-c2 on the
#           same key (bench/supraseal/crate_porep.sh: PROOFS=2, the p27 key when this machine made it; its
#           SYNTH_WORKERS, SYNTH_QUEUE, SYNTH_THREADS, RATE_GBS, GPU_MEMORY (zkpipe's cap: the steady rate at a
#           cap; PEER=none: zkpipe alone) pass through: memcpy-speed synthesis by default,
#           bellperson's pace with SYNTH_WORKERS=2 SYNTH_QUEUE=0 SYNTH_THREADS=1 RATE_GBS=0.41). Needs
#           .gpu/ssc2.tgz and .gpu/porep_stream.
#   p27ab   issue 35's before/after: the p27 partition (zkpipe alone, CAPS, REPS=5) through .gpu/before.tgz's build (an
#           earlier commit: scripts/gpu-bundles.sh WHAT=before BEFORE=dir) and then this one's, same key and inputs: each
#           row's GPU time and its proofs' sha256 (equal bytes expected). Needs .gpu/ssc2.tgz and .gpu/before.tgz.
#   e27     the expanded key at each of CAPS (default 48G; "-" the whole card): bench/pipeline/gpu-e2e.sh, its key made
#           on the GPU by gpud, PARTS=4 partitions synthesized by synthd (BOOL=MIX), GPU stage per partition, steady
#           rate, peaks. Needs .gpu/bin.tgz; an 80 GB card and a 128 GiB host; ~4-5 minutes a cap at 2^27.
#           E27_KEY=k.zpk: that key instead (the dry run: BACKEND=cpu SIZE=12 HUGE=0 E27_KEY=a key of synth:n=3696).
#   share   two registered .params keys on one card that holds one at a time (gpud's parking): bench/gpu/key-sharing.sh,
#           SHARE_SIZE (default 25) under gpu_memory = SHARE_CAP (default 20G): calls A B A B A, the bytes of each key
#           the same before and after its parking, each call's time and gpud's take-ups. Needs .gpu/ssc2.tgz; ~3 min.
# Usage (device): [BUDGET=560] bench/gpu/device-steps.sh STEP...   Logs and tables under $OUT (a summary last).
# A dry run without a GPU: BACKEND=cpu SIZE=12 bench/gpu/device-steps.sh p27 crate (SIZE: the log2 domain, default 27).
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-$(mktemp -d)}; mkdir -p "$OUT"; T0=$(date +%s); BUDGET=${BUDGET:-560}
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
S=$OUT/summary.txt; : >> "$S"
note() { echo "$*" | tee -a "$S"; }
unpack() { # unpack NAME: .gpu/NAME.tgz into /tmp/zpgpu/NAME once per machine
  [ -d "/tmp/zpgpu/$1" ] && return 0
  [ -f ".gpu/$1.tgz" ] || { note "no .gpu/$1.tgz (scripts/gpu-bundles.sh, then carry .gpu/$1.tgz)"; return 1; }
  mkdir -p "/tmp/zpgpu/$1" && tar xzf ".gpu/$1.tgz" -C "/tmp/zpgpu/$1"
}
note "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -1); $(nproc) CPUs; $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); steps: $*"
step_check() {
  unpack bin || return 1; local B=/tmp/zpgpu/bin/bin L=$OUT/check; mkdir -p "$L"
  note "bundle commit $(cat $B/COMMIT 2>/dev/null)"
  ( cd "$B" && LD_LIBRARY_PATH=$B/lib timeout $(( $(left) < 190 ? $(left) / 2 : 150 )) ./gpu_test ${TEST_ARGS:-20 18 22} ) > "$L/gpu_test.log" 2>&1
  note "gpu_test: rc $? ($(( $(date +%s) - T0 )) s); $(grep -ciE 'fail|mismatch|wrong' "$L/gpu_test.log") lines with fail/mismatch/wrong"
  local g; set -f   # DEVMEM: the run-devmem-gpu steps to run, globs (default every step)
  for g in ${DEVMEM:-*}; do
    ONLY=$g LOG=$L/devmem timeout $(( $(left) - 30 )) tests/cuda/run-devmem-gpu.sh "$B" >> "$L/devmem.log" 2>&1
    note "run-devmem-gpu ${DEVMEM:+$g}: rc $? ($(( $(date +%s) - T0 )) s)"
  done; set +f
  grep -E '^## ' "$L/devmem.log" | tee -a "$S"
  if [ "$(left)" -gt 120 ]; then
    OUT=$L/msm STEPS=check timeout $(( $(left) - 60 )) tests/cuda/run-msm-gpu.sh "$B" > "$L/msm.log" 2>&1
    note "run-msm-gpu check: rc $? ($(( $(date +%s) - T0 )) s)"; grep -E "PASS|FAIL|identical|differ" "$L/msm.log" | tail -12 | tee -a "$S"
  fi
  if [ "$(left)" -gt 60 ]; then
    timeout $(( $(left) - 10 )) tests/cuda/run-gpuscale.sh "$B" > "$L/scale.log" 2>&1
    note "run-gpuscale: rc $? ($(( $(date +%s) - T0 )) s)"; grep -E "^\|" "$L/scale.log" | tail -20 | tee -a "$S"
  fi
  (cd "$OUT" && tar czf check-logs.tgz check && rm -rf check)
}
step_p27() {
  unpack ssc2 || return 1; local P=/tmp/zpgpu/ssc2/peer; mkdir -p /tmp/zpk
  if [ -n "${PEER:-}" ]; then mkdir -p /tmp/zpgpu/p1 && rm -f /tmp/zpgpu/p1/* && cp "$P/$PEER" /tmp/zpgpu/p1/ &&
    { cp "$P/PROVENANCE" /tmp/zpgpu/p1/ 2>/dev/null; P=/tmp/zpgpu/p1; }; fi
  ls "$P"/lib*.so >/dev/null 2>&1 && [ "${PEER:-}" != none ] || P=-   # PEER=none: zkpipe's rows alone
  ZP_CUDA_VERBOSE=1 KEYS=/tmp/zpk NOPIN=1 SIZES=${SIZE:-27} MIXES=${MIX:-0.99} CAPS="${CAPS:-- 15000M}" REPS=${REPS:-3} PARTS=1 \
    RESULTS=$OUT/results-p27.md OUT=$OUT/p27 timeout "$(left)" tests/cuda/run-ssc2-cmp.sh /tmp/zpgpu/ssc2/bin "$P" > "$OUT/p27.log" 2>&1
  note "p27 (MIX=${MIX:-0.99} CAPS=${CAPS:-- 15000M}): rc $? ($(( $(date +%s) - T0 )) s)"
  mkdir -p /tmp/zpgpu/det && tar xzf "$OUT/p27/ssc2-details.tar.gz" -C /tmp/zpgpu/det 2>/dev/null
  for f in /tmp/zpgpu/det/o/*.gpud.log; do [ -f "$f" ] && { note "== $(basename "$f")"; grep -E "CUDA backend: proof" "$f" | cut -c1-300 | tail -4 | tee -a "$S"; }; done
  # the table; cut short by the budget, the rows printed so far ("## |")
  grep '^## zk |' "$OUT/p27.log" | tee -a "$S"   # zkpipe's side, a line a cap as each ended
  if grep -q '^|' "$OUT/p27.log"; then grep '^|' "$OUT/p27.log"; else grep '^## |' "$OUT/p27.log"; fi | tail -10 | tee -a "$S"
}
step_p27ab() {  # issue 35's check: the 2^27 partition through the build before (.gpu/before.tgz) and this one
  unpack ssc2 || return 1; unpack before || return 1; mkdir -p /tmp/zpk
  note "before: $(cat /tmp/zpgpu/before/bin/COMMIT 2>/dev/null); after: $(cat /tmp/zpgpu/ssc2/bin/COMMIT 2>/dev/null)"
  local b
  for b in before ssc2; do
    ZP_CUDA_VERBOSE=1 KEYS=/tmp/zpk NOPIN=1 SIZES=${SIZE:-27} MIXES=${MIX:-0.99} CAPS="${CAPS:-- 15000M}" REPS=${REPS:-5} PARTS=1 \
      RESULTS=$OUT/results-ab-$b.md OUT=$OUT/ab-$b timeout "$(left)" tests/cuda/run-ssc2-cmp.sh /tmp/zpgpu/$b/bin - > "$OUT/ab-$b.log" 2>&1
    note "p27ab $b: rc $? ($(( $(date +%s) - T0 )) s)"
    grep '^## zk |' "$OUT/ab-$b.log" | tee -a "$S"
    if grep -q '^|' "$OUT/ab-$b.log"; then grep '^| 2' "$OUT/ab-$b.log"; else grep '^## |' "$OUT/ab-$b.log"; fi | tee -a "$S"
    [ "$(left)" -gt 60 ] || break
  done
}
step_e27() {  # the expanded key (made on the GPU by gpud) at each of CAPS: bench/pipeline/gpu-e2e.sh, a run a cap
  unpack bin || return 1; local B=/tmp/zpgpu/bin/bin cap
  for cap in ${CAPS:-48G}; do
    GPU_MEMORY=$([ "$cap" = - ] || echo "$cap") BOOL=${MIX:-0.99} PARTS=${PARTS:-4} JOBS=1 KEY=${E27_KEY:-device} KEY_REGIONS=no \
      ROWS=$([ "${SIZE:-27}" = 27 ] && echo 130300000 || echo $(( (1 << ${SIZE:-27}) - 400 ))) \
      BACKEND=${BACKEND:-cuda} LABEL="expanded key, cap $cap" RESULTS=$OUT/results-e27.md \
      timeout "$(left)" bench/pipeline/gpu-e2e.sh "$B" > "$OUT/e27-$cap.log" 2>&1
    note "e27 cap $cap (BOOL=${MIX:-0.99}): rc $? ($(( $(date +%s) - T0 )) s)"
    grep -E '^\| [0-9]|^gpud: |gpuds ready' "$OUT/e27-$cap.log" | tail -6 | tee -a "$S"
    [ "$(left)" -gt 240 ] || break
  done
}
step_crate() {
  unpack ssc2 || return 1; mkdir -p /tmp/zpk
  local ssc2=/tmp/zpgpu/ssc2/peer/${PEER:-libsupraseal-c2-curio.so}; [ -f "$ssc2" ] || ssc2=
  KEY=/tmp/zpk/k.params SPEC="n=$(( (1 << ${SIZE:-27}) - 329 )),pub=328,bool=0.99" LOG=${SIZE:-27} PROOFS=${PROOFS:-2} PARTS=10 SSC2=$ssc2 \
    timeout "$(left)" bash bench/supraseal/crate_porep.sh /tmp/zpgpu/ssc2/bin .gpu/porep_stream > "$OUT/crate.log" 2>&1
  note "crate: rc $? ($(( $(date +%s) - T0 )) s)"; grep -E "^#|^proof|^result|FAIL" "$OUT/crate.log" | tail -20 | tee -a "$S"
}
step_share() {
  unpack ssc2 || return 1
  SIZE=${SHARE_SIZE:-25} GPU_MEMORY=${SHARE_CAP-20G} BACKEND=${BACKEND:-cuda} timeout "$(left)" \
    bash bench/gpu/key-sharing.sh /tmp/zpgpu/ssc2/bin > "$OUT/share.log" 2>&1
  note "share: rc $? ($(( $(date +%s) - T0 )) s)"; grep -E "^## share|^# key|^FAIL|parkings" "$OUT/share.log" | tee -a "$S"
}
for s in "$@"; do
  case $s in check|p27|p27ab|e27|crate|share) "step_$s" ;; *) note "unknown step $s (check, p27, p27ab, e27, crate, share)";; esac
  [ "$(left)" -gt 30 ] || { note "budget spent after $s"; break; }
done
echo "======"; cat "$S"
