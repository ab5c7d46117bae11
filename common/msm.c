/*
 * msm.c — BLS12-381's Pippenger multi-scalar multiplication for G1 and G2 (contract in msm.h): its
 * parameters for msm_curve_tmpl.h, the one implementation of every curve's MSMs (BN254's: bn254_msm.c),
 * over the inline field arithmetic of field_impl.h (MULX/ADX when the CPU has it) and, where the CPU has
 * AVX-512 IFMA, the vector batches in eight 52-bit limbs (fp_ifma_impl.h: R' = 2^416 = R·2^32).
 */
#include "msm.h"
#include "field_impl.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include "fp_ifma_impl.h"
#endif

static inline bool fp_is_zero(const zp_fp *a)
{
	return (a->l[0] | a->l[1] | a->l[2] | a->l[3] | a->l[4] | a->l[5]) == 0;
}
static inline void fp_neg(zp_fp *r, const zp_fp *a) { zp_fp_subc(r, &ZP_FP_ZERO, a); }

#define MC(x) x
#define MC_PUB(x) zp_##x
#define MC_FP_ONE ZP_FP_ONE
#define MC_FP2_ONE ZP_FP2_ONE
#define MC_FR_ONE ZP_FR_ONE
#define fp_mul zp_fp_mulc
#define fp_sqr zp_fp_sqrc
#define fp_add zp_fp_addc
#define fp_sub zp_fp_subc
#define fp_inv zp_fp_inv_vartime
#define MC_V(x) zp_v8_##x
#define MC_N 8
#define MC_W 6
#define MC_P52 ZP_Q52
#define MC_MODULUS ZP_FP_MODULUS
#define MC_PF 0
#include "msm_curve_tmpl.h"

int zp_msm_window_bits(size_t n)
{
	return msm_window(n, msm_use_ba(n, g1_ba_vec() ? MSM_BA_MIN_G1_VEC : MSM_BA_MIN_G1));
}
