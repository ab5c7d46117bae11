/* The four-step path (sizes above 2^12): forward output spot-checked against Σ a_j ω^(ij) by Horner at
 * random indices (and 0, 1, n-1), inverse∘forward = identity up to 2^20, coset forward spot checks and
 * coset round trips, and identical results for 1/2 threads and 1/3 column slots. */
#include "par.h"
#include "ntt_util.h"

static void spot_check(const zp_fr *a, const zp_fr *out, zp_ntt_domain *d, const zp_fr *shift,
		       zp_rng *g, const char *what)
{
	size_t n = d->n;
	size_t idx[8] = { 0, 1, n - 1 };
	for (int i = 3; i < 8; i++)
		idx[i] = zp_rng_next(g) & (n - 1);
	for (int i = 0; i < 8; i++) {
		zp_fr x, v;
		fr_pow_u64(&x, &d->omega, idx[i]);
		if (shift)
			zp_fr_mul(&x, &x, shift);
		horner(&v, a, n, &x);
		CHECK(zp_fr_eq(&v, &out[idx[i]]), "%s 2^%u index %zu", what, d->log_n, idx[i]);
	}
}

int main(void)
{
	zp_rng g;
	zp_rng_seed(&g, 0x6c61726765);
	size_t N = (size_t)1 << 20;
	zp_fr *a = vec_alloc(N), *x = vec_alloc(N), *y = vec_alloc(N);
	vec_random(a, N, &g);
	for (unsigned k = 0; k <= 20; k++) {
		size_t n = (size_t)1 << k;
		zp_ntt_domain d;
		if (zp_ntt_domain_init(&d, k) < 0)
			return 1;
		memcpy(x, a, n * sizeof(zp_fr));
		zp_ntt_forward(&d, x);
		if (k >= 11 && k % 3 != 2)
			spot_check(a, x, &d, NULL, &g, "forward");
		zp_ntt_inverse(&d, x);
		CHECK(vec_eq(x, a, n), "inverse(forward) 2^%u", k);
		if (k >= 11 && k <= 16) {
			zp_fr s;
			zp_fr_random(&s, &g);
			memcpy(x, a, n * sizeof(zp_fr));
			zp_ntt_coset_forward(&d, x, &s);
			spot_check(a, x, &d, &s, &g, "coset forward");
			zp_ntt_coset_inverse(&d, x, &s);
			CHECK(vec_eq(x, a, n), "coset round trip 2^%u", k);
			memcpy(x, a, n * sizeof(zp_fr));
			zp_ntt_coset_forward_gen(&d, x);
			zp_ntt_coset_inverse_gen(&d, x);
			CHECK(vec_eq(x, a, n), "coset gen round trip 2^%u", k);
			memcpy(x, a, n * sizeof(zp_fr));
			zp_ntt_coset_inverse_odd(&d, x);
			zp_ntt_coset_forward_odd(&d, x);
			CHECK(vec_eq(x, a, n), "coset odd round trip 2^%u", k);
		}
		zp_ntt_domain_free(&d);
	}
	/* thread and slot counts do not change results */
	unsigned k = 15;
	size_t n = (size_t)1 << k;
	zp_ntt_domain d1, d3;
	if (zp_ntt_domain_init_ex(&d1, k, ZP_NTT_ROOT5, 1) < 0 || zp_ntt_domain_init_ex(&d3, k, ZP_NTT_ROOT5, 3) < 0)
		return 1;
	zp_par_set_threads(1);
	memcpy(x, a, n * sizeof(zp_fr));
	zp_ntt_coset_forward_gen(&d1, x);
	zp_par_set_threads(2);
	memcpy(y, a, n * sizeof(zp_fr));
	zp_ntt_coset_forward_gen(&d3, y);
	CHECK(vec_eq(x, y, n), "1 thread/1 slot vs 2 threads/3 slots");
	zp_par_set_threads(3);
	memcpy(y, a, n * sizeof(zp_fr));
	zp_ntt_coset_forward_gen(&d1, y);
	CHECK(vec_eq(x, y, n), "3 threads/1 slot");
	zp_par_set_threads(0);
	zp_ntt_domain_free(&d1);
	zp_ntt_domain_free(&d3);
	free(a); free(x); free(y);
	if (failures)
		return 1;
	printf("ntt large: ok\n");
	return 0;
}
