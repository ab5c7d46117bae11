/*
 * msm_tmpl.h — internal to msm_curve_tmpl.h: the MSM for one group, included once per group of every
 * curve.
 *
 * The includer defines:
 *   G(x)        names the static functions of this instance (g1_x / g2_x; bn254_g1_x / bn254_g2_x)
 *   FE AFF XYZZ JAC  the field element and point types
 *   fe_mul fe_sqr fe_add fe_sub fe_neg fe_is_zero fe_one fe_inv   field ops
 *   BA_MIN      scalars from which the batch-affine accumulation is used
 *   SC sc_is_zero sc_is_one sc_from_mont   the scalar type (4 limbs, Montgomery form) and its tests
 *               (BLS12-381's Fr or BN254's: the Booth digits read 256-bit integers)
 * and, after including it (msm_ba_v_tmpl.h), G(ba_vec)() — whether the vector batches run —,
 * G(ba_apply_fast)(s) — a vector ba_apply: true when it did the batch, false to use the scalar one — and
 * G(ba_reduce_fast)(s, bk, nb, out) — a vector running sum of a task's nb buckets: true when it wrote
 * Σ (j+1)·bucket_j to *out, false for the scalar loop.
 *
 * Point formulas (a = 0 short Weierstrass, XYZZ coordinates x = X/ZZ, y = Y/ZZZ)
 * are the "2008-s" ones of the Explicit-Formulas Database (Sutherland's xyzz):
 *   madd-2008-s 8M+2S, add-2008-s 12M+2S, dbl-2008-s-1 6M+3S, mdbl-2008-s-1 4M+3S.
 * Their exceptional cases (either input at infinity, P == ±Q) are handled by
 * branches, which is why this file is not constant time.
 */

/* ---- XYZZ point operations ---- */

static inline bool G(is_inf)(const XYZZ *p) { return fe_is_zero(&p->zz); }

static inline void G(set_inf)(XYZZ *p)
{
	memset(&p->zz, 0, sizeof(p->zz));
	memset(&p->zzz, 0, sizeof(p->zzz));
}

/* r = 2·(x, y) for an affine point (not infinity; y != 0 in a prime-order group). */
static inline void G(mdbl)(XYZZ *r, const FE *x, const FE *y)
{
	FE u, v, w, s, m, t;
	fe_add(&u, y, y);
	fe_sqr(&v, &u);
	fe_mul(&w, &u, &v);
	fe_mul(&s, x, &v);
	fe_sqr(&m, x);
	fe_add(&t, &m, &m);
	fe_add(&m, &m, &t);            /* M = 3x^2 */
	fe_sqr(&t, &m);
	fe_sub(&t, &t, &s);
	fe_sub(&r->x, &t, &s);         /* X3 = M^2 - 2S */
	fe_sub(&t, &s, &r->x);
	fe_mul(&t, &m, &t);
	fe_mul(&u, &w, y);
	fe_sub(&r->y, &t, &u);         /* Y3 = M(S - X3) - W·y */
	r->zz = v;
	r->zzz = w;
}

/* r = 2·a in place-safe form. */
static inline void G(dbl)(XYZZ *r, const XYZZ *a)
{
	if (G(is_inf)(a)) {
		*r = *a;
		return;
	}
	FE u, v, w, s, m, t;
	fe_add(&u, &a->y, &a->y);
	fe_sqr(&v, &u);
	fe_mul(&w, &u, &v);
	fe_mul(&s, &a->x, &v);
	fe_sqr(&m, &a->x);
	fe_add(&t, &m, &m);
	fe_add(&m, &m, &t);
	fe_mul(&u, &w, &a->y);         /* W·Y1, before r->y may overwrite a->y */
	fe_mul(&r->zz, &v, &a->zz);
	fe_mul(&r->zzz, &w, &a->zzz);
	fe_sqr(&t, &m);
	fe_sub(&t, &t, &s);
	fe_sub(&r->x, &t, &s);
	fe_sub(&t, &s, &r->x);
	fe_mul(&t, &m, &t);
	fe_sub(&r->y, &t, &u);
}

