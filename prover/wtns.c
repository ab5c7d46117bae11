#include "wtns.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binfile.h"
#include "par.h"
#include "zp_err.h"
#include "zp_file.h"

_Static_assert(sizeof(zp_fr) == 32, "values are converted in place: a zp_fr is one 32-byte value");

/* Version and §1's size: the layout every reader checks first. */
static int wtns_layout(const zp_bin *b, const zp_bin_section **s1)
{
	if (b->version != 2)
		return zp_err_set(ZP_EVERSION, "%s: wtns version %u, expected 2", b->name, b->version);
	return zp_bin_section_find(b, 1, 4 + 32 + 4, s1);
}

/* §1's 40 bytes: n8 and the prime (BLS12-381's or BN254's r: *cv), nWitness > 0, §2 exactly nWitness
 * values. */
static int wtns_sec1(const zp_bin *b, const uint8_t *p1, uint32_t *n, const zp_curve **cv, const zp_bin_section **s2)
{
	zp_bin_cur c = { .p = p1, .left = 40, .file = b->name, .sec = 1 };
	int rc;
	if ((rc = zp_bin_read_fr_prime(&c, cv)) || (rc = zp_bin_get_u32(&c, n, "nWitness")))
		return rc;
	if (*n == 0)
		return zp_err_set(ZP_EFORMAT, "%s: section 1: nWitness is 0", b->name);
	return zp_bin_section_find(b, 2, (uint64_t)*n * 32, s2);
}

/* n normal-form little-endian values at src (src may be w itself) into w, Montgomery form;
 * `first` is the index of w[0] in the file (w[0] = 1 is checked when first == 0). In pieces on all
 * threads (a piece reads only its own values, so src == w is safe); the error names the first bad
 * value, as a sequential scan would. */
#define WTNS_PIECE 0x2000u
struct values_ctx { const zp_curve *cv; zp_fr *w; const uint8_t *src; uint32_t n; _Atomic uint32_t bad; };
static void values_piece(void *vctx, size_t t, int worker)
{
	(void)worker;
	struct values_ctx *x = vctx;
	uint32_t lo = (uint32_t)t * WTNS_PIECE, hi = x->n - lo > WTNS_PIECE ? lo + WTNS_PIECE : x->n;
	for (uint32_t i = lo; i < hi; i++) {
		uint8_t le[32];
		memcpy(le, x->src + (size_t)i * 32, 32);
		if (x->cv->fr_from_le(&x->w[i], le) != 0) {
			uint32_t cur = atomic_load(&x->bad);
			while (i < cur && !atomic_compare_exchange_weak(&x->bad, &cur, i))
				;
			return;
		}
	}
}

static int wtns_values(const zp_curve *cv, zp_fr *w, const uint8_t *src, uint32_t n, uint32_t first,
		       const char *name)
{
	struct values_ctx x = { .cv = cv, .w = w, .src = src, .n = n };
	atomic_init(&x.bad, UINT32_MAX);
	zp_par_for((n + WTNS_PIECE - 1) / WTNS_PIECE, values_piece, &x);
	uint32_t bad = atomic_load(&x.bad);
	if (bad != UINT32_MAX)
		return zp_err_set(ZP_ENONCANON, "%s: section 2: witness value %u is >= r (%s)", name, first + bad,
				  cv->name);
	if (first == 0 && n && memcmp(&w[0], cv->fr_one, 32))
		return zp_err_set(ZP_EFORMAT, "%s: section 2: w[0] must be 1 (the ONE wire)", name);
	return 0;
}

int zp_wtns_parse(zp_wtns *w, const uint8_t *data, size_t len, const char *name)
{
	zp_bin b;
	const zp_bin_section *s1, *s2;
	memset(w, 0, sizeof(*w));
	int rc = zp_bin_parse(&b, data, len, name, "wtns");
	if (rc || (rc = wtns_layout(&b, &s1)) || (rc = wtns_sec1(&b, data + s1->off, &w->n, &w->curve, &s2)))
		goto out;
	w->w = malloc((size_t)w->n * sizeof(zp_fr));
	if (!w->w) {
		rc = zp_err_set(-ENOMEM, "%s: %u witness values", name, w->n);
		goto out;
	}
	rc = wtns_values(w->curve, w->w, data + s2->off, w->n, 0, name);
out:
	zp_bin_free(&b);
	if (rc)
		zp_wtns_free(w);
	return rc;
}

