/* MSM at n = 2^12 against known discrete logs: with P_i = k_i·G,
 * Σ s_i·P_i = (Σ s_i·k_i)·G. Also zp_msm_*_sum_selected, and the scratch contract
 * (too small → ZP_ERANGE; sized for fewer threads → still right). */
#include "msm_test_util.h"
#include "par.h"

#define N 4096

static int fails;

/* P_i = P_(i-1) + Q, so k_i = k_(i-1) + q: cheap distinct points with known logs. */
#define DLOG_TEST(GN, n)                                                                    \
	static void GN##_dlog(zp_rng *g)                                                    \
	{                                                                                   \
		zp_##GN##_affine *p = malloc((n) * sizeof(*p));                             \
		zp_##GN##_jac *j = malloc((n) * sizeof(*j));                                \
		zp_fr *k = malloc((n) * sizeof(*k)), *s = malloc((n) * sizeof(*s)), q, e;   \
		uint8_t *sel = malloc(n);                                                   \
		zp_##GN##_jac gen, qj, want, got;                                           \
		zp_##GN##_jac_from_affine(&gen, &ZP_##GN##_GEN_U);                          \
		zp_fr_random(&k[0], g);                                                     \
		zp_fr_random(&q, g);                                                        \
		zp_##GN##_jac_mul(&j[0], &gen, &k[0]);                                      \
		zp_##GN##_jac_mul(&qj, &gen, &q);                                           \
		for (size_t i = 1; i < (n); i++) {                                          \
			zp_fr_add(&k[i], &k[i - 1], &q);                                    \
			zp_##GN##_jac_add(&j[i], &j[i - 1], &qj);                           \
		}                                                                           \
		zp_##GN##_jac_batch_to_affine(p, j, n);                                     \
		for (int round = 0; round < 2; round++) {                                   \
			e = ZP_FR_ZERO;                                                     \
			for (size_t i = 0; i < (n); i++) {                                  \
				if (round == 0 || zp_rng_next(g) % 4 == 0)                  \
					zp_fr_random(&s[i], g);                             \
				else                                                        \
					s[i] = zp_rng_next(g) & 1 ? ZP_FR_ONE : ZP_FR_ZERO; \
				zp_fr t;                                                    \
				zp_fr_mul(&t, &s[i], &k[i]);                                \
				zp_fr_add(&e, &e, &t);                                      \
			}                                                                   \
			zp_##GN##_jac_mul(&want, &gen, &e);                                 \
			if (GN##_msm_alloc(&got, p, s, n) || !zp_##GN##_jac_eq(&want, &got)) { \
				fprintf(stderr, #GN " dlog round %d: wrong\n", round);      \
				fails++;                                                    \
			}                                                                   \
		}                                                                           \
		/* sum_selected */                                                          \
		e = ZP_FR_ZERO;                                                             \
		for (size_t i = 0; i < (n); i++) {                                          \
			sel[i] = zp_rng_next(g) % 3 == 0;                                   \
			if (sel[i])                                                         \
				zp_fr_add(&e, &e, &k[i]);                                   \
		}                                                                           \
		zp_##GN##_jac_mul(&want, &gen, &e);                                         \
		zp_msm_##GN##_sum_selected(&got, p, sel, n);                                \
		if (!zp_##GN##_jac_eq(&want, &got)) {                                       \
			fprintf(stderr, #GN " sum_selected: wrong\n");                      \
			fails++;                                                            \
		}                                                                           \
		/* scratch contract */                                                      \
		zp_par_set_threads(1);                                                      \
		size_t sz1 = zp_msm_##GN##_scratch_size(n);                                 \
		zp_par_set_threads(3);                                                      \
		void *scr = malloc(sz1);                                                    \
		if (zp_msm_##GN(&got, p, s, n, scr, sz1 - 1) != ZP_ERANGE) {                \
			fprintf(stderr, #GN " short scratch not refused\n");                \
			fails++;                                                            \
		}                                                                           \
		zp_##GN##_jac ref;                                                          \
		GN##_msm_alloc(&ref, p, s, n);                                              \
		if (zp_msm_##GN(&got, p, s, n, scr, sz1) != 0 || !zp_##GN##_jac_eq(&ref, &got)) { \
			fprintf(stderr, #GN " scratch for 1 thread used by 3: wrong\n");    \
			fails++;                                                            \
		}                                                                           \
		zp_par_set_threads(0);                                                      \
		free(scr); free(p); free(j); free(k); free(s); free(sel);                   \
	}

MSM_TEST_DEFINE(g1)
MSM_TEST_DEFINE(g2)
DLOG_TEST(g1, N)
DLOG_TEST(g2, N)

int main(void)
{
	zp_rng g;
	zp_rng_seed(&g, 77);
	g1_dlog(&g);
	g2_dlog(&g);
	if (fails) {
		fprintf(stderr, "%d failures\n", fails);
		return 1;
	}
	printf("ok\n");
	return 0;
}
