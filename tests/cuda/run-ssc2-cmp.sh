#!/usr/bin/env bash
# Byte-identical to supraseal-c2 (issue 32 item 5), on a GPU host, with prebuilt binaries only.
# ss_cmp (tests/supraseal/ss_cmp.c) feeds a library with supraseal-c2's C ABI, loaded by path with dlopen,
# synthetic PoRep-shaped Assignments (328 public inputs; bool=0.99 and 0.75: 1 % and 25 % non-0/1
# witnesses, the share measured), fixed r, s and one .params key, and writes the proof bytes:
#   zkpipe     libzkpipe-supraseal.so.0 through a real pipeline (supervisor + gpud, backend cuda)
#   peer(s)    every PEER_DIR/lib*.so: supraseal-c2 built beside the project (never in the repository)
# The supervisor is stopped before a peer runs (each has the card to itself). Per case: the share, the
# assignment digest (the same in every run), every proof verified, equal yes/no, each library's first
# call (it loads the key) and median call time (REPS calls, the same inputs: they must repeat the bytes).
# First the CPU-pinned case of tests/supraseal/ssc2_pinned.sh (domain 2^12, key from its toxic seed):
# zkpipe's CUDA backend and each peer must give the pinned bytes. Then SIZES (log2 domains), each case's
# partitions synthesized once (ss_cmp dump, beside the key: 16 GB at 2^27) and read by every call (prove --dump).
#   usage: [SIZES="16 20 24" (empty: the CI case only)] [MIXES="0.99 0.75"] [PARTS=2] [REPS=3] [OUT=dir] tests/cuda/run-ssc2-cmp.sh BIN_DIR PEER_DIR
#   BIN_DIR: GPU_BIN_ONLY=1 scripts/gpu-bin.sh DIR tools/zkpipe tests/supraseal/ss_cmp supraseal/libzkpipe-supraseal.so.0.1.0
#            (DIR/COMMIT, if there, names the commit the binaries were built from)
#   PEER_DIR: the supraseal-c2 shared libraries (create_SRS, generate_groth16_proofs_c, drop_SRS); "-": none (zkpipe's
#            side alone: a row per cap with its call times and device peak)
# Writes OUT/ssc2-cmp.md (the table, machine, card, command, commit), OUT/ssc2-details.tar.gz (every output, gpud logs) and appends it to ${RESULTS:-bench/RESULTS.md}.
# 2^27 (SIZES=27; one partition a call, one slot): a 40 GB key; zkpipe's side needs the card its 2^27 plan fits.
# CAPS="- 15000M": zkpipe's side once per cap ("-": GPU_MEMORY as set, or none), the peers once; a row per cap. NOPIN=1: no CPU-pinned case.
# KEYS=DIR: each size's key is kept in DIR/k.params (with k.params.spec), and its partitions in DIR/dump, for a later run
# of the same size and mix (one key at a time: a 2^27 key is 38 GiB, its dump 16 GB); unset, both are made in the run's
# temporary folder and removed.
# BACKEND=cpu: a dry run without a GPU (zkpipe on the CPU backend; the peers then fail: no CUDA device).
# GPU_MEMORY=16G (or 15000M: a 16 GB card's bytes less its context): zkpipe's gpud plans under that cap
# ([group] gpu_memory); the peer has the whole card (supraseal-c2 has no cap). Each side's device memory
# peak (nvidia-smi every 0.5 s while it runs) and the host's used memory peak (every process, the key region and
# the arena included) go in the table.
set -u
: "${1:?usage: run-ssc2-cmp.sh BIN_DIR PEER_DIR}" "${2:?usage: run-ssc2-cmp.sh BIN_DIR PEER_DIR}"   # in $(...) a failed ${N:?} would only end the subshell
BIN=$(readlink -f "$1"); PEER=$2; [ "$PEER" = - ] || PEER=$(readlink -f "$2")   # "-": zkpipe's side only
HERE=$(cd "$(dirname "$0")" && pwd)
SIZES=${SIZES-16 20 24}; MIXES=${MIXES:-0.99 0.75}; PARTS=${PARTS:-2}; REPS=${REPS:-3}; PUB=328
OUTDIR=${OUT:-/tmp/zpssc2-out}; mkdir -p "$OUTDIR"
export LD_LIBRARY_PATH="$BIN:$BIN/lib:${LD_LIBRARY_PATH:-}"
# the repository root: this script's, or the working directory's (a copy of the script run from elsewhere)
for R0 in "$HERE/../.." "$PWD"; do [ -f "$R0/examples/chain/chain.zkey" ] && break; done
CHAIN=$(readlink -f "$R0/examples/chain/chain.zkey"); RES=${RESULTS:-$R0/bench/RESULTS.md}
ZK=$BIN/zkpipe; CMP=$BIN/ss_cmp; ZLIB=$BIN/libzkpipe-supraseal.so.0
PEERS=; [ "$PEER" = - ] || PEERS=$(ls "$PEER"/lib*.so 2>/dev/null)
[ -n "$PEERS" ] || [ "$PEER" = - ] || { echo "FAIL: no lib*.so in $PEER"; exit 1; }
D=$(mktemp -d "${TMPDIR:-/tmp}/zpssc2.XXXXXX"); SUP=; O=$D/o; mkdir -p "$O"  # details: tarred into OUTDIR at the end
trap '[ -n "${MEMP:-}" ] && kill $MEMP 2>/dev/null; [ -n "$SUP" ] && kill -TERM $SUP 2>/dev/null; wait 2>/dev/null; tar czf "$OUTDIR/ssc2-details.tar.gz" -C "$D" o 2>/dev/null; rm -rf "$D" /dev/shm/zkpipe.* 2>/dev/null' EXIT
# the pinned case (its parameters and pins are lines of ssc2_pinned.sh)
P=${PINS:-$HERE/../supraseal/ssc2_pinned.sh}
eval "$(grep -E '^(CASE_ROWS|PIN_0[0-9]+)=' "$P")"
[ -n "${CASE_ROWS:-}" ] && [ -n "${PIN_099:-}" ] || { echo "FAIL: no case/pins in $P"; exit 1; }
card=$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -1)
head="$(date -u '+%Y-%m-%d %H:%M UTC'); $card; driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1); $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')); $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); commit $(cat "$BIN/COMMIT" 2>/dev/null || git -C "$R0" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "# $head"
for p in $PEERS; do echo "# peer $(basename "$p"): $(sha256sum < "$p" | cut -c1-16)"; done
[ -f "$PEER/PROVENANCE" ] && sed 's/^/# /' "$PEER/PROVENANCE"   # where the peers' sources came from, how they were built

