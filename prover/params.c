/*
 * params.c — bellperson .params reader and writer (format in params.h).
 *
 * Reading maps the file and decodes each vector on the zp_par_for pool, scattering a, b_g1,
 * b_g2 to their wires through index lists built from the density bitmaps. Writing encodes in
 * chunks of CHUNK points on the pool, drops points at infinity from a, b_g1, b_g2 (as
 * bellperson does) and streams the result out through common/zp_file.h's atomic writer (a kill
 * mid-way leaves no half key at the path), each chunk written on its own thread while the next is encoded.
 */
#include "params.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binfile.h"
#include "par.h"
#include "serialize.h"
#include "zp_err.h"
#include "zp_file.h"

#define BLK 4096
#define CHUNK ((size_t)1 << 20)

/* ---- reading ---- */
struct dec_ctx {
	const uint8_t *src;
	void *dst;
	const uint32_t *idx;   /* NULL: dense */
	size_t n;
	int g2;
	size_t *first_bad;     /* per task */
	int *bad_rc;
};

static void dec_task(void *vctx, size_t t, int worker)
{
	struct dec_ctx *c = vctx;
	size_t i0 = t * BLK, i1 = i0 + BLK < c->n ? i0 + BLK : c->n;
	for (size_t i = i0; i < i1; i++) {
		size_t at = c->idx ? c->idx[i] : i;
		int rc = c->g2 ? zp_g2_from_uncompressed((zp_g2_affine *)c->dst + at, c->src + i * 192, ZP_SER_NO_SUBGROUP)
			       : zp_g1_from_uncompressed((zp_g1_affine *)c->dst + at, c->src + i * 96, ZP_SER_NO_SUBGROUP);
		if (rc) {
			c->first_bad[t] = i;
			c->bad_rc[t] = rc;
			return;
		}
	}
}

struct rd { const uint8_t *p; uint64_t left; const char *path; };

static int rd_count(struct rd *r, uint32_t *n, const char *what)
{
	if (r->left < 4)
		return zp_err_set(ZP_ETRUNC, "%s: truncated before the %s count", r->path, what);
	*n = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 | (uint32_t)r->p[2] << 8 | r->p[3];
	r->p += 4;
	r->left -= 4;
	return 0;
}

/* Decode n points (96 or 192 bytes each) into dst (at idx[i] when idx), then subgroup-check dst. */
static int rd_points(struct rd *r, void *dst, size_t dst_n, size_t n, int g2, const uint32_t *idx, const char *what)
{
	size_t el = g2 ? 192 : 96;
	if (r->left < (uint64_t)n * el)
		return zp_err_set(ZP_ETRUNC, "%s: %s: %zu points need %zu bytes, %" PRIu64 " left (truncated)", r->path, what,
				  n, n * el, r->left);
	size_t tasks = (n + BLK - 1) / BLK, bad = SIZE_MAX;
	size_t *fb = malloc((tasks ? tasks : 1) * sizeof(size_t));
	int *br = malloc((tasks ? tasks : 1) * sizeof(int)), rc = 0;
	if (!fb || !br) {
		free(fb);
		free(br);
		return zp_err_set(-ENOMEM, "%s: %s", r->path, what);
	}
	for (size_t t = 0; t < tasks; t++)
		fb[t] = SIZE_MAX;
	struct dec_ctx c = { r->p, dst, idx, n, g2, fb, br };
	zp_par_for(tasks, dec_task, &c);
	for (size_t t = 0; t < tasks && bad == SIZE_MAX; t++)
		if (fb[t] != SIZE_MAX) {
			bad = fb[t];
			rc = br[t];
		}
	free(fb);
	free(br);
	if (rc)
		return zp_err_set(rc, "%s: %s: point %zu: %s", r->path, what, bad, zp_strerror(rc));
	rc = g2 ? zp_g2_affine_check_array(dst, dst_n, 0, &bad) : zp_g1_affine_check_array(dst, dst_n, 0, &bad);
	if (rc)
		return zp_err_set(rc, "%s: %s: point for wire/index %zu: %s", r->path, what, bad, zp_strerror(rc));
	r->p += n * el;
	r->left -= n * el;
	return 0;
}

