/*
 * serialize.c — zcash bytes, snarkjs decimal strings and .zkey limbs for G1/G2.
 * The formats and the order of the checks are in serialize.h.
 */
#include "serialize.h"
#include "par.h"
#include "zp_err.h"

#include <stdatomic.h>
#include <string.h>

#define FLAGS_MASK (ZP_SER_FLAG_COMPRESSED | ZP_SER_FLAG_INFINITY | ZP_SER_FLAG_SIGN)

/* ---------------- helpers ---------------- */

static bool all_zero(const uint8_t *b, size_t n)
{
	uint8_t acc = 0;
	for (size_t i = 0; i < n; i++)
		acc |= b[i];
	return acc == 0;
}

/* A 48-byte big-endian coordinate whose first byte may carry the flag bits. */
static int fp_from_be(zp_fp *r, const uint8_t in[ZP_FP_BYTES], bool first)
{
	uint8_t tmp[ZP_FP_BYTES];
	memcpy(tmp, in, ZP_FP_BYTES);
	if (first)
		tmp[0] &= (uint8_t)~FLAGS_MASK;
	return zp_fp_from_be(r, tmp);
}

static void fp_to_be(uint8_t out[ZP_FP_BYTES], const zp_fp *a)
{
	zp_fp_to_be(out, a);
}

/* Fp2 as c1 ‖ c0, flags in the first byte of c1 when first. */
static int fp2_from_be(zp_fp2 *r, const uint8_t in[2 * ZP_FP_BYTES], bool first)
{
	int rc = fp_from_be(&r->c1, in, first);
	if (rc == 0)
		rc = fp_from_be(&r->c0, in + ZP_FP_BYTES, false);
	return rc;
}

static void fp2_to_be(uint8_t out[2 * ZP_FP_BYTES], const zp_fp2 *a)
{
	zp_fp_to_be(out, &a->c1);
	zp_fp_to_be(out + ZP_FP_BYTES, &a->c0);
}

/*
 * Flag bits common to both groups.  compressed: which function was called.
 * Returns 1 for a well-formed infinity, 0 for a finite point (flags fine),
 * or ZP_EFLAGS.  *sign gets the sign bit.
 */
static int check_flags(const uint8_t *in, size_t len, bool compressed, bool *sign, const char *what)
{
	uint8_t b0 = in[0];
	bool c = b0 & ZP_SER_FLAG_COMPRESSED, inf = b0 & ZP_SER_FLAG_INFINITY;
	*sign = b0 & ZP_SER_FLAG_SIGN;
	if (c != compressed)
		return zp_err_set(ZP_EFLAGS, "%s: compression bit %s", what, c ? "set" : "clear");
	if (*sign && (!compressed || inf))
		return zp_err_set(ZP_EFLAGS, "%s: sign bit set on %s point", what,
				  inf ? "an infinite" : "an uncompressed");
	if (!inf)
		return 0;
	if ((b0 & (uint8_t)~FLAGS_MASK) || !all_zero(in + 1, len - 1))
		return zp_err_set(ZP_EFLAGS, "%s: infinity with a nonzero payload", what);
	return 1;
}

static int bad_coord(int rc, const char *what)
{
	return zp_err_set(rc, "%s: coordinate not below q", what);
}

/* ---------------- zcash bytes and .zkey limbs: ser_tmpl.h for each group ---------------- */

/* Little-endian limbs of a coordinate as stored (Montgomery residue); 0 if < q. */
static int fp_from_zkey(zp_fp *r, const uint8_t in[ZP_FP_BYTES])
{
	for (int i = 0; i < ZP_FP_LIMBS; i++) {
		uint64_t v = 0;
		for (int b = 7; b >= 0; b--)
			v = (v << 8) | in[8 * i + b];
		r->l[i] = v;
	}
	for (int i = ZP_FP_LIMBS - 1; i >= 0; i--)
		if (r->l[i] != ZP_FP_MODULUS[i])
			return r->l[i] < ZP_FP_MODULUS[i] ? 0 : ZP_ENONCANON;
	return ZP_ENONCANON;
}

static bool fp_canonical(const zp_fp *a)
{
	for (int i = ZP_FP_LIMBS - 1; i >= 0; i--)
		if (a->l[i] != ZP_FP_MODULUS[i])
			return a->l[i] < ZP_FP_MODULUS[i];
	return false;
}

