#!/usr/bin/env python3
"""The map that is checked: docs/DESIGN.md's ```map block names the parts (top-level folders) and the
arrows allowed between them; an arrow not listed is never allowed. This fails on any arrow the map
forbids, naming the file and the arrow, and on a top-level folder with source that the map does not
name (source: C/CUDA, Rust, Python, shell, JavaScript or a meson.build, anywhere below it; build
folders /build*/, hidden folders, node_modules and symbolic links are not looked into).

Arrows come from
  - #include "x.h" in a part's .c/.h/.cu/.cuh files (x.h resolved next to the includer first, else
    to the part that holds that name; system headers <...> are not arrows, except the CUDA
    runtime's, below), followed through the headers' own includes: a file of part P that reaches
    a header of part Q through any chain is an arrow P -> Q (the error shows the chain),
  - its meson.build: every *_dep / *_lib variable it uses that another part declares.
Rules besides the arrows (same block):
  cudart: PARTS     only these parts call the CUDA runtime (cuda* / CUDA API identifiers, cuda_runtime*.h,
                    cudaError_t ...), comments and strings ignored
  knobs: FILE       the only file that reads a ZP_* / ZKPIPE_* environment variable (getenv), and every knob
                    it reads has a row in docs/knobs.md (and every row there is read)
  allow: FILE RULE  a known exception (RULE: cudart, knobs, or PART for an arrow; for an arrow FILE may
                    also be a header of the same part on the include chain, which excuses every file
                    that reaches PART through it); one that no longer occurs fails too, so the list
                    shrinks as the code is fixed
Usage: map_check.py [ROOT]   (ROOT: the source tree, default: two folders up)
       map_check.py --graph [ROOT]   print the arrows found (to write the map)"""
import os
import re
import sys

args = [a for a in sys.argv[1:] if a != "--graph"]
GRAPH = "--graph" in sys.argv
ROOT = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), "..", ".."))
SRC_EXT = (".c", ".h", ".cu", ".cuh")
ANY_SRC_EXT = SRC_EXT + (".rs", ".py", ".sh", ".js", ".go")


