/*
 * backend_cuda.c — the CUDA backend (prover/groth16.h's ops table on cuda/zp_cuda.h).
 *
 * The CUDA runtime itself (device, streams, events, memory, registration, sticky errors, the chunked
 * MSM driver) is cuda/runtime.c's, the memory plan cuda/plan.c's pure functions (zp_cuda_plan.h):
 * this file calls neither cudart nor anything but zp_cuda.h. Knobs: common/knobs.h.
 * create()   once per key: selects the device (ZP_CUDA_DEVICE, default 0); cu_key_upload() puts
 *            the key's A, B1, B2, C and H points (H: the odd-root points for ZP_H_SNARKJS, the
 *            coefficient query for ZP_H_COEFF) in device memory, resident — or, for a key made on
 *            the device (zp_g16_key.dev_points, prover/setup_cuda.h), adopts its arrays: no upload,
 *            freed by destroy; then cu_plan() allocates
 *            one device input set (w, a, b, c), the NTT twiddles (root family 5 in both H modes, as
 *            the CPU backend), the 0/1-split index list and, from what the device says is free
 *            (minus ZP_CUDA_MEM_MARGIN_MB, default 3072), a second input set when it fits beside a
 *            2^24-entry MSM, and one MSM scratch buffer: MSMs run in chunks of 2^k entries (k per
 *            group, the largest that fits; ZP_CUDA_MSM_CHUNK=k caps it, ZP_CUDA_BUFS=1|2 forces the
 *            number of input sets), chunk results are added on the host (common/ec.h). When not
 *            even a 2^8 chunk fits, create fails saying bytes needed against bytes free.
 *            Nothing is allocated per proof.
 * upload()   = upload_async(0) + upload_wait(0): w, a, b, c to the device, directly when the host
 *            range was registered (host_register: gpud's arena), else through two pinned 64 MiB
 *            staging buffers in turn. The caller's buffers are only read.
 * h()        zp_cuda_groth16_h on device-resident a, b, c, then the H MSM (chunked) on the result.
 * msm()      Σ w·A, Σ w·B1, Σ w·B2 (G2 on the GPU), Σ w·C on the device-resident witness, each split:
 *            the entries whose scalar is 1 summed by the 0/1 kernel (zp_cuda_msm_g*_ones, scalars 0
 *            skipped, others ignored), the rest — listed on the device by zp_cuda_nonbits once per
 *            proof and gathered chunk by chunk with their bases — by the general bucket MSM.
 * prove_buf() h + msm on one input set (gpud's pipeline: the other set is being filled meanwhile).
 * finish stays on the host (zp_g16_finish). Given the same r and s the proof equals the CPU
 * backend's bit for bit: every stage computes the same group elements, and the affine result is
 * unique.
 * The backend is four files around one state (backend_cuda_impl.h): this one (the state: create, destroy,
 * the expanded key's ops table), backend_cuda_key.c (key residency: upload, kept keys, split bases),
 * backend_cuda_proof.c (the per-proof path) and backend_cuda_params.c (the compact .params key format).
 */
#include <errno.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend_cuda_impl.h"
#include "backends.h"
#include "ntt.h"

_Static_assert(sizeof(zp_cuda_g1_aff) == sizeof(zp_g1_affine), "G1 affine layouts differ");
_Static_assert(sizeof(zp_cuda_g2_aff) == sizeof(zp_g2_affine), "G2 affine layouts differ");
_Static_assert(sizeof(zp_cuda_g1_jac) == sizeof(zp_g1_jac), "G1 Jacobian layouts differ");
_Static_assert(sizeof(zp_cuda_g2_jac) == sizeof(zp_g2_jac), "G2 Jacobian layouts differ");

int cu_host_register(void *p, size_t len)
{
	return zp_cuda_host_register(p, len);
}

void cu_host_unregister(void *p)
{
	zp_cuda_host_unregister(p);
}

int cu_fatal(void)
{
	return zp_cuda_fatal();
}

int zp_g16_backend_cuda_probe(char *desc, size_t desc_len)
{
	return zp_cuda_probe("backend cuda", desc, desc_len);
}