start() { # start SLOT_MIB: a supervisor with one gpud, backend cuda
  cat > "$D/z.ini" <<INI
[run]
dir = $D/run
keep_arena = no
[limits]
memory_limit = off
[key chain]
zkey = $CHAIN
[group g]
gpus = 1
synth_workers = 1
slots = $2
slot_size = ${1}M
jobs = 16
max_parts = $(( PARTS > 4 ? PARTS : 4 ))
backend = ${BACKEND:-cuda}
$([ -n "${GPU_MEMORY:-}" ] && echo "gpu_memory = $GPU_MEMORY")
INI
  "$BIN/zkpipe-supervisor" --config "$D/z.ini" >> "$D/sup.log" 2>&1 & SUP=$!
  export ZKPIPE_CONFIG=$D/z.ini
  for _ in $(seq 2400); do grep -q "backend ${BACKEND:-cuda} ready" "$D"/run/log/*gpud* 2>/dev/null && return 0; sleep 0.1; done
  tail -20 "$D/sup.log" "$D"/run/log/* 2>/dev/null; echo "FAIL: gpud not ready"; return 1
}
stop() { # stop [NAME]: the supervisor gone (its gpud logs kept as NAME.gpud.log)
  [ -n "$SUP" ] && { kill -TERM $SUP; wait $SUP 2>/dev/null; }; SUP=
  cat "$D"/run/log/*gpud* > "$O/${1:-x}.gpud.log" 2>/dev/null; rm -rf "$D/run"; }
field() { sed -n "s/.*$1 \([0-9.]*\).*/\1/p" "$2" | tail -1; }
# memory, sampled all run long (every 0.5 s): the card's used MiB and the host's (MemTotal - MemAvailable: every
# process, the key region and the arena included). peak FROM TO [COL]: the largest sample between two date +%s.%N
# stamps, in GiB (COL 2: the card, 3: the host)
( while :; do
    g=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -1)
    echo "$(date +%s.%N) ${g:-0} $(awk '/MemTotal/ {t=$2} /MemAvailable/ {a=$2} END {print int((t-a)/1024)}' /proc/meminfo)"
    sleep 0.5; done > "$D/mem.txt" ) 2>/dev/null & MEMP=$!
