/*
 * test_bn254_msm_ntt.c — BN254's MSM and NTT on random inputs against plain references:
 *   MSM G1/G2 = Σ k_i·P_i by scalar multiplication, at sizes that take the XYZZ path and (forced with
 *   ZP_MSM_BA=1, as msm.h documents) the batch-affine one, with 0, 1, repeated and infinite points mixed in;
 *   NTT forward = the naive DFT (small n), inverse∘forward = id, coset forward = DFT on s·ω^i, and the
 *   snarkjs H step on a satisfied a∘b = c; at the four-step sizes (above 2^12: ntt_tmpl.h) forward and coset
 *   forward spot-checked by Horner, the same bytes on one thread, and a 2^28 domain that is small.
 *   Collision cases (few distinct points, their negatives, few distinct scalars: buckets get P = B, P = −B,
 *   queue overflows and XYZZ buckets) on the batch-affine path, and sizes where the batch-affine path is the
 *   default. Where the CPU has AVX-512 IFMA these run its vector batches and running sums; meson runs this
 *   test again with ZP_FIELD_PORTABLE=1 (bn254_msm_ntt_portable), the scalar paths, against the same references.
 */
#include "bn254.h"
#include "bn254_msm.h"
#include "bn254_ntt.h"
#include "knobs.h"
#include "par.h"
#include "zp_err.h"

#include "../common/zp_test.h"

typedef zp_bn254_fr fr;
static zp_rng g;

/* zp_bn254_msm_<G> against Σ sc_i·P_i by scalar multiplication, with exactly its scratch (a quarter
 * of it refused); what names the case */
