/*
 * ntt.c — BLS12-381's Fr NTTs (contract: ntt.h): ntt_tmpl.h instantiated for zp_fr with both root
 * families, plus what only this curve has: the coset shift 7 presets and bellperson's H step.
 */
#include "ntt.h"

#define NT(x) zp_ntt_##x
#define FR zp_fr
#define DOM zp_ntt_domain
#define FR_ONE ZP_FR_ONE
#define FR_P64 ZP_C64_FR_P
#define FR_P52 ZP_C52_FR_P
#define FR_P52_INV ZP_C52_FR_INV
#define fr_mul zp_fr_mul_fast
#define fr_inv zp_fr_inv
#define fr_from_u64 zp_fr_from_u64
#define fr_is_zero zp_fr_is_zero
#define NT_MAX_LOG ZP_NTT_MAX_LOG
#define NT_ADICITY 32
#define NT_NAME "ntt"

#include "field_impl.h"   /* zp_fr_mul_fast */
#include "zp_consts.h"
#include "zp_err.h"

int zp_ntt_root(zp_fr *w, unsigned k, enum zp_ntt_roots roots)
{
	static const uint64_t w5[4] = ZP_NTT_OMEGA32_ROOT5, w7[4] = ZP_NTT_OMEGA32_ROOT7;
	if (k > 32 || (roots != ZP_NTT_ROOT5 && roots != ZP_NTT_ROOT7))
		return ZP_ERANGE;
	zp_fr_to_mont(w, roots == ZP_NTT_ROOT5 ? w5 : w7);
	for (unsigned i = k; i < 32; i++)
		zp_fr_mul_fast(w, w, w);
	return 0;
}

static int root(zp_fr *w, unsigned k, int family) { return zp_ntt_root(w, k, (enum zp_ntt_roots)family); }

#include "ntt_tmpl.h"

size_t zp_ntt_domain_bytes(unsigned log_n, unsigned nslots)
{
	size_t se;
	if (log_n > ZP_NTT_MAX_LOG)
		return 0;
	return domain_elems(log_n, nslots, &se) * sizeof(zp_fr) + 64;
}

int zp_ntt_domain_init_ex(zp_ntt_domain *d, unsigned log_n, enum zp_ntt_roots roots, unsigned nslots)
{
	int rc = domain_init(d, log_n, (int)roots, nslots);
	if (rc < 0)
		return rc;
	d->roots = roots;
	zp_fr_from_u64(&d->gen, ZP_NTT_SHIFT_GEN);
	zp_fr_inv(&d->gen_inv, &d->gen);
	return 0;
}

int zp_ntt_domain_init(zp_ntt_domain *d, unsigned log_n)
{
	return zp_ntt_domain_init_ex(d, log_n, ZP_NTT_ROOT5, 0);
}

int zp_ntt_coset_forward_gen(zp_ntt_domain *d, zp_fr *a) { return zp_ntt_coset_forward(d, a, &d->gen); }
int zp_ntt_coset_inverse_gen(zp_ntt_domain *d, zp_fr *a) { return zp_ntt_coset_inverse(d, a, &d->gen); }
int zp_ntt_coset_forward_odd(zp_ntt_domain *d, zp_fr *a) { return zp_ntt_coset_forward(d, a, &d->omega_2n); }
int zp_ntt_coset_inverse_odd(zp_ntt_domain *d, zp_fr *a) { return zp_ntt_coset_inverse(d, a, &d->omega_2n); }

int zp_ntt_h_bellperson(zp_ntt_domain *d, zp_fr *a, zp_fr *b, zp_fr *c)
{
	if (!d->mem)
		return zp_err_set(ZP_ERANGE, "ntt: domain not initialized");
	zp_fr z, zinv;
	pow_u64(&z, &d->gen, d->n);
	f_sub(&z, &z, &ZP_FR_ONE);
	if (zp_fr_is_zero(&z))
		return zp_err_set(ZP_ERANGE, "ntt: Z(g) = 0 for n = %zu", d->n);
	zp_fr_inv(&zinv, &z);
	zp_fr *v[3] = { a, b, c };
	for (int i = 0; i < 3; i++) {
		int rc = to_coset(d, v[i], &d->gen);
		if (rc < 0)
			return rc;
	}
	combine(a, b, c, d->n, &zinv);
	return zp_ntt_coset_inverse(d, a, &d->gen);
}
