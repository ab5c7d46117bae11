/*
 * tower_tmpl.h — Fp6 = Fp2[v]/(v^3 - ξ) and Fp12 = Fp6[w]/(w^2 - v) over one Fp2 (so w^6 = ξ), included
 * once per curve as fp2_tmpl.h is: BLS12-381's (fp12.c, ξ = 1 + u) and BN254's (bn254_tower.c, ξ = 9 + u).
 * Declared for both by fp12.h's ZP_TOWER_API. An Fp12 is c0 then c1 (Fp6), an Fp6 c0, c1, c2 (Fp2): the
 * twelve Fp coefficients in ffjavascript's buffer order. Every instance computes the same values as the
 * curve's own code did: only ξ, the Frobenius constants and the line shape of its twist differ.
 *
 * Fp6: Karatsuba multiplication (6 Fp2 products), Chung–Hasan SQR2 squaring, inversion through the norm
 * to Fp2. Fp12: Karatsuba over Fp6 (3 Fp6 products), "complex" squaring (2), inversion through the norm
 * to Fp6. Frobenius in the w-basis (FROB below). Cyclotomic squaring: Granger–Scott ("Faster squaring in
 * the cyclotomic subgroup of sixth degree extensions", PKC 2010) on the view Fp12 = Fp4[z]/(z^3 - s),
 * Fp4 = Fp2[s]/(s^2 - ξ), s = w^3, z = w; it needs its input in the cyclotomic subgroup G_Φ12(q)
 * (anything after final_exp_easy, e.g. a pairing value), where conjugation is also inversion.
 * Constant time except pow and cyclotomic_pow_u64 (variable time in the exponent, which is public).
 *
 * The includer defines:
 *   F6(x) F12(x)            the names (zp_fp6_x, zp_bn254_fp12_x)
 *   FP2_T FP6_T FP12_T      the types (members c0, c1[, c2])
 *   f2_add f2_sub f2_neg f2_dbl f2_mul f2_sqr f2_inv f2_conj f2_is_zero f2_eq f2_random   Fp2's ops
 *   f2_mul_xi               r = a·ξ, the curve's non-residue
 *   FP12_ONE                1 in Fp12
 *   FROB                    FROB[i-1] = ξ^(i(q - 1)/6), i = 1..5
 *   TOWER_M_TWIST           (optional) the M-twist's sparse line products mul_by_01, mul_by_1 and
 *                           mul_by_014 (BLS12-381; BN254's D-twist lines take the full product)
 * All of them are #undef'd at the end.
 */

/* ---------- Fp6 ---------- */

void F6(add)(FP6_T *r, const FP6_T *a, const FP6_T *b)
{
	f2_add(&r->c0, &a->c0, &b->c0);
	f2_add(&r->c1, &a->c1, &b->c1);
	f2_add(&r->c2, &a->c2, &b->c2);
}

void F6(sub)(FP6_T *r, const FP6_T *a, const FP6_T *b)
{
	f2_sub(&r->c0, &a->c0, &b->c0);
	f2_sub(&r->c1, &a->c1, &b->c1);
	f2_sub(&r->c2, &a->c2, &b->c2);
}

void F6(neg)(FP6_T *r, const FP6_T *a)
{
	f2_neg(&r->c0, &a->c0);
	f2_neg(&r->c1, &a->c1);
	f2_neg(&r->c2, &a->c2);
}

/* Karatsuba's cross term x0 y1 + x1 y0 = (x0 + x1)(y0 + y1) - x0y0 - x1y1, given x0y0 and x1y1. */
static inline __attribute__((always_inline)) void F6(kara_cross)(FP2_T *r, const FP2_T *x0,
	const FP2_T *x1, const FP2_T *y0, const FP2_T *y1, const FP2_T *x0y0, const FP2_T *x1y1)
{
	FP2_T s, u;
	f2_add(&s, x0, x1);
	f2_add(&u, y0, y1);
	f2_mul(r, &s, &u);
	f2_sub(r, r, x0y0);
	f2_sub(r, r, x1y1);
}

