/*
 * ntt.h — number-theoretic transforms over Fr (BLS12-381 scalar field) and the two Groth16 H steps.
 *
 * Conventions (the CUDA NTT in cuda/ follows the same ones, bit for bit):
 *
 *   Elements are zp_fr: Montgomery form, fully reduced (see field.h). Sizes n = 2^log_n, 0 <= log_n <= 27
 *   (2^27 elements = 4 GiB per vector). Every transform is in place, natural order in and out.
 *
 *   Roots. ω_n is a primitive n-th root of unity fixed by the domain's root family:
 *     ZP_NTT_ROOT5 (default; snarkjs/ffjavascript): ω_{2^32} = 5^t, t = (r-1)/2^32, and ω_{2^k} = ω_{2^(k+1)}^2.
 *        ω_{2^32} = 0x0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f
 *        ω_{2^16} = 0x6709c6cd56aa725b0409ee987a02402c0caba63a29c01b06137b458acfc35f7a
 *        ω_{2^12} = 0x110cebd0c8e9101be155cb4893f9e9ac565af17137d56fc0450d9f977ea8ee05, ω_2 = r - 1.
 *        (ffjavascript 0.3.1: Fr.w[k] and the root its wasm Fr.fft uses; checked by tests/ntt.)
 *     ZP_NTT_ROOT7 (bellperson/blstrs, Filecoin params): ω_{2^32} = 7^t =
 *        0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b, same squaring chain.
 *     Both enumerate the same set of points in different orders; the root family must match the one the
 *     proving key was made with (snarkjs .zkey: ROOT5; bellperson .params: ROOT7).
 *
 *   forward:        a[i] <- Σ_j a[j]·ω_n^(i·j)                 (evaluations at ω_n^i of Σ a_j x^j)
 *   inverse:        a[j] <- n^-1 · Σ_i a[i]·ω_n^(-i·j)          (interpolation; inverse of forward)
 *   coset forward:  a[i] <- Σ_j a[j]·(s·ω_n^i)^j                 (= scale a_j by s^j, then forward)
 *   coset inverse:  inverse, then scale a_j by s^-j              (inverse of coset forward)
 *   Coset shifts in use: s = 7 (bellperson: the field's multiplicative generator, ZP_NTT_SHIFT_GEN; it is
 *   used with both root families) and s = ω_{2n} (snarkjs: the odd 2n-th roots; the domain holds it
 *   as dom->omega_2n). Any nonzero s works.
 *
 *   Groth16 H (a, b, c: the n evaluations A·w, B·w, C·w on the domain, row i at ω_n^i):
 *     snarkjs:    each of a, b, c: inverse, coset forward with ω_{2n}  -> values at ω_{2n}^(2i+1);
 *                 then a[i] <- a[i]·b[i] - c[i]. No division by Z (the .zkey H points absorb it).
 *     bellperson: each of a, b, c: inverse, coset forward with g = 7; a[i] <- (a[i]·b[i] - c[i])·Z(g)^-1
 *                 with Z(g) = g^n - 1 (Z(x) = x^n - 1 is constant on the coset); coset inverse with g
 *                 -> a holds the n coefficients of h(x) = (A(x)B(x) - C(x))/Z(x); the last one is 0
 *                 when a∘b = c on the domain, and bellperson's MSM uses the first n - 1.
 *
 * Memory: a zp_ntt_domain owns its twiddle tables and per-thread column buffers, allocated once by
 * zp_ntt_domain_init; zp_ntt_domain_bytes() says how much: 32 B × (4R + 2C + 4R·slots) with R, C below
 * (≈ 4 MiB for 2^27 with 2 slots, ≈ 1.8 MiB for 2^24, ≈ 128 KiB for 2^12). Transforms allocate nothing
 * and touch only the caller's vectors and the domain's memory; dom->mem_bytes is the exact size.
 *
 * Threads: transforms run on zp_par_for (ZP_THREADS). A domain's buffers serve one transform at a time:
 * callers that run transforms concurrently give each its own domain (they are cheap). Transforms are
 * data-independent in timing (no branches on element values).
 *
 * Algorithm (why it stays cache-friendly up to 2^27): n = R·C with R = 2^floor(log_n/2) rows and
 * C = 2^ceil(log_n/2) columns of the row-major vector (sizes <= 2^12 use R = 1). (1) R-point DIF
 * transforms down the columns, W columns at a time gathered into a per-thread buffer; (2) each row r is
 * multiplied by ω_n^(rev(r)·j) and transformed in place by a C-point DIF; (3) one blocked in-place
 * bit-reversal permutation. The data are read and written three times, each sub-transform fits in L2.
 * Butterflies eight at a time with AVX-512 IFMA when the CPU has it, else MULX/ADX when it has them,
 * else portable C (checked at load; the same bytes on every path). One implementation for both curves'
 * Fr: ntt_tmpl.h, instantiated by ntt.c and bn254_ntt.c (bn254_ntt.h).
 */
#ifndef ZP_NTT_H
#define ZP_NTT_H

#include <stddef.h>
#include <stdint.h>

#include "field.h"

#define ZP_NTT_MAX_LOG 27

