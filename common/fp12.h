/*
 * fp12.h — the extension towers used by the pairings, written once (tower_tmpl.h) and declared here for
 * both curves (ZP_TOWER_API; BN254's types and its public subset are in bn254.h). BLS12-381's:
 *
 *   Fp6  = Fp2[v]/(v^3 - ξ),  ξ = 1 + u      (zp_fp2_mul_nonres multiplies by ξ)
 *   Fp12 = Fp6[w]/(w^2 - v)                  (so w^6 = ξ)
 *
 * This is the tower of zcash/bls12_381, blst and ffjavascript, and the memory
 * layout follows it: an Fp12 is c0 then c1 (Fp6), an Fp6 is c0, c1, c2 (Fp2),
 * so 12 Fp elements in the order ffjavascript's F12 buffers use.
 *
 * Same conventions as field.h: Montgomery form, outputs may alias inputs. Nothing
 * here allocates. Operations are constant-time except the pow functions (variable
 * time in the exponent; for tests and public exponents only).
 *
 * "Cyclotomic" functions require their input to lie in the cyclotomic subgroup
 * G_{Φ12(q)} (anything after the easy part of the final exponentiation, e.g. a
 * pairing value); there, conjugation is inversion and squaring is cheaper.
 */
#ifndef ZP_FP12_H
#define ZP_FP12_H

#include "bn254.h"
#include "fp2.h"

typedef struct { zp_fp2 c0, c1, c2; } zp_fp6;
typedef struct { zp_fp6 c0, c1; } zp_fp12;

_Static_assert(sizeof(zp_fp12) == 12 * 48, "Fp12 is 12 packed Fp elements");

extern const zp_fp6 ZP_FP6_ZERO, ZP_FP6_ONE;
extern const zp_fp12 ZP_FP12_ZERO, ZP_FP12_ONE;

/* The tower's operations (tower_tmpl.h) for a curve's prefix P (zp_, zp_bn254_) and types. */
#define ZP_TOWER_API(P, F2, F6, F12)                                                          \
	void P##fp6_add(F6 *r, const F6 *a, const F6 *b);                                     \
	void P##fp6_sub(F6 *r, const F6 *a, const F6 *b);                                     \
	void P##fp6_neg(F6 *r, const F6 *a);                                                  \
	void P##fp6_mul(F6 *r, const F6 *a, const F6 *b);                                     \
	void P##fp6_sqr(F6 *r, const F6 *a);                                                  \
	void P##fp6_inv(F6 *r, const F6 *a);            /* inv(0) = 0 */                      \
	void P##fp6_mul_v(F6 *r, const F6 *a);          /* times v, Fp12's non-residue */     \
	bool P##fp6_is_zero(const F6 *a);                                                     \
	bool P##fp6_eq(const F6 *a, const F6 *b);                                             \
	void P##fp12_add(F12 *r, const F12 *a, const F12 *b);                                 \
	void P##fp12_sub(F12 *r, const F12 *a, const F12 *b);                                 \
	void P##fp12_mul(F12 *r, const F12 *a, const F12 *b);                                 \
	void P##fp12_sqr(F12 *r, const F12 *a);                                               \
	void P##fp12_inv(F12 *r, const F12 *a);         /* inv(0) = 0 */                      \
	void P##fp12_conj(F12 *r, const F12 *a);        /* c0 - c1·w = a^(q^6) */             \
	/* r = a^(q^k) for any k >= 0 (k mod 12 matters) */                                   \
	void P##fp12_frobenius(F12 *r, const F12 *a, unsigned k);                             \
	/* r = f^((q^6 - 1)(q^2 + 1)), the easy part of the final exponentiation: cyclotomic */ \
	void P##fp12_final_exp_easy(F12 *r, const F12 *f);                                    \
	/* Granger–Scott squaring; a must be cyclotomic (see above). */                       \
	void P##fp12_cyclotomic_sqr(F12 *r, const F12 *a);                                    \
	/* r = a^e, a cyclotomic (conjugate the result for -e). Variable time in e. */        \
	void P##fp12_cyclotomic_pow_u64(F12 *r, const F12 *a, uint64_t e);                   \
	void P##fp12_pow(F12 *r, const F12 *a, const uint64_t *e, size_t elimbs);             \
	bool P##fp12_is_zero(const F12 *a);                                                   \
	bool P##fp12_is_one(const F12 *a);                                                    \
	bool P##fp12_eq(const F12 *a, const F12 *b);                                          \
	void P##fp12_random(F12 *r, zp_rng *g);

ZP_TOWER_API(zp_, zp_fp2, zp_fp6, zp_fp12)
ZP_TOWER_API(zp_bn254_, zp_bn254_fp2, zp_bn254_fp6, zp_bn254_fp12)

/* BLS12-381's is an M-twist: a Miller-loop line has the sparse shape below (pairing.c). */
/* r = a · (b0 + b1·v) */
void zp_fp6_mul_by_01(zp_fp6 *r, const zp_fp6 *a, const zp_fp2 *b0, const zp_fp2 *b1);
/* r = a · (b1·v) */
void zp_fp6_mul_by_1(zp_fp6 *r, const zp_fp6 *a, const zp_fp2 *b1);
/* r = a · ((l0 + l1·v) + (l4·v)·w): the shape of a Miller-loop line on the M-twist
 * (coefficients 0, 1 and 4 of the flattened basis 1, v, v^2, w, vw, v^2w). */
void zp_fp12_mul_by_014(zp_fp12 *r, const zp_fp12 *a,
			const zp_fp2 *l0, const zp_fp2 *l1, const zp_fp2 *l4);

#endif
