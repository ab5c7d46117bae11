/*
 * payload_ss.c — the Filecoin slot payload's layout and SRS ids (payload_ss.h).
 */
#include "payload_ss.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "zp_err.h"

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
