/*
 * rundir.c — names in the run directory (rundir.h).
 */
#include "rundir.h"
#include "config.h"
#include "zp_err.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/random.h>

static int vpath(char *buf, size_t n, const char *pre, const struct zp_pipe_config *c, const char *fmt,
		 va_list ap)
{
	char leaf[256];
	vsnprintf(leaf, sizeof leaf, fmt, ap);
	int l = snprintf(buf, n, "%s%s/%s", pre, c->run_dir, leaf);
	return l < 0 || (size_t)l >= n ? -ENAMETOOLONG : 0;
}

int zp_pipe_url(char *buf, size_t n, const struct zp_pipe_config *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vpath(buf, n, "ipc://", c, fmt, ap);
	va_end(ap);
	if (r == 0 && strlen(buf) - 6 > ZP_IPC_PATH_MAX)
		r = zp_err_set(-ENAMETOOLONG, "ipc path %s: over %d bytes", buf + 6, ZP_IPC_PATH_MAX);
	return r;
}

int zp_pipe_path(char *buf, size_t n, const struct zp_pipe_config *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vpath(buf, n, "", c, fmt, ap);
	va_end(ap);
	return r;
}

int zp_pipe_each(const struct zp_pipe_config *c, const char *sub, zp_pipe_entry_fn fn, void *ctx)
{
	char dir[PATH_MAX];
	if (zp_pipe_path(dir, sizeof dir, c, "%s", sub))
		return 0;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *e;
	int r = 0;
	while (!r && (e = readdir(d)))
		if (e->d_name[0] != '.')
			r = fn(dir, e->d_name, ctx);
	closedir(d);
	return r;
}

int zp_token_random(char out[ZP_TOKEN_MAX + 1], const char *prefix)
{
	uint8_t rnd[16];
	if (getrandom(rnd, sizeof rnd, 0) != sizeof rnd)
		return -errno;
	int l = snprintf(out, ZP_TOKEN_MAX + 1, "%.*s", ZP_TOKEN_MAX - 32, prefix);
	for (int i = 0; i < 16; i++)
		snprintf(out + l + 2 * i, 3, "%02x", rnd[i]);
	return 0;
}

bool zp_token_ok(const char *t)
{
	size_t n = strlen(t);
	if (!n || n > ZP_TOKEN_MAX)
		return false;
	for (; *t; t++)
		if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || (*t >= '0' && *t <= '9') || *t == '-' ||
		      *t == '_'))
			return false;
	return true;
}
