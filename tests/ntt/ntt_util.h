/* ntt_util.h — reference helpers for the NTT tests: everything here uses field.h only (never ntt.c's
 * arithmetic), so the tests compare two independent computations. */
#ifndef NTT_UTIL_H
#define NTT_UTIL_H

#include "field.h"
#include "ntt.h"
#include "zp_err.h"

#include "../common/zp_test.h"  /* failures, CHECK, vectors files, hex */

static inline void fr_pow_u64(zp_fr *r, const zp_fr *b, uint64_t e)
{
	zp_fr_pow(r, b, &e, 1);
}

/* Σ_j c_j x^j */
static inline void horner(zp_fr *out, const zp_fr *c, size_t n, const zp_fr *x)
{
	zp_fr acc = ZP_FR_ZERO;
	for (size_t j = n; j-- > 0;) {
		zp_fr_mul(&acc, &acc, x);
		zp_fr_add(&acc, &acc, &c[j]);
	}
	*out = acc;
}

/* out[i] = Σ_j a_j (s·w^i)^j ; O(n^2) */
static inline void naive_dft(zp_fr *out, const zp_fr *a, size_t n, const zp_fr *w, const zp_fr *s)
{
	zp_fr x = s ? *s : ZP_FR_ONE;
	for (size_t i = 0; i < n; i++) {
		horner(&out[i], a, n, &x);
		zp_fr_mul(&x, &x, w);
	}
}

/* Coefficients of the polynomial taking a_i at w^i (n^-1 Σ a_i w^-ij); O(n^2). */
static inline void naive_interp(zp_fr *coef, const zp_fr *a, size_t n, const zp_fr *w)
{
	zp_fr winv, ninv, nf;
	zp_fr_inv(&winv, w);
	zp_fr_from_u64(&nf, n);
	zp_fr_inv(&ninv, &nf);
	naive_dft(coef, a, n, &winv, NULL);
	for (size_t i = 0; i < n; i++)
		zp_fr_mul(&coef[i], &coef[i], &ninv);
}

/* Value at x (not a domain point) of the polynomial taking a_i at w^i: (x^n - 1)/n · Σ a_i w^i/(x - w^i). */
static inline void lagrange_eval(zp_fr *out, const zp_fr *a, size_t n, const zp_fr *w, const zp_fr *x)
{
	zp_fr acc = ZP_FR_ZERO, wi = ZP_FR_ONE, t, u, nf;
	for (size_t i = 0; i < n; i++) {
		zp_fr_sub(&t, x, &wi);
		zp_fr_inv(&t, &t);
		zp_fr_mul(&u, &a[i], &wi);
		zp_fr_mul(&u, &u, &t);
		zp_fr_add(&acc, &acc, &u);
		zp_fr_mul(&wi, &wi, w);
	}
	fr_pow_u64(&t, x, n);
	zp_fr_sub(&t, &t, &ZP_FR_ONE);
	zp_fr_mul(&acc, &acc, &t);
	zp_fr_from_u64(&nf, n);
	zp_fr_inv(&nf, &nf);
	zp_fr_mul(out, &acc, &nf);
}

/* hex (no 0x, normal form) -> element; -1 on bad input */
static inline int fr_from_hex(zp_fr *r, const char *s, size_t len)
{
	uint8_t be[32];
	if (zp_test_hex_be(be, sizeof(be), s, len) < 0)
		return -1;
	return zp_fr_from_be(r, be) < 0 ? -1 : 0;
}

static inline void fr_to_hex(char *buf, const zp_fr *a)
{
	uint8_t be[32];
	zp_fr_to_be(be, a);
	for (int i = 0; i < 32; i++)
		sprintf(buf + 2 * i, "%02x", be[i]);
}

static inline bool vec_eq(const zp_fr *a, const zp_fr *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!zp_fr_eq(&a[i], &b[i]))
			return false;
	return true;
}

static inline zp_fr *vec_alloc(size_t n)
{
	zp_fr *v = malloc(n * sizeof(zp_fr));
	if (!v) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	return v;
}

static inline void vec_random(zp_fr *v, size_t n, zp_rng *g)
{
	for (size_t i = 0; i < n; i++)
		zp_fr_random(&v[i], g);
}

#endif