/* r += (x, y2), where y2 is the (possibly negated) y of an affine point that is not infinity. */
static inline void G(add_aff)(XYZZ *r, const FE *x2, const FE *y2)
{
	if (G(is_inf)(r)) {
		r->x = *x2;
		r->y = *y2;
		r->zz = fe_one;
		r->zzz = fe_one;
		return;
	}
	FE p, rr, pp, ppp, q, t;
	fe_mul(&p, x2, &r->zz);
	fe_sub(&p, &p, &r->x);          /* P = X2·ZZ1 - X1 */
	fe_mul(&rr, y2, &r->zzz);
	fe_sub(&rr, &rr, &r->y);        /* R = Y2·ZZZ1 - Y1 */
	if (fe_is_zero(&p)) {
		if (fe_is_zero(&rr))
			G(mdbl)(r, x2, y2);
		else
			G(set_inf)(r);
		return;
	}
	fe_sqr(&pp, &p);
	fe_mul(&ppp, &p, &pp);
	fe_mul(&q, &r->x, &pp);
	fe_mul(&r->zz, &r->zz, &pp);
	fe_mul(&r->zzz, &r->zzz, &ppp);
	fe_sqr(&t, &rr);
	fe_sub(&t, &t, &ppp);
	fe_sub(&t, &t, &q);
	fe_sub(&r->x, &t, &q);          /* X3 = R^2 - PPP - 2Q */
	fe_sub(&t, &q, &r->x);
	fe_mul(&t, &rr, &t);
	fe_mul(&ppp, &r->y, &ppp);
	fe_sub(&r->y, &t, &ppp);        /* Y3 = R(Q - X3) - Y1·PPP */
}

/* r = a + b (r may alias either). */
static inline void G(add)(XYZZ *r, const XYZZ *a, const XYZZ *b)
{
	if (G(is_inf)(a)) {
		*r = *b;
		return;
	}
	if (G(is_inf)(b)) {
		*r = *a;
		return;
	}
	FE u1, s1, p, rr, pp, ppp, q, t;
	fe_mul(&u1, &a->x, &b->zz);
	fe_mul(&p, &b->x, &a->zz);
	fe_sub(&p, &p, &u1);            /* P = U2 - U1 */
	fe_mul(&s1, &a->y, &b->zzz);
	fe_mul(&rr, &b->y, &a->zzz);
	fe_sub(&rr, &rr, &s1);          /* R = S2 - S1 */
	if (fe_is_zero(&p)) {
		if (fe_is_zero(&rr))
			G(dbl)(r, a);
		else
			G(set_inf)(r);
		return;
	}
	fe_sqr(&pp, &p);
	fe_mul(&ppp, &p, &pp);
	fe_mul(&q, &u1, &pp);
	fe_mul(&t, &a->zz, &b->zz);
	fe_mul(&r->zz, &t, &pp);
	fe_mul(&t, &a->zzz, &b->zzz);
	fe_mul(&r->zzz, &t, &ppp);
	fe_sqr(&t, &rr);
	fe_sub(&t, &t, &ppp);
	fe_sub(&t, &t, &q);
	fe_sub(&r->x, &t, &q);
	fe_sub(&t, &q, &r->x);
	fe_mul(&t, &rr, &t);
	fe_mul(&ppp, &s1, &ppp);
	fe_sub(&r->y, &t, &ppp);
}

/* Jacobian (X·ZZ^2, Y·ZZZ^2, ZZZ): Z^2 = ZZZ^2 = ZZ^3, so X/Z^2 = X/ZZ and Y/Z^3 = Y/ZZZ. */
static void G(to_jac)(JAC *r, const XYZZ *p)
{
	if (G(is_inf)(p)) {
		r->x = fe_one;
		r->y = fe_one;
		memset(&r->z, 0, sizeof(r->z));
		return;
	}
	FE t;
	fe_sqr(&t, &p->zz);
	fe_mul(&r->x, &p->x, &t);
	fe_sqr(&t, &p->zzz);
	fe_mul(&r->y, &p->y, &t);
	r->z = p->zzz;
}