/* Fp2 as c0 then c1 */
static int fp2_from_zkey(zp_fp2 *r, const uint8_t in[2 * ZP_FP_BYTES])
{
	int rc = fp_from_zkey(&r->c0, in);
	return rc < 0 ? rc : fp_from_zkey(&r->c1, in + ZP_FP_BYTES);
}

static bool fp2_canonical(const zp_fp2 *a)
{
	return fp_canonical(&a->c0) && fp_canonical(&a->c1);
}

#define SER_G g1
#define SER_F fp
#define SER_FE zp_fp
#define SER_CB ZP_FP_BYTES
#define SER_NAME "G1"
#define SER_SET_B(b) zp_fp_from_u64(&(b), 4)
#include "ser_tmpl.h"

#define SER_G g2
#define SER_F fp2
#define SER_FE zp_fp2
#define SER_CB (2 * ZP_FP_BYTES)
#define SER_NAME "G2"
#define SER_SET_B(b) (zp_fp_from_u64(&(b).c0, 4), (b).c1 = (b).c0)
#include "ser_tmpl.h"

/* ---------------- snarkjs decimal strings ---------------- */

static void dec_of(char buf[ZP_SER_DEC_BUF], const zp_fp *a)
{
	zp_fp_to_dec(buf, ZP_SER_DEC_BUF, a);
}

void zp_g1_to_dec(zp_g1_dec *out, const zp_g1_affine *p)
{
	if (zp_g1_affine_is_inf(p)) {
		strcpy(out->c[0], "0");
		strcpy(out->c[1], "1");
		strcpy(out->c[2], "0");
		return;
	}
	dec_of(out->c[0], &p->x);
	dec_of(out->c[1], &p->y);
	strcpy(out->c[2], "1");
}

void zp_g2_to_dec(zp_g2_dec *out, const zp_g2_affine *p)
{
	static const char *const inf[3][2] = { { "0", "0" }, { "1", "0" }, { "0", "0" } };
	if (zp_g2_affine_is_inf(p)) {
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 2; j++)
				strcpy(out->c[i][j], inf[i][j]);
		return;
	}
	dec_of(out->c[0][0], &p->x.c0);
	dec_of(out->c[0][1], &p->x.c1);
	dec_of(out->c[1][0], &p->y.c0);
	dec_of(out->c[1][1], &p->y.c1);
	strcpy(out->c[2][0], "1");
	strcpy(out->c[2][1], "0");
}

static int fp_dec(zp_fp *r, const char *s, const char *what)
{
	if (!s)
		return zp_err_set(ZP_EFORMAT, "%s: missing coordinate", what);
	int rc = zp_fp_from_dec(r, s);
	if (rc < 0)
		return zp_err_set(rc, "%s: '%.40s' is not a decimal integer below q", what, s);
	return 0;
}

static bool fp_is_one(const zp_fp *a)
{
	return zp_fp_eq(a, &ZP_FP_ONE);
}

/* z of the JSON form: 1 -> 0 (finite), 0 -> 1 (infinity), else ZP_EFORMAT. */
static int z_kind(const zp_fp *z0, const zp_fp *z1, const char *what)
{
	if (zp_fp_is_zero(z1)) {
		if (fp_is_one(z0))
			return 0;
		if (zp_fp_is_zero(z0))
			return 1;
	}
	return zp_err_set(ZP_EFORMAT, "%s: z must be 1 (or 0 for infinity)", what);
}

int zp_g1_from_dec(zp_g1_affine *p, const char *x, const char *y, const char *z, unsigned opts)
{
	static const char what[] = "G1 decimal";
	zp_g1_affine t;
	zp_fp zz = ZP_FP_ONE;
	int rc;
	if ((rc = fp_dec(&t.x, x, what)) < 0 || (rc = fp_dec(&t.y, y, what)) < 0 ||
	    (z && (rc = fp_dec(&zz, z, what)) < 0))
		return rc;
	if ((rc = z_kind(&zz, &ZP_FP_ZERO, what)) < 0)
		return rc;
	if (rc == 1) {
		if (!zp_fp_is_zero(&t.x) || !fp_is_one(&t.y))
			return zp_err_set(ZP_EFORMAT, "%s: infinity must be [\"0\",\"1\",\"0\"]", what);
		*p = (zp_g1_affine){ 0 };
		return 0;
	}
	return g1_finish(p, &t, true, opts, what);
}

