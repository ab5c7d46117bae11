/*
 * backend_cuda_params.c — the CUDA backend's compact (.params) key format (backend_cuda_impl.h): the
 * density bitmaps in front of the one prover (cu_prove), cu_fmt_params and its ops table
 * zp_g16_backend_cuda_params.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend_cuda_impl.h"
#include "backends.h"
#include "density.h"

/* ---------------------------------------------------------------- compact keys: density bitmaps
 * A bellperson .params key as the file has it (zp_g16_key.compact: A of n_a points — every input, then
 * the aux wires in A —, B1 and B2 of n_b — the inputs in B, then the aux wires in B —, C (bellperson's
 * L) one point an aux wire, H of domain points, the top one at infinity) proves through the same state
 * and per-proof machinery as an expanded key (the "one prover": docs/cuda.md, "Compact (.params) keys
 * through the one prover"): the same
 * memory plan (given the arrays' true sizes, cu_make → plan_in_compact), so its arrays are resident or
 * streamed from host memory as the card allows, the split H bases (and split witness bases) when they
 * fit, the 0/1 split of every witness MSM and the witness MSMs on their own stream beside the H step
 * (prove). What differs is only the scalars each array is summed against:
 *   A  against sa: every input, then the aux entries whose a_aux bit is set (n_a entries);
 *   B1, B2 against sb: the inputs whose b_inp bit is set, then the aux entries with their b_aux bit (n_b);
 *   C  against w[np + 1 ..], as an expanded key's.
 * dens_upload copies one proof's w (inputs, aux), a/b/c (tails zeroed up to the domain on the device) and
 * the three bitmaps into the state's one input set (directly from host_register'ed memory: gpud's slot;
 * else through the pinned staging buffers) and returns once nothing reads the caller's memory.
 * dens_prove runs cu_prove() with msm_dens as its witness step: the bitmaps become index lists on the
 * witness stream (cuda/bits.cu), their totals are checked against the caller's popcounts before any
 * gather reads them, sa and sb are gathered (zp_cuda_gather), then the MSMs. Given the same r and s the
 * proof equals the CPU backend's byte for byte: every MSM sums the same points with the same scalars. */
struct cudens {
	uint64_t n_ic, n_l;              /* inputs (with the 1), aux wires */
	size_t wa, wi;                   /* u64 words of the a_aux / b_aux bitmaps, of b_inp */
	zp_fr *sa, *sb;                  /* the gathered A (n_a) and B (n_b) scalars */
	uint64_t *bits;                  /* a_aux | b_inp | b_aux words */
	uint32_t *idx;                   /* index lists: a_aux (aux entries) | b_inp (inputs) | b_aux (aux) */
	uint32_t *tot, *tot_h;           /* the three lists' lengths: device, page-locked host */
	void *itmp;                      /* zp_cuda_bits_index temp */
	size_t itmp_len;
	void *ev;                        /* after the totals' copy to tot_h (witness stream) */
	uint64_t pop[3];                 /* the caller's popcounts of the uploaded proof */
	int loaded;                      /* an upload is in the input set and not proved yet */
	/* the lean set (plan.lean: a card too small for the full set): no device gather; dens_upload gathers
	 * sa and sb into page-locked host memory, counting each bitmap (htot), and msm_lean_dens stages
	 * them range by range beside the points */
	zp_fr *h_sa, *h_sb;
	uint64_t htot[3];
};

/* A compact key's plan inputs beside plan_in's: its arrays' true sizes, the density step's bytes of an
 * input set, one set (its ops have no second: dens_upload returns once the caller's memory is read). */
static void plan_in_compact(zp_cuda_plan_in *in, const struct cu *s, size_t set_extra)
{
	in->compact = 1;
	in->n_a = s->an[ZP_CUDA_ARR_A];
	in->n_b = s->an[ZP_CUDA_ARR_B1];
	in->set_extra = set_extra;
	in->bufs = 1;
}

/* The set's extra bytes as allocated by dens_alloc (the plan counts them with the input set). */
static size_t dens_bytes(const struct cu *s)
{
	const struct cudens *d = s->dn;
	return max2(s->an[ZP_CUDA_ARR_A], 1) * sizeof(zp_fr) + max2(s->an[ZP_CUDA_ARR_B1], 1) * sizeof(zp_fr) +
	       (2 * d->wa + d->wi) * 8 + 64 + (2 * d->n_l + d->n_ic) * 4 + 64 + 64 + d->itmp_len;
}

