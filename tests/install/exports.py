#!/usr/bin/env python3
"""A shared library exports exactly its version script's names, each in its version node.

Usage: exports.py LIB MAP [--api CC INCDIR HEADER... --archives ARCHIVE...]

  LIB   the built shared object; its dynamic symbol table is read with readelf --dyn-syms
  MAP   its version script: NODE { global: a; b; local: *; }; ... (/* */ comments)
  --api (libzkpipe) also: every name in MAP is declared by one of the installed HEADERs
        (preprocessed with CC -E -I INCDIR..., so names made by macros count), and every
        function or object those headers declare that the ARCHIVEs define is in MAP: a public
        function nobody listed, or an internal one listed, fails.
Prints each difference and exits 1; exit 0 prints one summary line."""
import os
import re
import subprocess
import sys


def fail(errors):
    for e in errors:
        print("exports: " + e)
    sys.exit(1)


def parse_map(path):
    text = re.sub(r"/\*.*?\*/", "", open(path).read(), flags=re.S)
    text = re.sub(r"#.*", "", text)
    nodes = {}
    for node, body in re.findall(r"([A-Za-z_][\w.]*)\s*\{(.*?)\}\s*[\w.]*\s*;", text, re.S):
        m = re.search(r"global\s*:(.*?)(?:local\s*:|$)", body, re.S)
        names = [n.strip() for n in (m.group(1) if m else "").split(";") if n.strip()]
        for n in names:
            if not re.fullmatch(r"[A-Za-z_]\w*", n):
                fail(["%s: node %s: '%s' is not a plain symbol name (no wildcards in a global list)" % (path, node, n)])
        if "local" not in body or not re.search(r"local\s*:\s*\*\s*;", body):
            fail(["%s: node %s has no 'local: *;' (everything not listed must stay inside)" % (path, node)])
        nodes[node] = names
    if not nodes:
        fail(["%s: no version node (NAME { global: ...; local: *; };)" % path])
    return nodes


def dynamic_exports(lib, nodes):
    out = subprocess.run(["readelf", "--dyn-syms", "-W", lib], capture_output=True, text=True, check=True).stdout
    got = {}
    for line in out.splitlines():
        f = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(f) < 8 or not f[0].rstrip(":").isdigit():
            continue
        typ, bind, ndx, name = f[3], f[4], f[6], f[7]
        if ndx == "UND" or bind not in ("GLOBAL", "WEAK"):
            continue
        base, _, ver = name.partition("@")
        ver = ver.lstrip("@")
        if typ == "OBJECT" and ndx == "ABS" and base in nodes and ver in ("", base):
            continue  # a version node's own definition (shown without or with its version)
        got[base] = ver
    return got


def header_names(cc, incdirs, headers):
    src = "".join('#include "%s"\n' % os.path.basename(h) for h in headers)
    cmd = [cc, "-E", "-D_GNU_SOURCE", "-x", "c", "-"] + ["-I" + d for d in incdirs]
    pre = subprocess.run(cmd, input=src, capture_output=True, text=True)
    if pre.returncode:
        fail(["%s -E of the installed headers failed: %s" % (cc, pre.stderr.strip()[-400:])])
    ours = [os.path.realpath(d) for d in incdirs]
    keep, lines = False, []
    for line in pre.stdout.splitlines():
        m = re.match(r'#\s*\d+\s+"([^"]+)"', line)
        if m:
            p = os.path.realpath(m.group(1))
            keep = any(p.startswith(d + os.sep) for d in ours)
            continue
        if keep:
            lines.append(line)
    return set(re.findall(r"\b[A-Za-z_]\w*\b", "\n".join(lines)))


def archive_defs(archives):
    defs = set()
    for a in archives:
        out = subprocess.run(["nm", "--defined-only", "-g", a], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "TDRBVWGS":
                defs.add(f[2])
    return defs


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__)
        return 2
    lib, mapf, rest = args[0], args[1], args[2:]
    nodes = parse_map(mapf)
    want = {n: node for node, names in nodes.items() for n in names}
    got = dynamic_exports(lib, nodes)
    errors = []
    name = os.path.basename(lib)
    for n in sorted(set(got) - set(want)):
        errors.append("%s exports %s, which %s does not list" % (name, n, os.path.basename(mapf)))
    for n in sorted(set(want) - set(got)):
        errors.append("%s does not export %s, which %s lists (node %s)" % (name, n, os.path.basename(mapf), want[n]))
    for n in sorted(set(want) & set(got)):
        if got[n] != want[n]:
            errors.append("%s exports %s with version '%s', want %s" % (name, n, got[n] or "(none)", want[n]))
    if rest:
        if rest[0] != "--api" or "--archives" not in rest:
            print(__doc__)
            return 2
        i = rest.index("--archives")
        cc, incdirs_and_headers, archives = rest[1], rest[2:i], rest[i + 1:]
        incdirs = [x for x in incdirs_and_headers if os.path.isdir(x)]
        headers = [x for x in incdirs_and_headers if not os.path.isdir(x)]
        ids = header_names(cc, incdirs, headers)
        defs = archive_defs(archives)
        for n in sorted(set(want) - ids):
            errors.append("%s lists %s, which no installed header declares (internal: remove it)" %
                          (os.path.basename(mapf), n))
        for n in sorted((ids & defs) - set(want)):
            errors.append("the installed headers declare %s and %s defines it, but %s does not list it" %
                          (n, name, os.path.basename(mapf)))
    if errors:
        fail(errors)
    print("exports: %s: %d symbols, exactly %s (%s)" % (name, len(got), os.path.basename(mapf),
                                                        ", ".join(sorted(nodes))))
    return 0


sys.exit(main())
