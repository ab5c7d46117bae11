#include "r1cs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "binfile.h"
#include "zp_err.h"

static int read_header(zp_r1cs *r, const zp_bin *b)
{
	zp_bin_cur c;
	int rc;
	if ((rc = zp_bin_section_cur(b, 1, 4 + 32 + 4 * 4 + 8 + 4, &c)) || (rc = zp_bin_read_fr_prime(&c, &r->curve)))
		return rc;
	if ((rc = zp_bin_get_u32(&c, &r->n_wires, "nWires")) ||
	    (rc = zp_bin_get_u32(&c, &r->n_outputs, "nOutputs")) ||
	    (rc = zp_bin_get_u32(&c, &r->n_pub_inputs, "nPubInputs")) ||
	    (rc = zp_bin_get_u32(&c, &r->n_prv_inputs, "nPrvInputs")) ||
	    (rc = zp_bin_get_u64(&c, &r->n_labels, "nLabels")) ||
	    (rc = zp_bin_get_u32(&c, &r->n_constraints, "nConstraints")))
		return rc;
	if (r->n_wires == 0)
		return zp_err_set(ZP_EFORMAT, "%s: section 1: nWires is 0 (wire 0 = ONE must exist)", b->name);
	if ((uint64_t)r->n_outputs + r->n_pub_inputs + r->n_prv_inputs + 1 > r->n_wires)
		return zp_err_set(ZP_EFORMAT, "%s: section 1: %u outputs + %u public + %u private inputs + 1 exceed nWires %u",
				  b->name, r->n_outputs, r->n_pub_inputs, r->n_prv_inputs, r->n_wires);
	return 0;
}

/* One pass over §2: with fill == 0 validate and count terms per matrix; with fill == 1
 * write them into the CSRs (already sized). */
static int walk_constraints(zp_r1cs *r, const zp_bin *b, int fill)
{
	static const char *const lc_name[3] = { "A", "B", "C" };
	zp_bin_cur c;
	int rc = zp_bin_section_cur(b, 2, UINT64_MAX, &c);
	if (rc)
		return rc;
	uint64_t pos[3] = { 0, 0, 0 };
	/* every constraint needs at least its three term counts */
	if (!fill && r->n_constraints > c.left / 12)
		return zp_err_set(ZP_ETRUNC, "%s: section 2: %llu bytes cannot hold %u constraints", b->name,
				  (unsigned long long)c.left, r->n_constraints);
	for (uint32_t i = 0; i < r->n_constraints; i++) {
		for (int k = 0; k < 3; k++) {
			uint32_t nt;
			if ((rc = zp_bin_get_u32(&c, &nt, "term count")))
				return zp_err_set(rc, "%s: section 2: constraint %u, %s: term count past end of section",
						  b->name, i, lc_name[k]);
			if ((uint64_t)nt * 36 > c.left)
				return zp_err_set(ZP_ETRUNC, "%s: section 2: constraint %u, %s: %u terms need %llu bytes, %llu left",
						  b->name, i, lc_name[k], nt, (unsigned long long)nt * 36,
						  (unsigned long long)c.left);
			for (uint32_t t = 0; t < nt; t++) {
				const uint8_t *p;
				uint32_t wire;
				zp_bin_get_u32(&c, &wire, "wire");
				zp_bin_get_bytes(&c, &p, 32, "coefficient");
				if (fill) {
					zp_csr *m = &r->m[k];
					m->col[pos[k]] = wire;
					r->curve->fr_from_le(&m->val[pos[k]], p);
				} else {
					if (wire >= r->n_wires)
						return zp_err_set(ZP_EFORMAT, "%s: section 2: constraint %u, %s term %u: wire %u >= nWires %u",
								  b->name, i, lc_name[k], t, wire, r->n_wires);
					if (!zp_bin_fr_canonical_of(r->curve, p))
						return zp_err_set(ZP_ENONCANON, "%s: section 2: constraint %u, %s term %u: coefficient >= r",
								  b->name, i, lc_name[k], t);
				}
				pos[k]++;
			}
			if (fill)
				r->m[k].row_ptr[i + 1] = pos[k];
		}
	}
	if ((rc = zp_bin_expect_end(&c)))
		return rc;
	if (!fill)
		for (int k = 0; k < 3; k++)
			r->m[k].nnz = pos[k];
	return 0;
}

static int alloc_csr(zp_csr *m, uint32_t rows, uint32_t cols, uint64_t nnz)
{
	m->rows = rows;
	m->cols = cols;
	m->nnz = nnz;
	m->row_ptr = calloc((size_t)rows + 1, sizeof(uint64_t));
	m->col = malloc((nnz ? nnz : 1) * sizeof(uint32_t));
	m->val = malloc((nnz ? nnz : 1) * sizeof(zp_fr));
	if (!m->row_ptr || !m->col || !m->val)
		return zp_err_set(-ENOMEM, "CSR with %u rows, %llu entries", rows, (unsigned long long)nnz);
	return 0;
}

