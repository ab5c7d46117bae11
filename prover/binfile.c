#include "binfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zp_err.h"
#include "zp_file.h"

static uint32_t ld32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t ld64(const uint8_t *p)
{
	return (uint64_t)ld32(p) | (uint64_t)ld32(p + 4) << 32;
}

int zp_bin_map_file(zp_bin_map *m, const char *path)
{
	memset(m, 0, sizeof(*m));
	int fd = zp_file_open_regular(path, AT_FDCWD, 0, 0, NULL);
	if (fd < 0)
		return fd;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = -errno;
		close(fd);
		return zp_err_set(e, "%s: cannot stat", path);
	}
	if (st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			int e = -errno;
			close(fd);
			return zp_err_set(e, "%s: cannot map", path);
		}
		m->data = p;
		m->len = (size_t)st.st_size;
		m->mapped = 1;
	}
	close(fd);
	return 0;
}

void zp_bin_unmap(zp_bin_map *m)
{
	if (m->mapped)
		munmap((void *)m->data, m->len);
	memset(m, 0, sizeof(*m));
}

/* Where the container's header bytes come from: the mapped buffer, or pread on a descriptor
 * (a client's witness: read in bounded pieces, never mapped, so a file truncated under us is an
 * error, not a SIGBUS). One walker over the section table serves both. */
struct bin_src {
	const uint8_t *data; /* NULL: read from fd */
	int fd;
};

static int src_read(const struct bin_src *s, uint8_t *dst, uint64_t off, size_t n)
{
	if (s->data) {
		memcpy(dst, s->data + off, n);
		return 0;
	}
	return zp_bin_pread(s->fd, dst, n, off);
}

/* max_sec bounds the section count beyond what the length allows: each header costs a pread */
static int bin_walk(zp_bin *b, const struct bin_src *src, size_t len, const char *name, const char magic[4],
		    uint32_t max_sec)
{
	uint8_t h[12];
	memset(b, 0, sizeof(*b));
	b->data = src->data;
	b->len = len;
	b->name = name;
	if (len < 12)
		return zp_err_set(ZP_ETRUNC, "%s: %zu bytes, shorter than the 12-byte header", name, len);
	if (src_read(src, h, 0, 12))
		return zp_err_set(ZP_ETRUNC, "%s: cannot read the header", name);
	if (memcmp(h, magic, 4) != 0)
		return zp_err_set(ZP_EFORMAT, "%s: magic is not \"%.4s\"", name, magic);
	b->version = ld32(h + 4);
	b->nsec = ld32(h + 8);
	/* each section header is 12 bytes: bound the count by the file length before allocating */
	if (b->nsec > (len - 12) / 12)
		return zp_err_set(ZP_ETRUNC, "%s: header says %u sections, file too short for their headers",
				  name, b->nsec);
	if (b->nsec > max_sec)
		return zp_err_set(ZP_EFORMAT, "%s: %u sections, more than the %u this reader accepts", name,
				  b->nsec, max_sec);
	b->secs = calloc(b->nsec ? b->nsec : 1, sizeof(*b->secs));
	if (!b->secs)
		return zp_err_set(-ENOMEM, "%s: section table", name);
	uint64_t off = 12;
	for (uint32_t i = 0; i < b->nsec; i++) {
		if (len - off < 12 || src_read(src, h, off, 12))
			return zp_err_set(ZP_ETRUNC, "%s: section header %u runs past end of file", name, i);
		uint32_t id = ld32(h);
		uint64_t sz = ld64(h + 4);
		off += 12;
		if (sz > len - off)
			return zp_err_set(ZP_ETRUNC, "%s: section %u declares %llu bytes, only %llu left in file",
					  name, id, (unsigned long long)sz, (unsigned long long)(len - off));
		for (uint32_t j = 0; j < i; j++)
			if (b->secs[j].id == id)
				return zp_err_set(ZP_EFORMAT, "%s: section %u appears twice", name, id);
		b->secs[i] = (zp_bin_section){ .id = id, .off = off, .size = sz };
		off += sz;
	}
	if (off != len)
		return zp_err_set(ZP_EFORMAT, "%s: %llu trailing bytes after the last section", name,
				  (unsigned long long)(len - off));
	return 0;
}

int zp_bin_parse(zp_bin *b, const uint8_t *data, size_t len, const char *name, const char magic[4])
{
	struct bin_src src = { .data = data, .fd = -1 };
	return bin_walk(b, &src, len, name, magic, UINT32_MAX);
}

int zp_bin_parse_fd(zp_bin *b, int fd, const char *name, const char magic[4])
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return zp_err_set(-errno, "%s: cannot stat", name);
	struct bin_src src = { .data = NULL, .fd = fd };
	int rc = bin_walk(b, &src, (size_t)st.st_size, name, magic, ZP_BIN_FD_MAX_SECTIONS);
	if (rc)
		zp_bin_free(b);
	return rc;
}

