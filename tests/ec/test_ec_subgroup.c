/* Subgroup checks: the endomorphism tests agree with [r]P = infinity on points
 * inside the subgroup, on points outside it, and on the generators. */
#include "ec_test.h"

int main(void)
{
	zp_rng g;
	zp_rng_seed(&g, 0x5b9c1);
	CHECK(zp_g1_affine_is_on_curve(&ZP_G1_GEN));
	CHECK(zp_g2_affine_is_on_curve(&ZP_G2_GEN));
	CHECK(ec_test_g1_rtorsion(&ZP_G1_GEN));
	CHECK(ec_test_g2_rtorsion(&ZP_G2_GEN));
	CHECK(zp_g1_affine_in_subgroup(&ZP_G1_GEN));
	CHECK(zp_g2_affine_in_subgroup(&ZP_G2_GEN));
	CHECK_EQ_INT(zp_g1_affine_check(&ZP_G1_GEN), 0);
	CHECK_EQ_INT(zp_g2_affine_check(&ZP_G2_GEN), 0);
	zp_g1_affine inf1 = { 0 };
	zp_g2_affine inf2 = { 0 };
	CHECK_EQ_INT(zp_g1_affine_check(&inf1), 0);
	CHECK_EQ_INT(zp_g2_affine_check(&inf2), 0);

	int outside1 = 0, outside2 = 0;
	for (int i = 0; i < 40; i++) {
		zp_g1_affine p;
		zp_g2_affine q;
		ec_test_g1_random(&p, &g);
		CHECK(zp_g1_affine_in_subgroup(&p));
		CHECK(ec_test_g1_rtorsion(&p));
		ec_test_g2_random(&q, &g);
		CHECK(zp_g2_affine_in_subgroup(&q));
		CHECK(ec_test_g2_rtorsion(&q));

		ec_test_g1_on_curve(&p, &g);
		CHECK(zp_g1_affine_is_on_curve(&p));
		bool slow1 = ec_test_g1_rtorsion(&p);
		CHECK(zp_g1_affine_in_subgroup(&p) == slow1);
		outside1 += !slow1;
		CHECK_EQ_INT(zp_g1_affine_check(&p), slow1 ? 0 : ZP_ESUBGROUP);
		ec_test_g2_on_curve(&q, &g);
		CHECK(zp_g2_affine_is_on_curve(&q));
		bool slow2 = ec_test_g2_rtorsion(&q);
		CHECK(zp_g2_affine_in_subgroup(&q) == slow2);
		outside2 += !slow2;
		CHECK_EQ_INT(zp_g2_affine_check(&q), slow2 ? 0 : ZP_ESUBGROUP);

		/* Off the curve: nudge y. */
		zp_fp_add(&p.y, &p.y, &ZP_FP_ONE);
		CHECK(!zp_g1_affine_is_on_curve(&p));
		CHECK_EQ_INT(zp_g1_affine_check(&p), ZP_EINVAL_POINT);
		zp_fp2_add(&q.y, &q.y, &ZP_FP2_ONE);
		CHECK(!zp_g2_affine_is_on_curve(&q));
		CHECK_EQ_INT(zp_g2_affine_check(&q), ZP_EINVAL_POINT);
	}
	CHECK(outside1 > 30);
	CHECK(outside2 > 30);
	return ec_test_result("ec_subgroup");
}
