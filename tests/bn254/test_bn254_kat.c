/*
 * test_bn254_kat.c — common/bn254* against ffjavascript's bn128 (vectors.txt from gen_vectors.js; the
 * record formats are described there): fields, Fp2/Fp12 products, G1/G2 multiples and sums, the
 * snarkjs/Ethereum byte encoding both ways, a small G1 MSM, the pairing, and the NTT roots.
 */
#include "bn254.h"
#include "bn254_msm.h"
#include "bn254_ntt.h"
#include "zp_consts.h"
#include "zp_err.h"

#include "../common/zp_test.h"

typedef zp_bn254_fp fp;
typedef zp_bn254_fr fr;

static char *tok(void) { return strtok(NULL, " \n"); }

static fp rd_fp(void)
{
	fp a;
	char *t = tok();
	if (!t || zp_bn254_fp_from_dec(&a, t) < 0) {
		fprintf(stderr, "bad fp operand\n");
		exit(1);
	}
	return a;
}

static fr rd_fr(void)
{
	fr a;
	char *t = tok();
	if (!t || zp_bn254_fr_from_dec(&a, t) < 0) {
		fprintf(stderr, "bad fr operand\n");
		exit(1);
	}
	return a;
}

static zp_bn254_fp2 rd_fp2(void)
{
	zp_bn254_fp2 a;
	a.c0 = rd_fp();
	a.c1 = rd_fp();
	return a;
}

static zp_bn254_fp12 rd_fp12(void)
{
	zp_bn254_fp12 a;
	fp *c = &a.c0.c0.c0;
	for (int i = 0; i < 12; i++)
		c[i] = rd_fp();
	return a;
}

static zp_bn254_g1_affine rd_g1(void) { zp_bn254_g1_affine p; p.x = rd_fp(); p.y = rd_fp(); return p; }
static zp_bn254_g2_affine rd_g2(void) { zp_bn254_g2_affine p; p.x = rd_fp2(); p.y = rd_fp2(); return p; }

static void g1_k(zp_bn254_g1_affine *r, const fr *k)
{
	zp_bn254_g1_jac j;
	zp_bn254_g1_jac_from_affine(&j, &ZP_BN254_G1_GEN);
	zp_bn254_g1_jac_mul(&j, &j, k);
	zp_bn254_g1_jac_to_affine(r, &j);
}

static void g2_k(zp_bn254_g2_affine *r, const fr *k)
{
	zp_bn254_g2_jac j;
	zp_bn254_g2_jac_from_affine(&j, &ZP_BN254_G2_GEN);
	zp_bn254_g2_jac_mul(&j, &j, k);
	zp_bn254_g2_jac_to_affine(r, &j);
}

#define FIELD_OPS(F, T, RD)                                                                  \
	static void F##_rec(const char *op, int ln)                                           \
	{                                                                                     \
		T a = RD(), b, r, want;                                                       \
		if (!strcmp(op, "mont")) {                                                    \
			char *h = tok();                                                      \
			uint8_t mem[32];   /* the hex is the element's memory, byte 0 first */    \
			CHECK(h && zp_test_hex_be(mem, 32, h, strlen(h)) == 0, "line %d hex", ln); \
			CHECK(memcmp(mem, a.l, 32) == 0, "line %d: Montgomery bytes", ln);    \
			return;                                                               \
		}                                                                             \
		if (!strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "mul"))          \
			b = RD();                                                             \
		want = RD();                                                                  \
		if (!strcmp(op, "add")) zp_bn254_##F##_add(&r, &a, &b);                       \
		else if (!strcmp(op, "sub")) zp_bn254_##F##_sub(&r, &a, &b);                  \
		else if (!strcmp(op, "mul")) zp_bn254_##F##_mul(&r, &a, &b);                  \
		else if (!strcmp(op, "sqr")) zp_bn254_##F##_sqr(&r, &a);                      \
		else if (!strcmp(op, "neg")) zp_bn254_##F##_neg(&r, &a);                      \
		else if (!strcmp(op, "inv")) zp_bn254_##F##_inv(&r, &a);                      \
		else { CHECK(0, "line %d: unknown op %s", ln, op); return; }                  \
		CHECK(zp_bn254_##F##_eq(&r, &want), "line %d: " #F " %s", ln, op);           \
	}
FIELD_OPS(fp, fp, rd_fp)
FIELD_OPS(fr, fr, rd_fr)

static void bytes_rec(int g, int ln)
{
	fr k = rd_fr();
	char *h = tok();
	size_t n = g == 1 ? 64 : 128;
	uint8_t want[128], got[128];
	CHECK(h && zp_test_hex_be(want, n, h, strlen(h)) == 0, "line %d hex", ln);
	if (g == 1) {
		zp_bn254_g1_affine p, back;
		g1_k(&p, &k);
		zp_bn254_g1_to_bytes(got, &p);
		CHECK(zp_bn254_g1_from_bytes(&back, want) == 0 && zp_bn254_g1_affine_eq(&back, &p), "line %d: g1 decode", ln);
	} else {
		zp_bn254_g2_affine p, back;
		g2_k(&p, &k);
		zp_bn254_g2_to_bytes(got, &p);
		CHECK(zp_bn254_g2_from_bytes(&back, want) == 0 && zp_bn254_g2_affine_eq(&back, &p), "line %d: g2 decode", ln);
	}
	CHECK(memcmp(got, want, n) == 0, "line %d: g%d bytes", ln, g);
}

