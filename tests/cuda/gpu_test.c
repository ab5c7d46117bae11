/*
 * gpu_test.c — GPU results against the CPU, bit for bit: field ops, point ops, NTT (plain,
 * coset, inverse, Groth16 H step), MSM G1/G2 (random, all-ones, all-zeros, 0/1-heavy, 0/1 fast
 * path). Small sizes against a direct CPU computation; large sizes against bases of known
 * discrete log (P_i = k_i·G, so sum s_i·P_i = (sum s_i·k_i)·G). Prints one table row per check.
 * Two CPU oracles: the project's CPU library (common/: field, fp2, ntt, msm), which the GPU must
 * match bit for bit, and ref.c, an independent small reference (also checked against common/).
 * Usage: gpu_test [max_log_msm_g1] [max_log_msm_g2] [max_log_ntt]. Exit 0 pass, 1 fail, 77 no GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "zp_cuda.h"
#include "zp_err.h"
#include "ref.h"
#include "field.h"
#include "fp2.h"
#include "ec.h"
#include "msm.h"
#include "ntt.h"

static int failures;
static uint64_t rng[4] = { 0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull, 0x2545f4914f6cdd1dull };

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static void row(const char *what, const char *size, int ok, const char *note)
{
	printf("| %-34s | %-10s | %-4s | %s\n", what, size, ok ? "PASS" : "FAIL", note ? note : "");
	fflush(stdout);
	if (!ok) failures++;
}
#define CK(x) do { int rc_ = (x); if (rc_ < 0) { fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #x, zp_err_msg()); exit(1); } } while (0)
#define CU(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

static void *xmalloc(size_t n) { void *p = malloc(n); if (!p) { perror("malloc"); exit(1); } return p; }

/* ---- field and point ops ---- */
static void fill_fp(zp_fp *v, size_t n)
{
	for (size_t i = 0; i < n; i++) ref_fp_random(&v[i], rng);
	/* edge values: 0, 1 (raw), p-1 (raw), Montgomery one */
	if (n > 4) {
		memset(&v[0], 0, sizeof(zp_fp));
		memset(&v[1], 0, sizeof(zp_fp)); v[1].l[0] = 1;
		zp_fp z = { { 0 } }, one = { { 1 } };
		ref_fp_sub(&v[2], &z, &one);
		v[3] = REF_FP_ONE;
	}
}
static void fill_fr(zp_fr *v, size_t n)
{
	for (size_t i = 0; i < n; i++) ref_fr_random(&v[i], rng);
	if (n > 4) {
		memset(&v[0], 0, sizeof(zp_fr));
		memset(&v[1], 0, sizeof(zp_fr)); v[1].l[0] = 1;
		zp_fr z = { { 0 } }, one = { { 1 } };
		ref_fr_sub(&v[2], &z, &one);
		v[3] = REF_FR_ONE;
	}
}

static void test_field(size_t n)
{
	char sz[32];
	snprintf(sz, sizeof sz, "%zu", n);
	zp_fp *a = xmalloc(n * 96), *b = xmalloc(n * 96), *g = xmalloc(n * 96), *c = xmalloc(n * 96);
	fill_fp(a, 2 * n); fill_fp(b, 2 * n);
	/* b[4] = a[4] etc. to hit equal operands */
	b[4] = a[4]; b[0] = a[2];
	struct { enum zp_cuda_op op; const char *name; } fps[] = {
		{ ZP_CUDA_FP_ADD, "Fp add" }, { ZP_CUDA_FP_SUB, "Fp sub" }, { ZP_CUDA_FP_MUL, "Fp mul" }, { ZP_CUDA_FP_SQR, "Fp sqr" } };
	zp_fp cc;
	for (int k = 0; k < 4; k++) {
		CK(zp_cuda_elementwise(fps[k].op, g, a, b, n));
		int ok = 1;
		for (size_t i = 0; i < n; i++) {
			switch (fps[k].op) {
			case ZP_CUDA_FP_ADD: ref_fp_add(&c[i], &a[i], &b[i]); zp_fp_add(&cc, &a[i], &b[i]); break;
			case ZP_CUDA_FP_SUB: ref_fp_sub(&c[i], &a[i], &b[i]); zp_fp_sub(&cc, &a[i], &b[i]); break;
			case ZP_CUDA_FP_MUL: ref_fp_mul(&c[i], &a[i], &b[i]); zp_fp_mul(&cc, &a[i], &b[i]); break;
			default: ref_fp_mul(&c[i], &a[i], &a[i]); zp_fp_sqr(&cc, &a[i]); break;
			}
			ok &= ref_fp_eq(&c[i], &g[i]) && ref_fp_eq(&cc, &g[i]);
		}
		row(fps[k].name, sz, ok, "vs ref.c and common/field.c");
	}
	/* Fp2: 2n Fp values read as n Fp2 */
	for (int k = 0; k < 2; k++) {
		CK(zp_cuda_elementwise(k ? ZP_CUDA_FP2_SQR : ZP_CUDA_FP2_MUL, g, a, b, n));
		int ok = 1;
		for (size_t i = 0; i < n; i++) {
			ref_fp2 r, *x = (ref_fp2 *)a + i, *y = (ref_fp2 *)b + i;
			zp_fp2 r2;
			if (k) { ref_fp2_sqr(&r, x); zp_fp2_sqr(&r2, (zp_fp2 *)x); }
			else { ref_fp2_mul(&r, x, y); zp_fp2_mul(&r2, (zp_fp2 *)x, (zp_fp2 *)y); }
			ok &= !memcmp(&r, (ref_fp2 *)g + i, sizeof r) && !memcmp(&r2, (ref_fp2 *)g + i, sizeof r);
		}
		row(k ? "Fp2 sqr" : "Fp2 mul", sz, ok, "vs ref.c and common/fp2.c");
	}
	zp_fr *fa = (zp_fr *)a, *fb = (zp_fr *)b, *fg = (zp_fr *)g, *fc = (zp_fr *)c;
	fill_fr(fa, n); fill_fr(fb, n);
	struct { enum zp_cuda_op op; const char *name; } frs[] = {
		{ ZP_CUDA_FR_ADD, "Fr add" }, { ZP_CUDA_FR_SUB, "Fr sub" }, { ZP_CUDA_FR_MUL, "Fr mul" }, { ZP_CUDA_FR_SQR, "Fr sqr" },
		{ ZP_CUDA_FR_FROM_MONT, "Fr from Montgomery" } };
	for (int k = 0; k < 5; k++) {
		CK(zp_cuda_elementwise(frs[k].op, fg, fa, fb, n));
		int ok = 1;
		for (size_t i = 0; i < n; i++) {
			switch (frs[k].op) {
			case ZP_CUDA_FR_ADD: ref_fr_add(&fc[i], &fa[i], &fb[i]); break;
			case ZP_CUDA_FR_SUB: ref_fr_sub(&fc[i], &fa[i], &fb[i]); break;
			case ZP_CUDA_FR_MUL: ref_fr_mul(&fc[i], &fa[i], &fb[i]); { zp_fr t; zp_fr_mul(&t, &fa[i], &fb[i]); ok &= !memcmp(&t, &fc[i], 32); } break;
			case ZP_CUDA_FR_SQR: ref_fr_mul(&fc[i], &fa[i], &fa[i]); break;
			default: ref_fr_from_mont(&fc[i], &fa[i]); break;
			}
			ok &= !memcmp(&fc[i], &fg[i], sizeof(zp_fr));
		}
		row(frs[k].name, sz, ok, "vs ref.c and common/field.c");
	}
	free(a); free(b); free(g); free(c);
}

