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
#include <liburing.h>
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
#include "zp_mem.h"

static const char *const sec_name[ZP_PKS_N] = { "FIXED", "IC", "A", "B1", "B2", "C", "H" };

#define FIXED_BYTES (3 * sizeof(zp_g1_affine) + 3 * sizeof(zp_g2_affine))

static uint64_t align_up(uint64_t x)
{
	return (x + ZP_PKEY_ALIGN - 1) / ZP_PKEY_ALIGN * ZP_PKEY_ALIGN;
}

int zp_pkey_layout(zp_pkey_header *h, uint32_t n_vars, uint32_t n_public, uint32_t domain_size)
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
	const uint64_t cnt[ZP_PKS_N] = { 1, (uint64_t)n_public + 1, n_vars, n_vars, n_vars,
					 (uint64_t)n_vars - n_public - 1, domain_size };
	const uint32_t el[ZP_PKS_N] = { FIXED_BYTES, 96, 96, 96, 192, 96, 96 };
	uint64_t off = ZP_PKEY_ALIGN;
	for (int i = 0; i < ZP_PKS_N; i++) {
		h->sec[i] = (zp_pkey_section){ .id = (uint32_t)i + 1, .elem_bytes = el[i], .offset = off,
					       .count = cnt[i], .bytes = cnt[i] * el[i] };
		off = align_up(off + h->sec[i].bytes);
	}
	h->file_bytes = off;
	return 0;
}

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
	const zp_g1_affine *f1 = (const zp_g1_affine *)(m + h->sec[0].offset);
	const zp_g2_affine *f2 = (const zp_g2_affine *)(f1 + 3);
	z->alpha1 = f1[0];
	z->beta1 = f1[1];
	z->delta1 = f1[2];
	z->beta2 = f2[0];
	z->gamma2 = f2[1];
	z->delta2 = f2[2];
	z->ic = (zp_g1_affine *)(m + h->sec[ZP_PKS_IC - 1].offset);
	z->a = (zp_g1_affine *)(m + h->sec[ZP_PKS_A - 1].offset);
	z->b1 = (zp_g1_affine *)(m + h->sec[ZP_PKS_B1 - 1].offset);
	z->b2 = (zp_g2_affine *)(m + h->sec[ZP_PKS_B2 - 1].offset);
	z->c = (zp_g1_affine *)(m + h->sec[ZP_PKS_C - 1].offset);
	zp_g1_affine *hq = (zp_g1_affine *)(m + h->sec[ZP_PKS_H - 1].offset);
	z->h = h->h_mode == ZP_H_SNARKJS ? hq : NULL;
	zp_circuit *c = &z->circuit;
	c->n_vars = h->n_vars;
	c->n_public = h->n_public;
	c->n_constraints = h->n_constraints;
	c->domain_size = h->domain_size;
	c->log_domain = h->log_domain;
	memcpy(c->fingerprint, h->fingerprint, 16);
	k->g16 = (zp_g16_key){ .zkey = z, .h_mode = (zp_h_mode)h->h_mode, .roots = h->roots, .h_coeff = h->h_mode == ZP_H_COEFF ? hq : NULL };
}

