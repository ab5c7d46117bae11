/* Readers: the committed mul fixture (circom2 + snarkjs) parses with the expected counts;
 * the circuit from the .r1cs and the one from the .zkey agree (fingerprint, a and b); the
 * witness satisfies it and a changed witness is named at its first failing constraint; and
 * damaged files (every truncation, wrong prime, wrong sizes, another container version) fail
 * with a message that names the file and the section. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "r1cs.h"
#include "util.h"
#include "wtns.h"
#include "zkey.h"

static void test_good(const char *dir)
{
	char p[3][512];
	snprintf(p[0], sizeof(p[0]), "%s/mul.r1cs", dir);
	snprintf(p[1], sizeof(p[1]), "%s/mul.wtns", dir);
	snprintf(p[2], sizeof(p[2]), "%s/mul.zkey", dir);
	zp_r1cs r;
	zp_wtns w;
	zp_zkey k;
	zp_circuit cr;
	CHECK(zp_r1cs_read(&r, p[0]) == 0, "read r1cs");
	CHECK(zp_wtns_read(&w, p[1]) == 0, "read wtns");
	CHECK(zp_zkey_read(&k, p[2]) == 0, "read zkey");
	if (test_failures)
		exit(1);
	CHECK(r.n_constraints == 3 && r.n_outputs == 1 && r.n_pub_inputs == 1 && r.n_prv_inputs == 1,
	      "r1cs header %u %u %u %u", r.n_constraints, r.n_outputs, r.n_pub_inputs, r.n_prv_inputs);
	CHECK(w.n == r.n_wires && k.n_vars == r.n_wires, "wires %u %u %u", w.n, r.n_wires, k.n_vars);
	CHECK(k.n_public == 2 && k.domain_size == 8, "zkey nPublic %u domain %u", k.n_public, k.domain_size);
	CHECK(zp_circuit_from_r1cs(&cr, &r) == 0, "compile r1cs");
	CHECK(memcmp(cr.fingerprint, k.circuit.fingerprint, 16) == 0, "fingerprints differ");
	CHECK(cr.a_count == k.circuit.a_count && cr.b_count == k.circuit.b_count, "densities");

	size_t n = cr.domain_size;
	zp_fr *v = calloc(6 * n, sizeof(zp_fr));
	zp_circuit_eval(&cr, w.w, v, v + n, v + 2 * n);
	zp_circuit_eval(&k.circuit, w.w, v + 3 * n, v + 4 * n, v + 5 * n);
	CHECK(memcmp(v, v + 3 * n, 3 * n * sizeof(zp_fr)) == 0, "r1cs and zkey evaluations differ");
	CHECK(zp_circuit_check(&cr, v, v + n, v + 2 * n) == 0, "good witness rejected");
	/* public value w[2] = a = 3 sits in row nConstraints + 2 of a */
	zp_fr three;
	zp_fr_from_u64(&three, 3);
	CHECK(zp_fr_eq(&v[3 + 2], &three), "public binding row");

	/* break wire 3 (the private input b): the first constraint using it must be named */
	zp_fr_add(&w.w[3], &w.w[3], &ZP_FR_ONE);
	zp_circuit_eval(&cr, w.w, v, v + n, v + 2 * n);
	int rc = zp_circuit_check(&cr, v, v + n, v + 2 * n);
	CHECK(rc == ZP_EUNSAT && strstr(zp_err_msg(), "constraint 0"), "unsat: rc %d msg %s", rc, zp_err_msg());
	free(v);
	zp_circuit_free(&cr);
	zp_r1cs_free(&r);
	zp_wtns_free(&w);
	zp_zkey_free(&k);
}

typedef int (*parse_fn)(const uint8_t *, size_t, const char *);
static int p_r1cs(const uint8_t *b, size_t n, const char *name) { zp_r1cs r; int rc = zp_r1cs_parse(&r, b, n, name); if (!rc) zp_r1cs_free(&r); return rc; }
static int p_wtns(const uint8_t *b, size_t n, const char *name) { zp_wtns w; int rc = zp_wtns_parse(&w, b, n, name); if (!rc) zp_wtns_free(&w); return rc; }
/* The same bytes through the descriptor reader the service uses (zp_wtns_check_fd at submit,
 * zp_wtns_read_fd in synthd): it must refuse exactly what zp_wtns_parse refuses. */
static int p_wtns_fd(const uint8_t *b, size_t n, const char *name)
{
	int fd = memfd_create("wtns", MFD_CLOEXEC);
	if (fd < 0 || write(fd, b, n) != (ssize_t)n)
		return -EIO;
	uint32_t cnt = 0;
	int rc = zp_wtns_check_fd(fd, name, &cnt);
	zp_fr *w = rc ? NULL : malloc((size_t)cnt * sizeof(zp_fr));
	if (!rc)
		rc = w ? zp_wtns_read_fd(fd, name, w, cnt) : -ENOMEM;
	if (!rc && zp_wtns_read_fd(fd, name, w, cnt + 1) != ZP_EMISMATCH) /* another count: refused */
		rc = 1;
	free(w);
	close(fd);
	return rc;
}
static int p_zkey(const uint8_t *b, size_t n, const char *name) { zp_zkey k; int rc = zp_zkey_parse(&k, b, n, name); if (!rc) zp_zkey_free(&k); return rc; }

static int p_zkey_probe(const uint8_t *b, size_t n, const char *name) { zp_zkey k; return zp_zkey_probe_buf(&k, b, n, name); }

/* DIR/name read whole (n: its size) */
static uint8_t *fixture(const char *dir, const char *name, size_t *n)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return slurp(path, n);
}

