/*
 * fp_ifma_impl.h — internal: the eight-lane AVX-512 IFMA Fp arithmetic as inline functions on
 * registers, for the MSM's vector batch-affine path (msm.c), BN254's NTT and bench/arith/fp8.c. Include only from
 * x86-64 GCC/Clang builds; every function here must run under IFMA_FN code on a CPU where
 * zp_fp_ifma_available() said yes.
 *
 * A v8 is eight lanes of one element each, limb-sliced: r[k] holds limb k (bits 52k..52k+51) of
 * every lane. Products are Montgomery with R' = 2^416 (bench/arith/fp8.h's form); sums and differences keep
 * 64-bit signed limbs until a carry pass makes them 52-bit again.
 *
 * The product (zp_v8_mul): operand scanning, for each limb b_i of b: t += a·b_i (low and high 52-bit
 * halves of each 52×52 product into neighbouring accumulators), m = t_i·(−p^−1) mod 2^52, t += m·p,
 * carry t_i's top bits into t_{i+1}. Each 64-bit accumulator takes at most 33 additions of < 2^52, so
 * nothing overflows; one carry pass at the end makes the eight result limbs 52 bits again (the
 * instructions read only the low 52 bits of their multiplicands, so inputs must be normalized).
 */
#ifndef ZP_FP_IFMA_IMPL_H
#define ZP_FP_IFMA_IMPL_H

#include <immintrin.h>
#include <stdint.h>

#include "zp_consts.h"

#define IFMA_FN __attribute__((target("avx512f,avx512ifma")))
#define ZP_MASK52 ((1ull << 52) - 1)

/* q in 52-bit limbs, and -q^-1 mod 2^52 (fp_ifma.c's init() checks them against ZP_FP_MODULUS) */
static const uint64_t ZP_Q52[8] = ZP_C52_FP_P;
#define ZP_Q52_PINV ZP_C52_FP_INV

/* 52-bit limbs of a 384-bit integer (6 limbs of 64; the value must fit 384 bits) */
static inline void zp_to52(uint64_t out[8], const uint64_t in[6])
{
	for (int k = 0; k < 8; k++) {
		unsigned bit = 52u * (unsigned)k, w = bit / 64, s = bit % 64;
		uint64_t v = w < 6 ? in[w] >> s : 0;
		if (s > 12 && w + 1 < 6) v |= in[w + 1] << (64 - s);
		out[k] = v & ZP_MASK52;
	}
}

/* r = a·b·2^-416 mod q, lanes independent; a, b normalized (52-bit limbs) and < 2^400: r < 2q.
 * Interleaved on purpose: the same result as zp_v8_mulw + zp_v8_redc below (each m_i sees the same
 * column), but that composition made a one-thread 2^16 proof ~5 % slower (0.78 -> 0.82 s, 2026-11-30). */
static inline IFMA_FN void zp_v8_mul(__m512i r[8], const __m512i a[8], const __m512i b[8])
{
	const __m512i zero = _mm512_setzero_si512(), pinv = _mm512_set1_epi64((long long)ZP_Q52_PINV);
	__m512i t[16];
	for (int k = 0; k < 16; k++) t[k] = zero;
	/* fully unrolled, so that t[] lives in registers (a rolled loop indexes it in memory) */
#pragma GCC unroll 8
	for (int i = 0; i < 8; i++) {
#pragma GCC unroll 8
		for (int j = 0; j < 8; j++) {
			t[i + j] = _mm512_madd52lo_epu64(t[i + j], a[j], b[i]);
			t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a[j], b[i]);
		}
		__m512i m = _mm512_madd52lo_epu64(zero, t[i], pinv);
#pragma GCC unroll 8
		for (int j = 0; j < 8; j++) {
			__m512i qj = _mm512_set1_epi64((long long)ZP_Q52[j]);
			t[i + j] = _mm512_madd52lo_epu64(t[i + j], m, qj);
			t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], m, qj);
		}
		t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], 52));
	}
	const __m512i mask = _mm512_set1_epi64((long long)ZP_MASK52);
	__m512i carry = zero;
	for (int k = 0; k < 8; k++) {
		__m512i v = _mm512_add_epi64(t[8 + k], carry);
		r[k] = _mm512_and_si512(v, mask);
		carry = _mm512_srli_epi64(v, 52);
	}
}

