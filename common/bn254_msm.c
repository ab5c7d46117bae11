/*
 * bn254_msm.c — BN254's Pippenger multi-scalar multiplication for G1 and G2 (contract in bn254_msm.h):
 * its parameters for msm_curve_tmpl.h, the one implementation of every curve's MSMs (BLS12-381's: msm.c),
 * over BN254's Fp (four words; products zp_bn254_fp_mul_fast) and Fr scalars (254 bits, read as 256 like
 * BLS12-381's) and, where the CPU has AVX-512 IFMA, the vector batches in five 52-bit limbs
 * (bn254_ifma_impl.h: R' = 2^260 = R·2^4).
 */
#include "bn254_msm.h"
#include "field_impl.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include "bn254_ifma_impl.h"
#endif

static inline void fp_add(zp_bn254_fp *r, const zp_bn254_fp *a, const zp_bn254_fp *b)
{
	zp_mod4_addc(r->l, a->l, b->l, ZP_BN254_FP_MODULUS);
}
static inline void fp_sub(zp_bn254_fp *r, const zp_bn254_fp *a, const zp_bn254_fp *b)
{
	zp_mod4_subc(r->l, a->l, b->l, ZP_BN254_FP_MODULUS);
}
static inline void fp_neg(zp_bn254_fp *r, const zp_bn254_fp *a) { fp_sub(r, &ZP_BN254_FP_ZERO, a); }
static inline bool fp_is_zero(const zp_bn254_fp *a) { return (a->l[0] | a->l[1] | a->l[2] | a->l[3]) == 0; }
static inline void fp_sqr(zp_bn254_fp *r, const zp_bn254_fp *a) { zp_bn254_fp_mul_fast(r, a, a); }

#define MC(x) bn254_##x
#define MC_PUB(x) zp_bn254_##x
#define MC_FP_ONE ZP_BN254_FP_ONE
#define MC_FP2_ONE ZP_BN254_FP2_ONE
#define MC_FR_ONE ZP_BN254_FR_ONE
#define fp_mul zp_bn254_fp_mul_fast
#define fp_inv zp_bn254_fp_inv_vartime
#define MC_V(x) bn_v5_##x
#define MC_N 5
#define MC_W 4
#define MC_P52 ZP_BN_P52
#define MC_MODULUS ZP_BN254_FP_MODULUS
#define MC_PF 4
#include "msm_curve_tmpl.h"
