/*
 * files.c — the files the pipeline writes and reads by name (files.h): header peeks of the
 * operator's r1cs/zkey (through prover/binfile.h: witnesses are read by prover/wtns.h, the one
 * reader), job manifests, atomic writes, and a job's output directory and assembled proof
 * (opened through the confined walk of paths.c).
 */
#include "files.h"
#include "binfile.h"
#include "config.h"
#include "paths.h"
#include "sys.h"
#include "zp_err.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int zp_peek_r1cs(const char *path, uint32_t *n) { return zp_bin_peek_u32(path, "r1cs", 1, 4 + 32, n); }
int zp_peek_zkey(const char *path, uint32_t *n) { return zp_bin_peek_u32(path, "zkey", 2, 4 + 48 + 4 + 32, n); }


/* ---------------------------------------------------------------- atomic writes */
int zp_write_atomic_at(int dirfd, const char *name, const void *buf, size_t len, unsigned mode)
{
	char tmp[NAME_MAX + 32];
	if (snprintf(tmp, sizeof tmp, "%s.tmp.%d", name, (int)getpid()) >= (int)sizeof tmp)
		return zp_err_set(-ENAMETOOLONG, "%s", name);
	/* O_EXCL | O_NOFOLLOW: whatever sits at the temporary name (a stale file of a dead process
	 * with our pid, or a planted symlink) is removed, never written through */
	int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0 && errno == EEXIST && unlinkat(dirfd, tmp, 0) == 0)
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return zp_err_set(-errno, "%s", tmp);
	fchmod(fd, mode); /* the umask does not decide a file's mode: the config does */
	const uint8_t *b = buf;
	size_t left = len;
	while (left) {
		ssize_t w = write(fd, b, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			int e = -errno;
			close(fd);
			unlinkat(dirfd, tmp, 0);
			return zp_err_set(e, "%s", tmp);
		}
		b += w, left -= (size_t)w;
	}
	/* rename replaces whatever is at name (a symlink too) without following it */
	int e = fsync(fd) ? -errno : 0;
	if (close(fd) && !e)
		e = -errno;
	if (!e && renameat(dirfd, tmp, dirfd, name))
		e = -errno;
	if (e) {
		unlinkat(dirfd, tmp, 0);
		return zp_err_set(e, "%s", name);
	}
	/* the rename is durable once the directory is (EINVAL: a file system without directory fsync) */
	if (fsync(dirfd) && errno != EINVAL)
		return zp_err_set(-errno, "fsync of the directory holding %s", name);
	return 0;
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

int zp_write_atomic(const char *path, const void *buf, size_t len)
{
	char dir[PATH_MAX];
	const char *base = strrchr(path, '/');
	if (!base || (size_t)(base - path) >= sizeof dir)
		return zp_err_set(-EINVAL, "%s: not an absolute path", path);
	memcpy(dir, path, (size_t)(base - path));
	dir[base - path] = 0;
	int dfd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return zp_err_set(-errno, "%s", dir);
	int r = zp_write_atomic_at(dfd, base + 1, buf, len, 0600);
	close(dfd);
	return r ? zp_err_set(r, "%s", path) : 0;
}

int zp_out_open(const struct zp_pipe_config *c, const char *out)
{
	return zp_path_open_dir((char (*)[PATH_MAX])c->allow_out, c->n_out, out, false, 0);
}

int zp_out_write(const struct zp_pipe_config *c, const char *out, const char *name, const void *buf, size_t len)
{
	int dfd = zp_out_open(c, out);
	if (dfd < 0)
		return dfd;
	int r = zp_write_atomic_at(dfd, name, buf, len, c->public_access ? 0644 : 0600);
	close(dfd);
	return r ? zp_err_set(r, "%s/%s", out, name) : 0;
}

bool zp_out_has(const struct zp_pipe_config *c, const char *out, const char *name)
{
	int dfd = zp_out_open(c, out);
	struct stat st;
	bool r = dfd >= 0 && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
	if (dfd >= 0)
		close(dfd);
	return r;
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

/* A part file of the output, read without following a symlink (a planted one would copy another
 * file into proofs.json). */
static json_t *load_part(int dfd, const char *name, json_error_t *e)
{
	int fd = zp_bin_open_regular(name, dfd, O_NOFOLLOW);
	if (fd < 0) {
		snprintf(e->text, sizeof e->text, "%s: %s", name, fd == -ELOOP ? "a symlink" : zp_strerror(fd));
		return NULL;
	}
	json_t *j = json_loadfd(fd, 0, e);
	close(fd);
	return j;
}

/* part-<p>.proof.json + part-<p>.public.json → one array element */
int zp_job_assemble(const struct zp_pipe_config *c, const char *out, uint64_t job, const char *key, uint32_t nparts)
{
	int dfd = zp_out_open(c, out);
	if (dfd < 0)
		return zp_err_wrap(dfd, "assemble %s", out);
	json_t *root = json_pack("{s:I, s:s, s:[]}", "job", (json_int_t)job, "key", key, "partitions");
	json_t *arr = json_object_get(root, "partitions");
	int r = 0;
	for (uint32_t p = 0; p < nparts && !r; p++) {
		char a[64], b[64];
		json_error_t e;
		snprintf(a, sizeof a, "part-%u.proof.json", p);
		snprintf(b, sizeof b, "part-%u.public.json", p);
		json_t *pf = load_part(dfd, a, &e), *pu = pf ? load_part(dfd, b, &e) : NULL;
		if (!pf || !pu)
			r = zp_err_set(-ENOENT, "assemble %s: partition %u: %s", out, p, e.text);
		else
			json_array_append_new(arr, json_pack("{s:O, s:O}", "proof", pf, "public", pu));
		json_decref(pf);
		json_decref(pu);
	}
	if (!r) {
		char *txt = json_dumps(root, JSON_INDENT(1));
		r = txt ? zp_write_atomic_at(dfd, "proofs.json", txt, strlen(txt), c->public_access ? 0644 : 0600) : -ENOMEM;
		free(txt);
	}
	close(dfd);
	json_decref(root);
	return r;
}