peak() { awk -v a="$1" -v b="$2" -v c="${3:-2}" '$1 >= a && $1 <= b && $c > m { m = $c } END { printf "%.1f", m / 1024 }' "$D/mem.txt"; }
ROWS=(); FAILS=0
one() { # one NAME KEY SPEC K LOG2 MIX [PIN]: zkpipe, then each peer; one table row per peer
  local name=$1 key=$2 spec=$3 k=$4 lg=$5 mix=$6 pin=${7:-} slot slots=2 zsha psha eq
  local l2=${lg%% *}   # "12 (CI case)" -> 12
  slot=$(( (1 << l2) * 160 / 1048576 + 4 )); [ "$l2" -ge 27 ] && slots=1
  local t0 t1 t2 t3 cap zn zrc; local -A ZRC ZT0 ZT1
  # zkpipe's side once per cap of CAPS ("-" = GPU_MEMORY as set, or none), then each peer once
  for cap in ${CAPS:--}; do
    zn=$name.zk; [ "$cap" != - ] && zn=$name.zk$cap
    t0=$(date +%s.%N)
    if ! GPU_MEMORY=$([ "$cap" = - ] && echo "${GPU_MEMORY:-}" || echo "$cap") start $slot $slots; then
      FAILS=$((FAILS + 1)); ROWS+=("| 2^$lg | $mix | - | $k | - | gpud not ready (cap $cap) | - | - | - | - |"); stop "$zn"; ZRC[$zn]=nr; continue
    fi
    "$CMP" prove "$ZLIB" "$key" "$spec" "$k" --reps "${R:-$REPS}" ${OPTS:-} --out "$D/$zn" > "$O/$zn.out" 2>&1
    ZRC[$zn]=$?
    t1=$(date +%s.%N); ZT0[$zn]=$t0; ZT1[$zn]=$t1
    stop "$zn"
    cat "$O/$zn.out" | cut -c1-200
    # this side's figures at once (a call cut short by its budget keeps them): cap, rc, GPU ms a call, peaks
    echo "## zk | 2^$lg | $mix | cap $cap | rc ${ZRC[$zn]} | proofs sha256 $(sha256sum < "$D/$zn" 2>/dev/null | cut -c1-12) | call ms $(field first_ms "$O/$zn.out") / $(field median_ms "$O/$zn.out") | GPU ms $(sed -n 's/.* prove \([0-9.]*\) .*/\1/p' "$O/$zn.out" | tr '\n' ' ')| device GiB $(peak "$t0" "$t1") | host GiB $(peak "$t0" "$t1" 3) |"
  done
  for p in $PEERS; do
    local pn; pn=$(basename "$p" .so)
    t2=$(date +%s.%N)
    "$CMP" prove "$p" "$key" "$spec" "$k" --reps "${R:-$REPS}" ${OPTS:-} --out "$D/$name.$pn" > "$O/$name.$pn.out" 2>&1
    local prc=$?
    t3=$(date +%s.%N)
    grep -v "^call\|^circuit" "$O/$name.$pn.out" | cut -c1-200
    psha=$(sha256sum < "$D/$name.$pn" 2>/dev/null | cut -d' ' -f1)
    for cap in ${CAPS:--}; do
      zn=$name.zk; [ "$cap" != - ] && zn=$name.zk$cap
      [ "${ZRC[$zn]}" = nr ] && continue
      zrc=${ZRC[$zn]}; zsha=$(sha256sum < "$D/$zn" 2>/dev/null | cut -d' ' -f1)
      eq=no
      if [ $zrc = 0 ] && [ $prc = 0 ] && "$CMP" cmp "$D/$zn" "$D/$name.$pn" "$k" > "$D/cmp.out"; then eq=yes; fi
      cat "$D/cmp.out" 2>/dev/null
      [ "$(grep '^digest:' "$O/$zn.out")" = "$(grep '^digest:' "$O/$name.$pn.out")" ] || eq="$eq (inputs differ!)"
      [ -n "$pin" ] && { [ "$zsha" = "$pin" ] && [ "$psha" = "$pin" ] && eq="$eq, = CPU pin" || eq="$eq, CPU pin ${pin:0:12}: zkpipe ${zsha:0:12} peer ${psha:0:12}"; }
      case $eq in yes|"yes, = CPU pin") ;; *) FAILS=$((FAILS + 1));; esac
      ROWS+=("| 2^$lg | $mix | $(sed -n 's/^share: \([0-9.]*\) %.*/\1 %/p' "$O/$zn.out") | $k | $pn$([ "$cap" != - ] && echo " (zkpipe cap $cap)") | **$eq** (zkpipe rc $zrc, peer rc $prc) | $(field first_ms "$O/$zn.out") / $(field median_ms "$O/$zn.out") | $(field first_ms "$O/$name.$pn.out") / $(field median_ms "$O/$name.$pn.out") | $(peak ${ZT0[$zn]} ${ZT1[$zn]}) / $(peak $t2 $t3) | $(peak ${ZT0[$zn]} ${ZT1[$zn]} 3) / $(peak $t2 $t3 3) |")
      echo "## ${ROWS[-1]}"
    done
  done
  if [ -z "$PEERS" ]; then   # no peer: zkpipe's rows alone (its bytes repeated across calls and verified by ss_cmp)
    for cap in ${CAPS:--}; do
      zn=$name.zk; [ "$cap" != - ] && zn=$name.zk$cap
      [ "${ZRC[$zn]}" = nr ] && continue
      [ "${ZRC[$zn]}" = 0 ] || FAILS=$((FAILS + 1))
      zsha=$(sha256sum < "$D/$zn" 2>/dev/null | cut -d' ' -f1); eq="-"
      # the pinned case without a peer: zkpipe's bytes against the CPU's pin alone
      [ -n "$pin" ] && { [ "$zsha" = "$pin" ] && eq="= CPU pin" || { eq="**CPU pin ${pin:0:12}: zkpipe differs**"; FAILS=$((FAILS + 1)); }; }
      ROWS+=("| 2^$lg | $mix | $(sed -n 's/^share: \([0-9.]*\) %.*/\1 %/p' "$O/$zn.out") | $k | none$([ "$cap" != - ] && echo " (zkpipe cap $cap)") | $eq (zkpipe rc ${ZRC[$zn]}; proofs sha256 ${zsha:0:12}) | $(field first_ms "$O/$zn.out") / $(field median_ms "$O/$zn.out") | - | $(peak ${ZT0[$zn]} ${ZT1[$zn]}) / - | $(peak ${ZT0[$zn]} ${ZT1[$zn]} 3) / - |")
      echo "## ${ROWS[-1]}"
    done
  fi
}

