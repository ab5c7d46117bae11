/*
 * files.c — the files the pipeline reads and writes: header peeks of circom/snarkjs files
 * (validation without loading), witnesses read straight into a slot, job manifests, atomic
 * writes, the assembled job proof, and the path policy for client-named files.
 */
#include "pipe.h"
#include "field.h"
#include "zp_err.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int zp_err_wrap(int code, const char *fmt, ...)
{
	char pre[512], inner[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof pre, fmt, ap);
	va_end(ap);
	snprintf(inner, sizeof inner, "%s", zp_err_msg());
	/* inner already ends with ": <name of code>" when it was set for this code */
	char suffix[128];
	snprintf(suffix, sizeof suffix, ": %s", zp_strerror(code));
	size_t li = strlen(inner), ls = strlen(suffix);
	if (li >= ls && !strcmp(inner + li - ls, suffix))
		inner[li - ls] = 0;
	return zp_err_set(code, "%s%s%s", pre, inner[0] ? ": " : "", inner);
}

uint64_t zp_payload_layout(struct zp_slot_payload *p, uint32_t n_vars, uint32_t domain)
{
	uint64_t fr = 32;
	p->magic = ZP_PAYLOAD_MAGIC;
	p->n_vars = n_vars;
	p->domain = domain;
	p->off_w = 4096;
	p->off_a = p->off_w + ((uint64_t)n_vars * fr + 63) / 64 * 64;
	p->off_b = p->off_a + (uint64_t)domain * fr;
	p->off_c = p->off_b + (uint64_t)domain * fr;
	p->bytes = p->off_c + (uint64_t)domain * fr;
	return p->bytes;
}

static int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	uint8_t *b = buf;
	while (n) {
		ssize_t r = pread(fd, b, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return ZP_ETRUNC;
		b += r, n -= (size_t)r, off += (uint64_t)r;
	}
	return 0;
}

int zp_iden3_section(int fd, const char magic[4], uint32_t id, uint64_t *off, uint64_t *size)
{
	uint8_t h[12];
	struct stat st;
	if (fstat(fd, &st))
		return -errno;
	if (pread_all(fd, h, 12, 0) || memcmp(h, magic, 4))
		return zp_err_set(ZP_EFORMAT, "not a %.4s file (magic)", magic);
	uint32_t nsec;
	memcpy(&nsec, h + 8, 4);
	uint64_t pos = 12;
	for (uint32_t i = 0; i < nsec; i++) {
		uint8_t sh[12];
		uint32_t sid;
		uint64_t sz;
		if (pread_all(fd, sh, 12, pos))
			return zp_err_set(ZP_ETRUNC, "%.4s: section table truncated", magic);
		memcpy(&sid, sh, 4);
		memcpy(&sz, sh + 4, 8);
		pos += 12;
		if (sz > (uint64_t)st.st_size - pos || pos > (uint64_t)st.st_size)
			return zp_err_set(ZP_ETRUNC, "%.4s: section %u runs past the end", magic, sid);
		if (sid == id) {
			*off = pos;
			*size = sz;
			return 0;
		}
		pos += sz;
	}
	return zp_err_set(ZP_EFORMAT, "%.4s: no section %u", magic, id);
}

/* u32 at byte `at` of section `id`, after an n8-length prime when `skip_prime`. */
static int peek_u32(const char *path, const char magic[4], uint32_t id, uint64_t at, uint32_t *v)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return zp_err_set(-errno, "%s", path);
	uint64_t off, size;
	int r = zp_iden3_section(fd, magic, id, &off, &size);
	if (r == 0 && at + 4 > size)
		r = zp_err_set(ZP_ETRUNC, "section %u too short", id);
	if (r == 0)
		r = pread_all(fd, v, 4, off + at);
	close(fd);
	if (r)
		zp_err_wrap(r, "%s", path);
	return r;
}

