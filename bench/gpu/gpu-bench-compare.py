#!/usr/bin/env python3
"""Side-by-side table of gpu_bench logs (its markdown rows: | what | size | median ms | ...).

    gpu-bench-compare.py LABEL=LOG [LABEL=LOG ...]

One row per (what, size) seen in any log, in first-seen order: each log's median ms, then each later
log's ratio to the first, then the issue #7 target where there is one. A missing log or row prints "-".
"""
import os
import sys

TARGET = {("MSM G1", "2^26"): 450, ("MSM G2", "2^24"): 350, ("NTT forward", "2^27"): 30}


def rows(path):
    r = {}
    if not os.path.exists(path):
        return r
    for line in open(path):
        f = [x.strip() for x in line.split("|")]
        if len(f) > 4 and f[1] and f[1] != "what" and not f[1].startswith("-"):
            try:
                r[(f[1], f[2])] = float(f[3])
            except ValueError:
                pass
    return r


def main(args):
    labels = [a.split("=", 1)[0] for a in args]
    logs = [rows(a.split("=", 1)[1]) for a in args]
    keys = []
    for log in logs:
        keys += [k for k in log if k not in keys]
    fmt = lambda v: "%.2f" % v if v is not None else "-"
    ratios = ["%s/%s" % (l, labels[0]) for l in labels[1:]]
    print("| what | size | " + " | ".join(l + " ms" for l in labels) + " | " + " | ".join(ratios) + " | target ms |")
    print("|" + "---|" * (3 + len(labels) + len(ratios)))
    for k in keys:
        vs = [log.get(k) for log in logs]
        o = vs[0]
        rat = ["%.3f" % (v / o) if o and v else "-" for v in vs[1:]]
        print("| %s | %s | %s | %s | %s |" % (k[0], k[1], " | ".join(fmt(v) for v in vs), " | ".join(rat),
                                              TARGET.get(k, "")))


if __name__ == "__main__":
    main(sys.argv[1:])
