/*
 * backend_cuda_proof.c — the CUDA backend's per-proof path (backend_cuda_impl.h): the input upload, the
 * staged ranges of a streamed key (cu_kp_*), the H step and H MSM (beside the witness MSMs on a second
 * host thread when the plan has room), the witness MSMs with their 0/1 split, and cu_prove(), which a key
 * format calls with its witness step; the expanded key format (cu_fmt_expanded).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend_cuda_impl.h"
#include "backends.h"
#include "par.h"

static int kp_issue(struct cu *s, struct kpipe *q)
{
	if (q->next >= q->n)
		return 0;
	const struct kitem *it = &q->it[q->next];
	int sl = (int)(q->next & 1), rc;
	size_t pt = it->which >= KI_W ? sizeof(zp_fr) : s->pt[it->which == ZP_CUDA_ARR_B2];
	const void *src = it->which >= KI_W ? (const void *)s->fmt->scalars(s, it)
					     : (const void *)((const char *)s->h_pts[it->which] + it->first * pt);
	if ((rc = zp_cuda_stream_wait(q->cs, q->fr[sl])) || (rc = zp_cuda_copy_to_dev(q->slot[sl], src, it->m * pt, q->cs)) ||
	    (rc = zp_cuda_event_record(q->up[sl], q->cs)))
		return rc;
	q->next++;
	return 0;
}

int cu_kp_start(struct cu *s, struct kpipe *q, const struct kitem *it, size_t n, int kind)
{
	*q = (struct kpipe){ it, n, 0, kind, { NULL, NULL }, s->sst, s->ev_up[kind & 1], s->ev_free[kind & 1] };
	if (kind == 2) {   /* the buffers the H step left free */
		q->slot[0] = s->hb_slot[0], q->slot[1] = s->hb_slot[1];
		q->cs = s->hsst, q->up = s->hev_up, q->fr = s->hev_free;
	} else {
		q->slot[0] = kind ? (void *)s->d_ws[0] : s->d_ks[0];
		q->slot[1] = kind ? (void *)s->d_ws[1] : s->d_ks[1];
	}
	int rc = kp_issue(s, q);
	return rc ? rc : kp_issue(s, q);
}

/* The stream that sums a pipe's ranges: the H MSM's beside the witness on st, the others on ms. */
static void *kp_xs(const struct cu *s, const struct kpipe *q)
{
	return q->kind == 2 ? s->st : s->ms;
}

/* Item j's slot, once its copy is done (the compute stream waits, the host does not). */
int cu_kp_take(struct cu *s, struct kpipe *q, size_t j, void **d)
{
	int sl = (int)(j & 1);
	*d = q->slot[sl];
	return zp_cuda_stream_wait(kp_xs(s, q), q->up[sl]);
}

/* Done with item j (everything queued that reads its slot): the slot takes item j + 2. */
int cu_kp_done(struct cu *s, struct kpipe *q, size_t j)
{
	int rc = zp_cuda_event_record(q->fr[j & 1], kp_xs(s, q));
	return rc ? rc : kp_issue(s, q);
}

/* The witness MSMs' order within a range: C first (its first range may start past the range's start:
 * its own list), then A, B1, B2 on the range's list. */
const int cu_wit_order[4] = { ZP_CUDA_ARR_C, ZP_CUDA_ARR_A, ZP_CUDA_ARR_B1, ZP_CUDA_ARR_B2 };

/* The ranges of query q within wire range [off, off + m): wires [*lo, off + m), its points from
 * *lo − its first wire. 0 when q has none there. */
static size_t q_range(const struct cu *s, int q, size_t off, size_t m, size_t *lo, size_t *first)
{
	size_t qlo = q == ZP_CUDA_ARR_C ? s->np + 1 : 0;
	*lo = off > qlo ? off : qlo;
	if (*lo >= off + m)
		return 0;
	*first = *lo - qlo;
	return off + m - *lo;
}