static uint32_t *bit_index(const uint64_t *bits, uint32_t n_vars, uint64_t count)
{
	uint32_t *ix = malloc((count ? count : 1) * sizeof(uint32_t));
	uint64_t k = 0;
	if (!ix)
		return NULL;
	for (uint32_t i = 0; i < n_vars && k < count; i++)
		if (bits[i / 64] >> (i % 64) & 1)
			ix[k++] = i;
	return ix;
}

static int expect(uint32_t got, uint64_t want, const char *path, const char *what, const char *why)
{
	if (got == want)
		return 0;
	return zp_err_set(ZP_EMISMATCH, "%s: %s has %u points, the circuit needs %" PRIu64 " (%s): not this circuit's key",
			  path, what, got, want, why);
}

/* The six fixed points and the IC count (checked against n_public + 1). */
static int rd_head(struct rd *r, zp_g1_affine *alpha1, zp_g1_affine *beta1, zp_g2_affine *beta2, zp_g2_affine *gamma2,
		   zp_g1_affine *delta1, zp_g2_affine *delta2, uint32_t *n_ic, uint64_t n_public)
{
	int rc;
	if ((rc = rd_points(r, alpha1, 1, 1, 0, NULL, "alpha_g1")) || (rc = rd_points(r, beta1, 1, 1, 0, NULL, "beta_g1")) ||
	    (rc = rd_points(r, beta2, 1, 1, 1, NULL, "beta_g2")) || (rc = rd_points(r, gamma2, 1, 1, 1, NULL, "gamma_g2")) ||
	    (rc = rd_points(r, delta1, 1, 1, 0, NULL, "delta_g1")) || (rc = rd_points(r, delta2, 1, 1, 1, NULL, "delta_g2")) ||
	    (rc = rd_count(r, n_ic, "IC")))
		return rc;
	return expect(*n_ic, n_public + 1, r->path, "IC", "public inputs + 1");
}

static int read_body(zp_pkey *k, struct rd *r, const zp_circuit *c)
{
	zp_zkey *z = &k->zk;
	uint32_t n;
	int rc;
	uint32_t *ia = bit_index(c->a_vars, c->n_vars, c->a_count), *ib = bit_index(c->b_vars, c->n_vars, c->b_count);
	if (!ia || !ib) {
		rc = zp_err_set(-ENOMEM, "%s: density index", r->path);
		goto out;
	}
	if ((rc = rd_head(r, &z->alpha1, &z->beta1, &z->beta2, &z->gamma2, &z->delta1, &z->delta2, &n, c->n_public)) ||
	    (rc = rd_points(r, z->ic, n, n, 0, NULL, "IC")))
		goto out;
	if ((rc = rd_count(r, &n, "h")) || (rc = expect(n, (uint64_t)c->domain_size - 1, r->path, "h", "domain − 1")) ||
	    (rc = rd_points(r, k->g16.h_coeff, n, n, 0, NULL, "h")))
		goto out;
	uint64_t nl = (uint64_t)c->n_vars - c->n_public - 1;
	if ((rc = rd_count(r, &n, "l")) || (rc = expect(n, nl, r->path, "l", "private wires")) ||
	    (rc = rd_points(r, z->c, n, n, 0, NULL, "l")))
		goto out;
	if ((rc = rd_count(r, &n, "a")) || (rc = expect(n, c->a_count, r->path, "a", "wires in A")) ||
	    (rc = rd_points(r, z->a, c->n_vars, n, 0, ia, "a")))
		goto out;
	if ((rc = rd_count(r, &n, "b_g1")) || (rc = expect(n, c->b_count, r->path, "b_g1", "wires in B")) ||
	    (rc = rd_points(r, z->b1, c->n_vars, n, 0, ib, "b_g1")))
		goto out;
	if ((rc = rd_count(r, &n, "b_g2")) || (rc = expect(n, c->b_count, r->path, "b_g2", "wires in B")) ||
	    (rc = rd_points(r, z->b2, c->n_vars, n, 1, ib, "b_g2")))
		goto out;
	if (r->left)
		rc = zp_err_set(ZP_EFORMAT, "%s: %" PRIu64 " bytes after b_g2", r->path, r->left);
out:
	free(ia);
	free(ib);
	return rc;
}

