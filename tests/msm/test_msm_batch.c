/* The batch-affine bucket path of zp_msm_g1/g2 under conflicts: many equal scalars
 * (one bucket per window: the conflict queue fills and buckets fall back to XYZZ),
 * a few distinct small scalars, all points equal (doublings inside a batch), P and
 * -P into the same bucket (bucket emptied mid-batch), points at infinity, and n
 * around the batch size. Points are P_i = (a + i·d)·G, so the expected sum is
 * (Σ k_i·log_i)·G, computed in Fr. Each case runs with the batch path forced
 * (ZP_MSM_BA=1), forced off (ZP_MSM_BA=0) and by default, on 1 and 2 threads. */
#include "ec.h"
#include "knobs.h"
#include "field.h"
#include "msm.h"
#include "par.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_RANDOM, K_EQUAL, K_FEW, K_SAMEPT, K_PNEG, K_COUNT };
static const char *kname[] = { "random", "equal-scalars", "few-scalars", "same-point", "P/-P" };
static int fails, runs;
static zp_fr prog_a, prog_d;   /* the progression of the current case */

/* logs and scalars for case kind; inf[i] marks points at infinity. */
static void make_case(zp_fr *logs, zp_fr *s, uint8_t *inf, size_t n, int kind, zp_rng *g)
{
	zp_fr a, d, k, few[4];
	zp_fr_random(&a, g);
	zp_fr_random(&d, g);
	zp_fr_random(&k, g);
	prog_a = a;
	prog_d = d;
	zp_fr_from_u64(&few[0], 2);
	zp_fr_from_u64(&few[1], 3);
	zp_fr_neg(&few[2], &few[0]);
	zp_fr_from_u64(&few[3], 5);
	for (size_t i = 0; i < n; i++) {
		uint64_t r = zp_rng_next(g);
		inf[i] = 0;
		if (i == 0)
			logs[0] = a;
		else
			zp_fr_add(&logs[i], &logs[i - 1], &d);
		switch (kind) {
		case K_RANDOM: zp_fr_random(&s[i], g); break;
		case K_EQUAL: s[i] = k; break;
		case K_FEW: s[i] = few[r % 4]; break;
		case K_SAMEPT: logs[i] = a; zp_fr_random(&s[i], g); if (r % 4 == 0) s[i] = k; break;
		default:       /* P, -P pairs with equal scalars, then a few leftovers */
			if (i % 2) zp_fr_neg(&logs[i], &logs[i - 1]);
			if (i % 2) s[i] = s[i - 1]; else if (r % 3) s[i] = k; else zp_fr_random(&s[i], g);
			break;
		}
		if (kind != K_PNEG && r % 13 == 5)
			inf[i] = 1;
		if (kind == K_PNEG && i + 1 == n && i % 2 == 0)
			zp_fr_random(&s[i], g);
	}
}

static void expect_log(zp_fr *e, const zp_fr *logs, const zp_fr *s, const uint8_t *inf, size_t n)
{
	*e = ZP_FR_ZERO;
	for (size_t i = 0; i < n; i++) {
		if (inf[i])
			continue;
		zp_fr t;
		zp_fr_mul(&t, &logs[i], &s[i]);
		zp_fr_add(e, e, &t);
	}
}

/* Points from logs: copies and negations of the previous point, else the running
 * point of the progression a + i·d (one addition each), else a multiplication. */
#define POINTS(GN, GEN)                                                                     \
	static void GN##_points(zp_##GN##_affine *p, const zp_fr *logs, const uint8_t *inf,  \
				size_t n)                                                     \
	{                                                                                   \
		zp_##GN##_jac gen, cur, dj, *j = malloc(n * sizeof(*j));                    \
		zp_fr cl = prog_a;                                                          \
		zp_##GN##_jac_from_affine(&gen, &GEN);                                      \
		zp_##GN##_jac_mul(&cur, &gen, &prog_a);                                     \
		zp_##GN##_jac_mul(&dj, &gen, &prog_d);                                      \
		for (size_t i = 0; i < n; i++) {                                            \
			zp_fr neg;                                                          \
			zp_fr_neg(&neg, &logs[i]);                                          \
			if (i > 0) {                                                        \
				zp_##GN##_jac_add(&cur, &cur, &dj);                         \
				zp_fr_add(&cl, &cl, &prog_d);                               \
			}                                                                   \
			if (i > 0 && zp_fr_eq(&logs[i], &logs[i - 1]))                      \
				j[i] = j[i - 1];                                            \
			else if (i > 0 && zp_fr_eq(&neg, &logs[i - 1]))                     \
				zp_##GN##_jac_neg(&j[i], &j[i - 1]);                        \
			else if (zp_fr_eq(&logs[i], &cl))                                   \
				j[i] = cur;                                                 \
			else                                                                \
				zp_##GN##_jac_mul(&j[i], &gen, &logs[i]);                   \
		}                                                                           \
		zp_##GN##_jac_batch_to_affine(p, j, n);                                     \
		for (size_t i = 0; i < n; i++)                                              \
			if (inf[i])                                                         \
				memset(&p[i], 0, sizeof(p[i]));                             \
		free(j);                                                                    \
	}

