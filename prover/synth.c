/*
 * synth.c — synthetic PoRep-shaped circuits (see synth.h for the construction).
 *
 * Every row is generated from its own counter-based random stream (splitmix64 of seed and
 * row), so rows can be built in any order on any thread and twice (count pass, fill pass)
 * with the same result. A row's kind is a separate hash of (seed, row) so that any row can
 * ask "is row j a FREE row?" in O(1) when it picks operands.
 */
#include "synth.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lc_fast.h"
#include "par.h"
#include "zp_err.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

enum { K_FREE, K_AND, K_XOR, K_FIELD };
#define MAXT ZP_SYNTH_MAXT    /* terms per row and matrix (synth_spec.h) */
#define ROWS_PER_TASK 8192
#define COEF_NEG1 (-1)      /* coefficient codes: c >= 0 means 2^c, -1 means −1 */

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

struct rg { uint64_t s; };

static inline uint64_t rg_next(struct rg *g)
{
	g->s += 0x9e3779b97f4a7c15ULL;
	return mix64(g->s);
}

/* A mean m as "floor(m) terms, one more with probability frac(m)". */
struct count { uint32_t base; uint64_t extra; };

struct plan {
	uint32_t n, p, win, gen;
	uint64_t kseed, rseed;
	uint64_t t_free, t_and, t_xor;       /* kind thresholds over 2^64 */
	uint64_t t_pub;                      /* FIELD operand is a public input below this (of 2^64) */
	struct count ka, kb, kc;             /* FIELD rows */
};

static struct count mk_count(double m)
{
	if (m < 0)
		m = 0;
	if (m > MAXT - 1)
		m = MAXT - 1;
	double f = floor(m);
	return (struct count){ (uint32_t)f, (uint64_t)((m - f) * 18446744073709551615.0) };
}

static uint64_t frac64(double x)
{
	return x <= 0 ? 0 : x >= 1 ? UINT64_MAX : (uint64_t)(x * 18446744073709551615.0);
}

static void make_plan(struct plan *pl, const zp_synth_params *p)
{
	double beta = p->bool_share, phi = p->free_share;
	/* bit rows: A 1, B 1, C 1 (FREE, AND) or 3 (XOR); pick the XOR share so bit rows alone
	 * average nnz_c where they can, then FIELD rows make up every average */
	double chi = phi < 1 ? (p->nnz_c - 1) / (2 * (1 - phi)) : 0;
	chi = chi < 0 ? 0 : chi > 1 ? 1 : chi;
	double cbit = 1 + 2 * chi * (1 - phi);
	memset(pl, 0, sizeof(*pl));
	pl->n = p->n_constraints;
	pl->p = p->n_public;
	pl->win = p->window;
	pl->gen = p->gen;
	pl->kseed = mix64(p->seed ^ 0x6b696e64ULL);
	pl->rseed = mix64(p->seed ^ 0x726f7773ULL);
	pl->t_free = frac64(beta * phi);
	pl->t_and = frac64(beta * phi + beta * (1 - phi) * (1 - chi));
	pl->t_xor = frac64(beta);
	pl->t_pub = p->n_public ? frac64(0.02) : 0;
	double nf = 1 - beta;
	pl->ka = mk_count(nf > 0 ? (p->nnz_a - beta) / nf : 0);
	pl->kb = mk_count(nf > 0 ? (p->nnz_b - beta) / nf : 0);
	double kc = nf > 0 ? (p->nnz_c - beta * cbit) / nf : 1;
	pl->kc = mk_count(kc < 1 ? 1 : kc);
}

static inline int kind_of(const struct plan *pl, uint64_t row)
{
	uint64_t u = mix64(pl->kseed ^ ((row + 1) * 0xd1b54a32d192ed03ULL));
	return u < pl->t_free ? K_FREE : u < pl->t_and ? K_AND : u < pl->t_xor ? K_XOR : K_FIELD;
}

static inline uint32_t wire_of_row(const struct plan *pl, uint64_t row)
{
	return 1 + pl->p + (uint32_t)row;
}

/* A level-0 wire near row: a FREE row's bit (a few tries), a public input (FIELD rows,
 * sometimes), else ONE. */
