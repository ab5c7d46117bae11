/*
 * keyfile.c — zkpipe's key file (layout and checks in keyfile.h).
 *
 * Loading is one io_uring read stream of fixed-size chunks over the whole file (header
 * included) straight into the destination, queue_depth reads in flight; the calling thread
 * hashes chunks in file order as they complete (XXH64 streaming state per section), so the
 * checksums cost no pass of their own. O_DIRECT needs 4096-aligned offsets, lengths and
 * buffer: the format guarantees the first two, the buffer is ours or checked; a file system
 * that refuses O_DIRECT (tmpfs, some overlays) is read buffered instead.
 */
#include "keyfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "binfile.h"
#include "par.h"
#include "progress.h"
#include "serialize.h"
#include "zp_err.h"
#include "zp_file.h"
#include "zp_mem.h"

static const char *const sec_name[ZP_PKS_N] = { "FIXED", "IC", "A", "B1", "B2", "C", "H" };

/* The header's curve field: 0 (files from before curves, and every BLS12-381 key written now, so BLS12-381
 * files are unchanged) or ZP_CURVE_BLS12_381 = BLS12-381, ZP_CURVE_BN254 = BN254. */
static const zp_curve *hdr_curve(const zp_pkey_header *h)
{
	return h->curve == 0 ? &zp_curve_bls12_381 : zp_curve_by_id(h->curve);
}

static uint64_t align_up(uint64_t x)
{
	return (x + ZP_PKEY_ALIGN - 1) / ZP_PKEY_ALIGN * ZP_PKEY_ALIGN;
}

int zp_pkey_layout(zp_pkey_header *h, uint32_t n_vars, uint32_t n_public, uint32_t domain_size)
{
	return zp_pkey_layout_curve(h, &zp_curve_bls12_381, n_vars, n_public, domain_size);
}

int zp_pkey_layout_curve(zp_pkey_header *h, const zp_curve *cv, uint32_t n_vars, uint32_t n_public,
			 uint32_t domain_size)
{
	uint32_t ds, lg;
	if (n_vars < (uint64_t)n_public + 1 || domain_size < 2 || zp_domain_for(domain_size, &ds, &lg) ||
	    ds != domain_size || domain_size < (uint64_t)n_public + 1)
		return zp_err_set(ZP_ERANGE, "key geometry: %u wires, %u public, domain %u", n_vars, n_public,
				  domain_size);
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, ZP_PKEY_MAGIC, 8);
	h->version = ZP_PKEY_VERSION;
	h->header_bytes = ZP_PKEY_ALIGN;
	h->n_sections = ZP_PKS_N;
	h->roots = 5;
	h->n_vars = n_vars;
	h->n_public = n_public;
	h->domain_size = domain_size;
	h->log_domain = lg;
	h->curve = cv->id == ZP_CURVE_BLS12_381 ? 0 : cv->id;
	const uint32_t g1 = (uint32_t)cv->g1_bytes, g2 = (uint32_t)cv->g2_bytes;
	const uint64_t cnt[ZP_PKS_N] = { 1, (uint64_t)n_public + 1, n_vars, n_vars, n_vars,
					 (uint64_t)n_vars - n_public - 1, domain_size };
	const uint32_t el[ZP_PKS_N] = { 3 * g1 + 3 * g2, g1, g1, g1, g2, g1, g1 };
	uint64_t off = ZP_PKEY_ALIGN;
	for (int i = 0; i < ZP_PKS_N; i++) {
		h->sec[i] = (zp_pkey_section){ .id = (uint32_t)i + 1, .elem_bytes = el[i], .offset = off,
					       .count = cnt[i], .bytes = cnt[i] * el[i] };
		off = align_up(off + h->sec[i].bytes);
	}
	h->file_bytes = off;
	return 0;
}

