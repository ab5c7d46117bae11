/* All transforms equal the O(n^2) definitions in ntt.h at 2^0..2^8, for both root families:
 * forward, inverse, coset forward/inverse with shift 7, ω_{2n} and a random shift. Also zp_ntt_root
 * facts: ω_{2^k} has order exactly 2^k, ROOT7's ω_32 = 7^((r-1)/2^32). */
#include "ntt_util.h"

int main(void)
{
	zp_rng g;
	zp_rng_seed(&g, 0x6e616976);
	size_t N = 256;
	zp_fr *a = vec_alloc(N), *x = vec_alloc(N), *ref = vec_alloc(N);
	enum zp_ntt_roots fams[2] = { ZP_NTT_ROOT5, ZP_NTT_ROOT7 };
	for (int fi = 0; fi < 2; fi++) {
		for (unsigned k = 0; k <= 32; k++) {
			zp_fr w, t;
			zp_ntt_root(&w, k, fams[fi]);
			t = w;
			for (unsigned i = 0; i < k; i++)
				zp_fr_sqr(&t, &t);
			CHECK(zp_fr_eq(&t, &ZP_FR_ONE), "root %d: ω_2^%u^(2^%u) = 1", fams[fi], k, k);
			if (k > 0) {
				t = w;
				for (unsigned i = 0; i + 1 < k; i++)
					zp_fr_sqr(&t, &t);
				CHECK(!zp_fr_eq(&t, &ZP_FR_ONE), "root %d: order of ω_2^%u", fams[fi], k);
			}
		}
		for (unsigned k = 0; k <= 8; k++) {
			size_t n = (size_t)1 << k;
			zp_ntt_domain d;
			if (zp_ntt_domain_init_ex(&d, k, fams[fi], 0) < 0)
				return 1;
			zp_fr s[3] = { d.gen, d.omega_2n };
			zp_fr_random(&s[2], &g);
			vec_random(a, n, &g);

			naive_dft(ref, a, n, &d.omega, NULL);
			memcpy(x, a, n * sizeof(zp_fr));
			zp_ntt_forward(&d, x);
			CHECK(vec_eq(x, ref, n), "root %d 2^%u forward", fams[fi], k);

			naive_interp(ref, a, n, &d.omega);
			memcpy(x, a, n * sizeof(zp_fr));
			zp_ntt_inverse(&d, x);
			CHECK(vec_eq(x, ref, n), "root %d 2^%u inverse", fams[fi], k);

			for (int si = 0; si < 3; si++) {
				naive_dft(ref, a, n, &d.omega, &s[si]);
				memcpy(x, a, n * sizeof(zp_fr));
				zp_ntt_coset_forward(&d, x, &s[si]);
				CHECK(vec_eq(x, ref, n), "root %d 2^%u coset forward shift %d", fams[fi], k, si);
				/* coset inverse: coefficients c with Σ c_j (s ω^i)^j = a_i */
				memcpy(x, a, n * sizeof(zp_fr));
				zp_ntt_coset_inverse(&d, x, &s[si]);
				naive_dft(ref, x, n, &d.omega, &s[si]);
				CHECK(vec_eq(ref, a, n), "root %d 2^%u coset inverse shift %d", fams[fi], k, si);
			}
			zp_fr zero = ZP_FR_ZERO;
			CHECK(zp_ntt_coset_forward(&d, x, &zero) == ZP_ERANGE, "zero shift rejected");
			zp_ntt_domain_free(&d);
		}
	}
	zp_ntt_domain d;
	CHECK(zp_ntt_domain_init(&d, ZP_NTT_MAX_LOG + 1) == ZP_ERANGE, "log_n 28 rejected");
	CHECK(zp_ntt_forward(&d, a) == ZP_ERANGE, "uninitialized domain rejected");
	zp_fr w7, seven, e;
	uint64_t t[4] = { 0xfffe5bfeffffffffULL, 0x09a1d80553bda402ULL, 0x299d7d483339d808ULL, 0x0000000073eda753ULL };
	zp_fr_from_u64(&seven, 7);
	zp_fr_pow(&e, &seven, t, 4);
	zp_ntt_root(&w7, 32, ZP_NTT_ROOT7);
	CHECK(zp_fr_eq(&e, &w7), "ROOT7 ω_32 = 7^t");
	free(a); free(x); free(ref);
	if (failures)
		return 1;
	printf("ntt naive: ok\n");
	return 0;
}
