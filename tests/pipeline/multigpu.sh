#!/usr/bin/env bash
# One group, three "GPUs" served by CPU-backend gpuds under one supervisor. The GPUs are
# listed as an ordinal and two PCI bus ids that a fake sysfs tree ($ZKPIPE_SYSFS) describes:
#   gpus = 0, aa:00.0, 0000:BB:00.0    NVIDIA functions in sysfs: 0000:11, 0000:aa, 0000:bb
#   -> ordinals 0, 1, 2 (rank in PCI bus order); NUMA nodes: gpud0 the group's (0),
#      gpud1 its sysfs numa_node (1), gpud2 gpu.2.numa = 0 over its sysfs numa_node (1).
# Checks: every gpud child has CUDA_VISIBLE_DEVICES=<ordinal>, ZP_CUDA_DEVICE=0 and
# CUDA_DEVICE_ORDER=PCI_BUS_ID in /proc/<pid>/environ and the CPUs of its node; partitions of
# one job are proved on every GPU (part-<p>.gpu.json); a gpud SIGKILLed mid-proof loses
# nothing (every proof verifies, parts_proved == partitions submitted) and comes back with
# the same GPU. Also: a bus id that is not an NVIDIA GPU is refused at start.
. "$(dirname "$0")/lib.sh" "$@"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
export ZKPIPE_SYSFS=$T/sys
fake_dev() { # bus vendor class numa_node
  local d=$ZKPIPE_SYSFS/bus/pci/devices/$1; mkdir -p "$d"
  echo "$2" > "$d/vendor"; echo "$3" > "$d/class"; echo "$4" > "$d/numa_node"
}
fake_dev 0000:05:00.0 0x8086 0x020000 0
fake_dev 0000:11:00.0 0x10de 0x030200 0
fake_dev 0000:aa:00.0 0x10de 0x030200 1
fake_dev 0000:bb:00.0 0x10de 0x030000 1

# A bus id that is no NVIDIA GPU: the supervisor refuses the config, naming the device.
GPUDS=0000:05:00.0,aa:00.0 write_config
timeout -k 10 120 "$SUP" --config "$CFG" > "$T/bad.log" 2>&1 && fail "supervisor accepted a non-NVIDIA bus id"
grep -q "0000:05:00.0 is not an NVIDIA GPU" "$T/bad.log" || { cat "$T/bad.log"; fail "unclear error for a bad bus id"; }
bad_config() { # expected message, then write_config's variables as env
  timeout -k 10 120 "$SUP" --config "$CFG" > "$T/bad.log" 2>&1 && fail "supervisor accepted: $1"
  [ $? = 124 ] && fail "supervisor started on a bad config: $1"
  grep -q "$1" "$T/bad.log" || { cat "$T/bad.log"; fail "unclear error, want: $1"; }
}
GPUDS=0,11:00.0 write_config; bad_config "GPU 0 listed twice"
GPUDS=0,1 EXTRA="gpu.2.numa = 1" write_config; bad_config "gpu.2.numa: the group has 2 GPU(s)"
GPUDS=0,x1 write_config; bad_config "'x1' is neither a CUDA ordinal nor a PCI bus id"

GPUDS="0, aa:00.0, 0000:BB:00.0" WORKERS=2 SLOTS=4 EXTRA=$'gpu.2.numa = 0\n[topology]\nnode0 = 0\nnode1 = 1\n[debug]\nhold_at = proved' write_config
start_sup
for j in 0 1 2 3; do submit_job j$j 6 $j >/dev/null; done

