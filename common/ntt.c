/*
 * ntt.c — Fr NTTs (four-step split, DIF sub-transforms, blocked bit reversal) and the Groth16 H steps.
 * Contract and conventions: ntt.h.
 *
 * Why the output lands in bit-reversed order before step (3): write the input index j = j1·C + j2 and the
 * output index k = k1 + R·k2 (j1, k1 < R; j2, k2 < C). Then ω_n^(jk) = ω_R^(j1k1) · ω_n^(j2k1) · ω_C^(j2k2).
 * Step (1) is the R-point DFT over j1 for each column j2; a DIF leaves k1 at row rev_R(k1). Step (2)
 * multiplies by ω_n^(j2k1) and takes the C-point DFT over j2 along the row; its DIF leaves k2 at column
 * rev_C(k2). So X[k] sits at rev_R(k1)·C + rev_C(k2) = rev_n(k1 + R·k2) = rev_n(k), and one global bit
 * reversal (an involution, so in place) restores natural order. The inverse runs the same steps with
 * ω^-1 tables and folds n^-1 into the row multipliers; coset forward folds s^j into the column gather.
 */
#include "ntt.h"

#include "field_impl.h"
#include "par.h"
#include "zp_consts.h"
#include "zp_err.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>   /* _addcarry_u64 / _subborrow_u64 (plain x86-64, no extra ISA) */

typedef unsigned __int128 u128;
#define INLINE static inline __attribute__((always_inline))

enum { FWD = 0, INV = 1 };
#define SMALL_LOG 12      /* up to 2^12 (128 KiB) one row does it all */
#define COL_W 4           /* columns gathered together: 4 × 32 B = two cache lines per row */
#define L1_LOG 10         /* DIF blocks of 2^10 elements (32 KiB) stay in L1 */
#define BR_B 4            /* bit reversal tiles of 2^4 × 2^4 elements */
#define CHUNK 4096        /* elements per task in pointwise passes */
#define MAX_SLOTS 64

/* ---------- Fr arithmetic for the butterflies ----------
 * Additions inline here (same results as field.c: Montgomery, fully reduced; r's top limb is below
 * 2^63 - 1, so a + b never carries out of 256 bits); the product is the field's own (f_mul below). */
static const uint64_t FR_P[4] = ZP_C64_FR_P;   /* zp_consts.h, generated: constant-folded */
#define P0 FR_P[0]
#define P1 FR_P[1]
#define P2 FR_P[2]
#define P3 FR_P[3]

INLINE void cond_sub(uint64_t *o, uint64_t t0, uint64_t t1, uint64_t t2, uint64_t t3)
{
	unsigned long long s0, s1, s2, s3;
	unsigned char b;
	b = _subborrow_u64(0, t0, P0, &s0);
	b = _subborrow_u64(b, t1, P1, &s1);
	b = _subborrow_u64(b, t2, P2, &s2);
	b = _subborrow_u64(b, t3, P3, &s3);
	uint64_t keep = (uint64_t)0 - b;   /* all ones if t < r */
	o[0] = (t0 & keep) | (s0 & ~keep);
	o[1] = (t1 & keep) | (s1 & ~keep);
	o[2] = (t2 & keep) | (s2 & ~keep);
	o[3] = (t3 & keep) | (s3 & ~keep);
}

INLINE void f_add(zp_fr *r, const zp_fr *a, const zp_fr *b)
{
	unsigned long long t0, t1, t2, t3;
	unsigned char c;
	c = _addcarry_u64(0, a->l[0], b->l[0], &t0);
	c = _addcarry_u64(c, a->l[1], b->l[1], &t1);
	c = _addcarry_u64(c, a->l[2], b->l[2], &t2);
	_addcarry_u64(c, a->l[3], b->l[3], &t3);
	cond_sub(r->l, t0, t1, t2, t3);
}

