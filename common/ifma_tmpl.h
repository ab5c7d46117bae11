/*
 * ifma_tmpl.h — internal: one prime field eight lanes at a time with AVX-512 IFMA (vpmadd52luq /
 * vpmadd52huq), as inline functions on registers; included once per field (as ec_tmpl.h, msm_tmpl.h
 * and fp2_tmpl.h are), each curve's engine an instance: BLS12-381's Fp (fp_ifma_impl.h: zp_v8_*, eight
 * limbs; msm.c, bench/arith/fp8.c), BN254's Fp (bn254_ifma_impl.h: bn_v5_*, five limbs; bn254_msm.c)
 * and either curve's Fr (ntt_tmpl.h: fr_v5_*). Include only from x86-64 GCC/Clang builds; every vector
 * function here must run under IFMA_FN code on a CPU where zp_fp_ifma_available() said yes.
 *
 * A lane vector is __m512i[IFMA_N], limb-sliced: r[k] holds limb k (bits 52k..52k+51) of every lane.
 * Products are Montgomery with R' = 2^(52·IFMA_N) (2^416, 2^260); sums and differences keep 64-bit
 * signed limbs until a carry pass makes them 52-bit again. The scalar code's R is 2^(64·IFMA_W), so an
 * IFMA product of standard-form values x·R and y·R is xy·R·2^-S with S = 52·IFMA_N − 64·IFMA_W (32,
 * 4): the MSMs' "scale" bookkeeping, and IV(shl) multiplies by 2^S with shifts.
 *
 * The product (IV(mul)): operand scanning, for each limb b_i of b: t += a·b_i (low and high 52-bit
 * halves of each 52×52 product into neighbouring accumulators), m = t_i·(−p^−1) mod 2^52, t += m·p,
 * carry t_i's top bits into t_{i+1}. Each 64-bit accumulator takes at most 4·IFMA_N + 1 additions of
 * < 2^52, so nothing overflows; one carry pass at the end makes the result limbs 52 bits again (the
 * instructions read only the low 52 bits of their multiplicands, so inputs must be normalized). Every
 * loop has a constant trip count and is fully unrolled, so that t[] lives in registers.
 *
 * The includer defines:
 *   IV(x)       the names of this instance (zp_v8_x, bn_v5_x, fr_v5_x)
 *   IFMA_N      52-bit limbs a lane (8, 5); IFMA_W the element's 64-bit words in memory (6, 4)
 *   IFMA_FE     the element's C type in memory (member l[IFMA_W])
 *   IFMA_P      p in IFMA_N 52-bit limbs (a static const array, so that its limbs fold into
 *               constants); IFMA_PINV = −p^−1 mod 2^52. IV(consts_ok) checks both against p.
 * All of them are #undef'd at the end.
 */
#ifndef ZP_IFMA_COMMON
#define ZP_IFMA_COMMON
#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define IFMA_FN __attribute__((target("avx512f,avx512ifma")))
#define ZP_MASK52 ((1ull << 52) - 1)
#define IFMA_UNUSED __attribute__((unused))   /* out of line where used (not every instance uses them) */
#define IFMA_INLINE __attribute__((always_inline))   /* a few shifts: always in place, as when written out */

/* n 52-bit limbs of an integer of w 64-bit words (it must fit 52·n bits) */
static inline void zp_to52(uint64_t *out, int n, const uint64_t *in, int w)
{
	for (int k = 0; k < n; k++) {
		unsigned bit = 52u * (unsigned)k, i = bit / 64, s = bit % 64;
		uint64_t v = (int)i < w ? in[i] >> s : 0;
		if (s > 12 && (int)i + 1 < w) v |= in[i + 1] << (64 - s);
		out[k] = v & ZP_MASK52;
	}
}
#endif

#define IFMA_S (52 * IFMA_N - 64 * IFMA_W)   /* R'/R = 2^IFMA_S */

/* whether IFMA_P and IFMA_PINV are p's (p: IFMA_W words, odd): each user's init asks before use */
static inline bool IV(consts_ok)(const uint64_t p[IFMA_W])
{
	uint64_t p52[IFMA_N], x = 1;
	zp_to52(p52, IFMA_N, p, IFMA_W);
	for (int i = 0; i < 6; i++) x *= 2 - p[0] * x;   /* p^-1 mod 2^64 by Newton's iteration */
	return memcmp(p52, IFMA_P, sizeof p52) == 0 && ((0 - x) & ZP_MASK52) == IFMA_PINV;
}

/* The product's three parts, each always inline (so that t[] stays in registers):
 * IV(row): t[0..N] += x·y (y one limb on every lane), each 52×52 product's low and high halves into
 * neighbouring accumulators. */