/* expect failure, and a message naming the file and containing want */
static void expect_bad(parse_fn f, const uint8_t *b, size_t n, const char *want, const char *what)
{
	zp_err_clear();
	int rc = f(b, n, "F.bin");
	CHECK(rc < 0, "%s accepted", what);
	CHECK(strstr(zp_err_msg(), "F.bin") && strstr(zp_err_msg(), want), "%s: message \"%s\" lacks \"%s\"", what,
	      zp_err_msg(), want);
}

static void test_bad(const char *dir, const char *file, parse_fn f, uint32_t prime_sec, uint32_t size_sec)
{
	size_t n;
	uint8_t *good = fixture(dir, file, &n);
	CHECK(f(good, n, file) == 0, "%s rejected", file);
	uint8_t *b = malloc(n + 64);
	for (size_t cut = 0; cut < n; cut++) {
		memcpy(b, good, cut);
		if (f(b, cut, "F.bin") >= 0) {
			CHECK(0, "%s truncated to %zu accepted", file, cut);
			break;
		}
	}
	/* wrong prime: the header's first prime byte */
	memcpy(b, good, n);
	uint64_t sz = 0;
	size_t off = section_off(b, n, prime_sec, &sz);
	CHECK(off, "section %u", prime_sec);
	b[off + 4 + (prime_sec == 2 ? 0 : 0)] ^= 1;
	char want[32];
	snprintf(want, sizeof(want), "section %u", prime_sec);
	expect_bad(f, b, n, want, "wrong prime");
	/* a section shorter than its contents need: shrink size_sec by 4 and drop 4 bytes */
	memcpy(b, good, n);
	off = section_off(b, n, size_sec, &sz);
	uint64_t nsz = sz - 4;
	memcpy(b + off - 8, &nsz, 8);
	memmove(b + off + nsz, b + off + sz, n - off - sz);
	snprintf(want, sizeof(want), "section %u", size_sec);
	expect_bad(f, b, n - 4, want, "short section");
	/* trailing garbage after the last section */
	memcpy(b, good, n);
	expect_bad(f, b, n + 3, "trailing", "trailing bytes");
	/* wrong magic */
	memcpy(b, good, n);
	b[0] ^= 0x20;
	expect_bad(f, b, n, "magic", "magic");
	free(b);
	free(good);
}

/* counts that disagree inside a zkey: nVars one larger than the point sections */
static void test_zkey_counts(const char *dir)
{
	size_t n;
	uint8_t *b = fixture(dir, "mul.zkey", &n);
	size_t off = section_off(b, n, 2, NULL);
	uint32_t nv;
	memcpy(&nv, b + off + 4 + 48 + 4 + 32, 4);
	nv++;
	memcpy(b + off + 4 + 48 + 4 + 32, &nv, 4);
	expect_bad(p_zkey, b, n, "section 5", "nVars off by one");
	nv--;
	memcpy(b + off + 4 + 48 + 4 + 32, &nv, 4);
	/* a coefficient pointing past nVars */
	size_t c4 = section_off(b, n, 4, NULL);
	uint32_t bad = nv + 5;
	memcpy(b + c4 + 4 + 8, &bad, 4);
	expect_bad(p_zkey, b, n, "section 4", "wire out of range");
	free(b);
}

/* a point coordinate >= q (section 5, A): refused naming the first such point, also when a later one is bad
 * too (the points are checked in pieces on all threads) */
static void test_zkey_noncanon(const char *dir)
{
	size_t n;
	uint64_t sz = 0;
	uint8_t *b = fixture(dir, "mul.zkey", &n);
	size_t off = section_off(b, n, 5, &sz);
	CHECK(off && sz >= 4 * 96, "section 5 of mul.zkey: %llu bytes", (unsigned long long)sz);
	if (off && sz >= 4 * 96) {
		memset(b + off + 3 * 96 + 48, 0xff, 48);   /* point 3's y */
		expect_bad(p_zkey, b, n, "A point 3: coordinate >= q", "coordinate >= q");
		memset(b + off + 1 * 96, 0xff, 48);        /* and point 1's x */
		expect_bad(p_zkey, b, n, "A point 1: coordinate >= q", "coordinate >= q (two)");
	}
	free(b);
}

/* a container version other than 1: refused by the full parse and by the header probe the
 * supervisor and rapidsnark's size calls use (which accepted it before, the parse failing later) */
static void test_zkey_version(const char *dir)
{
	size_t n;
	uint8_t *b = fixture(dir, "mul.zkey", &n);
	CHECK(p_zkey_probe(b, n, "mul.zkey") == 0, "probe of mul.zkey: %s", zp_err_msg());
	b[4] = 2;
	expect_bad(p_zkey, b, n, "zkey version 2, expected 1", "version 2 (parse)");
	expect_bad(p_zkey_probe, b, n, "zkey version 2, expected 1", "version 2 (probe)");
	free(b);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "tests/groth16/data";
	test_good(dir);
	test_bad(dir, "mul.r1cs", p_r1cs, 1, 2);
	test_bad(dir, "mul.wtns", p_wtns, 1, 2);
	test_bad(dir, "mul.wtns", p_wtns_fd, 1, 2);
	test_bad(dir, "mul.zkey", p_zkey, 2, 9);
	test_zkey_counts(dir);
	test_zkey_noncanon(dir);
	test_zkey_version(dir);
	if (test_failures) {
		fprintf(stderr, "%d failures\n", test_failures);
		return 1;
	}
	printf("readers ok\n");
	return 0;
}
