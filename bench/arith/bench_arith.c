/*
 * zkpipe-bench-arith — timings of the CPU arithmetic: Fp multiplication, G1 mixed
 * addition, MSM G1 at 2^16 and 2^20, MSM G2 at 2^16. Prints a markdown table and
 * appends it, with date, machine and command, to bench/RESULTS.md (--results PATH,
 * --no-append to skip).
 *
 * Peer figures measured elsewhere (e.g. blst's single-threaded Pippenger, timed by a
 * separate program that is not part of zkpipe) can be given as
 *   --peer-blst-ms 2^16=492,2^20=6342
 * and appear beside ours with the ratio ours/peer for the G1 MSM rows.
 *
 * NTT (ntt.h, ROOT5 domain): forward transform in place at 2^20 and 2^24, wall time.
 * Threads: ZP_THREADS (or --threads N); each MSM is also timed on one thread.
 * Single-threaded rows are process CPU time (steadier on a shared machine), the
 * others wall time.
 * --quick skips the 2^20 MSM and 2^24 NTT sizes.
 * --curve bn254 times BN254 instead (common/bn254*): Fp mul, G1 and G2 mixed additions, MSM G1 2^16
 * (all threads and one), NTT 2^16 and one pairing (Miller loop + exact final exponentiation).
 */
#include "bn254.h"
#include "bn254_msm.h"
#include "bn254_ntt.h"
#include "ec.h"
#include "field_impl.h"
#include "fp_ifma.h"
#include "fp8.h"
#include "msm.h"
#include "ntt.h"
#include "par.h"
#include "groth16.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

struct row {
	char name[64];
	double value;
	const char *unit;
	int threads;
	double peer;  /* 0 = none */
};

static struct row rows[32];
static int nrows;
static double peer_ms[32];  /* by log2 n */

/* Wall time; single-threaded runs use process CPU time, which a busy machine disturbs less. */
static bool cpu_clock;

