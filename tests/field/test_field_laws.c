/*
 * test_field_laws — Fp, Fr and Fp2 laws on fresh random inputs (distributivity,
 * inverses, square roots, batch inversion vs single inversion, byte and decimal
 * round trips) and the rejection of bad input: from_be / from_le with x >= modulus
 * give ZP_ENONCANON; from_dec gives ZP_EFORMAT for empty strings and non-digits and
 * ZP_ENONCANON for values >= modulus.
 */
#include "field.h"
#include "fp2.h"
#include "zp_err.h"

#include "../common/zp_test.h"

#define N_BATCH 33

/* The same law checks for both prime fields. */
#define DEFINE_LAWS(F, T, NB)                                                           \
static void laws_##F(zp_rng *g)                                                         \
{                                                                                       \
	T a, b, c, t, u, v;                                                             \
	zp_##F##_random(&a, g);                                                         \
	zp_##F##_random(&b, g);                                                         \
	zp_##F##_random(&c, g);                                                         \
	zp_##F##_add(&t, &b, &c);                                                       \
	zp_##F##_mul(&t, &a, &t);                                                       \
	zp_##F##_mul(&u, &a, &b);                                                       \
	zp_##F##_mul(&v, &a, &c);                                                       \
	zp_##F##_add(&u, &u, &v);                                                       \
	CHECK(zp_##F##_eq(&t, &u), #F ": a(b+c) != ab+ac");                             \
	zp_##F##_sub(&t, &u, &v);                                                       \
	zp_##F##_mul(&v, &a, &b);                                                       \
	CHECK(zp_##F##_eq(&t, &v), #F ": (x+y)-y != x");                                \
	zp_##F##_neg(&t, &a);                                                           \
	zp_##F##_add(&t, &t, &a);                                                       \
	CHECK(zp_##F##_is_zero(&t), #F ": a + (-a) != 0");                              \
	zp_##F##_dbl(&t, &a);                                                           \
	zp_##F##_add(&u, &a, &a);                                                       \
	CHECK(zp_##F##_eq(&t, &u), #F ": dbl != a+a");                                  \
	zp_##F##_sqr(&t, &a);                                                           \
	zp_##F##_mul(&u, &a, &a);                                                       \
	CHECK(zp_##F##_eq(&t, &u), #F ": sqr != mul");                                  \
	zp_##F##_inv(&t, &a);                                                           \
	zp_##F##_mul(&t, &t, &a);                                                       \
	CHECK(zp_##F##_eq(&t, &ZP_##NB##_ONE), #F ": a·inv(a) != 1");                   \
	zp_##F##_inv(&t, &ZP_##NB##_ZERO);                                              \
	CHECK(zp_##F##_is_zero(&t), #F ": inv(0) != 0");                                \
	/* bytes and decimal round trips */                                             \
	uint8_t be[ZP_##NB##_BYTES], le[ZP_##NB##_BYTES];                               \
	zp_##F##_to_be(be, &a);                                                         \
	zp_##F##_to_le(le, &a);                                                         \
	for (int i = 0; i < ZP_##NB##_BYTES; i++)                                       \
		CHECK(be[i] == le[ZP_##NB##_BYTES - 1 - i], #F ": be is not reversed le"); \
	CHECK(zp_##F##_from_be(&t, be) == 0 && zp_##F##_eq(&t, &a), #F ": be round trip"); \
	CHECK(zp_##F##_from_le(&t, le) == 0 && zp_##F##_eq(&t, &a), #F ": le round trip"); \
	char dec[128];                                                                  \
	CHECK(zp_##F##_to_dec(dec, sizeof(dec), &a) > 0, #F ": to_dec");                \
	CHECK(zp_##F##_from_dec(&t, dec) == 0 && zp_##F##_eq(&t, &a), #F ": dec round trip"); \
	uint64_t raw[sizeof(T) / 8];                                                    \
	zp_##F##_from_mont(raw, &a);                                                    \
	zp_##F##_to_mont(&t, raw);                                                      \
	CHECK(zp_##F##_eq(&t, &a), #F ": mont round trip");                             \
	/* batch inversion, with zeros in it */                                         \
	T in[N_BATCH], out[N_BATCH], scratch[N_BATCH];                                  \
	for (int i = 0; i < N_BATCH; i++) {                                             \
		zp_##F##_random(&in[i], g);                                             \
		if (i % 11 == 4)                                                        \
			in[i] = ZP_##NB##_ZERO;                                         \
	}                                                                               \
	zp_##F##_batch_inv(out, in, N_BATCH, scratch);                                  \
	for (int i = 0; i < N_BATCH; i++) {                                             \
		zp_##F##_inv(&t, &in[i]);                                               \
		CHECK(zp_##F##_eq(&t, &out[i]), #F ": batch_inv[%d] != inv", i);        \
	}                                                                               \
	zp_##F##_batch_inv(in, in, N_BATCH, scratch);  /* in place */                   \
	for (int i = 0; i < N_BATCH; i++)                                               \
		CHECK(zp_##F##_eq(&in[i], &out[i]), #F ": in-place batch_inv[%d]", i);  \
}                                                                                       \
                                                                                        \
/* Canonicity: modulus, modulus + 1 and all-ones bytes are rejected; modulus - 1 is fine. */ \
static void reject_##F(const uint64_t *mod, const char *mod_dec)                        \
{                                                                                       \
	enum { NL = ZP_##NB##_BYTES / 8 };                                              \
	uint8_t be[ZP_##NB##_BYTES], le[ZP_##NB##_BYTES];                               \
	uint64_t v[NL];                                                                 \
	T t;                                                                            \
	for (int k = -1; k <= 1; k++) {                                                 \
		memcpy(v, mod, sizeof(v));                                              \
		v[0] += (uint64_t)k;  /* low limbs of both moduli are far from 0 and 2^64 */ \
		for (int i = 0; i < ZP_##NB##_BYTES; i++) {                             \
			le[i] = (uint8_t)(v[i / 8] >> (8 * (i % 8)));                   \
			be[ZP_##NB##_BYTES - 1 - i] = le[i];                            \
		}                                                                       \
		int want = k < 0 ? 0 : ZP_ENONCANON;                                    \
		CHECK(zp_##F##_from_be(&t, be) == want, #F ": from_be(mod%+d)", k);     \
		CHECK(zp_##F##_from_le(&t, le) == want, #F ": from_le(mod%+d)", k);     \
	}                                                                               \
	memset(be, 0xff, sizeof(be));                                                   \
	CHECK(zp_##F##_from_be(&t, be) == ZP_ENONCANON, #F ": from_be(all ones)");       \
	CHECK(zp_##F##_from_le(&t, be) == ZP_ENONCANON, #F ": from_le(all ones)");       \
	/* decimal */                                                                   \
	char buf[256];                                                                  \
	static const char *bad[] = { "", "-1", "+1", " 1", "1 ", "12a", "0x10", "1.0", "١" }; \
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)                        \
		CHECK(zp_##F##_from_dec(&t, bad[i]) == ZP_EFORMAT, #F ": from_dec(\"%s\") accepted", bad[i]); \
	CHECK(zp_##F##_from_dec(&t, mod_dec) == ZP_ENONCANON, #F ": from_dec(modulus)"); \
	snprintf(buf, sizeof(buf), "%s", mod_dec);                                      \
	buf[strlen(buf) - 1]++;  /* modulus + 1 (last digit of both is < 9) */          \
	CHECK(zp_##F##_from_dec(&t, buf) == ZP_ENONCANON, #F ": from_dec(modulus+1)");   \
	snprintf(buf, sizeof(buf), "%s000000000000000000000000000000", mod_dec);        \
	CHECK(zp_##F##_from_dec(&t, buf) == ZP_ENONCANON, #F ": from_dec(huge)");        \
	snprintf(buf, sizeof(buf), "%s", mod_dec);                                      \
	buf[strlen(buf) - 1]--;  /* modulus - 1 */                                      \
	CHECK(zp_##F##_from_dec(&t, buf) == 0, #F ": from_dec(modulus-1) rejected");     \
	zp_##F##_add(&t, &t, &ZP_##NB##_ONE);                                           \
	CHECK(zp_##F##_is_zero(&t), #F ": (modulus-1) + 1 != 0");                        \
	CHECK(zp_##F##_from_dec(&t, "0") == 0 && zp_##F##_is_zero(&t), #F ": from_dec(0)"); \
	CHECK(zp_##F##_to_dec(buf, 3, &ZP_##NB##_ONE) == 1 && !strcmp(buf, "1"), #F ": to_dec(1)"); \
	zp_##F##_sub(&t, &ZP_##NB##_ZERO, &ZP_##NB##_ONE);                              \
	CHECK(zp_##F##_to_dec(buf, 10, &t) == ZP_ERANGE, #F ": to_dec into a short buffer"); \
}

DEFINE_LAWS(fp, zp_fp, FP)
DEFINE_LAWS(fr, zp_fr, FR)

static const char *Q_DEC = "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559787";
static const char *R_DEC = "52435875175126190479447740508185965837690552500527637822603658699938581184513";

static void sqrt_laws(zp_rng *g)
{
	zp_fp a, r, r2;
	zp_fp2 b, s, s2;
	int squares = 0;
	for (int i = 0; i < 16; i++) {
		zp_fp_random(&a, g);
		zp_fp_sqr(&r2, &a);
		CHECK(zp_fp_sqrt(&r, &r2), "fp: a^2 has no sqrt");
		zp_fp_sqr(&r, &r);
		CHECK(zp_fp_eq(&r, &r2), "fp: sqrt(a^2)^2 != a^2");
		if (zp_fp_sqrt(&r, &a)) {
			squares++;
			zp_fp_sqr(&r, &r);
			CHECK(zp_fp_eq(&r, &a), "fp: sqrt(a)^2 != a");
		} else {
			zp_fp_neg(&r2, &a);  /* q = 3 mod 4: -1 is a non-square, so -a is a square */
			CHECK(zp_fp_sqrt(&r, &r2), "fp: neither a nor -a is a square");
		}
		zp_fp2_random(&b, g);
		zp_fp2_sqr(&s2, &b);
		CHECK(zp_fp2_sqrt(&s, &s2), "fp2: b^2 has no sqrt");
		zp_fp2_sqr(&s, &s);
		CHECK(zp_fp2_eq(&s, &s2), "fp2: sqrt(b^2)^2 != b^2");
		if (zp_fp2_sqrt(&s, &b)) {
			zp_fp2_sqr(&s, &s);
			CHECK(zp_fp2_eq(&s, &b), "fp2: sqrt(b)^2 != b");
		}
		zp_fp_neg(&r, &a);
		CHECK(zp_fp_is_zero(&a) || zp_fp_is_lexlargest(&a) != zp_fp_is_lexlargest(&r),
		      "fp: exactly one of a, -a is lexicographically largest");
	}
	CHECK(squares > 0 && squares < 16, "fp: %d of 16 random elements are squares", squares);
}

static void fp2_laws(zp_rng *g)
{
	zp_fp2 a, b, c, t, u, v;
	zp_fp2_random(&a, g);
	zp_fp2_random(&b, g);
	zp_fp2_random(&c, g);
	zp_fp2_add(&t, &b, &c);
	zp_fp2_mul(&t, &a, &t);
	zp_fp2_mul(&u, &a, &b);
	zp_fp2_mul(&v, &a, &c);
	zp_fp2_add(&u, &u, &v);
	CHECK(zp_fp2_eq(&t, &u), "fp2: a(b+c) != ab+ac");
	zp_fp2_sqr(&t, &a);
	zp_fp2_mul(&u, &a, &a);
	CHECK(zp_fp2_eq(&t, &u), "fp2: sqr != mul");
	zp_fp2_inv(&t, &a);
	zp_fp2_mul(&t, &t, &a);
	CHECK(zp_fp2_eq(&t, &ZP_FP2_ONE), "fp2: a·inv(a) != 1");
	zp_fp2_conj(&t, &a);
	zp_fp2_pow(&u, &a, ZP_FP_MODULUS, 6);
	CHECK(zp_fp2_eq(&t, &u), "fp2: conj(a) != a^q");
	v = ZP_FP2_ONE;
	v.c1 = ZP_FP_ONE;  /* 1 + u */
	zp_fp2_mul_nonres(&t, &a);
	zp_fp2_mul(&u, &a, &v);
	CHECK(zp_fp2_eq(&t, &u), "fp2: mul_nonres != ·(1+u)");
	zp_fp2_mul_fp(&t, &a, &b.c0);
	v.c0 = b.c0;
	v.c1 = ZP_FP_ZERO;
	zp_fp2_mul(&u, &a, &v);
	CHECK(zp_fp2_eq(&t, &u), "fp2: mul_fp");
}

int main(void)
{
	zp_rng g;
	zp_rng_seed(&g, zp_test_seed());
	for (int i = 0; i < 16; i++) {
		laws_fp(&g);
		laws_fr(&g);
		fp2_laws(&g);
	}
	sqrt_laws(&g);
	reject_fp(ZP_FP_MODULUS, Q_DEC);
	reject_fr(ZP_FR_MODULUS, R_DEC);
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}
