/*
 * test_fp_ifma — the eight-lane AVX-512 IFMA Fp product (common/fp_ifma_impl.h, through the fixture
 * bench/arith/fp8.h) against the scalar one: pack / unpack round trips, single products on fresh random
 * inputs and on 0, 1, q − 1, and chains of 64 products whose inputs stay in the lazy range [0, 2q).
 * Skips (77) on a CPU without IFMA.
 */
#include "field.h"
#include "fp_ifma.h"
#include "fp8.h"

#include "../common/zp_test.h"

int main(void)
{
	if (!zp_fp_ifma_available()) { printf("no AVX-512 IFMA here: skip\n"); return 77; }
	zp_rng g;
	zp_rng_seed(&g, zp_test_seed());
	zp_fp a[8], b[8], r[8], want;
	zp_fp8 A, B, R;
	for (int it = 0; it < 2000; it++) {
		for (int i = 0; i < 8; i++) { zp_fp_random(&a[i], &g); zp_fp_random(&b[i], &g); }
		if (it == 0) {   /* edges in some lanes */
			a[0] = ZP_FP_ZERO; a[1] = ZP_FP_ONE; zp_fp_neg(&a[2], &ZP_FP_ONE);
			zp_fp_neg(&b[2], &ZP_FP_ONE); b[3] = ZP_FP_ZERO; b[4] = ZP_FP_ONE;
		}
		zp_fp8_pack(&A, a);
		zp_fp8_unpack(r, &A);
		for (int i = 0; i < 8; i++) CHECK(zp_fp_eq(&r[i], &a[i]), "pack/unpack lane %d, iteration %d", i, it);
		zp_fp8_pack(&B, b);
		zp_fp8_mul(&R, &A, &B);
		zp_fp8_unpack(r, &R);
		for (int i = 0; i < 8; i++) {
			zp_fp_mul(&want, &a[i], &b[i]);
			CHECK(zp_fp_eq(&r[i], &want), "product lane %d, iteration %d", i, it);
		}
	}
	/* chains: x = x·b, 64 times, never leaving the lazy form */
	for (int it = 0; it < 50; it++) {
		for (int i = 0; i < 8; i++) { zp_fp_random(&a[i], &g); zp_fp_random(&b[i], &g); }
		zp_fp8_pack(&A, a);
		zp_fp8_pack(&B, b);
		for (int k = 0; k < 64; k++) {
			zp_fp8_mul(&A, &A, &B);
			for (int i = 0; i < 8; i++) zp_fp_mul(&a[i], &a[i], &b[i]);
		}
		zp_fp8_unpack(r, &A);
		for (int i = 0; i < 8; i++) CHECK(zp_fp_eq(&r[i], &a[i]), "chain lane %d, iteration %d", i, it);
	}
	printf("%s\n", failures ? "FAIL" : "ok");
	return failures ? 1 : 0;
}
