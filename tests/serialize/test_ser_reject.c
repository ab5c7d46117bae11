/* Bad encodings are refused with the code serialize.h promises, and the output
 * point is left alone: wrong flag bits, infinity with garbage, coordinates >= q,
 * x without a curve point, off the curve, outside the subgroup. */
#include <string.h>

#include "ec_test.h"
#include "serialize.h"

static const char Q_DEC[] =
	"4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559787";
static const char Q_PLUS_ONE_DEC[] =
	"4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559788";

/* q, big-endian 48 bytes */
static void q_be(uint8_t out[48])
{
	for (int i = 0; i < 6; i++)
		for (int b = 0; b < 8; b++)
			out[47 - (8 * i + b)] = (uint8_t)(ZP_FP_MODULUS[i] >> (8 * b));
}

/* out = a + q (big-endian 48 bytes); false if the sum needs more than 381 bits. */
static bool add_q_be(uint8_t out[48], const uint8_t a[48])
{
	uint8_t q[48];
	unsigned carry = 0;
	q_be(q);
	for (int i = 47; i >= 0; i--) {
		unsigned s = a[i] + q[i] + carry;
		out[i] = (uint8_t)s;
		carry = s >> 8;
	}
	return !carry && out[0] < 0x20;
}

static bool is_square_rhs_g1(const zp_fp *x)
{
	zp_fp r, four, y;
	zp_fp_sqr(&r, x);
	zp_fp_mul(&r, &r, x);
	zp_fp_from_u64(&four, 4);
	zp_fp_add(&r, &r, &four);
	return zp_fp_sqrt(&y, &r);
}

static bool is_square_rhs_g2(const zp_fp2 *x)
{
	zp_fp2 r, b, y;
	zp_fp2_sqr(&r, x);
	zp_fp2_mul(&r, &r, x);
	zp_fp_from_u64(&b.c0, 4);
	b.c1 = b.c0;
	zp_fp2_add(&r, &r, &b);
	return zp_fp2_sqrt(&y, &r);
}

#define EXPECT_G1C(buf, opts, code) do { zp_g1_affine _o = ZP_G1_GEN; \
	CHECK_EQ_INT(zp_g1_from_compressed(&_o, buf, opts), code); \
	if (code) CHECK(zp_g1_affine_eq(&_o, &ZP_G1_GEN)); } while (0)
#define EXPECT_G1U(buf, opts, code) do { zp_g1_affine _o = ZP_G1_GEN; \
	CHECK_EQ_INT(zp_g1_from_uncompressed(&_o, buf, opts), code); \
	if (code) CHECK(zp_g1_affine_eq(&_o, &ZP_G1_GEN)); } while (0)
#define EXPECT_G2C(buf, opts, code) do { zp_g2_affine _o = ZP_G2_GEN; \
	CHECK_EQ_INT(zp_g2_from_compressed(&_o, buf, opts), code); \
	if (code) CHECK(zp_g2_affine_eq(&_o, &ZP_G2_GEN)); } while (0)
#define EXPECT_G2U(buf, opts, code) do { zp_g2_affine _o = ZP_G2_GEN; \
	CHECK_EQ_INT(zp_g2_from_uncompressed(&_o, buf, opts), code); \
	if (code) CHECK(zp_g2_affine_eq(&_o, &ZP_G2_GEN)); } while (0)

