/*
 * glv.h — the GLV cut of a BLS12-381 scalar, for the G1 MSM (cuda/msm.cu) and its host test.
 *
 * λ = z² − 1 = 0xac45a4010001a40200000000ffffffff (z = −0xd201000000010000) is a cube root of unity
 * mod r (λ² + λ + 1 = z⁴ − z² + 1 = r), and on G1 [λ]P = φ(P) = (β·x, y) with the cube root of unity
 * β = 0x1a0111ea…00000000aaac of Fp (checked against the generator: tests/cuda/glv_test.c). Since
 * r = λ² + λ + 1, a scalar k < r cuts as k = k1 + k2·λ with k2 = ⌊k/λ⌋ ≤ λ + 1 and k1 = k mod λ < λ:
 * both halves < 2^128, no lattice reduction needed. Σ k_i·P_i = Σ k1_i·P_i + k2_i·φ(P_i): an MSM of
 * 2n entries of 128-bit scalars over the n bases themselves (φ costs one Fp product when a base is
 * loaded), the same bucket work as the split MSM in 2 parts without its n more resident bases.
 *
 * The division: q̂ = ⌊⌊k/2^128⌋·μ/2^128⌋ with μ = ⌊2^256/λ⌋ (129 bits) is at most 3 below ⌊k/λ⌋
 * (k/λ − q̂ < 2^128/λ + ⌊k/2^128⌋/2^128 + 1 < 3); up to three subtractions of λ finish it.
 * Plain C (uint64_t) so that the host test runs the same code as the device.
 */
#ifndef ZP_GLV_H
#define ZP_GLV_H

#include <stdint.h>

#ifdef __CUDACC__
#define ZP_GLV_FN __host__ __device__ __forceinline__
#else
#define ZP_GLV_FN static inline
#endif

#define ZP_GLV_LAMBDA0 0x00000000ffffffffULL
#define ZP_GLV_LAMBDA1 0xac45a4010001a402ULL
/* μ = ⌊2^256/λ⌋ = 0x1_7c6becf1e01faadd_63f6e522f6cfee30 */
#define ZP_GLV_MU0 0x63f6e522f6cfee30ULL
#define ZP_GLV_MU1 0x7c6becf1e01faaddULL
/* β in Montgomery form (R = 2^384), 32-bit limbs, least significant first */
#define ZP_GLV_BETA_MONT { 0x8671f071u, 0xcd03c9e4u, 0x1fcda5d2u, 0x5dab2246u, 0xd3851b95u, 0x587042afu, \
			   0x01bacb9eu, 0x8eb60ebeu, 0x83d050d2u, 0x03f97d6eu, 0x54638741u, 0x18f02065u }

/* a·b = hi·2^64 + lo */
ZP_GLV_FN uint64_t zp_glv_mul64(uint64_t a, uint64_t b, uint64_t *hi)
{
#ifdef __CUDA_ARCH__
	*hi = __umul64hi(a, b);
	return a * b;
#else
	unsigned __int128 t = (unsigned __int128)a * b;
	*hi = (uint64_t)(t >> 64);
	return (uint64_t)t;
#endif
}

/* acc[0..n) += v at limb 0, carries up */
ZP_GLV_FN void zp_glv_add_at(uint64_t *acc, int i, int n, uint64_t v)
{
	for (; i < n && v; i++) {
		uint64_t s = acc[i] + v;
		v = s < v;
		acc[i] = s;
	}
}

/* k (4 little-endian 64-bit limbs, k < r) → k1 = k mod λ, k2 = ⌊k/λ⌋ (2 limbs each) */
ZP_GLV_FN void zp_glv_split(const uint64_t k[4], uint64_t k1[2], uint64_t k2[2])
{
	const uint64_t L0 = ZP_GLV_LAMBDA0, L1 = ZP_GLV_LAMBDA1, M0 = ZP_GLV_MU0, M1 = ZP_GLV_MU1;
	uint64_t h0 = k[2], h1 = k[3], t[5] = { 0, 0, 0, 0, 0 }, hi, lo;
	/* t = (h1:h0)·(1:M1:M0), 5 limbs; q̂ = t >> 128 */
	lo = zp_glv_mul64(h0, M0, &hi); zp_glv_add_at(t, 0, 5, lo); zp_glv_add_at(t, 1, 5, hi);
	lo = zp_glv_mul64(h0, M1, &hi); zp_glv_add_at(t, 1, 5, lo); zp_glv_add_at(t, 2, 5, hi);
	zp_glv_add_at(t, 2, 5, h0);
	lo = zp_glv_mul64(h1, M0, &hi); zp_glv_add_at(t, 1, 5, lo); zp_glv_add_at(t, 2, 5, hi);
	lo = zp_glv_mul64(h1, M1, &hi); zp_glv_add_at(t, 2, 5, lo); zp_glv_add_at(t, 3, 5, hi);
	zp_glv_add_at(t, 3, 5, h1);
	uint64_t q0 = t[2], q1 = t[3];
	/* r = k − q̂·λ (q̂·λ ≤ k, so the difference fits; it is < 4λ: 3 limbs) */
	uint64_t p[4] = { 0, 0, 0, 0 };
	lo = zp_glv_mul64(q0, L0, &hi); zp_glv_add_at(p, 0, 4, lo); zp_glv_add_at(p, 1, 4, hi);
	lo = zp_glv_mul64(q0, L1, &hi); zp_glv_add_at(p, 1, 4, lo); zp_glv_add_at(p, 2, 4, hi);
	lo = zp_glv_mul64(q1, L0, &hi); zp_glv_add_at(p, 1, 4, lo); zp_glv_add_at(p, 2, 4, hi);
	lo = zp_glv_mul64(q1, L1, &hi); zp_glv_add_at(p, 2, 4, lo); zp_glv_add_at(p, 3, 4, hi);
	uint64_t r[3], b = 0;
	for (int i = 0; i < 3; i++) {
		uint64_t d = k[i] - p[i], b2 = k[i] < p[i] || (d < b);
		r[i] = d - b;
		b = b2;
	}
	for (int it = 0; it < 3; it++) {
		/* r >= λ ? */
		int ge = r[2] != 0 || r[1] > L1 || (r[1] == L1 && r[0] >= L0);
		if (!ge)
			break;
		uint64_t d0 = r[0] - L0, c0 = r[0] < L0;
		uint64_t d1 = r[1] - L1, c1 = r[1] < L1 || d1 < c0;
		r[0] = d0;
		r[1] = d1 - c0;
		r[2] -= c1;
		q0 += 1;
		q1 += q0 == 0;
	}
	k1[0] = r[0];
	k1[1] = r[1];
	k2[0] = q0;
	k2[1] = q1;
}

#endif
