/*
 * rs_api.c — a program written against rapidsnark's prover.h / verifier.h, linked with
 * libzkpipe-rapidsnark. It needs nothing from zkpipe: only the two headers and the library.
 *
 *   rs_api ZKEY WTNS OTHER_WTNS FOREIGN_WTNS VK_JSON OUTDIR
 *   rs_api verify PROOF_JSON PUBLIC_JSON VK_JSON      (exit status = groth16_verify's code)
 *     OTHER_WTNS:   a witness of another circuit of the same curve (length mismatch)
 *     FOREIGN_WTNS: a witness of the other curve
 *
 * Checks rapidsnark's contract: sizes, every buffer-too-small path (code, required sizes, buffers
 * untouched), the one-shot, file and object calls, an object shared by two threads, null arguments,
 * error messages (NUL-terminated, truncated to fit), invalid keys and witnesses, and groth16_verify on
 * good, tampered and malformed inputs. Writes OUTDIR/proof.json and OUTDIR/public.json (from the
 * one-shot call) and OUTDIR/proof_obj.json (from the object) for snarkjs to check. Exit 0 / 1.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prover.h"
#include "verifier.h"

static int fails;
#define CHECK(cond, ...) do { if (!(cond)) { fails++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
	printf(__VA_ARGS__); printf("\n"); } } while (0)

typedef struct { char *p; unsigned long long n; } buf;

static buf slurp(const char *path)
{
	buf b = { 0 };
	FILE *f = fopen(path, "rb");
	if (!f) { printf("cannot open %s\n", path); exit(1); }
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b.p = malloc(n + 1);
	if (!b.p || fread(b.p, 1, n, f) != (size_t)n) { printf("cannot read %s\n", path); exit(1); }
	b.p[n] = 0;
	b.n = n;
	fclose(f);
	return b;
}

static void spit(const char *dir, const char *name, const char *text)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) { printf("cannot write %s\n", path); exit(1); }
}

static int all_bytes(const char *p, unsigned long long n, char c)
{
	for (unsigned long long i = 0; i < n; i++)
		if (p[i] != c)
			return 0;
	return 1;
}

static buf key, wtns, other, foreign, vk;
static char proof[8192], pub[65536], err[1024];
static unsigned long long pub_need;   /* from groth16_public_size_for_zkey_buf */

/* sizes: rapidsnark's 810 for proofs, 82 per public signal + 4 */
static void test_sizes(const char *zkey_path)
{
	unsigned long long ps = 0, u1 = 0, u2 = 0;
	groth16_proof_size(&ps);
	CHECK(ps == 810, "groth16_proof_size = %llu", ps);
	CHECK(groth16_public_size_for_zkey_buf(key.p, key.n, &u1, err, sizeof err) == PROVER_OK, "size buf: %s", err);
	CHECK(groth16_public_size_for_zkey_file(zkey_path, &u2, err, sizeof err) == PROVER_OK, "size file: %s", err);
	CHECK(u1 == u2 && u1 >= 4 && (u1 - 4) % 82 == 0, "public sizes %llu %llu", u1, u2);
	pub_need = u1;
	err[0] = 0;
	CHECK(groth16_public_size_for_zkey_buf(wtns.p, wtns.n, &u1, err, sizeof err) == PROVER_ERROR && err[0],
	      "a wtns is not a zkey");
	err[0] = 0;
	CHECK(groth16_public_size_for_zkey_file("/nonexistent/x.zkey", &u1, err, sizeof err) == PROVER_ERROR && err[0],
	      "missing zkey file");
}

/* Prove with proof/public buffers of the given sizes: the code, and the sizes as returned. */
static int prove_sized(unsigned long long *ps, unsigned long long *us)
{
	memset(proof, 'P', sizeof proof);
	memset(pub, 'U', sizeof pub);
	return groth16_prover(key.p, key.n, wtns.p, wtns.n, proof, ps, pub, us, err, sizeof err);
}

/* Each proof's text has its own length (r and s are fresh): the public text's is fixed by the witness.
 * BN254: 810 always suffices and a short buffer is told this proof's size; BLS12-381 (longer
 * coordinates): a short buffer is told the longest proof's size, 1016, so the retry always fits. */
