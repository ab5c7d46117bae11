/* zkpipe key files: write → load (io_uring, O_DIRECT or buffered, own or caller memory) → map
 * round trip byte for byte, and a key that proves after loading; every kind of damage is refused
 * before use with an error naming it: a byte flipped in each section and in the header, a
 * truncated file, a file with bytes appended, wrong magic, wrong version, another circuit.
 * args: DIR (a writable directory on a real file system) */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "groth16.h"
#include "keyfile.h"
#include "setup.h"
#include "synth.h"
#include "util.h"
#include "zp_mem.h"

static char path[600], bad[620];

static void copy_file(const char *from, const char *to)
{
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), a)) > 0)
		fwrite(buf, 1, n, b);
	fclose(a);
	fclose(b);
}

static void poke(const char *p, uint64_t off, const void *bytes, size_t n)
{
	int fd = open(p, O_WRONLY);
	if (pwrite(fd, bytes, n, (off_t)off) != (ssize_t)n)
		abort();
	close(fd);
}

static void flip(const char *p, uint64_t off)
{
	unsigned char c;
	int fd = open(p, O_RDWR);
	if (pread(fd, &c, 1, (off_t)off) != 1)
		abort();
	c ^= 0x10;
	if (pwrite(fd, &c, 1, (off_t)off) != 1)
		abort();
	close(fd);
}

/* load and map must both fail with code, the message containing what */
static void expect_fail(const char *p, int code, const char *what, const zp_pkey_load_opts *o)
{
	zp_pkey k;
	int rc = zp_pkey_load(&k, p, o, NULL);
	CHECK(rc == code && strstr(zp_err_msg(), what), "load: want %s (%s), got %s: %s", zp_strerror(code), what,
	      zp_strerror(rc), zp_err_msg());
	CHECK(k.mem == NULL, "failed load left memory");
	rc = zp_pkey_map(&k, p, o);
	CHECK(rc == code && strstr(zp_err_msg(), what), "map: want %s (%s), got %s: %s", zp_strerror(code), what,
	      zp_strerror(rc), zp_err_msg());
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	snprintf(path, sizeof(path), "%s/scale_test.zpk", dir);
	snprintf(bad, sizeof(bad), "%s/scale_test_bad.zpk", dir);
	zp_synth_params p;
	zp_synth_params_porep(&p, 500);
	p.n_public = 3;
	zp_circuit c, c2;
	zp_pkey k, l, m;
	CHECK(zp_synth_circuit(&c, &p) == 0, "synth");
	zp_setup_opts so = { .h_mode = ZP_H_COEFF };
	CHECK(zp_setup(&k, &c, &so) == 0, "setup");
	CHECK(zp_pkey_write(&k, path) == 0, "write");

	/* round trips */
	zp_pkey_load_stats st;
	CHECK(zp_pkey_load(&l, path, NULL, &st) == 0, "load");
	CHECK(l.mem_bytes == k.mem_bytes && !memcmp(l.mem, k.mem, k.mem_bytes), "load differs");
	fprintf(stderr, "loaded %llu bytes, O_DIRECT %s\n", (unsigned long long)st.bytes, st.direct ? "yes" : "no");
	CHECK(zp_pkey_map(&m, path, NULL) == 0 && !memcmp(m.mem, k.mem, k.mem_bytes), "map differs");
	zp_pkey_free(&m);
	zp_pkey_load_opts lo = { .buffered = true, .check_points = true, .chunk_bytes = 8192, .queue_depth = 3,
				 .fingerprint = c.fingerprint };
	CHECK(zp_pkey_load(&m, path, &lo, NULL) == 0 && !memcmp(m.mem, k.mem, k.mem_bytes), "buffered, small chunks");
	zp_pkey_free(&m);
	void *buf = zp_aligned_alloc(4096, k.mem_bytes);
	lo = (zp_pkey_load_opts){ .buf = buf, .buf_bytes = k.mem_bytes };
	CHECK(zp_pkey_load(&m, path, &lo, NULL) == 0 && m.mem == buf && !memcmp(buf, k.mem, k.mem_bytes), "caller buffer");
	zp_pkey_free(&m);
	lo.buf_bytes = k.mem_bytes - 4096;
	CHECK(zp_pkey_load(&m, path, &lo, NULL) == ZP_ERANGE, "small caller buffer accepted");
	free(buf);

	/* the loaded key proves */
	zp_fr *w = malloc(c.n_vars * sizeof(zp_fr));
	zp_g16_proof pr;
	CHECK(zp_synth_witness(w, &c, &p, 5) == 0 && zp_g16_prove(&pr, zp_pkey_g16(&l), &c, w, c.n_vars, NULL) == 0,
	      "prove with loaded key");
	zp_synth_params q = p;
	q.seed = 77;
	CHECK(zp_synth_circuit(&c2, &q) == 0, "synth 2");
	CHECK(zp_g16_prove(&pr, zp_pkey_g16(&l), &c2, w, c.n_vars, NULL) == ZP_EMISMATCH, "other circuit proved");
	zp_pkey_free(&l);

	/* damage */
	const zp_pkey_header *h = k.hdr;
	static const char *names[] = { "FIXED", "IC", "A", "B1", "B2", "C", "H" };
	for (int i = 0; i < ZP_PKS_N; i++) {
		copy_file(path, bad);
		flip(bad, h->sec[i].offset + h->sec[i].bytes / 2);
		char want[64];
		snprintf(want, sizeof(want), "section %d (%s): checksum mismatch", i + 1, names[i]);
		expect_fail(bad, ZP_EFORMAT, want, NULL);
	}
	copy_file(path, bad);
	flip(bad, offsetof(zp_pkey_header, n_vars));
	expect_fail(bad, ZP_EFORMAT, "header: checksum mismatch", NULL);
	copy_file(path, bad);
	poke(bad, 0, "zpG16kex", 8);
	expect_fail(bad, ZP_EFORMAT, "not a zkpipe key file", NULL);
	copy_file(path, bad);
	uint32_t v = 2;
	poke(bad, offsetof(zp_pkey_header, version), &v, 4);
	expect_fail(bad, ZP_EVERSION, "version 2", NULL);
	copy_file(path, bad);
	CHECK(truncate(bad, (off_t)(h->file_bytes - 4096)) == 0, "truncate");
	expect_fail(bad, ZP_ETRUNC, "truncated", NULL);
	CHECK(truncate(bad, 100) == 0, "truncate");
	expect_fail(bad, ZP_ETRUNC, "truncated", NULL);
	copy_file(path, bad);
	CHECK(truncate(bad, (off_t)(h->file_bytes + 4096)) == 0, "extend");
	expect_fail(bad, ZP_EFORMAT, "bytes after the end", NULL);
	lo = (zp_pkey_load_opts){ .fingerprint = c2.fingerprint };
	expect_fail(path, ZP_EMISMATCH, "not this circuit", &lo);
	expect_fail("/nonexistent/key.zpk", -ENOENT, "/nonexistent/key.zpk", NULL);
	unlink(bad);
	unlink(path);
	free(w);
	zp_pkey_free(&k);
	zp_circuit_free(&c);
	zp_circuit_free(&c2);
	return DONE();
}
