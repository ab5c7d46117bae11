/*
 * test_params_load — .params at disk speed (prover/params_load.h): every point of a multi-chunk
 * synthetic file lands where a sequential decoder puts it, with both I/O paths and 1 or 3 decoding
 * threads; the first bad point (off the curve, or on it but outside G1) fails the load naming its
 * vector and index — the lowest one when there are two; bad counts (truncated, extended) are refused
 * before anything is decoded.
 */
#include <fcntl.h>
#include <unistd.h>

#include "params_load.h"
#include "params_synth.h"
#include "serialize.h"
#include "util.h"

static char dir[512];

static void path_of(char *p, size_t n, const char *name) { snprintf(p, n, "%s/%s", dir, name); }

struct dst { zp_params_dst d; void *mem[6]; };

static void dst_alloc(struct dst *x, const zp_params_info *c)
{
	const uint64_t n[6] = { c->n_ic, c->n_h, c->n_l, c->n_a, c->n_b1, c->n_b2 };
	for (int i = 0; i < 6; i++)
		x->mem[i] = calloc(n[i] ? n[i] : 1, i == 5 ? 192 : 96);
	x->d = (zp_params_dst){ x->mem[0], x->mem[1], x->mem[2], x->mem[3], x->mem[4], x->mem[5] };
}

static void dst_free(struct dst *x)
{
	for (int i = 0; i < 6; i++)
		free(x->mem[i]);
}

static uint64_t off_of(const zp_params_info *c, int v)
{
	const uint64_t o[6] = { c->off_ic, c->off_h, c->off_l, c->off_a, c->off_b1, c->off_b2 };
	return o[v];
}

/* The reference: one point after the other, straight from the file's bytes. */
static int same_as_sequential(const char *path, const zp_params_info *c, const struct dst *x)
{
	size_t len;
	uint8_t *f = slurp(path, &len);
	const uint64_t n[6] = { c->n_ic, c->n_h, c->n_l, c->n_a, c->n_b1, c->n_b2 };
	int bad = 0;
	for (int v = 0; v < 6 && !bad; v++)
		for (uint64_t i = 0; i < n[v] && !bad; i++) {
			if (v == 5) {
				zp_g2_affine q;
				bad = zp_g2_from_uncompressed(&q, f + off_of(c, v) + i * 192, ZP_SER_NO_SUBGROUP) ||
				      memcmp(&q, (zp_g2_affine *)x->mem[v] + i, sizeof q);
			} else {
				zp_g1_affine p;
				bad = zp_g1_from_uncompressed(&p, f + off_of(c, v) + i * 96, ZP_SER_NO_SUBGROUP) ||
				      memcmp(&p, (zp_g1_affine *)x->mem[v] + i, sizeof p);
			}
			if (bad)
				fprintf(stderr, "vector %d point %llu differs\n", v, (unsigned long long)i);
		}
	free(f);
	return bad;
}

static zp_params_info counts(uint32_t ic, uint32_t h, uint32_t l, uint32_t a, uint32_t b)
{
	zp_params_info c = { .n_ic = ic, .n_h = h, .n_l = l, .n_a = a, .n_b1 = b, .n_b2 = b };
	zp_params_info_layout(&c);
	return c;
}


