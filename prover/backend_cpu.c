/*
 * backend_cpu.c — the portable CPU backend.
 *
 * Proves in place in the caller's a, b, c (no private copy: DESIGN "release early"), with
 * common/'s NTT domain and MSM; create() allocates everything a proof needs (NTT tables, MSM
 * scratch for the largest query), so the stages allocate nothing. Both curves: backend_cpu_tmpl.h once per
 * curve, the key's curve chosen in create().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "groth16.h"
#include "bn254_msm.h"
#include "bn254_ntt.h"
#include "msm.h"
#include "ntt.h"
#include "zp_err.h"

#define S(x) x##_bls
#define FR zp_fr
#define G1J zp_g1_jac
#define KP(k) (k)
#define MO(m) (m)
#define NTT(x) zp_ntt_##x
#define MSM(x) zp_msm_##x
#define HAS_COEFF
#include "backend_cpu_tmpl.h"
#undef S
#undef FR
#undef G1J
#undef KP
#undef MO
#undef NTT
#undef MSM
#undef HAS_COEFF
#define S(x) x##_bn
#define FR zp_bn254_fr
#define G1J zp_bn254_g1_jac
#define KP(k) (&(k)->bn)
#define MO(m) (&(m)->bn)
#define NTT(x) zp_bn254_ntt_##x
#define MSM(x) zp_msm_bn254_##x
#include "backend_cpu_tmpl.h"

/* One table for both curves: create() picks the key's curve's stages and every later call follows its
 * state's first member (the stage set), so the prover sees one backend. */
struct cpu {
	const struct stages *st;
	void *inner;
};

struct stages {
	int (*create)(void **, const zp_g16_key *);
	int (*upload)(void *, const zp_fr *, zp_fr *, zp_fr *, zp_fr *);
	int (*h)(void *);
	int (*msm)(void *, zp_g16_msm_out *);
	void (*destroy)(void *);
};

static const struct stages stages_bls = { cpu_create_bls, cpu_upload_bls, cpu_h_bls, cpu_msm_bls, cpu_destroy_bls };
static const struct stages stages_bn = { cpu_create_bn, cpu_upload_bn, cpu_h_bn, cpu_msm_bn, cpu_destroy_bn };

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

const zp_g16_backend_ops zp_g16_backend_cpu = {
	.name = "cpu",
	.create = cpu_create,
	.upload = cpu_upload,
	.h = cpu_h,
	.msm = cpu_msm,
	.destroy = cpu_destroy,
};
