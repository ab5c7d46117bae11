/*
 * test_pairing_laws — the pairing's defining properties on fresh random points:
 * bilinearity, e^r = 1, non-degeneracy, multi-pairing = product of pairings (also
 * across the Miller loop's chunk boundary), e(P,-Q)·e(P,Q) = 1, infinity handling,
 * and zp_pairing_check. Prints the time of one pairing.
 */
#include "util.h"

static zp_g1_affine G1;
static zp_g2_affine G2;

static void fr_raw_mul(uint64_t out[4], const uint64_t a[4], const uint64_t b[4])
{
	zp_fr x, y;
	zp_fr_to_mont(&x, a);
	zp_fr_to_mont(&y, b);
	zp_fr_mul(&x, &x, &y);
	zp_fr_from_mont(out, &x);
}

static void check_bilinear(zp_rng *g, const zp_fp12 *e11)
{
	uint64_t a[4], b[4], ab[4];
	zp_g1_affine p;
	zp_g2_affine q;
	zp_fp12 got, want;
	rand_scalar(a, g);
	rand_scalar(b, g);
	g1_mul(&p, &G1, a);
	g2_mul(&q, &G2, b);
	zp_pairing(&got, &p, &q);
	fr_raw_mul(ab, a, b);
	zp_fp12_pow(&want, e11, ab, 4);
	CHECK(zp_fp12_eq(&got, &want), "e(aP, bQ) != e(P, Q)^(ab)");
	zp_fp12_pow(&want, &got, ZP_FR_MODULUS, 4);
	CHECK(zp_fp12_is_one(&want), "e(aP, bQ)^r != 1");

	/* e(P, -Q)·e(P, Q) = 1, and the check function sees it */
	zp_g1_affine ps[2] = { p, p };
	zp_g2_affine qs[2] = { q, q };
	g2_neg(&qs[1], &q);
	CHECK(zp_pairing_check(ps, qs, 2) == 0, "e(P,-Q)·e(P,Q) != 1");
	qs[1] = q;
	CHECK(zp_pairing_check(ps, qs, 2) == ZP_EVERIFY, "e(P,Q)^2 == 1");
	/* Groth16 shape: e(aG1, bG2)·e(-(ab)G1, G2) = 1 */
	g1_mul(&ps[1], &G1, ab);
	g1_neg(&ps[1], &ps[1]);
	qs[1] = G2;
	ps[0] = p;
	CHECK(zp_pairing_check(ps, qs, 2) == 0, "e(aG1,bG2)·e(-abG1,G2) != 1");
}

/* n random pairs (a_i G1, b_i G2) with some infinities: multi == e(G1,G2)^(Σ a_i b_i)
 * and == the product of single pairings. */
static void check_multi(zp_rng *g, const zp_fp12 *e11, size_t n, bool singles)
{
	zp_g1_affine p[24];
	zp_g2_affine q[24];
	zp_fr sum = ZP_FR_ZERO;
	zp_fp12 got, want, prod = ZP_FP12_ONE, t;
	for (size_t i = 0; i < n; i++) {
		uint64_t a[4], b[4], ab[4];
		rand_scalar(a, g);
		rand_scalar(b, g);
		if (!singles)  /* many pairs: 64-bit scalars keep the reference arithmetic quick */
			a[1] = a[2] = a[3] = b[1] = b[2] = b[3] = 0;
		g1_mul(&p[i], &G1, a);
		g2_mul(&q[i], &G2, b);
		if (i % 7 == 3)
			memset(&p[i], 0, sizeof(p[i]));    /* infinity: contributes 1 */
		else if (i % 7 == 5)
			memset(&q[i], 0, sizeof(q[i]));
		else {
			zp_fr x;
			fr_raw_mul(ab, a, b);
			zp_fr_to_mont(&x, ab);
			zp_fr_add(&sum, &sum, &x);
		}
		if (singles) {
			zp_pairing(&t, &p[i], &q[i]);
			zp_fp12_mul(&prod, &prod, &t);
		}
	}
	zp_pairing_multi(&got, p, q, n);
	uint64_t s[4];
	zp_fr_from_mont(s, &sum);
	zp_fp12_pow(&want, e11, s, 4);
	CHECK(zp_fp12_eq(&got, &want), "multi-pairing of %zu != e(G1,G2)^(sum a_i b_i)", n);
	if (singles)
		CHECK(zp_fp12_eq(&got, &prod), "multi-pairing of %zu != product of pairings", n);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Best of n runs (the machine is shared; the minimum is the least disturbed). */
static void timing(void)
{
	zp_fp12 r, f;
	zp_g1_affine p[4] = { G1, G1, G1, G1 };
	zp_g2_affine q[4] = { G2, G2, G2, G2 };
	double best[3] = { 1e9, 1e9, 1e9 };
	for (int i = 0; i < 20; i++) {
		double t0 = now();
		zp_pairing(&r, &G1, &G2);
		double t1 = now();
		zp_pairing_miller_loop(&f, &G1, &G2, 1);
		double t2 = now();
		zp_pairing_multi(&r, p, q, 4);
		double t3 = now();
		best[0] = best[0] < t1 - t0 ? best[0] : t1 - t0;
		best[1] = best[1] < t2 - t1 ? best[1] : t2 - t1;
		best[2] = best[2] < t3 - t2 ? best[2] : t3 - t2;
	}
	printf("pairing %.2f ms (Miller loop %.2f ms, final exp ~%.2f ms); 4-pair multi %.2f ms\n",
	       best[0] * 1e3, best[1] * 1e3, (best[0] - best[1]) * 1e3, best[2] * 1e3);
}

int main(int argc, char **argv)
{
	zp_rng g;
	zp_fp12 e11, t;
	if (argc < 2) {
		fprintf(stderr, "usage: %s vectors.txt\n", argv[0]);
		return 1;
	}
	load_generators(argv[1], &G1, &G2);
	zp_rng_seed(&g, zp_test_seed());
	zp_pairing(&e11, &G1, &G2);
	CHECK(!zp_fp12_is_one(&e11), "e(G1, G2) == 1: degenerate");
	zp_fp12_pow(&t, &e11, ZP_FR_MODULUS, 4);
	CHECK(zp_fp12_is_one(&t), "e(G1, G2)^r != 1");
	zp_g1_affine inf1;
	zp_g2_affine inf2;
	memset(&inf1, 0, sizeof(inf1));
	memset(&inf2, 0, sizeof(inf2));
	zp_pairing(&t, &inf1, &G2);
	CHECK(zp_fp12_is_one(&t), "e(O, G2) != 1");
	zp_pairing(&t, &G1, &inf2);
	CHECK(zp_fp12_is_one(&t), "e(G1, O) != 1");
	zp_pairing_multi(&t, NULL, NULL, 0);
	CHECK(zp_fp12_is_one(&t), "empty product != 1");
	CHECK(zp_pairing_check(NULL, NULL, 0) == 0, "empty check fails");

	for (int i = 0; i < 3; i++)
		check_bilinear(&g, &e11);
	check_multi(&g, &e11, 3, true);
	check_multi(&g, &e11, 21, false);   /* crosses the 16-pair chunk */
	timing();
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}
