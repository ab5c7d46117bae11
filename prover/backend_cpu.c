/*
 * backend_cpu.c — the portable CPU backend.
 *
 * Proves in place in the caller's a, b, c (no private copy: DESIGN "release early"), with
 * common/'s NTT domain (the key's root family) and MSM; create() allocates everything a proof needs
 * (NTT tables, MSM scratch for the largest query), so the stages allocate nothing.
 *
 * Compact keys (bellperson .params, zp_g16_key.compact): dens_upload copies the proof's input into
 * buffers create() made for it (a/b/c zero-padded to the domain), dens_prove checks the popcounts,
 * gathers the A and B scalars through the density bitmaps (A: every input, then the aux wires in A;
 * B: inputs in B, then aux in B) and runs H and the five MSMs on them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "density.h"
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
	struct cpu_dens *dens;     /* compact keys: the proof's input, copied (dens_upload) */
};

struct cpu_dens {
	zp_fr *w, *abc, *sa, *sb;  /* inputs ++ aux; a | b | c over the domain; A and B scalars */
	uint64_t *bits;            /* a_aux | b_inp | b_aux words */
	uint64_t pop[3];           /* the caller's popcounts */
};

static void dens_free(struct cpu_dens *d)
{
	if (!d)
		return;
	free(d->w);
	free(d->abc);
	free(d->sa);
	free(d->sb);
	free(d->bits);
	free(d);
}

static void *aligned_fr(uint64_t n)
{
	return aligned_alloc(64, (n * sizeof(zp_fr) + 63) / 64 * 64 + 64);
}

/* Buffers for one proof of a compact key (inputs + aux wires, a/b/c over the domain, gathers). */
static int dens_alloc(struct cpu *s, const zp_g16_key *key)
{
	const zp_zkey *k = key->zkey;
	uint64_t nv = k->n_vars, ninp = (uint64_t)k->n_public + 1, d = k->domain_size;
	struct cpu_dens *b = calloc(1, sizeof *b);
	if (!b)
		return -ENOMEM;
	s->dens = b;
	b->w = aligned_fr(nv);
	b->abc = aligned_fr(3 * d);
	b->sa = aligned_fr(key->n_a);
	b->sb = aligned_fr(key->n_b);
	b->bits = aligned_alloc(64, ((2 * (nv - ninp) + ninp) / 64 + 4) * 8 + 64);
	return b->w && b->abc && b->sa && b->sb && b->bits ? 0 : -ENOMEM;
}

