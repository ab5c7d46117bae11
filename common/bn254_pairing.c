/*
 * bn254_pairing.c — the optimal ate pairing of BN254 (Vercauteren 2010; Beuchat et al. 2010):
 *   e(P, Q) = ( f_{6x+2,Q}(P) · l_{[6x+2]Q, pi(Q)}(P) · l_{[6x+2]Q + pi(Q), -pi^2(Q)}(P) )^((p^12 - 1)/r)
 * with pi the p-power Frobenius, computed on the twist as psi (bn254_ec.c).
 *
 * Miller loop in affine coordinates on E' (one Fp2 inversion a step: simple and exact; the prover's
 * pairings are few — a verification is 3 or 4 of them). A step with slope lambda through T = (xT, yT)
 * on E' evaluates the line of the untwisted points (x w^2, y w^3) at P = (xP, yP):
 *   l(P) = yP - lambda·xP·w + (lambda·xT - yT)·w^3        (the untwisted slope is lambda·w)
 * a sparse Fp12 with w-basis coefficients 0, 1 and 3 (c0.c0, c1.c0, c1.c1). Vertical lines are left out
 * (they lie in a proper subfield and die in the final exponentiation).
 *
 * Final exponentiation, exactly (p^12 - 1)/r: easy part f^((p^6 - 1)(p^2 + 1)) as BLS12-381's
 * (tower_tmpl.h's final_exp_easy); hard part by square-and-multiply with the integer
 * (p^4 - p^2 + 1)/r (zp_consts.h's FINAL_HARD, 761 bits) — no multiple of the exponent is taken,
 * so the value is the reduced pairing that ffjavascript's bn128 and Ethereum's precompile define.
 */
#include "fp12.h"
#include "par.h"
#include "zp_consts.h"
#include "zp_err.h"

static const uint64_t ATE_LOOP[2] = ZP_C64_BN_ATE_LOOP;
static const uint64_t FINAL_HARD[12] = ZP_C64_BN_FINAL_HARD;

typedef zp_bn254_fp2 fp2;

/* f *= the line with slope lam through t, at p; then t = (lam^2 - xT - xQ, lam(xT - x3) - yT) */
static void line_step(zp_bn254_fp12 *f, zp_bn254_g2_affine *t, const fp2 *lam, const fp2 *xq,
		      const zp_bn254_g1_affine *p)
{
	zp_bn254_fp12 l = { 0 };
	fp2 s, x3;
	l.c0.c0.c0 = p->y;
	zp_bn254_fp2_mul_fp(&l.c1.c0, lam, &p->x);
	zp_bn254_fp2_neg(&l.c1.c0, &l.c1.c0);
	zp_bn254_fp2_mul(&s, lam, &t->x);
	zp_bn254_fp2_sub(&l.c1.c1, &s, &t->y);
	zp_bn254_fp12_mul(f, f, &l);
	zp_bn254_fp2_sqr(&x3, lam);
	zp_bn254_fp2_sub(&x3, &x3, &t->x);
	zp_bn254_fp2_sub(&x3, &x3, xq);
	zp_bn254_fp2_sub(&s, &t->x, &x3);
	zp_bn254_fp2_mul(&s, &s, lam);
	zp_bn254_fp2_sub(&t->y, &s, &t->y);
	t->x = x3;
}

static void line_dbl(zp_bn254_fp12 *f, zp_bn254_g2_affine *t, const zp_bn254_g1_affine *p)
{
	fp2 num, den, lam, xt = t->x;
	zp_bn254_fp2_sqr(&num, &t->x);
	zp_bn254_fp2_add(&lam, &num, &num);
	zp_bn254_fp2_add(&num, &lam, &num);          /* 3 xT^2 */
	zp_bn254_fp2_dbl(&den, &t->y);
	zp_bn254_fp2_inv(&den, &den);
	zp_bn254_fp2_mul(&lam, &num, &den);
	line_step(f, t, &lam, &xt, p);
}

static void line_add(zp_bn254_fp12 *f, zp_bn254_g2_affine *t, const zp_bn254_g2_affine *q,
		     const zp_bn254_g1_affine *p)
{
	fp2 num, den, lam;
	zp_bn254_fp2_sub(&num, &q->y, &t->y);
	zp_bn254_fp2_sub(&den, &q->x, &t->x);
	zp_bn254_fp2_inv(&den, &den);
	zp_bn254_fp2_mul(&lam, &num, &den);
	line_step(f, t, &lam, &q->x, p);
}

void zp_bn254_miller_loop(zp_bn254_fp12 *f, const zp_bn254_g1_affine *p, const zp_bn254_g2_affine *q)
{
	*f = ZP_BN254_FP12_ONE;
	if (zp_bn254_g1_affine_is_inf(p) || zp_bn254_g2_affine_is_inf(q))
		return;
	zp_bn254_g2_affine t = *q, q1, q2;
	/* 6x + 2 has 65 bits: the top one (bit 64) starts T = Q */
	for (int b = 63; b >= 0; b--) {
		zp_bn254_fp12_sqr(f, f);
		line_dbl(f, &t, p);
		if ((ATE_LOOP[b >> 6] >> (b & 63)) & 1)
			line_add(f, &t, q, p);
	}
	zp_bn254_g2_psi(&q1, q);
	zp_bn254_g2_psi(&q2, &q1);
	zp_bn254_g2_affine_neg(&q2, &q2);
	line_add(f, &t, &q1, p);
	line_add(f, &t, &q2, p);
}

void zp_bn254_final_exp(zp_bn254_fp12 *r, const zp_bn254_fp12 *f)
{
	zp_bn254_fp12 u;
	zp_bn254_fp12_final_exp_easy(&u, f); /* f^((p^6 - 1)(p^2 + 1)) */
	zp_bn254_fp12_pow(r, &u, FINAL_HARD, 12);
}

void zp_bn254_pairing(zp_bn254_fp12 *r, const zp_bn254_g1_affine *p, const zp_bn254_g2_affine *q)
{
	zp_bn254_fp12 f;
	zp_bn254_miller_loop(&f, p, q);
	zp_bn254_final_exp(r, &f);
}

/* the Miller loops of a check, one a task (a Groth16 self-check's four on four threads: its serial tail) */
#define CHECK_PAR_MAX 8
struct ml_ctx { const zp_bn254_g1_affine *p; const zp_bn254_g2_affine *q; zp_bn254_fp12 f[CHECK_PAR_MAX]; };
static void ml_task(void *vctx, size_t i, int worker)
{
	(void)worker;
	struct ml_ctx *x = vctx;
	zp_bn254_miller_loop(&x->f[i], &x->p[i], &x->q[i]);
}

int zp_bn254_pairing_check(const zp_bn254_g1_affine *p, const zp_bn254_g2_affine *q, size_t n)
{
	zp_bn254_fp12 acc = ZP_BN254_FP12_ONE, f;
	if (n > 1 && n <= CHECK_PAR_MAX) {
		struct ml_ctx x = { .p = p, .q = q };
		zp_par_for(n, ml_task, &x);
		for (size_t i = 0; i < n; i++)
			zp_bn254_fp12_mul(&acc, &acc, &x.f[i]);
	} else {
		for (size_t i = 0; i < n; i++) {
			zp_bn254_miller_loop(&f, &p[i], &q[i]);
			zp_bn254_fp12_mul(&acc, &acc, &f);
		}
	}
	zp_bn254_final_exp(&f, &acc);
	return zp_bn254_fp12_is_one(&f) ? 0 : ZP_EVERIFY;
}
