/*
 * fp12.c — Fp6 and Fp12 arithmetic for the pairing (tower in fp12.h).
 *
 * Fp6: Karatsuba-style multiplication (6 Fp2 muls), Chung–Hasan SQR2 squaring,
 * inversion through the norm to Fp2. Fp12: Karatsuba over Fp6 (3 Fp6 muls),
 * "complex" squaring (2 Fp6 muls), inversion through the norm to Fp6.
 * Cyclotomic squaring: Granger–Scott ("Faster squaring in the cyclotomic subgroup
 * of sixth degree extensions", PKC 2010) on the view Fp12 = Fp4[z]/(z^3 - s) with
 * Fp4 = Fp2[s]/(s^2 - ξ), s = w^3, z = w.
 */
#include "fp12.h"

#define FP_R_MOD_Q { .l = {  /* R mod q: Montgomery one */ \
	0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, \
	0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL } }

const zp_fp6 ZP_FP6_ZERO = { .c0 = { .c0 = { .l = { 0 } } } };
const zp_fp6 ZP_FP6_ONE = { .c0 = { .c0 = FP_R_MOD_Q } };
const zp_fp12 ZP_FP12_ZERO = { .c0 = { .c0 = { .c0 = { .l = { 0 } } } } };
const zp_fp12 ZP_FP12_ONE = { .c0 = { .c0 = { .c0 = FP_R_MOD_Q } } };

/*
 * Frobenius coefficients. Write a ∈ Fp12 in the basis w^i (i = 0..5):
 *   a = a0 + b0·w + a1·w^2 + b1·w^3 + a2·w^4 + b2·w^5   (c0 = a0 + a1 v + a2 v^2, c1 = b0 + ...).
 * Then a^(q^k) = Σ frob_k(e_i) · w^i · w^(i(q^k - 1)), and w^(i(q^k-1)) = ξ^(i(q^k-1)/6)
 * because w^6 = ξ and 6 | q^k - 1.  FROB[k-1][i-1] = ξ^(i(q^k-1)/6) for k = 1..3, i = 1..5,
 * in Montgomery form (R = 2^384), computed once with Python integers:
 *     f2pow((1, 1), i*(q**k - 1)//6) * 2**384 % q, componentwise.
 * test_fp12_frobenius checks every map against a^(q^k) by plain exponentiation.
 */
static const zp_fp2 FROB[3][5] = {
	{ /* k = 1 */
		{ { { 0x07089552b319d465ULL, 0xc6695f92b50a8313ULL, 0x97e83cccd117228fULL,
		      0xa35baecab2dc29eeULL, 0x1ce393ea5daace4dULL, 0x08f2220fb0fb66ebULL } },  /* i = 1 */
		  { { 0xb2f66aad4ce5d646ULL, 0x5842a06bfc497cecULL, 0xcf4895d42599d394ULL,
		      0xc11b9cba40a8e8d0ULL, 0x2e3813cbe5a0de89ULL, 0x110eefda88847fafULL } } },
		{ { { 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		      0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL } },  /* i = 2 */
		  { { 0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL,
		      0x8eb60ebe01bacb9eULL, 0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL } } },
		{ { { 0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL,
		      0xd1ca2087da74d4a7ULL, 0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL } },  /* i = 3 */
		  { { 0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL,
		      0xd1ca2087da74d4a7ULL, 0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL } } },
		{ { { 0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL,
		      0xa20d1b8c7e881024ULL, 0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL } },  /* i = 4 */
		  { { 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		      0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL } } },
		{ { { 0x82d83cf50dbce43fULL, 0xa2813e53df9d018fULL, 0xc6f0caa53c65e181ULL,
		      0x7525cf528d50fe95ULL, 0x4a85ed50f4798a6bULL, 0x171da0fd6cf8eebdULL } },  /* i = 5 */
		  { { 0x3726c30af242c66cULL, 0x7c2ac1aad1b6fe70ULL, 0xa04007fbba4b14a2ULL,
		      0xef517c3266341429ULL, 0x0095ba654ed2226bULL, 0x02e370eccc86f7ddULL } } },
	},
	{ /* k = 2 */
		{ { { 0xecfb361b798dba3aULL, 0xc100ddb891865a2cULL, 0x0ec08ff1232bda8eULL,
		      0xd5c13cc6f1ca4721ULL, 0x47222a47bf7b5c04ULL, 0x0110f184e51c5f59ULL } },  /* i = 1 */
		  { { 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		      0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL } } },
		{ { { 0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL,
		      0xc26a2ff874fd029bULL, 0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL } },  /* i = 2 */
		  { { 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		      0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL } } },
		{ { { 0x43f5fffffffcaaaeULL, 0x32b7fff2ed47fffdULL, 0x07e83a49a2e99d69ULL,
		      0xeca8f3318332bb7aULL, 0xef148d1ea0f4c069ULL, 0x040ab3263eff0206ULL } },  /* i = 3 */
		  { { 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		      0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL } } },
		{ { { 0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL,
		      0x8eb60ebe01bacb9eULL, 0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL } },  /* i = 4 */
		  { { 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		      0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL } } },
		{ { { 0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL,
		      0xa20d1b8c7e881024ULL, 0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL } },  /* i = 5 */
		  { { 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		      0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL } } },
	},
	{ /* k = 3 */
		{ { { 0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL,
		      0x92ad2afd19103e18ULL, 0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL } },  /* i = 1 */
		  { { 0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL,
		      0xd1ca2087da74d4a7ULL, 0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL } } },
		{ { { 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		      0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL } },  /* i = 2 */
		  { { 0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
		      0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL } } },
		{ { { 0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL,
		      0x92ad2afd19103e18ULL, 0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL } },  /* i = 3 */
		  { { 0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL,
		      0x92ad2afd19103e18ULL, 0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL } } },
		{ { { 0x43f5fffffffcaaaeULL, 0x32b7fff2ed47fffdULL, 0x07e83a49a2e99d69ULL,
		      0xeca8f3318332bb7aULL, 0xef148d1ea0f4c069ULL, 0x040ab3263eff0206ULL } },  /* i = 4 */
		  { { 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
		      0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL } } },
		{ { { 0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL,
		      0xd1ca2087da74d4a7ULL, 0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL } },  /* i = 5 */
		  { { 0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL,
		      0x92ad2afd19103e18ULL, 0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL } } },
	},
};