/* random points k·G (affine) with their k (Montgomery) */
static void rand_g1(ref_g1a *p, size_t n)
{
	ref_g1 G, t;
	ref_g1_gen(&G);
	for (size_t i = 0; i < n; i++) {
		zp_fr k; ref_fr_random(&k, rng);
		ref_g1_mul(&t, &G, &k);
		ref_g1_to_affine(&p[i], &t);
	}
}
static void rand_g2(ref_g2a *p, size_t n)
{
	ref_g2 G, t;
	ref_g2_gen(&G);
	for (size_t i = 0; i < n; i++) {
		zp_fr k; ref_fr_random(&k, rng);
		ref_g2_mul(&t, &G, &k);
		ref_g2_to_affine(&p[i], &t);
	}
}

static void test_points(size_t n)
{
	char sz[32];
	snprintf(sz, sizeof sz, "%zu", n);
	ref_g1a *a = xmalloc(n * sizeof *a), *b = xmalloc(n * sizeof *b);
	ref_g1 *g = xmalloc(n * sizeof *g);
	rand_g1(a, n); rand_g1(b, n);
	b[1] = a[1];                              /* P + P */
	b[2] = a[2]; ref_fp_sub(&b[2].y, &(zp_fp){ { 0 } }, &a[2].y);   /* P + (-P) */
	memset(&b[3], 0, sizeof b[3]);            /* P + inf */
	memset(&a[4], 0, sizeof a[4]);            /* inf + Q */
	const char *names[3] = { "G1 add (xyzz+xyzz)", "G1 add mixed", "G1 dbl" };
	for (int k = 0; k < 3; k++) {
		CK(zp_cuda_elementwise(ZP_CUDA_G1_ADD + k, g, a, b, n));
		int ok = 1;
		for (size_t i = 0; i < n; i++) {
			ref_g1 pa, pb, r; ref_g1a ra, ga;
			ref_g1_from_affine(&pa, &a[i]); ref_g1_from_affine(&pb, &b[i]);
			if (k == 2) ref_g1_dbl(&r, &pa); else ref_g1_add(&r, &pa, &pb);
			ref_g1_to_affine(&ra, &r);
			ref_g1_to_affine(&ga, &g[i]);
			ok &= !memcmp(&ra, &ga, sizeof ra) && (i == 2 || i == 4 || ref_g1_on_curve(&ga) || k == 2);
		}
		row(names[k], sz, ok, "edge: P+P, P-P, P+inf, inf+Q");
	}
	free(a); free(b); free(g);
	ref_g2a *c = xmalloc(n * sizeof *c), *d = xmalloc(n * sizeof *d);
	ref_g2 *h = xmalloc(n * sizeof *h);
	rand_g2(c, n); rand_g2(d, n);
	d[1] = c[1];
	d[2] = c[2]; ref_fp_sub(&d[2].y.c0, &(zp_fp){ { 0 } }, &c[2].y.c0); ref_fp_sub(&d[2].y.c1, &(zp_fp){ { 0 } }, &c[2].y.c1);
	memset(&d[3], 0, sizeof d[3]);
	memset(&c[4], 0, sizeof c[4]);
	const char *names2[3] = { "G2 add (xyzz+xyzz)", "G2 add mixed", "G2 dbl" };
	for (int k = 0; k < 3; k++) {
		CK(zp_cuda_elementwise(ZP_CUDA_G2_ADD + k, h, c, d, n));
		int ok = 1;
		for (size_t i = 0; i < n; i++) {
			ref_g2 pa, pb, r; ref_g2a ra, ga;
			ref_g2_from_affine(&pa, &c[i]); ref_g2_from_affine(&pb, &d[i]);
			if (k == 2) ref_g2_dbl(&r, &pa); else ref_g2_add(&r, &pa, &pb);
			ref_g2_to_affine(&ra, &r);
			ref_g2_to_affine(&ga, &h[i]);
			ok &= !memcmp(&ra, &ga, sizeof ra) && (i == 2 || i == 4 || ref_g2_on_curve(&ga));
		}
		row(names2[k], sz, ok, "edge: P+P, P-P, P+inf, inf+Q");
	}
	free(c); free(d); free(h);
}

/* ---- NTT ---- */
static zp_cuda_ntt_ctx *ntt;

static int ntt_case(unsigned lg, int inverse, const zp_fr *shift, zp_fr *d)
{
	size_t n = (size_t)1 << lg;
	zp_fr *x = xmalloc(n * 32), *g = xmalloc(n * 32);
	fill_fr(x, n);
	CU(cudaMemcpy(d, x, n * 32, cudaMemcpyHostToDevice));
	CK(zp_cuda_ntt(ntt, d, lg, inverse, shift, NULL));
	CU(cudaDeviceSynchronize());
	CU(cudaMemcpy(g, d, n * 32, cudaMemcpyDeviceToHost));
	ref_ntt(x, lg, inverse, shift);
	int ok = !memcmp(x, g, n * 32);
	free(x); free(g);
	return ok;
}

static void test_ntt(unsigned max_log, unsigned cpu_log)
{
	zp_fr *d, seven;
	ref_fr_from_u64(&seven, 7);
	CU(cudaMalloc((void **)&d, ((size_t)1 << max_log) * 32));
	unsigned sizes[] = { 1, 2, 5, 9, 10, 13, 18, 20 };
	for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		unsigned lg = sizes[k];
		if (lg > cpu_log || lg > max_log) continue;
		char sz[16]; snprintf(sz, sizeof sz, "2^%u", lg);
		row("NTT forward", sz, ntt_case(lg, 0, NULL, d), "vs CPU radix-2 DIT");
		row("NTT inverse", sz, ntt_case(lg, 1, NULL, d), NULL);
		row("NTT coset forward (g=7)", sz, ntt_case(lg, 0, &seven, d), NULL);
		row("NTT coset inverse (g=7)", sz, ntt_case(lg, 1, &seven, d), NULL);
	}
	/* H step vs the CPU at a moderate size, both modes */
	for (int mode = 0; mode < 2; mode++) {
		unsigned lg = cpu_log < 16 ? cpu_log : 16;
		size_t n = (size_t)1 << lg;
		zp_fr *a = xmalloc(n * 32), *b = xmalloc(n * 32), *c = xmalloc(n * 32), *g = xmalloc(n * 32), *db, *dc, s;
		fill_fr(a, n); fill_fr(b, n); fill_fr(c, n);
		CU(cudaMalloc((void **)&db, n * 32)); CU(cudaMalloc((void **)&dc, n * 32));
		CU(cudaMemcpy(d, a, n * 32, cudaMemcpyHostToDevice));
		CU(cudaMemcpy(db, b, n * 32, cudaMemcpyHostToDevice));
		CU(cudaMemcpy(dc, c, n * 32, cudaMemcpyHostToDevice));
		CK(zp_cuda_groth16_h(ntt, d, db, dc, lg, mode, NULL));
		CU(cudaDeviceSynchronize());
		CU(cudaMemcpy(g, d, n * 32, cudaMemcpyDeviceToHost));
		if (mode == 0) s = seven; else ref_fr_omega(&s, lg + 1);
		zp_fr *v[3] = { a, b, c };
		for (int i = 0; i < 3; i++) { ref_ntt(v[i], lg, 1, NULL); ref_ntt(v[i], lg, 0, &s); }
		zp_fr zinv;
		ref_fr_pow(&zinv, &seven, n);
		ref_fr_sub(&zinv, &zinv, &REF_FR_ONE);
		ref_fr_inv(&zinv, &zinv);
		for (size_t i = 0; i < n; i++) {
			ref_fr_mul(&a[i], &a[i], &b[i]);
			ref_fr_sub(&a[i], &a[i], &c[i]);
			if (mode == 0) ref_fr_mul(&a[i], &a[i], &zinv);
		}
		if (mode == 0) ref_ntt(a, lg, 1, &s);
		char sz[16]; snprintf(sz, sizeof sz, "2^%u", lg);
		row(mode ? "Groth16 H (snarkjs, odd coset)" : "Groth16 H (bellperson, g=7)", sz, !memcmp(a, g, n * 32), "vs CPU");
		free(a); free(b); free(c); free(g); cudaFree(db); cudaFree(dc);
	}
	/* big sizes: round trip and spot evaluations X_k = sum x_j w^jk */
	for (unsigned lg = cpu_log + 1; lg <= max_log; lg += (lg < max_log - 1 ? (max_log - lg) / 2 + 1 : 1)) {
		size_t n = (size_t)1 << lg;
		zp_fr *x = xmalloc(n * 32), *g = xmalloc(n * 32);
		fill_fr(x, n);
		CU(cudaMemcpy(d, x, n * 32, cudaMemcpyHostToDevice));
		CK(zp_cuda_ntt(ntt, d, lg, 0, NULL, NULL));
		CU(cudaDeviceSynchronize());
		CU(cudaMemcpy(g, d, n * 32, cudaMemcpyDeviceToHost));
		int ok = 1;
		zp_fr w; ref_fr_omega(&w, lg);
		size_t ks[2] = { 1, (size_t)(ref_rng(rng) & (n - 1)) };
		for (int t = 0; t < 2; t++) {
			zp_fr wk, p = REF_FR_ONE, acc = { { 0 } }, m;
			ref_fr_pow(&wk, &w, ks[t]);
			for (size_t j = 0; j < n; j++) { ref_fr_mul(&m, &x[j], &p); ref_fr_add(&acc, &acc, &m); ref_fr_mul(&p, &p, &wk); }
			ok &= !memcmp(&acc, &g[ks[t]], 32);
		}
		CK(zp_cuda_ntt(ntt, d, lg, 1, NULL, NULL));
		CU(cudaDeviceSynchronize());
		CU(cudaMemcpy(g, d, n * 32, cudaMemcpyDeviceToHost));
		ok &= !memcmp(x, g, n * 32);
		char sz[16]; snprintf(sz, sizeof sz, "2^%u", lg);
		row("NTT fwd spot-check + inverse", sz, ok, "2 evaluations on CPU; iNTT(NTT(x)) == x");
		free(x); free(g);
	}
	cudaFree(d);
}

