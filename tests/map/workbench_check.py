#!/usr/bin/env python3
"""Where the GPU scripts live (issue 35 item 6), checked:
  1. tests/cuda keeps what meson runs and the GPU checks: each file there is named in tests/cuda/meson.build,
     is a header a source named there includes, is a GPU check driver (run-*.sh: GPU bytes against the CPU's,
     pass/fail), or is a helper such a driver sources (. tests/cuda/NAME). Benchmarks, build recipes and tools go to
     bench/gpu/, results to bench/RESULTS.md.
  2. a GPU script (tests/cuda/*.sh, bench/gpu/*.sh) checks its arguments where a failure ends it: a
     ${N:?usage} inside $(...) ends only the subshell, and the script would go on without them (as root,
     into hugepages, mounts and /dev/shm).
  3. every script path (tests/..., bench/..., scripts/... ending in .sh or .py) that a document, script or
     source names exists: a move leaves no stale path behind.
Usage: workbench_check.py [ROOT]   (ROOT: the source tree, default: two folders up). Exit 1 naming each
offending file, 0 when clean."""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
TEXT = (".md", ".sh", ".py", ".c", ".h", ".cu", ".cuh", ".txt", ".build", ".ini", ".in")
SCRIPT_PATH = re.compile(r"(?<![\w./-])((?:tests|bench|scripts)/[\w./-]*?\.(?:sh|py))(?![\w-])")


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def skipped(d):
    return d.startswith(".") or d.startswith("build") or d == "node_modules"


def tests_cuda():
    d = os.path.join(ROOT, "tests", "cuda")
    meson = "\n".join(l.split("#", 1)[0] for l in read(os.path.join(d, "meson.build")).splitlines())
    names = set(re.findall(r"'([^'\n]*)'", meson))
    files = sorted(f for f in os.listdir(d) if os.path.isfile(os.path.join(d, f)))
    drivers = [f for f in files if re.fullmatch(r"run-[\w-]+\.sh", f)]
    included = set()
    for f in files:
        if f in names and f.endswith((".c", ".cu", ".h")):
            included |= set(re.findall(r'#include "([^"/]+)"', read(os.path.join(d, f))))
    named_by_driver = set()
    for f in drivers:
        named_by_driver |= set(re.findall(r"(?m)(?:^|[;&|(]|\s)(?:\.|source)\s+\S*?tests/cuda/([\w.-]+)",
                                          read(os.path.join(d, f))))
    bad = []
    for f in files:
        if f == "meson.build" or f in names or f in included or f in drivers or f in named_by_driver:
            continue
        bad.append("tests/cuda/%s: neither used by tests/cuda/meson.build nor a GPU check (run-*.sh) nor sourced "
                   "by one: a benchmark or tool goes to bench/gpu/, results to bench/RESULTS.md" % f)
    return bad


def subshell_usage():
    bad = []
    for d in (os.path.join("tests", "cuda"), os.path.join("bench", "gpu")):
        full = os.path.join(ROOT, d)
        if not os.path.isdir(full):
            continue
        for fn in sorted(os.listdir(full)):
            if not fn.endswith(".sh"):
                continue
            for ln, line in enumerate(read(os.path.join(full, fn)).splitlines(), 1):
                if re.search(r"\$\([^)]*\$\{\d+:\?", line):
                    bad.append("%s/%s:%d: ${N:?usage} inside $(...) does not end the script; check the "
                               "argument first (: \"${N:?usage}\")" % (d, fn, ln))
    return bad


def stale_paths():
    bad = []
    for dp, dns, fns in os.walk(ROOT):
        dns[:] = sorted(d for d in dns if not skipped(d) and not os.path.islink(os.path.join(dp, d)))
        for fn in sorted(fns):
            if not fn.endswith(TEXT):
                continue
            path = os.path.join(dp, fn)
            rel = os.path.relpath(path, ROOT)
            for ln, line in enumerate(read(path).splitlines(), 1):
                for m in SCRIPT_PATH.finditer(line):
                    if not os.path.exists(os.path.join(ROOT, m.group(1))):
                        bad.append("%s:%d: names %s, which does not exist" % (rel, ln, m.group(1)))
    return bad


def main():
    bad = tests_cuda() + subshell_usage() + stale_paths()
    for b in bad:
        print("workbench_check: " + b)
    print("workbench_check: %d problem(s)" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