static uint32_t pick_l0(const struct plan *pl, struct rg *g, uint32_t row, int allow_pub)
{
	if (allow_pub && rg_next(g) < pl->t_pub)
		return 1 + (uint32_t)(rg_next(g) % pl->p);
	uint64_t span = 2 * (uint64_t)pl->win;
	for (int t = 0; t < 16; t++) {
		int64_t j = (int64_t)row - pl->win + (int64_t)(rg_next(g) % span);
		if (j < 0)
			j = -j;
		if (j >= pl->n)
			j = 2 * (int64_t)pl->n - 2 - j;
		if (j >= 0 && (uint64_t)j != row && kind_of(pl, (uint64_t)j) == K_FREE)
			return wire_of_row(pl, (uint64_t)j);
	}
	return 0;
}

struct terms { uint32_t n; uint32_t col[MAXT]; int16_t code[MAXT]; };
struct row { struct terms m[3]; };

static int has_col(const struct terms *t, uint32_t c)
{
	for (uint32_t i = 0; i < t->n; i++)
		if (t->col[i] == c)
			return 1;
	return 0;
}

static void put(struct terms *t, uint32_t col, int code)
{
	t->col[t->n] = col;
	t->code[t->n++] = (int16_t)code;
}

static uint32_t draw_count(struct rg *g, struct count c)
{
	return c.base + (rg_next(g) < c.extra);
}

static int draw_coef(struct rg *g)
{
	uint64_t u = rg_next(g);
	if ((u & 7) < 4)
		return 0;                     /* 1 */
	if ((u & 7) == 4)
		return COEF_NEG1;
	return 1 + (int)((u >> 8) % 252); /* 2^1 .. 2^252 */
}

/* k distinct level-0 operands with random coefficients (a term is dropped after 4 clashes) */
static void fill_field(const struct plan *pl, struct rg *g, struct terms *t, uint32_t row, uint32_t k)
{
	for (uint32_t i = 0; i < k && t->n < MAXT; i++)
		for (int tries = 0; tries < 4; tries++) {
			uint32_t c = pick_l0(pl, g, row, 1);
			if (!has_col(t, c)) {
				put(t, c, draw_coef(g));
				break;
			}
		}
}

static void sort_terms(struct terms *t)
{
	for (uint32_t i = 1; i < t->n; i++) {
		uint32_t c = t->col[i];
		int16_t k = t->code[i];
		uint32_t j = i;
		for (; j > 0 && t->col[j - 1] > c; j--) {
			t->col[j] = t->col[j - 1];
			t->code[j] = t->code[j - 1];
		}
		t->col[j] = c;
		t->code[j] = k;
	}
}

/* Row r of A, B, C (r < domain). */
static void gen_row(const struct plan *pl, uint32_t r, struct row *out)
{
	for (int m = 0; m < 3; m++)
		out->m[m].n = 0;
	if (r >= pl->n) {
		if (r - pl->n <= pl->p)
			put(&out->m[0], r - pl->n, 0);   /* public-input binding row */
		return;
	}
	struct rg g = { pl->rseed ^ ((uint64_t)r * 0xa0761d6478bd642fULL) };
	uint32_t z = wire_of_row(pl, r), x, y;
	int kind = kind_of(pl, r);
	switch (kind) {
	case K_FREE:
		put(&out->m[0], z, 0);
		put(&out->m[1], z, 0);
		put(&out->m[2], z, 0);
		break;
	case K_AND:
	case K_XOR:
		x = pick_l0(pl, &g, r, 0);
		y = pick_l0(pl, &g, r, 0);
		if (x == y)
			kind = K_AND;   /* x∧x = x: still a bit, and no repeated column in C */
		put(&out->m[0], x, kind == K_XOR ? 1 : 0);
		put(&out->m[1], y, 0);
		if (kind == K_XOR) {
			put(&out->m[2], x, 0);
			put(&out->m[2], y, 0);
			put(&out->m[2], z, COEF_NEG1);
		} else {
			put(&out->m[2], z, 0);
		}
		break;
	default:
		fill_field(pl, &g, &out->m[0], r, draw_count(&g, pl->ka));
		fill_field(pl, &g, &out->m[1], r, draw_count(&g, pl->kb));
		if (pl->gen >= 2) {
			/* 2^k·ONE in C: z = κ·(a·b − c) is a field element (a bit only when a·b − c happens to
			 * be 2^k + {0, 1}); it takes one of the kC − 1 drawn terms' places (kC ≥ 2 for the
			 * PoRep shape: the averages stay), one more term only where kC = 1 */
			uint32_t k = draw_count(&g, pl->kc);
			put(&out->m[2], 0, 1 + (int)((rg_next(&g) >> 8) % 252));
			fill_field(pl, &g, &out->m[2], r, k >= 2 ? k - 2 : 0);
		} else {
			fill_field(pl, &g, &out->m[2], r, draw_count(&g, pl->kc) - 1);
		}
		put(&out->m[2], z, 0);
		break;
	}
	for (int m = 0; m < 3; m++)
		sort_terms(&out->m[m]);
}

