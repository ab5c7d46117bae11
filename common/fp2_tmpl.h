/*
 * fp2_tmpl.h — Fp2 = Fp[u]/(u^2 + 1) over one base field, included once per use (as ec_tmpl.h and
 * msm_tmpl.h are): BLS12-381's library functions (fp2.c), BN254's (bn254_tower.c), and
 * msm_curve_tmpl.h's inline copy for each curve's G2 buckets. Karatsuba multiplication (3 Fp
 * products), complex squaring (2), inversion through the norm: 1/(a0 + a1 u) = (a0 - a1 u)/(a0^2 + a1^2).
 * With FP2_FULL also doubling, conjugation (= Frobenius), scaling by Fp, equality, powers and the
 * square root of Adj and Rodríguez-Henríquez ("Square root computation over even extension
 * fields", alg. 9) for p = 3 mod 4.
 *
 * The includer defines:
 *   F2(x)        the name of function x (zp_fp2_x, zp_bn254_fp2_x; msm_curve_tmpl.h: fp2_x, bn254_fp2_x)
 *   FP2_FN       their linkage: empty for the library's, `static inline` for the MSMs'
 *   FP2_T FP_T   Fp2's type (members c0, c1) and Fp's
 *   fb_add fb_sub fb_neg fb_mul fb_sqr fb_inv fb_is_zero   the base field's ops, (r, a[, b])
 *   FP2_FULL     (optional) the rest, which also needs
 *                fb_dbl fb_eq, FP2_ONE (1 in Fp2), FP_MODULUS and FP_LIMBS (p's limbs)
 * All of them are #undef'd at the end. Every instance computes the same values: an instance differs
 * only in the base field and in which of its ops (vartime inverse, inline products) it uses.
 */

FP2_FN void F2(add)(FP2_T *r, const FP2_T *a, const FP2_T *b)
{
	fb_add(&r->c0, &a->c0, &b->c0);
	fb_add(&r->c1, &a->c1, &b->c1);
}

FP2_FN void F2(sub)(FP2_T *r, const FP2_T *a, const FP2_T *b)
{
	fb_sub(&r->c0, &a->c0, &b->c0);
	fb_sub(&r->c1, &a->c1, &b->c1);
}

FP2_FN void F2(neg)(FP2_T *r, const FP2_T *a)
{
	fb_neg(&r->c0, &a->c0);
	fb_neg(&r->c1, &a->c1);
}

