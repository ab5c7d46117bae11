/* ntt_ab.c — a forward + inverse NTT per curve and size, and a snarkjs H step up to 2^16, for A/B runs (not a test):
 *   zkpipe-bench-ntt [log_n ...]      (default 16 20)
 * Prints "<curve> 2^k <op>-wall <ms>" and "... <op>-cpu <ms>" (process CPU time: on a loaded machine wall
 * time overstates), each the least of BENCH_REPS (default 3) in this process; ntt_ab.sh
 * builds it against an old and a new tree, runs the two alternately and takes the median over processes
 * (bench/RESULTS.md, "One CPU NTT"). Public API only, so it builds against older trees too. */
#include "bn254_ntt.h"
#include "field.h"
#include "ntt.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
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
		zp_fr *v[3];
		zp_rng g;
		zp_rng_seed(&g, 7);
		for (int k = 0; k < 3; k++) {
			v[k] = aligned_alloc(64, n * sizeof(zp_fr));
			for (size_t i = 0; i < n; i++) {
				zp_fr_random(&v[k][i], &g);   /* below both moduli with the top limb cut: fine for timing */
				v[k][i].l[3] &= 0x0fffffffffffffffULL;
			}
		}
		for (int curve = 0; curve < 2; curve++) {
			zp_ntt_domain d;
			zp_bn254_ntt_domain e;
			zp_bn254_fr *w[3] = { (zp_bn254_fr *)v[0], (zp_bn254_fr *)v[1], (zp_bn254_fr *)v[2] };
			if (curve == 0 ? zp_ntt_domain_init(&d, logs[li]) : zp_bn254_ntt_domain_init(&e, logs[li]))
				return 1;
			for (int op = 0; op < (logs[li] <= 16 ? 2 : 1); op++) {   /* forward + inverse; the H step to 2^16 */
				double best = 1e30, best_cpu = 1e30;
				for (int r = 0; r < (reps > 0 ? reps : 1); r++) {
					double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
					if (curve == 0 && op == 0)
						zp_ntt_forward(&d, v[0]), zp_ntt_inverse(&d, v[0]);
					else if (curve == 0)
						zp_ntt_h_snarkjs(&d, v[0], v[1], v[2]);
					else if (op == 0)
						zp_bn254_ntt_forward(&e, w[0]), zp_bn254_ntt_inverse(&e, w[0]);
					else
						zp_bn254_ntt_h_snarkjs(&e, w[0], w[1], w[2]);
					double t = now(CLOCK_MONOTONIC) - t0, c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
					best = t < best ? t : best;
					best_cpu = c < best_cpu ? c : best_cpu;
				}
				const char *name = curve == 0 ? "bls12_381" : "bn254", *what = op == 0 ? "fwd+inv" : "h_snarkjs";
				printf("%s 2^%u %s-wall %.2f\n%s 2^%u %s-cpu %.2f\n", name, logs[li], what, best * 1e3, name, logs[li],
				       what, best_cpu * 1e3);
			}
			if (curve == 0)
				zp_ntt_domain_free(&d);
			else
				zp_bn254_ntt_domain_free(&e);
		}
		for (int k = 0; k < 3; k++)
			free(v[k]);
	}
	return 0;
}
