/*
 * pairing.h — the optimal ate pairing e: G1 × G2 -> GT ⊂ Fp12* of BLS12-381.
 *
 *   e(P, Q) = f_{x,Q}(P)^((q^12 - 1)/r),  x = -0xd201000000010000 (the curve's seed).
 *
 * The value is the exact exponent (q^12 - 1)/r — the same as ffjavascript's
 * finalExponentiationOld and the textbook definition. Note that ffjavascript's
 * `pairing` / `finalExponentiation` return the CUBE of this value: its hard-part
 * chain (ported, by its comments, from zkcrypto's bls12_381) computes the exponent
 * 3·Φ12(q)/r = (x-1)^2 (x+q)(x^2+q^2-1) + 3 (verified: tests/pairing/gen_vectors.js
 * asserts pairing == finalExponentiationOld(millerLoop)^3). Since gcd(3, r) = 1 both are non-degenerate bilinear pairings and
 * "product == 1" checks agree; only raw GT values differ (tests/pairing checks both).
 *
 * Inputs: affine points in Montgomery form (ec.h). The caller must have checked
 * that they are on their curve and in the r-torsion (zp_g1_affine_check /
 * zp_g2_affine_check): the Miller loop assumes it. Pairs where either point is
 * infinity contribute 1 and are skipped.
 *
 * Nothing allocates; any n works (pairs are processed in stack-sized chunks).
 * Not constant-time in the points' values being infinity; otherwise branch-free
 * in the points (public inputs in all of zkpipe's uses: verification).
 */
#ifndef ZP_PAIRING_H
#define ZP_PAIRING_H

#include "ec.h"
#include "fp12.h"

/* f = Π f_{x,q_i}(p_i) up to factors the final exponentiation removes. */
void zp_pairing_miller_loop(zp_fp12 *f, const zp_g1_affine *p, const zp_g2_affine *q, size_t n);
/* r = f^((q^12 - 1)/r): easy part (q^6 - 1)(q^2 + 1), hard part via the x-chain. */
void zp_pairing_final_exp(zp_fp12 *r, const zp_fp12 *f);
/* r = e(p, q) */
void zp_pairing(zp_fp12 *r, const zp_g1_affine *p, const zp_g2_affine *q);
/* r = Π e(p_i, q_i), one shared final exponentiation. n = 0 gives 1. */
void zp_pairing_multi(zp_fp12 *r, const zp_g1_affine *p, const zp_g2_affine *q, size_t n);
/* Groth16-style check: 0 if Π e(p_i, q_i) == 1, ZP_EVERIFY otherwise. */
int zp_pairing_check(const zp_g1_affine *p, const zp_g2_affine *q, size_t n);

#endif
