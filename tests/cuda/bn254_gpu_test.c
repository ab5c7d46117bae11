/*
 * bn254_gpu_test.c — BN254 on the GPU (cuda/'s kernels through zp_cuda_curve_bn254) against the CPU
 * (common/bn254*.c, bn254_msm.h, bn254_ntt.h), bit for bit: Fp, Fr, Fp2 and point ops; NTT (forward,
 * inverse, cosets, the snarkjs H step); MSM G1 and G2 at 2^10 .. 2^20 with several scalar distributions
 * (random, 0/1, small, sparse, all ones, all zeros, all r - 1), explicit windows and passes, the strict 0/1
 * kernel (and its refusal of other scalars), the split-off 0/1 sum (ones + nonbits + gather + MSM, and the
 * index-list sum), the split MSM in 2 and 4 parts. MSM results are compared as affine points (unique), so
 * "equal" means the very same bytes as the CPU's MSM. Bases: 64 random points k·G extended by a chain of
 * additions (distinct points, cheap to make), with infinity, repeated and negated bases mixed in.
 *
 * Usage: bn254_gpu_test test [max_log_g1 [max_log_g2 [max_log_ntt]]]   (default 20 20 22)
 *        bn254_gpu_test bench [case ...]   MSM G1 2^20/2^24/2^26, G2 2^24, NTT 2^24/2^27: CUDA events on
 *                                          one stream after a warm-up, median of 7 runs, random scalars
 *                                          (cases: g1-20 g1-24 g1-26 g2-24 ntt-24 ntt-27; default all)
 * Prints a markdown table. Exit 0 pass, 1 fail, 77 no GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "zp_cuda.h"
#include "zp_err.h"
#include "curve.h"
#include "bn254.h"
#include "bn254_msm.h"
#include "bn254_ntt.h"

typedef zp_bn254_fr fr;
typedef zp_bn254_fp fp;
typedef zp_bn254_g1_affine g1a;
typedef zp_bn254_g2_affine g2a;

static const zp_cuda_curve *cc;
static int failures;
static zp_rng rng;

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static void row(const char *what, const char *size, int ok, const char *note)
{
	printf("| %-40s | %-8s | %-4s | %s\n", what, size, ok ? "PASS" : "FAIL", note ? note : "");
	fflush(stdout);
	if (!ok) failures++;
}
#define CK(x) do { int rc_ = (x); if (rc_ < 0) { fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #x, zp_strerror(rc_)); exit(1); } } while (0)
#define CU(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

static void *xmalloc(size_t n) { void *p = malloc(n ? n : 1); if (!p) { perror("malloc"); exit(1); } return p; }
static void *dmalloc(size_t n) { void *p; CU(cudaMalloc(&p, n ? n : 16)); return p; }
static void *to_dev(const void *h, size_t n) { void *d = dmalloc(n); CU(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice)); return d; }

static size_t scratch_len;
static void *scratch;
static void ensure_scratch(size_t need)
{
	if (need <= scratch_len) return;
	cudaFree(scratch);
	scratch = dmalloc(need);
	scratch_len = need;
}

/* ---- field and point ops ---- */
static void fill_fp(fp *v, size_t n)
{
	for (size_t i = 0; i < n; i++) zp_bn254_fp_random(&v[i], &rng);
	if (n > 4) {   /* 0, raw 1, p - 1, Montgomery one */
		memset(&v[0], 0, sizeof *v);
		memset(&v[1], 0, sizeof *v); v[1].l[0] = 1;
		zp_bn254_fp_sub(&v[2], &ZP_BN254_FP_ZERO, &ZP_BN254_FP_ONE);
		v[3] = ZP_BN254_FP_ONE;
	}
}
static void fill_fr(fr *v, size_t n)
{
	for (size_t i = 0; i < n; i++) zp_bn254_fr_random(&v[i], &rng);
	if (n > 4) {
		memset(&v[0], 0, sizeof *v);
		memset(&v[1], 0, sizeof *v); v[1].l[0] = 1;
		zp_bn254_fr_sub(&v[2], &ZP_BN254_FR_ZERO, &ZP_BN254_FR_ONE);
		v[3] = ZP_BN254_FR_ONE;
	}
}

