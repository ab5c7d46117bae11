/*
 * lc_fast.h — internal: the row sums Σ coef·w[col] of circuit.c (zp_csr_mul) and synth.c
 * (the fused witness pass), byte-identical to summing with zp_lc_term / zp_fr_add, faster:
 *
 *  - coefficients come from the 1-byte code array (zp_csr.code, see circuit.h) and the shared
 *    table zp_coef_values(): the 32-byte val is read only for ZP_COEF_OTHER entries;
 *  - the accumulator is lazily reduced: kept in [0, 2^256) and congruent mod r (a carry out of
 *    bit 256 is folded back by adding 2^256 mod r = 2^256 − 2r), reduced to [0, r) once per row.
 *    The canonical residue is unique, so the bytes equal those of modular adds in any order;
 *  - a −1 coefficient adds r − x; x = 0 costs nothing, x = 1 adds the coefficient, 2^k·x for a
 *    general x is one product (rare in bit-heavy witnesses).
 */
#ifndef ZP_LC_FAST_H
#define ZP_LC_FAST_H

#include <stdint.h>

#include "circuit.h"

/* 2^256 mod r = 2^256 − 2r (2r < 2^256 < 3r) */
static const uint64_t ZP_LC_FOLD[4] = { 0x00000001fffffffeULL, 0x5884b7fa00034802ULL, 0x998c4fefecbc4ff5ULL,
					 0x1824b159acc5056fULL };

static inline int zp_lc_is_zero(const zp_fr *x)
{
	return !(x->l[0] | x->l[1] | x->l[2] | x->l[3]);
}

static inline int zp_lc_is_one(const zp_fr *x)
{
	const uint64_t *o = ZP_FR_ONE.l;
	return !((x->l[0] ^ o[0]) | (x->l[1] ^ o[1]) | (x->l[2] ^ o[2]) | (x->l[3] ^ o[3]));
}

/* acc += x (acc in [0, 2^256), x < 2^256): wraps fold back once (the result after a wrap is
 * < x − 2^256 + acc + fold < r + fold < 2^256 since both inputs were < 2^256 and x < r). */
static inline void zp_lc_add(uint64_t acc[4], const uint64_t x[4])
{
	unsigned __int128 s = (unsigned __int128)acc[0] + x[0];
	acc[0] = (uint64_t)s;
	s = (s >> 64) + acc[1] + x[1];
	acc[1] = (uint64_t)s;
	s = (s >> 64) + acc[2] + x[2];
	acc[2] = (uint64_t)s;
	s = (s >> 64) + acc[3] + x[3];
	acc[3] = (uint64_t)s;
	if (__builtin_expect((uint64_t)(s >> 64), 0)) {
		s = (unsigned __int128)acc[0] + ZP_LC_FOLD[0];
		acc[0] = (uint64_t)s;
		s = (s >> 64) + acc[1] + ZP_LC_FOLD[1];
		acc[1] = (uint64_t)s;
		s = (s >> 64) + acc[2] + ZP_LC_FOLD[2];
		acc[2] = (uint64_t)s;
		acc[3] = acc[3] + ZP_LC_FOLD[3] + (uint64_t)(s >> 64);
	}
}

/* acc += x & mask (mask 0 or all ones), without a branch on the mask or on the wrap (for random
 * bits, which a branch would mispredict half the time). Same bound as zp_lc_add. */
