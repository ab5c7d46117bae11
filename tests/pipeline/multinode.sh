#!/usr/bin/env bash
# Two process groups on a [topology] that splits this machine's CPUs into two "nodes"
# (node1 need not exist in hardware): each group has its own arena and daemons, each daemon
# is pinned to its node's CPUs, jobs are spread over both groups, and all end DONE.
. "$(dirname "$0")/lib.sh" "$@"
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || skip "needs 2 CPUs"
write_config
ARENA1=zpt$(basename "$T" | cut -d. -f2).node1
cat >> "$CFG" <<INI
[topology]
node0 = 0
node1 = 1
[group node1]
arena = $ARENA1
node = 1
gpus = 1
synth_workers = 1
slots = 2
slot_size = 2M
jobs = 16
max_parts = 8
synth_threads = 1
gpud_threads = 1
INI
trap 'cleanup; ARENA=$ARENA1; for p in $(arena_pids); do kill -KILL $p 2>/dev/null; done' EXIT
start_sup
for j in 0 1 2 3 4 5; do submit_job j$j 2 $j >/dev/null; done
groups=$(cut -d' ' -f1 "$T/ids" | while read -r id; do echo $((id & 255)); done | sort -u | tr '\n' ' ')
[ "$groups" = "0 1 " ] || fail "jobs not spread over both groups (group indexes: $groups)"
wait_all 120 || { cat "$T/wait.out"; fail "jobs did not all finish DONE"; }
verify_all || fail "proofs"
status_json | python3 -c '
import json, sys
d = json.load(sys.stdin)
want = {"node0": "0", "node1": "1"}
for p in d["processes"]:
    path = "/proc/%d/status" % p["pid"]
    cpus = next(l.split()[1] for l in open(path) if l.startswith("Cpus_allowed_list"))
    assert cpus == want[p["group"]], (p, cpus)
assert len(d["groups"]) == 2 and d["groups"][1]["arena"] != d["groups"][0]["arena"]
' || fail "daemons not pinned to their node's CPUs"
echo "PASS: 2 groups, pinned per [topology], jobs spread, all proved"
