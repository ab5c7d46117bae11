/*
 * fp12.h — the BLS12-381 extension tower used by the pairing:
 *
 *   Fp6  = Fp2[v]/(v^3 - ξ),  ξ = 1 + u      (zp_fp2_mul_nonres multiplies by ξ)
 *   Fp12 = Fp6[w]/(w^2 - v)                  (so w^6 = ξ)
 *
 * This is the tower of zcash/bls12_381, blst and ffjavascript, and the memory
 * layout follows it: an Fp12 is c0 then c1 (Fp6), an Fp6 is c0, c1, c2 (Fp2),
 * so 12 Fp elements in the order ffjavascript's F12 buffers use.
 *
 * Same conventions as field.h: Montgomery form, outputs may alias inputs. Nothing
 * here allocates. Operations are constant-time except zp_fp12_pow (variable
 * time in the exponent; for tests and public exponents only).
 *
 * "Cyclotomic" functions require their input to lie in the cyclotomic subgroup
 * G_{Φ12(q)} (anything after the easy part of the final exponentiation, e.g. a
 * pairing value); there, conjugation is inversion and squaring is cheaper.
 */
#ifndef ZP_FP12_H
#define ZP_FP12_H

#include "fp2.h"

typedef struct { zp_fp2 c0, c1, c2; } zp_fp6;
typedef struct { zp_fp6 c0, c1; } zp_fp12;

_Static_assert(sizeof(zp_fp12) == 12 * 48, "Fp12 is 12 packed Fp elements");

extern const zp_fp6 ZP_FP6_ZERO, ZP_FP6_ONE;
extern const zp_fp12 ZP_FP12_ZERO, ZP_FP12_ONE;

/* ---- Fp6 ---- */
void zp_fp6_add(zp_fp6 *r, const zp_fp6 *a, const zp_fp6 *b);
void zp_fp6_sub(zp_fp6 *r, const zp_fp6 *a, const zp_fp6 *b);
void zp_fp6_neg(zp_fp6 *r, const zp_fp6 *a);
void zp_fp6_mul(zp_fp6 *r, const zp_fp6 *a, const zp_fp6 *b);
void zp_fp6_sqr(zp_fp6 *r, const zp_fp6 *a);
void zp_fp6_inv(zp_fp6 *r, const zp_fp6 *a);           /* inv(0) = 0 */
void zp_fp6_mul_by_v(zp_fp6 *r, const zp_fp6 *a);      /* times v, Fp12's non-residue */
/* r = a · (b0 + b1·v) */
void zp_fp6_mul_by_01(zp_fp6 *r, const zp_fp6 *a, const zp_fp2 *b0, const zp_fp2 *b1);
/* r = a · (b1·v) */
void zp_fp6_mul_by_1(zp_fp6 *r, const zp_fp6 *a, const zp_fp2 *b1);
bool zp_fp6_is_zero(const zp_fp6 *a);
bool zp_fp6_eq(const zp_fp6 *a, const zp_fp6 *b);

/* ---- Fp12 ---- */
void zp_fp12_add(zp_fp12 *r, const zp_fp12 *a, const zp_fp12 *b);
void zp_fp12_sub(zp_fp12 *r, const zp_fp12 *a, const zp_fp12 *b);
void zp_fp12_mul(zp_fp12 *r, const zp_fp12 *a, const zp_fp12 *b);
void zp_fp12_sqr(zp_fp12 *r, const zp_fp12 *a);
void zp_fp12_inv(zp_fp12 *r, const zp_fp12 *a);         /* inv(0) = 0 */
void zp_fp12_conj(zp_fp12 *r, const zp_fp12 *a);        /* c0 - c1·w = a^(q^6) */
/* r = a^(q^k) for any k >= 0 (k mod 12 matters); constants for k = 1, 2, 3 in fp12.c. */
void zp_fp12_frobenius(zp_fp12 *r, const zp_fp12 *a, unsigned k);
/* Granger–Scott squaring; a must be cyclotomic (see above). */
void zp_fp12_cyclotomic_sqr(zp_fp12 *r, const zp_fp12 *a);
/* r = a^e for a cyclotomic a and e a u64 (conjugate the result for -e). Variable time in e. */
void zp_fp12_cyclotomic_pow_u64(zp_fp12 *r, const zp_fp12 *a, uint64_t e);
/* r = a · ((l0 + l1·v) + (l4·v)·w): the shape of a Miller-loop line on the M-twist
 * (coefficients 0, 1 and 4 of the flattened basis 1, v, v^2, w, vw, v^2w). */
void zp_fp12_mul_by_014(zp_fp12 *r, const zp_fp12 *a,
			const zp_fp2 *l0, const zp_fp2 *l1, const zp_fp2 *l4);
void zp_fp12_pow(zp_fp12 *r, const zp_fp12 *a, const uint64_t *e, size_t elimbs);
bool zp_fp12_is_zero(const zp_fp12 *a);
bool zp_fp12_is_one(const zp_fp12 *a);
bool zp_fp12_eq(const zp_fp12 *a, const zp_fp12 *b);
void zp_fp12_random(zp_fp12 *r, zp_rng *g);

#endif