static size_t scratch_bytes;
static void *scratch;
static void ensure_scratch(size_t need)
{
	if (need <= scratch_bytes) return;
	cudaFree(scratch);
	CU(cudaMalloc(&scratch, need));
	scratch_bytes = need;
}

/* GPU vs common/ntt.c for both root families: plain, coset (7 and w_2n), inverse, both H steps. */
static void test_ntt_common(unsigned max_log)
{
	unsigned sizes[] = { 1, 4, 10, 16, 20 };
	for (int fam = 5; fam <= 7; fam += 2) {
		zp_cuda_ntt_ctx *g;
		CK(zp_cuda_ntt_create(&g, max_log + 1, fam));
		for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
			unsigned lg = sizes[k];
			if (lg > max_log) continue;
			size_t n = (size_t)1 << lg;
			zp_ntt_domain dom;
			CK(zp_ntt_domain_init_ex(&dom, lg, (enum zp_ntt_roots)fam, 0));
			zp_fr *x = xmalloc(3 * n * 32), *y = xmalloc(3 * n * 32), *d;
			CU(cudaMalloc((void **)&d, 3 * n * 32));
			char sz[16]; snprintf(sz, sizeof sz, "2^%u", lg);
			for (int op = 0; op < 6; op++) {
				fill_fr(x, 3 * n);
				CU(cudaMemcpy(d, x, 3 * n * 32, cudaMemcpyHostToDevice));
				const char *name = "";
				switch (op) {
				case 0: name = "NTT fwd"; zp_ntt_forward(&dom, x); CK(zp_cuda_ntt(g, d, lg, 0, NULL, NULL)); break;
				case 1: name = "NTT inv"; zp_ntt_inverse(&dom, x); CK(zp_cuda_ntt(g, d, lg, 1, NULL, NULL)); break;
				case 2: name = "NTT coset fwd g=7"; zp_ntt_coset_forward_gen(&dom, x); CK(zp_cuda_ntt(g, d, lg, 0, &dom.gen, NULL)); break;
				case 3: name = "NTT coset inv w_2n"; zp_ntt_coset_inverse_odd(&dom, x); CK(zp_cuda_ntt(g, d, lg, 1, &dom.omega_2n, NULL)); break;
				case 4: name = "H bellperson"; zp_ntt_h_bellperson(&dom, x, x + n, x + 2 * n);
					CK(zp_cuda_groth16_h(g, d, d + n, d + 2 * n, lg, ZP_CUDA_H_BELLPERSON, NULL)); break;
				case 5: name = "H snarkjs"; zp_ntt_h_snarkjs(&dom, x, x + n, x + 2 * n);
					CK(zp_cuda_groth16_h(g, d, d + n, d + 2 * n, lg, ZP_CUDA_H_SNARKJS, NULL)); break;
				}
				CU(cudaDeviceSynchronize());
				CU(cudaMemcpy(y, d, n * 32, cudaMemcpyDeviceToHost));
				char what[64]; snprintf(what, sizeof what, "%s (root %d)", name, fam);
				row(what, sz, !memcmp(x, y, n * 32), "vs common/ntt.c");
			}
			cudaFree(d); free(x); free(y);
			zp_ntt_domain_free(&dom);
		}
		zp_cuda_ntt_destroy(g);
	}
}

