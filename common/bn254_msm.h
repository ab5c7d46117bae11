/*
 * bn254_msm.h — multi-scalar multiplication over BN254's G1 and G2: msm.h's contract exactly (points in
 * bn254.h's affine layout with infinity (0, 0), scalars zp_bn254_fr in Montgomery form, caller-owned
 * scratch of zp_bn254_msm_*_scratch_size(n) bytes, jacobian result, ZP_ERANGE for short scratch),
 * computed by the same code: msm.c instantiates msm_tmpl.h (classification of 0/1 scalars, signed-digit
 * Pippenger over XYZZ buckets, scalar batch-affine buckets from the same thresholds) for BN254's fields.
 * Where the CPU has AVX-512 IFMA (and ZP_MSM_IFMA / ZP_FIELD_PORTABLE allow it) the batch-affine additions
 * and running sums run eight at a time in five 52-bit limbs, BLS12-381's vector path for BN254's p.
 */
#ifndef ZP_BN254_MSM_H
#define ZP_BN254_MSM_H

#include "bn254.h"

size_t zp_bn254_msm_g1_scratch_size(size_t n);
int zp_bn254_msm_g1(zp_bn254_g1_jac *out, const zp_bn254_g1_affine *points, const zp_bn254_fr *scalars, size_t n,
		    void *scratch, size_t scratch_len);
size_t zp_bn254_msm_g2_scratch_size(size_t n);
int zp_bn254_msm_g2(zp_bn254_g2_jac *out, const zp_bn254_g2_affine *points, const zp_bn254_fr *scalars, size_t n,
		    void *scratch, size_t scratch_len);
void zp_bn254_msm_g1_sum_selected(zp_bn254_g1_jac *out, const zp_bn254_g1_affine *points, const uint8_t *sel, size_t n);
void zp_bn254_msm_g2_sum_selected(zp_bn254_g2_jac *out, const zp_bn254_g2_affine *points, const uint8_t *sel, size_t n);

#endif
