/*
 * test_fp12_laws — the Fp6/Fp12 towers of both curves (common/tower_tmpl.h, one instance each) on fresh
 * random elements: the laws of tower_laws.h, BLS12-381's then BN254's.
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

#define L(x) bls_##x
#define T2(x) zp_fp2_##x
#define T6(x) zp_fp6_##x
#define T12(x) zp_fp12_##x
#define FP2 zp_fp2
#define FP6 zp_fp6
#define FP12 zp_fp12
#define FP2_ONE ZP_FP2_ONE
#define MODULUS ZP_FP_MODULUS
#define LIMBS 6
#define NAME "BLS12-381"
#define SPARSE_014
#include "tower_laws.h"

#define L(x) bn254_##x
#define T2(x) zp_bn254_fp2_##x
#define T6(x) zp_bn254_fp6_##x
#define T12(x) zp_bn254_fp12_##x
#define FP2 zp_bn254_fp2
#define FP6 zp_bn254_fp6
#define FP12 zp_bn254_fp12
#define FP2_ONE ZP_BN254_FP2_ONE
#define MODULUS ZP_BN254_FP_MODULUS
#define LIMBS 4
#define NAME "BN254"
#include "tower_laws.h"

int main(void)
{
	zp_rng g;
	zp_rng_seed(&g, zp_test_seed());
	bls_check(&g);
	bn254_check(&g);
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}
