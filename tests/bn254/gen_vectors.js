// Known-answer vectors for common/bn254* from ffjavascript's bn128 (circom's and snarkjs's BN254).
// Run: NODE_PATH=tests/vectors/node_modules node tests/bn254/gen_vectors.js > tests/bn254/vectors.txt
//
// One record per line, integers decimal in normal form; an fp2 is c0 c1, an fp12 its twelve Fp
// coefficients in ffjavascript's order (c0.c0.c0 c0.c0.c1 c0.c1.c0 ... c1.c2.c1), a G1 point x y, a G2 point
// x.c0 x.c1 y.c0 y.c1 (affine; infinity 0 0 / 0 0 0 0).
//   fp|fr add a b r   sub a b r   mul a b r   sqr a r   neg a r   inv a r   mont a h (Montgomery LE hex)
//   fp2 mul a b r     fp2 inv a r     fp12 mul a b r
//   g1 mul k P (= k·G1)   g2 mul k Q (= k·G2)   g1 add k m P (= kG1 + mG1)   g2 add k m Q
//   g1 bytes k H      g2 bytes k H    (H: toRprUncompressed of k·G, hex: x‖y / x.c1‖x.c0‖y.c1‖y.c0, BE)
//   g1 msm n k_1..k_n s_1..s_n P      (P = Σ s_i·(k_i·G1), by ffjavascript's multiExpAffine)
//   pair a b E        (E = ffjavascript's pairing of a·G1, b·G2; it equals e^m for zkpipe's exact
//                     pairing e and m = 2x(6x^2 + 3x + 1), zp_consts.h's FFJS_EXP)
//   root k W          (W = Fr.w[k], the primitive 2^k-th root snarkjs's domains use, k = 0..28)
// Operands: edge values and random ones from a fixed seed (the committed output is reproducible).
const { splitmix64, hex, run, ff } = require("../vectors/lib.js");

const rng = splitmix64(0x626e323534n);
const below = (m) => rng.bits(512) % m;
run(async (c) => {
    const out = [];
    const str = (o) => (Array.isArray(o) ? o.map(str).join(" ") : o.toString());
    function prime(name, F, m) {
        const edge = [0n, 1n, 2n, m - 1n, m - 2n, (m - 1n) / 2n, (m + 1n) / 2n];
        const vals = edge.concat(Array.from({ length: 10 }, () => below(m)));
        const s = (a) => F.toObject(a).toString();
        for (let i = 0; i < vals.length; i++) {
            const a = vals[i], b = vals[(i * 7 + 3) % vals.length];
            const A = F.fromObject(a), B = F.fromObject(b);
            out.push(`${name} add ${a} ${b} ${s(F.add(A, B))}`);
            out.push(`${name} sub ${a} ${b} ${s(F.sub(A, B))}`);
            out.push(`${name} mul ${a} ${b} ${s(F.mul(A, B))}`);
            out.push(`${name} sqr ${a} ${s(F.square(A))}`);
            out.push(`${name} neg ${a} ${s(F.neg(A))}`);
            if (a !== 0n) out.push(`${name} inv ${a} ${s(F.inv(A))}`);
            out.push(`${name} mont ${a} ${hex(A)}`);
        }
    }
    prime("fp", c.F1, c.q);
    prime("fr", c.Fr, c.r);
    const q = c.q;
    for (let i = 0; i < 8; i++) {
        const a = [below(q), below(q)], b = i === 0 ? [9n, 1n] : [below(q), below(q)];
        const A = c.F2.fromObject(a), B = c.F2.fromObject(b);
        out.push(`fp2 mul ${str(a)} ${str(b)} ${str(c.F2.toObject(c.F2.mul(A, B)))}`);
        out.push(`fp2 inv ${str(a)} ${str(c.F2.toObject(c.F2.inv(A)))}`);
    }
    const r12 = () => [0, 1].map(() => [0, 1, 2].map(() => [below(q), below(q)]));
    for (let i = 0; i < 4; i++) {
        const a = r12(), b = r12();
        out.push(`fp12 mul ${str(a)} ${str(b)} ${str(c.F12.toObject(c.F12.mul(c.F12.fromObject(a), c.F12.fromObject(b))))}`);
    }
    const r = c.r;
    // infinity as zkpipe writes it (0, 0); ffjavascript's toObject gives (0, 1, 0)
    const aff1 = (P) => (c.G1.isZero(P) ? "0 0" : str(c.G1.toObject(c.G1.toAffine(P)).slice(0, 2)));
    const aff2 = (P) => (c.G2.isZero(P) ? "0 0 0 0" : str(c.G2.toObject(c.G2.toAffine(P)).slice(0, 2)));
    const ks = [0n, 1n, 2n, 3n, r - 1n].concat(Array.from({ length: 5 }, () => below(r)));
    for (let i = 0; i < ks.length; i++) {
        const k = ks[i], m = ks[(i * 3 + 1) % ks.length];
        const P = c.G1.timesScalar(c.G1.g, k), M = c.G1.timesScalar(c.G1.g, m);
        const Q = c.G2.timesScalar(c.G2.g, k), N = c.G2.timesScalar(c.G2.g, m);
        out.push(`g1 mul ${k} ${aff1(P)}`);
        out.push(`g2 mul ${k} ${aff2(Q)}`);
        out.push(`g1 add ${k} ${m} ${aff1(c.G1.add(P, M))}`);
        out.push(`g2 add ${k} ${m} ${aff2(c.G2.add(Q, N))}`);
        const b1 = new Uint8Array(64), b2 = new Uint8Array(128);
        c.G1.toRprUncompressed(b1, 0, c.G1.toAffine(P));
        c.G2.toRprUncompressed(b2, 0, c.G2.toAffine(Q));
        out.push(`g1 bytes ${k} ${hex(b1)}`);
        out.push(`g2 bytes ${k} ${hex(b2)}`);
    }
    for (const n of [1, 3, 17, 64]) {
        const kk = Array.from({ length: n }, () => below(r)), ss = Array.from({ length: n }, (_, i) => (i % 5 === 0 ? 1n : below(r)));
        const pts = new Uint8Array(64 * n), sc = new Uint8Array(32 * n);
        for (let i = 0; i < n; i++) {
            c.G1.toRprLEM(pts, 64 * i, c.G1.toAffine(c.G1.timesScalar(c.G1.g, kk[i])));
            c.Fr.toRprLE(sc, 32 * i, c.Fr.e(ss[i]));
        }
        const res = await c.G1.multiExpAffine(pts, sc, false);
        out.push(`g1 msm ${n} ${str(kk)} ${str(ss)} ${aff1(res)}`);
    }
    const pk = [[1n, 1n], [2n, 3n], [below(r), below(r)], [r - 1n, 5n]];
    for (const [a, b] of pk) {
        const e = await c.pairing(c.G1.timesScalar(c.G1.g, a), c.G2.timesScalar(c.G2.g, b));
        out.push(`pair ${a} ${b} ${str(c.Gt.toObject(e))}`);
    }
    for (let k = 0; k <= 28; k++) out.push(`root ${k} ${c.Fr.toObject(c.Fr.w[k])}`);
    return out;
}, ff.buildBn128);