/* the zkey view's point members: BLS12-381's at the top, BN254's in bn (zkey.h) */
#define BIND_POINTS(Z, G1A, G2A)                                                 \
	do {                                                                     \
		const G1A *f1 = (const G1A *)(m + h->sec[0].offset);             \
		const G2A *f2 = (const G2A *)(f1 + 3);                           \
		(Z)->alpha1 = f1[0];                                             \
		(Z)->beta1 = f1[1];                                              \
		(Z)->delta1 = f1[2];                                             \
		(Z)->beta2 = f2[0];                                              \
		(Z)->gamma2 = f2[1];                                             \
		(Z)->delta2 = f2[2];                                             \
		(Z)->ic = (G1A *)(m + h->sec[ZP_PKS_IC - 1].offset);             \
		(Z)->a = (G1A *)(m + h->sec[ZP_PKS_A - 1].offset);               \
		(Z)->b1 = (G1A *)(m + h->sec[ZP_PKS_B1 - 1].offset);             \
		(Z)->b2 = (G2A *)(m + h->sec[ZP_PKS_B2 - 1].offset);             \
		(Z)->c = (G1A *)(m + h->sec[ZP_PKS_C - 1].offset);               \
		(Z)->h = h->h_mode == ZP_H_SNARKJS ? (G1A *)hq : NULL;           \
	} while (0)

static void bind_views(zp_pkey *k)
{
	zp_pkey_header *h = k->hdr;
	uint8_t *m = k->mem;
	zp_zkey *z = &k->zk;
	memset(z, 0, sizeof(*z));
	z->n_vars = h->n_vars;
	z->n_public = h->n_public;
	z->domain_size = h->domain_size;
	z->log_domain = h->log_domain;
	z->curve = hdr_curve(h);
	void *hq = m + h->sec[ZP_PKS_H - 1].offset;
	if (z->curve->id == ZP_CURVE_BN254)
		BIND_POINTS(&z->bn, zp_bn254_g1_affine, zp_bn254_g2_affine);
	else
		BIND_POINTS(z, zp_g1_affine, zp_g2_affine);
	zp_circuit *c = &z->circuit;
	c->n_vars = h->n_vars;
	c->n_public = h->n_public;
	c->n_constraints = h->n_constraints;
	c->domain_size = h->domain_size;
	c->log_domain = h->log_domain;
	c->curve = z->curve;
	memcpy(c->fingerprint, h->fingerprint, 16);
	k->g16 = (zp_g16_key){ .zkey = z, .h_mode = (zp_h_mode)h->h_mode, .roots = h->roots, .h_coeff = h->h_mode == ZP_H_COEFF ? hq : NULL };
}

/* Write the fixed points from the zkey view back into the FIXED section. */
#define STORE_FIXED(Z, G1A, G2A)                                                          \
	do {                                                                              \
		G1A *f1 = (G1A *)((uint8_t *)k->mem + k->hdr->sec[0].offset);             \
		G2A *f2 = (G2A *)(f1 + 3);                                                \
		f1[0] = (Z)->alpha1;                                                      \
		f1[1] = (Z)->beta1;                                                       \
		f1[2] = (Z)->delta1;                                                      \
		f2[0] = (Z)->beta2;                                                       \
		f2[1] = (Z)->gamma2;                                                      \
		f2[2] = (Z)->delta2;                                                      \
	} while (0)

static void store_fixed(zp_pkey *k)
{
	if (zp_zkey_is_bn254(&k->zk))
		STORE_FIXED(&k->zk.bn, zp_bn254_g1_affine, zp_bn254_g2_affine);
	else
		STORE_FIXED(&k->zk, zp_g1_affine, zp_g2_affine);
}

int zp_pkey_alloc(zp_pkey *k, const zp_pkey_header *h)
{
	memset(k, 0, sizeof(*k));
	k->mem = zp_aligned_alloc(ZP_PKEY_ALIGN, h->file_bytes);
	if (!k->mem)
		return zp_err_set(-ENOMEM, "proving key of %" PRIu64 " bytes", h->file_bytes);
	madvise(k->mem, h->file_bytes, MADV_HUGEPAGE);
	memset(k->mem, 0, h->file_bytes);
	k->mem_bytes = h->file_bytes;
	k->owner = 1;
	k->hdr = k->mem;
	*k->hdr = *h;
	bind_views(k);
	return 0;
}

const zp_g16_key *zp_pkey_g16(zp_pkey *k)
{
	k->g16.zkey = &k->zk;
	return &k->g16;
}

void zp_pkey_free(zp_pkey *k)
{
	if (k->owner == 1)
		free(k->mem);
	else if (k->owner == 2)
		munmap(k->mem, k->mem_bytes);
	memset(k, 0, sizeof(*k));
}

/* ---- checksums ---- */
struct hash_ctx { const uint8_t *mem; const zp_pkey_header *h; uint64_t out[ZP_PKS_N]; };

static void hash_task(void *vctx, size_t i, int worker)
{
	struct hash_ctx *c = vctx;
	c->out[i] = XXH64(c->mem + c->h->sec[i].offset, c->h->sec[i].bytes, 0);
}