static double now_s(void)
{
	struct timespec t;
	clock_gettime(cpu_clock ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void add_row(const char *name, double v, const char *unit, int threads, double peer)
{
	struct row *r = &rows[nrows++];
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->value = v;
	r->unit = unit;
	r->threads = threads;
	r->peer = peer;
	printf("%-28s %12.2f %s  (threads %d)", name, v, unit, threads);
	if (peer > 0)
		printf("  blst %.1f ms, ratio %.2f", peer, v / peer);
	printf("\n");
	fflush(stdout);
}

static void bench_fp_mul(void)
{
	zp_rng g;
	zp_rng_seed(&g, 1);
	zp_fp a, b;
	zp_fp_random(&a, &g);
	zp_fp_random(&b, &g);
	long n = 10000000;
	cpu_clock = true;
	double t0 = now_s();
	for (long i = 0; i < n; i++)
		zp_fp_mul(&a, &a, &b);
	double t1 = now_s();
	if (a.l[0] == 42)
		printf(" ");
	add_row(zp_field_adx ? "Fp mul (mulx/adx)" : "Fp mul (portable)", (t1 - t0) / (double)n * 1e9, "ns", 1, 0);
}

static volatile uint64_t sink;   /* keeps the timed loops' results alive */

/* Throughput beside the latency above: four independent scalar chains, and the AVX-512 IFMA
 * product (common/fp_ifma_impl.h, through bench/arith/fp8.h) with eight lanes, one chain and four; ns per Fp product. */
static void bench_fp_mul_wide(void)
{
	zp_rng g;
	zp_rng_seed(&g, 2);
	zp_fp a[8 * 4], b[8 * 4];
	for (int i = 0; i < 32; i++) { zp_fp_random(&a[i], &g); zp_fp_random(&b[i], &g); }
	long n = 4000000;
	cpu_clock = true;
	double t0 = now_s();
	for (long i = 0; i < n; i++) {
		zp_fp_mul(&a[0], &a[0], &b[0]);
		zp_fp_mul(&a[1], &a[1], &b[1]);
		zp_fp_mul(&a[2], &a[2], &b[2]);
		zp_fp_mul(&a[3], &a[3], &b[3]);
	}
	double t1 = now_s();
	sink ^= a[0].l[0] ^ a[3].l[0];
	add_row("Fp mul, 4 chains (scalar)", (t1 - t0) / (double)(4 * n) * 1e9, "ns", 1, 0);
	if (!zp_fp_ifma_available()) {
		printf("(no AVX-512 IFMA on this CPU: IFMA rows skipped)\n");
		return;
	}
	static zp_fp8 A[4], B[4];
	for (int c = 0; c < 4; c++) { zp_fp8_pack(&A[c], a + 8 * c); zp_fp8_pack(&B[c], b + 8 * c); }
	long m = 1000000;
	t0 = now_s();
	for (long i = 0; i < m; i++) zp_fp8_mul(&A[0], &A[0], &B[0]);
	t1 = now_s();
	add_row("Fp mul IFMA x8, 1 chain", (t1 - t0) / (double)(8 * m) * 1e9, "ns", 1, 0);
	t0 = now_s();
	for (long i = 0; i < m; i++)
		for (int c = 0; c < 4; c++) zp_fp8_mul(&A[c], &A[c], &B[c]);
	t1 = now_s();
	zp_fp8_unpack(a, &A[3]);
	sink ^= a[0].l[0];
	add_row("Fp mul IFMA x8, 4 chains", (t1 - t0) / (double)(32 * m) * 1e9, "ns", 1, 0);
}

static void bench_g1_madd(void)
{
	zp_g1_xyzz acc;
	zp_g1_xyzz_from_affine(&acc, &ZP_G1_GEN);
	zp_g1_affine p[64];
	zp_g1_jac j[64], q;
	zp_g1_jac_from_affine(&q, &ZP_G1_GEN);
	for (int i = 0; i < 64; i++) {
		zp_g1_jac_dbl(&q, &q);
		j[i] = q;
	}
	zp_g1_jac_batch_to_affine(p, j, 64);
	long n = 2000000;
	cpu_clock = true;
	double t0 = now_s();
	for (long i = 0; i < n; i++)
		zp_g1_xyzz_add_affine(&acc, &acc, &p[i & 63]);
	double t1 = now_s();
	if (acc.x.l[0] == 42)
		printf(" ");
	add_row("G1 mixed add (xyzz+affine)", (t1 - t0) / (double)n * 1e9, "ns", 1, 0);
}

/* n points P_i = P_(i-1) + Q and random scalars. */
static void make_g1(zp_g1_affine *p, zp_fr *s, size_t n)
{
	zp_rng g;
	zp_rng_seed(&g, 2);
	zp_g1_jac *j = malloc(n * sizeof(*j)), gen, q;
	zp_fr k;
	zp_g1_jac_from_affine(&gen, &ZP_G1_GEN);
	zp_fr_random(&k, &g);
	zp_g1_jac_mul(&j[0], &gen, &k);
	zp_fr_random(&k, &g);
	zp_g1_jac_mul(&q, &gen, &k);
	for (size_t i = 1; i < n; i++)
		zp_g1_jac_add(&j[i], &j[i - 1], &q);
	zp_g1_jac_batch_to_affine(p, j, n);
	free(j);
	for (size_t i = 0; i < n; i++)
		zp_fr_random(&s[i], &g);
}

static void make_g2(zp_g2_affine *p, zp_fr *s, size_t n)
{
	zp_rng g;
	zp_rng_seed(&g, 3);
	zp_g2_jac *j = malloc(n * sizeof(*j)), gen, q;
	zp_fr k;
	zp_g2_jac_from_affine(&gen, &ZP_G2_GEN);
	zp_fr_random(&k, &g);
	zp_g2_jac_mul(&j[0], &gen, &k);
	zp_fr_random(&k, &g);
	zp_g2_jac_mul(&q, &gen, &k);
	for (size_t i = 1; i < n; i++)
		zp_g2_jac_add(&j[i], &j[i - 1], &q);
	zp_g2_jac_batch_to_affine(p, j, n);
	free(j);
	for (size_t i = 0; i < n; i++)
		zp_fr_random(&s[i], &g);
}

/* One MSM of either group (points p are zp_g1_affine or zp_g2_affine). */
static int msm_once(bool g2, const void *p, const zp_fr *s, size_t n, void *scr, size_t sz)
{
	zp_g1_jac o1;
	zp_g2_jac o2;
	return g2 ? zp_msm_g2(&o2, p, s, n, scr, sz) : zp_msm_g1(&o1, p, s, n, scr, sz);
}

/* Best of reps, in ms, on the given thread count. */
static double time_msm(bool g2, const void *p, const zp_fr *s, size_t n, int threads, int reps)
{
	zp_par_set_threads(threads);
	cpu_clock = threads == 1;
	size_t sz = g2 ? zp_msm_g2_scratch_size(n) : zp_msm_g1_scratch_size(n);
	void *scr = malloc(sz);
	double best = 1e30;
	for (int r = 0; r < reps; r++) {
		double t0 = now_s();
		if (msm_once(g2, p, s, n, scr, sz) != 0) {
			fprintf(stderr, "msm failed\n");
			exit(1);
		}
		double t = (now_s() - t0) * 1e3;
		if (t < best)
			best = t;
	}
	free(scr);
	cpu_clock = false;
	return best;
}

static double time_msm_g1(const zp_g1_affine *p, const zp_fr *s, size_t n, int threads, int reps)
{
	return time_msm(false, p, s, n, threads, reps);
}

static double time_msm_g2(const zp_g2_affine *p, const zp_fr *s, size_t n, int threads, int reps)
{
	return time_msm(true, p, s, n, threads, reps);
}

static void bench_msm(int threads, bool quick)
{
	size_t nmax = (size_t)1 << (quick ? 16 : 20);
	zp_g1_affine *p = malloc(nmax * sizeof(*p));
	zp_fr *s = malloc(nmax * sizeof(*s));
	make_g1(p, s, nmax);
	for (int lg = 16; lg <= 20; lg += 4) {
		if (quick && lg > 16)
			break;
		size_t n = (size_t)1 << lg;
		int reps = lg > 16 ? 2 : 3;
		char name[64];
		snprintf(name, sizeof(name), "MSM G1 2^%d (c=%d)", lg, zp_msm_window_bits(n));
		add_row(name, time_msm_g1(p, s, n, 1, reps), "ms", 1, peer_ms[lg]);
		if (threads > 1)
			add_row(name, time_msm_g1(p, s, n, threads, reps), "ms", threads, 0);
	}
	free(p);
	free(s);
	size_t n2 = (size_t)1 << 16;
	zp_g2_affine *q = malloc(n2 * sizeof(*q));
	s = malloc(n2 * sizeof(*s));
	make_g2(q, s, n2);
	add_row("MSM G2 2^16", time_msm_g2(q, s, n2, 1, 2), "ms", 1, 0);
	if (threads > 1)
		add_row("MSM G2 2^16", time_msm_g2(q, s, n2, threads, 2), "ms", threads, 0);
	free(q);
	free(s);
	zp_par_set_threads(threads);
}

static void bench_ntt(int threads, bool quick)
{
	zp_par_set_threads(threads);
	for (unsigned lg = 20; lg <= 24; lg += 4) {
		if (quick && lg > 20)
			break;
		size_t n = (size_t)1 << lg;
		zp_fr *a = malloc(n * sizeof(*a));
		zp_ntt_domain d;
		if (!a || zp_ntt_domain_init(&d, lg) != 0) {
			fprintf(stderr, "ntt 2^%u: out of memory\n", lg);
			exit(1);
		}
		zp_rng g;
		zp_rng_seed(&g, 4);
		for (size_t i = 0; i < n; i++)
			zp_fr_random(&a[i], &g);
		double best = 1e30;
		for (int r = 0; r < 2; r++) {
			double t0 = now_s();
			zp_ntt_forward(&d, a);
			double t = (now_s() - t0) * 1e3;
			if (t < best)
				best = t;
		}
		char name[64];
		snprintf(name, sizeof(name), "NTT forward 2^%u", lg);
		add_row(name, best, "ms", threads, 0);
		zp_ntt_domain_free(&d);
		free(a);
	}
}

static void cpu_model(char *buf, size_t n)
{
	snprintf(buf, n, "unknown CPU");
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[256];
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "model name", 10) == 0) {
			char *c = strchr(line, ':');
			if (c) {
				c += 2;
				c[strcspn(c, "\n")] = 0;
				snprintf(buf, n, "%s", c);
			}
			break;
		}
	fclose(f);
}

