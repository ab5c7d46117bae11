/* ec_test.h — helpers shared by the tests in tests/ec and tests/serialize. */
#ifndef ZP_EC_TEST_H
#define ZP_EC_TEST_H

#include <stdio.h>
#include <stdlib.h>

#include "ec.h"
#include "zp_err.h"

#define ZP_TEST_OWN_CHECK  /* the CHECK below takes no message and has its own counter */
#include "../common/zp_test.h"

static int ec_test_failures;

#define CHECK(cond)                                                                   \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
			ec_test_failures++;                                           \
		}                                                                     \
	} while (0)

#define CHECK_EQ_INT(a, b)                                                            \
	do {                                                                          \
		long _a = (long)(a), _b = (long)(b);                                  \
		if (_a != _b) {                                                       \
			fprintf(stderr, "%s:%d: %s = %ld, expected %ld\n", __FILE__, __LINE__, #a, _a, _b); \
			ec_test_failures++;                                           \
		}                                                                     \
	} while (0)

static inline int ec_test_result(const char *name)
{
	if (ec_test_failures) {
		fprintf(stderr, "%s: %d failures\n", name, ec_test_failures);
		return 1;
	}
	printf("%s: ok\n", name);
	return 0;
}

/* r as a raw integer (little-endian limbs). */
static const uint64_t EC_TEST_R[4] = {
	0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL };

/* k·G for a random k: a uniformly random point of the subgroup. */
static inline void ec_test_g1_random(zp_g1_affine *p, zp_rng *g)
{
	zp_fr k;
	zp_g1_jac j;
	zp_fr_random(&k, g);
	zp_g1_jac_from_affine(&j, &ZP_G1_GEN);
	zp_g1_jac_mul(&j, &j, &k);
	zp_g1_jac_to_affine(p, &j);
}

static inline void ec_test_g2_random(zp_g2_affine *p, zp_rng *g)
{
	zp_fr k;
	zp_g2_jac j;
	zp_fr_random(&k, g);
	zp_g2_jac_from_affine(&j, &ZP_G2_GEN);
	zp_g2_jac_mul(&j, &j, &k);
	zp_g2_jac_to_affine(p, &j);
}

/* A point on the curve found by trying random x; no cofactor clearing, so it is
 * almost surely outside the subgroup. */
static inline void ec_test_g1_on_curve(zp_g1_affine *p, zp_rng *g)
{
	for (;;) {
		zp_fp rhs, four;
		zp_fp_random(&p->x, g);
		zp_fp_sqr(&rhs, &p->x);
		zp_fp_mul(&rhs, &rhs, &p->x);
		zp_fp_from_u64(&four, 4);
		zp_fp_add(&rhs, &rhs, &four);
		if (zp_fp_sqrt(&p->y, &rhs))
			return;
	}
}

static inline void ec_test_g2_on_curve(zp_g2_affine *p, zp_rng *g)
{
	for (;;) {
		zp_fp2 rhs, b;
		zp_fp2_random(&p->x, g);
		zp_fp2_sqr(&rhs, &p->x);
		zp_fp2_mul(&rhs, &rhs, &p->x);
		zp_fp_from_u64(&b.c0, 4);
		b.c1 = b.c0;
		zp_fp2_add(&rhs, &rhs, &b);
		if (zp_fp2_sqrt(&p->y, &rhs))
			return;
	}
}

/* [r]P = infinity: the slow, obviously correct subgroup test. */
static inline bool ec_test_g1_rtorsion(const zp_g1_affine *p)
{
	zp_g1_jac j;
	zp_g1_jac_from_affine(&j, p);
	zp_g1_jac_mul_u64(&j, &j, EC_TEST_R, 4);
	return zp_g1_jac_is_inf(&j);
}

static inline bool ec_test_g2_rtorsion(const zp_g2_affine *p)
{
	zp_g2_jac j;
	zp_g2_jac_from_affine(&j, p);
	zp_g2_jac_mul_u64(&j, &j, EC_TEST_R, 4);
	return zp_g2_jac_is_inf(&j);
}

#endif
