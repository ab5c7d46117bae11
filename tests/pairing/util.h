/*
 * util.h — helpers shared by the pairing tests: reading vectors.txt, and plain
 * affine double-and-add on G1/G2 (test-only reference arithmetic, kept separate
 * from ec.c on purpose so the pairing tests do not depend on it).
 */
#ifndef ZP_TEST_PAIRING_UTIL_H
#define ZP_TEST_PAIRING_UTIL_H

#include "pairing.h"
#include "zp_err.h"

#include "../common/zp_test.h"  /* failures, CHECK, zp_test_seed, vectors files */

/* each test uses a subset of these helpers */
#pragma GCC diagnostic ignored "-Wunused-function"

/* A uniformly random scalar below r as a raw integer. */
static void rand_scalar(uint64_t k[4], zp_rng *g)
{
	zp_fr t;
	zp_fr_random(&t, g);
	zp_fr_from_mont(k, &t);
}

/* ---- vectors.txt: whitespace-separated tokens, one record per line ---- */
typedef struct { char *tok[64]; int n; } rec;

static int rec_split(rec *r, char *line)
{
	r->n = 0;
	for (char *s = strtok(line, " \t\r\n"); s && r->n < 64; s = strtok(NULL, " \t\r\n"))
		r->tok[r->n++] = s;
	return r->n;
}

static void parse_fp(zp_fp *x, const char *s)
{
	if (zp_fp_from_dec(x, s) != 0) {
		fprintf(stderr, "bad Fp in vectors: %s\n", s);
		exit(1);
	}
}

static void parse_fp2(zp_fp2 *x, char **t) { parse_fp(&x->c0, t[0]); parse_fp(&x->c1, t[1]); }

static void parse_fp12(zp_fp12 *x, char **t)
{
	zp_fp *e = (zp_fp *)x;  /* 12 packed Fp in buffer order (fp12.h) */
	for (int i = 0; i < 12; i++)
		parse_fp(&e[i], t[i]);
}

static void parse_g1(zp_g1_affine *p, char **t) { parse_fp(&p->x, t[0]); parse_fp(&p->y, t[1]); }
static void parse_g2(zp_g2_affine *p, char **t) { parse_fp2(&p->x, t); parse_fp2(&p->y, t + 2); }

/* Generators from the g1gen / g2gen lines. */
static void load_generators(const char *path, zp_g1_affine *g1, zp_g2_affine *g2)
{
	FILE *f = fopen(path, "r");
	char line[8192];
	rec r;
	int got = 0;
	if (!f) {
		perror(path);
		exit(1);
	}
	while (zp_test_read_line(f, line, sizeof(line), NULL))
		if (rec_split(&r, line) == 3 && !strcmp(r.tok[0], "g1gen"))
			parse_g1(g1, r.tok + 1), got |= 1;
		else if (r.n == 5 && !strcmp(r.tok[0], "g2gen"))
			parse_g2(g2, r.tok + 1), got |= 2;
	fclose(f);
	if (got != 3) {
		fprintf(stderr, "%s: generators missing\n", path);
		exit(1);
	}
}

/* ---- reference affine arithmetic (infinity = (0, 0)) ---- */
#define DEFINE_AFFINE(G, T, F)                                                        \
static bool G##_inf(const T *p) { return zp_##F##_is_zero(&p->x) && zp_##F##_is_zero(&p->y); } \
static void G##_add(T *r, const T *a, const T *b)                                     \
{                                                                                     \
	zp_##F lam, t, x3;                                                            \
	if (G##_inf(a)) { *r = *b; return; }                                          \
	if (G##_inf(b)) { *r = *a; return; }                                          \
	if (zp_##F##_eq(&a->x, &b->x)) {                                              \
		zp_##F##_add(&t, &a->y, &b->y);                                       \
		if (zp_##F##_is_zero(&t)) { memset(r, 0, sizeof(*r)); return; }       \
		zp_##F##_sqr(&lam, &a->x);  /* 3x^2 / 2y */                           \
		zp_##F##_add(&t, &lam, &lam);                                         \
		zp_##F##_add(&lam, &lam, &t);                                         \
		zp_##F##_add(&t, &a->y, &a->y);                                       \
	} else {                                                                      \
		zp_##F##_sub(&lam, &b->y, &a->y);                                     \
		zp_##F##_sub(&t, &b->x, &a->x);                                       \
	}                                                                             \
	zp_##F##_inv(&t, &t);                                                         \
	zp_##F##_mul(&lam, &lam, &t);                                                 \
	zp_##F##_sqr(&x3, &lam);                                                      \
	zp_##F##_sub(&x3, &x3, &a->x);                                                \
	zp_##F##_sub(&x3, &x3, &b->x);                                                \
	zp_##F##_sub(&t, &a->x, &x3);                                                 \
	zp_##F##_mul(&t, &t, &lam);                                                   \
	zp_##F##_sub(&r->y, &t, &a->y);                                               \
	r->x = x3;                                                                    \
}                                                                                     \
/* r = [k]p, k a raw little-endian integer of 4 limbs */                              \
static void G##_mul(T *r, const T *p, const uint64_t k[4])                            \
{                                                                                     \
	T acc, base = *p;                                                             \
	memset(&acc, 0, sizeof(acc));                                                 \
	int top = 255;                                                                \
	while (top >= 0 && !((k[top / 64] >> (top % 64)) & 1))                        \
		top--;                                                                \
	for (int i = 0; i <= top; i++) {                                              \
		if ((k[i / 64] >> (i % 64)) & 1)                                      \
			G##_add(&acc, &acc, &base);                                   \
		if (i < top)                                                          \
			G##_add(&base, &base, &base);                                 \
	}                                                                             \
	*r = acc;                                                                     \
}                                                                                     \
static void G##_neg(T *r, const T *p) { r->x = p->x; zp_##F##_neg(&r->y, &p->y); }

DEFINE_AFFINE(g1, zp_g1_affine, fp)
DEFINE_AFFINE(g2, zp_g2_affine, fp2)

#endif