static uint64_t header_sum(const zp_pkey_header *h)
{
	return XXH64(h, offsetof(zp_pkey_header, header_xxh64), 0);
}

void zp_pkey_seal(zp_pkey *k)
{
	store_fixed(k);
	struct hash_ctx c = { k->mem, k->hdr, { 0 } };
	zp_par_for(ZP_PKS_N, hash_task, &c);
	for (int i = 0; i < ZP_PKS_N; i++)
		k->hdr->sec[i].xxh64 = c.out[i];
	k->hdr->header_xxh64 = header_sum(k->hdr);
}

/* The writer's progress: bytes into the stage; the last piece starts the fsync's. */
struct write_prog { uint64_t left; };

static void write_progress(void *arg, uint64_t n)
{
	struct write_prog *w = arg;
	zp_progress_add(n);
	if ((w->left -= n) == 0)
		zp_progress_stage("fsync", 0, "bytes");
}

int zp_pkey_write(zp_pkey *k, const char *path)
{
	zp_progress_stage("checksums", 0, "items");
	zp_pkey_seal(k);
	struct write_prog wp = { k->hdr->file_bytes };
	char what[ZP_PROGRESS_STAGE_MAX];
	snprintf(what, sizeof what, "writing %s", path);
	zp_progress_stage(what, wp.left, "bytes");
	/* atomic (common/zp_file.h): a reader or a crash sees the old key or the new one, never half */
	zp_file_write_opts o = { .mode = 0644, .progress = write_progress, .arg = &wp };
	return zp_file_write_atomic(path, k->mem, k->hdr->file_bytes, &o);
}

/* ---- header checks ---- */
static int check_header(const zp_pkey_header *h, const char *name, uint64_t file_size)
{
	zp_pkey_header want;
	if (memcmp(h->magic, ZP_PKEY_MAGIC, 8))
		return zp_err_set(ZP_EFORMAT, "%s: not a zkpipe key file (magic is not \"%s\")", name, ZP_PKEY_MAGIC);
	if (h->version != ZP_PKEY_VERSION)
		return zp_err_set(ZP_EVERSION, "%s: key file version %u, this zkpipe reads version %u", name, h->version,
				  ZP_PKEY_VERSION);
	if (h->header_xxh64 != header_sum(h))
		return zp_err_set(ZP_EFORMAT, "%s: header: checksum mismatch (stored %016" PRIx64 ", computed %016" PRIx64
				  "): the header is corrupt", name, h->header_xxh64, header_sum(h));
	if (h->header_bytes != ZP_PKEY_ALIGN || h->n_sections != ZP_PKS_N || h->h_mode > ZP_H_COEFF ||
	    (h->roots != 5 && h->roots != 7))
		return zp_err_set(ZP_EFORMAT, "%s: header: header size %u, %u sections, H mode %u, roots %u not understood",
				  name, h->header_bytes, h->n_sections, h->h_mode, h->roots);
	if (!hdr_curve(h))
		return zp_err_set(ZP_EFORMAT, "%s: header: curve %u not understood (0 or 1: BLS12-381, 2: BN254)", name,
				  h->curve);
	if (zp_pkey_layout_curve(&want, hdr_curve(h), h->n_vars, h->n_public, h->domain_size))
		return zp_err_set(ZP_EFORMAT, "%s: header: impossible counts (%u wires, %u public, domain %u)", name,
				  h->n_vars, h->n_public, h->domain_size);
	for (int i = 0; i < ZP_PKS_N; i++) {
		const zp_pkey_section *s = &h->sec[i], *w = &want.sec[i];
		if (s->id != w->id || s->elem_bytes != w->elem_bytes || s->offset != w->offset || s->count != w->count ||
		    s->bytes != w->bytes)
			return zp_err_set(ZP_EFORMAT, "%s: section %d (%s): geometry (offset %" PRIu64 ", %" PRIu64
					  " x %u bytes) does not match the counts in the header", name, i + 1,
					  sec_name[i], s->offset, s->count, s->elem_bytes);
	}
	if (h->file_bytes != want.file_bytes || h->log_domain != want.log_domain)
		return zp_err_set(ZP_EFORMAT, "%s: header: file size %" PRIu64 " / log domain %u inconsistent", name,
				  h->file_bytes, h->log_domain);
	if (file_size < h->file_bytes)
		return zp_err_set(ZP_ETRUNC, "%s: truncated: the file is %" PRIu64 " bytes, its header says %" PRIu64,
				  name, file_size, h->file_bytes);
	if (file_size > h->file_bytes)
		return zp_err_set(ZP_EFORMAT, "%s: %" PRIu64 " bytes after the end the header gives (%" PRIu64 ")", name,
				  file_size - h->file_bytes, h->file_bytes);
	return 0;
}

