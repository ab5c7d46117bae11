/* NTT timings (not a test): bench_ntt [log_n ...]; ZP_THREADS picks threads, BENCH_REPS
 * the repetitions (default 3). Prints the best (wall, and
 * the process CPU time of that run: on a shared machine wall time overstates). */
#include "par.h"
#include "ntt_util.h"

#include <time.h>

static double cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	unsigned logs[8] = { 20, 24 };
	int nl = 2;
	if (argc > 1) {
		nl = 0;
		for (int i = 1; i < argc && nl < 8; i++)
			logs[nl++] = (unsigned)atoi(argv[i]);
	}
	int reps = getenv("BENCH_REPS") ? atoi(getenv("BENCH_REPS")) : 3;
	zp_rng g;
	zp_rng_seed(&g, 1);
	for (int li = 0; li < nl; li++) {
		unsigned k = logs[li];
		size_t n = (size_t)1 << k;
		zp_ntt_domain d;
		if (zp_ntt_domain_init(&d, k) < 0)
			return 1;
		zp_fr *a = vec_alloc(n), *b = vec_alloc(n), *c = vec_alloc(n);
		vec_random(a, n, &g);
		vec_random(b, n, &g);
		vec_random(c, n, &g);
		const char *names[] = { "forward", "inverse", "coset_fwd", "h_snarkjs", "h_bellperson" };
		for (int op = 0; op < 5; op++) {
			double best = 1e9, bcpu = 0;
			for (int rep = 0; rep < (reps > 0 ? reps : 1); rep++) {
				double t0 = now(), c0 = cpu();
				switch (op) {
				case 0: zp_ntt_forward(&d, a); break;
				case 1: zp_ntt_inverse(&d, a); break;
				case 2: zp_ntt_coset_forward_gen(&d, a); break;
				case 3: zp_ntt_h_snarkjs(&d, a, b, c); break;
				case 4: zp_ntt_h_bellperson(&d, a, b, c); break;
				}
				double t = now() - t0;
				if (t < best) {
					best = t;
					bcpu = cpu() - c0;
				}
			}
			printf("2^%u %-13s threads %d: %9.1f ms wall %9.1f ms cpu\n", k, names[op], zp_par_threads(),
			       best * 1e3, bcpu * 1e3);
		}
		printf("2^%u domain memory: %zu bytes\n", k, d.mem_bytes);
		free(a); free(b); free(c);
		zp_ntt_domain_free(&d);
	}
	return 0;
}
