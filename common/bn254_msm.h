/*
 * bn254_msm.h — multi-scalar multiplication over BN254's G1 and G2: msm.h's contract and declarations
 * exactly (ZP_MSM_API(zp_bn254_): zp_bn254_msm_g1, ...; points in
 * bn254.h's affine layout with infinity (0, 0), scalars zp_bn254_fr in Montgomery form, caller-owned
 * scratch of zp_bn254_msm_*_scratch_size(n) bytes, jacobian result, ZP_ERANGE for short scratch),
 * computed by the same code, msm_curve_tmpl.h (classification of 0/1 scalars, signed-digit
 * Pippenger over XYZZ buckets, scalar batch-affine buckets from the same thresholds) for BN254's fields.
 * Where the CPU has AVX-512 IFMA (and ZP_MSM_IFMA / ZP_FIELD_PORTABLE allow it) the batch-affine additions
 * and running sums run eight at a time in five 52-bit limbs, BLS12-381's vector path for BN254's p.
 */
#ifndef ZP_BN254_MSM_H
#define ZP_BN254_MSM_H

#include "bn254.h"
#include "msm.h"   /* ZP_MSM_API */

ZP_MSM_API(zp_bn254_)

#endif
