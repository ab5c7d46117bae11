/*
 * test_fp_inv_vartime — zp_fp_inv_vartime (safegcd) against zp_fp_inv (a power) and a·a^-1 = 1:
 * fresh random elements, and the edges: 0 (gives 0), ±1, ±2, small powers of two, elements whose
 * raw Montgomery limbs are tiny (1, 2, 3: the divsteps finish fast) or near q (q − 1, q − 2),
 * single-limb and top-limb patterns, unreduced limbs x + q (< 2^384, as the MSM's lane totals may be), and
 * inverses of inverses.
 */
#include "field.h"

#include "../common/zp_test.h"

static void check_one(const zp_fp *a, const char *what, long i)
{
	zp_fp want, got, p, back;
	zp_fp_inv(&want, a);
	zp_fp_inv_vartime(&got, a);
	CHECK(zp_fp_eq(&want, &got), "%s %ld: inverse differs from zp_fp_inv", what, i);
	if (zp_fp_is_zero(a)) {
		CHECK(zp_fp_is_zero(&got), "%s %ld: inv(0) != 0", what, i);
		return;
	}
	zp_fp_mul(&p, a, &got);
	CHECK(zp_fp_eq(&p, &ZP_FP_ONE), "%s %ld: a·inv(a) != 1", what, i);
	zp_fp_inv_vartime(&back, &got);
	CHECK(zp_fp_eq(&back, a), "%s %ld: inv(inv(a)) != a", what, i);
}

int main(void)
{
	zp_rng g;
	zp_rng_seed(&g, zp_test_seed());
	zp_fp a;
	long k = 0;
	/* small values, their negatives and powers of two */
	for (uint64_t v = 0; v < 40; v++) {
		zp_fp_from_u64(&a, v);
		check_one(&a, "small", (long)v);
		zp_fp_neg(&a, &a);
		check_one(&a, "-small", (long)v);
	}
	zp_fp_from_u64(&a, 1);
	for (int e = 0; e < 400; e++) {
		check_one(&a, "2^e", e);
		zp_fp_add(&a, &a, &a);
	}
	/* raw Montgomery limbs: tiny, near q, one limb set, top limb only */
	uint64_t raw[ZP_FP_LIMBS];
	for (uint64_t v = 1; v < 8; v++) {
		memset(raw, 0, sizeof raw);
		raw[0] = v;
		memcpy(a.l, raw, sizeof raw);
		check_one(&a, "raw tiny", (long)v);
		memcpy(a.l, ZP_FP_MODULUS, sizeof raw);
		a.l[0] -= v;
		check_one(&a, "raw q - v", (long)v);
	}
	for (int w = 0; w < ZP_FP_LIMBS; w++)
		for (int b = 0; b < 64; b += 7) {
			memset(a.l, 0, sizeof a.l);
			a.l[w] = 1ull << b;
			if (w == ZP_FP_LIMBS - 1 && (a.l[w] >> 60))
				continue;   /* keep it under q */
			check_one(&a, "raw bit", w * 64 + b);
		}
	/* unreduced limbs x + q (< 2^384; the MSM's lane totals are < 2q): the inverse of x */
	for (long i = 0; i < 2000; i++) {
		zp_fp x, y, want, got;
		zp_fp_random(&x, &g);
		unsigned __int128 c = 0;
		for (int w = 0; w < ZP_FP_LIMBS; w++) {
			c += (unsigned __int128)x.l[w] + ZP_FP_MODULUS[w];
			y.l[w] = (uint64_t)c;
			c >>= 64;
		}
		if (c)
			continue;   /* x + q >= 2^384 */
		zp_fp_inv(&want, &x);
		zp_fp_inv_vartime(&got, &y);
		CHECK(zp_fp_eq(&want, &got), "x + q %ld: inverse differs from inv(x)", i);
	}
	/* random */
	for (long i = 0; i < 20000; i++, k++) {
		zp_fp_random(&a, &g);
		check_one(&a, "random", i);
	}
	printf("%s\n", failures ? "FAIL" : "ok");
	return failures ? 1 : 0;
}
