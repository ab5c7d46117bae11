/*
 * backend_cpu.c — the portable CPU backend.
 *
 * Proves in place in the caller's a, b, c (no private copy: DESIGN "release early"), with
 * common/'s NTT domain and MSM; create() allocates everything a proof needs (NTT tables, MSM
 * scratch for the largest query), so the stages allocate nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "groth16.h"
#include "msm.h"
#include "ntt.h"
#include "zp_err.h"

struct cpu {
	const zp_g16_key *key;
	const zp_fr *w;
	zp_fr *a, *b, *c;
	zp_g1_jac h;
	zp_ntt_domain dom;
	void *scratch;
	size_t scratch_len;
};

static void cpu_destroy(void *state)
{
	struct cpu *s = state;
	zp_ntt_domain_free(&s->dom);
	free(s->scratch);
	free(s);
}

static int cpu_create(void **state, const zp_g16_key *key)
{
	const zp_zkey *k = key->zkey;
	if (key->dev_points || !k->a)
		return zp_err_set(ZP_ERANGE, "CPU backend: the key's points are in GPU memory (setup = device), not on "
				  "the host: prove it with backend = cuda");
	struct cpu *s = calloc(1, sizeof(*s));
	if (!s)
		return zp_err_set(-ENOMEM, "CPU backend state");
	s->key = key;
	size_t nmax = k->n_vars > k->domain_size ? k->n_vars : k->domain_size;
	size_t g1 = zp_msm_g1_scratch_size(nmax), g2 = zp_msm_g2_scratch_size(k->n_vars);
	s->scratch_len = g1 > g2 ? g1 : g2;
	s->scratch = aligned_alloc(64, (s->scratch_len + 63) / 64 * 64);
	/* the key's own root family: the H step must evaluate on the domain its Lagrange basis used */
	int rc = s->scratch ? zp_ntt_domain_init_ex(&s->dom, k->log_domain, zp_g16_key_roots(key), 0) : -ENOMEM;
	if (rc) {
		size_t len = s->scratch_len;
		cpu_destroy(s);
		return zp_err_set(rc, "CPU backend: NTT domain 2^%u and MSM scratch (%zu bytes)", k->log_domain, len);
	}
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

static int cpu_h(void *state)
{
	struct cpu *s = state;
	const zp_zkey *k = s->key->zkey;
	int rc;
	if (s->key->h_mode == ZP_H_SNARKJS) {
		if ((rc = zp_ntt_h_snarkjs(&s->dom, s->a, s->b, s->c)))
			return zp_err_set(rc, "H (snarkjs convention)");
		return zp_msm_g1(&s->h, k->h, s->a, k->domain_size, s->scratch, s->scratch_len);
	}
	if ((rc = zp_ntt_h_bellperson(&s->dom, s->a, s->b, s->c)))
		return zp_err_set(rc, "H (coefficient convention)");
	return zp_msm_g1(&s->h, s->key->h_coeff, s->a, k->domain_size, s->scratch, s->scratch_len);
}

static int cpu_msm(void *state, zp_g16_msm_out *out)
{
	struct cpu *s = state;
	const zp_zkey *k = s->key->zkey;
	size_t nv = k->n_vars, np = k->n_public;
	void *sc = s->scratch;
	size_t sl = s->scratch_len;
	int rc;
	if ((rc = zp_msm_g1(&out->a, k->a, s->w, nv, sc, sl)) || (rc = zp_msm_g1(&out->b1, k->b1, s->w, nv, sc, sl)) ||
	    (rc = zp_msm_g2(&out->b2, k->b2, s->w, nv, sc, sl)) ||
	    (rc = zp_msm_g1(&out->c, k->c, s->w + np + 1, nv - np - 1, sc, sl)))
		return zp_err_set(rc, "MSM");
	out->h = s->h;
	return 0;
}

const zp_g16_backend_ops zp_g16_backend_cpu = {
	.name = "cpu",
	.create = cpu_create,
	.upload = cpu_upload,
	.h = cpu_h,
	.msm = cpu_msm,
	.destroy = cpu_destroy,
};
