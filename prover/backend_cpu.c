/*
 * backend_cpu.c — the portable CPU backend.
 *
 * Proves in place in the caller's a, b, c (no private copy: docs/DESIGN.md "Release early"), with
 * common/'s NTT domain (the key's root family) and MSM; create() allocates everything a proof needs
 * (NTT tables, MSM scratch for the largest query), so the stages allocate nothing.
 *
 * Compact keys (bellperson .params, zp_g16_key.compact): dens_upload copies the proof's input into
 * buffers create() made for it (a/b/c zero-padded to the domain), dens_prove checks the popcounts,
 * gathers the A and B scalars through the density bitmaps (A: every input, then the aux wires in A;
 * B: inputs in B, then aux in B) and runs H and the five MSMs on them (BLS12-381 keys: .params).
 *
 * Both curves: backend_cpu_tmpl.h once per curve; create() picks the key's curve's stages.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "density.h"
#include "groth16.h"
#include "bn254_msm.h"
#include "bn254_ntt.h"
#include "msm.h"
#include "ntt.h"
#include "zp_err.h"

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
static int dens_alloc(struct cpu_dens **dp, const zp_g16_key *key)
{
	const zp_zkey *k = key->zkey;
	uint64_t nv = k->n_vars, ninp = (uint64_t)k->n_public + 1, d = k->domain_size;
	struct cpu_dens *b = calloc(1, sizeof *b);
	if (!b)
		return -ENOMEM;
	*dp = b;
	b->w = aligned_fr(nv);
	b->abc = aligned_fr(3 * d);
	b->sa = aligned_fr(key->n_a);
	b->sb = aligned_fr(key->n_b);
	b->bits = aligned_alloc(64, ((2 * (nv - ninp) + ninp) / 64 + 4) * 8 + 64);
	return b->w && b->abc && b->sa && b->sb && b->bits ? 0 : -ENOMEM;
}

#define ZP_CN_BLS12_381
#include "curve_names.h"
#define KP(k) (k)
#define MO(m) (m)
#define NTT(x) zp_ntt_##x
#define NTT_INIT(d, lg, key) zp_ntt_domain_init_ex(d, lg, zp_g16_key_roots(key), 0)
#define MSM(x) zp_msm_##x
#define BLS
#include "backend_cpu_tmpl.h"
#include "curve_names.h" /* undefines the names */
#undef KP
#undef MO
#undef NTT
#undef NTT_INIT
#undef MSM
#undef BLS
#define ZP_CN_BN254
#include "curve_names.h"
#define KP(k) (&(k)->bn)
#define MO(m) (&(m)->bn)
#define NTT(x) zp_bn254_ntt_##x
#define NTT_INIT(d, lg, key) zp_bn254_ntt_domain_init(d, lg)   /* snarkjs's roots (family 5) */
#define MSM(x) zp_bn254_msm_##x
#include "backend_cpu_tmpl.h"

static int cpu_dens_upload_bls(void *state, const zp_g16_dens_in *in)
{
	struct cpu_bls *s = state;
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
static int cpu_dens_prove_bls(void *state, zp_g16_msm_out *mo)
{
	struct cpu_bls *s = state;
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
	zp_density_gather_par(b->sa + ninp, aux, a_aux, naux, b->pop[0]);   /* the counts are checked above */
	uint64_t nb = zp_density_gather_par(b->sb, inp, b_inp, ninp, b->pop[1]);
	zp_density_gather_par(b->sb + nb, aux, b_aux, naux, b->pop[2]);
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

/* One table for both curves: create() picks the key's curve's stages, every later call follows them. */
struct stages {
	int (*create)(void **, const zp_g16_key *);
	int (*upload)(void *, const zp_fr *, zp_fr *, zp_fr *, zp_fr *);
	int (*h)(void *);
	int (*msm)(void *, zp_g16_msm_out *);
	void (*destroy)(void *);
};

static const struct stages stages_bls = { cpu_create_bls, cpu_upload_bls, cpu_h_bls, cpu_msm_bls, cpu_destroy_bls };
static const struct stages stages_bn = { cpu_create_bn, cpu_upload_bn, cpu_h_bn, cpu_msm_bn, cpu_destroy_bn };

struct cpu {
	const struct stages *st;
	void *inner;
};

static int cpu_create(void **state, const zp_g16_key *key)
{
	struct cpu *s = calloc(1, sizeof(*s));
	if (!s)
		return zp_err_set(-ENOMEM, "CPU backend state");
	s->st = zp_zkey_is_bn254(key->zkey) ? &stages_bn : &stages_bls;
	int rc = s->st->create(&s->inner, key);
	if (rc) {
		free(s);
		return rc;
	}
	*state = s;
	return 0;
}

static int cpu_upload(void *state, const zp_fr *w, zp_fr *a, zp_fr *b, zp_fr *c)
{
	struct cpu *s = state;
	return s->st->upload(s->inner, w, a, b, c);
}

static int cpu_h(void *state)
{
	struct cpu *s = state;
	return s->st->h(s->inner);
}

static int cpu_msm(void *state, zp_g16_msm_out *out)
{
	struct cpu *s = state;
	return s->st->msm(s->inner, out);
}

static void cpu_destroy(void *state)
{
	struct cpu *s = state;
	s->st->destroy(s->inner);
	free(s);
}

/* compact keys are bellperson's, BLS12-381 only (create() refused any other) */
static int cpu_dens_upload(void *state, const zp_g16_dens_in *in)
{
	struct cpu *s = state;
	return s->st == &stages_bls ? cpu_dens_upload_bls(s->inner, in)
				    : zp_err_set(ZP_ERANGE, "CPU backend: compact keys are BLS12-381 keys");
}

static int cpu_dens_prove(void *state, zp_g16_msm_out *mo)
{
	struct cpu *s = state;
	return s->st == &stages_bls ? cpu_dens_prove_bls(s->inner, mo)
				    : zp_err_set(ZP_ERANGE, "CPU backend: compact keys are BLS12-381 keys");
}

const zp_g16_backend_ops zp_g16_backend_cpu = {
	.name = "cpu",
	.curves = 1u << ZP_CURVE_BLS12_381 | 1u << ZP_CURVE_BN254,
	.create = cpu_create,
	.upload = cpu_upload,
	.h = cpu_h,
	.msm = cpu_msm,
	.destroy = cpu_destroy,
	.dens_upload = cpu_dens_upload,
	.dens_prove = cpu_dens_prove,
};