static inline bool G(aff_is_inf)(const AFF *p)
{
	return fe_is_zero(&p->x) && fe_is_zero(&p->y);
}

/* ---- the MSM ---- */

struct G(ctx) {
	const AFF *points;
	const SC *scalars;
	size_t n;
	/* classification (phase 1) */
	uint64_t (*raw)[4];      /* compacted scalars as integers, per class chunk */
	uint32_t *idx;           /* their point indices */
	size_t class_len;        /* elements per class chunk */
	size_t class_count[MSM_CLASS_CHUNKS];
	XYZZ ones[MSM_CLASS_CHUNKS];
	/* Pippenger (phase 2) */
	size_t m;                /* non-trivial scalars after compaction */
	int c, nwin, pchunks;
	uint16_t wst[256];       /* window w: bits wst[w] .. wst[w] + wb[w] − 1; widths c or c − 1, */
	uint8_t wb[256];         /* spread so that no window is a short remainder of 256 bits */
	size_t nbuckets;
	XYZZ *buckets;           /* nsets * nbuckets */
	XYZZ *partials;          /* nwin * pchunks */
	atomic_size_t next_task;
	/* batch-affine accumulation (phase 2, when ba) */
	bool ba;
	size_t batch;            /* additions per shared inversion */
	uint8_t *ba_scratch;     /* nsets * G(ba_set_size)(...) */
	size_t ba_set_bytes;
};

static void G(classify_chunk)(void *vctx, size_t ci, int worker)
{
	struct G(ctx) *x = vctx;
	size_t lo = ci * x->class_len, hi = lo + x->class_len, k = lo;
	if (hi > x->n)
		hi = x->n;
	XYZZ acc;
	G(set_inf)(&acc);
	for (size_t i = lo; i < hi; i++) {
		const SC *s = &x->scalars[i];
		if (sc_is_zero(s) || G(aff_is_inf)(&x->points[i]))
			continue;
		if (sc_is_one(s)) {
			G(add_aff)(&acc, &x->points[i].x, &x->points[i].y);
			continue;
		}
		sc_from_mont(x->raw[k], s);
		x->idx[k++] = (uint32_t)i;
	}
	x->class_count[ci] = lo < hi ? k - lo : 0;
	x->ones[ci] = acc;
}

/* Task t's window (returned: t / pchunks) and point range [lo, hi) (chunk t mod pchunks of the m scalars) */
static inline int G(task_range)(const struct G(ctx) *x, size_t task, size_t *lo, size_t *hi)
{
	size_t per = (x->m + (size_t)x->pchunks - 1) / (size_t)x->pchunks;
	*lo = task % (size_t)x->pchunks * per;
	*hi = *lo + per < x->m ? *lo + per : x->m;
	return (int)(task / (size_t)x->pchunks);
}

/* Window w of one point range: bucket accumulation, then the running-sum reduction. */
static void G(window_task)(struct G(ctx) *x, XYZZ *b, size_t task)
{
	size_t lo, hi;
	int w = G(task_range)(x, task, &lo, &hi);
	for (size_t j = 0; j < x->nbuckets; j++)
		G(set_inf)(&b[j]);
	/* The next bucket and point are prefetched while this addition runs (~0.5 µs),
	 * which hides the cache misses of bucket arrays larger than L2. */
	int dn = lo < hi ? msm_digit(x->raw[lo], x->wst[w], x->wb[w]) : 0;
	for (size_t k = lo; k < hi; k++) {
		int d = dn;
		if (k + 1 < hi) {
			dn = msm_digit(x->raw[k + 1], x->wst[w], x->wb[w]);
			if (dn) {
				const char *pb = (const char *)&b[(dn > 0 ? dn : -dn) - 1];
				const char *pp = (const char *)&x->points[x->idx[k + 1]];
				for (size_t o = 0; o < sizeof(XYZZ); o += 64)
					__builtin_prefetch(pb + o, 1);
				for (size_t o = 0; o < sizeof(AFF); o += 64)
					__builtin_prefetch(pp + o);
				__builtin_prefetch(pp + sizeof(AFF) - 1);
			}
		}
		if (d == 0)
			continue;
		const AFF *p = &x->points[x->idx[k]];
		if (d > 0) {
			G(add_aff)(&b[d - 1], &p->x, &p->y);
		} else {
			FE ny;
			fe_neg(&ny, &p->y);
			G(add_aff)(&b[-d - 1], &p->x, &ny);
		}
	}
	XYZZ run, sum;
	G(set_inf)(&run);
	G(set_inf)(&sum);
	for (size_t j = x->nbuckets; j-- > 0;) {
		G(add)(&run, &run, &b[j]);
		G(add)(&sum, &sum, &run);
	}
	x->partials[task] = sum;
}