/* create: what a compact key is, checked, and its plan inputs (before anything is allocated). */
static int dens_init(struct cu *s, const zp_g16_key *key)
{
	const zp_zkey *k = key->zkey;
	struct cudens *d;
	if (s->cc->id != ZP_CURVE_BLS12_381)
		return zp_err_set(ZP_ERANGE, "CUDA backend: compact keys (bellperson .params) are bls12-381 only");
	if (key->h_mode != ZP_H_COEFF || !key->h_coeff || !k->a || !k->b1 || !k->b2 || (s->naux && !k->c))
		return zp_err_set(ZP_ERANGE, "CUDA backend: a compact key needs its coefficient H query and points on the host");
	if (key->dev_points || key->dev_keep)
		return zp_err_set(ZP_ERANGE, "CUDA backend: a compact key is neither made nor kept on the device");
	if (key->n_a < s->np + 1 || key->n_a > s->nv || key->n_b > s->nv)
		return zp_err_set(ZP_EFORMAT, "CUDA backend: compact key with %u A and %u B points for %zu wires, %zu inputs",
				  key->n_a, key->n_b, s->nv, s->np + 1);
	if (!(d = s->dn = calloc(1, sizeof *d)))
		return zp_err_set(-ENOMEM, "CUDA backend state");
	d->n_ic = s->np + 1;
	d->n_l = s->naux;
	d->wa = (d->n_l + 63) / 64;
	d->wi = (d->n_ic + 63) / 64;
	size_t t1 = zp_cuda_bits_index_temp_size(max2(d->n_l, 1)), t2 = zp_cuda_bits_index_temp_size(d->n_ic);
	d->itmp_len = max2(t1, t2);
	s->an[ZP_CUDA_ARR_A] = key->n_a;
	s->an[ZP_CUDA_ARR_B1] = s->an[ZP_CUDA_ARR_B2] = key->n_b;
	plan_in_compact(&s->in, s, dens_bytes(s));
	return 0;
}

/* create (cu_apply, beside the first input set): the density step's device buffers. */
static int dens_alloc(struct cu *s)
{
	struct cudens *d = s->dn;
	int rc;
	if (s->plan.lean) {
		size_t na = max2(s->an[ZP_CUDA_ARR_A], 1), nb = max2(s->an[ZP_CUDA_ARR_B1], 1);
		if (zp_cuda_alloc_host((void **)&d->h_sa, na * sizeof(zp_fr)) ||
		    zp_cuda_alloc_host((void **)&d->h_sb, nb * sizeof(zp_fr)))
			return zp_err_set(-ENOMEM, "CUDA backend: %zu bytes of page-locked host memory for the lean set's "
					  "gathered A and B scalars", (na + nb) * sizeof(zp_fr));
		return 0;
	}
	if ((rc = dmalloc((void **)&d->sa, max2(s->an[ZP_CUDA_ARR_A], 1) * sizeof(zp_fr), "the gathered A scalars")) ||
	    (rc = dmalloc((void **)&d->sb, max2(s->an[ZP_CUDA_ARR_B1], 1) * sizeof(zp_fr), "the gathered B scalars")) ||
	    (rc = dmalloc((void **)&d->bits, (2 * d->wa + d->wi) * 8 + 64, "density bitmaps")) ||
	    (rc = dmalloc((void **)&d->idx, (2 * d->n_l + d->n_ic) * 4 + 64, "density index lists")) ||
	    (rc = dmalloc((void **)&d->tot, 64, "density totals")) ||
	    (rc = dmalloc(&d->itmp, d->itmp_len, "density index temp")))
		return rc;
	if (zp_cuda_alloc_host((void **)&d->tot_h, 64))
		return zp_err_set(-ENOMEM, "CUDA backend: page-locked host memory for the density totals");
	return zp_cuda_event_create(&d->ev);
}

static void dens_free(struct cu *s)
{
	struct cudens *d = s->dn;
	if (!d)
		return;
	void *dp[] = { d->sa, d->sb, d->bits, d->idx, d->tot, d->itmp };
	for (size_t i = 0; i < sizeof dp / sizeof *dp; i++)
		zp_cuda_free(dp[i]);
	zp_cuda_free_host(d->tot_h);
	zp_cuda_free_host(d->h_sa);
	zp_cuda_free_host(d->h_sb);
	zp_cuda_event_destroy(d->ev);
	free(d);
	s->dn = NULL;
}

