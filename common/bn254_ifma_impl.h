/*
 * bn254_ifma_impl.h — internal to BN254's MSM (bn254_msm.c): BN254's Fp eight lanes at a time with AVX-512 IFMA,
 * the instance bn_v5_* of ifma_tmpl.h (which says how): five 52-bit limbs, Montgomery with
 * R' = 2^260 (the scalar code's R is 2^256: R'/R = 2^4, so an IFMA product of standard-form values
 * x·R and y·R is xy·R·2^-4 — the "scale" bookkeeping, as for BLS12-381 with 2^32; bn_v5_shl).
 * p < 2^254, so 4p < 2^260: a product of a < 2^260 and b with a·b < p·2^260 (e.g. a < 32p, b < 2p)
 * is < 2p. Include only from x86-64 GCC/Clang builds.
 */
#ifndef ZP_BN254_IFMA_IMPL_H
#define ZP_BN254_IFMA_IMPL_H

#include "bn254.h"
#include "zp_consts.h"

/* p in 52-bit limbs and -p^-1 mod 2^52 (msm_curve_tmpl.h's init checks them against ZP_BN254_FP_MODULUS) */
static const uint64_t ZP_BN_P52[5] = ZP_C52_BN_FP_P;

#define IV(x) bn_v5_##x
#define IFMA_N 5
#define IFMA_W 4
#define IFMA_FE zp_bn254_fp
#define IFMA_P ZP_BN_P52
#define IFMA_PINV ZP_C52_BN_FP_INV
#include "ifma_tmpl.h"

#endif
