/*
 * bp_density.h — the density bit vectors bellperson hands over with each partition of a circuit (its
 * DensityTracker's words: aux wires in A, input wires in B, aux wires in B; u64 words, LSB first) and
 * their popcounts, as the tests of the supraseal ABI and of the compact-key path build them, and one
 * proof through a compact key's density ops (include it as "../common/bp_density.h"). Header-only.
 */
#ifndef ZP_TEST_BP_DENSITY_H
#define ZP_TEST_BP_DENSITY_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "circuit.h"
#include "groth16.h"
#include "zp_err.h"

struct zp_bp_density {
	uint64_t *a_aux, *b_inp, *b_aux; /* one allocation of `words` at a_aux; a spare zero word after each */
	size_t words;
	size_t n_inp, n_aux;             /* input wires (ONE and the public ones), aux wires */
	size_t rows;                     /* a/b/c rows: bellperson adds one constraint per input */
	size_t pa, pbi, pba;             /* set bits of a_aux, b_inp, b_aux */
};

static inline int zp_bp_bit(const uint64_t *v, size_t i) { return v[i / 64] >> (i % 64) & 1; }
static inline void zp_bp_bit_set(uint64_t *v, size_t i) { v[i / 64] |= 1ull << (i % 64); }

static inline int zp_bp_density_of(struct zp_bp_density *d, const zp_circuit *c)
{
	d->n_inp = (size_t)c->n_public + 1;
	d->n_aux = c->n_vars - d->n_inp;
	d->rows = (size_t)c->n_constraints + d->n_inp;
	size_t wa = (d->n_aux + 63) / 64 + 1, wi = (d->n_inp + 63) / 64 + 1;
	d->words = 2 * wa + wi;
	if (!(d->a_aux = calloc(d->words, 8)))
		return zp_err_set(-ENOMEM, "density bitmaps: out of memory");
	d->b_aux = d->a_aux + wa, d->b_inp = d->b_aux + wa;
	d->pa = d->pba = d->pbi = 0;
	for (size_t i = 0; i < d->n_inp; i++)
		if (zp_bp_bit(c->b_vars, i))
			zp_bp_bit_set(d->b_inp, i), d->pbi++;
	for (size_t i = 0; i < d->n_aux; i++) {
		if (zp_bp_bit(c->a_vars, d->n_inp + i))
			zp_bp_bit_set(d->a_aux, i), d->pa++;
		if (zp_bp_bit(c->b_vars, d->n_inp + i))
			zp_bp_bit_set(d->b_aux, i), d->pba++;
	}
	return 0;
}

static inline void zp_bp_density_free(struct zp_bp_density *d)
{
	free(d->a_aux);
	d->a_aux = d->b_inp = d->b_aux = NULL;
}

/* One proof through a compact key's backend state: dens_upload, dens_prove, then zp_g16_finish with r, s
 * (no self-check: the caller verifies). ms, when not NULL: the upload and prove, in milliseconds. */
static inline int zp_bp_prove_dens(const zp_g16_backend_ops *be, void *st, const zp_zkey *zk, const zp_g16_dens_in *in,
				   const zp_fr *r, const zp_fr *s, zp_g16_proof *pf, double *ms)
{
	zp_g16_msm_out mo;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = be->dens_upload(st, in);
	if (!rc)
		rc = be->dens_prove(st, &mo);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ms)
		*ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
	if (!rc)
		zp_g16_finish(pf, zk, &mo, r, s);
	return rc;
}

#endif
