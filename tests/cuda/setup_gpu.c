/*
 * setup_gpu — the GPU setup against the CPU (needs a CUDA GPU; driven by run-gpusetup.sh).
 *
 *   setup_gpu fb                 zp_cuda_g1/g2_fixed_base on random scalars (and 0, 1, 2, r − 1)
 *                                equals k·G computed on the CPU (zp_g*_jac_mul), bit for bit, for
 *                                tables of 8- and 13-bit windows built here from ec.h
 *   setup_gpu fb bn254           the same for zp_cuda_bn254_fixed_base (G1, G2) against bn254.h's
 *                                zp_bn254_g*_jac_mul
 *   setup_gpu bnkey R1CS [WTNS]  a BN254 (bn128) r1cs: zp_setup on the CPU and the GPU sink
 *                                (zp_setup_cuda_host, whatever zp_setup's own policy for --gpu is)
 *                                with the same toxic waste: identical key bytes (the first differing
 *                                section named); then zp_setup with device = 1 (refused, or the same
 *                                bytes); with WTNS a proof with the GPU key on the CUDA backend, which
 *                                the prover self-checks and zp_g16_verify checks again
 *   setup_gpu key LOG            zp_setup on the CPU and on the GPU (opts.device) with the same toxic
 *                                waste: identical key bytes (both H modes; root family 7 too);
 *                                then a proof with the GPU key on the CUDA backend verifies
 *   setup_gpu dev LOG [noprove]  zp_setup_device (points left on the GPU): stage times; for
 *                                LOG <= 18 the device arrays equal the host GPU key's with the same
 *                                toxic waste; then the CUDA backend adopts the key and proves a
 *                                synthetic witness, which verifies (unless noprove)
 * Prints "TIME <name> <seconds>" lines for the timing table. Exit 0 pass, 1 fail, 77 no GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "backends.h"
#include "groth16.h"
#include "keyfile.h"
#include "r1cs.h"
#include "setup.h"
#include "setup_cuda.h"
#include "setup_impl.h"
#include "synth.h"
#include "wtns.h"
#include "zp_cuda.h"
#include "zp_err.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL: " __VA_ARGS__); printf(" (%s)\n", zp_err_msg()); return 1; } } while (0)

/* table t[j·(2^w − 1) + d − 1] = d·2^(w·j)·G, independent of prover/setup.c */
#define TABLE(G, AFF, JAC)                                                                          \
	static AFF *table_##G(const AFF *gen, unsigned w, size_t *len)                              \
	{                                                                                           \
		size_t m = ((size_t)1 << w) - 1, nwin = (255 + w - 1) / w;                          \
		AFF *t = malloc(nwin * m * sizeof(AFF));                                            \
		JAC *row = malloc(m * sizeof(JAC)), base;                                           \
		zp_##G##_jac_from_affine(&base, gen);                                               \
		for (size_t j = 0; j < nwin; j++) {                                                 \
			row[0] = base;                                                              \
			for (size_t d = 1; d < m; d++)                                              \
				zp_##G##_jac_add(&row[d], &row[d - 1], &base);                      \
			zp_##G##_jac_batch_to_affine(t + j * m, row, m);                            \
			for (unsigned b = 0; b < w; b++)                                            \
				zp_##G##_jac_dbl(&base, &base);                                     \
		}                                                                                   \
		free(row);                                                                          \
		*len = nwin * m;                                                                    \
		return t;                                                                           \
	}
TABLE(g1, zp_g1_affine, zp_g1_jac)
TABLE(g2, zp_g2_affine, zp_g2_jac)
TABLE(bn254_g1, zp_bn254_g1_affine, zp_bn254_g1_jac)
TABLE(bn254_g2, zp_bn254_g2_affine, zp_bn254_g2_jac)

static void scalars(zp_fr *k, size_t n, uint64_t seed)
{
	zp_rng g;
	zp_rng_seed(&g, seed);
	for (size_t i = 0; i < n; i++)
		zp_fr_random(&k[i], &g);
	memset(&k[0], 0, sizeof k[0]);
	k[1] = ZP_FR_ONE;
	zp_fr_add(&k[2], &ZP_FR_ONE, &ZP_FR_ONE);
	zp_fr_sub(&k[3], &k[0], &ZP_FR_ONE);   /* r − 1 */
	memset(&k[n / 2], 0, sizeof k[0]);
	zp_fr_from_u64(&k[5], 0xffff);
}

