#include "circuit.h"
#include "bn254.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "lc_fast.h"
#include "par.h"
#include "zp_err.h"

int zp_domain_for(uint64_t n, uint32_t *size, uint32_t *lg)
{
	uint32_t l = 0;
	while (((uint64_t)1 << l) < n)
		if (++l > 28)
			return ZP_ERANGE;
	*size = (uint32_t)1 << l;
	*lg = l;
	return 0;
}

struct entry { uint32_t col; uint32_t idx; };

static int cmp_entry(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;
	if (a->col != b->col)
		return a->col < b->col ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;  /* stable */
}

int zp_csr_sort_rows(zp_csr *m)
{
	uint64_t longest = 0;
	for (uint32_t r = 0; r < m->rows; r++) {
		uint64_t n = m->row_ptr[r + 1] - m->row_ptr[r];
		if (n > longest)
			longest = n;
	}
	struct entry *e = malloc((longest ? longest : 1) * sizeof(*e));
	zp_fr *v = malloc((longest ? longest : 1) * sizeof(*v));
	if (!e || !v) {
		free(e);
		free(v);
		return zp_err_set(-ENOMEM, "sorting a CSR row of %llu entries", (unsigned long long)longest);
	}
	for (uint32_t r = 0; r < m->rows; r++) {
		uint64_t b = m->row_ptr[r], n = m->row_ptr[r + 1] - b, sorted = 1;
		for (uint64_t i = 1; i < n && sorted; i++)
			sorted = m->col[b + i - 1] <= m->col[b + i];
		if (sorted)
			continue;
		for (uint64_t i = 0; i < n; i++)
			e[i] = (struct entry){ m->col[b + i], (uint32_t)i };
		qsort(e, n, sizeof(*e), cmp_entry);
		if (m->val) {
			for (uint64_t i = 0; i < n; i++)
				v[i] = m->val[b + e[i].idx];
			for (uint64_t i = 0; i < n; i++)
				m->val[b + i] = v[i];
		} else {   /* codes only: permute them (v as byte scratch: n <= longest bytes fit) */
			uint8_t *cv = (uint8_t *)v;
			for (uint64_t i = 0; i < n; i++)
				cv[i] = m->code[b + e[i].idx];
			memcpy(m->code + b, cv, n);
		}
		for (uint64_t i = 0; i < n; i++)
			m->col[b + i] = e[i].col;
	}
	free(e);
	free(v);
	if (m->val) {    /* any codes are stale now (finish makes them again) */
		free(m->code);
		m->code = NULL;
	}
	return 0;
}

void zp_csr_free(zp_csr *m)
{
	free(m->row_ptr);
	free(m->col);
	free(m->val);
	free(m->code);
	memset(m, 0, sizeof(*m));
}

/* ---- y = M·w, split into row blocks ---- */
#define ROWS_PER_TASK 4096
#define PF_AHEAD 16

struct mul_ctx { const zp_csr *m; const zp_fr *w; zp_fr *y; };

/* ---- coefficient codes ---- */
static zp_fr coef_tab[256];
static pthread_once_t coef_once = PTHREAD_ONCE_INIT;
/* open addressing on limb 0: codes 0..254 → slot; 512 slots */
static struct { uint64_t key; int16_t code; } coef_hash[512];

static void coef_init(void)
{
	coef_tab[ZP_COEF_ONE] = ZP_FR_ONE;
	for (int k = 1; k <= ZP_COEF_POW2_MAX; k++)
		zp_fr_add(&coef_tab[k], &coef_tab[k - 1], &coef_tab[k - 1]);
	zp_fr_neg(&coef_tab[ZP_COEF_NEG1], &ZP_FR_ONE);
	coef_tab[ZP_COEF_OTHER] = ZP_FR_ZERO;
	for (int i = 0; i < 512; i++)
		coef_hash[i].code = -1;
	for (int c = 0; c < ZP_COEF_OTHER; c++) {
		uint64_t h = (coef_tab[c].l[0] * 0x9e3779b97f4a7c15ULL) >> 55;
		while (coef_hash[h].code >= 0)
			h = (h + 1) & 511;
		coef_hash[h].key = coef_tab[c].l[0];
		coef_hash[h].code = (int16_t)c;
	}
}

const zp_fr *zp_coef_values(void)
{
	pthread_once(&coef_once, coef_init);
	return coef_tab;
}

