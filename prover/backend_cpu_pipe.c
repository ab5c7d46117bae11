/*
 * backend_cpu_pipe.c — the "pipelined CPU" backend (groth16.h: zp_g16_backend_cpu_pipe): the CPU
 * backend behind the device pipeline's ops, two host input sets standing in for a device's, so
 * that gpud's copy → release → gpu thread → tail thread pipeline runs (and is tested) on machines
 * without a GPU (ZKPIPE_GPUD_PIPELINE=1). upload_async copies the caller's w, a, b, c into set b
 * (synchronously: upload_wait has nothing to wait for); prove_buf proves set b in place with the
 * CPU backend. Compact keys go straight to the CPU backend's dens_upload / dens_prove.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "groth16.h"

struct cpu_pipe {
	void *cpu;
	const zp_g16_key *key;
	size_t nv, dom;
	zp_fr *w[2], *abc[2];
};

static const zp_g16_backend_ops *const cpu = &zp_g16_backend_cpu;

static void pipe_destroy(void *state)
{
	struct cpu_pipe *e = state;
	if (!e)
		return;
	if (e->cpu)
		cpu->destroy(e->cpu);
	for (int i = 0; i < 2; i++) {
		free(e->w[i]);
		free(e->abc[i]);
	}
	free(e);
}

static int pipe_create(void **state, const zp_g16_key *key)
{
	struct cpu_pipe *e = calloc(1, sizeof *e);
	if (!e)
		return -ENOMEM;
	e->key = key;
	e->nv = key->zkey->n_vars;
	e->dom = key->zkey->domain_size;
	int r = cpu->create(&e->cpu, key);
	for (int i = 0; !r && !key->compact && i < 2; i++) {
		e->w[i] = malloc(e->nv * sizeof(zp_fr));
		e->abc[i] = malloc(3 * e->dom * sizeof(zp_fr));
		if (!e->w[i] || !e->abc[i])
			r = -ENOMEM;
	}
	if (r) {
		pipe_destroy(e);
		return r;
	}
	*state = e;
	return 0;
}

static int pipe_nbufs(void *state)
{
	(void)state;
	return 2;
}

static int pipe_upload_async(void *state, int b, const zp_fr *w, const zp_fr *a, const zp_fr *bb, const zp_fr *c)
{
	struct cpu_pipe *e = state;
	memcpy(e->w[b], w, e->nv * sizeof(zp_fr));
	memcpy(e->abc[b], a, e->dom * sizeof(zp_fr));
	memcpy(e->abc[b] + e->dom, bb, e->dom * sizeof(zp_fr));
	memcpy(e->abc[b] + 2 * e->dom, c, e->dom * sizeof(zp_fr));
	return 0;
}

static int pipe_upload_wait(void *state, int b)
{
	(void)state, (void)b;
	return 0;
}

static int pipe_prove_buf(void *state, int b, zp_g16_msm_out *out)
{
	struct cpu_pipe *e = state;
	int r = cpu->upload(e->cpu, e->w[b], e->abc[b], e->abc[b] + e->dom, e->abc[b] + 2 * e->dom);
	if (!r)
		r = cpu->h(e->cpu);
	return r ? r : cpu->msm(e->cpu, out);
}

static int pipe_dens_upload(void *state, const zp_g16_dens_in *in)
{
	return cpu->dens_upload(((struct cpu_pipe *)state)->cpu, in);
}

static int pipe_dens_prove(void *state, zp_g16_msm_out *out)
{
	return cpu->dens_prove(((struct cpu_pipe *)state)->cpu, out);
}

/* Its "device" is host memory: the key's points and the two input sets standing in for device buffers,
 * the rest of the machine's memory as other and free (sysinfo). */
static int pipe_mem_uses(void *state, zp_g16_mem_uses *u)
{
	const struct cpu_pipe *e = state;
	const zp_zkey *z = e->key->zkey;
	uint64_t g1 = sizeof(zp_g1_affine), g2 = sizeof(zp_g2_affine), na = e->key->compact ? e->key->n_a : e->nv,
		 nb = e->key->compact ? e->key->n_b : e->nv, naux = e->nv - z->n_public - 1;
	struct sysinfo si;
	if (sysinfo(&si))
		return -errno;
	memset(u, 0, sizeof *u);
	u->key = (na + nb + naux + e->dom + z->n_public + 1) * g1 + nb * g2;
	u->sets = e->w[0] ? 2 * (e->nv + 3 * e->dom) * sizeof(zp_fr) : 0;
	u->total = (uint64_t)si.totalram * si.mem_unit;
	u->free = (uint64_t)si.freeram * si.mem_unit;
	uint64_t used = u->total > u->free ? u->total - u->free : 0, mine = u->key + u->sets;
	u->other = used > mine ? used - mine : 0;
	if (used < mine) /* the key lives in shared memory counted as free somewhere: keep the sum */
		u->free = u->total - mine;
	return 0;
}

const zp_g16_backend_ops zp_g16_backend_cpu_pipe = {
	.name = "cpu", .curves = 1u << ZP_CURVE_BLS12_381 | 1u << ZP_CURVE_BN254, .create = pipe_create, .destroy = pipe_destroy, .nbufs = pipe_nbufs,
	.upload_async = pipe_upload_async, .upload_wait = pipe_upload_wait, .prove_buf = pipe_prove_buf,
	.dens_upload = pipe_dens_upload, .dens_prove = pipe_dens_prove, .mem_uses = pipe_mem_uses,
};