static void cpu_destroy(void *state)
{
	struct cpu *s = state;
	zp_ntt_domain_free(&s->dom);
	free(s->scratch);
	dens_free(s->dens);
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
	if (key->compact && key->h_mode != ZP_H_COEFF)
		return zp_err_set(ZP_ERANGE, "CPU backend: a compact key needs the coefficient H query");
	s->key = key;
	size_t nmax = k->n_vars > k->domain_size ? k->n_vars : k->domain_size;
	size_t g1 = zp_msm_g1_scratch_size(nmax), g2 = zp_msm_g2_scratch_size(k->n_vars);
	if (key->compact) { /* the largest of H (domain − 1), L, A, B1; G2: B2 */
		size_t nl = (size_t)k->n_vars - k->n_public - 1, nh = (size_t)k->domain_size - 1;
		nmax = nh > nl ? nh : nl;
		nmax = nmax > key->n_a ? nmax : key->n_a;
		nmax = nmax > key->n_b ? nmax : key->n_b;
		g1 = zp_msm_g1_scratch_size(nmax);
		g2 = zp_msm_g2_scratch_size(key->n_b);
	}
	s->scratch_len = g1 > g2 ? g1 : g2;
	s->scratch = aligned_alloc(64, (s->scratch_len + 63) / 64 * 64);
	/* the key's own root family: the H step must evaluate on the domain its Lagrange basis used */
	int rc = s->scratch ? zp_ntt_domain_init_ex(&s->dom, k->log_domain, zp_g16_key_roots(key), 0) : -ENOMEM;
	if (!rc && key->compact)
		rc = dens_alloc(s, key);
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
	if (s->key->compact)
		return zp_err_set(ZP_ERANGE, "CPU backend: a compact key proves through dens_upload");
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

static int cpu_dens_upload(void *state, const zp_g16_dens_in *in)
{
	struct cpu *s = state;
	struct cpu_dens *b = s->dens;
	const zp_zkey *k = s->key->zkey;
	uint64_t ninp = (uint64_t)k->n_public + 1, naux = k->n_vars - ninp, d = k->domain_size, fr = sizeof(zp_fr);
	if (!b)
		return zp_err_set(ZP_ERANGE, "CPU backend: dens_upload on a key that is not compact");
	if (in->abc_len > d)
		return zp_err_set(ZP_EMISMATCH, "CPU backend: %llu a/b/c rows, domain %llu", (unsigned long long)in->abc_len,
				  (unsigned long long)d);
	memcpy(b->w, in->inp, ninp * fr);
	memcpy(b->w + ninp, in->aux, naux * fr);
	for (int m = 0; m < 3; m++) {
		memcpy(b->abc + m * d, in->abc[m], in->abc_len * fr);
		memset(b->abc + m * d + in->abc_len, 0, (d - in->abc_len) * fr);
	}
	uint64_t wa = (naux + 63) / 64, wi = (ninp + 63) / 64;
	memcpy(b->bits, in->a_aux, wa * 8);
	memcpy(b->bits + wa, in->b_inp, wi * 8);
	memcpy(b->bits + wa + wi, in->b_aux, wa * 8);
	b->pop[0] = in->a_aux_pop;
	b->pop[1] = in->b_inp_pop;
	b->pop[2] = in->b_aux_pop;
	return 0;
}

/* Popcounts, gathers, H and the five MSMs on the host from the copied input. */
static int cpu_dens_prove(void *state, zp_g16_msm_out *mo)
{
	struct cpu *s = state;
	struct cpu_dens *b = s->dens;
	const zp_g16_key *key = s->key;
	const zp_zkey *k = key->zkey;
	uint64_t ninp = (uint64_t)k->n_public + 1, naux = k->n_vars - ninp, d = k->domain_size;
	uint64_t wa = (naux + 63) / 64, wi = (ninp + 63) / 64;
	const uint64_t *a_aux = b->bits, *b_inp = b->bits + wa, *b_aux = b->bits + wa + wi;
	if (zp_density_popcount(a_aux, naux) != b->pop[0] || zp_density_popcount(b_inp, ninp) != b->pop[1] ||
	    zp_density_popcount(b_aux, naux) != b->pop[2] || ninp + b->pop[0] != key->n_a || b->pop[1] + b->pop[2] != key->n_b)
		return zp_err_set(ZP_EMISMATCH, "a density bitmap's popcount differs from the one the caller gave");
	const zp_fr *inp = b->w, *aux = b->w + ninp;
	memcpy(b->sa, inp, ninp * sizeof(zp_fr));
	zp_density_gather(b->sa + ninp, aux, a_aux, naux);
	uint64_t nb = zp_density_gather(b->sb, inp, b_inp, ninp);
	zp_density_gather(b->sb + nb, aux, b_aux, naux);
	zp_fr *a = b->abc, *bb = a + d, *c = bb + d;
	int r = zp_ntt_h_bellperson(&s->dom, a, bb, c);
	void *sc = s->scratch;
	size_t sl = s->scratch_len;
	if (!r) r = zp_msm_g1(&mo->h, key->h_coeff, a, d - 1, sc, sl);
	if (!r) r = zp_msm_g1(&mo->c, k->c, aux, naux, sc, sl);
	if (!r) r = zp_msm_g1(&mo->a, k->a, b->sa, key->n_a, sc, sl);
	if (!r) r = zp_msm_g1(&mo->b1, k->b1, b->sb, key->n_b, sc, sl);
	if (!r) r = zp_msm_g2(&mo->b2, k->b2, b->sb, key->n_b, sc, sl);
	return r;
}

const zp_g16_backend_ops zp_g16_backend_cpu = {
	.name = "cpu",
	.create = cpu_create,
	.upload = cpu_upload,
	.h = cpu_h,
	.msm = cpu_msm,
	.destroy = cpu_destroy,
	.dens_upload = cpu_dens_upload,
	.dens_prove = cpu_dens_prove,
};