static int parse_peer(const char *arg)
{
	/* "2^16=492,2^20=6342" */
	char *dup = strdup(arg), *save = NULL;
	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int lg;
		double ms;
		if (sscanf(tok, "2^%d=%lf", &lg, &ms) != 2 || lg < 0 || lg > 31 || ms <= 0) {
			fprintf(stderr, "bad --peer-blst-ms entry '%s' (want 2^LOG=MS)\n", tok);
			free(dup);
			return -1;
		}
		peer_ms[lg] = ms;
	}
	free(dup);
	return 0;
}

static void append_results(const char *path, int argc, char **argv, int threads)
{
	FILE *f = fopen(path, "a");
	if (!f) {
		fprintf(stderr, "cannot append to %s (run from the source root or pass --results)\n", path);
		return;
	}
	char date[64], cpu[128];
	time_t t = time(NULL);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&t));
	cpu_model(cpu, sizeof(cpu));
	struct utsname u;
	uname(&u);
	fprintf(f, "\n## zkpipe-bench-arith — %s\n\n", date);
	fprintf(f, "Machine: %s, %ld online CPUs, %s %s. Threads: %d. Field path: %s.\n\nCommand: `",
		cpu, sysconf(_SC_NPROCESSORS_ONLN), u.sysname, u.machine, threads,
		zp_field_adx ? "mulx/adx" : "portable");
	for (int i = 0; i < argc; i++)
		fprintf(f, "%s%s", i ? " " : "", argv[i]);
	fprintf(f, "`\n\n| what | value | unit | threads | blst | ours / blst |\n|---|---:|---|---:|---:|---:|\n");
	for (int i = 0; i < nrows; i++) {
		struct row *r = &rows[i];
		fprintf(f, "| %s | %.2f | %s | %d | ", r->name, r->value, r->unit, r->threads);
		if (r->peer > 0)
			fprintf(f, "%.1f ms (1 thread) | %.2f |\n", r->peer, r->value / r->peer);
		else
			fprintf(f, " | |\n");
	}
	fclose(f);
	printf("appended to %s\n", path);
}

