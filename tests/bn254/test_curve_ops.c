/*
 * test_curve_ops.c — common/curve.h: one curve-agnostic routine, run through each curve's table, gets the
 * same algebra right on both: MSM [5, 7]·[G1, G1] = MSM [12]·[G1]; e(12·G1, G2)·e(-12·G1, G2) = 1 and a
 * wrong product is refused; generators pass their checks; lookups by name and by the Fr modulus bytes.
 */
#include "curve.h"
#include "zp_err.h"

#include "../common/zp_test.h"

static void *msm1(const zp_curve *c, const void *pts, const void *sc, size_t n)
{
	size_t sz = c->msm_g1_scratch_size(n);
	void *scr = malloc(sz), *jac = malloc(c->g1_jac_bytes), *aff = calloc(1, c->g1_bytes);
	CHECK(c->msm_g1(jac, pts, sc, n, scr, sz) == 0, "%s msm", c->name);
	c->g1_jac_to_affine(aff, jac);
	free(scr);
	free(jac);
	return aff;
}

static void generic(const zp_curve *c)
{
	uint8_t *sc = malloc(2 * c->fr_bytes), *pts = malloc(2 * c->g1_bytes), *g2s = malloc(2 * c->g2_bytes);
	CHECK(c->g1_check(c->g1_gen) == 0 && c->g2_check(c->g2_gen) == 0, "%s generators", c->name);
	memcpy(pts, c->g1_gen, c->g1_bytes);
	memcpy(pts + c->g1_bytes, c->g1_gen, c->g1_bytes);
	CHECK(c->fr_from_dec(sc, "5") == 0 && c->fr_from_dec(sc + c->fr_bytes, "7") == 0, "%s scalars", c->name);
	void *a = msm1(c, pts, sc, 2);
	CHECK(c->fr_from_dec(sc, "12") == 0, "%s 12", c->name);
	void *b = msm1(c, pts, sc, 1);
	CHECK(memcmp(a, b, c->g1_bytes) == 0, "%s: 5G + 7G = 12G", c->name);
	CHECK(c->g1_check(a) == 0, "%s: 12G checks", c->name);
	memcpy(pts, a, c->g1_bytes);
	c->g1_neg(pts + c->g1_bytes, b);
	memcpy(g2s, c->g2_gen, c->g2_bytes);
	memcpy(g2s + c->g2_bytes, c->g2_gen, c->g2_bytes);
	CHECK(c->pairing_check(pts, g2s, 2) == 0, "%s: e(12G, H)·e(-12G, H) = 1", c->name);
	memcpy(pts + c->g1_bytes, a, c->g1_bytes);
	CHECK(c->pairing_check(pts, g2s, 2) == ZP_EVERIFY, "%s: e(12G, H)^2 != 1", c->name);
	uint8_t mod[32];
	for (size_t k = 0; k < 32; k++)
		mod[k] = (uint8_t)(c->fr_modulus[k / 8] >> (8 * (k % 8)));
	CHECK(zp_curve_by_fr_modulus(mod, 32) == c, "%s by modulus", c->name);
	CHECK(zp_curve_by_name(c->name) == c && zp_curve_by_name(c->snarkjs_name) == c, "%s by name", c->name);
	free(a); free(b); free(sc); free(pts); free(g2s);
}

int main(void)
{
	generic(&zp_curve_bls12_381);
	generic(&zp_curve_bn254);
	CHECK(zp_curve_by_name("secp256k1") == NULL, "unknown name");
	uint8_t junk[32] = { 1 };
	CHECK(zp_curve_by_fr_modulus(junk, 32) == NULL && zp_curve_by_fr_modulus(junk, 31) == NULL, "unknown modulus");
	CHECK(zp_curve_bn254.g1_bytes == 64 && zp_curve_bls12_381.g1_bytes == 96, "sizes");
	if (failures) {
		fprintf(stderr, "curve_ops: %d failures\n", failures);
		return 1;
	}
	printf("curve_ops: ok\n");
	return 0;
}
