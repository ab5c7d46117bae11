#include "zkey.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binfile.h"
#include "par.h"
#include "progress.h"
#include "zp_err.h"

/* Copy n points of nfp coordinates each from the cursor, checking each coordinate < q (cv's): in
 * pieces of LOAD_PIECE coordinates on all threads (the copy and its page faults are most of a key's
 * load); the error names the first bad coordinate, as a sequential scan would. */
#define LOAD_PIECE 0x10000
struct load_ctx {
	const zp_curve *cv;
	const uint8_t *src;
	uint8_t *dst;
	uint64_t total;        /* coordinates */
	_Atomic uint64_t bad;  /* the least bad coordinate's index, or UINT64_MAX */
};
static void load_piece(void *vctx, size_t i, int worker)
{
	(void)worker;
	struct load_ctx *x = vctx;
	size_t fb = x->cv->fp_bytes;
	uint64_t lo = (uint64_t)i * LOAD_PIECE, hi = lo + LOAD_PIECE < x->total ? lo + LOAD_PIECE : x->total;
	for (uint64_t j = lo; j < hi; j++)
		if (!zp_bin_fp_canonical_of(x->cv, x->src + j * fb)) {
			uint64_t cur = atomic_load(&x->bad);
			while (j < cur && !atomic_compare_exchange_weak(&x->bad, &cur, j))
				;
			return;
		}
	memcpy(x->dst + lo * fb, x->src + lo * fb, (hi - lo) * fb);
	zp_progress_add((hi - lo) * fb);
}
static int load_points(const zp_curve *cv, void *dst, zp_bin_cur *c, uint64_t n, int nfp, const char *what)
{
	const uint8_t *p;
	size_t fb = cv->fp_bytes;
	int rc = zp_bin_get_bytes(c, &p, n * nfp * fb, what);
	if (rc)
		return rc;
	struct load_ctx x = { .cv = cv, .src = p, .dst = dst, .total = n * nfp };
	atomic_init(&x.bad, UINT64_MAX);
	zp_par_for((size_t)((x.total + LOAD_PIECE - 1) / LOAD_PIECE), load_piece, &x);
	uint64_t bad = atomic_load(&x.bad);
	if (bad != UINT64_MAX)
		return zp_err_set(ZP_ENONCANON, "%s: section %u: %s point %llu: coordinate >= q", c->file,
				  c->sec, what, (unsigned long long)(bad / nfp));
	return 0;
}

static int load_section(const zp_curve *cv, const zp_bin *b, uint32_t id, void **dst, uint64_t n, int nfp,
			const char *what)
{
	zp_bin_cur c;
	size_t fb = cv->fp_bytes;
	int rc = zp_bin_section_cur(b, id, n * nfp * fb, &c);
	if (rc)
		return zp_err_set(rc, "%s: section %u (%s): expected %llu points of %zu bytes", b->name, id, what,
				  (unsigned long long)n, nfp * fb);
	*dst = aligned_alloc(64, ((n * nfp * fb) + 63) / 64 * 64 + 64);
	if (!*dst)
		return zp_err_set(-ENOMEM, "%s: section %u (%s): %llu points", b->name, id, what, (unsigned long long)n);
	return load_points(cv, *dst, &c, n, nfp, what);
}