static int check_sums(const zp_pkey_header *h, const uint64_t got[ZP_PKS_N], const char *name)
{
	for (int i = 0; i < ZP_PKS_N; i++)
		if (got[i] != h->sec[i].xxh64)
			return zp_err_set(ZP_EFORMAT, "%s: section %d (%s): checksum mismatch (stored %016" PRIx64
					  ", computed %016" PRIx64 "): the key is corrupt", name, i + 1, sec_name[i],
					  h->sec[i].xxh64, got[i]);
	return 0;
}

/* every point of n at p (elem bytes each) through the curve's check; *bad = the first failing one */
static int check_points_cv(const zp_curve *cv, const uint8_t *p, size_t n, bool g2, size_t *bad)
{
	size_t el = g2 ? cv->g2_bytes : cv->g1_bytes;
	for (size_t i = 0; i < n; i++) {
		int rc = g2 ? cv->g2_check(p + i * el) : cv->g1_check(p + i * el);
		if (rc) {
			*bad = i;
			return rc;
		}
	}
	return 0;
}

static int check_fixed_and_points(zp_pkey *k, const char *name, bool all)
{
	const zp_zkey *z = &k->zk;
	const zp_curve *cv = z->curve;
	const zp_pkey_header *h = k->hdr;
	int rc;
	size_t bad;
	if (cv->id == ZP_CURVE_BN254) {
		const uint8_t *f = (const uint8_t *)k->mem + h->sec[0].offset;
		if ((rc = check_points_cv(cv, f, 3, false, &bad)) || (rc = check_points_cv(cv, f + 3 * cv->g1_bytes, 3, true, &bad)))
			return zp_err_set(rc, "%s: section 1 (FIXED): a point is not in G1/G2", name);
	} else if ((rc = zp_g1_affine_check_array(&z->alpha1, 1, 0, NULL)) || (rc = zp_g1_affine_check_array(&z->beta1, 1, 0, NULL)) ||
		   (rc = zp_g1_affine_check_array(&z->delta1, 1, 0, NULL)) || (rc = zp_g2_affine_check_array(&z->beta2, 1, 0, NULL)) ||
		   (rc = zp_g2_affine_check_array(&z->gamma2, 1, 0, NULL)) || (rc = zp_g2_affine_check_array(&z->delta2, 1, 0, NULL))) {
		return zp_err_set(rc, "%s: section 1 (FIXED): a point is not in G1/G2", name);
	}
	if (!all)
		return 0;
	for (int i = 1; i < ZP_PKS_N; i++) {
		const void *p = (const uint8_t *)k->mem + h->sec[i].offset;
		bool g2 = h->sec[i].elem_bytes == cv->g2_bytes;
		if (cv->id == ZP_CURVE_BN254)
			rc = check_points_cv(cv, p, h->sec[i].count, g2, &bad);
		else
			rc = g2 ? zp_g2_affine_check_array(p, h->sec[i].count, 0, &bad)
				: zp_g1_affine_check_array(p, h->sec[i].count, 0, &bad);
		if (rc)
			return zp_err_set(rc, "%s: section %d (%s): point %zu: %s", name, i + 1, sec_name[i], bad,
					  zp_strerror(rc));
	}
	return 0;
}

static int finish_load(zp_pkey *k, const char *name, const zp_pkey_load_opts *o)
{
	bind_views(k);
	int rc = check_fixed_and_points(k, name, o && o->check_points);
	if (rc)
		return rc;
	if (o && o->fingerprint && memcmp(o->fingerprint, k->hdr->fingerprint, 16)) {
		zp_circuit c = { 0 };
		memcpy(c.fingerprint, o->fingerprint, 16);
		return zp_pkey_check_circuit(k, &c, name);
	}
	return 0;
}