static inline IFMA_FN IFMA_INLINE void IV(row)(__m512i *t, const __m512i x[IFMA_N], __m512i y)
{
#pragma GCC unroll 16
	for (int j = 0; j < IFMA_N; j++) {
		t[j] = _mm512_madd52lo_epu64(t[j], x[j], y);
		t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], x[j], y);
	}
}
/* IV(step): one Montgomery step at t[0]: m = t_0·(−p^−1) mod 2^52, t += m·p, t_0's top bits into t_1
 * (sgn: the accumulators are signed, an arithmetic shift). */
static inline IFMA_FN IFMA_INLINE void IV(step)(__m512i *t, bool sgn)
{
	__m512i m = _mm512_madd52lo_epu64(_mm512_setzero_si512(), t[0], _mm512_set1_epi64((long long)IFMA_PINV));
#pragma GCC unroll 16
	for (int j = 0; j < IFMA_N; j++) {
		__m512i pj = _mm512_set1_epi64((long long)IFMA_P[j]);
		t[j] = _mm512_madd52lo_epu64(t[j], m, pj);
		t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], m, pj);
	}
	t[1] = _mm512_add_epi64(t[1], sgn ? _mm512_srai_epi64(t[0], 52) : _mm512_srli_epi64(t[0], 52));
}
/* IV(top): r = t[N..2N) carried into 52-bit limbs (sgn as for IV(step)) */
static inline IFMA_FN IFMA_INLINE void IV(top)(__m512i r[IFMA_N], const __m512i t[2 * IFMA_N], bool sgn)
{
	const __m512i mask = _mm512_set1_epi64((long long)ZP_MASK52);
	__m512i carry = _mm512_setzero_si512();
	for (int k = 0; k < IFMA_N; k++) {
		__m512i v = _mm512_add_epi64(t[IFMA_N + k], carry);
		r[k] = _mm512_and_si512(v, mask);
		carry = sgn ? _mm512_srai_epi64(v, 52) : _mm512_srli_epi64(v, 52);
	}
}

/* r = a·b·2^-52N mod p, lanes independent; a, b normalized (52-bit limbs) and a·b < p·R': r < 2p.
 * Interleaved on purpose: the same result as IV(mulw) + IV(redc) below (each m_i sees the same
 * column), but that composition made a one-thread 2^16 BLS12-381 proof ~5 % slower (0.78 -> 0.82 s,
 * 2026-11-30). */
static inline IFMA_FN void IV(mul)(__m512i r[IFMA_N], const __m512i a[IFMA_N], const __m512i b[IFMA_N])
{
	__m512i t[2 * IFMA_N];
	for (int k = 0; k < 2 * IFMA_N; k++) t[k] = _mm512_setzero_si512();
#pragma GCC unroll 16
	for (int i = 0; i < IFMA_N; i++) {
		IV(row)(t + i, a, b[i]);
		IV(step)(t + i, false);
	}
	IV(top)(r, t, false);
}

/* The two halves of IV(mul), for sums of products with one reduction (lazy reduction).
 * IV(mulw): t += a·b into 2·IFMA_N 64-bit accumulators (limb k: weight 2^52k), not carried; a, b
 * normalized. Each product adds < 2^56 to an accumulator. */
static inline IFMA_FN void IV(mulw)(__m512i t[2 * IFMA_N], const __m512i a[IFMA_N], const __m512i b[IFMA_N])
{
#pragma GCC unroll 16
	for (int i = 0; i < IFMA_N; i++) IV(row)(t + i, a, b[i]);
}
/* IV(redc): r = T·2^-52N mod p, normalized, for accumulators t (signed, |t[k]| < 2^59) of a value
 * 0 <= T < R'·p·k: r < (k + 1)·p. t is clobbered. */
static inline IFMA_FN void IV(redc)(__m512i r[IFMA_N], __m512i t[2 * IFMA_N])
{
#pragma GCC unroll 16
	for (int i = 0; i < IFMA_N; i++) IV(step)(t + i, true);
	IV(top)(r, t, true);
}

/* Signed 64-bit limbs -> 52-bit limbs (the value must be >= 0 and < R'). */
static inline IFMA_FN void IV(carry)(__m512i r[IFMA_N])
{
	const __m512i mask = _mm512_set1_epi64((long long)ZP_MASK52);
	for (int k = 0; k < IFMA_N - 1; k++) {
		__m512i c = _mm512_srai_epi64(r[k], 52);
		r[k] = _mm512_and_si512(r[k], mask);
		r[k + 1] = _mm512_add_epi64(r[k + 1], c);
	}
}

/* r = a - b + m·p (m = 1, 2 or 4: keeps it positive for a >= 0, b < m·p; the sum < R'), normalized,
 * not reduced. */
