/* ref.c — see ref.h. Clarity over speed; only the tests use it. */
#include "ref.h"
#include <stdlib.h>
#include <string.h>
#include "zp_consts.h"

typedef unsigned __int128 u128;
static uint64_t FP_P[6], FR_P[4], FP_INV, FR_INV;
zp_fp REF_FP_ONE;
zp_fr REF_FR_ONE;
static zp_fp FP_B4;     /* 4 in Montgomery form */

static void from32(uint64_t *o, const uint32_t *in, int n64)
{
	for (int i = 0; i < n64; i++) o[i] = in[2 * i] | (uint64_t)in[2 * i + 1] << 32;
}
static uint64_t neg_inv64(uint64_t p0)
{
	uint64_t x = 1;
	for (int i = 0; i < 7; i++) x *= 2 - p0 * x;
	return -x;
}

/* generic n-limb helpers */
static int geq(const uint64_t *a, const uint64_t *b, int n)
{
	for (int i = n - 1; i >= 0; i--) if (a[i] != b[i]) return a[i] > b[i];
	return 1;
}
static uint64_t add_n(uint64_t *r, const uint64_t *a, const uint64_t *b, int n)
{
	u128 c = 0;
	for (int i = 0; i < n; i++) { c += (u128)a[i] + b[i]; r[i] = (uint64_t)c; c >>= 64; }
	return (uint64_t)c;
}
static uint64_t sub_n(uint64_t *r, const uint64_t *a, const uint64_t *b, int n)
{
	uint64_t br = 0;
	for (int i = 0; i < n; i++) {
		u128 d = (u128)a[i] - b[i] - br;
		r[i] = (uint64_t)d;
		br = (uint64_t)(d >> 64) & 1;
	}
	return br;
}
static void modadd(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, int n)
{
	uint64_t t[6];
	uint64_t c = add_n(t, a, b, n);
	if (c || geq(t, p, n)) sub_n(t, t, p, n);
	memcpy(r, t, n * 8);
}
static void modsub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, int n)
{
	uint64_t t[6];
	if (sub_n(t, a, b, n)) add_n(t, t, p, n);
	memcpy(r, t, n * 8);
}
/* Separated operand scanning: full product, then word-by-word Montgomery reduction. */
static void montmul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, uint64_t inv, int n)
{
	uint64_t t[13] = { 0 };
	for (int i = 0; i < n; i++) {
		u128 c = 0;
		for (int j = 0; j < n; j++) { c += (u128)a[i] * b[j] + t[i + j]; t[i + j] = (uint64_t)c; c >>= 64; }
		t[i + n] = (uint64_t)c;
	}
	uint64_t extra = 0;
	for (int i = 0; i < n; i++) {
		uint64_t m = t[i] * inv;
		u128 c = 0;
		for (int j = 0; j < n; j++) { c += (u128)m * p[j] + t[i + j]; t[i + j] = (uint64_t)c; c >>= 64; }
		for (int k = i + n; k < 2 * n && c; k++) { c += t[k]; t[k] = (uint64_t)c; c >>= 64; }
		extra += (uint64_t)c;
	}
	uint64_t *h = t + n;
	if (extra || geq(h, p, n)) sub_n(h, h, p, n);
	memcpy(r, h, n * 8);
}

void ref_fp_add(zp_fp *r, const zp_fp *a, const zp_fp *b) { modadd(r->l, a->l, b->l, FP_P, 6); }
void ref_fp_sub(zp_fp *r, const zp_fp *a, const zp_fp *b) { modsub(r->l, a->l, b->l, FP_P, 6); }
void ref_fp_mul(zp_fp *r, const zp_fp *a, const zp_fp *b) { montmul(r->l, a->l, b->l, FP_P, FP_INV, 6); }
bool ref_fp_eq(const zp_fp *a, const zp_fp *b) { return !memcmp(a, b, sizeof(*a)); }
static bool fp_zero(const zp_fp *a) { zp_fp z = { { 0 } }; return ref_fp_eq(a, &z); }
void ref_fr_add(zp_fr *r, const zp_fr *a, const zp_fr *b) { modadd(r->l, a->l, b->l, FR_P, 4); }
void ref_fr_sub(zp_fr *r, const zp_fr *a, const zp_fr *b) { modsub(r->l, a->l, b->l, FR_P, 4); }
void ref_fr_mul(zp_fr *r, const zp_fr *a, const zp_fr *b) { montmul(r->l, a->l, b->l, FR_P, FR_INV, 4); }
void ref_fr_from_mont(zp_fr *r, const zp_fr *a) { zp_fr o = { { 1 } }; ref_fr_mul(r, a, &o); }