/* ---------- Fp6 ---------- */

void zp_fp6_add(zp_fp6 *r, const zp_fp6 *a, const zp_fp6 *b)
{
	zp_fp2_add(&r->c0, &a->c0, &b->c0);
	zp_fp2_add(&r->c1, &a->c1, &b->c1);
	zp_fp2_add(&r->c2, &a->c2, &b->c2);
}

void zp_fp6_sub(zp_fp6 *r, const zp_fp6 *a, const zp_fp6 *b)
{
	zp_fp2_sub(&r->c0, &a->c0, &b->c0);
	zp_fp2_sub(&r->c1, &a->c1, &b->c1);
	zp_fp2_sub(&r->c2, &a->c2, &b->c2);
}

void zp_fp6_neg(zp_fp6 *r, const zp_fp6 *a)
{
	zp_fp2_neg(&r->c0, &a->c0);
	zp_fp2_neg(&r->c1, &a->c1);
	zp_fp2_neg(&r->c2, &a->c2);
}

/* Karatsuba's cross term x0 y1 + x1 y0 = (x0 + x1)(y0 + y1) - x0y0 - x1y1, given x0y0 and x1y1. */
static inline __attribute__((always_inline)) void fp2_kara_cross(zp_fp2 *r, const zp_fp2 *x0,
	const zp_fp2 *x1, const zp_fp2 *y0, const zp_fp2 *y1, const zp_fp2 *x0y0, const zp_fp2 *x1y1)
{
	zp_fp2 s, u;
	zp_fp2_add(&s, x0, x1);
	zp_fp2_add(&u, y0, y1);
	zp_fp2_mul(r, &s, &u);
	zp_fp2_sub(r, r, x0y0);
	zp_fp2_sub(r, r, x1y1);
}

