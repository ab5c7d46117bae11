/*
 * paths.c — the confinement of client-named paths (paths.h): resolved completely, then opened
 * by an openat walk from the allowed root that never follows a symlink.
 */
#include "paths.h"
#include "zp_err.h"
#include "zp_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool control_chars(const char *p)
{
	for (; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return true;
	return false;
}

int zp_path_resolve(const char *path, char out[PATH_MAX], bool may_be_missing)
{
	char head[PATH_MAX], real[PATH_MAX];
	if (path[0] != '/')
		return zp_err_set(-EINVAL, "'%s' is not an absolute path", path);
	if (control_chars(path))
		return zp_err_set(-EINVAL, "control character in path");
	if (snprintf(head, sizeof head, "%s", path) >= (int)sizeof head - 1)
		return zp_err_set(-ENAMETOOLONG, "path too long");
	/* the longest existing prefix, resolved by the kernel (symlinks, '.', '..', the last
	 * component too); what does not exist yet is appended, and may hold no '.' or '..' */
	const char *tail = NULL;
	while (!realpath(head, real)) {
		int e = errno;
		char *s = strrchr(head, '/');
		if (e != ENOENT || !may_be_missing || s == head || !s)
			return zp_err_set(-e, "'%s'", path);
		*s = 0;
		tail = path + (s - head) + 1; /* head is a copy of path: the same offsets */
	}
	size_t l = strlen(real);
	for (const char *t = tail; t && *t;) {
		size_t n = strcspn(t, "/");
		if ((n == 1 && t[0] == '.') || (n == 2 && t[0] == '.' && t[1] == '.'))
			return zp_err_set(-EINVAL, "'%s': '.' or '..' after a directory that does not exist", path);
		if (n) {
			if (l + 1 + n >= PATH_MAX)
				return zp_err_set(-ENAMETOOLONG, "path too long");
			if (l > 1 || real[0] != '/')
				real[l++] = '/';
			memcpy(real + l, t, n);
			real[l += n] = 0;
		}
		t += n + (t[n] == '/');
	}
	memcpy(out, real, l + 1);
	return 0;
}

/* The allowed root holding canonical path p: its index, or -1. */
static int root_of(char (*dirs)[PATH_MAX], unsigned n, const char *p)
{
	for (unsigned i = 0; i < n; i++) {
		size_t l = strlen(dirs[i]);
		if (!strcmp(dirs[i], "/") || (!strncmp(p, dirs[i], l) && (p[l] == '/' || p[l] == 0)))
			return (int)i;
	}
	return -1;
}

/* path with '.', '..' and repeated '/' resolved by text alone (no file system access: '..' of '/' is
 * '/'); 0, or -ENAMETOOLONG. */
static int lexical(const char *path, char out[PATH_MAX])
{
	size_t l = 0;
	out[l++] = '/';
	for (const char *t = path; *t;) {
		size_t n = strcspn(t, "/");
		if (n == 2 && t[0] == '.' && t[1] == '.') {
			while (l > 1 && out[l - 1] != '/')
				l--;
			if (l > 1)
				l--; /* the '/' before the popped component */
		} else if (n && !(n == 1 && t[0] == '.')) {
			if (l + (l > 1) + n >= PATH_MAX)
				return -ENAMETOOLONG;
			if (l > 1)
				out[l++] = '/';
			memcpy(out + l, t, n);
			l += n;
		}
		t += n + (t[n] == '/');
	}
	out[l] = 0;
	return 0;
}

/* One answer for "not there" and "not allowed": a client must not learn through the service whether a
 * path outside the allowed directories exists (or what a symlink inside them leads to). */
#define NOT_ALLOWED "'%s' does not exist or is outside the directories the config allows"

int zp_path_allowed(char (*dirs)[PATH_MAX], unsigned n, const char *path, char canon[PATH_MAX], bool may_be_missing)
{
	char lex[PATH_MAX];
	if (path[0] != '/')
		return zp_err_set(-EINVAL, "'%s' is not an absolute path", path);
	if (control_chars(path))
		return zp_err_set(-EINVAL, "control character in path");
	if (strlen(path) >= PATH_MAX - 1 || lexical(path, lex))
		return zp_err_set(-ENAMETOOLONG, "path too long");
	/* the text first: a path that is outside whatever the file system holds is refused before any lookup */
	if (root_of(dirs, n, lex) < 0)
		return zp_err_set(-EACCES, NOT_ALLOWED, path);
	int r = zp_path_resolve(path, canon, may_be_missing);
	if (r == -ENAMETOOLONG)
		return r;
	if (r || root_of(dirs, n, canon) < 0)
		return zp_err_set(-EACCES, NOT_ALLOWED, path);
	return 0;
}

int zp_path_open_dir(char (*dirs)[PATH_MAX], unsigned n, const char *canon, bool create, unsigned mode)
{
	int i = root_of(dirs, n, canon);
	if (i < 0)
		return zp_err_set(-EACCES, NOT_ALLOWED, canon);
	/* the root is the operator's (resolved at config load); below it, no symlink is followed */
	int fd = open(dirs[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return zp_err_set(-errno, "%s", dirs[i]);
	const char *t = canon + (strcmp(dirs[i], "/") ? strlen(dirs[i]) : 0);
	while (*t) {
		char comp[NAME_MAX + 1];
		t += *t == '/';
		size_t len = strcspn(t, "/");
		if (!len)
			continue;
		if (len > NAME_MAX) {
			close(fd);
			return zp_err_set(-ENAMETOOLONG, "%s: a component is too long", canon);
		}
		memcpy(comp, t, len);
		comp[len] = 0;
		t += len;
		if (create && mkdirat(fd, comp, mode) && errno != EEXIST) {
			int e = -errno;
			close(fd);
			return zp_err_set(e, "mkdir %s", canon);
		}
		int next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = -errno;
		close(fd);
		if (next < 0)
			return zp_err_set(e, "%s: '%s' %s", canon, comp,
					  e == -ELOOP || e == -ENOTDIR ? "is not a directory (a symlink is never followed here)"
					  : "cannot be opened");
		fd = next;
	}
	return fd;
}

int zp_path_open_input(char (*dirs)[PATH_MAX], unsigned n, const char *canon)
{
	char dir[PATH_MAX];
	const char *base = strrchr(canon, '/');
	if (!base || !base[1] || (size_t)(base - canon) >= sizeof dir)
		return zp_err_set(-EINVAL, "'%s' does not name a file", canon);
	memcpy(dir, canon, (size_t)(base - canon));
	dir[base - canon] = 0;
	int dfd = zp_path_open_dir(dirs, n, dir[0] ? dir : "/", false, 0);
	if (dfd < 0)
		return dfd;
	/* O_NONBLOCK: a FIFO opens at once (and is then refused), never waits for a writer */
	int fd = openat(dfd, base + 1, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	int e = -errno;
	close(dfd);
	if (fd < 0)
		return zp_err_set(e, "%s%s", canon, e == -ELOOP ? ": a symlink (never followed here)" : "");
	int r = zp_file_fd_regular(fd, canon);
	if (r)
		close(fd);
	return r ? r : fd;
}