static void test_short_buffers(const char *out, int bn254)
{
	unsigned long long ps = 810, us = pub_need, big = sizeof proof;
	int rc = prove_sized(&ps, &us);
	if (!bn254) {
		CHECK(rc == PROVER_ERROR_SHORT_BUFFER && ps == 1016 && us < pub_need, "BLS12-381 in 810: %d %llu", rc, ps);
		rc = prove_sized(&ps, &us);
	}
	CHECK(rc == PROVER_OK, "groth16_prover with the sizes given: %d %s", rc, err);
	unsigned long long plen = ps, ulen = us;
	CHECK(strlen(proof) == plen && strlen(pub) == ulen, "lengths %zu/%llu %zu/%llu", strlen(proof), plen,
	      strlen(pub), ulen);
	CHECK(ulen < pub_need && plen < (bn254 ? 810 : 1016), "texts %llu %llu within the sizes", plen, ulen);
	spit(out, "proof.json", proof);
	spit(out, "public.json", pub);
	/* {proof buffer, public buffer}: one or both too small */
	unsigned long long cases[][2] = { { 0, 0 }, { 0, big }, { 10, ulen + 1 }, { big, ulen }, { big, 0 } };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ps = cases[i][0], us = cases[i][1];
		err[0] = 0;
		rc = prove_sized(&ps, &us);
		CHECK(rc == PROVER_ERROR_SHORT_BUFFER, "case %zu: rc %d", i, rc);
		CHECK(us == ulen + 1, "case %zu: public required %llu, want %llu", i, us, ulen + 1);
		CHECK(bn254 ? ps > plen - 12 && ps <= 712 : ps == 1016, "case %zu: proof required %llu", i, ps);
		CHECK(all_bytes(proof, sizeof proof, 'P') && all_bytes(pub, sizeof pub, 'U'), "case %zu: buffers written", i);
		CHECK(err[0] && strlen(err) < sizeof err, "case %zu: no message", i);
		if (cases[i][0] == 0 && cases[i][1] == 0) {   /* the sizes reported are enough */
			rc = prove_sized(&ps, &us);
			CHECK(rc == PROVER_OK || (bn254 && rc == PROVER_ERROR_SHORT_BUFFER), "retry: %d", rc);
		}
	}
	ps = bn254 ? 810 : 1016, us = ulen + 1;   /* the public buffer exactly big enough */
	CHECK(prove_sized(&ps, &us) == PROVER_OK && us == ulen && strlen(pub) == ulen, "exact public size: %s", err);
}

struct worker { void *obj; int rc; char proof[8192], pub[65536], err[256]; };

static void *work(void *arg)
{
	struct worker *w = arg;
	unsigned long long ps = sizeof w->proof, us = sizeof w->pub;
	w->rc = groth16_prover_prove(w->obj, wtns.p, wtns.n, w->proof, &ps, w->pub, &us, w->err, sizeof w->err);
	return NULL;
}

static void test_object(const char *zkey_path, const char *out)
{
	void *obj = NULL;
	CHECK(groth16_prover_create_zkey_file(&obj, zkey_path, err, sizeof err) == PROVER_OK && obj, "create file: %s", err);
	struct worker *w = calloc(2, sizeof *w);
	pthread_t t[2];
	for (int i = 0; i < 2; i++) {
		w[i].obj = obj;
		pthread_create(&t[i], NULL, work, &w[i]);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		CHECK(w[i].rc == PROVER_OK, "thread %d: %d %s", i, w[i].rc, w[i].err);
		CHECK(strcmp(w[i].pub, pub) == 0, "thread %d: public differs", i);
	}
	CHECK(strcmp(w[0].proof, w[1].proof) != 0, "two proofs with the same r, s");
	spit(out, "proof_obj.json", w[0].proof);
	unsigned long long ps = sizeof proof, us = sizeof pub;
	CHECK(groth16_prover_prove(obj, other.p, other.n, proof, &ps, pub, &us, err, sizeof err) ==
	      PROVER_INVALID_WITNESS_LENGTH && strstr(err, "Invalid witness length"), "other circuit's witness: %s", err);
	groth16_prover_destroy(obj);
	obj = NULL;
	CHECK(groth16_prover_create(&obj, key.p, key.n, err, sizeof err) == PROVER_OK, "create buf: %s", err);
	ps = sizeof proof, us = sizeof pub;
	CHECK(groth16_prover_prove(obj, wtns.p, wtns.n, proof, &ps, pub, &us, err, sizeof err) == PROVER_OK, "%s", err);
	groth16_prover_destroy(obj);
	groth16_prover_destroy(NULL);
	ps = sizeof proof, us = sizeof pub;
	CHECK(groth16_prover_zkey_file(zkey_path, wtns.p, wtns.n, proof, &ps, pub, &us, err, sizeof err) == PROVER_OK,
	      "zkey_file: %s", err);
	free(w);
}