/* A compact key's staged ranges (cu_kp_plan): each streamed array on its own scalars, range by range
 * (msm_streamed_dens). */
static void dens_ranges(struct cu *s)
{
	for (int k = 0; k < 4; k++) {
		int q = cu_wit_order[k];
		if (s->plan.res[q])
			continue;
		for (size_t off = 0; off < s->an[q]; off += s->kst)
			s->wit_it[s->n_wit_it++] = (struct kitem){ q, off, s->an[q] - off < s->kst ? s->an[q] - off : s->kst };
	}
	/* the lean set: every array's scalars range by range from the host (msm_lean_dens), in the same order */
	for (int k = 0; s->plan.lean && k < 4; k++) {
		int q = cu_wit_order[k];
		int which = q == ZP_CUDA_ARR_A ? KI_SA : q == ZP_CUDA_ARR_C ? KI_W : KI_SB;
		for (size_t off = 0; off < s->an[q]; off += s->kst)
			s->w_it[s->n_w_it++] = (struct kitem){ which, (q == ZP_CUDA_ARR_C ? s->np + 1 : 0) + off,
							      s->an[q] - off < s->kst ? s->an[q] - off : s->kst };
	}
}

/* A scalar range's host source (kp_issue): the lean set's w (C), or the gathered A / B scalars. */
static const zp_fr *dens_scalars(const struct cu *s, const struct kitem *it)
{
	return (it->which == KI_SA ? s->dn->h_sa : it->which == KI_SB ? s->dn->h_sb : s->h_w) + it->first;
}


const struct cu_fmt cu_fmt_params = { .compact = 1, .init = dens_init, .alloc = dens_alloc, .release = dens_free,
				       .ranges = dens_ranges, .scalars = dens_scalars };

static int cu_create_params(void **state, const zp_g16_key *key)
{
	return cu_make(state, key, &cu_fmt_params);
}

/* len bytes to the device on the copy stream (none: nothing). */
static int dens_copy(struct cu *s, void *dst, const void *src, size_t len)
{
	return len ? cu_copy_in(s, dst, src, len) : 0;
}