static void test_field(size_t n)
{
	char sz[32];
	snprintf(sz, sizeof sz, "%zu", n);
	fp *a = xmalloc(n * 64), *b = xmalloc(n * 64), *g = xmalloc(n * 64);
	fill_fp(a, 2 * n); fill_fp(b, 2 * n);
	b[4] = a[4]; b[0] = a[2];
	struct { enum zp_cuda_op op; const char *name; } fps[] = {
		{ ZP_CUDA_FP_ADD, "BN254 Fp add" }, { ZP_CUDA_FP_SUB, "BN254 Fp sub" }, { ZP_CUDA_FP_MUL, "BN254 Fp mul" },
		{ ZP_CUDA_FP_SQR, "BN254 Fp sqr" } };
	for (int k = 0; k < 4; k++) {
		CK(cc->elementwise(fps[k].op, g, a, b, n));
		int ok = 1;
		for (size_t i = 0; i < n; i++) {
			fp c;
			switch (fps[k].op) {
			case ZP_CUDA_FP_ADD: zp_bn254_fp_add(&c, &a[i], &b[i]); break;
			case ZP_CUDA_FP_SUB: zp_bn254_fp_sub(&c, &a[i], &b[i]); break;
			case ZP_CUDA_FP_MUL: zp_bn254_fp_mul(&c, &a[i], &b[i]); break;
			default: zp_bn254_fp_sqr(&c, &a[i]); break;
			}
			ok &= !memcmp(&c, &g[i], sizeof c);
		}
		row(fps[k].name, sz, ok, "vs common/field.c (bn254_fp)");
	}
	for (int k = 0; k < 2; k++) {
		CK(cc->elementwise(k ? ZP_CUDA_FP2_SQR : ZP_CUDA_FP2_MUL, g, a, b, n));
		int ok = 1;
		for (size_t i = 0; i < n; i++) {
			zp_bn254_fp2 r, *x = (zp_bn254_fp2 *)a + i, *y = (zp_bn254_fp2 *)b + i;
			if (k) zp_bn254_fp2_sqr(&r, x); else zp_bn254_fp2_mul(&r, x, y);
			ok &= !memcmp(&r, (zp_bn254_fp2 *)g + i, sizeof r);
		}
		row(k ? "BN254 Fp2 sqr" : "BN254 Fp2 mul", sz, ok, "vs common/bn254_tower.c");
	}
	fr *fa = (fr *)a, *fb = (fr *)b, *fg = (fr *)g;
	fill_fr(fa, n); fill_fr(fb, n);
	struct { enum zp_cuda_op op; const char *name; } frs[] = {
		{ ZP_CUDA_FR_ADD, "BN254 Fr add" }, { ZP_CUDA_FR_SUB, "BN254 Fr sub" }, { ZP_CUDA_FR_MUL, "BN254 Fr mul" },
		{ ZP_CUDA_FR_SQR, "BN254 Fr sqr" }, { ZP_CUDA_FR_FROM_MONT, "BN254 Fr from Montgomery" } };
	for (int k = 0; k < 5; k++) {
		CK(cc->elementwise(frs[k].op, fg, fa, fb, n));
		int ok = 1;
		for (size_t i = 0; i < n; i++) {
			fr c;
			switch (frs[k].op) {
			case ZP_CUDA_FR_ADD: zp_bn254_fr_add(&c, &fa[i], &fb[i]); break;
			case ZP_CUDA_FR_SUB: zp_bn254_fr_sub(&c, &fa[i], &fb[i]); break;
			case ZP_CUDA_FR_MUL: zp_bn254_fr_mul(&c, &fa[i], &fb[i]); break;
			case ZP_CUDA_FR_SQR: zp_bn254_fr_sqr(&c, &fa[i]); break;
			default: zp_bn254_fr_from_mont(c.l, &fa[i]); break;
			}
			ok &= !memcmp(&c, &fg[i], sizeof c);
		}
		row(frs[k].name, sz, ok, "vs common/field.c (bn254_fr)");
	}
	free(a); free(b); free(g);
}

/* ---- points: distinct ones, cheaply: 64 random k·G, then P_i = P_(i-1) + R_(i mod 64) ---- */
#define GEN_POINTS(NAME, A, J, G, GEN)                                                                  \
	static void NAME(A *p, size_t n)                                                                \
	{                                                                                               \
		A R[64];                                                                                \
		J *j = xmalloc(n * sizeof *j), t, acc;                                                  \
		for (int k = 0; k < 64; k++) {                                                          \
			fr s; zp_bn254_fr_random(&s, &rng);                                             \
			zp_bn254_##G##_jac_from_affine(&t, &GEN);                                       \
			zp_bn254_##G##_jac_mul(&t, &t, &s);                                             \
			zp_bn254_##G##_jac_to_affine(&R[k], &t);                                        \
		}                                                                                       \
		zp_bn254_##G##_jac_from_affine(&acc, &R[63]);                                           \
		for (size_t i = 0; i < n; i++) {                                                        \
			zp_bn254_##G##_jac_add_affine(&acc, &acc, &R[i & 63]);                          \
			j[i] = acc;                                                                     \
		}                                                                                       \
		zp_bn254_##G##_jac_batch_to_affine(p, j, n);                                            \
		free(j);                                                                                \
	}