/* Prove with these inputs (key by buffer); expect code want and a message. */
static void expect(const char *what, const void *k, unsigned long long kn, const void *wt, unsigned long long wn, int want)
{
	unsigned long long ps = sizeof proof, us = sizeof pub;
	err[0] = 0;
	int rc = groth16_prover(k, kn, wt, wn, proof, &ps, pub, &us, err, sizeof err);
	CHECK(rc == want && err[0], "%s: rc %d (want %d), message '%s'", what, rc, want, err);
}

static void test_invalid(void)
{
	char *bad = malloc(key.n);
	memcpy(bad, key.p, key.n);
	memcpy(bad, "zkez", 4);
	expect("bad zkey magic", bad, key.n, wtns.p, wtns.n, PROVER_ERROR);
	expect("truncated zkey", key.p, key.n / 2, wtns.p, wtns.n, PROVER_ERROR);
	expect("empty zkey", key.p, 0, wtns.p, wtns.n, PROVER_ERROR);
	expect("zkey given a wtns", wtns.p, wtns.n, wtns.p, wtns.n, PROVER_ERROR);
	expect("garbage wtns", key.p, key.n, key.p, 64, PROVER_ERROR);
	expect("truncated wtns", key.p, key.n, wtns.p, wtns.n - 1, PROVER_ERROR);
	expect("other curve's wtns", key.p, key.n, foreign.p, foreign.n, PROVER_ERROR);
	memcpy(bad, wtns.p, wtns.n);
	bad[wtns.n - 32] ^= 1;            /* last witness value: no longer satisfies the circuit */
	expect("unsatisfying wtns", key.p, key.n, bad, wtns.n, PROVER_ERROR);
	unsigned long long ps = sizeof proof, us = sizeof pub;
	void *obj = (void *)1;
	CHECK(groth16_prover(NULL, 0, wtns.p, wtns.n, proof, &ps, pub, &us, err, sizeof err) == PROVER_ERROR, "null zkey");
	CHECK(groth16_prover(key.p, key.n, NULL, 0, proof, &ps, pub, &us, err, sizeof err) == PROVER_ERROR, "null wtns");
	CHECK(groth16_prover(key.p, key.n, wtns.p, wtns.n, NULL, &ps, pub, &us, err, sizeof err) == PROVER_ERROR, "null proof");
	CHECK(groth16_prover(key.p, key.n, wtns.p, wtns.n, proof, NULL, pub, &us, NULL, 0) == PROVER_ERROR, "null size");
	CHECK(groth16_prover_prove(NULL, wtns.p, wtns.n, proof, &ps, pub, &us, err, sizeof err) == PROVER_ERROR, "null obj");
	CHECK(groth16_prover_create(NULL, key.p, key.n, err, sizeof err) == PROVER_ERROR, "null out");
	CHECK(groth16_prover_create_zkey_file(&obj, "/nonexistent/x.zkey", err, sizeof err) == PROVER_ERROR &&
	      obj == (void *)1, "missing file");
	char small[8];
	memset(small, 'x', sizeof small);
	expect("bad zkey (null message)", bad, 12, wtns.p, wtns.n, PROVER_ERROR);
	ps = sizeof proof, us = sizeof pub;
	CHECK(groth16_prover(bad, 12, wtns.p, wtns.n, proof, &ps, pub, &us, small, sizeof small) == PROVER_ERROR &&
	      strlen(small) == sizeof small - 1, "message truncated to its buffer");
	CHECK(groth16_prover(bad, 12, wtns.p, wtns.n, proof, &ps, pub, &us, NULL, 0) == PROVER_ERROR, "no message buffer");
	free(bad);
}

