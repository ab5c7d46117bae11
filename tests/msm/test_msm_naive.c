/* zp_msm_g1 / zp_msm_g2 equal the naive Σ k_i·P_i (ec.c's scalar multiplication)
 * for small n, on random, all-zero, all-one, r-1, 0/1-heavy scalars, with points at
 * infinity, repeated and opposite points among the bases, on several thread counts. */
#include "msm_test_util.h"
#include "field_impl.h"
#include "par.h"

MSM_TEST_DEFINE(g1)
MSM_TEST_DEFINE(g2)

enum { SC_RANDOM, SC_ZERO, SC_ONE, SC_RM1, SC_BITS, SC_SMALL, SC_COUNT };
static const char *sc_name[] = { "random", "zero", "one", "r-1", "0/1-heavy", "small" };

static void make_scalars(zp_fr *s, size_t n, int kind, zp_rng *g)
{
	zp_fr rm1;
	zp_fr_neg(&rm1, &ZP_FR_ONE);
	for (size_t i = 0; i < n; i++) {
		uint64_t r = zp_rng_next(g);
		switch (kind) {
		case SC_RANDOM: zp_fr_random(&s[i], g); break;
		case SC_ZERO: s[i] = ZP_FR_ZERO; break;
		case SC_ONE: s[i] = ZP_FR_ONE; break;
		case SC_RM1: s[i] = rm1; break;
		case SC_BITS:   /* mostly 0 and 1, a few others (2, r-1, random) */
			if (r % 16 == 0) zp_fr_random(&s[i], g);
			else if (r % 16 == 1) s[i] = rm1;
			else if (r % 16 == 2) zp_fr_from_u64(&s[i], 2);
			else s[i] = (r >> 8) & 1 ? ZP_FR_ONE : ZP_FR_ZERO;
			break;
		default: zp_fr_from_u64(&s[i], r % 70000); break;   /* hits bucket edges ±2^(c-1) */
		}
	}
}

/* Bases: random points, with some at infinity, repeated and negated copies. */
#define BASES(GN)                                                                           \
	static void GN##_bases(zp_##GN##_affine *p, size_t n, zp_rng *g)                    \
	{                                                                                   \
		GN##_random_points(p, NULL, n, g);                                          \
		for (size_t i = 0; i < n; i++) {                                            \
			uint64_t r = zp_rng_next(g) % 11;                                   \
			if (r == 0)                                                         \
				memset(&p[i], 0, sizeof(p[i]));                             \
			else if (r == 1 && i > 0)                                           \
				p[i] = p[i - 1];                                            \
			else if (r == 2 && i > 0)                                           \
				zp_##GN##_affine_neg(&p[i], &p[i - 1]);                     \
		}                                                                           \
	}
BASES(g1)
BASES(g2)

static int fails;

#define CHECK_ONE(GN, n, kind, g)                                                           \
	do {                                                                                \
		zp_##GN##_affine *p = malloc((n) * sizeof(*p));                             \
		zp_fr *s = malloc((n) * sizeof(*s));                                        \
		GN##_bases(p, n, g);                                                        \
		make_scalars(s, n, kind, g);                                                \
		zp_##GN##_jac want, got;                                                    \
		GN##_naive(&want, p, s, n);                                                 \
		int rc = GN##_msm_alloc(&got, p, s, n);                                     \
		if (rc != 0 || !zp_##GN##_jac_eq(&want, &got)) {                            \
			fprintf(stderr, #GN " n=%zu scalars=%s threads=%d: %s\n", (size_t)(n),  \
				sc_name[kind], zp_par_threads(), rc ? zp_strerror(rc) : "wrong sum"); \
			fails++;                                                            \
		}                                                                           \
		free(p);                                                                    \
		free(s);                                                                    \
	} while (0)

int main(void)
{
	zp_rng g;
	zp_rng_seed(&g, 20240601);
	static const size_t g1_sizes[] = { 1, 2, 3, 5, 8, 16, 17, 33, 64, 100, 129, 255, 300 };
	static const size_t g2_sizes[] = { 1, 2, 7, 32, 65, 150 };
	static const int threads[] = { 1, 2, 3, 40 };
	/* 40 threads: more bucket sets than windows, so windows split into point ranges */
	for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
		zp_par_set_threads(threads[t]);
		bool many = threads[t] > 8;
		for (size_t i = 0; i < sizeof(g1_sizes) / sizeof(g1_sizes[0]); i++)
			for (int k = 0; k < SC_COUNT; k++)
				if ((t == 0 || k == SC_RANDOM || k == SC_BITS) && (!many || g1_sizes[i] >= 100))
					CHECK_ONE(g1, g1_sizes[i], k, &g);
		for (size_t i = 0; i < sizeof(g2_sizes) / sizeof(g2_sizes[0]) && !many; i++)
			for (int k = 0; k < SC_COUNT; k++)
				if ((t == 0 || k == SC_RANDOM) && (k != SC_RM1 || g2_sizes[i] < 100))
					CHECK_ONE(g2, g2_sizes[i], k, &g);
	}
	/* the portable field path gives the same sums */
	zp_par_set_threads(2);
	zp_field_set_adx(false);
	CHECK_ONE(g1, 100, SC_RANDOM, &g);
	CHECK_ONE(g2, 20, SC_RANDOM, &g);
	zp_field_set_adx(true);

	/* n = 0 gives infinity */
	zp_g1_jac z;
	if (g1_msm_alloc(&z, NULL, NULL, 0) != 0 || !zp_g1_jac_is_inf(&z)) {
		fprintf(stderr, "n = 0 is not infinity\n");
		fails++;
	}
	if (fails) {
		fprintf(stderr, "%d failures\n", fails);
		return 1;
	}
	printf("ok\n");
	return 0;
}