def fail_exit(msg):
    print("map_check: " + msg)
    sys.exit(1)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def parse_map():
    text = read(os.path.join(ROOT, "docs", "DESIGN.md"))
    m = re.search(r"```map\n(.*?)```", text, re.S)
    if not m:
        fail_exit("docs/DESIGN.md has no ```map block")
    allowed, rules, allows = {}, {}, []
    for ln, line in enumerate(m.group(1).splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        key, _, rest = line.partition(":")
        key, words = key.strip(), rest.split()
        if key in ("cudart", "knobs"):
            rules[key] = words
        elif key == "allow":
            if len(words) != 2:
                fail_exit("map line %d: allow: FILE RULE" % ln)
            allows.append(tuple(words))
        else:
            allowed[key] = set(words)
    return allowed, rules, allows


def strip_code(s):
    """Source without comments and string/char literals (their contents are no calls)."""
    out, i, n = [], 0, len(s)
    while i < n:
        c = s[i]
        if s.startswith("//", i):
            j = s.find("\n", i)
            i = n if j < 0 else j
        elif s.startswith("/*", i):
            j = s.find("*/", i + 2)
            out.append(" ")
            i = n if j < 0 else j + 2
        elif c in "\"'":
            j = i + 1
            while j < n and s[j] != c:
                j += 2 if s[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def skipped_dir(d):
    return d.startswith(".") or d.startswith("build") or d == "node_modules"


def part_files(part):
    for dp, dns, fns in os.walk(os.path.join(ROOT, part)):
        dns[:] = sorted(d for d in dns if not skipped_dir(d) and not os.path.islink(os.path.join(dp, d)))
        for fn in sorted(fns):
            yield os.path.join(dp, fn)


def unmapped_folders(parts):
    """Top-level folders holding source that the map does not name."""
    out = []
    for d in sorted(os.listdir(ROOT)):
        full = os.path.join(ROOT, d)
        if d in parts or skipped_dir(d) or os.path.islink(full) or not os.path.isdir(full):
            continue
        src = next((f for f in part_files(d)
                    if f.endswith(ANY_SRC_EXT) or os.path.basename(f) == "meson.build"), None)
        if src:
            out.append((d, os.path.relpath(src, ROOT)))
    return out


def main():
    allowed, rules, allows = parse_map()
    parts = sorted(allowed)
    for p in parts:
        if not os.path.isdir(os.path.join(ROOT, p)):
            fail_exit("the map names part %s/, which does not exist" % p)
    for d, f in unmapped_folders(set(parts)):
        fail_exit("%s/ holds source (%s) but docs/DESIGN.md's map does not name it: add a line '%s: PARTS'"
                  % (d, f, d))
    # which part holds each header name (a name in two parts resolves to the includer's own first)
    holders, header_files = {}, {}
    for p in parts:
        for f in part_files(p):
            if f.endswith((".h", ".cuh")):
                holders.setdefault(os.path.basename(f), []).append(p)
                header_files.setdefault(os.path.basename(f), []).append(f)
    part_of = lambda f: os.path.relpath(f, ROOT).split(os.sep, 1)[0]

    def resolve(includer, name):
        """The header file an #include "name" in file `includer` reads, or None (not ours)."""
        near = os.path.normpath(os.path.join(os.path.dirname(includer), name))
        if os.path.isfile(near):
            return near
        cands = header_files.get(os.path.basename(name))
        if not cands:
            return None
        own = [c for c in cands if part_of(c) == part_of(includer)]
        pick = own or [c for c in cands if part_of(c) == holders[os.path.basename(name)][0]] or cands
        tail = [c for c in pick if c.endswith(os.sep + name)]
        return (tail or pick)[0]

    inc_cache = {}

    def includes(f):
        """The header files f includes directly (quoted includes of headers in the tree)."""
        if f not in inc_cache:
            out = []
            for kind, name in inc_re.findall(read(f)):
                if kind == '"':
                    h = resolve(f, name)
                    if h and h != f:
                        out.append(h)
            inc_cache[f] = out
        return inc_cache[f]

    def reach(f):
        """Every header f reaches through include chains: {header: chain of files from f}."""
        seen, queue = {f: [f]}, [f]
        while queue:
            cur = queue.pop(0)
            for h in includes(cur):
                if h not in seen:
                    seen[h] = seen[cur] + [h]
                    queue.append(h)
        del seen[f]
        return seen
    # which part declares each meson variable
    declares = {}
    decl_re = re.compile(r"^\s*(\w+)\s*=\s*(declare_dependency|static_library|shared_library|library)\b", re.M)
    for p in parts:
        for f in part_files(p):
            if os.path.basename(f) == "meson.build":
                for v, _ in decl_re.findall(read(f)):
                    declares[v] = p
    errors, used_allows, arrows = [], set(), set()
    inc_re = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)

    def allowed_by_exception(rel, rule):
        if (rel, rule) in set(allows):
            used_allows.add((rel, rule))
            return True
        return False

    def arrow(rel, src, dst, how, via=()):
        if src == dst:
            return
        arrows.add((src, dst))
        # an exception names the file where the arrow starts, or a header of its own part on the chain
        # (allow: gpud/gpud.h cuda covers every gpud file that includes gpud.h)
        if dst not in allowed[src] and "*" not in allowed[src] and not allowed_by_exception(rel, dst) and \
           not any(v.split("/", 1)[0] == src and allowed_by_exception(v, dst) for v in via):
            errors.append("%s: %s -> %s (%s) is not in docs/DESIGN.md's map (%s may use: %s)" %
                          (rel, src, dst, how, src, " ".join(sorted(allowed[src])) or "nothing"))

    cudart_ok = set(rules.get("cudart", []))
    knob_files = set(rules.get("knobs", []))
    cuda_re = re.compile(r"\b(cuda[A-Z]\w*|CUDA_[A-Z_]*API\w*|cuda_runtime\w*|cudaError_t|cudaStream_t|cudaEvent_t)\b")
    knob_re = re.compile(r'getenv\s*\(\s*"((?:ZP|ZKPIPE)_[A-Z0-9_]*)"')
    knobs_read = set()
    for p in parts:
        for f in part_files(p):
            rel = os.path.relpath(f, ROOT)
            base = os.path.basename(f)
            if base == "meson.build":
                code = re.sub(r"#.*", "", read(f))
                for v in sorted(set(re.findall(r"\b(\w+_(?:dep|lib))\b", code))):
                    if v in declares:
                        arrow(rel, p, declares[v], "meson " + v)
                continue
            if not f.endswith(SRC_EXT):
                continue
            src = read(f)
            # every part reached, by its shortest chain (direct includes are chains of one)
            by_part = {}
            for h, chain in sorted(reach(f).items(), key=lambda kv: (len(kv[1]), kv[0])):
                by_part.setdefault(part_of(h), chain)
            for dst, chain in sorted(by_part.items()):
                if len(chain) == 2:
                    how = '#include "%s"' % os.path.relpath(chain[1], ROOT)
                else:
                    how = "through #include " + " -> ".join(os.path.relpath(c, ROOT) for c in chain[1:])
                arrow(rel, p, dst, how, [os.path.relpath(c, ROOT) for c in chain[1:-1]])
            code = strip_code(src)
            if "cuda_runtime" in src and re.search(r"#\s*include\s*<cuda_runtime", src):
                code += " cuda_runtime_h"
            hits = sorted(set(cuda_re.findall(code)))
            if hits and p not in cudart_ok and not allowed_by_exception(rel, "cudart"):
                errors.append("%s: %s -> the CUDA runtime (%s): only %s may call it (docs/DESIGN.md's map)" %
                              (rel, p, ", ".join(hits[:4]), " ".join(sorted(cudart_ok))))
            names = set(knob_re.findall(src))
            if rel in knob_files:   # the reader names each knob once, as a string
                knobs_read |= set(re.findall(r'"((?:ZP|ZKPIPE)_[A-Z0-9_]+)"', src))
            elif names and p not in ("tests", "bench") and not allowed_by_exception(rel, "knobs"):
                errors.append("%s: reads %s with getenv: knobs are read once, in %s (common/knobs.h)" %
                              (rel, ", ".join(sorted(names)), " ".join(sorted(knob_files))))
    # the knob table
    kpath = os.path.join(ROOT, "docs", "knobs.md")
    if knob_files:
        documented = set(re.findall(r"^\|\s*`((?:ZP|ZKPIPE)_[A-Z0-9_]*)`", read(kpath), re.M)) if os.path.exists(kpath) else set()
        for k in sorted(knobs_read - documented):
            errors.append("docs/knobs.md: no row for %s (read in %s)" % (k, " ".join(sorted(knob_files))))
        for k in sorted(documented - knobs_read):
            errors.append("docs/knobs.md: %s has a row but %s does not read it" % (k, " ".join(sorted(knob_files))))
    for a in allows:
        if a not in used_allows:
            errors.append("docs/DESIGN.md's map: 'allow: %s %s' no longer occurs: remove it" % a)
    if GRAPH:
        for s, d in sorted(arrows):
            print("%s -> %s" % (s, d))
    for e in errors:
        print("map_check: " + e)
    print("map_check: %d part(s), %d arrow(s), %d violation(s)" % (len(parts), len(arrows), len(errors)))
    return 1 if errors else 0


sys.exit(main())