/* The two halves of zp_v8_mul, for sums of products with one reduction (lazy reduction).
 * zp_v8_mulw: t += a·b into sixteen 64-bit accumulators (limb k: weight 2^52k), not carried; a, b
 * normalized. Each product adds < 2^56 to an accumulator. */
static inline IFMA_FN void zp_v8_mulw(__m512i t[16], const __m512i a[8], const __m512i b[8])
{
#pragma GCC unroll 8
	for (int i = 0; i < 8; i++)
#pragma GCC unroll 8
		for (int j = 0; j < 8; j++) {
			t[i + j] = _mm512_madd52lo_epu64(t[i + j], a[j], b[i]);
			t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a[j], b[i]);
		}
}
/* zp_v8_redc: r = T·2^-416 mod q, normalized, for accumulators t (signed, |t[k]| < 2^59) of a
 * value 0 <= T < 2^416·q·k: r < (k + 1)·q. t is clobbered. */
static inline IFMA_FN void zp_v8_redc(__m512i r[8], __m512i t[16])
{
	const __m512i zero = _mm512_setzero_si512(), pinv = _mm512_set1_epi64((long long)ZP_Q52_PINV);
#pragma GCC unroll 8
	for (int i = 0; i < 8; i++) {
		__m512i m = _mm512_madd52lo_epu64(zero, t[i], pinv);
#pragma GCC unroll 8
		for (int j = 0; j < 8; j++) {
			__m512i qj = _mm512_set1_epi64((long long)ZP_Q52[j]);
			t[i + j] = _mm512_madd52lo_epu64(t[i + j], m, qj);
			t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], m, qj);
		}
		t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srai_epi64(t[i], 52));
	}
	const __m512i mask = _mm512_set1_epi64((long long)ZP_MASK52);
	__m512i carry = zero;
	for (int k = 0; k < 8; k++) {
		__m512i v = _mm512_add_epi64(t[8 + k], carry);
		r[k] = _mm512_and_si512(v, mask);
		carry = _mm512_srai_epi64(v, 52);
	}
}

/* Signed 64-bit limbs -> 52-bit limbs (the value must be >= 0 and < 2^416). */
static inline IFMA_FN void zp_v8_carry(__m512i r[8])
{
	const __m512i mask = _mm512_set1_epi64((long long)ZP_MASK52);
	for (int k = 0; k < 7; k++) {
		__m512i c = _mm512_srai_epi64(r[k], 52);
		r[k] = _mm512_and_si512(r[k], mask);
		r[k + 1] = _mm512_add_epi64(r[k + 1], c);
	}
}

/* r = a - b + m·q (m = 2 or 4: keeps it positive for a >= 0, b < m·q), normalized, not reduced. */
static inline IFMA_FN void zp_v8_sub(__m512i r[8], const __m512i a[8], const __m512i b[8], int m)
{
	for (int k = 0; k < 8; k++)
		r[k] = _mm512_add_epi64(_mm512_sub_epi64(a[k], b[k]), _mm512_set1_epi64((long long)(ZP_Q52[k] * (uint64_t)m)));
	zp_v8_carry(r);
}

/* r = r - m·q where that is >= 0 (lane by lane), else r; r normalized and < 2^416. */
static inline IFMA_FN void zp_v8_csub(__m512i r[8], int m)
{
	__m512i d[8];
	for (int k = 0; k < 8; k++) d[k] = _mm512_sub_epi64(r[k], _mm512_set1_epi64((long long)(ZP_Q52[k] * (uint64_t)m)));
	zp_v8_carry(d);
	__mmask8 keep = _mm512_cmplt_epi64_mask(d[7], _mm512_setzero_si512());   /* negative: r < m·q */
	for (int k = 0; k < 8; k++) r[k] = _mm512_mask_blend_epi64(keep, d[k], r[k]);
}

