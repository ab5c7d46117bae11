/*
 * pairing.c — optimal ate pairing on BLS12-381 (contract in pairing.h).
 *
 * Miller loop: T runs over [k]Q on the twist E': y^2 = x^3 + b', b' = 4ξ, in
 * homogeneous projective coordinates (x = X/Z, y = Y/Z), with the doubling and
 * mixed-addition formulas of Costello–Lange–Naehrig / Aranha et al. ("Faster
 * explicit formulas for computing pairings over ordinary curves", 2010/526).
 *
 * Lines. The untwist is ψ(x', y') = (x'/w^2, y'/w^3). A line of slope λ' through a
 * point (x1, y1) of E', evaluated at P = (xP, yP) and multiplied by w^3 (an element
 * of the subfield Fp4, killed by the final exponentiation), is
 *     (λ' x1 - y1) - λ' xP · v + yP · vw,
 * i.e. coefficients 0, 1 and 4 of Fp12's basis: zp_fp12_mul_by_014. Clearing the
 * projective denominators (more Fp2 factors, also killed) gives
 *     doubling:  l0 = Y^2 - 3b'Z^2,   l1 = 3X^2·(-xP),  l4 = 2YZ·yP
 *     addition:  l0 = θ xQ - λ yQ,    l1 = θ·(-xP),     l4 = λ·yP
 * with θ = Y - yQ Z, λ = X - xQ Z (for addition the line is written through Q).
 *
 * x < 0: the loop computes f_{|x|,Q}(P) and conjugates, f_{-|x|} ≡ 1/f_{|x|}, and
 * 1/f ≡ conj(f) after the final exponentiation.
 *
 * Final exponentiation (exact exponent (q^12 - 1)/r):
 *   easy:  m = f^((q^6 - 1)(q^2 + 1))       (conjugate, inverse, Frobenius^2)
 *   hard:  m^(Φ12(q)/r) with Φ12(q)/r = ((x - 1)^2/3)·(x + q)·(x^2 + q^2 - 1) + 1,
 * an identity of the BLS12 family (checked numerically for this x when writing it;
 * 3 | x - 1). With |x| = -x: (x - 1)^2/3 = (|x| + 1)·((|x| + 1)/3), so
 *   b = m^((|x|+1)/3), c = b^(|x|+1), d = c^(x+q) = conj(c^|x|)·c^q,
 *   e = d^(x^2+q^2-1) = (d^|x|)^|x| · d^(q^2) · conj(d),  result = e·m.
 */
#include "pairing.h"
#include "zp_err.h"

#define X_ABS 0xd201000000010000ULL            /* |x|, x = -|x| */
#define X_PLUS1_DIV3 0x460055555555aaabULL     /* (|x| + 1)/3, exact */
#define CHUNK 16                               /* pairs per Miller loop pass */

typedef struct { zp_fp2 x, y, z; } g2_proj;
typedef struct { zp_fp nx, y; } g1_prep;      /* -xP, yP */

/* a/2 mod q on the Montgomery representation (halving commutes with ·R). */
static void fp_half(zp_fp *r, const zp_fp *a)
{
	uint64_t mask = (uint64_t)0 - (a->l[0] & 1), t[6], c = 0;
	for (int i = 0; i < 6; i++) {
		unsigned __int128 s = (unsigned __int128)a->l[i] + (ZP_FP_MODULUS[i] & mask) + c;
		t[i] = (uint64_t)s;
		c = (uint64_t)(s >> 64);
	}
	/* a + q < 2^382: no carry out of the top limb */
	for (int i = 0; i < 5; i++)
		r->l[i] = (t[i] >> 1) | (t[i + 1] << 63);
	r->l[5] = t[5] >> 1;
}

static void fp2_half(zp_fp2 *r, const zp_fp2 *a)
{
	fp_half(&r->c0, &a->c0);
	fp_half(&r->c1, &a->c1);
}

