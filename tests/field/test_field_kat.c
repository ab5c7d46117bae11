/*
 * test_field_kat — zp_fp_*, zp_fr_*, zp_fp2_* against ffjavascript (tests/field/vectors.txt):
 * add, sub, mul, sqr, neg, inv, pow, square-root existence (and root² = a), the decimal
 * round trip of every operand, and the in-memory Montgomery bytes (ffjavascript's form).
 */
#include "field.h"
#include "fp2.h"

#define ZP_TEST_OWN_CHECK  /* this CHECK reports the vectors line, not the source line */
#include "../common/zp_test.h"

static int failures, line_no;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL line %d: ", line_no); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

/* Decimal string to little-endian limbs (test-side, independent of field.c). */
static size_t dec_limbs(uint64_t *out, size_t cap, const char *s)
{
	size_t n = 1;
	memset(out, 0, cap * sizeof(uint64_t));
	for (; *s; s++) {
		unsigned __int128 c = (unsigned)(*s - '0');
		for (size_t i = 0; i < n; i++) {
			c += (unsigned __int128)out[i] * 10;
			out[i] = (uint64_t)c;
			c >>= 64;
		}
		if (c && n < cap)
			out[n++] = (uint64_t)c;
	}
	return n;
}

/* Parse with zp_*_from_dec and require to_dec to give the same string back. */
#define DEFINE_PARSE(F, T, BUF)                                                         \
static void parse_##F(T *x, const char *s)                                              \
{                                                                                       \
	char buf[BUF];                                                                  \
	int rc = zp_##F##_from_dec(x, s);                                               \
	CHECK(rc == 0, #F "_from_dec(%s) = %d", s, rc);                                 \
	rc = zp_##F##_to_dec(buf, sizeof(buf), x);                                      \
	CHECK(rc == (int)strlen(s) && !strcmp(buf, s), #F "_to_dec round trip: %s -> %s", s, buf); \
}
DEFINE_PARSE(fp, zp_fp, 120)
DEFINE_PARSE(fr, zp_fr, 80)

static void parse_fp2(zp_fp2 *x, char **t) { parse_fp(&x->c0, t[0]); parse_fp(&x->c1, t[1]); }

static void check_mont(const void *mem, size_t n, const char *hex)
{
	const uint8_t *b = mem;  /* limbs are little-endian words: bytes are LE Montgomery */
	char got[200];
	for (size_t i = 0; i < n; i++)
		sprintf(got + 2 * i, "%02x", b[i]);
	CHECK(!strcmp(got, hex), "Montgomery bytes %s, ffjavascript %s", got, hex);
}

/* Prime-field records; T the element type. */
#define DEFINE_PRIME(F, T, N)                                                           \
static void rec_##F(char **t, int n)                                                    \
{                                                                                       \
	T a, b, want, got;                                                              \
	const char *op = t[1];                                                          \
	parse_##F(&a, t[2]);                                                            \
	if (n == 5 && (!strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "mul"))) { \
		parse_##F(&b, t[3]);                                                    \
		parse_##F(&want, t[4]);                                                 \
		if (op[0] == 'a') zp_##F##_add(&got, &a, &b);                           \
		else if (op[0] == 's') zp_##F##_sub(&got, &a, &b);                      \
		else zp_##F##_mul(&got, &a, &b);                                        \
	} else if (n == 4 && (!strcmp(op, "sqr") || !strcmp(op, "neg") || !strcmp(op, "inv"))) { \
		parse_##F(&want, t[3]);                                                 \
		if (op[0] == 's') zp_##F##_sqr(&got, &a);                               \
		else if (op[0] == 'n') zp_##F##_neg(&got, &a);                          \
		else zp_##F##_inv(&got, &a);                                            \
	} else if (n == 5 && !strcmp(op, "pow")) {                                      \
		uint64_t e[16];                                                         \
		size_t el = dec_limbs(e, 16, t[3]);                                     \
		parse_##F(&want, t[4]);                                                 \
		zp_##F##_pow(&got, &a, e, el);                                          \
	} else if (n == 4 && !strcmp(op, "mont")) {                                     \
		check_mont(&a, sizeof(a), t[3]);                                        \
		return;                                                                 \
	} else if (n == 4 && !strcmp(op, "sqrt")) {                                     \
		check_sqrt_##F(&a, t[3][0] == '1');                                     \
		return;                                                                 \
	} else {                                                                        \
		CHECK(0, "malformed " #F " record %s", op);                             \
		return;                                                                 \
	}                                                                               \
	CHECK(zp_##F##_eq(&got, &want), #F " %s differs from ffjavascript", op);        \
}

static void check_sqrt_fp(const zp_fp *a, bool square)
{
	zp_fp r, r2;
	bool ok = zp_fp_sqrt(&r, a);
	CHECK(ok == square, "fp sqrt existence %d, ffjavascript %d", ok, square);
	if (ok) {
		zp_fp_sqr(&r2, &r);
		CHECK(zp_fp_eq(&r2, a), "fp sqrt(a)^2 != a");
	}
}

static void check_sqrt_fr(const zp_fr *a, bool square)
{
	(void)a;
	(void)square;
	CHECK(0, "fr has no sqrt in field.h; no such vectors expected");
}

DEFINE_PRIME(fp, zp_fp, 6)
DEFINE_PRIME(fr, zp_fr, 4)

static void rec_fp2(char **t, int n)
{
	zp_fp2 a, b, want, got;
	const char *op = t[1];
	parse_fp2(&a, t + 2);
	if (n == 8 && (!strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "mul"))) {
		parse_fp2(&b, t + 4);
		parse_fp2(&want, t + 6);
		if (op[0] == 'a') zp_fp2_add(&got, &a, &b);
		else if (op[0] == 's') zp_fp2_sub(&got, &a, &b);
		else zp_fp2_mul(&got, &a, &b);
	} else if (n == 6 && (!strcmp(op, "sqr") || !strcmp(op, "neg") || !strcmp(op, "inv"))) {
		parse_fp2(&want, t + 4);
		if (op[0] == 's') zp_fp2_sqr(&got, &a);
		else if (op[0] == 'n') zp_fp2_neg(&got, &a);
		else zp_fp2_inv(&got, &a);
	} else if (n == 7 && !strcmp(op, "pow")) {
		uint64_t e[16];
		size_t el = dec_limbs(e, 16, t[4]);
		parse_fp2(&want, t + 5);
		zp_fp2_pow(&got, &a, e, el);
	} else if (n == 5 && !strcmp(op, "sqrt")) {
		zp_fp2 r, r2;
		bool ok = zp_fp2_sqrt(&r, &a), square = t[4][0] == '1';
		CHECK(ok == square, "fp2 sqrt existence %d, ffjavascript %d", ok, square);
		if (ok) {
			zp_fp2_sqr(&r2, &r);
			CHECK(zp_fp2_eq(&r2, &a), "fp2 sqrt(a)^2 != a");
		}
		return;
	} else {
		CHECK(0, "malformed fp2 record %s", op);
		return;
	}
	CHECK(zp_fp2_eq(&got, &want), "fp2 %s differs from ffjavascript", op);
}

int main(int argc, char **argv)
{
	char line[4096];
	int count[3] = { 0 };
	FILE *f = zp_test_open_vectors(argc, argv);
	while (zp_test_read_line(f, line, sizeof(line), &line_no)) {
		char *t[16];
		int n = 0;
		for (char *s = strtok(line, " \r\n"); s && n < 16; s = strtok(NULL, " \r\n"))
			t[n++] = s;
		if (n == 0)
			continue;
		if (n < 4) {
			CHECK(0, "short record");
			continue;
		}
		if (!strcmp(t[0], "fp"))
			rec_fp(t, n), count[0]++;
		else if (!strcmp(t[0], "fr"))
			rec_fr(t, n), count[1]++;
		else if (!strcmp(t[0], "fp2"))
			rec_fp2(t, n), count[2]++;
		else
			CHECK(0, "unknown field %s", t[0]);
	}
	fclose(f);
	CHECK(count[0] > 100 && count[1] > 100 && count[2] > 100, "too few vectors");
	printf("fp %d, fr %d, fp2 %d records; %d failures\n", count[0], count[1], count[2], failures);
	return failures ? 1 : 0;
}