/* the fixed points of §2 into the curve's members, each checked fully (curve and subgroup: they are few) */
#define LOAD_FIXED(cv, c, K, CHK1, CHK2)                                                                       \
	do {                                                                                                  \
		if ((rc = load_points(cv, &(K)->alpha1, c, 1, 2, "alpha1")) ||                                \
		    (rc = load_points(cv, &(K)->beta1, c, 1, 2, "beta1")) ||                                  \
		    (rc = load_points(cv, &(K)->beta2, c, 1, 4, "beta2")) ||                                  \
		    (rc = load_points(cv, &(K)->gamma2, c, 1, 4, "gamma2")) ||                                \
		    (rc = load_points(cv, &(K)->delta1, c, 1, 2, "delta1")) ||                                \
		    (rc = load_points(cv, &(K)->delta2, c, 1, 4, "delta2")))                                  \
			return rc;                                                                            \
		const struct { const char *n; int rc; } chk[] = {                                             \
			{ "alpha1", CHK1(&(K)->alpha1) }, { "beta1", CHK1(&(K)->beta1) },                     \
			{ "delta1", CHK1(&(K)->delta1) }, { "beta2", CHK2(&(K)->beta2) },                     \
			{ "gamma2", CHK2(&(K)->gamma2) }, { "delta2", CHK2(&(K)->delta2) },                   \
		};                                                                                            \
		for (size_t i = 0; i < sizeof(chk) / sizeof(chk[0]); i++)                                    \
			if (chk[i].rc)                                                                        \
				return zp_err_set(chk[i].rc, "%s: section 2: %s", b->name, chk[i].n);         \
	} while (0)

static int read_header(zp_zkey *k, const zp_bin *b)
{
	zp_bin_cur c;
	uint32_t v, n8;
	const uint8_t *q;
	int rc;
	if ((rc = zp_bin_section_cur(b, 1, 4, &c)) || (rc = zp_bin_get_u32(&c, &v, "protocol")))
		return rc;
	if (v != 1)
		return zp_err_set(ZP_EFORMAT, "%s: section 1: protocol %u, expected 1 (groth16)", b->name, v);
	if ((rc = zp_bin_section_cur(b, 2, UINT64_MAX, &c)) || (rc = zp_bin_get_u32(&c, &n8, "n8q")))
		return rc;
	if (n8 != 48 && n8 != 32)
		return zp_err_set(ZP_EMISMATCH, "%s: section 2: n8q = %u, expected 48 (BLS12-381) or 32 (BN254)", b->name, n8);
	if ((rc = zp_bin_get_bytes(&c, &q, n8, "q")))
		return rc;
	const zp_curve *cv = zp_curve_by_fp_modulus(q, n8), *cr;
	if (!cv)
		return zp_err_set(ZP_EMISMATCH, "%s: section 2: base field q is neither BLS12-381's nor BN254's", b->name);
	/* the rest: n8r, r, 3 counts, 3 G1 and 3 G2 points */
	if (c.left != 4 + 32 + 12 + 3 * 2 * n8 + 3 * 4 * n8)
		return zp_err_set(ZP_EFORMAT, "%s: section 2: %llu bytes after q, a %s Groth16 header has %u", b->name,
				  (unsigned long long)c.left, cv->name, 4 + 32 + 12 + 18 * n8);
	if ((rc = zp_bin_read_fr_prime(&c, &cr)))
		return rc;
	if (cr != cv)
		return zp_err_set(ZP_EMISMATCH, "%s: section 2: q is %s's, r is %s's", b->name, cv->name, cr->name);
	k->curve = cv;
	zp_bin_get_u32(&c, &k->n_vars, "nVars");
	zp_bin_get_u32(&c, &k->n_public, "nPublic");
	zp_bin_get_u32(&c, &k->domain_size, "domainSize");
	if (k->n_vars < (uint64_t)k->n_public + 1)
		return zp_err_set(ZP_EFORMAT, "%s: section 2: nVars %u < nPublic %u + 1", b->name, k->n_vars, k->n_public);
	uint32_t ds, lg;
	if (k->domain_size < 2 || zp_domain_for(k->domain_size, &ds, &lg) || ds != k->domain_size)
		return zp_err_set(ZP_EFORMAT, "%s: section 2: domainSize %u is not a power of two in [2, 2^28]",
				  b->name, k->domain_size);
	if (k->domain_size < (uint64_t)k->n_public + 1)
		return zp_err_set(ZP_EFORMAT, "%s: section 2: domainSize %u < nPublic %u + 1", b->name,
				  k->domain_size, k->n_public);
	k->log_domain = lg;
	if (cv->id == ZP_CURVE_BN254)
		LOAD_FIXED(cv, &c, &k->bn, zp_bn254_g1_affine_check, zp_bn254_g2_affine_check);
	else
		LOAD_FIXED(cv, &c, k, zp_g1_affine_check, zp_g2_affine_check);
	return 0;
}