static void g1_bytes(zp_rng *g)
{
	zp_g1_affine p, inf = { 0 }, off;
	uint8_t c[48], u[96], t[96];
	ec_test_g1_random(&p, g);
	zp_g1_to_compressed(c, &p);
	zp_g1_to_uncompressed(u, &p);
	EXPECT_G1C(c, 0, 0);
	EXPECT_G1U(u, 0, 0);

	/* flags */
	memcpy(t, c, 48); t[0] &= 0x7f;                 EXPECT_G1C(t, 0, ZP_EFLAGS);
	memcpy(t, u, 96); t[0] |= 0x80;                 EXPECT_G1U(t, 0, ZP_EFLAGS);
	memcpy(t, u, 96); t[0] |= 0x20;                 EXPECT_G1U(t, 0, ZP_EFLAGS);
	zp_g1_to_compressed(t, &inf);                   EXPECT_G1C(t, 0, 0);
	t[0] |= 0x20;                                   EXPECT_G1C(t, 0, ZP_EFLAGS);
	zp_g1_to_compressed(t, &inf); t[47] = 1;        EXPECT_G1C(t, 0, ZP_EFLAGS);
	zp_g1_to_compressed(t, &inf); t[0] |= 0x01;     EXPECT_G1C(t, 0, ZP_EFLAGS);
	memcpy(t, c, 48); t[0] |= 0x40;                 EXPECT_G1C(t, 0, ZP_EFLAGS);  /* x under inf */
	zp_g1_to_uncompressed(t, &inf);                 EXPECT_G1U(t, 0, 0);
	t[95] = 0x80;                                   EXPECT_G1U(t, 0, ZP_EFLAGS);
	zp_g1_to_uncompressed(t, &inf); t[0] |= 0x80;   EXPECT_G1U(t, 0, ZP_EFLAGS);
	zp_g1_to_uncompressed(t, &inf);                 EXPECT_G1C(t, 0, ZP_EFLAGS);  /* uncompressed inf to the compressed decoder */

	/* non-canonical coordinates */
	q_be(t); t[0] |= 0x80;                          EXPECT_G1C(t, 0, ZP_ENONCANON);
	memset(t, 0xff, 48); t[0] = 0x9f;               EXPECT_G1C(t, 0, ZP_ENONCANON);
	memcpy(t, u, 96); q_be(t + 48);                 EXPECT_G1U(t, 0, ZP_ENONCANON);
	memcpy(t, u, 96); q_be(t);                      EXPECT_G1U(t, 0, ZP_ENONCANON);
	memcpy(t, u, 96); t[48] = 0xe0;                 EXPECT_G1U(t, 0, ZP_ENONCANON); /* high bits of y are not flags */
	for (int tries = 0; tries < 64; tries++) {      /* x + q: the same point, non-canonically */
		uint8_t xb[48];
		zp_fp_to_be(xb, &p.x);
		if (add_q_be(t, xb)) {
			memcpy(t + 48, u + 48, 48);
			EXPECT_G1U(t, 0, ZP_ENONCANON);
			t[0] |= 0x80 | (c[0] & 0x20);
			EXPECT_G1C(t, 0, ZP_ENONCANON);
			break;
		}
		ec_test_g1_random(&p, g);
		zp_g1_to_compressed(c, &p);
		zp_g1_to_uncompressed(u, &p);
	}

	/* x with no point */
	zp_fp x;
	do
		zp_fp_random(&x, g);
	while (is_square_rhs_g1(&x));
	zp_fp_to_be(t, &x); t[0] |= 0x80;               EXPECT_G1C(t, 0, ZP_ENOTSQR);

	/* off the curve, (0, 0) without the infinity flag */
	memcpy(t, u, 96); t[95] ^= 1;                   EXPECT_G1U(t, 0, ZP_EINVAL_POINT);
	memset(t, 0, 96);                               EXPECT_G1U(t, 0, ZP_EINVAL_POINT);

	/* outside the subgroup */
	ec_test_g1_on_curve(&off, g);
	zp_g1_to_compressed(t, &off);                   EXPECT_G1C(t, 0, ZP_ESUBGROUP);
	EXPECT_G1C(t, ZP_SER_NO_SUBGROUP, 0);
	zp_g1_to_uncompressed(t, &off);                 EXPECT_G1U(t, 0, ZP_ESUBGROUP);
	EXPECT_G1U(t, ZP_SER_NO_SUBGROUP, 0);
	zp_g1_from_uncompressed(&off, t, 0);
	CHECK(strstr(zp_err_msg(), "subgroup") != NULL);
}

