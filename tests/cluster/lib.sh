# lib.sh — shared by the cluster tests: a throwaway PostgreSQL server (initdb + pg_ctl as the
# postgres user, Unix socket in the test's temporary directory, removed at exit), cluster nodes
# (a supervisor each, with [cluster]), optionally each in a network namespace of the test's own
# making that reaches the database over TCP through a veth pair.
# Usage from a test:  . "$(dirname "$0")/lib.sh" "$@"   (args: build dir, source dir)
# (fail, skip, log, alive, wait_until, the hold gate's files: tests/pipeline/helpers.sh, shared)
. "$(dirname "${BASH_SOURCE[0]}")/../pipeline/helpers.sh"
EX=$SRC/examples/chain
T=$(mktemp -d /tmp/zpc.XXXXXX)
TAG=$(basename "$T" | cut -d. -f2)
# the CLI's exit codes (tools/cmds.h; cluster/cli.c uses the same values)
EX_JOB_FAILED=11 EX_DB=10
NODES=""; NETNS=""; PG_UP=0

dump() {
  for n in $NODES; do
    echo "--- $n supervisor"; tail -n 25 "$T/$n/supervisor.log" 2>/dev/null
    echo "--- $n clusterd"; tail -n 25 "$T/$n/run/log/node0.cluster0" 2>/dev/null
    for f in "$T/$n"/run/log/node0.*d*; do [ -f "$f" ] && { echo "--- $f"; tail -n 8 "$f"; }; done
  done
  echo "--- postgres"; tail -n 15 "$T/pg/log" 2>/dev/null
}

PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$PGBIN" ] && [ -x "$PGBIN/initdb" ] || skip "PostgreSQL server not installed (postgresql package)"
id postgres >/dev/null 2>&1 || skip "no postgres user"
[ "$(id -u)" = 0 ] || skip "needs root (initdb runs as the postgres user)"
PORT=$((20000 + RANDOM % 30000))
PG=$T/pg
DB="host=$PG port=$PORT user=postgres dbname=postgres"
PG_LISTEN=""

pg() { runuser -u postgres -- "$PGBIN/$@"; }
pg_start() {
  pg pg_ctl -D "$PG/data" -l "$PG/log" -w -t 60 -o "-k $PG -p $PORT -c listen_addresses='$PG_LISTEN' \
    ${PG_OPTS--c fsync=off -c synchronous_commit=off -c full_page_writes=off} -c max_connections=60" start >/dev/null ||
    { tail "$PG/log"; fail "pg_ctl start"; }
  PG_UP=1
}
pg_stop() { pg pg_ctl -D "$PG/data" -m "${1:-fast}" -w -t 60 stop >/dev/null; PG_UP=0; }
# pg_init [HBA line]: a new cluster in $PG (trust: only this test's socket and namespaces reach it)
pg_init() {
  chmod 711 "$T"; mkdir -p "$PG"; chown postgres: "$PG"; chmod 700 "$PG"
  pg initdb -D "$PG/data" -A trust -U postgres --no-sync -E UTF8 >"$T/initdb.log" 2>&1 ||
    { cat "$T/initdb.log"; fail "initdb"; }
  [ -n "${1:-}" ] && echo "$1" >> "$PG/data/pg_hba.conf"
  pg_start
}
psql_() { "$PGBIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 "$DB" -c "$1"; }
# sql_is QUERY TEST VALUE: the query's value passes [ VALUE' TEST VALUE ] (false when psql fails): a
# condition for wait_until, e.g. wait_until 120 sql_is "SELECT count(*) FROM zkpipe.partitions" -ge 1
sql_is() { local v; v=$(psql_ "$1") && [ "$v" "$2" "$3" ]; }

node_pids() { # every process of node $1: supervisor and its arena's daemons
  local n=$1
  cat "$T/$n/sup.pid" 2>/dev/null
  pids_of_arena "zpc$TAG.$n"
  pgrep -f "zkpipe-clusterd --config $T/$n/" 2>/dev/null
}

cleanup() {
  local n p
  for n in $NODES; do
    p=$(cat "$T/$n/sup.pid" 2>/dev/null); [ -n "$p" ] && kill -TERM "$p" 2>/dev/null
  done
  for n in $NODES; do
    p=$(cat "$T/$n/sup.pid" 2>/dev/null)
    for _ in $(seq 100); do [ -n "$p" ] && kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    for p in $(node_pids "$n"); do kill -KILL "$p" 2>/dev/null; done
    rm -f /dev/shm/zkpipe."zpc$TAG.$n"* 2>/dev/null
  done
  for n in $NETNS; do ip netns del "zc$TAG$n" 2>/dev/null; ip link del "zv$TAG$n" 2>/dev/null; done
  [ "$PG_UP" = 1 ] && pg_stop immediate
  rm -rf "$T"
}
trap cleanup EXIT

# make_netns I: namespace zc$TAG<I> holding one end (zp$TAG<I>, $NET.4I+2/30) of a veth pair whose
# other end (zv$TAG<I>, $NET.4I+1) stays here; only addresses of these test namespaces are used.
make_netns() {
  local i=$1 ns=zc$TAG$1
  NETNS="$NETNS $i"
  ip netns add "$ns" || fail "ip netns add $ns"
  ip link add "zv$TAG$i" type veth peer name "zp$TAG$i" || fail "veth pair"
  ip link set "zp$TAG$i" netns "$ns"
  ip addr add "$NET.$((4 * i + 1))/30" dev "zv$TAG$i"; ip link set "zv$TAG$i" up
  ip netns exec "$ns" ip addr add "$NET.$((4 * i + 2))/30" dev "zp$TAG$i"
  ip netns exec "$ns" ip link set "zp$TAG$i" up; ip netns exec "$ns" ip link set lo up
}

# node_config NAME [database] -- extra lines go to the end (e.g. a [debug] section)
node_config() {
  local n=$1 db=${2:-$DB}
  mkdir -p "$T/$n" "$T/out" "$T/in"
  cat > "$T/$n/zkpipe.ini" <<INI
[run]
dir = $T/$n/run
keep_arena = no
allow_input = $EX:$T/in
allow_output = $T/out
[limits]
max_attempts = 3
restart_min_ms = 50
restart_max_ms = 1000
[key chain]
zkey = $EX/chain.zkey
r1cs = $EX/chain.r1cs
${EXTRA_KEYS:-}
[group node0]
arena = zpc$TAG.$n
node = 0
gpus = ${GPUDS:-1}
synth_workers = ${WORKERS:-1}
slots = ${SLOTS:-2}
slot_size = 2M
jobs = 64
max_parts = 16
synth_threads = 1
gpud_threads = 1
[cluster]
database = $db
node = $n
heartbeat_s = ${HB_S:-1}
dead_after_s = ${DEAD_S:-4}
poll_ms = ${POLL_MS:-500}
${EXTRA_CLUSTER:-}
${EXTRA:-}
INI
  case " $NODES " in *" $n "*) ;; *) NODES="$NODES $n";; esac
}