/* The staged ranges of a streamed plan, made once at create. */
int cu_kp_plan(struct cu *s)
{
	size_t hst = s->plan.hst ? s->plan.hst : s->kst;   /* H's ranges: G1 points, as many as a slot holds */
	size_t nr = (s->nv + s->kst - 1) / s->kst, nh = (s->dom + hst - 1) / hst;
	if (!(s->wit_it = calloc(4 * nr + 1, sizeof *s->wit_it)) || !(s->w_it = calloc(4 * nr + 1, sizeof *s->w_it)) ||
	    !(s->h_it = calloc(nh + 1, sizeof *s->h_it)))
		return zp_err_set(-ENOMEM, "CUDA backend: staging lists");
	s->fmt->ranges(s);   /* the witness MSMs' ranges (and the lean set's scalars), by key format */
	if (!s->plan.res[ZP_CUDA_ARR_H])
		for (size_t off = 0; off < s->dom; off += hst)
			s->h_it[s->n_h_it++] = (struct kitem){ ZP_CUDA_ARR_H, off, s->dom - off < hst ? s->dom - off : hst };
	for (int i = 0; i < 4; i++) {
		int rc;
		if ((rc = zp_cuda_event_create(&s->ev_up[i / 2][i % 2])) || (rc = zp_cuda_event_create(&s->ev_free[i / 2][i % 2])))
			return rc;
	}
	if (s->plan.hb_st) {   /* the H MSM beside the witness MSMs: ranges of hb_st in the set's free buffers */
		size_t hb = s->plan.hb_st, n = (s->dom + hb - 1) / hb;
		char *base = (char *)s->buf[0].d_abc + s->dom * sizeof(zp_fr);
		int rc;
		if (!(s->hb_it = calloc(n + 1, sizeof *s->hb_it)))
			return zp_err_set(-ENOMEM, "CUDA backend: staging lists");
		for (size_t off = 0; off < s->dom; off += hb)
			s->hb_it[s->n_hb_it++] = (struct kitem){ ZP_CUDA_ARR_H, off, s->dom - off < hb ? s->dom - off : hb };
		s->hb_slot[0] = base;
		s->hb_slot[1] = base + align256(hb * s->pt[0]);
		s->hb_scr = base + 2 * align256(hb * s->pt[0]);
		for (int i = 0; i < 2; i++)
			if ((rc = zp_cuda_event_create(&s->hev_up[i])) || (rc = zp_cuda_event_create(&s->hev_free[i])))
				return rc;
		if ((rc = zp_cuda_event_create(&s->hev_go)) || (rc = zp_cuda_stream_create(&s->hsst)))
			return rc;
	}
	return zp_cuda_stream_create(&s->sst);
}


/* len bytes host → device on the copy stream: directly from registered memory, else through the
 * two pinned staging buffers in turn (the caller's thread does the memcpy into them). */
int cu_copy_in(struct cu *s, void *dst, const void *src, size_t len)
{
	int rc = 0;
	if (zp_cuda_host_registered(src, len)) {
		if ((rc = zp_cuda_copy_to_dev(dst, src, len, s->cst)))
			goto err;
		return 0;
	}
	for (size_t off = 0; off < len; off += CU_STAGE_BYTES) {
		size_t m = len - off < CU_STAGE_BYTES ? len - off : CU_STAGE_BYTES;
		int j = s->pin_i;
		s->pin_i ^= 1;
		if ((rc = zp_cuda_event_sync(s->pin_ev[j])))
			goto err;
		memcpy(s->pin[j], (const char *)src + off, m);
		if ((rc = zp_cuda_copy_to_dev((char *)dst + off, s->pin[j], m, s->cst)))
			goto err;
		if ((rc = zp_cuda_event_record(s->pin_ev[j], s->cst)))
			goto err;
	}
	return 0;
err:
	return rc;
}

/* The lean set's host copies of w and c, made by the pool's threads (one proof's are GiBs at 2^27). */
struct hcopy { char *dst; const char *src; size_t len; };
#define HCOPY_PIECE ((size_t)64 << 20)
static void hcopy_one(void *ctx, size_t i, int worker)
{
	const struct hcopy *h = ctx;
	size_t off = i * HCOPY_PIECE, m = h->len - off < HCOPY_PIECE ? h->len - off : HCOPY_PIECE;
	(void)worker;
	memcpy(h->dst + off, h->src + off, m);
}
void cu_hcopy(void *dst, const void *src, size_t len)
{
	struct hcopy h = { dst, src, len };
	zp_par_for((len + HCOPY_PIECE - 1) / HCOPY_PIECE, hcopy_one, &h);
}

int cu_upload_async(void *state, int b, const zp_fr *w, const zp_fr *a, const zp_fr *bb, const zp_fr *c)
{
	struct cu *s = state;
	size_t fr = sizeof(zp_fr), d = s->dom * fr;
	int rc = 0;
	if (b < 0 || b >= s->nbuf)
		return zp_err_set(ZP_ERANGE, "CUDA backend: input set %d of %d", b, s->nbuf);
	struct cubuf *u = &s->buf[b];
	if ((rc = zp_cuda_set_device(s->dev)))
		goto err;
	if (s->plan.lean) { /* a, b up; w and c into the host copies the proof reads them from */
		if ((rc = cu_copy_in(s, u->d_abc, a, d)) || (rc = cu_copy_in(s, (char *)u->d_abc + d, bb, d)))
			return rc;
		cu_hcopy(s->h_w, w, s->nv * fr);
		cu_hcopy(s->h_c, c, d);
	} else if ((rc = cu_copy_in(s, u->d_w, w, s->nv * fr)) || (rc = cu_copy_in(s, u->d_abc, a, d)) ||
		   (rc = cu_copy_in(s, (char *)u->d_abc + d, bb, d)) || (rc = cu_copy_in(s, (char *)u->d_abc + 2 * d, c, d))) {
		return rc;
	}
	if ((rc = zp_cuda_event_record(u->copied, s->cst)))
		goto err;
	return 0;
err:
	return rc;
}

