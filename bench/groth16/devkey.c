/*
 * g16_devkey — a snarkjs-format Groth16 .zkey for an .r1cs from toxic waste drawn from a seed.
 *
 *   g16_devkey CIRCUIT.r1cs OUT.zkey [seed]
 *
 * DEVELOPMENT AND BENCHMARKS ONLY: anyone who knows the seed can forge proofs. It exists because
 * snarkjs's own route (powers of tau + prepare phase2 in JavaScript) takes hours past 2^16 on a
 * small machine; snarkjs proves and verifies with the key this writes (bench/groth16/run.sh checks).
 *
 * With τ, α, β, γ, δ and the domain ω (snarkjs's, from 5) of size n:
 *   L_i(τ) = (τ^n − 1)·ω^i / (n·(τ − ω^i)),  u_j = Σ_i A[i][j]·L_i(τ) (v: B, w: C; the public rows
 *   nConstraints + s carry A[.][s] = 1),  K_j = β·u_j + α·v_j + w_j;
 *   A_j = u_j·G1, B1_j = v_j·G1, B2_j = v_j·G2, IC_j = K_j/γ·G1 (j <= nPublic), C_j = K_j/δ·G1;
 *   H_j = x_j·(τ^2n − 1) / (2n·δ·(τ − x_j))·G1 with x_j = ω_2n·ω^j — the odd-root basis: for h of
 *   degree < n, Σ_j (−2·h(x_j))·H_j = h(τ)·Z(τ)/δ, which is what snarkjs's prover relies on.
 * Points are computed with 8-bit fixed-base tables, in parallel.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ec.h"
#include "ntt.h"
#include "par.h"
#include "r1cs.h"
#include "zp_err.h"

/* ---- fixed-base tables: T[w][k-1] = k·2^(8w)·G, 32 windows of 255 points ---- */
typedef struct { zp_g1_affine t[32][255]; } g1_table;
typedef struct { zp_g2_affine t[32][255]; } g2_table;

static void g1_table_init(g1_table *T, const zp_g1_affine *g)
{
	zp_g1_jac b, acc, tmp[255];
	zp_g1_jac_from_affine(&b, g);
	for (int w = 0; w < 32; w++) {
		acc = b;
		for (int k = 0; k < 255; k++) {
			tmp[k] = acc;
			zp_g1_jac_add(&acc, &acc, &b);
		}
		zp_g1_jac_batch_to_affine(T->t[w], tmp, 255);
		for (int i = 0; i < 8; i++)
			zp_g1_jac_dbl(&b, &b);
	}
}

static void g2_table_init(g2_table *T, const zp_g2_affine *g)
{
	zp_g2_jac b, acc, tmp[255];
	zp_g2_jac_from_affine(&b, g);
	for (int w = 0; w < 32; w++) {
		acc = b;
		for (int k = 0; k < 255; k++) {
			tmp[k] = acc;
			zp_g2_jac_add(&acc, &acc, &b);
		}
		zp_g2_jac_batch_to_affine(T->t[w], tmp, 255);
		for (int i = 0; i < 8; i++)
			zp_g2_jac_dbl(&b, &b);
	}
}

#define BLK 1024
struct fb_ctx { const void *T; const zp_fr *k; void *out; size_t n; int g2; };

static void fb_task(void *vctx, size_t t, int worker)
{
	struct fb_ctx *c = vctx;
	size_t i0 = t * BLK, i1 = i0 + BLK < c->n ? i0 + BLK : c->n;
	for (size_t i = i0; i < i1; i++) {
		uint64_t raw[4];
		zp_fr_from_mont(raw, &c->k[i]);
		const uint8_t *by = (const uint8_t *)raw;   /* little-endian bytes */
		if (!c->g2) {
			const g1_table *T = c->T;
			zp_g1_jac *r = (zp_g1_jac *)c->out + i;
			zp_g1_jac_set_inf(r);
			for (int w = 0; w < 32; w++)
				if (by[w])
					zp_g1_jac_add_affine(r, r, &T->t[w][by[w] - 1]);
		} else {
			const g2_table *T = c->T;
			zp_g2_jac *r = (zp_g2_jac *)c->out + i;
			zp_g2_jac_set_inf(r);
			for (int w = 0; w < 32; w++)
				if (by[w])
					zp_g2_jac_add_affine(r, r, &T->t[w][by[w] - 1]);
		}
	}
}

/* out[i] = k[i]·G as affine (G1 or G2 by g2) */
static int fixed_base(const void *T, const zp_fr *k, size_t n, void *out, int g2)
{
	void *jac = malloc(n * (g2 ? sizeof(zp_g2_jac) : sizeof(zp_g1_jac)) + 1);
	if (!jac)
		return -ENOMEM;
	struct fb_ctx c = { T, k, jac, n, g2 };
	zp_par_for((n + BLK - 1) / BLK, fb_task, &c);
	if (g2)
		zp_g2_jac_batch_to_affine(out, jac, n);
	else
		zp_g1_jac_batch_to_affine(out, jac, n);
	free(jac);
	return 0;
}