/* (a0 + a1 v + a2 v^2)(b0 + b1 v + b2 v^2) with v^3 = ξ; 6 Fp2 multiplications. */
void zp_fp6_mul(zp_fp6 *r, const zp_fp6 *a, const zp_fp6 *b)
{
	zp_fp2 t0, t1, t2, s, c0, c1, c2;
	zp_fp2_mul(&t0, &a->c0, &b->c0);
	zp_fp2_mul(&t1, &a->c1, &b->c1);
	zp_fp2_mul(&t2, &a->c2, &b->c2);
	/* c0 = t0 + ξ((a1 + a2)(b1 + b2) - t1 - t2) */
	fp2_kara_cross(&c0, &a->c1, &a->c2, &b->c1, &b->c2, &t1, &t2);
	zp_fp2_mul_nonres(&c0, &c0);
	zp_fp2_add(&c0, &c0, &t0);
	/* c1 = (a0 + a1)(b0 + b1) - t0 - t1 + ξ t2 */
	fp2_kara_cross(&c1, &a->c0, &a->c1, &b->c0, &b->c1, &t0, &t1);
	zp_fp2_mul_nonres(&s, &t2);
	zp_fp2_add(&c1, &c1, &s);
	/* c2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1 */
	fp2_kara_cross(&c2, &a->c0, &a->c2, &b->c0, &b->c2, &t0, &t2);
	zp_fp2_add(&c2, &c2, &t1);
	r->c0 = c0;
	r->c1 = c1;
	r->c2 = c2;
}

/* Chung–Hasan SQR2: 3 squarings and 2 multiplications in Fp2. */
void zp_fp6_sqr(zp_fp6 *r, const zp_fp6 *a)
{
	zp_fp2 s0, s1, s2, s3, s4, t;
	zp_fp2_sqr(&s0, &a->c0);
	zp_fp2_mul(&s1, &a->c0, &a->c1);
	zp_fp2_dbl(&s1, &s1);
	zp_fp2_sub(&t, &a->c0, &a->c1);
	zp_fp2_add(&t, &t, &a->c2);
	zp_fp2_sqr(&s2, &t);
	zp_fp2_mul(&s3, &a->c1, &a->c2);
	zp_fp2_dbl(&s3, &s3);
	zp_fp2_sqr(&s4, &a->c2);
	/* c2 = s1 + s2 + s3 - s0 - s4 */
	zp_fp2_add(&t, &s1, &s2);
	zp_fp2_add(&t, &t, &s3);
	zp_fp2_sub(&t, &t, &s0);
	zp_fp2_sub(&r->c2, &t, &s4);
	/* c0 = s0 + ξ s3, c1 = s1 + ξ s4 */
	zp_fp2_mul_nonres(&s3, &s3);
	zp_fp2_add(&r->c0, &s0, &s3);
	zp_fp2_mul_nonres(&s4, &s4);
	zp_fp2_add(&r->c1, &s1, &s4);
}

/*
 * 1/a = (t0 + t1 v + t2 v^2) / N with t0 = a0^2 - ξ a1 a2, t1 = ξ a2^2 - a0 a1,
 * t2 = a1^2 - a0 a2 and N = a0 t0 + ξ (a2 t1 + a1 t2) ∈ Fp2.
 */
void zp_fp6_inv(zp_fp6 *r, const zp_fp6 *a)
{
	zp_fp2 t0, t1, t2, x, n;
	zp_fp2_sqr(&t0, &a->c0);
	zp_fp2_mul(&x, &a->c1, &a->c2);
	zp_fp2_mul_nonres(&x, &x);
	zp_fp2_sub(&t0, &t0, &x);
	zp_fp2_sqr(&t1, &a->c2);
	zp_fp2_mul_nonres(&t1, &t1);
	zp_fp2_mul(&x, &a->c0, &a->c1);
	zp_fp2_sub(&t1, &t1, &x);
	zp_fp2_sqr(&t2, &a->c1);
	zp_fp2_mul(&x, &a->c0, &a->c2);
	zp_fp2_sub(&t2, &t2, &x);
	zp_fp2_mul(&n, &a->c2, &t1);
	zp_fp2_mul(&x, &a->c1, &t2);
	zp_fp2_add(&n, &n, &x);
	zp_fp2_mul_nonres(&n, &n);
	zp_fp2_mul(&x, &a->c0, &t0);
	zp_fp2_add(&n, &n, &x);
	zp_fp2_inv(&n, &n);
	zp_fp2_mul(&r->c0, &t0, &n);
	zp_fp2_mul(&r->c1, &t1, &n);
	zp_fp2_mul(&r->c2, &t2, &n);
}

/* (a0 + a1 v + a2 v^2)·v = ξ a2 + a0 v + a1 v^2 */
void zp_fp6_mul_by_v(zp_fp6 *r, const zp_fp6 *a)
{
	zp_fp2 t;
	zp_fp2_mul_nonres(&t, &a->c2);
	r->c2 = a->c1;
	r->c1 = a->c0;
	r->c0 = t;
}