POINTS(g1, ZP_G1_GEN)
POINTS(g2, ZP_G2_GEN)

#define CHECK(GN, GEN, n, kind, g)                                                          \
	do {                                                                                \
		zp_##GN##_affine *p = malloc((n) * sizeof(*p));                             \
		zp_fr *s = malloc((n) * sizeof(*s)), *logs = malloc((n) * sizeof(*logs)), e; \
		uint8_t *inf = malloc(n);                                                   \
		make_case(logs, s, inf, n, kind, g);                                        \
		GN##_points(p, logs, inf, n);                                               \
		expect_log(&e, logs, s, inf, n);                                            \
		zp_##GN##_jac want, gen, got;                                               \
		zp_##GN##_jac_from_affine(&gen, &GEN);                                      \
		zp_##GN##_jac_mul(&want, &gen, &e);                                         \
		static const char *modes[] = { "1", "0", NULL };                            \
		for (int mi = 0; mi < 3; mi++) {                                            \
			if (modes[mi])                                                      \
				setenv("ZP_MSM_BA", modes[mi], 1);                          \
			else                                                                \
				unsetenv("ZP_MSM_BA");                                      \
			zp_knobs_reload(); /* knobs are read once: again now */     \
			for (int th = 1; th <= 2; th++) {                                   \
				zp_par_set_threads(th);                                     \
				size_t sz = zp_msm_##GN##_scratch_size(n);                  \
				void *scr = malloc(sz);                                     \
				memset(scr, 0x5a, sz);                                      \
				int rc = zp_msm_##GN(&got, p, s, n, scr, sz);               \
				free(scr);                                                  \
				runs++;                                                     \
				if (rc != 0 || !zp_##GN##_jac_eq(&got, &want)) {            \
					fprintf(stderr, "FAIL %s n=%zu %s BA=%s threads=%d rc=%d\n", \
						#GN, (size_t)(n), kname[kind],              \
						modes[mi] ? modes[mi] : "default", th, rc); \
					fails++;                                            \
				}                                                           \
			}                                                                   \
		}                                                                           \
		unsetenv("ZP_MSM_BA");                                                      \
		zp_knobs_reload();                                                          \
		free(p); free(s); free(logs); free(inf);                                    \
	} while (0)

int main(void)
{
	zp_rng g;
	zp_rng_seed(&g, 20261129);
	/* small n with the batch path forced: batches of 32 (the minimum), so n around 32
	 * and 64 fill exactly, one short and one over; by default the path switches at
	 * 8192 (G1) and 2048 (G2) non-trivial scalars, and infinities make m < n. */
	static const size_t g1n[] = { 1, 2, 31, 32, 33, 63, 64, 65, 200, 1025, 4097, 8193, 9000 };
	static const size_t g2n[] = { 1, 31, 32, 33, 65, 300, 2047, 2300 };
	for (size_t i = 0; i < sizeof(g1n) / sizeof(g1n[0]); i++)
		for (int k = 0; k < K_COUNT; k++)
			CHECK(g1, ZP_G1_GEN, g1n[i], k, &g);
	for (size_t i = 0; i < sizeof(g2n) / sizeof(g2n[0]); i++)
		for (int k = 0; k < K_COUNT; k++)
			CHECK(g2, ZP_G2_GEN, g2n[i], k, &g);
	printf("%d of %d MSM batch-affine cases failed\n", fails, runs);
	return fails ? 1 : 0;
}
