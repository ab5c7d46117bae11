#!/usr/bin/env bash
# The Filecoin payload through the CUDA backend's density path (prover/backend_cuda.c: its compact ops table), on a
# GPU host. The same key, witnesses and r, s as tests/supraseal/pinned.sh: the proof bytes must be
# the pinned ones — the CPU backend's, and gpud_ss.c's before the one-prover refactor — with the
# arena registered (slot → device DMA) and with ZP_CUDA_NO_REGISTER=1 (staged through the backend's pinned buffers);
# then a PoRep-shaped partition of LOG rows (default 16, 328 public inputs), every proof verified;
# then keys of root family 7 (issue 19 item 4: `zkpipe setup --roots 7`, snarkjs and coefficient H,
# and one converted from a .params) proving synthd's partitions on the CUDA backend, verified.
#   [BACKEND=cuda] tests/cuda/run-ss-gpu.sh BIN_DIR [LOG]   (BACKEND=cpu: a dry run of the script without a GPU)
#   BIN_DIR: scripts/gpu-bin.sh output (zkpipe, zkpipe-supervisor, zkpipe-synthd, zkpipe-gpud,
#            ss_harness, libzkpipe-supraseal.so.0, lib/)
set -eu
: "${1:?usage: run-ss-gpu.sh BIN_DIR [LOG]}"   # in $(...) a failed ${N:?} would only end the subshell
BIN=$(readlink -f "$1"); LOG=${2:-16}
export LD_LIBRARY_PATH="$BIN:$BIN/lib:${LD_LIBRARY_PATH:-}"
PIN=$(sed -n 's/^PIN=//p' "$(dirname "$0")/../supraseal/pinned.sh")
T=$(mktemp -d /tmp/zpssgpu.XXXXXX); SUP=; mkdir -p "$T/out"
trap '[ -n "$SUP" ] && kill $SUP 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
H=$BIN/ss_harness
start() { # start SLOT_SIZE [KEYS]: a supervisor with one gpud, backend cuda
  cat > "$T/z.ini" <<INI
[run]
dir = $T/run
allow_output = $T/out
keep_arena = no
[limits]
memory_limit = off
[key chain]
zkey = $(readlink -f "$(dirname "$0")/../../examples/chain/chain.zkey")
${2:-}
[group g]
gpus = 1
synth_workers = 1
slots = 2
slot_size = $1
jobs = 16
max_parts = 10
backend = ${BACKEND:-cuda}
INI
  "$BIN/zkpipe-supervisor" --config "$T/z.ini" >>"$T/sup.log" 2>&1 & SUP=$!
  export ZKPIPE_CONFIG=$T/z.ini
  for _ in $(seq 600); do grep -q "backend ${BACKEND:-cuda} ready" "$T"/run/log/*gpud* 2>/dev/null && return 0; sleep 0.1; done
  cat "$T/sup.log" "$T"/run/log/* 2>/dev/null; echo "FAIL: gpud not ready"; exit 1
}
stop() { kill -TERM $SUP; wait $SUP 2>/dev/null || true; SUP=; rm -rf "$T/run"; }
fail() { echo "FAIL: $*"; tail -n 30 "$T"/run/log/* 2>/dev/null; exit 1; }

"$H" keygen "$T/k.params" 1000 16 --toxic-seed 1907 >/dev/null || fail keygen
for mode in dma fallback; do
  [ $mode = fallback ] && export ZP_CUDA_NO_REGISTER=1
  start 8M
  "$H" prove "$T/k.params" 1000 16 3 --seed 5 --rs-seed 77 --out "$T/p.$mode" > "$T/$mode.out" 2>&1 ||
    { cat "$T/$mode.out"; fail "$mode: prove"; }
  got=$(sha256sum < "$T/p.$mode" | cut -d' ' -f1)
  grep -h "srs ss:\|arena registered\|cannot register" "$T"/run/log/*gpud* | sed 's/^/  /'
  [ "$got" = "$PIN" ] || fail "$mode: proof bytes $got differ from the CPU's pinned $PIN"
  echo "ok: $mode: 3 partitions, proof bytes = the CPU backend's ($got)"
  stop
done
unset ZP_CUDA_NO_REGISTER
rows=$(( (1 << LOG) - 400 ))
"$H" keygen "$T/big.params" $rows 328 >/dev/null || fail "keygen 2^$LOG"
start $(( (1 << LOG) * 160 / 1048576 + 4 ))M
"$H" prove "$T/big.params" $rows 328 2 --repeat 2 --stats > "$T/big.out" 2>&1 || { cat "$T/big.out"; fail "2^$LOG"; }
grep -E "^call|^stats" "$T/big.out" | sed 's/^/  /'
echo "ok: 2^$LOG PoRep-shaped partitions proved on the GPU and verified (the same r, s twice gave the same proof)"
stop
Z=$BIN/zkpipe; SPEC="synth:n=30000,pub=8,seed=9"
"$Z" setup --cpu --synth "$SPEC" --roots 7 --out "$T/s7.zpk" >/dev/null 2>&1 || fail "setup --roots 7"
"$Z" setup --cpu --synth "$SPEC" --roots 7 --h-mode coeff --out "$T/c7.zpk" >/dev/null 2>&1 || fail "setup --roots 7 coeff"
"$Z" key convert --from "$T/c7.zpk" --to "$T/c7.params" >/dev/null 2>&1 || fail "to .params"
"$Z" key convert --from "$T/c7.params" --to "$T/p7.zpk" --synth "$SPEC" >/dev/null 2>&1 || fail "from .params"
keys=""; for k in s7 c7 p7; do keys="$keys[key $k]
synth = $SPEC
zkey = $T/$k.zpk
"; done
start 64M "$keys"
ids=""
for k in s7 c7 p7; do
  id=$("$Z" submit --config "$T/z.ini" --key $k --output "$T/out/$k" synth:1 synth:2) || fail "submit $k"; ids="$ids $id"
done
"$Z" wait --config "$T/z.ini" --timeout 300 $ids > "$T/wait.out" || { cat "$T/wait.out"; fail "family-7 jobs"; }
for k in s7 c7 p7; do for p in 0 1; do
  "$Z" verify --vk "$T/run/keys/$k.vk.json" --proof "$T/out/$k/part-$p.proof.json" \
    --public "$T/out/$k/part-$p.public.json" >/dev/null 2>&1 || fail "$k part $p does not verify"
done; done
echo "ok: family-7 keys (setup snarkjs H, setup coeff H, from .params) proved on the GPU and verified"
stop
echo "PASS"