/* (coef·R²)·R⁻¹ = coef·R, the Montgomery form of coef, in place: in pieces on all threads */
#define COEF_PIECE 0x4000
struct coef_ctx { const zp_curve *cv; zp_fr *v; uint64_t n; };
static void coef_piece(void *vctx, size_t i, int worker)
{
	(void)worker;
	struct coef_ctx *x = vctx;
	uint64_t lo = (uint64_t)i * COEF_PIECE, hi = lo + COEF_PIECE < x->n ? lo + COEF_PIECE : x->n;
	for (uint64_t j = lo; j < hi; j++) {
		uint64_t raw[4];
		x->cv->fr_from_mont(raw, &x->v[j]);
		memcpy(&x->v[j], raw, 32);
	}
}

/* Coefficient i of section 4: 44 bytes, the matrix, row and wire (u32 each), then the value. */
struct coef { uint32_t mat, row, wire; const uint8_t *val; };

static struct coef coef_at(const uint8_t *sec, uint32_t i)
{
	const uint8_t *p = sec + (size_t)i * 44;
	struct coef e = { .val = p + 12 };
	memcpy(&e.mat, p, 4);
	memcpy(&e.row, p + 4, 4);
	memcpy(&e.wire, p + 8, 4);
	return e;
}

/* §4 -> CSR for A and B over domain_size rows (entries may come in any order). */
static int read_coefs(zp_zkey *k, const zp_bin *b)
{
	zp_bin_cur c;
	uint32_t n;
	int rc;
	if ((rc = zp_bin_section_cur(b, 4, UINT64_MAX, &c)) || (rc = zp_bin_get_u32(&c, &n, "nCoefs")))
		return rc;
	if (c.left != (uint64_t)n * 44)
		return zp_err_set(ZP_EFORMAT, "%s: section 4: %u coefficients need %llu bytes, section has %llu",
				  b->name, n, (unsigned long long)n * 44, (unsigned long long)c.left);
	zp_circuit *ci = &k->circuit;
	uint64_t cnt[2] = { 0, 0 };
	for (uint32_t i = 0; i < n; i++) {
		struct coef e = coef_at(c.p, i);
		if (e.mat > 1)
			return zp_err_set(ZP_EFORMAT, "%s: section 4: coefficient %u: matrix %u, expected 0 (A) or 1 (B)",
					  b->name, i, e.mat);
		if (e.row >= k->domain_size || e.wire >= k->n_vars)
			return zp_err_set(ZP_EFORMAT, "%s: section 4: coefficient %u: row %u / wire %u outside domain %u x nVars %u",
					  b->name, i, e.row, e.wire, k->domain_size, k->n_vars);
		if (!zp_bin_fr_canonical_of(k->curve, e.val))
			return zp_err_set(ZP_ENONCANON, "%s: section 4: coefficient %u: value >= r", b->name, i);
		cnt[e.mat]++;
	}
	for (int m = 0; m < 2; m++) {
		zp_csr *s = &ci->m[m];
		s->rows = k->domain_size;
		s->cols = k->n_vars;
		s->nnz = cnt[m];
		s->row_ptr = calloc((size_t)k->domain_size + 1, sizeof(uint64_t));
		s->col = malloc((cnt[m] ? cnt[m] : 1) * sizeof(uint32_t));
		s->val = malloc((cnt[m] ? cnt[m] : 1) * sizeof(zp_fr));
		if (!s->row_ptr || !s->col || !s->val)
			return zp_err_set(-ENOMEM, "%s: section 4: %llu coefficients", b->name, (unsigned long long)cnt[m]);
	}
	/* counting sort by row: counts, prefix sums, placement (in file order within a row) */
	for (uint32_t i = 0; i < n; i++) {
		struct coef e = coef_at(c.p, i);
		ci->m[e.mat].row_ptr[e.row + 1]++;
	}
	uint64_t *next[2] = { NULL, NULL };
	for (int m = 0; m < 2; m++) {
		zp_csr *s = &ci->m[m];
		for (uint32_t r = 0; r < s->rows; r++)
			s->row_ptr[r + 1] += s->row_ptr[r];
		next[m] = malloc(((size_t)s->rows + 1) * sizeof(uint64_t));
		if (!next[m]) {
			free(next[0]);
			return zp_err_set(-ENOMEM, "%s: section 4", b->name);
		}
		memcpy(next[m], s->row_ptr, ((size_t)s->rows + 1) * sizeof(uint64_t));
	}
	for (uint32_t i = 0; i < n; i++) {
		struct coef e = coef_at(c.p, i);
		uint64_t at = next[e.mat][e.row]++;
		ci->m[e.mat].col[at] = e.wire;
		memcpy(&ci->m[e.mat].val[at], e.val, 32);   /* coef·R², converted below */
	}
	free(next[0]);
	free(next[1]);
	for (int m = 0; m < 2; m++) {
		struct coef_ctx x = { k->curve, ci->m[m].val, ci->m[m].nnz };
		zp_par_for((size_t)((x.n + COEF_PIECE - 1) / COEF_PIECE), coef_piece, &x);
	}
	ci->m[ZP_MAT_C] = (zp_csr){ .rows = 0, .cols = k->n_vars };
	return 0;
}

