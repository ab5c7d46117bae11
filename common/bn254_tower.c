/*
 * bn254_tower.c — BN254's extension fields: Fp2 = Fp[u]/(u^2 + 1), Fp6 = Fp2[v]/(v^3 - xi) with
 * xi = 9 + u, Fp12 = Fp6[w]/(w^2 - v) (ffjavascript's bn128 tower; tests/bn254 checks products against it).
 *
 * Multiplications are Karatsuba at each level (Fp2: 3 Fp products, Fp6: 6 Fp2, Fp12: 3 Fp6).
 * Frobenius on Fp12 works in the w-basis: a = Σ_k a_k w^k (k = 0..5, a_k in Fp2, w^6 = xi) has
 * a^p = Σ conj(a_k)·g_k·w^k with g_k = xi^(k(p-1)/6) (zp_consts.h's FROB_Gk), because
 * w^p = w·(w^6)^((p-1)/6). The w-basis coefficient k of (c0 + c1·w) is c0.c(k/2) for even k and
 * c1.c((k-1)/2) for odd k (w^2 = v).
 */
#include "bn254.h"
#include "field_impl.h"
#include "zp_consts.h"

typedef zp_bn254_fp fp;
typedef zp_bn254_fp2 fp2;
typedef zp_bn254_fp6 fp6;
typedef zp_bn254_fp12 fp12;

const fp2 ZP_BN254_FP2_ZERO = { { { 0 } }, { { 0 } } };
const fp2 ZP_BN254_FP2_ONE = { { ZP_C64_BN_FP_ONE }, { { 0 } } };
const fp12 ZP_BN254_FP12_ONE = {
	{ { { ZP_C64_BN_FP_ONE }, { { 0 } } }, { { { 0 } }, { { 0 } } }, { { { 0 } }, { { 0 } } } },
	{ { { { 0 } }, { { 0 } } }, { { { 0 } }, { { 0 } } }, { { { 0 } }, { { 0 } } } } };

static inline void fadd(fp *r, const fp *a, const fp *b) { zp_mod4_addc(r->l, a->l, b->l, ZP_BN254_FP_MODULUS); }
static inline void fsub(fp *r, const fp *a, const fp *b) { zp_mod4_subc(r->l, a->l, b->l, ZP_BN254_FP_MODULUS); }
static inline void fmul(fp *r, const fp *a, const fp *b) { zp_bn254_fp_mul_fast(r, a, b); }

/* ---------------- Fp2 ---------------- */

static inline void fneg(fp *r, const fp *a) { fsub(r, &ZP_BN254_FP_ZERO, a); }
static inline void fsqr(fp *r, const fp *a) { fmul(r, a, a); }
static inline void fdbl(fp *r, const fp *a) { fadd(r, a, a); }

#define F2(x) zp_bn254_fp2_##x
#define FP2_FN
#define FP2_T fp2
#define FP_T fp
#define fb_add fadd
#define fb_sub fsub
#define fb_neg fneg
#define fb_mul fmul
#define fb_sqr fsqr
#define fb_inv zp_bn254_fp_inv
#define fb_is_zero zp_bn254_fp_is_zero
#define FP2_FULL
#define fb_dbl fdbl
#define fb_eq zp_bn254_fp_eq
#define FP2_ONE ZP_BN254_FP2_ONE
#define FP_MODULUS ZP_BN254_FP_MODULUS
#define FP_LIMBS 4
#include "fp2_tmpl.h"

/* (a0 + a1 u)(9 + u) = (9 a0 - a1) + (a0 + 9 a1) u, by additions */
void zp_bn254_fp2_mul_xi(fp2 *r, const fp2 *a)
{
	fp n0, n1;
	fadd(&n0, &a->c0, &a->c0);
	fadd(&n0, &n0, &n0);
	fadd(&n0, &n0, &n0);
	fadd(&n0, &n0, &a->c0);        /* 9 a0 */
	fadd(&n1, &a->c1, &a->c1);
	fadd(&n1, &n1, &n1);
	fadd(&n1, &n1, &n1);
	fadd(&n1, &n1, &a->c1);        /* 9 a1 */
	fsub(&n0, &n0, &a->c1);
	fadd(&r->c1, &n1, &a->c0);
	r->c0 = n0;
}

void zp_bn254_fp2_random(fp2 *r, zp_rng *g) { zp_bn254_fp_random(&r->c0, g); zp_bn254_fp_random(&r->c1, g); }

/* ---------------- Fp6 ---------------- */

#define F2(op) zp_bn254_fp2_##op

