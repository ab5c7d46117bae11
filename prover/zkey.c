#include "zkey.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binfile.h"
#include "progress.h"
#include "zp_err.h"

/* Copy n points of nfp coordinates each from the cursor, checking each coordinate < q. */
static int load_points(void *dst, zp_bin_cur *c, uint64_t n, int nfp, const char *what)
{
	const uint8_t *p;
	int rc = zp_bin_get_bytes(c, &p, n * nfp * ZP_FP_BYTES, what);
	if (rc)
		return rc;
	for (uint64_t i = 0; i < n * nfp; i++) {
		if (!zp_bin_fp_canonical(p + i * ZP_FP_BYTES))
			return zp_err_set(ZP_ENONCANON, "%s: section %u: %s point %llu: coordinate >= q", c->file,
					  c->sec, what, (unsigned long long)(i / nfp));
		if ((i & 0xffff) == 0xffff)
			zp_progress_add(0x10000 * ZP_FP_BYTES);
	}
	zp_progress_add((n * nfp & 0xffff) * ZP_FP_BYTES);
	memcpy(dst, p, n * nfp * ZP_FP_BYTES);
	return 0;
}

static int load_section(const zp_bin *b, uint32_t id, void **dst, uint64_t n, int nfp, const char *what)
{
	zp_bin_cur c;
	int rc = zp_bin_section_cur(b, id, n * nfp * ZP_FP_BYTES, &c);
	if (rc)
		return zp_err_set(rc, "%s: section %u (%s): expected %llu points of %d bytes", b->name, id, what,
				  (unsigned long long)n, nfp * ZP_FP_BYTES);
	*dst = aligned_alloc(64, ((n * nfp * sizeof(zp_fp)) + 63) / 64 * 64 + 64);
	if (!*dst)
		return zp_err_set(-ENOMEM, "%s: section %u (%s): %llu points", b->name, id, what, (unsigned long long)n);
	return load_points(*dst, &c, n, nfp, what);
}

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
	if ((rc = zp_bin_section_cur(b, 2, 4 + 48 + 4 + 32 + 12 + 3 * 96 + 3 * 192, &c)))
		return zp_err_set(rc, "%s: section 2: not a BLS12-381 Groth16 header (expected 952 bytes)", b->name);
	zp_bin_get_u32(&c, &n8, "n8q");
	zp_bin_get_bytes(&c, &q, 48, "q");
	if (n8 != 48)
		return zp_err_set(ZP_EMISMATCH, "%s: section 2: n8q = %u, expected 48 (BLS12-381)", b->name, n8);
	for (int i = 0; i < 6; i++) {
		uint64_t limb;
		memcpy(&limb, q + 8 * i, 8);
		if (limb != ZP_FP_MODULUS[i])
			return zp_err_set(ZP_EMISMATCH, "%s: section 2: base field is not BLS12-381's q", b->name);
	}
	if ((rc = zp_bin_check_fr_prime(&c)))
		return rc;
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
	if ((rc = load_points(&k->alpha1, &c, 1, 2, "alpha1")) || (rc = load_points(&k->beta1, &c, 1, 2, "beta1")) ||
	    (rc = load_points(&k->beta2, &c, 1, 4, "beta2")) || (rc = load_points(&k->gamma2, &c, 1, 4, "gamma2")) ||
	    (rc = load_points(&k->delta1, &c, 1, 2, "delta1")) || (rc = load_points(&k->delta2, &c, 1, 4, "delta2")))
		return rc;
	/* the key's fixed points are few: check them fully (curve and subgroup) */
	const struct { const char *n; int rc; } chk[] = {
		{ "alpha1", zp_g1_affine_check(&k->alpha1) }, { "beta1", zp_g1_affine_check(&k->beta1) },
		{ "delta1", zp_g1_affine_check(&k->delta1) }, { "beta2", zp_g2_affine_check(&k->beta2) },
		{ "gamma2", zp_g2_affine_check(&k->gamma2) }, { "delta2", zp_g2_affine_check(&k->delta2) },
	};
	for (size_t i = 0; i < sizeof(chk) / sizeof(chk[0]); i++)
		if (chk[i].rc)
			return zp_err_set(chk[i].rc, "%s: section 2: %s", b->name, chk[i].n);
	return 0;
}

