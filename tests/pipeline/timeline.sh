#!/usr/bin/env bash
# `zkpipe timeline`: the SVG (parsed as XML) has one g.job per job with one g.partition per
# partition in order, each with its stage bars in pipeline order (queued, slot_wait, synthesis,
# ready, copy, gpu, finish) whose ns bounds are the job record's timestamps and whose x never
# goes back; a slots and a gpu strip per group never above the group's slots / gpuds; --job
# draws one job; an active job is drawn from the supervisor; after the supervisor has stopped
# (records out of the arena) every finished job is still drawn from results/; an unknown job
# is exit 3 with no file written; `zkpipe demo --keep` leaves timeline.svg.
. "$(dirname "$0")/lib.sh" "$@"
# job e below stays ACTIVE while the timeline draws it: it waits at the [debug] hold_at gate
EXTRA=$'[debug]\nsynth_delay_ms = 120\nhold_at = prove'
SLOTS=3
write_config
start_sup
hold_open
submit_job a 1 >/dev/null; submit_job b 3 2 >/dev/null; submit_job c 2 5 >/dev/null
wait_all 300 || { cat "$T/wait.out"; fail "jobs did not finish"; }

# check_svg SVG IDS-FILE [STATE-OF-LAST]: the structure against the results records
check_svg() {
  python3 - "$1" "$2" "$T/run/results" "${3:-}" <<'EOF'
import json, os, sys, xml.etree.ElementTree as ET
svg, idsf, res, last_state = sys.argv[1:5]
NS = "{http://www.w3.org/2000/svg}"
ORDER = ["queued", "slot_wait", "synthesis", "ready", "copy", "gpu", "finish"]
SPANS = {"queued": (None, "claimed"), "slot_wait": ("claimed", "synth_start"), "synthesis": ("synth_start", "synth_end"),
         "ready": ("ready", "copy_start"), "copy": ("copy_start", "copy_end"), "gpu": ("gpu_start", "gpu_end"),
         "finish": ("gpu_end", "done")}
root = ET.parse(svg).getroot()
assert root.tag == NS + "svg", root.tag
cls = lambda e: (e.get("class") or "").split()
jobs = [g for g in root.iter(NS + "g") if "job" in cls(g)]
want = [l.split() for l in open(idsf)]
assert [int(g.get("data-job")) for g in jobs] == [int(w[0]) for w in want], ([g.get("data-job") for g in jobs], want)
for g, (jid, name, n) in zip(jobs, want):
    parts = [p for p in g if p.tag == NS + "g" and "partition" in cls(p)]
    assert len(parts) == int(n) == int(g.get("data-parts")), (jid, len(parts), n)
    assert [int(p.get("data-part")) for p in parts] == list(range(int(n)))
    rec = None
    if os.path.exists("%s/%s.json" % (res, jid)):
        rec = json.load(open("%s/%s.json" % (res, jid)))
    if g.get("data-state") != "ACTIVE":
        assert rec and g.get("data-state") == rec["state"] == "DONE", (jid, g.get("data-state"))
    for p in parts:
        bars = [b for b in p if b.tag == NS + "rect" and "bar" in cls(b)]
        stages = [b.get("data-stage") for b in bars]
        assert stages == [s for s in ORDER if s in stages], ("stage order", jid, stages)
        if p.get("data-state") == "DONE":
            assert stages == ORDER, ("a DONE partition has every stage", jid, stages)
        x_end = -1
        for b in bars:
            x, w = float(b.get("x")), float(b.get("width"))
            assert w > 0 and x >= x_end - 0.31, ("bars go back in time", jid, b.attrib)
            x_end = x + w
            assert int(b.get("data-t1")) >= int(b.get("data-t0"))
        if rec and rec["state"] == "DONE":
            ts = rec["partitions"][int(p.get("data-part"))]["ts"]
            for b in bars:
                a, z = SPANS[b.get("data-stage")]
                assert int(b.get("data-t0")) == (rec["submit_ns"] if a is None else ts[a]), b.attrib
                assert int(b.get("data-t1")) == ts[z], b.attrib
if last_state:
    assert jobs[-1].get("data-state") == last_state, (jobs[-1].get("data-state"), last_state)
strips = {(s.get("data-strip"), s.get("data-group")): s for s in root.iter(NS + "g") if "strip" in cls(s)}
assert set(strips) == {("slots", "node0"), ("gpu", "node0")}, strips.keys()
for (kind, grp), s in strips.items():
    cap = {"slots": 3, "gpu": 1}[kind]
    assert int(s.get("data-max")) == cap and 1 <= int(s.get("data-peak")) <= cap, s.attrib
    occ = [r for r in s if "occ" in cls(r)]
    assert occ and all(1 <= int(r.get("data-count")) <= cap for r in occ), kind
print("%s: %d jobs, %d partitions" % (svg, len(jobs), sum(int(w[2]) for w in want)))
EOF
}
"$ZK" timeline --config "$CFG" --out "$T/all.svg" >/dev/null || fail "timeline"
check_svg "$T/all.svg" "$T/ids" || fail "timeline structure"