INLINE void f_sub(zp_fr *r, const zp_fr *a, const zp_fr *b)
{
	unsigned long long t0, t1, t2, t3, o0, o1, o2, o3;
	unsigned char c;
	c = _subborrow_u64(0, a->l[0], b->l[0], &t0);
	c = _subborrow_u64(c, a->l[1], b->l[1], &t1);
	c = _subborrow_u64(c, a->l[2], b->l[2], &t2);
	c = _subborrow_u64(c, a->l[3], b->l[3], &t3);
	uint64_t m = (uint64_t)0 - c;
	c = _addcarry_u64(0, t0, P0 & m, &o0);
	c = _addcarry_u64(c, t1, P1 & m, &o1);
	c = _addcarry_u64(c, t2, P2 & m, &o2);
	_addcarry_u64(c, t3, P3 & m, &o3);
	r->l[0] = o0; r->l[1] = o1; r->l[2] = o2; r->l[3] = o3;
}

/* The field's product (field_impl.h): MULX/ADX inline when the CPU has them, else field.c's portable
 * CIOS; one dispatch for the whole library (ZP_FIELD_PORTABLE=1 forces the portable path). */
INLINE void f_mul(zp_fr *r, const zp_fr *a, const zp_fr *b)
{
	zp_fr_mul_fast(r, a, b);
}

/* base^e for a public exponent e. */
static void pow_u64(zp_fr *r, const zp_fr *base, uint64_t e)
{
	zp_fr acc = ZP_FR_ONE, b = *base;
	while (e) {
		if (e & 1)
			f_mul(&acc, &acc, &b);
		f_mul(&b, &b, &b);
		e >>= 1;
	}
	*r = acc;
}