GEN_POINTS(gen_g1, g1a, zp_bn254_g1_jac, g1, ZP_BN254_G1_GEN)
GEN_POINTS(gen_g2, g2a, zp_bn254_g2_jac, g2, ZP_BN254_G2_GEN)
/* Edge cases among the bases: infinity, a repeated base, a negated one (P + (-P) in one bucket). */
static void edge_bases(void *p, size_t n, int g2)
{
	if (n < 8) return;
	size_t sz = cc->aff_bytes[g2];
	char *b = p;
	memset(b + 3 * sz, 0, sz);
	memcpy(b + 5 * sz, b + 1 * sz, sz);
	memcpy(b + 6 * sz, b + 2 * sz, sz);
	if (g2) zp_bn254_g2_affine_neg((g2a *)(b + 6 * sz), (g2a *)(b + 6 * sz));
	else zp_bn254_g1_affine_neg((g1a *)(b + 6 * sz), (g1a *)(b + 6 * sz));
}

static void test_points(size_t n)
{
	char sz[32];
	snprintf(sz, sizeof sz, "%zu", n);
	for (int g2 = 0; g2 < 2; g2++) {
		size_t as = cc->aff_bytes[g2], js = cc->jac_bytes[g2];
		char *a = xmalloc(n * as), *b = xmalloc(n * as), *g = xmalloc(n * js);
		if (g2) { gen_g2((g2a *)a, n); gen_g2((g2a *)b, n); } else { gen_g1((g1a *)a, n); gen_g1((g1a *)b, n); }
		memcpy(b + 1 * as, a + 1 * as, as);                                   /* P + P */
		memcpy(b + 2 * as, a + 2 * as, as);                                   /* P + (-P) */
		if (g2) zp_bn254_g2_affine_neg((g2a *)(b + 2 * as), (g2a *)(b + 2 * as));
		else zp_bn254_g1_affine_neg((g1a *)(b + 2 * as), (g1a *)(b + 2 * as));
		memset(b + 3 * as, 0, as);                                            /* P + inf */
		memset(a + 4 * as, 0, as);                                            /* inf + Q */
		const char *names[2][3] = { { "BN254 G1 add (xyzz+xyzz)", "BN254 G1 add mixed", "BN254 G1 dbl" },
		                            { "BN254 G2 add (xyzz+xyzz)", "BN254 G2 add mixed", "BN254 G2 dbl" } };
		for (int k = 0; k < 3; k++) {
			CK(cc->elementwise((g2 ? ZP_CUDA_G2_ADD : ZP_CUDA_G1_ADD) + k, g, a, b, n));
			int ok = 1;
			for (size_t i = 0; i < n; i++) {
				if (g2) {
					zp_bn254_g2_jac x, y, r, *got = (zp_bn254_g2_jac *)(g + i * js);
					zp_bn254_g2_jac_from_affine(&x, (g2a *)(a + i * as));
					zp_bn254_g2_jac_from_affine(&y, (g2a *)(b + i * as));
					if (k == 2) zp_bn254_g2_jac_dbl(&r, &x); else zp_bn254_g2_jac_add(&r, &x, &y);
					ok &= zp_bn254_g2_jac_eq(&r, got);
				} else {
					zp_bn254_g1_jac x, y, r, *got = (zp_bn254_g1_jac *)(g + i * js);
					zp_bn254_g1_jac_from_affine(&x, (g1a *)(a + i * as));
					zp_bn254_g1_jac_from_affine(&y, (g1a *)(b + i * as));
					if (k == 2) zp_bn254_g1_jac_dbl(&r, &x); else zp_bn254_g1_jac_add(&r, &x, &y);
					ok &= zp_bn254_g1_jac_eq(&r, got);
				}
			}
			row(names[g2][k], sz, ok, "vs common/bn254_ec.c (incl. P+P, P-P, inf)");
		}
		free(a); free(b); free(g);
	}
}