/*
 * Batch-affine bucket accumulation. Buckets live in the XYZZ array but are kept
 * affine (x, y only) while their state is BA_AFF; additions bucket += P are
 * collected into a batch of independent affine additions whose denominators share
 * one inversion (Montgomery's trick: 3M each), then applied with λ = num/den:
 *     x3 = λ² - xB - xP,  y3 = λ(xB - x3) - yB          (≈ 5M + 1S + I/batch).
 * A bucket already in the batch is BA_BUSY; a second point for it waits in the
 * conflict queue and is retried after the batch is applied. If the queue is full,
 * the batch is applied early and that bucket switches to XYZZ (BA_XYZZ), taking
 * further points by mixed addition — so many equal digits cost no more than the
 * plain path. P = -B empties the bucket at once; P = B is a doubling entry
 * (num = 3x², den = 2y); both are decided when the point is scheduled — on the scalar
 * path. With the includer's vector apply (G(ba_vec)), ba_place records only (bucket,
 * point, sign) for an affine bucket; num, den and the cases P = ±B are the apply's.
 */

struct G(ba_ent) {
	uint32_t b;     /* bucket */
	uint32_t p;     /* point index | 1u << 31 if negated */
};

struct G(ba) {
	const AFF *points;
	AFF *ab;        /* affine buckets (BA_AFF, BA_BUSY): 96 or 192 bytes, not XYZZ's 2× */
	XYZZ *bk;       /* XYZZ buckets (BA_XYZZ) */
	uint8_t *st;
	struct G(ba_ent) *ent;
	FE *num, *den, *pre;
	uint32_t *q;    /* queued: point index | sign bit, bucket in qb */
	uint32_t *qb;
	size_t nb, nq, cap, qcap;
	void *x8;       /* 64-aligned: ba_apply_fast's lane vectors (6 × (cap/8 + 2) of 8 elements) and bytes */
	bool vec;       /* G(ba_vec)(): ba_place only records entries, the vector ba_apply_fast does the rest */
};
static bool G(ba_vec)(void);
static bool G(ba_apply_fast)(struct G(ba) *s);
static bool G(ba_reduce_fast)(struct G(ba) *s, const XYZZ *bk, size_t nb, XYZZ *out);

static inline void G(ba_point_y)(FE *y, const AFF *p, uint32_t tag)
{
	if (tag >> 31)
		fe_neg(y, &p->y);
	else
		*y = p->y;
}

/* Place point (tag) into bucket b unless b is busy; returns false if it is. */
static inline bool G(ba_place)(struct G(ba) *s, uint32_t b, uint32_t tag)
{
	const AFF *p = &s->points[tag & 0x7fffffffu];
	AFF *B = &s->ab[b];
	switch (s->st[b]) {
	case BA_INF:
		B->x = p->x;
		G(ba_point_y)(&B->y, p, tag);
		s->st[b] = BA_AFF;
		return true;
	case BA_XYZZ: {
		FE y;
		G(ba_point_y)(&y, p, tag);
		G(add_aff)(&s->bk[b], &p->x, &y);
		return true;
	}
	case BA_BUSY:
		return false;
	default:
		break;
	}
	size_t i = s->nb;
	if (s->vec) {   /* den, num and the cases P = ±B are the vector apply's */
		s->ent[i].b = b;
		s->ent[i].p = tag;
		s->st[b] = BA_BUSY;
		s->nb = i + 1;
		return true;
	}
	FE y;
	G(ba_point_y)(&y, p, tag);
	fe_sub(&s->den[i], &p->x, &B->x);
	fe_sub(&s->num[i], &y, &B->y);
	if (fe_is_zero(&s->den[i])) {
		if (!fe_is_zero(&s->num[i])) {    /* P = -B */
			s->st[b] = BA_INF;
			return true;
		}
		FE t;                             /* P = B: λ = 3x² / 2y */
		fe_sqr(&t, &B->x);
		fe_add(&s->num[i], &t, &t);
		fe_add(&s->num[i], &s->num[i], &t);
		fe_add(&s->den[i], &B->y, &B->y);
	}
	s->ent[i].b = b;
	s->ent[i].p = tag;
	s->st[b] = BA_BUSY;
	s->nb = i + 1;
	return true;
}