/* ω_{2^32} as normal-form little-endian limbs (derivations above; python: pow(g, (r-1)>>32, r)). */
#define ZP_NTT_OMEGA32_ROOT5 { 0x1b788f500b912f1fULL, 0xc4024ff270b3e094ULL, 0x0fd56dc8d168d6c0ULL, 0x0212d79e5b416b6fULL }
#define ZP_NTT_OMEGA32_ROOT7 { 0x3829971f439f0d2bULL, 0xb63683508c2280b9ULL, 0xd09b681922c813b4ULL, 0x16a2a19edfe81f20ULL }
#define ZP_NTT_SHIFT_GEN 7  /* bellperson's coset generator (Fr's multiplicative generator) */

enum zp_ntt_roots { ZP_NTT_ROOT5 = 5, ZP_NTT_ROOT7 = 7 };

/* A domain's private part (ntt_tmpl.h), for each curve's Fr: per-level DIF twiddles of the R- and C-point
 * transforms ([0] forward, [1] inverse), ω_n^(±k) for k < R, nslots column buffers of slot_elems each. */
#define ZP_NTT_DOMAIN_PRIVATE(FR)                                                                  \
	unsigned log_rows, log_cols;                                                               \
	FR *tw_rows[2], *tw_cols[2];                                                               \
	FR *row_step[2];                                                                           \
	FR *slots;                                                                                 \
	unsigned nslots;                                                                           \
	size_t slot_elems;                                                                         \
	void *mem;                                                                                 \
	size_t mem_bytes;

typedef struct zp_ntt_domain {
	/* Public, read-only after init. All zp_fr in Montgomery form. */
	unsigned log_n;
	size_t n;
	enum zp_ntt_roots roots;
	zp_fr omega;       /* ω_n */
	zp_fr omega_inv;   /* ω_n^-1 */
	zp_fr n_inv;       /* n^-1 */
	zp_fr omega_2n;    /* ω_{2n}: snarkjs's coset shift */
	zp_fr gen;         /* 7: bellperson's coset shift */
	zp_fr gen_inv;     /* 7^-1 */

	ZP_NTT_DOMAIN_PRIVATE(zp_fr)
} zp_ntt_domain;

/* Bytes zp_ntt_domain_init allocates for log_n with nslots thread slots (0 = zp_par_threads()). */
size_t zp_ntt_domain_bytes(unsigned log_n, unsigned nslots);

/* ROOT5 domain of size 2^log_n, one column buffer per zp_par_threads() (at most 64).
 * ZP_ERANGE if log_n > ZP_NTT_MAX_LOG, -ENOMEM. On failure *d is left freeable (zeroed). */
int zp_ntt_domain_init(zp_ntt_domain *d, unsigned log_n);
/* Same with the root family and slot count chosen (nslots 0 = zp_par_threads(); at most 64 are used). */
int zp_ntt_domain_init_ex(zp_ntt_domain *d, unsigned log_n, enum zp_ntt_roots roots, unsigned nslots);
void zp_ntt_domain_free(zp_ntt_domain *d);

/* ω_{2^k} of a root family, 0 <= k <= 32 (Montgomery form). ZP_ERANGE otherwise. */
int zp_ntt_root(zp_fr *w, unsigned k, enum zp_ntt_roots roots);

/* Transforms on a[0..n). They return 0 (or ZP_ERANGE for a zero shift / uninitialized domain). */
int zp_ntt_forward(zp_ntt_domain *d, zp_fr *a);
int zp_ntt_inverse(zp_ntt_domain *d, zp_fr *a);
int zp_ntt_coset_forward(zp_ntt_domain *d, zp_fr *a, const zp_fr *shift);
int zp_ntt_coset_inverse(zp_ntt_domain *d, zp_fr *a, const zp_fr *shift);
/* Presets: shift = 7 (bellperson) and shift = ω_{2n} (snarkjs's odd roots). */
int zp_ntt_coset_forward_gen(zp_ntt_domain *d, zp_fr *a);
int zp_ntt_coset_inverse_gen(zp_ntt_domain *d, zp_fr *a);
int zp_ntt_coset_forward_odd(zp_ntt_domain *d, zp_fr *a);
int zp_ntt_coset_inverse_odd(zp_ntt_domain *d, zp_fr *a);

/* Groth16 H, snarkjs convention (see above). In: a, b, c evaluations on the domain (n each).
 * Out: a[i] = d_i = a'(ω_{2n}^(2i+1))·b'(…) - c'(…), the H-MSM scalars; b and c are clobbered. */
int zp_ntt_h_snarkjs(zp_ntt_domain *d, zp_fr *a, zp_fr *b, zp_fr *c);

/* Groth16 H, bellperson convention (see above). In: a, b, c evaluations on the domain (n each).
 * Out: a = the n coefficients of h(x) = (A(x)B(x) - C(x))/(x^n - 1); b and c are clobbered.
 * ZP_ERANGE if 7^n = 1 (impossible for n <= 2^27; checked anyway). */
int zp_ntt_h_bellperson(zp_ntt_domain *d, zp_fr *a, zp_fr *b, zp_fr *c);

#endif