int zp_params_read(zp_pkey *k, const char *path, const zp_circuit *c, unsigned roots)
{
	zp_pkey_header h;
	zp_bin_map m;
	int rc;
	memset(k, 0, sizeof(*k));
	roots = roots ? roots : 7;
	if (roots != 5 && roots != 7)
		return zp_err_set(ZP_ERANGE, "root family %u (5 or 7)", roots);
	if ((rc = zp_pkey_layout(&h, c->n_vars, c->n_public, c->domain_size)))
		return rc;
	h.h_mode = ZP_H_COEFF;
	h.roots = roots;
	h.n_constraints = c->n_constraints;
	memcpy(h.fingerprint, c->fingerprint, 16);
	snprintf(h.origin, sizeof(h.origin), "converted from bellperson .params");
	if ((rc = zp_bin_map_file(&m, path)))
		return rc;
	if ((rc = zp_pkey_alloc(k, &h)) == 0) {
		struct rd r = { m.data, m.len, path };
		if ((rc = read_body(k, &r, c)) == 0)
			zp_pkey_seal(k);
		else
			zp_pkey_free(k);
	}
	zp_bin_unmap(&m);
	return rc;
}

int zp_params_read_vk(zp_g16_vk *vk, const char *path, uint32_t n_public)
{
	zp_bin_map m;
	zp_g1_affine beta1, delta1;
	uint32_t n = 0;
	int rc;
	memset(vk, 0, sizeof(*vk));
	if ((rc = zp_bin_map_file(&m, path)))
		return rc;
	struct rd r = { m.data, m.len, path };
	if ((rc = rd_head(&r, &vk->alpha1, &beta1, &vk->beta2, &vk->gamma2, &delta1, &vk->delta2, &n, n_public)))
		goto out;
	if (!(vk->ic = malloc((size_t)n * sizeof(zp_g1_affine)))) {
		rc = zp_err_set(-ENOMEM, "%s: IC", path);
		goto out;
	}
	if ((rc = rd_points(&r, vk->ic, n, n, 0, NULL, "IC"))) {
		free(vk->ic);
		vk->ic = NULL;
		goto out;
	}
	vk->n_public = n_public;
out:
	zp_bin_unmap(&m);
	return rc;
}

/* ---- writing ---- */
struct enc_ctx { const uint8_t *src; uint8_t *dst; size_t n; int g2; };

static void enc_task(void *vctx, size_t t, int worker)
{
	struct enc_ctx *c = vctx;
	size_t i0 = t * BLK, i1 = i0 + BLK < c->n ? i0 + BLK : c->n;
	for (size_t i = i0; i < i1; i++) {
		if (c->g2)
			zp_g2_to_uncompressed(c->dst + i * 192, (const zp_g2_affine *)c->src + i);
		else
			zp_g1_to_uncompressed(c->dst + i * 96, (const zp_g1_affine *)c->src + i);
	}
}

/* The file's bytes in order, each chunk's write(2)s on a thread of its own while the pool encodes the
 * next chunk into the other buffer (at 2^27 the write, ~40 GB, is as long as the encoding). */
struct pw {
	zp_file_atomic *f;
	uint8_t *buf[2];
	int cur;           /* the buffer to encode into: not the one being written */
	bool busy;
	pthread_t th;
	const uint8_t *b;
	size_t n;
	int rc;
	char msg[ZP_ERR_MSG_MAX];  /* the writer thread's message (zp_err's is per thread) */
};

static void *pw_thread(void *a)
{
	struct pw *w = a;
	if ((w->rc = zp_file_atomic_write(w->f, w->b, w->n)))
		snprintf(w->msg, sizeof w->msg, "%s", zp_err_msg());
	return NULL;
}

/* the write in flight finished; its error, with its message, as this thread's */
static int pw_wait(struct pw *w)
{
	if (w->busy) {
		pthread_join(w->th, NULL);
		w->busy = false;
		if (w->rc)
			zp_err_set(w->rc, "%s", w->msg);
	}
	return w->rc;
}

/* write buf[cur][0, n) behind the caller, who encodes into the other buffer next */
static int pw_async(struct pw *w, size_t n)
{
	int rc = pw_wait(w);
	if (rc)
		return rc;
	w->b = w->buf[w->cur], w->n = n, w->cur ^= 1;
	if (pthread_create(&w->th, NULL, pw_thread, w))
		return zp_file_atomic_write(w->f, w->b, n); /* no thread: in line */
	w->busy = true;
	return 0;
}

