#!/usr/bin/env bash
# The zkpipe CLI does not link libpq (cluster/db.c loads libpq.so.5 with dlopen on the first
# --database connect): ldd shows no libpq; zkpipe-clusterd still links it. Without a loadable
# libpq (a mount namespace of the test's own with /dev/null over it: root and unshare, else the
# rest is skipped) local commands still run, and a --database command fails, exit 10, with
# "cluster commands need libpq (PostgreSQL client library): ..." naming libpq.so.5.
set -u
B=$(cd "$1" && pwd)
ZK=$B/tools/zkpipe; CD=$B/cluster/zkpipe-clusterd
fail() { echo "FAIL: $*"; exit 1; }
readelf -d "$ZK" | grep -q 'NEEDED.*libpq' && fail "zkpipe links libpq: $(readelf -d "$ZK" | grep libpq)"
readelf -d "$CD" | grep -q 'NEEDED.*\[libpq\.so\.5\]' || fail "zkpipe-clusterd does not link libpq.so.5"
pq=$(ldd "$CD" | awk '$1 == "libpq.so.5" { print $3 }')
[ -n "$pq" ] || fail "libpq.so.5 not found by ldd of zkpipe-clusterd"
[ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null || { echo "SKIP: the no-libpq run needs root and unshare -m"; exit 77; }
out=$(unshare -m bash -c '
  mount --bind /dev/null "$(readlink -f "$2")" || exit 99
  "$1" --help >/dev/null || { echo "--help failed: $?"; exit 98; }
  "$1" status --database "host=/nonexistent dbname=x" 1 2>&1; echo "rc=$?"' _ "$ZK" "$pq")
echo "$out"
case $out in *"rc=99") echo "SKIP: cannot bind-mount over $pq"; exit 77;; esac
case $out in *"rc=10") ;; *) fail "want exit 10";; esac
case $out in *"cluster commands need libpq (PostgreSQL client library): "*libpq.so.5*) ;; *) fail "message";; esac
echo PASS