static inline uint8_t coef_code_of(const zp_fr *v)
{
	for (uint64_t h = (v->l[0] * 0x9e3779b97f4a7c15ULL) >> 55;; h = (h + 1) & 511) {
		int c = coef_hash[h].code;
		if (c < 0)
			return ZP_COEF_OTHER;
		if (coef_hash[h].key == v->l[0] && zp_fr_eq(&coef_tab[c], v))
			return (uint8_t)c;
	}
}

#define CODE_CHUNK (1u << 20)
struct code_ctx { zp_csr *m; };

static void code_task(void *vctx, size_t t, int worker)
{
	zp_csr *m = ((struct code_ctx *)vctx)->m;
	uint64_t k0 = (uint64_t)t * CODE_CHUNK, k1 = k0 + CODE_CHUNK < m->nnz ? k0 + CODE_CHUNK : m->nnz;
	for (uint64_t k = k0; k < k1; k++)
		m->code[k] = coef_code_of(&m->val[k]);
}

int zp_csr_code(zp_csr *m)
{
	zp_coef_values();
	if (!m->val)
		return m->code || !m->nnz ? 0 : zp_err_set(-EINVAL, "CSR without values or codes");
	free(m->code);
	if (!(m->code = malloc(m->nnz ? m->nnz : 1)))
		return zp_err_set(-ENOMEM, "coefficient codes for %llu non-zeros", (unsigned long long)m->nnz);
	struct code_ctx c = { m };
	zp_par_for((m->nnz + CODE_CHUNK - 1) / CODE_CHUNK, code_task, &c);
	return 0;
}

/* ---- y = M·w ---- */
static void mul_ref_task(void *vctx, size_t t, int worker)
{
	struct mul_ctx *c = vctx;
	const zp_csr *m = c->m;
	uint64_t r0 = (uint64_t)t * ROWS_PER_TASK, r1 = r0 + ROWS_PER_TASK;
	if (r1 > m->rows)
		r1 = m->rows;
	for (uint64_t r = r0; r < r1; r++) {
		zp_fr acc = ZP_FR_ZERO;
		for (uint64_t k = m->row_ptr[r]; k < m->row_ptr[r + 1]; k++)
			zp_lc_term(&acc, zp_csr_coef(m, k), &c->w[m->col[k]]);
		c->y[r] = acc;
	}
}

static void mul_rows(const zp_csr *m, const zp_fr *w, zp_fr *y, uint64_t r0, uint64_t r1)
{
	const zp_fr *tab = coef_tab;
	if (r1 > m->rows)
		r1 = m->rows;
	if (r0 >= r1)
		return;
	/* w[col] is a cache miss more often than not (operands spread over a window of rows):
	 * prefetch the operand PF_AHEAD non-zeros ahead, across row ends, so the misses overlap */
	uint64_t kend = m->row_ptr[r1];
	for (uint64_t r = r0; r < r1; r++) {
		uint64_t acc[4] = { 0, 0, 0, 0 };
		uint64_t k = m->row_ptr[r], e = m->row_ptr[r + 1];
		for (; k < e; k++) {
			if (k + PF_AHEAD < kend)
				__builtin_prefetch(&w[m->col[k + PF_AHEAD]]);
			zp_lc_term_code(acc, m->code ? m->code[k] : ZP_COEF_OTHER, m->val, k, &w[m->col[k]], tab);
		}
		zp_lc_final(&y[r], acc);
	}
}

static void mul_task(void *vctx, size_t t, int worker)
{
	struct mul_ctx *c = vctx;
	mul_rows(c->m, c->w, c->y, (uint64_t)t * ROWS_PER_TASK, (uint64_t)(t + 1) * ROWS_PER_TASK);
}

void zp_csr_mul(const zp_csr *m, const zp_fr *w, zp_fr *y)
{
	struct mul_ctx c = { m, w, y };
	zp_coef_values();
	zp_par_for(((size_t)m->rows + ROWS_PER_TASK - 1) / ROWS_PER_TASK, mul_task, &c);
}

void zp_csr_mul_ref(const zp_csr *m, const zp_fr *w, zp_fr *y)
{
	struct mul_ctx c = { m, w, y };
	zp_par_for(((size_t)m->rows + ROWS_PER_TASK - 1) / ROWS_PER_TASK, mul_ref_task, &c);
}

