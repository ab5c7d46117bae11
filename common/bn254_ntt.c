/*
 * bn254_ntt.c — BN254 Fr transforms (bn254_ntt.h): iterative radix-2 Cooley-Tukey on bit-reversed input.
 * Level with half-size h: butterfly t (< n/2) joins a[g·2h + j] and a[g·2h + j + h] (g = t / h,
 * j = t mod h) with ω_n^(j·n/2h). The inverse is the forward transform followed by a[i] <-> a[n-i]
 * (ω^-ij = ω^(i(n-j))) and the scaling by n^-1.
 */
#include "bn254_ntt.h"
#include "field_impl.h"
#include "par.h"
#include "zp_consts.h"
#include "zp_err.h"

#include <errno.h>
#include <stdlib.h>

typedef zp_bn254_fr fr;

#define CHUNK 4096
#define PAR_MIN ((size_t)1 << 14)

static const fr OMEGA28 = { ZP_C64_BN_FR_OMEGA28 };

static inline void fadd(fr *r, const fr *a, const fr *b) { zp_mod4_addc(r->l, a->l, b->l, ZP_BN254_FR_MODULUS); }
static inline void fsub(fr *r, const fr *a, const fr *b) { zp_mod4_subc(r->l, a->l, b->l, ZP_BN254_FR_MODULUS); }

int zp_bn254_ntt_root(fr *w, unsigned k)
{
	if (k > ZP_BN254_NTT_MAX_LOG)
		return zp_err_set(ZP_ERANGE, "bn254 ntt: no 2^%u-th root of unity (2-adicity 28)", k);
	*w = OMEGA28;
	for (unsigned i = ZP_BN254_NTT_MAX_LOG; i > k; i--)
		zp_bn254_fr_mul_fast(w, w, w);
	return 0;
}

int zp_bn254_ntt_domain_init(zp_bn254_ntt_domain *d, unsigned log_n)
{
	*d = (zp_bn254_ntt_domain){ 0 };
	if (log_n > ZP_BN254_NTT_MAX_LOG)
		return zp_err_set(ZP_ERANGE, "bn254 ntt: 2^%u points is more than 2^28", log_n);
	size_t n = (size_t)1 << log_n, half = n > 1 ? n / 2 : 1;
	d->tw = malloc(half * sizeof(fr));
	if (!d->tw)
		return -ENOMEM;
	d->log_n = log_n;
	d->n = n;
	zp_bn254_ntt_root(&d->omega, log_n);
	if (log_n < ZP_BN254_NTT_MAX_LOG)
		zp_bn254_ntt_root(&d->omega_2n, log_n + 1);
	zp_bn254_fr_inv(&d->omega_inv, &d->omega);
	zp_bn254_fr_from_u64(&d->n_inv, n);
	zp_bn254_fr_inv(&d->n_inv, &d->n_inv);
	d->tw[0] = ZP_BN254_FR_ONE;
	for (size_t j = 1; j < half; j++)
		zp_bn254_fr_mul_fast(&d->tw[j], &d->tw[j - 1], &d->omega);
	return 0;
}

void zp_bn254_ntt_domain_free(zp_bn254_ntt_domain *d)
{
	free(d->tw);
	*d = (zp_bn254_ntt_domain){ 0 };
}

struct level {
	fr *a;
	const fr *tw;
	size_t n, h, stride;
};

static void level_task(void *ctx, size_t t0, int worker)
{
	(void)worker;
	const struct level *L = ctx;
	size_t lo = t0 * CHUNK, hi = lo + CHUNK < L->n / 2 ? lo + CHUNK : L->n / 2;
	for (size_t t = lo; t < hi; t++) {
		size_t j = t % L->h, i = (t / L->h) * 2 * L->h + j;
		fr v;
		zp_bn254_fr_mul_fast(&v, &L->a[i + L->h], &L->tw[j * L->stride]);
		fsub(&L->a[i + L->h], &L->a[i], &v);
		fadd(&L->a[i], &L->a[i], &v);
	}
}

