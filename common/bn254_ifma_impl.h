/*
 * bn254_ifma_impl.h — internal to msm.c: BN254's Fp eight lanes at a time with AVX-512 IFMA, the
 * five-limb counterpart of fp_ifma_impl.h (BLS12-381's eight limbs), for BN254's vector batch-affine
 * MSM. Include only from x86-64 GCC/Clang builds after fp_ifma_impl.h; every function here must run
 * under IFMA_FN code on a CPU where zp_fp_ifma_available() said yes.
 *
 * A lane vector is __m512i[5], limb-sliced: r[k] holds bits 52k..52k+51 of each lane's value (260
 * bits). Products are Montgomery with R' = 2^260 (the scalar code's R is 2^256: R'/R = 2^4, so an
 * IFMA product of standard-form values x·R and y·R is xy·R·2^-4 — msm.c's "scale" bookkeeping, as for
 * BLS12-381 with 2^32). p < 2^254, so 4p < 2^260: a product of a < 2^260 and b with a·b < p·2^260
 * (e.g. a < 32p, b < 2p) is < 2p.
 */
#ifndef ZP_BN254_IFMA_IMPL_H
#define ZP_BN254_IFMA_IMPL_H

#include <immintrin.h>
#include <stdint.h>

#include "zp_consts.h"

/* p in 52-bit limbs and -p^-1 mod 2^52 (msm.c's init checks them against ZP_BN254_FP_MODULUS) */
static const uint64_t ZP_BN_P52[5] = ZP_C52_BN_FP_P;
#define ZP_BN_P52_INV ZP_C52_BN_FP_INV

/* r = a·b·2^-260 mod M per lane (M: five 52-bit limbs, minv = -M^-1 mod 2^52; bn_v5_mul: M = p); a, b
 * normalized (52-bit limbs), a·b < M·2^260: r < 2M. Operand scanning, the reduction interleaved (as
 * zp_v8_mul); fully unrolled so that t[] stays in registers. */
static inline __attribute__((always_inline)) IFMA_FN void bn_v5_mul_m(__m512i r[5], const __m512i a[5], const __m512i b[5],
                                                                      const uint64_t M[5], uint64_t minv)
{
	const __m512i zero = _mm512_setzero_si512(), pinv = _mm512_set1_epi64((long long)minv);
	__m512i t[10];
	for (int k = 0; k < 10; k++) t[k] = zero;
#pragma GCC unroll 5
	for (int i = 0; i < 5; i++) {
#pragma GCC unroll 5
		for (int j = 0; j < 5; j++) {
			t[i + j] = _mm512_madd52lo_epu64(t[i + j], a[j], b[i]);
			t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a[j], b[i]);
		}
		__m512i m = _mm512_madd52lo_epu64(zero, t[i], pinv);
#pragma GCC unroll 5
		for (int j = 0; j < 5; j++) {
			__m512i qj = _mm512_set1_epi64((long long)M[j]);
			t[i + j] = _mm512_madd52lo_epu64(t[i + j], m, qj);
			t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], m, qj);
		}
		t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], 52));
	}
	const __m512i mask = _mm512_set1_epi64((long long)ZP_MASK52);
	__m512i carry = zero;
	for (int k = 0; k < 5; k++) {
		__m512i v = _mm512_add_epi64(t[5 + k], carry);
		r[k] = _mm512_and_si512(v, mask);
		carry = _mm512_srli_epi64(v, 52);
	}
}
static inline IFMA_FN void bn_v5_mul(__m512i r[5], const __m512i a[5], const __m512i b[5])
{
	bn_v5_mul_m(r, a, b, ZP_BN_P52, ZP_BN_P52_INV);
}

/* t += a·b into ten 64-bit accumulators (limb k: weight 2^52k), not carried; a, b normalized. */
static inline IFMA_FN void bn_v5_mulw(__m512i t[10], const __m512i a[5], const __m512i b[5])
{
#pragma GCC unroll 5
	for (int i = 0; i < 5; i++)
#pragma GCC unroll 5
		for (int j = 0; j < 5; j++) {
			t[i + j] = _mm512_madd52lo_epu64(t[i + j], a[j], b[i]);
			t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a[j], b[i]);
		}
}
/* r = T·2^-260 mod p, normalized, for signed accumulators t (|t[k]| < 2^59) of a value
 * 0 <= T < 2^260·p·k: r < (k + 1)·p. t is clobbered. */
static inline IFMA_FN void bn_v5_redc(__m512i r[5], __m512i t[10])
{
	const __m512i zero = _mm512_setzero_si512(), pinv = _mm512_set1_epi64((long long)ZP_BN_P52_INV);
#pragma GCC unroll 5
	for (int i = 0; i < 5; i++) {
		__m512i m = _mm512_madd52lo_epu64(zero, t[i], pinv);
#pragma GCC unroll 5
		for (int j = 0; j < 5; j++) {
			__m512i qj = _mm512_set1_epi64((long long)ZP_BN_P52[j]);
			t[i + j] = _mm512_madd52lo_epu64(t[i + j], m, qj);
			t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], m, qj);
		}
		t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srai_epi64(t[i], 52));
	}
	const __m512i mask = _mm512_set1_epi64((long long)ZP_MASK52);
	__m512i carry = zero;
	for (int k = 0; k < 5; k++) {
		__m512i v = _mm512_add_epi64(t[5 + k], carry);
		r[k] = _mm512_and_si512(v, mask);
		carry = _mm512_srai_epi64(v, 52);
	}
}

