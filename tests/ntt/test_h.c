/* Groth16 H against direct polynomial evaluation.
 *  snarkjs: d_j = A(x)B(x) - C(x) at x = ω_{2n}^(2j+1), A, B, C interpolating a, b, c on the n-domain
 *           (naive interpolation + Horner at 2^0..2^6; barycentric evaluation at sampled j for 2^14).
 *  bellperson: for a satisfied system (c = a∘b), h(x)·(x^n - 1) = A(x)B(x) - C(x) at a random x and the
 *           last coefficient of h is 0 (2^0..2^6 and 2^14, both root families); for random a, b, c the
 *           identity h(x)Z(x) = A(x)B(x) - C(x) must fail (the test can tell). */
#include "ntt_util.h"

/* A(x)B(x) - C(x) by the barycentric formula: P(x) = (x^n - 1)/n · Σ p_i ω^i/(x - ω^i). */
static void abc_at(zp_fr *out, const zp_fr *a, const zp_fr *b, const zp_fr *c, size_t n, const zp_fr *w,
		   const zp_fr *x)
{
	zp_fr *den = vec_alloc(n), *inv = vec_alloc(n), *tmp = vec_alloc(n), wi = ZP_FR_ONE;
	for (size_t i = 0; i < n; i++) {
		zp_fr_sub(&den[i], x, &wi);
		zp_fr_mul(&wi, &wi, w);
	}
	zp_fr_batch_inv(inv, den, n, tmp);
	zp_fr v[3] = { ZP_FR_ZERO, ZP_FR_ZERO, ZP_FR_ZERO }, k, t;
	const zp_fr *p[3] = { a, b, c };
	wi = ZP_FR_ONE;
	for (size_t i = 0; i < n; i++) {
		zp_fr_mul(&k, &inv[i], &wi);
		for (int j = 0; j < 3; j++) {
			zp_fr_mul(&t, &p[j][i], &k);
			zp_fr_add(&v[j], &v[j], &t);
		}
		zp_fr_mul(&wi, &wi, w);
	}
	fr_pow_u64(&t, x, n);
	zp_fr_sub(&t, &t, &ZP_FR_ONE);
	zp_fr_from_u64(&k, n);
	zp_fr_inv(&k, &k);
	zp_fr_mul(&k, &k, &t);
	zp_fr_mul(&v[0], &v[0], &v[1]);
	zp_fr_mul(&v[0], &v[0], &k);
	zp_fr_mul(&v[2], &v[2], &k);
	zp_fr_mul(&v[0], &v[0], &k);   /* (kA)(kB) needs k twice; A·B·k² */
	zp_fr_sub(out, &v[0], &v[2]);
	free(den); free(inv); free(tmp);
}

static void check_snarkjs(unsigned k, zp_rng *g)
{
	size_t n = (size_t)1 << k;
	zp_ntt_domain d;
	if (zp_ntt_domain_init(&d, k) < 0)
		exit(1);
	zp_fr *a = vec_alloc(n), *b = vec_alloc(n), *c = vec_alloc(n);
	zp_fr *a0 = vec_alloc(n), *b0 = vec_alloc(n), *c0 = vec_alloc(n);
	vec_random(a0, n, g); vec_random(b0, n, g); vec_random(c0, n, g);
	memcpy(a, a0, n * sizeof(zp_fr)); memcpy(b, b0, n * sizeof(zp_fr)); memcpy(c, c0, n * sizeof(zp_fr));
	CHECK(zp_ntt_h_snarkjs(&d, a, b, c) == 0, "h_snarkjs rc");
	zp_fr w2 = d.omega_2n, w2sq;
	zp_fr_sqr(&w2sq, &w2);
	CHECK(zp_fr_eq(&w2sq, &d.omega), "ω_2n^2 = ω_n");
	size_t samples = n <= 64 ? n : 6;
	for (size_t s = 0; s < samples; s++) {
		size_t j = n <= 64 ? s : (s < 2 ? s * (n - 1) : zp_rng_next(g) & (n - 1));
		zp_fr x, v;
		fr_pow_u64(&x, &w2, 2 * j + 1);
		abc_at(&v, a0, b0, c0, n, &d.omega, &x);
		CHECK(zp_fr_eq(&v, &a[j]), "snarkjs H 2^%u d_%zu", k, j);
	}
	free(a); free(b); free(c); free(a0); free(b0); free(c0);
	zp_ntt_domain_free(&d);
}

static void check_bellperson(unsigned k, enum zp_ntt_roots roots, bool satisfied, zp_rng *g)
{
	size_t n = (size_t)1 << k;
	zp_ntt_domain d;
	if (zp_ntt_domain_init_ex(&d, k, roots, 0) < 0)
		exit(1);
	zp_fr *a = vec_alloc(n), *b = vec_alloc(n), *c = vec_alloc(n);
	zp_fr *a0 = vec_alloc(n), *b0 = vec_alloc(n), *c0 = vec_alloc(n);
	vec_random(a0, n, g); vec_random(b0, n, g); vec_random(c0, n, g);
	if (satisfied)
		for (size_t i = 0; i < n; i++)
			zp_fr_mul(&c0[i], &a0[i], &b0[i]);
	memcpy(a, a0, n * sizeof(zp_fr)); memcpy(b, b0, n * sizeof(zp_fr)); memcpy(c, c0, n * sizeof(zp_fr));
	CHECK(zp_ntt_h_bellperson(&d, a, b, c) == 0, "h_bellperson rc");
	zp_fr x, hx, zx, lhs, rhs;
	zp_fr_random(&x, g);
	horner(&hx, a, n, &x);
	fr_pow_u64(&zx, &x, n);
	zp_fr_sub(&zx, &zx, &ZP_FR_ONE);
	zp_fr_mul(&lhs, &hx, &zx);
	abc_at(&rhs, a0, b0, c0, n, &d.omega, &x);
	if (satisfied) {
		CHECK(zp_fr_eq(&lhs, &rhs), "bellperson H 2^%u roots %d: h·Z = AB - C", k, roots);
		CHECK(zp_fr_is_zero(&a[n - 1]), "bellperson H 2^%u: last coefficient 0", k);
	} else {
		CHECK(!zp_fr_eq(&lhs, &rhs), "bellperson H 2^%u: unsatisfied system passed the identity", k);
	}
	free(a); free(b); free(c); free(a0); free(b0); free(c0);
	zp_ntt_domain_free(&d);
}

int main(void)
{
	zp_rng g;
	zp_rng_seed(&g, 0x485f74657374);
	for (unsigned k = 0; k <= 6; k++) {
		check_snarkjs(k, &g);
		check_bellperson(k, ZP_NTT_ROOT5, true, &g);
		check_bellperson(k, ZP_NTT_ROOT7, true, &g);
		if (k > 0)
			check_bellperson(k, ZP_NTT_ROOT5, false, &g);
	}
	check_snarkjs(14, &g);
	check_bellperson(14, ZP_NTT_ROOT5, true, &g);
	check_bellperson(13, ZP_NTT_ROOT7, true, &g);
	if (failures)
		return 1;
	printf("ntt H: ok\n");
	return 0;
}