static void msm_rec(int ln)
{
	int n = atoi(tok());
	zp_bn254_g1_affine *pts = calloc((size_t)n, sizeof *pts);
	fr *sc = calloc((size_t)n, sizeof *sc);
	for (int i = 0; i < n; i++) {
		fr k = rd_fr();
		g1_k(&pts[i], &k);
	}
	for (int i = 0; i < n; i++)
		sc[i] = rd_fr();
	zp_bn254_g1_affine want = rd_g1(), got;
	size_t sz = zp_bn254_msm_g1_scratch_size((size_t)n);
	void *scr = malloc(sz);
	zp_bn254_g1_jac j;
	CHECK(zp_bn254_msm_g1(&j, pts, sc, (size_t)n, scr, sz) == 0, "line %d: msm rc", ln);
	zp_bn254_g1_jac_to_affine(&got, &j);
	CHECK(zp_bn254_g1_affine_eq(&got, &want), "line %d: g1 msm of %d", ln, n);
	free(scr);
	free(pts);
	free(sc);
}

static void record(char *line, int ln)
{
	char *kind = strtok(line, " \n"), *op = tok();
	if (!kind || !op)
		return;
	if (!strcmp(kind, "fp")) {
		fp_rec(op, ln);
	} else if (!strcmp(kind, "fr")) {
		fr_rec(op, ln);
	} else if (!strcmp(kind, "fp2")) {
		zp_bn254_fp2 a = rd_fp2(), b, r, want;
		if (!strcmp(op, "mul")) {
			b = rd_fp2();
			zp_bn254_fp2_mul(&r, &a, &b);
		} else {
			zp_bn254_fp2_inv(&r, &a);
		}
		want = rd_fp2();
		CHECK(zp_bn254_fp2_eq(&r, &want), "line %d: fp2 %s", ln, op);
	} else if (!strcmp(kind, "fp12")) {
		zp_bn254_fp12 a = rd_fp12(), b = rd_fp12(), r, want = rd_fp12();
		zp_bn254_fp12_mul(&r, &a, &b);
		CHECK(zp_bn254_fp12_eq(&r, &want), "line %d: fp12 mul", ln);
	} else if (!strcmp(kind, "g1") && !strcmp(op, "bytes")) {
		bytes_rec(1, ln);
	} else if (!strcmp(kind, "g2") && !strcmp(op, "bytes")) {
		bytes_rec(2, ln);
	} else if (!strcmp(kind, "g1") && !strcmp(op, "msm")) {
		msm_rec(ln);
	} else if (!strcmp(kind, "g1")) {
		fr k = rd_fr(), m;
		zp_bn254_g1_affine p, q, want;
		g1_k(&p, &k);
		if (!strcmp(op, "add")) {
			m = rd_fr();
			g1_k(&q, &m);
			zp_bn254_g1_jac j;
			zp_bn254_g1_jac_from_affine(&j, &p);
			zp_bn254_g1_jac_add_affine(&j, &j, &q);
			zp_bn254_g1_jac_to_affine(&p, &j);
		}
		want = rd_g1();
		CHECK(zp_bn254_g1_affine_eq(&p, &want), "line %d: g1 %s", ln, op);
	} else if (!strcmp(kind, "g2")) {
		fr k = rd_fr(), m;
		zp_bn254_g2_affine p, q, want;
		g2_k(&p, &k);
		if (!strcmp(op, "add")) {
			m = rd_fr();
			g2_k(&q, &m);
			zp_bn254_g2_jac j;
			zp_bn254_g2_jac_from_affine(&j, &p);
			zp_bn254_g2_jac_add_affine(&j, &j, &q);
			zp_bn254_g2_jac_to_affine(&p, &j);
		}
		want = rd_g2();
		CHECK(zp_bn254_g2_affine_eq(&p, &want), "line %d: g2 %s", ln, op);
	} else if (!strcmp(kind, "pair")) {
		fr a, b;
		if (zp_bn254_fr_from_dec(&a, op) < 0) {
			CHECK(0, "line %d: bad scalar", ln);
			return;
		}
		b = rd_fr();
		zp_bn254_fp12 want = rd_fp12(), e;
		zp_bn254_g1_affine p;
		zp_bn254_g2_affine q;
		g1_k(&p, &a);
		g2_k(&q, &b);
		zp_bn254_pairing(&e, &p, &q);
		/* ffjavascript's final exponentiation raises to FFJS_EXP·(p^12 - 1)/r; ours is exact */
		static const uint64_t ffjs[3] = ZP_C64_BN_FFJS_EXP;
		zp_bn254_fp12_pow(&e, &e, ffjs, 3);
		CHECK(zp_bn254_fp12_eq(&e, &want), "line %d: pairing^FFJS_EXP", ln);
	} else if (!strcmp(kind, "root")) {
		unsigned k = (unsigned)atoi(op);
		fr want = rd_fr(), w;
		CHECK(zp_bn254_ntt_root(&w, k) == 0 && zp_bn254_fr_eq(&w, &want), "line %d: root 2^%u", ln, k);
	} else {
		CHECK(0, "line %d: unknown record %s", ln, kind);
	}
}

int main(int argc, char **argv)
{
	FILE *f = zp_test_open_vectors(argc, argv);
	static char line[1 << 16];
	int ln = 0, n = 0;
	while (zp_test_read_line(f, line, sizeof line, &ln)) {
		record(line, ln);
		n++;
	}
	fclose(f);
	CHECK(n > 300, "only %d records", n);
	if (failures) {
		fprintf(stderr, "bn254_kat: %d failures in %d records\n", failures, n);
		return 1;
	}
	printf("bn254_kat: %d records ok\n", n);
	return 0;
}