/* GPU vs common/msm.c on random points (k·G) and random / 0-1-heavy scalars. */
static void test_msm_common(unsigned lg, int g2, int heavy)
{
	size_t n = (size_t)1 << lg;
	size_t psz = g2 ? sizeof(zp_g2_affine) : sizeof(zp_g1_affine);
	void *p = xmalloc(n * psz), *db;
	zp_fr *s = xmalloc(n * 32), *ds;
	if (g2) rand_g2(p, n); else rand_g1(p, n);
	if (n > 5) memset((char *)p + 5 * psz, 0, psz);
	for (size_t i = 0; i < n; i++) {
		uint64_t r = ref_rng(rng);
		if (!heavy || r % 10 == 0) ref_fr_random(&s[i], rng);
		else if (r & 16) s[i] = REF_FR_ONE; else memset(&s[i], 0, 32);
	}
	CU(cudaMalloc(&db, n * psz)); CU(cudaMalloc((void **)&ds, n * 32));
	CU(cudaMemcpy(db, p, n * psz, cudaMemcpyHostToDevice)); CU(cudaMemcpy(ds, s, n * 32, cudaMemcpyHostToDevice));
	size_t cs = g2 ? zp_msm_g2_scratch_size(n) : zp_msm_g1_scratch_size(n);
	void *cscr = xmalloc(cs);
	ensure_scratch(zp_cuda_msm_scratch_size(g2, n, 0));
	int ok = 1;
	/* all windows in one pass, then in passes of 1 and 4 windows (the scratch-bounded form) */
	static const unsigned passes[] = { 0, 1, 4 };
	if (g2) {
		zp_g2_jac c, gg; zp_g2_affine ca, ga;
		CK(zp_msm_g2(&c, p, s, n, cscr, cs));
		zp_g2_jac_to_affine(&ca, &c);
		for (int k = 0; k < 3; k++) {
			zp_cuda_msm_opts o = { .pass_windows = passes[k] };
			CK(zp_cuda_msm_g2((zp_cuda_g2_jac *)&gg, db, ds, n, scratch, scratch_bytes, &o));
			zp_g2_jac_to_affine(&ga, &gg);
			ok &= !memcmp(&ca, &ga, sizeof ca);
		}
	} else {
		zp_g1_jac c, gg; zp_g1_affine ca, ga;
		CK(zp_msm_g1(&c, p, s, n, cscr, cs));
		zp_g1_jac_to_affine(&ca, &c);
		for (int k = 0; k < 3; k++) {
			zp_cuda_msm_opts o = { .pass_windows = passes[k] };
			CK(zp_cuda_msm_g1((zp_cuda_g1_jac *)&gg, db, ds, n, scratch, scratch_bytes, &o));
			zp_g1_jac_to_affine(&ga, &gg);
			ok &= !memcmp(&ca, &ga, sizeof ca);
		}
	}
	/* the split MSM over 4n and 2n precomputed bases, auto and 9-bit windows (8 / 15 windows: carries) */
	int sok = 1;
	for (unsigned parts = 2; parts <= 4; parts += 2) {
		void *db4, *bs;
		size_t bss = zp_cuda_msm_split_bases_scratch_size(g2, n);
		CU(cudaMalloc(&db4, parts * n * psz)); CU(cudaMalloc(&bs, bss));
		CK(g2 ? zp_cuda_msm_g2_split_bases(db4, db, n, parts, bs, bss, NULL)
		      : zp_cuda_msm_g1_split_bases(db4, db, n, parts, bs, bss, NULL));
		CU(cudaDeviceSynchronize());
		static const unsigned swin[] = { 0, 9 };
		for (int k = 0; k < 2; k++) {
			zp_cuda_msm_opts o = { .window = swin[k] };
			ensure_scratch(zp_cuda_msm_split_scratch_size(g2, n, parts, swin[k], 0));
			if (g2) {
				zp_g2_jac c, gg; zp_g2_affine ca, ga;
				CK(zp_msm_g2(&c, p, s, n, cscr, cs)); zp_g2_jac_to_affine(&ca, &c);
				CK(zp_cuda_msm_g2_split((zp_cuda_g2_jac *)&gg, db4, ds, n, parts, scratch, scratch_bytes, &o));
				zp_g2_jac_to_affine(&ga, &gg);
				sok &= !memcmp(&ca, &ga, sizeof ca);
			} else {
				zp_g1_jac c, gg; zp_g1_affine ca, ga;
				CK(zp_msm_g1(&c, p, s, n, cscr, cs)); zp_g1_jac_to_affine(&ca, &c);
				CK(zp_cuda_msm_g1_split((zp_cuda_g1_jac *)&gg, db4, ds, n, parts, scratch, scratch_bytes, &o));
				zp_g1_jac_to_affine(&ga, &gg);
				sok &= !memcmp(&ca, &ga, sizeof ca);
			}
		}
		cudaFree(db4); cudaFree(bs);
	}
	char what[64], sz[16];
	snprintf(what, sizeof what, "MSM %s %s", g2 ? "G2" : "G1", heavy ? "0/1-heavy (90%)" : "random");
	snprintf(sz, sizeof sz, "2^%u", lg);
	row(what, sz, ok, "vs common/msm.c (random points, one at infinity); windows in 1 pass, passes of 1 and 4");
	snprintf(what, sizeof what, "MSM %s split bases %s", g2 ? "G2" : "G1", heavy ? "0/1-heavy (90%)" : "random");
	row(what, sz, sok, "zp_cuda_msm_g*_split, 4 and 2 parts, vs common/msm.c; auto and 9-bit windows");
	cudaFree(db); cudaFree(ds); free(p); free(s); free(cscr);
}

/* The ones list (zp_cuda_ones) and its sum (zp_cuda_msm_g*_sum_idx) against common/msm.c over
 * 0/1 scalars that keep only the ones of a 0/1-heavy vector, from index lo (idx_off = lo). */
static void test_sum_idx(unsigned lg, int g2, size_t lo)
{
	size_t n = (size_t)1 << lg;
	size_t psz = g2 ? sizeof(zp_g2_affine) : sizeof(zp_g1_affine);
	void *p = xmalloc(n * psz), *db;
	zp_fr *s = xmalloc(n * 32), *m = xmalloc(n * 32), *ds;
	uint32_t *didx;
	if (g2) rand_g2(p, n); else rand_g1(p, n);
	for (size_t i = 0; i < n; i++) {
		uint64_t r = ref_rng(rng);
		if (r % 10 == 0) ref_fr_random(&s[i], rng);
		else if (r & 16) s[i] = REF_FR_ONE; else memset(&s[i], 0, 32);
		if (i >= lo && !memcmp(&s[i], &REF_FR_ONE, 32)) m[i] = REF_FR_ONE; else memset(&m[i], 0, 32);
	}
	CU(cudaMalloc(&db, n * psz)); CU(cudaMalloc((void **)&ds, n * 32)); CU(cudaMalloc((void **)&didx, n * 4));
	CU(cudaMemcpy(db, p, n * psz, cudaMemcpyHostToDevice)); CU(cudaMemcpy(ds, s, n * 32, cudaMemcpyHostToDevice));
	size_t tl = zp_cuda_nonbits_temp_size(n), cnt = 0, expect = 0, q = 0;
	void *tmp;
	CU(cudaMalloc(&tmp, tl));
	CK(zp_cuda_ones(didx, &cnt, ds, n, tmp, tl, NULL));
	uint32_t *hidx = xmalloc(n * 4);
	CU(cudaMemcpy(hidx, didx, n * 4, cudaMemcpyDeviceToHost));
	int ok = 1;
	for (size_t i = 0, k = 0; i < n; i++)
		if (!memcmp(&s[i], &REF_FR_ONE, 32)) { ok &= k < cnt && hidx[k] == i; k++; expect++; }
	ok &= cnt == expect;
	while (q < cnt && hidx[q] < lo) q++;
	size_t cs = g2 ? zp_msm_g2_scratch_size(n) : zp_msm_g1_scratch_size(n);
	void *cscr = xmalloc(cs);
	ensure_scratch(zp_cuda_msm_bits_scratch_size(g2, n));
	if (g2) {
		zp_g2_jac c, gg; zp_g2_affine ca, ga;
		CK(zp_msm_g2(&c, p, m, n, cscr, cs));
		CK(zp_cuda_msm_g2_sum_idx((zp_cuda_g2_jac *)&gg, (const void *)((char *)db + lo * psz), didx + q, cnt - q,
		                          (uint32_t)lo, scratch, scratch_bytes, NULL));
		zp_g2_jac_to_affine(&ca, &c); zp_g2_jac_to_affine(&ga, &gg);
		ok &= !memcmp(&ca, &ga, sizeof ca);
	} else {
		zp_g1_jac c, gg; zp_g1_affine ca, ga;
		CK(zp_msm_g1(&c, p, m, n, cscr, cs));
		CK(zp_cuda_msm_g1_sum_idx((zp_cuda_g1_jac *)&gg, (const void *)((char *)db + lo * psz), didx + q, cnt - q,
		                          (uint32_t)lo, scratch, scratch_bytes, NULL));
		zp_g1_jac_to_affine(&ca, &c); zp_g1_jac_to_affine(&ga, &gg);
		ok &= !memcmp(&ca, &ga, sizeof ca);
	}
	char what[64], sz[16];
	snprintf(what, sizeof what, "ones list + sum %s (from %zu)", g2 ? "G2" : "G1", lo);
	snprintf(sz, sizeof sz, "2^%u", lg);
	row(what, sz, ok, "list vs host scan; sum vs common/msm.c on the ones");
	cudaFree(db); cudaFree(ds); cudaFree(didx); cudaFree(tmp); free(p); free(s); free(m); free(hidx); free(cscr);
}