void zp_bn254_fp6_add(fp6 *r, const fp6 *a, const fp6 *b)
{
	F2(add)(&r->c0, &a->c0, &b->c0);
	F2(add)(&r->c1, &a->c1, &b->c1);
	F2(add)(&r->c2, &a->c2, &b->c2);
}
void zp_bn254_fp6_sub(fp6 *r, const fp6 *a, const fp6 *b)
{
	F2(sub)(&r->c0, &a->c0, &b->c0);
	F2(sub)(&r->c1, &a->c1, &b->c1);
	F2(sub)(&r->c2, &a->c2, &b->c2);
}
void zp_bn254_fp6_neg(fp6 *r, const fp6 *a) { F2(neg)(&r->c0, &a->c0); F2(neg)(&r->c1, &a->c1); F2(neg)(&r->c2, &a->c2); }
bool zp_bn254_fp6_is_zero(const fp6 *a) { return F2(is_zero)(&a->c0) & F2(is_zero)(&a->c1) & F2(is_zero)(&a->c2); }

/* Karatsuba over v^3 = xi:
 *   c0 = t0 + xi((a1 + a2)(b1 + b2) - t1 - t2), c1 = (a0 + a1)(b0 + b1) - t0 - t1 + xi t2,
 *   c2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1, with t_i = a_i b_i. */
void zp_bn254_fp6_mul(fp6 *r, const fp6 *a, const fp6 *b)
{
	fp2 t0, t1, t2, s, u, c0, c1, c2;
	F2(mul)(&t0, &a->c0, &b->c0);
	F2(mul)(&t1, &a->c1, &b->c1);
	F2(mul)(&t2, &a->c2, &b->c2);
	F2(add)(&s, &a->c1, &a->c2);
	F2(add)(&u, &b->c1, &b->c2);
	F2(mul)(&s, &s, &u);
	F2(sub)(&s, &s, &t1);
	F2(sub)(&s, &s, &t2);
	F2(mul_xi)(&s, &s);
	F2(add)(&c0, &t0, &s);
	F2(add)(&s, &a->c0, &a->c1);
	F2(add)(&u, &b->c0, &b->c1);
	F2(mul)(&s, &s, &u);
	F2(sub)(&s, &s, &t0);
	F2(sub)(&s, &s, &t1);
	F2(mul_xi)(&u, &t2);
	F2(add)(&c1, &s, &u);
	F2(add)(&s, &a->c0, &a->c2);
	F2(add)(&u, &b->c0, &b->c2);
	F2(mul)(&s, &s, &u);
	F2(sub)(&s, &s, &t0);
	F2(sub)(&s, &s, &t2);
	F2(add)(&c2, &s, &t1);
	r->c0 = c0;
	r->c1 = c1;
	r->c2 = c2;
}

/* (a0 + a1 v + a2 v^2)·v = xi a2 + a0 v + a1 v^2 */
void zp_bn254_fp6_mul_v(fp6 *r, const fp6 *a)
{
	fp2 t;
	F2(mul_xi)(&t, &a->c2);
	r->c2 = a->c1;
	r->c1 = a->c0;
	r->c0 = t;
}

/* adj = (a0^2 - xi a1 a2, xi a2^2 - a0 a1, a1^2 - a0 a2); a·adj = a0 adj0 + xi(a2 adj1 + a1 adj2) in Fp2 */
void zp_bn254_fp6_inv(fp6 *r, const fp6 *a)
{
	fp2 c0, c1, c2, t, n;
	F2(sqr)(&c0, &a->c0);
	F2(mul)(&t, &a->c1, &a->c2);
	F2(mul_xi)(&t, &t);
	F2(sub)(&c0, &c0, &t);
	F2(sqr)(&c1, &a->c2);
	F2(mul_xi)(&c1, &c1);
	F2(mul)(&t, &a->c0, &a->c1);
	F2(sub)(&c1, &c1, &t);
	F2(sqr)(&c2, &a->c1);
	F2(mul)(&t, &a->c0, &a->c2);
	F2(sub)(&c2, &c2, &t);
	F2(mul)(&n, &a->c2, &c1);
	F2(mul)(&t, &a->c1, &c2);
	F2(add)(&n, &n, &t);
	F2(mul_xi)(&n, &n);
	F2(mul)(&t, &a->c0, &c0);
	F2(add)(&n, &n, &t);
	F2(inv)(&n, &n);
	F2(mul)(&r->c0, &c0, &n);
	F2(mul)(&r->c1, &c1, &n);
	F2(mul)(&r->c2, &c2, &n);
}

/* ---------------- Fp12 ---------------- */

#define F6(op) zp_bn254_fp6_##op

void zp_bn254_fp12_add(fp12 *r, const fp12 *a, const fp12 *b) { F6(add)(&r->c0, &a->c0, &b->c0); F6(add)(&r->c1, &a->c1, &b->c1); }
void zp_bn254_fp12_sub(fp12 *r, const fp12 *a, const fp12 *b) { F6(sub)(&r->c0, &a->c0, &b->c0); F6(sub)(&r->c1, &a->c1, &b->c1); }
void zp_bn254_fp12_conj(fp12 *r, const fp12 *a) { r->c0 = a->c0; F6(neg)(&r->c1, &a->c1); }