/* ---- densities and fingerprint ---- */
static int density(const zp_csr *m, uint32_t n_vars, uint64_t **bits, uint64_t *count)
{
	*bits = calloc(((size_t)n_vars + 63) / 64 + 1, sizeof(uint64_t));
	if (!*bits)
		return -ENOMEM;
	for (uint64_t k = 0; k < m->nnz; k++)
		(*bits)[m->col[k] / 64] |= (uint64_t)1 << (m->col[k] % 64);
	*count = 0;
	for (size_t i = 0; i < ((size_t)n_vars + 63) / 64; i++)
		*count += (uint64_t)__builtin_popcountll((*bits)[i]);
	return 0;
}

/* hash rows as (length, cols, values in normal form) so the hash is independent of how the CSR arrays
 * happen to be laid out. The bytes of HASH_ROWS rows at a time are laid out on all threads (the
 * normal-form conversion is most of the cost), then hashed in order: the same byte stream, so the same
 * hash, as one update per field. */
#define HASH_ROWS 0x4000u
#define HASH_TASK_ROWS 0x400u
struct hash_ctx { const zp_csr *m; const zp_curve *cv; uint8_t *buf; uint32_t r0, r1; };

static void hash_rows_task(void *vctx, size_t t, int worker)
{
	(void)worker;
	const struct hash_ctx *x = vctx;
	const zp_csr *m = x->m;
	uint32_t lo = x->r0 + (uint32_t)t * HASH_TASK_ROWS, hi = lo + HASH_TASK_ROWS < x->r1 ? lo + HASH_TASK_ROWS : x->r1;
	uint64_t k0 = m->row_ptr[x->r0];
	uint8_t *o = x->buf + (size_t)(lo - x->r0) * 8 + (size_t)(m->row_ptr[lo] - k0) * 36;
	for (uint32_t r = lo; r < hi; r++) {
		uint64_t b = m->row_ptr[r], n = m->row_ptr[r + 1] - b;
		memcpy(o, &n, 8);
		o += 8;
		for (uint64_t k = b; k < b + n; k++) {
			memcpy(o, &m->col[k], 4);
			x->cv->fr_to_le(o + 4, m->val ? &m->val[k] : zp_csr_coef(m, k));
			o += 36;
		}
	}
}

static int hash_csr(XXH3_state_t *st, const zp_csr *m, const zp_curve *cv)
{
	XXH3_128bits_update(st, &m->rows, sizeof(m->rows));
	uint8_t *buf = NULL;
	size_t cap = 0;
	for (uint32_t r0 = 0; r0 < m->rows; r0 += HASH_ROWS) {
		uint32_t r1 = m->rows - r0 > HASH_ROWS ? r0 + HASH_ROWS : m->rows;
		size_t len = (size_t)(r1 - r0) * 8 + (size_t)(m->row_ptr[r1] - m->row_ptr[r0]) * 36;
		if (len > cap) {
			free(buf);
			cap = len;
			if (!(buf = malloc(cap)))
				return -ENOMEM;
		}
		struct hash_ctx x = { m, cv, buf, r0, r1 };
		zp_par_for((r1 - r0 + HASH_TASK_ROWS - 1) / HASH_TASK_ROWS, hash_rows_task, &x);
		XXH3_128bits_update(st, buf, len);
	}
	free(buf);
	return 0;
}

int zp_circuit_finish(zp_circuit *c)
{
	if (density(&c->m[ZP_MAT_A], c->n_vars, &c->a_vars, &c->a_count) ||
	    density(&c->m[ZP_MAT_B], c->n_vars, &c->b_vars, &c->b_count))
		return zp_err_set(-ENOMEM, "circuit densities");
	XXH3_state_t *st = XXH3_createState();
	if (!st)
		return zp_err_set(-ENOMEM, "fingerprint");
	XXH3_128bits_reset(st);
	uint32_t hdr[4] = { 0x7a703136 /* "zp16" */, c->n_vars, c->n_public, c->domain_size };
	XXH3_128bits_update(st, hdr, sizeof(hdr));
	const zp_curve *cv = zp_curve_of(c->curve);
	if (cv->id != ZP_CURVE_BLS12_381) /* the curve is part of the circuit: same matrices, other field */
		XXH3_128bits_update(st, &cv->id, sizeof(cv->id));
	if (hash_csr(st, &c->m[ZP_MAT_A], cv) || hash_csr(st, &c->m[ZP_MAT_B], cv)) {
		XXH3_freeState(st);
		return zp_err_set(-ENOMEM, "fingerprint");
	}
	XXH128_hash_t h = XXH3_128bits_digest(st);
	XXH3_freeState(st);
	XXH128_canonical_t can;
	XXH128_canonicalFromHash(&can, h);
	memcpy(c->fingerprint, can.digest, 16);
	if (cv->id != ZP_CURVE_BLS12_381)
		return 0; /* the codes' table is BLS12-381's Fr: BN254 circuits read val */
	for (int k = 0; k < 3; k++)
		if (zp_csr_code(&c->m[k]))
			return zp_err_set(-ENOMEM, "circuit coefficient codes");
	return 0;
}

