/* Known answers from ffjavascript (vectors.txt): [k]G, P + Q, [k]P off the subgroup. */
#include "vectors.h"

static bool k_below_r(const uint64_t k[4])
{
	for (int i = 3; i >= 0; i--)
		if (k[i] != EC_TEST_R[i])
			return k[i] < EC_TEST_R[i];
	return false;
}

static void g1_mul_check(const zp_g1_affine *base, const uint64_t k[4], const zp_g1_affine *want)
{
	zp_g1_jac j, b;
	zp_g1_affine got;
	zp_g1_jac_from_affine(&b, base);
	zp_g1_jac_mul_u64(&j, &b, k, 4);
	zp_g1_jac_to_affine(&got, &j);
	CHECK(zp_g1_affine_eq(&got, want));
	if (k_below_r(k)) {
		zp_fr s;
		zp_fr_to_mont(&s, k);
		zp_g1_jac_mul(&j, &b, &s);
		zp_g1_jac_to_affine(&got, &j);
		CHECK(zp_g1_affine_eq(&got, want));
	}
}

static void g2_mul_check(const zp_g2_affine *base, const uint64_t k[4], const zp_g2_affine *want)
{
	zp_g2_jac j, b;
	zp_g2_affine got;
	zp_g2_jac_from_affine(&b, base);
	zp_g2_jac_mul_u64(&j, &b, k, 4);
	zp_g2_jac_to_affine(&got, &j);
	CHECK(zp_g2_affine_eq(&got, want));
	if (k_below_r(k)) {
		zp_fr s;
		zp_fr_to_mont(&s, k);
		zp_g2_jac_mul(&j, &b, &s);
		zp_g2_jac_to_affine(&got, &j);
		CHECK(zp_g2_affine_eq(&got, want));
	}
}

static void g1_add_check(const zp_g1_affine *a, const zp_g1_affine *b, const zp_g1_affine *want)
{
	zp_g1_jac ja, jb, s;
	zp_g1_xyzz xa, xs;
	zp_g1_affine got;
	zp_g1_jac_from_affine(&ja, a);
	zp_g1_jac_from_affine(&jb, b);
	zp_g1_jac_add(&s, &ja, &jb);
	zp_g1_jac_to_affine(&got, &s);
	CHECK(zp_g1_affine_eq(&got, want));
	zp_g1_jac_add_affine(&s, &ja, b);
	zp_g1_jac_to_affine(&got, &s);
	CHECK(zp_g1_affine_eq(&got, want));
	zp_g1_xyzz_from_affine(&xa, a);
	zp_g1_xyzz_add_affine(&xs, &xa, b);
	zp_g1_xyzz_to_jac(&s, &xs);
	zp_g1_jac_to_affine(&got, &s);
	CHECK(zp_g1_affine_eq(&got, want));
	CHECK(zp_g1_affine_check(want) == 0);
}

static void g2_add_check(const zp_g2_affine *a, const zp_g2_affine *b, const zp_g2_affine *want)
{
	zp_g2_jac ja, jb, s;
	zp_g2_xyzz xa, xs;
	zp_g2_affine got;
	zp_g2_jac_from_affine(&ja, a);
	zp_g2_jac_from_affine(&jb, b);
	zp_g2_jac_add(&s, &ja, &jb);
	zp_g2_jac_to_affine(&got, &s);
	CHECK(zp_g2_affine_eq(&got, want));
	zp_g2_jac_add_affine(&s, &ja, b);
	zp_g2_jac_to_affine(&got, &s);
	CHECK(zp_g2_affine_eq(&got, want));
	zp_g2_xyzz_from_affine(&xa, a);
	zp_g2_xyzz_add_affine(&xs, &xa, b);
	zp_g2_xyzz_to_jac(&s, &xs);
	zp_g2_jac_to_affine(&got, &s);
	CHECK(zp_g2_affine_eq(&got, want));
	CHECK(zp_g2_affine_check(want) == 0);
}

int main(int argc, char **argv)
{
	FILE *f = zp_test_open_vectors(argc, argv);
	char line[8192];
	int n = 0, gen_seen = 0;
	while (zp_test_read_line(f, line, sizeof line, NULL)) {
		char *save;
		const char *kind = strtok_r(line, " \n", &save);
		if (!kind)
			continue;
		zp_g1_affine p1, q1, s1;
		zp_g2_affine p2, q2, s2;
		uint64_t k[4];
		if (!strcmp(kind, "g1mul")) {
			vec_u256(k, &save);
			vec_g1(&s1, &save);
			g1_mul_check(&ZP_G1_GEN, k, &s1);
			if (k[0] == 1 && !k[1] && !k[2] && !k[3])
				gen_seen += zp_g1_affine_eq(&s1, &ZP_G1_GEN);
		} else if (!strcmp(kind, "g2mul")) {
			vec_u256(k, &save);
			vec_g2(&s2, &save);
			g2_mul_check(&ZP_G2_GEN, k, &s2);
			if (k[0] == 1 && !k[1] && !k[2] && !k[3])
				gen_seen += zp_g2_affine_eq(&s2, &ZP_G2_GEN);
		} else if (!strcmp(kind, "g1add")) {
			vec_g1(&p1, &save);
			vec_g1(&q1, &save);
			vec_g1(&s1, &save);
			g1_add_check(&p1, &q1, &s1);
		} else if (!strcmp(kind, "g2add")) {
			vec_g2(&p2, &save);
			vec_g2(&q2, &save);
			vec_g2(&s2, &save);
			g2_add_check(&p2, &q2, &s2);
		} else if (!strcmp(kind, "g1mulpt")) {
			vec_g1(&p1, &save);
			vec_u256(k, &save);
			vec_g1(&s1, &save);
			CHECK(zp_g1_affine_is_on_curve(&p1));
			CHECK_EQ_INT(zp_g1_affine_check(&p1), ZP_ESUBGROUP);
			g1_mul_check(&p1, k, &s1);
		} else if (!strcmp(kind, "g2mulpt")) {
			vec_g2(&p2, &save);
			vec_u256(k, &save);
			vec_g2(&s2, &save);
			CHECK(zp_g2_affine_is_on_curve(&p2));
			CHECK_EQ_INT(zp_g2_affine_check(&p2), ZP_ESUBGROUP);
			g2_mul_check(&p2, k, &s2);
		} else {
			continue;   /* encodings: tests/serialize */
		}
		n++;
	}
	fclose(f);
	CHECK(gen_seen == 2);   /* ffjavascript's generators are ours */
	CHECK(n >= 140);
	printf("%d vectors\n", n);
	return ec_test_result("ec_vectors");
}
