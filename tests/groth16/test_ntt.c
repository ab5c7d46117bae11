/* The prover's NTT and roots: snarkjs's roots from 5 (check values from FORMATS.md), the
 * NTT equals a naive DFT, and the inverse undoes it. */
#include "g16_impl.h"
#include "util.h"

static void check_root(uint32_t lg, const char *dec)
{
	zp_fr w, want;
	g16_root_of_unity(&w, lg);
	CHECK(zp_fr_from_dec(&want, dec) == 0, "parse");
	CHECK(zp_fr_eq(&w, &want), "omega_%u", lg);
}

int main(void)
{
	/* hex values of FORMATS.md, as decimal */
	check_root(12, "7712148129911606624315688729500842900222944762233088101895611600385646063109");
	check_root(16, "46605497109352149548364111935960392432509601054990529243781317021485154656122");
	check_root(32, "937917089079007706106976984802249742464848817460758522850752807661925904159");
	check_root(1, "52435875175126190479447740508185965837690552500527637822603658699938581184512");
	zp_rng g;
	zp_rng_seed(&g, 7);
	for (uint32_t lg = 0; lg <= 13; lg++) {
		size_t n = (size_t)1 << lg;
		zp_fr *a = malloc(n * sizeof(zp_fr)), *b = malloc(n * sizeof(zp_fr)), w, x, t;
		for (size_t i = 0; i < n; i++)
			zp_fr_random(&a[i], &g);
		memcpy(b, a, n * sizeof(zp_fr));
		CHECK(g16_ntt(b, lg, 0) == 0, "ntt");
		g16_root_of_unity(&w, lg);
		for (size_t j = 0; j < n && j < 5; j++) {   /* b_j = Σ a_i ω^(ij) */
			uint64_t e = j;
			zp_fr acc = ZP_FR_ZERO, p = ZP_FR_ONE;
			zp_fr_pow(&x, &w, &e, 1);
			for (size_t i = 0; i < n; i++) {
				zp_fr_mul(&t, &a[i], &p);
				zp_fr_add(&acc, &acc, &t);
				zp_fr_mul(&p, &p, &x);
			}
			CHECK(zp_fr_eq(&acc, &b[j]), "dft lg %u j %zu", lg, j);
		}
		CHECK(g16_ntt(b, lg, 1) == 0, "intt");
		CHECK(memcmp(a, b, n * sizeof(zp_fr)) == 0, "roundtrip lg %u", lg);
		free(a);
		free(b);
	}
	if (test_failures)
		return 1;
	printf("ntt ok\n");
	return 0;
}