/* a·(b0 + b1 v): c0 = a0 b0 + ξ a2 b1, c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1,
 * c2 = a2 b0 + a1 b1; 5 Fp2 multiplications. */
void zp_fp6_mul_by_01(zp_fp6 *r, const zp_fp6 *a, const zp_fp2 *b0, const zp_fp2 *b1)
{
	zp_fp2 t0, t1, c0, c1, c2;
	zp_fp2_mul(&t0, &a->c0, b0);
	zp_fp2_mul(&t1, &a->c1, b1);
	zp_fp2_mul(&c0, &a->c2, b1);
	zp_fp2_mul_nonres(&c0, &c0);
	zp_fp2_add(&c0, &c0, &t0);
	fp2_kara_cross(&c1, &a->c0, &a->c1, b0, b1, &t0, &t1);
	zp_fp2_mul(&c2, &a->c2, b0);
	zp_fp2_add(&c2, &c2, &t1);
	r->c0 = c0;
	r->c1 = c1;
	r->c2 = c2;
}

/* a·(b1 v) = ξ a2 b1 + a0 b1 v + a1 b1 v^2 */
void zp_fp6_mul_by_1(zp_fp6 *r, const zp_fp6 *a, const zp_fp2 *b1)
{
	zp_fp2 c0, c1, c2;
	zp_fp2_mul(&c0, &a->c2, b1);
	zp_fp2_mul_nonres(&c0, &c0);
	zp_fp2_mul(&c1, &a->c0, b1);
	zp_fp2_mul(&c2, &a->c1, b1);
	r->c0 = c0;
	r->c1 = c1;
	r->c2 = c2;
}

bool zp_fp6_is_zero(const zp_fp6 *a)
{
	return zp_fp2_is_zero(&a->c0) & zp_fp2_is_zero(&a->c1) & zp_fp2_is_zero(&a->c2);
}

bool zp_fp6_eq(const zp_fp6 *a, const zp_fp6 *b)
{
	return zp_fp2_eq(&a->c0, &b->c0) & zp_fp2_eq(&a->c1, &b->c1) & zp_fp2_eq(&a->c2, &b->c2);
}

/* ---------- Fp12 ---------- */

void zp_fp12_add(zp_fp12 *r, const zp_fp12 *a, const zp_fp12 *b)
{
	zp_fp6_add(&r->c0, &a->c0, &b->c0);
	zp_fp6_add(&r->c1, &a->c1, &b->c1);
}

void zp_fp12_sub(zp_fp12 *r, const zp_fp12 *a, const zp_fp12 *b)
{
	zp_fp6_sub(&r->c0, &a->c0, &b->c0);
	zp_fp6_sub(&r->c1, &a->c1, &b->c1);
}

/* (a0 + a1 w)(b0 + b1 w) = (t0 + v t1) + ((a0 + a1)(b0 + b1) - t0 - t1) w */
void zp_fp12_mul(zp_fp12 *r, const zp_fp12 *a, const zp_fp12 *b)
{
	zp_fp6 t0, t1, s, u;
	zp_fp6_mul(&t0, &a->c0, &b->c0);
	zp_fp6_mul(&t1, &a->c1, &b->c1);
	zp_fp6_add(&s, &a->c0, &a->c1);
	zp_fp6_add(&u, &b->c0, &b->c1);
	zp_fp6_mul(&s, &s, &u);
	zp_fp6_sub(&s, &s, &t0);
	zp_fp6_sub(&r->c1, &s, &t1);
	zp_fp6_mul_by_v(&t1, &t1);
	zp_fp6_add(&r->c0, &t0, &t1);
}

/* (a0 + a1 w)^2: m = a0 a1; c0 = (a0 + a1)(a0 + v a1) - m - v m; c1 = 2m */
void zp_fp12_sqr(zp_fp12 *r, const zp_fp12 *a)
{
	zp_fp6 m, s, t;
	zp_fp6_mul(&m, &a->c0, &a->c1);
	zp_fp6_add(&s, &a->c0, &a->c1);
	zp_fp6_mul_by_v(&t, &a->c1);
	zp_fp6_add(&t, &t, &a->c0);
	zp_fp6_mul(&s, &s, &t);
	zp_fp6_sub(&s, &s, &m);
	zp_fp6_mul_by_v(&t, &m);
	zp_fp6_sub(&r->c0, &s, &t);
	zp_fp6_add(&r->c1, &m, &m);
}