static inline IFMA_FN void IV(sub)(__m512i r[IFMA_N], const __m512i a[IFMA_N], const __m512i b[IFMA_N], int m)
{
	for (int k = 0; k < IFMA_N; k++)
		r[k] = _mm512_add_epi64(_mm512_sub_epi64(a[k], b[k]), _mm512_set1_epi64((long long)(IFMA_P[k] * (uint64_t)m)));
	IV(carry)(r);
}
/* r = a + b, normalized, not reduced */
static inline IFMA_FN void IV(add)(__m512i r[IFMA_N], const __m512i a[IFMA_N], const __m512i b[IFMA_N])
{
	for (int k = 0; k < IFMA_N; k++) r[k] = _mm512_add_epi64(a[k], b[k]);
	IV(carry)(r);
}
/* d = a − b per limb (signed); mask of the lanes where a == b (both reduced: equal limbs) */
static IFMA_FN IFMA_UNUSED __mmask8 IV(diff)(__m512i d[IFMA_N], const __m512i a[IFMA_N], const __m512i b[IFMA_N])
{
	__m512i o = _mm512_setzero_si512();
	for (int k = 0; k < IFMA_N; k++) {
		d[k] = _mm512_sub_epi64(a[k], b[k]);
		o = _mm512_or_si512(o, d[k]);
	}
	return _mm512_cmpeq_epi64_mask(o, _mm512_setzero_si512());
}
/* r = d + m·p, normalized (d from IV(diff), d + m·p >= 0) */
static IFMA_FN IFMA_UNUSED void IV(addq)(__m512i r[IFMA_N], const __m512i d[IFMA_N], int m)
{
	for (int k = 0; k < IFMA_N; k++) r[k] = _mm512_add_epi64(d[k], _mm512_set1_epi64((long long)(IFMA_P[k] * (uint64_t)m)));
	IV(carry)(r);
}
/* N = ±yP − yB (− in the lanes of neg) + 2p or 3p: in (p, 3p] (the batch-affine MSMs' numerator) */
static IFMA_FN IFMA_UNUSED void IV(num)(__m512i N[IFMA_N], const __m512i yp[IFMA_N], const __m512i yb[IFMA_N], __mmask8 neg)
{
	for (int k = 0; k < IFMA_N; k++) {
		__m512i a = _mm512_mask_sub_epi64(yp[k], neg, _mm512_setzero_si512(), yp[k]);
		__m512i q = _mm512_mask_blend_epi64(neg, _mm512_set1_epi64((long long)(2 * IFMA_P[k])),
		                                    _mm512_set1_epi64((long long)(3 * IFMA_P[k])));
		N[k] = _mm512_add_epi64(_mm512_sub_epi64(a, yb[k]), q);
	}
	IV(carry)(N);
}

/* mask of the lanes where a (reduced) is 0 */
static IFMA_FN IFMA_UNUSED __mmask8 IV(zero)(const __m512i a[IFMA_N])
{
	__m512i o = a[0];
	for (int k = 1; k < IFMA_N; k++) o = _mm512_or_si512(o, a[k]);
	return _mm512_cmpeq_epi64_mask(o, _mm512_setzero_si512());
}
/* r = a in the lanes of m */
static inline IFMA_FN void IV(sel)(__m512i r[IFMA_N], __mmask8 m, const __m512i a[IFMA_N])
{
	for (int k = 0; k < IFMA_N; k++) r[k] = _mm512_mask_blend_epi64(m, r[k], a[k]);
}

/* r = r - m·p where that is >= 0 (lane by lane), else r; r normalized and < R'. */
static inline IFMA_FN void IV(csub)(__m512i r[IFMA_N], int m)
{
	__m512i d[IFMA_N];
	for (int k = 0; k < IFMA_N; k++) d[k] = _mm512_sub_epi64(r[k], _mm512_set1_epi64((long long)(IFMA_P[k] * (uint64_t)m)));
	IV(carry)(d);
	__mmask8 keep = _mm512_cmplt_epi64_mask(d[IFMA_N - 1], _mm512_setzero_si512());   /* negative: r < m·p */
	for (int k = 0; k < IFMA_N; k++) r[k] = _mm512_mask_blend_epi64(keep, d[k], r[k]);
}
/* Normalized r < 8p -> r mod p. */
static inline IFMA_FN void IV(canon)(__m512i r[IFMA_N])
{
	IV(csub)(r, 4);
	IV(csub)(r, 2);
	IV(csub)(r, 1);
}
/* Normalized r < 4p -> r mod p (one conditional subtraction fewer). */
static inline IFMA_FN void IV(canon4)(__m512i r[IFMA_N])
{
	IV(csub)(r, 2);
	IV(csub)(r, 1);
}

/* r = a·2^S (R'/R) in 52-bit limbs, no reduction (a normalized and < R, so r < R'). In a product the
 * factor 2^S stands for R'/R: a·2^S has the scale of a times R'/R (one product) at the cost of a few
 * shifts; IV(mul)(x, y, r) stays < 2p while x·r < R'·p. */