void cu_destroy(void *state)
{
	struct cu *s = state;
	if (!s)
		return;
	zp_cuda_set_device(s->dev);
	if (s->st)
		zp_cuda_stream_sync(s->st);
	if (s->cst)
		zp_cuda_stream_sync(s->cst);
	if (s->wst)
		zp_cuda_stream_sync(s->wst);
	if (s->ntt)
		zp_cuda_ntt_destroy(s->ntt);
	void *key_ptrs[] = { s->d_a, s->d_b1, s->d_c, s->d_h, s->d_b2 };
	for (size_t i = 0; i < 5; i++)
		cu_kfree(s, key_ptrs[i]);
	while (s->n_dk) /* kept arrays not (or no longer) the key's: an adoption that failed half way */
		cu_kfree(s, s->dk[0].p);
	if (s->sst)
		zp_cuda_stream_sync(s->sst);
	void *dev_ptrs[] = { s->buf[0].d_w, s->buf[0].d_abc, s->buf[1].d_w,
			     s->buf[1].d_abc, s->d_idx, s->d_one, s->d_sel, s->d_scratch, s->d_ks[0], s->d_ks[1], s->d_ws[0],
			     s->d_ws[1], s->d_nz[0], s->d_nz[1], s->d_nz[2], s->d_nz[3], s->d_fl, s->d_ftmp };
	for (size_t i = 0; i < sizeof dev_ptrs / sizeof dev_ptrs[0]; i++)
		zp_cuda_free(dev_ptrs[i]);
	for (int i = 0; i < 2; i++) {
		zp_cuda_event_destroy(s->buf[i].copied);
		zp_cuda_event_destroy(s->pin_ev[i]);
		zp_cuda_free_host(s->pin[i]);
	}
	zp_cuda_stream_destroy(s->st);
	zp_cuda_stream_destroy(s->cst);
	zp_cuda_stream_destroy(s->wst);
	zp_cuda_stream_destroy(s->sst);
	if (s->hsst)
		zp_cuda_stream_sync(s->hsst);
	zp_cuda_stream_destroy(s->hsst);
	for (int i = 0; i < 2; i++)
		zp_cuda_event_destroy(s->hev_up[i]), zp_cuda_event_destroy(s->hev_free[i]);
	zp_cuda_event_destroy(s->hev_go);
	free(s->hb_it);
	for (int i = 0; i < 6; i++)
		zp_cuda_event_destroy(s->tev[i]);
	for (int i = 0; i < 4; i++) {
		zp_cuda_event_destroy(s->ev_up[i / 2][i % 2]);
		zp_cuda_event_destroy(s->ev_free[i / 2][i % 2]);
	}
	for (int i = 0; i < 5; i++) {
		zp_cuda_host_unpin(s->h_reg[i]);
		zp_cuda_free_host(s->h_own[i]);
	}
	zp_cuda_free_host(s->h_w);
	zp_cuda_free_host(s->h_c);
	free(s->wit_it);
	free(s->w_it);
	free(s->h_it);
	zp_cuda_upload_release(s->kept);
	if (s->fmt && s->fmt->release)
		s->fmt->release(s);
	free(s->h_idx);
	free(s->h_one);
	free(s);
}

/* The plan's inputs: the key's sizes and the knobs (checked: a bad value fails create naming it). */
static int plan_in(zp_cuda_plan_in *in, const struct cu *s, const zp_g16_key *key)
{
	const zp_knobs_t *k = zp_knobs();
	int rc;
	if ((rc = zp_knob_get(&k->cuda_msm_chunk, CU_WHO)) || (rc = zp_knob_get(&k->cuda_bufs, CU_WHO)) ||
	    (rc = zp_knob_get(&k->cuda_mem_margin_mb, CU_WHO)) || (rc = zp_knob_get(&k->cuda_key_stream, CU_WHO)) ||
	    (rc = zp_knob_get(&k->cuda_mem_cap_mb, CU_WHO)) || (rc = zp_knob_get(&k->cuda_key_res, CU_WHO)) ||
	    (rc = zp_knob_get(&k->cuda_split, CU_WHO)) || (rc = zp_knob_get(&k->cuda_split_keep, CU_WHO)))
		return rc;
	*in = (zp_cuda_plan_in){ .nv = s->nv, .np = s->np, .dom = s->dom, .log_dom = s->log_dom,
				 .key_on_device = key->dev_points != NULL, .msm_chunk_log = k->cuda_msm_chunk.v,
				 .bufs = k->cuda_bufs.v, .margin_mb = k->cuda_mem_margin_mb.v, .cap_mb = k->cuda_mem_cap_mb.v,
				 .key_stream = k->cuda_key_stream.v, .key_res = k->cuda_key_res.v, .key_stage_log = k->cuda_key_stage.v,
				 .split = k->cuda_split.v, .aff_bytes = { s->pt[0], s->pt[1] }, .one_shot = key->one_shot,
				 .tables = zp_cuda_plan_twiddles(s->log_dom + (key->h_mode == ZP_H_SNARKJS)),
				 .glv = s->cc->id == ZP_CURVE_BLS12_381 && k->msm_glv > 0 && s->log_dom >= (unsigned)k->msm_glv };
	return 0;
}


