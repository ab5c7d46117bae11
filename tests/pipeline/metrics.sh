#!/usr/bin/env bash
# /metrics' duration histograms and the progress a user waits on:
# - the exposition parses strictly (promtext.py; the parser itself is shown to reject broken
#   input first), zkpipe_partition_stage_seconds is a histogram per key and stage;
# - its buckets, counts and sums are exactly what the finished jobs' records (results/<job>.json,
#   the stage timestamps) give, stage by stage;
# - /status: every job in job_list with done = parts, slot_list with a state per slot, the
#   gpud's start-up progress finished ("ready"), a throughput history;
# - `zkpipe wait` shows partitions done of total and each one's state on stderr (a line every
#   $ZKPIPE_PROGRESS_S in a log, one updating line on a terminal), stdout unchanged.
. "$(dirname "$0")/lib.sh" "$@"
PORT=$(free_port)
EXTRA_RUN="http = 127.0.0.1:$PORT"
# the jobs are proved only once `zkpipe wait` is watching them (the [debug] hold_at gate: a job finished
# before wait is asked gets no progress line, however fast the machine)
EXTRA=$'[debug]\nsynth_delay_ms = 150\nhold_at = prove'
write_config
start_sup
PY=$SRC/tests/pipeline/promtext.py

# the parser refuses what it must (else the checks below prove nothing)
python3 - "$PY" <<'EOF' || fail "promtext.py accepts broken expositions"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("promtext", sys.argv[1]); p = importlib.util.module_from_spec(spec)
spec.loader.exec_module(p)
H = '# HELP h x\n# TYPE h histogram\n'
ok = H + 'h_bucket{le="1"} 1\nh_bucket{le="+Inf"} 2\nh_sum 3\nh_count 2\n'
p.parse(ok)
bad = [H + 'h_bucket{le="1"} 3\nh_bucket{le="+Inf"} 2\nh_sum 3\nh_count 2\n',      # not cumulative
       H + 'h_bucket{le="1"} 1\nh_bucket{le="+Inf"} 2\nh_sum 3\nh_count 3\n',      # +Inf != count
       H + 'h_bucket{le="1"} 1\nh_sum 3\nh_count 1\n',                              # no +Inf
       H + 'h_bucket{le="2"} 1\nh_bucket{le="1"} 1\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n',  # le order
       H + 'h_bucket{le="+Inf"} 1\nh_count 1\n',                                    # no _sum
       'x 1\n', '# TYPE x counter\nx{a="1} 1\n', '# TYPE x counter\nx 1 2 3\n', '# TYPE x counter\nx one\n',
       '# TYPE x counter\nx 1\n# TYPE x gauge\n', '# TYPE x counter\nx 1\nx 2\n',
       '# TYPE x counter\n# TYPE y counter\nx 1\ny 1\nx{a="b"} 1\n', '# TYPE x counter\nx{a="\\q"} 1\n',
       '# TYPE x counter\nx 1']
for b in bad:
    try:
        p.parse(b)
    except ValueError:
        continue
    sys.exit("accepted: %r" % b)
EOF

submit_job a 1 >/dev/null; submit_job b 3 2 >/dev/null; submit_job c 2 5 >/dev/null; submit_job d 3 7 >/dev/null
# wait as a log sees it: lines on stderr every 0.2 s, the result lines alone on stdout
ZKPIPE_PROGRESS_S=0.2 "$ZK" wait --config "$CFG" --timeout 300 $(cut -d' ' -f1 "$T/ids") >"$T/wait.out" 2>"$T/wait.err" &
WP=$!
# wait watches one job at a time: the first is held unfinished until wait shows it; the others may be done
# by the time wait comes to them (they then get no progress line: a job already finished prints none)
j1=$(head -n 1 "$T/ids" | cut -d' ' -f1)
wait_until 60 grep -q "job $j1 (" "$T/wait.err" || { cat "$T/wait.err"; fail "wait shows no progress line for job $j1"; }
hold_open
wait $WP || { cat "$T/wait.out" "$T/wait.err"; fail "jobs did not all finish DONE"; }
verify_all || fail "proofs"
n=$(total_parts)
[ "$(grep -c DONE "$T/wait.out")" = 4 ] && ! grep -q partitions "$T/wait.out" || fail "wait's stdout: $(cat "$T/wait.out")"
python3 - "$T/wait.err" "$T/ids" <<'EOF' || { cat "$T/wait.err"; fail "wait's progress lines"; }
import re, sys
lines = open(sys.argv[1]).read().splitlines()
jobs = [l.split() for l in open(sys.argv[2])]
for i, (jid, name, n) in enumerate(jobs):
    mine = [l for l in lines if re.search(r"zkpipe wait\[\d+\]: job %s \(%d of 4\) partitions: " % (jid, i + 1), l)]
    assert mine or i > 0, "no line for job %s" % jid   # the first was held until wait showed it
    if not mine:
        continue
    done = [int(re.search(r"partitions: (\d+) of (\d+)", l).group(1)) for l in mine]
    assert all(int(re.search(r"partitions: \d+ of (\d+)", l).group(1)) == int(n) for l in mine), mine
    assert done == sorted(done) and done[-1] == int(n), (jid, done)
    # the state of each partition, one letter each: [DDR.] ...
    for l in mine:
        m = re.search(r"\[([.csRPDF]+)\]$", l)
        assert m and len(m.group(1)) == int(n), l
        assert m.group(1).count("D") == int(re.search(r"partitions: (\d+)", l).group(1)), l
    assert "done in" in mine[-1], mine[-1]