/* (a0 + a1 u)(b0 + b1 u) = a0b0 - a1b1 + ((a0 + a1)(b0 + b1) - a0b0 - a1b1) u */
FP2_FN void F2(mul)(FP2_T *r, const FP2_T *a, const FP2_T *b)
{
	FP_T t0, t1, sa, sb;
	fb_mul(&t0, &a->c0, &b->c0);
	fb_mul(&t1, &a->c1, &b->c1);
	fb_add(&sa, &a->c0, &a->c1);
	fb_add(&sb, &b->c0, &b->c1);
	fb_mul(&sa, &sa, &sb);
	fb_sub(&r->c0, &t0, &t1);
	fb_sub(&sa, &sa, &t0);
	fb_sub(&r->c1, &sa, &t1);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u */
FP2_FN void F2(sqr)(FP2_T *r, const FP2_T *a)
{
	FP_T s, d, m;
	fb_add(&s, &a->c0, &a->c1);
	fb_sub(&d, &a->c0, &a->c1);
	fb_mul(&m, &a->c0, &a->c1);
	fb_mul(&r->c0, &s, &d);
	fb_add(&r->c1, &m, &m);
}

/* a = 0: 0 where the base field's inverse of 0 is 0 */
FP2_FN void F2(inv)(FP2_T *r, const FP2_T *a)
{
	FP_T t0, t1;
	fb_sqr(&t0, &a->c0);
	fb_sqr(&t1, &a->c1);
	fb_add(&t0, &t0, &t1);
	fb_inv(&t0, &t0);
	fb_mul(&r->c0, &a->c0, &t0);
	fb_mul(&t1, &a->c1, &t0);
	fb_neg(&r->c1, &t1);
}

FP2_FN bool F2(is_zero)(const FP2_T *a) { return fb_is_zero(&a->c0) & fb_is_zero(&a->c1); }

#ifdef FP2_FULL
FP2_FN void F2(dbl)(FP2_T *r, const FP2_T *a)
{
	fb_dbl(&r->c0, &a->c0);
	fb_dbl(&r->c1, &a->c1);
}

FP2_FN void F2(conj)(FP2_T *r, const FP2_T *a)
{
	r->c0 = a->c0;
	fb_neg(&r->c1, &a->c1);
}

FP2_FN void F2(mul_fp)(FP2_T *r, const FP2_T *a, const FP_T *b)
{
	fb_mul(&r->c0, &a->c0, b);
	fb_mul(&r->c1, &a->c1, b);
}

FP2_FN bool F2(eq)(const FP2_T *a, const FP2_T *b) { return fb_eq(&a->c0, &b->c0) & fb_eq(&a->c1, &b->c1); }

FP2_FN void F2(pow)(FP2_T *r, const FP2_T *a, const uint64_t *e, size_t elimbs)
{
	FP2_T acc = FP2_ONE, base = *a;
	for (size_t i = elimbs; i-- > 0;)
		for (int b = 63; b >= 0; b--) {
			F2(sqr)(&acc, &acc);
			if ((e[i] >> b) & 1)
				F2(mul)(&acc, &acc, &base);
		}
	*r = acc;
}

/* p >> s, p's limbs (p = 3 mod 4: (p-3)/4 = p >> 2, (p-1)/2 = p >> 1) */
static void F2(p_shr)(uint64_t e[FP_LIMBS], int s)
{
	for (int i = 0; i < FP_LIMBS; i++)
		e[i] = FP_MODULUS[i] >> s | (i < FP_LIMBS - 1 ? FP_MODULUS[i + 1] << (64 - s) : 0);
}

/* a1 = a^((p-3)/4), x0 = a1·a, alpha = a1·x0 = a^((p-1)/2); x = u·x0 if alpha = -1, else
 * (1 + alpha)^((p-1)/2)·x0. Whether a is a square is the check x^2 = a. */
FP2_FN bool F2(sqrt)(FP2_T *r, const FP2_T *a)
{
	uint64_t e[FP_LIMBS];
	FP2_T a1, alpha, x0, x, chk, minus_one;
	F2(p_shr)(e, 2);
	F2(pow)(&a1, a, e, FP_LIMBS);
	F2(sqr)(&alpha, &a1);
	F2(mul)(&alpha, &alpha, a);
	F2(mul)(&x0, &a1, a);
	F2(neg)(&minus_one, &FP2_ONE);
	if (F2(eq)(&alpha, &minus_one)) {
		fb_neg(&x.c0, &x0.c1); /* u·(c0 + c1 u) = -c1 + c0 u */
		x.c1 = x0.c0;
	} else {
		FP2_T b;
		F2(add)(&b, &FP2_ONE, &alpha);
		F2(p_shr)(e, 1);
		F2(pow)(&b, &b, e, FP_LIMBS);
		F2(mul)(&x, &b, &x0);
	}
	F2(sqr)(&chk, &x);
	if (!F2(eq)(&chk, a))
		return false;
	*r = x;
	return true;
}
#endif

#undef F2
#undef FP2_FN
#undef FP2_T
#undef FP_T
#undef fb_add
#undef fb_sub
#undef fb_neg
#undef fb_mul
#undef fb_sqr
#undef fb_inv
#undef fb_is_zero
#undef FP2_FULL
#undef fb_dbl
#undef fb_eq
#undef FP2_ONE
#undef FP_MODULUS
#undef FP_LIMBS
