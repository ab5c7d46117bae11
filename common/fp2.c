/*
 * fp2.c — Fp2 arithmetic (u^2 = -1). Karatsuba multiplication (3 Fp muls),
 * complex squaring (2 Fp muls), norm-based inversion, and the square root of
 * Adj and Rodríguez-Henríquez ("Square root computation over even extension
 * fields", alg. 9) for q = 3 mod 4.
 */
#include "fp2.h"

const zp_fp2 ZP_FP2_ZERO = { { { 0 } }, { { 0 } } };
const zp_fp2 ZP_FP2_ONE = { { {  /* R mod q */
	0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
	0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL } }, { { 0 } } };

void zp_fp2_add(zp_fp2 *r, const zp_fp2 *a, const zp_fp2 *b)
{
	zp_fp_add(&r->c0, &a->c0, &b->c0);
	zp_fp_add(&r->c1, &a->c1, &b->c1);
}

void zp_fp2_sub(zp_fp2 *r, const zp_fp2 *a, const zp_fp2 *b)
{
	zp_fp_sub(&r->c0, &a->c0, &b->c0);
	zp_fp_sub(&r->c1, &a->c1, &b->c1);
}

void zp_fp2_dbl(zp_fp2 *r, const zp_fp2 *a)
{
	zp_fp_dbl(&r->c0, &a->c0);
	zp_fp_dbl(&r->c1, &a->c1);
}

void zp_fp2_neg(zp_fp2 *r, const zp_fp2 *a)
{
	zp_fp_neg(&r->c0, &a->c0);
	zp_fp_neg(&r->c1, &a->c1);
}

void zp_fp2_conj(zp_fp2 *r, const zp_fp2 *a)
{
	r->c0 = a->c0;
	zp_fp_neg(&r->c1, &a->c1);
}

void zp_fp2_mul(zp_fp2 *r, const zp_fp2 *a, const zp_fp2 *b)
{
	zp_fp t0, t1, s0, s1;
	zp_fp_mul(&t0, &a->c0, &b->c0);
	zp_fp_mul(&t1, &a->c1, &b->c1);
	zp_fp_add(&s0, &a->c0, &a->c1);
	zp_fp_add(&s1, &b->c0, &b->c1);
	zp_fp_mul(&s0, &s0, &s1);
	zp_fp_sub(&r->c0, &t0, &t1);
	zp_fp_sub(&s0, &s0, &t0);
	zp_fp_sub(&r->c1, &s0, &t1);
}

void zp_fp2_sqr(zp_fp2 *r, const zp_fp2 *a)
{
	zp_fp s, d, m;
	zp_fp_add(&s, &a->c0, &a->c1);
	zp_fp_sub(&d, &a->c0, &a->c1);
	zp_fp_mul(&m, &a->c0, &a->c1);
	zp_fp_mul(&r->c0, &s, &d);
	zp_fp_dbl(&r->c1, &m);
}

void zp_fp2_mul_fp(zp_fp2 *r, const zp_fp2 *a, const zp_fp *b)
{
	zp_fp_mul(&r->c0, &a->c0, b);
	zp_fp_mul(&r->c1, &a->c1, b);
}

void zp_fp2_mul_nonres(zp_fp2 *r, const zp_fp2 *a)
{
	/* (c0 + c1 u)(1 + u) = (c0 - c1) + (c0 + c1) u */
	zp_fp t;
	zp_fp_sub(&t, &a->c0, &a->c1);
	zp_fp_add(&r->c1, &a->c0, &a->c1);
	r->c0 = t;
}

void zp_fp2_inv(zp_fp2 *r, const zp_fp2 *a)
{
	zp_fp n, t;
	zp_fp_sqr(&n, &a->c0);
	zp_fp_sqr(&t, &a->c1);
	zp_fp_add(&n, &n, &t);
	zp_fp_inv(&n, &n);
	zp_fp_mul(&r->c0, &a->c0, &n);
	zp_fp_mul(&t, &a->c1, &n);
	zp_fp_neg(&r->c1, &t);
}

void zp_fp2_pow(zp_fp2 *r, const zp_fp2 *a, const uint64_t *e, size_t elimbs)
{
	zp_fp2 acc = ZP_FP2_ONE, base = *a;
	for (size_t i = elimbs; i-- > 0;)
		for (int b = 63; b >= 0; b--) {
			zp_fp2_sqr(&acc, &acc);
			if ((e[i] >> b) & 1)
				zp_fp2_mul(&acc, &acc, &base);
		}
	*r = acc;
}

bool zp_fp2_is_zero(const zp_fp2 *a) { return zp_fp_is_zero(&a->c0) & zp_fp_is_zero(&a->c1); }

bool zp_fp2_eq(const zp_fp2 *a, const zp_fp2 *b)
{
	return zp_fp_eq(&a->c0, &b->c0) & zp_fp_eq(&a->c1, &b->c1);
}

bool zp_fp2_sqrt(zp_fp2 *r, const zp_fp2 *a)
{
	static const uint64_t e34[6] = {  /* (q-3)/4 */
		0xee7fbfffffffeaaaULL, 0x07aaffffac54ffffULL, 0xd9cc34a83dac3d89ULL,
		0xd91dd2e13ce144afULL, 0x92c6e9ed90d2eb35ULL, 0x0680447a8e5ff9a6ULL };
	static const uint64_t e12[6] = {  /* (q-1)/2 */
		0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL, 0xb39869507b587b12ULL,
		0xb23ba5c279c2895fULL, 0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL };
	zp_fp2 a1, alpha, x0, x, chk, minus_one;
	zp_fp2_pow(&a1, a, e34, 6);
	zp_fp2_sqr(&alpha, &a1);
	zp_fp2_mul(&alpha, &alpha, a);
	zp_fp2_mul(&x0, &a1, a);
	zp_fp2_neg(&minus_one, &ZP_FP2_ONE);
	if (zp_fp2_eq(&alpha, &minus_one)) {
		/* x = u · x0 */
		zp_fp_neg(&x.c0, &x0.c1);
		x.c1 = x0.c0;
	} else {
		zp_fp2 b;
		zp_fp2_add(&b, &ZP_FP2_ONE, &alpha);
		zp_fp2_pow(&b, &b, e12, 6);
		zp_fp2_mul(&x, &b, &x0);
	}
	zp_fp2_sqr(&chk, &x);
	if (!zp_fp2_eq(&chk, a))
		return false;
	*r = x;
	return true;
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
