/*
 * zkpipe-bench-msm CURVE LOG2 [REPS [GROUP]] — one MSM size on one thread, for A/B scripts that alternate
 * two builds' binaries (bench/arith/msm_ab.sh): CURVE is bls12-381 or bn254, GROUP g1 (default) or g2;
 * n = 2^LOG2 points P_i = P_(i-1) + Q and random scalars. One untimed MSM, then REPS (default 3) timed;
 * prints "CURVE LOG2 MS" (G2: "CURVE/g2 LOG2 MS") with the best, in process CPU ms; with ZKPIPE_BENCH_DIGEST
 * set, also "digest H" on stderr (FNV-1a of the result's bytes: two builds' results compared bit for
 * bit). Whether the IFMA path runs is the library's choice (ZP_MSM_IFMA, as in a proof).
 */
#include "bn254.h"
#include "bn254_msm.h"
#include "ec.h"
#include "msm.h"
#include "par.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* One curve's and group's run, named by its prefix (the curve naming rule: BLS12-381 unprefixed): best of reps ms */
#define RUN(P, G, GEN) \
	static double run_##P##G(size_t n, int reps) \
	{ \
		zp_rng g; \
		zp_rng_seed(&g, 2); \
		zp_##P##G##_affine *p = malloc(n * sizeof *p); \
		zp_##P##G##_jac *j = malloc(n * sizeof *j), gen, q, out; \
		zp_##P##fr *s = malloc(n * sizeof *s), k; \
		zp_##P##G##_jac_from_affine(&gen, &GEN); \
		zp_##P##fr_random(&k, &g); \
		zp_##P##G##_jac_mul(&j[0], &gen, &k); \
		zp_##P##fr_random(&k, &g); \
		zp_##P##G##_jac_mul(&q, &gen, &k); \
		for (size_t i = 1; i < n; i++) zp_##P##G##_jac_add(&j[i], &j[i - 1], &q); \
		zp_##P##G##_jac_batch_to_affine(p, j, n); \
		for (size_t i = 0; i < n; i++) zp_##P##fr_random(&s[i], &g); \
		size_t sz = zp_##P##msm_##G##_scratch_size(n); \
		void *scr = malloc(sz); \
		double best = 1e30; \
		for (int r = 0; r <= reps; r++) {   /* the first untimed */ \
			double t0 = cpu_ms(); \
			if (zp_##P##msm_##G(&out, p, s, n, scr, sz) < 0) { \
				fprintf(stderr, "zkpipe-bench-msm: msm failed\n"); \
				exit(1); \
			} \
			double dt = cpu_ms() - t0; \
			if (r > 0 && dt < best) best = dt; \
		} \
		if (getenv("ZKPIPE_BENCH_DIGEST")) {   /* old/new builds compared bit for bit */ \
			uint64_t h = 14695981039346656037ull; \
			for (size_t b = 0; b < sizeof out; b++) h = (h ^ ((const uint8_t *)&out)[b]) * 1099511628211ull; \
			fprintf(stderr, "digest %016llx\n", (unsigned long long)h); \
		} \
		return best; \
	}
RUN(, g1, ZP_G1_GEN)
RUN(bn254_, g1, ZP_BN254_G1_GEN)
RUN(, g2, ZP_G2_GEN)
RUN(bn254_, g2, ZP_BN254_G2_GEN)

int main(int argc, char **argv)
{
	bool g2 = argc > 4 && strcmp(argv[4], "g2") == 0;
	if (argc < 3 || (strcmp(argv[1], "bls12-381") && strcmp(argv[1], "bn254")) || atoi(argv[2]) < 8 ||
	    atoi(argv[2]) > 24 || (argc > 4 && !g2 && strcmp(argv[4], "g1"))) {
		fprintf(stderr, "usage: zkpipe-bench-msm bls12-381|bn254 LOG2(8..24) [REPS [g1|g2]]\n");
		return 2;
	}
	size_t n = (size_t)1 << atoi(argv[2]);
	int reps = argc > 3 && atoi(argv[3]) > 0 ? atoi(argv[3]) : 3;
	zp_par_set_threads(1);
	bool bn = strcmp(argv[1], "bn254") == 0;
	double best = g2 ? (bn ? run_bn254_g2(n, reps) : run_g2(n, reps)) : (bn ? run_bn254_g1(n, reps) : run_g1(n, reps));
	printf("%s%s %s %.1f\n", argv[1], g2 ? "/g2" : "", argv[2], best);
	return 0;
}