static int cu_dens_upload(void *state, const zp_g16_dens_in *in)
{
	struct cu *s = state;
	struct cudens *d = s->dn;
	size_t fr = sizeof(zp_fr), dm = s->dom;
	zp_fr *w = s->buf[0].d_w, *abc = s->buf[0].d_abc;
	int rc;
	if (!d)
		return zp_err_set(ZP_ERANGE, "CUDA backend: dens_upload on a key that is not compact");
	d->loaded = 0;   /* whatever was uploaded before is not proved after a failed upload either */
	if (in->abc_len > dm)
		return zp_err_set(ZP_EMISMATCH, "CUDA backend: %llu a/b/c rows, domain %llu", (unsigned long long)in->abc_len,
				  (unsigned long long)dm);
	/* the input set is the previous proof's until every stream that reads it is done (a proof that failed
	 * synchronized them already; one never proved has nothing queued) */
	if ((rc = zp_cuda_set_device(s->dev)) || (rc = zp_cuda_stream_sync(s->st)) || (rc = zp_cuda_stream_sync(s->wst)))
		return rc;
	if (s->plan.lean) {
		/* a and b up (tails zeroed); c and w into the host copies, sa and sb gathered on the host (all
		 * read by the proof from there: h_step, msm_lean_dens) while the copies run */
		for (int m = 0; m < 2; m++) {
			zp_fr *dst = abc + m * dm;
			if ((rc = dens_copy(s, dst, in->abc[m], in->abc_len * fr)) ||
			    (dm > in->abc_len && (rc = zp_cuda_zero(dst + in->abc_len, (dm - in->abc_len) * fr, s->cst))))
				goto out;
		}
		cu_hcopy(s->h_c, in->abc[2], in->abc_len * fr);
		memset(s->h_c + in->abc_len, 0, (dm - in->abc_len) * fr);
		cu_hcopy(s->h_w, in->inp, d->n_ic * fr);
		cu_hcopy(s->h_w + d->n_ic, in->aux, d->n_l * fr);
		memcpy(d->h_sa, in->inp, d->n_ic * fr);   /* A: every input first */
		uint64_t pa = s->an[ZP_CUDA_ARR_A] >= d->n_ic ? s->an[ZP_CUDA_ARR_A] - d->n_ic : 0;
		uint64_t pb = s->an[ZP_CUDA_ARR_B1];
		/* each gather writes only when its count is the caller's popcount and fits (else the prove refuses) */
		d->htot[0] = zp_density_gather_par(d->h_sa + d->n_ic, in->aux, in->a_aux, d->n_l,
						   in->a_aux_pop == pa ? pa : UINT64_MAX);
		d->htot[1] = zp_density_gather_par(d->h_sb, in->inp, in->b_inp, d->n_ic,
						   in->b_inp_pop <= pb ? in->b_inp_pop : UINT64_MAX);
		d->htot[2] = zp_density_gather_par(d->h_sb + (d->htot[1] <= pb ? d->htot[1] : 0), in->aux, in->b_aux, d->n_l,
						   d->htot[1] == in->b_inp_pop && in->b_inp_pop + in->b_aux_pop == pb ? in->b_aux_pop
														       : UINT64_MAX);
		rc = zp_cuda_event_record(s->buf[0].copied, s->cst);
		goto out;
	}
	if ((rc = dens_copy(s, w, in->inp, d->n_ic * fr)) || (rc = dens_copy(s, w + d->n_ic, in->aux, d->n_l * fr)))
		goto out;
	for (int m = 0; m < 3; m++) {
		zp_fr *dst = abc + m * dm;
		if ((rc = dens_copy(s, dst, in->abc[m], in->abc_len * fr)) ||
		    (dm > in->abc_len && (rc = zp_cuda_zero(dst + in->abc_len, (dm - in->abc_len) * fr, s->cst))))
			goto out;
	}
	if ((rc = dens_copy(s, d->bits, in->a_aux, d->wa * 8)) || (rc = dens_copy(s, d->bits + d->wa, in->b_inp, d->wi * 8)) ||
	    (rc = dens_copy(s, d->bits + d->wa + d->wi, in->b_aux, d->wa * 8)))
		goto out;
	rc = zp_cuda_event_record(s->buf[0].copied, s->cst);
out:;
	int e = zp_cuda_stream_sync(s->cst); /* the caller's memory (and the staging buffers) are read until here */
	if (rc || e)
		return rc ? rc : e;
	d->pop[0] = in->a_aux_pop;
	d->pop[1] = in->b_inp_pop;
	d->pop[2] = in->b_aux_pop;
	d->loaded = 1;
	return 0;
}

/* The streamed arrays of a compact key, each range by range (cu_kp_plan's items, in cu_wit_order) against its
 * own scalars sc[q]: the 0/1 kernel, then the range's entries neither 0 nor 1 listed and summed. */
static int msm_streamed_dens(struct cu *s, const zp_fr *const sc[4], zp_g16_msm_out *out)
{
	struct kpipe kq;
	size_t kj = 0;
	int rc;
	if ((rc = cu_kp_start(s, &kq, s->wit_it, s->n_wit_it, 0)))
		goto out;
	for (int k = 0; k < 4; k++) {
		int q = cu_wit_order[k], g2 = q == ZP_CUDA_ARR_B2;
		void *o = cu_out(s, out, q);
		if (s->plan.res[q])
			continue;
		s->cc->jac_set_inf(g2, o);
		for (size_t off = 0; off < s->an[q]; off += s->kst, kj++) {
			const struct kitem *it = &s->wit_it[kj];
			const zp_fr *wr = sc[q] + off;
			size_t cnt = 0;
			void *bases;
			if (kj >= s->n_wit_it || it->which != q || it->first != off) {   /* cu_kp_plan made them so */
				rc = zp_err_set(ZP_ERANGE, "CUDA backend: staged range %zu is not array %d's at %zu", kj, q, off);
				goto out;
			}
			if ((rc = cu_kp_take(s, &kq, kj, &bases)) || (rc = cu_ones_add(s, g2, o, bases, wr, NULL, it->m, 0)) ||
			    (rc = s->cc->nonbits(s->d_idx, &cnt, wr, it->m, s->d_sel, s->sel_len, s->ms)) ||
			    (rc = cu_nonbits_add(s, g2, o, bases, it->m, 0, wr, s->d_idx, cnt)) || (rc = cu_kp_done(s, &kq, kj)))
				goto out;
		}
	}
out:
	if (rc)
		zp_cuda_stream_sync(s->sst);
	return rc;
}

