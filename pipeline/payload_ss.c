/*
 * payload_ss.c — the Filecoin slot payload's layout and SRS ids (payload_ss.h).
 */
#include "payload_ss.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rundir.h"
#include "zp_err.h"
#include "zp_file.h"

static uint64_t up64(uint64_t x) { return (x + 63) & ~(uint64_t)63; }

uint64_t zp_ss_payload_layout(struct zp_ss_payload *p)
{
	uint64_t o = 4096, fr = sizeof(zp_fr);
	p->off_inp = o;  o = up64(o + p->inp * fr);
	p->off_aux = o;  o = up64(o + p->aux * fr);
	p->off_a = o;    o = up64(o + p->abc * fr);
	p->off_b = o;    o = up64(o + p->abc * fr);
	p->off_c = o;    o = up64(o + p->abc * fr);
	p->off_a_aux = o; o = up64(o + (p->aux + 63) / 64 * 8);
	p->off_b_inp = o; o = up64(o + (p->inp + 63) / 64 * 8);
	p->off_b_aux = o; o = up64(o + (p->aux + 63) / 64 * 8);
	p->off_rs = o;   o = up64(o + 2 * fr);
	p->bytes = o;
	return o;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

int zp_ss_srs_id(const char *path, char id[ZP_KEY_ID_MAX], char real[PATH_MAX])
{
	struct stat st;
	if (!realpath(path, real) || stat(real, &st))
		return zp_err_set(-errno, "key not found: %s: %s", path, strerror(errno));
	uint64_t h = 0xcbf29ce484222325ull;
	h = fnv(h, real, strlen(real) + 1);
	uint64_t f[4] = { (uint64_t)st.st_dev, (uint64_t)st.st_ino, (uint64_t)st.st_size,
			  (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec };
	h = fnv(h, f, sizeof f);
	snprintf(id, ZP_KEY_ID_MAX, ZP_SS_KEY_PREFIX "%016" PRIx64, h);
	return 0;
}

int zp_ss_srs_registered(const struct zp_pipe_config *c, const char *hex, char path[PATH_MAX])
{
	char reg[PATH_MAX], id[ZP_KEY_ID_MAX], real[PATH_MAX], *buf = NULL;
	if (strlen(hex) != 16 || strspn(hex, "0123456789abcdef") != 16 ||
	    zp_pipe_path(reg, sizeof reg, c, "srs/%s", hex))
		return 1;
	int r = zp_file_read(AT_FDCWD, reg, O_NOFOLLOW, PATH_MAX, &buf, NULL);
	if (r == -ENOENT) {
		zp_err_clear(); /* none: not an error (the caller says "not registered" if it is one) */
		return 1;
	}
	if (r)
		return zp_err_wrap(r, "srs %s", hex); /* zp_file's message names the registration */
	buf[strcspn(buf, "\n")] = 0;
	snprintf(path, PATH_MAX, "%s", buf);
	free(buf);
	if (!*path)
		return zp_err_set(ZP_EFORMAT, "srs %s: registration %s names no file", hex, reg);
	if ((r = zp_ss_srs_id(path, id, real)))
		return zp_err_wrap(r, "srs %s", hex);
	if (strcmp(id + strlen(ZP_SS_KEY_PREFIX), hex))
		return zp_err_set(ZP_EMISMATCH, "srs %s: %s changed since it was registered (size, mtime or inode: it is %s now)",
				  hex, path, id);
	return 0;
}