int cu_upload_wait(void *state, int b)
{
	struct cu *s = state;
	int rc = 0;
	if (b < 0 || b >= s->nbuf)
		return zp_err_set(ZP_ERANGE, "CUDA backend: input set %d of %d", b, s->nbuf);
	if ((rc = zp_cuda_set_device(s->dev)))
		goto err;
	if ((rc = zp_cuda_event_sync(s->buf[b].copied)))
		goto err;
	return 0;
err:
	return rc;
}

int cu_upload(void *state, const zp_fr *w, zp_fr *a, zp_fr *b, zp_fr *c)
{
	int rc = cu_upload_async(state, 0, w, a, b, c);
	return rc ? rc : cu_upload_wait(state, 0);
}

/* A device MSM's result of either group (a Jacobian point of the key's curve), added into acc. */
typedef struct { uint64_t w[CU_JAC_WORDS]; } cu_res;
static void add_res(const struct cu *s, int g2, void *acc, const cu_res *r)
{
	s->cc->jac_add(g2, acc, r->w);
}

/* The H MSM: n general scalars, in chunks (its bases streamed: range by range through the staging). */
static int msm_chunked_g1(struct cu *s, void *out, const void *d_bases, const zp_fr *d_sc, size_t n)
{
	if (!s->kstream || s->plan.res[ZP_CUDA_ARR_H])
		return zp_cuda_curve_msm_chunked(s->cc, 0, out, d_bases, d_sc, n, s->hchunk, s->d_scratch, s->scratch_len,
						 s->st);
	struct kpipe q;
	int rc = cu_kp_start(s, &q, s->h_it, s->n_h_it, 0);
	s->cc->jac_set_inf(0, out);
	for (size_t j = 0; !rc && j < s->n_h_it; j++) {
		const struct kitem *it = &s->h_it[j];
		void *bases;
		cu_res part;
		if (!(rc = cu_kp_take(s, &q, j, &bases)) &&
		    !(rc = zp_cuda_curve_msm_chunked(s->cc, 0, part.w, bases, d_sc + it->first, it->m, s->hchunk, s->d_scratch,
						     s->scratch_len, s->st))) {
			add_res(s, 0, out, &part);
			rc = cu_kp_done(s, &q, j);
		}
	}
	if (rc)
		zp_cuda_stream_sync(s->sst);
	return rc;
}

/* Add Σ of the bases whose scalar is 1 into out, in chunks: with idx, the bases at idx[0..n) − off
 * (the ones list, zp_cuda_msm_g*_sum_idx); without, the 0/1 kernel over bases[0..n) and w[0..n). */
int cu_ones_add(struct cu *s, int g2, void *out, const void *bases, const zp_fr *w, const uint32_t *idx, size_t n,
		    uint32_t off)
{
	size_t pt = s->pt[g2], c1 = s->ones_chunk[g2];
	for (size_t j = 0; j < n; j += c1) {
		size_t m = n - j < c1 ? n - j : c1;
		const void *bp = (const char *)bases + (idx ? 0 : j * pt);
		cu_res r;
		int rc = idx ? s->cc->msm_sum_idx(g2, r.w, bp, idx + j, m, off, s->d_scratch, s->scratch_len, s->ms)
			     : s->cc->msm_ones(g2, r.w, bp, w + j, m, s->d_scratch, s->scratch_len, s->ms);
		if (rc)
			return rc;
		add_res(s, g2, out, &r);
	}
	return 0;
}

/* Add Σ w[idx[j]]·bases[idx[j] − b_off] over j < n into out: gathered chunk by chunk into the
 * scratch's head, summed by the bucket MSM in the rest. With wsplit, bases holds 4·blen split bases
 * and the n entries go through the split MSM in one piece (n ≤ nv, sized at create). */
