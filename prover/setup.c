/*
 * setup.c — development Groth16 setup (contract and formulas in setup.h).
 */
#include "setup_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ntt.h"
#include "par.h"
#include "progress.h"
#include "zp_err.h"

#define BLK 1024   /* points per task */

/* ---- fixed-base tables: t[k·(2^w−1) + d−1] = d·2^(w·k)·G ---- */
#define FB_DEFINE(G, AFF, JAC)                                                                     \
	typedef struct { int w, nwin; AFF *t; } fb_##G;                                            \
	struct fbb_##G { fb_##G *tb; const AFF *gen; };                                            \
	static void fb_##G##_win(void *vctx, size_t k, int worker)                                 \
	{                                                                                          \
		struct fbb_##G *c = vctx;                                                          \
		size_t m = ((size_t)1 << c->tb->w) - 1;                                            \
		JAC base, *row = malloc(m * sizeof(JAC));                                          \
		if (!row)                                                                          \
			abort();                                                                   \
		zp_##G##_jac_from_affine(&base, c->gen);                                           \
		for (size_t i = 0; i < (size_t)c->tb->w * k; i++)                                  \
			zp_##G##_jac_dbl(&base, &base);                                            \
		row[0] = base;                                                                     \
		for (size_t d = 1; d < m; d++)                                                     \
			zp_##G##_jac_add(&row[d], &row[d - 1], &base);                             \
		zp_##G##_jac_batch_to_affine(c->tb->t + k * m, row, m);                            \
		free(row);                                                                         \
	}                                                                                          \
	static int fb_##G##_init(fb_##G *tb, const AFF *gen, int w)                                \
	{                                                                                          \
		tb->w = w;                                                                         \
		tb->nwin = (255 + w - 1) / w;                                                      \
		tb->t = malloc((size_t)tb->nwin * (((size_t)1 << w) - 1) * sizeof(AFF));           \
		if (!tb->t)                                                                        \
			return zp_err_set(-ENOMEM, "setup: fixed-base table, %d-bit windows", w);  \
		struct fbb_##G c = { tb, gen };                                                    \
		zp_par_for((size_t)tb->nwin, fb_##G##_win, &c);                                    \
		return 0;                                                                          \
	}                                                                                          \
	static void fb_##G##_mul(JAC *r, const fb_##G *tb, const zp_fr *k)                         \
	{                                                                                          \
		uint64_t raw[4];                                                                   \
		size_t m = ((size_t)1 << tb->w) - 1;                                               \
		zp_fr_from_mont(raw, k);                                                           \
		zp_##G##_jac_set_inf(r);                                                           \
		for (int i = 0; i < tb->nwin; i++) {                                               \
			unsigned bit = (unsigned)(i * tb->w), li = bit / 64, sh = bit % 64;        \
			uint64_t d = raw[li] >> sh;                                                \
			if (sh + tb->w > 64 && li < 3)                                             \
				d |= raw[li + 1] << (64 - sh);                                     \
			d &= m;                                                                    \
			if (d)                                                                     \
				zp_##G##_jac_add_affine(r, r, &tb->t[(size_t)i * m + d - 1]);      \
		}                                                                                  \
	}                                                                                          \
	struct fbm_##G { const fb_##G *tb; const zp_fr *k; AFF *out; size_t n; };                  \
	static void fb_##G##_task(void *vctx, size_t t, int worker)                                \
	{                                                                                          \
		struct fbm_##G *c = vctx;                                                          \
		size_t i0 = t * BLK, i1 = i0 + BLK < c->n ? i0 + BLK : c->n;                       \
		JAC j[BLK];                                                                        \
		for (size_t i = i0; i < i1; i++)                                                   \
			fb_##G##_mul(&j[i - i0], c->tb, &c->k[i]);                                 \
		zp_##G##_jac_batch_to_affine(c->out + i0, j, i1 - i0);                             \
	}                                                                                          \
	static void fb_##G##_many(AFF *out, const fb_##G *tb, const zp_fr *k, size_t n)            \
	{                                                                                          \
		struct fbm_##G c = { tb, k, out, n };                                              \
		zp_par_for((n + BLK - 1) / BLK, fb_##G##_task, &c);                                \
	}

FB_DEFINE(g1, zp_g1_affine, zp_g1_jac)
FB_DEFINE(g2, zp_g2_affine, zp_g2_jac)

/* ---- scalars ---- */
struct lag_ctx { zp_fr *out; zp_fr tau, zn, step, first; size_t n; zp_fr *scratch; };

/* out[j] = zn·x_j/(τ − x_j) with x_j = first·step^j: Lagrange basis at τ (times δ⁻¹ folded in zn) */
static void lag_task(void *vctx, size_t t, int worker)
{
	struct lag_ctx *c = vctx;
	size_t i0 = t * BLK * 4, i1 = i0 + BLK * 4 < c->n ? i0 + BLK * 4 : c->n;
	zp_fr x, den[BLK * 4], xs[BLK * 4];
	uint64_t e = i0;
	zp_fr_pow(&x, &c->step, &e, 1);
	zp_fr_mul(&x, &x, &c->first);
	for (size_t i = i0; i < i1; i++) {
		xs[i - i0] = x;
		zp_fr_sub(&den[i - i0], &c->tau, &x);
		zp_fr_mul(&x, &x, &c->step);
	}
	zp_fr_batch_inv(den, den, i1 - i0, c->scratch + i0);
	for (size_t i = i0; i < i1; i++) {
		zp_fr_mul(&c->out[i], &den[i - i0], &xs[i - i0]);
		zp_fr_mul(&c->out[i], &c->out[i], &c->zn);
	}
}

static void lagrange(zp_fr *out, zp_fr *scratch, size_t n, const zp_fr *tau, const zp_fr *zn, const zp_fr *first,
		     const zp_fr *step)
{
	struct lag_ctx c = { out, *tau, *zn, *step, *first, n, scratch };
	zp_par_for((n + BLK * 4 - 1) / (BLK * 4), lag_task, &c);
}

struct scatter_ctx { const zp_circuit *c; const zp_fr *lag; zp_fr *uvw[3]; uint32_t r0, r1; size_t parts, nv; };

/* Task i = m·parts + part: uvw[m][j] += M[r][j]·lag[r − r0] for rows r0 <= r < r1 and the columns j of
 * this part's range. Each task reads the chunk's rows of M and keeps the entries in its columns, so
 * the writes into the (wire-sized, cache-missing) output never collide and the scatter runs on every
 * thread instead of one per matrix (at 2^27 it was most of the device setup's host time). */
static void scatter_task(void *vctx, size_t i, int worker)
{
	struct scatter_ctx *s = vctx;
	size_t m = i / s->parts, part = i % s->parts;
	const zp_csr *a = &s->c->m[m];
	zp_fr *out = s->uvw[m], p;
	uint32_t r1 = s->r1 < a->rows ? s->r1 : a->rows;
	uint32_t c0 = (uint32_t)(s->nv * part / s->parts), span = (uint32_t)(s->nv * (part + 1) / s->parts) - c0;
	(void)worker;
	for (uint32_t r = s->r0; r < r1; r++)
		for (uint64_t k = a->row_ptr[r]; k < a->row_ptr[r + 1]; k++) {
			uint32_t j = a->col[k];
			if (j - c0 >= span) continue;
			zp_fr_mul(&p, zp_csr_coef(a, k), &s->lag[r - s->r0]);
			zp_fr_add(&out[j], &out[j], &p);
		}
}

struct ic_ctx { zp_fr *u, *v, *w; zp_fr alpha, beta, ginv, dinv; uint32_t np; size_t n; };

/* w_i <- (β·u_i + α·v_i + w_i)·(γ⁻¹ for public wires, δ⁻¹ for the rest) */
static void ic_task(void *vctx, size_t t, int worker)
{
	struct ic_ctx *c = vctx;
	size_t i0 = t * BLK * 4, i1 = i0 + BLK * 4 < c->n ? i0 + BLK * 4 : c->n;
	zp_fr x, y;
	for (size_t i = i0; i < i1; i++) {
		zp_fr_mul(&x, &c->beta, &c->u[i]);
		zp_fr_mul(&y, &c->alpha, &c->v[i]);
		zp_fr_add(&x, &x, &y);
		zp_fr_add(&x, &x, &c->w[i]);
		zp_fr_mul(&c->w[i], &x, i <= c->np ? &c->ginv : &c->dinv);
	}
}

struct pow_ctx { zp_fr *out; zp_fr base, scale; size_t n; };

static void pow_task(void *vctx, size_t t, int worker)
{
	struct pow_ctx *c = vctx;
	size_t i0 = t * BLK * 4, i1 = i0 + BLK * 4 < c->n ? i0 + BLK * 4 : c->n;
	zp_fr x;
	uint64_t e = i0;
	zp_fr_pow(&x, &c->base, &e, 1);
	zp_fr_mul(&x, &x, &c->scale);
	for (size_t i = i0; i < i1; i++) {
		c->out[i] = x;
		zp_fr_mul(&x, &x, &c->base);
	}
}

static int draw_toxic(zp_fr t[5], const zp_setup_opts *o, uint64_t n)
{
	for (int i = 0; i < 5; i++) {
		int rc = o->toxic ? (t[i] = o->toxic[i], 0) : zp_fr_random_secure(&t[i]);
		if (rc)
			return zp_err_set(rc, "setup: getrandom");
		if (zp_fr_is_zero(&t[i]))
			return zp_err_set(ZP_ERANGE, "setup: toxic value %d is zero", i);
	}
	/* τ must lie off the doubled domain (τ^2n ≠ 1), else the Lagrange formulas divide by 0 */
	zp_fr p;
	uint64_t e = 2 * n;
	zp_fr_pow(&p, &t[0], &e, 1);
	if (zp_fr_eq(&p, &ZP_FR_ONE))
		return zp_err_set(ZP_ERANGE, "setup: τ is a %llu-th root of unity", (unsigned long long)(2 * n));
	return 0;
}

static int window_for(size_t n, int w)
{
	return w > 0 ? (w > 20 ? 20 : w) : n >= ((size_t)1 << 22) ? 16 : n >= ((size_t)1 << 16) ? 12 : 8;
}

#define CHUNK ((size_t)1 << 20)   /* Lagrange / H scalars per step */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int zp_setup_header(zp_pkey_header *h, const zp_circuit *c, const zp_setup_opts *o)
{
	int rc;
	unsigned roots = o->roots ? o->roots : 5;
	if (c->curve && c->curve->id != ZP_CURVE_BLS12_381)
		return zp_err_set(ZP_ERANGE, "setup: development keys are made for BLS12-381 circuits only; this circuit is "
				  "%s (make a %s key with snarkjs: groth16 setup)", c->curve->name, c->curve->snarkjs_name);
	if (!c->has_c)
		return zp_err_set(ZP_EMISMATCH, "setup needs the circuit's C matrix (compile it from an .r1cs, or a "
				  "synthetic circuit); a circuit read from a .zkey has only A and B");
	if (roots != 5 && roots != 7)
		return zp_err_set(ZP_ERANGE, "setup: root family %u (5 or 7)", roots);
	if ((rc = zp_pkey_layout(h, c->n_vars, c->n_public, c->domain_size)))
		return rc;
	h->flags = ZP_PKEY_INSECURE;
	h->h_mode = o->h_mode;
	h->roots = roots;
	h->n_constraints = c->n_constraints;
	memcpy(h->fingerprint, c->fingerprint, 16);
	snprintf(h->origin, sizeof(h->origin), "zkpipe setup (INSECURE development key)%s%s", o->origin ? ": " : "",
		 o->origin ? o->origin : "");
	return 0;
}

int zp_setup_run(zp_zkey *z, const zp_circuit *c, const zp_setup_opts *o, zp_setup_sink *sk)
{
	zp_fr t[5], zn, step, one_n, x;   /* τ, α, β, γ, δ */
	fb_g1 t1 = { 0 };
	fb_g2 t2 = { 0 };
	zp_fr *u = NULL, *v = NULL, *w = NULL, *lag = NULL, *scr = NULL;
	zp_setup_stats st = { 0 };
	double t0 = now_s(), ts = t0;
	int rc;
	unsigned roots = o->roots ? o->roots : 5;
	size_t n = c->domain_size, nv = c->n_vars, np = c->n_public;
	if ((rc = draw_toxic(t, o, n)))
		goto out;
	u = malloc(nv * sizeof(zp_fr));
	v = malloc(nv * sizeof(zp_fr));
	w = malloc(nv * sizeof(zp_fr));
	lag = malloc(CHUNK * sizeof(zp_fr));
	scr = malloc(CHUNK * sizeof(zp_fr));
	if (!u || !v || !w || !lag || !scr) {
		rc = zp_err_set(-ENOMEM, "setup: scalars for %zu wires", nv);
		goto out;
	}
	int wb = window_for(nv > n ? nv : n, o->window_bits);
	if ((rc = fb_g1_init(&t1, &ZP_G1_GEN, wb)) || (rc = fb_g2_init(&t2, &ZP_G2_GEN, wb < 16 ? wb : 14)))
		goto out;
	sk->t1 = t1.t;
	sk->w1 = t1.w;
	sk->t1_len = (size_t)t1.nwin * (((size_t)1 << t1.w) - 1);
	sk->t2 = t2.t;
	sk->w2 = t2.w;
	sk->t2_len = (size_t)t2.nwin * (((size_t)1 << t2.w) - 1);
	if (sk->begin && (rc = sk->begin(sk)))
		goto out;
	zp_progress_stage("setup: L_j(tau) and A, B, C at tau (rows)", n, "items");
	st.tables = now_s() - ts;
	ts = now_s();

	/* u, v, w = A, B, C applied to L_j(τ) = (τ^n − 1)/n · ω^j/(τ − ω^j), rows in chunks */
	uint64_t e = n;
	zp_fr_pow(&zn, &t[0], &e, 1);
	zp_fr_sub(&zn, &zn, &ZP_FR_ONE);
	zp_fr_from_u64(&one_n, n);
	zp_fr_inv(&one_n, &one_n);
	zp_fr_mul(&zn, &zn, &one_n);
	zp_ntt_root(&step, c->log_domain, roots == 5 ? ZP_NTT_ROOT5 : ZP_NTT_ROOT7);
	memset(u, 0, nv * sizeof(zp_fr));
	memset(v, 0, nv * sizeof(zp_fr));
	memset(w, 0, nv * sizeof(zp_fr));
	for (size_t r0 = 0; r0 < n; r0 += CHUNK) {
		size_t len = n - r0 < CHUNK ? n - r0 : CHUNK;
		e = r0;
		zp_fr_pow(&x, &step, &e, 1);
		lagrange(lag, scr, len, &t[0], &zn, &x, &step);
		size_t parts = (size_t)zp_par_threads();
		struct scatter_ctx sc = { c, lag, { u, v, w }, (uint32_t)r0, (uint32_t)(r0 + len), parts, nv };
		zp_par_for(3 * parts, scatter_task, &sc);
		zp_progress_add(len);
	}
	st.lagrange = now_s() - ts;
	ts = now_s();

	fb_g1 *p1 = &t1;
	fb_g2 *p2 = &t2;
	zp_g1_jac j1;
	zp_g2_jac j2;
	fb_g1_mul(&j1, p1, &t[1]); zp_g1_jac_to_affine(&z->alpha1, &j1);
	fb_g1_mul(&j1, p1, &t[2]); zp_g1_jac_to_affine(&z->beta1, &j1);
	fb_g1_mul(&j1, p1, &t[4]); zp_g1_jac_to_affine(&z->delta1, &j1);
	fb_g2_mul(&j2, p2, &t[2]); zp_g2_jac_to_affine(&z->beta2, &j2);
	fb_g2_mul(&j2, p2, &t[3]); zp_g2_jac_to_affine(&z->gamma2, &j2);
	fb_g2_mul(&j2, p2, &t[4]); zp_g2_jac_to_affine(&z->delta2, &j2);
	zp_progress_stage("setup: A, B1, B2 points", 3 * nv, "items");
	if ((rc = sk->points(sk, ZP_PKS_A, u, 0, nv)) || (rc = sk->points(sk, ZP_PKS_B1, v, 0, nv)) ||
	    (rc = sk->points(sk, ZP_PKS_B2, v, 0, nv)))
		goto out;
	st.ab = now_s() - ts;
	ts = now_s();
	struct ic_ctx ic = { u, v, w, t[1], t[2], t[3], t[4], c->n_public, nv };
	zp_fr_inv(&ic.ginv, &t[3]);
	zp_fr_inv(&ic.dinv, &t[4]);
	zp_par_for((nv + BLK * 4 - 1) / (BLK * 4), ic_task, &ic);
	zp_progress_stage("setup: IC and C points", nv, "items");
	if ((rc = sk->points(sk, ZP_PKS_IC, w, 0, np + 1)) || (rc = sk->points(sk, ZP_PKS_C, w + np + 1, 0, nv - np - 1)))
		goto out;
	/* u, v, w are spent: wipe and free them before the H query */
	explicit_bzero(u, nv * sizeof(zp_fr));
	explicit_bzero(v, nv * sizeof(zp_fr));
	explicit_bzero(w, nv * sizeof(zp_fr));
	free(u);
	free(v);
	free(w);
	u = v = w = NULL;
	st.c = now_s() - ts;
	ts = now_s();

	/* H scalars, in chunks */
	zp_fr zd, t2n, w2n;
	e = n;
	zp_fr_pow(&zd, &t[0], &e, 1);
	zp_fr_sub(&zd, &zd, &ZP_FR_ONE);
	zp_fr_mul(&zd, &zd, &ic.dinv);   /* Z(τ)/δ */
	if (o->h_mode == ZP_H_SNARKJS) {
		/* L^(2n)_(2j+1)(τ)/δ = (τ^2n − 1)/(2n·δ) · x_j/(τ − x_j), x_j = ω_2n·ω_n^j */
		zp_fr inv2n;
		e = 2 * n;
		zp_fr_pow(&t2n, &t[0], &e, 1);
		zp_fr_sub(&t2n, &t2n, &ZP_FR_ONE);
		zp_fr_from_u64(&inv2n, 2 * n);
		zp_fr_inv(&inv2n, &inv2n);
		zp_fr_mul(&t2n, &t2n, &inv2n);
		zp_fr_mul(&t2n, &t2n, &ic.dinv);
		zp_ntt_root(&w2n, c->log_domain + 1, roots == 5 ? ZP_NTT_ROOT5 : ZP_NTT_ROOT7);
	}
	zp_progress_stage("setup: H points", n, "items");
	for (size_t j0 = 0; j0 < n; j0 += CHUNK) {
		size_t len = n - j0 < CHUNK ? n - j0 : CHUNK;
		e = j0;
		if (o->h_mode == ZP_H_SNARKJS) {
			zp_fr_pow(&x, &step, &e, 1);
			zp_fr_mul(&x, &x, &w2n);
			lagrange(lag, scr, len, &t[0], &t2n, &x, &step);
		} else {
			zp_fr_pow(&x, &t[0], &e, 1);
			zp_fr_mul(&x, &x, &zd);
			struct pow_ctx pc = { lag, t[0], x, len };   /* τ^i·Z(τ)/δ */
			zp_par_for((len + BLK * 4 - 1) / (BLK * 4), pow_task, &pc);
		}
		if ((rc = sk->points(sk, ZP_PKS_H, lag, j0, len)))
			goto out;
	}
	st.h = now_s() - ts;
	st.total = now_s() - t0;
	if (o->stats)
		*o->stats = st;
out:
	explicit_bzero(t, sizeof(t));
	explicit_bzero(&ic, sizeof ic);
	if (u) explicit_bzero(u, nv * sizeof(zp_fr));
	if (v) explicit_bzero(v, nv * sizeof(zp_fr));
	if (w) explicit_bzero(w, nv * sizeof(zp_fr));
	if (lag) explicit_bzero(lag, CHUNK * sizeof(zp_fr));
	free(u);
	free(v);
	free(w);
	free(lag);
	free(scr);
	free(t1.t);
	free(t2.t);
	return rc;
}

/* ---- the CPU sink: the tables' points straight into the zp_pkey ---- */
struct cpu_sink { zp_setup_sink s; zp_pkey *k; };

static int cpu_points(zp_setup_sink *s, int sec, const zp_fr *k, size_t off, size_t n)
{
	zp_pkey *key = ((struct cpu_sink *)s)->k;
	zp_zkey *z = &key->zk;
	fb_g1 t1 = { s->w1, (255 + s->w1 - 1) / s->w1, (zp_g1_affine *)s->t1 };
	fb_g2 t2 = { s->w2, (255 + s->w2 - 1) / s->w2, (zp_g2_affine *)s->t2 };
	zp_g1_affine *d1 = sec == ZP_PKS_A ? z->a : sec == ZP_PKS_B1 ? z->b1 : sec == ZP_PKS_IC ? z->ic
			 : sec == ZP_PKS_C ? z->c : z->h ? z->h : key->g16.h_coeff;
	for (size_t i = 0, m; i < n; i += m) { /* in pieces of 2^16 points, so progress moves */
		m = n - i < ((size_t)1 << 16) ? n - i : (size_t)1 << 16;
		if (sec == ZP_PKS_B2)
			fb_g2_many(z->b2 + off + i, &t2, k + i, m);
		else
			fb_g1_many(d1 + off + i, &t1, k + i, m);
		zp_progress_add(m);
	}
	return 0;
}

/* setup_cuda.c's, in programs that link the CUDA prover (prover/backends.c says why weakly). */
int zp_setup_cuda_available(void) __attribute__((weak));
int zp_setup_cuda_host(zp_pkey *k, const zp_circuit *c, const zp_setup_opts *o) __attribute__((weak));

int zp_setup_gpu_available(void)
{
	return zp_setup_cuda_available ? zp_setup_cuda_available() : 0;
}

int zp_setup(zp_pkey *k, const zp_circuit *c, const zp_setup_opts *o)
{
	static const zp_setup_opts defaults = { 0 };
	zp_pkey_header h;
	int rc;
	memset(k, 0, sizeof(*k));
	if (!o)
		o = &defaults;
	if (o->device < -1 || o->device > 1)
		return zp_err_set(ZP_ERANGE, "setup: device %d (-1 auto, 0 CPU, 1 CUDA)", o->device);
	if (o->device) {
		if (zp_setup_cuda_host && (o->device == 1 || zp_setup_cuda_available()))
			return zp_setup_cuda_host(k, c, o);
		if (o->device == 1)
			return zp_err_set(-ENOTSUP, "setup on the GPU: this build has no CUDA (meson setup -Dcuda=enabled, "
					  "nvcc on PATH)");
	}
	if ((rc = zp_setup_header(&h, c, o)) || (rc = zp_pkey_alloc(k, &h)))
		return rc;
	struct cpu_sink s = { .s = { .points = cpu_points }, .k = k };
	if ((rc = zp_setup_run(&k->zk, c, o, &s.s))) {
		zp_pkey_free(k);
		return rc;
	}
	zp_pkey_seal(k);
	return 0;
}
