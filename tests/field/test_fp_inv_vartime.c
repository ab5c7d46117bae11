/*
 * test_fp_inv_vartime — the safegcd inversions (BLS12-381's zp_fp_inv_vartime, BN254's
 * zp_bn254_fp_inv_vartime: one template, common/safegcd_tmpl.h) against the power and a·a^-1 = 1:
 * fresh random elements, and the edges: 0 (gives 0), ±1, ±2, small powers of two, elements whose
 * raw Montgomery limbs are tiny (1, 2, 3: the divsteps finish fast) or near q (q − 1, q − 2),
 * single-limb and top-limb patterns, unreduced limbs x + q (< 2^384, as the MSM's lane totals may be), and
 * inverses of inverses.
 */
#include "bn254.h"
#include "field.h"

#include "../common/zp_test.h"

#define F(op) zp_fp_##op
#define FE zp_fp
#define FONE ZP_FP_ONE
#define FMOD ZP_FP_MODULUS
#define FLIMBS ZP_FP_LIMBS
#define FNAME "bls12-381"
#define FRUN bls_run
#include "inv_vartime_tmpl.h"

#define F(op) zp_bn254_fp_##op
#define FE zp_bn254_fp
#define FONE ZP_BN254_FP_ONE
#define FMOD ZP_BN254_FP_MODULUS
#define FLIMBS 4
#define FNAME "bn254"
#define FRUN bn254_run
#include "inv_vartime_tmpl.h"

int main(void)
{
	bls_run();
	bn254_run();
	printf("%s\n", failures ? "FAIL" : "ok");
	return failures ? 1 : 0;
}