int cu_nonbits_add(struct cu *s, int g2, void *out, const void *bases, size_t blen, uint32_t b_off, const zp_fr *w,
		       const uint32_t *idx, size_t n)
{
	size_t pt = s->pt[g2], c = s->chunk[g2];
	int rc;
	if (s->wsplit && !s->kstream) {
		char *gsc = s->d_scratch, *gpt = gsc + align256(n * sizeof(zp_fr)), *rest = gpt + align256(4 * n * pt);
		zp_cuda_msm_opts o = { .window = 0, .stream = s->ms };
		cu_res r;
		if (!n)
			return 0;
		if ((rc = zp_cuda_gather(gsc, w, sizeof(zp_fr), idx, n, 0, s->ms)))
			return rc;
		for (int j = 0; j < 4; j++)
			if ((rc = zp_cuda_gather(gpt + j * n * pt, (const char *)bases + j * blen * pt, pt, idx, n, b_off, s->ms)))
				return rc;
		size_t rest_len = s->scratch_len - (size_t)(rest - gsc);
		int p = zp_cuda_curve_msm_passes(s->cc, g2, n, 4, rest_len);   /* all windows at once unless n picks a window whose scratch
		                                             outgrows the one sized for nv entries */
		if (p < 0)
			return zp_err_set(ZP_ERANGE, "msm: %zu bytes of scratch cannot hold one window of %zu split entries",
					  rest_len, 4 * n);
		o.pass_windows = (unsigned)p;
		if ((rc = s->cc->msm_split(g2, r.w, gpt, gsc, n, 4, rest, rest_len, &o)))
			return rc;
		add_res(s, g2, out, &r);
		return 0;
	}
	char *gsc = s->d_scratch, *gpt = gsc + align256(c * sizeof(zp_fr)), *rest = gpt + align256(c * pt);
	size_t rest_len = s->scratch_len - (size_t)(rest - gsc);
	for (size_t j = 0; j < n; j += c) {
		size_t m = n - j < c ? n - j : c;
		if ((rc = zp_cuda_gather(gsc, w, sizeof(zp_fr), idx + j, m, 0, s->ms)) ||
		    (rc = zp_cuda_gather(gpt, bases, pt, idx + j, m, b_off, s->ms)) ||
		    (rc = zp_cuda_curve_msm_add(s->cc, s->ms, g2, out, gpt, gsc, m, rest, rest_len)))
			return rc;
	}
	return 0;
}

/* The witness MSMs of a streamed plan, range by range of kst wires: the range's w (resident, or the lean
 * set's staged copy), then per query (cu_wit_order) its bases (resident, or staged) through the 0/1 kernel
 * and the bucket MSM of the range's entries neither 0 nor 1, listed once per range. */
static int msm_streamed(struct cu *s, const zp_fr *d_w, zp_g16_msm_out *out, int only_streamed)
{
	struct kpipe kq, wq;
	size_t kj = 0, r = 0;
	int rc;
	const void *res_d[4] = { s->d_a, s->d_b1, s->d_b2, s->d_c };
	for (int q = 0; q < 4; q++)
		if (!only_streamed || !s->plan.res[q])
			s->cc->jac_set_inf(q == ZP_CUDA_ARR_B2, cu_out(s, out, q));
	if ((rc = cu_kp_start(s, &kq, s->wit_it, s->n_wit_it, 0)) || (rc = cu_kp_start(s, &wq, s->w_it, s->n_w_it, 1)))
		goto out;
	for (size_t off = 0; off < s->nv; off += s->kst, r++) {
		size_t m = s->nv - off < s->kst ? s->nv - off : s->kst, cnt = 0;
		const zp_fr *w = d_w ? d_w + off : NULL;
		int listed = 0;
		if (!d_w && (rc = cu_kp_take(s, &wq, r, (void **)&w)))
			goto out;
		for (int k = 0; k < 4; k++) {
			int q = cu_wit_order[k], g2 = q == ZP_CUDA_ARR_B2;
			size_t lo, first, mq = q_range(s, q, off, m, &lo, &first), n2 = 0;
			const zp_fr *wr = w + (lo - off);
			void *bases;
			if (!mq || (only_streamed && s->plan.res[q]))
				continue;
			if (s->plan.res[q])
				bases = (char *)res_d[q] + first * s->pt[g2];
			else if ((rc = cu_kp_take(s, &kq, kj, &bases)))
				goto out;
			if ((rc = cu_ones_add(s, g2, cu_out(s, out, q), bases, wr, NULL, mq, 0)))
				goto out;
			if (lo != off) {   /* C's first range: a list of its own (the range's is made after it) */
				if ((rc = s->cc->nonbits(s->d_idx, &n2, wr, mq, s->d_sel, s->sel_len, s->ms)) ||
				    (rc = cu_nonbits_add(s, g2, cu_out(s, out, q), bases, mq, 0, wr, s->d_idx, n2)))
					goto out;
			} else {
				if (!listed && (rc = s->cc->nonbits(s->d_idx, &cnt, w, m, s->d_sel, s->sel_len, s->ms)))
					goto out;
				listed = 1;
				if ((rc = cu_nonbits_add(s, g2, cu_out(s, out, q), bases, mq, 0, wr, s->d_idx, cnt)))
					goto out;
			}
			if (!s->plan.res[q] && (rc = cu_kp_done(s, &kq, kj++)))
				goto out;
		}
		if (!d_w && (rc = cu_kp_done(s, &wq, r)))
			goto out;
	}
out:
	if (rc)
		zp_cuda_stream_sync(s->sst);
	return rc;
}