/* Write the fixed points from the zkey view back into the FIXED section. */
static void store_fixed(zp_pkey *k)
{
	zp_g1_affine *f1 = (zp_g1_affine *)((uint8_t *)k->mem + k->hdr->sec[0].offset);
	zp_g2_affine *f2 = (zp_g2_affine *)(f1 + 3);
	f1[0] = k->zk.alpha1;
	f1[1] = k->zk.beta1;
	f1[2] = k->zk.delta1;
	f2[0] = k->zk.beta2;
	f2[1] = k->zk.gamma2;
	f2[2] = k->zk.delta2;
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

int zp_pkey_write(zp_pkey *k, const char *path)
{
	char tmp[4096];
	zp_progress_stage("checksums", 0, "items");
	zp_pkey_seal(k);
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return zp_err_set(-ENAMETOOLONG, "%s", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return zp_err_set(-errno, "%s: cannot create: %s", tmp, strerror(errno));
	const uint8_t *p = k->mem;
	uint64_t left = k->hdr->file_bytes;
	char what[ZP_PROGRESS_STAGE_MAX];
	snprintf(what, sizeof what, "writing %s", path);
	zp_progress_stage(what, left, "bytes");
	while (left) {
		ssize_t n = write(fd, p, left > (8u << 20) ? (8u << 20) : left); /* 8 MiB at a time: progress moves */
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;
			close(fd);
			unlink(tmp);
			return zp_err_set(-e, "%s: write: %s", tmp, strerror(e));
		}
		p += n;
		left -= (uint64_t)n;
		zp_progress_add((uint64_t)n);
	}
	zp_progress_stage("fsync", 0, "bytes");
	if (fsync(fd) || close(fd) || rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		return zp_err_set(-e, "%s: %s", path, strerror(e));
	}
	return 0;
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
	if (zp_pkey_layout(&want, h->n_vars, h->n_public, h->domain_size))
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

static int check_fixed_and_points(zp_pkey *k, const char *name, bool all)
{
	const zp_zkey *z = &k->zk;
	int rc;
	size_t bad;
	if ((rc = zp_g1_affine_check_array(&z->alpha1, 1, 0, NULL)) || (rc = zp_g1_affine_check_array(&z->beta1, 1, 0, NULL)) ||
	    (rc = zp_g1_affine_check_array(&z->delta1, 1, 0, NULL)) || (rc = zp_g2_affine_check_array(&z->beta2, 1, 0, NULL)) ||
	    (rc = zp_g2_affine_check_array(&z->gamma2, 1, 0, NULL)) || (rc = zp_g2_affine_check_array(&z->delta2, 1, 0, NULL)))
		return zp_err_set(rc, "%s: section 1 (FIXED): a point is not in G1/G2", name);
	if (!all)
		return 0;
	const zp_pkey_header *h = k->hdr;
	for (int i = 1; i < ZP_PKS_N; i++) {
		const void *p = (const uint8_t *)k->mem + h->sec[i].offset;
		rc = h->sec[i].elem_bytes == 192 ? zp_g2_affine_check_array(p, h->sec[i].count, 0, &bad)
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
	char a[33], b[33];
	zp_circuit_fingerprint_hex(c, a);
	zp_circuit_fingerprint_hex(&k->zk.circuit, b);
	return zp_err_set(ZP_EMISMATCH, "%s: the key was made for circuit %s, not this circuit (%s)", name ? name : "key",
			  b, a);
}

/* ---- probe, map ---- */
static int open_stat(const char *path, int flags, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | flags);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st)) {
		int e = errno;
		close(fd);
		return -e;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -EISDIR;
	}
	*size = (uint64_t)st.st_size;
	return fd;
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
		return zp_err_set(fd, "%s: %s", path, zp_strerror(fd));
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
		return zp_err_set(fd, "%s: %s", path, zp_strerror(fd));
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

/* ---- io_uring load ---- */
struct stream {
	struct io_uring ring;
	int fd;
	uint8_t *dst;
	const zp_pkey_header *h;
	uint64_t size, chunk, next_off;   /* next read to submit */
	uint64_t hashed;                  /* bytes [0, hashed) hashed */
	uint64_t nchunks, inflight;
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

static int submit_read(struct stream *s, uint64_t off, uint64_t len)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_read(sqe, s->fd, s->dst + off, (unsigned)len, off);
	io_uring_sqe_set_data64(sqe, off);
	s->inflight++;
	return 0;
}

static int fill_queue(struct stream *s, unsigned qd)
{
	int rc;
	while (s->inflight < qd && s->next_off < s->size) {
		uint64_t len = s->size - s->next_off < s->chunk ? s->size - s->next_off : s->chunk;
		if ((rc = submit_read(s, s->next_off, len)))
			return rc;
		s->next_off += len;
	}
	rc = io_uring_submit(&s->ring);
	return rc < 0 ? rc : 0;
}

/* One completion: a short read is resumed where it stopped; 0 bytes is a truncation. */
static int reap(struct stream *s, const char *path)
{
	struct io_uring_cqe *cqe;
	int rc = io_uring_wait_cqe(&s->ring, &cqe);
	if (rc)
		return zp_err_set(rc, "%s: io_uring: %s", path, strerror(-rc));
	uint64_t off = io_uring_cqe_get_data64(cqe);
	int res = cqe->res;
	io_uring_cqe_seen(&s->ring, cqe);
	s->inflight--;
	uint64_t idx = off / s->chunk, end = (idx + 1) * s->chunk < s->size ? (idx + 1) * s->chunk : s->size;
	if (res < 0)
		return zp_err_set(res, "%s: read at %" PRIu64 ": %s", path, off, strerror(-res));
	if (res == 0)
		return zp_err_set(ZP_ETRUNC, "%s: truncated while reading at %" PRIu64, path, off);
	if (off + (uint64_t)res < end) {
		/* resume: chunk bookkeeping is by the chunk's first offset, so rewrite the tag */
		if ((rc = submit_read(s, off + (uint64_t)res, end - off - (uint64_t)res)) ||
		    (rc = io_uring_submit(&s->ring)) < 0)
			return zp_err_set(rc, "%s: io_uring submit", path);
		return 0;
	}
	zp_progress_add((uint64_t)res);
	s->done[(end - 1) / s->chunk] = 1;
	while (s->hashed < s->size && s->done[s->hashed / s->chunk]) {
		uint64_t b = s->hashed / s->chunk, hi = (b + 1) * s->chunk < s->size ? (b + 1) * s->chunk : s->size;
		hash_range(s, s->hashed, hi);
		s->hashed = hi;
	}
	return 0;
}

static int stream_file(struct stream *s, const char *path, unsigned qd)
{
	int rc = io_uring_queue_init(qd, &s->ring, 0);
	if (rc)
		return zp_err_set(rc, "%s: io_uring_queue_init: %s", path, strerror(-rc));
	s->nchunks = (s->size + s->chunk - 1) / s->chunk;
	s->done = calloc(s->nchunks, 1);
	for (int i = 0; i < ZP_PKS_N; i++)
		if ((s->st[i] = XXH64_createState()))
			XXH64_reset(s->st[i], 0);
	rc = s->done ? 0 : zp_err_set(-ENOMEM, "%s: load bookkeeping", path);
	char what[ZP_PROGRESS_STAGE_MAX];
	snprintf(what, sizeof what, "loading %s", path);
	zp_progress_stage(what, s->size, "bytes");
	for (int i = 0; i < ZP_PKS_N && !rc; i++)
		if (!s->st[i])
			rc = zp_err_set(-ENOMEM, "%s: hash state", path);
	while (!rc && (s->hashed < s->size)) {
		if ((rc = fill_queue(s, qd)))
			rc = zp_err_set(rc, "%s: io_uring submit: %s", path, strerror(-rc));
		else
			rc = reap(s, path);
	}
	while (s->inflight) {   /* drain before the buffer goes away */
		struct io_uring_cqe *cqe;
		if (io_uring_wait_cqe(&s->ring, &cqe))
			break;
		io_uring_cqe_seen(&s->ring, cqe);
		s->inflight--;
	}
	io_uring_queue_exit(&s->ring);
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
		rc = zp_err_set(fd, "%s: %s", path, zp_strerror(fd));
		goto out;
	}
	if ((rc = read_header(h, fd, size, path)) == -EINVAL && direct) {
		close(fd);   /* the file system took O_DIRECT at open but not for reads */
		direct = false;
		if ((fd = open_stat(path, 0, &size)) < 0) {
			rc = zp_err_set(fd, "%s: %s", path, zp_strerror(fd));
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
				rc = zp_err_set(fd, "%s: %s", path, zp_strerror(fd));
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
	struct stream s = { .fd = fd, .dst = k->mem, .h = h, .size = h->file_bytes,
			    .chunk = o->chunk_bytes ? (o->chunk_bytes + ZP_PKEY_ALIGN - 1) / ZP_PKEY_ALIGN * ZP_PKEY_ALIGN : 4u << 20 };
	if (s.chunk > (1u << 30))
		s.chunk = 1u << 30;
	unsigned qd = o->queue_depth ? o->queue_depth : 16;
	rc = stream_file(&s, path, qd);
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
	if ((rc = zp_pkey_layout(&h, z->n_vars, z->n_public, z->domain_size)))
		return rc;
	h.h_mode = mode;
	h.n_constraints = z->circuit.n_constraints;
	memcpy(h.fingerprint, z->circuit.fingerprint, 16);
	snprintf(h.origin, sizeof(h.origin), "converted from a snarkjs .zkey");
	if ((rc = zp_pkey_alloc(k, &h)))
		return rc;
	zp_zkey *d = &k->zk;
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
	uint64_t sz[10] = { 4, 4 + 48 + 4 + 32 + 12 + 3 * 96 + 3 * 192, (np + 1) * 96, 4 + ncoef * 44, nv * 96, nv * 96,
			    nv * 192, (nv - np - 1) * 96, ds * 96, 64 + 4 };
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
			put32(&p, 48);
			putb(&p, ZP_FP_MODULUS, 48);
			put32(&p, 32);
			putb(&p, ZP_FR_MODULUS, 32);
			put32(&p, (uint32_t)nv);
			put32(&p, (uint32_t)np);
			put32(&p, (uint32_t)ds);
			putb(&p, &z->alpha1, 96);
			putb(&p, &z->beta1, 96);
			putb(&p, &z->beta2, 192);
			putb(&p, &z->gamma2, 192);
			putb(&p, &z->delta1, 96);
			putb(&p, &z->delta2, 192);
			break;
		case 3: putb(&p, z->ic, sz[2]); break;
		case 4:
			put32(&p, (uint32_t)ncoef);
			for (uint32_t m = 0; m < 2; m++)
				for (uint32_t r = 0; r < c->m[m].rows; r++)
					for (uint64_t e = c->m[m].row_ptr[r]; e < c->m[m].row_ptr[r + 1]; e++) {
						zp_fr v;   /* coef·R² as plain limbs: Montgomery form of the integer coef·R */
						zp_fr_to_mont(&v, zp_csr_coef(&c->m[m], e)->l);
						put32(&p, m);
						put32(&p, r);
						put32(&p, c->m[m].col[e]);
						putb(&p, &v, 32);
					}
			break;
		case 5: putb(&p, z->a, sz[4]); break;
		case 6: putb(&p, z->b1, sz[5]); break;
		case 7: putb(&p, z->b2, sz[6]); break;
		case 8: putb(&p, z->c, sz[7]); break;
		case 9: putb(&p, z->h, sz[8]); break;
		case 10: memset(p, 0, 68); p += 68; break;
		}
	}
	int rc = 0;
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, total, f) != total)
		rc = zp_err_set(-(errno ? errno : EIO), "%s: cannot write: %s", path, strerror(errno ? errno : EIO));
	if (f && fclose(f) && !rc)
		rc = zp_err_set(-errno, "%s: %s", path, strerror(errno));
	free(buf);
	return rc;
}