/* T = 2T; (l0, l1, l4) = tangent line at T evaluated at P. */
static void dbl_step(g2_proj *t, zp_fp2 l[3], const g1_prep *p)
{
	zp_fp2 a, b, c, e, f, g, h, x2, t0;
	zp_fp2_mul(&a, &t->x, &t->y);
	fp2_half(&a, &a);                          /* A = XY/2 */
	zp_fp2_sqr(&b, &t->y);                     /* B = Y^2 */
	zp_fp2_sqr(&c, &t->z);                     /* C = Z^2 */
	zp_fp2_sqr(&x2, &t->x);
	zp_fp2_mul_nonres(&e, &c);                 /* E = 3b'C = 12ξC */
	zp_fp2_dbl(&e, &e);
	zp_fp2_dbl(&e, &e);
	zp_fp2_dbl(&t0, &e);
	zp_fp2_add(&e, &e, &t0);
	zp_fp2_dbl(&f, &e);                        /* F = 3E */
	zp_fp2_add(&f, &f, &e);
	zp_fp2_add(&g, &b, &f);                    /* G = (B + F)/2 */
	fp2_half(&g, &g);
	zp_fp2_add(&h, &t->y, &t->z);              /* H = (Y + Z)^2 - B - C = 2YZ */
	zp_fp2_sqr(&h, &h);
	zp_fp2_sub(&h, &h, &b);
	zp_fp2_sub(&h, &h, &c);
	zp_fp2_sub(&t0, &b, &f);                   /* X3 = A(B - F) */
	zp_fp2_mul(&t->x, &a, &t0);
	zp_fp2_sqr(&t0, &e);                       /* Y3 = G^2 - 3E^2 */
	zp_fp2_sqr(&t->y, &g);
	zp_fp2_sub(&t->y, &t->y, &t0);
	zp_fp2_sub(&t->y, &t->y, &t0);
	zp_fp2_sub(&t->y, &t->y, &t0);
	zp_fp2_mul(&t->z, &b, &h);                 /* Z3 = BH */
	zp_fp2_sub(&l[0], &b, &e);                 /* l0 = Y^2 - 3b'Z^2 */
	zp_fp2_dbl(&t0, &x2);                      /* l1 = 3X^2·(-xP) */
	zp_fp2_add(&t0, &t0, &x2);
	zp_fp2_mul_fp(&l[1], &t0, &p->nx);
	zp_fp2_mul_fp(&l[2], &h, &p->y);           /* l4 = 2YZ·yP */
}

/* T = T + Q (Q affine); (l0, l1, l4) = line through T and Q evaluated at P. */
static void add_step(g2_proj *t, zp_fp2 l[3], const zp_g2_affine *q, const g1_prep *p)
{
	zp_fp2 th, la, c, d, e, f, g, h, t0;
	zp_fp2_mul(&t0, &q->y, &t->z);             /* θ = Y - yQ Z */
	zp_fp2_sub(&th, &t->y, &t0);
	zp_fp2_mul(&t0, &q->x, &t->z);             /* λ = X - xQ Z */
	zp_fp2_sub(&la, &t->x, &t0);
	zp_fp2_sqr(&c, &th);                       /* C = θ^2 */
	zp_fp2_sqr(&d, &la);                       /* D = λ^2 */
	zp_fp2_mul(&e, &la, &d);                   /* E = λ^3 */
	zp_fp2_mul(&f, &t->z, &c);                 /* F = Z C */
	zp_fp2_mul(&g, &t->x, &d);                 /* G = X D */
	zp_fp2_add(&h, &e, &f);                    /* H = E + F - 2G */
	zp_fp2_sub(&h, &h, &g);
	zp_fp2_sub(&h, &h, &g);
	zp_fp2_mul(&t->x, &la, &h);                /* X3 = λH */
	zp_fp2_sub(&t0, &g, &h);                   /* Y3 = θ(G - H) - Y E */
	zp_fp2_mul(&t0, &th, &t0);
	zp_fp2_mul(&t->y, &t->y, &e);
	zp_fp2_sub(&t->y, &t0, &t->y);
	zp_fp2_mul(&t->z, &t->z, &e);              /* Z3 = Z E */
	zp_fp2_mul(&l[0], &th, &q->x);             /* l0 = θ xQ - λ yQ */
	zp_fp2_mul(&t0, &la, &q->y);
	zp_fp2_sub(&l[0], &l[0], &t0);
	zp_fp2_mul_fp(&l[1], &th, &p->nx);         /* l1 = θ·(-xP) */
	zp_fp2_mul_fp(&l[2], &la, &p->y);          /* l4 = λ·yP */
}