/* ---- MSM ---- */
enum sk { SK_RANDOM, SK_ONES, SK_ZEROS, SK_01HEAVY, SK_BITS };
static const char *sk_name[] = { "random", "all ones", "all zeros", "0/1-heavy (90%)", "0/1 fast path" };

static void fill_scalars(zp_fr *s, size_t n, enum sk kind)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t r = ref_rng(rng);
		switch (kind) {
		case SK_RANDOM: ref_fr_random(&s[i], rng); break;
		case SK_ONES: s[i] = REF_FR_ONE; break;
		case SK_ZEROS: memset(&s[i], 0, 32); break;
		case SK_01HEAVY: if (r % 10 == 0) ref_fr_random(&s[i], rng); else if (r & 16) s[i] = REF_FR_ONE; else memset(&s[i], 0, 32); break;
		case SK_BITS: if (r & 16) s[i] = REF_FR_ONE; else memset(&s[i], 0, 32); break;
		}
	}
}

#define TABLE 4096
/* Table T_j = (a + j·delta)·G, j < TABLE; bases P_i = T[idx_i]; expected = (sum s_i·k_i)·G. */
typedef struct { zp_fr a, delta; } dlog;

static void make_table_g1(ref_g1a *t, dlog *dl)
{
	ref_g1 G, A, D;
	ref_fr_random(&dl->a, rng); ref_fr_random(&dl->delta, rng);
	zp_fr pa, pd;
	ref_fr_from_mont(&pa, &dl->a); ref_fr_from_mont(&pd, &dl->delta);
	ref_g1_gen(&G); ref_g1_mul(&A, &G, &pa); ref_g1_mul(&D, &G, &pd);
	for (size_t j = 0; j < TABLE; j++) { ref_g1_to_affine(&t[j], &A); ref_g1_add(&A, &A, &D); }
}
static void make_table_g2(ref_g2a *t, dlog *dl)
{
	ref_g2 G, A, D;
	ref_fr_random(&dl->a, rng); ref_fr_random(&dl->delta, rng);
	zp_fr pa, pd;
	ref_fr_from_mont(&pa, &dl->a); ref_fr_from_mont(&pd, &dl->delta);
	ref_g2_gen(&G); ref_g2_mul(&A, &G, &pa); ref_g2_mul(&D, &G, &pd);
	for (size_t j = 0; j < TABLE; j++) { ref_g2_to_affine(&t[j], &A); ref_g2_add(&A, &A, &D); }
}
/* sum s_i·(a + idx_i·delta), returned as a plain integer */
static void expected_scalar(zp_fr *out, const zp_fr *s, const uint32_t *idx, size_t n, const dlog *dl)
{
	zp_fr sum = { { 0 } }, jj, k, m;
	/* group by idx: sum_s[j] then sum_j sum_s[j]·k_j */
	zp_fr *acc = calloc(TABLE, 32);
	for (size_t i = 0; i < n; i++) ref_fr_add(&acc[idx[i]], &acc[idx[i]], &s[i]);
	for (size_t j = 0; j < TABLE; j++) {
		ref_fr_from_u64(&jj, j);
		ref_fr_mul(&k, &jj, &dl->delta);
		ref_fr_add(&k, &k, &dl->a);
		ref_fr_mul(&m, &acc[j], &k);
		ref_fr_add(&sum, &sum, &m);
	}
	/* sum is Montgomery(s)·Montgomery(k)·R^-1 = Montgomery(s·k) */
	ref_fr_from_mont(out, &sum);
	free(acc);
}

static void test_msm_g1(unsigned lg, enum sk kind, int direct)
{
	size_t n = (size_t)1 << lg;
	if (lg == 0) n = 1;
	char sz[16]; snprintf(sz, sizeof sz, "2^%u", lg);
	zp_fr *s = xmalloc(n * 32);
	fill_scalars(s, n, kind);
	zp_cuda_g1_aff *db; zp_fr *ds; uint32_t *didx;
	CU(cudaMalloc((void **)&db, n * sizeof(zp_cuda_g1_aff)));
	CU(cudaMalloc((void **)&ds, n * 32));
	CU(cudaMemcpy(ds, s, n * 32, cudaMemcpyHostToDevice));
	ref_g1 expect;
	double t0 = now();
	if (direct) {
		ref_g1a *p = xmalloc(n * sizeof *p);
		rand_g1(p, n);
		if (n > 3) memset(&p[3], 0, sizeof p[3]);       /* a base at infinity */
		CU(cudaMemcpy(db, p, n * sizeof *p, cudaMemcpyHostToDevice));
		memset(&expect, 0, sizeof expect);
		for (size_t i = 0; i < n; i++) {
			ref_g1 t, P; zp_fr k;
			ref_fr_from_mont(&k, &s[i]);
			ref_g1_from_affine(&P, &p[i]);
			ref_g1_mul(&t, &P, &k);
			ref_g1_add(&expect, &expect, &t);
		}
		free(p);
	} else {
		static ref_g1a table[TABLE];
		dlog dl;
		make_table_g1(table, &dl);
		uint32_t *idx = xmalloc(n * 4);
		for (size_t i = 0; i < n; i++) idx[i] = ref_rng(rng) % TABLE;
		zp_cuda_g1_aff *dt;
		CU(cudaMalloc((void **)&dt, sizeof table));
		CU(cudaMalloc((void **)&didx, n * 4));
		CU(cudaMemcpy(dt, table, sizeof table, cudaMemcpyHostToDevice));
		CU(cudaMemcpy(didx, idx, n * 4, cudaMemcpyHostToDevice));
		CK(zp_cuda_g1_gather(db, dt, didx, n));
		CU(cudaDeviceSynchronize());
		zp_fr e; expected_scalar(&e, s, idx, n, &dl);
		ref_g1 G; ref_g1_gen(&G); ref_g1_mul(&expect, &G, &e);
		cudaFree(dt); cudaFree(didx); free(idx);
	}
	double t1 = now();
	ensure_scratch(zp_cuda_msm_scratch_size(0, n, 0));
	zp_cuda_g1_jac out;
	double t2 = now();
	if (kind == SK_BITS) CK(zp_cuda_msm_g1_bits(&out, db, ds, n, scratch, scratch_bytes, NULL));
	else CK(zp_cuda_msm_g1(&out, db, ds, n, scratch, scratch_bytes, NULL));
	double t3 = now();
	ref_g1a ea, ga;
	ref_g1_to_affine(&ea, &expect);
	ref_g1_to_affine(&ga, (ref_g1 *)&out);
	char note[128];
	snprintf(note, sizeof note, "%s; cpu %.1fs gpu %.3fs", direct ? "vs CPU sum of s_i·P_i" : "known dlog", t1 - t0, t3 - t2);
	char what[64]; snprintf(what, sizeof what, "MSM G1 %s", sk_name[kind]);
	row(what, sz, !memcmp(&ea, &ga, sizeof ea), note);
	cudaFree(db); cudaFree(ds); free(s);
}

/* ---- the GLV MSM (zp_cuda_msm_g1_glv, and zp_cuda_msm_g1's automatic choice of it) ----
 * Scalars of every shape the cut must survive: 0, 1, r − 1, the cut's edges (λ − 1, λ, λ + 1, λ², 2^128,
 * r − 2^128), all 255 bits (2^255 − 1 mod r), sparse (95 % zero), 0/1-heavy, 64-bit, random. */
enum gk { GK_RANDOM, GK_ZEROS, GK_ONES, GK_RM1, GK_EDGES, GK_ALLBITS, GK_SPARSE, GK_HEAVY, GK_SMALL, GK_N };
static const char *gk_name[] = { "random", "all 0", "all 1", "all r-1", "cut edges", "all bits", "sparse 5%",
                                 "0/1-heavy", "64-bit" };