int zp_peek_wtns(const char *path, uint32_t *n) { return peek_u32(path, "wtns", 1, 4 + 32, n); }
int zp_peek_r1cs(const char *path, uint32_t *n) { return peek_u32(path, "r1cs", 1, 4 + 32, n); }
int zp_peek_zkey(const char *path, uint32_t *n) { return peek_u32(path, "zkey", 2, 4 + 48 + 4 + 32, n); }

int zp_wtns_read_into(const char *path, void *w, uint32_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return zp_err_set(-errno, "witness %s", path);
	uint64_t off1, sz1, off2, sz2;
	uint32_t hdr[10];
	int r = zp_iden3_section(fd, "wtns", 1, &off1, &sz1);
	if (!r && sz1 < 40)
		r = zp_err_set(ZP_EFORMAT, "section 1 too short");
	if (!r)
		r = pread_all(fd, hdr, 40, off1);
	if (!r && (hdr[0] != 32 || hdr[9] != n))
		r = zp_err_set(ZP_EMISMATCH, "%u values of %u bytes; the key's circuit has %u wires",
			       hdr[9], hdr[0], n);
	if (!r)
		r = zp_iden3_section(fd, "wtns", 2, &off2, &sz2);
	if (!r && sz2 != (uint64_t)n * 32)
		r = zp_err_set(ZP_ETRUNC, "section 2 holds %llu bytes, expected %llu",
			       (unsigned long long)sz2, (unsigned long long)n * 32);
	if (!r)
		r = pread_all(fd, w, (size_t)n * 32, off2);
	close(fd);
	/* In place: each 32-byte normal-form LE value becomes the zp_fr it encodes. */
	zp_fr *v = w;
	for (uint32_t i = 0; !r && i < n; i++) {
		uint8_t le[32];
		memcpy(le, &v[i], 32);
		if (zp_fr_from_le(&v[i], le))
			r = zp_err_set(ZP_ENONCANON, "value %u is not below r", i);
	}
	if (!r && n && memcmp(&v[0], &ZP_FR_ONE, sizeof(zp_fr)))
		r = zp_err_set(ZP_EFORMAT, "w[0] is not 1");
	if (r)
		zp_err_wrap(r, "witness %s", path);
	return r;
}

int zp_write_atomic(const char *path, const void *buf, size_t len)
{
	char tmp[PATH_MAX + 32];
	snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return zp_err_set(-errno, "%s", tmp);
	const uint8_t *b = buf;
	size_t left = len;
	while (left) {
		ssize_t w = write(fd, b, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			int e = -errno;
			close(fd);
			unlink(tmp);
			return zp_err_set(e, "%s", tmp);
		}
		b += w, left -= (size_t)w;
	}
	int e = fsync(fd) ? -errno : 0;
	if (close(fd) && !e)
		e = -errno;
	if (!e && rename(tmp, path))
		e = -errno;
	if (e) {
		unlink(tmp);
		return zp_err_set(e, "%s", path);
	}
	return zp_fsync_parent(path);
}

int zp_fsync_parent(const char *path)
{
	char dir[PATH_MAX];
	const char *s = strrchr(path, '/');
	size_t n = s ? (size_t)(s - path) : 1;
	if (n >= sizeof dir)
		return zp_err_set(-ENAMETOOLONG, "%s", path);
	memcpy(dir, s ? path : ".", n);
	dir[n ? n : 1] = 0;
	if (s == path)
		dir[0] = '/', dir[1] = 0;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return zp_err_set(-errno, "%s", dir);
	/* EINVAL: a file system without directory fsync (it has nothing to flush) */
	int r = fsync(fd) && errno != EINVAL ? -errno : 0;
	close(fd);
	return r ? zp_err_set(r, "fsync %s", dir) : 0;
}