/* (a0 + a1 v + a2 v^2)(b0 + b1 v + b2 v^2) with v^3 = ξ; 6 Fp2 multiplications. */
void F6(mul)(FP6_T *r, const FP6_T *a, const FP6_T *b)
{
	FP2_T t0, t1, t2, s, c0, c1, c2;
	f2_mul(&t0, &a->c0, &b->c0);
	f2_mul(&t1, &a->c1, &b->c1);
	f2_mul(&t2, &a->c2, &b->c2);
	/* c0 = t0 + ξ((a1 + a2)(b1 + b2) - t1 - t2) */
	F6(kara_cross)(&c0, &a->c1, &a->c2, &b->c1, &b->c2, &t1, &t2);
	f2_mul_xi(&c0, &c0);
	f2_add(&c0, &c0, &t0);
	/* c1 = (a0 + a1)(b0 + b1) - t0 - t1 + ξ t2 */
	F6(kara_cross)(&c1, &a->c0, &a->c1, &b->c0, &b->c1, &t0, &t1);
	f2_mul_xi(&s, &t2);
	f2_add(&c1, &c1, &s);
	/* c2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1 */
	F6(kara_cross)(&c2, &a->c0, &a->c2, &b->c0, &b->c2, &t0, &t2);
	f2_add(&c2, &c2, &t1);
	r->c0 = c0;
	r->c1 = c1;
	r->c2 = c2;
}

/* Chung–Hasan SQR2: 3 squarings and 2 multiplications in Fp2. */
void F6(sqr)(FP6_T *r, const FP6_T *a)
{
	FP2_T s0, s1, s2, s3, s4, t;
	f2_sqr(&s0, &a->c0);
	f2_mul(&s1, &a->c0, &a->c1);
	f2_dbl(&s1, &s1);
	f2_sub(&t, &a->c0, &a->c1);
	f2_add(&t, &t, &a->c2);
	f2_sqr(&s2, &t);
	f2_mul(&s3, &a->c1, &a->c2);
	f2_dbl(&s3, &s3);
	f2_sqr(&s4, &a->c2);
	/* c2 = s1 + s2 + s3 - s0 - s4 */
	f2_add(&t, &s1, &s2);
	f2_add(&t, &t, &s3);
	f2_sub(&t, &t, &s0);
	f2_sub(&r->c2, &t, &s4);
	/* c0 = s0 + ξ s3, c1 = s1 + ξ s4 */
	f2_mul_xi(&s3, &s3);
	f2_add(&r->c0, &s0, &s3);
	f2_mul_xi(&s4, &s4);
	f2_add(&r->c1, &s1, &s4);
}

/*
 * 1/a = (t0 + t1 v + t2 v^2) / N with t0 = a0^2 - ξ a1 a2, t1 = ξ a2^2 - a0 a1,
 * t2 = a1^2 - a0 a2 and N = a0 t0 + ξ (a2 t1 + a1 t2) ∈ Fp2. inv(0) = 0.
 */
void F6(inv)(FP6_T *r, const FP6_T *a)
{
	FP2_T t0, t1, t2, x, n;
	f2_sqr(&t0, &a->c0);
	f2_mul(&x, &a->c1, &a->c2);
	f2_mul_xi(&x, &x);
	f2_sub(&t0, &t0, &x);
	f2_sqr(&t1, &a->c2);
	f2_mul_xi(&t1, &t1);
	f2_mul(&x, &a->c0, &a->c1);
	f2_sub(&t1, &t1, &x);
	f2_sqr(&t2, &a->c1);
	f2_mul(&x, &a->c0, &a->c2);
	f2_sub(&t2, &t2, &x);
	f2_mul(&n, &a->c2, &t1);
	f2_mul(&x, &a->c1, &t2);
	f2_add(&n, &n, &x);
	f2_mul_xi(&n, &n);
	f2_mul(&x, &a->c0, &t0);
	f2_add(&n, &n, &x);
	f2_inv(&n, &n);
	f2_mul(&r->c0, &t0, &n);
	f2_mul(&r->c1, &t1, &n);
	f2_mul(&r->c2, &t2, &n);
}

/* (a0 + a1 v + a2 v^2)·v = ξ a2 + a0 v + a1 v^2: times Fp12's non-residue */
void F6(mul_v)(FP6_T *r, const FP6_T *a)
{
	FP2_T t;
	f2_mul_xi(&t, &a->c2);
	r->c2 = a->c1;
	r->c1 = a->c0;
	r->c0 = t;
}