void ref_fp_inv(zp_fp *r, const zp_fp *a)
{
	uint64_t e[6];
	memcpy(e, FP_P, sizeof(e));
	e[0] -= 2;
	zp_fp x = REF_FP_ONE;
	for (int i = 383; i >= 0; i--) {
		ref_fp_mul(&x, &x, &x);
		if ((e[i / 64] >> (i % 64)) & 1) ref_fp_mul(&x, &x, a);
	}
	*r = x;
}
void ref_fr_inv(zp_fr *r, const zp_fr *a)
{
	uint64_t e[4];
	memcpy(e, FR_P, sizeof(e));
	e[0] -= 2;   /* r's low word is 1: borrow into word 0 only? 1 - 2 wraps */
	e[0] = FR_P[0] - 2; /* recomputed below with borrow */
	{ uint64_t two[4] = { 2, 0, 0, 0 }; sub_n(e, FR_P, two, 4); }
	zp_fr x = REF_FR_ONE;
	for (int i = 255; i >= 0; i--) {
		ref_fr_mul(&x, &x, &x);
		if ((e[i / 64] >> (i % 64)) & 1) ref_fr_mul(&x, &x, a);
	}
	*r = x;
}
void ref_fr_pow(zp_fr *r, const zp_fr *a, uint64_t e)
{
	zp_fr x = REF_FR_ONE, b = *a;
	while (e) { if (e & 1) ref_fr_mul(&x, &x, &b); ref_fr_mul(&b, &b, &b); e >>= 1; }
	*r = x;
}
void ref_fr_from_u64(zp_fr *r, uint64_t v)
{
	zp_fr t = { { v, 0, 0, 0 } }, rr;
	const uint32_t RR[8] = ZP_C_FR_RR;
	from32(rr.l, RR, 4);
	ref_fr_mul(r, &t, &rr);
}

void ref_fp2_mul(ref_fp2 *r, const ref_fp2 *a, const ref_fp2 *b)
{
	zp_fp t0, t1, t2, t3;
	ref_fp_mul(&t0, &a->c0, &b->c0);
	ref_fp_mul(&t1, &a->c1, &b->c1);
	ref_fp_mul(&t2, &a->c0, &b->c1);
	ref_fp_mul(&t3, &a->c1, &b->c0);
	ref_fp_sub(&r->c0, &t0, &t1);
	ref_fp_add(&r->c1, &t2, &t3);
}
void ref_fp2_sqr(ref_fp2 *r, const ref_fp2 *a) { ref_fp2 t = *a; ref_fp2_mul(r, &t, &t); }
static void fp2_add(ref_fp2 *r, const ref_fp2 *a, const ref_fp2 *b) { ref_fp_add(&r->c0, &a->c0, &b->c0); ref_fp_add(&r->c1, &a->c1, &b->c1); }
static void fp2_sub(ref_fp2 *r, const ref_fp2 *a, const ref_fp2 *b) { ref_fp_sub(&r->c0, &a->c0, &b->c0); ref_fp_sub(&r->c1, &a->c1, &b->c1); }
static bool fp2_zero(const ref_fp2 *a) { return fp_zero(&a->c0) && fp_zero(&a->c1); }
static void fp2_inv(ref_fp2 *r, const ref_fp2 *a)
{
	zp_fp t0, t1, n;
	ref_fp_mul(&t0, &a->c0, &a->c0);
	ref_fp_mul(&t1, &a->c1, &a->c1);
	ref_fp_add(&n, &t0, &t1);
	ref_fp_inv(&n, &n);
	zp_fp z = { { 0 } };
	ref_fp_mul(&r->c0, &a->c0, &n);
	ref_fp_mul(&t1, &a->c1, &n);
	ref_fp_sub(&r->c1, &z, &t1);
}
static void fp_mul_f(void *r, const void *a, const void *b) { ref_fp_mul(r, a, b); }
static void fp_add_f(void *r, const void *a, const void *b) { ref_fp_add(r, a, b); }
static void fp_sub_f(void *r, const void *a, const void *b) { ref_fp_sub(r, a, b); }
static bool fp_zero_f(const void *a) { return fp_zero(a); }
static void fp2_mul_f(void *r, const void *a, const void *b) { ref_fp2_mul(r, a, b); }
static void fp2_add_f(void *r, const void *a, const void *b) { fp2_add(r, a, b); }
static void fp2_sub_f(void *r, const void *a, const void *b) { fp2_sub(r, a, b); }
static bool fp2_zero_f(const void *a) { return fp2_zero(a); }

