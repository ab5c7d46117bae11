/* bellperson .params: a coefficient-H key written as .params and read back (with the circuit's
 * densities) is the same key — every point, the unstored last H point aside — and proves; points
 * at infinity are really left out of a, b_g1, b_g2; a key for another circuit, a truncated file,
 * a point off the curve and trailing bytes are refused. args: DIR (writable) */
#include <unistd.h>

#include "groth16.h"
#include "params.h"
#include "setup.h"
#include "synth.h"
#include "util.h"

static long file_size(const char *p)
{
	FILE *f = fopen(p, "rb");
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	char path[600], bad[620];
	snprintf(path, sizeof(path), "%s/scale_test.params", argc > 1 ? argv[1] : ".");
	snprintf(bad, sizeof(bad), "%s/scale_test_bad.params", argc > 1 ? argv[1] : ".");
	zp_synth_params p;
	zp_synth_params_porep(&p, 600);
	p.n_public = 4;
	p.nnz_b = 0.95;   /* B leaves some wires out: b_g1/b_g2 are sparse */
	zp_circuit c, c2;
	zp_pkey k, l;
	CHECK(zp_synth_circuit(&c, &p) == 0, "synth");
	CHECK(c.b_count < c.n_vars, "B density is full (%llu of %u)", (unsigned long long)c.b_count, c.n_vars);
	zp_setup_opts so = { .h_mode = ZP_H_COEFF };
	CHECK(zp_setup(&k, &c, &so) == 0, "setup");
	CHECK(zp_params_write(&k, path) == 0, "write");
	long want = 3 * 96 + 3 * 192 + 6 * 4 +
		    96 * (long)((p.n_public + 1) + (c.domain_size - 1) + (c.n_vars - p.n_public - 1) + c.a_count + c.b_count) +
		    192 * (long)c.b_count;
	CHECK(file_size(path) == want, "size %ld, want %ld", file_size(path), want);
	CHECK(zp_params_read(&l, path, &c, 5) == 0, "read");
	const zp_pkey_header *h = k.hdr;
	for (int i = 0; i < ZP_PKS_N; i++) {
		size_t n = h->sec[i].bytes - (i == ZP_PKS_H - 1 ? 96 : 0);
		CHECK(!memcmp((uint8_t *)k.mem + h->sec[i].offset, (uint8_t *)l.mem + h->sec[i].offset, n),
		      "section %d differs after the round trip", i + 1);
	}
	zp_fr *w = malloc(c.n_vars * sizeof(zp_fr));
	zp_g16_proof pr;
	CHECK(zp_synth_witness(w, &c, &p, 3) == 0 && zp_g16_prove(&pr, zp_pkey_g16(&l), &c, w, c.n_vars, NULL) == 0,
	      "prove with the key read from .params");
	zp_pkey_free(&l);

	zp_synth_params q = p;
	q.seed = 5;
	CHECK(zp_synth_circuit(&c2, &q) == 0, "synth 2");
	int rc = zp_params_read(&l, path, &c2, 0);
	CHECK(rc == ZP_EMISMATCH, "another circuit's densities accepted: %s", zp_strerror(rc));
	/* truncated */
	FILE *f = fopen(path, "rb"), *g = fopen(bad, "wb");
	uint8_t *all = malloc((size_t)want);
	CHECK(fread(all, 1, (size_t)want, f) == (size_t)want, "read back");
	fwrite(all, 1, (size_t)want - 50, g);
	fclose(g);
	CHECK(zp_params_read(&l, bad, &c, 0) == ZP_ETRUNC, "truncated accepted");
	/* off the curve: last byte of beta_g1's y */
	all[2 * 96 - 1] ^= 1;
	g = fopen(bad, "wb");
	fwrite(all, 1, (size_t)want, g);
	fclose(g);
	rc = zp_params_read(&l, bad, &c, 0);
	CHECK(rc == ZP_EINVAL_POINT && strstr(zp_err_msg(), "beta_g1"), "bad point: %s", zp_err_msg());
	all[2 * 96 - 1] ^= 1;
	g = fopen(bad, "wb");
	fwrite(all, 1, (size_t)want, g);
	fwrite("x", 1, 1, g);
	fclose(g);
	CHECK(zp_params_read(&l, bad, &c, 0) == ZP_EFORMAT, "trailing byte accepted");
	fclose(f);
	unlink(bad);
	unlink(path);
	free(all);
	free(w);
	zp_pkey_free(&k);
	zp_circuit_free(&c);
	zp_circuit_free(&c2);
	return DONE();
}
