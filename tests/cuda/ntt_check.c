/*
 * ntt_check.c — the CUDA NTT (cuda/ntt.cu) against the CPU on one GPU.
 *
 *   ntt_check check [LG...]   the GPU against the CPU (common/ntt.c for BLS12-381, both root families;
 *                             common/bn254_ntt.c for BN254), bit for bit: forward, inverse, coset forward /
 *                             inverse (g = 7, a random shift, w_2n), the bellperson and snarkjs H steps.
 *                             Default sizes 1 5 10 13 17 20 24 (1: the radix-2 pass kernels, the others
 *                             pass4). Fresh random input per size and operation. BN254 at 2^24: the four
 *                             transforms only (its CPU NTT is radix-2: the H step there is checked up to 2^20).
 *                             Exit 0 all pass, 1 a mismatch.
 *   ntt_check bench [CASE...] CUDA events around each call on one stream after one warm-up, median of 7, random
 *                             data, device-resident. CASE = curve:op:lg, curve bls|bn, op fwd|inv|cfwd|cinv|h
 *                             (h: BLS12-381 bellperson, BN254 snarkjs); RUNS=k: k timed calls instead of 7,
 *                             e.g. under ncu. check: CURVES="bls bn" (default both).
 * Rows: "| what | size | PASS/FAIL |" and "| curve | op | 2^lg | median | min | max |".
 * Exit 77 without a GPU.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "zp_cuda.h"
#include "zp_err.h"
#include "field.h"
#include "ntt.h"
#include "curve.h"
#include "bn254.h"
#include "bn254_ntt.h"

#define CK(x) do { int rc_ = (x); if (rc_ < 0) { fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #x, zp_strerror(rc_)); exit(1); } } while (0)
#define CU(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

static int failures;
static uint64_t rs = 0x2545f4914f6cdd1dull;

static void *xmalloc(size_t n) { void *p = malloc(n ? n : 1); if (!p) { perror("malloc"); exit(1); } return p; }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static uint64_t rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }
/* random elements below 2^252 (< r for both curves): valid Montgomery forms, 32 bytes each */
static void fill(void *p, size_t n)
{
	uint64_t *q = p;
	for (size_t i = 0; i < n; i++) {
		for (int j = 0; j < 4; j++) q[4 * i + j] = rnd();
		q[4 * i + 3] &= 0x0fffffffffffffffull;
	}
}
static void row(const char *what, unsigned lg, int ok, const char *note)
{
	printf("| %-34s | 2^%-2u | %s | %s\n", what, lg, ok ? "PASS" : "FAIL", note ? note : "");
	fflush(stdout);
	if (!ok) failures++;
}

enum op { FWD, INV, CFWD_G, CINV_G, CFWD_S, CINV_S, CINV_2N, H_BP, H_SJ, NOPS };
static const char *opname[NOPS] = { "NTT fwd", "NTT inv", "NTT coset fwd g=7", "NTT coset inv g=7",
	"NTT coset fwd (random s)", "NTT coset inv (random s)", "NTT coset inv w_2n", "H bellperson", "H snarkjs" };

/* the GPU side of op on d (3n elements for the H steps) */
static void gpu_op(zp_cuda_ntt_ctx *g, enum op op, void *d, unsigned lg, const void *gen, const void *s, const void *w2n)
{
	size_t n = (size_t)1 << lg;
	zp_fr *x = d;
	switch (op) {
	case FWD: CK(zp_cuda_ntt(g, x, lg, 0, NULL, NULL)); break;
	case INV: CK(zp_cuda_ntt(g, x, lg, 1, NULL, NULL)); break;
	case CFWD_G: CK(zp_cuda_ntt(g, x, lg, 0, gen, NULL)); break;
	case CINV_G: CK(zp_cuda_ntt(g, x, lg, 1, gen, NULL)); break;
	case CFWD_S: CK(zp_cuda_ntt(g, x, lg, 0, s, NULL)); break;
	case CINV_S: CK(zp_cuda_ntt(g, x, lg, 1, s, NULL)); break;
	case CINV_2N: CK(zp_cuda_ntt(g, x, lg, 1, w2n, NULL)); break;
	case H_BP: CK(zp_cuda_groth16_h(g, x, x + n, x + 2 * n, lg, ZP_CUDA_H_BELLPERSON, NULL)); break;
	case H_SJ: CK(zp_cuda_groth16_h(g, x, x + n, x + 2 * n, lg, ZP_CUDA_H_SNARKJS, NULL)); break;
	default: break;
	}
	CU(cudaDeviceSynchronize());
}