/* Signed 64-bit limbs -> 52-bit limbs (the value must be >= 0 and < 2^260). */
static inline IFMA_FN void bn_v5_carry(__m512i r[5])
{
	const __m512i mask = _mm512_set1_epi64((long long)ZP_MASK52);
	for (int k = 0; k < 4; k++) {
		__m512i c = _mm512_srai_epi64(r[k], 52);
		r[k] = _mm512_and_si512(r[k], mask);
		r[k + 1] = _mm512_add_epi64(r[k + 1], c);
	}
}

/* r = a − b + m·p (b < m·p, a >= 0, the sum < 2^260), normalized, not reduced. */
static inline IFMA_FN void bn_v5_sub(__m512i r[5], const __m512i a[5], const __m512i b[5], int m)
{
	for (int k = 0; k < 5; k++)
		r[k] = _mm512_add_epi64(_mm512_sub_epi64(a[k], b[k]), _mm512_set1_epi64((long long)(ZP_BN_P52[k] * (uint64_t)m)));
	bn_v5_carry(r);
}
/* r = a + b, normalized, not reduced */
static inline IFMA_FN void bn_v5_add(__m512i r[5], const __m512i a[5], const __m512i b[5])
{
	for (int k = 0; k < 5; k++) r[k] = _mm512_add_epi64(a[k], b[k]);
	bn_v5_carry(r);
}

/* r = r − m·M where that is >= 0 (lane by lane), else r; r normalized and < 2^260 (bn_v5_csub: M = p). */
static inline __attribute__((always_inline)) IFMA_FN void bn_v5_csub_m(__m512i r[5], int m, const uint64_t M[5])
{
	__m512i d[5];
	for (int k = 0; k < 5; k++) d[k] = _mm512_sub_epi64(r[k], _mm512_set1_epi64((long long)(M[k] * (uint64_t)m)));
	bn_v5_carry(d);
	__mmask8 keep = _mm512_cmplt_epi64_mask(d[4], _mm512_setzero_si512());   /* negative: r < m·p */
	for (int k = 0; k < 5; k++) r[k] = _mm512_mask_blend_epi64(keep, d[k], r[k]);
}
static inline IFMA_FN void bn_v5_csub(__m512i r[5], int m) { bn_v5_csub_m(r, m, ZP_BN_P52); }
/* normalized r < 8p (< 4p) -> r mod p */
static inline IFMA_FN void bn_v5_canon(__m512i r[5])
{
	bn_v5_csub(r, 4);
	bn_v5_csub(r, 2);
	bn_v5_csub(r, 1);
}
static inline IFMA_FN void bn_v5_canon4(__m512i r[5])
{
	bn_v5_csub(r, 2);
	bn_v5_csub(r, 1);
}

/* r = a·2^4, no reduction (a normalized and < 2^256, so r < 2^260): R'/R in a product, by shifts */
static inline IFMA_FN void bn_v5_shl4(__m512i r[5], const __m512i a[5])
{
	const __m512i mask = _mm512_set1_epi64((long long)ZP_MASK52);
	for (int k = 4; k > 0; k--)
		r[k] = _mm512_or_si512(_mm512_and_si512(_mm512_slli_epi64(a[k], 4), mask), _mm512_srli_epi64(a[k - 1], 48));
	r[0] = _mm512_and_si512(_mm512_slli_epi64(a[0], 4), mask);
}

/* four 64-bit limb vectors (lane-sliced) <-> five 52-bit ones; values < 2^256 */
static inline IFMA_FN void bn_v5_from64(__m512i r[5], const __m512i L[4])
{
	const __m512i mask = _mm512_set1_epi64((long long)ZP_MASK52);
	r[0] = _mm512_and_si512(L[0], mask);
	r[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(L[0], 52), _mm512_slli_epi64(L[1], 12)), mask);
	r[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(L[1], 40), _mm512_slli_epi64(L[2], 24)), mask);
	r[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(L[2], 28), _mm512_slli_epi64(L[3], 36)), mask);
	r[4] = _mm512_srli_epi64(L[3], 16);
}
static inline IFMA_FN void bn_v5_to64(__m512i L[4], const __m512i r[5])
{
	L[0] = _mm512_or_si512(r[0], _mm512_slli_epi64(r[1], 52));
	L[1] = _mm512_or_si512(_mm512_srli_epi64(r[1], 12), _mm512_slli_epi64(r[2], 40));
	L[2] = _mm512_or_si512(_mm512_srli_epi64(r[2], 24), _mm512_slli_epi64(r[3], 28));
	L[3] = _mm512_or_si512(_mm512_srli_epi64(r[3], 36), _mm512_slli_epi64(r[4], 16));
}

/* lane i's four limbs from base + idx[i] (idx in 64-bit words) as a lane vector; scatter back */
static inline IFMA_FN void bn_v5_gather(__m512i r[5], const uint64_t *base, __m512i idx)
{
	__m512i L[4];
	for (int k = 0; k < 4; k++)
		L[k] = _mm512_i64gather_epi64(_mm512_add_epi64(idx, _mm512_set1_epi64(k)), (const void *)base, 8);
	bn_v5_from64(r, L);
}
static inline IFMA_FN void bn_v5_scatter(uint64_t *base, __m512i idx, const __m512i r[5], __mmask8 lanes)
{
	__m512i L[4];
	bn_v5_to64(L, r);
	for (int k = 0; k < 4; k++)
		_mm512_mask_i64scatter_epi64((void *)base, lanes, _mm512_add_epi64(idx, _mm512_set1_epi64(k)), L[k], 8);
}

#endif