/* The container (a .zkey, version 1) and its header (sections 1 and 2) into k (zeroed first; nothing
 * allocated in it). b is the caller's to free with zp_bin_free, also on error. */
static int open_zkey(zp_zkey *k, zp_bin *b, const uint8_t *data, size_t len, const char *name)
{
	memset(k, 0, sizeof(*k));
	int rc = zp_bin_parse(b, data, len, name, "zkey");
	if (rc)
		return rc;
	if (b->version != 1)
		return zp_err_set(ZP_EVERSION, "%s: zkey version %u, expected 1", name, b->version);
	return read_header(k, b);
}

int zp_zkey_parse(zp_zkey *k, const uint8_t *data, size_t len, const char *name)
{
	zp_bin b;
	int rc = open_zkey(k, &b, data, len, name);
	if (rc)
		goto out;
	char st[ZP_PROGRESS_STAGE_MAX];
	snprintf(st, sizeof st, "checking the points of %s", name);
	uint64_t nv = k->n_vars, np = k->n_public;
	const zp_curve *cv = k->curve;
	bool bn = cv->id == ZP_CURVE_BN254;
	/* the coordinates load_points checks: IC, A, B1 (2 each), B2 (4), C, H (2) */
	zp_progress_stage(st, ((np + 1) * 2 + nv * 8 + (nv > np ? nv - np - 1 : 0) * 2 + (uint64_t)k->domain_size * 2) * cv->fp_bytes,
			  "bytes");
	if ((rc = load_section(cv, &b, 3, bn ? (void **)&k->bn.ic : (void **)&k->ic, np + 1, 2, "IC")) ||
	    (rc = load_section(cv, &b, 5, bn ? (void **)&k->bn.a : (void **)&k->a, nv, 2, "A")) ||
	    (rc = load_section(cv, &b, 6, bn ? (void **)&k->bn.b1 : (void **)&k->b1, nv, 2, "B1")) ||
	    (rc = load_section(cv, &b, 7, bn ? (void **)&k->bn.b2 : (void **)&k->b2, nv, 4, "B2")) ||
	    (rc = load_section(cv, &b, 8, bn ? (void **)&k->bn.c : (void **)&k->c, nv - np - 1, 2, "C")) ||
	    (rc = load_section(cv, &b, 9, bn ? (void **)&k->bn.h : (void **)&k->h, k->domain_size, 2, "H")))
		goto out;
	zp_circuit *ci = &k->circuit;
	ci->n_vars = k->n_vars;
	ci->n_public = k->n_public;
	ci->domain_size = k->domain_size;
	ci->log_domain = k->log_domain;
	ci->curve = k->curve;
	snprintf(st, sizeof st, "reading the circuit of %s (coefficients, fingerprint)", name);
	zp_progress_stage(st, 0, "items");
	if ((rc = read_coefs(k, &b)) || (rc = zp_csr_sort_rows(&ci->m[0])) || (rc = zp_csr_sort_rows(&ci->m[1])) ||
	    (rc = zp_circuit_finish(ci)))
		goto out;
out:
	zp_bin_free(&b);
	if (rc)
		zp_zkey_free(k);
	return rc;
}