/* A compact key's witness step with the lean set: the totals dens_upload counted checked as msm_dens
 * checks the device's, then each array in cu_wit_order range by range (w_it: its scalars staged from the
 * host; wit_it: its points staged when it streams, else the resident array's range) through the 0/1
 * kernel and the bucket MSM of the range's entries neither 0 nor 1. */
static int msm_lean_dens(struct cu *s, int b, zp_g16_msm_out *out)
{
	struct cudens *d = s->dn;
	const void *res_d[4] = { s->d_a, s->d_b1, s->d_b2, s->d_c };
	struct kpipe kq, wq;
	size_t kj = 0, r = 0;
	int rc;
	if ((rc = zp_cuda_set_device(s->dev)) || (rc = zp_cuda_stream_wait(s->ms, s->buf[b].copied)))
		return rc;
	if (d->htot[0] != d->pop[0] || d->htot[1] != d->pop[1] || d->htot[2] != d->pop[2] ||
	    d->n_ic + d->pop[0] != s->an[ZP_CUDA_ARR_A] || d->pop[1] + d->pop[2] != s->an[ZP_CUDA_ARR_B1])
		return zp_err_set(ZP_EMISMATCH, "a density bitmap's popcount differs from the one the caller gave");
	if ((rc = cu_kp_start(s, &kq, s->wit_it, s->n_wit_it, 0)) || (rc = cu_kp_start(s, &wq, s->w_it, s->n_w_it, 1)))
		goto out;
	for (int k = 0; k < 4; k++) {
		int q = cu_wit_order[k], g2 = q == ZP_CUDA_ARR_B2;
		void *o = cu_out(s, out, q);
		s->cc->jac_set_inf(g2, o);
		for (size_t off = 0; off < s->an[q]; off += s->kst, r++) {
			size_t m = s->an[q] - off < s->kst ? s->an[q] - off : s->kst, cnt = 0;
			const struct kitem *it = &s->wit_it[kj];
			void *bases;
			zp_fr *wr;
			if (r >= s->n_w_it || s->w_it[r].m != m || (!s->plan.res[q] && (kj >= s->n_wit_it || it->which != q ||
										       it->first != off))) {
				rc = zp_err_set(ZP_ERANGE, "CUDA backend: staged range %zu / %zu is not array %d's at %zu", r, kj, q, off);
				goto out;
			}
			if ((rc = cu_kp_take(s, &wq, r, (void **)&wr)))
				goto out;
			if (s->plan.res[q])
				bases = (char *)res_d[q] + off * s->pt[g2];
			else if ((rc = cu_kp_take(s, &kq, kj, &bases)))
				goto out;
			if ((rc = cu_ones_add(s, g2, o, bases, wr, NULL, m, 0)) ||
			    (rc = s->cc->nonbits(s->d_idx, &cnt, wr, m, s->d_sel, s->sel_len, s->ms)) ||
			    (rc = cu_nonbits_add(s, g2, o, bases, m, 0, wr, s->d_idx, cnt)))
				goto out;
			if (!s->plan.res[q] && (rc = cu_kp_done(s, &kq, kj++)))
				goto out;
			if ((rc = cu_kp_done(s, &wq, r)))
				goto out;
		}
	}
	cu_stage(s, "streamed");
	rc = zp_cuda_stream_sync(s->ms);
out:
	if (rc)
		zp_cuda_stream_sync(s->sst);
	return rc;
}


/* A compact key's witness step (prove's wit, on s->ms): the density index lists and their totals checked
 * against the caller's popcounts, the A and B scalars gathered, then the witness MSMs. */
