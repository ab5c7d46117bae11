/*
 * ff_f64.cuh — the Fr Montgomery product on the FP64 pipe (DFMA), for running beside ff.cuh's integer
 * product (which keeps the FMA-heavy pipe busy while the FP64 pipe idles in every kernel; cuda/NOTES.md,
 * sixth session).
 *
 * fr_mul_f64(r, a, b) returns exactly ff's a·b·2^-256 mod r (fully reduced, Montgomery form, 8 u32 limbs)
 * for a, b < r. Inside, 11 limbs of 24 bits held in doubles: a limb product is < 2^48 and a column of at
 * most 22 of them plus carries stays below 2^53, so every DFMA is exact and no product has to be split.
 * The reduction is Montgomery with R' = 2^264 on b·2^8 (a 264-bit value, so no modular scaling), which
 * gives a·(2^8·b)·2^-264 = a·b·2^-256. r = 1 mod 2^24 makes each round's m = -c0 mod 2^24: the carry
 * out of the column is ceil(c0 / 2^24) and m = carry·2^24 - c0, two DFMA-pipe operations instead of a
 * product. Output < (a·b·2^8 + 2^264·r) / 2^264 < 1.23 r: one conditional subtraction.
 *
 * Rounding: only the ceilings/floors of c/2^24 round (x + 2^52 rounded up/down, x < 2^52); every other
 * operation is exact. On the host (tests/cuda/ff_emul.cu) those are floor()/ceil() and the conversions
 * plain casts, so the same code is checked there against the textbook product.
 */
#ifndef ZP_FF_F64_CUH
#define ZP_FF_F64_CUH

#include <math.h>
#include "ff.cuh"

namespace f64 {
/* limb k (24 bits) of x·2^s, x = 8 little-endian u32 limbs (256 bits), s <= 8 */
ZP_HDI uint32_t limb24(const uint32_t *x, int k, int s)
{
	int o = 24 * k - s;
	if (o < 0) return (x[0] << -o) & 0xffffffu;
	int w = o >> 5, sh = o & 31;
	uint64_t v = x[w];
	if (w + 1 < 8) v |= (uint64_t)x[w + 1] << 32;
	return (uint32_t)(v >> sh) & 0xffffffu;
}
#ifdef __CUDA_ARCH__
#define ZP_F64_TWO52 4503599627370496.0
ZP_DI double u2d(uint32_t v) { return __hiloint2double(0x43300000, (int)v) - ZP_F64_TWO52; }
ZP_DI uint32_t d2u(double x) { return (uint32_t)__double2loint(x + ZP_F64_TWO52); }
ZP_DI double floor_small(double x) { return __dadd_rd(x, ZP_F64_TWO52) - ZP_F64_TWO52; }
ZP_DI double ceil_small(double x) { return __dadd_ru(x, ZP_F64_TWO52) - ZP_F64_TWO52; }
#else
static inline double u2d(uint32_t v) { return (double)v; }
static inline uint32_t d2u(double x) { return (uint32_t)x; }
static inline double floor_small(double x) { return floor(x); }
static inline double ceil_small(double x) { return ceil(x); }
#endif

/* r = a·b·2^-256 mod p, p = Fr's modulus; a, b < p */
ZP_HDI void fr_mul_f64(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
	const uint32_t P[8] = ZP_C_FR_P;
	const double T24 = 16777216.0, I24 = 1.0 / 16777216.0;
	double B[11], c[11];
	ZP_UNROLL for (int k = 0; k < 11; k++) { B[k] = u2d(limb24(b, k, 8)); c[k] = 0; }
	ZP_UNROLL for (int i = 0; i < 11; i++) {
		double ai = u2d(limb24(a, i, 0));
		ZP_UNROLL for (int j = 0; j < 11; j++) c[j] = fma(ai, B[j], c[j]);
		double q = ceil_small(c[0] * I24);     /* (c0 + m) / 2^24, m = -c0 mod 2^24 (p = 1 mod 2^24) */
		double m = fma(q, T24, -c[0]);
		ZP_UNROLL for (int j = 1; j < 11; j++) c[j] = fma(m, (double)limb24(P, j, 0), c[j]);
		c[1] += q;
		ZP_UNROLL for (int j = 0; j < 10; j++) c[j] = c[j + 1];
		c[10] = 0;
	}
	uint32_t t[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
	ZP_UNROLL for (int j = 0; j < 11; j++) {
		if (j < 10) {
			double q = floor_small(c[j] * I24);
			c[j] = fma(-q, T24, c[j]);
			c[j + 1] += q;
		}
		uint32_t v = d2u(c[j]);
		int o = 24 * j, w = o >> 5, sh = o & 31;
		t[w] |= v << sh;
		if (sh > 8 && w + 1 < 8) t[w + 1] |= v >> (32 - sh);
	}
	sub_p_if<8>(r, t, P);
}
} /* namespace f64 */

#endif