/* ns per call of op over reps calls, on process CPU time */
#define TIME_NS(reps, op) ({ cpu_clock = true; double t0_ = now_s(); \
	for (long i_ = 0; i_ < (reps); i_++) { op; } (now_s() - t0_) / (double)(reps) * 1e9; })

/* Groth16 verify as gpud's self-check runs it: a PoRep partition's 328 public inputs, random (a garbage
 * proof of valid points: the checks, the inputs' MSM and the pairing all run, the answer is "no") */
static void bench_verify(int threads)
{
	enum { NPUB = 328 };
	zp_g16_vk vk;
	memset(&vk, 0, sizeof vk);
	vk.n_public = NPUB;
	vk.alpha1 = ZP_G1_GEN;
	vk.beta2 = vk.gamma2 = vk.delta2 = ZP_G2_GEN;
	vk.ic = malloc((NPUB + 1) * sizeof *vk.ic);
	zp_fr *pub = malloc(NPUB * sizeof *pub);
	if (!vk.ic || !pub)
		return;
	zp_g1_jac acc, g;
	zp_g1_jac_from_affine(&g, &ZP_G1_GEN);
	acc = g;
	for (int i = 0; i <= NPUB; i++) {
		zp_g1_jac_to_affine(&vk.ic[i], &acc);
		zp_g1_jac_add(&acc, &acc, &g);
		zp_g1_jac_dbl(&acc, &acc);
	}
	zp_rng rng;
	zp_rng_seed(&rng, 328);
	for (int i = 0; i < NPUB; i++)
		zp_fr_random(&pub[i], &rng);
	zp_g16_proof pr;
	memset(&pr, 0, sizeof pr);
	pr.a = pr.c = ZP_G1_GEN;
	pr.b = ZP_G2_GEN;
	zp_par_set_threads(threads);
	double best = 1e30;
	for (int r = 0; r < 5; r++) {
		double t0 = now_s();
		(void)zp_g16_verify(&vk, &pr, pub, NPUB);
		double dt = now_s() - t0;
		best = dt < best ? dt : best;
	}
	add_row("Groth16 verify (328 inputs)", best * 1e3, "ms", threads, 0);
	free(vk.ic);
	free(pub);
}

