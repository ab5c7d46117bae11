/*
 * bn254_ntt.c — BN254's Fr NTTs (contract: bn254_ntt.h): ntt_tmpl.h, the one CPU NTT, instantiated for
 * zp_bn254_fr with its one root family (ω_{2^28} = 5^((r-1)/2^28), snarkjs's).
 */
#include "bn254_ntt.h"

#define NT(x) zp_bn254_ntt_##x
#define FR zp_bn254_fr
#define DOM zp_bn254_ntt_domain
#define FR_ONE ZP_BN254_FR_ONE
#define FR_P64 ZP_C64_BN_FR_P
#define FR_P52 ZP_C52_BN_FR_P
#define FR_P52_INV ZP_C52_BN_FR_INV
#define fr_mul zp_bn254_fr_mul_fast
#define fr_inv zp_bn254_fr_inv
#define fr_from_u64 zp_bn254_fr_from_u64
#define fr_is_zero zp_bn254_fr_is_zero
#define NT_MAX_LOG ZP_BN254_NTT_MAX_LOG
#define NT_ADICITY 28
#define NT_NAME "bn254 ntt"

#include "field_impl.h"   /* zp_bn254_fr_mul_fast */
#include "zp_consts.h"
#include "zp_err.h"

int zp_bn254_ntt_root(zp_bn254_fr *w, unsigned k)
{
	static const zp_bn254_fr omega28 = { ZP_C64_BN_FR_OMEGA28 };
	if (k > ZP_BN254_NTT_MAX_LOG)
		return zp_err_set(ZP_ERANGE, "bn254 ntt: no 2^%u-th root of unity (2-adicity 28)", k);
	*w = omega28;
	for (unsigned i = ZP_BN254_NTT_MAX_LOG; i > k; i--)
		zp_bn254_fr_mul_fast(w, w, w);
	return 0;
}

static int root(zp_bn254_fr *w, unsigned k, int family) { return (void)family, zp_bn254_ntt_root(w, k); }

#include "ntt_tmpl.h"

int zp_bn254_ntt_domain_init(zp_bn254_ntt_domain *d, unsigned log_n)
{
	return domain_init(d, log_n, 5, 0);
}