/* (a0 + a1 w)(b0 + b1 w) = a0 b0 + v a1 b1 + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) w */
void zp_bn254_fp12_mul(fp12 *r, const fp12 *a, const fp12 *b)
{
	fp6 t0, t1, s, u;
	F6(mul)(&t0, &a->c0, &b->c0);
	F6(mul)(&t1, &a->c1, &b->c1);
	F6(add)(&s, &a->c0, &a->c1);
	F6(add)(&u, &b->c0, &b->c1);
	F6(mul)(&s, &s, &u);
	F6(sub)(&s, &s, &t0);
	F6(sub)(&r->c1, &s, &t1);
	F6(mul_v)(&t1, &t1);
	F6(add)(&r->c0, &t0, &t1);
}

/* (a0 + a1 w)^2 = (a0 + a1)(a0 + v a1) - (1 + v) a0 a1 + 2 a0 a1 w */
void zp_bn254_fp12_sqr(fp12 *r, const fp12 *a)
{
	fp6 m, s, t, va1;
	F6(mul)(&m, &a->c0, &a->c1);
	F6(add)(&s, &a->c0, &a->c1);
	F6(mul_v)(&va1, &a->c1);
	F6(add)(&t, &a->c0, &va1);
	F6(mul)(&s, &s, &t);
	F6(sub)(&s, &s, &m);
	F6(mul_v)(&t, &m);
	F6(sub)(&r->c0, &s, &t);
	F6(add)(&r->c1, &m, &m);
}

/* 1/(a0 + a1 w) = (a0 - a1 w)/(a0^2 - v a1^2) */
void zp_bn254_fp12_inv(fp12 *r, const fp12 *a)
{
	fp6 t0, t1;
	F6(mul)(&t0, &a->c0, &a->c0);
	F6(mul)(&t1, &a->c1, &a->c1);
	F6(mul_v)(&t1, &t1);
	F6(sub)(&t0, &t0, &t1);
	F6(inv)(&t0, &t0);
	F6(mul)(&r->c0, &a->c0, &t0);
	F6(mul)(&t1, &a->c1, &t0);
	F6(neg)(&r->c1, &t1);
}

static const fp2 FROB[6] = {
	{ { ZP_C64_BN_FP_ONE }, { { 0 } } },
	{ { ZP_C64_BN_FROB_G1_C0 }, { ZP_C64_BN_FROB_G1_C1 } },
	{ { ZP_C64_BN_FROB_G2_C0 }, { ZP_C64_BN_FROB_G2_C1 } },
	{ { ZP_C64_BN_FROB_G3_C0 }, { ZP_C64_BN_FROB_G3_C1 } },
	{ { ZP_C64_BN_FROB_G4_C0 }, { ZP_C64_BN_FROB_G4_C1 } },
	{ { ZP_C64_BN_FROB_G5_C0 }, { ZP_C64_BN_FROB_G5_C1 } },
};

/* the w-basis coefficient k (see the top of the file) */
static fp2 *wcoef(fp12 *a, int k)
{
	fp6 *h = (k & 1) ? &a->c1 : &a->c0;
	int j = k >> 1;
	return j == 0 ? &h->c0 : j == 1 ? &h->c1 : &h->c2;
}

void zp_bn254_fp12_frob(fp12 *r, const fp12 *a)
{
	fp12 t = *a;
	for (int k = 0; k < 6; k++) {
		fp2 *c = wcoef(&t, k);
		F2(conj)(c, c);
		F2(mul)(c, c, &FROB[k]);
	}
	*r = t;
}

void zp_bn254_fp12_pow(fp12 *r, const fp12 *a, const uint64_t *e, size_t elimbs)
{
	fp12 acc = ZP_BN254_FP12_ONE, base = *a;
	for (size_t i = elimbs; i-- > 0;)
		for (int b = 63; b >= 0; b--) {
			zp_bn254_fp12_sqr(&acc, &acc);
			if ((e[i] >> b) & 1)
				zp_bn254_fp12_mul(&acc, &acc, &base);
		}
	*r = acc;
}

bool zp_bn254_fp12_eq(const fp12 *a, const fp12 *b)
{
	const fp *x = &a->c0.c0.c0, *y = &b->c0.c0.c0;
	bool eq = true;
	for (int i = 0; i < 12; i++)
		eq &= zp_bn254_fp_eq(&x[i], &y[i]);
	return eq;
}

bool zp_bn254_fp12_is_one(const fp12 *a) { return zp_bn254_fp12_eq(a, &ZP_BN254_FP12_ONE); }

void zp_bn254_fp12_random(fp12 *r, zp_rng *g)
{
	fp *x = &r->c0.c0.c0;
	for (int i = 0; i < 12; i++)
		zp_bn254_fp_random(&x[i], g);
}

_Static_assert(sizeof(fp12) == 12 * sizeof(fp), "fp12 is twelve Fp, c0.c0.c0 first");
void zp_bn254_fp12_coeffs(fp out[12], const fp12 *a)
{
	const fp *x = &a->c0.c0.c0;
	for (int i = 0; i < 12; i++)
		out[i] = x[i];
}
