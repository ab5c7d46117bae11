/*
 * test_fp12_laws — the Fp6/Fp12 tower on fresh random elements: ring laws, inverses,
 * squaring vs multiplication, the sparse multiplications vs full ones, every Frobenius
 * map vs plain exponentiation by q^k (this is what validates the FROB constants),
 * and the cyclotomic squaring / exponentiation vs the generic ones.
 */
#include "util.h"

/* out = a·b for raw little-endian integers (na + nb limbs written). */
static void big_mul(uint64_t *out, const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	memset(out, 0, (na + nb) * sizeof(uint64_t));
	for (size_t i = 0; i < na; i++) {
		unsigned __int128 c = 0;
		for (size_t j = 0; j < nb; j++) {
			c += (unsigned __int128)a[i] * b[j] + out[i + j];
			out[i + j] = (uint64_t)c;
			c >>= 64;
		}
		out[i + nb] = (uint64_t)c;
	}
}

static void rand_fp6(zp_fp6 *a, zp_rng *g)
{
	zp_fp2_random(&a->c0, g);
	zp_fp2_random(&a->c1, g);
	zp_fp2_random(&a->c2, g);
}

static void check_ring(zp_rng *g)
{
	zp_fp12 a, b, c, t, u, v;
	zp_fp12_random(&a, g);
	zp_fp12_random(&b, g);
	zp_fp12_random(&c, g);
	zp_fp12_mul(&t, &a, &b);
	zp_fp12_mul(&t, &t, &c);
	zp_fp12_mul(&u, &b, &c);
	zp_fp12_mul(&u, &a, &u);
	CHECK(zp_fp12_eq(&t, &u), "fp12 mul not associative");
	zp_fp12_mul(&t, &a, &b);
	zp_fp12_mul(&u, &b, &a);
	CHECK(zp_fp12_eq(&t, &u), "fp12 mul not commutative");
	zp_fp12_add(&t, &b, &c);
	zp_fp12_mul(&t, &a, &t);
	zp_fp12_mul(&u, &a, &b);
	zp_fp12_mul(&v, &a, &c);
	zp_fp12_add(&u, &u, &v);
	CHECK(zp_fp12_eq(&t, &u), "fp12 not distributive");
	zp_fp12_sub(&t, &u, &v);
	zp_fp12_mul(&v, &a, &b);
	CHECK(zp_fp12_eq(&t, &v), "fp12 sub");
	zp_fp12_sqr(&t, &a);
	zp_fp12_mul(&u, &a, &a);
	CHECK(zp_fp12_eq(&t, &u), "fp12 sqr != mul");
	zp_fp12_inv(&t, &a);
	zp_fp12_mul(&t, &t, &a);
	CHECK(zp_fp12_is_one(&t), "fp12 a·inv(a) != 1");
	CHECK(!zp_fp12_is_one(&a) && !zp_fp12_is_zero(&a), "random element is 0 or 1");
	zp_fp12_inv(&t, &ZP_FP12_ZERO);
	CHECK(zp_fp12_is_zero(&t), "fp12 inv(0) != 0");
	zp_fp12_conj(&t, &a);
	zp_fp12_conj(&t, &t);
	CHECK(zp_fp12_eq(&t, &a), "conj is not an involution");
}

static void check_fp6(zp_rng *g)
{
	zp_fp6 a, b, t, u;
	zp_fp2 b0, b1;
	rand_fp6(&a, g);
	rand_fp6(&b, g);
	zp_fp6_sqr(&t, &a);
	zp_fp6_mul(&u, &a, &a);
	CHECK(zp_fp6_eq(&t, &u), "fp6 sqr != mul");
	zp_fp6_inv(&t, &a);
	zp_fp6_mul(&t, &t, &a);
	CHECK(zp_fp6_eq(&t, &ZP_FP6_ONE), "fp6 a·inv(a) != 1");
	b0 = b.c0;
	b1 = b.c1;
	b.c2 = ZP_FP2_ZERO;
	zp_fp6_mul_by_01(&t, &a, &b0, &b1);
	zp_fp6_mul(&u, &a, &b);
	CHECK(zp_fp6_eq(&t, &u), "fp6 mul_by_01");
	b.c0 = ZP_FP2_ZERO;
	zp_fp6_mul_by_1(&t, &a, &b1);
	zp_fp6_mul(&u, &a, &b);
	CHECK(zp_fp6_eq(&t, &u), "fp6 mul_by_1");
	b = ZP_FP6_ZERO;
	b.c1 = ZP_FP2_ONE;  /* v */
	zp_fp6_mul_by_v(&t, &a);
	zp_fp6_mul(&u, &a, &b);
	CHECK(zp_fp6_eq(&t, &u), "fp6 mul_by_v");
}