/* Normalized r < 8q -> r mod q. */
static inline IFMA_FN void zp_v8_canon(__m512i r[8])
{
	zp_v8_csub(r, 4);
	zp_v8_csub(r, 2);
	zp_v8_csub(r, 1);
}
/* Normalized r < 4q -> r mod q (one conditional subtraction fewer). */
static inline IFMA_FN void zp_v8_canon4(__m512i r[8])
{
	zp_v8_csub(r, 2);
	zp_v8_csub(r, 1);
}

/* r = a·2^32 as eight 52-bit limbs, no reduction (a normalized and < 2^384, so r < 2^416). In a
 * product, the factor 2^32 stands for R'/R: a·2^32 has the scale of a·K2 (one product) at the cost
 * of a few shifts; zp_v8_mul(x, y, r) stays < 2q while x·r < 2^416·q (e.g. x, a < 2q). */
static inline IFMA_FN void zp_v8_shl32(__m512i r[8], const __m512i a[8])
{
	const __m512i mask = _mm512_set1_epi64((long long)ZP_MASK52);
	for (int k = 7; k > 0; k--)
		r[k] = _mm512_or_si512(_mm512_and_si512(_mm512_slli_epi64(a[k], 32), mask), _mm512_srli_epi64(a[k - 1], 20));
	r[0] = _mm512_and_si512(_mm512_slli_epi64(a[0], 32), mask);
}

/* Six 64-bit limb vectors (an element's raw limbs, lane-sliced) <-> eight 52-bit ones; < 2^384. */
static inline IFMA_FN void zp_v8_from64(__m512i r[8], const __m512i L[6])
{
	const __m512i mask = _mm512_set1_epi64((long long)ZP_MASK52);
	r[0] = _mm512_and_si512(L[0], mask);
	r[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(L[0], 52), _mm512_slli_epi64(L[1], 12)), mask);
	r[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(L[1], 40), _mm512_slli_epi64(L[2], 24)), mask);
	r[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(L[2], 28), _mm512_slli_epi64(L[3], 36)), mask);
	r[4] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(L[3], 16), _mm512_slli_epi64(L[4], 48)), mask);
	r[5] = _mm512_and_si512(_mm512_srli_epi64(L[4], 4), mask);
	r[6] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(L[4], 56), _mm512_slli_epi64(L[5], 8)), mask);
	r[7] = _mm512_srli_epi64(L[5], 44);
}
static inline IFMA_FN void zp_v8_to64(__m512i L[6], const __m512i r[8])
{
	L[0] = _mm512_or_si512(r[0], _mm512_slli_epi64(r[1], 52));
	L[1] = _mm512_or_si512(_mm512_srli_epi64(r[1], 12), _mm512_slli_epi64(r[2], 40));
	L[2] = _mm512_or_si512(_mm512_srli_epi64(r[2], 24), _mm512_slli_epi64(r[3], 28));
	L[3] = _mm512_or_si512(_mm512_srli_epi64(r[3], 36), _mm512_slli_epi64(r[4], 16));
	L[4] = _mm512_or_si512(_mm512_or_si512(_mm512_srli_epi64(r[4], 48), _mm512_slli_epi64(r[5], 4)),
	                       _mm512_slli_epi64(r[6], 56));
	L[5] = _mm512_or_si512(_mm512_srli_epi64(r[6], 8), _mm512_slli_epi64(r[7], 44));
}

/* Gather lane i's six limbs from base + idx[i] (idx in 64-bit words), as a v8; scatter back. */
static inline IFMA_FN void zp_v8_gather(__m512i r[8], const uint64_t *base, __m512i idx)
{
	__m512i L[6];
	for (int k = 0; k < 6; k++)
		L[k] = _mm512_i64gather_epi64(_mm512_add_epi64(idx, _mm512_set1_epi64(k)), (const void *)base, 8);
	zp_v8_from64(r, L);
}
static inline IFMA_FN void zp_v8_scatter(uint64_t *base, __m512i idx, const __m512i r[8], __mmask8 lanes)
{
	__m512i L[6];
	zp_v8_to64(L, r);
	for (int k = 0; k < 6; k++)
		_mm512_mask_i64scatter_epi64((void *)base, lanes, _mm512_add_epi64(idx, _mm512_set1_epi64(k)), L[k], 8);
}

#endif
