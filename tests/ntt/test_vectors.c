/* Known answers from ffjavascript 0.3.1 (tests/ntt/gen_vectors.js -> vectors.txt):
 *  - ffjavascript's roots Fr.w[k] (from its smallest non-residue, 5) equal our ROOT5 chain for k = 0..32,
 *    and the root its wasm Fr.fft really uses (element 1 of fft(e_1)) equals Fr.w[k] for k = 1..12;
 *  - the check values ω_12, ω_16, ω_1 = r - 1 from FORMATS.md;
 *  - Fr.fft / Fr.ifft at 2^1..2^10, coset fft (shift 7, ω_{2n}, random) at 2^1..2^6,
 *    snarkjs's H step and bellperson's H (g = 7) at 2^1..2^6. */
#include "ntt_util.h"

static char line[1 << 12];

/* Parse up to `want` hex fields of a line. */
static int fields(char *s, zp_fr *out, int want)
{
	int got = 0;
	char *save = NULL;
	for (char *tok = strtok_r(s, " \n", &save); tok && got < want; tok = strtok_r(NULL, " \n", &save))
		if (fr_from_hex(&out[got++], tok, strlen(tok)) < 0)
			return -1;
	return got;
}

static zp_fr *A, *X, *Y, *B, *Cv;

static int read_block(FILE *f, size_t n, int cols, zp_fr **dst)
{
	for (size_t i = 0; i < n; i++) {
		zp_fr v[4];
		if (!zp_test_read_line(f, line, sizeof(line), NULL) || fields(line, v, cols) != cols)
			return -1;
		for (int c = 0; c < cols; c++)
			dst[c][i] = v[c];
	}
	return 0;
}

int main(int argc, char **argv)
{
	FILE *f = zp_test_open_vectors(argc, argv);
	const char *checks[][2] = {
		{ "1", "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000" },
		{ "12", "110cebd0c8e9101be155cb4893f9e9ac565af17137d56fc0450d9f977ea8ee05" },
		{ "16", "6709c6cd56aa725b0409ee987a02402c0caba63a29c01b06137b458acfc35f7a" },
		{ "32", "0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f" },
	};
	for (int i = 0; i < 4; i++) {
		zp_fr w, e;
		zp_ntt_root(&w, (unsigned)atoi(checks[i][0]), ZP_NTT_ROOT5);
		fr_from_hex(&e, checks[i][1], 64);
		CHECK(zp_fr_eq(&w, &e), "check value omega_%s", checks[i][0]);
	}
	size_t cap = 1024;
	A = vec_alloc(cap); X = vec_alloc(cap); Y = vec_alloc(cap); B = vec_alloc(cap); Cv = vec_alloc(cap);
	int nroot = 0, nwasm = 0, nfft = 0, ncoset = 0, nsh = 0, nbh = 0;
	zp_ntt_domain doms[11];
	for (unsigned k = 0; k <= 10; k++)
		if (zp_ntt_domain_init(&doms[k], k) < 0)
			return 1;
	while (zp_test_read_line(f, line, sizeof(line), NULL)) {
		char kind[32], hex[80];
		unsigned k;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%31s %u %79s", kind, &k, hex) < 2 || k > 32) {
			fprintf(stderr, "bad line: %s", line);
			return 1;
		}
		size_t n = (size_t)1 << (k > 10 ? 0 : k);
		zp_ntt_domain *d = &doms[k > 10 ? 0 : k];
		if (!strcmp(kind, "root") || !strcmp(kind, "wasmroot")) {
			zp_fr w, e;
			zp_ntt_root(&w, k, ZP_NTT_ROOT5);
			CHECK(fr_from_hex(&e, hex, strlen(hex)) == 0 && zp_fr_eq(&w, &e), "%s %u", kind, k);
			*(kind[0] == 'r' ? &nroot : &nwasm) += 1;
		} else if (!strcmp(kind, "fft")) {
			zp_fr *dst[3] = { A, X, Y };
			if (read_block(f, n, 3, dst) < 0)
				return 1;
			memcpy(B, A, n * sizeof(zp_fr));
			zp_ntt_forward(d, B);
			CHECK(vec_eq(B, X, n), "fft 2^%u forward", k);
			memcpy(B, A, n * sizeof(zp_fr));
			zp_ntt_inverse(d, B);
			CHECK(vec_eq(B, Y, n), "fft 2^%u inverse", k);
			zp_ntt_inverse(d, X);
			CHECK(vec_eq(X, A, n), "fft 2^%u inverse of ffjavascript's forward", k);
			nfft++;
		} else if (!strcmp(kind, "coset")) {
			zp_fr s;
			zp_fr *dst[2] = { A, X };
			if (fr_from_hex(&s, hex, strlen(hex)) < 0 || read_block(f, n, 2, dst) < 0)
				return 1;
			memcpy(B, A, n * sizeof(zp_fr));
			zp_ntt_coset_forward(d, B, &s);
			CHECK(vec_eq(B, X, n), "coset 2^%u forward", k);
			zp_ntt_coset_inverse(d, X, &s);
			CHECK(vec_eq(X, A, n), "coset 2^%u inverse", k);
			if (zp_fr_eq(&s, &d->gen)) {
				memcpy(B, A, n * sizeof(zp_fr));
				zp_ntt_coset_forward_gen(d, B);
				memcpy(X, A, n * sizeof(zp_fr));
				zp_ntt_coset_forward(d, X, &s);
				CHECK(vec_eq(B, X, n), "coset 2^%u gen preset", k);
			}
			if (zp_fr_eq(&s, &d->omega_2n)) {
				memcpy(B, A, n * sizeof(zp_fr));
				zp_ntt_coset_forward_odd(d, B);
				zp_ntt_coset_inverse_odd(d, B);
				CHECK(vec_eq(B, A, n), "coset 2^%u odd preset round trip", k);
			}
			ncoset++;
		} else if (!strcmp(kind, "snarkjs_h") || !strcmp(kind, "bell_h")) {
			zp_fr *dst[4] = { A, B, Cv, X };
			if (read_block(f, n, 4, dst) < 0)
				return 1;
			if (kind[0] == 's') {
				zp_ntt_h_snarkjs(d, A, B, Cv);
				nsh++;
			} else {
				zp_ntt_h_bellperson(d, A, B, Cv);
				nbh++;
			}
			CHECK(vec_eq(A, X, n), "%s 2^%u", kind, k);
		} else {
			fprintf(stderr, "unknown record %s\n", kind);
			return 1;
		}
	}
	fclose(f);
	CHECK(nroot == 33 && nwasm == 12 && nfft == 10 && ncoset == 18 && nsh == 6 && nbh == 6,
	      "record counts %d %d %d %d %d %d", nroot, nwasm, nfft, ncoset, nsh, nbh);
	for (unsigned k = 0; k <= 10; k++)
		zp_ntt_domain_free(&doms[k]);
	if (failures)
		return 1;
	printf("ntt vectors: ok (33 roots, 12 wasm roots, 10 fft sizes, 18 cosets, 12 H)\n");
	return 0;
}
