/* ntt_ab.c — one forward + inverse NTT per curve and size, for A/B runs (not a test):
 *   zkpipe-bench-ntt [log_n ...]      (default 16 20)
 * Prints "<curve> 2^k fwd+inv <ms>" per line, the best of BENCH_REPS (default 3) in this process; an A/B
 * script runs an old and a new build of it alternately and takes the median over processes
 * (bench/RESULTS.md, "One CPU NTT"). Public API only, so it builds against older trees too. */
#include "bn254_ntt.h"
#include "field.h"
#include "ntt.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	unsigned logs[8] = { 16, 20 };
	int nl = argc > 1 ? 0 : 2, reps = getenv("BENCH_REPS") ? atoi(getenv("BENCH_REPS")) : 3;
	for (int i = 1; i < argc && nl < 8; i++)
		logs[nl++] = (unsigned)atoi(argv[i]);
	for (int li = 0; li < nl; li++) {
		size_t n = (size_t)1 << logs[li];
		zp_fr *a = aligned_alloc(64, n * sizeof(zp_fr));
		zp_rng g;
		zp_rng_seed(&g, 7);
		for (size_t i = 0; i < n; i++)
			zp_fr_random(&a[i], &g);   /* any 256-bit values below both moduli work for timing: top limb cleared */
		for (size_t i = 0; i < n; i++)
			a[i].l[3] &= 0x0fffffffffffffffULL;
		for (int curve = 0; curve < 2; curve++) {
			zp_ntt_domain d;
			zp_bn254_ntt_domain e;
			if (curve == 0 ? zp_ntt_domain_init(&d, logs[li]) : zp_bn254_ntt_domain_init(&e, logs[li]))
				return 1;
			double best = 1e30;
			for (int r = 0; r < (reps > 0 ? reps : 1); r++) {
				double t0 = now();
				if (curve == 0) {
					zp_ntt_forward(&d, a);
					zp_ntt_inverse(&d, a);
				} else {
					zp_bn254_ntt_forward(&e, (zp_bn254_fr *)a);
					zp_bn254_ntt_inverse(&e, (zp_bn254_fr *)a);
				}
				double t = now() - t0;
				best = t < best ? t : best;
			}
			printf("%s 2^%u fwd+inv %.2f\n", curve == 0 ? "bls12_381" : "bn254", logs[li], best * 1e3);
			if (curve == 0)
				zp_ntt_domain_free(&d);
			else
				zp_bn254_ntt_domain_free(&e);
		}
		free(a);
	}
	return 0;
}