static int test_fb(void)
{
	const size_t n1 = 20000, n2 = 4000;
	zp_fr *k = malloc(n1 * sizeof(zp_fr));
	zp_g1_affine *o1 = malloc(n1 * sizeof *o1);
	zp_g2_affine *o2 = malloc(n2 * sizeof *o2);
	void *d_k, *d_o, *d_t, *d_s;
	size_t sl = zp_cuda_fixed_base_scratch_size(1, n1);
	CHECK(!cudaMalloc(&d_k, n1 * sizeof(zp_fr)) && !cudaMalloc(&d_o, n1 * sizeof(zp_g2_affine)) &&
	      !cudaMalloc(&d_s, sl), "cudaMalloc");
	int bad = 0;
	unsigned ws[] = { 8, 13 };
	for (unsigned wi = 0; wi < 2; wi++) {
		unsigned w = ws[wi];
		size_t tl1, tl2;
		scalars(k, n1, 100 + w);
		zp_g1_affine *t1 = table_g1(&ZP_G1_GEN, w, &tl1);
		zp_g2_affine *t2 = table_g2(&ZP_G2_GEN, w, &tl2);
		CHECK(!cudaMemcpy(d_k, k, n1 * sizeof(zp_fr), cudaMemcpyHostToDevice), "upload");
		/* G1 */
		CHECK(!cudaMalloc(&d_t, tl2 * sizeof(zp_g2_affine)), "table");
		cudaMemcpy(d_t, t1, tl1 * sizeof *t1, cudaMemcpyHostToDevice);
		double a = now();
		CHECK(!zp_cuda_g1_fixed_base(d_o, d_k, n1, d_t, w, d_s, sl, NULL), "g1 fixed base");
		CHECK(!cudaDeviceSynchronize(), "sync");
		double b = now();
		cudaMemcpy(o1, d_o, n1 * sizeof *o1, cudaMemcpyDeviceToHost);
		size_t diff = 0;
		zp_g1_jac j;
		zp_g1_affine r;
		zp_g1_jac gj;
		zp_g1_jac_from_affine(&gj, &ZP_G1_GEN);
		for (size_t i = 0; i < n1; i++) {
			zp_g1_jac_mul(&j, &gj, &k[i]);
			zp_g1_jac_to_affine(&r, &j);
			if (memcmp(&r, &o1[i], sizeof r) && diff++ < 3)
				printf("  G1 w=%u: point %zu differs\n", w, i);
		}
		printf("fb G1 w=%u: %zu points, %zu differ (GPU %.1f ms)\n", w, n1, diff, (b - a) * 1e3);
		bad += diff != 0;
		/* G2 */
		cudaMemcpy(d_t, t2, tl2 * sizeof *t2, cudaMemcpyHostToDevice);
		a = now();
		CHECK(!zp_cuda_g2_fixed_base(d_o, d_k, n2, d_t, w, d_s, sl, NULL), "g2 fixed base");
		CHECK(!cudaDeviceSynchronize(), "sync");
		b = now();
		cudaMemcpy(o2, d_o, n2 * sizeof *o2, cudaMemcpyDeviceToHost);
		diff = 0;
		zp_g2_jac j2, g2j;
		zp_g2_affine r2;
		zp_g2_jac_from_affine(&g2j, &ZP_G2_GEN);
		for (size_t i = 0; i < n2; i++) {
			zp_g2_jac_mul(&j2, &g2j, &k[i]);
			zp_g2_jac_to_affine(&r2, &j2);
			if (memcmp(&r2, &o2[i], sizeof r2) && diff++ < 3)
				printf("  G2 w=%u: point %zu differs\n", w, i);
		}
		printf("fb G2 w=%u: %zu points, %zu differ (GPU %.1f ms)\n", w, n2, diff, (b - a) * 1e3);
		bad += diff != 0;
		/* scratch too small and a bad window are errors, not crashes */
		CHECK(zp_cuda_g1_fixed_base(d_o, d_k, n1, d_t, w, d_s, sl / 4, NULL) == ZP_ERANGE, "small scratch accepted");
		CHECK(zp_cuda_g1_fixed_base(d_o, d_k, n1, d_t, 21, d_s, sl, NULL) == ZP_ERANGE, "window 21 accepted");
		cudaFree(d_t);
		free(t1);
		free(t2);
	}
	cudaFree(d_k);
	cudaFree(d_o);
	cudaFree(d_s);
	free(k);
	free(o1);
	free(o2);
	printf("%s: fixed-base GPU == CPU\n", bad ? "FAIL" : "PASS");
	return bad != 0;
}