/* Σ_{i in [lo, nw)} w_i·P_{i−lo} (nw: d_w's entries), split: the ones listed in d_one[q_lo, n_one) summed by
 * zp_cuda_msm_g*_sum_idx, the
 * entries listed in d_idx[p_lo, n_nb) (those not 0/1, ascending) gathered and summed by the bucket MSM. */
static int msm_split(struct cu *s, int g2, int q, void *out, const void *d_bases, size_t blen, const zp_fr *d_w,
		     size_t nw, size_t lo, size_t p_lo, size_t n_nb, size_t q_lo, size_t n_one)
{
	int rc;
	const uint32_t *l;
	size_t m;
	s->cc->jac_set_inf(g2, out);
	l = s->d_one + q_lo, m = n_one - q_lo;
	if (s->dens && (rc = zp_cuda_filter_idx(s->d_fl, &m, l, m, s->d_nz[q], (uint32_t)lo, s->d_ftmp, s->ftmp_len, s->ms)))
		return rc;
	if ((rc = cu_ones_add(s, g2, out, d_bases, NULL, s->dens ? s->d_fl : l, m, (uint32_t)lo)))
		return rc;
	l = s->d_idx + p_lo, m = n_nb - p_lo;
	if (s->dens && (rc = zp_cuda_filter_idx(s->d_fl, &m, l, m, s->d_nz[q], (uint32_t)lo, s->d_ftmp, s->ftmp_len, s->ms)))
		return rc;
	return cu_nonbits_add(s, g2, out, d_bases, blen, (uint32_t)lo, d_w, s->dens ? s->d_fl : l, m);
}

/* ZP_CUDA_VERBOSE=2: each stage of a proof waits for the GPU and prints its time (costs the overlap
 * of host adds with the next stage's launch, and that of the witness MSMs with the H step; for finding
 * what bounds the GPU stage). */
static double stage_t0;
void cu_stage(struct cu *s, const char *what)
{
	if (verbose() < 2)
		return;
	struct timespec ts;
	zp_cuda_stream_sync(s->st);
	if (s->ms != s->st)
		zp_cuda_stream_sync(s->ms);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double t = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
	if (what)
		fprintf(stderr, "CUDA backend: %-10s %8.2f ms\n", what, t - stage_t0);
	stage_t0 = t;
}

/* The H step on the compute stream (asynchronous: the H MSM, after it on the same stream, waits). */
static int h_step(struct cu *s, int b)
{
	int rc = 0;
	zp_fr *da = s->buf[b].d_abc, *db = da + s->dom, *dc = db + s->dom;
	if ((rc = zp_cuda_set_device(s->dev)))
		goto err;
	zp_cuda_clear_error(); /* a previous proof's non-sticky error must not fail this one's first launch */
	if ((rc = zp_cuda_stream_wait(s->st, s->buf[b].copied)))
		goto err;
	cu_stage(s, NULL);
	enum zp_cuda_h_mode hm = s->key->h_mode == ZP_H_SNARKJS ? ZP_CUDA_H_SNARKJS : ZP_CUDA_H_BELLPERSON;
	if (s->plan.lean) {   /* two buffers: a·b first, then c up into b's (the host copy is page-locked) */
		if ((rc = zp_cuda_groth16_h_part(s->ntt, da, db, 0, s->log_dom, hm, s->st)) ||
		    (rc = zp_cuda_copy_to_dev(db, s->h_c, s->dom * sizeof(zp_fr), s->st)) ||
		    (rc = zp_cuda_groth16_h_part(s->ntt, da, db, 1, s->log_dom, hm, s->st)))
			return rc;
	} else if ((rc = zp_cuda_groth16_h(s->ntt, da, db, dc, s->log_dom, hm, s->st))) {
		return rc;    /* zp_err_msg() names the failing CUDA call */
	}
	cu_stage(s, "H step");
	return 0;
err:
	return rc;
}