struct build_ctx { const struct plan *pl; zp_circuit *c; int fill; };

static void build_task(void *vctx, size_t t, int worker)
{
	struct build_ctx *b = vctx;
	struct row *rw = malloc(sizeof(*rw));
	if (!rw)
		abort();   /* 3 KiB per task: no memory at all left is not recoverable here */
	uint32_t r0 = (uint32_t)(t * ROWS_PER_TASK), r1 = r0 + ROWS_PER_TASK;
	if (r1 > b->c->domain_size)
		r1 = b->c->domain_size;
	for (uint32_t r = r0; r < r1; r++) {
		gen_row(b->pl, r, rw);
		for (int m = 0; m < 3; m++) {
			zp_csr *s = &b->c->m[m];
			const struct terms *tm = &rw->m[m];
			if (!b->fill) {
				s->row_ptr[r + 1] = tm->n;
				continue;
			}
			uint64_t at = s->row_ptr[r];
			for (uint32_t i = 0; i < tm->n; i++) {  /* codes only: no 32-byte values (circuit.h) */
				s->col[at + i] = tm->col[i];
				s->code[at + i] = tm->code[i] < 0 ? ZP_COEF_NEG1 : (uint8_t)tm->code[i];
			}
		}
	}
	free(rw);
}

uint64_t zp_synth_circuit_bytes(const zp_synth_params *p)
{
	uint32_t ds, lg;
	if (zp_domain_for((uint64_t)p->n_constraints + p->n_public + 1, &ds, &lg))
		return 0;
	double nnz = (p->nnz_a + p->nnz_b + p->nnz_c) * p->n_constraints + p->n_public + 1;
	return (uint64_t)(nnz * (sizeof(uint32_t) + 1)) + 3 * ((uint64_t)ds + 1) * sizeof(uint64_t);
}

int zp_synth_circuit(zp_circuit *c, const zp_synth_params *p)
{
	int rc;
	memset(c, 0, sizeof(*c));
	if ((rc = zp_synth_check(p)))
		return rc;
	struct plan *pl = malloc(sizeof(*pl));
	if (!pl)
		return zp_err_set(-ENOMEM, "synthetic circuit plan");
	make_plan(pl, p);
	c->n_vars = zp_synth_n_vars(p);
	c->n_public = p->n_public;
	c->n_constraints = p->n_constraints;
	c->has_c = true;
	zp_domain_for((uint64_t)p->n_constraints + p->n_public + 1, &c->domain_size, &c->log_domain);
	for (int m = 0; m < 3; m++) {
		c->m[m].rows = c->domain_size;
		c->m[m].cols = c->n_vars;
		if (!(c->m[m].row_ptr = calloc((size_t)c->domain_size + 1, sizeof(uint64_t)))) {
			rc = zp_err_set(-ENOMEM, "synthetic circuit: row pointers for 2^%u rows", c->log_domain);
			goto err;
		}
	}
	struct build_ctx b = { pl, c, 0 };
	size_t tasks = ((size_t)c->domain_size + ROWS_PER_TASK - 1) / ROWS_PER_TASK;
	zp_par_for(tasks, build_task, &b);
	for (int m = 0; m < 3; m++) {
		zp_csr *s = &c->m[m];
		for (uint32_t r = 0; r < s->rows; r++)
			s->row_ptr[r + 1] += s->row_ptr[r];
		s->nnz = s->row_ptr[s->rows];
		s->col = malloc((s->nnz ? s->nnz : 1) * sizeof(uint32_t));
		s->code = malloc(s->nnz ? s->nnz : 1);
		if (!s->col || !s->code) {
			rc = zp_err_set(-ENOMEM, "synthetic circuit: %" PRIu64 " non-zeros of %c", s->nnz, "ABC"[m]);
			goto err;
		}
	}
	b.fill = 1;
	zp_par_for(tasks, build_task, &b);
	if ((rc = zp_circuit_finish(c)))
		goto err;
	free(pl);
	return 0;
err:
	free(pl);
	zp_circuit_free(c);
	return rc;
}

