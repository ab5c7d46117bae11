/* The fast sparse products (coefficient codes, lazily reduced sums, row-block evaluation) give
 * the reference's bytes: zp_csr_mul = zp_csr_mul_ref and zp_circuit_eval = zp_circuit_eval_ref on
 * a hand-built circuit with every kind of coefficient (1, −1, 2^k, r − 1, random) and of witness
 * value (0, 1, r − 1, random), rows long enough to wrap the accumulator many times, and circuits
 * with and without C; the code table holds 1, 2^k, −1; codes classify values; the synthetic fused
 * pass equals its reference for bool shares 0.99 and 0.75; and the bytes are pinned to those of
 * the build before codes (commit 4fbbff4, 32-byte values): fingerprint, witness, a/b/c hashes. */
#include <xxhash.h>

#include "circuit.h"
#include "synth.h"
#include "util.h"

static void rand_fr(zp_fr *x, zp_rng *g, int kind)
{
	const zp_fr *tab = zp_coef_values();
	switch (kind) {
	case 0: *x = ZP_FR_ZERO; break;
	case 1: *x = ZP_FR_ONE; break;
	case 2: *x = tab[ZP_COEF_NEG1]; break;       /* r − 1 */
	case 3: *x = tab[1 + zp_rng_next(g) % ZP_COEF_POW2_MAX]; break;
	default: zp_fr_random(x, g); break;
	}
}

static int build(zp_circuit *c, zp_rng *g, uint32_t rows, uint32_t nv, int has_c)
{
	memset(c, 0, sizeof(*c));
	c->n_vars = nv;
	c->n_public = 1;
	c->domain_size = rows;
	c->has_c = has_c;
	for (int m = 0; m < 3; m++) {
		zp_csr *s = &c->m[m];
		if (m == 2 && !has_c) {
			s->cols = nv;
			continue;
		}
		s->rows = rows;
		s->cols = nv;
		s->row_ptr = calloc(rows + 1, sizeof(uint64_t));
		for (uint32_t r = 0; r < rows; r++) {
			uint32_t len = r == 5 ? 3000 : r == 6 ? nv : (uint32_t)(zp_rng_next(g) % 9);
			s->row_ptr[r + 1] = s->row_ptr[r] + len;
		}
		s->nnz = s->row_ptr[rows];
		s->col = malloc(s->nnz * sizeof(uint32_t));
		s->val = malloc(s->nnz * sizeof(zp_fr));
		for (uint32_t r = 0; r < rows; r++)
			for (uint64_t k = s->row_ptr[r]; k < s->row_ptr[r + 1]; k++) {
				s->col[k] = r == 6 ? (uint32_t)(k - s->row_ptr[r]) : (uint32_t)(zp_rng_next(g) % nv);
				/* row 5: 3000 times r − 1 times big values: the accumulator wraps again and again */
				rand_fr(&s->val[k], g, r == 5 ? 2 : (int)(zp_rng_next(g) % 6));
			}
	}
	return zp_circuit_finish(c);
}

