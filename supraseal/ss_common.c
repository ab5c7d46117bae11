/*
 * ss_common.c — payload layout, .params scan and SRS ids (ss.h), shared by libzkpipe-supraseal
 * and zkpipe-gpud.
 */
#include "ss.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "field.h"
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

/* Point sizes in a .params file: uncompressed zcash encoding. */
#define G1B 96u
#define G2B 192u

int zp_ss_params_scan(const char *path, struct zp_ss_params_info *in)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return zp_err_set(-errno, "key not found: %s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st)) {
		int e = -errno;
		close(fd);
		return zp_err_set(e, "%s", path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return zp_err_set(-EISDIR, "%s: not a regular file", path);
	}
	uint64_t size = (uint64_t)st.st_size, cur = 3 * G1B + 3 * G2B;
	static const char *const names[6] = { "IC", "h", "l", "a", "b_g1", "b_g2" };
	uint32_t *counts[6] = { &in->n_ic, &in->n_h, &in->n_l, &in->n_a, &in->n_b1, &in->n_b2 };
	uint64_t *offs[6] = { &in->off_ic, &in->off_h, &in->off_l, &in->off_a, &in->off_b1, &in->off_b2 };
	int rc = 0;
	for (int i = 0; i < 6 && !rc; i++) {
		uint8_t b[4];
		if (cur + 4 > size || pread(fd, b, 4, (off_t)cur) != 4) {
			rc = zp_err_set(ZP_ETRUNC, "%s: not a .params file: it ends (%" PRIu64 " bytes) before the %s count",
					path, size, names[i]);
			break;
		}
		*counts[i] = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
		cur += 4;
		*offs[i] = cur;
		cur += (uint64_t)*counts[i] * (i == 5 ? G2B : G1B);
	}
	close(fd);
	if (rc)
		return rc;
	if (cur != size)
		return zp_err_set(cur > size ? ZP_ETRUNC : ZP_EFORMAT,
				  "%s: not a .params file (or damaged): its counts make %" PRIu64 " bytes, the file has %" PRIu64,
				  path, cur, size);
	in->file_bytes = size;
	in->domain = (uint64_t)in->n_h + 1;
	if (in->n_ic < 1 || in->n_h < 1 || (in->domain & (in->domain - 1)) || in->n_b1 != in->n_b2)
		return zp_err_set(ZP_EFORMAT, "%s: not a bellperson key: IC %u, h %u (domain − 1), b_g1 %u, b_g2 %u", path,
				  in->n_ic, in->n_h, in->n_b1, in->n_b2);
	return 0;
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

uint64_t zp_ss_popcount(const uint64_t *w, uint64_t bits)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < bits / 64; i++)
		n += (uint64_t)__builtin_popcountll(w[i]);
	if (bits % 64)
		n += (uint64_t)__builtin_popcountll(w[bits / 64] & ((1ull << (bits % 64)) - 1));
	return n;
}

uint64_t zp_ss_gather(zp_fr *dst, const zp_fr *src, const uint64_t *bits, uint64_t n)
{
	uint64_t k = 0;
	for (uint64_t i = 0; i < n; i += 64) {
		uint64_t m = bits[i / 64];
		if (n - i < 64)
			m &= (1ull << (n - i)) - 1;
		while (m) {
			unsigned b = (unsigned)__builtin_ctzll(m);
			dst[k++] = src[i + b];
			m &= m - 1;
		}
	}
	return k;
}

/* bits of word w that lie below n */
static uint64_t word_bits(const uint64_t *bits, uint64_t w, uint64_t n)
{
	uint64_t m = bits[w], left = n - w * 64;
	return left < 64 ? m & ((1ull << left) - 1) : m;
}

uint64_t zp_ss_bits_index(uint32_t *idx, uint32_t *off, const uint64_t *bits, uint64_t n)
{
	uint64_t words = (n + 63) / 64;
	for (uint64_t w = 0; w < words; w++) /* 1. count */
		off[w] = (uint32_t)__builtin_popcountll(word_bits(bits, w, n));
	off[words] = 0;
	uint32_t run = 0; /* 2. exclusive scan, in place */
	for (uint64_t w = 0; w <= words; w++) {
		uint32_t c = off[w];
		off[w] = run;
		run += c;
	}
	for (uint64_t w = 0; w < words; w++) { /* 3. each word its run */
		uint64_t m = word_bits(bits, w, n);
		uint32_t o = off[w];
		while (m) {
			idx[o++] = (uint32_t)(w * 64 + (uint64_t)__builtin_ctzll(m));
			m &= m - 1;
		}
	}
	return off[words];
}