/* ---- witness ---- */
struct wit_ctx {
	const struct plan *pl;
	const zp_circuit *c;
	zp_fr *w;
	uint64_t wseed;
	zp_fr *a, *b, *cc;
	int nt;           /* streaming stores for w, a, b, c */
	uint64_t *l0;     /* new pass: bit r = value of row r's output after level 0 (FREE bits, else 0) */
};

static inline int free_bit(const struct wit_ctx *x, uint32_t r)
{
	return kind_of(x->pl, r) == K_FREE && (mix64(x->wseed ^ ((uint64_t)r * 0x9e3779b97f4a7c15ULL)) & 1);
}

static void wit_publics(struct wit_ctx *x)
{
	x->w[0] = ZP_FR_ONE;
	for (uint32_t i = 1; i <= x->pl->p; i++) {
		zp_rng g;
		zp_rng_seed(&g, mix64(x->wseed ^ (0x7075620000000000ULL + i)));
		zp_fr_random(&x->w[i], &g);
	}
}

/* level 0 as bits only (ROWS_PER_TASK is a multiple of 64: tasks own whole words) */
static void wit_level0_bits(void *vctx, size_t t, int worker)
{
	struct wit_ctx *x = vctx;
	uint32_t r0 = (uint32_t)(t * ROWS_PER_TASK), r1 = r0 + ROWS_PER_TASK;
	if (r1 > x->pl->n)
		r1 = x->pl->n;
	if (t == 0)
		wit_publics(x);
	for (uint32_t r = r0; r < r1; r += 64) {
		uint64_t word = 0;
		for (uint32_t i = 0; i < 64 && r + i < r1; i++)
			word |= (uint64_t)free_bit(x, r + i) << i;
		x->l0[r / 64] = word;
	}
}


static void wit_level0(void *vctx, size_t t, int worker)
{
	struct wit_ctx *x = vctx;
	const struct plan *pl = x->pl;
	uint32_t r0 = (uint32_t)(t * ROWS_PER_TASK), r1 = r0 + ROWS_PER_TASK;
	if (r1 > pl->n)
		r1 = pl->n;
	if (t == 0)
		wit_publics(x);
	for (uint32_t r = r0; r < r1; r++) {
		zp_fr *z = &x->w[wire_of_row(pl, r)];
		if (free_bit(x, r))
			*z = ZP_FR_ONE;
		else
			*z = ZP_FR_ZERO;
	}
}

static void lc_row(const zp_csr *m, uint32_t r, const zp_fr *w, uint32_t skip, zp_fr *acc, zp_fr *skip_coef)
{
	*acc = ZP_FR_ZERO;
	for (uint64_t k = m->row_ptr[r]; k < m->row_ptr[r + 1]; k++) {
		if (m->col[k] == skip) {
			*skip_coef = *zp_csr_coef(m, k);
			continue;
		}
		zp_lc_term(acc, zp_csr_coef(m, k), &w[m->col[k]]);
	}
}

static void wit_outputs_ref(void *vctx, size_t t, int worker)
{
	struct wit_ctx *x = vctx;
	const struct plan *pl = x->pl;
	uint32_t r0 = (uint32_t)(t * ROWS_PER_TASK), r1 = r0 + ROWS_PER_TASK;
	if (r1 > pl->n)
		r1 = pl->n;
	for (uint32_t r = r0; r < r1; r++) {
		uint32_t z = wire_of_row(pl, r);
		if (kind_of(pl, r) == K_FREE) {      /* z·z = z */
			if (x->a)
				x->a[r] = x->b[r] = x->cc[r] = x->w[z];
			continue;
		}
		zp_fr a, b, c, kz = ZP_FR_ONE, ab;
		lc_row(&x->c->m[ZP_MAT_A], r, x->w, UINT32_MAX, &a, &kz);
		lc_row(&x->c->m[ZP_MAT_B], r, x->w, UINT32_MAX, &b, &kz);
		lc_row(&x->c->m[ZP_MAT_C], r, x->w, z, &c, &kz);
		/* a·b = c + κ·z with κ = ±1, so z = κ·(a·b − c) */
		zp_fr_mul(&ab, &a, &b);
		zp_fr_sub(&ab, &ab, &c);
		if (zp_fr_eq(&kz, &ZP_FR_ONE))
			x->w[z] = ab;
		else
			zp_fr_neg(&x->w[z], &ab);
		if (x->a) {                         /* C·w = c + κ·z = a·b */
			x->a[r] = a;
			x->b[r] = b;
			zp_fr_mul(&x->cc[r], &a, &b);
		}
	}
}

