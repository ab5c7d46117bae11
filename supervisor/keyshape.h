/*
 * keyshape.h — what a configured key needs (its shape, the slot that holds one partition), read from
 * its files without loading it (keyshape.c). The supervisor's: it links the prover's readers.
 */
#ifndef ZP_SUP_KEYSHAPE_H
#define ZP_SUP_KEYSHAPE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "curve.h"

struct zp_pipe_config;
struct zp_pipe_key;

/* A key's shape, read from its header (or synth parameters) without loading it. */
struct zp_key_shape {
	uint32_t n_vars, n_public, domain, log_domain;
	const zp_curve *curve;     /* the key's (zkey q/r, .zpk header; synthetic circuits: BLS12-381) */
	uint64_t slot_bytes;       /* one partition's payload: the smallest slot_size that holds it */
	char kind[24];             /* "zkey", "zpk", "synth", "synth, setup = device" */
	char warning[PATH_MAX + 96];/* served, but something is off (an r1cs of another circuit) */
};
/* Validate a configured key as far as can be done without loading it: the zkey/zpk header
 * (protocol, curve and prime — BLS12-381 or BN254 —, counts), the r1cs (readable; of the key's curve, else
 * an error naming both; its wires against the key's vars: a mismatch is s->warning), the witness
 * generator's files. The error names the key and
 * the file. */
int sup_key_shape(const struct zp_pipe_key *k, struct zp_key_shape *s);
/* slot_size = auto: the largest key need, rounded up to 2 MiB; sets groups[g].slot_size.
 * why gets the key that sized it. */
int sup_slot_auto(struct zp_pipe_config *c, unsigned g, char *why, size_t n);

#endif