/* ---- NTT ---- */
static void test_ntt(unsigned max_log)
{
	unsigned sizes[] = { 1, 2, 4, 9, 10, 16, 18, 20, 22 };
	zp_cuda_ntt_ctx *g;
	CK(cc->ntt_create(&g, max_log + 1, 5));
	{   /* refusals: the bellperson H step (no such root family on BN254), root family 7 */
		zp_cuda_ntt_ctx *g7 = NULL;
		int rc7 = cc->ntt_create(&g7, 10, 7);
		fr *d = dmalloc(3 * 16 * 32);
		int rcb = zp_cuda_groth16_h(g, (zp_fr *)d, (zp_fr *)d + 16, (zp_fr *)d + 32, 4, ZP_CUDA_H_BELLPERSON, NULL);
		row("BN254 NTT refuses roots 7, bellperson H", "-", rc7 == ZP_ERANGE && !g7 && rcb == ZP_ERANGE, zp_err_msg());
		cudaFree(d);
	}
	for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		unsigned lg = sizes[k];
		if (lg > max_log) continue;
		size_t n = (size_t)1 << lg;
		zp_bn254_ntt_domain dom;
		CK(zp_bn254_ntt_domain_init(&dom, lg));
		fr *x = xmalloc(3 * n * 32), *y = xmalloc(3 * n * 32), *d = dmalloc(3 * n * 32), s;
		char sz[16]; snprintf(sz, sizeof sz, "2^%u", lg);
		zp_bn254_fr_random(&s, &rng);
		for (int op = 0; op < 6; op++) {
			fill_fr(x, 3 * n);
			CU(cudaMemcpy(d, x, 3 * n * 32, cudaMemcpyHostToDevice));
			const char *name = "";
			double t0 = now(), t1 = 0;
			switch (op) {
			case 0: name = "BN254 NTT fwd"; CK(zp_bn254_ntt_forward(&dom, x)); t1 = now();
				CK(zp_cuda_ntt(g, (zp_fr *)d, lg, 0, NULL, NULL)); break;
			case 1: name = "BN254 NTT inv"; CK(zp_bn254_ntt_inverse(&dom, x)); t1 = now();
				CK(zp_cuda_ntt(g, (zp_fr *)d, lg, 1, NULL, NULL)); break;
			case 2: name = "BN254 NTT coset fwd (random s)"; CK(zp_bn254_ntt_coset_forward(&dom, x, &s)); t1 = now();
				CK(zp_cuda_ntt(g, (zp_fr *)d, lg, 0, (const zp_fr *)&s, NULL)); break;
			case 3: name = "BN254 NTT coset inv (random s)"; CK(zp_bn254_ntt_coset_inverse(&dom, x, &s)); t1 = now();
				CK(zp_cuda_ntt(g, (zp_fr *)d, lg, 1, (const zp_fr *)&s, NULL)); break;
			case 4: name = "BN254 NTT coset inv w_2n"; CK(zp_bn254_ntt_coset_inverse(&dom, x, &dom.omega_2n)); t1 = now();
				CK(zp_cuda_ntt(g, (zp_fr *)d, lg, 1, (const zp_fr *)&dom.omega_2n, NULL)); break;
			case 5: name = "BN254 H snarkjs"; CK(zp_bn254_ntt_h_snarkjs(&dom, x, x + n, x + 2 * n)); t1 = now();
				CK(zp_cuda_groth16_h(g, (zp_fr *)d, (zp_fr *)d + n, (zp_fr *)d + 2 * n, lg, ZP_CUDA_H_SNARKJS, NULL)); break;
			}
			CU(cudaDeviceSynchronize());
			double t2 = now();
			CU(cudaMemcpy(y, d, n * 32, cudaMemcpyDeviceToHost));
			char note[96];
			snprintf(note, sizeof note, "vs common/bn254_ntt.c; cpu %.3fs gpu %.4fs", t1 - t0, t2 - t1);
			row(name, sz, !memcmp(x, y, n * 32), note);
		}
		cudaFree(d); free(x); free(y);
		zp_bn254_ntt_domain_free(&dom);
	}
	zp_cuda_ntt_destroy(g);
}

/* ---- MSM ---- */
enum sk { SK_RANDOM, SK_BITS, SK_SMALL, SK_SPARSE, SK_ONES, SK_ZEROS, SK_MINUS1, SK_MIXED, SK_N };
static const char *sk_name[] = { "random", "0/1", "small (<2^16)", "sparse (90% 0)", "all ones", "all zeros",
                                 "all r-1", "mixed 0/1/random" };
static void fill_scalars(fr *s, size_t n, enum sk kind)
{
	fr m1;
	zp_bn254_fr_sub(&m1, &ZP_BN254_FR_ZERO, &ZP_BN254_FR_ONE);
	for (size_t i = 0; i < n; i++) {
		uint64_t r = zp_rng_next(&rng);
		switch (kind) {
		case SK_RANDOM: zp_bn254_fr_random(&s[i], &rng); break;
		case SK_BITS: s[i] = r & 1 ? ZP_BN254_FR_ONE : ZP_BN254_FR_ZERO; break;
		case SK_SMALL: zp_bn254_fr_from_u64(&s[i], r & 0xffff); break;
		case SK_SPARSE: if (r % 10) s[i] = ZP_BN254_FR_ZERO; else zp_bn254_fr_random(&s[i], &rng); break;
		case SK_ONES: s[i] = ZP_BN254_FR_ONE; break;
		case SK_ZEROS: s[i] = ZP_BN254_FR_ZERO; break;
		case SK_MINUS1: s[i] = m1; break;
		default:   /* mixed: 40 % zeros, 40 % ones, 20 % random */
			if (r % 5 < 2) s[i] = ZP_BN254_FR_ZERO;
			else if (r % 5 < 4) s[i] = ZP_BN254_FR_ONE;
			else zp_bn254_fr_random(&s[i], &rng);
			break;
		}
	}
}