/* one input, the CPU result, the GPU's */
static void check_one(const char *curve, zp_cuda_ntt_ctx *g, enum op op, unsigned lg, int fam, void *dom, int bn)
{
	size_t n = (size_t)1 << lg, m = (op == H_BP || op == H_SJ) ? 3 * n : n;
	uint8_t *x = xmalloc(m * 32), *ref = xmalloc(m * 32), *y = xmalloc(n * 32);
	uint8_t s[32];
	void *d;
	fill(x, m);
	fill(s, 1);
	memcpy(ref, x, m * 32);
	double t0 = now();
	if (bn) {
		zp_bn254_ntt_domain *D = dom;
		zp_bn254_fr *r = (zp_bn254_fr *)ref;
		switch (op) {
		case FWD: CK(zp_bn254_ntt_forward(D, r)); break;
		case INV: CK(zp_bn254_ntt_inverse(D, r)); break;
		case CFWD_S: CK(zp_bn254_ntt_coset_forward(D, r, (const zp_bn254_fr *)s)); break;
		case CINV_S: CK(zp_bn254_ntt_coset_inverse(D, r, (const zp_bn254_fr *)s)); break;
		case CINV_2N: CK(zp_bn254_ntt_coset_inverse(D, r, &D->omega_2n)); break;
		case H_SJ: CK(zp_bn254_ntt_h_snarkjs(D, r, r + n, r + 2 * n)); break;
		default: goto out;
		}
	} else {
		zp_ntt_domain *D = dom;
		zp_fr *r = (zp_fr *)ref;
		switch (op) {
		case FWD: CK(zp_ntt_forward(D, r)); break;
		case INV: CK(zp_ntt_inverse(D, r)); break;
		case CFWD_G: CK(zp_ntt_coset_forward_gen(D, r)); break;
		case CINV_G: CK(zp_ntt_coset_inverse_gen(D, r)); break;
		case CFWD_S: CK(zp_ntt_coset_forward(D, r, (const zp_fr *)s)); break;
		case CINV_S: CK(zp_ntt_coset_inverse(D, r, (const zp_fr *)s)); break;
		case CINV_2N: CK(zp_ntt_coset_inverse_odd(D, r)); break;
		case H_BP: CK(zp_ntt_h_bellperson(D, r, r + n, r + 2 * n)); break;
		case H_SJ: CK(zp_ntt_h_snarkjs(D, r, r + n, r + 2 * n)); break;
		default: goto out;
		}
	}
	double t1 = now();
	CU(cudaMalloc(&d, m * 32));
	const void *gen = bn ? NULL : (const void *)&((zp_ntt_domain *)dom)->gen;
	const void *w2n = bn ? (const void *)&((zp_bn254_ntt_domain *)dom)->omega_2n : (const void *)&((zp_ntt_domain *)dom)->omega_2n;
	CU(cudaMemset(d, 0xa5, m * 32));   /* poison, then the input */
	CU(cudaMemcpy(d, x, m * 32, cudaMemcpyHostToDevice));
	gpu_op(g, op, d, lg, gen, s, w2n);
	CU(cudaMemcpy(y, d, n * 32, cudaMemcpyDeviceToHost));
	char what[80], note[64];
	snprintf(what, sizeof what, "%s %s%s", curve, opname[op], bn ? "" : fam == 7 ? " (root 7)" : " (root 5)");
	snprintf(note, sizeof note, "cpu %.2fs", t1 - t0);
	row(what, lg, !memcmp(y, ref, n * 32), note);
	cudaFree(d);
out:
	free(x); free(ref); free(y);
}

static int check(int argc, char **argv)
{
	unsigned lgs[32], nl = 0, dflt[] = { 1, 5, 10, 13, 17, 20, 24 };
	for (int i = 0; i < argc && nl < 32; i++) lgs[nl++] = (unsigned)atoi(argv[i]);
	if (!nl) { memcpy(lgs, dflt, sizeof dflt); nl = sizeof dflt / sizeof dflt[0]; }
	unsigned top = 0;
	for (unsigned i = 0; i < nl; i++) if (lgs[i] > top) top = lgs[i];
	const char *cv = getenv("CURVES");
	int do_bls = !cv || strstr(cv, "bls"), do_bn = !cv || strstr(cv, "bn");
	/* BLS12-381, both root families: one context of max_log top + 1 (the snarkjs H step needs 2n) */
	for (int fam = 5; do_bls && fam <= 7; fam += 2) {
		zp_cuda_ntt_ctx *g;
		CK(zp_cuda_ntt_create(&g, top + 1 > 27 ? 27 : top + 1, fam));
		for (unsigned i = 0; i < nl; i++) {
			zp_ntt_domain dom;
			CK(zp_ntt_domain_init_ex(&dom, lgs[i], (enum zp_ntt_roots)fam, 0));
			for (int op = 0; op < NOPS; op++) {
				if (op == H_SJ && lgs[i] + 1 > 27) continue;
				if (fam == 7 && (op == CFWD_S || op == CINV_S || op == H_SJ) && lgs[i] > 20) continue;
				check_one("BLS12-381", g, (enum op)op, lgs[i], fam, &dom, 0);
			}
			zp_ntt_domain_free(&dom);
		}
		zp_cuda_ntt_destroy(g);
	}
	if (!do_bn) goto done;
	/* BN254 (root 5 only) */
	const zp_cuda_curve *cc = zp_cuda_curve_of(ZP_CURVE_BN254);
	zp_cuda_ntt_ctx *g;
	CK(cc->ntt_create(&g, top + 1 > 27 ? 27 : top + 1, 5));
	for (unsigned i = 0; i < nl; i++) {
		zp_bn254_ntt_domain dom;
		CK(zp_bn254_ntt_domain_init(&dom, lgs[i]));
		for (int op = 0; op < NOPS; op++) {
			if (op == CFWD_G || op == CINV_G || op == H_BP) continue;
			if (lgs[i] > 20 && (op == H_SJ || op == CINV_2N)) continue;
			check_one("BN254", g, (enum op)op, lgs[i], 5, &dom, 1);
		}
		zp_bn254_ntt_domain_free(&dom);
	}
	zp_cuda_ntt_destroy(g);
done:
	printf("# ntt_check: %d failure(s)\n", failures);
	return failures ? 1 : 0;
}

