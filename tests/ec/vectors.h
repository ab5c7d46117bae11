/* vectors.h — reading tests/ec/vectors.txt (written by gen_vectors.js from ffjavascript). */
#ifndef ZP_EC_VECTORS_H
#define ZP_EC_VECTORS_H

#include <string.h>

#include "ec_test.h"

/* Next space-separated token of the line being read (strtok_r state in *save). */
static inline const char *vec_tok(char **save)
{
	const char *t = strtok_r(NULL, " \n", save);
	if (!t) {
		fprintf(stderr, "vectors: line too short\n");
		exit(1);
	}
	return t;
}

static inline void vec_fp(zp_fp *r, char **save)
{
	const char *t = vec_tok(save);
	if (zp_fp_from_dec(r, t) != 0) {
		fprintf(stderr, "vectors: bad Fp '%s'\n", t);
		exit(1);
	}
}

/* If the next token is "inf", consume it and return true; else leave it. */
static inline bool vec_inf(char **save)
{
	const char *peek = *save + strspn(*save, " ");
	if (strncmp(peek, "inf", 3) != 0 || (peek[3] != ' ' && peek[3] != '\n' && peek[3]))
		return false;
	vec_tok(save);
	return true;
}

static inline void vec_g1(zp_g1_affine *p, char **save)
{
	if (vec_inf(save)) {
		*p = (zp_g1_affine){ 0 };
		return;
	}
	vec_fp(&p->x, save);
	vec_fp(&p->y, save);
}

static inline void vec_g2(zp_g2_affine *p, char **save)
{
	if (vec_inf(save)) {
		*p = (zp_g2_affine){ 0 };
		return;
	}
	vec_fp(&p->x.c0, save);
	vec_fp(&p->x.c1, save);
	vec_fp(&p->y.c0, save);
	vec_fp(&p->y.c1, save);
}

/* A decimal integer below 2^256 into 4 little-endian limbs. */
static inline void vec_u256(uint64_t k[4], char **save)
{
	const char *t = vec_tok(save);
	memset(k, 0, 4 * sizeof(uint64_t));
	for (const char *c = t; *c; c++) {
		unsigned __int128 carry = (unsigned)(*c - '0');
		for (int i = 0; i < 4; i++) {
			carry += (unsigned __int128)k[i] * 10;
			k[i] = (uint64_t)carry;
			carry >>= 64;
		}
	}
}

/* Hex string of exactly n bytes. */
static inline void vec_hex(uint8_t *out, size_t n, char **save)
{
	const char *t = vec_tok(save);
	if (strlen(t) != 2 * n) {
		fprintf(stderr, "vectors: hex of %zu chars, want %zu\n", strlen(t), 2 * n);
		exit(1);
	}
	if (zp_test_hex_be(out, n, t, 2 * n) < 0) {
		fprintf(stderr, "vectors: bad hex '%s'\n", t);
		exit(1);
	}
}

#endif
