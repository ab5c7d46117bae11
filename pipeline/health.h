/*
 * health.h — what a configured key needs (its shape and the slot that holds one partition) and
 * gpud's health files, which the supervisor reads to say, per key, ready / loading / failed
 * (health.c, which also documents the file's format).
 */
#ifndef ZP_PIPE_HEALTH_H
#define ZP_PIPE_HEALTH_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

struct zp_pipe_config;
struct zp_pipe_key;

/* A key's shape, read from its header (or synth parameters) without loading it. */
struct zp_key_shape {
	uint32_t n_vars, n_public, domain, log_domain;
	uint64_t slot_bytes;       /* one partition's payload: the smallest slot_size that holds it */
	char kind[24];             /* "zkey", "zpk", "synth", "synth, setup = device" */
	char warning[PATH_MAX + 96];/* served, but something is off (an r1cs of another circuit) */
};
/* Validate a configured key as far as can be done without loading it: the zkey/zpk header
 * (protocol, BLS12-381 curve and prime, counts), the r1cs (readable; its wires against the key's
 * vars: a mismatch is s->warning), the witness generator's files. The error names the key and
 * the file. */
int zp_pipe_key_shape(const struct zp_pipe_key *k, struct zp_key_shape *s);
/* slot_size = auto: the largest key need, rounded up to 2 MiB; sets groups[g].slot_size.
 * why gets the key that sized it. */
int zp_pipe_slot_auto(struct zp_pipe_config *c, unsigned g, char *why, size_t n);
uint64_t zp_pipe_slot_round(uint64_t bytes);
/* gpud's health file (<run>/health/<group>.gpud<i>.json; format in health.c). write takes a
 * json_t *; read returns a json_t * (caller decrefs) or NULL when absent or another pid's. */
int zp_health_path(char *buf, size_t n, const struct zp_pipe_config *c, unsigned g, unsigned i);
int zp_health_write(const struct zp_pipe_config *c, unsigned g, unsigned i, void *json);
void *zp_health_read(const struct zp_pipe_config *c, unsigned g, unsigned i, int pid);

#endif