/* the CPU's MSM as an affine point (out: aff_bytes[g2]) */
static double cpu_msm(int g2, void *out, const void *bases, const fr *s, size_t n)
{
	double t0 = now();
	if (g2) {
		size_t len = zp_bn254_msm_g2_scratch_size(n);
		void *sc = xmalloc(len);
		zp_bn254_g2_jac j;
		CK(zp_bn254_msm_g2(&j, bases, s, n, sc, len));
		zp_bn254_g2_jac_to_affine(out, &j);
		free(sc);
	} else {
		size_t len = zp_bn254_msm_g1_scratch_size(n);
		void *sc = xmalloc(len);
		zp_bn254_g1_jac j;
		CK(zp_bn254_msm_g1(&j, bases, s, n, sc, len));
		zp_bn254_g1_jac_to_affine(out, &j);
		free(sc);
	}
	return now() - t0;
}
static void jac_to_aff(int g2, void *out, const void *jac)
{
	if (g2) zp_bn254_g2_jac_to_affine(out, jac); else zp_bn254_g1_jac_to_affine(out, jac);
}
static void jac_add(int g2, void *acc, const void *b)
{
	if (g2) zp_bn254_g2_jac_add(acc, acc, b); else zp_bn254_g1_jac_add(acc, acc, b);
}
static void cpu_sum_ones(int g2, void *out, const void *bases, const fr *s, size_t n)
{
	uint8_t *sel = xmalloc(n);
	for (size_t i = 0; i < n; i++) sel[i] = !memcmp(&s[i], &ZP_BN254_FR_ONE, sizeof(fr));
	if (g2) { zp_bn254_g2_jac j; zp_bn254_msm_g2_sum_selected(&j, bases, sel, n); zp_bn254_g2_jac_to_affine(out, &j); }
	else { zp_bn254_g1_jac j; zp_bn254_msm_g1_sum_selected(&j, bases, sel, n); zp_bn254_g1_jac_to_affine(out, &j); }
	free(sel);
}

static char *bases_h[2];
static void *bases_d[2];
static size_t bases_n[2];
static void need_bases(int g2, size_t n)
{
	if (bases_n[g2] >= n) return;
	size_t sz = cc->aff_bytes[g2];
	free(bases_h[g2]); cudaFree(bases_d[g2]);
	bases_h[g2] = xmalloc(n * sz);
	if (g2) gen_g2((g2a *)bases_h[g2], n); else gen_g1((g1a *)bases_h[g2], n);
	edge_bases(bases_h[g2], n, g2);
	bases_d[g2] = to_dev(bases_h[g2], n * sz);
	bases_n[g2] = n;
}

/* The general MSM (window/pass_windows 0: automatic) against the CPU's. */
static void test_msm(int g2, unsigned lg, enum sk kind, unsigned window, unsigned passes)
{
	size_t n = (size_t)1 << lg;
	need_bases(g2, n);
	fr *s = xmalloc(n * sizeof *s);
	fill_scalars(s, n, kind);
	void *ds = to_dev(s, n * sizeof *s);
	uint8_t want[128], got[128], jac[192];
	double tc = cpu_msm(g2, want, bases_h[g2], s, n);
	ensure_scratch(cc->msm_scratch(g2, n, window, passes));
	zp_cuda_msm_opts o = { .window = window, .stream = NULL, .pass_windows = passes };
	double t0 = now();
	CK(cc->msm(g2, jac, bases_d[g2], ds, n, scratch, scratch_len, &o));
	double t1 = now();
	jac_to_aff(g2, got, jac);
	char what[80], sz[16], note[120];
	snprintf(what, sizeof what, "BN254 MSM %s %s", g2 ? "G2" : "G1", sk_name[kind]);
	snprintf(sz, sizeof sz, "2^%u", lg);
	snprintf(note, sizeof note, "vs CPU MSM%s%s; cpu %.2fs gpu %.3fs", window ? ", window set" : "",
	         passes ? ", passes" : "", tc, t1 - t0);
	if (window || passes) {
		char w[40]; snprintf(w, sizeof w, " c=%u P=%u", window, passes);
		strncat(what, w, sizeof what - strlen(what) - 1);
	}
	row(what, sz, !memcmp(want, got, cc->aff_bytes[g2]), note);
	cudaFree(ds); free(s);
}