# one job
head -n2 "$T/ids" | tail -n1 > "$T/one"
"$ZK" timeline --config "$CFG" --job "$(cut -d' ' -f1 "$T/one")" --out "$T/one.svg" >/dev/null || fail "timeline --job"
check_svg "$T/one.svg" "$T/one" || fail "--job structure"

# an active job comes from the supervisor (held at the gate: no partition of e is proved yet)
hold_close
submit_job e 8 >/dev/null
e=$(tail -n1 "$T/ids" | cut -d' ' -f1)
wait_until 120 bash -c "$ZK status --config $CFG --json $e | grep -q '\"synth_start\"'" || fail "job e never started"
"$ZK" timeline --config "$CFG" --out "$T/live.svg" >/dev/null || fail "timeline while active"
[ "$(status_json "$e" | jget "d['state']")" = ACTIVE ] || fail "job e is not ACTIVE at the gate"
check_svg "$T/live.svg" "$T/ids" ACTIVE || fail "active job structure"
hold_open
wait_all 300 || fail "job e"

# finished jobs leave the arena; with the supervisor gone they are drawn from results/
kill -TERM "$SUP_PID"; wait "$SUP_PID"; SUP_PID=
"$ZK" timeline --config "$CFG" --out "$T/after.svg" >/dev/null || fail "timeline without a supervisor"
check_svg "$T/after.svg" "$T/ids" || fail "timeline from the records"

# an unknown job: exit 3, no file
"$ZK" timeline --config "$CFG" --job 999999 --out "$T/none.svg" 2>"$T/none.err"; rc=$?
[ $rc = 3 ] && [ ! -e "$T/none.svg" ] || fail "unknown job: rc $rc, file $(ls "$T"/none.svg 2>&1)"

# the demo keeps its timeline
timeout -k 10 600 "$ZK" demo --keep --jobs 2 --parts 2 > "$T/demo.out" 2>&1 || { cat "$T/demo.out"; fail "demo"; }
kept=$(sed -n 's/^logs and proofs kept in //p' "$T/demo.out")
[ -n "$kept" ] && [ -f "$kept/timeline.svg" ] || { cat "$T/demo.out"; fail "demo --keep left no timeline.svg"; }
python3 - "$kept/timeline.svg" <<'EOF' || { rm -rf "$kept"; fail "demo timeline"; }
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
r = ET.parse(sys.argv[1]).getroot()
jobs = [g for g in r.iter(NS + "g") if g.get("class") == "job"]
parts = [g for g in r.iter(NS + "g") if g.get("class") == "partition"]
assert len(jobs) == 2 and len(parts) == 4, (len(jobs), len(parts))
assert all(len([b for b in p if "bar" in (b.get("class") or "")]) == 7 for p in parts)
EOF
case "$kept" in /tmp/zkpipe-demo.*) rm -rf "$kept";; esac
echo "PASS: timeline rows, bars in stage order with the records' times, strips, --job, active, after stop, demo"
