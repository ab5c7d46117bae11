/*
 * bn254_ec.c — G1 and G2 of BN254: ec_tmpl.h's formulas instantiated for E: y^2 = x^3 + 3 over Fp and
 * E': y^2 = x^3 + 3/xi over Fp2, plus what differs: the subgroup checks, psi, and the snarkjs/Ethereum
 * byte encoding. Constants come from zp_consts.h (derived and checked in gen_consts.py).
 *
 * Subgroups. G1: #E(Fp) = r, cofactor 1, so every point on the curve is in G1 (in_subgroup is true;
 * affine_check reduces to the curve equation). G2: #E'(Fp2) = r·(2p - r); Q is in G2 iff
 * psi(Q) = [6x^2]Q — psi has eigenvalue p mod r = 6x^2 on G2 (Scott, "A note on group membership tests
 * for G1, G2 and GT on BLS pairing-friendly curves", 2021, §4 for BN; El Housni-Guillevic-Piellard 2022),
 * about 128 doublings instead of [r]Q's 254; tests/bn254 cross-checks it against [r]Q = O on points
 * inside and outside G2.
 */
#include "bn254.h"
#include "zp_consts.h"
#include "zp_err.h"

#include <string.h>

static const zp_bn254_fp G1_B = { ZP_C64_BN_G1_B };
static const zp_bn254_fp2 G2_B = { { ZP_C64_BN_G2_B_C0 }, { ZP_C64_BN_G2_B_C1 } };
const zp_bn254_g1_affine ZP_BN254_G1_GEN = { { ZP_C64_BN_G1_GEN_X }, { ZP_C64_BN_G1_GEN_Y } };
const zp_bn254_g2_affine ZP_BN254_G2_GEN = {
	{ { ZP_C64_BN_G2_GEN_X_C0 }, { ZP_C64_BN_G2_GEN_X_C1 } },
	{ { ZP_C64_BN_G2_GEN_Y_C0 }, { ZP_C64_BN_G2_GEN_Y_C1 } } };

#define EC_G bn254_g1
#define EC_F bn254_fp
#define EC_FE zp_bn254_fp
#define EC_ONE ZP_BN254_FP_ONE
#define EC_B G1_B
#define EC_SC bn254_fr
#include "ec_tmpl.h"   /* undefines its parameters */

#define EC_G bn254_g2
#define EC_F bn254_fp2
#define EC_FE zp_bn254_fp2
#define EC_ONE ZP_BN254_FP2_ONE
#define EC_B G2_B
#define EC_SC bn254_fr
#include "ec_tmpl.h"   /* undefines its parameters */

/* ---------------- subgroups ---------------- */

bool zp_bn254_g1_affine_in_subgroup(const zp_bn254_g1_affine *p)
{
	(void)p;   /* cofactor 1: E(Fp) is G1 */
	return true;
}

static const zp_bn254_fp2 PSI_X = { { ZP_C64_BN_FROB_G2_C0 }, { ZP_C64_BN_FROB_G2_C1 } };   /* xi^((p-1)/3) */
static const zp_bn254_fp2 PSI_Y = { { ZP_C64_BN_FROB_G3_C0 }, { ZP_C64_BN_FROB_G3_C1 } };   /* xi^((p-1)/2) */
static const uint64_t SUB_K[2] = ZP_C64_BN_G2_SUB_K;                                       /* 6x^2 */

/* untwist (x w^2, y w^3), raise to p (w^p = w·xi^((p-1)/6)), twist back */
void zp_bn254_g2_psi(zp_bn254_g2_affine *r, const zp_bn254_g2_affine *a)
{
	if (zp_bn254_g2_affine_is_inf(a)) {
		*r = *a;
		return;
	}
	zp_bn254_fp2_conj(&r->x, &a->x);
	zp_bn254_fp2_mul(&r->x, &r->x, &PSI_X);
	zp_bn254_fp2_conj(&r->y, &a->y);
	zp_bn254_fp2_mul(&r->y, &r->y, &PSI_Y);
}