int zp_manifest_write(const char *path, const char *const *inputs, uint32_t n)
{
	size_t len = 0;
	for (uint32_t i = 0; i < n; i++)
		len += strlen(inputs[i]) + 1;
	char *buf = malloc(len + 1), *p = buf;
	if (!buf)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		p += sprintf(p, "%s\n", inputs[i]);
	int r = zp_write_atomic(path, buf, len);
	free(buf);
	return r;
}

int zp_manifest_line(const char *path, uint32_t part, char *buf, size_t n)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return zp_err_set(-errno, "manifest %s", path);
	char *line = NULL;
	size_t cap = 0;
	ssize_t l;
	int r = zp_err_set(ZP_ERANGE, "manifest %s: no line for partition %u", path, part);
	for (uint32_t i = 0; (l = getline(&line, &cap, f)) >= 0; i++) {
		if (i != part)
			continue;
		if (l && line[l - 1] == '\n')
			line[--l] = 0;
		r = (size_t)l < n ? (memcpy(buf, line, (size_t)l + 1), 0) : -ENAMETOOLONG;
		break;
	}
	free(line);
	fclose(f);
	return r;
}

int zp_mkdirs(const char *path, unsigned mode)
{
	char p[PATH_MAX];
	if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p)
		return -ENAMETOOLONG;
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s)
			continue;
		char c = *s;
		*s = 0;
		if (mkdir(p, mode) && errno != EEXIST)
			return zp_err_set(-errno, "mkdir %s", p);
		*s = c;
		if (!c)
			return 0;
	}
}

int zp_path_allowed(char (*dirs)[PATH_MAX], unsigned n, const char *path, bool want_parent)
{
	char real[PATH_MAX], tmp[PATH_MAX];
	if (path[0] != '/')
		return zp_err_set(-EINVAL, "'%s' is not an absolute path", path);
	if (strlen(path) >= PATH_MAX - 1)
		return zp_err_set(-ENAMETOOLONG, "path too long");
	snprintf(tmp, sizeof tmp, "%s", path);
	if (want_parent) {
		char *s = strrchr(tmp, '/');
		if (s == tmp)
			s[1] = 0;
		else
			*s = 0;
	}
	if (!realpath(tmp, real))
		return zp_err_set(-errno, "'%s'", tmp);
	for (unsigned i = 0; i < n; i++) {
		size_t l = strlen(dirs[i]);
		if (!strncmp(real, dirs[i], l) && (real[l] == '/' || real[l] == 0 || !strcmp(dirs[i], "/")))
			return 0;
	}
	return zp_err_set(-EACCES, "'%s' is outside the directories the config allows", path);
}

/* part-<p>.proof.json + part-<p>.public.json → one array element */
int zp_job_assemble(const char *out, uint64_t job, const char *key, uint32_t nparts)
{
	json_t *root = json_pack("{s:I, s:s, s:[]}", "job", (json_int_t)job, "key", key, "partitions");
	json_t *arr = json_object_get(root, "partitions");
	int r = 0;
	for (uint32_t p = 0; p < nparts && !r; p++) {
		char a[PATH_MAX], b[PATH_MAX];
		json_error_t e;
		snprintf(a, sizeof a, "%s/part-%u.proof.json", out, p);
		snprintf(b, sizeof b, "%s/part-%u.public.json", out, p);
		json_t *pf = json_load_file(a, 0, &e), *pu = json_load_file(b, 0, &e);
		if (!pf || !pu)
			r = zp_err_set(-ENOENT, "assemble %s: partition %u: %s", out, p, e.text);
		else
			json_array_append_new(arr, json_pack("{s:O, s:O}", "proof", pf, "public", pu));
		json_decref(pf);
		json_decref(pu);
	}
	if (!r) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/proofs.json", out);
		char *txt = json_dumps(root, JSON_INDENT(1));
		r = txt ? zp_write_atomic(path, txt, strlen(txt)) : -ENOMEM;
		free(txt);
	}
	json_decref(root);
	return r;
}