/* One row's sum over A, B or C with codes and a lazily reduced accumulator (lc_fast.h); the
 * column skip's code goes to *skip_code. Operands are level-0 wires (synth.h): ONE, a public
 * input (read from w) or a row output whose level-0 value is a bit of x->l0 — 16 KiB of bits
 * cover a ±65536-row window, where the same window of w is 4 MiB of cache misses. */
static inline void lc_row_fast(const struct wit_ctx *x, const zp_csr *m, uint32_t r, uint32_t skip, zp_fr *out,
			       unsigned *skip_code, const zp_fr *tab)
{
	uint64_t acc[4] = { 0, 0, 0, 0 };
	const uint32_t base = 1 + x->pl->p;
	for (uint64_t k = m->row_ptr[r], e = m->row_ptr[r + 1]; k < e; k++) {
		uint32_t col = m->col[k];
		unsigned code = m->code[k];
		if (col == skip) {
			*skip_code = code;
			continue;
		}
		const zp_fr *coef = code == ZP_COEF_OTHER ? &m->val[k] : &tab[code];  /* never OTHER without val */
		if (__builtin_expect(col >= base, 1)) {
			uint32_t i = col - base;
			zp_lc_add_masked(acc, coef->l, -((x->l0[i / 64] >> (i % 64)) & 1));
		} else if (col == 0) {
			zp_lc_add(acc, coef->l);
		} else {
			zp_lc_term_code(acc, code, m->val, k, &x->w[col], tab);
		}
	}
	zp_lc_final(out, acc);
}

/* a, b, c are written once and read much later (by the GPU upload): streaming stores keep them
 * out of the cache that w's windowed reads need. */
static inline void put_fr(zp_fr *dst, const zp_fr *v, int nt)
{
#if defined(__x86_64__)
	if (nt) {
		long long *d = (long long *)dst;
		_mm_stream_si64(d, (long long)v->l[0]);
		_mm_stream_si64(d + 1, (long long)v->l[1]);
		_mm_stream_si64(d + 2, (long long)v->l[2]);
		_mm_stream_si64(d + 3, (long long)v->l[3]);
		return;
	}
#endif
	(void)nt;
	*dst = *v;
}

static void wit_outputs(void *vctx, size_t t, int worker)
{
	struct wit_ctx *x = vctx;
	const struct plan *pl = x->pl;
	const zp_fr *tab = zp_coef_values();
	const zp_csr *ma = &x->c->m[ZP_MAT_A], *mb = &x->c->m[ZP_MAT_B], *mc = &x->c->m[ZP_MAT_C];
	uint32_t r0 = (uint32_t)(t * ROWS_PER_TASK), r1 = r0 + ROWS_PER_TASK;
	int nt = x->nt;
	if (r1 > pl->n)
		r1 = pl->n;
	for (uint32_t r = r0; r < r1; r++) {
		uint32_t z = wire_of_row(pl, r);
		if (kind_of(pl, r) == K_FREE) {      /* z·z = z */
			const zp_fr *v = (x->l0[r / 64] >> (r % 64)) & 1 ? &ZP_FR_ONE : &ZP_FR_ZERO;
			put_fr(&x->w[z], v, nt);
			if (x->a) {
				put_fr(&x->a[r], v, nt);
				put_fr(&x->b[r], v, nt);
				put_fr(&x->cc[r], v, nt);
			}
			continue;
		}
		zp_fr a, b, c, ab, wz;
		unsigned kz = ZP_COEF_ONE;
		lc_row_fast(x, ma, r, UINT32_MAX, &a, &kz, tab);
		lc_row_fast(x, mb, r, UINT32_MAX, &b, &kz, tab);
		kz = ZP_COEF_ONE;
		lc_row_fast(x, mc, r, z, &c, &kz, tab);
		/* a·b = c + κ·z with κ = ±1, so z = κ·(a·b − c) */
		zp_lc_mul(&ab, &a, &b);
		if (kz == ZP_COEF_ONE)
			zp_fr_sub(&wz, &ab, &c);
		else
			zp_fr_sub(&wz, &c, &ab);        /* −(ab − c) */
		put_fr(&x->w[z], &wz, nt);
		if (x->a) {                         /* C·w = c + κ·z = a·b */
			put_fr(&x->a[r], &a, nt);
			put_fr(&x->b[r], &b, nt);
			put_fr(&x->cc[r], &ab, nt);
		}
	}
#if defined(__x86_64__)
	if (nt)
		_mm_sfence();
#endif
}

