/* Round trips of random points (both signs of y, infinity, points outside the
 * subgroup with ZP_SER_NO_SUBGROUP) through every encoding of serialize.h. */
#include <string.h>

#include "ec_test.h"
#include "serialize.h"

static void g1_roundtrip(const zp_g1_affine *p, unsigned opts)
{
	uint8_t c[48], u[96], zk[96];
	zp_g1_affine b;
	zp_g1_dec d;
	zp_g1_to_compressed(c, p);
	CHECK(c[0] & ZP_SER_FLAG_COMPRESSED);
	CHECK_EQ_INT(zp_g1_from_compressed(&b, c, opts), 0);
	CHECK(zp_g1_affine_eq(&b, p));
	zp_g1_to_uncompressed(u, p);
	CHECK(!(u[0] & (ZP_SER_FLAG_COMPRESSED | ZP_SER_FLAG_SIGN)));
	CHECK_EQ_INT(zp_g1_from_uncompressed(&b, u, opts), 0);
	CHECK(zp_g1_affine_eq(&b, p));
	zp_g1_to_dec(&d, p);
	CHECK_EQ_INT(zp_g1_from_dec(&b, d.c[0], d.c[1], d.c[2], opts), 0);
	CHECK(zp_g1_affine_eq(&b, p));
	if (!zp_g1_affine_is_inf(p)) {
		CHECK_EQ_INT(zp_g1_from_dec(&b, d.c[0], d.c[1], NULL, opts), 0);
		CHECK(zp_g1_affine_eq(&b, p));
		/* -P: same x bytes, other sign bit */
		zp_g1_affine n;
		uint8_t cn[48];
		zp_g1_affine_neg(&n, p);
		zp_g1_to_compressed(cn, &n);
		CHECK(cn[0] == (c[0] ^ ZP_SER_FLAG_SIGN) && !memcmp(cn + 1, c + 1, 47));
	}
	memcpy(zk, p, 96);   /* the .zkey bytes are the struct (x86-64: little-endian limbs) */
	CHECK_EQ_INT(zp_g1_affine_from_zkey_bytes(&b, zk, opts), 0);
	CHECK(zp_g1_affine_eq(&b, p));
	CHECK_EQ_INT(zp_g1_affine_check_array(p, 1, opts, NULL), 0);
}

static void g2_roundtrip(const zp_g2_affine *p, unsigned opts)
{
	uint8_t c[96], u[192], zk[192];
	zp_g2_affine b;
	zp_g2_dec d;
	zp_g2_to_compressed(c, p);
	CHECK(c[0] & ZP_SER_FLAG_COMPRESSED);
	CHECK_EQ_INT(zp_g2_from_compressed(&b, c, opts), 0);
	CHECK(zp_g2_affine_eq(&b, p));
	zp_g2_to_uncompressed(u, p);
	CHECK(!(u[0] & (ZP_SER_FLAG_COMPRESSED | ZP_SER_FLAG_SIGN)));
	CHECK_EQ_INT(zp_g2_from_uncompressed(&b, u, opts), 0);
	CHECK(zp_g2_affine_eq(&b, p));
	zp_g2_to_dec(&d, p);
	const char *x[2] = { d.c[0][0], d.c[0][1] }, *y[2] = { d.c[1][0], d.c[1][1] };
	const char *z[2] = { d.c[2][0], d.c[2][1] };
	CHECK_EQ_INT(zp_g2_from_dec(&b, x, y, z, opts), 0);
	CHECK(zp_g2_affine_eq(&b, p));
	if (!zp_g2_affine_is_inf(p)) {
		CHECK_EQ_INT(zp_g2_from_dec(&b, x, y, NULL, opts), 0);
		CHECK(zp_g2_affine_eq(&b, p));
		zp_g2_affine n;
		uint8_t cn[96];
		zp_g2_affine_neg(&n, p);
		zp_g2_to_compressed(cn, &n);
		CHECK(cn[0] == (c[0] ^ ZP_SER_FLAG_SIGN) && !memcmp(cn + 1, c + 1, 95));
	}
	memcpy(zk, p, 192);
	CHECK_EQ_INT(zp_g2_affine_from_zkey_bytes(&b, zk, opts), 0);
	CHECK(zp_g2_affine_eq(&b, p));
	CHECK_EQ_INT(zp_g2_affine_check_array(p, 1, opts, NULL), 0);
}

int main(void)
{
	zp_rng g;
	zp_rng_seed(&g, 0x5e41a1);
	zp_g1_affine p1[24];
	zp_g2_affine p2[12];
	p1[0] = (zp_g1_affine){ 0 };
	p1[1] = ZP_G1_GEN;
	for (int i = 2; i < 24; i++)
		ec_test_g1_random(&p1[i], &g);
	for (int i = 12; i < 24; i++)
		zp_g1_affine_neg(&p1[i], &p1[i]);
	p2[0] = (zp_g2_affine){ 0 };
	p2[1] = ZP_G2_GEN;
	for (int i = 2; i < 12; i++)
		ec_test_g2_random(&p2[i], &g);
	for (int i = 6; i < 12; i++)
		zp_g2_affine_neg(&p2[i], &p2[i]);
	for (int i = 0; i < 24; i++) {
		g1_roundtrip(&p1[i], 0);
		g1_roundtrip(&p1[i], ZP_SER_NO_SUBGROUP);
	}
	for (int i = 0; i < 12; i++) {
		g2_roundtrip(&p2[i], 0);
		g2_roundtrip(&p2[i], ZP_SER_NO_SUBGROUP);
	}
	CHECK_EQ_INT(zp_g1_affine_check_array(p1, 24, 0, NULL), 0);
	CHECK_EQ_INT(zp_g2_affine_check_array(p2, 12, 0, NULL), 0);

	/* Outside the subgroup: round trips only when the caller trusts the input. */
	for (int i = 0; i < 8; i++) {
		zp_g1_affine q1, b1;
		zp_g2_affine q2, b2;
		uint8_t c1[48], c2[96];
		ec_test_g1_on_curve(&q1, &g);
		ec_test_g2_on_curve(&q2, &g);
		g1_roundtrip(&q1, ZP_SER_NO_SUBGROUP);
		g2_roundtrip(&q2, ZP_SER_NO_SUBGROUP);
		zp_g1_to_compressed(c1, &q1);
		zp_g2_to_compressed(c2, &q2);
		b1 = ZP_G1_GEN;
		CHECK_EQ_INT(zp_g1_from_compressed(&b1, c1, 0), ZP_ESUBGROUP);
		CHECK(zp_g1_affine_eq(&b1, &ZP_G1_GEN));  /* untouched on failure */
		b2 = ZP_G2_GEN;
		CHECK_EQ_INT(zp_g2_from_compressed(&b2, c2, 0), ZP_ESUBGROUP);
		CHECK(zp_g2_affine_eq(&b2, &ZP_G2_GEN));
	}
	return ec_test_result("ser_roundtrip");
}