int zp_r1cs_parse(zp_r1cs *r, const uint8_t *data, size_t len, const char *name)
{
	zp_bin b;
	memset(r, 0, sizeof(*r));
	int rc = zp_bin_parse(&b, data, len, name, "r1cs");
	if (rc)
		goto out;
	if (b.version != 1) {
		rc = zp_err_set(ZP_EVERSION, "%s: r1cs version %u, expected 1", name, b.version);
		goto out;
	}
	if ((rc = read_header(r, &b)) || (rc = walk_constraints(r, &b, 0)))
		goto out;
	for (int k = 0; k < 3; k++)
		if ((rc = alloc_csr(&r->m[k], r->n_constraints, r->n_wires, r->m[k].nnz)))
			goto out;
	if ((rc = walk_constraints(r, &b, 1)))
		goto out;
	for (int k = 0; k < 3; k++)
		if ((rc = zp_csr_sort_rows(&r->m[k])))
			goto out;
	/* §3 (wire -> label) is optional for proving; when present it must be nWires u64s */
	for (uint32_t i = 0; i < b.nsec; i++)
		if (b.secs[i].id == 3 && b.secs[i].size != (uint64_t)r->n_wires * 8) {
			rc = zp_err_set(ZP_EFORMAT, "%s: section 3 is %llu bytes, expected nWires x 8 = %llu", name,
					(unsigned long long)b.secs[i].size, (unsigned long long)r->n_wires * 8);
			goto out;
		}
out:
	zp_bin_free(&b);
	if (rc)
		zp_r1cs_free(r);
	return rc;
}

int zp_r1cs_read(zp_r1cs *r, const char *path)
{
	zp_bin_map m;
	int rc = zp_bin_map_file(&m, path);
	if (rc) {
		memset(r, 0, sizeof(*r));
		return rc;
	}
	rc = zp_r1cs_parse(r, m.data, m.len, path);
	zp_bin_unmap(&m);
	return rc;
}

void zp_r1cs_free(zp_r1cs *r)
{
	for (int k = 0; k < 3; k++)
		zp_csr_free(&r->m[k]);
}

/* Copy src's rows into dst (domain rows), then the public-input rows into A. */
static int widen(zp_csr *dst, const zp_csr *src, uint32_t rows, uint32_t extra_from, uint32_t n_extra,
		 const zp_curve *cv)
{
	int rc = alloc_csr(dst, rows, src->cols, src->nnz + n_extra);
	if (rc)
		return rc;
	memcpy(dst->row_ptr, src->row_ptr, ((size_t)src->rows + 1) * sizeof(uint64_t));
	memcpy(dst->col, src->col, src->nnz * sizeof(uint32_t));
	memcpy(dst->val, src->val, src->nnz * sizeof(zp_fr));
	uint64_t pos = src->nnz;
	for (uint32_t i = src->rows; i < rows; i++) {
		if (i >= extra_from && i < extra_from + n_extra) {
			dst->col[pos] = i - extra_from;
			memcpy(&dst->val[pos], cv->fr_one, sizeof(zp_fr));
			pos++;
		}
		dst->row_ptr[i + 1] = pos;
	}
	return 0;
}

int zp_circuit_from_r1cs(zp_circuit *c, const zp_r1cs *r)
{
	memset(c, 0, sizeof(*c));
	c->n_vars = r->n_wires;
	c->n_public = r->n_outputs + r->n_pub_inputs;
	c->n_constraints = r->n_constraints;
	c->has_c = true;
	c->curve = r->curve;
	int rc = zp_domain_for((uint64_t)r->n_constraints + c->n_public + 1, &c->domain_size, &c->log_domain);
	if (rc)
		return zp_err_set(rc, "circuit with %u constraints and %u public values: domain too large",
				  r->n_constraints, c->n_public);
	for (int k = 0; k < 3; k++) {
		uint32_t n_extra = k == ZP_MAT_A ? c->n_public + 1 : 0;
		if ((rc = widen(&c->m[k], &r->m[k], c->domain_size, r->n_constraints, n_extra, zp_curve_of(r->curve))))
			goto err;
	}
	if ((rc = zp_circuit_finish(c)))
		goto err;
	return 0;
err:
	zp_circuit_free(c);
	return rc;
}

int zp_r1cs_peek(const char *path, uint32_t *n, const zp_curve **curve)
{
	if (!curve) /* nWires follows the 4-byte field size and a 32-byte prime */
		return zp_bin_peek_u32(path, "r1cs", 1, 4 + 32, n);
	zp_bin_map m;
	zp_bin b;
	zp_bin_cur c;
	int rc = zp_bin_map_file(&m, path);
	if (rc)
		return rc;
	if (!(rc = zp_bin_parse(&b, m.data, m.len, path, "r1cs")) && !(rc = zp_bin_section_cur(&b, 1, UINT64_MAX, &c)) &&
	    !(rc = zp_bin_read_fr_prime(&c, curve)))
		rc = zp_bin_get_u32(&c, n, "nWires");
	zp_bin_free(&b);
	zp_bin_unmap(&m);
	return rc;
}
