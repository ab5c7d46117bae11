#!/usr/bin/env python3
"""Write the chain circuit (x_{i+1} = x_i^2 + x_0, N constraints; one public output) as a circom
.r1cs and its .wtns for input x, in the layout circom2 gives tests/oracle/circuits/chain.circom.in:
wire 0 = ONE, 1 = y (output), 2 = x (private input), 3.. = s_1 .. s_{N-1}.

Used by bench/groth16/run.sh from 2^20 on, where circom2 (WebAssembly) needs more than half an
hour on a 2-core machine to compile the same circuit, and by bench/pipeline/run.sh on hosts without circom2.
    gen_chain.py [--prime bls12381|bn128] N OUT.r1cs OUT.wtns [x]     (circom's --prime names; default bls12381)"""
import struct, sys
from array import array
from itertools import repeat

PRIMES = {"bls12381": 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001,
          "bn128": 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001}
R = PRIMES["bls12381"]

def fe(v):
    return (v % R).to_bytes(32, "little")

def section(sid, body):
    return struct.pack("<IQ", sid, len(body)) + body

def main():
    global R
    args = sys.argv[1:]
    if args[:1] == ["--prime"]:
        if len(args) < 2 or args[1] not in PRIMES:
            sys.exit("gen_chain.py: --prime takes one of %s" % ", ".join(PRIMES))
        R, args = PRIMES[args[1]], args[2:]
    sys.argv = sys.argv[:1] + args
    n, r1cs_path, wtns_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    x = int(sys.argv[4]) if len(sys.argv) > 4 else 7
    nwires = n + 2                       # ONE, y, x, s_1..s_{n-1}
    def s(i):                            # wire of s_i
        return 2 if i == 0 else (1 if i == n else i + 2)
    one, minus_one = fe(1), fe(-1)
    hdr = struct.pack("<I", 32) + R.to_bytes(32, "little") + struct.pack("<IIIIQI", nwires, 1, 0, 1, n + 4, n)
    labels = array("Q", range(nwires))
    with open(r1cs_path, "wb") as f:
        f.write(b"r1cs" + struct.pack("<II", 1, 3))
        f.write(section(1, hdr))
        rows = constraints(n, s, one, minus_one)
        f.write(struct.pack("<IQ", 2, len(rows)))
        f.write(rows)
        del rows
        f.write(struct.pack("<IQ", 3, 8 * nwires))
        f.write(le(labels))
    w = [0] * nwires
    w[0], v = 1, x % R
    w[2] = v
    vals = chain(v, x % R, n)            # s_1 .. s_n
    w[3:n + 2] = vals[:-1]               # s_1 .. s_{n-1}: wires 3 .. n+1
    w[1] = vals[-1]                      # y = s_n
    del vals
    with open(wtns_path, "wb") as f:
        f.write(b"wtns" + struct.pack("<II", 2, 2))
        f.write(section(1, struct.pack("<I", 32) + R.to_bytes(32, "little") + struct.pack("<I", nwires)))
        f.write(struct.pack("<IQ", 2, 32 * nwires))
        f.write(b"".join(map(int.to_bytes, w, repeat(32, nwires), repeat("little", nwires))))

def chain(v, x, k):
    """[v_1 .. v_k] with v_{j+1} = v_j^2 + x mod R from v_0 = v (sequential: one loop, no more)."""
    out = []
    ap = out.append
    for _ in range(k):
        v = (v * v + x) % R
        ap(v)
    return out

def le(a):
    """an array's bytes, little-endian whatever the host's order"""
    if sys.byteorder != "little":
        a = array(a.typecode, a)
        a.byteswap()
    return a.tobytes()

def constraints(n, s, one, minus_one):
    """The constraints section's body, 156 bytes a row: (-s_i) * (s_i) = x - s_{i+1}, each linear
    combination's terms by wire. Every row but the last is the same template with its wires
    stored by strided writes into the 32-bit words (C speed, no Python loop over the rows); the
    last row's C lists s_n = y (wire 1) before x (wire 2)."""
    def row(i):
        c = sorted([(2, one), (s(i + 1), minus_one)])
        return (struct.pack("<II", 1, s(i)) + minus_one + struct.pack("<II", 1, s(i)) + one +
                struct.pack("<I", 2) + b"".join(struct.pack("<I", w) + v for w, v in c))
    size = len(row(0))                   # 156 = 39 words; every field starts on a word
    rows = bytearray(row(0)) * n
    if array("I").itemsize != 4 or sys.byteorder != "little" or n < 2:
        for i in range(1, n):            # the plain way (and a one-row chain)
            rows[i * size:(i + 1) * size] = row(i)
        return rows
    words, W = memoryview(rows).cast("I"), size // 4
    wires = array("I", range(2, n + 2))  # s_i = i + 2 for i < n (s_0 = x = wire 2)
    words[1::W] = wires                  # A's wire
    words[11::W] = wires                 # B's wire
    del wires
    words[30::W] = array("I", range(3, n + 3))   # C's second term: s_{i+1} = i + 3 ...
    words.release()
    rows[(n - 1) * size:] = row(n - 1)   # ... but for the last row (s_n = y, wire 1, sorts first)
    return rows

if __name__ == "__main__":
    main()