static int cmpf(const void *a, const void *b) { float x = *(const float *)a, y = *(const float *)b; return (x > y) - (x < y); }

static int runs = 7;
static void bench_case(const char *cs)
{
	char curve[8], opn[8];
	unsigned lg;
	if (sscanf(cs, "%7[a-z]:%7[a-z]:%u", curve, opn, &lg) != 3 || lg < 1 || lg > 27) {
		fprintf(stderr, "ntt_check bench: bad case %s (curve:op:lg)\n", cs);
		exit(2);
	}
	int bn = !strcmp(curve, "bn");
	enum op op = !strcmp(opn, "fwd") ? FWD : !strcmp(opn, "inv") ? INV : !strcmp(opn, "cfwd") ? CFWD_S :
	             !strcmp(opn, "cinv") ? CINV_S : !strcmp(opn, "h") ? (bn ? H_SJ : H_BP) : NOPS;
	if (op == NOPS) { fprintf(stderr, "ntt_check bench: op %s (fwd inv cfwd cinv h)\n", opn); exit(2); }
	size_t n = (size_t)1 << lg, m = (op == H_BP || op == H_SJ) ? 3 * n : n;
	unsigned ml = op == H_SJ ? lg + 1 : lg;
	if (ml > 27) { printf("| %s | %s | 2^%u | - | (needs max_log %u > 27) |\n", curve, opn, lg, ml); return; }
	zp_cuda_ntt_ctx *g;
	if (bn) CK(zp_cuda_curve_of(ZP_CURVE_BN254)->ntt_create(&g, ml, 5));
	else CK(zp_cuda_ntt_create(&g, ml, 5));
	void *d;
	CU(cudaMalloc(&d, m * 32));
	uint8_t *h = xmalloc(m * 32), s[32];
	fill(h, m);
	fill(s, 1);
	if (!bn) zp_fr_from_u64((zp_fr *)s, 7);   /* bellperson's shift (the H step uses it too) */
	CU(cudaMemcpy(d, h, m * 32, cudaMemcpyHostToDevice));
	free(h);
	cudaEvent_t e0, e1;
	CU(cudaEventCreate(&e0)); CU(cudaEventCreate(&e1));
	float ms[64];
	for (int r = -1; r < runs; r++) {
		CU(cudaEventRecord(e0, 0));
		gpu_op(g, op, d, lg, NULL, s, NULL);
		CU(cudaEventRecord(e1, 0));
		CU(cudaEventSynchronize(e1));
		CU(cudaGetLastError());
		if (r >= 0) CU(cudaEventElapsedTime(&ms[r], e0, e1));
	}
	qsort(ms, runs, sizeof ms[0], cmpf);
	printf("| %s | %s | 2^%u | %.2f | %.2f | %.2f |\n", bn ? "bn254" : "bls12-381", opn, lg, ms[runs / 2], ms[0], ms[runs - 1]);
	fflush(stdout);
	cudaEventDestroy(e0); cudaEventDestroy(e1);
	cudaFree(d);
	zp_cuda_ntt_destroy(g);
}

int main(int argc, char **argv)
{
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) { printf("ntt_check: no GPU (skip)\n"); return 77; }
	if (argc >= 2 && !strcmp(argv[1], "check")) return check(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "bench")) {
		const char *rv = getenv("RUNS");
		if (rv && atoi(rv) >= 1 && atoi(rv) <= 64) runs = atoi(rv);
		const char *all[] = { "bls:fwd:24", "bls:inv:24", "bls:cfwd:24", "bls:cinv:24", "bn:fwd:24", "bn:inv:24",
		                      "bls:fwd:27", "bls:inv:27", "bls:cfwd:27", "bls:cinv:27", "bn:fwd:27", "bn:inv:27", "bls:h:27" };
		printf("| curve | op | size | median ms | min | max |\n|---|---|---|---:|---:|---:|\n");
		if (argc == 2) for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++) bench_case(all[i]);
		for (int i = 2; i < argc; i++) bench_case(argv[i]);
		return 0;
	}
	fprintf(stderr, "usage: ntt_check check [LG...] | bench [curve:op:lg ...]\n");
	return 2;
}