int zp_bin_pread(int fd, void *buf, size_t n, uint64_t off)
{
	uint8_t *p = buf;
	while (n) {
		ssize_t r = pread(fd, p, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return ZP_ETRUNC;
		p += r, n -= (size_t)r, off += (uint64_t)r;
	}
	return 0;
}

int zp_bin_peek_u32(const char *path, const char magic[4], uint32_t id, uint64_t at, uint32_t *v)
{
	zp_bin_map m;
	zp_bin b;
	zp_bin_cur c;
	const uint8_t *p;
	int rc = zp_bin_map_file(&m, path);
	if (rc)
		return rc;
	if (!(rc = zp_bin_parse(&b, m.data, m.len, path, magic)) && !(rc = zp_bin_section_cur(&b, id, UINT64_MAX, &c)) &&
	    !(rc = zp_bin_get_bytes(&c, &p, at, "header")))
		rc = zp_bin_get_u32(&c, v, "count");
	zp_bin_free(&b);
	zp_bin_unmap(&m);
	return rc;
}

void zp_bin_free(zp_bin *b)
{
	free(b->secs);
	b->secs = NULL;
	b->nsec = 0;
}

int zp_bin_section_find(const zp_bin *b, uint32_t id, uint64_t want_size, const zp_bin_section **s)
{
	for (uint32_t i = 0; i < b->nsec; i++) {
		if (b->secs[i].id != id)
			continue;
		if (want_size != UINT64_MAX && b->secs[i].size != want_size)
			return zp_err_set(ZP_EFORMAT, "%s: section %u is %llu bytes, expected %llu", b->name, id,
					  (unsigned long long)b->secs[i].size, (unsigned long long)want_size);
		*s = &b->secs[i];
		return 0;
	}
	return zp_err_set(ZP_EFORMAT, "%s: missing section %u", b->name, id);
}

int zp_bin_section_cur(const zp_bin *b, uint32_t id, uint64_t want_size, zp_bin_cur *c)
{
	const zp_bin_section *s;
	int rc = zp_bin_section_find(b, id, want_size, &s);
	if (rc == 0)
		*c = (zp_bin_cur){ .p = b->data + s->off, .left = s->size, .file = b->name, .sec = id };
	return rc;
}

int zp_bin_get_bytes(zp_bin_cur *c, const uint8_t **p, uint64_t n, const char *field)
{
	if (c->left < n)
		return zp_err_set(ZP_ETRUNC, "%s: section %u: %s needs %llu bytes, %llu left", c->file, c->sec,
				  field, (unsigned long long)n, (unsigned long long)c->left);
	*p = c->p;
	c->p += n;
	c->left -= n;
	return 0;
}

int zp_bin_get_u32(zp_bin_cur *c, uint32_t *v, const char *field)
{
	const uint8_t *p;
	int rc = zp_bin_get_bytes(c, &p, 4, field);
	if (rc == 0)
		*v = ld32(p);
	return rc;
}

int zp_bin_get_u64(zp_bin_cur *c, uint64_t *v, const char *field)
{
	const uint8_t *p;
	int rc = zp_bin_get_bytes(c, &p, 8, field);
	if (rc == 0)
		*v = ld64(p);
	return rc;
}

int zp_bin_expect_end(const zp_bin_cur *c)
{
	if (c->left)
		return zp_err_set(ZP_EFORMAT, "%s: section %u has %llu unexpected trailing bytes", c->file, c->sec,
				  (unsigned long long)c->left);
	return 0;
}

int zp_bin_read_fr_prime(zp_bin_cur *c, const zp_curve **curve)
{
	uint32_t n8;
	const uint8_t *q;
	int rc = zp_bin_get_u32(c, &n8, "field size n8");
	if (rc)
		return rc;
	if (n8 != 32)
		return zp_err_set(ZP_EMISMATCH, "%s: section %u: field size n8 = %u, expected 32 (BLS12-381 or BN254 Fr)",
				  c->file, c->sec, n8);
	if ((rc = zp_bin_get_bytes(c, &q, 32, "prime")))
		return rc;
	if (!(*curve = zp_curve_by_fr_modulus(q, 32)))
		return zp_err_set(ZP_EMISMATCH,
				  "%s: section %u: prime is neither the BLS12-381 nor the BN254 scalar field r "
				  "(compile with circom --prime bls12381 or --prime bn128)", c->file, c->sec);
	return 0;
}

int zp_bin_fr_canonical_of(const zp_curve *cv, const uint8_t *le)
{
	return zp_curve_lt_limbs(le, cv->fr_modulus, cv->fr_limbs);
}

int zp_bin_fp_canonical_of(const zp_curve *cv, const uint8_t *le)
{
	return zp_curve_lt_limbs(le, cv->fp_modulus, cv->fp_limbs);
}