static void g2_bytes(zp_rng *g)
{
	zp_g2_affine p, inf = { 0 }, off;
	uint8_t c[96], u[192], t[192];
	ec_test_g2_random(&p, g);
	zp_g2_to_compressed(c, &p);
	zp_g2_to_uncompressed(u, &p);
	EXPECT_G2C(c, 0, 0);
	EXPECT_G2U(u, 0, 0);

	memcpy(t, c, 96); t[0] &= 0x7f;                 EXPECT_G2C(t, 0, ZP_EFLAGS);
	memcpy(t, u, 192); t[0] |= 0x80;                EXPECT_G2U(t, 0, ZP_EFLAGS);
	memcpy(t, u, 192); t[0] |= 0x20;                EXPECT_G2U(t, 0, ZP_EFLAGS);
	zp_g2_to_compressed(t, &inf);                   EXPECT_G2C(t, 0, 0);
	t[0] |= 0x20;                                   EXPECT_G2C(t, 0, ZP_EFLAGS);
	zp_g2_to_compressed(t, &inf); t[60] = 1;        EXPECT_G2C(t, 0, ZP_EFLAGS);
	zp_g2_to_uncompressed(t, &inf);                 EXPECT_G2U(t, 0, 0);
	t[150] = 2;                                     EXPECT_G2U(t, 0, ZP_EFLAGS);
	zp_g2_to_uncompressed(t, &inf); t[0] |= 0x20;   EXPECT_G2U(t, 0, ZP_EFLAGS);

	/* non-canonical: c1 (first), c0 (second) of x; c1, c0 of y */
	memcpy(t, c, 96); q_be(t); t[0] |= 0x80;        EXPECT_G2C(t, 0, ZP_ENONCANON);
	memcpy(t, c, 96); q_be(t + 48);                 EXPECT_G2C(t, 0, ZP_ENONCANON);
	memcpy(t, u, 192); q_be(t + 96);                EXPECT_G2U(t, 0, ZP_ENONCANON);
	memcpy(t, u, 192); q_be(t + 144);               EXPECT_G2U(t, 0, ZP_ENONCANON);
	memcpy(t, u, 192); t[96] |= 0x80;               EXPECT_G2U(t, 0, ZP_ENONCANON);

	zp_fp2 x;
	do
		zp_fp2_random(&x, g);
	while (is_square_rhs_g2(&x));
	zp_fp_to_be(t, &x.c1); zp_fp_to_be(t + 48, &x.c0); t[0] |= 0x80;
	EXPECT_G2C(t, 0, ZP_ENOTSQR);

	memcpy(t, u, 192); t[191] ^= 1;                 EXPECT_G2U(t, 0, ZP_EINVAL_POINT);
	memset(t, 0, 192);                              EXPECT_G2U(t, 0, ZP_EINVAL_POINT);

	ec_test_g2_on_curve(&off, g);
	zp_g2_to_compressed(t, &off);                   EXPECT_G2C(t, 0, ZP_ESUBGROUP);
	EXPECT_G2C(t, ZP_SER_NO_SUBGROUP, 0);
	zp_g2_to_uncompressed(t, &off);                 EXPECT_G2U(t, 0, ZP_ESUBGROUP);
	EXPECT_G2U(t, ZP_SER_NO_SUBGROUP, 0);
}

