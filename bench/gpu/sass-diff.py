#!/usr/bin/env python3
"""Compare the machine code of two cubins function by function (no GPU, no cuobjdump needed): did a
refactor change the code the GPU runs?

Usage: sass-diff.py BASE.cubin NEW.cubin [--skip SUBSTR ...]
A cubin is an ELF file with one section .text.<mangled name> per function (16 bytes an instruction on
sm_90). Each section's bytes are hashed; functions are paired by hash, since names change when a kernel
becomes a template instance (tw_base(ff<fr_cfg>*, ...) -> tw_base<ff<fr_cfg>>(...)). Functions of NEW whose
demangled name contains a --skip substring (e.g. bn_: another curve's instances) are left out. Prints the
unpaired ones on either side, the totals, and exits 1 if any function's code differs. Base functions with a
byte-identical twin that NEW keeps fewer copies of (two kernels of the same code made one) are listed as
merged, not as a difference."""
import struct, subprocess, sys, hashlib, collections

def sections(path):
    d = open(path, 'rb').read()
    assert d[:4] == b'\x7fELF' and d[4] == 2, path + ": not an ELF64 cubin"
    shoff, = struct.unpack_from('<Q', d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3a)
    hdr = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * shentsize) for i in range(shnum)]
    stroff = hdr[shstrndx][4]
    def name(o): return d[stroff + o:d.index(b'\0', stroff + o)].decode()
    out = {}
    for h in hdr:
        n = name(h[0])
        if n.startswith('.text.'): out[n[6:]] = d[h[4]:h[4] + h[5]]
    return out

def demangle(names):
    r = subprocess.run(['c++filt'], input='\n'.join(names), capture_output=True, text=True).stdout.splitlines()
    return dict(zip(names, r))

def main():
    a, b = sections(sys.argv[1]), sections(sys.argv[2])
    skip = sys.argv[4::2] if len(sys.argv) > 3 else []
    da, db = demangle(list(a)), demangle(list(b))
    a = {k: v for k, v in a.items() if not any(s in da[k] for s in skip)}   # both sides: a base may have them too
    b = {k: v for k, v in b.items() if not any(s in db[k] for s in skip)}
    ha, hb = collections.defaultdict(list), collections.defaultdict(list)
    for k, v in a.items(): ha[hashlib.sha1(v).hexdigest()].append(k)
    for k, v in b.items(): hb[hashlib.sha1(v).hexdigest()].append(k)
    bad = merged = 0
    for h in sorted(set(ha) | set(hb)):
        na, nb = len(ha.get(h, [])), len(hb.get(h, []))
        if na > nb > 0:   # base had byte-identical twins, new keeps fewer of them: no code changed
            merged += na - nb
            print("merged (%6d instr): %s" % (len(a[ha[h][0]]) // 16, ' = '.join(da[k][:80] for k in ha[h])))
        elif na != nb:
            bad += 1
            for k in ha.get(h, []): print("only in base (%6d instr): %s" % (len(a[k]) // 16, da[k][:160]))
            for k in hb.get(h, []): print("only in new  (%6d instr): %s" % (len(b[k]) // 16, db[k][:160]))
    ia, ib = sum(len(v) for v in a.values()) // 16, sum(len(v) for v in b.values()) // 16
    print("%s: %d functions, %d instructions; %s: %d functions, %d instructions (skipping %s): %s"
          % (sys.argv[1], len(a), ia, sys.argv[2], len(b), ib, ' '.join(skip) or 'none',
             ('IDENTICAL' if not bad else '%d differ' % bad)
             + (' (%d of base merged into a byte-identical twin)' % merged if merged else '')))
    return 1 if bad else 0

sys.exit(main())