/* Apply the batch: one inversion, then the additions; every busy bucket is BA_AFF again. */
static void G(ba_apply)(struct G(ba) *s)
{
	size_t n = s->nb;
	if (n > 0 && G(ba_apply_fast)(s)) {   /* the includer's vector path (AVX-512 IFMA) */
		s->nb = 0;
		return;
	}
	if (n > 0) {
		/* MSM_BA_CHAINS interleaved product chains (entry i in chain i mod K), so
		 * that consecutive multiplications are independent and overlap. */
		enum { K = MSM_BA_CHAINS };
		size_t kk = n < K ? n : K;
		for (size_t i = 0; i < kk; i++)
			s->pre[i] = s->den[i];
		for (size_t i = kk; i < n; i++)
			fe_mul(&s->pre[i], &s->pre[i - K], &s->den[i]);
		FE cp[K], ci[K], inv, t, lam, l2;   /* chain products, their prefix, inverses */
		for (size_t k = 0; k < kk; k++) {
			size_t last = n - 1 - ((n - 1 - k) % K) ;   /* largest index ≡ k (mod K) */
			cp[k] = s->pre[last];
		}
		ci[0] = cp[0];
		for (size_t k = 1; k < kk; k++)
			fe_mul(&ci[k], &ci[k - 1], &cp[k]);
		fe_inv(&inv, &ci[kk - 1]);
		for (size_t k = kk; k-- > 0;) {
			if (k > 0) {
				fe_mul(&t, &inv, &ci[k - 1]);
				fe_mul(&inv, &inv, &cp[k]);
				ci[k] = t;                  /* 1 / cp[k] */
			} else {
				ci[0] = inv;
			}
		}
		for (size_t i = n; i-- > 0;) {
			FE *ik = &ci[i % K];
			if (i >= K) {
				fe_mul(&t, ik, &s->pre[i - K]);    /* 1/den[i] */
				fe_mul(ik, ik, &s->den[i]);
			} else {
				t = *ik;
			}
			uint32_t b = s->ent[i].b;
			AFF *B = &s->ab[b];
			const AFF *p = &s->points[s->ent[i].p & 0x7fffffffu];
			fe_mul(&lam, &s->num[i], &t);
			fe_sqr(&l2, &lam);
			fe_sub(&l2, &l2, &B->x);
			fe_sub(&l2, &l2, &p->x);                 /* x3 */
			fe_sub(&t, &B->x, &l2);
			fe_mul(&t, &lam, &t);
			fe_sub(&B->y, &t, &B->y);
			B->x = l2;
			s->st[b] = BA_AFF;
		}
		s->nb = 0;
	}
}

/* Retry the queue; it schedules at most qcap <= cap entries into an empty batch. */
static void G(ba_retry)(struct G(ba) *s)
{
	size_t k = 0;
	for (size_t j = 0; j < s->nq; j++) {
		if (!G(ba_place)(s, s->qb[j], s->q[j])) {
			s->qb[k] = s->qb[j];
			s->q[k++] = s->q[j];
		}
	}
	s->nq = k;
}