/* The H MSM over the H step's result (the whole scratch is its: nothing else may use it meanwhile). */
static int h_msm(struct cu *s, int b, void *h)
{
	int rc = 0;
	zp_fr *da = s->buf[b].d_abc;
	if (s->hsplit) {
		zp_cuda_msm_opts o = { .window = 0, .stream = s->st, .pass_windows = s->hpass };
		cu_res r;
		s->cc->jac_set_inf(0, h);
		if (!(rc = s->cc->msm_split(0, r.w, s->d_h, da, s->dom, (unsigned)s->hsplit, s->d_scratch, s->scratch_len, &o)))
			add_res(s, 0, h, &r);
	} else {
		rc = msm_chunked_g1(s, h, s->d_h, da, s->dom);
	}
	cu_stage(s, "H MSM");
	return rc;
}

/* The H MSM beside the witness MSMs (plan.hb_st): on st after the H step, its ranges staged on hsst into the
 * buffers the H step left free (hsst waits for hev_go, recorded on st after the H step), each range summed
 * in chunks of hb_st with the rest of those buffers as scratch. Runs on a thread of its own (h_beside_main):
 * every MSM call waits for its result. */
static int h_msm_beside(struct cu *s, void *h)
{
	const zp_fr *da = s->buf[0].d_abc;
	struct kpipe q;
	int rc;
	if ((rc = zp_cuda_set_device(s->dev)) || (rc = zp_cuda_stream_wait(s->hsst, s->hev_go)))
		return rc;
	s->cc->jac_set_inf(0, h);
	rc = cu_kp_start(s, &q, s->hb_it, s->n_hb_it, 2);
	for (size_t j = 0; !rc && j < s->n_hb_it; j++) {
		const struct kitem *it = &s->hb_it[j];
		void *bases;
		cu_res part;
		if (!(rc = cu_kp_take(s, &q, j, &bases)) &&
		    !(rc = zp_cuda_curve_msm_chunked(s->cc, 0, part.w, bases, da + it->first, it->m, s->plan.hb_st, s->hb_scr,
						     s->plan.hb_scratch, s->st))) {
			add_res(s, 0, h, &part);
			rc = cu_kp_done(s, &q, j);
		}
	}
	int e = zp_cuda_stream_sync(s->hsst);
	return rc ? rc : e;
}

struct hb_job { struct cu *s; void *h; int rc; char err[512]; };

static void *h_beside_main(void *arg)
{
	struct hb_job *j = arg;
	void *tev5 = j->s->tev[5];
	if (!(j->rc = h_msm_beside(j->s, j->h)) && verbose() >= 1)
		j->rc = zp_cuda_event_record(tev5, j->s->st);
	if (j->rc)
		snprintf(j->err, sizeof j->err, "%s", zp_err_msg());
	return NULL;
}

static int h_buf(struct cu *s, int b, void *h)
{
	int rc = h_step(s, b);
	return rc ? rc : h_msm(s, b, h);
}

/* List on the device (d) the indices of the nw (<= nv) entries of dw that are 1 (ones) or neither 0 nor 1,
 * their number in *n, and in *below how many of them are < np + 1 (the C query covers w[np+1..nv);
 * at most np + 1 such entries, read back through h). */
static int list_idx(struct cu *s, int ones, const zp_fr *dw, size_t nw, uint32_t *d, uint32_t *h, size_t *n,
		    size_t *below)
{
	int rc = ones ? s->cc->ones(d, n, dw, nw, s->d_sel, s->sel_len, s->ms)
		      : s->cc->nonbits(d, n, dw, nw, s->d_sel, s->sel_len, s->ms);
	if (rc)
		return rc;
	size_t head = *n < s->np + 1 ? *n : s->np + 1;
	if (head) {
		if ((rc = zp_cuda_copy_to_host(h, d, head * sizeof(uint32_t), s->ms)))
			goto err;
		if ((rc = zp_cuda_stream_sync(s->ms)))
			goto err;
	}
	for (*below = 0; *below < head && h[*below] < s->np + 1;)
		++*below;
	return 0;
err:
	return rc;
}