/* Several chunks per vector (a chunk is 1 MiB of points), both I/O paths, 1 and 3 threads. */
static void placement(void)
{
	char p[600];
	path_of(p, sizeof p, "big.params");
	unlink(p);
	zp_params_info c = counts(7, 32767, 30001, 30008, 12001), r;
	CHECK(zp_params_write_synthetic(p, &c, 97, 5) == 0, "write");
	CHECK(zp_params_scan(p, &r) == 0 && !memcmp(&r, &c, sizeof c), "counts read back");
	const enum zp_params_io io[2] = { ZP_PARAMS_IO_BUFFERED, ZP_PARAMS_IO_DIRECT };
	for (int m = 0; m < 2; m++)
		for (unsigned t = 1; t <= 3; t += 2) {
			struct dst x;
			dst_alloc(&x, &c);
			zp_zkey fx;
			zp_params_load_stats st;
			zp_params_load_opts o = { .io = io[m], .threads = t, .no_subgroup = true };
			int rc = zp_params_load_into(p, &c, &x.d, &fx, &o, &st);
			CHECK(rc == 0, "load io %d threads %u", m, t);
			CHECK(st.points == 7ull + 32767 + 30001 + 30008 + 2 * 12001, "points %llu", (unsigned long long)st.points);
			CHECK(st.threads == t, "threads %u", st.threads);
			CHECK(!rc && same_as_sequential(p, &c, &x) == 0, "io %d threads %u: points as the sequential decoder", m, t);
			dst_free(&x);
		}
	/* a truncated file and a longer one are refused by their counts */
	CHECK(truncate(p, (off_t)c.file_bytes - 1) == 0, "truncate");
	CHECK(zp_params_scan(p, &r) == ZP_ETRUNC, "truncated: %s", zp_err_msg());
	CHECK(truncate(p, (off_t)c.file_bytes + 1) == 0, "extend");
	CHECK(zp_params_scan(p, &r) == ZP_EFORMAT, "extended: %s", zp_err_msg());
	unlink(p);
}

/* A point on the curve outside G1: x with x^3 + 4 a square, almost never in the r-torsion. */
static void off_subgroup(uint8_t out[96])
{
	zp_fp x, y, t, four;
	zp_fp_from_u64(&four, 4);
	for (uint64_t v = 1;; v++) {
		zp_fp_from_u64(&x, v);
		zp_fp_sqr(&t, &x);
		zp_fp_mul(&t, &t, &x);
		zp_fp_add(&t, &t, &four);
		if (!zp_fp_sqrt(&y, &t))
			continue;
		zp_g1_affine p = { x, y };
		if (!zp_g1_affine_in_subgroup(&p)) {
			zp_g1_to_uncompressed(out, &p);
			return;
		}
	}
}

static void put(const char *p, uint64_t off, const uint8_t *b, size_t n)
{
	int fd = open(p, O_WRONLY);
	CHECK(fd >= 0 && pwrite(fd, b, n, (off_t)off) == (ssize_t)n, "damage %s", p);
	close(fd);
}

static int load_small(const char *p, const zp_params_info *c, unsigned threads)
{
	struct dst x;
	dst_alloc(&x, c);
	zp_zkey fx;
	zp_params_load_opts o = { .threads = threads };
	int rc = zp_params_load_into(p, c, &x.d, &fx, &o, NULL);
	dst_free(&x);
	return rc;
}

static void damage(void)
{
	char p[600];
	path_of(p, sizeof p, "small.params");
	zp_params_info c = counts(3, 63, 40, 43, 11);
	unlink(p);
	CHECK(zp_params_write_synthetic(p, &c, 13, 9) == 0, "write");
	CHECK(load_small(p, &c, 2) == 0, "a good file loads with every check");
	uint8_t sg[96], bad[96];
	off_subgroup(sg);
	put(p, c.off_l + 17 * 96, sg, 96); /* l[17]: on the curve, not in G1 */
	CHECK(load_small(p, &c, 2) == ZP_ESUBGROUP && strstr(zp_err_msg(), "l point 17"), "outside G1: %s", zp_err_msg());
	memcpy(bad, sg, 96);
	bad[95] ^= 1;                       /* y changed: off the curve */
	put(p, c.off_a + 5 * 96, bad, 96); /* a[5] */
	put(p, c.off_l + 3 * 96, bad, 96); /* l[3]: the first bad point in file order */
	CHECK(load_small(p, &c, 3) == ZP_EINVAL_POINT && strstr(zp_err_msg(), "l point 3"), "off the curve: %s", zp_err_msg());
	put(p, 0, bad, 96);                 /* alpha_g1 */
	CHECK(load_small(p, &c, 1) == ZP_EINVAL_POINT && strstr(zp_err_msg(), "alpha_g1"), "fixed point: %s", zp_err_msg());
	unlink(p);
}

int main(int argc, char **argv)
{
	snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : "/tmp");
	placement();
	damage();
	return DONE();
}