static size_t G(ba_set_size)(size_t nbuckets, size_t cap)
{
	size_t sz = (nbuckets + 63) & ~(size_t)63;
	sz += cap * (3 * sizeof(FE) + sizeof(struct G(ba_ent)) + 8);
	sz += nbuckets * sizeof(AFF);
	/* x8: 6 × (cap/8 + 2) vectors of eight elements (512 bytes an Fp lane vector; BN254's 320 fit) and a byte each */
	sz += (cap / 8 + 2) * (6 * 512 * ((sizeof(FE) + sizeof(zp_fp) - 1) / sizeof(zp_fp)) + 1) + 64;
	return sz + 64;
}

static void G(window_task_ba)(struct G(ctx) *x, XYZZ *b, uint8_t *scr, size_t task)
{
	size_t lo, hi;
	int w = G(task_range)(x, task, &lo, &hi);
	struct G(ba) s = { .points = x->points, .bk = b, .cap = x->batch, .qcap = x->batch, .vec = G(ba_vec)() };
	s.num = (FE *)(((uintptr_t)scr + 63) & ~(uintptr_t)63);
	s.den = s.num + s.cap;
	s.pre = s.den + s.cap;
	s.ent = (struct G(ba_ent) *)(s.pre + s.cap);
	s.q = (uint32_t *)(s.ent + s.cap);
	s.qb = s.q + s.qcap;
	s.ab = (AFF *)(s.qb + s.qcap);
	s.st = (uint8_t *)(s.ab + x->nbuckets);
	s.x8 = (void *)(((uintptr_t)(s.st + x->nbuckets) + 63) & ~(uintptr_t)63);
	memset(s.st, BA_INF, x->nbuckets);
	/* Scalar batch: the bucket and point of the entry PF ahead are prefetched (ba_place reads
	 * both). Vector batch: ba_place reads neither for an affine bucket, the entry is recorded
	 * inline, and no prefetch (measured: prefetching the points of empty buckets cost ~4 %). */
	enum { PF = 8 };
	/* locals: the byte stores to s.st may alias anything, which would reload these every entry */
	const uint64_t (*const raw)[4] = (const uint64_t (*)[4])x->raw;
	const uint32_t *const idx = x->idx;
	const int ws = x->wst[w], wbits = x->wb[w];
	uint8_t *const st = s.st;
	struct G(ba_ent) *const ent = s.ent;
	for (size_t k = lo; k < hi; k++) {
		if (!s.vec && k + PF < hi) {
			int dn = msm_digit(raw[k + PF], ws, wbits);
			if (dn) {
				const char *pb = (const char *)&s.ab[(dn > 0 ? dn : -dn) - 1];
				const char *pp = (const char *)&x->points[idx[k + PF]];
				for (size_t o = 0; o < sizeof(AFF); o += 64)
					__builtin_prefetch(pb + o, 1);
				__builtin_prefetch(pb + sizeof(AFF) - 1, 1);
				for (size_t o = 0; o < sizeof(AFF); o += 64)
					__builtin_prefetch(pp + o);
				__builtin_prefetch(pp + sizeof(AFF) - 1);
			}
		}
		int d = msm_digit(raw[k], ws, wbits);
		if (d == 0)
			continue;
		uint32_t bi = (uint32_t)((d > 0 ? d : -d) - 1);
		uint32_t tag = idx[k] | (d < 0 ? 1u << 31 : 0);
		if (s.vec && st[bi] == BA_AFF) {
			size_t nb = s.nb;
			ent[nb].b = bi;
			ent[nb].p = tag;
			st[bi] = BA_BUSY;
			s.nb = ++nb;
			while (s.nb == s.cap) {
				G(ba_apply)(&s);
				G(ba_retry)(&s);
			}
			continue;
		}
		if (!G(ba_place)(&s, bi, tag)) {
			if (s.nq < s.qcap) {
				s.qb[s.nq] = bi;
				s.q[s.nq++] = tag;
			} else {
				/* many points for one bucket: apply now, then make it XYZZ
				 * (zz = 0 is its infinity) so that it takes points directly */
				G(ba_apply)(&s);
				if (s.st[bi] == BA_AFF) {
					s.bk[bi].x = s.ab[bi].x;
					s.bk[bi].y = s.ab[bi].y;
					s.bk[bi].zz = fe_one;
					s.bk[bi].zzz = fe_one;
				} else {
					G(set_inf)(&s.bk[bi]);
				}
				s.st[bi] = BA_XYZZ;
				G(ba_place)(&s, bi, tag);
				G(ba_retry)(&s);
			}
		}
		while (s.nb == s.cap) {
			G(ba_apply)(&s);
			G(ba_retry)(&s);
		}
	}
	while (s.nb > 0 || s.nq > 0) {
		G(ba_apply)(&s);
		G(ba_retry)(&s);
	}
	XYZZ run, sum;
	size_t nbw = (size_t)1 << (x->wb[w] - 1);   /* buckets this window's digits reach */
	if (nbw > x->nbuckets)
		nbw = x->nbuckets;
	if (!G(ba_reduce_fast)(&s, b, nbw, &sum)) {   /* the includer's vector running sums */
		G(set_inf)(&run);
		G(set_inf)(&sum);
		for (size_t j = nbw; j-- > 0;) {
			if (s.st[j] == BA_AFF)
				G(add_aff)(&run, &s.ab[j].x, &s.ab[j].y);
			else if (s.st[j] == BA_XYZZ)
				G(add)(&run, &run, &b[j]);
			G(add)(&sum, &sum, &run);
		}
	}
	x->partials[task] = sum;
}