/* The 0/1 paths: strict kernel (equal on 0/1 scalars, ZP_ERANGE otherwise), the split-off sum of the
 * ones (msm_ones, and ones list + sum_idx) and the rest (nonbits + gather + msm): together = the CPU MSM. */
static void test_bits(int g2, unsigned lg)
{
	size_t n = (size_t)1 << lg, as = cc->aff_bytes[g2];
	need_bases(g2, n);
	fr *s = xmalloc(n * sizeof *s);
	uint8_t want[128], got[128], jac[192], jac2[192];
	char sz[16], what[80];
	snprintf(sz, sizeof sz, "2^%u", lg);
	const char *G = g2 ? "G2" : "G1";
	ensure_scratch(cc->bits_scratch(g2, n));
	/* strict kernel on 0/1 scalars */
	fill_scalars(s, n, SK_BITS);
	void *ds = to_dev(s, n * sizeof *s);
	cpu_msm(g2, want, bases_h[g2], s, n);
	CK(cc->msm_bits(g2, jac, bases_d[g2], ds, n, scratch, scratch_len, NULL));
	jac_to_aff(g2, got, jac);
	snprintf(what, sizeof what, "BN254 MSM %s 0/1 kernel", G);
	row(what, sz, !memcmp(want, got, as), "vs CPU MSM");
	cudaFree(ds);
	/* ... which refuses a scalar that is neither */
	fill_scalars(s, n, SK_MIXED);
	ds = to_dev(s, n * sizeof *s);
	int rc = cc->msm_bits(g2, jac, bases_d[g2], ds, n, scratch, scratch_len, NULL);
	snprintf(what, sizeof what, "BN254 MSM %s 0/1 kernel refuses others", G);
	row(what, sz, rc == ZP_ERANGE, "ZP_ERANGE");
	/* the ones, by the masked kernel and by an index list */
	cpu_sum_ones(g2, want, bases_h[g2], s, n);
	CK(cc->msm_ones(g2, jac, bases_d[g2], ds, n, scratch, scratch_len, NULL));
	jac_to_aff(g2, got, jac);
	snprintf(what, sizeof what, "BN254 MSM %s ones (masked kernel)", G);
	row(what, sz, !memcmp(want, got, as), "vs CPU sum_selected");
	size_t tmp_len = zp_cuda_nonbits_temp_size(n), cnt1 = 0, cnt = 0;
	void *tmp = dmalloc(tmp_len);
	uint32_t *idx = dmalloc(n * 4);
	CK(cc->ones(idx, &cnt1, ds, n, tmp, tmp_len, NULL));
	if (cnt1) {
		ensure_scratch(cc->bits_scratch(g2, cnt1));
		CK(cc->msm_sum_idx(g2, jac2, bases_d[g2], idx, cnt1, 0, scratch, scratch_len, NULL));
		jac_to_aff(g2, got, jac2);
	} else memset(got, 0, as);
	snprintf(what, sizeof what, "BN254 MSM %s ones (index list)", G);
	row(what, sz, !memcmp(want, got, as), "vs CPU sum_selected");
	/* the rest: gathered and summed by the general MSM; ones + rest = the whole MSM */
	CK(cc->nonbits(idx, &cnt, ds, n, tmp, tmp_len, NULL));
	void *gs = dmalloc(cnt * 32), *gb = dmalloc(cnt * as);
	CK(zp_cuda_gather(gs, ds, 32, idx, cnt, 0, NULL));
	CK(zp_cuda_gather(gb, bases_d[g2], as, idx, cnt, 0, NULL));
	ensure_scratch(cc->msm_scratch(g2, cnt, 0, 0));
	if (cnt) {
		CK(cc->msm(g2, jac2, gb, gs, cnt, scratch, scratch_len, NULL));
		jac_add(g2, jac, jac2);
	}
	jac_to_aff(g2, got, jac);
	cpu_msm(g2, want, bases_h[g2], s, n);
	char note[80];
	snprintf(note, sizeof note, "vs CPU MSM; %zu ones, %zu others", cnt1, cnt);
	snprintf(what, sizeof what, "BN254 MSM %s 0/1 split (ones+nonbits)", G);
	row(what, sz, !memcmp(want, got, as), note);
	cudaFree(gs); cudaFree(gb); cudaFree(tmp); cudaFree(idx); cudaFree(ds); free(s);
}