static void expect_verify(const char *what, const char *p, const char *u, const char *k, int want)
{
	char e[256] = "";
	int rc = groth16_verify(p, u, k, e, sizeof e);
	CHECK(rc == want, "verify %s: %d (want %d) %s", what, rc, want, e);
	CHECK(want == VERIFIER_ERROR ? e[0] != 0 : 1, "verify %s: no message", what);
}

/* Replace the first occurrence of from in s by to (a new string). */
static char *subst(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	if (!at) { printf("subst: %s not found\n", from); exit(1); }
	char *r = malloc(strlen(s) + strlen(to) + 1);
	sprintf(r, "%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
	return r;
}

static void test_verify(const char *out)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/proof.json", out);
	buf p = slurp(path);
	snprintf(path, sizeof path, "%s/public.json", out);
	buf u = slurp(path);
	expect_verify("own proof", p.p, u.p, vk.p, VERIFIER_VALID_PROOF);
	/* a public input + 1: the first value's first digit changed */
	char *u2 = strdup(u.p);
	char *d = strchr(u2, '"') + 1;
	*d = *d == '9' ? '1' : *d + 1;
	expect_verify("wrong public input", p.p, u2, vk.p, VERIFIER_INVALID_PROOF);
	/* pi_a and pi_c swapped: two valid points, a wrong proof */
	char *a = strstr(p.p, "\"pi_a\":") + 7, *c = strstr(p.p, "\"pi_c\":") + 7;
	size_t la = strchr(a, ']') - a + 1, lc = strchr(c, ']') - c + 1;
	char *sa = strndup(a, la), *sc = strndup(c, lc), *t1 = subst(p.p, sa, "@A@"), *t2 = subst(t1, sc, sa);
	char *sw = subst(t2, "@A@", sc);
	expect_verify("swapped pi_a / pi_c", sw, u.p, vk.p, VERIFIER_INVALID_PROOF);
	char *off = subst(p.p, "\",\"1\"]", "1\",\"1\"]");   /* pi_a.y with a digit appended: off the curve */
	int rc = groth16_verify(off, u.p, vk.p, err, sizeof err);
	CHECK(rc != VERIFIER_VALID_PROOF, "off-curve pi_a verified");
	expect_verify("not JSON", "{", u.p, vk.p, VERIFIER_ERROR);
	expect_verify("inputs not JSON", p.p, "[1,", vk.p, VERIFIER_ERROR);
	expect_verify("no inputs", p.p, "[]", vk.p, VERIFIER_ERROR);
	expect_verify("vk not JSON", p.p, u.p, "nope", VERIFIER_ERROR);
	expect_verify("null proof", NULL, u.p, vk.p, VERIFIER_ERROR);
	char *fewer = strdup(u.p), *last = strrchr(fewer, ',');
	if (last) {   /* one input fewer */
		strcpy(last, "]");
		expect_verify("one input fewer", p.p, fewer, vk.p, VERIFIER_ERROR);
	}
	char *more = subst(u.p, "[", "[\"1\",");
	expect_verify("one input more", p.p, more, vk.p, VERIFIER_ERROR);
	expect_verify("input >= r", p.p, subst(u.p, "[\"", "[\"99999999999999999999999999999999999999999999999999999999999999999999999999999999"),
		      vk.p, VERIFIER_ERROR);
	free(u2), free(sa), free(sc), free(t1), free(t2), free(sw), free(off), free(fewer), free(more);
	free(p.p), free(u.p);
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "verify") == 0) {
		buf p = slurp(argv[2]), u = slurp(argv[3]), k = slurp(argv[4]);
		int rc = groth16_verify(p.p, u.p, k.p, err, sizeof err);
		printf("groth16_verify: %d %s\n", rc, err);
		return rc;
	}
	if (argc != 7) {
		fprintf(stderr, "usage: rs_api ZKEY WTNS OTHER_WTNS FOREIGN_WTNS VK_JSON OUTDIR\n");
		return 2;
	}
	key = slurp(argv[1]), wtns = slurp(argv[2]), other = slurp(argv[3]), foreign = slurp(argv[4]);
	vk = slurp(argv[5]);
	test_sizes(argv[1]);
	test_short_buffers(argv[6], strstr(vk.p, "bn128") != NULL);
	test_object(argv[1], argv[6]);
	test_invalid();
	test_verify(argv[6]);
	printf("%d failures\n", fails);
	return fails ? 1 : 0;
}