static int msm_buf(struct cu *s, int b, zp_g16_msm_out *out)
{
	int rc = 0;
	const zp_fr *dw = s->buf[b].d_w;
	size_t n_nb = 0, p_c = 0, n_one = 0, q_c = 0;
	if ((rc = zp_cuda_set_device(s->dev)))
		goto err;
	if ((rc = zp_cuda_stream_wait(s->ms, s->buf[b].copied)))
		goto err;
	/* a resident array with the witness on the device goes through the whole-witness lists; a streamed one
	 * (and every one with the lean set) range by range (msm_streamed) */
	int rq[4], any_rq = 0, any_st = 0;
	for (int q = 0; q < 4; q++) {
		rq[q] = !s->kstream || (!s->plan.lean && s->plan.res[q]);
		any_rq |= rq[q];
		any_st |= !rq[q];
	}
	if (any_rq) {
		if ((rc = list_idx(s, 0, dw, s->nv, s->d_idx, s->h_idx, &n_nb, &p_c)) ||
		    (rc = list_idx(s, 1, dw, s->nv, s->d_one, s->h_one, &n_one, &q_c)))
			return rc;
		cu_stage(s, "0/1 split");
	}
	if (rq[0] && (rc = msm_split(s, 0, 0, cu_out(s, out, 0), s->d_a, s->nv, dw, s->nv, 0, 0, n_nb, 0, n_one)))
		return rc;
	cu_stage(s, "A");
	if (rq[1] && (rc = msm_split(s, 0, 1, cu_out(s, out, 1), s->d_b1, s->nv, dw, s->nv, 0, 0, n_nb, 0, n_one)))
		return rc;
	cu_stage(s, "B G1");
	if (rq[2] && (rc = msm_split(s, 1, 2, cu_out(s, out, 2), s->d_b2, s->nv, dw, s->nv, 0, 0, n_nb, 0, n_one)))
		return rc;
	cu_stage(s, "B G2");
	if (rq[3] && s->naux && (rc = msm_split(s, 0, 3, cu_out(s, out, 3), s->d_c, max2(s->naux, 1), dw, s->nv, s->np + 1, p_c,
						 n_nb, q_c, n_one)))
		return rc;
	cu_stage(s, "C");
	if (any_st) {   /* the lists of the whole witness are not needed past here: the ranges' own take their place */
		if ((rc = msm_streamed(s, s->plan.lean ? NULL : dw, out, any_rq)))
			return rc;
		cu_stage(s, "streamed");
	}
	if (!s->naux)
		s->cc->jac_set_inf(0, cu_out(s, out, 3));
	if (verbose() && any_rq)   /* no wait: the counts are on the host already (none are made when every array streams) */
		fprintf(stderr, "CUDA backend: %zu of %zu witness entries are not 0/1 (%.2f %%), %zu are 1\n", n_nb, s->nv,
			100.0 * (double)n_nb / (double)s->nv, n_one);
	if ((rc = zp_cuda_stream_sync(s->ms)))
		goto err;
	return 0;
err:
	return rc;
}

int cu_h(void *state)
{
	struct cu *s = state;
	return h_buf(s, 0, s->h);
}

int cu_msm(void *state, zp_g16_msm_out *out)
{
	struct cu *s = state;
	int rc = msm_buf(s, 0, out);
	memcpy(cu_out(s, out, 4), s->h, s->cc->jac_bytes[0]);
	return rc;
}



/* H and every MSM on input set b; wit: the witness MSMs (msm_buf; a compact key's msm_dens, its density
 * step first). */
