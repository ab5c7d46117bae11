/*
 * g16_impl.h — prover/-internal glue: the few operations the Groth16 code needs from
 * common/ (NTT, MSM, pairing product), behind one small surface so that the prover's
 * logic does not depend on how common/ spells them. Implemented in g16_adapt.c.
 */
#ifndef ZP_G16_IMPL_H
#define ZP_G16_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "ec.h"
#include "field.h"

/* ω_{2^lg} (snarkjs's: from 5), Montgomery form; lg <= 32. */
void g16_root_of_unity(zp_fr *w, uint32_t lg);
/* In-place NTT of size 2^lg, natural order in and out; inverse includes 1/n. */
int  g16_ntt(zp_fr *a, uint32_t lg, int inverse);
/* Σ k_i·P_i; scalars in Montgomery form (as all zp_fr). Multi-threaded. */
int  g16_msm_g1(zp_g1_jac *out, const zp_g1_affine *p, const zp_fr *k, size_t n);
int  g16_msm_g2(zp_g2_jac *out, const zp_g2_affine *p, const zp_fr *k, size_t n);
/* 1 if Π e(P_i, Q_i) == 1, 0 if not. */
int  g16_pairing_is_one(const zp_g1_affine *p, const zp_g2_affine *q, size_t n);

#endif