static void check_sparse(zp_rng *g)
{
	zp_fp12 a, l = ZP_FP12_ZERO, t, u;
	zp_fp12_random(&a, g);
	zp_fp2_random(&l.c0.c0, g);
	zp_fp2_random(&l.c0.c1, g);
	zp_fp2_random(&l.c1.c1, g);
	zp_fp12_mul_by_014(&t, &a, &l.c0.c0, &l.c0.c1, &l.c1.c1);
	zp_fp12_mul(&u, &a, &l);
	CHECK(zp_fp12_eq(&t, &u), "fp12 mul_by_014 != full mul");
}

static void check_frobenius(zp_rng *g)
{
	uint64_t qk[3][18];
	zp_fp12 a, t, u;
	memcpy(qk[0], ZP_FP_MODULUS, sizeof(ZP_FP_MODULUS));
	big_mul(qk[1], qk[0], 6, ZP_FP_MODULUS, 6);
	big_mul(qk[2], qk[1], 12, ZP_FP_MODULUS, 6);
	zp_fp12_random(&a, g);
	for (unsigned k = 1; k <= 3; k++) {
		zp_fp12_frobenius(&t, &a, k);
		zp_fp12_pow(&u, &a, qk[k - 1], 6 * k);
		CHECK(zp_fp12_eq(&t, &u), "frobenius %u != a^(q^%u)", k, k);
	}
	zp_fp12_frobenius(&t, &a, 6);
	zp_fp12_conj(&u, &a);
	CHECK(zp_fp12_eq(&t, &u), "frobenius 6 != conj");
	zp_fp12_frobenius(&u, &a, 1);
	for (int i = 1; i < 6; i++)
		zp_fp12_frobenius(&u, &u, 1);
	CHECK(zp_fp12_eq(&t, &u), "frobenius 1 six times != frobenius 6");
	zp_fp12_frobenius(&t, &a, 12);
	CHECK(zp_fp12_eq(&t, &a), "frobenius 12 != identity");
	zp_fp12_frobenius(&t, &a, 5);
	zp_fp12_frobenius(&t, &t, 7);
	CHECK(zp_fp12_eq(&t, &a), "frobenius 5 then 7 != identity");
}

static void check_cyclotomic(zp_rng *g)
{
	zp_fp12 a, m, t, u;
	zp_fp12_random(&a, g);
	/* m = a^((q^6 - 1)(q^2 + 1)) lies in the cyclotomic subgroup */
	zp_fp12_inv(&t, &a);
	zp_fp12_conj(&m, &a);
	zp_fp12_mul(&m, &m, &t);
	zp_fp12_frobenius(&t, &m, 2);
	zp_fp12_mul(&m, &m, &t);
	zp_fp12_conj(&t, &m);
	zp_fp12_mul(&t, &t, &m);
	CHECK(zp_fp12_is_one(&t), "cyclotomic: conj(m)·m != 1");
	zp_fp12_cyclotomic_sqr(&t, &m);
	zp_fp12_sqr(&u, &m);
	CHECK(zp_fp12_eq(&t, &u), "cyclotomic_sqr != sqr");
	uint64_t e = zp_rng_next(g);
	zp_fp12_cyclotomic_pow_u64(&t, &m, e);
	zp_fp12_pow(&u, &m, &e, 1);
	CHECK(zp_fp12_eq(&t, &u), "cyclotomic_pow_u64 != pow");
	zp_fp12_cyclotomic_pow_u64(&t, &m, 0);
	CHECK(zp_fp12_is_one(&t), "m^0 != 1");
}

int main(void)
{
	zp_rng g;
	zp_rng_seed(&g, zp_test_seed());
	for (int i = 0; i < 8; i++) {
		check_ring(&g);
		check_fp6(&g);
		check_sparse(&g);
		check_cyclotomic(&g);
	}
	check_frobenius(&g);
	check_frobenius(&g);
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}