int zp_pkey_check_circuit(const zp_pkey *k, const zp_circuit *c, const char *name)
{
	if (!memcmp(c->fingerprint, k->hdr->fingerprint, 16))
		return 0;
	if (c->curve && c->curve != k->zk.curve)   /* (a circuit made from a file always knows its curve) */
		return zp_err_set(ZP_EMISMATCH, "%s: the key is a %s key, the circuit a %s circuit: the curves differ",
				  name ? name : "key", k->zk.curve->name, c->curve->name);
	char a[33], b[33];
	zp_circuit_fingerprint_hex(c, a);
	zp_circuit_fingerprint_hex(&k->zk.circuit, b);
	return zp_err_set(ZP_EMISMATCH, "%s: the key was made for circuit %s, not this circuit (%s)", name ? name : "key",
			  b, a);
}

/* ---- probe, map ---- */
static int open_stat(const char *path, int flags, uint64_t *size)
{
	return zp_file_open_regular(path, AT_FDCWD, flags, 0, size);
}

static int read_header(zp_pkey_header *h, int fd, uint64_t size, const char *path)
{
	if (size < sizeof(*h))
		return zp_err_set(ZP_ETRUNC, "%s: truncated: %" PRIu64 " bytes, shorter than the %d-byte header", path, size,
				  ZP_PKEY_ALIGN);
	ssize_t n = pread(fd, h, sizeof(*h), 0);
	if (n != (ssize_t)sizeof(*h))
		return zp_err_set(n < 0 ? -errno : ZP_ETRUNC, "%s: reading the header: %s", path,
				  n < 0 ? strerror(errno) : "short read");
	return check_header(h, path, size);
}

int zp_pkey_probe(zp_pkey_header *h, const char *path)
{
	uint64_t size;
	int fd = open_stat(path, 0, &size);
	if (fd < 0)
		return fd;
	int rc = read_header(h, fd, size, path);
	close(fd);
	return rc;
}

