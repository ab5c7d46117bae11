// Known-answer vectors for common/fp12.c and common/pairing.c from ffjavascript's bls12381.
// Run: NODE_PATH=tests/vectors/node_modules node tests/pairing/gen_vectors.js > tests/pairing/vectors.txt
//
// Each line: a tag, then decimal integers in normal (non-Montgomery) form.
//   g1gen  x y                      g2gen  x0 x1 y0 y1
//   pair   Px Py Qx0 Qx1 Qy0 Qy1 E[12] E3[12]
//          E  = finalExponentiationOld(millerLoop(P, Q)): exponent exactly (q^12-1)/r
//          E3 = ffjavascript's curve.pairing(P, Q), which is E^3 (see common/pairing.h)
//   f12mul A[12] B[12] A*B[12]      f12sqr A[12] A^2[12]      f12inv A[12] 1/A[12]
//   f12frob k A[12] A^(q^k)[12]     (ffjavascript's ftm_frobeniusMap<k>)
//   f12fexp A[12] A^((q^12-1)/r)[12] (finalExponentiationOld on a random, non-Miller A)
// Fp12 order: c0.c0.c0 c0.c0.c1 c0.c1.c0 ... c1.c2.c1 (ffjavascript's buffer order).
const { splitmix64, run } = require("../vectors/lib.js");

const rng = splitmix64(0x7a6b70697065n);  // fixed seed, so the committed output is reproducible
const randBelow = (m) => rng.bits(512) % m;

const flat = (o) => (Array.isArray(o) ? o.flatMap(flat) : [o.toString()]);

run(async (c) => {
    const q = c.q, r = c.r;
    const F12 = c.F12;
    const out = [];
    const f12 = (a) => flat(F12.toObject(a)).join(" ");
    const rand12 = () => {
        const v = [];
        for (let i = 0; i < 6; i++) v.push([randBelow(q), randBelow(q)]);
        return F12.fromObject([[v[0], v[1], v[2]], [v[3], v[4], v[5]]]);
    };
    const ex = c.tm.instance.exports;
    const call1 = (fn, a) => {
        c.tm.startSyncOp();
        const pA = c.tm.allocBuff(a), pR = c.tm.alloc(F12.n8);
        ex[fn](pA, pR);
        const res = c.tm.getBuff(pR, F12.n8);
        c.tm.endSyncOp();
        return res;
    };

    const g1 = c.G1.toAffine(c.G1.g), g2 = c.G2.toAffine(c.G2.g);
    out.push("g1gen " + flat(c.G1.toObject(g1)).slice(0, 2).join(" "));
    out.push("g2gen " + flat(c.G2.toObject(g2)).slice(0, 4).join(" "));

    const pairs = [[1n, 1n]];
    for (let i = 0; i < 5; i++) pairs.push([randBelow(r), randBelow(r)]);
    for (const [a, b] of pairs) {
        const P = c.G1.toAffine(c.G1.timesScalar(c.G1.g, a));
        const Q = c.G2.toAffine(c.G2.timesScalar(c.G2.g, b));
        const ml = c.millerLoop(c.prepareG1(c.G1.toJacobian(P)), c.prepareG2(c.G2.toJacobian(Q)));
        const e = call1("bls12381_finalExponentiationOld", ml);
        const e3 = c.pairing(P, Q);
        if (!F12.eq(F12.mul(e, F12.square(e)), e3)) throw new Error("pairing is not E^3");
        out.push(["pair", ...flat(c.G1.toObject(P)).slice(0, 2), ...flat(c.G2.toObject(Q)).slice(0, 4),
                  f12(e), f12(e3)].join(" "));
    }
    for (let i = 0; i < 4; i++) {
        const A = rand12(), B = rand12();
        out.push(["f12mul", f12(A), f12(B), f12(F12.mul(A, B))].join(" "));
        out.push(["f12sqr", f12(A), f12(F12.square(A))].join(" "));
        out.push(["f12inv", f12(B), f12(F12.inv(B))].join(" "));
        for (const k of [1, 2, 3])
            out.push(["f12frob", k, f12(A), f12(call1("ftm_frobeniusMap" + k, A))].join(" "));
    }
    for (let i = 0; i < 2; i++) {
        const A = rand12();
        out.push(["f12fexp", f12(A), f12(call1("bls12381_finalExponentiationOld", A))].join(" "));
    }
    return out;
});
