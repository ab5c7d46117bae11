/*
 * fp_ifma_impl.h — internal: BLS12-381's Fp eight lanes at a time with AVX-512 IFMA, the instance
 * zp_v8_* of ifma_tmpl.h (which says how): eight 52-bit limbs, Montgomery with R' = 2^416 (the
 * scalar code's R is 2^384: R'/R = 2^32, zp_v8_shl), for the MSM's vector batch-affine path (msm.c)
 * and bench/arith/fp8.c. Include only from x86-64 GCC/Clang builds.
 */
#ifndef ZP_FP_IFMA_IMPL_H
#define ZP_FP_IFMA_IMPL_H

#include "field.h"
#include "zp_consts.h"

/* q in 52-bit limbs, and -q^-1 mod 2^52 (fp_ifma.c's init checks them against ZP_FP_MODULUS) */
static const uint64_t ZP_Q52[8] = ZP_C52_FP_P;

#define IV(x) zp_v8_##x
#define IFMA_N 8
#define IFMA_W 6
#define IFMA_FE zp_fp
#define IFMA_P ZP_Q52
#define IFMA_PINV ZP_C52_FP_INV
#include "ifma_tmpl.h"

#endif