static void bit_reverse(fr *a, unsigned log_n)
{
	size_t n = (size_t)1 << log_n;
	for (size_t i = 1, j = 0; i < n; i++) {
		size_t bit = n >> 1;
		for (; j & bit; bit >>= 1)
			j ^= bit;
		j |= bit;
		if (i < j) {
			fr t = a[i];
			a[i] = a[j];
			a[j] = t;
		}
	}
}

static int check(const zp_bn254_ntt_domain *d)
{
	return d->tw ? 0 : zp_err_set(ZP_ERANGE, "bn254 ntt: domain not initialized");
}

int zp_bn254_ntt_forward(zp_bn254_ntt_domain *d, fr *a)
{
	int rc = check(d);
	if (rc < 0)
		return rc;
	bit_reverse(a, d->log_n);
	for (size_t h = 1; h < d->n; h *= 2) {
		struct level L = { .a = a, .tw = d->tw, .n = d->n, .h = h, .stride = d->n / (2 * h) };
		size_t tasks = (d->n / 2 + CHUNK - 1) / CHUNK;
		if (d->n >= PAR_MIN)
			zp_par_for(tasks, level_task, &L);
		else
			for (size_t t = 0; t < tasks; t++)
				level_task(&L, t, 0);
	}
	return 0;
}

static void scale_powers(fr *a, size_t n, const fr *s)
{
	fr p = ZP_BN254_FR_ONE;
	for (size_t j = 0; j < n; j++) {
		zp_bn254_fr_mul_fast(&a[j], &a[j], &p);
		zp_bn254_fr_mul_fast(&p, &p, s);
	}
}

int zp_bn254_ntt_inverse(zp_bn254_ntt_domain *d, fr *a)
{
	int rc = zp_bn254_ntt_forward(d, a);
	if (rc < 0)
		return rc;
	for (size_t i = 1; i < d->n - i; i++) {
		fr t = a[i];
		a[i] = a[d->n - i];
		a[d->n - i] = t;
	}
	for (size_t i = 0; i < d->n; i++)
		zp_bn254_fr_mul_fast(&a[i], &a[i], &d->n_inv);
	return 0;
}

int zp_bn254_ntt_coset_forward(zp_bn254_ntt_domain *d, fr *a, const fr *shift)
{
	int rc = check(d);
	if (rc < 0)
		return rc;
	if (zp_bn254_fr_is_zero(shift))
		return zp_err_set(ZP_ERANGE, "bn254 ntt: coset shift 0");
	scale_powers(a, d->n, shift);
	return zp_bn254_ntt_forward(d, a);
}

int zp_bn254_ntt_coset_inverse(zp_bn254_ntt_domain *d, fr *a, const fr *shift)
{
	int rc = check(d);
	if (rc < 0)
		return rc;
	if (zp_bn254_fr_is_zero(shift))
		return zp_err_set(ZP_ERANGE, "bn254 ntt: coset shift 0");
	fr inv;
	zp_bn254_fr_inv(&inv, shift);
	if ((rc = zp_bn254_ntt_inverse(d, a)) < 0)
		return rc;
	scale_powers(a, d->n, &inv);
	return 0;
}

int zp_bn254_ntt_h_snarkjs(zp_bn254_ntt_domain *d, fr *a, fr *b, fr *c)
{
	int rc = check(d);
	if (rc < 0)
		return rc;
	if (d->log_n >= ZP_BN254_NTT_MAX_LOG)
		return zp_err_set(ZP_ERANGE, "bn254 ntt: the snarkjs coset needs ω_{2n}: 2^%u is too large", d->log_n);
	fr *v[3] = { a, b, c };
	for (int i = 0; i < 3; i++)
		if ((rc = zp_bn254_ntt_inverse(d, v[i])) < 0 || (rc = zp_bn254_ntt_coset_forward(d, v[i], &d->omega_2n)) < 0)
			return rc;
	for (size_t j = 0; j < d->n; j++) {
		zp_bn254_fr_mul_fast(&a[j], &a[j], &b[j]);
		fsub(&a[j], &a[j], &c[j]);
	}
	return 0;
}