#define MSM_CHECK(G)                                                                                          \
	static void G##_check(const zp_bn254_##G##_affine *pts, const fr *sc, size_t n, const char *what)     \
	{                                                                                                     \
		zp_bn254_##G##_jac acc, t;                                                                    \
		zp_bn254_##G##_jac_set_inf(&acc);                                                             \
		for (size_t i = 0; i < n; i++) {                                                              \
			zp_bn254_##G##_jac_from_affine(&t, &pts[i]);                                          \
			zp_bn254_##G##_jac_mul(&t, &t, &sc[i]);                                               \
			zp_bn254_##G##_jac_add(&acc, &acc, &t);                                               \
		}                                                                                             \
		size_t sz = zp_bn254_msm_##G##_scratch_size(n);                                               \
		void *scr = malloc(sz);                                                                       \
		CHECK(zp_bn254_msm_##G(&t, pts, sc, n, scr, sz) == 0, "%s: rc", what);                        \
		CHECK(zp_bn254_##G##_jac_eq(&t, &acc), "%s", what);                                           \
		CHECK(zp_bn254_msm_##G(&t, pts, sc, n, scr, sz / 4) == ZP_ERANGE, "%s: short scratch", what); \
		free(scr);                                                                                    \
	}
MSM_CHECK(g1)
MSM_CHECK(g2)

static void g1_msm_case(size_t n)
{
	zp_bn254_g1_affine *pts = calloc(n, sizeof *pts);
	fr *sc = calloc(n, sizeof *sc);
	zp_bn254_g1_jac base;
	zp_bn254_g1_jac_from_affine(&base, &ZP_BN254_G1_GEN);
	zp_bn254_g1_jac *pj = calloc(n, sizeof *pj);
	for (size_t i = 0; i < n; i++) {
		fr k;
		zp_bn254_fr_random(&k, &g);
		zp_bn254_g1_jac_mul(&pj[i], &base, &k);
		if (i % 97 == 5)
			zp_bn254_g1_jac_set_inf(&pj[i]);
		if (i % 89 == 3 && i > 0)
			pj[i] = pj[i - 1];
		zp_bn254_fr_random(&sc[i], &g);
		if (i % 7 == 1) sc[i] = ZP_BN254_FR_ONE;
		if (i % 11 == 2) sc[i] = ZP_BN254_FR_ZERO;
	}
	zp_bn254_g1_jac_batch_to_affine(pts, pj, n);
	char what[64];
	snprintf(what, sizeof what, "g1 msm n = %zu", n);
	g1_check(pts, sc, n, what);
	free(pts); free(sc); free(pj);
}

static void g2_msm_case(size_t n)
{
	zp_bn254_g2_affine *pts = calloc(n, sizeof *pts);
	fr *sc = calloc(n, sizeof *sc);
	zp_bn254_g2_jac base;
	zp_bn254_g2_jac_from_affine(&base, &ZP_BN254_G2_GEN);
	zp_bn254_g2_jac cur = base;
	for (size_t i = 0; i < n; i++) {
		zp_bn254_g2_jac_dbl(&cur, &cur);
		zp_bn254_g2_jac_add(&cur, &cur, &base);
		zp_bn254_g2_jac_to_affine(&pts[i], &cur);
		zp_bn254_fr_random(&sc[i], &g);
		if (i % 5 == 1) sc[i] = ZP_BN254_FR_ONE;
	}
	char what[64];
	snprintf(what, sizeof what, "g2 msm n = %zu", n);
	g2_check(pts, sc, n, what);
	free(pts); free(sc);
}

/* n terms of group G from nb distinct points (and their negatives) and ns distinct scalars (r − 1, then 1 and 0
 * where ns allows, and random) */
#define COLLIDE_CASE(G, GEN)                                                                                  \
	static void G##_collide_case(size_t n, int nb, int ns)                                                \
	{                                                                                                     \
		zp_bn254_##G##_affine *pts = calloc(n, sizeof *pts), base[16];                               \
		fr *sc = calloc(n, sizeof *sc), ks[16];                                                       \
		zp_bn254_##G##_jac t, gen;                                                                    \
		zp_bn254_##G##_jac_from_affine(&gen, &GEN);                                                   \
		for (int i = 0; i < nb; i++) {                                                                \
			fr k;                                                                                 \
			zp_bn254_fr_random(&k, &g);                                                           \
			zp_bn254_##G##_jac_mul(&t, &gen, &k);                                                 \
			zp_bn254_##G##_jac_to_affine(&base[i], &t);                                           \
		}                                                                                             \
		for (int i = 0; i < ns; i++)                                                                  \
			zp_bn254_fr_random(&ks[i], &g);                                                       \
		zp_bn254_fr_sub(&ks[0], &ZP_BN254_FR_ZERO, &ZP_BN254_FR_ONE); /* r − 1 */                     \
		if (ns > 2)                                                                                   \
			ks[1] = ZP_BN254_FR_ONE;                                                              \
		if (ns > 3)                                                                                   \
			ks[2] = ZP_BN254_FR_ZERO;                                                             \
		for (size_t i = 0; i < n; i++) {                                                              \
			uint64_t r = zp_rng_next(&g);                                                         \
			pts[i] = base[r % (uint64_t)nb];                                                      \
			if ((r >> 8) & 1)                                                                     \
				zp_bn254_##G##_affine_neg(&pts[i], &pts[i]);                                  \
			sc[i] = ks[(r >> 16) % (uint64_t)ns];                                                 \
		}                                                                                             \
		char what[96];                                                                                \
		snprintf(what, sizeof what, #G " msm n = %zu from %d points, %d scalars", n, nb, ns);          \
		G##_check(pts, sc, n, what);                                                                  \
		free(pts); free(sc);                                                                          \
	}
COLLIDE_CASE(g1, ZP_BN254_G1_GEN)
COLLIDE_CASE(g2, ZP_BN254_G2_GEN)

static void naive_dft(fr *out, const fr *a, size_t n, const fr *w)
{
	fr wi = ZP_BN254_FR_ONE;
	fr *tmp = calloc(n, sizeof *tmp);
	for (size_t i = 0; i < n; i++) {
		fr acc = ZP_BN254_FR_ZERO, p = ZP_BN254_FR_ONE, t;
		for (size_t j = 0; j < n; j++) {
			zp_bn254_fr_mul(&t, &a[j], &p);
			zp_bn254_fr_add(&acc, &acc, &t);
			zp_bn254_fr_mul(&p, &p, &wi);
		}
		tmp[i] = acc;
		zp_bn254_fr_mul(&wi, &wi, w);
	}
	memcpy(out, tmp, n * sizeof *tmp);
	free(tmp);
}

/* out[i] = Σ_j a_j·(s·ω^i)^j (s NULL: 1) by Horner at i = 0, 1, n − 1 and five random i */
static void spot_check(const fr *a, const fr *out, const zp_bn254_ntt_domain *d, const fr *s, const char *what)
{
	size_t n = d->n, idx[8] = { 0, 1, n - 1 };
	for (int i = 3; i < 8; i++)
		idx[i] = zp_rng_next(&g) & (n - 1);
	for (int i = 0; i < 8; i++) {
		fr x = s ? *s : ZP_BN254_FR_ONE, v = ZP_BN254_FR_ZERO;
		for (size_t k = 0; k < idx[i]; k++)
			zp_bn254_fr_mul(&x, &x, &d->omega);
		for (size_t j = n; j-- > 0;) {
			zp_bn254_fr_mul(&v, &v, &x);
			zp_bn254_fr_add(&v, &v, &a[j]);
		}
		CHECK(memcmp(&v, &out[idx[i]], sizeof v) == 0, "%s 2^%u index %zu", what, d->log_n, idx[i]);
	}
}

static void ntt_case(unsigned log_n)
{
	size_t n = (size_t)1 << log_n;
	zp_bn254_ntt_domain d;
	CHECK(zp_bn254_ntt_domain_init(&d, log_n) == 0, "domain 2^%u", log_n);
	fr *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b), *c = calloc(n, sizeof *c);
	for (size_t i = 0; i < n; i++)
		zp_bn254_fr_random(&a[i], &g);
	memcpy(b, a, n * sizeof *a);
	if (log_n <= 8) {
		naive_dft(c, a, n, &d.omega);
		zp_bn254_ntt_forward(&d, b);
		CHECK(memcmp(b, c, n * sizeof *b) == 0, "forward = DFT at 2^%u", log_n);
		/* coset: values at s·ω^i, s = 7 */
		fr s, si = ZP_BN254_FR_ONE;
		zp_bn254_fr_from_u64(&s, 7);
		memcpy(b, a, n * sizeof *a);
		for (size_t j = 0; j < n; j++) {
			zp_bn254_fr_mul(&c[j], &a[j], &si);
			zp_bn254_fr_mul(&si, &si, &s);
		}
		naive_dft(c, c, n, &d.omega);
		zp_bn254_ntt_coset_forward(&d, b, &s);
		CHECK(memcmp(b, c, n * sizeof *b) == 0, "coset forward at 2^%u", log_n);
		zp_bn254_ntt_coset_inverse(&d, b, &s);
		CHECK(memcmp(b, a, n * sizeof *b) == 0, "coset inverse at 2^%u", log_n);
		memcpy(b, a, n * sizeof *a);
	} else {
		fr s;
		zp_bn254_fr_random(&s, &g);
		zp_bn254_ntt_forward(&d, b);
		spot_check(a, b, &d, NULL, "forward");
		memcpy(c, a, n * sizeof *a);
		zp_par_set_threads(1);
		zp_bn254_ntt_forward(&d, c);
		zp_par_set_threads(0);
		CHECK(memcmp(b, c, n * sizeof *b) == 0, "forward on one thread differs at 2^%u", log_n);
		memcpy(b, a, n * sizeof *a);
		zp_bn254_ntt_coset_forward(&d, b, &s);
		spot_check(a, b, &d, &s, "coset forward");
		zp_bn254_ntt_coset_inverse(&d, b, &s);
		CHECK(memcmp(b, a, n * sizeof *b) == 0, "coset round trip at 2^%u", log_n);
		memcpy(b, a, n * sizeof *a);
	}
	zp_bn254_ntt_forward(&d, b);
	zp_bn254_ntt_inverse(&d, b);
	CHECK(memcmp(b, a, n * sizeof *b) == 0, "inverse(forward) = id at 2^%u", log_n);
	/* H of a satisfied system: c = a∘b on the domain => A·B - C vanishes there, = h·Z with deg h <= n - 2;
	 * on the odd coset Z = x^n - 1 = -2, so d = -2·h there and interpolating d back gives -2·h's n
	 * coefficients, the top one 0. */
	for (size_t i = 0; i < n; i++) {
		zp_bn254_fr_random(&a[i], &g);
		zp_bn254_fr_random(&b[i], &g);
		zp_bn254_fr_mul(&c[i], &a[i], &b[i]);
	}
	CHECK(zp_bn254_ntt_h_snarkjs(&d, a, b, c) == 0, "h rc");
	zp_bn254_ntt_coset_inverse(&d, a, &d.omega_2n);
	CHECK(n < 2 || zp_bn254_fr_is_zero(&a[n - 1]), "h has degree < n - 1 at 2^%u", log_n);
	free(a); free(b); free(c);
	zp_bn254_ntt_domain_free(&d);
	CHECK(zp_bn254_ntt_domain_init(&d, 29) == ZP_ERANGE, "2^29 refused");
	/* 2^28: tables of O(√n) and the column buffers (≤ 130 MiB at 64 threads; a radix-2 table was 4 GiB),
	 * and no ω_{2n} for the snarkjs coset */
	CHECK(zp_bn254_ntt_domain_init(&d, 28) == 0 && d.mem_bytes < ((size_t)256 << 20), "2^28 domain: %zu bytes",
	      d.mem_bytes);
	CHECK(zp_bn254_ntt_h_snarkjs(&d, NULL, NULL, NULL) == ZP_ERANGE, "h_snarkjs at 2^28 refused");
	zp_bn254_ntt_domain_free(&d);
	fr w;
	CHECK(zp_bn254_ntt_root(&w, 29) == ZP_ERANGE, "no 2^29-th root");
}

int main(void)
{
	zp_rng_seed(&g, zp_test_seed());
	g1_msm_case(1);
	g1_msm_case(300);
	g2_msm_case(40);
	g1_msm_case(5000);   /* batch-affine by default (from 512 on the IFMA path, 8192 on the scalar one) */
	g2_msm_case(1200);
	setenv("ZP_MSM_BA", "1", 1);   /* the batch-affine buckets (default from 8192 / 2048 scalars) */
	zp_knobs_reload();
	g1_msm_case(1500);
	g2_msm_case(300);
	g1_collide_case(3000, 1, 2);   /* ±P only, two scalars: every batch meets P = B and P = −B */
	g1_collide_case(3000, 3, 5);
	g1_collide_case(700, 16, 16);
	g2_collide_case(1000, 1, 2);
	g2_collide_case(1000, 4, 6);
	for (unsigned k = 0; k <= 6; k++)
		ntt_case(k);
	unsigned big[] = { 9, 12, 13, 15, 16, 18 };   /* one row up to 2^12, four-step above (odd and even splits) */
	for (unsigned i = 0; i < sizeof big / sizeof big[0]; i++)
		ntt_case(big[i]);
	if (failures) {
		fprintf(stderr, "bn254_msm_ntt: %d failures\n", failures);
		return 1;
	}
	printf("bn254_msm_ntt: ok\n");
	return 0;
}