/* f = Π_{i<n} f_{|x|,q_i}(p_i) for up to CHUNK finite pairs. */
static void miller_chunk(zp_fp12 *f, const g1_prep *p, const zp_g2_affine *q, size_t n)
{
	g2_proj t[CHUNK];
	zp_fp2 l[3];
	for (size_t j = 0; j < n; j++) {
		t[j].x = q[j].x;
		t[j].y = q[j].y;
		t[j].z = ZP_FP2_ONE;
	}
	*f = ZP_FP12_ONE;
	for (int i = 62; i >= 0; i--) {
		if (i != 62)
			zp_fp12_sqr(f, f);
		for (size_t j = 0; j < n; j++) {
			dbl_step(&t[j], l, &p[j]);
			zp_fp12_mul_by_014(f, f, &l[0], &l[1], &l[2]);
		}
		if (!((X_ABS >> i) & 1))
			continue;
		for (size_t j = 0; j < n; j++) {
			add_step(&t[j], l, &q[j], &p[j]);
			zp_fp12_mul_by_014(f, f, &l[0], &l[1], &l[2]);
		}
	}
}

void zp_pairing_miller_loop(zp_fp12 *f, const zp_g1_affine *p, const zp_g2_affine *q, size_t n)
{
	g1_prep pp[CHUNK];
	zp_g2_affine qq[CHUNK];
	zp_fp12 acc = ZP_FP12_ONE, part;
	size_t k = 0;
	for (size_t i = 0; i <= n; i++) {
		if (k == CHUNK || (i == n && k > 0)) {
			miller_chunk(&part, pp, qq, k);
			zp_fp12_mul(&acc, &acc, &part);
			k = 0;
		}
		if (i == n)
			break;
		bool p_inf = zp_fp_is_zero(&p[i].x) & zp_fp_is_zero(&p[i].y);
		bool q_inf = zp_fp2_is_zero(&q[i].x) & zp_fp2_is_zero(&q[i].y);
		if (p_inf || q_inf)
			continue;
		zp_fp_neg(&pp[k].nx, &p[i].x);
		pp[k].y = p[i].y;
		qq[k] = q[i];
		k++;
	}
	zp_fp12_conj(f, &acc);                     /* x < 0 */
}

void zp_pairing_final_exp(zp_fp12 *r, const zp_fp12 *f)
{
	zp_fp12 m, t, b, c, d, e;
	zp_fp12_final_exp_easy(&m, f);             /* m = f^((q^6 - 1)(q^2 + 1)) */
	/* hard part: m^(((x-1)^2/3)(x+q)(x^2+q^2-1) + 1) */
	zp_fp12_cyclotomic_pow_u64(&b, &m, X_PLUS1_DIV3);
	zp_fp12_cyclotomic_pow_u64(&c, &b, X_ABS + 1);
	zp_fp12_cyclotomic_pow_u64(&d, &c, X_ABS);
	zp_fp12_conj(&d, &d);
	zp_fp12_frobenius(&t, &c, 1);
	zp_fp12_mul(&d, &d, &t);                   /* d = c^(x+q) */
	zp_fp12_cyclotomic_pow_u64(&e, &d, X_ABS);
	zp_fp12_cyclotomic_pow_u64(&e, &e, X_ABS); /* d^(x^2) */
	zp_fp12_frobenius(&t, &d, 2);
	zp_fp12_mul(&e, &e, &t);
	zp_fp12_conj(&t, &d);
	zp_fp12_mul(&e, &e, &t);                   /* e = d^(x^2+q^2-1) */
	zp_fp12_mul(r, &e, &m);
}

void zp_pairing_multi(zp_fp12 *r, const zp_g1_affine *p, const zp_g2_affine *q, size_t n)
{
	zp_fp12 f;
	zp_pairing_miller_loop(&f, p, q, n);
	zp_pairing_final_exp(r, &f);
}

void zp_pairing(zp_fp12 *r, const zp_g1_affine *p, const zp_g2_affine *q)
{
	zp_pairing_multi(r, p, q, 1);
}

int zp_pairing_check(const zp_g1_affine *p, const zp_g2_affine *q, size_t n)
{
	zp_fp12 r;
	zp_pairing_multi(&r, p, q, n);
	return zp_fp12_is_one(&r) ? 0 : ZP_EVERIFY;
}