/* Free and total device memory as the plan sees them: under the operator's cap ([group] gpu_memory,
 * ZP_CUDA_MEM_CAP_MB) the card is that large, and what anyone uses counts against it. */
int cu_mem_info(const struct cu *s, size_t *fr, size_t *tot)
{
	int rc = zp_cuda_mem_info(fr, tot);
	if (!rc)
		zp_cuda_plan_cap(&s->in, fr, tot);
	return rc;
}

/* The key's curve: its kernel table (zp_cuda.h's zp_cuda_curve) and point sizes. A BN254 key proves
 * with snarkjs's H query (BN254's NTT has no bellperson coset) from host points (setup on the device
 * makes BLS12-381 keys only). */
static int cu_curve(struct cu *s, const zp_g16_key *key)
{
	int bn = zp_zkey_is_bn254(key->zkey);
	if (bn && key->h_mode != ZP_H_SNARKJS)
		return zp_err_set(ZP_ERANGE, "CUDA backend: a bn254 key proves with snarkjs's H query only (H mode coeff asked)");
	if (bn && key->dev_points)
		return zp_err_set(ZP_ERANGE, "CUDA backend: a bn254 key made in device memory (setup on the GPU is bls12-381 only)");
	s->cc = bn ? &zp_cuda_curve_bn254 : &zp_cuda_curve_bls12_381;
	s->pt[0] = s->cc->aff_bytes[0];
	s->pt[1] = s->cc->aff_bytes[1];
	return 0;
}


/* An input set: w, a, b, c on the device; the lean set (plan.lean) a and b only (c goes up into b's
 * buffer during the H step, w range by range with the key), with page-locked host copies of w and c. */
static int buf_alloc(struct cu *s, int i)
{
	int rc;
	if (s->plan.lean) {
		if ((rc = dmalloc((void **)&s->buf[i].d_abc, 2 * s->dom * sizeof(zp_fr), "a, b (lean input set)")))
			return rc;
		if (zp_cuda_alloc_host((void **)&s->h_w, s->nv * sizeof(zp_fr)) ||
		    zp_cuda_alloc_host((void **)&s->h_c, s->dom * sizeof(zp_fr)))
			return zp_err_set(-ENOMEM, "CUDA backend: %zu bytes of page-locked host memory for the lean input set's "
					  "w and c", (s->nv + s->dom) * sizeof(zp_fr));
	} else if ((rc = dmalloc((void **)&s->buf[i].d_w, s->nv * sizeof(zp_fr), "w")) ||
		   (rc = dmalloc((void **)&s->buf[i].d_abc, 3 * s->dom * sizeof(zp_fr), "a, b, c"))) {
		return rc;
	}
	return zp_cuda_event_create(&s->buf[i].copied);
}


/* Everything but the key: the first input set, twiddles and the 0/1 split's lists, then what the
 * pure plan (cuda/plan.c) makes of the memory left: a second input set, split bases, MSM chunks
 * and scratch, the key's staging range when it streams. Nothing is allocated per proof. */
