// lib.js — helpers shared by the vector generators tests/*/gen_vectors.js.
// Load with: const lib = require("../vectors/lib.js");
//
// splitmix64(seed): a deterministic 64-bit source, so every committed vectors.txt is
//   reproducible byte for byte. Returns { next64(), bits(n) }: bits(n) concatenates
//   ceil(n/64) draws, most significant first, and keeps the low n bits.
// hex(bytes): lowercase hex of a Uint8Array (or anything Buffer.from takes).
// run(body[, build]): builds ffjavascript's bls12381 (or build(), e.g. ff.buildBn128) single-threaded
//   (deterministic), awaits
//   body(curve) for an array of lines, writes them newline-terminated to stdout and
//   terminates the curve; any error is printed and exits 1.
"use strict";
const ff = require("ffjavascript");

const MASK64 = 0xffffffffffffffffn;

function splitmix64(seed) {
    let state = BigInt(seed) & MASK64;
    function next64() {
        state = (state + 0x9e3779b97f4a7c15n) & MASK64;
        let z = state;
        z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
        z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
        return z ^ (z >> 31n);
    }
    function bits(n) {
        let v = 0n;
        for (let i = 0; i < n; i += 64) v = (v << 64n) | next64();
        return v & ((1n << BigInt(n)) - 1n);
    }
    return { next64, bits };
}

const hex = (u8) => Buffer.from(u8).toString("hex");

function run(body, build = ff.buildBls12381) {
    (async () => {
        const curve = await build(true);
        const lines = await body(curve);
        process.stdout.write(lines.join("\n") + "\n");
        await curve.terminate();
    })().catch((e) => { console.error(e); process.exit(1); });
}

module.exports = { splitmix64, hex, run, ff };