/* Montgomery form of a plain 4-limb integer (< r) */
static void glv_mont(zp_fr *o, const uint64_t v[4])
{
	zp_fr t32, t64, acc = { { 0 } }, l;
	ref_fr_from_u64(&t32, 1ull << 32);
	ref_fr_mul(&t64, &t32, &t32);
	for (int i = 3; i >= 0; i--) {
		ref_fr_mul(&acc, &acc, &t64);
		ref_fr_from_u64(&l, v[i]);
		ref_fr_add(&acc, &acc, &l);
	}
	*o = acc;
}
static void fill_glv(zp_fr *s, size_t n, enum gk kind)
{
	static const uint64_t R_[4] = { 0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL };
	const uint64_t L0 = 0x00000000ffffffffULL, L1 = 0xac45a4010001a402ULL;
	/* λ² = r − λ − 1 */
	uint64_t l2[4] = { R_[0] - L0 - 1, R_[1] - L1 - (R_[0] < L0 + 1), R_[2], R_[3] };
	uint64_t edges[11][4] = { { 0 }, { 1 }, { R_[0] - 1, R_[1], R_[2], R_[3] }, { L0 - 1, L1 }, { L0, L1 }, { L0 + 1, L1 },
	                          { l2[0], l2[1], l2[2], l2[3] }, { 0, 0, 1, 0 }, { R_[0], R_[1], R_[2] - 1, R_[3] },
	                          { 0, 0, 0, 1ull << 62 }, { ~0ull, ~0ull, 0, 0 } };
	zp_fr em[11], rm1, allb;
	for (int i = 0; i < 11; i++) glv_mont(&em[i], edges[i]);
	rm1 = em[2];
	{ /* 2^255 − 1 mod r = 2^255 − 1 − r (r < 2^255 < 2r) */
		uint64_t a[4] = { ~0ull, ~0ull, ~0ull, ~0ull >> 1 }, d[4], br = 0;
		for (int i = 0; i < 4; i++) { unsigned __int128 t = (unsigned __int128)a[i] - R_[i] - br; d[i] = (uint64_t)t; br = (uint64_t)(t >> 64) ? 1 : 0; }
		glv_mont(&allb, d);
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t r = ref_rng(rng);
		switch (kind) {
		case GK_RANDOM: ref_fr_random(&s[i], rng); break;
		case GK_ZEROS: memset(&s[i], 0, 32); break;
		case GK_ONES: s[i] = REF_FR_ONE; break;
		case GK_RM1: s[i] = rm1; break;
		case GK_EDGES: if (r % 12 < 11) s[i] = em[r % 12]; else ref_fr_random(&s[i], rng); break;
		case GK_ALLBITS: s[i] = allb; break;
		case GK_SPARSE: if (r % 20 == 0) ref_fr_random(&s[i], rng); else memset(&s[i], 0, 32); break;
		case GK_HEAVY: if (r % 10 == 0) ref_fr_random(&s[i], rng); else if (r & 16) s[i] = REF_FR_ONE; else memset(&s[i], 0, 32); break;
		default: { uint64_t v[4] = { ref_rng(rng), 0, 0, 0 }; glv_mont(&s[i], v); } break;
		}
	}
}
/* GLV = plain (explicit window, so no GLV) = known dlog, bit for bit (affine); passes of 1, 2 and all
 * windows; and zp_cuda_msm_g1 with an automatic window (GLV by itself from 2^ZP_MSM_GLV). */
static void test_msm_glv(unsigned lg, enum gk kind)
{
	size_t n = (size_t)1 << lg;
	char sz[16]; snprintf(sz, sizeof sz, "2^%u", lg);
	zp_fr *s = xmalloc(n * 32);
	fill_glv(s, n, kind);
	static ref_g1a table[TABLE];
	dlog dl;
	make_table_g1(table, &dl);
	uint32_t *idx = xmalloc(n * 4), *didx;
	for (size_t i = 0; i < n; i++) idx[i] = ref_rng(rng) % TABLE;
	if (n > 5) idx[5] = 0;
	zp_cuda_g1_aff *db, *dt; zp_fr *ds;
	CU(cudaMalloc((void **)&db, n * sizeof(zp_cuda_g1_aff)));
	CU(cudaMalloc((void **)&ds, n * 32));
	CU(cudaMalloc((void **)&dt, sizeof table));
	CU(cudaMalloc((void **)&didx, n * 4));
	CU(cudaMemcpy(ds, s, n * 32, cudaMemcpyHostToDevice));
	CU(cudaMemcpy(dt, table, sizeof table, cudaMemcpyHostToDevice));
	CU(cudaMemcpy(didx, idx, n * 4, cudaMemcpyHostToDevice));
	CK(zp_cuda_g1_gather(db, dt, didx, n));
	CU(cudaDeviceSynchronize());
	zp_fr e; expected_scalar(&e, s, idx, n, &dl);
	ref_g1 G, expect; ref_g1_gen(&G); ref_g1_mul(&expect, &G, &e);
	ref_g1a ea; ref_g1_to_affine(&ea, &expect);
	int ok = 1;
	char bad[96] = "";
	unsigned passes[3] = { 0, 1, 2 };
	for (int k = 0; k < 3; k++) {
		zp_cuda_msm_opts o = { .pass_windows = passes[k] };
		ensure_scratch(zp_cuda_msm_split_scratch_size(0, n, 2, 0, passes[k]));
		zp_cuda_g1_jac out;
		memset(&out, 0x5a, sizeof out);
		CK(zp_cuda_msm_g1_glv(&out, db, ds, n, scratch, scratch_bytes, &o));
		ref_g1a ga; ref_g1_to_affine(&ga, (ref_g1 *)&out);
		if (memcmp(&ea, &ga, sizeof ea)) { ok = 0; snprintf(bad, sizeof bad, "; GLV passes %u WRONG", passes[k]); }
	}
	{ /* the plain MSM (explicit window: never GLV) and the automatic choice */
		zp_cuda_msm_opts o = { .window = lg > 8 ? lg - 4 : 6 };
		ensure_scratch(zp_cuda_msm_scratch_size(0, n, o.window));
		zp_cuda_g1_jac out;
		CK(zp_cuda_msm_g1(&out, db, ds, n, scratch, scratch_bytes, &o));
		ref_g1a ga; ref_g1_to_affine(&ga, (ref_g1 *)&out);
		if (memcmp(&ea, &ga, sizeof ea)) { ok = 0; snprintf(bad, sizeof bad, "; plain WRONG"); }
		ensure_scratch(zp_cuda_msm_split_scratch_size(0, n, 2, 0, 0));
		ensure_scratch(zp_cuda_msm_scratch_size(0, n, 0));
		CK(zp_cuda_msm_g1(&out, db, ds, n, scratch, scratch_bytes, NULL));
		ref_g1_to_affine(&ga, (ref_g1 *)&out);
		if (memcmp(&ea, &ga, sizeof ea)) { ok = 0; snprintf(bad, sizeof bad, "; automatic WRONG"); }
	}
	char what[64], note[160];
	snprintf(what, sizeof what, "MSM G1 GLV %s", gk_name[kind]);
	snprintf(note, sizeof note, "known dlog = GLV (passes all/1/2) = plain = zp_cuda_msm_g1 auto%s", bad);
	row(what, sz, ok, note);
	cudaFree(db); cudaFree(ds); cudaFree(dt); cudaFree(didx); free(s); free(idx);
}

/* The density bits (zp_cuda_nonzero_bits: G1 and G2 point sizes, some points at infinity, n not a multiple
 * of 32) and the filter (zp_cuda_filter_idx, with an offset) against a host scan. */
