# sims.sh — simulated cluster nodes for scale_bench.sh and spread_bench.sh, sourced after
# tests/cluster/lib.sh. A node is zkpipe-clusterd --simulate-prove-ms (cluster/sim.h: the real clusterd
# code and SQL, no supervisor), its config in $T/<name>/zkpipe.ini; PIDS holds the running ones.
#   SIM_ARENA   arena name prefix (the node's name and $TAG follow)   SIM_GPUS   simulated GPUs a node
#   SIM_CAP     [cluster] capacity                                       SIM_VIEW_S [cluster] view_s
CD=$BUILD/cluster/zkpipe-clusterd
PIDS=""
stop_sims() {
  local p
  for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done
  for p in $PIDS; do wait_until 60 dead "$p" || kill -KILL "$p" 2>/dev/null; done
  PIDS=""
}
trap 'stop_sims; cleanup' EXIT
psql_ "INSERT INTO zkpipe.meta (k, v) VALUES ('bench_simulation', 'yes')" >/dev/null

sim_conf() { # NAME
  mkdir -p "$T/$1"
  cat > "$T/$1/zkpipe.ini" <<INI
[run]
dir = $T/$1/run
[key sim]
synth = synth:n=64
setup = device
[group node0]
arena = $SIM_ARENA$TAG.$1
gpus = $SIM_GPUS
slots = $PARTS
max_parts = $PARTS
[cluster]
database = $DB
node = $1
capacity = $SIM_CAP
view_s = $SIM_VIEW_S
INI
}

# start_sims N PROVE_MS: nodes n1 .. nN from an empty node table, back when every one is UP with the key
start_sims() {
  local n=$1 ms=$2 i up
  psql_ "DELETE FROM zkpipe.nodes" >/dev/null
  for i in $(seq 1 "$n"); do
    rm -rf "$T/n$i"; sim_conf "n$i"
    "$CD" --config "$T/n$i/zkpipe.ini" --simulate-prove-ms "$ms" >"$T/n$i/clusterd.log" 2>&1 &
    PIDS="$PIDS $!"
  done
  up="SELECT count(*) FROM zkpipe.nodes WHERE state = 'UP' AND keys LIKE '%sim%'"
  wait_until 180 sql_is "$up" = $n ||
    fail "$n nodes: not all came up ($(psql_ "$up") UP)"
}