struct coef { uint32_t matrix, row, wire; zp_fr v; };

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
		const uint8_t *p = c.p + (size_t)i * 44;
		uint32_t mat, row, wire;
		memcpy(&mat, p, 4);
		memcpy(&row, p + 4, 4);
		memcpy(&wire, p + 8, 4);
		if (mat > 1)
			return zp_err_set(ZP_EFORMAT, "%s: section 4: coefficient %u: matrix %u, expected 0 (A) or 1 (B)",
					  b->name, i, mat);
		if (row >= k->domain_size || wire >= k->n_vars)
			return zp_err_set(ZP_EFORMAT, "%s: section 4: coefficient %u: row %u / wire %u outside domain %u x nVars %u",
					  b->name, i, row, wire, k->domain_size, k->n_vars);
		if (!zp_bin_fr_canonical(p + 12))
			return zp_err_set(ZP_ENONCANON, "%s: section 4: coefficient %u: value >= r", b->name, i);
		cnt[mat]++;
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
		const uint8_t *p = c.p + (size_t)i * 44;
		uint32_t mat, row;
		memcpy(&mat, p, 4);
		memcpy(&row, p + 4, 4);
		ci->m[mat].row_ptr[row + 1]++;
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
		const uint8_t *p = c.p + (size_t)i * 44;
		uint32_t mat, row, wire;
		memcpy(&mat, p, 4);
		memcpy(&row, p + 4, 4);
		memcpy(&wire, p + 8, 4);
		zp_fr v;
		uint64_t raw[4];
		memcpy(&v, p + 12, 32);
		zp_fr_from_mont(raw, &v);  /* (coef·R²)·R⁻¹ = coef·R: the Montgomery form of coef */
		uint64_t at = next[mat][row]++;
		ci->m[mat].col[at] = wire;
		memcpy(&ci->m[mat].val[at], raw, 32);
	}
	free(next[0]);
	free(next[1]);
	ci->m[ZP_MAT_C] = (zp_csr){ .rows = 0, .cols = k->n_vars };
	return 0;
}

int zp_zkey_parse(zp_zkey *k, const uint8_t *data, size_t len, const char *name)
{
	zp_bin b;
	memset(k, 0, sizeof(*k));
	int rc = zp_bin_parse(&b, data, len, name, "zkey");
	if (rc)
		goto out;
	if (b.version != 1) {
		rc = zp_err_set(ZP_EVERSION, "%s: zkey version %u, expected 1", name, b.version);
		goto out;
	}
	if ((rc = read_header(k, &b)))
		goto out;
	char st[ZP_PROGRESS_STAGE_MAX];
	snprintf(st, sizeof st, "checking the points of %s", name);
	uint64_t nv = k->n_vars, np = k->n_public;
	/* the coordinates load_points checks: IC, A, B1 (2 each), B2 (4), C, H (2) */
	zp_progress_stage(st, ((np + 1) * 2 + nv * 8 + (nv > np ? nv - np - 1 : 0) * 2 + (uint64_t)k->domain_size * 2) * ZP_FP_BYTES,
			  "bytes");
	if ((rc = load_section(&b, 3, (void **)&k->ic, np + 1, 2, "IC")) ||
	    (rc = load_section(&b, 5, (void **)&k->a, nv, 2, "A")) ||
	    (rc = load_section(&b, 6, (void **)&k->b1, nv, 2, "B1")) ||
	    (rc = load_section(&b, 7, (void **)&k->b2, nv, 4, "B2")) ||
	    (rc = load_section(&b, 8, (void **)&k->c, nv - np - 1, 2, "C")) ||
	    (rc = load_section(&b, 9, (void **)&k->h, k->domain_size, 2, "H")))
		goto out;
	zp_circuit *ci = &k->circuit;
	ci->n_vars = k->n_vars;
	ci->n_public = k->n_public;
	ci->domain_size = k->domain_size;
	ci->log_domain = k->log_domain;
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
	memset(k, 0, sizeof(*k));
	int rc = zp_bin_parse(&b, data, len, name, "zkey");
	if (rc)
		return rc;
	rc = read_header(k, &b);
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
	zp_circuit_free(&k->circuit);
	memset(k, 0, sizeof(*k));
}

int zp_zkey_read_vk(zp_g16_vk *vk, const char *path)
{
	zp_bin_map m;
	zp_bin b;
	zp_zkey k;
	memset(vk, 0, sizeof(*vk));
	memset(&k, 0, sizeof(k));
	int rc = zp_bin_map_file(&m, path);
	if (rc)
		return rc;
	if (!(rc = zp_bin_parse(&b, m.data, m.len, path, "zkey"))) {
		if (b.version != 1)
			rc = zp_err_set(ZP_EVERSION, "%s: zkey version %u, expected 1", path, b.version);
		else if (!(rc = read_header(&k, &b)) &&
			 !(rc = load_section(&b, 3, (void **)&k.ic, (uint64_t)k.n_public + 1, 2, "IC")))
			rc = zp_zkey_vk(vk, &k);
	}
	zp_bin_free(&b);
	free(k.ic);
	zp_bin_unmap(&m);
	return rc;
}

int zp_zkey_vk(zp_g16_vk *vk, const zp_zkey *k)
{
	memset(vk, 0, sizeof(*vk));
	vk->alpha1 = k->alpha1;
	vk->beta2 = k->beta2;
	vk->gamma2 = k->gamma2;
	vk->delta2 = k->delta2;
	vk->n_public = k->n_public;
	vk->ic = malloc(((size_t)k->n_public + 1) * sizeof(zp_g1_affine));
	if (!vk->ic)
		return -ENOMEM;
	memcpy(vk->ic, k->ic, ((size_t)k->n_public + 1) * sizeof(zp_g1_affine));
	return 0;
}

void zp_g16_vk_free(zp_g16_vk *vk)
{
	free(vk->ic);
	vk->ic = NULL;
}
