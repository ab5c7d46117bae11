/* Shared helpers for tests/msm: random points k·G and naive reference sums (ec.c). */
#ifndef MSM_TEST_UTIL_H
#define MSM_TEST_UTIL_H

#include "ec.h"
#include "field.h"
#include "msm.h"
#include "zp_err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MSM_TEST_DEFINE(GN)                                                                 \
	__attribute__((unused)) static void GN##_random_points(zp_##GN##_affine *p, zp_fr *logs, size_t n, zp_rng *g) \
	{                                                                                   \
		zp_##GN##_jac gen, *j = malloc(n * sizeof(*j));                             \
		zp_##GN##_jac_from_affine(&gen, &ZP_##GN##_GEN_U);                          \
		for (size_t i = 0; i < n; i++) {                                            \
			zp_fr k;                                                            \
			zp_fr_random(&k, g);                                                \
			if (logs)                                                           \
				logs[i] = k;                                                \
			zp_##GN##_jac_mul(&j[i], &gen, &k);                                 \
		}                                                                           \
		zp_##GN##_jac_batch_to_affine(p, j, n);                                     \
		free(j);                                                                    \
	}                                                                                   \
	__attribute__((unused)) static void GN##_naive(zp_##GN##_jac *out, const zp_##GN##_affine *p, const zp_fr *s, size_t n) \
	{                                                                                   \
		zp_##GN##_jac_set_inf(out);                                                 \
		for (size_t i = 0; i < n; i++) {                                            \
			zp_##GN##_jac a, t;                                                 \
			zp_##GN##_jac_from_affine(&a, &p[i]);                               \
			zp_##GN##_jac_mul(&t, &a, &s[i]);                                   \
			zp_##GN##_jac_add(out, out, &t);                                    \
		}                                                                           \
	}                                                                                   \
	__attribute__((unused)) static int GN##_msm_alloc(zp_##GN##_jac *out, const zp_##GN##_affine *p, const zp_fr *s, size_t n) \
	{                                                                                   \
		size_t sz = zp_msm_##GN##_scratch_size(n);                                  \
		void *scr = malloc(sz);                                                     \
		memset(scr, 0xa5, sz);  /* contents on entry must not matter */             \
		int rc = zp_msm_##GN(out, p, s, n, scr, sz);                               \
		free(scr);                                                                  \
		return rc;                                                                  \
	}

#define ZP_g1_GEN_U ZP_G1_GEN
#define ZP_g2_GEN_U ZP_G2_GEN

#endif
