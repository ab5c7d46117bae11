/*
 * setup_cuda.c — the setup's points on the GPU (setup.h, setup_cuda.h): a zp_setup_sink that
 * uploads each query's scalars in chunks, runs cuda/setup.cu's fixed-base kernels and either
 * downloads the points into the zp_pkey (zp_setup with opts.device) or leaves them in device
 * arrays (zp_setup_device). Everything runs on the legacy default stream, in order. The CUDA
 * runtime is cuda/runtime.c's (zp_cuda.h): this file makes no cudart call of its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "setup_cuda.h"
#include "setup_impl.h"
#include "zp_err.h"

#define DCHUNK ((size_t)1 << 22)   /* scalars per kernel call */

struct cu_sink {
	zp_setup_sink s;
	zp_pkey *k;                 /* host destination, or */
	zp_cuda_key_dev *kd;        /* device destination */
	zp_g1_affine *ic;           /* IC on the host (device mode) */
	zp_cuda_g1_aff *d_t1;
	zp_cuda_g2_aff *d_t2;
	zp_fr *d_k;
	void *d_out, *d_scr;
	size_t scr_len;
	int bn;                     /* BN254 (host keys only): its kernels and point sizes */
	size_t g1b, g2b;            /* affine point bytes */
};

#define CS_WHO "setup on the GPU"

int zp_setup_cuda_available(void)
{
	return zp_cuda_device_count() > 0;
}

/* ZP_CUDA_DEVICE, checked, current on this thread. */
static int select_device(void)
{
	return zp_cuda_probe(CS_WHO, NULL, 0);
}

static int cs_begin(zp_setup_sink *s)
{
	struct cu_sink *c = (struct cu_sink *)s;
	size_t b1 = s->t1_len * c->g1b, b2 = s->t2_len * c->g2b;
	int rc;
	if ((rc = zp_cuda_alloc((void **)&c->d_t1, b1, CS_WHO, "the G1 table")))
		return rc;
	if ((rc = zp_cuda_alloc((void **)&c->d_t2, b2, CS_WHO, "the G2 table")))
		return rc;
	if ((rc = zp_cuda_copy_to_dev(c->d_t1, s->t1, b1, NULL)))
		return rc;
	if ((rc = zp_cuda_copy_to_dev(c->d_t2, s->t2, b2, NULL)))
		return rc;
	return 0;
}

static int cs_points(zp_setup_sink *s, int sec, const zp_fr *k, size_t off, size_t n)
{
	struct cu_sink *c = (struct cu_sink *)s;
	int g2 = sec == ZP_PKS_B2, rc;
	size_t ps = g2 ? c->g2b : c->g1b;
	uint8_t *dst;                 /* section base, host or device */
	int on_dev = c->kd != NULL;
	if (on_dev) {
		zp_cuda_key_dev *kd = c->kd;
		dst = sec == ZP_PKS_A ? (uint8_t *)kd->a : sec == ZP_PKS_B1 ? (uint8_t *)kd->b1
		    : sec == ZP_PKS_B2 ? (uint8_t *)kd->b2 : sec == ZP_PKS_C ? (uint8_t *)kd->c
		    : sec == ZP_PKS_H ? (uint8_t *)kd->h : NULL;
		if (sec == ZP_PKS_IC) {   /* the verification key's part stays on the host */
			dst = (uint8_t *)c->ic;
			on_dev = 0;
		}
	} else if (c->bn) {
		zp_zkey_bn254 *z = &c->k->zk.bn;
		dst = sec == ZP_PKS_A ? (uint8_t *)z->a : sec == ZP_PKS_B1 ? (uint8_t *)z->b1
		    : sec == ZP_PKS_B2 ? (uint8_t *)z->b2 : sec == ZP_PKS_C ? (uint8_t *)z->c
		    : sec == ZP_PKS_IC ? (uint8_t *)z->ic : (uint8_t *)z->h;
	} else {
		zp_zkey *z = &c->k->zk;
		dst = sec == ZP_PKS_A ? (uint8_t *)z->a : sec == ZP_PKS_B1 ? (uint8_t *)z->b1
		    : sec == ZP_PKS_B2 ? (uint8_t *)z->b2 : sec == ZP_PKS_C ? (uint8_t *)z->c
		    : sec == ZP_PKS_IC ? (uint8_t *)z->ic : (uint8_t *)(z->h ? z->h : c->k->g16.h_coeff);
	}
	for (size_t i = 0; i < n; i += DCHUNK) {
		size_t len = n - i < DCHUNK ? n - i : DCHUNK;
		void *out = on_dev ? dst + (off + i) * ps : c->d_out;
		if ((rc = zp_cuda_copy_to_dev(c->d_k, k + i, len * sizeof(zp_fr), NULL)))
			return rc;
		if (c->bn)
			rc = zp_cuda_bn254_fixed_base(g2, out, c->d_k, len, g2 ? (const void *)c->d_t2 : (const void *)c->d_t1,
						      (unsigned)(g2 ? s->w2 : s->w1), c->d_scr, c->scr_len, NULL);
		else
			rc = g2 ? zp_cuda_g2_fixed_base(out, c->d_k, len, c->d_t2, (unsigned)s->w2, c->d_scr, c->scr_len, NULL)
				: zp_cuda_g1_fixed_base(out, c->d_k, len, c->d_t1, (unsigned)s->w1, c->d_scr, c->scr_len, NULL);
		if (rc)
			return rc;
		if (!on_dev)
			if ((rc = zp_cuda_copy_to_host(dst + (off + i) * ps, out, len * ps, NULL)))
				return rc;
		zp_progress_add(len); /* the next chunk's scalar upload waits for this one's kernel: at most a chunk ahead */
	}
	if (on_dev)
		if ((rc = zp_cuda_device_sync()))
			return rc;
	return 0;
}