static void bench_bn254(int threads)
{
	zp_rng g;
	zp_rng_seed(&g, 3);
	zp_bn254_fp a, b;
	zp_bn254_fp_random(&a, &g);
	zp_bn254_fp_random(&b, &g);
	double ns = TIME_NS(10000000, zp_bn254_fp_mul(&a, &a, &b));
	sink ^= a.l[0];
	add_row(zp_field_adx ? "BN254 Fp mul (mulx/adx)" : "BN254 Fp mul (portable)", ns, "ns", 1, 0);

	enum { NP = 1 << 16 };
	zp_bn254_g1_affine *p1 = malloc(NP * sizeof *p1);
	zp_bn254_g1_jac *j1 = malloc(NP * sizeof *j1), gen;
	zp_bn254_fr *sc = malloc(NP * sizeof *sc), k;
	zp_bn254_g1_jac_from_affine(&gen, &ZP_BN254_G1_GEN);
	zp_bn254_fr_random(&k, &g);
	zp_bn254_g1_jac_mul(&j1[0], &gen, &k);
	for (size_t i = 1; i < NP; i++)
		zp_bn254_g1_jac_add(&j1[i], &j1[i - 1], &gen);
	zp_bn254_g1_jac_batch_to_affine(p1, j1, NP);
	for (size_t i = 0; i < NP; i++)
		zp_bn254_fr_random(&sc[i], &g);
	zp_bn254_g1_xyzz x1;
	zp_bn254_g1_xyzz_from_affine(&x1, &ZP_BN254_G1_GEN);
	ns = TIME_NS(2000000, zp_bn254_g1_xyzz_add_affine(&x1, &x1, &p1[i_ & 63]));
	sink ^= x1.x.l[0];
	add_row("BN254 G1 mixed add (xyzz)", ns, "ns", 1, 0);
	zp_bn254_g2_affine q2[64];
	zp_bn254_g2_jac qj[64], g2;
	zp_bn254_g2_jac_from_affine(&g2, &ZP_BN254_G2_GEN);
	for (int i = 0; i < 64; i++) {
		zp_bn254_g2_jac_dbl(&g2, &g2);
		qj[i] = g2;
	}
	zp_bn254_g2_jac_batch_to_affine(q2, qj, 64);
	zp_bn254_g2_xyzz x2;
	zp_bn254_g2_xyzz_from_affine(&x2, &ZP_BN254_G2_GEN);
	ns = TIME_NS(500000, zp_bn254_g2_xyzz_add_affine(&x2, &x2, &q2[i_ & 63]));
	sink ^= x2.x.c0.l[0];
	add_row("BN254 G2 mixed add (xyzz)", ns, "ns", 1, 0);

	size_t sz = zp_bn254_msm_g1_scratch_size(NP);
	void *scr = malloc(sz);
	zp_bn254_g1_jac out;
	for (int pass = 0; pass < 2; pass++) {
		int t = pass ? 1 : threads;
		zp_par_set_threads(t);
		cpu_clock = t == 1;
		double best = 1e30;
		for (int r = 0; r < 3; r++) {
			double t0 = now_s();
			if (zp_bn254_msm_g1(&out, p1, sc, NP, scr, sz) < 0)
				fprintf(stderr, "bn254 msm failed\n");
			double dt = now_s() - t0;
			best = dt < best ? dt : best;
		}
		add_row("BN254 MSM G1 2^16", best * 1e3, "ms", t, 0);
	}
	zp_par_set_threads(threads);
	zp_bn254_ntt_domain d;
	if (zp_bn254_ntt_domain_init(&d, 16) == 0) {
		cpu_clock = false;
		double t0 = now_s();
		zp_bn254_ntt_forward(&d, sc);
		add_row("BN254 NTT forward 2^16", (now_s() - t0) * 1e3, "ms", threads, 0);
		zp_bn254_ntt_domain_free(&d);
	}
	zp_bn254_fp12 e;
	ns = TIME_NS(5, zp_bn254_pairing(&e, &ZP_BN254_G1_GEN, &ZP_BN254_G2_GEN));
	add_row("BN254 pairing", ns / 1e6, "ms", 1, 0);
	ns = TIME_NS(5, zp_bn254_miller_loop(&e, &ZP_BN254_G1_GEN, &ZP_BN254_G2_GEN));
	add_row("BN254 Miller loop", ns / 1e6, "ms", 1, 0);
	free(scr);
	free(p1);
	free(j1);
	free(sc);
}

int main(int argc, char **argv)
{
	const char *results = "bench/RESULTS.md";
	bool append = true, quick = false, bn254 = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--peer-blst-ms") && i + 1 < argc) {
			if (parse_peer(argv[++i]))
				return 2;
		} else if (!strcmp(argv[i], "--results") && i + 1 < argc) {
			results = argv[++i];
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			zp_par_set_threads(atoi(argv[++i]));
		} else if (!strcmp(argv[i], "--no-append")) {
			append = false;
		} else if (!strcmp(argv[i], "--quick")) {
			quick = true;
		} else if (!strcmp(argv[i], "--curve") && i + 1 < argc && !strcmp(argv[i + 1], "bn254")) {
			bn254 = true;
			i++;
		} else {
			fprintf(stderr, "usage: %s [--threads N] [--quick] [--no-append] [--results PATH]"
				" [--peer-blst-ms 2^16=MS,2^20=MS] [--curve bn254]\n", argv[0]);
			return 2;
		}
	}
	int threads = zp_par_threads();
	char cpu[128];
	cpu_model(cpu, sizeof(cpu));
	printf("machine: %s, %ld online CPUs; threads %d\n", cpu, sysconf(_SC_NPROCESSORS_ONLN), threads);
	if (bn254) {
		bench_bn254(threads);
	} else {
		bench_fp_mul();
		bench_fp_mul_wide();
		bench_g1_madd();
		bench_msm(threads, quick);
		bench_ntt(threads, quick);
		bench_verify(threads);
	}
	if (append)
		append_results(results, argc, argv, threads);
	return 0;
}