static int cu_apply(struct cu *s, const zp_g16_key *key)
{
	zp_cuda_plan *p = &s->plan;
	int rc;
	if ((rc = buf_alloc(s, 0)) || (s->fmt->alloc && (rc = s->fmt->alloc(s))))
		return rc;
	s->nbuf = 1;
	/* snarkjs H shifts by ω_2n: the twiddles reach 2^(log n + 1). The key's own root family (5 for
	 * snarkjs keys and zkpipe setup's default, 7 for bellperson .params and setup --roots 7). */
	if ((rc = s->cc->ntt_create(&s->ntt, s->log_dom + (key->h_mode == ZP_H_SNARKJS), zp_g16_key_roots(key))))
		return rc;
	s->sel_len = zp_cuda_nonbits_temp_size(s->nv);
	if (!s->plan.lean && /* the lean set: lists of a staged range, below */
	    ((rc = dmalloc((void **)&s->d_idx, s->nv * sizeof(uint32_t), "the 0/1 split's index list")) ||
	     (rc = dmalloc((void **)&s->d_one, s->nv * sizeof(uint32_t), "the 0/1 split's list of ones")) ||
	     (rc = dmalloc(&s->d_sel, s->sel_len, "the 0/1 split's selection"))))
		return rc;
	if (!s->kstream) {
		const size_t *len = s->an;
		s->ftmp_len = zp_cuda_filter_temp_size(s->nv);
		if ((rc = dmalloc((void **)&s->d_fl, s->nv * sizeof(uint32_t), "the density-filtered list")) ||
		    (rc = dmalloc(&s->d_ftmp, s->ftmp_len, "the density filter's temp")))
			return rc;
		for (int q = 0; q < 4; q++)
			if ((rc = dmalloc((void **)&s->d_nz[q], (max2(len[q], 1) + 31) / 32 * sizeof(uint32_t), "a query's density bits")))
				return rc;
		s->dens = 1; /* the bits are made once the key's points are up (below: its copies are held back) */
	}
	if (!(s->h_idx = calloc(s->np + 1, sizeof(uint32_t))) || !(s->h_one = calloc(s->np + 1, sizeof(uint32_t))))
		return zp_err_set(-ENOMEM, "CUDA backend: host index copy");
	if (s->kstream && (rc = zp_knob_get(&zp_knobs()->cuda_key_stage, CU_WHO)))
		return rc;
	size_t fr = 0, tot = 0;
	if ((rc = cu_mem_info(s, &fr, &tot)))
		goto err;
	if ((rc = zp_cuda_plan_make(p, &s->in, s->cc->sizes, fr + s->dk_extra, tot)))
		return rc;
	if (p->kstream) {
		s->kst = p->kst;
		for (int i = 0; i < 2; i++)
			if ((rc = dmalloc(&s->d_ks[i], s->kst * s->pt[1], "the key's staging range")) ||
			    (p->lean && (rc = dmalloc((void **)&s->d_ws[i], s->kst * sizeof(zp_fr), "the witness's staging range"))))
				return rc;
		if (p->lean && ((s->sel_len = zp_cuda_nonbits_temp_size(s->kst)),
				(rc = dmalloc((void **)&s->d_idx, s->kst * sizeof(uint32_t), "a staged range's index list")) ||
				(rc = dmalloc((void **)&s->d_one, s->kst * sizeof(uint32_t), "a staged range's list of ones")) ||
				(rc = dmalloc(&s->d_sel, s->sel_len, "the 0/1 split's selection"))))
			return rc;
		if ((rc = cu_kp_plan(s)))
			return rc;
	}
	if (p->nbuf == 2) {
		if ((rc = buf_alloc(s, 1)))
			return rc;
		s->nbuf = 2;
	}
	double t0 = mono_s();
	if ((rc = cu_apply_split(s, key)) || (rc = cu_flush_up(s, "the key")))
		return rc;
	if (s->dens) { /* from the arrays as they are now: apply_split may have moved them into the split bases */
		const void *pts[4] = { s->d_a, s->d_b1, s->d_b2, s->d_c };
		const size_t *len = s->an;
		for (int q = 0; q < 4; q++)
			if ((rc = zp_cuda_nonzero_bits(s->d_nz[q], pts[q], len[q], s->pt[q == 2], s->st)))
				return rc;
		if ((rc = zp_cuda_stream_sync(s->st)))
			return rc;
	}
	s->split_s = mono_s() - t0;
	memcpy(s->chunk, p->chunk, sizeof s->chunk);
	s->hchunk = p->hchunk;
	memcpy(s->ones_chunk, p->ones_chunk, sizeof s->ones_chunk);
	s->scratch_len = p->scratch_len;
	if ((rc = dmalloc(&s->d_scratch, s->scratch_len, "MSM scratch")))
		return rc;
	for (int i = 0; i < 2; i++) {
		if ((rc = zp_cuda_alloc_host((void **)&s->pin[i], CU_STAGE_BYTES)))
			goto err;
		if ((rc = zp_cuda_event_create(&s->pin_ev[i])))
			goto err;
	}
	if (verbose())
		fprintf(stderr, "CUDA backend: %zu wires, domain %zu: %d input set(s), MSM chunks G1 %zu G2 %zu H %zu "
			"(windows a pass: %d / %d / %d, 0 = all; 0/1 kernel %zu / %zu), scratch %zu bytes; %zu of %zu "
			"bytes were free before the second set and scratch (margin %zu)\n", s->nv, s->dom, s->nbuf,
			s->chunk[0], s->chunk[1], s->hchunk,
			zp_cuda_curve_msm_passes(s->cc, 0, s->chunk[0], 1, s->scratch_len - align256(s->chunk[0] * 32) - align256(s->chunk[0] * s->pt[0])),
			zp_cuda_curve_msm_passes(s->cc, 1, s->chunk[1], 1, s->scratch_len - align256(s->chunk[1] * 32) - align256(s->chunk[1] * s->pt[1])),
			zp_cuda_curve_msm_passes(s->cc, 0, s->hchunk, 1, s->scratch_len), s->ones_chunk[0], s->ones_chunk[1], s->scratch_len,
			fr, tot, p->margin);
	if (verbose() && s->hb_it)
		fprintf(stderr, "CUDA backend: the H MSM beside the witness MSMs: %zu ranges of %zu points staged into the input "
			"set's buffers the H step leaves free (%zu bytes), scratch %zu bytes there (windows a pass %d, 0 = all)\n",
			s->n_hb_it, s->plan.hb_st, s->plan.hb_room, s->plan.hb_scratch,
			zp_cuda_curve_msm_passes(s->cc, 0, s->plan.hb_st, 1, s->plan.hb_scratch));
	if (verbose() && !s->hsplit && s->in.glv)
		fprintf(stderr, "CUDA backend: H MSM through the GLV cut (2 x %zu entries of 128 bits over the %zu bases, "
			"no split bases; windows a pass %d, 0 = all)\n", s->hchunk, s->hchunk,
			zp_cuda_curve_msm_passes(s->cc, 0, s->hchunk, 2, s->scratch_len));
	if (verbose() && s->hsplit)
		fprintf(stderr, "CUDA backend: H MSM split into %d-bit chunks over %d x %zu resident bases (%zu bytes more; "
			"windows a pass %u, 0 = all)%s\n", 256 / s->hsplit, s->hsplit, s->dom,
			(s->hsplit - 1) * s->dom * s->pt[0], s->hpass, s->wsplit ? "; the witness MSMs too" : "");
	return 0;
err:
	return rc;
}