# 1. the CPU-pinned case (ssc2_pinned.sh): the key from its toxic seed, on the CPU as there
for mix in $([ "${NOPIN:-0}" = 1 ] || echo 0.99 0.75); do
  spec="n=$CASE_ROWS,pub=$PUB,bool=$mix"; pin=PIN_0${mix#0.}
  "$ZK" setup --cpu --synth "$spec" --h-mode coeff --roots 7 --toxic-seed "$CASE_TOXIC" --out "$D/pin.params" > "$O/setup-pin.log" 2>&1 ||
    { tail -3 "$O/setup-pin.log"; echo "FAIL: setup $spec"; exit 1; }
  OPTS="--seed $CASE_SEED --rs-seed $CASE_RS" R=1 one pin$mix "$D/pin.params" "$spec" "$CASE_K" "12 (CI case)" "$mix" "${!pin}"
done
# 2. the sizes: a fresh random key per size and mix, made on the GPU
for lg in $SIZES; do for mix in $MIXES; do
  rows=$(( (1 << lg) - PUB - 1 )); spec="n=$rows,pub=$PUB,bool=$mix"; k=$PARTS; [ "$lg" -ge 27 ] && k=1
  t0=$(date +%s.%N); kf=${KEYS:-$D}/k.params
  if [ -n "${KEYS:-}" ] && [ -s "$kf" ] && [ "$(cat "$kf.spec" 2>/dev/null)" = "$spec" ]; then
    echo "## 2^$lg bool=$mix: key $kf, made by an earlier run"
  else
    rm -rf "$kf" "$kf.spec" "${KEYS:-$D}/dump"   # the disk: a 2^27 key is 38 GiB, its dump 16
    "$ZK" setup $([ "${BACKEND:-cuda}" = cuda ] && echo --gpu || echo --cpu) --synth "$spec" --h-mode coeff --roots 7 --out "$kf" > "$O/setup.log" 2>&1 ||
      { tail -3 "$O/setup.log"; ROWS+=("| 2^$lg | $mix | - | $k | - | setup failed | - | - | - | - |"); FAILS=$((FAILS + 1)); continue; }
    echo "$spec" > "$kf.spec"
    echo "## 2^$lg bool=$mix: key $(stat -c %s "$kf") bytes in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s"
  fi
  # the partitions synthesized once (ss_cmp dump; a minute at 2^27) and read by every call of the case; with
  # KEYS kept beside the key for a later run of the same case
  dd=${KEYS:-$D}/dump
  if [ -n "${KEYS:-}" ] && [ "$(cat "$dd/case" 2>/dev/null)" = "$spec k=$k" ]; then
    echo "## 2^$lg bool=$mix: partitions $dd, dumped by an earlier run"
  else
    rm -rf "$dd"; mkdir -p "$dd"
    "$CMP" dump "$spec" "$k" "$dd" > "$O/dump-s$lg-$mix.log" 2>&1 ||
      { tail -3 "$O/dump-s$lg-$mix.log"; ROWS+=("| 2^$lg | $mix | - | $k | - | dump failed | - | - | - | - |"); FAILS=$((FAILS + 1)); continue; }
    echo "$spec k=$k" > "$dd/case"
  fi
  OPTS="--dump $dd" one s$lg-$mix "$kf" "$spec" "$k" "$lg" "$mix"
  [ -n "${KEYS:-}" ] || rm -rf "$kf" "$dd"
done; done

table="| domain | witness (bool=) | non-0/1 share measured | partitions a call | peer | proof bytes equal | zkpipe call ms: first / median | supraseal-c2 call ms: first / median | device GiB peak: zkpipe$([ -n "${GPU_MEMORY:-}" ] && echo " (cap $GPU_MEMORY)") / peer | host used GiB peak: zkpipe / peer |
|---|---|---:|---:|---|---|---:|---:|---:|---:|
$(printf '%s\n' "${ROWS[@]}")"
{
  echo
  echo "## Byte-identical to supraseal-c2: the same Assignments, r, s and .params through both ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo
  echo "Machine: $head"
  echo
  echo "Command: \`$([ -n "${GPU_MEMORY:-}" ] && echo "GPU_MEMORY=$GPU_MEMORY ")SIZES=\"$SIZES\" MIXES=\"$MIXES\" PARTS=$PARTS REPS=$REPS tests/cuda/run-ssc2-cmp.sh BIN PEERS\` (ss_cmp: each library loaded by path with dlopen; zkpipe through a supervisor + gpud, backend cuda, stopped before the peer runs; PoRep-shaped synthetic circuits, 328 public inputs, keys \`zkpipe setup --gpu --h-mode coeff --roots 7\` — the first rows the CPU-pinned case of tests/supraseal/ssc2_pinned.sh; every proof verified by a pairing check; $REPS calls after the first, which loads the key, must repeat the bytes; times are whole calls as bellperson sees them, K partitions a call). Peers: $(for p in $PEERS; do printf '%s ' "$(basename "$p")"; done)$([ -f "$PEER/PROVENANCE" ] && { echo; echo; sed 's/^/    /' "$PEER/PROVENANCE"; })"
  echo
  echo "$table"
} > "$OUTDIR/ssc2-cmp.md"
echo; cat "$OUTDIR/ssc2-cmp.md"
[ -f "$RES" ] && cat "$OUTDIR/ssc2-cmp.md" >> "$RES"
[ $FAILS = 0 ] && echo PASS || { echo "FAIL: $FAILS case(s)"; exit 1; }