static inline IFMA_FN void IV(shl)(__m512i r[IFMA_N], const __m512i a[IFMA_N])
{
	const __m512i mask = _mm512_set1_epi64((long long)ZP_MASK52);
	for (int k = IFMA_N - 1; k > 0; k--)
		r[k] = _mm512_or_si512(_mm512_and_si512(_mm512_slli_epi64(a[k], IFMA_S), mask),
		                       _mm512_srli_epi64(a[k - 1], 52 - IFMA_S));
	r[0] = _mm512_and_si512(_mm512_slli_epi64(a[0], IFMA_S), mask);
}

/* IFMA_W 64-bit limb vectors (an element's words, lane-sliced) <-> IFMA_N 52-bit ones; values < R.
 * Limb k is bits 52k.. of word 52k/64 and, past its end, of the next; a top limb past R needs no mask. */
static inline IFMA_FN IFMA_INLINE void IV(from64)(__m512i r[IFMA_N], const __m512i L[IFMA_W])
{
	const __m512i mask = _mm512_set1_epi64((long long)ZP_MASK52);
#pragma GCC unroll 16
	for (int k = 0; k < IFMA_N; k++) {
		const int w = 52 * k / 64, s = 52 * k % 64;
		__m512i v = s ? _mm512_srli_epi64(L[w], s) : L[w];
		if (s > 12 && w + 1 < IFMA_W) v = _mm512_or_si512(v, _mm512_slli_epi64(L[w + 1], 64 - s));
		r[k] = 52 * (k + 1) >= 64 * IFMA_W ? v : _mm512_and_si512(v, mask);
	}
}
static inline IFMA_FN IFMA_INLINE void IV(to64)(__m512i L[IFMA_W], const __m512i r[IFMA_N])
{
#pragma GCC unroll 16
	for (int w = 0; w < IFMA_W; w++) {
		bool any = false;
#pragma GCC unroll 16
		for (int k = 0; k < IFMA_N; k++) {   /* the limbs with bits in word w, shifted into place */
			const int s = 52 * k - 64 * w;
			if (s <= -52 || s >= 64) continue;
			__m512i v = s > 0 ? _mm512_slli_epi64(r[k], s) : s < 0 ? _mm512_srli_epi64(r[k], -s) : r[k];
			L[w] = any ? _mm512_or_si512(L[w], v) : v;
			any = true;
		}
	}
}

/* Eight elements in memory <-> a lane vector, as they are (no change of form; values < R) */
static IFMA_FN IFMA_UNUSED void IV(from_fe)(__m512i r[IFMA_N], const IFMA_FE v[8])
{
	__m512i L[IFMA_W];
	for (int k = 0; k < IFMA_W; k++)
		L[k] = _mm512_set_epi64((long long)v[7].l[k], (long long)v[6].l[k], (long long)v[5].l[k], (long long)v[4].l[k],
		                        (long long)v[3].l[k], (long long)v[2].l[k], (long long)v[1].l[k], (long long)v[0].l[k]);
	IV(from64)(r, L);
}
static IFMA_FN IFMA_UNUSED void IV(to_fe)(IFMA_FE v[8], const __m512i r[IFMA_N])
{
	__m512i L[IFMA_W];
	_Alignas(64) uint64_t w[8];
	IV(to64)(L, r);
	for (int k = 0; k < IFMA_W; k++) {
		_mm512_store_si512((void *)w, L[k]);
		for (int l = 0; l < 8; l++) v[l].l[k] = w[l];
	}
}

/* Gather lane i's IFMA_W words from base + idx[i] (idx in 64-bit words), as a lane vector; scatter
 * back the lanes of `lanes`. */
static inline IFMA_FN IFMA_INLINE void IV(gather)(__m512i r[IFMA_N], const uint64_t *base, __m512i idx)
{
	__m512i L[IFMA_W];
	for (int k = 0; k < IFMA_W; k++)
		L[k] = _mm512_i64gather_epi64(_mm512_add_epi64(idx, _mm512_set1_epi64(k)), (const void *)base, 8);
	IV(from64)(r, L);
}
static inline IFMA_FN IFMA_INLINE void IV(scatter)(uint64_t *base, __m512i idx, const __m512i r[IFMA_N], __mmask8 lanes)
{
	__m512i L[IFMA_W];
	IV(to64)(L, r);
	for (int k = 0; k < IFMA_W; k++)
		_mm512_mask_i64scatter_epi64((void *)base, lanes, _mm512_add_epi64(idx, _mm512_set1_epi64(k)), L[k], 8);
}

#undef IFMA_S
#undef IV
#undef IFMA_N
#undef IFMA_W
#undef IFMA_FE
#undef IFMA_P
#undef IFMA_PINV