/* One backend state for either key format (fmt: cu_fmt_expanded for zp_g16_backend_cuda, cu_fmt_params for
 * zp_g16_backend_cuda_params, whose density step is allocated beside the first input set). */
int cu_make(void **state, const zp_g16_key *key, const struct cu_fmt *fmt)
{
	const zp_zkey *k = key->zkey;
	int rc;
	char desc[160];
	if ((rc = zp_g16_backend_cuda_probe(desc, sizeof desc)))
		return rc;
	if (!!key->compact != fmt->compact)
		return zp_err_set(ZP_ERANGE, "CUDA backend: %s key on the %s key's ops table", key->compact ? "a compact (.params)" :
				  "an expanded", fmt->compact ? "compact" : "expanded");
	struct cu *s = calloc(1, sizeof(*s));
	if (!s)
		return zp_err_set(-ENOMEM, "CUDA backend state");
	s->dev = (int)zp_knobs()->cuda_device.v;   /* checked by the probe */
	s->key = key;
	s->fmt = fmt;
	if ((rc = cu_curve(s, key)))
		goto err;
	s->nv = k->n_vars;
	s->np = k->n_public;
	s->dom = k->domain_size;
	s->log_dom = k->log_domain;
	if (s->nv < s->np + 1) {
		rc = zp_err_set(ZP_EFORMAT, "CUDA backend: key has %zu wires for %zu public inputs", s->nv, s->np);
		goto err;
	}
	if (s->nv >= (1ull << 31)) {
		rc = zp_err_set(ZP_ERANGE, "CUDA backend: %zu wires (at most 2^31 - 1)", s->nv);
		goto err;
	}
	s->naux = s->nv - s->np - 1;
	s->an[ZP_CUDA_ARR_A] = s->an[ZP_CUDA_ARR_B1] = s->an[ZP_CUDA_ARR_B2] = s->nv;
	s->an[ZP_CUDA_ARR_C] = s->naux;
	s->an[ZP_CUDA_ARR_H] = s->dom;
	if ((rc = plan_in(&s->in, s, key)))
		goto err;
	if ((rc = zp_cuda_set_device(s->dev)))
		goto err;
	if (fmt->init && (rc = fmt->init(s, key)))   /* a compact key's: on the device, it asks CUB for a temp size */
		goto err;
	if ((rc = zp_cuda_stream_create(&s->st)))
		goto err;
	if ((rc = zp_cuda_stream_create(&s->cst)))
		goto err;
	/* the witness MSMs' stream outranks the H step's: its blocks go first whenever SMs free up, so they do
	 * not wait behind the transforms' large grids (at equal priority they did: 121 → 476 ms) */
	if ((rc = zp_cuda_stream_create_high(&s->wst)))
		goto err;
	s->ms = s->st;
	for (int i = 0; i < 6; i++)
		if ((rc = zp_cuda_event_create_timed(&s->tev[i])))
			goto err;
	double t0 = mono_s(), t1;
	if ((rc = cu_key_upload(s, key)))
		goto err;
	t1 = mono_s();
	if ((rc = cu_apply(s, key)))
		goto err;
	if (verbose())
		fprintf(stderr, "CUDA backend: create in %.3f s: the key's points %.3f s (%s), the rest %.3f s of which the "
			"split bases and the held-back key copies %.3f s (split bases %s)\n", mono_s() - t0, t1 - t0,
			key->dev_points ? "adopted" : s->dk_adopted ? "kept on the device" : "allocated", mono_s() - t1,
			s->split_s, s->split_how ? s->split_how : "none");
	cu_dk_export(s, key);
	*state = s;
	return 0;
err:
	cu_destroy(s);
	return rc;
}

