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

	/* Pure cofactor torsion T = [r]P (P on the curve), and T + (subgroup point):
	 * the endomorphism tests must refuse both. */
	for (int i = 0; i < 10; i++) {
		zp_g1_affine p, s, t;
		zp_g1_jac j, js;
		ec_test_g1_on_curve(&p, &g);
		zp_g1_jac_from_affine(&j, &p);
		zp_g1_jac_mul_u64(&j, &j, EC_TEST_R, 4);
		zp_g1_jac_to_affine(&t, &j);
		CHECK(!zp_g1_affine_is_inf(&t));
		CHECK(zp_g1_affine_is_on_curve(&t));
		CHECK(!zp_g1_affine_in_subgroup(&t));
		ec_test_g1_random(&s, &g);
		zp_g1_jac_from_affine(&js, &s);
		zp_g1_jac_add(&js, &js, &j);
		zp_g1_jac_to_affine(&t, &js);
		CHECK(!zp_g1_affine_in_subgroup(&t));

		zp_g2_affine q, s2, t2;
		zp_g2_jac j2, js2;
		ec_test_g2_on_curve(&q, &g);
		zp_g2_jac_from_affine(&j2, &q);
		zp_g2_jac_mul_u64(&j2, &j2, EC_TEST_R, 4);
		zp_g2_jac_to_affine(&t2, &j2);
		CHECK(!zp_g2_affine_is_inf(&t2));
		CHECK(zp_g2_affine_is_on_curve(&t2));
		CHECK(!zp_g2_affine_in_subgroup(&t2));
		ec_test_g2_random(&s2, &g);
		zp_g2_jac_from_affine(&js2, &s2);
		zp_g2_jac_add(&js2, &js2, &j2);
		zp_g2_jac_to_affine(&t2, &js2);
		CHECK(!zp_g2_affine_in_subgroup(&t2));
	}
	/* Points of l-power order for each prime l | h1 = 3 · 11^2 · 10177^2 · 859267^2 · 52437899^2:
	 * [h1/l^e]([r]P), l^e the full power of l in h1, is killed by l^e and nonzero
	 * unless P has no l-part. */
	static const uint64_t h1_over_l[5][2] = {
		{ 0x2eaae38e55558e39ULL, 0x13242eaac71ca072ULL },   /* l = 3 */
		{ 0x627ab75c63702343ULL, 0x00797dfbc5773068ULL },   /* l = 11 */
		{ 0x630149c028dca02bULL, 0x000000094d4c6a74ULL },   /* l = 10177 */
		{ 0xc2eebd2b6760b113ULL, 0x0000000000558393ULL },   /* l = 859267 */
		{ 0xd04a695e4a558443ULL, 0x00000000000005e0ULL },   /* l = 52437899 */
	};
	int small_orders = 0;
	for (int l = 0; l < 5; l++)
		for (int tries = 0; tries < 4; tries++) {
			zp_g1_affine p, t;
			zp_g1_jac j;
			ec_test_g1_on_curve(&p, &g);
			zp_g1_jac_from_affine(&j, &p);
			zp_g1_jac_mul_u64(&j, &j, EC_TEST_R, 4);
			zp_g1_jac_mul_u64(&j, &j, h1_over_l[l], 2);
			if (zp_g1_jac_is_inf(&j))
				continue;
			zp_g1_jac_to_affine(&t, &j);
			CHECK(!zp_g1_affine_in_subgroup(&t));
			CHECK_EQ_INT(zp_g1_affine_check(&t), ZP_ESUBGROUP);
			small_orders++;
			break;
		}
	CHECK_EQ_INT(small_orders, 5);
	return ec_test_result("ec_subgroup");
}
