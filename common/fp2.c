/*
 * fp2.c — BLS12-381's Fp2 (u^2 = -1): the arithmetic of fp2_tmpl.h over field.h's Fp, and what
 * is this curve's own: the non-residue 1 + u of its Fp6, the zcash sign rule.
 */
#include "fp2.h"

const zp_fp2 ZP_FP2_ZERO = { { { 0 } }, { { 0 } } };
const zp_fp2 ZP_FP2_ONE = { { {  /* R mod q */
	0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
	0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL } }, { { 0 } } };

#define F2(x) zp_fp2_##x
#define FP2_FN
#define FP2_T zp_fp2
#define FP_T zp_fp
#define fb_add zp_fp_add
#define fb_sub zp_fp_sub
#define fb_neg zp_fp_neg
#define fb_mul zp_fp_mul
#define fb_sqr zp_fp_sqr
#define fb_inv zp_fp_inv
#define fb_is_zero zp_fp_is_zero
#define FP2_FULL
#define fb_dbl zp_fp_dbl
#define fb_eq zp_fp_eq
#define FP2_ONE ZP_FP2_ONE
#define FP_MODULUS ZP_FP_MODULUS
#define FP_LIMBS ZP_FP_LIMBS
#include "fp2_tmpl.h"

void zp_fp2_mul_nonres(zp_fp2 *r, const zp_fp2 *a)
{
	/* (c0 + c1 u)(1 + u) = (c0 - c1) + (c0 + c1) u */
	zp_fp t;
	zp_fp_sub(&t, &a->c0, &a->c1);
	zp_fp_add(&r->c1, &a->c0, &a->c1);
	r->c0 = t;
}

bool zp_fp2_is_lexlargest(const zp_fp2 *a)
{
	if (!zp_fp_is_zero(&a->c1))
		return zp_fp_is_lexlargest(&a->c1);
	return zp_fp_is_lexlargest(&a->c0);
}

void zp_fp2_random(zp_fp2 *r, zp_rng *g)
{
	zp_fp_random(&r->c0, g);
	zp_fp_random(&r->c1, g);
}