int zp_pkey_map(zp_pkey *k, const char *path, const zp_pkey_load_opts *o)
{
	zp_pkey_header h;
	uint64_t size = 0;
	memset(k, 0, sizeof(*k));
	int fd = open_stat(path, 0, &size), rc;
	if (fd < 0)
		return fd;
	if ((rc = read_header(&h, fd, size, path))) {
		close(fd);
		return rc;
	}
	void *m = mmap(NULL, size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return zp_err_set(-errno, "%s: mmap: %s", path, strerror(errno));
	k->mem = m;
	k->mem_bytes = size;
	k->owner = 2;
	k->hdr = m;
	struct hash_ctx c = { m, &h, { 0 } };
	zp_par_for(ZP_PKS_N, hash_task, &c);
	if ((rc = memcmp(&h, m, sizeof(h)) ? zp_err_set(ZP_EFORMAT, "%s: header changed while mapping", path) : 0) ||
	    (rc = check_sums(&h, c.out, path)) || (rc = finish_load(k, path, o))) {
		zp_pkey_free(k);
		return rc;
	}
	return 0;
}

/* ---- io_uring load (common/zp_file.h's reader) ---- */
struct stream {
	uint8_t *dst;
	const zp_pkey_header *h;
	uint64_t size, chunk;
	uint64_t hashed;                  /* bytes [0, hashed) hashed */
	uint8_t *done;                    /* per chunk */
	XXH64_state_t *st[ZP_PKS_N];
};

static void hash_range(struct stream *s, uint64_t lo, uint64_t hi)
{
	for (int i = 0; i < ZP_PKS_N; i++) {
		uint64_t a = s->h->sec[i].offset, b = a + s->h->sec[i].bytes;
		a = a > lo ? a : lo;
		b = b < hi ? b : hi;
		if (a < b)
			XXH64_update(s->st[i], s->dst + a, b - a);
	}
}

/* A chunk landed: count it, then hash every chunk now contiguous from the start (sections are
 * hashed in file order however the reads complete). */
static int chunk_landed(void *arg, uint64_t off, uint64_t len)
{
	struct stream *s = arg;
	zp_progress_add(len);
	s->done[off / s->chunk] = 1;
	while (s->hashed < s->size && s->done[s->hashed / s->chunk]) {
		uint64_t b = s->hashed / s->chunk, hi = (b + 1) * s->chunk < s->size ? (b + 1) * s->chunk : s->size;
		hash_range(s, s->hashed, hi);
		s->hashed = hi;
	}
	return 0;
}

static int stream_file(struct stream *s, int fd, const char *path, unsigned qd)
{
	s->done = calloc((s->size + s->chunk - 1) / s->chunk + 1, 1);
	for (int i = 0; i < ZP_PKS_N; i++)
		if ((s->st[i] = XXH64_createState()))
			XXH64_reset(s->st[i], 0);
	int rc = s->done ? 0 : zp_err_set(-ENOMEM, "%s: load bookkeeping", path);
	char what[ZP_PROGRESS_STAGE_MAX];
	snprintf(what, sizeof what, "loading %s", path);
	zp_progress_stage(what, s->size, "bytes");
	for (int i = 0; i < ZP_PKS_N && !rc; i++)
		if (!s->st[i])
			rc = zp_err_set(-ENOMEM, "%s: hash state", path);
	zp_file_uring_opts o = { .queue_depth = qd, .chunk = s->chunk, .on_chunk = chunk_landed, .arg = s };
	if (!rc)
		rc = zp_file_uring_read(fd, path, s->dst, s->size, &o);
	free(s->done);
	return rc;
}

static double mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int zp_pkey_load(zp_pkey *k, const char *path, const zp_pkey_load_opts *o, zp_pkey_load_stats *stats)
{
	static const zp_pkey_load_opts defaults = { 0 };
	double t0 = mono();
	zp_pkey_header *h = aligned_alloc(ZP_PKEY_ALIGN, sizeof(*h));
	uint64_t size = 0;
	int rc, fd = -1;
	bool direct = false;
	memset(k, 0, sizeof(*k));
	if (!o)
		o = &defaults;
	if (!h)
		return zp_err_set(-ENOMEM, "%s: header", path);
	if (!o->buffered && (fd = open_stat(path, O_DIRECT, &size)) >= 0)
		direct = true;
	else if ((fd = open_stat(path, 0, &size)) < 0) {
		rc = fd;
		goto out;
	}
	if ((rc = read_header(h, fd, size, path)) == -EINVAL && direct) {
		close(fd);   /* the file system took O_DIRECT at open but not for reads */
		direct = false;
		if ((fd = open_stat(path, 0, &size)) < 0) {
			rc = fd;
			goto out;
		}
		rc = read_header(h, fd, size, path);
	}
	if (rc)
		goto out;
	if (o->buf) {
		if (o->buf_bytes < h->file_bytes) {
			rc = zp_err_set(ZP_ERANGE, "%s: the caller's buffer holds %zu bytes, the key needs %" PRIu64, path,
					o->buf_bytes, h->file_bytes);
			goto out;
		}
		k->mem = o->buf;
		k->mem_bytes = o->buf_bytes;
		if (direct && ((uintptr_t)o->buf % ZP_PKEY_ALIGN)) {
			close(fd);
			direct = false;
			if ((fd = open_stat(path, 0, &size)) < 0) {
				rc = fd;
				goto out;
			}
		}
	} else if (!(k->mem = zp_aligned_alloc(ZP_PKEY_ALIGN, h->file_bytes))) {
		rc = zp_err_set(-ENOMEM, "%s: %" PRIu64 " bytes for the key", path, h->file_bytes);
		goto out;
	} else {
		k->mem_bytes = h->file_bytes;
		k->owner = 1;
		madvise(k->mem, h->file_bytes, MADV_HUGEPAGE);
	}
	k->hdr = k->mem;
	struct stream s = { .dst = k->mem, .h = h, .size = h->file_bytes,
			    .chunk = o->chunk_bytes ? (o->chunk_bytes + ZP_PKEY_ALIGN - 1) / ZP_PKEY_ALIGN * ZP_PKEY_ALIGN : 4u << 20 };
	if (s.chunk > (1u << 30))
		s.chunk = 1u << 30;
	unsigned qd = o->queue_depth ? o->queue_depth : 16;
	rc = stream_file(&s, fd, path, qd);
	uint64_t got[ZP_PKS_N];
	for (int i = 0; i < ZP_PKS_N; i++) {
		got[i] = s.st[i] ? XXH64_digest(s.st[i]) : 0;
		XXH64_freeState(s.st[i]);
	}
	if (rc)
		goto out;
	if (memcmp(h, k->mem, sizeof(*h))) {
		rc = zp_err_set(ZP_EFORMAT, "%s: the header changed while the key was read", path);
		goto out;
	}
	if ((rc = check_sums(h, got, path)) || (rc = finish_load(k, path, o)))
		goto out;
	if (stats)
		*stats = (zp_pkey_load_stats){ .direct = direct, .seconds = mono() - t0, .bytes = h->file_bytes };
out:
	if (fd >= 0)
		close(fd);
	free(h);
	if (rc)
		zp_pkey_free(k);
	return rc;
}

/* ---- snarkjs .zkey ---- */
int zp_pkey_from_zkey(zp_pkey *k, const zp_zkey *z, zp_h_mode mode)
{
	zp_pkey_header h;
	zp_g16_key gk;
	int rc;
	const zp_curve *cv = zp_curve_of(z->curve);
	if (cv->id == ZP_CURVE_BN254 && mode != ZP_H_SNARKJS)
		return zp_err_set(ZP_ERANGE, "H mode coeff (bellperson's H query) is for BLS12-381 keys; this key is %s",
				  cv->name);
	if ((rc = zp_pkey_layout_curve(&h, cv, z->n_vars, z->n_public, z->domain_size)))
		return rc;
	h.h_mode = mode;
	h.n_constraints = z->circuit.n_constraints;
	memcpy(h.fingerprint, z->circuit.fingerprint, 16);
	snprintf(h.origin, sizeof(h.origin), "converted from a snarkjs .zkey");
	if ((rc = zp_pkey_alloc(k, &h)))
		return rc;
	zp_zkey *d = &k->zk;
	size_t g1 = cv->g1_bytes, g2 = cv->g2_bytes, nv = z->n_vars, np = z->n_public;
	if (cv->id == ZP_CURVE_BN254) {
		d->bn.alpha1 = z->bn.alpha1;
		d->bn.beta1 = z->bn.beta1;
		d->bn.delta1 = z->bn.delta1;
		d->bn.beta2 = z->bn.beta2;
		d->bn.gamma2 = z->bn.gamma2;
		d->bn.delta2 = z->bn.delta2;
		store_fixed(k);
		memcpy(d->bn.ic, z->bn.ic, (np + 1) * g1);
		memcpy(d->bn.a, z->bn.a, nv * g1);
		memcpy(d->bn.b1, z->bn.b1, nv * g1);
		memcpy(d->bn.b2, z->bn.b2, nv * g2);
		memcpy(d->bn.c, z->bn.c, (nv - np - 1) * g1);
		memcpy(d->bn.h, z->bn.h, (size_t)z->domain_size * g1);
		zp_pkey_seal(k);
		return 0;
	}
	d->alpha1 = z->alpha1;
	d->beta1 = z->beta1;
	d->delta1 = z->delta1;
	d->beta2 = z->beta2;
	d->gamma2 = z->gamma2;
	d->delta2 = z->delta2;
	store_fixed(k);
	memcpy(d->ic, z->ic, ((size_t)z->n_public + 1) * sizeof(zp_g1_affine));
	memcpy(d->a, z->a, (size_t)z->n_vars * sizeof(zp_g1_affine));
	memcpy(d->b1, z->b1, (size_t)z->n_vars * sizeof(zp_g1_affine));
	memcpy(d->b2, z->b2, (size_t)z->n_vars * sizeof(zp_g2_affine));
	memcpy(d->c, z->c, ((size_t)z->n_vars - z->n_public - 1) * sizeof(zp_g1_affine));
	zp_g1_affine *hq = mode == ZP_H_SNARKJS ? d->h : k->g16.h_coeff;
	if (mode == ZP_H_SNARKJS) {
		memcpy(hq, z->h, (size_t)z->domain_size * sizeof(zp_g1_affine));
	} else {
		if ((rc = zp_g16_key_init(&gk, z, ZP_H_COEFF))) {
			zp_pkey_free(k);
			return rc;
		}
		memcpy(hq, gk.h_coeff, (size_t)z->domain_size * sizeof(zp_g1_affine));
		zp_g16_key_free(&gk);
	}
	zp_pkey_seal(k);
	return 0;
}

static void put32(uint8_t **p, uint32_t v)
{
	memcpy(*p, &v, 4);
	*p += 4;
}

static void put64(uint8_t **p, uint64_t v)
{
	memcpy(*p, &v, 8);
	*p += 8;
}

static void putb(uint8_t **p, const void *src, size_t n)
{
	memcpy(*p, src, n);
	*p += n;
}

int zp_pkey_write_zkey(const zp_pkey *k, const zp_circuit *c, const char *path)
{
	const zp_pkey_header *h = k->hdr;
	const zp_zkey *z = &k->zk;
	if (h->h_mode != ZP_H_SNARKJS)
		return zp_err_set(ZP_EMISMATCH, "%s: a .zkey needs the snarkjs H convention; this key has coefficient H", path);
	if (memcmp(c->fingerprint, h->fingerprint, 16) || c->m[0].rows != h->domain_size)
		return zp_pkey_check_circuit(k, c, path);
	uint64_t ncoef = c->m[0].nnz + c->m[1].nnz;
	if (ncoef > UINT32_MAX)
		return zp_err_set(ZP_ERANGE, "%s: %" PRIu64 " coefficients do not fit a .zkey", path, ncoef);
	uint64_t nv = h->n_vars, np = h->n_public, ds = h->domain_size;
	const zp_curve *cv = zp_curve_of(z->curve);
	bool bn = cv->id == ZP_CURVE_BN254;
	uint64_t q8 = cv->fp_bytes, g1 = cv->g1_bytes, g2 = cv->g2_bytes;
	uint64_t sz[10] = { 4, 4 + q8 + 4 + 32 + 12 + 3 * g1 + 3 * g2, (np + 1) * g1, 4 + ncoef * 44, nv * g1, nv * g1,
			    nv * g2, (nv - np - 1) * g1, ds * g1, 64 + 4 };
	/* the point sections are the key file's own bytes (same in-memory form as a .zkey's); the fixed
	 * points the zkey view's (the members of its curve) */
	const uint8_t *m = k->mem;
	const void *fx[6] = { &z->alpha1, &z->beta1, &z->beta2, &z->gamma2, &z->delta1, &z->delta2 };
	const void *fxb[6] = { &z->bn.alpha1, &z->bn.beta1, &z->bn.beta2, &z->bn.gamma2, &z->bn.delta1, &z->bn.delta2 };
	const void *const *fix = bn ? fxb : fx;
	uint64_t total = 12;
	for (int i = 0; i < 10; i++)
		total += 12 + sz[i];
	uint8_t *buf = malloc(total), *p = buf;
	if (!buf)
		return zp_err_set(-ENOMEM, "%s: %" PRIu64 " bytes", path, total);
	putb(&p, "zkey", 4);
	put32(&p, 1);
	put32(&p, 10);
	for (uint32_t s = 1; s <= 10; s++) {
		put32(&p, s);
		put64(&p, sz[s - 1]);
		switch (s) {
		case 1: put32(&p, 1); break;
		case 2:
			put32(&p, (uint32_t)q8);
			putb(&p, cv->fp_modulus, q8);
			put32(&p, 32);
			putb(&p, cv->fr_modulus, 32);
			put32(&p, (uint32_t)nv);
			put32(&p, (uint32_t)np);
			put32(&p, (uint32_t)ds);
			for (int i = 0; i < 6; i++)
				putb(&p, fix[i], i == 2 || i == 3 || i == 5 ? g2 : g1);
			break;
		case 3: putb(&p, m + h->sec[ZP_PKS_IC - 1].offset, sz[2]); break;
		case 4:
			put32(&p, (uint32_t)ncoef);
			for (uint32_t m = 0; m < 2; m++)
				for (uint32_t r = 0; r < c->m[m].rows; r++)
					for (uint64_t e = c->m[m].row_ptr[r]; e < c->m[m].row_ptr[r + 1]; e++) {
						zp_fr v;   /* coef·R² as plain limbs: Montgomery form of the integer coef·R */
						if (bn)
							zp_bn254_fr_to_mont((zp_bn254_fr *)&v, zp_csr_coef(&c->m[m], e)->l);
						else
							zp_fr_to_mont(&v, zp_csr_coef(&c->m[m], e)->l);
						put32(&p, m);
						put32(&p, r);
						put32(&p, c->m[m].col[e]);
						putb(&p, &v, 32);
					}
			break;
		case 5: putb(&p, m + h->sec[ZP_PKS_A - 1].offset, sz[4]); break;
		case 6: putb(&p, m + h->sec[ZP_PKS_B1 - 1].offset, sz[5]); break;
		case 7: putb(&p, m + h->sec[ZP_PKS_B2 - 1].offset, sz[6]); break;
		case 8: putb(&p, m + h->sec[ZP_PKS_C - 1].offset, sz[7]); break;
		case 9: putb(&p, m + h->sec[ZP_PKS_H - 1].offset, sz[8]); break;
		case 10: memset(p, 0, 68); p += 68; break;
		}
	}
	/* atomic (common/zp_file.h), as the .zpk writer: no half .zkey at path after a kill */
	zp_file_write_opts o = { .mode = 0644 };
	int rc = zp_file_write_atomic(path, buf, total, &o);
	free(buf);
	return rc;
}
