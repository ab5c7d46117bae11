/*
 * gpu_bench.c — H200 timings of the CUDA kernels: NTT, Groth16 H step, MSM G1/G2, 0/1 fast path.
 * Inputs random (never zeros) and resident on the device; CUDA events around each call after one
 * warm-up; median of R runs. Every MSM result is also checked against bases of known discrete log.
 * Usage: gpu_bench [list of cases, default all] where a case is e.g. ntt:24 h:27 g1:26 g2:24 bits:27
 *        g1:26:18 (explicit window), g1:27:0:4 (auto window, passes of 4 windows), g2s:24 / g1s:26 (the split
 *        MSM over 4n precomputed bases, zp_cuda_msm_g*_split), g1h:27 / g2h:24 (the same in 2 parts: 2n bases),
 *        g1g:27[:0:P] (the GLV MSM over the n bases, zp_cuda_msm_g1_glv; P windows a pass). g1:N is plain only
 *        unless ZP_MSM_GLV=k makes it take the GLV cut by itself from 2^k.
 *        Prints a markdown table.
 *        GPU_MEMORY=24G (or a first argument --gpu-memory=24G; 24GiB, 24576M, bytes; 0 = the whole card): run
 *        as on a card of that size: the bench holds the rest of the card's memory (what other processes use
 *        still counts) and exports ZP_CUDA_MEM_CAP_MB for anything that plans by it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "knobs.h"
#include "zp_cuda.h"
#include "zp_err.h"
#include "ref.h"

#define CK(x) do { int rc_ = (x); if (rc_ < 0) { fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #x, zp_err_msg()); exit(1); } } while (0)
#define CU(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

static uint64_t rng[4] = { 1, 0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 7 };
static cudaEvent_t e0, e1;
static int cmp(const void *a, const void *b) { float x = *(const float *)a, y = *(const float *)b; return x < y ? -1 : x > y; }

static zp_fr *rand_scalars_dev(size_t n, int bits)
{
	zp_fr *h = malloc(n * 32), *d;
	for (size_t i = 0; i < n; i++) {
		if (bits) { if (ref_rng(rng) & 1) h[i] = REF_FR_ONE; else memset(&h[i], 0, 32); }
		else ref_fr_random(&h[i], rng);
	}
	CU(cudaMalloc((void **)&d, n * 32));
	CU(cudaMemcpy(d, h, n * 32, cudaMemcpyHostToDevice));
	free(h);
	return d;
}

static void report(const char *what, const char *size, float *ms, int runs, const char *note)
{
	qsort(ms, runs, sizeof *ms, cmp);
	printf("| %-28s | %-6s | %9.2f | %9.2f | %9.2f | %s\n", what, size, ms[runs / 2], ms[0], ms[runs - 1], note);
	fflush(stdout);
}

static void bench_ntt(unsigned lg, int h, int inverse, int coset)
{
	size_t n = (size_t)1 << lg;
	zp_cuda_ntt_ctx *ctx;
	CK(zp_cuda_ntt_create(&ctx, lg, 5));
	zp_fr *a = rand_scalars_dev(n, 0), *b = NULL, *c = NULL, seven;
	ref_fr_from_u64(&seven, 7);
	if (h) { b = rand_scalars_dev(n, 0); c = rand_scalars_dev(n, 0); }
	float ms[7];
	int runs = 7;
	for (int r = -1; r < runs; r++) {
		CU(cudaEventRecord(e0, 0));
		if (h) CK(zp_cuda_groth16_h(ctx, a, b, c, lg, ZP_CUDA_H_BELLPERSON, NULL));
		else CK(zp_cuda_ntt(ctx, a, lg, inverse, coset ? &seven : NULL, NULL));
		CU(cudaEventRecord(e1, 0));
		CU(cudaEventSynchronize(e1));
		if (r >= 0) CU(cudaEventElapsedTime(&ms[r], e0, e1));
	}
	char sz[16]; snprintf(sz, sizeof sz, "2^%u", lg);
	report(h ? "Groth16 H (bellperson)" : inverse ? (coset ? "NTT coset inverse" : "NTT inverse") : (coset ? "NTT coset forward" : "NTT forward"), sz, ms, runs,
	       h ? "3 iNTT + 3 coset NTT + (ab-c)/Z + coset iNTT" : "");
	cudaFree(a); cudaFree(b); cudaFree(c);
	zp_cuda_ntt_destroy(ctx);
}

#define TABLE 4096
/* split = parts (0: plain): the split MSM (zp_cuda_msm_g*_split) over parts·n precomputed bases (their making
 * timed once, in the note) */