bool F6(is_zero)(const FP6_T *a) { return f2_is_zero(&a->c0) & f2_is_zero(&a->c1) & f2_is_zero(&a->c2); }

bool F6(eq)(const FP6_T *a, const FP6_T *b)
{
	return f2_eq(&a->c0, &b->c0) & f2_eq(&a->c1, &b->c1) & f2_eq(&a->c2, &b->c2);
}

#ifdef TOWER_M_TWIST
/* a·(b0 + b1 v): c0 = a0 b0 + ξ a2 b1, c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1,
 * c2 = a2 b0 + a1 b1; 5 Fp2 multiplications. */
void F6(mul_by_01)(FP6_T *r, const FP6_T *a, const FP2_T *b0, const FP2_T *b1)
{
	FP2_T t0, t1, c0, c1, c2;
	f2_mul(&t0, &a->c0, b0);
	f2_mul(&t1, &a->c1, b1);
	f2_mul(&c0, &a->c2, b1);
	f2_mul_xi(&c0, &c0);
	f2_add(&c0, &c0, &t0);
	F6(kara_cross)(&c1, &a->c0, &a->c1, b0, b1, &t0, &t1);
	f2_mul(&c2, &a->c2, b0);
	f2_add(&c2, &c2, &t1);
	r->c0 = c0;
	r->c1 = c1;
	r->c2 = c2;
}

/* a·(b1 v) = ξ a2 b1 + a0 b1 v + a1 b1 v^2 */
void F6(mul_by_1)(FP6_T *r, const FP6_T *a, const FP2_T *b1)
{
	FP2_T c0, c1, c2;
	f2_mul(&c0, &a->c2, b1);
	f2_mul_xi(&c0, &c0);
	f2_mul(&c1, &a->c0, b1);
	f2_mul(&c2, &a->c1, b1);
	r->c0 = c0;
	r->c1 = c1;
	r->c2 = c2;
}
#endif

/* ---------- Fp12 ---------- */

void F12(add)(FP12_T *r, const FP12_T *a, const FP12_T *b)
{
	F6(add)(&r->c0, &a->c0, &b->c0);
	F6(add)(&r->c1, &a->c1, &b->c1);
}

void F12(sub)(FP12_T *r, const FP12_T *a, const FP12_T *b)
{
	F6(sub)(&r->c0, &a->c0, &b->c0);
	F6(sub)(&r->c1, &a->c1, &b->c1);
}