/* 1/(a0 + a1 w) = (a0 - a1 w) / (a0^2 - v a1^2) */
void zp_fp12_inv(zp_fp12 *r, const zp_fp12 *a)
{
	zp_fp6 n, t;
	zp_fp6_sqr(&n, &a->c0);
	zp_fp6_sqr(&t, &a->c1);
	zp_fp6_mul_by_v(&t, &t);
	zp_fp6_sub(&n, &n, &t);
	zp_fp6_inv(&n, &n);
	zp_fp6_mul(&r->c0, &a->c0, &n);
	zp_fp6_mul(&t, &a->c1, &n);
	zp_fp6_neg(&r->c1, &t);
}

void zp_fp12_conj(zp_fp12 *r, const zp_fp12 *a)
{
	r->c0 = a->c0;
	zp_fp6_neg(&r->c1, &a->c1);
}

/* One map a -> a^(q^k), k in 1..3, from the table above. */
static void frobenius_k(zp_fp12 *r, const zp_fp12 *a, unsigned k)
{
	/* e[i] is the coefficient of w^i, i = 0..5 */
	const zp_fp2 *e[6] = { &a->c0.c0, &a->c1.c0, &a->c0.c1, &a->c1.c1, &a->c0.c2, &a->c1.c2 };
	zp_fp2 *o[6] = { &r->c0.c0, &r->c1.c0, &r->c0.c1, &r->c1.c1, &r->c0.c2, &r->c1.c2 };
	zp_fp2 t[6];
	for (int i = 0; i < 6; i++) {
		if (k & 1)
			zp_fp2_conj(&t[i], e[i]);
		else
			t[i] = *e[i];
		if (i > 0)
			zp_fp2_mul(&t[i], &t[i], &FROB[k - 1][i - 1]);
	}
	for (int i = 0; i < 6; i++)
		*o[i] = t[i];
}

void zp_fp12_frobenius(zp_fp12 *r, const zp_fp12 *a, unsigned k)
{
	k %= 12;
	if (k == 0) {
		*r = *a;
		return;
	}
	if (k == 6) {
		zp_fp12_conj(r, a);
		return;
	}
	zp_fp12 t = *a;
	while (k > 0) {
		unsigned s = k > 3 ? 3 : k;
		frobenius_k(&t, &t, s);
		k -= s;
	}
	*r = t;
}

/* (x0 + x1 s)^2 in Fp4 = Fp2[s]/(s^2 - ξ): (x0^2 + ξ x1^2) + 2 x0 x1 s */
static void fp4_sqr(zp_fp2 *r0, zp_fp2 *r1, const zp_fp2 *x0, const zp_fp2 *x1)
{
	zp_fp2 t0, t1, t;
	zp_fp2_sqr(&t0, x0);
	zp_fp2_sqr(&t1, x1);
	zp_fp2_add(&t, x0, x1);
	zp_fp2_sqr(&t, &t);
	zp_fp2_sub(&t, &t, &t0);
	zp_fp2_sub(r1, &t, &t1);
	zp_fp2_mul_nonres(&t1, &t1);
	zp_fp2_add(r0, &t0, &t1);
}

/* r = 3x - 2y  and  r = 3x + 2y */
static void three_minus_two(zp_fp2 *r, const zp_fp2 *x, const zp_fp2 *y)
{
	zp_fp2 t;
	zp_fp2_sub(&t, x, y);
	zp_fp2_dbl(&t, &t);
	zp_fp2_add(r, &t, x);
}

static void three_plus_two(zp_fp2 *r, const zp_fp2 *x, const zp_fp2 *y)
{
	zp_fp2 t;
	zp_fp2_add(&t, x, y);
	zp_fp2_dbl(&t, &t);
	zp_fp2_add(r, &t, x);
}

/*
 * Granger–Scott. As an Fp4[z]/(z^3 - s) element, a = g0 + g1 z + g2 z^2 with
 * g0 = a0 + b1 s, g1 = b0 + a2 s, g2 = a1 + b2 s (coefficients as in FROB's comment).
 * For cyclotomic a:
 *   a^2 = (3 g0^2 - 2 conj(g0)) + (3 s g2^2 + 2 conj(g1)) z + (3 g1^2 - 2 conj(g2)) z^2
 * where conj(x0 + x1 s) = x0 - x1 s. 9 Fp2 squarings instead of 12 Fp2 multiplications.
 */
