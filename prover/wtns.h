/*
 * wtns.h — reader for circom's .wtns (iden3 container, magic "wtns", version 2).
 *
 *   §1: u32 n8 (32), prime[32] (must be BLS12-381 r), u32 nWitness
 *   §2: nWitness x value[32], normal form little-endian; w[0] must be 1
 *
 * Values come back as zp_fr in Montgomery form.
 */
#ifndef ZP_WTNS_H
#define ZP_WTNS_H

#include <stddef.h>
#include <stdint.h>

#include "field.h"

typedef struct {
	uint32_t n;
	zp_fr *w;       /* n values, Montgomery form */
} zp_wtns;

int  zp_wtns_parse(zp_wtns *w, const uint8_t *data, size_t len, const char *name);
int  zp_wtns_read(zp_wtns *w, const char *path);
void zp_wtns_free(zp_wtns *w);

#endif