print("wait progress: %d lines" % len(lines))
EOF

curl_py() { python3 -c "import sys,urllib.request; sys.stdout.write(urllib.request.urlopen('http://127.0.0.1:$PORT' + sys.argv[1], timeout=5).read().decode())" "$1"; }
curl_py /metrics > "$T/metrics.txt" || fail "GET /metrics"
python3 - "$PY" "$T/metrics.txt" "$T/run/results" "$n" <<'EOF' || fail "histograms"
import glob, importlib.util, json, math, sys
spec = importlib.util.spec_from_file_location("promtext", sys.argv[1]); p = importlib.util.module_from_spec(spec)
spec.loader.exec_module(p)
fams = p.parse(open(sys.argv[2]).read())
F = "zkpipe_partition_stage_seconds"
assert fams[F]["type"] == "histogram" and fams[F]["help"], fams.get(F)
n = int(sys.argv[4])
# the same spans as pipeline/stages.h, from the records of finished jobs
SPANS = {"queued": (None, "claimed"), "slot_wait": ("claimed", "synth_start"), "synthesis": ("synth_start", "synth_end"),
         "ready": ("ready", "copy_start"), "copy": ("copy_start", "copy_end"), "gpu": ("gpu_start", "gpu_end"),
         "finish": ("gpu_end", "done"), "total": (None, "done")}
want = {s: [] for s in SPANS}
recs = [json.load(open(f)) for f in glob.glob(sys.argv[3] + "/*.json")]
assert len(recs) == 4, len(recs)
for r in recs:
    for part in r["partitions"]:
        assert part["state"] == "DONE"
        ts = part["ts"]
        for s, (a, b) in SPANS.items():
            t0 = r["submit_ns"] if a is None else ts.get(a, 0)
            t1 = ts.get(b, 0)
            if t0 and t1 and t1 >= t0:
                want[s].append((t1 - t0) / 1e9)
got = {}
for name, labels, v in fams[F]["samples"]:
    assert labels["key"] == "chain", labels
    g = got.setdefault(labels["stage"], {"b": {}, "sum": None, "count": None})
    if name.endswith("_bucket"):
        g["b"][p.parse_value(labels["le"], "le")] = v
    elif name.endswith("_sum"):
        g["sum"] = v
    else:
        g["count"] = v
assert set(got) == set(SPANS), sorted(got)
for s, durs in want.items():
    g = got[s]
    assert len(durs) == n, (s, len(durs))
    assert g["count"] == n, (s, g["count"], n)
    assert abs(g["sum"] - sum(durs)) <= 1e-6 * max(1, sum(durs)), (s, g["sum"], sum(durs))
    for le, c in g["b"].items():
        assert c == sum(1 for d in durs if d <= le), (s, le, c, sorted(durs))
# synthesis holds the injected 150 ms delay (stamps are CLOCK_REALTIME, the delay's slices monotonic:
# allow a little slew); the total covers every stage
assert min(want["synthesis"]) >= 0.145, want["synthesis"]
assert got["total"]["sum"] >= sum(got[s]["sum"] for s in SPANS if s != "total") - 1e-6
print("histograms match %d partitions' records" % n)
EOF

curl_py /status > "$T/status.json" || fail "GET /status"
python3 - "$T/status.json" "$T/ids" <<'EOF' || fail "/status"
import json, sys
s = json.load(open(sys.argv[1]))
jobs = {j["job"]: j for j in s["job_list"]}
for line in open(sys.argv[2]):
    jid, name, n = line.split()
    j = jobs[int(jid)]
    assert j["state"] == "DONE" and j["done"] == j["parts"] == int(n), j
    assert j["partition_states"]["DONE"] == int(n) and j["eta_s"] == 0, j
g = s["groups"][0]
assert len(g["slot_list"]) == g["slot_count"] and all(x["state"] == "FREE" for x in g["slot_list"]), g["slot_list"]
gp = [p for p in s["processes"] if p["role"] == "gpud"]
assert gp and gp[0]["progress"]["finished"] and gp[0]["progress"]["stage"] == "ready", gp
assert gp[0]["progress"]["pid"] == gp[0]["pid"]
assert isinstance(s["throughput"]["proved"], list) and s["throughput"]["interval_s"] == 1
print("status: %d jobs, %d slots" % (len(jobs), len(g["slot_list"])))
EOF
# the gpud said what it was loading in its log
grep -q "gpud.0@node0\[[0-9]*\]: reading .*chain.zkey" "$T"/run/log/*gpud* || { cat "$T"/run/log/*gpud*; fail "no key load progress in gpud's log"; }

# on a terminal: one line redrawn in place (\r), ended once
if command -v script >/dev/null; then
  id=$(submit_job e 2 1)
  ZKPIPE_CONFIG=$CFG script -qec "$ZK wait --timeout 60 $id" /dev/null > "$T/tty.out" || fail "wait on a tty"
  python3 - "$T/tty.out" <<'EOF' || { cat -v "$T/tty.out"; fail "tty progress"; }
import sys
t = open(sys.argv[1], "rb").read().decode()
assert "\r" in t.replace("\r\n", "\n"), "no redraw"
assert "partitions: 2 of 2 (100 %)" in t and "[DD]" in t, t
EOF
fi
echo "PASS: strict /metrics with stage histograms equal to the records, /status job/slot/progress fields, wait progress"