static inline size_t rev_bits(size_t x, unsigned bits)
{
	uint64_t v = x;
	v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
	v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
	v = ((v >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((v & 0x0f0f0f0f0f0f0f0fULL) << 4);
	v = __builtin_bswap64(v);
	return bits ? (size_t)(v >> (64 - bits)) : 0;
}

/* ---------- roots and domain ---------- */

int zp_ntt_root(zp_fr *w, unsigned k, enum zp_ntt_roots roots)
{
	static const uint64_t w5[4] = ZP_NTT_OMEGA32_ROOT5, w7[4] = ZP_NTT_OMEGA32_ROOT7;
	if (k > 32 || (roots != ZP_NTT_ROOT5 && roots != ZP_NTT_ROOT7))
		return ZP_ERANGE;
	zp_fr_to_mont(w, roots == ZP_NTT_ROOT5 ? w5 : w7);
	for (unsigned i = k; i < 32; i++)
		f_mul(w, w, w);
	return 0;
}

static void split(unsigned log_n, unsigned *log_rows, unsigned *log_cols)
{
	*log_rows = log_n <= SMALL_LOG ? 0 : log_n / 2;
	*log_cols = log_n - *log_rows;
}

static unsigned slot_count(unsigned nslots)
{
	if (nslots == 0)
		nslots = (unsigned)zp_par_threads();
	if (nslots < 1)
		nslots = 1;
	return nslots > MAX_SLOTS ? MAX_SLOTS : nslots;
}

/* Elements: 2 DIF tables of R-1 and C-1, 2 row-step tables of R, slots of R·COL_W (none when R = 1). */
static size_t domain_elems(unsigned log_n, unsigned nslots, size_t *slot_elems)
{
	unsigned lr, lc;
	split(log_n, &lr, &lc);
	size_t R = (size_t)1 << lr, C = (size_t)1 << lc;
	*slot_elems = R > 1 ? R * COL_W : 0;
	return 2 * (R - 1) + 2 * (C - 1) + 2 * R + (size_t)slot_count(nslots) * *slot_elems;
}

size_t zp_ntt_domain_bytes(unsigned log_n, unsigned nslots)
{
	size_t se;
	if (log_n > ZP_NTT_MAX_LOG)
		return 0;
	return domain_elems(log_n, nslots, &se) * sizeof(zp_fr) + 64;
}

/* Per-level DIF twiddles for an m-point transform: level h (m/2, ..., 1) holds ω_{2h}^i, i < h, at t[h-1]. */
static void fill_dif_table(zp_fr *t, unsigned log_m, unsigned log_n, const zp_fr *w_n)
{
	for (unsigned lh = 0; lh < log_m; lh++) {
		size_t h = (size_t)1 << lh;
		zp_fr w = *w_n;   /* ω_{2h} = ω_n^(n / 2h) */
		for (unsigned i = lh + 1; i < log_n; i++)
			f_mul(&w, &w, &w);
		zp_fr *lv = t + h - 1;
		lv[0] = ZP_FR_ONE;
		for (size_t i = 1; i < h; i++)
			f_mul(&lv[i], &lv[i - 1], &w);
	}
}

int zp_ntt_domain_init_ex(zp_ntt_domain *d, unsigned log_n, enum zp_ntt_roots roots, unsigned nslots)
{
	memset(d, 0, sizeof(*d));
	if (log_n > ZP_NTT_MAX_LOG)
		return zp_err_set(ZP_ERANGE, "ntt: log_n %u above %d", log_n, ZP_NTT_MAX_LOG);
	int rc = zp_ntt_root(&d->omega, log_n, roots);
	if (rc < 0)
		return zp_err_set(rc, "ntt: unknown root family %d", (int)roots);
	zp_ntt_root(&d->omega_2n, log_n + 1, roots);
	zp_fr_inv(&d->omega_inv, &d->omega);
	zp_fr nf;
	zp_fr_from_u64(&nf, (uint64_t)1 << log_n);
	zp_fr_inv(&d->n_inv, &nf);
	zp_fr_from_u64(&d->gen, ZP_NTT_SHIFT_GEN);
	zp_fr_inv(&d->gen_inv, &d->gen);
	d->log_n = log_n;
	d->n = (size_t)1 << log_n;
	d->roots = roots;
	split(log_n, &d->log_rows, &d->log_cols);
	d->nslots = slot_count(nslots);

	size_t total = domain_elems(log_n, nslots, &d->slot_elems);
	d->mem_bytes = total * sizeof(zp_fr);
	d->mem = aligned_alloc(64, (d->mem_bytes + 63) & ~(size_t)63);
	if (!d->mem) {
		memset(d, 0, sizeof(*d));
		return zp_err_set(-ENOMEM, "ntt: domain 2^%u: %zu bytes", log_n, total * sizeof(zp_fr));
	}
	size_t R = (size_t)1 << d->log_rows, C = (size_t)1 << d->log_cols;
	zp_fr *p = d->mem;
	for (int dir = 0; dir < 2; dir++) {
		const zp_fr *w = dir == FWD ? &d->omega : &d->omega_inv;
		d->tw_rows[dir] = p; p += R - 1;
		d->tw_cols[dir] = p; p += C - 1;
		d->row_step[dir] = p; p += R;
		fill_dif_table(d->tw_rows[dir], d->log_rows, log_n, w);
		fill_dif_table(d->tw_cols[dir], d->log_cols, log_n, w);
		d->row_step[dir][0] = ZP_FR_ONE;
		for (size_t k = 1; k < R; k++)
			f_mul(&d->row_step[dir][k], &d->row_step[dir][k - 1], w);
	}
	d->slots = d->slot_elems ? p : NULL;
	return 0;
}

int zp_ntt_domain_init(zp_ntt_domain *d, unsigned log_n)
{
	return zp_ntt_domain_init_ex(d, log_n, ZP_NTT_ROOT5, 0);
}

void zp_ntt_domain_free(zp_ntt_domain *d)
{
	free(d->mem);
	memset(d, 0, sizeof(*d));
}

/* ---------- DIF sub-transforms (natural in, bit-reversed out) ---------- */

INLINE void bfly(zp_fr *x, zp_fr *y, const zp_fr *w)
{
	zp_fr u = *x, v = *y;
	f_add(x, &u, &v);
	f_sub(&v, &u, &v);
	f_mul(y, &v, w);
}

INLINE void bfly1(zp_fr *x, zp_fr *y)
{
	zp_fr u = *x, v = *y;
	f_add(x, &u, &v);
	f_sub(y, &u, &v);
}

/* One DIF level with half-size h over a[0..m). */
static void dif_level(zp_fr *a, size_t m, size_t h, const zp_fr *tw)
{
	const zp_fr *t = tw + h - 1;
	for (size_t s = 0; s < m; s += 2 * h) {
		bfly1(&a[s], &a[s + h]);
		for (size_t i = 1; i < h; i++)
			bfly(&a[s + i], &a[s + i + h], &t[i]);
	}
}

/* Depth-first once a block fits in L1, breadth-first above. */
static void dif(zp_fr *a, unsigned log_m, const zp_fr *tw)
{
	size_t m = (size_t)1 << log_m;
	if (log_m == 0)
		return;
	if (log_m > L1_LOG) {
		dif_level(a, m, m / 2, tw);
		dif(a, log_m - 1, tw);
		dif(a + m / 2, log_m - 1, tw);
		return;
	}
	for (size_t h = m / 2; h >= 2; h /= 2)
		dif_level(a, m, h, tw);
	for (size_t s = 0; s < m; s += 2)
		bfly1(&a[s], &a[s + 1]);
}

/* ---------- the three passes ---------- */

struct xform {
	zp_ntt_domain *d;
	zp_fr *a;
	int dir;
	bool coset;          /* forward only: scale a_j by shift^j on the way in */
	zp_fr shift;
	zp_fr shift_c;       /* shift^C */
	atomic_size_t next;  /* column blocks handed out */
	size_t nblocks;
};

/* Step (1) on columns [c0, c0 + COL_W) through buf. */
static void column_block(struct xform *x, zp_fr *buf, size_t c0)
{
	const zp_ntt_domain *d = x->d;
	size_t R = (size_t)1 << d->log_rows, C = (size_t)1 << d->log_cols;
	zp_fr *a = x->a;
	if (x->coset) {
		zp_fr p[COL_W];
		pow_u64(&p[0], &x->shift, c0);
		for (int w = 1; w < COL_W; w++)
			f_mul(&p[w], &p[w - 1], &x->shift);
		for (size_t j = 0; j < R; j++)
			for (int w = 0; w < COL_W; w++) {
				f_mul(&buf[w * R + j], &a[j * C + c0 + w], &p[w]);
				f_mul(&p[w], &p[w], &x->shift_c);
			}
	} else {
		for (size_t j = 0; j < R; j++)
			for (int w = 0; w < COL_W; w++)
				buf[w * R + j] = a[j * C + c0 + w];
	}
	for (int w = 0; w < COL_W; w++)
		dif(buf + w * R, d->log_rows, d->tw_rows[x->dir]);
	for (size_t j = 0; j < R; j++)
		for (int w = 0; w < COL_W; w++)
			a[j * C + c0 + w] = buf[w * R + j];
}

static void column_task(void *ctx, size_t slot, int worker)
{
	struct xform *x = ctx;
	zp_fr *buf = x->d->slots + slot * x->d->slot_elems;
	for (;;) {
		size_t b = atomic_fetch_add_explicit(&x->next, 1, memory_order_relaxed);
		if (b >= x->nblocks)
			return;
		column_block(x, buf, b * COL_W);
	}
}

/* Step (2) on row r: multiply element j by p0·step^j, then the C-point DIF. */
static void row_task(void *ctx, size_t r, int worker)
{
	struct xform *x = ctx;
	const zp_ntt_domain *d = x->d;
	size_t C = (size_t)1 << d->log_cols;
	zp_fr *row = x->a + r * C;
	zp_fr p = x->dir == INV ? d->n_inv : ZP_FR_ONE, step;
	bool scale = x->dir == INV;
	if (d->log_rows > 0) {
		step = d->row_step[x->dir][rev_bits(r, d->log_rows)];
		scale = scale || r != 0;
	} else {
		step = x->coset ? x->shift : ZP_FR_ONE;
		scale = scale || x->coset;
	}
	if (scale)
		for (size_t j = 0; j < C; j++) {
			f_mul(&row[j], &row[j], &p);
			f_mul(&p, &p, &step);
		}
	dif(row, d->log_cols, d->tw_cols[x->dir]);
}

struct brev {
	zp_fr *a;
	unsigned log_n;
};

INLINE void swap_fr(zp_fr *x, zp_fr *y)
{
	zp_fr t = *x;
	*x = *y;
	*y = t;
}

/* Step (3): tiles of mid values [t·64, t·64 + 64); index = hi(B) | mid | lo(B). */
static void brev_task(void *ctx, size_t t, int worker)
{
	struct brev *b = ctx;
	unsigned L = b->log_n, M = L - 2 * BR_B;
	size_t mend = (t + 1) * 64, nmid = (size_t)1 << M;
	if (mend > nmid)
		mend = nmid;
	for (size_t m = t * 64; m < mend; m++) {
		size_t mr = rev_bits(m, M);
		if (mr < m)
			continue;
		for (size_t h = 0; h < (1u << BR_B); h++) {
			size_t rh = rev_bits(h, BR_B);
			for (size_t l = 0; l < (1u << BR_B); l++) {
				size_t i = (h << (L - BR_B)) | (m << BR_B) | l;
				size_t j = (rev_bits(l, BR_B) << (L - BR_B)) | (mr << BR_B) | rh;
				if (m < mr || i < j)   /* mid pair (m, mr) is this task's alone */
					swap_fr(&b->a[i], &b->a[j]);
			}
		}
	}
}

static void bit_reverse(zp_fr *a, unsigned log_n)
{
	if (log_n < 2 * BR_B + 6) {
		size_t n = (size_t)1 << log_n;
		for (size_t i = 0; i < n; i++) {
			size_t j = rev_bits(i, log_n);
			if (i < j)
				swap_fr(&a[i], &a[j]);
		}
		return;
	}
	struct brev b = { .a = a, .log_n = log_n };
	zp_par_for(((size_t)1 << (log_n - 2 * BR_B)) / 64, brev_task, &b);
}

static int transform(zp_ntt_domain *d, zp_fr *a, int dir, const zp_fr *shift)
{
	if (!d->mem)
		return zp_err_set(ZP_ERANGE, "ntt: domain not initialized");
	struct xform x = { .d = d, .a = a, .dir = dir, .coset = shift != NULL };
	if (shift) {
		x.shift = *shift;
		pow_u64(&x.shift_c, shift, (uint64_t)1 << d->log_cols);
	}
	if (d->log_rows > 0) {
		size_t C = (size_t)1 << d->log_cols;
		x.nblocks = C / COL_W;
		atomic_init(&x.next, 0);
		zp_par_for(x.nblocks < d->nslots ? x.nblocks : d->nslots, column_task, &x);
	}
	zp_par_for((size_t)1 << d->log_rows, row_task, &x);
	bit_reverse(a, d->log_n);
	return 0;
}

/* ---------- pointwise passes ---------- */

struct scale {
	zp_fr *a;
	size_t n;
	zp_fr s;
};

static void scale_task(void *ctx, size_t t, int worker)
{
	struct scale *c = ctx;
	size_t lo = t * CHUNK, hi = lo + CHUNK < c->n ? lo + CHUNK : c->n;
	zp_fr p;
	pow_u64(&p, &c->s, lo);
	for (size_t j = lo; j < hi; j++) {
		f_mul(&c->a[j], &c->a[j], &p);
		f_mul(&p, &p, &c->s);
	}
}

/* a_j *= s^j */
static void scale_powers(zp_fr *a, size_t n, const zp_fr *s)
{
	struct scale c = { .a = a, .n = n, .s = *s };
	zp_par_for((n + CHUNK - 1) / CHUNK, scale_task, &c);
}

static bool nonzero(const zp_fr *s) { return !zp_fr_is_zero(s); }

int zp_ntt_forward(zp_ntt_domain *d, zp_fr *a) { return transform(d, a, FWD, NULL); }
int zp_ntt_inverse(zp_ntt_domain *d, zp_fr *a) { return transform(d, a, INV, NULL); }

int zp_ntt_coset_forward(zp_ntt_domain *d, zp_fr *a, const zp_fr *shift)
{
	if (!nonzero(shift))
		return zp_err_set(ZP_ERANGE, "ntt: coset shift is zero");
	return transform(d, a, FWD, shift);
}

int zp_ntt_coset_inverse(zp_ntt_domain *d, zp_fr *a, const zp_fr *shift)
{
	if (!nonzero(shift))
		return zp_err_set(ZP_ERANGE, "ntt: coset shift is zero");
	int rc = transform(d, a, INV, NULL);
	if (rc < 0)
		return rc;
	zp_fr sinv;
	zp_fr_inv(&sinv, shift);
	scale_powers(a, d->n, &sinv);
	return 0;
}

int zp_ntt_coset_forward_gen(zp_ntt_domain *d, zp_fr *a) { return zp_ntt_coset_forward(d, a, &d->gen); }
int zp_ntt_coset_inverse_gen(zp_ntt_domain *d, zp_fr *a) { return zp_ntt_coset_inverse(d, a, &d->gen); }
int zp_ntt_coset_forward_odd(zp_ntt_domain *d, zp_fr *a) { return zp_ntt_coset_forward(d, a, &d->omega_2n); }
int zp_ntt_coset_inverse_odd(zp_ntt_domain *d, zp_fr *a) { return zp_ntt_coset_inverse(d, a, &d->omega_2n); }

/* ---------- Groth16 H ---------- */

struct abc {
	zp_fr *a;
	const zp_fr *b, *c;
	size_t n;
	zp_fr k;       /* multiplier of (ab - c) */
	bool mulk;
};

static void abc_task(void *ctx, size_t t, int worker)
{
	struct abc *x = ctx;
	size_t lo = t * CHUNK, hi = lo + CHUNK < x->n ? lo + CHUNK : x->n;
	for (size_t j = lo; j < hi; j++) {
		zp_fr v;
		f_mul(&v, &x->a[j], &x->b[j]);
		f_sub(&x->a[j], &v, &x->c[j]);
		if (x->mulk)
			f_mul(&x->a[j], &x->a[j], &x->k);
	}
}

/* a <- (a∘b - c)·k (k NULL: 1) */
static void combine(zp_fr *a, const zp_fr *b, const zp_fr *c, size_t n, const zp_fr *k)
{
	struct abc x = { .a = a, .b = b, .c = c, .n = n, .mulk = k != NULL };
	if (k)
		x.k = *k;
	zp_par_for((n + CHUNK - 1) / CHUNK, abc_task, &x);
}

/* Evaluations on the domain -> evaluations on shift·domain. */
static int to_coset(zp_ntt_domain *d, zp_fr *v, const zp_fr *shift)
{
	int rc = transform(d, v, INV, NULL);
	return rc < 0 ? rc : transform(d, v, FWD, shift);
}

int zp_ntt_h_snarkjs(zp_ntt_domain *d, zp_fr *a, zp_fr *b, zp_fr *c)
{
	zp_fr *v[3] = { a, b, c };
	for (int i = 0; i < 3; i++) {
		int rc = to_coset(d, v[i], &d->omega_2n);
		if (rc < 0)
			return rc;
	}
	combine(a, b, c, d->n, NULL);
	return 0;
}

int zp_ntt_h_bellperson(zp_ntt_domain *d, zp_fr *a, zp_fr *b, zp_fr *c)
{
	if (!d->mem)
		return zp_err_set(ZP_ERANGE, "ntt: domain not initialized");
	zp_fr z, zinv;
	pow_u64(&z, &d->gen, d->n);
	f_sub(&z, &z, &ZP_FR_ONE);
	if (zp_fr_is_zero(&z))
		return zp_err_set(ZP_ERANGE, "ntt: Z(g) = 0 for n = %zu", d->n);
	zp_fr_inv(&zinv, &z);
	zp_fr *v[3] = { a, b, c };
	for (int i = 0; i < 3; i++) {
		int rc = to_coset(d, v[i], &d->gen);
		if (rc < 0)
			return rc;
	}
	combine(a, b, c, d->n, &zinv);
	return zp_ntt_coset_inverse(d, a, &d->gen);
}