int cu_prove(struct cu *s, int b, zp_g16_msm_out *out, wit_fn wit)
{
	/* The H step's transforms (memory-bound) on the compute stream while the witness MSMs run on their own
	 * (high-priority) stream; wit returns once they are done, so the H MSM then has the scratch to itself
	 * (2^27 at 1 %: 1.142 s against 1.174 in turn, bench/RESULTS.md). A streamed key too: its witness ranges
	 * are staged while the H step runs, the H MSM's after, or (plan.hb_st) beside them on a thread of its own
	 * (2^27 .params at 15000 MiB: 1.67 s against 2.55 in turn). */
	int tv = verbose() >= 1, hb = 0;
	struct timespec h0, h1;
	int rc;
	s->nproof++;
	clock_gettime(CLOCK_MONOTONIC, &h0);
	if ((rc = zp_cuda_set_device(s->dev)) || (tv && (rc = zp_cuda_event_record(s->tev[0], s->st))) ||
	    (rc = h_step(s, b)) || (tv && (rc = zp_cuda_event_record(s->tev[1], s->st))))
		return rc;
	{
		/* a streamed H with room in the set's free buffers (plan.hb_st): its MSM on a thread of its own, beside
		 * the witness MSMs (compute against the host link) */
		struct hb_job job = { s, cu_out(s, out, 4), 0, "" };
		pthread_t th;
		hb = s->hb_it && b == 0 && !(tv && (rc = zp_cuda_event_record(s->tev[4], s->st))) &&
		     !(rc = zp_cuda_event_record(s->hev_go, s->st)) && !pthread_create(&th, NULL, h_beside_main, &job);
		if (rc)
			return rc;
		s->ms = s->wst;
		if (!(tv && (rc = zp_cuda_event_record(s->tev[2], s->wst))))
			rc = wit(s, b, out);
		if (!rc && tv)
			rc = zp_cuda_event_record(s->tev[3], s->wst);
		s->ms = s->st;
		if (hb) {
			pthread_join(th, NULL);
			if (!rc && job.rc)
				rc = zp_err_set(job.rc, "%s", job.err);
		}
		if (rc) {   /* neither may outlive a failed proof's buffers */
			zp_cuda_stream_sync(s->wst);
			zp_cuda_stream_sync(s->st);
			return rc;
		}
		if (!hb && ((tv && (rc = zp_cuda_event_record(s->tev[4], s->st))) || (rc = h_msm(s, b, cu_out(s, out, 4))) ||
			    (tv && (rc = zp_cuda_event_record(s->tev[5], s->st)))))
			return rc;
	}
	if (tv) {
		float t[4] = { 0, 0, 0, 0 };
		zp_cuda_stream_sync(s->st);
		zp_cuda_stream_sync(s->wst);
		clock_gettime(CLOCK_MONOTONIC, &h1);
		zp_cuda_event_ms(&t[0], s->tev[0], s->tev[1]);
		zp_cuda_event_ms(&t[1], s->tev[2], s->tev[3]);
		zp_cuda_event_ms(&t[2], s->tev[4], s->tev[5]);
		zp_cuda_event_ms(&t[3], s->tev[0], s->tev[5]);
		if (hb) {   /* the later of the two ends */
			float tw = 0;
			zp_cuda_event_ms(&tw, s->tev[0], s->tev[3]);
			t[3] = tw > t[3] ? tw : t[3];
		}
		fprintf(stderr, "CUDA backend: proof %lu (%s): H step %.1f ms, witness MSMs %.1f ms, H MSM %.1f ms; "
			"GPU %.1f ms, host %.1f ms\n", s->nproof, hb ? "witness beside H step and H MSM" : "witness beside H", t[0], t[1], t[2], t[3],
			(h1.tv_sec - h0.tv_sec) * 1e3 + (h1.tv_nsec - h0.tv_nsec) / 1e6);
	}
	return 0;
}

int cu_prove_buf(void *state, int b, zp_g16_msm_out *out)
{
	struct cu *s = state;
	if (b < 0 || b >= s->nbuf)
		return zp_err_set(ZP_ERANGE, "CUDA backend: input set %d of %d", b, s->nbuf);
	return cu_prove(s, b, out, msm_buf);
}


/* A resident array group's MSMs on the scalars sc[0..n): their 0/1 lists, then each array q of mask (q = C:
 * from sc[np + 1], as an expanded key's) through msm_split. */
int cu_msm_group(struct cu *s, const zp_fr *sc, size_t n, unsigned mask, zp_g16_msm_out *out)
{
	size_t n_nb = 0, p_c = 0, n_one = 0, q_c = 0;
	const void *bases[4] = { s->d_a, s->d_b1, s->d_b2, s->d_c };
	int rc;
	if ((rc = list_idx(s, 0, sc, n, s->d_idx, s->h_idx, &n_nb, &p_c)) ||
	    (rc = list_idx(s, 1, sc, n, s->d_one, s->h_one, &n_one, &q_c)))
		return rc;
	for (int q = 0; q < 4; q++) {
		int c = q == ZP_CUDA_ARR_C;
		if (!(mask >> q & 1))
			continue;
		if ((rc = msm_split(s, q == ZP_CUDA_ARR_B2, q, cu_out(s, out, q), bases[q], max2(s->an[q], 1), sc, n,
				    c ? s->np + 1 : 0, c ? p_c : 0, n_nb, c ? q_c : 0, n_one)))
			return rc;
	}
	return 0;
}

/* An expanded key's staged ranges (cu_kp_plan): wire range by wire range of kst, the lean set's w first, then
 * each streamed query's points in cu_wit_order. */
static void exp_ranges(struct cu *s)
{
	for (size_t off = 0; off < s->nv; off += s->kst) {
		size_t m = s->nv - off < s->kst ? s->nv - off : s->kst;
		if (s->plan.lean)
			s->w_it[s->n_w_it++] = (struct kitem){ KI_W, off, m };
		for (int k = 0; k < 4; k++) {
			size_t lo, first, mq = q_range(s, cu_wit_order[k], off, m, &lo, &first);
			if (mq && !s->plan.res[cu_wit_order[k]])
				s->wit_it[s->n_wit_it++] = (struct kitem){ cu_wit_order[k], first, mq };
		}
	}
}

/* A scalar range's host source (kp_issue): the lean set's w. */
static const zp_fr *exp_scalars(const struct cu *s, const struct kitem *it)
{
	return s->h_w + it->first;
}

const struct cu_fmt cu_fmt_expanded = { .compact = 0, .ranges = exp_ranges, .scalars = exp_scalars };