static void test_density(size_t n, int g2, uint32_t off)
{
	size_t psz = g2 ? sizeof(zp_cuda_g2_aff) : sizeof(zp_cuda_g1_aff), words = (n + 31) / 32, cnt = 0, want = 0;
	unsigned char *p = xmalloc(n * psz);
	for (size_t i = 0; i < n * psz; i++) p[i] = (unsigned char)ref_rng(rng);
	for (size_t i = 0; i < n; i++)
		if (ref_rng(rng) % 3 == 0) memset(p + i * psz, 0, psz);
		else if (ref_rng(rng) % 7 == 0) { memset(p + i * psz, 0, psz); p[i * psz + psz - 1] = 1; }   /* one byte set */
	uint32_t *in = xmalloc(n * 4), *out = xmalloc(n * 4), *bits = xmalloc(words * 4), *d_in, *d_out, *d_bits;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) if (ref_rng(rng) & 1) in[m++] = (uint32_t)i + off;   /* ascending, as the lists */
	void *dp, *tmp;
	size_t tl = zp_cuda_filter_temp_size(n);
	CU(cudaMalloc(&dp, n * psz)); CU(cudaMalloc((void **)&d_in, n * 4)); CU(cudaMalloc((void **)&d_out, n * 4));
	CU(cudaMalloc((void **)&d_bits, words * 4)); CU(cudaMalloc(&tmp, tl));
	CU(cudaMemcpy(dp, p, n * psz, cudaMemcpyHostToDevice));
	CU(cudaMemcpy(d_in, in, m * 4, cudaMemcpyHostToDevice));
	CU(cudaMemset(d_bits, 0xa5, words * 4));
	CK(zp_cuda_nonzero_bits(d_bits, dp, n, psz, NULL));
	CK(zp_cuda_filter_idx(d_out, &cnt, d_in, m, d_bits, off, tmp, tl, NULL));
	CU(cudaMemcpy(bits, d_bits, words * 4, cudaMemcpyDeviceToHost));
	CU(cudaMemcpy(out, d_out, cnt * 4, cudaMemcpyDeviceToHost));
	int ok = 1;
	for (size_t i = 0; i < n && ok; i++) {
		int nz = 0;
		for (size_t k = 0; k < psz; k++) nz |= p[i * psz + k];
		if (((bits[i / 32] >> (i % 32)) & 1) != (nz != 0)) ok = 0;
	}
	for (size_t j = 0; j < m && ok; j++) {
		size_t i = in[j] - off;
		int nz = 0;
		for (size_t k = 0; k < psz; k++) nz |= p[i * psz + k];
		if (nz) { if (want >= cnt || out[want] != in[j]) ok = 0; want++; }
	}
	ok = ok && want == cnt;
	char sz[16], what[64], note[96];
	snprintf(sz, sizeof sz, "%zu", n);
	snprintf(what, sizeof what, "density bits + filter %s", g2 ? "G2" : "G1");
	snprintf(note, sizeof note, "vs host scan; %zu of %zu listed kept, offset %u", cnt, m, off);
	row(what, sz, ok, note);
	cudaFree(dp); cudaFree(d_in); cudaFree(d_out); cudaFree(d_bits); cudaFree(tmp);
	free(p); free(in); free(out); free(bits);
}

static void test_msm_g2(unsigned lg, enum sk kind, int direct)
{
	size_t n = (size_t)1 << lg;
	char sz[16]; snprintf(sz, sizeof sz, "2^%u", lg);
	zp_fr *s = xmalloc(n * 32);
	fill_scalars(s, n, kind);
	zp_cuda_g2_aff *db; zp_fr *ds; uint32_t *didx;
	CU(cudaMalloc((void **)&db, n * sizeof(zp_cuda_g2_aff)));
	CU(cudaMalloc((void **)&ds, n * 32));
	CU(cudaMemcpy(ds, s, n * 32, cudaMemcpyHostToDevice));
	ref_g2 expect;
	double t0 = now();
	if (direct) {
		ref_g2a *p = xmalloc(n * sizeof *p);
		rand_g2(p, n);
		if (n > 3) memset(&p[3], 0, sizeof p[3]);
		CU(cudaMemcpy(db, p, n * sizeof *p, cudaMemcpyHostToDevice));
		memset(&expect, 0, sizeof expect);
		for (size_t i = 0; i < n; i++) {
			ref_g2 t, P; zp_fr k;
			ref_fr_from_mont(&k, &s[i]);
			ref_g2_from_affine(&P, &p[i]);
			ref_g2_mul(&t, &P, &k);
			ref_g2_add(&expect, &expect, &t);
		}
		free(p);
	} else {
		static ref_g2a table[TABLE];
		dlog dl;
		make_table_g2(table, &dl);
		uint32_t *idx = xmalloc(n * 4);
		for (size_t i = 0; i < n; i++) idx[i] = ref_rng(rng) % TABLE;
		zp_cuda_g2_aff *dt;
		CU(cudaMalloc((void **)&dt, sizeof table));
		CU(cudaMalloc((void **)&didx, n * 4));
		CU(cudaMemcpy(dt, table, sizeof table, cudaMemcpyHostToDevice));
		CU(cudaMemcpy(didx, idx, n * 4, cudaMemcpyHostToDevice));
		CK(zp_cuda_g2_gather(db, dt, didx, n));
		CU(cudaDeviceSynchronize());
		zp_fr e; expected_scalar(&e, s, idx, n, &dl);
		ref_g2 G; ref_g2_gen(&G); ref_g2_mul(&expect, &G, &e);
		cudaFree(dt); cudaFree(didx); free(idx);
	}
	double t1 = now();
	ensure_scratch(zp_cuda_msm_scratch_size(1, n, 0));
	zp_cuda_g2_jac out;
	double t2 = now();
	if (kind == SK_BITS) CK(zp_cuda_msm_g2_bits(&out, db, ds, n, scratch, scratch_bytes, NULL));
	else CK(zp_cuda_msm_g2(&out, db, ds, n, scratch, scratch_bytes, NULL));
	double t3 = now();
	ref_g2a ea, ga;
	ref_g2_to_affine(&ea, &expect);
	ref_g2_to_affine(&ga, (ref_g2 *)&out);
	char note[128];
	snprintf(note, sizeof note, "%s; cpu %.1fs gpu %.3fs", direct ? "vs CPU sum of s_i·P_i" : "known dlog", t1 - t0, t3 - t2);
	char what[64]; snprintf(what, sizeof what, "MSM G2 %s", sk_name[kind]);
	row(what, sz, !memcmp(&ea, &ga, sizeof ea), note);
	cudaFree(db); cudaFree(ds); free(s);
}


/* ---- uploads (cuda/upload.c): many segments cut from one buffer at odd offsets, so that neighbours
 * share pages, each way and thread count, the buffer pageable and (PIN, WHOLE) registered by the
 * caller; the device bytes read back must equal the host's. A shared page registered by one piece
 * while the next copied through it was CUDA's "invalid argument" (a copy part registered). ---- */