void zp_fp12_cyclotomic_sqr(zp_fp12 *r, const zp_fp12 *a)
{
	zp_fp2 A0, A1, B0, B1, C0, C1;
	fp4_sqr(&A0, &A1, &a->c0.c0, &a->c1.c1);  /* g0^2 */
	fp4_sqr(&B0, &B1, &a->c1.c0, &a->c0.c2);  /* g1^2 */
	fp4_sqr(&C0, &C1, &a->c0.c1, &a->c1.c2);  /* g2^2 */
	zp_fp2_mul_nonres(&C1, &C1);               /* s·g2^2 = ξ C1 + C0 s */
	three_minus_two(&r->c0.c0, &A0, &a->c0.c0);
	three_plus_two(&r->c1.c1, &A1, &a->c1.c1);
	three_plus_two(&r->c1.c0, &C1, &a->c1.c0);
	three_minus_two(&r->c0.c2, &C0, &a->c0.c2);
	three_minus_two(&r->c0.c1, &B0, &a->c0.c1);
	three_plus_two(&r->c1.c2, &B1, &a->c1.c2);
}

void zp_fp12_cyclotomic_pow_u64(zp_fp12 *r, const zp_fp12 *a, uint64_t e)
{
	zp_fp12 acc = ZP_FP12_ONE, base = *a;
	int top = 63;
	while (top >= 0 && !((e >> top) & 1))
		top--;
	for (int b = top; b >= 0; b--) {
		zp_fp12_cyclotomic_sqr(&acc, &acc);
		if ((e >> b) & 1)
			zp_fp12_mul(&acc, &acc, &base);
	}
	*r = acc;
}

/*
 * a·l with l = L0 + L1 w, L0 = l0 + l1 v, L1 = l4 v (Karatsuba over Fp6):
 *   c0 = a0 L0 + v (a1 L1),  c1 = (a0 + a1)(L0 + L1) - a0 L0 - a1 L1.
 * 13 Fp2 multiplications instead of 18.
 */
void zp_fp12_mul_by_014(zp_fp12 *r, const zp_fp12 *a,
			const zp_fp2 *l0, const zp_fp2 *l1, const zp_fp2 *l4)
{
	zp_fp6 t0, t1, s;
	zp_fp2 m;
	zp_fp6_mul_by_01(&t0, &a->c0, l0, l1);
	zp_fp6_mul_by_1(&t1, &a->c1, l4);
	zp_fp6_add(&s, &a->c0, &a->c1);
	zp_fp2_add(&m, l1, l4);
	zp_fp6_mul_by_01(&s, &s, l0, &m);
	zp_fp6_sub(&s, &s, &t0);
	zp_fp6_sub(&r->c1, &s, &t1);
	zp_fp6_mul_by_v(&t1, &t1);
	zp_fp6_add(&r->c0, &t0, &t1);
}

void zp_fp12_pow(zp_fp12 *r, const zp_fp12 *a, const uint64_t *e, size_t elimbs)
{
	zp_fp12 acc = ZP_FP12_ONE, base = *a;
	for (size_t i = elimbs; i-- > 0;)
		for (int b = 63; b >= 0; b--) {
			zp_fp12_sqr(&acc, &acc);
			if ((e[i] >> b) & 1)
				zp_fp12_mul(&acc, &acc, &base);
		}
	*r = acc;
}

bool zp_fp12_is_zero(const zp_fp12 *a) { return zp_fp6_is_zero(&a->c0) & zp_fp6_is_zero(&a->c1); }

bool zp_fp12_is_one(const zp_fp12 *a) { return zp_fp12_eq(a, &ZP_FP12_ONE); }

bool zp_fp12_eq(const zp_fp12 *a, const zp_fp12 *b)
{
	return zp_fp6_eq(&a->c0, &b->c0) & zp_fp6_eq(&a->c1, &b->c1);
}

void zp_fp12_random(zp_fp12 *r, zp_rng *g)
{
	zp_fp2 *c[6] = { &r->c0.c0, &r->c0.c1, &r->c0.c2, &r->c1.c0, &r->c1.c1, &r->c1.c2 };
	for (int i = 0; i < 6; i++)
		zp_fp2_random(c[i], g);
}