/* The header checks on an open file; *off = where §2's values start. */
static int wtns_header_fd(int fd, const char *name, uint32_t *n, const zp_curve **cv, uint64_t *off)
{
	zp_bin b;
	const zp_bin_section *s1, *s2;
	uint8_t p1[40];
	int rc = zp_bin_parse_fd(&b, fd, name, "wtns");
	if (!rc && !(rc = wtns_layout(&b, &s1))) {
		if ((rc = zp_bin_pread(fd, p1, sizeof p1, s1->off)))
			rc = zp_err_set(rc, "%s: section 1: cannot read", name);
		else if (!(rc = wtns_sec1(&b, p1, n, cv, &s2)))
			*off = s2->off;
	}
	zp_bin_free(&b);
	return rc;
}

int zp_wtns_check_fd_curve(int fd, const char *name, uint32_t *n, const zp_curve **curve)
{
	uint64_t off = 0;
	zp_fr w0;
	int rc = wtns_header_fd(fd, name, n, curve, &off);
	if (!rc && (rc = zp_bin_pread(fd, &w0, 32, off)))
		rc = zp_err_set(rc, "%s: section 2: cannot read", name);
	return rc ? rc : wtns_values(*curve, &w0, (const uint8_t *)&w0, 1, 0, name);
}

int zp_wtns_check_fd(int fd, const char *name, uint32_t *n)
{
	const zp_curve *cv;
	return zp_wtns_check_fd_curve(fd, name, n, &cv);
}

/* §2's n values at off, straight into w (a slot, for synthd), converted in place. */
static int wtns_values_fd(const zp_curve *cv, int fd, const char *name, zp_fr *w, uint32_t n, uint64_t off)
{
	int rc = zp_bin_pread(fd, w, (size_t)n * 32, off);
	if (rc)
		return zp_err_set(rc, "%s: section 2: cannot read %u values", name, n);
	return wtns_values(cv, w, (const uint8_t *)w, n, 0, name);
}

int zp_wtns_read_fd_curve(int fd, const char *name, const zp_curve *want, zp_fr *w, uint32_t n)
{
	uint32_t have = 0;
	uint64_t off = 0;
	const zp_curve *cv;
	int rc = wtns_header_fd(fd, name, &have, &cv, &off);
	if (rc)
		return rc;
	if (cv != zp_curve_of(want))
		return zp_err_set(ZP_EMISMATCH, "%s: a %s witness; the key is a %s key: the curves differ", name,
				  cv->name, zp_curve_of(want)->name);
	if (have != n)
		return zp_err_set(ZP_EMISMATCH, "%s: %u values; the key's circuit has %u wires", name, have, n);
	return wtns_values_fd(cv, fd, name, w, n, off);
}

int zp_wtns_read_fd(int fd, const char *name, zp_fr *w, uint32_t n)
{
	return zp_wtns_read_fd_curve(fd, name, &zp_curve_bls12_381, w, n);
}

int zp_wtns_read(zp_wtns *w, const char *path)
{
	memset(w, 0, sizeof(*w));
	int fd = zp_file_open_regular(path, AT_FDCWD, 0, 0, NULL);
	if (fd < 0)
		return fd;
	uint64_t off = 0;
	int rc = wtns_header_fd(fd, path, &w->n, &w->curve, &off);
	if (!rc && !(w->w = malloc((size_t)w->n * sizeof(zp_fr))))
		rc = zp_err_set(-ENOMEM, "%s: %u witness values", path, w->n);
	if (!rc)
		rc = wtns_values_fd(w->curve, fd, path, w->w, w->n, off);
	close(fd);
	if (rc)
		zp_wtns_free(w);
	return rc;
}

void zp_wtns_free(zp_wtns *w)
{
	free(w->w);
	w->w = NULL;
	w->n = 0;
	w->curve = NULL;
}