/* chunk buffers: scalars, scratch, and the points on their way to the host: out_pts points (a
 * chunk of G2 for a host key; for a device key only IC comes back) */
static int cs_alloc(struct cu_sink *c, size_t out_bytes)
{
	int rc;
	c->s.begin = cs_begin;
	c->s.points = cs_points;
	c->scr_len = c->bn ? zp_cuda_bn254_fixed_base_scratch_size(1, DCHUNK) : zp_cuda_fixed_base_scratch_size(1, DCHUNK);
	if ((rc = zp_cuda_alloc((void **)&c->d_k, DCHUNK * sizeof(zp_fr), CS_WHO, "scalars")))
		return rc;
	if ((rc = zp_cuda_alloc(&c->d_scr, c->scr_len, CS_WHO, "the fixed-base scratch")))
		return rc;
	if ((rc = zp_cuda_alloc(&c->d_out, out_bytes, CS_WHO, "points")))
		return rc;
	return 0;
}

static void cs_free(struct cu_sink *c)
{
	void *p[] = { c->d_t1, c->d_t2, c->d_k, c->d_out, c->d_scr };
	for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
		zp_cuda_free(p[i]);
	c->d_t1 = NULL;
	c->d_t2 = NULL;
	c->d_k = NULL;
	c->d_out = c->d_scr = NULL;
}

int zp_setup_cuda_host(zp_pkey *k, const zp_circuit *c, const zp_setup_opts *o)
{
	zp_pkey_header h;
	struct cu_sink s = { 0 };
	int rc;
	memset(k, 0, sizeof(*k));
	if ((rc = zp_setup_header(&h, c, o)) || (rc = select_device()))
		return rc;
	if ((rc = zp_pkey_alloc(k, &h)))
		return rc;
	s.k = k;
	s.bn = zp_zkey_is_bn254(&k->zk);
	s.g1b = k->zk.curve->g1_bytes;
	s.g2b = k->zk.curve->g2_bytes;
	if (!(rc = cs_alloc(&s, DCHUNK * s.g2b)))
		rc = zp_setup_run(&k->zk, c, o, &s.s);
	cs_free(&s);
	if (rc) {
		zp_pkey_free(k);
		return rc;
	}
	zp_pkey_seal(k);
	return 0;
}

int zp_setup_device(zp_cuda_key_dev *kd, zp_zkey *z, const zp_circuit *c, const zp_setup_opts *o)
{
	static const zp_setup_opts defaults = { 0 };
	zp_pkey_header h;
	struct cu_sink s = { 0 };
	int rc;
	memset(kd, 0, sizeof *kd);
	memset(z, 0, sizeof *z);
	if (!o)
		o = &defaults;
	/* any root family: the caller's zp_g16_key records it (.roots) and every backend proves with it */
	if ((rc = zp_setup_cuda_check(c)) || (rc = zp_setup_header(&h, c, o)) || (rc = select_device()))
		return rc;
	s.g1b = sizeof(zp_g1_affine);
	s.g2b = sizeof(zp_g2_affine);
	size_t nv = c->n_vars, np = c->n_public, n = c->domain_size, naux = nv - np - 1;
	size_t g1 = sizeof(zp_g1_affine), g2 = sizeof(zp_g2_affine);
	z->n_vars = c->n_vars;
	z->n_public = c->n_public;
	z->domain_size = c->domain_size;
	z->log_domain = c->log_domain;
	z->circuit.n_vars = c->n_vars;
	z->circuit.n_public = c->n_public;
	z->circuit.n_constraints = c->n_constraints;
	z->circuit.domain_size = c->domain_size;
	z->circuit.log_domain = c->log_domain;
	memcpy(z->circuit.fingerprint, c->fingerprint, 16);
	if (!(z->ic = malloc((np + 1) * g1))) {
		rc = zp_err_set(-ENOMEM, "device setup: IC");
		goto err;
	}
	if ((rc = zp_cuda_alloc((void **)&kd->a, nv * g1, CS_WHO, "the key's A")) ||
	    (rc = zp_cuda_alloc((void **)&kd->b1, nv * g1, CS_WHO, "the key's B1")) ||
	    (rc = zp_cuda_alloc((void **)&kd->b2, nv * g2, CS_WHO, "the key's B2")) ||
	    (rc = zp_cuda_alloc((void **)&kd->c, (naux ? naux : 1) * g1, CS_WHO, "the key's C")) ||
	    (rc = zp_cuda_alloc((void **)&kd->h, n * g1, CS_WHO, "the key's H")))
		goto err;
	s.kd = kd;
	s.ic = z->ic;
	if (!(rc = cs_alloc(&s, (np + 1 < DCHUNK ? np + 1 : DCHUNK) * g1)))
		rc = zp_setup_run(z, c, o, &s.s);
	cs_free(&s);
	if (rc)
		goto err;
	return 0;
err:
	cs_free(&s);
	zp_cuda_key_dev_free(kd);
	zp_zkey_free(z);
	return rc;
}