int zp_g2_from_dec(zp_g2_affine *p, const char *const x[2], const char *const y[2],
		   const char *const z[2], unsigned opts)
{
	static const char what[] = "G2 decimal";
	zp_g2_affine t;
	zp_fp2 zz = ZP_FP2_ONE;
	int rc;
	if ((rc = fp_dec(&t.x.c0, x[0], what)) < 0 || (rc = fp_dec(&t.x.c1, x[1], what)) < 0 ||
	    (rc = fp_dec(&t.y.c0, y[0], what)) < 0 || (rc = fp_dec(&t.y.c1, y[1], what)) < 0)
		return rc;
	if (z && ((rc = fp_dec(&zz.c0, z[0], what)) < 0 || (rc = fp_dec(&zz.c1, z[1], what)) < 0))
		return rc;
	if ((rc = z_kind(&zz.c0, &zz.c1, what)) < 0)
		return rc;
	if (rc == 1) {
		if (!zp_fp2_is_zero(&t.x) || !zp_fp2_eq(&t.y, &ZP_FP2_ONE))
			return zp_err_set(ZP_EFORMAT,
					  "%s: infinity must be [[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]]", what);
		*p = (zp_g2_affine){ 0 };
		return 0;
	}
	return g2_finish(p, &t, true, opts, what);
}

/* ---------------- .zkey arrays ---------------- */

/*
 * Arrays are checked in chunks on the thread pool; each chunk stops at its first
 * bad point and lowers first_bad to it, so the answer is the lowest bad index
 * whatever the scheduling.  Chunks are sized to a few milliseconds of work.
 */
#define CHUNK_CURVE 4096     /* on-curve checks only: ~0.3 us per point */
#define CHUNK_SUBGROUP 32    /* with the subgroup check: ~0.1-0.3 ms per point */

struct check_ctx {
	const void *pts;
	size_t n, chunk;
	unsigned opts;
	int g2;
	_Atomic size_t first_bad;
};

static void check_chunk(void *arg, size_t c, int worker)
{
	struct check_ctx *x = arg;
	size_t lo = c * x->chunk, hi = lo + x->chunk < x->n ? lo + x->chunk : x->n;
	for (size_t i = lo; i < hi; i++) {
		if (i >= atomic_load_explicit(&x->first_bad, memory_order_relaxed))
			return;   /* a lower bad index is already known */
		int rc = x->g2 ? g2_check_one((const zp_g2_affine *)x->pts + i, x->opts)
			       : g1_check_one((const zp_g1_affine *)x->pts + i, x->opts);
		if (rc == 0)
			continue;
		size_t cur = atomic_load_explicit(&x->first_bad, memory_order_relaxed);
		while (i < cur && !atomic_compare_exchange_weak_explicit(
				&x->first_bad, &cur, i, memory_order_relaxed, memory_order_relaxed))
			;
		return;
	}
}

static int check_array(const void *pts, size_t n, unsigned opts, size_t *bad, int g2)
{
	struct check_ctx x = { .pts = pts, .n = n, .opts = opts, .g2 = g2,
			       .chunk = (opts & ZP_SER_NO_SUBGROUP) ? CHUNK_CURVE : CHUNK_SUBGROUP };
	atomic_init(&x.first_bad, n);
	size_t chunks = (n + x.chunk - 1) / x.chunk;
	if (chunks > 1)
		zp_par_for(chunks, check_chunk, &x);
	else if (chunks == 1)
		check_chunk(&x, 0, 0);
	size_t i = atomic_load(&x.first_bad);
	if (i == n)
		return 0;
	int rc = g2 ? g2_check_one((const zp_g2_affine *)pts + i, opts)
		    : g1_check_one((const zp_g1_affine *)pts + i, opts);
	if (bad)
		*bad = i;
	return zp_err_set(rc, "%s point %zu: %s", g2 ? "G2" : "G1", i, zp_strerror(rc));
}

int zp_g1_affine_check_array(const zp_g1_affine *p, size_t n, unsigned opts, size_t *bad)
{
	return check_array(p, n, opts, bad, 0);
}

int zp_g2_affine_check_array(const zp_g2_affine *p, size_t n, unsigned opts, size_t *bad)
{
	return check_array(p, n, opts, bad, 1);
}
