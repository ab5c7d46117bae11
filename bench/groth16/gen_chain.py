#!/usr/bin/env python3
"""Write the chain circuit (x_{i+1} = x_i^2 + x_0, N constraints; one public output) as a circom
.r1cs and its .wtns for input x, in the layout circom2 gives tests/oracle/circuits/chain.circom.in:
wire 0 = ONE, 1 = y (output), 2 = x (private input), 3.. = s_1 .. s_{N-1}.

Used by bench/groth16/run.sh from 2^20 on, where circom2 (WebAssembly) needs more than half an
hour on a 2-core machine to compile the same circuit, and by bench/pipeline/run.sh on hosts without circom2.
    gen_chain.py [--prime bls12381|bn128] N OUT.r1cs OUT.wtns [x]     (circom's --prime names; default bls12381)"""
import struct, sys

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
    rows = bytearray()
    for i in range(n):                   # circom's form: (-s_i) * (s_i) = x - s_{i+1}, terms by wire
        rows += struct.pack("<II", 1, s(i)) + minus_one
        rows += struct.pack("<II", 1, s(i)) + one
        c = sorted([(2, one), (s(i + 1), minus_one)])
        rows += struct.pack("<I", 2) + b"".join(struct.pack("<I", w) + v for w, v in c)
    hdr = struct.pack("<I", 32) + R.to_bytes(32, "little") + struct.pack("<IIIIQI", nwires, 1, 0, 1, n + 4, n)
    labels = b"".join(struct.pack("<Q", i) for i in range(nwires))
    with open(r1cs_path, "wb") as f:
        f.write(b"r1cs" + struct.pack("<II", 1, 3))
        f.write(section(1, hdr) + section(2, bytes(rows)) + section(3, labels))
    w = [0] * nwires
    w[0], v = 1, x % R
    w[2] = v
    for i in range(n):
        v = (v * v + x) % R
        w[s(i + 1)] = v
    with open(wtns_path, "wb") as f:
        f.write(b"wtns" + struct.pack("<II", 2, 2))
        f.write(section(1, struct.pack("<I", 32) + R.to_bytes(32, "little") + struct.pack("<I", nwires)))
        f.write(section(2, b"".join(fe(v) for v in w)))

if __name__ == "__main__":
    main()
