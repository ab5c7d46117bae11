/*
 * fp2.h — Fp2 = Fp[u]/(u^2 + 1), the field of G2's coordinates.
 * Element c0 + c1·u; in memory c0 then c1 (the zkey and CUDA order).
 * Same conventions as field.h: Montgomery form, outputs may alias inputs.
 */
#ifndef ZP_FP2_H
#define ZP_FP2_H

#include "field.h"

typedef struct { zp_fp c0, c1; } zp_fp2;

extern const zp_fp2 ZP_FP2_ZERO, ZP_FP2_ONE;

void zp_fp2_add(zp_fp2 *r, const zp_fp2 *a, const zp_fp2 *b);
void zp_fp2_sub(zp_fp2 *r, const zp_fp2 *a, const zp_fp2 *b);
void zp_fp2_dbl(zp_fp2 *r, const zp_fp2 *a);
void zp_fp2_neg(zp_fp2 *r, const zp_fp2 *a);
void zp_fp2_conj(zp_fp2 *r, const zp_fp2 *a);          /* c0 - c1·u = Frobenius */
void zp_fp2_mul(zp_fp2 *r, const zp_fp2 *a, const zp_fp2 *b);
void zp_fp2_sqr(zp_fp2 *r, const zp_fp2 *a);
void zp_fp2_mul_fp(zp_fp2 *r, const zp_fp2 *a, const zp_fp *b);
void zp_fp2_mul_nonres(zp_fp2 *r, const zp_fp2 *a);    /* times (1 + u), Fp6's non-residue */
void zp_fp2_inv(zp_fp2 *r, const zp_fp2 *a);           /* inv(0) = 0 */
void zp_fp2_pow(zp_fp2 *r, const zp_fp2 *a, const uint64_t *e, size_t elimbs);
bool zp_fp2_sqrt(zp_fp2 *r, const zp_fp2 *a);          /* false if not a square */
bool zp_fp2_is_zero(const zp_fp2 *a);
bool zp_fp2_eq(const zp_fp2 *a, const zp_fp2 *b);
/* zcash sign rule: c1 lexicographically largest, or c1 = 0 and c0 largest. */
bool zp_fp2_is_lexlargest(const zp_fp2 *a);
void zp_fp2_random(zp_fp2 *r, zp_rng *g);

#endif
