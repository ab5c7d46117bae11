#!/usr/bin/env bash
# zkpipe prove/demo --backend cuda on a machine without a GPU: exit 8, one line naming the cause, no
# output files. Skips (77) where a GPU is present. Usage: backend_nodev.sh ZKPIPE EXAMPLES_CHAIN_DIR
set -u
zk=$1; dir=$2; t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
"$zk" prove --zkey "$dir/chain.zkey" --wtns "$dir/w0.wtns" --proof "$t/p.json" --public "$t/u.json" \
  --backend cuda 2>"$t/err"; rc=$?
cat "$t/err"
if [ $rc = 0 ]; then echo "a GPU is present: skip"; exit 77; fi
[ $rc = 8 ] || { echo "FAIL: exit $rc, want 8"; exit 1; }
grep -q "^zkpipe prove: backend cuda: no CUDA GPU" "$t/err" || { echo "FAIL: message"; exit 1; }
[ ! -e "$t/p.json" ] || { echo "FAIL: a proof was written"; exit 1; }
"$zk" prove --zkey "$dir/chain.zkey" --wtns "$dir/w0.wtns" --proof "$t/p.json" --public "$t/u.json" \
  --backend gpu 2>/dev/null; rc=$?
[ $rc = 2 ] || { echo "FAIL: --backend gpu exit $rc, want 2"; exit 1; }
# the demo says the same up front, before starting anything
"$zk" demo --backend cuda --jobs 1 --parts 1 2>"$t/err" >/dev/null; rc=$?
cat "$t/err"
[ $rc = 8 ] || { echo "FAIL: demo --backend cuda exit $rc, want 8"; exit 1; }
grep -q "^zkpipe demo: backend cuda: no CUDA GPU" "$t/err" || { echo "FAIL: demo message"; exit 1; }
"$zk" demo --backend gpu 2>/dev/null >/dev/null; rc=$?
[ $rc = 2 ] || { echo "FAIL: demo --backend gpu exit $rc, want 2"; exit 1; }
echo PASS