/* ---- writing the container ---- */
static void put32(FILE *f, uint32_t v) { fwrite(&v, 4, 1, f); }
static void put64(FILE *f, uint64_t v) { fwrite(&v, 8, 1, f); }
static void section(FILE *f, uint32_t id, uint64_t size) { put32(f, id); put64(f, size); }

static void coef_bytes(uint8_t out[32], const zp_fr *coef)
{
	/* §4 stores coef·R² mod r: the Montgomery limbs of coef are coef·R; to_mont of that is coef·R² */
	uint64_t raw[4];
	zp_fr y;
	memcpy(raw, coef, 32);
	zp_fr_to_mont(&y, raw);
	memcpy(out, &y, 32);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: g16_devkey CIRCUIT.r1cs OUT.zkey [seed]   (development keys: insecure)\n");
		return 2;
	}
	uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 0) : 1;
	zp_r1cs r1;
	if (zp_r1cs_read(&r1, argv[1])) {
		fprintf(stderr, "g16_devkey: %s\n", zp_err_msg());
		return 3;
	}
	uint32_t nv = r1.n_wires, np = r1.n_outputs + r1.n_pub_inputs, nc = r1.n_constraints, n, lg;
	if (zp_domain_for((uint64_t)nc + np + 1, &n, &lg)) {
		fprintf(stderr, "g16_devkey: circuit too large\n");
		return 3;
	}
	zp_rng g;
	zp_rng_seed(&g, seed);
	zp_fr tau, al, be, ga, de, t;
	zp_fr_random(&tau, &g);
	zp_fr_random(&al, &g);
	zp_fr_random(&be, &g);
	zp_fr_random(&ga, &g);
	zp_fr_random(&de, &g);

	/* Lagrange basis at τ */
	zp_fr w, w2, nn, tn, tn1, *L = malloc((size_t)n * sizeof(zp_fr)), *d = malloc((size_t)n * sizeof(zp_fr)),
	      *s = malloc((size_t)n * sizeof(zp_fr));
	zp_ntt_root(&w, lg, ZP_NTT_ROOT5);
	zp_ntt_root(&w2, lg + 1, ZP_NTT_ROOT5);
	zp_fr_from_u64(&nn, n);
	uint64_t e = n;
	zp_fr_pow(&tn, &tau, &e, 1);
	zp_fr_sub(&tn1, &tn, &ZP_FR_ONE);            /* τ^n − 1 */
	zp_fr p = ZP_FR_ONE;
	for (uint32_t i = 0; i < n; i++) {            /* d_i = n·(τ − ω^i), L_i numerators ω^i */
		zp_fr_sub(&t, &tau, &p);
		zp_fr_mul(&d[i], &t, &nn);
		L[i] = p;
		zp_fr_mul(&p, &p, &w);
	}
	zp_fr_batch_inv(d, d, n, s);
	for (uint32_t i = 0; i < n; i++) {
		zp_fr_mul(&L[i], &L[i], &d[i]);
		zp_fr_mul(&L[i], &L[i], &tn1);
	}
	/* u, v, w per wire */
	zp_fr *u = calloc(nv, sizeof(zp_fr)), *v = calloc(nv, sizeof(zp_fr)), *ww = calloc(nv, sizeof(zp_fr));
	zp_fr *acc[3] = { u, v, ww };
	for (int m = 0; m < 3; m++)
		for (uint32_t i = 0; i < nc; i++)
			for (uint64_t k = r1.m[m].row_ptr[i]; k < r1.m[m].row_ptr[i + 1]; k++) {
				zp_fr_mul(&t, &r1.m[m].val[k], &L[i]);
				zp_fr_add(&acc[m][r1.m[m].col[k]], &acc[m][r1.m[m].col[k]], &t);
			}
	for (uint32_t s2 = 0; s2 <= np; s2++)
		zp_fr_add(&u[s2], &u[s2], &L[nc + s2]);
	/* K_j / γ or / δ */
	zp_fr gi, di, *K = malloc((size_t)nv * sizeof(zp_fr));
	zp_fr_inv(&gi, &ga);
	zp_fr_inv(&di, &de);
	for (uint32_t j = 0; j < nv; j++) {
		zp_fr a1, b1;
		zp_fr_mul(&a1, &be, &u[j]);
		zp_fr_mul(&b1, &al, &v[j]);
		zp_fr_add(&K[j], &a1, &b1);
		zp_fr_add(&K[j], &K[j], &ww[j]);
		zp_fr_mul(&K[j], &K[j], j <= np ? &gi : &di);
	}
	/* H_j = x_j·(τ^2n − 1)/(2n·δ·(τ − x_j)) */
	zp_fr tn2, c0, two_n_de;
	zp_fr_sqr(&tn2, &tn);
	zp_fr_sub(&tn2, &tn2, &ZP_FR_ONE);
	zp_fr_add(&two_n_de, &nn, &nn);
	zp_fr_mul(&two_n_de, &two_n_de, &de);
	p = w2;
	for (uint32_t j = 0; j < n; j++) {
		zp_fr_sub(&t, &tau, &p);
		zp_fr_mul(&d[j], &t, &two_n_de);
		L[j] = p;                                  /* reuse: x_j */
		zp_fr_mul(&p, &p, &w);
	}
	zp_fr_batch_inv(d, d, n, s);
	for (uint32_t j = 0; j < n; j++) {
		zp_fr_mul(&c0, &L[j], &d[j]);
		zp_fr_mul(&L[j], &c0, &tn2);              /* L now holds the H scalars */
	}

	/* points */
	g1_table *T1 = malloc(sizeof(*T1));
	g2_table *T2 = malloc(sizeof(*T2));
	g1_table_init(T1, &ZP_G1_GEN);
	g2_table_init(T2, &ZP_G2_GEN);
	zp_g1_affine *A = malloc((size_t)nv * 96), *B1 = malloc((size_t)nv * 96), *KK = malloc((size_t)nv * 96),
		     *H = malloc((size_t)n * 96), hdr1[3];
	zp_g2_affine *B2 = malloc((size_t)nv * 192), hdr2[3];
	zp_fr h1[3] = { al, be, de }, h2[3] = { be, ga, de };
	if (fixed_base(T1, u, nv, A, 0) || fixed_base(T1, v, nv, B1, 0) || fixed_base(T1, K, nv, KK, 0) ||
	    fixed_base(T1, L, n, H, 0) || fixed_base(T2, v, nv, B2, 1) || fixed_base(T1, h1, 3, hdr1, 0) ||
	    fixed_base(T2, h2, 3, hdr2, 1)) {
		fprintf(stderr, "g16_devkey: out of memory\n");
		return 70;
	}

	/* §4 entries: A and B of the r1cs, then the public rows */
	uint64_t ncoef = r1.m[0].nnz + r1.m[1].nnz + np + 1;
	FILE *f = fopen(argv[2], "wb");
	if (!f) {
		perror(argv[2]);
		return 7;
	}
	fwrite("zkey", 4, 1, f);
	put32(f, 1);
	put32(f, 9);
	section(f, 1, 4);
	put32(f, 1);
	section(f, 2, 4 + 48 + 4 + 32 + 12 + 3 * 96 + 3 * 192);
	put32(f, 48);
	fwrite(ZP_FP_MODULUS, 48, 1, f);
	put32(f, 32);
	fwrite(ZP_FR_MODULUS, 32, 1, f);
	put32(f, nv);
	put32(f, np);
	put32(f, n);
	fwrite(&hdr1[0], 96, 1, f);    /* alpha1 */
	fwrite(&hdr1[1], 96, 1, f);    /* beta1 */
	fwrite(&hdr2[0], 192, 1, f);   /* beta2 */
	fwrite(&hdr2[1], 192, 1, f);   /* gamma2 */
	fwrite(&hdr1[2], 96, 1, f);    /* delta1 */
	fwrite(&hdr2[2], 192, 1, f);   /* delta2 */
	section(f, 3, (uint64_t)(np + 1) * 96);
	fwrite(KK, 96, np + 1, f);
	section(f, 4, 4 + ncoef * 44);
	put32(f, (uint32_t)ncoef);
	for (int m = 0; m < 2; m++)
		for (uint32_t i = 0; i < nc; i++)
			for (uint64_t k = r1.m[m].row_ptr[i]; k < r1.m[m].row_ptr[i + 1]; k++) {
				uint8_t b[32];
				put32(f, m);
				put32(f, i);
				put32(f, r1.m[m].col[k]);
				coef_bytes(b, &r1.m[m].val[k]);
				fwrite(b, 32, 1, f);
			}
	for (uint32_t s2 = 0; s2 <= np; s2++) {
		uint8_t b[32];
		put32(f, 0);
		put32(f, nc + s2);
		put32(f, s2);
		coef_bytes(b, &ZP_FR_ONE);
		fwrite(b, 32, 1, f);
	}
	section(f, 5, (uint64_t)nv * 96);
	fwrite(A, 96, nv, f);
	section(f, 6, (uint64_t)nv * 96);
	fwrite(B1, 96, nv, f);
	section(f, 7, (uint64_t)nv * 192);
	fwrite(B2, 192, nv, f);
	section(f, 8, (uint64_t)(nv - np - 1) * 96);
	fwrite(KK + np + 1, 96, nv - np - 1, f);
	section(f, 9, (uint64_t)n * 96);
	fwrite(H, 96, n, f);
	if (fclose(f)) {
		perror(argv[2]);
		return 7;
	}
	printf("g16_devkey: %s: %u wires, %u public, domain 2^%u (INSECURE development key, seed %llu)\n", argv[2],
	       nv, np, lg, (unsigned long long)seed);
	return 0;
}