int zp_synth_witness(zp_fr *w, const zp_circuit *c, const zp_synth_params *p, uint64_t wseed)
{
	return zp_synth_witness_abc(w, NULL, NULL, NULL, c, p, wseed);
}

static int witness_abc(zp_fr *w, zp_fr *a, zp_fr *b, zp_fr *cc, const zp_circuit *c, const zp_synth_params *p,
		       uint64_t wseed, int ref)
{
	int rc;
	if ((rc = zp_synth_check(p)))
		return rc;
	if (c->n_vars != zp_synth_n_vars(p) || c->n_constraints != p->n_constraints || !c->has_c)
		return zp_err_set(ZP_EMISMATCH, "synthetic witness: the circuit (%u wires, %u constraints) was not "
				  "built from these parameters", c->n_vars, c->n_constraints);
	struct plan *pl = malloc(sizeof(*pl));
	if (!pl)
		return zp_err_set(-ENOMEM, "synthetic witness");
	make_plan(pl, p);
	struct wit_ctx x = { pl, c, w, mix64(wseed ^ 0x77746e73ULL), a, b, cc, 0, NULL };
	size_t tasks = ((size_t)p->n_constraints + ROWS_PER_TASK - 1) / ROWS_PER_TASK;
	int fast = !ref && c->m[0].code && c->m[1].code && c->m[2].code;
	if (fast && !(x.l0 = malloc(tasks * (ROWS_PER_TASK / 8)))) {
		free(pl);
		return zp_err_set(-ENOMEM, "synthetic witness: level-0 bits");
	}
	x.nt = !(((uintptr_t)w | (uintptr_t)a | (uintptr_t)b | (uintptr_t)cc) & 7);
	if (fast) {
		zp_par_for(tasks, wit_level0_bits, &x);
		zp_par_for(tasks, wit_outputs, &x);
	} else {
		zp_par_for(tasks, wit_level0, &x);
		zp_par_for(tasks, wit_outputs_ref, &x);
	}
	free(x.l0);
	free(pl);
	if (a) { /* the public-input binding rows A[n + s][s] = 1, then zero padding */
		size_t n = p->n_constraints, d = c->domain_size;
		for (size_t s = 0; s <= p->n_public; s++) {
			a[n + s] = w[s];
			b[n + s] = cc[n + s] = ZP_FR_ZERO;
		}
		size_t z0 = n + p->n_public + 1;
		memset(a + z0, 0, (d - z0) * sizeof(zp_fr));
		memset(b + z0, 0, (d - z0) * sizeof(zp_fr));
		memset(cc + z0, 0, (d - z0) * sizeof(zp_fr));
	}
	return 0;
}

int zp_synth_witness_abc(zp_fr *w, zp_fr *a, zp_fr *b, zp_fr *cc, const zp_circuit *c, const zp_synth_params *p,
			 uint64_t wseed)
{
	return witness_abc(w, a, b, cc, c, p, wseed, 0);
}

int zp_synth_witness_abc_ref(zp_fr *w, zp_fr *a, zp_fr *b, zp_fr *cc, const zp_circuit *c, const zp_synth_params *p,
			     uint64_t wseed)
{
	return witness_abc(w, a, b, cc, c, p, wseed, 1);
}