/* (a0 + a1 w)(b0 + b1 w) = (t0 + v t1) + ((a0 + a1)(b0 + b1) - t0 - t1) w */
void F12(mul)(FP12_T *r, const FP12_T *a, const FP12_T *b)
{
	FP6_T t0, t1, s, u;
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

/* (a0 + a1 w)^2: m = a0 a1; c0 = (a0 + a1)(a0 + v a1) - m - v m; c1 = 2m */
void F12(sqr)(FP12_T *r, const FP12_T *a)
{
	FP6_T m, s, t;
	F6(mul)(&m, &a->c0, &a->c1);
	F6(add)(&s, &a->c0, &a->c1);
	F6(mul_v)(&t, &a->c1);
	F6(add)(&t, &t, &a->c0);
	F6(mul)(&s, &s, &t);
	F6(sub)(&s, &s, &m);
	F6(mul_v)(&t, &m);
	F6(sub)(&r->c0, &s, &t);
	F6(add)(&r->c1, &m, &m);
}

/* 1/(a0 + a1 w) = (a0 - a1 w) / (a0^2 - v a1^2); inv(0) = 0 */
void F12(inv)(FP12_T *r, const FP12_T *a)
{
	FP6_T n, t;
	F6(sqr)(&n, &a->c0);
	F6(sqr)(&t, &a->c1);
	F6(mul_v)(&t, &t);
	F6(sub)(&n, &n, &t);
	F6(inv)(&n, &n);
	F6(mul)(&r->c0, &a->c0, &n);
	F6(mul)(&t, &a->c1, &n);
	F6(neg)(&r->c1, &t);
}

/* c0 - c1 w = a^(q^6) */
void F12(conj)(FP12_T *r, const FP12_T *a)
{
	r->c0 = a->c0;
	F6(neg)(&r->c1, &a->c1);
}

/*
 * Frobenius. Write a = e0 + e1 w + ... + e5 w^5 (e_i ∈ Fp2; e_{2j} = c0.cj, e_{2j+1} = c1.cj since
 * w^2 = v). Then a^q = Σ conj(e_i) w^i w^(i(q - 1)) with w^(i(q - 1)) = ξ^(i(q - 1)/6) = FROB[i-1]
 * (w^6 = ξ, 6 | q - 1); a^(q^k) is k such passes, a^(q^6) the conjugate.
 */
static void F12(frobenius_1)(FP12_T *r, const FP12_T *a)
{
	const FP2_T *e[6] = { &a->c0.c0, &a->c1.c0, &a->c0.c1, &a->c1.c1, &a->c0.c2, &a->c1.c2 };
	FP2_T *o[6] = { &r->c0.c0, &r->c1.c0, &r->c0.c1, &r->c1.c1, &r->c0.c2, &r->c1.c2 };
	FP2_T t[6];
	for (int i = 0; i < 6; i++) {
		f2_conj(&t[i], e[i]);
		if (i > 0)
			f2_mul(&t[i], &t[i], &FROB[i - 1]);
	}
	for (int i = 0; i < 6; i++)
		*o[i] = t[i];
}

/* r = a^(q^k) for any k >= 0 (k mod 12 matters) */
void F12(frobenius)(FP12_T *r, const FP12_T *a, unsigned k)
{
	k %= 12;
	if (k >= 6) {
		F12(conj)(r, a);
		k -= 6;
	} else {
		*r = *a;
	}
	while (k-- > 0)
		F12(frobenius_1)(r, r);
}

/* f^((q^6 - 1)(q^2 + 1)): the easy part of a final exponentiation (conjugate, inverse, Frobenius^2);
 * the result is cyclotomic */
void F12(final_exp_easy)(FP12_T *r, const FP12_T *f)
{
	FP12_T t, m;
	F12(inv)(&t, f);
	F12(conj)(&m, f);
	F12(mul)(&m, &m, &t);
	F12(frobenius)(&t, &m, 2);
	F12(mul)(r, &m, &t);
}

/* (x0 + x1 s)^2 in Fp4 = Fp2[s]/(s^2 - ξ): (x0^2 + ξ x1^2) + 2 x0 x1 s */
static void F12(fp4_sqr)(FP2_T *r0, FP2_T *r1, const FP2_T *x0, const FP2_T *x1)
{
	FP2_T t0, t1, t;
	f2_sqr(&t0, x0);
	f2_sqr(&t1, x1);
	f2_add(&t, x0, x1);
	f2_sqr(&t, &t);
	f2_sub(&t, &t, &t0);
	f2_sub(r1, &t, &t1);
	f2_mul_xi(&t1, &t1);
	f2_add(r0, &t0, &t1);
}

/* r = 3x - 2y (sign -1) or 3x + 2y (sign +1) */
static void F12(three_two)(FP2_T *r, const FP2_T *x, const FP2_T *y, int sign)
{
	FP2_T t;
	if (sign < 0)
		f2_sub(&t, x, y);
	else
		f2_add(&t, x, y);
	f2_dbl(&t, &t);
	f2_add(r, &t, x);
}

/*
 * Granger–Scott. As an Fp4[z]/(z^3 - s) element, a = g0 + g1 z + g2 z^2 with g0 = e0 + e3 s,
 * g1 = e1 + e4 s, g2 = e2 + e5 s (e_i as in the Frobenius comment). For cyclotomic a:
 *   a^2 = (3 g0^2 - 2 conj(g0)) + (3 s g2^2 + 2 conj(g1)) z + (3 g1^2 - 2 conj(g2)) z^2
 * where conj(x0 + x1 s) = x0 - x1 s. 9 Fp2 squarings instead of 12 Fp2 multiplications.
 */
void F12(cyclotomic_sqr)(FP12_T *r, const FP12_T *a)
{
	FP2_T A0, A1, B0, B1, C0, C1;
	F12(fp4_sqr)(&A0, &A1, &a->c0.c0, &a->c1.c1);  /* g0^2 */
	F12(fp4_sqr)(&B0, &B1, &a->c1.c0, &a->c0.c2);  /* g1^2 */
	F12(fp4_sqr)(&C0, &C1, &a->c0.c1, &a->c1.c2);  /* g2^2 */
	f2_mul_xi(&C1, &C1);                            /* s·g2^2 = ξ C1 + C0 s */
	F12(three_two)(&r->c0.c0, &A0, &a->c0.c0, -1);
	F12(three_two)(&r->c1.c1, &A1, &a->c1.c1, +1);
	F12(three_two)(&r->c1.c0, &C1, &a->c1.c0, +1);
	F12(three_two)(&r->c0.c2, &C0, &a->c0.c2, -1);
	F12(three_two)(&r->c0.c1, &B0, &a->c0.c1, -1);
	F12(three_two)(&r->c1.c2, &B1, &a->c1.c2, +1);
}

/* r = a^e for a cyclotomic a (conjugate the result for -e); from e's top bit */
void F12(cyclotomic_pow_u64)(FP12_T *r, const FP12_T *a, uint64_t e)
{
	FP12_T acc = FP12_ONE, base = *a;
	int top = 63;
	while (top >= 0 && !((e >> top) & 1))
		top--;
	for (int b = top; b >= 0; b--) {
		F12(cyclotomic_sqr)(&acc, &acc);
		if ((e >> b) & 1)
			F12(mul)(&acc, &acc, &base);
	}
	*r = acc;
}

#ifdef TOWER_M_TWIST
/*
 * a·l with l = L0 + L1 w, L0 = l0 + l1 v, L1 = l4 v (Karatsuba over Fp6): the shape of an M-twist's line
 * (coefficients 0, 1 and 4 of the flattened basis 1, v, v^2, w, vw, v^2w):
 *   c0 = a0 L0 + v (a1 L1),  c1 = (a0 + a1)(L0 + L1) - a0 L0 - a1 L1.
 * 13 Fp2 multiplications instead of 18.
 */
void F12(mul_by_014)(FP12_T *r, const FP12_T *a, const FP2_T *l0, const FP2_T *l1, const FP2_T *l4)
{
	FP6_T t0, t1, s;
	FP2_T m;
	F6(mul_by_01)(&t0, &a->c0, l0, l1);
	F6(mul_by_1)(&t1, &a->c1, l4);
	F6(add)(&s, &a->c0, &a->c1);
	f2_add(&m, l1, l4);
	F6(mul_by_01)(&s, &s, l0, &m);
	F6(sub)(&s, &s, &t0);
	F6(sub)(&r->c1, &s, &t1);
	F6(mul_v)(&t1, &t1);
	F6(add)(&r->c0, &t0, &t1);
}
#endif

/* square-and-multiply over all elimbs·64 bits of e; variable time in e */
void F12(pow)(FP12_T *r, const FP12_T *a, const uint64_t *e, size_t elimbs)
{
	FP12_T acc = FP12_ONE, base = *a;
	for (size_t i = elimbs; i-- > 0;)
		for (int b = 63; b >= 0; b--) {
			F12(sqr)(&acc, &acc);
			if ((e[i] >> b) & 1)
				F12(mul)(&acc, &acc, &base);
		}
	*r = acc;
}

bool F12(is_zero)(const FP12_T *a) { return F6(is_zero)(&a->c0) & F6(is_zero)(&a->c1); }

bool F12(eq)(const FP12_T *a, const FP12_T *b) { return F6(eq)(&a->c0, &b->c0) & F6(eq)(&a->c1, &b->c1); }

bool F12(is_one)(const FP12_T *a) { return F12(eq)(a, &FP12_ONE); }

/* the six Fp2 coefficients in memory order */
void F12(random)(FP12_T *r, zp_rng *g)
{
	FP2_T *c[6] = { &r->c0.c0, &r->c0.c1, &r->c0.c2, &r->c1.c0, &r->c1.c1, &r->c1.c2 };
	for (int i = 0; i < 6; i++)
		f2_random(c[i], g);
}

#undef F6
#undef F12
#undef FP2_T
#undef FP6_T
#undef FP12_T
#undef f2_add
#undef f2_sub
#undef f2_neg
#undef f2_dbl
#undef f2_mul
#undef f2_sqr
#undef f2_inv
#undef f2_conj
#undef f2_is_zero
#undef f2_eq
#undef f2_random
#undef f2_mul_xi
#undef FP12_ONE
#undef FROB
#undef TOWER_M_TWIST