static inline void zp_lc_add_masked(uint64_t acc[4], const uint64_t x[4], uint64_t mask)
{
	unsigned __int128 s = (unsigned __int128)acc[0] + (x[0] & mask);
	acc[0] = (uint64_t)s;
	s = (s >> 64) + acc[1] + (x[1] & mask);
	acc[1] = (uint64_t)s;
	s = (s >> 64) + acc[2] + (x[2] & mask);
	acc[2] = (uint64_t)s;
	s = (s >> 64) + acc[3] + (x[3] & mask);
	acc[3] = (uint64_t)s;
	uint64_t f = -(uint64_t)(s >> 64);
	s = (unsigned __int128)acc[0] + (ZP_LC_FOLD[0] & f);
	acc[0] = (uint64_t)s;
	s = (s >> 64) + acc[1] + (ZP_LC_FOLD[1] & f);
	acc[1] = (uint64_t)s;
	s = (s >> 64) + acc[2] + (ZP_LC_FOLD[2] & f);
	acc[2] = (uint64_t)s;
	acc[3] = acc[3] + (ZP_LC_FOLD[3] & f) + (uint64_t)(s >> 64);
}

/* acc += r − x for x in (0, r) */
static inline void zp_lc_add_neg(uint64_t acc[4], const zp_fr *x)
{
	const uint64_t *p = ZP_FR_MODULUS;
	uint64_t n[4];
	unsigned __int128 d = (unsigned __int128)p[0] - x->l[0];
	n[0] = (uint64_t)d;
	d = (unsigned __int128)p[1] - x->l[1] - (uint64_t)((d >> 64) & 1);
	n[1] = (uint64_t)d;
	d = (unsigned __int128)p[2] - x->l[2] - (uint64_t)((d >> 64) & 1);
	n[2] = (uint64_t)d;
	n[3] = p[3] - x->l[3] - (uint64_t)((d >> 64) & 1);
	zp_lc_add(acc, n);
}

/* acc mod r into out (acc < 2^256 < 3r: at most two subtractions) */
static inline void zp_lc_final(zp_fr *out, uint64_t acc[4])
{
	const uint64_t *p = ZP_FR_MODULUS;
	for (int i = 0; i < 2; i++) {
		uint64_t t[4];
		unsigned __int128 d = (unsigned __int128)acc[0] - p[0];
		t[0] = (uint64_t)d;
		d = (unsigned __int128)acc[1] - p[1] - (uint64_t)((d >> 64) & 1);
		t[1] = (uint64_t)d;
		d = (unsigned __int128)acc[2] - p[2] - (uint64_t)((d >> 64) & 1);
		t[2] = (uint64_t)d;
		d = (unsigned __int128)acc[3] - p[3] - (uint64_t)((d >> 64) & 1);
		t[3] = (uint64_t)d;
		if ((d >> 64) & 1)
			break;      /* acc < r */
		acc[0] = t[0], acc[1] = t[1], acc[2] = t[2], acc[3] = t[3];
	}
	out->l[0] = acc[0], out->l[1] = acc[1], out->l[2] = acc[2], out->l[3] = acc[3];
}

/* acc += coef·x with coef given by its code (val[k] when ZP_COEF_OTHER: val may be NULL when
 * no code is OTHER) */
static inline void zp_lc_term_code(uint64_t acc[4], unsigned code, const zp_fr *val, uint64_t k, const zp_fr *x,
				   const zp_fr *table)
{
	if (zp_lc_is_zero(x))
		return;
	const zp_fr *coef = code == ZP_COEF_OTHER ? &val[k] : &table[code];
	if (zp_lc_is_one(x)) {
		zp_lc_add(acc, coef->l);
	} else if (code == ZP_COEF_ONE) {
		zp_lc_add(acc, x->l);
	} else if (code == ZP_COEF_NEG1) {
		zp_lc_add_neg(acc, x);
	} else {
		zp_fr p;
		zp_fr_mul(&p, coef, x);
		zp_lc_add(acc, p.l);
	}
}

/* a·b with the bit cases done without a product (same bytes as zp_fr_mul) */
static inline void zp_lc_mul(zp_fr *r, const zp_fr *a, const zp_fr *b)
{
	if (zp_lc_is_zero(a) || zp_lc_is_zero(b))
		*r = ZP_FR_ZERO;
	else if (zp_lc_is_one(a))
		*r = *b;
	else if (zp_lc_is_one(b))
		*r = *a;
	else
		zp_fr_mul(r, a, b);
}

#endif
