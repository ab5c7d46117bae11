/*
 * wtns.h — reader for circom's .wtns (iden3 container, magic "wtns", version 2).
 *
 *   §1: u32 n8 (32), prime[32] (BLS12-381's or BN254's r: the witness's curve), u32 nWitness
 *   §2: nWitness x value[32], normal form little-endian; w[0] must be 1
 *
 * Values come back as zp_fr in Montgomery form of the file's curve (zp_fr is the 32-byte container of
 * either curve's Fr: docs/prover.md "Curves in the prover"). This is the one .wtns reader: `zkpipe prove`,
 * the supervisor's check at submit and synthd's read into a slot all go through it, so a witness
 * is accepted or refused for the same reasons everywhere (version, n8, prime, nWitness, §2's
 * exact size, canonical values, w[0] = 1).
 */
#ifndef ZP_WTNS_H
#define ZP_WTNS_H

#include <stddef.h>
#include <stdint.h>

#include "curve.h"
#include "field.h"

typedef struct {
	uint32_t n;
	zp_fr *w;       /* n values, Montgomery form of curve's Fr */
	const zp_curve *curve;   /* from §1's prime */
} zp_wtns;

int  zp_wtns_parse(zp_wtns *w, const uint8_t *data, size_t len, const char *name);
int  zp_wtns_read(zp_wtns *w, const char *path);
/* On an open regular file (pread, never mmap: a file truncated under the reader is an error,
 * not a SIGBUS). read_fd: exactly n values into w (the caller's buffer of n zp_fr), a different
 * count is ZP_EMISMATCH. check_fd: every header check and w[0] = 1, reading only the header and
 * the first value (a cheap check at submit); *n = nWitness. name is for messages. */
int  zp_wtns_read_fd(int fd, const char *name, zp_fr *w, uint32_t n);   /* a BLS12-381 key's */
int  zp_wtns_check_fd(int fd, const char *name, uint32_t *n);           /* either curve */
/* The same for a key of curve `want` (a witness of the other curve: ZP_EMISMATCH naming both), and
 * the check that also says the file's curve. */
int  zp_wtns_read_fd_curve(int fd, const char *name, const zp_curve *want, zp_fr *w, uint32_t n);
int  zp_wtns_check_fd_curve(int fd, const char *name, uint32_t *n, const zp_curve **curve);
void zp_wtns_free(zp_wtns *w);

#endif