static void G(set_worker)(void *vctx, size_t set, int worker)
{
	struct G(ctx) *x = vctx;
	XYZZ *b = x->buckets + set * x->nbuckets;
	size_t ntasks = (size_t)x->nwin * (size_t)x->pchunks;
	for (;;) {
		size_t t = atomic_fetch_add_explicit(&x->next_task, 1, memory_order_relaxed);
		if (t >= ntasks)
			return;
		if (x->ba)
			G(window_task_ba)(x, b, x->ba_scratch + set * x->ba_set_bytes, t);
		else
			G(window_task)(x, b, t);
	}
}

/* Scratch layout: raw[n] | idx[n] | buckets[sets * 2^(c-1)] | partials[MSM_MAX_TASKS]
 * | batch-affine state per set (when the batch path may run). The window is sized
 * for the larger choice of the two paths, since m <= n may pick either. */
static size_t G(scratch_for)(size_t n, int sets)
{
	int c = msm_window_max(n);
	size_t sz = n * 32 + ((n * 4 + 63) & ~(size_t)63);
	sz += (size_t)sets * ((size_t)1 << (c - 1)) * sizeof(XYZZ);
	sz += (size_t)msm_max_tasks(sets) * sizeof(XYZZ);
	if (msm_use_ba(n, BA_MIN))
		sz += (size_t)sets * G(ba_set_size)((size_t)1 << (c - 1), msm_batch(c));
	return sz + 64;
}