/* BN254: the same scalars' shape (random, then 0, 1, 2, r − 1, a zero in the middle, 0xffff) */
static void scalars_bn254(zp_bn254_fr *k, size_t n, uint64_t seed)
{
	zp_rng g;
	zp_rng_seed(&g, seed);
	for (size_t i = 0; i < n; i++)
		zp_bn254_fr_random(&k[i], &g);
	k[0] = ZP_BN254_FR_ZERO;
	k[1] = ZP_BN254_FR_ONE;
	zp_bn254_fr_add(&k[2], &ZP_BN254_FR_ONE, &ZP_BN254_FR_ONE);
	zp_bn254_fr_sub(&k[3], &ZP_BN254_FR_ZERO, &ZP_BN254_FR_ONE);   /* r − 1 */
	k[n / 2] = ZP_BN254_FR_ZERO;
	zp_bn254_fr_from_u64(&k[5], 0xffff);
}

/* one group of BN254: n points k_i·G on the GPU from d_k (the scalars k) with table t (tl points) of
 * window w, against the CPU's; the count of differing points, or -1 when a CUDA call failed */
#define BN_FB(G, AFF, JAC, GEN, IS_G2)                                                              \
	static long fb_bn254_##G(const zp_bn254_fr *k, size_t n, void *d_k, void *d_o, void *d_s, size_t sl, \
				 unsigned w, double *ms)                                                \
	{                                                                                           \
		size_t tl;                                                                          \
		AFF *t = table_bn254_##G(&GEN, w, &tl), *o = malloc(n * sizeof(AFF)), r;            \
		JAC gj, j;                                                                          \
		void *d_t = NULL;                                                                   \
		long diff = -1;                                                                     \
		double a;                                                                           \
		if (cudaMalloc(&d_t, tl * sizeof(AFF)) || cudaMemcpy(d_t, t, tl * sizeof(AFF), cudaMemcpyHostToDevice)) \
			goto out;                                                                   \
		a = now();                                                                          \
		if (zp_cuda_bn254_fixed_base(IS_G2, d_o, d_k, n, d_t, w, d_s, sl, NULL) || cudaDeviceSynchronize()) \
			goto out;                                                                   \
		*ms = (now() - a) * 1e3;                                                            \
		if (cudaMemcpy(o, d_o, n * sizeof(AFF), cudaMemcpyDeviceToHost))                    \
			goto out;                                                                   \
		zp_bn254_##G##_jac_from_affine(&gj, &GEN);                                          \
		diff = 0;                                                                           \
		for (size_t i = 0; i < n; i++) {                                                    \
			zp_bn254_##G##_jac_mul(&j, &gj, &k[i]);                                     \
			zp_bn254_##G##_jac_to_affine(&r, &j);                                       \
			if (memcmp(&r, &o[i], sizeof r) && diff++ < 3)                              \
				printf("  BN254 " #G " w=%u: point %zu differs\n", w, i);           \
		}                                                                                   \
	out:                                                                                        \
		cudaFree(d_t);                                                                      \
		free(t);                                                                            \
		free(o);                                                                            \
		return diff;                                                                        \
	}
BN_FB(g1, zp_bn254_g1_affine, zp_bn254_g1_jac, ZP_BN254_G1_GEN, 0)
BN_FB(g2, zp_bn254_g2_affine, zp_bn254_g2_jac, ZP_BN254_G2_GEN, 1)

static int test_fb_bn254(void)
{
	const size_t n1 = 20000, n2 = 4000;
	zp_bn254_fr *k = malloc(n1 * sizeof *k);
	void *d_k, *d_o, *d_s;
	size_t sl = zp_cuda_bn254_fixed_base_scratch_size(1, n1);
	_Static_assert(sizeof(zp_bn254_fr) == sizeof(zp_fr), "BN254 Fr in a zp_fr container");
	CHECK(!cudaMalloc(&d_k, n1 * sizeof *k) && !cudaMalloc(&d_o, n1 * sizeof(zp_bn254_g2_affine)) &&
	      !cudaMalloc(&d_s, sl), "cudaMalloc");
	int bad = 0;
	unsigned ws[] = { 8, 13 };
	for (unsigned wi = 0; wi < 2; wi++) {
		unsigned w = ws[wi];
		double ms = 0;
		scalars_bn254(k, n1, 300 + w);
		CHECK(!cudaMemcpy(d_k, k, n1 * sizeof *k, cudaMemcpyHostToDevice), "upload");
		long d1 = fb_bn254_g1(k, n1, d_k, d_o, d_s, sl, w, &ms);
		CHECK(d1 >= 0, "BN254 G1 fixed base (w=%u)", w);
		printf("fb BN254 G1 w=%u: %zu points, %ld differ (GPU %.1f ms)\n", w, n1, d1, ms);
		long d2 = fb_bn254_g2(k, n2, d_k, d_o, d_s, sl, w, &ms);
		CHECK(d2 >= 0, "BN254 G2 fixed base (w=%u)", w);
		printf("fb BN254 G2 w=%u: %zu points, %ld differ (GPU %.1f ms)\n", w, n2, d2, ms);
		bad += (d1 != 0) + (d2 != 0);
	}
	/* scratch too small and a bad window are errors, not crashes */
	CHECK(zp_cuda_bn254_fixed_base(0, d_o, d_k, n1, d_o, 8, d_s, sl / 8, NULL) == ZP_ERANGE, "small scratch accepted");
	CHECK(zp_cuda_bn254_fixed_base(1, d_o, d_k, n2, d_o, 21, d_s, sl, NULL) == ZP_ERANGE, "window 21 accepted");
	cudaFree(d_k);
	cudaFree(d_o);
	cudaFree(d_s);
	free(k);
	printf("%s: BN254 fixed-base GPU == CPU\n", bad ? "FAIL" : "PASS");
	return bad != 0;
}

static void toxic_for(zp_fr t[5], uint64_t seed)
{
	zp_rng g;
	zp_rng_seed(&g, seed);
	for (int i = 0; i < 5; i++)
		zp_fr_random(&t[i], &g);
}

static int synth(zp_circuit *c, zp_synth_params *sp, unsigned lg)
{
	/* rows so that the domain is 2^lg: n + pub + 1 <= 2^lg */
	zp_synth_params_porep(sp, 1);
	zp_synth_params_porep(sp, (uint32_t)(((uint64_t)1 << lg) - sp->n_public - 1));
	return zp_synth_circuit(c, sp);
}

/* prove a synthetic witness with key gk on the CUDA backend; the prover self-verifies */
static int prove_cuda(const zp_g16_key *gk, const zp_circuit *c, const zp_synth_params *sp, double *secs)
{
	zp_g16_prover p;
	zp_g16_proof proof;
	size_t n = c->domain_size;
	zp_fr *w = malloc((size_t)c->n_vars * sizeof(zp_fr)), *abc = malloc(3 * n * sizeof(zp_fr));
	CHECK(w && abc, "memory for the witness");
	CHECK(!zp_synth_witness(w, c, sp, 42), "witness");
	zp_circuit_eval(c, w, abc, abc + n, abc + 2 * n);
	double a = now();
	int rc = zp_g16_prover_init(&p, gk, &zp_g16_backend_cuda);
	CHECK(!rc, "CUDA backend create");
	double b = now();
	rc = zp_g16_prover_prove_abc(&p, &proof, w, c->n_vars, abc, abc + n, abc + 2 * n, NULL);
	double e = now();
	zp_g16_prover_free(&p);
	CHECK(!rc, "prove with the GPU-made key");
	zp_g16_vk vk;
	CHECK(!zp_zkey_vk(&vk, gk->zkey), "vk");
	rc = zp_g16_verify(&vk, &proof, w + 1, c->n_public);
	zp_g16_vk_free(&vk);
	CHECK(!rc, "the proof does not verify");
	printf("proof verifies (backend create %.2f s, prove %.2f s)\n", b - a, e - b);
	*secs = e - b;
	free(w);
	free(abc);
	return 0;
}

static int test_key(unsigned lg)
{
	zp_circuit c;
	zp_synth_params sp;
	zp_fr t[5];
	CHECK(!synth(&c, &sp, lg), "synthetic circuit");
	toxic_for(t, 1000 + lg);
	int bad = 0;
	struct { zp_h_mode h; unsigned roots; } cases[] = { { ZP_H_SNARKJS, 5 }, { ZP_H_COEFF, 5 }, { ZP_H_SNARKJS, 7 } };
	zp_pkey kg_keep = { 0 };
	for (unsigned ci = 0; ci < 3; ci++) {
		zp_pkey kc, kg;
		zp_setup_stats sc, sg;
		zp_setup_opts o = { .h_mode = cases[ci].h, .roots = cases[ci].roots, .toxic = t, .device = 0, .stats = &sc };
		CHECK(!zp_setup(&kc, &c, &o), "CPU setup");
		o.device = 1;
		o.stats = &sg;
		CHECK(!zp_setup(&kg, &c, &o), "GPU setup");
		int same = kc.mem_bytes == kg.mem_bytes && !memcmp(kc.mem, kg.mem, kc.mem_bytes);
		printf("key 2^%u %s roots %u: CPU %.2f s, GPU %.2f s: %s\n", lg, cases[ci].h == ZP_H_SNARKJS ? "snarkjs" : "coeff",
		       cases[ci].roots, sc.total, sg.total, same ? "identical bytes" : "KEYS DIFFER");
		if (ci == 0)
			printf("TIME setup_cpu_2^%u %.3f\nTIME setup_gpu_2^%u %.3f\n", lg, sc.total, lg, sg.total);
		bad += !same;
		zp_pkey_free(&kc);
		if (ci == 0)
			kg_keep = kg;
		else
			zp_pkey_free(&kg);
	}
	double ps;
	bad += prove_cuda(zp_pkey_g16(&kg_keep), &c, &sp, &ps);
	zp_pkey_free(&kg_keep);
	zp_circuit_free(&c);
	printf("%s: key 2^%u GPU == CPU, proof verifies\n", bad ? "FAIL" : "PASS", lg);
	return bad != 0;
}

/* the first section of the two keys' bytes that differs (or the header) */
static const char *first_diff(const zp_pkey *a, const zp_pkey *b)
{
	static const char *names[ZP_PKS_N] = { "fixed points", "IC", "A", "B1", "B2", "C", "H" };   /* sec[i].id = i + 1 */
	static char buf[64];
	if (a->mem_bytes != b->mem_bytes)
		return "sizes";
	for (uint32_t i = 0; i < ZP_PKS_N; i++) {
		const zp_pkey_section *s = &a->hdr->sec[i];
		if (s->bytes && memcmp((const uint8_t *)a->mem + s->offset, (const uint8_t *)b->mem + s->offset, s->bytes)) {
			snprintf(buf, sizeof buf, "section %u (%s)", s->id, names[i]);
			return buf;
		}
	}
	return "the header";
}

static int test_bnkey(const char *path, const char *wpath)
{
	zp_r1cs r;
	zp_circuit c;
	zp_fr t[5];
	zp_rng g;
	CHECK(!zp_r1cs_read(&r, path), "read %s", path);
	int rc = zp_circuit_from_r1cs(&c, &r);
	zp_r1cs_free(&r);
	CHECK(!rc, "circuit from %s", path);
	CHECK(c.curve && c.curve->id == ZP_CURVE_BN254, "%s: not a BN254 (bn128) r1cs", path);
	unsigned lg = c.log_domain;
	zp_rng_seed(&g, 4000 + lg);
	for (int i = 0; i < 5; i++)
		zp_bn254_fr_random((zp_bn254_fr *)&t[i], &g);
	zp_pkey kc, kg, kz;
	zp_setup_stats sc, sg;
	zp_setup_opts o = { .h_mode = ZP_H_SNARKJS, .roots = 5, .toxic = t, .device = 0, .stats = &sc };
	CHECK(!zp_setup(&kc, &c, &o), "BN254 CPU setup");
	o.stats = &sg;
	CHECK(!zp_setup_cuda_host(&kg, &c, &o), "BN254 GPU setup (zp_setup_cuda_host)");
	int same = kc.mem_bytes == kg.mem_bytes && !memcmp(kc.mem, kg.mem, kc.mem_bytes), bad = !same;
	printf("BN254 key 2^%u (%u wires, %u constraints): CPU %.2f s, GPU %.2f s: %s%s\n", lg, c.n_vars, c.n_constraints,
	       sc.total, sg.total, same ? "identical bytes" : "KEYS DIFFER, first in ", same ? "" : first_diff(&kc, &kg));
	printf("TIME bn254_setup_cpu_2^%u %.3f\nTIME bn254_setup_gpu_2^%u %.3f\n", lg, sc.total, lg, sg.total);
	zp_pkey_free(&kc);
	/* zp_setup's own answer to device = 1: refused while prover/setup.c says so, else these bytes */
	o.device = 1;
	o.stats = NULL;
	zp_err_clear();
	rc = zp_setup(&kz, &c, &o);
	if (rc) {
		printf("zp_setup(device = 1) on BN254: refused (%s)\n", zp_err_msg());
		bad += rc != ZP_ERANGE;
	} else {
		int z = kz.mem_bytes == kg.mem_bytes && !memcmp(kz.mem, kg.mem, kz.mem_bytes);
		printf("zp_setup(device = 1) on BN254: made on the GPU, %s\n", z ? "the same bytes" : "DIFFERENT BYTES");
		bad += !z;
		zp_pkey_free(&kz);
	}
	if (wpath) {   /* a proof with the GPU-made key on the CUDA backend */
		zp_wtns w;
		zp_g16_prover p;
		zp_g16_proof proof;
		zp_g16_vk vk;
		CHECK(!zp_wtns_read(&w, wpath), "read %s", wpath);
		CHECK(zp_curve_of(w.curve) == zp_curve_of(c.curve) && w.n == c.n_vars, "%s: %u values of %s, the circuit has %u wires of %s", wpath, w.n,
		      w.curve ? w.curve->name : "?", c.n_vars, c.curve->name);
		CHECK(!zp_g16_prover_init(&p, zp_pkey_g16(&kg), &zp_g16_backend_cuda), "CUDA backend create");
		double a = now();
		rc = zp_g16_prover_prove(&p, &proof, &c, w.w, w.n, NULL);
		double b = now();
		zp_g16_prover_free(&p);
		CHECK(!rc, "prove with the GPU-made BN254 key");
		CHECK(!zp_zkey_vk(&vk, &kg.zk), "vk");
		rc = zp_g16_verify(&vk, &proof, w.w + 1, c.n_public);
		zp_g16_vk_free(&vk);
		zp_wtns_free(&w);
		CHECK(!rc, "the proof with the GPU-made BN254 key does not verify");
		printf("proof with the GPU-made key on the CUDA backend verifies (prove %.3f s)\n", b - a);
	}
	zp_pkey_free(&kg);
	zp_circuit_free(&c);
	printf("%s: BN254 key 2^%u GPU == CPU%s\n", bad ? "FAIL" : "PASS", lg, wpath ? ", proof verifies" : "");
	return bad != 0;
}

static int test_dev(unsigned lg, int prove)
{
	zp_circuit c;
	zp_synth_params sp;
	zp_fr t[5];
	zp_zkey z;
	zp_cuda_key_dev kd;
	zp_setup_stats st;
	double a = now();
	CHECK(!synth(&c, &sp, lg), "synthetic circuit");
	double b = now();
	printf("TIME dev_circuit_2^%u %.3f\n", lg, b - a);
	toxic_for(t, 2000 + lg);
	zp_setup_opts o = { .h_mode = ZP_H_SNARKJS, .roots = 5, .toxic = t, .stats = &st };
	CHECK(!zp_setup_device(&kd, &z, &c, &o), "device setup");
	printf("device setup 2^%u: tables %.2f s, lagrange %.2f s, A/B1/B2 %.2f s, IC/C %.2f s, H %.2f s, total %.2f s\n",
	       lg, st.tables, st.lagrange, st.ab, st.c, st.h, st.total);
	printf("TIME dev_setup_2^%u %.3f\nTIME dev_tables_2^%u %.3f\nTIME dev_lagrange_2^%u %.3f\nTIME dev_ab_2^%u %.3f\n"
	       "TIME dev_c_2^%u %.3f\nTIME dev_h_2^%u %.3f\n", lg, st.total, lg, st.tables, lg, st.lagrange, lg, st.ab, lg,
	       st.c, lg, st.h);
	int bad = 0;
	if (lg <= 18) {   /* the same toxic waste through the host GPU path: the same points */
		zp_pkey k;
		o.device = 1;
		o.stats = NULL;
		CHECK(!zp_setup(&k, &c, &o), "host GPU setup");
		size_t nv = c.n_vars, naux = nv - c.n_public - 1, n = c.domain_size;
		struct { const void *d, *h; size_t bytes; const char *name; } s[] = {
			{ kd.a, k.zk.a, nv * sizeof(zp_g1_affine), "A" }, { kd.b1, k.zk.b1, nv * sizeof(zp_g1_affine), "B1" },
			{ kd.b2, k.zk.b2, nv * sizeof(zp_g2_affine), "B2" }, { kd.c, k.zk.c, naux * sizeof(zp_g1_affine), "C" },
			{ kd.h, k.zk.h, n * sizeof(zp_g1_affine), "H" } };
		for (int i = 0; i < 5; i++) {
			void *buf = malloc(s[i].bytes);
			cudaMemcpy(buf, s[i].d, s[i].bytes, cudaMemcpyDeviceToHost);
			if (memcmp(buf, s[i].h, s[i].bytes)) {
				printf("  device key %s differs from the host key's\n", s[i].name);
				bad++;
			}
			free(buf);
		}
		if (memcmp(&z.alpha1, &k.zk.alpha1, sizeof z.alpha1) || memcmp(&z.delta2, &k.zk.delta2, sizeof z.delta2) ||
		    memcmp(z.ic, k.zk.ic, (c.n_public + 1) * sizeof(zp_g1_affine)) ||
		    memcmp(z.circuit.fingerprint, k.zk.circuit.fingerprint, 16)) {
			printf("  device key's host part (alpha1, delta2, IC, fingerprint) differs\n");
			bad++;
		}
		printf("device key 2^%u == host GPU key: %s\n", lg, bad ? "NO" : "yes");
		zp_pkey_free(&k);
	}
	if (prove) {
		zp_g16_key gk = { .zkey = &z, .h_mode = ZP_H_SNARKJS, .dev_points = &kd };
		double ps = 0;
		int r = prove_cuda(&gk, &c, &sp, &ps);
		bad += r;
		if (!r)
			printf("TIME dev_prove_2^%u %.3f\n", lg, ps);
		/* the backend adopted and freed the points: kd is zeroed */
		if (kd.a) {
			printf("  the backend did not adopt the device points\n");
			bad++;
		}
	}
	zp_cuda_key_dev_free(&kd);
	zp_zkey_free(&z);
	zp_circuit_free(&c);
	printf("%s: device-resident key 2^%u%s\n", bad ? "FAIL" : "PASS", lg, prove ? ", proof verifies" : "");
	return bad != 0;
}

int main(int argc, char **argv)
{
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
		printf("SKIP: no CUDA GPU\n");
		return 77;
	}
	char desc[160];
	if (zp_cuda_init(0, desc, sizeof desc))
		return 1;
	printf("# %s\n", desc);
	if (argc >= 3 && !strcmp(argv[1], "fb") && !strcmp(argv[2], "bn254"))
		return test_fb_bn254();
	if (argc >= 2 && !strcmp(argv[1], "fb"))
		return test_fb();
	if (argc >= 3 && !strcmp(argv[1], "bnkey"))
		return test_bnkey(argv[2], argc >= 4 ? argv[3] : NULL);
	if (argc >= 3 && !strcmp(argv[1], "key"))
		return test_key((unsigned)atoi(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "dev"))
		return test_dev((unsigned)atoi(argv[2]), !(argc >= 4 && !strcmp(argv[3], "noprove")));
	fprintf(stderr, "usage: setup_gpu fb [bn254] | key LOG | dev LOG [noprove] | bnkey R1CS [WTNS]\n");
	return 2;
}
