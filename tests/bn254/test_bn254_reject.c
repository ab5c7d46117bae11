/*
 * test_bn254_reject.c — BN254 bad input is refused with the right code and the output left untouched:
 * a coordinate >= p (ZP_ENONCANON), a point off the curve (ZP_EINVAL_POINT), a G2 point on the twist but
 * outside G2 (ZP_ESUBGROUP); field elements >= the modulus from bytes and decimal; infinity only as
 * all-zero bytes. Valid encodings round-trip.
 */
#include "bn254.h"
#include "zp_err.h"

#include "../common/zp_test.h"

static const uint8_t P_BE[32] = {  /* p, big-endian */
	0x30, 0x64, 0x4e, 0x72, 0xe1, 0x31, 0xa0, 0x29, 0xb8, 0x50, 0x45, 0xb6, 0x81, 0x81, 0x58, 0x5d,
	0x97, 0x81, 0x6a, 0x91, 0x68, 0x71, 0xca, 0x8d, 0x3c, 0x20, 0x8c, 0x16, 0xd8, 0x7c, 0xfd, 0x47 };

static void fields(void)
{
	zp_bn254_fp a = ZP_BN254_FP_ONE, keep = a;
	uint8_t b[32];
	memcpy(b, P_BE, 32);
	CHECK(zp_bn254_fp_from_be(&a, b) == ZP_ENONCANON, "p itself is not canonical");
	CHECK(zp_bn254_fp_eq(&a, &keep), "output untouched on rejection");
	b[31] -= 1;
	CHECK(zp_bn254_fp_from_be(&a, b) == 0, "p - 1 accepted");
	memset(b, 0xff, 32);
	CHECK(zp_bn254_fp_from_be(&a, b) == ZP_ENONCANON, "2^256 - 1 rejected");
	CHECK(zp_bn254_fp_from_dec(&a, "21888242871839275222246405745257275088696311157297823662689037894645226208583") == ZP_ENONCANON,
	      "decimal p rejected");
	CHECK(zp_bn254_fp_from_dec(&a, "12x") == ZP_EFORMAT, "non-digit rejected");
	zp_bn254_fr s;
	CHECK(zp_bn254_fr_from_dec(&s, "21888242871839275222246405745257275088548364400416034343698204186575808495617") == ZP_ENONCANON,
	      "decimal r rejected in Fr");
	CHECK(zp_bn254_fr_from_dec(&s, "21888242871839275222246405745257275088548364400416034343698204186575808495616") == 0,
	      "r - 1 accepted in Fr");
}

static void g1(void)
{
	uint8_t b[64], z[64] = { 0 };
	zp_bn254_g1_affine p, keep = ZP_BN254_G1_GEN;
	zp_bn254_g1_to_bytes(b, &ZP_BN254_G1_GEN);
	CHECK(zp_bn254_g1_from_bytes(&p, b) == 0 && zp_bn254_g1_affine_eq(&p, &ZP_BN254_G1_GEN), "G1 round trip");
	CHECK(b[31] == 1 && b[63] == 2, "G1 generator is (1, 2) big-endian");
	CHECK(zp_bn254_g1_from_bytes(&p, z) == 0 && zp_bn254_g1_affine_is_inf(&p), "all zero = infinity");
	zp_bn254_g1_to_bytes(b, &p);
	CHECK(memcmp(b, z, 64) == 0, "infinity writes all zero");
	p = keep;
	zp_bn254_g1_to_bytes(b, &ZP_BN254_G1_GEN);
	b[63] = 3;   /* (1, 3): off the curve */
	CHECK(zp_bn254_g1_from_bytes(&p, b) == ZP_EINVAL_POINT, "off-curve G1 rejected");
	CHECK(zp_bn254_g1_affine_eq(&p, &keep), "output untouched");
	memcpy(b + 32, P_BE, 32);   /* y = p */
	CHECK(zp_bn254_g1_from_bytes(&p, b) == ZP_ENONCANON, "y >= p rejected");
	memset(b, 0, 64);
	b[63] = 1;   /* (0, 1): not infinity, not on the curve */
	CHECK(zp_bn254_g1_from_bytes(&p, b) == ZP_EINVAL_POINT, "(0, 1) rejected");
	/* y = p - 2 = -2 is the negation of the generator: on the curve */
	memset(b, 0, 64);
	b[31] = 1;
	memcpy(b + 32, P_BE, 32);
	b[63] -= 2;
	CHECK(zp_bn254_g1_from_bytes(&p, b) == 0, "-G1 accepted");
}

static void g2(zp_rng *g)
{
	uint8_t b[128], z[128] = { 0 };
	zp_bn254_g2_affine q, keep = ZP_BN254_G2_GEN;
	zp_bn254_g2_to_bytes(b, &ZP_BN254_G2_GEN);
	CHECK(zp_bn254_g2_from_bytes(&q, b) == 0 && zp_bn254_g2_affine_eq(&q, &ZP_BN254_G2_GEN), "G2 round trip");
	CHECK(zp_bn254_g2_from_bytes(&q, z) == 0 && zp_bn254_g2_affine_is_inf(&q), "all zero = infinity");
	q = keep;
	b[127] ^= 1;
	CHECK(zp_bn254_g2_from_bytes(&q, b) == ZP_EINVAL_POINT, "off-twist G2 rejected");
	CHECK(zp_bn254_g2_affine_eq(&q, &keep), "output untouched");
	zp_bn254_g2_to_bytes(b, &ZP_BN254_G2_GEN);
	memcpy(b + 32, P_BE, 32);   /* x.c0 = p */
	CHECK(zp_bn254_g2_from_bytes(&q, b) == ZP_ENONCANON, "x.c0 >= p rejected");
	/* swapping c0 and c1 (the other order) gives a point that is not on the twist */
	zp_bn254_g2_affine sw = { { ZP_BN254_G2_GEN.x.c1, ZP_BN254_G2_GEN.x.c0 }, { ZP_BN254_G2_GEN.y.c1, ZP_BN254_G2_GEN.y.c0 } };
	zp_bn254_g2_to_bytes(b, &sw);
	CHECK(zp_bn254_g2_from_bytes(&q, b) == ZP_EINVAL_POINT, "c0/c1 swapped rejected");
	/* on the twist, outside G2 */
	int seen = 0;
	for (int i = 0; i < 4; i++) {
		zp_bn254_fp2 x0;
		zp_bn254_g2_affine t;
		zp_bn254_fp2_random(&x0, g);
		zp_bn254_g2_from_x(&t, &x0);
		if (zp_bn254_g2_affine_in_subgroup(&t))
			continue;   /* probability ~2^-254 */
		seen++;
		zp_bn254_g2_to_bytes(b, &t);
		q = keep;
		CHECK(zp_bn254_g2_from_bytes(&q, b) == ZP_ESUBGROUP, "twist point outside G2 rejected");
		CHECK(zp_bn254_g2_affine_eq(&q, &keep), "output untouched");
	}
	CHECK(seen == 4, "4 points outside G2 tried (%d)", seen);
}

int main(void)
{
	zp_rng g;
	zp_rng_seed(&g, zp_test_seed());
	fields();
	g1();
	g2(&g);
	if (failures) {
		fprintf(stderr, "bn254_reject: %d failures\n", failures);
		return 1;
	}
	printf("bn254_reject: ok\n");
	return 0;
}