/* Jacobian arithmetic over a field given as an ops table (a = 0): textbook formulas. */
typedef struct {
	size_t sz;
	void (*mul)(void *, const void *, const void *);
	void (*add)(void *, const void *, const void *);
	void (*sub)(void *, const void *, const void *);
	bool (*zero)(const void *);
} fops;
static const fops FP_OPS = { sizeof(zp_fp), fp_mul_f, fp_add_f, fp_sub_f, fp_zero_f };
static const fops FP2_OPS = { sizeof(ref_fp2), fp2_mul_f, fp2_add_f, fp2_sub_f, fp2_zero_f };
#define E(i) (buf + (i) * 96)
static void jdbl(const fops *f, void *R, const void *A)
{
	size_t s = f->sz;
	const char *X = A, *Y = X + s, *Z = Y + s;
	char buf[96 * 10];
	if (f->zero(Z)) { memmove(R, A, 3 * s); return; }
	/* S = 4XY^2, M = 3X^2, X3 = M^2 - 2S, Y3 = M(S - X3) - 8Y^4, Z3 = 2YZ */
	f->mul(E(0), Y, Y);              /* Y^2 */
	f->mul(E(1), X, E(0));           /* XY^2 */
	f->add(E(1), E(1), E(1));
	f->add(E(1), E(1), E(1));        /* S */
	f->mul(E(2), X, X);
	f->add(E(3), E(2), E(2));
	f->add(E(3), E(3), E(2));        /* M */
	f->mul(E(4), E(3), E(3));
	f->sub(E(4), E(4), E(1));
	f->sub(E(4), E(4), E(1));        /* X3 */
	f->mul(E(5), E(0), E(0));        /* Y^4 */
	f->add(E(5), E(5), E(5)); f->add(E(5), E(5), E(5)); f->add(E(5), E(5), E(5));
	f->sub(E(6), E(1), E(4));
	f->mul(E(6), E(3), E(6));
	f->sub(E(6), E(6), E(5));        /* Y3 */
	f->mul(E(7), Y, Z);
	f->add(E(7), E(7), E(7));        /* Z3 */
	memcpy((char *)R, E(4), s);
	memcpy((char *)R + s, E(6), s);
	memcpy((char *)R + 2 * s, E(7), s);
}
static void jadd(const fops *f, void *R, const void *A, const void *B)
{
	size_t s = f->sz;
	const char *X1 = A, *Y1 = X1 + s, *Z1 = Y1 + s, *X2 = B, *Y2 = X2 + s, *Z2 = Y2 + s;
	char buf[96 * 12];
	if (f->zero(Z1)) { memmove(R, B, 3 * s); return; }
	if (f->zero(Z2)) { memmove(R, A, 3 * s); return; }
	f->mul(E(0), Z1, Z1); f->mul(E(1), Z2, Z2);
	f->mul(E(2), X1, E(1));                        /* U1 */
	f->mul(E(3), X2, E(0));                        /* U2 */
	f->mul(E(4), Y1, E(1)); f->mul(E(4), E(4), Z2); /* S1 */
	f->mul(E(5), Y2, E(0)); f->mul(E(5), E(5), Z1); /* S2 */
	f->sub(E(6), E(3), E(2));                      /* H */
	f->sub(E(7), E(5), E(4));                      /* r */
	if (f->zero(E(6))) {
		if (f->zero(E(7))) { jdbl(f, R, A); return; }
		memset(R, 0, 3 * s);
		return;
	}
	f->mul(E(8), E(6), E(6));                      /* H^2 */
	f->mul(E(9), E(8), E(6));                      /* H^3 */
	f->mul(E(10), E(2), E(8));                     /* U1 H^2 */
	f->mul(E(0), E(7), E(7));
	f->sub(E(0), E(0), E(9));
	f->sub(E(0), E(0), E(10));
	f->sub(E(0), E(0), E(10));                     /* X3 */
	f->sub(E(1), E(10), E(0));
	f->mul(E(1), E(7), E(1));
	f->mul(E(11), E(4), E(9));
	f->sub(E(1), E(1), E(11));                     /* Y3 */
	f->mul(E(3), Z1, Z2);
	f->mul(E(3), E(3), E(6));                      /* Z3 */
	memcpy((char *)R, E(0), s);
	memcpy((char *)R + s, E(1), s);
	memcpy((char *)R + 2 * s, E(3), s);
}
static void jmul(const fops *f, void *R, const void *A, const zp_fr *k)
{
	char acc[3 * 96] = { 0 }, base[3 * 96];
	memcpy(base, A, 3 * f->sz);
	for (int i = 255; i >= 0; i--) {
		jdbl(f, acc, acc);
		if ((k->l[i / 64] >> (i % 64)) & 1) jadd(f, acc, acc, base);
	}
	memcpy(R, acc, 3 * f->sz);
}

