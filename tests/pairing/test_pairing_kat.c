/*
 * test_pairing_kat — fp12 and pairing against ffjavascript (tests/pairing/vectors.txt):
 * e(P, Q) for the generators and random multiples equals ffjavascript's exact-exponent
 * value and its cube equals ffjavascript's `pairing`; Fp12 mul, sqr, inv and the
 * Frobenius maps match bit for bit, and so does the final exponentiation of random
 * (non-Miller-loop) elements.
 */
#include "util.h"

static void check_pair(rec *r, int line)
{
	zp_g1_affine p;
	zp_g2_affine q;
	zp_fp12 want, want3, got, got3;
	parse_g1(&p, r->tok + 1);
	parse_g2(&q, r->tok + 3);
	parse_fp12(&want, r->tok + 7);
	parse_fp12(&want3, r->tok + 19);
	zp_pairing(&got, &p, &q);
	CHECK(zp_fp12_eq(&got, &want), "line %d: e(P,Q) differs from ffjavascript", line);
	zp_fp12_sqr(&got3, &got);
	zp_fp12_mul(&got3, &got3, &got);
	CHECK(zp_fp12_eq(&got3, &want3), "line %d: e(P,Q)^3 differs from ffjavascript's pairing", line);
	CHECK(zp_pairing_check(&p, &q, 1) == ZP_EVERIFY, "line %d: e(P,Q) == 1", line);
}

static void check_fp12(rec *r, int line)
{
	zp_fp12 a, b, want, got;
	const char *op = r->tok[0];
	if (!strcmp(op, "f12mul") && r->n == 37) {
		parse_fp12(&a, r->tok + 1);
		parse_fp12(&b, r->tok + 13);
		parse_fp12(&want, r->tok + 25);
		zp_fp12_mul(&got, &a, &b);
	} else if (!strcmp(op, "f12sqr") && r->n == 25) {
		parse_fp12(&a, r->tok + 1);
		parse_fp12(&want, r->tok + 13);
		zp_fp12_sqr(&got, &a);
	} else if (!strcmp(op, "f12inv") && r->n == 25) {
		parse_fp12(&a, r->tok + 1);
		parse_fp12(&want, r->tok + 13);
		zp_fp12_inv(&got, &a);
	} else if (!strcmp(op, "f12frob") && r->n == 26) {
		parse_fp12(&a, r->tok + 2);
		parse_fp12(&want, r->tok + 14);
		zp_fp12_frobenius(&got, &a, (unsigned)atoi(r->tok[1]));
	} else if (!strcmp(op, "f12fexp") && r->n == 25) {
		parse_fp12(&a, r->tok + 1);
		parse_fp12(&want, r->tok + 13);
		zp_pairing_final_exp(&got, &a);
	} else {
		CHECK(0, "line %d: malformed record %s (%d fields)", line, op, r->n);
		return;
	}
	CHECK(zp_fp12_eq(&got, &want), "line %d: %s differs from ffjavascript", line, op);
}

int main(int argc, char **argv)
{
	FILE *f = zp_test_open_vectors(argc, argv);
	char line[8192];
	int ln = 0, pairs = 0, ops = 0;
	rec r;
	while (zp_test_read_line(f, line, sizeof(line), &ln)) {
		if (rec_split(&r, line) == 0)
			continue;
		if (!strcmp(r.tok[0], "pair") && r.n == 31)
			check_pair(&r, ln), pairs++;
		else if (!strncmp(r.tok[0], "f12", 3))
			check_fp12(&r, ln), ops++;
		else if (strcmp(r.tok[0], "g1gen") && strcmp(r.tok[0], "g2gen"))
			CHECK(0, "line %d: unknown record %s", ln, r.tok[0]);
	}
	fclose(f);
	CHECK(pairs >= 6 && ops >= 20, "too few vectors: %d pairs, %d fp12 ops", pairs, ops);
	printf("%d pairings, %d fp12 ops checked, %d failures\n", pairs, ops, failures);
	return failures ? 1 : 0;
}