static void dec_strings(zp_rng *g)
{
	zp_g1_affine p, o, off;
	zp_g1_dec d;
	ec_test_g1_random(&p, g);
	zp_g1_to_dec(&d, &p);
	o = ZP_G1_GEN;
	CHECK_EQ_INT(zp_g1_from_dec(&o, Q_DEC, d.c[1], "1", 0), ZP_ENONCANON);
	CHECK_EQ_INT(zp_g1_from_dec(&o, d.c[0], Q_PLUS_ONE_DEC, "1", 0), ZP_ENONCANON);
	CHECK_EQ_INT(zp_g1_from_dec(&o, "12a", d.c[1], "1", 0), ZP_EFORMAT);
	CHECK_EQ_INT(zp_g1_from_dec(&o, "", d.c[1], "1", 0), ZP_EFORMAT);
	CHECK_EQ_INT(zp_g1_from_dec(&o, "-1", d.c[1], "1", 0), ZP_EFORMAT);
	CHECK_EQ_INT(zp_g1_from_dec(&o, NULL, d.c[1], "1", 0), ZP_EFORMAT);
	CHECK_EQ_INT(zp_g1_from_dec(&o, d.c[0], d.c[1], "2", 0), ZP_EFORMAT);
	CHECK_EQ_INT(zp_g1_from_dec(&o, d.c[0], d.c[1], "0", 0), ZP_EFORMAT);
	CHECK_EQ_INT(zp_g1_from_dec(&o, "0", "0", "0", 0), ZP_EFORMAT);
	CHECK_EQ_INT(zp_g1_from_dec(&o, "0", "0", "1", 0), ZP_EINVAL_POINT);
	CHECK_EQ_INT(zp_g1_from_dec(&o, d.c[0], "5", "1", 0), ZP_EINVAL_POINT);
	CHECK(zp_g1_affine_eq(&o, &ZP_G1_GEN));
	CHECK_EQ_INT(zp_g1_from_dec(&o, "0", "1", "0", 0), 0);
	CHECK(zp_g1_affine_is_inf(&o));
	ec_test_g1_on_curve(&off, g);
	zp_g1_to_dec(&d, &off);
	CHECK_EQ_INT(zp_g1_from_dec(&o, d.c[0], d.c[1], d.c[2], 0), ZP_ESUBGROUP);
	CHECK_EQ_INT(zp_g1_from_dec(&o, d.c[0], d.c[1], d.c[2], ZP_SER_NO_SUBGROUP), 0);

	zp_g2_affine p2, o2;
	zp_g2_dec d2;
	ec_test_g2_random(&p2, g);
	zp_g2_to_dec(&d2, &p2);
	const char *x[2] = { d2.c[0][0], d2.c[0][1] }, *y[2] = { d2.c[1][0], d2.c[1][1] };
	const char *one[2] = { "1", "0" }, *zero[2] = { "0", "0" }, *bad_z[2] = { "1", "1" };
	const char *xq[2] = { d2.c[0][0], Q_DEC }, *ybad[2] = { d2.c[1][0], "7" };
	o2 = ZP_G2_GEN;
	CHECK_EQ_INT(zp_g2_from_dec(&o2, x, y, one, 0), 0);
	CHECK(zp_g2_affine_eq(&o2, &p2));
	o2 = ZP_G2_GEN;
	CHECK_EQ_INT(zp_g2_from_dec(&o2, xq, y, one, 0), ZP_ENONCANON);
	CHECK_EQ_INT(zp_g2_from_dec(&o2, x, y, bad_z, 0), ZP_EFORMAT);
	CHECK_EQ_INT(zp_g2_from_dec(&o2, x, y, zero, 0), ZP_EFORMAT);
	CHECK_EQ_INT(zp_g2_from_dec(&o2, x, ybad, one, 0), ZP_EINVAL_POINT);
	CHECK(zp_g2_affine_eq(&o2, &ZP_G2_GEN));
	CHECK_EQ_INT(zp_g2_from_dec(&o2, zero, one, zero, 0), 0);
	CHECK(zp_g2_affine_is_inf(&o2));
}

static void zkey_bytes(zp_rng *g)
{
	zp_g1_affine pts[8], o, off;
	uint8_t b[96];
	for (int i = 0; i < 8; i++)
		ec_test_g1_random(&pts[i], g);
	pts[3] = (zp_g1_affine){ 0 };   /* all-zero infinity is valid in a .zkey */
	CHECK_EQ_INT(zp_g1_affine_check_array(pts, 8, 0, NULL), 0);

	memcpy(b, &pts[0], 96);
	memcpy(b, ZP_FP_MODULUS, 48);            /* x = q as a limb value */
	o = ZP_G1_GEN;
	CHECK_EQ_INT(zp_g1_affine_from_zkey_bytes(&o, b, 0), ZP_ENONCANON);
	memset(b + 48, 0xff, 48);
	CHECK_EQ_INT(zp_g1_affine_from_zkey_bytes(&o, b, 0), ZP_ENONCANON);
	memcpy(b, &pts[0], 96);
	b[0] ^= 1;
	CHECK_EQ_INT(zp_g1_affine_from_zkey_bytes(&o, b, 0), ZP_EINVAL_POINT);
	CHECK(zp_g1_affine_eq(&o, &ZP_G1_GEN));

	ec_test_g1_on_curve(&off, g);
	memcpy(b, &off, 96);
	CHECK_EQ_INT(zp_g1_affine_from_zkey_bytes(&o, b, 0), ZP_ESUBGROUP);
	CHECK_EQ_INT(zp_g1_affine_from_zkey_bytes(&o, b, ZP_SER_NO_SUBGROUP), 0);
	CHECK(zp_g1_affine_eq(&o, &off));

	size_t bad = 99;
	pts[5] = off;
	CHECK_EQ_INT(zp_g1_affine_check_array(pts, 8, 0, &bad), ZP_ESUBGROUP);
	CHECK_EQ_INT(bad, 5);
	CHECK_EQ_INT(zp_g1_affine_check_array(pts, 8, ZP_SER_NO_SUBGROUP, &bad), 0);
	pts[6].y.l[2] ^= 4;
	CHECK_EQ_INT(zp_g1_affine_check_array(pts, 8, ZP_SER_NO_SUBGROUP, &bad), ZP_EINVAL_POINT);
	CHECK_EQ_INT(bad, 6);
	memcpy(&pts[2].x, ZP_FP_MODULUS, 48);
	CHECK_EQ_INT(zp_g1_affine_check_array(pts, 8, 0, &bad), ZP_ENONCANON);
	CHECK_EQ_INT(bad, 2);

	zp_g2_affine q[4], o2, off2;
	uint8_t b2[192];
	for (int i = 0; i < 4; i++)
		ec_test_g2_random(&q[i], g);
	CHECK_EQ_INT(zp_g2_affine_check_array(q, 4, 0, NULL), 0);
	for (int k = 0; k < 4; k++) {            /* each of x.c0, x.c1, y.c0, y.c1 = q */
		memcpy(b2, &q[0], 192);
		memcpy(b2 + 48 * k, ZP_FP_MODULUS, 48);
		CHECK_EQ_INT(zp_g2_affine_from_zkey_bytes(&o2, b2, 0), ZP_ENONCANON);
	}
	memcpy(b2, &q[1], 192);
	b2[100] ^= 8;
	CHECK_EQ_INT(zp_g2_affine_from_zkey_bytes(&o2, b2, 0), ZP_EINVAL_POINT);
	ec_test_g2_on_curve(&off2, g);
	memcpy(b2, &off2, 192);
	CHECK_EQ_INT(zp_g2_affine_from_zkey_bytes(&o2, b2, 0), ZP_ESUBGROUP);
	CHECK_EQ_INT(zp_g2_affine_from_zkey_bytes(&o2, b2, ZP_SER_NO_SUBGROUP), 0);
	q[2] = off2;
	size_t bad2 = 0;
	CHECK_EQ_INT(zp_g2_affine_check_array(q, 4, 0, &bad2), ZP_ESUBGROUP);
	CHECK_EQ_INT(bad2, 2);
}

