/*
 * devkey_tmpl.h — g16_devkey's key construction for one curve, included once per curve by devkey.c with
 * DK(name) (a per-curve name), DKFR(op) / DKG1(op) / DKG2(op) (the curve's Fr, G1, G2 functions), the
 * types DK_FRT, DK_G1A, DK_G1J, DK_G2A, DK_G2J and the constants DK_FR_ONE, DK_G1_GEN, DK_G2_GEN,
 * DK_FP_MODULUS, DK_FP_BYTES, DK_FR_MODULUS, DK_NTT_ROOT(w, k) (snarkjs's roots). See devkey.c.
 */
#define G1B ((uint64_t)sizeof(DK_G1A))
#define G2B ((uint64_t)sizeof(DK_G2A))
/* ---- fixed-base tables: T[w][k-1] = k·2^(8w)·G, 32 windows of 255 points ---- */
typedef struct { DK_G1A t[32][255]; } DK(g1_table);
typedef struct { DK_G2A t[32][255]; } DK(g2_table);

static void DK(g1_table_init)(DK(g1_table) *T, const DK_G1A *g)
{
	DK_G1J b, acc, tmp[255];
	DKG1(jac_from_affine)(&b, g);
	for (int w = 0; w < 32; w++) {
		acc = b;
		for (int k = 0; k < 255; k++) {
			tmp[k] = acc;
			DKG1(jac_add)(&acc, &acc, &b);
		}
		DKG1(jac_batch_to_affine)(T->t[w], tmp, 255);
		for (int i = 0; i < 8; i++)
			DKG1(jac_dbl)(&b, &b);
	}
}

static void DK(g2_table_init)(DK(g2_table) *T, const DK_G2A *g)
{
	DK_G2J b, acc, tmp[255];
	DKG2(jac_from_affine)(&b, g);
	for (int w = 0; w < 32; w++) {
		acc = b;
		for (int k = 0; k < 255; k++) {
			tmp[k] = acc;
			DKG2(jac_add)(&acc, &acc, &b);
		}
		DKG2(jac_batch_to_affine)(T->t[w], tmp, 255);
		for (int i = 0; i < 8; i++)
			DKG2(jac_dbl)(&b, &b);
	}
}

struct DK(fb_ctx) { const void *T; const DK_FRT *k; void *out; size_t n; int g2; };

static void DK(fb_task)(void *vctx, size_t t, int worker)
{
	struct DK(fb_ctx) *c = vctx;
	size_t i0 = t * BLK, i1 = i0 + BLK < c->n ? i0 + BLK : c->n;
	for (size_t i = i0; i < i1; i++) {
		uint64_t raw[4];
		DKFR(from_mont)(raw, &c->k[i]);
		const uint8_t *by = (const uint8_t *)raw;   /* little-endian bytes */
		if (!c->g2) {
			const DK(g1_table) *T = c->T;
			DK_G1J *r = (DK_G1J *)c->out + i;
			DKG1(jac_set_inf)(r);
			for (int w = 0; w < 32; w++)
				if (by[w])
					DKG1(jac_add_affine)(r, r, &T->t[w][by[w] - 1]);
		} else {
			const DK(g2_table) *T = c->T;
			DK_G2J *r = (DK_G2J *)c->out + i;
			DKG2(jac_set_inf)(r);
			for (int w = 0; w < 32; w++)
				if (by[w])
					DKG2(jac_add_affine)(r, r, &T->t[w][by[w] - 1]);
		}
	}
}

/* out[i] = k[i]·G as affine (G1 or G2 by g2) */
static int DK(fixed_base)(const void *T, const DK_FRT *k, size_t n, void *out, int g2)
{
	void *jac = malloc(n * (g2 ? sizeof(DK_G2J) : sizeof(DK_G1J)) + 1);
	if (!jac)
		return -ENOMEM;
	struct DK(fb_ctx) c = { T, k, jac, n, g2 };
	zp_par_for((n + BLK - 1) / BLK, DK(fb_task), &c);
	if (g2)
		DKG2(jac_batch_to_affine)(out, jac, n);
	else
		DKG1(jac_batch_to_affine)(out, jac, n);
	free(jac);
	return 0;
}

static void DK(coef_bytes)(uint8_t out[32], const DK_FRT *coef)
{
	/* §4 stores coef·R² mod r: the Montgomery limbs of coef are coef·R; to_mont of that is coef·R² */
	uint64_t raw[4];
	DK_FRT y;
	memcpy(raw, coef, 32);
	DKFR(to_mont)(&y, raw);
	memcpy(out, &y, 32);
}