static int cu_create(void **state, const zp_g16_key *key)
{
	return cu_make(state, key, &cu_fmt_expanded);
}

static int cu_nbufs(void *state)
{
	return ((struct cu *)state)->nbuf;
}


/* The key's host arrays are read per proof: some array streams from them (the device-made key's
 * streamed arrays are this backend's own copies, h_own: not the caller's). */
int cu_reads_host_key(void *state)
{
	const struct cu *s = state;
	for (int i = 0; i < ZP_CUDA_NARR; i++)
		if (s->h_pts[i] && !s->h_own[i])
			return 1;
	return 0;
}

/* Device memory by use: the plan's figures (cuda/plan.c zp_cuda_plan_uses), for either key format. */
int cu_mem_uses(void *state, zp_g16_mem_uses *u)
{
	const struct cu *s = state;
	zp_cuda_mem_uses m;
	zp_cuda_plan_uses(&s->plan, &s->in, &m);
	*u = (zp_g16_mem_uses){ .key = m.key, .split = m.split, .sets = m.sets, .scratch = m.scratch, .tables = m.tables,
				.other = m.other, .free = m.free, .total = m.total };
	return 0;
}

const zp_g16_backend_ops zp_g16_backend_cuda = {
	.name = "cuda",
	.curves = 1u << ZP_CURVE_BLS12_381 | 1u << ZP_CURVE_BN254,   /* BN254: non-compact snarkjs keys (cu_curve) */
	.create = cu_create,
	.upload = cu_upload,
	.h = cu_h,
	.msm = cu_msm,
	.destroy = cu_destroy,
	.nbufs = cu_nbufs,
	.upload_async = cu_upload_async,
	.upload_wait = cu_upload_wait,
	.prove_buf = cu_prove_buf,
	.host_register = cu_host_register,
	.host_unregister = cu_host_unregister,
	.fatal = cu_fatal,
	.mem_uses = cu_mem_uses,
	.compact_ops = &zp_g16_backend_cuda_params,
	.reads_host_key = cu_reads_host_key,
};