# every gpud holds a proof of its own at the [debug] hold_at = proved gate (the partition still
# PROVING) before gpud 1 is killed: the kill lands mid-proof and each GPU has work, whatever the
# machine's speed. gpuds take the oldest job's READY partitions first, so job j0 is proved on all three.
held_by() { cat "$T"/run/log/*gpud"$1"* 2>/dev/null | grep -c "hold_at = proved: job [0-9]* part [0-9]* held"; }
all_held() { [ "$(held_by 0)" -ge 1 ] && [ "$(held_by 1)" -ge "$1" ] && [ "$(held_by 2)" -ge 1 ]; }
wait_until 120 all_held 1 || fail "not every gpud holds a proof (held: $(held_by 0) $(held_by 1) $(held_by 2))"

# Environment and pinning of every daemon, then kill gpud 1 mid-run.
check_procs() { status_json | python3 -c '
import json, sys
d = json.load(sys.stdin)
want = {0: ("0", "0"), 1: ("1", "1"), 2: ("2", "0")}   # gpud index: (CUDA_VISIBLE_DEVICES, CPUs)
seen = set()
for p in d["processes"]:
    if not p["alive"]:
        sys.exit("%s.%d not running" % (p["role"], p["index"]))
    env = dict(e.split("=", 1) for e in open("/proc/%d/environ" % p["pid"], "rb").read().decode().split("\0") if "=" in e)
    cpus = next(l.split()[1] for l in open("/proc/%d/status" % p["pid"]) if l.startswith("Cpus_allowed_list"))
    if p["role"] == "gpud":
        cvd, node_cpus = want[p["index"]]
        assert env.get("CUDA_VISIBLE_DEVICES") == cvd, (p, env.get("CUDA_VISIBLE_DEVICES"))
        assert env.get("ZP_CUDA_DEVICE") == "0" and env.get("CUDA_DEVICE_ORDER") == "PCI_BUS_ID", p
        assert p["gpu_ordinal"] == int(cvd) and p["numa_node"] == int(node_cpus), p
        assert cpus == node_cpus, (p, cpus)
        seen.add(p["index"])
    else:
        assert cpus == "0", (p, cpus)
assert seen == {0, 1, 2}, seen
print(next(p["pid"] for p in d["processes"] if p["role"] == "gpud" and p["index"] == 1))
'; }
victim=$(check_procs) || fail "gpud environment / pinning"
log "SIGKILL gpud.1 pid $victim mid-run"
kill -KILL "$victim"
wait_until 120 all_held 2 || fail "the restarted gpud 1 holds no proof"
hold_open
all_proved_once 300
wait_until 60 check_procs >/dev/null || { check_procs; fail "restarted gpud environment / pinning"; }
restarts=$(status_json | jget "[p['restarts'] for p in d['processes'] if p['role']=='gpud']")
[ "$restarts" = "[0, 1, 0]" ] || fail "gpud restarts $restarts, want [0, 1, 0]"

# Who proved what: part-<p>.gpu.json per partition.
python3 - "$T/out" "$T/ids" <<'PY' || fail "partitions not spread over the GPUs"
import json, sys
out, ids = sys.argv[1], sys.argv[2]
gpu = {0: ("0", 0), 1: ("0000:aa:00.0", 1), 2: ("0000:bb:00.0", 2)}
per_job, total = {}, {0: 0, 1: 0, 2: 0}
for line in open(ids):
    jid, name, n = line.split()
    for p in range(int(n)):
        r = json.load(open("%s/%s/part-%d.gpu.json" % (out, name, p)))
        assert r["job"] == int(jid) and r["part"] == p and r["backend"] == "cpu", r
        want = gpu[r["gpud"]]
        assert (r["gpu"], r["ordinal"]) == want, r
        assert r["cuda_visible_devices"] == str(r["ordinal"]), r
        per_job.setdefault(name, set()).add(r["gpud"])
        total[r["gpud"]] += 1
print("partitions per gpud:", total, "gpuds per job:", {k: sorted(v) for k, v in per_job.items()})
assert all(total.values()), total
assert any(v == {0, 1, 2} for v in per_job.values()), per_job
PY
echo "PASS: 3 GPUs (ordinal + 2 bus ids), env + NUMA per GPU, jobs spread, gpud.1 killed, $n partitions proved once each"