# start_node NAME [netns]: the supervisor (which starts clusterd); waits for its API
start_node() {
  local n=$1 ns=${2:-}
  if [ -n "$ns" ]; then
    setsid ip netns exec "$ns" "$SUP" --config "$T/$n/zkpipe.ini" >>"$T/$n/supervisor.log" 2>&1 &
  else
    setsid "$SUP" --config "$T/$n/zkpipe.ini" >>"$T/$n/supervisor.log" 2>&1 &
  fi
  echo $! > "$T/$n/sup.pid"; disown
  await_api "$T/$n/zkpipe.ini" "$(cat "$T/$n/sup.pid")" "node $n"
}

# The [debug] hold_at gate of node $1 (pipeline/daemon.h; its config has hold_at = ...):
# hold_release NODE N lets N more partitions through, hold_open NODE all, hold_close NODE none.
hold_release() { gate_release "$T/$1/run/hold" "$2"; }
hold_open() { gate_open "$T/$1/run/hold"; }
hold_close() { gate_close "$T/$1/run/hold"; }

node_up() { [ "$(psql_ "SELECT count(*) FROM zkpipe.nodes WHERE name = '$1' AND state = 'UP' AND keys LIKE '%chain%'" 2>/dev/null)" = 1 ]; }

# submit_jobs COUNT PARTS -> ids appended to $T/ids (witnesses by path, w0..w7 in turn)
submit_jobs() {
  local c=$1 n=$2 j i ins id
  for j in $(seq 1 "$c"); do
    ins=()
    for i in $(seq 0 $((n - 1))); do ins+=("$EX/w$(((j + i) % 8)).wtns"); done
    id=$("$ZK" submit --database "$DB" --key chain "${ins[@]}") || fail "submit"
    echo "$id" >> "$T/ids"
  done
}

# The checks every scenario ends with: each job DONE exactly once ('done' event once, no second
# delivery), every partition committed once with its node recorded, every proof valid.
check_all_done() {
  local ids bad=0
  ids=$(tr '\n' ',' < "$T/ids" | sed 's/,$//')
  local notdone; notdone=$(psql_ "SELECT id || ' ' || state || ' ' || error FROM zkpipe.jobs WHERE id IN ($ids) AND state <> 'DONE'")
  [ -z "$notdone" ] || fail "jobs not DONE: $notdone"
  local twice; twice=$(psql_ "SELECT job FROM zkpipe.events WHERE what = 'done' AND job IN ($ids) GROUP BY job HAVING count(*) <> 1")
  [ -z "$twice" ] || fail "jobs delivered other than once: $twice"
  local miss; miss=$(psql_ "SELECT j.id FROM zkpipe.jobs j WHERE j.id IN ($ids) AND
      (SELECT count(*) FROM zkpipe.partitions p WHERE p.job = j.id AND p.node <> '' AND p.gpu <> '') <> j.nparts")
  [ -z "$miss" ] || fail "jobs whose partitions are not all committed with their node: $miss"
  rm -rf "$T/got"; mkdir -p "$T/got"
  local dir=$T/got; [ "$(wc -l < "$T/ids")" = 1 ] && dir=$T/got/$(cat "$T/ids") # one job: DIR itself
  "$ZK" wait --database "$DB" --timeout 60 --output "$dir" $(cat "$T/ids") > "$T/wait_out.log" ||
    fail "wait --output: $(tail -3 "$T/wait_out.log")"
  local id p n
  for id in $(cat "$T/ids"); do
    n=$(psql_ "SELECT nparts FROM zkpipe.jobs WHERE id = $id")
    [ -f "$T/got/$id/proofs.json" ] || { echo "job $id: no proofs.json"; bad=1; }
    for p in $(seq 0 $((n - 1))); do
      "$ZK" verify --vk "$EX/vk.json" --proof "$T/got/$id/part-$p.proof.json" \
        --public "$T/got/$id/part-$p.public.json" >"$T/verify.out" 2>&1 ||
        { echo "job $id part $p: invalid: $(tail -n 2 "$T/verify.out")"; bad=1; }
    done
  done
  [ $bad = 0 ] || fail "proofs"
}
