#!/usr/bin/env python3
"""Write a large circom-format circuit and a witness for it: N constraints s_{i+1} = s_i^2
(s_0 = x, the last one is the output y). Used by memlimit.sh as the "too-large job" whose
circuit does not fit in a synthd's memory limit.   usage: gen_big.py N OUT.r1cs OUT.wtns"""
import struct, sys

R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
n, r1cs, wtns = int(sys.argv[1]), sys.argv[2], sys.argv[3]
one = (1).to_bytes(32, "little")
prime = R.to_bytes(32, "little")
wire = lambda i: 1 if i == n else 2 + i          # s_0 = x = wire 2, s_n = y = wire 1
nwires = n + 2

def lc(w):
    return struct.pack("<II", 1, w) + one

body = bytearray()
for i in range(n):
    body += lc(wire(i)) + lc(wire(i)) + lc(wire(i + 1))
hdr = struct.pack("<I", 32) + prime + struct.pack("<IIIIQI", nwires, 1, 0, 1, nwires, n)
labels = b"".join(struct.pack("<Q", i) for i in range(nwires))
with open(r1cs, "wb") as f:
    f.write(b"r1cs" + struct.pack("<II", 1, 3))
    for sid, data in ((1, hdr), (2, bytes(body)), (3, labels)):
        f.write(struct.pack("<IQ", sid, len(data)) + data)

w = [0] * nwires
w[0], s = 1, 3
w[2] = s
for i in range(1, n + 1):
    s = s * s % R
    w[wire(i)] = s
vals = b"".join(v.to_bytes(32, "little") for v in w)
with open(wtns, "wb") as f:
    f.write(b"wtns" + struct.pack("<II", 2, 2))
    h = struct.pack("<I", 32) + prime + struct.pack("<I", nwires)
    f.write(struct.pack("<IQ", 1, len(h)) + h + struct.pack("<IQ", 2, len(vals)) + vals)