int zp_zkey_read(zp_zkey *k, const char *path)
{
	zp_bin_map m;
	int rc = zp_bin_map_file(&m, path);
	if (rc) {
		memset(k, 0, sizeof(*k));
		return rc;
	}
	rc = zp_zkey_parse(k, m.data, m.len, path);
	zp_bin_unmap(&m);
	return rc;
}

int zp_zkey_probe_buf(zp_zkey *k, const uint8_t *data, size_t len, const char *name)
{
	zp_bin b;
	int rc = open_zkey(k, &b, data, len, name);
	zp_bin_free(&b);
	if (rc)
		memset(k, 0, sizeof(*k));
	return rc;
}

int zp_zkey_probe(zp_zkey *k, const char *path)
{
	zp_bin_map m;
	memset(k, 0, sizeof(*k));
	int rc = zp_bin_map_file(&m, path);
	if (rc)
		return rc;
	rc = zp_zkey_probe_buf(k, m.data, m.len, path);
	zp_bin_unmap(&m);
	return rc;
}

void zp_zkey_free(zp_zkey *k)
{
	free(k->ic);
	free(k->a);
	free(k->b1);
	free(k->b2);
	free(k->c);
	free(k->h);
	free(k->bn.ic);
	free(k->bn.a);
	free(k->bn.b1);
	free(k->bn.b2);
	free(k->bn.c);
	free(k->bn.h);
	zp_circuit_free(&k->circuit);
	memset(k, 0, sizeof(*k));
}

int zp_zkey_read_vk(zp_g16_vk *vk, const char *path)
{
	zp_bin_map m;
	zp_bin b;
	zp_zkey k;
	memset(vk, 0, sizeof(*vk));
	int rc = zp_bin_map_file(&m, path);
	if (rc)
		return rc;
	if (!(rc = open_zkey(&k, &b, m.data, m.len, path)) &&
	    !(rc = load_section(k.curve, &b, 3, zp_zkey_is_bn254(&k) ? (void **)&k.bn.ic : (void **)&k.ic,
				(uint64_t)k.n_public + 1, 2, "IC")))
		rc = zp_zkey_vk(vk, &k);
	zp_bin_free(&b);
	free(k.ic);
	free(k.bn.ic);
	zp_bin_unmap(&m);
	return rc;
}

int zp_zkey_vk(zp_g16_vk *vk, const zp_zkey *k)
{
	memset(vk, 0, sizeof(*vk));
	vk->n_public = k->n_public;
	vk->curve = k->curve;
	size_t n = (size_t)k->n_public + 1;
	if (zp_zkey_is_bn254(k)) {
		vk->bn.alpha1 = k->bn.alpha1;
		vk->bn.beta2 = k->bn.beta2;
		vk->bn.gamma2 = k->bn.gamma2;
		vk->bn.delta2 = k->bn.delta2;
		if (!(vk->bn.ic = malloc(n * sizeof(zp_bn254_g1_affine))))
			return -ENOMEM;
		memcpy(vk->bn.ic, k->bn.ic, n * sizeof(zp_bn254_g1_affine));
		return 0;
	}
	vk->alpha1 = k->alpha1;
	vk->beta2 = k->beta2;
	vk->gamma2 = k->gamma2;
	vk->delta2 = k->delta2;
	vk->ic = malloc(n * sizeof(zp_g1_affine));
	if (!vk->ic)
		return -ENOMEM;
	memcpy(vk->ic, k->ic, n * sizeof(zp_g1_affine));
	return 0;
}

void zp_g16_vk_free(zp_g16_vk *vk)
{
	free(vk->ic);
	free(vk->bn.ic);
	vk->ic = NULL;
	vk->bn.ic = NULL;
}