/* The split MSM: parts·n bases 2^(256/parts·j)·P_i made on the device, then each scalar in parts chunks. */
static void test_split(int g2, unsigned lg, unsigned parts, enum sk kind)
{
	size_t n = (size_t)1 << lg, as = cc->aff_bytes[g2];
	need_bases(g2, n);
	fr *s = xmalloc(n * sizeof *s);
	fill_scalars(s, n, kind);
	void *ds = to_dev(s, n * sizeof *s), *d4 = dmalloc(parts * n * as);
	uint8_t want[128], got[128], jac[192];
	size_t tl = cc->split_bases_scratch(g2, n);
	void *tmp = dmalloc(tl);
	CK(cc->split_bases(g2, d4, bases_d[g2], n, parts, tmp, tl, NULL));
	CU(cudaDeviceSynchronize());
	cudaFree(tmp);
	ensure_scratch(cc->split_scratch(g2, n, parts, 0, 0));
	double tc = cpu_msm(g2, want, bases_h[g2], s, n), t0 = now();
	CK(cc->msm_split(g2, jac, d4, ds, n, parts, scratch, scratch_len, NULL));
	double t1 = now();
	jac_to_aff(g2, got, jac);
	char what[80], sz[16], note[96];
	snprintf(what, sizeof what, "BN254 MSM %s split %u parts %s", g2 ? "G2" : "G1", parts, sk_name[kind]);
	snprintf(sz, sizeof sz, "2^%u", lg);
	snprintf(note, sizeof note, "vs CPU MSM; cpu %.2fs gpu %.3fs", tc, t1 - t0);
	row(what, sz, !memcmp(want, got, as), note);
	cudaFree(d4); cudaFree(ds); free(s);
}