static int G(msm)(JAC *out, const AFF *points, const SC *scalars, size_t n,
		  void *scratch, size_t scratch_len)
{
	if (n >= ((size_t)1 << 32))
		return zp_err_set(ZP_ERANGE, "msm: %zu points is more than 2^32 - 1", n);
	int threads = zp_par_threads(), sets = threads;
	while (sets > 1 && G(scratch_for)(n, sets) > scratch_len)
		sets--;
	if (G(scratch_for)(n, sets) > scratch_len)
		return zp_err_set(ZP_ERANGE, "msm: scratch of %zu bytes, need %zu for n = %zu",
				  scratch_len, G(scratch_for)(n, sets), n);
	struct G(ctx) *x = &(struct G(ctx)){ .points = points, .scalars = scalars, .n = n };
	uint8_t *s = (uint8_t *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
	x->raw = (uint64_t(*)[4])s;
	x->idx = (uint32_t *)(s + n * 32);
	size_t nclass;
	x->class_len = msm_chunks(n, &nclass);

	/* phase 1: skip zeros and infinities, sum the ones, convert the rest */
	zp_par_for(nclass, G(classify_chunk), x);
	XYZZ acc;
	G(set_inf)(&acc);
	size_t m = 0;
	for (size_t ci = 0; ci < nclass; ci++) {
		G(add)(&acc, &acc, &x->ones[ci]);
		size_t lo = ci * x->class_len, cnt = x->class_count[ci];
		if (lo != m && cnt) {
			memmove(x->raw[m], x->raw[lo], cnt * 32);
			memmove(&x->idx[m], &x->idx[lo], cnt * 4);
		}
		m += cnt;
	}

	/* phase 2: Pippenger on the m remaining scalars */
	if (m > 0) {
		x->m = m;
		x->ba = msm_use_ba(m, BA_MIN);    /* implies msm_use_ba(n): scratch has it */
		x->c = msm_window(m, x->ba);
		x->nwin = (256 + x->c - 1) / x->c;
		x->nbuckets = (size_t)1 << (x->c - 1);
		/* 256 bits over nwin windows as evenly as possible (c = 13: 16 of 13 bits and 4 of 12, not
		 * 19 of 13 and one of 9, whose few buckets overflowed the batch-affine conflict queue) */
		for (int w = 0, pos = 0; w < x->nwin; w++) {
			x->wb[w] = (uint8_t)(256 / x->nwin + (w < 256 % x->nwin));
			x->wst[w] = (uint16_t)pos;
			pos += x->wb[w];
		}
		x->pchunks = msm_point_chunks(m, x->nwin, sets);
		x->buckets = (XYZZ *)(((uintptr_t)(s + n * 36) + 63) & ~(uintptr_t)63);
		x->partials = x->buckets + (size_t)sets * ((size_t)1 << (msm_window_max(n) - 1));
		if (x->ba) {
			x->batch = msm_batch(x->c);
			x->ba_set_bytes = G(ba_set_size)(x->nbuckets, x->batch);
			x->ba_scratch = (uint8_t *)(x->partials + msm_max_tasks(sets));
		}
		atomic_init(&x->next_task, 0);
		int nsets = sets;
		if ((size_t)nsets > (size_t)x->nwin * (size_t)x->pchunks)
			nsets = x->nwin * x->pchunks;
		zp_par_for((size_t)nsets, G(set_worker), x);
		/* Horner over windows, top first: acc_w = 2^c·acc_(w+1) + W_w */
		XYZZ tot;
		G(set_inf)(&tot);
		for (int w = x->nwin - 1; w >= 0; w--) {
			for (int i = 0; i < x->wb[w] && w != x->nwin - 1; i++)
				G(dbl)(&tot, &tot);
			for (int pc = 0; pc < x->pchunks; pc++)
				G(add)(&tot, &tot, &x->partials[(size_t)w * x->pchunks + pc]);
		}
		G(add)(&acc, &acc, &tot);
	}
	G(to_jac)(out, &acc);
	return 0;
}

struct G(sel_ctx) {
	const AFF *points;
	const uint8_t *sel;
	size_t n, len;
	XYZZ part[MSM_CLASS_CHUNKS];
};

static void G(sel_chunk)(void *vctx, size_t ci, int worker)
{
	struct G(sel_ctx) *x = vctx;
	size_t lo = ci * x->len, hi = lo + x->len;
	if (hi > x->n)
		hi = x->n;
	XYZZ acc;
	G(set_inf)(&acc);
	for (size_t i = lo; i < hi; i++)
		if (x->sel[i] && !G(aff_is_inf)(&x->points[i]))
			G(add_aff)(&acc, &x->points[i].x, &x->points[i].y);
	x->part[ci] = acc;
}

static void G(sum_selected)(JAC *out, const AFF *points, const uint8_t *sel, size_t n)
{
	struct G(sel_ctx) *x = &(struct G(sel_ctx)){ .points = points, .sel = sel, .n = n };
	size_t nchunk;
	x->len = msm_chunks(n, &nchunk);
	zp_par_for(nchunk, G(sel_chunk), x);
	XYZZ acc;
	G(set_inf)(&acc);
	for (size_t ci = 0; ci < nchunk; ci++)
		G(add)(&acc, &acc, &x->part[ci]);
	G(to_jac)(out, &acc);
}
