/* curve_names.h — the curve-typed names the prover's per-curve templates (g16_tmpl.h, setup_tmpl.h,
 * backend_cpu_tmpl.h) are written in, for one curve at a time, in one place:
 *
 *   #define ZP_CN_BLS12_381     (or ZP_CN_BN254)
 *   #include "curve_names.h"    S(x) (the instance's suffix), FR, G1A, G1J, G2A, G2J, F(x) (the curve's calls)
 *   #include "..._tmpl.h"
 *   #include "curve_names.h"    again with neither defined: the names are undefined
 *
 * No include guard: it is meant to be included once per instantiation. A file's own template parameters
 * (KP, PAIRING, ROOT, ...) stay in that file. */
#undef S
#undef FR
#undef G1A
#undef G1J
#undef G2A
#undef G2J
#undef F
#if defined(ZP_CN_BLS12_381)
#define S(x) x##_bls
#define FR zp_fr
#define G1A zp_g1_affine
#define G1J zp_g1_jac
#define G2A zp_g2_affine
#define G2J zp_g2_jac
#define F(x) zp_##x
#elif defined(ZP_CN_BN254)
#define S(x) x##_bn
#define FR zp_bn254_fr
#define G1A zp_bn254_g1_affine
#define G1J zp_bn254_g1_jac
#define G2A zp_bn254_g2_affine
#define G2J zp_bn254_g2_jac
#define F(x) zp_bn254_##x
#endif
#undef ZP_CN_BLS12_381
#undef ZP_CN_BN254