void zp_circuit_free(zp_circuit *c)
{
	for (int k = 0; k < 3; k++)
		zp_csr_free(&c->m[k]);
	free(c->a_vars);
	free(c->b_vars);
	c->a_vars = c->b_vars = NULL;
}

void zp_circuit_fingerprint_hex(const zp_circuit *c, char buf[33])
{
	for (int i = 0; i < 16; i++)
		snprintf(buf + 2 * i, 3, "%02x", c->fingerprint[i]);
}

/* ---- evaluation and check ---- */
struct hadamard_ctx { const zp_fr *a, *b; zp_fr *c; size_t n; };

static void hadamard_task(void *vctx, size_t t, int worker)
{
	struct hadamard_ctx *h = vctx;
	size_t i0 = t * ROWS_PER_TASK, i1 = i0 + ROWS_PER_TASK < h->n ? i0 + ROWS_PER_TASK : h->n;
	for (size_t i = i0; i < i1; i++)
		zp_lc_mul(&h->c[i], &h->a[i], &h->b[i]);
}

static void eval_with(void (*mul)(const zp_csr *, const zp_fr *, zp_fr *), const zp_circuit *c, const zp_fr *w,
		      zp_fr *a, zp_fr *b, zp_fr *cc)
{
	mul(&c->m[ZP_MAT_A], w, a);
	mul(&c->m[ZP_MAT_B], w, b);
	if (c->has_c) {
		mul(&c->m[ZP_MAT_C], w, cc);
	} else {
		struct hadamard_ctx h = { a, b, cc, c->domain_size };
		zp_par_for((c->domain_size + ROWS_PER_TASK - 1) / ROWS_PER_TASK, hadamard_task, &h);
	}
}

/* the three products a row block at a time: A, B and C of the same rows read the same window of
 * w, so it is fetched once instead of three times */
struct eval_ctx { const zp_circuit *c; const zp_fr *w; zp_fr *y[3]; bool bn; };
static void bn_rows(const zp_csr *m, const zp_fr *w, zp_fr *y, uint64_t r0, uint64_t r1);

/* either curve (bn: BN254's plain row sums, below; else BLS12-381's codes and lazy sums) */
static void eval_task(void *vctx, size_t t, int worker)
{
	struct eval_ctx *e = vctx;
	uint64_t r0 = (uint64_t)t * ROWS_PER_TASK, r1 = r0 + ROWS_PER_TASK;
	for (int k = 0; k < 3; k++)
		if (k < 2 || e->c->has_c)
			(e->bn ? bn_rows : mul_rows)(&e->c->m[k], e->w, e->y[k], r0, r1);
	if (!e->c->has_c) {
		if (r1 > e->c->domain_size)
			r1 = e->c->domain_size;
		for (uint64_t i = r0; i < r1; i++)
			if (e->bn)
				zp_circuit_mul_bn254(&e->y[2][i], &e->y[0][i], &e->y[1][i]);
			else
				zp_lc_mul(&e->y[2][i], &e->y[0][i], &e->y[1][i]);
	}
}

void zp_circuit_eval(const zp_circuit *c, const zp_fr *w, zp_fr *a, zp_fr *b, zp_fr *cc)
{
	if (c->curve && c->curve->id == ZP_CURVE_BN254) {
		zp_circuit_eval_bn254(c, w, a, b, cc);
		return;
	}
	struct eval_ctx e = { c, w, { a, b, cc }, false };
	zp_coef_values();
	zp_par_for((c->domain_size + ROWS_PER_TASK - 1) / ROWS_PER_TASK, eval_task, &e);
}

void zp_circuit_eval_ref(const zp_circuit *c, const zp_fr *w, zp_fr *a, zp_fr *b, zp_fr *cc)
{
	if (c->curve && c->curve->id == ZP_CURVE_BN254) {
		zp_circuit_eval_bn254(c, w, a, b, cc);
		return;
	}
	eval_with(zp_csr_mul_ref, c, w, a, b, cc);
}