int main(void)
{
	zp_rng g;
	zp_rng_seed(&g, 42);
	const zp_fr *tab = zp_coef_values();
	zp_fr two, t;
	zp_fr_from_u64(&two, 2);
	t = ZP_FR_ONE;
	CHECK(zp_fr_eq(&tab[ZP_COEF_ONE], &ZP_FR_ONE), "code 0 is not 1");
	for (int k = 1; k <= ZP_COEF_POW2_MAX; k++) {
		zp_fr_mul(&t, &t, &two);
		CHECK(zp_fr_eq(&tab[k], &t), "code %d is not 2^%d", k, k);
	}
	zp_fr_neg(&t, &ZP_FR_ONE);
	CHECK(zp_fr_eq(&tab[ZP_COEF_NEG1], &t), "code NEG1 is not -1");

	for (int has_c = 0; has_c < 2; has_c++) {
		zp_circuit c;
		uint32_t rows = 4096 * 3 + 17, nv = 700;
		CHECK(build(&c, &g, rows, nv, has_c) == 0, "build");
		for (int m = 0; m < (has_c ? 3 : 2); m++)
			for (uint64_t k = 0; k < c.m[m].nnz; k++) {
				uint8_t code = c.m[m].code[k];
				CHECK(code == ZP_COEF_OTHER ? 1 : zp_fr_eq(&tab[code], &c.m[m].val[k]), "code %u wrong", code);
				if (code == ZP_COEF_OTHER)
					for (int j = 0; j < ZP_COEF_OTHER; j++)
						CHECK(!zp_fr_eq(&tab[j], &c.m[m].val[k]), "value of code %d coded OTHER", j);
			}
		zp_fr *w = malloc(nv * sizeof(zp_fr)), *x = malloc(3 * rows * sizeof(zp_fr)),
		      *y = malloc(3 * rows * sizeof(zp_fr));
		for (int pass = 0; pass < 3; pass++) {
			for (uint32_t i = 0; i < nv; i++) {  /* pass 0: bits, 1: mixed, 2: big values */
				uint64_t u = zp_rng_next(&g);
				rand_fr(&w[i], &g, pass == 0 ? (int)(u % 2) : pass == 1 ? (int)(u % 6) : 2 + (int)(u % 3));
			}
			memset(x, 0x55, 3 * rows * sizeof(zp_fr));
			memset(y, 0xaa, 3 * rows * sizeof(zp_fr));
			zp_circuit_eval_ref(&c, w, x, x + rows, x + 2 * rows);
			zp_circuit_eval(&c, w, y, y + rows, y + 2 * rows);
			CHECK(!memcmp(x, y, 3 * rows * sizeof(zp_fr)), "eval differs (C %d, pass %d)", has_c, pass);
			for (int m = 0; m < 2; m++) {
				zp_csr_mul(&c.m[m], w, y);
				CHECK(!memcmp(x + m * rows, y, rows * sizeof(zp_fr)), "zp_csr_mul differs (%c, pass %d)", "AB"[m], pass);
			}
			/* without codes: val only */
			for (int m = 0; m < 3; m++) {
				free(c.m[m].code);
				c.m[m].code = NULL;
			}
			zp_circuit_eval(&c, w, y, y + rows, y + 2 * rows);
			CHECK(!memcmp(x, y, 3 * rows * sizeof(zp_fr)), "eval without codes differs (C %d, pass %d)", has_c, pass);
			for (int m = 0; m < (has_c ? 3 : 2); m++)
				CHECK(zp_csr_code(&c.m[m]) == 0, "codes");
		}
		free(w);
		free(x);
		free(y);
		zp_circuit_free(&c);
	}

	double shares[4] = { 0.99, 0.75, 0.99, 0.75 };
	for (int i = 0; i < 4; i++) {
		zp_synth_params p;
		zp_synth_params_porep(&p, 30000);
		p.bool_share = shares[i];
		p.gen = i < 2 ? 2 : 1;
		p.window = 4096;
		zp_circuit c;
		CHECK(zp_synth_circuit(&c, &p) == 0, "synth build");
		size_t nv = c.n_vars, n = c.domain_size;
		zp_fr *w1 = malloc(nv * sizeof(zp_fr)), *w2 = malloc(nv * sizeof(zp_fr));
		zp_fr *f1 = malloc(3 * n * sizeof(zp_fr)), *f2 = malloc(3 * n * sizeof(zp_fr));
		CHECK(zp_synth_witness_abc_ref(w1, f1, f1 + n, f1 + 2 * n, &c, &p, 3) == 0, "ref pass");
		CHECK(zp_synth_witness_abc(w2, f2, f2 + n, f2 + 2 * n, &c, &p, 3) == 0, "fast pass");
		CHECK(!memcmp(w1, w2, nv * sizeof(zp_fr)), "bool %.2f: witness differs", shares[i]);
		CHECK(!memcmp(f1, f2, 3 * n * sizeof(zp_fr)), "bool %.2f: a, b, c differ", shares[i]);
		CHECK(zp_synth_witness(w2, &c, &p, 3) == 0 && !memcmp(w1, w2, nv * sizeof(zp_fr)), "witness only differs");
		zp_circuit_eval_ref(&c, w1, f2, f2 + n, f2 + 2 * n);
		CHECK(!memcmp(f1, f2, 3 * n * sizeof(zp_fr)), "bool %.2f: fused pass differs from the reference eval", shares[i]);
		CHECK(zp_circuit_check(&c, f1, f1 + n, f1 + 2 * n) == 0, "bool %.2f: unsatisfied", shares[i]);
		free(w1);
		free(w2);
		free(f1);
		free(f2);
		zp_circuit_free(&c);
	}
	{ /* pinned: computed by 4fbbff4's library (values stored as 32 bytes, one modular add per term), whose
	   * rows are gen=1's */
		zp_synth_params p;
		zp_synth_params_porep(&p, 100000);
		p.gen = 1;
		zp_circuit c;
		char h[33];
		CHECK(zp_synth_circuit(&c, &p) == 0, "synth build");
		CHECK(!c.m[0].val && c.m[0].code, "synthetic circuit keeps 32-byte values");
		zp_circuit_fingerprint_hex(&c, h);
		CHECK(!strcmp(h, "3d9eb64e68e0480a9c1aaa3cca92ab3c"), "fingerprint changed: %s", h);
		zp_circuit_free(&c);
		p.bool_share = 0.99;
		CHECK(zp_synth_circuit(&c, &p) == 0, "synth build");
		size_t n = c.domain_size;
		zp_fr *w = malloc(c.n_vars * sizeof(zp_fr)), *f = malloc(3 * n * sizeof(zp_fr));
		CHECK(zp_synth_witness_abc(w, f, f + n, f + 2 * n, &c, &p, 11) == 0, "witness");
		CHECK(XXH3_64bits(w, c.n_vars * sizeof(zp_fr)) == 0xa38e389d7c9f3207ULL, "witness bytes changed");
		CHECK(XXH3_64bits(f, 3 * n * sizeof(zp_fr)) == 0x8febabea9180a7c5ULL, "a, b, c bytes changed");
		memset(f, 0, 3 * n * sizeof(zp_fr));
		zp_circuit_eval(&c, w, f, f + n, f + 2 * n);
		CHECK(XXH3_64bits(f, 3 * n * sizeof(zp_fr)) == 0x8febabea9180a7c5ULL, "eval bytes changed");
		free(w);
		free(f);
		zp_circuit_free(&c);
	}
	return DONE();
}
