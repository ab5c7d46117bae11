#!/usr/bin/env python3
"""SASS instruction counts per function of an sm_90 cubin, without cuobjdump (not installed here).

Usage: sass-count.py FILE.cubin [SUBSTR]
Each function is a .text.<mangled name> section of 16-byte instructions; trailing NOP padding and the final
BRA-to-self are left out. The opcode is the low 12 bits of an instruction's first 8 bytes; families counted
by their low 9 bits: IMAD* (0x24 IMAD, 0x25 IMAD.WIDE, 0x27 IMAD.HI, register or immediate forms), IADD3
(0x10). The opcode numbers are inferred, not checked against nvdisasm (none here): they match the product
counts (a 12-limb Montgomery product: 288 lo/hi pairs -> 275 IMAD.WIDE + 12 IMAD.HI). With SUBSTR, the opcode histogram of the functions whose name contains it.
For calls as functions of their own compile with -rdc=true, e.g. (cuda/NOTES.md, the dedicated square):
  nvcc -O3 -std=c++17 -arch=sm_90 -Icommon -Icuda -rdc=true -cubin cuda/params_check.cu -o pc.cubin"""
import struct, sys, subprocess, collections

def main():
    d = open(sys.argv[1], 'rb').read()
    assert d[:4] == b'\x7fELF' and d[4] == 2, sys.argv[1] + ": not an ELF64 cubin"
    shoff, = struct.unpack_from('<Q', d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3a)
    hdr = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * shentsize) for i in range(shnum)]
    stroff = hdr[shstrndx][4]
    name = lambda o: d[stroff + o:d.index(b'\0', stroff + o)].decode()
    for h in hdr:
        n = name(h[0])
        if not n.startswith('.text.'):
            continue
        b = d[h[4]:h[4] + h[5]]
        ops = [struct.unpack_from('<Q', b, i)[0] & 0xfff for i in range(0, len(b), 16)]
        while ops and ops[-1] == 0x918:   # NOP padding
            ops.pop()
        if ops and ops[-1] == 0x947:      # BRA to self
            ops.pop()
        fam = collections.Counter(o & 0x1ff for o in ops)
        dm = subprocess.run(['c++filt', n[6:]], capture_output=True, text=True).stdout.strip()
        print("%6d instr  %5d IMAD*  %5d IMAD.WIDE  %5d IADD3  %s" % (len(ops), fam[0x24] + fam[0x25] + fam[0x27], fam[0x25],
                                                                   fam[0x10], dm))
        if len(sys.argv) > 2 and sys.argv[2] in dm:
            print("   opcodes:", ' '.join('%03x:%d' % kv for kv in sorted(collections.Counter(ops).items(), key=lambda x: -x[1])))

main()