struct check_ctx { const zp_fr *a, *b, *c; size_t n; uint64_t *first; bool bn; };

static void check_task(void *vctx, size_t t, int worker)
{
	struct check_ctx *k = vctx;
	size_t i0 = t * ROWS_PER_TASK, i1 = i0 + ROWS_PER_TASK < k->n ? i0 + ROWS_PER_TASK : k->n;
	for (size_t i = i0; i < i1; i++) {
		zp_fr p;
		if (k->bn)
			zp_circuit_mul_bn254(&p, &k->a[i], &k->b[i]);
		else
			zp_fr_mul(&p, &k->a[i], &k->b[i]);
		if (memcmp(&p, &k->c[i], sizeof p)) {   /* reduced values: equal iff the bytes are */
			k->first[t] = i;
			return;
		}
	}
}

int zp_circuit_check(const zp_circuit *c, const zp_fr *a, const zp_fr *b, const zp_fr *cc)
{
	if (!c->has_c)
		return 0;  /* c = a o b by construction: nothing to check without C */
	size_t tasks = (c->domain_size + ROWS_PER_TASK - 1) / ROWS_PER_TASK;
	uint64_t *first = malloc(tasks * sizeof(uint64_t));
	if (!first)
		return zp_err_set(-ENOMEM, "constraint check");
	for (size_t t = 0; t < tasks; t++)
		first[t] = UINT64_MAX;
	struct check_ctx k = { a, b, cc, c->domain_size, first, c->curve && c->curve->id == ZP_CURVE_BN254 };
	zp_par_for(tasks, check_task, &k);
	uint64_t bad = UINT64_MAX;
	for (size_t t = 0; t < tasks && bad == UINT64_MAX; t++)
		bad = first[t];
	free(first);
	if (bad == UINT64_MAX)
		return 0;
	if (bad < c->n_constraints)
		return zp_err_set(ZP_EUNSAT, "constraint %llu (0-based, r1cs order) is not satisfied: A·w × B·w ≠ C·w",
				  (unsigned long long)bad);
	return zp_err_set(ZP_EUNSAT, "row %llu (public-input binding row) is not satisfied", (unsigned long long)bad);
}

/* ---- BN254 circuits: the plain row sums (one modular add per term, the 0/1 shortcuts of zp_lc_term)
 * with BN254's Fr; the codes and lazy sums above are BLS12-381's. A·w is small next to the MSMs. ---- */
static void bn_term(zp_bn254_fr *acc, const zp_bn254_fr *coef, const zp_bn254_fr *x)
{
	const uint64_t *v = x->l, *one = ZP_BN254_FR_ONE.l;
	if (!(v[0] | v[1] | v[2] | v[3]))
		return;
	if (!((v[0] ^ one[0]) | (v[1] ^ one[1]) | (v[2] ^ one[2]) | (v[3] ^ one[3]))) {
		zp_bn254_fr_add(acc, acc, coef);
		return;
	}
	zp_bn254_fr p;
	zp_bn254_fr_mul(&p, coef, x);
	zp_bn254_fr_add(acc, acc, &p);
}

void zp_circuit_mul_bn254(zp_fr *r, const zp_fr *a, const zp_fr *b)
{
	zp_bn254_fr x, y, z;
	memcpy(&x, a, sizeof x);
	memcpy(&y, b, sizeof y);
	zp_bn254_fr_mul(&z, &x, &y);
	memcpy(r, &z, sizeof z);
}

static void bn_rows(const zp_csr *m, const zp_fr *w, zp_fr *y, uint64_t r0, uint64_t r1)
{
	if (r1 > m->rows)
		r1 = m->rows;
	for (uint64_t r = r0; r < r1; r++) {
		zp_bn254_fr acc = ZP_BN254_FR_ZERO, cf, x;
		for (uint64_t k = m->row_ptr[r]; k < m->row_ptr[r + 1]; k++) {
			memcpy(&cf, &m->val[k], sizeof cf);
			memcpy(&x, &w[m->col[k]], sizeof x);
			bn_term(&acc, &cf, &x);
		}
		memcpy(&y[r], &acc, sizeof acc);
	}
}

void zp_circuit_eval_bn254(const zp_circuit *c, const zp_fr *w, zp_fr *a, zp_fr *b, zp_fr *cc)
{
	struct eval_ctx e = { c, w, { a, b, cc }, true };
	zp_par_for((c->domain_size + ROWS_PER_TASK - 1) / ROWS_PER_TASK, eval_task, &e);
}
