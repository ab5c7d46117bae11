/*
 * ref.h — a small, independent CPU reference for the GPU tests: Fp/Fr Montgomery arithmetic on
 * 64-bit limbs (unsigned __int128), Fp2, Jacobian G1/G2 and a textbook radix-2 NTT. Written
 * separately from cuda/ (different limb size, algorithms and formulas) so that agreement means
 * something; same in-memory encodings as common/field.h.
 */
#ifndef ZP_CUDA_REF_H
#define ZP_CUDA_REF_H
#include <stdbool.h>
#include <stdint.h>
#include "field.h"

typedef struct { zp_fp c0, c1; } ref_fp2;
typedef struct { zp_fp x, y, z; } ref_g1;          /* Jacobian, z = 0 infinity */
typedef struct { ref_fp2 x, y, z; } ref_g2;
typedef struct { zp_fp x, y; } ref_g1a;            /* affine, all-zero infinity */
typedef struct { ref_fp2 x, y; } ref_g2a;

extern zp_fp REF_FP_ONE;
extern zp_fr REF_FR_ONE;
void ref_init(void);

void ref_fp_add(zp_fp *r, const zp_fp *a, const zp_fp *b);
void ref_fp_sub(zp_fp *r, const zp_fp *a, const zp_fp *b);
void ref_fp_mul(zp_fp *r, const zp_fp *a, const zp_fp *b);
void ref_fp_inv(zp_fp *r, const zp_fp *a);
bool ref_fp_eq(const zp_fp *a, const zp_fp *b);
void ref_fr_add(zp_fr *r, const zp_fr *a, const zp_fr *b);
void ref_fr_sub(zp_fr *r, const zp_fr *a, const zp_fr *b);
void ref_fr_mul(zp_fr *r, const zp_fr *a, const zp_fr *b);
void ref_fr_inv(zp_fr *r, const zp_fr *a);
void ref_fr_pow(zp_fr *r, const zp_fr *a, uint64_t e);
void ref_fr_from_mont(zp_fr *r, const zp_fr *a);    /* plain integer limbs */
void ref_fr_from_u64(zp_fr *r, uint64_t v);
void ref_fp2_mul(ref_fp2 *r, const ref_fp2 *a, const ref_fp2 *b);
void ref_fp2_sqr(ref_fp2 *r, const ref_fp2 *a);

void ref_fp_random(zp_fp *r, uint64_t s[4]);
void ref_fr_random(zp_fr *r, uint64_t s[4]);
uint64_t ref_rng(uint64_t s[4]);

void ref_g1_gen(ref_g1 *r);
void ref_g1_add(ref_g1 *r, const ref_g1 *a, const ref_g1 *b);
void ref_g1_dbl(ref_g1 *r, const ref_g1 *a);
void ref_g1_mul(ref_g1 *r, const ref_g1 *a, const zp_fr *plain);
void ref_g1_to_affine(ref_g1a *r, const ref_g1 *a);
void ref_g1_from_affine(ref_g1 *r, const ref_g1a *a);
void ref_g2_gen(ref_g2 *r);
void ref_g2_add(ref_g2 *r, const ref_g2 *a, const ref_g2 *b);
void ref_g2_dbl(ref_g2 *r, const ref_g2 *a);
void ref_g2_mul(ref_g2 *r, const ref_g2 *a, const zp_fr *plain);
void ref_g2_to_affine(ref_g2a *r, const ref_g2 *a);
void ref_g2_from_affine(ref_g2 *r, const ref_g2a *a);
bool ref_g1_on_curve(const ref_g1a *a);
bool ref_g2_on_curve(const ref_g2a *a);

/* omega_n (generator 5), Montgomery */
void ref_fr_omega(zp_fr *r, unsigned log_n);
/* natural-order forward / inverse NTT with optional shift (same contract as zp_cuda_ntt) */
void ref_ntt(zp_fr *x, unsigned log_n, int inverse, const zp_fr *shift);
#endif
