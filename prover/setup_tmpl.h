/*
 * setup_tmpl.h — internal: the curve-typed parts of setup.c (fixed-base tables, the scalar pipeline, the
 * CPU sink), instantiated once per curve as g16_tmpl.h is for groth16.c (docs/prover.md "Curves in the prover").
 *
 * The includer defines, then includes this file:
 *   S(x)       this instance's name for x (x##_bls, x##_bn)
 *   FR, G1A, G1J, G2A, G2J   the curve's types
 *   F(x)       the curve's function x (zp_##x, zp_bn254_##x): fr_mul, g1_jac_add, ...
 *   KP(z)      the curve's members of a zp_zkey (z, &z->bn)
 *   FR_ONE, G1_GEN, G2_GEN, CURVE (its zp_curve)
 *   ROOT(w, k, roots)   ω_{2^k} of the root family (BN254: 5 only; the header refuses 7)
 * Scalars cross the sink as zp_fr containers (32 bytes, the curve's Fr in Montgomery form).
 */

/* ---- fixed-base tables: t[k·(2^w−1) + d−1] = d·2^(w·k)·G ---- */
#define FB_DEFINE(G, AFF, JAC)                                                                     \
	typedef struct { int w, nwin; AFF *t; } S(fb_##G);                                         \
	struct S(fbb_##G) { S(fb_##G) *tb; const AFF *gen; };                                      \
	static void S(fb_##G##_win)(void *vctx, size_t k, int worker)                              \
	{                                                                                          \
		struct S(fbb_##G) *c = vctx;                                                       \
		size_t m = ((size_t)1 << c->tb->w) - 1;                                            \
		JAC base, *row = malloc(m * sizeof(JAC));                                          \
		if (!row)                                                                          \
			abort();                                                                   \
		F(G##_jac_from_affine)(&base, c->gen);                                             \
		for (size_t i = 0; i < (size_t)c->tb->w * k; i++)                                  \
			F(G##_jac_dbl)(&base, &base);                                              \
		row[0] = base;                                                                     \
		for (size_t d = 1; d < m; d++)                                                     \
			F(G##_jac_add)(&row[d], &row[d - 1], &base);                               \
		F(G##_jac_batch_to_affine)(c->tb->t + k * m, row, m);                              \
		free(row);                                                                         \
	}                                                                                          \
	static int S(fb_##G##_init)(S(fb_##G) *tb, const AFF *gen, int w)                          \
	{                                                                                          \
		tb->w = w;                                                                         \
		tb->nwin = (255 + w - 1) / w;                                                      \
		tb->t = malloc((size_t)tb->nwin * (((size_t)1 << w) - 1) * sizeof(AFF));           \
		if (!tb->t)                                                                        \
			return zp_err_set(-ENOMEM, "setup: fixed-base table, %d-bit windows", w);  \
		struct S(fbb_##G) c = { tb, gen };                                                 \
		zp_par_for((size_t)tb->nwin, S(fb_##G##_win), &c);                                 \
		return 0;                                                                          \
	}                                                                                          \
	static void S(fb_##G##_mul)(JAC *r, const S(fb_##G) *tb, const FR *k)                      \
	{                                                                                          \
		uint64_t raw[4];                                                                   \
		size_t m = ((size_t)1 << tb->w) - 1;                                               \
		F(fr_from_mont)(raw, k);                                                           \
		F(G##_jac_set_inf)(r);                                                             \
		for (int i = 0; i < tb->nwin; i++) {                                               \
			unsigned bit = (unsigned)(i * tb->w), li = bit / 64, sh = bit % 64;        \
			uint64_t d = raw[li] >> sh;                                                \
			if (sh + tb->w > 64 && li < 3)                                             \
				d |= raw[li + 1] << (64 - sh);                                     \
			d &= m;                                                                    \
			if (d)                                                                     \
				F(G##_jac_add_affine)(r, r, &tb->t[(size_t)i * m + d - 1]);        \
		}                                                                                  \
	}                                                                                          \
	struct S(fbm_##G) { const S(fb_##G) *tb; const FR *k; AFF *out; size_t n; };               \
	static void S(fb_##G##_task)(void *vctx, size_t t, int worker)                             \
	{                                                                                          \
		struct S(fbm_##G) *c = vctx;                                                       \
		size_t i0 = t * BLK, i1 = i0 + BLK < c->n ? i0 + BLK : c->n;                       \
		JAC j[BLK];                                                                        \
		for (size_t i = i0; i < i1; i++)                                                   \
			S(fb_##G##_mul)(&j[i - i0], c->tb, &c->k[i]);                              \
		F(G##_jac_batch_to_affine)(c->out + i0, j, i1 - i0);                               \
	}                                                                                          \
	static void S(fb_##G##_many)(AFF *out, const S(fb_##G) *tb, const FR *k, size_t n)         \
	{                                                                                          \
		struct S(fbm_##G) c = { tb, k, out, n };                                           \
		zp_par_for((n + BLK - 1) / BLK, S(fb_##G##_task), &c);                             \
	}

FB_DEFINE(g1, G1A, G1J)
FB_DEFINE(g2, G2A, G2J)
#undef FB_DEFINE

/* ---- scalars ---- */
struct S(lag_ctx) { FR *out; FR tau, zn, step, first; size_t n; FR *scratch; };

/* out[j] = zn·x_j/(τ − x_j) with x_j = first·step^j: Lagrange basis at τ (times δ⁻¹ folded in zn) */
static void S(lag_task)(void *vctx, size_t t, int worker)
{
	struct S(lag_ctx) *c = vctx;
	size_t i0 = t * BLK * 4, i1 = i0 + BLK * 4 < c->n ? i0 + BLK * 4 : c->n;
	FR x, den[BLK * 4], xs[BLK * 4];
	uint64_t e = i0;
	F(fr_pow)(&x, &c->step, &e, 1);
	F(fr_mul)(&x, &x, &c->first);
	for (size_t i = i0; i < i1; i++) {
		xs[i - i0] = x;
		F(fr_sub)(&den[i - i0], &c->tau, &x);
		F(fr_mul)(&x, &x, &c->step);
	}
	F(fr_batch_inv)(den, den, i1 - i0, c->scratch + i0);
	for (size_t i = i0; i < i1; i++) {
		F(fr_mul)(&c->out[i], &den[i - i0], &xs[i - i0]);
		F(fr_mul)(&c->out[i], &c->out[i], &c->zn);
	}
}

static void S(lagrange)(FR *out, FR *scratch, size_t n, const FR *tau, const FR *zn, const FR *first, const FR *step)
{
	struct S(lag_ctx) c = { out, *tau, *zn, *step, *first, n, scratch };
	zp_par_for((n + BLK * 4 - 1) / (BLK * 4), S(lag_task), &c);
}

struct S(scatter_ctx) { const zp_circuit *c; const FR *lag; FR *uvw[3]; uint32_t r0, r1; size_t parts, nv; };

/* Task i = m·parts + part: uvw[m][j] += M[r][j]·lag[r − r0] for rows r0 <= r < r1 and the columns j of
 * this part's range. Each task reads the chunk's rows of M and keeps the entries in its columns, so
 * the writes into the (wire-sized, cache-missing) output never collide and the scatter runs on every
 * thread instead of one per matrix (at 2^27 it was most of the device setup's host time). */
static void S(scatter_task)(void *vctx, size_t i, int worker)
{
	struct S(scatter_ctx) *s = vctx;
	size_t m = i / s->parts, part = i % s->parts;
	const zp_csr *a = &s->c->m[m];
	FR *out = s->uvw[m], p;
	uint32_t r1 = s->r1 < a->rows ? s->r1 : a->rows;
	uint32_t c0 = (uint32_t)(s->nv * part / s->parts), span = (uint32_t)(s->nv * (part + 1) / s->parts) - c0;
	(void)worker;
	for (uint32_t r = s->r0; r < r1; r++)
		for (uint64_t k = a->row_ptr[r]; k < a->row_ptr[r + 1]; k++) {
			uint32_t j = a->col[k];
			if (j - c0 >= span) continue;
			F(fr_mul)(&p, (const FR *)zp_csr_coef(a, k), &s->lag[r - s->r0]);
			F(fr_add)(&out[j], &out[j], &p);
		}
}

struct S(ic_ctx) { FR *u, *v, *w; FR alpha, beta, ginv, dinv; uint32_t np; size_t n; };

/* w_i <- (β·u_i + α·v_i + w_i)·(γ⁻¹ for public wires, δ⁻¹ for the rest) */
static void S(ic_task)(void *vctx, size_t t, int worker)
{
	struct S(ic_ctx) *c = vctx;
	size_t i0 = t * BLK * 4, i1 = i0 + BLK * 4 < c->n ? i0 + BLK * 4 : c->n;
	FR x, y;
	for (size_t i = i0; i < i1; i++) {
		F(fr_mul)(&x, &c->beta, &c->u[i]);
		F(fr_mul)(&y, &c->alpha, &c->v[i]);
		F(fr_add)(&x, &x, &y);
		F(fr_add)(&x, &x, &c->w[i]);
		F(fr_mul)(&c->w[i], &x, i <= c->np ? &c->ginv : &c->dinv);
	}
}

struct S(pow_ctx) { FR *out; FR base, scale; size_t n; };

static void S(pow_task)(void *vctx, size_t t, int worker)
{
	struct S(pow_ctx) *c = vctx;
	size_t i0 = t * BLK * 4, i1 = i0 + BLK * 4 < c->n ? i0 + BLK * 4 : c->n;
	FR x;
	uint64_t e = i0;
	F(fr_pow)(&x, &c->base, &e, 1);
	F(fr_mul)(&x, &x, &c->scale);
	for (size_t i = i0; i < i1; i++) {
		c->out[i] = x;
		F(fr_mul)(&x, &x, &c->base);
	}
}

static int S(draw_toxic)(FR t[5], const zp_setup_opts *o, uint64_t n)
{
	for (int i = 0; i < 5; i++) {
		int rc = o->toxic ? (memcpy(&t[i], &o->toxic[i], sizeof(FR)), 0) : CURVE.fr_random_secure(&t[i]);
		if (rc)
			return zp_err_set(rc, "setup: getrandom");
		if (F(fr_is_zero)(&t[i]))
			return zp_err_set(ZP_ERANGE, "setup: toxic value %d is zero", i);
	}
	/* τ must lie off the doubled domain (τ^2n ≠ 1), else the Lagrange formulas divide by 0 */
	FR p;
	uint64_t e = 2 * n;
	F(fr_pow)(&p, &t[0], &e, 1);
	if (F(fr_eq)(&p, &FR_ONE))
		return zp_err_set(ZP_ERANGE, "setup: τ is a %llu-th root of unity", (unsigned long long)(2 * n));
	return 0;
}

static int S(setup_run)(zp_zkey *zk, const zp_circuit *c, const zp_setup_opts *o, zp_setup_sink *sk)
{
	FR t[5], zn, step, one_n, x;   /* τ, α, β, γ, δ */
	S(fb_g1) t1 = { 0 };
	S(fb_g2) t2 = { 0 };
	FR *u = NULL, *v = NULL, *w = NULL, *lag = NULL, *scr = NULL;
	__typeof__(KP(zk)) z = KP(zk);
	zp_setup_stats st = { 0 };
	double t0 = now_s(), ts = t0;
	int rc;
	unsigned roots = o->roots ? o->roots : 5;
	size_t n = c->domain_size, nv = c->n_vars, np = c->n_public;
	if ((rc = S(draw_toxic)(t, o, n)))
		goto out;
	u = malloc(nv * sizeof(FR));
	v = malloc(nv * sizeof(FR));
	w = malloc(nv * sizeof(FR));
	lag = malloc(CHUNK * sizeof(FR));
	scr = malloc(CHUNK * sizeof(FR));
	if (!u || !v || !w || !lag || !scr) {
		rc = zp_err_set(-ENOMEM, "setup: scalars for %zu wires", nv);
		goto out;
	}
	int wb = window_for(nv > n ? nv : n, o->window_bits);
	if ((rc = S(fb_g1_init)(&t1, &G1_GEN, wb)) || (rc = S(fb_g2_init)(&t2, &G2_GEN, wb < 16 ? wb : 14)))
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
	F(fr_pow)(&zn, &t[0], &e, 1);
	F(fr_sub)(&zn, &zn, &FR_ONE);
	F(fr_from_u64)(&one_n, n);
	F(fr_inv)(&one_n, &one_n);
	F(fr_mul)(&zn, &zn, &one_n);
	ROOT(&step, c->log_domain, roots);
	memset(u, 0, nv * sizeof(FR));
	memset(v, 0, nv * sizeof(FR));
	memset(w, 0, nv * sizeof(FR));
	for (size_t r0 = 0; r0 < n; r0 += CHUNK) {
		size_t len = n - r0 < CHUNK ? n - r0 : CHUNK;
		e = r0;
		F(fr_pow)(&x, &step, &e, 1);
		S(lagrange)(lag, scr, len, &t[0], &zn, &x, &step);
		size_t parts = (size_t)zp_par_threads();
		struct S(scatter_ctx) sc = { c, lag, { u, v, w }, (uint32_t)r0, (uint32_t)(r0 + len), parts, nv };
		zp_par_for(3 * parts, S(scatter_task), &sc);
		zp_progress_add(len);
	}
	st.lagrange = now_s() - ts;
	ts = now_s();

	S(fb_g1) *p1 = &t1;
	S(fb_g2) *p2 = &t2;
	G1J j1;
	G2J j2;
	S(fb_g1_mul)(&j1, p1, &t[1]); F(g1_jac_to_affine)(&z->alpha1, &j1);
	S(fb_g1_mul)(&j1, p1, &t[2]); F(g1_jac_to_affine)(&z->beta1, &j1);
	S(fb_g1_mul)(&j1, p1, &t[4]); F(g1_jac_to_affine)(&z->delta1, &j1);
	S(fb_g2_mul)(&j2, p2, &t[2]); F(g2_jac_to_affine)(&z->beta2, &j2);
	S(fb_g2_mul)(&j2, p2, &t[3]); F(g2_jac_to_affine)(&z->gamma2, &j2);
	S(fb_g2_mul)(&j2, p2, &t[4]); F(g2_jac_to_affine)(&z->delta2, &j2);
	zp_progress_stage("setup: A, B1, B2 points", 3 * nv, "items");
	if ((rc = sk->points(sk, ZP_PKS_A, (const zp_fr *)u, 0, nv)) ||
	    (rc = sk->points(sk, ZP_PKS_B1, (const zp_fr *)v, 0, nv)) ||
	    (rc = sk->points(sk, ZP_PKS_B2, (const zp_fr *)v, 0, nv)))
		goto out;
	st.ab = now_s() - ts;
	ts = now_s();
	struct S(ic_ctx) ic = { u, v, w, t[1], t[2], t[3], t[4], c->n_public, nv };
	F(fr_inv)(&ic.ginv, &t[3]);
	F(fr_inv)(&ic.dinv, &t[4]);
	zp_par_for((nv + BLK * 4 - 1) / (BLK * 4), S(ic_task), &ic);
	zp_progress_stage("setup: IC and C points", nv, "items");
	if ((rc = sk->points(sk, ZP_PKS_IC, (const zp_fr *)w, 0, np + 1)) ||
	    (rc = sk->points(sk, ZP_PKS_C, (const zp_fr *)(w + np + 1), 0, nv - np - 1)))
		goto out;
	/* u, v, w are spent: wipe and free them before the H query */
	explicit_bzero(u, nv * sizeof(FR));
	explicit_bzero(v, nv * sizeof(FR));
	explicit_bzero(w, nv * sizeof(FR));
	free(u);
	free(v);
	free(w);
	u = v = w = NULL;
	st.c = now_s() - ts;
	ts = now_s();

	/* H scalars, in chunks */
	FR zd, t2n, w2n;
	e = n;
	F(fr_pow)(&zd, &t[0], &e, 1);
	F(fr_sub)(&zd, &zd, &FR_ONE);
	F(fr_mul)(&zd, &zd, &ic.dinv);   /* Z(τ)/δ */
	if (o->h_mode == ZP_H_SNARKJS) {
		/* L^(2n)_(2j+1)(τ)/δ = (τ^2n − 1)/(2n·δ) · x_j/(τ − x_j), x_j = ω_2n·ω_n^j */
		FR inv2n;
		e = 2 * n;
		F(fr_pow)(&t2n, &t[0], &e, 1);
		F(fr_sub)(&t2n, &t2n, &FR_ONE);
		F(fr_from_u64)(&inv2n, 2 * n);
		F(fr_inv)(&inv2n, &inv2n);
		F(fr_mul)(&t2n, &t2n, &inv2n);
		F(fr_mul)(&t2n, &t2n, &ic.dinv);
		ROOT(&w2n, c->log_domain + 1, roots);
	}
	zp_progress_stage("setup: H points", n, "items");
	for (size_t j0 = 0; j0 < n; j0 += CHUNK) {
		size_t len = n - j0 < CHUNK ? n - j0 : CHUNK;
		e = j0;
		if (o->h_mode == ZP_H_SNARKJS) {
			F(fr_pow)(&x, &step, &e, 1);
			F(fr_mul)(&x, &x, &w2n);
			S(lagrange)(lag, scr, len, &t[0], &t2n, &x, &step);
		} else {
			F(fr_pow)(&x, &t[0], &e, 1);
			F(fr_mul)(&x, &x, &zd);
			struct S(pow_ctx) pc = { lag, t[0], x, len };   /* τ^i·Z(τ)/δ */
			zp_par_for((len + BLK * 4 - 1) / (BLK * 4), S(pow_task), &pc);
		}
		if ((rc = sk->points(sk, ZP_PKS_H, (const zp_fr *)lag, j0, len)))
			goto out;
	}
	st.h = now_s() - ts;
	st.total = now_s() - t0;
	if (o->stats)
		*o->stats = st;
out:
	explicit_bzero(t, sizeof(t));
	explicit_bzero(&ic, sizeof ic);
	if (u) explicit_bzero(u, nv * sizeof(FR));
	if (v) explicit_bzero(v, nv * sizeof(FR));
	if (w) explicit_bzero(w, nv * sizeof(FR));
	if (lag) explicit_bzero(lag, CHUNK * sizeof(FR));
	free(u);
	free(v);
	free(w);
	free(lag);
	free(scr);
	free(t1.t);
	free(t2.t);
	return rc;
}

/* the CPU sink's points: the tables' points straight into the zp_pkey */
static void S(cpu_points)(zp_setup_sink *s, zp_pkey *key, int sec, const zp_fr *kk, size_t off, size_t n)
{
	__typeof__(KP(&key->zk)) z = KP(&key->zk);
	const FR *k = (const FR *)kk;
	S(fb_g1) t1 = { s->w1, (255 + s->w1 - 1) / s->w1, (G1A *)s->t1 };
	S(fb_g2) t2 = { s->w2, (255 + s->w2 - 1) / s->w2, (G2A *)s->t2 };
	G1A *d1 = sec == ZP_PKS_A ? z->a : sec == ZP_PKS_B1 ? z->b1 : sec == ZP_PKS_IC ? z->ic
		: sec == ZP_PKS_C ? z->c : z->h ? z->h : (G1A *)key->g16.h_coeff;
	for (size_t i = 0, m; i < n; i += m) { /* in pieces of 2^16 points, so progress moves */
		m = n - i < ((size_t)1 << 16) ? n - i : (size_t)1 << 16;
		if (sec == ZP_PKS_B2)
			S(fb_g2_many)(z->b2 + off + i, &t2, k + i, m);
		else
			S(fb_g1_many)(d1 + off + i, &t1, k + i, m);
		zp_progress_add(m);
	}
}