static int run_tests(unsigned g1max, unsigned g2max, unsigned nttmax)
{
	test_field(1 << 16);
	test_points(1 << 10);
	test_ntt(nttmax);
	unsigned tiny[] = { 0, 1, 3, 7 };
	for (unsigned k = 0; k < 4; k++) { test_msm(0, tiny[k], SK_RANDOM, 0, 0); test_msm(1, tiny[k], SK_RANDOM, 0, 0); }
	for (int g2 = 0; g2 < 2; g2++) {
		unsigned max = g2 ? g2max : g1max;
		for (unsigned lg = 10; lg <= max; lg += 2)
			for (int kind = 0; kind < SK_N; kind++)
				if (kind == SK_RANDOM || kind == SK_SPARSE || lg == 10 || lg == 16 || lg == (g2 ? 18 : max))
					test_msm(g2, lg, kind, 0, 0);
		/* explicit windows, and windows in passes (the pass loop, the keys relative to a pass) */
		test_msm(g2, 12, SK_RANDOM, 7, 0);
		test_msm(g2, 14, SK_RANDOM, 13, 3);
		test_msm(g2, 14, SK_SMALL, 11, 2);
		test_bits(g2, 12);
		test_bits(g2, max < 16 ? max : 16);
		for (unsigned parts = 2; parts <= 4; parts += 2) {
			test_split(g2, 12, parts, SK_RANDOM);
			test_split(g2, max < 18 ? max : 18, parts, SK_RANDOM);
			test_split(g2, 14, parts, SK_MINUS1);
		}
	}
	printf("\n%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}

/* ---- benchmarks: CUDA events around each call on one stream, after a warm-up; median of RUNS ---- */
#define RUNS 7
static int cmpf(const void *a, const void *b) { float x = *(const float *)a, y = *(const float *)b; return (x > y) - (x < y); }
/* n bases tiled from the first m distinct ones (each block of m rotated by a random offset). */
static void *tiled_bases(int g2, size_t n)
{
	size_t m = n < ((size_t)1 << 20) ? n : ((size_t)1 << 20), as = cc->aff_bytes[g2];
	need_bases(g2, m);
	char *h = xmalloc(n * as);
	for (size_t off = 0; off < n; off += m) {
		size_t rot = zp_rng_next(&rng) % m;
		memcpy(h + off * as, bases_h[g2] + rot * as, (m - rot) * as);
		memcpy(h + (off + m - rot) * as, bases_h[g2], rot * as);
	}
	void *d = to_dev(h, n * as);
	free(h);
	return d;
}
static void *rand_scalars_dev(size_t n)
{
	fr *s = xmalloc(n * sizeof *s);
	for (size_t i = 0; i < n; i++) zp_bn254_fr_random(&s[i], &rng);
	void *d = to_dev(s, n * sizeof *s);
	free(s);
	return d;
}
static void bench_row(const char *what, unsigned lg, float *t, const char *note)
{
	qsort(t, RUNS, sizeof *t, cmpf);
	printf("| %-26s | 2^%-2u | %10.2f | %10.2f | %10.2f | %d | %s\n", what, lg, t[RUNS / 2], t[0], t[RUNS - 1], RUNS, note);
	fflush(stdout);
}
static void bench_msm(int g2, unsigned lg)
{
	size_t n = (size_t)1 << lg;
	void *db = tiled_bases(g2, n), *ds = rand_scalars_dev(n);
	cudaStream_t st;
	cudaEvent_t e0, e1;
	CU(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	CU(cudaEventCreate(&e0)); CU(cudaEventCreate(&e1));
	ensure_scratch(cc->msm_scratch(g2, n, 0, 0));
	zp_cuda_msm_opts o = { .window = 0, .stream = st, .pass_windows = 0 };
	uint8_t jac[192];
	float t[RUNS];
	CK(cc->msm(g2, jac, db, ds, n, scratch, scratch_len, &o));   /* warm-up */
	for (int r = 0; r < RUNS; r++) {
		CU(cudaEventRecord(e0, st));
		CK(cc->msm(g2, jac, db, ds, n, scratch, scratch_len, &o));
		CU(cudaEventRecord(e1, st));
		CU(cudaEventSynchronize(e1));
		CU(cudaEventElapsedTime(&t[r], e0, e1));
	}
	char what[48], note[96];
	snprintf(what, sizeof what, "MSM %s", g2 ? "G2" : "G1");
	snprintf(note, sizeof note, "automatic window (%u windows), random scalars, 2^20 distinct bases tiled",
	         cc->msm_windows(g2, n, 0));
	bench_row(what, lg, t, note);
	cudaEventDestroy(e0); cudaEventDestroy(e1); cudaStreamDestroy(st);
	cudaFree(db); cudaFree(ds);
}
static void bench_ntt(unsigned lg)
{
	size_t n = (size_t)1 << lg;
	void *dx = rand_scalars_dev(n);
	zp_cuda_ntt_ctx *g;
	cudaStream_t st;
	cudaEvent_t e0, e1;
	CK(cc->ntt_create(&g, lg, 5));
	CU(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	CU(cudaEventCreate(&e0)); CU(cudaEventCreate(&e1));
	float t[RUNS];
	CK(zp_cuda_ntt(g, dx, lg, 0, NULL, st));
	CU(cudaStreamSynchronize(st));
	for (int r = 0; r < RUNS; r++) {
		CU(cudaEventRecord(e0, st));
		CK(zp_cuda_ntt(g, dx, lg, 0, NULL, st));
		CU(cudaEventRecord(e1, st));
		CU(cudaEventSynchronize(e1));
		CU(cudaEventElapsedTime(&t[r], e0, e1));
	}
	bench_row("NTT forward (natural order)", lg, t, "in place, device-resident, random input");
	cudaEventDestroy(e0); cudaEventDestroy(e1); cudaStreamDestroy(st);
	zp_cuda_ntt_destroy(g);
	cudaFree(dx);
}
static int run_bench(int argc, char **argv)
{
	const char *all[] = { "g1-20", "g1-24", "g1-26", "g2-24", "ntt-24", "ntt-27" };
	printf("| BN254 benchmark | n | median ms | min ms | max ms | runs | note\n|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < (argc ? argc : 6); i++) {
		const char *c = argc ? argv[i] : all[i];
		unsigned lg = 0;
		if (sscanf(c, "g1-%u", &lg) == 1) bench_msm(0, lg);
		else if (sscanf(c, "g2-%u", &lg) == 1) bench_msm(1, lg);
		else if (sscanf(c, "ntt-%u", &lg) == 1) bench_ntt(lg);
		else { fprintf(stderr, "unknown case %s\n", c); return 2; }
		if (scratch) { cudaFree(scratch); scratch = NULL; scratch_len = 0; }
	}
	return 0;
}

int main(int argc, char **argv)
{
	char desc[256];
	int ndev = 0;
	const char *mode = argc > 1 ? argv[1] : "test";
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) { printf("no CUDA device: skip\n"); return 77; }
	CK(zp_cuda_init(0, desc, sizeof desc));
	cc = zp_cuda_curve_of(ZP_CURVE_BN254);
	if (!cc || cc->fr_bytes != 32 || cc->aff_bytes[0] != sizeof(g1a) || cc->aff_bytes[1] != sizeof(g2a) ||
	    cc->jac_bytes[0] != sizeof(zp_bn254_g1_jac) || cc->jac_bytes[1] != sizeof(zp_bn254_g2_jac)) {
		printf("zp_cuda_curve_bn254's sizes are not common/bn254.h's\n");
		return 1;
	}
	zp_rng_seed(&rng, 20261201);
	printf("device: %s\n\n", desc);
	if (!strcmp(mode, "bench")) return run_bench(argc - 2, argv + 2);
	printf("| check | size | result | note\n|---|---|---|---|\n");
	return run_tests(argc > 2 ? atoi(argv[2]) : 20, argc > 3 ? atoi(argv[3]) : 20, argc > 4 ? atoi(argv[4]) : 22);
}