static uint64_t rand_u64(void)
{
	static uint64_t st = 0x243f6a8885a308d3ull; /* its own: the other checks' data stays as it was */
	uint64_t x = st += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void test_upload(void)
{
	enum { NSEG = 61 };
	size_t tot = 0, len[NSEG];
	for (int i = 0; i < NSEG; i++)
		tot += len[i] = (i % 7 == 3) ? 0 : 1 + (size_t)(rand_u64() % (5 * 4096 + 123));
	unsigned char *h = xmalloc(tot + 8192), *back = xmalloc(tot + 8192);
	for (size_t i = 0; i < tot + 8192; i++)
		h[i] = (unsigned char)rand_u64();
	void *d;
	CU(cudaMalloc(&d, tot + 8192));
	static const struct { int how; size_t chunk; unsigned threads; int prereg, roll; } cfg[] = {
		{ ZP_CUDA_UP_PIN, 0, 0, 0, 0 }, { ZP_CUDA_UP_PIN, 4096, 1, 0, 0 }, { ZP_CUDA_UP_PIN, 4096, 8, 0, 0 },
		{ ZP_CUDA_UP_PIN, 4096, 8, 0, 1 }, { ZP_CUDA_UP_PIN, 3 * 4096, 4, 0, 1 }, { ZP_CUDA_UP_PIN, 8192, 3, 1, 0 },
		{ ZP_CUDA_UP_WHOLE, 0, 0, 0, 0 }, { ZP_CUDA_UP_WHOLE, 0, 0, 1, 0 }, { ZP_CUDA_UP_RING, 8192, 4, 0, 0 },
		{ ZP_CUDA_UP_AUTO, 0, 0, 0, 0 }, { ZP_CUDA_UP_PIN, 8192, 1, 0, 2 }, /* roll 2: keep the even segments */
	};
	for (unsigned c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
		for (int rep = 0; rep < 8; rep++) {
			size_t shift = (size_t)(rand_u64() % 4096), off = 0; /* the segments start anywhere in a page */
			zp_cuda_up_seg seg[NSEG];
			for (int i = 0; i < NSEG; i++) {
				/* the device order reversed against the host's: a piece landing in the wrong place shows */
				seg[i] = (zp_cuda_up_seg){ (char *)d + (tot - off - len[i]), h + shift + off, len[i],
							   cfg[c].roll == 2 && !(i & 1) };
				off += len[i];
			}
			int reg = cfg[c].prereg && cudaHostRegister(h, tot + 8192, cudaHostRegisterReadOnly) == cudaSuccess;
			CU(cudaMemset(d, 0, tot + 8192));
			zp_cuda_up_kept *kept = NULL;
			zp_cuda_up_opts o = { .how = cfg[c].how, .chunk = cfg[c].chunk, .threads = cfg[c].threads,
					      .roll = cfg[c].roll == 1, .kept = cfg[c].roll == 2 ? &kept : NULL };
			int rc = zp_cuda_upload(seg, NSEG, &o, NULL);
			int held = 1; /* keep: a kept segment's own pages are still registered (a second register is refused) */
			for (int i = 0; cfg[c].roll == 2 && !rc && i < NSEG; i++) {
				uintptr_t lo = ((uintptr_t)seg[i].h + 4095) & ~(uintptr_t)4095, hi = ((uintptr_t)seg[i].h + len[i]) & ~(uintptr_t)4095;
				if (hi <= lo)
					continue;
				cudaError_t e = cudaHostRegister((void *)lo, 4096, cudaHostRegisterReadOnly);
				if (e == cudaSuccess)
					cudaHostUnregister((void *)lo);
				else
					(void)cudaGetLastError();
				if ((e == cudaSuccess) != (i & 1))
					held = 0;
			}
			zp_cuda_upload_release(kept);
			if (reg)
				CU(cudaHostUnregister(h));
			CU(cudaMemcpy(back, d, tot, cudaMemcpyDeviceToHost));
			int ok = !rc && held;
			for (int i = 0; ok && i < NSEG; i++)
				ok = !memcmp((char *)back + (tot - (size_t)((const char *)seg[i].h - (const char *)h - shift) - len[i]), seg[i].h, len[i]);
			char what[64], note[96];
			snprintf(what, sizeof what, "upload %s chunk %zu x%u%s%s", zp_cuda_upload_name(cfg[c].how), cfg[c].chunk,
				 cfg[c].threads, cfg[c].prereg ? " prereg" : "", cfg[c].roll == 1 ? " roll" : cfg[c].roll == 2 ? " keep even" : "");
			snprintf(note, sizeof note, "%d segments, %zu bytes, shift %zu%s%s", NSEG, tot, shift, rc ? ": " : "",
				 rc ? zp_err_msg() : "");
			if (!ok || rep == 7)
				row(what, "61 seg", ok, note);
			if (!ok)
				break;
		}
	}
	cudaFree(d); free(h); free(back);
}

int main(int argc, char **argv)
{
	unsigned g1max = argc > 1 ? atoi(argv[1]) : 20, g2max = argc > 2 ? atoi(argv[2]) : 18;
	unsigned nttmax = argc > 3 ? atoi(argv[3]) : 22;
	char desc[256];
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) { printf("no CUDA device: skip\n"); return 77; }
	CK(zp_cuda_init(0, desc, sizeof desc));
	ref_init();
	printf("device: %s\n\n| check | size | result | note\n|---|---|---|---|\n", desc);
	if (argc > 1 && !strcmp(argv[1], "glv")) {   /* gpu_test glv [max_log]: the GLV MSM only */
		unsigned mx = argc > 2 ? (unsigned)atoi(argv[2]) : 20;
		test_density(1000, 0, 0); test_density(100003, 0, 329); test_density(4099, 1, 7); test_density(1 << 20, 1, 0);
		unsigned sizes[32] = { 1, 6, 11, 12, 16 }, ns = 5;
		for (unsigned lg = 18; lg < mx && ns < 31; lg += 2) sizes[ns++] = lg;
		if (mx > 16) sizes[ns++] = mx;
		for (unsigned i = 0; i < ns && sizes[i] <= mx; i++)
			for (int k = 0; k < GK_N; k++)
				if (k == GK_RANDOM || k == GK_EDGES || sizes[i] == 12 || sizes[i] == 16 || sizes[i] == mx)
					test_msm_glv(sizes[i], (enum gk)k);
		printf("\n%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
		return failures ? 1 : 0;
	}
	if (argc > 1 && !strcmp(argv[1], "upload")) { /* gpu_test upload: the uploads only */
		test_upload();
		printf("\n%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
		return failures ? 1 : 0;
	}
	test_upload();
	test_field(1 << 16);
	test_points(1 << 10);
	CK(zp_cuda_ntt_create(&ntt, nttmax < 17 ? 17 : nttmax, 5));
	test_ntt_common(nttmax < 20 ? nttmax : 20);
	test_ntt(nttmax, 16);
	/* MSM: direct CPU checks at small sizes, known-dlog at large */
	unsigned small[] = { 0, 1, 2, 7, 10 };
	for (unsigned k = 0; k < 5; k++) test_msm_g1(small[k], SK_RANDOM, 1);
	test_msm_g1(10, SK_01HEAVY, 1);
	for (unsigned k = 1; k < 4; k++) test_msm_g2(small[k], SK_RANDOM, 1);
	test_msm_common(12, 0, 0); test_msm_common(12, 0, 1); test_msm_common(14, 0, 0);
	test_msm_common(10, 1, 0); test_msm_common(10, 1, 1); test_msm_common(12, 1, 0);
	test_sum_idx(12, 0, 0); test_sum_idx(13, 0, 329); test_sum_idx(10, 1, 0); test_sum_idx(11, 1, 77);
	for (unsigned lg = 12; lg <= g1max; lg += (lg < 16 ? 4 : (g1max - lg > 4 ? 4 : (g1max - lg ? g1max - lg : 1))))
		for (int kind = 0; kind < 5; kind++)
			if (kind == SK_RANDOM || lg == 16 || lg == g1max) test_msm_g1(lg, kind, 0);
	for (unsigned lg = 12; lg <= g2max; lg += (lg < 16 ? 4 : (g2max - lg > 4 ? 4 : (g2max - lg ? g2max - lg : 1))))
		for (int kind = 0; kind < 5; kind++)
			if (kind == SK_RANDOM || lg == 16 || lg == g2max) test_msm_g2(lg, kind, 0);
	printf("\n%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