void ref_g1_add(ref_g1 *r, const ref_g1 *a, const ref_g1 *b) { jadd(&FP_OPS, r, a, b); }
void ref_g1_dbl(ref_g1 *r, const ref_g1 *a) { jdbl(&FP_OPS, r, a); }
void ref_g1_mul(ref_g1 *r, const ref_g1 *a, const zp_fr *k) { jmul(&FP_OPS, r, a, k); }
void ref_g2_add(ref_g2 *r, const ref_g2 *a, const ref_g2 *b) { jadd(&FP2_OPS, r, a, b); }
void ref_g2_dbl(ref_g2 *r, const ref_g2 *a) { jdbl(&FP2_OPS, r, a); }
void ref_g2_mul(ref_g2 *r, const ref_g2 *a, const zp_fr *k) { jmul(&FP2_OPS, r, a, k); }

void ref_g1_to_affine(ref_g1a *r, const ref_g1 *a)
{
	if (fp_zero(&a->z)) { memset(r, 0, sizeof(*r)); return; }
	zp_fp zi, z2, z3;
	ref_fp_inv(&zi, &a->z);
	ref_fp_mul(&z2, &zi, &zi);
	ref_fp_mul(&z3, &z2, &zi);
	ref_fp_mul(&r->x, &a->x, &z2);
	ref_fp_mul(&r->y, &a->y, &z3);
}
void ref_g2_to_affine(ref_g2a *r, const ref_g2 *a)
{
	if (fp2_zero(&a->z)) { memset(r, 0, sizeof(*r)); return; }
	ref_fp2 zi, z2, z3;
	fp2_inv(&zi, &a->z);
	ref_fp2_mul(&z2, &zi, &zi);
	ref_fp2_mul(&z3, &z2, &zi);
	ref_fp2_mul(&r->x, &a->x, &z2);
	ref_fp2_mul(&r->y, &a->y, &z3);
}
void ref_g1_from_affine(ref_g1 *r, const ref_g1a *a)
{
	r->x = a->x; r->y = a->y;
	r->z = (fp_zero(&a->x) && fp_zero(&a->y)) ? (zp_fp){ { 0 } } : REF_FP_ONE;
}
void ref_g2_from_affine(ref_g2 *r, const ref_g2a *a)
{
	r->x = a->x; r->y = a->y;
	memset(&r->z, 0, sizeof(r->z));
	if (!(fp2_zero(&a->x) && fp2_zero(&a->y))) r->z.c0 = REF_FP_ONE;
}
bool ref_g1_on_curve(const ref_g1a *a)
{
	zp_fp l, r;
	ref_fp_mul(&l, &a->y, &a->y);
	ref_fp_mul(&r, &a->x, &a->x);
	ref_fp_mul(&r, &r, &a->x);
	ref_fp_add(&r, &r, &FP_B4);
	return ref_fp_eq(&l, &r);
}
bool ref_g2_on_curve(const ref_g2a *a)
{
	ref_fp2 l, r, b = { FP_B4, FP_B4 };
	ref_fp2_mul(&l, &a->y, &a->y);
	ref_fp2_mul(&r, &a->x, &a->x);
	ref_fp2_mul(&r, &r, &a->x);
	fp2_add(&r, &r, &b);
	return !memcmp(&l, &r, sizeof(l));
}

