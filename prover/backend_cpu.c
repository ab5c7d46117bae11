/*
 * backend_cpu.c — the portable CPU backend: proves in place in the caller's a, b, c
 * (no private copy), multi-threaded through zp_par_for inside the NTTs and MSMs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "g16_impl.h"
#include "groth16.h"
#include "par.h"
#include "zp_err.h"

struct cpu {
	const zp_g16_key *key;
	const zp_fr *w;
	zp_fr *a, *b, *c;
	zp_g1_jac h;
};

static int cpu_create(void **state, const zp_g16_key *key)
{
	struct cpu *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->key = key;
	*state = s;
	return 0;
}

static int cpu_upload(void *state, const zp_fr *w, zp_fr *a, zp_fr *b, zp_fr *c)
{
	struct cpu *s = state;
	s->w = w;
	s->a = a;
	s->b = b;
	s->c = c;
	return 0;
}

/* v[i] *= f^i over [0, n), in blocks so each block starts from f^(block start). */
#define BLK 4096
struct powmul_ctx { zp_fr *v; const zp_fr *f; size_t n; };

static void powmul_task(void *vctx, size_t t, int worker)
{
	struct powmul_ctx *c = vctx;
	size_t i0 = t * BLK, i1 = i0 + BLK < c->n ? i0 + BLK : c->n;
	zp_fr p;
	uint64_t e = i0;
	zp_fr_pow(&p, c->f, &e, 1);
	for (size_t i = i0; i < i1; i++) {
		zp_fr_mul(&c->v[i], &c->v[i], &p);
		zp_fr_mul(&p, &p, c->f);
	}
}

static void powmul(zp_fr *v, const zp_fr *f, size_t n)
{
	struct powmul_ctx c = { v, f, n };
	zp_par_for((n + BLK - 1) / BLK, powmul_task, &c);
}

/* d = (a·b − c)·z over [0, n); z = NULL means 1 */
struct quot_ctx { zp_fr *a; const zp_fr *b, *c, *z; size_t n; };

static void quot_task(void *vctx, size_t t, int worker)
{
	struct quot_ctx *q = vctx;
	size_t i0 = t * BLK, i1 = i0 + BLK < q->n ? i0 + BLK : q->n;
	for (size_t i = i0; i < i1; i++) {
		zp_fr_mul(&q->a[i], &q->a[i], &q->b[i]);
		zp_fr_sub(&q->a[i], &q->a[i], &q->c[i]);
		if (q->z)
			zp_fr_mul(&q->a[i], &q->a[i], q->z);
	}
}

/* evaluations on the domain -> evaluations on the coset f·<ω> */
static int to_coset(zp_fr *v, uint32_t lg, const zp_fr *f)
{
	int rc = g16_ntt(v, lg, 1);
	if (rc)
		return rc;
	powmul(v, f, (size_t)1 << lg);
	return g16_ntt(v, lg, 0);
}

static int cpu_h(void *state)
{
	struct cpu *s = state;
	const zp_zkey *k = s->key->zkey;
	uint32_t lg = k->log_domain;
	size_t n = k->domain_size;
	zp_fr f, z, *zp = NULL;
	int rc;
	if (s->key->h_mode == ZP_H_SNARKJS) {
		g16_root_of_unity(&f, lg + 1);          /* odd roots of the doubled domain */
	} else {
		zp_fr_from_u64(&f, 7);                  /* Fr's multiplicative generator g */
		uint64_t e = n;
		zp_fr_pow(&z, &f, &e, 1);               /* Z(g·ω^j) = g^n − 1 for every j */
		zp_fr_sub(&z, &z, &ZP_FR_ONE);
		zp_fr_inv(&z, &z);
		zp = &z;
	}
	if ((rc = to_coset(s->a, lg, &f)) || (rc = to_coset(s->b, lg, &f)) || (rc = to_coset(s->c, lg, &f)))
		return rc;
	struct quot_ctx q = { s->a, s->b, s->c, zp, n };
	zp_par_for((n + BLK - 1) / BLK, quot_task, &q);
	if (s->key->h_mode == ZP_H_SNARKJS)
		return g16_msm_g1(&s->h, k->h, s->a, n);
	/* coefficients of h: coset iNTT = iNTT, then × g^-i */
	zp_fr gi;
	zp_fr_inv(&gi, &f);
	if ((rc = g16_ntt(s->a, lg, 1)))
		return rc;
	powmul(s->a, &gi, n);
	return g16_msm_g1(&s->h, s->key->h_coeff, s->a, n);
}

static int cpu_msm(void *state, zp_g16_msm_out *out)
{
	struct cpu *s = state;
	const zp_zkey *k = s->key->zkey;
	size_t nv = k->n_vars, np = k->n_public;
	int rc;
	if ((rc = g16_msm_g1(&out->a, k->a, s->w, nv)) || (rc = g16_msm_g1(&out->b1, k->b1, s->w, nv)) ||
	    (rc = g16_msm_g2(&out->b2, k->b2, s->w, nv)) ||
	    (rc = g16_msm_g1(&out->c, k->c, s->w + np + 1, nv - np - 1)))
		return rc;
	out->h = s->h;
	return 0;
}

static void cpu_destroy(void *state)
{
	free(state);
}

const zp_g16_backend_ops zp_g16_backend_cpu = {
	.name = "cpu",
	.create = cpu_create,
	.upload = cpu_upload,
	.h = cpu_h,
	.msm = cpu_msm,
	.destroy = cpu_destroy,
};