static int put_count(struct pw *w, uint32_t n)
{
	uint8_t b[4] = { (uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n };
	int rc = pw_wait(w);
	return rc ? rc : zp_file_atomic_write(w->f, b, 4);
}

static int is_inf(const void *p, int g2)
{
	return g2 ? zp_g2_affine_is_inf(p) : zp_g1_affine_is_inf(p);
}

/* n points from src; with skip_inf, points at infinity are left out (count written first). */
static int put_points(struct pw *w, const void *src, size_t n, int g2, int skip_inf, int with_count)
{
	size_t el = g2 ? 192 : 96, mem = g2 ? sizeof(zp_g2_affine) : sizeof(zp_g1_affine), cnt = 0;
	const uint8_t *s = src;
	for (size_t i = 0; i < n; i++)
		cnt += !skip_inf || !is_inf(s + i * mem, g2);
	int rc;
	if (cnt > UINT32_MAX)
		return zp_err_set(-ERANGE, "%s: %zu points do not fit a .params count", w->f->name, cnt);
	if (with_count && (rc = put_count(w, (uint32_t)cnt)))
		return rc;
	for (size_t at = 0; at < n; at += CHUNK) {
		size_t m = n - at < CHUNK ? n - at : CHUNK, out = 0;
		uint8_t *buf = w->buf[w->cur];
		struct enc_ctx c = { s + at * mem, buf, m, g2 };
		zp_par_for((m + BLK - 1) / BLK, enc_task, &c);
		for (size_t i = 0; i < m; i++) {
			if (skip_inf && is_inf(s + (at + i) * mem, g2))
				continue;
			if (out != i)
				memmove(buf + out * el, buf + i * el, el);
			out++;
		}
		if ((rc = pw_async(w, el * out)))
			return rc;
	}
	return 0;
}

int zp_params_write(const zp_pkey *k, const char *path)
{
	const zp_zkey *z = &k->zk;
	const zp_pkey_header *h = k->hdr;
	if (h->h_mode != ZP_H_COEFF)
		return zp_err_set(ZP_EMISMATCH, "%s: .params need the coefficient H query (convert the key with "
				  "--h-mode coeff first)", path);
	struct pw w = { .buf = { malloc(CHUNK * 192), malloc(CHUNK * 192) } };
	if (!w.buf[0] || !w.buf[1]) {
		free(w.buf[0]), free(w.buf[1]);
		return zp_err_set(-ENOMEM, "%s: out of memory", path);
	}
	/* atomic (common/zp_file.h): a kill mid-way leaves no half key at path. Not synced (as stdio's writer
	 * before it): an fsync of a 2^27 key is ~40 GB flushed at the disk's speed (~30 s on the lent GPU host),
	 * and a key cut short by a power cut is refused at load by its counts and point checks, then made again */
	zp_file_atomic f;
	zp_file_write_opts o = { .mode = 0644, .no_sync = true };
	w.f = &f;
	int rc = zp_file_atomic_begin(&f, path, &o);
	if (rc)
		goto out;
	uint64_t nv = z->n_vars, np = z->n_public;
	/* bellperson's order: the fixed points, then IC, H, L, A, B_G1, B_G2 (the last three without their
	 * points at infinity), each vector after its count */
	const struct { const void *src; size_t n; int g2, skip_inf, with_count; } part[] = {
		{ &z->alpha1, 1, 0, 0, 0 }, { &z->beta1, 1, 0, 0, 0 }, { &z->beta2, 1, 1, 0, 0 },
		{ &z->gamma2, 1, 1, 0, 0 }, { &z->delta1, 1, 0, 0, 0 }, { &z->delta2, 1, 1, 0, 0 },
		{ z->ic, np + 1, 0, 0, 1 }, { k->g16.h_coeff, (size_t)z->domain_size - 1, 0, 0, 1 },
		{ z->c, nv - np - 1, 0, 0, 1 }, { z->a, nv, 0, 1, 1 }, { z->b1, nv, 0, 1, 1 }, { z->b2, nv, 1, 1, 1 },
	};
	for (size_t i = 0; !rc && i < sizeof part / sizeof *part; i++)
		rc = put_points(&w, part[i].src, part[i].n, part[i].g2, part[i].skip_inf, part[i].with_count);
	int wr = pw_wait(&w); /* the last chunk's write, joined before the end closes the file */
	rc = zp_file_atomic_end(&f, rc ? rc : wr);
out:
	free(w.buf[0]), free(w.buf[1]);
	return rc;
}

/* ---- a compact key for proving with density bitmaps ---- */
static void *pts(uint64_t n, int g2)
{
	size_t el = g2 ? sizeof(zp_g2_affine) : sizeof(zp_g1_affine);
	return aligned_alloc(64, (n * el + 63) / 64 * 64 + 64);
}

/* The body after the fixed points, each count checked against the scan's. */
static int read_compact(zp_params_key *k, struct rd *r)
{
	const zp_params_info *in = &k->in;
	zp_zkey *z = &k->zk;
	uint32_t n;
	int rc;
	if ((rc = rd_head(r, &z->alpha1, &z->beta1, &z->beta2, &z->gamma2, &z->delta1, &z->delta2, &n, in->n_ic - 1)) ||
	    (rc = rd_points(r, z->ic, n, n, 0, NULL, "IC")))
		return rc;
	struct { uint32_t want; void *dst; int g2; const char *what; } v[] = {
		{ in->n_h, k->gk.h_coeff, 0, "h" }, { in->n_l, z->c, 0, "l" }, { in->n_a, z->a, 0, "a" },
		{ in->n_b1, z->b1, 0, "b_g1" }, { in->n_b2, z->b2, 1, "b_g2" },
	};
	for (size_t i = 0; i < sizeof v / sizeof *v; i++)
		if ((rc = rd_count(r, &n, v[i].what)) || (rc = expect(n, v[i].want, r->path, v[i].what, "the file's count")) ||
		    (rc = rd_points(r, v[i].dst, n, n, v[i].g2, NULL, v[i].what)))
			return rc;
	return r->left ? zp_err_set(ZP_EFORMAT, "%s: %" PRIu64 " bytes after b_g2", r->path, r->left) : 0;
}

int zp_params_load(zp_params_key *k, const char *path)
{
	memset(k, 0, sizeof(*k));
	int rc = zp_params_scan(path, &k->in);
	if (rc)
		return rc;
	const zp_params_info *in = &k->in;
	uint64_t nv = (uint64_t)in->n_ic + in->n_l;
	if (nv > UINT32_MAX || in->domain > ((uint64_t)1 << 31))
		return zp_err_set(ZP_ERANGE, "%s: %" PRIu64 " wires, domain %" PRIu64 ": too large", path, nv, in->domain);
	zp_zkey *z = &k->zk;
	z->n_vars = (uint32_t)nv;
	z->n_public = in->n_ic - 1;
	z->domain_size = (uint32_t)in->domain;
	while ((1ull << z->log_domain) < in->domain)
		z->log_domain++;
	z->circuit.n_vars = z->n_vars;
	z->circuit.n_public = z->n_public;
	z->circuit.domain_size = z->domain_size;
	z->circuit.log_domain = z->log_domain;
	z->ic = pts(in->n_ic, 0);
	z->c = pts(in->n_l, 0);
	z->a = pts(in->n_a, 0);
	z->b1 = pts(in->n_b1, 0);
	z->b2 = pts(in->n_b2, 1);
	k->gk = (zp_g16_key){ .zkey = z, .h_mode = ZP_H_COEFF, .roots = 7, .h_coeff = pts(in->domain, 0), .compact = true,
			      .n_a = in->n_a, .n_b = in->n_b1 };
	if (!z->ic || !z->c || !z->a || !z->b1 || !z->b2 || !k->gk.h_coeff) {
		zp_params_key_free(k);
		return zp_err_set(-ENOMEM, "%s: %" PRIu64 " bytes of points", path, in->file_bytes);
	}
	memset(k->gk.h_coeff + in->n_h, 0, sizeof(zp_g1_affine)); /* the top coefficient's point: never needed */
	zp_bin_map m;
	if ((rc = zp_bin_map_file(&m, path))) {
		zp_params_key_free(k);
		return rc;
	}
	struct rd r = { m.data, m.len, path };
	rc = read_compact(k, &r);
	zp_bin_unmap(&m);
	if (rc)
		zp_params_key_free(k);
	return rc;
}

void zp_params_key_free(zp_params_key *k)
{
	zp_zkey *z = &k->zk;
	free(z->ic);
	free(z->c);
	free(z->a);
	free(z->b1);
	free(z->b2);
	free(k->gk.h_coeff);
	memset(k, 0, sizeof(*k));
}