/* The key for circuit r1 written to out; 0, or the exit status to return. */
static int DK(devkey)(const zp_r1cs *r1p, const char *out, uint64_t seed)
{
	const zp_r1cs r1 = *r1p;
	uint32_t nv = r1.n_wires, np = r1.n_outputs + r1.n_pub_inputs, nc = r1.n_constraints, n, lg;
	if (zp_domain_for((uint64_t)nc + np + 1, &n, &lg)) {
		fprintf(stderr, "g16_devkey: circuit too large\n");
		return 3;
	}
	zp_rng g;
	zp_rng_seed(&g, seed);
	DK_FRT tau, al, be, ga, de, t;
	DKFR(random)(&tau, &g);
	DKFR(random)(&al, &g);
	DKFR(random)(&be, &g);
	DKFR(random)(&ga, &g);
	DKFR(random)(&de, &g);

	/* Lagrange basis at τ */
	DK_FRT w, w2, nn, tn, tn1, *L = malloc((size_t)n * sizeof(DK_FRT)), *d = malloc((size_t)n * sizeof(DK_FRT)),
	      *s = malloc((size_t)n * sizeof(DK_FRT));
	DK_NTT_ROOT(&w, lg);
	DK_NTT_ROOT(&w2, lg + 1);
	DKFR(from_u64)(&nn, n);
	uint64_t e = n;
	DKFR(pow)(&tn, &tau, &e, 1);
	DKFR(sub)(&tn1, &tn, &DK_FR_ONE);            /* τ^n − 1 */
	DK_FRT p = DK_FR_ONE;
	for (uint32_t i = 0; i < n; i++) {            /* d_i = n·(τ − ω^i), L_i numerators ω^i */
		DKFR(sub)(&t, &tau, &p);
		DKFR(mul)(&d[i], &t, &nn);
		L[i] = p;
		DKFR(mul)(&p, &p, &w);
	}
	DKFR(batch_inv)(d, d, n, s);
	for (uint32_t i = 0; i < n; i++) {
		DKFR(mul)(&L[i], &L[i], &d[i]);
		DKFR(mul)(&L[i], &L[i], &tn1);
	}
	/* u, v, w per wire */
	DK_FRT *u = calloc(nv, sizeof(DK_FRT)), *v = calloc(nv, sizeof(DK_FRT)), *ww = calloc(nv, sizeof(DK_FRT));
	DK_FRT *acc[3] = { u, v, ww };
	for (int m = 0; m < 3; m++)
		for (uint32_t i = 0; i < nc; i++)
			for (uint64_t k = r1.m[m].row_ptr[i]; k < r1.m[m].row_ptr[i + 1]; k++) {
				DKFR(mul)(&t, (const DK_FRT *)&r1.m[m].val[k], &L[i]);
				DKFR(add)(&acc[m][r1.m[m].col[k]], &acc[m][r1.m[m].col[k]], &t);
			}
	for (uint32_t s2 = 0; s2 <= np; s2++)
		DKFR(add)(&u[s2], &u[s2], &L[nc + s2]);
	/* K_j / γ or / δ */
	DK_FRT gi, di, *K = malloc((size_t)nv * sizeof(DK_FRT));
	DKFR(inv)(&gi, &ga);
	DKFR(inv)(&di, &de);
	for (uint32_t j = 0; j < nv; j++) {
		DK_FRT a1, b1;
		DKFR(mul)(&a1, &be, &u[j]);
		DKFR(mul)(&b1, &al, &v[j]);
		DKFR(add)(&K[j], &a1, &b1);
		DKFR(add)(&K[j], &K[j], &ww[j]);
		DKFR(mul)(&K[j], &K[j], j <= np ? &gi : &di);
	}
	/* H_j = x_j·(τ^2n − 1)/(2n·δ·(τ − x_j)) */
	DK_FRT tn2, c0, two_n_de;
	DKFR(sqr)(&tn2, &tn);
	DKFR(sub)(&tn2, &tn2, &DK_FR_ONE);
	DKFR(add)(&two_n_de, &nn, &nn);
	DKFR(mul)(&two_n_de, &two_n_de, &de);
	p = w2;
	for (uint32_t j = 0; j < n; j++) {
		DKFR(sub)(&t, &tau, &p);
		DKFR(mul)(&d[j], &t, &two_n_de);
		L[j] = p;                                  /* reuse: x_j */
		DKFR(mul)(&p, &p, &w);
	}
	DKFR(batch_inv)(d, d, n, s);
	for (uint32_t j = 0; j < n; j++) {
		DKFR(mul)(&c0, &L[j], &d[j]);
		DKFR(mul)(&L[j], &c0, &tn2);              /* L now holds the H scalars */
	}

	/* points */
	int rc = 0;
	DK(g1_table) *T1 = malloc(sizeof(*T1));
	DK(g2_table) *T2 = malloc(sizeof(*T2));
	DK(g1_table_init)(T1, &DK_G1_GEN);
	DK(g2_table_init)(T2, &DK_G2_GEN);
	DK_G1A *A = malloc((size_t)nv * G1B), *B1 = malloc((size_t)nv * G1B), *KK = malloc((size_t)nv * G1B),
		     *H = malloc((size_t)n * G1B), hdr1[3];
	DK_G2A *B2 = malloc((size_t)nv * G2B), hdr2[3];
	DK_FRT h1[3] = { al, be, de }, h2[3] = { be, ga, de };
	if (DK(fixed_base)(T1, u, nv, A, 0) || DK(fixed_base)(T1, v, nv, B1, 0) || DK(fixed_base)(T1, K, nv, KK, 0) ||
	    DK(fixed_base)(T1, L, n, H, 0) || DK(fixed_base)(T2, v, nv, B2, 1) || DK(fixed_base)(T1, h1, 3, hdr1, 0) ||
	    DK(fixed_base)(T2, h2, 3, hdr2, 1)) {
		fprintf(stderr, "g16_devkey: out of memory\n");
		rc = 70;
		goto out;
	}

	/* §4 entries: A and B of the r1cs, then the public rows */
	uint64_t ncoef = r1.m[0].nnz + r1.m[1].nnz + np + 1;
	FILE *f = fopen(out, "wb");
	if (!f) {
		perror(out);
		rc = 7;
		goto out;
	}
	fwrite("zkey", 4, 1, f);
	put32(f, 1);
	put32(f, 9);
	section(f, 1, 4);
	put32(f, 1);
	section(f, 2, 4 + DK_FP_BYTES + 4 + 32 + 12 + 3 * G1B + 3 * G2B);
	put32(f, DK_FP_BYTES);
	fwrite(DK_FP_MODULUS, DK_FP_BYTES, 1, f);
	put32(f, 32);
	fwrite(DK_FR_MODULUS, 32, 1, f);
	put32(f, nv);
	put32(f, np);
	put32(f, n);
	fwrite(&hdr1[0], G1B, 1, f);    /* alpha1 */
	fwrite(&hdr1[1], G1B, 1, f);    /* beta1 */
	fwrite(&hdr2[0], G2B, 1, f);   /* beta2 */
	fwrite(&hdr2[1], G2B, 1, f);   /* gamma2 */
	fwrite(&hdr1[2], G1B, 1, f);    /* delta1 */
	fwrite(&hdr2[2], G2B, 1, f);   /* delta2 */
	section(f, 3, (uint64_t)(np + 1) * G1B);
	fwrite(KK, G1B, np + 1, f);
	section(f, 4, 4 + ncoef * 44);
	put32(f, (uint32_t)ncoef);
	for (int m = 0; m < 2; m++)
		for (uint32_t i = 0; i < nc; i++)
			for (uint64_t k = r1.m[m].row_ptr[i]; k < r1.m[m].row_ptr[i + 1]; k++) {
				uint8_t b[32];
				put32(f, m);
				put32(f, i);
				put32(f, r1.m[m].col[k]);
				DK(coef_bytes)(b, (const DK_FRT *)&r1.m[m].val[k]);
				fwrite(b, 32, 1, f);
			}
	for (uint32_t s2 = 0; s2 <= np; s2++) {
		uint8_t b[32];
		put32(f, 0);
		put32(f, nc + s2);
		put32(f, s2);
		DK(coef_bytes)(b, &DK_FR_ONE);
		fwrite(b, 32, 1, f);
	}
	section(f, 5, (uint64_t)nv * G1B);
	fwrite(A, G1B, nv, f);
	section(f, 6, (uint64_t)nv * G1B);
	fwrite(B1, G1B, nv, f);
	section(f, 7, (uint64_t)nv * G2B);
	fwrite(B2, G2B, nv, f);
	section(f, 8, (uint64_t)(nv - np - 1) * G1B);
	fwrite(KK + np + 1, G1B, nv - np - 1, f);
	section(f, 9, (uint64_t)n * G1B);
	fwrite(H, G1B, n, f);
	if (fclose(f)) {
		perror(out);
		rc = 7;
		goto out;
	}
	printf("g16_devkey: %s: %u wires, %u public, domain 2^%u (INSECURE development key, seed %llu)\n", out,
	       nv, np, lg, (unsigned long long)seed);
out: /* everything freed, also on the error paths (the sanitizer build checks leaks) */
	free(L), free(d), free(s), free(u), free(v), free(ww), free(K), free(T1), free(T2);
	free(A), free(B1), free(KK), free(H), free(B2);
	return rc;
}

#undef G1B
#undef G2B