static int msm_dens(struct cu *s, int b, zp_g16_msm_out *out)
{
	struct cudens *d = s->dn;
	size_t fr = sizeof(zp_fr), ninp = d->n_ic, naux = d->n_l;
	uint32_t *ia = d->idx, *ii = d->idx + naux, *ib = d->idx + naux + ninp;
	const zp_fr *w = s->buf[b].d_w, *aux = w + ninp;
	int rc;
	if (s->plan.lean)
		return msm_lean_dens(s, b, out);
	if ((rc = zp_cuda_set_device(s->dev)) || (rc = zp_cuda_stream_wait(s->ms, s->buf[b].copied)) ||
	    (rc = zp_cuda_bits_index(ia, d->tot, d->bits, naux, d->itmp, d->itmp_len, s->ms)) ||
	    (rc = zp_cuda_bits_index(ii, d->tot + 1, d->bits + d->wa, ninp, d->itmp, d->itmp_len, s->ms)) ||
	    (rc = zp_cuda_bits_index(ib, d->tot + 2, d->bits + d->wa + d->wi, naux, d->itmp, d->itmp_len, s->ms)) ||
	    (rc = zp_cuda_copy_to_host(d->tot_h, d->tot, 3 * sizeof(uint32_t), s->ms)) ||
	    (rc = zp_cuda_event_record(d->ev, s->ms)) || (rc = zp_cuda_event_sync(d->ev)))
		return rc;
	cu_stage(s, "density");
	if (d->tot_h[0] != d->pop[0] || d->tot_h[1] != d->pop[1] || d->tot_h[2] != d->pop[2] ||
	    ninp + d->pop[0] != s->an[ZP_CUDA_ARR_A] || d->pop[1] + d->pop[2] != s->an[ZP_CUDA_ARR_B1])
		return zp_err_set(ZP_EMISMATCH, "a density bitmap's popcount differs from the one the caller gave");
	/* A: every input, then the aux entries in A; B: the inputs in B, then the aux entries in B */
	if ((rc = zp_cuda_copy_on_dev(d->sa, w, ninp * fr, s->ms)) ||
	    (d->pop[0] && (rc = zp_cuda_gather(d->sa + ninp, aux, fr, ia, d->pop[0], 0, s->ms))) ||
	    (d->pop[1] && (rc = zp_cuda_gather(d->sb, w, fr, ii, d->pop[1], 0, s->ms))) ||
	    (d->pop[2] && (rc = zp_cuda_gather(d->sb + d->pop[1], aux, fr, ib, d->pop[2], 0, s->ms))))
		return rc;
	cu_stage(s, "gather");
	const zp_fr *const sc[4] = { d->sa, d->sb, d->sb, aux };
	const int *res = s->plan.res;
	unsigned bmask = (res[ZP_CUDA_ARR_B1] ? 1u << ZP_CUDA_ARR_B1 : 0) | (res[ZP_CUDA_ARR_B2] ? 1u << ZP_CUDA_ARR_B2 : 0);
	if (res[ZP_CUDA_ARR_A] && (rc = cu_msm_group(s, d->sa, s->an[ZP_CUDA_ARR_A], 1u << ZP_CUDA_ARR_A, out)))
		return rc;
	cu_stage(s, "A");
	if (bmask && (rc = cu_msm_group(s, d->sb, s->an[ZP_CUDA_ARR_B1], bmask, out)))
		return rc;
	cu_stage(s, "B");
	if (res[ZP_CUDA_ARR_C] && naux && (rc = cu_msm_group(s, w, s->nv, 1u << ZP_CUDA_ARR_C, out)))
		return rc;
	cu_stage(s, "C");
	if (s->kstream && (rc = msm_streamed_dens(s, sc, out)))
		return rc;
	if (!naux)
		s->cc->jac_set_inf(0, cu_out(s, out, ZP_CUDA_ARR_C));
	return zp_cuda_stream_sync(s->ms);
}

static int cu_dens_prove(void *state, zp_g16_msm_out *mo)
{
	struct cu *s = state;
	if (!s->dn || !s->dn->loaded)
		return zp_err_set(ZP_ERANGE, "CUDA backend: dens_prove without a dens_upload before it");
	s->dn->loaded = 0;   /* one proof an upload */
	return cu_prove(s, 0, mo, msm_dens);
}


/* A compact key's (.params) ops: the same state and per-proof machinery, its input through the density
 * ops (zp_g16_backend_for_key picks this table for such a key). */
const zp_g16_backend_ops zp_g16_backend_cuda_params = {
	.name = "cuda",
	.curves = 1u << ZP_CURVE_BLS12_381,
	.create = cu_create_params,
	.destroy = cu_destroy,
	.host_register = cu_host_register,
	.host_unregister = cu_host_unregister,
	.fatal = cu_fatal,
	.dens_upload = cu_dens_upload,
	.dens_prove = cu_dens_prove,
	.mem_uses = cu_mem_uses,
	.reads_host_key = cu_reads_host_key,
};