bool zp_bn254_g2_affine_in_subgroup(const zp_bn254_g2_affine *p)
{
	if (zp_bn254_g2_affine_is_inf(p))
		return true;
	zp_bn254_g2_jac t, s;
	zp_bn254_g2_affine psi;
	zp_bn254_g2_jac_from_affine(&t, p);
	zp_bn254_g2_jac_mul_u64(&t, &t, SUB_K, 2);
	zp_bn254_g2_psi(&psi, p);
	zp_bn254_g2_jac_from_affine(&s, &psi);
	return zp_bn254_g2_jac_eq(&s, &t);
}

void zp_bn254_g2_from_x(zp_bn254_g2_affine *r, const zp_bn254_fp2 *x0)
{
	zp_bn254_fp2 x = *x0, rhs;
	for (;;) {
		zp_bn254_fp2_sqr(&rhs, &x);
		zp_bn254_fp2_mul(&rhs, &rhs, &x);
		zp_bn254_fp2_add(&rhs, &rhs, &G2_B);
		if (zp_bn254_fp2_sqrt(&r->y, &rhs)) {
			r->x = x;
			return;
		}
		zp_bn254_fp2_add(&x, &x, &ZP_BN254_FP2_ONE);
	}
}

/* ---------------- bytes ---------------- */

static bool all_zero(const uint8_t *b, size_t n)
{
	uint8_t acc = 0;
	for (size_t i = 0; i < n; i++)
		acc |= b[i];
	return acc == 0;
}

void zp_bn254_g1_to_bytes(uint8_t out[64], const zp_bn254_g1_affine *p)
{
	if (zp_bn254_g1_affine_is_inf(p)) {
		memset(out, 0, 64);
		return;
	}
	zp_bn254_fp_to_be(out, &p->x);
	zp_bn254_fp_to_be(out + 32, &p->y);
}

int zp_bn254_g1_from_bytes(zp_bn254_g1_affine *p, const uint8_t in[64])
{
	zp_bn254_g1_affine t;
	int rc;
	if ((rc = zp_bn254_fp_from_be(&t.x, in)) < 0 || (rc = zp_bn254_fp_from_be(&t.y, in + 32)) < 0)
		return rc;
	/* (0, 0) is not on y^2 = x^3 + 3: the encoding of infinity, and only all-zero bytes decode to it */
	if ((rc = zp_bn254_g1_affine_check(&t)) < 0)
		return rc;
	*p = t;
	return 0;
}

void zp_bn254_g2_to_bytes(uint8_t out[128], const zp_bn254_g2_affine *p)
{
	if (zp_bn254_g2_affine_is_inf(p)) {
		memset(out, 0, 128);
		return;
	}
	zp_bn254_fp_to_be(out, &p->x.c1);
	zp_bn254_fp_to_be(out + 32, &p->x.c0);
	zp_bn254_fp_to_be(out + 64, &p->y.c1);
	zp_bn254_fp_to_be(out + 96, &p->y.c0);
}

int zp_bn254_g2_from_bytes(zp_bn254_g2_affine *p, const uint8_t in[128])
{
	zp_bn254_g2_affine t;
	int rc;
	if ((rc = zp_bn254_fp_from_be(&t.x.c1, in)) < 0 || (rc = zp_bn254_fp_from_be(&t.x.c0, in + 32)) < 0 ||
	    (rc = zp_bn254_fp_from_be(&t.y.c1, in + 64)) < 0 || (rc = zp_bn254_fp_from_be(&t.y.c0, in + 96)) < 0)
		return rc;
	if (all_zero(in, 128)) {
		*p = t;
		return 0;
	}
	if ((rc = zp_bn254_g2_affine_check(&t)) < 0)
		return rc;
	*p = t;
	return 0;
}