void ref_g1_gen(ref_g1 *r)
{
	const uint32_t X[12] = ZP_C_G1_X, Y[12] = ZP_C_G1_Y;
	from32(r->x.l, X, 6); from32(r->y.l, Y, 6); r->z = REF_FP_ONE;
}
void ref_g2_gen(ref_g2 *r)
{
	const uint32_t X0[12] = ZP_C_G2_X0, X1[12] = ZP_C_G2_X1, Y0[12] = ZP_C_G2_Y0, Y1[12] = ZP_C_G2_Y1;
	from32(r->x.c0.l, X0, 6); from32(r->x.c1.l, X1, 6);
	from32(r->y.c0.l, Y0, 6); from32(r->y.c1.l, Y1, 6);
	memset(&r->z, 0, sizeof(r->z));
	r->z.c0 = REF_FP_ONE;
}

uint64_t ref_rng(uint64_t s[4])
{
	uint64_t r = ((s[1] * 5) << 7 | (s[1] * 5) >> 57) * 9, t = s[1] << 17;
	s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t;
	s[3] = s[3] << 45 | s[3] >> 19;
	return r;
}
void ref_fp_random(zp_fp *r, uint64_t s[4])
{
	do {
		for (int i = 0; i < 6; i++) r->l[i] = ref_rng(s);
		r->l[5] &= (1ull << 61) - 1;
	} while (geq(r->l, FP_P, 6));
}
void ref_fr_random(zp_fr *r, uint64_t s[4])
{
	do {
		for (int i = 0; i < 4; i++) r->l[i] = ref_rng(s);
		r->l[3] &= (1ull << 63) - 1;
	} while (geq(r->l, FR_P, 4));
}

void ref_fr_omega(zp_fr *r, unsigned log_n)
{
	const uint32_t W[8] = ZP_C_FR_OMEGA32;
	from32(r->l, W, 4);
	for (unsigned k = 32; k > log_n; k--) ref_fr_mul(r, r, r);
}

/* Cooley–Tukey DIT: bit-reverse, then butterflies with w^(j·n/len). */
void ref_ntt(zp_fr *x, unsigned log_n, int inverse, const zp_fr *shift)
{
	size_t n = (size_t)1 << log_n;
	zp_fr w, s = REF_FR_ONE;
	if (shift) s = *shift;
	if (!inverse && shift) {
		zp_fr p = REF_FR_ONE;
		for (size_t i = 0; i < n; i++) { ref_fr_mul(&x[i], &x[i], &p); ref_fr_mul(&p, &p, &s); }
	}
	for (size_t i = 0, j = 0; i < n; i++) {
		if (i < j) { zp_fr t = x[i]; x[i] = x[j]; x[j] = t; }
		size_t bit = n >> 1;
		for (; j & bit; bit >>= 1) j ^= bit;
		j |= bit;
	}
	for (unsigned lv = 1; lv <= log_n; lv++) {
		size_t len = (size_t)1 << lv, h = len / 2;
		ref_fr_omega(&w, lv);
		if (inverse) ref_fr_inv(&w, &w);
		zp_fr *tw = malloc(h * sizeof(zp_fr));
		tw[0] = REF_FR_ONE;
		for (size_t j = 1; j < h; j++) ref_fr_mul(&tw[j], &tw[j - 1], &w);
		for (size_t i = 0; i < n; i += len)
			for (size_t j = 0; j < h; j++) {
				zp_fr u = x[i + j], v;
				ref_fr_mul(&v, &x[i + j + h], &tw[j]);
				ref_fr_add(&x[i + j], &u, &v);
				ref_fr_sub(&x[i + j + h], &u, &v);
			}
		free(tw);
	}
	if (inverse) {
		zp_fr ninv, si, p;
		ref_fr_from_u64(&ninv, n);
		ref_fr_inv(&ninv, &ninv);
		ref_fr_inv(&si, &s);
		p = ninv;
		for (size_t i = 0; i < n; i++) { ref_fr_mul(&x[i], &x[i], &p); ref_fr_mul(&p, &p, &si); }
	}
}

void ref_init(void)
{
	const uint32_t P[12] = ZP_C_FP_P, R[8] = ZP_C_FR_P, O1[12] = ZP_C_FP_ONE, O2[8] = ZP_C_FR_ONE;
	from32(FP_P, P, 6); from32(FR_P, R, 4);
	from32(REF_FP_ONE.l, O1, 6); from32(REF_FR_ONE.l, O2, 4);
	FP_INV = neg_inv64(FP_P[0]);
	FR_INV = neg_inv64(FR_P[0]);
	ref_fp_add(&FP_B4, &REF_FP_ONE, &REF_FP_ONE);
	ref_fp_add(&FP_B4, &FP_B4, &FP_B4);
}
