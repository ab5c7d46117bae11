/*
 * bn254_tower.c — BN254's extension fields: Fp2 = Fp[u]/(u^2 + 1) (fp2_tmpl.h), Fp6 = Fp2[v]/(v^3 - xi)
 * with xi = 9 + u, Fp12 = Fp6[w]/(w^2 - v) (tower_tmpl.h; ffjavascript's bn128 tower, tests/bn254 checks
 * products against it). This curve's own: xi, the Frobenius constants g_k = xi^(k(p-1)/6) (zp_consts.h's
 * FROB_Gk), and bn254.h's names that the template does not make.
 */
#include "fp12.h"
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

/* ---------------- Fp6, Fp12 ---------------- */

static const fp2 FROB[5] = {
	{ { ZP_C64_BN_FROB_G1_C0 }, { ZP_C64_BN_FROB_G1_C1 } },
	{ { ZP_C64_BN_FROB_G2_C0 }, { ZP_C64_BN_FROB_G2_C1 } },
	{ { ZP_C64_BN_FROB_G3_C0 }, { ZP_C64_BN_FROB_G3_C1 } },
	{ { ZP_C64_BN_FROB_G4_C0 }, { ZP_C64_BN_FROB_G4_C1 } },
	{ { ZP_C64_BN_FROB_G5_C0 }, { ZP_C64_BN_FROB_G5_C1 } },
};

#define F6(x) zp_bn254_fp6_##x
#define F12(x) zp_bn254_fp12_##x
#define FP2_T fp2
#define FP6_T fp6
#define FP12_T fp12
#define f2_add zp_bn254_fp2_add
#define f2_sub zp_bn254_fp2_sub
#define f2_neg zp_bn254_fp2_neg
#define f2_dbl zp_bn254_fp2_dbl
#define f2_mul zp_bn254_fp2_mul
#define f2_sqr zp_bn254_fp2_sqr
#define f2_inv zp_bn254_fp2_inv
#define f2_conj zp_bn254_fp2_conj
#define f2_is_zero zp_bn254_fp2_is_zero
#define f2_eq zp_bn254_fp2_eq
#define f2_random zp_bn254_fp2_random
#define f2_mul_xi zp_bn254_fp2_mul_xi
#define FP12_ONE ZP_BN254_FP12_ONE
#include "tower_tmpl.h"

void zp_bn254_fp12_frob(fp12 *r, const fp12 *a) { zp_bn254_fp12_frobenius(r, a, 1); }

_Static_assert(sizeof(fp12) == 12 * sizeof(fp), "fp12 is twelve Fp, c0.c0.c0 first");
void zp_bn254_fp12_coeffs(fp out[12], const fp12 *a)
{
	const fp *x = &a->c0.c0.c0;
	for (int i = 0; i < 12; i++)
		out[i] = x[i];
}
