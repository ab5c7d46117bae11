/*
 * dkeep.c — the text gpud and the supervisor pass device-kept keys in (dkeep.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dkeep.h"
#include "rundir.h"
#include "zp_err.h"

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* An unsigned decimal (hex: base 16, lower case) of at most 20 digits at *p, moved past it. */
static int num(const char **p, int hex, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int d = 0;
	for (; d < 20; d++, s++) {
		int c = hex ? hexval(*s) : (*s >= '0' && *s <= '9' ? *s - '0' : -1);
		if (c < 0)
			break;
		if (x > (UINT64_MAX - (uint64_t)c) / (hex ? 16 : 10))
			return -1;
		x = x * (hex ? 16 : 10) + (uint64_t)c;
	}
	if (!d)
		return -1;
	*p = s;
	*v = x;
	return 0;
}

static int lit(const char **p, char c)
{
	if (**p != c)
		return -1;
	(*p)++;
	return 0;
}

static int line(const char *s, zp_dkeep_rec *r)
{
	uint64_t v[6];
	memset(r, 0, sizeof *r);
	if (lit(&s, 'K') || lit(&s, ' '))
		return -1;
	for (int i = 0; i < 16; i++) {
		int h = hexval(s[0]), l = h < 0 ? -1 : hexval(s[1]);
		if (l < 0)
			return -1;
		r->ident[i] = (uint8_t)(h << 4 | l);
		s += 2;
	}
	for (int i = 0; i < 6; i++)
		if (lit(&s, ' ') || num(&s, 0, &v[i]))
			return -1;
	if (v[0] > 16 || v[3] > 8 || v[4] > 8)
		return -1;
	r->curve = (uint32_t)v[0], r->nv = v[1], r->dom = v[2], r->hsplit = (uint32_t)v[3], r->wsplit = (uint32_t)v[4];
	(void)v[5];
	for (int i = 0; i < ZP_DKEEP_ARRAYS; i++) {
		uint64_t fd, b, sum;
		if (lit(&s, ' ') || num(&s, 0, &fd) || lit(&s, ':') || num(&s, 0, &b) || lit(&s, ':') || num(&s, 1, &sum))
			return -1;
		if (fd < 3 || fd > 65535 || !b)
			return -1;
		r->fd[i] = (int)fd, r->bytes[i] = b, r->sum[i] = sum;
	}
	return *s ? -1 : 0;
}

int zp_dkeep_parse(const char *text, zp_dkeep_rec *r, unsigned max, unsigned *n, pid_t *pid)
{
	char buf[256];
	unsigned ln = 0;
	*n = 0;
	*pid = 0;
	if (strlen(text) > ZP_DKEEP_TEXT)
		return zp_err_set(-EINVAL, "device-kept keys: %zu bytes of text (at most %d)", strlen(text), ZP_DKEEP_TEXT);
	for (const char *s = text; *s;) {
		const char *e = strchr(s, '\n');
		size_t l = e ? (size_t)(e - s) : strlen(s);
		ln++;
		if (l >= sizeof buf)
			return zp_err_set(-EINVAL, "device-kept keys: line %u is %zu bytes long", ln, l);
		memcpy(buf, s, l);
		buf[l] = 0;
		s += l + (e != NULL);
		if (!l)
			continue;
		if (buf[0] == 'P') {
			const char *p = buf + 1;
			uint64_t v;
			if (ln != 1 || lit(&p, ' ') || num(&p, 0, &v) || *p || !v || v > 0x7fffffff)
				return zp_err_set(-EINVAL, "device-kept keys: line %u: not \"P <pid>\" first", ln);
			*pid = (pid_t)v;
			continue;
		}
		if (*n == max)
			return zp_err_set(-EINVAL, "device-kept keys: more than %u keys", max);
		if (line(buf, &r[*n]))
			return zp_err_set(-EINVAL, "device-kept keys: line %u is not a kept key (K <ident> <curve> <wires> "
					  "<domain> <H split> <witness split> 0 <fd>:<bytes>:<sum> x5)", ln);
		for (unsigned j = 0; j < *n; j++)
			if (!memcmp(r[j].ident, r[*n].ident, 16))
				return zp_err_set(-EINVAL, "device-kept keys: line %u: the same key twice", ln);
		(*n)++;
	}
	return 0;
}

int zp_dkeep_format(char *buf, size_t len, const zp_dkeep_rec *r, unsigned n, pid_t pid)
{
	size_t o = 0;
	int w;
	if (len)
		buf[0] = 0;
	if (pid > 0) {
		w = snprintf(buf, len, "P %d\n", (int)pid);
		if (w < 0 || (size_t)w >= len)
			return zp_err_set(-ENOSPC, "device-kept keys: text too long");
		o = (size_t)w;
	}
	for (unsigned k = 0; k < n; k++) {
		char id[33];
		for (int i = 0; i < 16; i++)
			snprintf(id + 2 * i, 3, "%02x", r[k].ident[i]);
		w = snprintf(buf + o, len - o, "K %s %u %" PRIu64 " %" PRIu64 " %u %u 0", id, r[k].curve, r[k].nv, r[k].dom,
			     r[k].hsplit, r[k].wsplit);
		if (w < 0 || (size_t)w >= len - o)
			return zp_err_set(-ENOSPC, "device-kept keys: text too long");
		o += (size_t)w;
		for (int i = 0; i < ZP_DKEEP_ARRAYS; i++) {
			w = snprintf(buf + o, len - o, " %d:%" PRIu64 ":%" PRIx64, r[k].fd[i], r[k].bytes[i], r[k].sum[i]);
			if (w < 0 || (size_t)w >= len - o)
				return zp_err_set(-ENOSPC, "device-kept keys: text too long");
			o += (size_t)w;
		}
		if (o + 2 > len)
			return zp_err_set(-ENOSPC, "device-kept keys: text too long");
		buf[o++] = '\n';
		buf[o] = 0;
	}
	return o > ZP_DKEEP_TEXT ? zp_err_set(-ENOSPC, "device-kept keys: text too long") : 0;
}

int zp_dkeep_path(char *buf, size_t len, const struct zp_pipe_config *cfg, const char *group, unsigned index, int mk)
{
	if (mk) {
		char dir[4096];
		if (zp_pipe_path(dir, sizeof dir, cfg, "dkeep"))
			return zp_err_set(-ENAMETOOLONG, "device-kept keys: run directory path too long");
		if (mkdir(dir, 0700) && errno != EEXIST)
			return zp_err_set(-errno, "device-kept keys: mkdir %s", dir);
	}
	if (zp_pipe_path(buf, len, cfg, "dkeep/%s.gpud%u", group, index))
		return zp_err_set(-ENAMETOOLONG, "device-kept keys: run directory path too long");
	return 0;
}

uint64_t zp_dkeep_bytes(const zp_dkeep_rec *r, unsigned n)
{
	uint64_t t = 0;
	for (unsigned k = 0; k < n; k++)
		for (int i = 0; i < ZP_DKEEP_ARRAYS; i++)
			t += r[k].bytes[i];
	return t;
}