/* Large arrays go through the thread pool: the lowest bad index must win. */
static void big_arrays(zp_rng *g)
{
	enum { N = 20000, M = 300 };
	static zp_g1_jac j[N];
	static zp_g1_affine a[N];
	zp_g1_jac_from_affine(&j[0], &ZP_G1_GEN);
	for (size_t i = 1; i < N; i++)
		zp_g1_jac_add_affine(&j[i], &j[i - 1], &ZP_G1_GEN);
	zp_g1_jac_batch_to_affine(a, j, N);
	size_t bad = 0;
	CHECK_EQ_INT(zp_g1_affine_check_array(a, N, ZP_SER_NO_SUBGROUP, &bad), 0);
	CHECK_EQ_INT(zp_g1_affine_check_array(a, M, 0, &bad), 0);
	zp_g1_affine off, keep1 = a[17001], keep2 = a[12345];
	ec_test_g1_on_curve(&off, g);
	a[17001].y.l[0] ^= 1;
	a[12345] = off;
	CHECK_EQ_INT(zp_g1_affine_check_array(a, N, ZP_SER_NO_SUBGROUP, &bad), ZP_EINVAL_POINT);
	CHECK_EQ_INT(bad, 17001);
	CHECK(strstr(zp_err_msg(), "17001") != NULL);
	a[15000].x.l[5] = ~0ULL;
	CHECK_EQ_INT(zp_g1_affine_check_array(a, N, ZP_SER_NO_SUBGROUP, &bad), ZP_ENONCANON);
	CHECK_EQ_INT(bad, 15000);
	a[17001] = keep1;
	a[12345] = keep2;
	a[15000] = keep2;
	a[250] = off;
	a[77] = off;
	CHECK_EQ_INT(zp_g1_affine_check_array(a, M, 0, &bad), ZP_ESUBGROUP);
	CHECK_EQ_INT(bad, 77);
	CHECK_EQ_INT(zp_g1_affine_check_array(a, M, ZP_SER_NO_SUBGROUP, &bad), 0);
}

int main(void)
{
	zp_rng g;
	zp_rng_seed(&g, 0xbad);
	for (int i = 0; i < 4; i++) {
		g1_bytes(&g);
		g2_bytes(&g);
		dec_strings(&g);
		zkey_bytes(&g);
	}
	big_arrays(&g);
	return ec_test_result("ser_reject");
}