static void bench_msm(int g2, unsigned lg, int bits, unsigned window, unsigned pass, int split)
{
	int glv = split < 0;   /* g1g: the GLV MSM over the n bases (zp_cuda_msm_g1_glv) */
	if (glv) split = 0;
	size_t n = (size_t)1 << lg;
	size_t psz = g2 ? sizeof(zp_cuda_g2_aff) : sizeof(zp_cuda_g1_aff);
	/* bases: a gather of a table T_j = (a + j·delta)·G */
	void *table = malloc(TABLE * psz), *dt, *db;
	zp_fr a, d, pa, pd;
	ref_fr_random(&a, rng); ref_fr_random(&d, rng);
	ref_fr_from_mont(&pa, &a); ref_fr_from_mont(&pd, &d);
	if (g2) {
		ref_g2 G, A, D; ref_g2_gen(&G); ref_g2_mul(&A, &G, &pa); ref_g2_mul(&D, &G, &pd);
		for (size_t j = 0; j < TABLE; j++) { ref_g2_to_affine((ref_g2a *)table + j, &A); ref_g2_add(&A, &A, &D); }
	} else {
		ref_g1 G, A, D; ref_g1_gen(&G); ref_g1_mul(&A, &G, &pa); ref_g1_mul(&D, &G, &pd);
		for (size_t j = 0; j < TABLE; j++) { ref_g1_to_affine((ref_g1a *)table + j, &A); ref_g1_add(&A, &A, &D); }
	}
	uint32_t *idx = malloc(n * 4), *didx;
	for (size_t i = 0; i < n; i++) idx[i] = ref_rng(rng) % TABLE;
	CU(cudaMalloc(&dt, TABLE * psz));
	CU(cudaMalloc(&db, n * psz));
	CU(cudaMalloc((void **)&didx, n * 4));
	CU(cudaMemcpy(dt, table, TABLE * psz, cudaMemcpyHostToDevice));
	CU(cudaMemcpy(didx, idx, n * 4, cudaMemcpyHostToDevice));
	if (g2) CK(zp_cuda_g2_gather(db, dt, didx, n)); else CK(zp_cuda_g1_gather(db, dt, didx, n));
	CU(cudaDeviceSynchronize());
	cudaFree(dt); cudaFree(didx);
	zp_fr *ds = rand_scalars_dev(n, bits);
	float split_ms = 0;
	if (split) {
		void *db4, *bs;
		size_t bss = zp_cuda_msm_split_bases_scratch_size(g2, n);
		CU(cudaMalloc(&db4, (size_t)split * n * psz));
		CU(cudaMalloc(&bs, bss));
		CU(cudaEventRecord(e0, 0));
		CK(g2 ? zp_cuda_msm_g2_split_bases(db4, db, n, split, bs, bss, NULL) : zp_cuda_msm_g1_split_bases(db4, db, n, split, bs, bss, NULL));
		CU(cudaEventRecord(e1, 0));
		CU(cudaEventSynchronize(e1));
		CU(cudaEventElapsedTime(&split_ms, e0, e1));
		cudaFree(bs); cudaFree(db);
		db = db4;
	}
	if (!pass && !split && !glv && !bits && !window) {
		/* all windows in one pass when the scratch fits in what is free (less 1 GiB; under ZP_CUDA_MEM_CAP_MB
		 * as if the card were that size), else as many windows a pass as fit: 2^27 G1 on an 80 GB card */
		size_t fre = 0, tot = 0, cap = (size_t)zp_knobs()->cuda_mem_cap_mb.v << 20;
		CU(cudaMemGetInfo(&fre, &tot));
		if (cap && cap < tot)
			fre = cap > tot - fre ? cap - (tot - fre) : 0;
		size_t avail = fre > ((size_t)1 << 30) ? fre - ((size_t)1 << 30) : 0;
		int p = zp_cuda_msm_passes(g2, n, 1, avail);
		if (p > 0)
			pass = (unsigned)p;
	}
	size_t ss = glv ? zp_cuda_msm_split_scratch_size(0, n, 2, window, pass)
	          : split ? zp_cuda_msm_split_scratch_size(g2, n, split, window, 0) : zp_cuda_msm_scratch_size_passes(g2, n, window, pass);
	void *scratch;
	CU(cudaMalloc(&scratch, ss));
	zp_cuda_msm_opts o = { .window = window, .stream = NULL, .pass_windows = pass };
	float ms[5];
	int runs = lg >= 26 ? 3 : 5;
	char out[288];
	for (int r = -1; r < runs; r++) {
		CU(cudaEventRecord(e0, 0));
		if (bits) CK(g2 ? zp_cuda_msm_g2_bits((void *)out, db, ds, n, scratch, ss, NULL) : zp_cuda_msm_g1_bits((void *)out, db, ds, n, scratch, ss, NULL));
		else if (glv) CK(zp_cuda_msm_g1_glv((void *)out, db, ds, n, scratch, ss, &o));
		else if (split) CK(g2 ? zp_cuda_msm_g2_split((void *)out, db, ds, n, split, scratch, ss, &o) : zp_cuda_msm_g1_split((void *)out, db, ds, n, split, scratch, ss, &o));
		else CK(g2 ? zp_cuda_msm_g2((void *)out, db, ds, n, scratch, ss, &o) : zp_cuda_msm_g1((void *)out, db, ds, n, scratch, ss, &o));
		CU(cudaEventRecord(e1, 0));
		CU(cudaEventSynchronize(e1));
		if (r >= 0) CU(cudaEventElapsedTime(&ms[r], e0, e1));
	}
	/* check: expected (sum s_i·k_i)·G */
	zp_fr *s = malloc(n * 32), *acc = calloc(TABLE, 32), sum = { { 0 } }, jj, k, m, e;
	CU(cudaMemcpy(s, ds, n * 32, cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < n; i++) ref_fr_add(&acc[idx[i]], &acc[idx[i]], &s[i]);
	for (size_t j = 0; j < TABLE; j++) {
		ref_fr_from_u64(&jj, j); ref_fr_mul(&k, &jj, &d); ref_fr_add(&k, &k, &a);
		ref_fr_mul(&m, &acc[j], &k); ref_fr_add(&sum, &sum, &m);
	}
	ref_fr_from_mont(&e, &sum);
	int ok;
	if (g2) {
		ref_g2 G, X; ref_g2a xa, ga; ref_g2_gen(&G); ref_g2_mul(&X, &G, &e);
		ref_g2_to_affine(&xa, &X); ref_g2_to_affine(&ga, (ref_g2 *)out); ok = !memcmp(&xa, &ga, sizeof xa);
	} else {
		ref_g1 G, X; ref_g1a xa, ga; ref_g1_gen(&G); ref_g1_mul(&X, &G, &e);
		ref_g1_to_affine(&xa, &X); ref_g1_to_affine(&ga, (ref_g1 *)out); ok = !memcmp(&xa, &ga, sizeof xa);
	}
	char what[64], sz[16], note[160];
	snprintf(what, sizeof what, "MSM %s%s", g2 ? "G2" : "G1", bits ? " 0/1 fast path" : glv ? " GLV (n bases)" : split == 4 ? " split bases" : split ? " split bases, 2 parts" : "");
	snprintf(sz, sizeof sz, "2^%u", lg);
	snprintf(note, sizeof note, "window %s%u%s; result %s; scratch %.1f GiB", window ? "" : "auto ", window,
	         pass ? ", in passes" : "", ok ? "checked OK" : "WRONG", ss / 1073741824.0);
	if (pass) snprintf(note + strlen(note), sizeof note - strlen(note), " (%u a pass)", pass);
	if (split) snprintf(note + strlen(note), sizeof note - strlen(note), "; %dn bases made once in %.0f ms", split, split_ms);
	report(what, sz, ms, runs, note);
	cudaFree(db); cudaFree(ds); cudaFree(scratch);
	free(table); free(idx); free(s); free(acc);
}

/* "24G", "24GiB", "24576M", "25769803776": bytes; -1 when not a size */
static long long size_of(const char *s)
{
	char *e;
	unsigned long long v = strtoull(s, &e, 10);
	int sh = 0;
	if (e == s || *s == '-')
		return -1;
	switch (*e) {
	case 'k': case 'K': sh = 10; e++; break;
	case 'm': case 'M': sh = 20; e++; break;
	case 'g': case 'G': sh = 30; e++; break;
	case 't': case 'T': sh = 40; e++; break;
	}
	if (sh && *e == 'i')
		e++;
	if (sh && *e == 'B')
		e++;
	if (*e || v > (1ull << 62) >> sh)
		return -1;
	return (long long)(v << sh);
}

/* GPU_MEMORY / --gpu-memory=: hold all but cap bytes of the card (tot - cap, at most what is free) */
static void cap_memory(const char *spec)
{
	long long cap = size_of(spec);
	if (cap < 0 || (cap && cap < (1ll << 30))) {
		fprintf(stderr, "gpu_bench: GPU memory cap '%s': 0 or a size from 1G (24G, 24GiB, 24576M, bytes)\n", spec);
		exit(2);
	}
	if (!cap)
		return;
	size_t fr = 0, tot = 0;
	void *ballast = NULL;
	CU(cudaMemGetInfo(&fr, &tot));
	size_t hold = (size_t)cap < tot ? tot - (size_t)cap : 0;
	hold = hold < fr ? hold : fr;
	if (hold)
		CU(cudaMalloc(&ballast, hold)); /* held to the end of the process */
	printf("device memory capped at %.2f GiB of the card's %.2f GiB (%.2f GiB held by gpu_bench, %.2f GiB used by others)\n",
	       cap / 1073741824.0, tot / 1073741824.0, hold / 1073741824.0, (tot - fr) / 1073741824.0);
}

int main(int argc, char **argv)
{
	const char *cap = getenv("GPU_MEMORY");
	if (argc > 1 && !strncmp(argv[1], "--gpu-memory=", 13)) {
		cap = argv[1] + 13;
		argv++, argc--;
	}
	if (cap && *cap) { /* before the first CUDA call: anything reading the knob sees it */
		long long b = size_of(cap);
		char mb[32];
		snprintf(mb, sizeof mb, "%lld", b > 0 ? b >> 20 : 0);
		setenv("ZP_CUDA_MEM_CAP_MB", mb, 1);
	}
	const char *all[] = { "ntt:24", "ntt:27", "h:27", "g1:24", "g1:26", "g1:27", "g2:24", "g2:25", "bits:27" };
	char desc[256];
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) { printf("no CUDA device: skip\n"); return 77; }
	CK(zp_cuda_init(0, desc, sizeof desc));
	ref_init();
	CU(cudaEventCreate(&e0)); CU(cudaEventCreate(&e1));
	if (cap && *cap)
		cap_memory(cap);
	printf("device: %s\n\n| what | size | median ms | min ms | max ms | note\n|---|---|---|---|---|---|\n", desc);
	int nc = argc > 1 ? argc - 1 : (int)(sizeof all / sizeof all[0]);
	for (int i = 0; i < nc; i++) {
		const char *c = argc > 1 ? argv[i + 1] : all[i];
		char kind[16] = ""; unsigned lg = 0, win = 0, pass = 0;
		if (sscanf(c, "%15[a-z0-9]:%u:%u:%u", kind, &lg, &win, &pass) < 2) { fprintf(stderr, "bad case %s\n", c); return 1; }
		if (!strcmp(kind, "ntt")) bench_ntt(lg, 0, 0, 0);
		else if (!strcmp(kind, "intt")) bench_ntt(lg, 0, 1, 0);
		else if (!strcmp(kind, "cntt")) bench_ntt(lg, 0, 0, 1);
		else if (!strcmp(kind, "cintt")) bench_ntt(lg, 0, 1, 1);
		else if (!strcmp(kind, "h")) bench_ntt(lg, 1, 0, 0);
		else if (!strcmp(kind, "g1")) bench_msm(0, lg, 0, win, pass, 0);
		else if (!strcmp(kind, "g2")) bench_msm(1, lg, 0, win, pass, 0);
		else if (!strcmp(kind, "g1s")) bench_msm(0, lg, 0, win, 0, 4);
		else if (!strcmp(kind, "g2s")) bench_msm(1, lg, 0, win, 0, 4);
		else if (!strcmp(kind, "g1h")) bench_msm(0, lg, 0, win, 0, 2);
		else if (!strcmp(kind, "g1g")) bench_msm(0, lg, 0, win, pass, -1);
		else if (!strcmp(kind, "g2h")) bench_msm(1, lg, 0, win, 0, 2);
		else if (!strcmp(kind, "bits")) bench_msm(0, lg, 1, win, 0, 0);
		else if (!strcmp(kind, "bits2")) bench_msm(1, lg, 1, win, 0, 0);
	}
	return 0;
}
