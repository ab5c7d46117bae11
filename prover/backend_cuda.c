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
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends.h"
#include "density.h"
#include "groth16.h"
#include "knobs.h"
#include "ntt.h"
#include "par.h"
#include "progress.h"
#include "zp_cuda.h"
#include "zp_cuda_plan.h"
#include "zp_err.h"

_Static_assert(sizeof(zp_cuda_g1_aff) == sizeof(zp_g1_affine), "G1 affine layouts differ");
_Static_assert(sizeof(zp_cuda_g2_aff) == sizeof(zp_g2_affine), "G2 affine layouts differ");
_Static_assert(sizeof(zp_cuda_g1_jac) == sizeof(zp_g1_jac), "G1 Jacobian layouts differ");
_Static_assert(sizeof(zp_cuda_g2_jac) == sizeof(zp_g2_jac), "G2 Jacobian layouts differ");

#define CU_STAGE_BYTES ((size_t)64 << 20)
#define CU_JAC_WORDS 36             /* a Jacobian point of either group of either curve (BLS12-381 G2: 288 bytes) */
#define CU_WHO "CUDA backend"

struct cubuf {
	zp_fr *d_w, *d_abc;         /* nv, 3·dom scalars */
	void *copied;               /* event recorded on the copy stream after the set's last copy */
};

struct cu {
	const zp_g16_key *key;
	int dev;
	const zp_cuda_curve *cc;    /* the key's curve: its kernels, point sizes and host sums (zp_cuda.h) */
	size_t pt[2];               /* affine G1, G2 point bytes of that curve */
	size_t nv, np, dom, naux;
	size_t an[5];               /* points of A, B1, B2, C, H (ZP_CUDA_ARR_*): nv, nv, nv, naux, dom; a compact key's
	                             * A n_a, B1 and B2 n_b */
	unsigned log_dom;
	void *d_a, *d_b1, *d_c, *d_h;   /* G1 points of the curve (pt[0] bytes each) */
	void *d_b2;                     /* G2 points (pt[1]) */
	struct cubuf buf[2];
	int nbuf;
	uint32_t *d_idx;            /* nv: indices of the witness entries that are not 0/1 */
	uint32_t *d_one;            /* nv: indices of the witness entries that are 1 */
	int ones_kernel;            /* ZP_CUDA_ONES_KERNEL=1: the 0/1 kernel instead of the ones list */
	void *d_sel;                /* zp_cuda_nonbits temp */
	size_t sel_len;
	/* density (ZP_CUDA_DENSITY, default on; not for a streamed key): bit i of d_nz[q] says point i of A, B1, B2
	 * or C is not at infinity; each MSM filters the ones and non-0/1 lists by it into d_fl first, so points
	 * at infinity are neither gathered, sorted nor loaded */
	int dens;
	uint32_t *d_nz[4], *d_fl;
	void *d_ftmp;
	size_t ftmp_len;
	uint32_t *h_idx, *h_one;    /* np + 1 host copies of the first indices (the C query starts at np + 1) */
	void *d_scratch;
	size_t scratch_len;
	size_t chunk[2];            /* MSM chunk entries, G1 / G2 (witness MSMs: the non-0/1 entries gathered) */
	size_t hchunk;              /* H MSM chunk entries (no gather: the whole scratch is the MSM's) */
	size_t ones_chunk[2];       /* 0/1-kernel chunk entries (its scratch is far smaller) */
	zp_cuda_ntt_ctx *ntt;
	void *st, *cst;             /* streams: compute, copy */
	void *wst;                  /* the witness MSMs' stream beside the H step (ZP_CUDA_OVERLAP, prove_buf) */
	void *ms;                   /* the stream the witness MSMs run on now: st, or wst while they overlap */
	void *tev[6];               /* ZP_CUDA_VERBOSE: H step start/end, witness start/end, H MSM start/end */
	unsigned long nproof;       /* prove_buf calls (ZP_CUDA_OVERLAP=2 alternates by it) */
	zp_fr *pin[2];              /* staging for unregistered host memory */
	void *pin_ev[2];
	int pin_i;
	uint64_t h[CU_JAC_WORDS];   /* the H MSM's result, a Jacobian G1 point of the curve */
	/* key streaming (the key does not fit beside an input set, or ZP_CUDA_KEY_STREAM=1): the points
	 * stay in host memory (page-locked where the system allows) and go up one staged range of
	 * kst entries at a time; the H MSM and each witness MSM work range by range */
	int kstream;
	const void *h_pts[5];       /* A, B1, B2, C, H (zp_cuda_plan.h's ZP_CUDA_ARR_* order) */
	void *h_reg[5];             /* those this backend registered */
	void *h_own[5];             /* host copies it made of a device-made key's streamed arrays */
	size_t kst;
	/* two staging ranges each for the key's points (d_ks) and, lean set, the witness (d_ws), filled on
	 * the staging stream sst while the compute stream works on the other range (kp_* below) */
	void *d_ks[2];
	zp_fr *d_ws[2];
	void *sst;
	void *ev_up[2][2], *ev_free[2][2];
	struct kitem *wit_it, *w_it, *h_it;   /* the staged ranges a proof goes through, in order */
	size_t n_wit_it, n_w_it, n_h_it;
	/* the H MSM beside the witness MSMs (plan.hb_st; ZP_CUDA_OVERLAP 1): its own ranges of hb_st points, staged
	 * on hsst into the input set's buffers the H step leaves free, summed on st by a second host thread */
	struct kitem *hb_it;
	size_t n_hb_it;
	void *hsst, *hev_up[2], *hev_free[2], *hev_go;
	void *hb_slot[2], *hb_scr;  /* in buf[0]'s b (and c): the two ranges, then the scratch (plan.hb_scratch) */
	zp_fr *h_w, *h_c;           /* lean input set: page-locked host copies of w and c, made at upload */
	/* the H MSM as a split MSM (zp_cuda_msm_g1_split) in hsplit parts (4 or 2; 0: plain): d_h then holds
	 * hsplit·dom bases 2^(256j/hsplit)·H_i (its first dom entries are the H query itself), made once at
	 * create; hpass windows a pass (0 = all) */
	int hsplit;
	unsigned hpass;
	/* the witness MSMs' bucket parts split too (wsplit): d_a, d_b1, d_b2, d_c hold 4× their points the
	 * same way, and the entries neither 0 nor 1 go through in one chunk */
	int wsplit;
	/* create: the key's host → device copies, held back until the split bases are known, so that a key whose
	 * split bases come from its store goes up in one pipeline with them (its H straight into the split array) */
	zp_cuda_up_seg up[16];
	unsigned n_up;
	zp_cuda_up_kept *kept;      /* the key's pages left registered by its upload (key->host_stays) */
	/* key->dev_keep: the key's arrays as kept allocations (kalloc/kfree), fds of their own */
	int dk_on, dk_adopted;
	unsigned n_dk;
	struct { void *p; size_t bytes; int fd; } dk[12];
	const char *dk_why;         /* why an offered kept set was not adopted */
	uint32_t dk_hsplit, dk_wsplit; /* the adopted set's split plan */
	size_t dk_extra;            /* the adopted set's bytes beyond the key's own (its split bases) */
	double split_s;             /* create: time making (or uploading) the split bases */
	const char *split_how;      /* "made", "from the store", NULL: none */
	zp_cuda_plan_in in;         /* the plan's inputs (sizes, knobs) and what it decided (cuda/plan.c) */
	zp_cuda_plan plan;
	struct cudens *dn;          /* a compact key's density step (below, "compact keys"); NULL: an expanded key */
};

static int cu_host_register(void *p, size_t len)
{
	return zp_cuda_host_register(p, len);
}

static void cu_host_unregister(void *p)
{
	zp_cuda_host_unregister(p);
}

static int cu_fatal(void)
{
	return zp_cuda_fatal();
}

int zp_g16_backend_cuda_probe(char *desc, size_t desc_len)
{
	return zp_cuda_probe("backend cuda", desc, desc_len);
}

static void kfree(struct cu *s, void *p);
/* a compact key's density step (below, "compact keys") */
static int dens_init(struct cu *s, const zp_g16_key *key);
static int dens_alloc(struct cu *s);
static void dens_free(struct cu *s);

static void cu_destroy(void *state)
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
		kfree(s, key_ptrs[i]);
	while (s->n_dk) /* kept arrays not (or no longer) the key's: an adoption that failed half way */
		kfree(s, s->dk[0].p);
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
	dens_free(s);
	free(s->h_idx);
	free(s->h_one);
	free(s);
}

static size_t max2(size_t a, size_t b)
{
	return a > b ? a : b;
}

static size_t align256(size_t x)
{
	return (x + 255) & ~(size_t)255;
}

/* Device memory that says, on failure, how much was asked for and how much is free. */
static int dmalloc(void **p, size_t bytes, const char *what)
{
	return zp_cuda_alloc(p, bytes, CU_WHO, what);
}

/* A key array: a kept allocation when the key is kept on the device (s->dk_on), else dmalloc's. */
static int kalloc(struct cu *s, void **p, size_t bytes, const char *what)
{
	if (!s->dk_on)
		return dmalloc(p, bytes, what);
	if (s->n_dk == sizeof s->dk / sizeof s->dk[0])
		return zp_err_set(ZP_ERANGE, "CUDA backend: too many kept arrays");
	int fd, rc = zp_cuda_dkeep_alloc(p, bytes, &fd);
	if (rc)
		return zp_err_set(rc, "CUDA backend: %s (%zu bytes, kept on the device): %s", what, bytes, zp_err_msg());
	s->dk[s->n_dk].p = *p;
	s->dk[s->n_dk].bytes = zp_cuda_dkeep_size(bytes);
	s->dk[s->n_dk++].fd = fd;
	return 0;
}

static int dk_find(const struct cu *s, const void *p)
{
	for (unsigned i = 0; i < s->n_dk; i++)
		if (s->dk[i].p == p)
			return (int)i;
	return -1;
}

/* Free what kalloc (or an adoption) gave, or what dmalloc did. */
static void kfree(struct cu *s, void *p)
{
	int i = p ? dk_find(s, p) : -1;
	if (i < 0) {
		zp_cuda_free(p);
		return;
	}
	zp_cuda_dkeep_free(s->dk[i].p, s->dk[i].bytes);
	close(s->dk[i].fd);
	s->dk[i] = s->dk[--s->n_dk];
}

/* ZP_CUDA_VERBOSE: 1 plan and key placement, 2 also every proof's stage times. */
static int verbose(void)
{
	return zp_knobs()->cuda_verbose;
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

/* Free and total device memory as the plan sees them: under the operator's cap ([group] gpu_memory,
 * ZP_CUDA_MEM_CAP_MB) the card is that large, and what anyone uses counts against it. */
static int mem_info(const struct cu *s, size_t *fr, size_t *tot)
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

/* The key's host point arrays A, B1, B2, C and the H query of its H mode, of the key's curve. */
static void cu_key_pts(const zp_g16_key *key, const void **a, const void **b1, const void **b2, const void **c,
		       const void **h)
{
	const zp_zkey *k = key->zkey;
	if (zp_zkey_is_bn254(k)) {   /* snarkjs's H query only (cu_curve) */
		*a = k->bn.a, *b1 = k->bn.b1, *b2 = k->bn.b2, *c = k->bn.c, *h = k->bn.h;
		return;
	}
	*a = k->a;
	*b1 = k->b1;
	*b2 = k->b2;
	*c = k->c;
	*h = key->h_mode == ZP_H_SNARKJS ? (const void *)k->h : (const void *)key->h_coeff;
}

/* Where the MSM stages' results go: the curve's members of zp_g16_msm_out (0 A, 1 B1, 2 B2, 3 C, 4 H),
 * Jacobian points of the curve (zp_g1_jac / zp_g2_jac, a BN254 key's in o->bn). */
static void *cu_out(const struct cu *s, zp_g16_msm_out *o, int which)
{
	void *bls[5] = { &o->a, &o->b1, &o->b2, &o->c, &o->h };
	void *bn[5] = { &o->bn.a, &o->bn.b1, &o->bn.b2, &o->bn.c, &o->bn.h };
	return s->cc->id == ZP_CURVE_BN254 ? bn[which] : bls[which];
}

static double mono_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Host arrays to the device, the page-locking overlapped with the copies (cuda/upload.c; ZP_CUDA_UPLOAD
 * picks the way: 0 auto = pinning overlapped, 1 register whole then copy, 2 pinning overlapped, 3 bounce
 * ring). Memory registered already (a gpud arena, a caller's pin) goes up directly. */
static int key_copy_segs(struct cu *s, const zp_cuda_up_seg *seg, unsigned n, const char *what)
{
	int rc;
	const zp_knob_num *k = &zp_knobs()->cuda_upload;
	if ((rc = zp_knob_get(k, CU_WHO)))
		return rc;
	/* segments marked keep: their registrations kept until destroy (create flushes its copies once) */
	zp_cuda_up_opts o = { .how = (int)k->v, .kept = s->kept ? NULL : &s->kept };
	zp_cuda_up_stats st;
	if ((rc = zp_cuda_upload(seg, n, &o, &st)))
		return rc;
	if (verbose())
		fprintf(stderr, "CUDA backend: %s: %.2f GiB up in %.3f s (%.1f GB/s; %s, %zu pieces of %zu MiB, %u threads, "
			"%u streams; pinning %.3f s, unpinning %.3f s)\n", what, st.bytes / 1073741824.0, st.secs,
			st.bytes / (st.secs > 0 ? st.secs : 1e-9) / 1e9, zp_cuda_upload_name(st.how), st.pieces, st.chunk >> 20,
			st.threads, st.streams, st.pin_s, st.unpin_s);
	return 0;
}

/* The held-back copies of create (the key, and the split bases from the store when there are), in one
 * pipeline (cuda/upload.c). */
static int flush_up(struct cu *s, const char *what)
{
	size_t tot = 0;
	int rc;
	if (!s->n_up)
		return 0;
	for (unsigned i = 0; i < s->n_up; i++)
		tot += s->up[i].len;
	zp_progress_stage("uploading the key to the GPU", tot, "bytes");
	rc = key_copy_segs(s, s->up, s->n_up, what);
	s->n_up = 0;
	return rc;
}

/* The key's arrays from an earlier start's kept set (key->dev_keep with n != 0): each mapped and checked
 * against its checksum (a killed gpud's stray write shows). 0: adopted (no upload; the split bases come
 * with them); 1: not (s->dk_why says why): the set's fds are closed either way, so memory that is not
 * adopted goes back to the device before this backend allocates its own. */
static int dk_adopt(struct cu *s, const zp_g16_key *key)
{
	zp_cuda_dkeep *in = key->dev_keep;
	void **dst[ZP_CUDA_DKEEP_N] = { &s->d_a, &s->d_b1, &s->d_b2, &s->d_c, &s->d_h };
	int rc = 1;
	unsigned i = 0;
	if (!in || !in->n)
		return 1;
	double t0 = mono_s();
	if (in->n != ZP_CUDA_DKEEP_N || in->nv != s->nv || in->dom != s->dom || in->curve != (uint32_t)zp_curve_of(key->zkey->curve)->id) {
		s->dk_why = "it was made for another key shape";
	} else {
		for (i = 0; i < ZP_CUDA_DKEEP_N; i++) {
			void *p;
			uint64_t sum = 0;
			int fd;
			if (zp_cuda_dkeep_import(&p, in->bytes[i], in->fd[i])) {
				s->dk_why = "an array could not be imported";
				break;
			}
			if ((fd = dup(in->fd[i])) < 0 || s->n_dk == sizeof s->dk / sizeof s->dk[0]) {
				if (fd >= 0)
					close(fd);
				zp_cuda_dkeep_free(p, in->bytes[i]);
				s->dk_why = "no descriptor for an array";
				break;
			}
			s->dk[s->n_dk].p = p, s->dk[s->n_dk].bytes = in->bytes[i], s->dk[s->n_dk++].fd = fd;
			*dst[i] = p;
			if (zp_cuda_checksum(p, in->bytes[i], &sum, s->st) || sum != in->sum[i]) {
				s->dk_why = "an array's checksum differs from the one it was kept with";
				break;
			}
		}
		if (i == ZP_CUDA_DKEEP_N)
			rc = 0;
	}
	if (rc)
		for (unsigned j = 0; j < ZP_CUDA_DKEEP_N; j++)
			kfree(s, *dst[j]), *dst[j] = NULL;
	for (unsigned j = 0; j < in->n && j < ZP_CUDA_DKEEP_N; j++)
		close(in->fd[j]);
	in->n = 0;
	if (rc) {
		if (verbose())
			fprintf(stderr, "CUDA backend: the kept device key was not adopted: %s%s%s\n", s->dk_why,
				zp_err_msg()[0] ? ": " : "", zp_err_msg());
		zp_err_clear();
		return 1;
	}
	size_t tot_b = 0, key_b, fr = 0, tot = 0;
	for (unsigned j = 0; j < ZP_CUDA_DKEEP_N; j++)
		tot_b += in->bytes[j];
	s->dk_adopted = 1;
	s->dk_hsplit = in->hsplit;
	s->dk_wsplit = in->wsplit;
	s->in.key_on_device = 1;
	if (mem_info(s, &fr, &tot))
		return zp_err_set(ZP_ECUDA, "CUDA backend: %s", zp_err_msg());
	/* placed as if the kept arrays (and their split bases) were not there: the choice of their first start,
	 * unless the memory (or its cap) changed since: then they go and the key is placed anew */
	if (zp_cuda_plan_key(&s->plan, &s->in, fr + tot_b, tot) || s->plan.kstream) {
		s->dk_why = "the memory plan no longer keeps the whole key on the device";
		for (unsigned j = 0; j < ZP_CUDA_DKEEP_N; j++)
			kfree(s, *dst[j]), *dst[j] = NULL;
		s->dk_adopted = 0;
		if (verbose())
			fprintf(stderr, "CUDA backend: the kept device key was not adopted: %s\n", s->dk_why);
		zp_err_clear();
		return 1;
	}
	key_b = s->plan.key_bytes;
	s->dk_extra = tot_b > key_b ? tot_b - key_b : 0;
	if (verbose())
		fprintf(stderr, "CUDA backend: key adopted from the device (%.2f GiB kept by the supervisor, split H %u, "
			"witness %u; mapped and checked in %.3f s)\n", tot_b / 1073741824.0, s->dk_hsplit, s->dk_wsplit,
			mono_s() - t0);
	return 0;
}

/* The key's arrays as kept allocations for the next process (key->dev_keep): when every one is. */
static void dk_export(struct cu *s, const zp_g16_key *key)
{
	zp_cuda_dkeep *out = key->dev_keep, o;
	void *arr[ZP_CUDA_DKEEP_N] = { s->d_a, s->d_b1, s->d_b2, s->d_c, s->d_h };
	if (!out || !s->dk_on)
		return;
	memset(&o, 0, sizeof o);
	for (unsigned i = 0; i < ZP_CUDA_DKEEP_N; i++) {
		int j = dk_find(s, arr[i]);
		if (j < 0 || zp_cuda_checksum(arr[i], s->dk[j].bytes, &o.sum[i], s->st) || (o.fd[i] = dup(s->dk[j].fd)) < 0) {
			for (unsigned k = 0; k < i; k++)
				close(o.fd[k]);
			zp_err_clear();
			return;
		}
		o.bytes[i] = s->dk[j].bytes;
	}
	o.n = ZP_CUDA_DKEEP_N;
	o.hsplit = (uint32_t)s->hsplit;
	o.wsplit = (uint32_t)s->wsplit;
	o.curve = (uint32_t)zp_curve_of(key->zkey->curve)->id;
	o.nv = s->nv;
	o.dom = s->dom;
	*out = o;
}

/* The plan's first step, its choice said when verbose. */
static int place_key(struct cu *s, size_t fr, size_t tot)
{
	zp_cuda_plan *p = &s->plan;
	int rc = zp_cuda_plan_key(p, &s->in, fr, tot);
	if (rc || !verbose())
		return rc;
	if (!p->kstream) {
		fprintf(stderr, "CUDA backend: key of %zu bytes resident (%zu bytes free of %zu)\n", p->key_bytes, fr, tot);
		return 0;
	}
	static const char *nm[ZP_CUDA_NARR] = { "A", "B1", "B2", "C", "H" };
	char res[64] = "", str[64] = "";
	for (int i = 0; i < ZP_CUDA_NARR; i++) {
		char *d = p->res[i] ? res : str;
		snprintf(d + strlen(d), 64 - strlen(d), "%s%s", *d ? " " : "", nm[i]);
	}
	fprintf(stderr, "CUDA backend: key of %zu bytes: resident [%s], streamed from host memory [%s]; %s input set; "
		"%zu bytes from host memory a proof beyond the input (%zu bytes free of %zu%s%s)\n", p->key_bytes, res, str,
		p->lean ? "lean (a, b on the device; w and c from host copies)" : "full", p->moved, fr, tot,
		s->in.key_stream ? ", ZP_CUDA_KEY_STREAM=1" : "", s->in.cap_mb ? ", capped" : "");
	return 0;
}

/* A device-made key's array i that the plan streams: copied into page-locked host memory of this
 * backend's (plain memory if that is refused) and freed on the device. */
static int dev_to_host(struct cu *s, int i, void **d, size_t len)
{
	void *h = NULL;
	int rc;
	if (zp_cuda_alloc_host(&h, len)) {
		zp_err_clear();
		return zp_err_set(-ENOMEM, "CUDA backend: %zu bytes of page-locked host memory for the key's streamed array", len);
	}
	if ((rc = zp_cuda_copy_to_host(h, *d, len, NULL))) {
		zp_cuda_free_host(h);
		return rc;
	}
	zp_cuda_free(*d);
	*d = NULL;
	s->h_own[i] = h;
	s->h_pts[i] = h;
	return 0;
}

/* A device-made array moved into a kept allocation (key->dev_keep): on the device when both copies fit
 * for a moment, else through host memory, so the key never needs two copies on the device at once. */
static int dev_to_kept(struct cu *s, void **d, size_t len)
{
	size_t fr = 0, tot = 0;
	void *n = NULL, *h = NULL;
	int rc;
	if ((rc = zp_cuda_mem_info(&fr, &tot)))
		return rc;
	if (fr > len + ((size_t)1 << 30)) {
		if ((rc = kalloc(s, &n, len, "the key kept on the device")) || (rc = zp_cuda_copy_on_dev(n, *d, len, s->st)) ||
		    (rc = zp_cuda_stream_sync(s->st))) {
			kfree(s, n);
			return rc;
		}
		zp_cuda_free(*d);
		*d = n;
		return 0;
	}
	if (!(h = malloc(len)))
		return zp_err_set(-ENOMEM, "CUDA backend: %zu bytes of host memory to move the key into a kept allocation", len);
	if ((rc = zp_cuda_copy_to_host(h, *d, len, NULL)))
		goto out;
	zp_cuda_free(*d);
	*d = NULL;
	if ((rc = kalloc(s, &n, len, "the key kept on the device")) || (rc = zp_cuda_copy_to_dev(n, h, len, NULL)) ||
	    (rc = zp_cuda_stream_sync(NULL))) {
		kfree(s, n);
		goto out;
	}
	*d = n;
out:
	free(h);
	return rc;
}

/* The key's points: each array resident in device memory or, as the plan says (cuda/plan.c), left in
 * host memory (page-locked where the system allows) and staged range by range. A key already made in
 * device memory is adopted instead (its streamed arrays copied to host memory); destroy frees the
 * pointers either way. */
static int cu_key_upload(struct cu *s, const zp_g16_key *key)
{
	int rc;
	size_t g1 = s->pt[0], g2 = s->pt[1], fr = 0, tot = 0;
	const size_t hl[5] = { max2(s->an[0], 1) * g1, max2(s->an[1], 1) * g1, max2(s->an[2], 1) * g2,
			       max2(s->an[3], 1) * g1, s->an[4] * g1 };
	void **dv[5] = { &s->d_a, &s->d_b1, &s->d_b2, &s->d_c, &s->d_h };
	const void *ka, *kb1, *kb2, *kc, *hpts;
	cu_key_pts(key, &ka, &kb1, &kb2, &kc, &hpts);
	if (key->dev_points) {
		/* setup = device: the key's points are already on this device; adopt them */
		zp_cuda_key_dev *kd = key->dev_points;
		s->d_a = kd->a;
		s->d_b1 = kd->b1;
		s->d_b2 = kd->b2;
		s->d_c = kd->c;
		s->d_h = kd->h;
		memset(kd, 0, sizeof *kd);
		size_t on_dev = 0;
		for (int i = 0; i < 5; i++)
			on_dev += hl[i];
		/* planned as if not there yet: the card's free bytes with the key's counted free, then the
		 * cap (GPU_MEMORY) applied; capping first would count the made key as another's use */
		if ((rc = zp_cuda_mem_info(&fr, &tot)))
			return rc;
		fr = fr + on_dev < tot ? fr + on_dev : tot;
		zp_cuda_plan_cap(&s->in, &fr, &tot);
		if ((rc = place_key(s, fr, tot)))
			return rc;
		if (s->plan.kstream) { /* the arrays the plan streams go to host memory; such a key is not kept */
			s->kstream = 1;
			for (int i = 0; i < 5; i++)
				if (!s->plan.res[i] && (rc = dev_to_host(s, i, dv[i], hl[i])))
					return rc;
			return 0;
		}
		if (key->dev_keep) { /* kept across processes: each array moved into a kept allocation (one at a time) */
			s->dk_on = 1;
			for (int i = 0; i < ZP_CUDA_DKEEP_N; i++)
				if ((rc = dev_to_kept(s, dv[i], hl[i])))
					return rc;
		}
		return 0;
	}
	s->dk_on = key->dev_keep != NULL;
	if ((rc = dk_adopt(s, key)) <= 0) /* an earlier start's arrays still on the device: no upload */
		return rc;
	if (!hpts)
		return zp_err_set(ZP_ERANGE, "CUDA backend: the key has no H query for its H mode");
	if ((rc = mem_info(s, &fr, &tot)) || (rc = place_key(s, fr, tot)))
		return rc;
	const void *hp[5] = { ka, kb1, kb2, kc, hpts };
	static const char *what[5] = { "the key's A", "the key's B1", "the key's B2", "the key's C", "the key's H" };
	const int keep = key->host_stays;
	if (s->plan.kstream) {
		s->kstream = 1;
		s->dk_on = 0;   /* only a whole key is kept on the device across processes */
	}
	s->n_up = 0;
	for (int i = 0; i < 5; i++) {
		if (!s->plan.res[i]) {
			s->h_pts[i] = hp[i];
			if (!zp_cuda_host_pin_ro(hp[i], hl[i]))
				s->h_reg[i] = (void *)hp[i];
			else
				zp_err_clear();   /* staged from pageable memory: slower, not wrong */
			continue;
		}
		if ((rc = kalloc(s, dv[i], hl[i], what[i])))
			return rc;
		/* copied by flush_up: once the split bases are known (apply_split) */
		s->up[s->n_up++] = (zp_cuda_up_seg){ *dv[i], hp[i], s->an[i] * s->pt[i == ZP_CUDA_ARR_B2], keep };
	}
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

/* ---- key streaming: ranges staged on sst beside the compute stream ----
 * A pass (the witness MSMs, the H MSM) goes through a list of staged ranges made at create (kitem:
 * which array, first point, points; which 5 is the lean set's w). Two staging slots a kind (key points,
 * w): item j goes into slot j % 2 once the compute stream is done with item j − 2 there (ev_free), and
 * the compute stream waits for its copy (ev_up), so range j + 1 goes up while range j is summed. */
struct kitem { int which; size_t first, m; };
/* kind 0: key points in d_ks, 1: the lean set's w in d_ws (both staged on sst, summed on ms), 2: the H MSM
 * beside the witness MSMs (staged on hsst into slot, summed on st) */
struct kpipe { const struct kitem *it; size_t n, next; int kind; void *slot[2], *cs, **up, **fr; };
#define KI_W 5    /* scalars: the lean set's w (a compact key's C: its aux entries, from np + 1) */
#define KI_SA 6   /* a compact key's lean set: the A scalars gathered on the host (dens_upload) */
#define KI_SB 7   /* ... and the B scalars */
static const zp_fr *ki_scalars(const struct cu *s, const struct kitem *it);

static int kp_issue(struct cu *s, struct kpipe *q)
{
	if (q->next >= q->n)
		return 0;
	const struct kitem *it = &q->it[q->next];
	int sl = (int)(q->next & 1), rc;
	size_t pt = it->which >= KI_W ? sizeof(zp_fr) : s->pt[it->which == ZP_CUDA_ARR_B2];
	const void *src = it->which >= KI_W ? (const void *)ki_scalars(s, it)
					     : (const void *)((const char *)s->h_pts[it->which] + it->first * pt);
	if ((rc = zp_cuda_stream_wait(q->cs, q->fr[sl])) || (rc = zp_cuda_copy_to_dev(q->slot[sl], src, it->m * pt, q->cs)) ||
	    (rc = zp_cuda_event_record(q->up[sl], q->cs)))
		return rc;
	q->next++;
	return 0;
}

static int kp_start(struct cu *s, struct kpipe *q, const struct kitem *it, size_t n, int kind)
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
static int kp_take(struct cu *s, struct kpipe *q, size_t j, void **d)
{
	int sl = (int)(j & 1);
	*d = q->slot[sl];
	return zp_cuda_stream_wait(kp_xs(s, q), q->up[sl]);
}

/* Done with item j (everything queued that reads its slot): the slot takes item j + 2. */
static int kp_done(struct cu *s, struct kpipe *q, size_t j)
{
	int rc = zp_cuda_event_record(q->fr[j & 1], kp_xs(s, q));
	return rc ? rc : kp_issue(s, q);
}

/* The witness MSMs' order within a range: C first (its first range may start past the range's start:
 * its own list), then A, B1, B2 on the range's list. */
static const int wit_order[4] = { ZP_CUDA_ARR_C, ZP_CUDA_ARR_A, ZP_CUDA_ARR_B1, ZP_CUDA_ARR_B2 };

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
static int kp_plan(struct cu *s)
{
	size_t hst = s->plan.hst ? s->plan.hst : s->kst;   /* H's ranges: G1 points, as many as a slot holds */
	size_t nr = (s->nv + s->kst - 1) / s->kst, nh = (s->dom + hst - 1) / hst;
	if (!(s->wit_it = calloc(4 * nr + 1, sizeof *s->wit_it)) || !(s->w_it = calloc(4 * nr + 1, sizeof *s->w_it)) ||
	    !(s->h_it = calloc(nh + 1, sizeof *s->h_it)))
		return zp_err_set(-ENOMEM, "CUDA backend: staging lists");
	if (s->dn) { /* a compact key: each streamed array on its own scalars, range by range (msm_streamed_dens) */
		for (int k = 0; k < 4; k++) {
			int q = wit_order[k];
			if (s->plan.res[q])
				continue;
			for (size_t off = 0; off < s->an[q]; off += s->kst)
				s->wit_it[s->n_wit_it++] = (struct kitem){ q, off, s->an[q] - off < s->kst ? s->an[q] - off : s->kst };
		}
		/* the lean set: every array's scalars range by range from the host (msm_lean_dens), in the same order */
		for (int k = 0; s->plan.lean && k < 4; k++) {
			int q = wit_order[k];
			int which = q == ZP_CUDA_ARR_A ? KI_SA : q == ZP_CUDA_ARR_C ? KI_W : KI_SB;
			for (size_t off = 0; off < s->an[q]; off += s->kst)
				s->w_it[s->n_w_it++] = (struct kitem){ which, (q == ZP_CUDA_ARR_C ? s->np + 1 : 0) + off,
								      s->an[q] - off < s->kst ? s->an[q] - off : s->kst };
		}
	}
	for (size_t off = 0; !s->dn && off < s->nv; off += s->kst) {
		size_t m = s->nv - off < s->kst ? s->nv - off : s->kst;
		if (s->plan.lean)
			s->w_it[s->n_w_it++] = (struct kitem){ KI_W, off, m };
		for (int k = 0; k < 4; k++) {
			size_t lo, first, mq = q_range(s, wit_order[k], off, m, &lo, &first);
			if (mq && !s->plan.res[wit_order[k]])
				s->wit_it[s->n_wit_it++] = (struct kitem){ wit_order[k], first, mq };
		}
	}
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

/* Replace *d (len points) with the parts·len split bases 2^(256j/parts)·P_i made from it (tmp: their scratch). */
static int make_split(struct cu *s, int g2, void **d, size_t len, unsigned parts, void *tmp, size_t tmp_len,
		      const char *what)
{
	int rc = 0;
	size_t pt = s->pt[g2];
	void *d4;
	if ((rc = kalloc(s, &d4, parts * len * pt, what)))
		return rc;
	rc = s->cc->split_bases(g2, d4, *d, len, parts, tmp, tmp_len, s->st);
	if (!rc)
		rc = zp_cuda_stream_sync(s->st);
	if (rc) {
		kfree(s, d4);
		return rc;
	}
	kfree(s, *d);
	*d = d4;
	return 0;
}

/* The split arrays the plan asks for, in order: H in hsplit parts, and (wsplit) A, B1, B2, C in 4. */
static unsigned split_set(const struct cu *s, zp_g16_split_arr *set, void ***d, int *g2)
{
	const zp_cuda_plan *p = &s->plan;
	unsigned n = 0;
	struct cu *w = (struct cu *)s;
	if (!p->hsplit)
		return 0;
	set[n] = (zp_g16_split_arr){ "h", (unsigned)p->hsplit, s->dom, (unsigned)s->pt[0] }, d[n] = (void **)&w->d_h, g2[n++] = 0;
	if (p->wsplit) {
		set[n] = (zp_g16_split_arr){ "a", 4, max2(s->an[0], 1), (unsigned)s->pt[0] }, d[n] = (void **)&w->d_a, g2[n++] = 0;
		set[n] = (zp_g16_split_arr){ "b1", 4, max2(s->an[1], 1), (unsigned)s->pt[0] }, d[n] = (void **)&w->d_b1, g2[n++] = 0;
		set[n] = (zp_g16_split_arr){ "b2", 4, max2(s->an[2], 1), (unsigned)s->pt[1] }, d[n] = (void **)&w->d_b2, g2[n++] = 1;
		set[n] = (zp_g16_split_arr){ "c", 4, max2(s->an[3], 1), (unsigned)s->pt[0] }, d[n] = (void **)&w->d_c, g2[n++] = 0;
	}
	return n;
}

/* The split bases from the key's store (made by an earlier start from this very key): each array's
 * copy 0 is the key's own points (device to device), the others go up from the store. 1 when the store
 * has none. */
static int split_from_store(struct cu *s, const zp_g16_split_store *ss, const zp_g16_split_arr *set, void ***d, unsigned n)
{
	const void *host[8];
	void *d4[8] = { 0 };
	int rc;
	if (ss->get(ss->ctx, set, n, host))
		return 1;
	if (s->n_up + n > sizeof s->up / sizeof s->up[0])
		return zp_err_set(ZP_ERANGE, "CUDA backend: %u copies held back", s->n_up + n);
	for (unsigned i = 0; i < n; i++) {
		size_t one = set[i].points * set[i].pt_bytes;
		zp_cuda_up_seg *key_seg = NULL;
		for (unsigned k = 0; k < s->n_up; k++)
			if (s->up[k].d == *d[i])
				key_seg = &s->up[k];
		if (key_seg) /* the key's array not sent yet: it goes straight into copy 0 of the split array */
			kfree(s, *d[i]), *d[i] = NULL;
		if ((rc = kalloc(s, &d4[i], set[i].parts * one, "the split bases")))
			goto err;
		if (key_seg)
			key_seg->d = d4[i];
		else if ((rc = zp_cuda_copy_on_dev(d4[i], *d[i], one, s->st)))
			goto err;
		/* the store's mapping goes after create (gpud): never kept registered */
		s->up[s->n_up++] = (zp_cuda_up_seg){ (char *)d4[i] + one, host[i], (set[i].parts - 1) * one, 0 };
	}
	if ((rc = flush_up(s, "the key and its split bases from the store")) || (rc = zp_cuda_stream_sync(s->st)))
		goto err;
	for (unsigned i = 0; i < n; i++) {
		kfree(s, *d[i]);
		*d[i] = d4[i];
	}
	return 0;
err:
	for (unsigned i = 0; i < n; i++)
		if (!*d[i]) /* its array was freed for d4: d4 is the array now (destroy frees it) */
			*d[i] = d4[i];
		else
			kfree(s, d4[i]);
	return rc;
}

/* Offer the split bases just made to the store (its copies 1..parts−1 of each array); a failure only
 * costs the next start. */
static void split_to_store(struct cu *s, const zp_g16_split_store *ss, const zp_g16_split_arr *set, void ***d, unsigned n)
{
	void *host[8];
	int rc = ss->begin(ss->ctx, set, n, host);
	for (unsigned i = 0; !rc && i < n; i++) {
		size_t one = set[i].points * set[i].pt_bytes, len = (set[i].parts - 1) * one;
		int pinned = !zp_cuda_host_pin(host[i], len); /* the store faulted its pages in: pinning is quick */
		rc = zp_cuda_copy_to_host(host[i], (const char *)*d[i] + one, len, NULL);
		if (pinned)
			zp_cuda_host_unpin(host[i]);
	}
	ss->end(ss->ctx, rc);
}

/* The split bases the plan asks for: from the key's store when it has them, else made on the device
 * (and then offered to the store). */
static int apply_split(struct cu *s, const zp_g16_key *key)
{
	const zp_cuda_plan *p = &s->plan;
	zp_g16_split_arr set[8];
	void **d[8];
	int g2[8];
	void *tmp;
	int rc;
	unsigned n = split_set(s, set, d, g2);
	if (s->dk_adopted) { /* the kept arrays are the split bases of the plan they were made with */
		if ((uint32_t)p->hsplit != s->dk_hsplit || (uint32_t)p->wsplit != s->dk_wsplit)
			return zp_err_set(-EAGAIN, "CUDA backend: the kept device key holds the split bases of another plan "
					  "(H %u, witness %u parts; this start's plan: %d, %d)", s->dk_hsplit, s->dk_wsplit,
					  p->hsplit, p->wsplit);
		s->split_how = "kept on the device";
		s->hsplit = p->hsplit;
		s->hpass = p->hpass;
		s->wsplit = p->wsplit;
		return 0;
	}
	if (!n)
		return 0;
	const zp_g16_split_store *ss = zp_knobs()->cuda_split_keep.v ? key->split_store : NULL;
	if (ss && !(rc = split_from_store(s, ss, set, d, n))) {
		s->split_how = "from the store";
	} else {
		if (ss && rc < 0)
			return rc;
		if ((rc = flush_up(s, "the key"))) /* the split bases are made from the key's points on the device */
			return rc;
		if ((rc = dmalloc(&tmp, p->split_tmp, "scratch for the split bases")))
			return rc;
		for (unsigned i = 0; !rc && i < n; i++)
			rc = make_split(s, g2[i], d[i], set[i].points, set[i].parts, tmp, p->split_tmp,
					i ? "split witness bases" : set[i].parts == 4 ? "the split H bases" : "the split H bases (2 parts)");
		zp_cuda_free(tmp);
		if (rc)
			return rc;
		s->split_how = "made on the device";
		if (ss) {
			double t0 = mono_s();
			split_to_store(s, ss, set, d, n);
			if (verbose())
				fprintf(stderr, "CUDA backend: split bases offered to the key's store in %.3f s\n", mono_s() - t0);
		}
	}
	s->hsplit = p->hsplit;
	s->hpass = p->hpass;
	s->wsplit = p->wsplit;
	return 0;
}

/* Everything but the key: the first input set, twiddles and the 0/1 split's lists, then what the
 * pure plan (cuda/plan.c) makes of the memory left: a second input set, split bases, MSM chunks
 * and scratch, the key's staging range when it streams. Nothing is allocated per proof. */
static int cu_apply(struct cu *s, const zp_g16_key *key)
{
	zp_cuda_plan *p = &s->plan;
	int rc;
	if ((rc = buf_alloc(s, 0)) || (s->dn && (rc = dens_alloc(s))))
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
	s->ones_kernel = zp_knobs()->cuda_ones_kernel;
	if (!s->kstream && zp_knobs()->cuda_density) {
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
	if ((rc = mem_info(s, &fr, &tot)))
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
		if ((rc = kp_plan(s)))
			return rc;
	}
	if (p->nbuf == 2) {
		if ((rc = buf_alloc(s, 1)))
			return rc;
		s->nbuf = 2;
	}
	double t0 = mono_s();
	if ((rc = apply_split(s, key)) || (rc = flush_up(s, "the key")))
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

/* One backend state for either key format: an expanded key (zp_g16_backend_cuda), or a compact one
 * (zp_g16_backend_cuda_params: compact set, its density step allocated beside the first input set). */
static int cu_make(void **state, const zp_g16_key *key, int compact)
{
	const zp_zkey *k = key->zkey;
	int rc;
	char desc[160];
	if ((rc = zp_g16_backend_cuda_probe(desc, sizeof desc)))
		return rc;
	if (!!key->compact != compact)
		return zp_err_set(ZP_ERANGE, "CUDA backend: %s key on the %s key's ops table", key->compact ? "a compact (.params)" :
				  "an expanded", compact ? "compact" : "expanded");
	struct cu *s = calloc(1, sizeof(*s));
	if (!s)
		return zp_err_set(-ENOMEM, "CUDA backend state");
	s->dev = (int)zp_knobs()->cuda_device.v;   /* checked by the probe */
	s->key = key;
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
	if (compact && (rc = dens_init(s, key)))   /* on the device: it asks CUB for a temp size */
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
	dk_export(s, key);
	*state = s;
	return 0;
err:
	cu_destroy(s);
	return rc;
}

static int cu_create(void **state, const zp_g16_key *key)
{
	return cu_make(state, key, 0);
}

static int cu_nbufs(void *state)
{
	return ((struct cu *)state)->nbuf;
}

/* len bytes host → device on the copy stream: directly from registered memory, else through the
 * two pinned staging buffers in turn (the caller's thread does the memcpy into them). */
static int copy_in(struct cu *s, void *dst, const void *src, size_t len)
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
static void hcopy(void *dst, const void *src, size_t len)
{
	struct hcopy h = { dst, src, len };
	zp_par_for((len + HCOPY_PIECE - 1) / HCOPY_PIECE, hcopy_one, &h);
}

static int cu_upload_async(void *state, int b, const zp_fr *w, const zp_fr *a, const zp_fr *bb, const zp_fr *c)
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
		if ((rc = copy_in(s, u->d_abc, a, d)) || (rc = copy_in(s, (char *)u->d_abc + d, bb, d)))
			return rc;
		hcopy(s->h_w, w, s->nv * fr);
		hcopy(s->h_c, c, d);
	} else if ((rc = copy_in(s, u->d_w, w, s->nv * fr)) || (rc = copy_in(s, u->d_abc, a, d)) ||
		   (rc = copy_in(s, (char *)u->d_abc + d, bb, d)) || (rc = copy_in(s, (char *)u->d_abc + 2 * d, c, d))) {
		return rc;
	}
	if ((rc = zp_cuda_event_record(u->copied, s->cst)))
		goto err;
	return 0;
err:
	return rc;
}

static int cu_upload_wait(void *state, int b)
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

static int cu_upload(void *state, const zp_fr *w, zp_fr *a, zp_fr *b, zp_fr *c)
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
	int rc = kp_start(s, &q, s->h_it, s->n_h_it, 0);
	s->cc->jac_set_inf(0, out);
	for (size_t j = 0; !rc && j < s->n_h_it; j++) {
		const struct kitem *it = &s->h_it[j];
		void *bases;
		cu_res part;
		if (!(rc = kp_take(s, &q, j, &bases)) &&
		    !(rc = zp_cuda_curve_msm_chunked(s->cc, 0, part.w, bases, d_sc + it->first, it->m, s->hchunk, s->d_scratch,
						     s->scratch_len, s->st))) {
			add_res(s, 0, out, &part);
			rc = kp_done(s, &q, j);
		}
	}
	if (rc)
		zp_cuda_stream_sync(s->sst);
	return rc;
}

/* Add Σ of the bases whose scalar is 1 into out, in chunks: with idx, the bases at idx[0..n) − off
 * (the ones list, zp_cuda_msm_g*_sum_idx); without, the 0/1 kernel over bases[0..n) and w[0..n). */
static int ones_add(struct cu *s, int g2, void *out, const void *bases, const zp_fr *w, const uint32_t *idx, size_t n,
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
static int nonbits_add(struct cu *s, int g2, void *out, const void *bases, size_t blen, uint32_t b_off, const zp_fr *w,
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
 * set's staged copy), then per query (wit_order) its bases (resident, or staged) through the 0/1 kernel
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
	if ((rc = kp_start(s, &kq, s->wit_it, s->n_wit_it, 0)) || (rc = kp_start(s, &wq, s->w_it, s->n_w_it, 1)))
		goto out;
	for (size_t off = 0; off < s->nv; off += s->kst, r++) {
		size_t m = s->nv - off < s->kst ? s->nv - off : s->kst, cnt = 0;
		const zp_fr *w = d_w ? d_w + off : NULL;
		int listed = 0;
		if (!d_w && (rc = kp_take(s, &wq, r, (void **)&w)))
			goto out;
		for (int k = 0; k < 4; k++) {
			int q = wit_order[k], g2 = q == ZP_CUDA_ARR_B2;
			size_t lo, first, mq = q_range(s, q, off, m, &lo, &first), n2 = 0;
			const zp_fr *wr = w + (lo - off);
			void *bases;
			if (!mq || (only_streamed && s->plan.res[q]))
				continue;
			if (s->plan.res[q])
				bases = (char *)res_d[q] + first * s->pt[g2];
			else if ((rc = kp_take(s, &kq, kj, &bases)))
				goto out;
			if ((rc = ones_add(s, g2, cu_out(s, out, q), bases, wr, NULL, mq, 0)))
				goto out;
			if (lo != off) {   /* C's first range: a list of its own (the range's is made after it) */
				if ((rc = s->cc->nonbits(s->d_idx, &n2, wr, mq, s->d_sel, s->sel_len, s->ms)) ||
				    (rc = nonbits_add(s, g2, cu_out(s, out, q), bases, mq, 0, wr, s->d_idx, n2)))
					goto out;
			} else {
				if (!listed && (rc = s->cc->nonbits(s->d_idx, &cnt, w, m, s->d_sel, s->sel_len, s->ms)))
					goto out;
				listed = 1;
				if ((rc = nonbits_add(s, g2, cu_out(s, out, q), bases, mq, 0, wr, s->d_idx, cnt)))
					goto out;
			}
			if (!s->plan.res[q] && (rc = kp_done(s, &kq, kj++)))
				goto out;
		}
		if (!d_w && (rc = kp_done(s, &wq, r)))
			goto out;
	}
out:
	if (rc)
		zp_cuda_stream_sync(s->sst);
	return rc;
}

/* Σ_{i in [lo, nw)} w_i·P_{i−lo} (nw: d_w's entries), split: the ones listed in d_one[q_lo, n_one) summed by
 * zp_cuda_msm_g*_sum_idx (or, ZP_CUDA_ONES_KERNEL=1, the 0/1 kernel over the whole range), the
 * entries listed in d_idx[p_lo, n_nb) (those not 0/1, ascending) gathered and summed by the bucket MSM. */
static int msm_split(struct cu *s, int g2, int q, void *out, const void *d_bases, size_t blen, const zp_fr *d_w,
		     size_t nw, size_t lo, size_t p_lo, size_t n_nb, size_t q_lo, size_t n_one)
{
	int rc;
	const uint32_t *l;
	size_t m;
	s->cc->jac_set_inf(g2, out);
	if (s->ones_kernel) {
		rc = ones_add(s, g2, out, d_bases, d_w + lo, NULL, nw - lo, 0);
	} else {
		l = s->d_one + q_lo, m = n_one - q_lo;
		if (s->dens && (rc = zp_cuda_filter_idx(s->d_fl, &m, l, m, s->d_nz[q], (uint32_t)lo, s->d_ftmp, s->ftmp_len, s->ms)))
			return rc;
		rc = ones_add(s, g2, out, d_bases, NULL, s->dens ? s->d_fl : l, m, (uint32_t)lo);
	}
	if (rc)
		return rc;
	l = s->d_idx + p_lo, m = n_nb - p_lo;
	if (s->dens && (rc = zp_cuda_filter_idx(s->d_fl, &m, l, m, s->d_nz[q], (uint32_t)lo, s->d_ftmp, s->ftmp_len, s->ms)))
		return rc;
	return nonbits_add(s, g2, out, d_bases, blen, (uint32_t)lo, d_w, s->dens ? s->d_fl : l, m);
}

/* ZP_CUDA_VERBOSE=2: each stage of a proof waits for the GPU and prints its time (costs the overlap
 * of host adds with the next stage's launch, and that of the witness MSMs with the H step; for finding
 * what bounds the GPU stage). */
static double stage_t0;
static void stage(struct cu *s, const char *what)
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
	stage(s, NULL);
	enum zp_cuda_h_mode hm = s->key->h_mode == ZP_H_SNARKJS ? ZP_CUDA_H_SNARKJS : ZP_CUDA_H_BELLPERSON;
	if (s->plan.lean) {   /* two buffers: a·b first, then c up into b's (the host copy is page-locked) */
		if ((rc = zp_cuda_groth16_h_part(s->ntt, da, db, 0, s->log_dom, hm, s->st)) ||
		    (rc = zp_cuda_copy_to_dev(db, s->h_c, s->dom * sizeof(zp_fr), s->st)) ||
		    (rc = zp_cuda_groth16_h_part(s->ntt, da, db, 1, s->log_dom, hm, s->st)))
			return rc;
	} else if ((rc = zp_cuda_groth16_h(s->ntt, da, db, dc, s->log_dom, hm, s->st))) {
		return rc;    /* zp_err_msg() names the failing CUDA call */
	}
	stage(s, "H step");
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
	stage(s, "H MSM");
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
	rc = kp_start(s, &q, s->hb_it, s->n_hb_it, 2);
	for (size_t j = 0; !rc && j < s->n_hb_it; j++) {
		const struct kitem *it = &s->hb_it[j];
		void *bases;
		cu_res part;
		if (!(rc = kp_take(s, &q, j, &bases)) &&
		    !(rc = zp_cuda_curve_msm_chunked(s->cc, 0, part.w, bases, da + it->first, it->m, s->plan.hb_st, s->hb_scr,
						     s->plan.hb_scratch, s->st))) {
			add_res(s, 0, h, &part);
			rc = kp_done(s, &q, j);
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
		    (!s->ones_kernel && (rc = list_idx(s, 1, dw, s->nv, s->d_one, s->h_one, &n_one, &q_c))))
			return rc;
		stage(s, "0/1 split");
	}
	if (rq[0] && (rc = msm_split(s, 0, 0, cu_out(s, out, 0), s->d_a, s->nv, dw, s->nv, 0, 0, n_nb, 0, n_one)))
		return rc;
	stage(s, "A");
	if (rq[1] && (rc = msm_split(s, 0, 1, cu_out(s, out, 1), s->d_b1, s->nv, dw, s->nv, 0, 0, n_nb, 0, n_one)))
		return rc;
	stage(s, "B G1");
	if (rq[2] && (rc = msm_split(s, 1, 2, cu_out(s, out, 2), s->d_b2, s->nv, dw, s->nv, 0, 0, n_nb, 0, n_one)))
		return rc;
	stage(s, "B G2");
	if (rq[3] && s->naux && (rc = msm_split(s, 0, 3, cu_out(s, out, 3), s->d_c, max2(s->naux, 1), dw, s->nv, s->np + 1, p_c,
						 n_nb, q_c, n_one)))
		return rc;
	stage(s, "C");
	if (any_st) {   /* the lists of the whole witness are not needed past here: the ranges' own take their place */
		if ((rc = msm_streamed(s, s->plan.lean ? NULL : dw, out, any_rq)))
			return rc;
		stage(s, "streamed");
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

static int cu_h(void *state)
{
	struct cu *s = state;
	return h_buf(s, 0, s->h);
}

static int cu_msm(void *state, zp_g16_msm_out *out)
{
	struct cu *s = state;
	int rc = msm_buf(s, 0, out);
	memcpy(cu_out(s, out, 4), s->h, s->cc->jac_bytes[0]);
	return rc;
}

typedef int (*wit_fn)(struct cu *s, int b, zp_g16_msm_out *out);

/* H and every MSM on input set b; wit: the witness MSMs (msm_buf; a compact key's msm_dens, its density
 * step first). */
static int prove(struct cu *s, int b, zp_g16_msm_out *out, wit_fn wit)
{
	/* ZP_CUDA_OVERLAP=1: the H step's transforms (memory-bound) on the compute stream while the witness
	 * MSMs run on their own (high-priority) stream; msm_buf returns once they are done, so the H MSM then
	 * has the scratch to itself. 0 (default): H step, H MSM, witness MSMs in turn; 2: the two orders
	 * alternate proof by proof (to compare them in one run: ZP_CUDA_VERBOSE logs each proof's times and
	 * order). A streamed key too: its witness ranges are staged while the H step runs, the H MSM's ranges
	 * after (msm_buf returns when the witness MSMs are done). */
	int mode = zp_knobs()->cuda_overlap, tv = verbose() >= 1;
	int ov = mode == 1 || (mode == 2 && !(s->nproof & 1)), hb = 0;
	struct timespec h0, h1;
	int rc;
	s->nproof++;
	clock_gettime(CLOCK_MONOTONIC, &h0);
	if ((rc = zp_cuda_set_device(s->dev)) || (tv && (rc = zp_cuda_event_record(s->tev[0], s->st))) ||
	    (rc = h_step(s, b)) || (tv && (rc = zp_cuda_event_record(s->tev[1], s->st))))
		return rc;
	if (!ov) {
		if ((tv && (rc = zp_cuda_event_record(s->tev[4], s->st))) || (rc = h_msm(s, b, cu_out(s, out, 4))) ||
		    (tv && (rc = zp_cuda_event_record(s->tev[5], s->st))) ||
		    (tv && (rc = zp_cuda_event_record(s->tev[2], s->st))) || (rc = wit(s, b, out)) ||
		    (tv && (rc = zp_cuda_event_record(s->tev[3], s->st))))
			return rc;
	} else {
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
		zp_cuda_event_ms(&t[3], s->tev[0], s->tev[ov ? 5 : 3]);
		if (hb) {   /* the later of the two ends */
			float tw = 0;
			zp_cuda_event_ms(&tw, s->tev[0], s->tev[3]);
			t[3] = tw > t[3] ? tw : t[3];
		}
		fprintf(stderr, "CUDA backend: proof %lu (%s): H step %.1f ms, witness MSMs %.1f ms, H MSM %.1f ms; "
			"GPU %.1f ms, host %.1f ms\n", s->nproof, hb ? "witness beside H step and H MSM" : ov ? "witness beside H" : "in turn", t[0], t[1], t[2], t[3],
			(h1.tv_sec - h0.tv_sec) * 1e3 + (h1.tv_nsec - h0.tv_nsec) / 1e6);
	}
	return 0;
}

static int cu_prove_buf(void *state, int b, zp_g16_msm_out *out)
{
	struct cu *s = state;
	if (b < 0 || b >= s->nbuf)
		return zp_err_set(ZP_ERANGE, "CUDA backend: input set %d of %d", b, s->nbuf);
	return prove(s, b, out, msm_buf);
}

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
 * dens_prove runs prove() with msm_dens as its witness step: the bitmaps become index lists on the
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

/* A scalar range's host source (kp_issue): the lean set's w, or a compact key's gathered A / B scalars. */
static const zp_fr *ki_scalars(const struct cu *s, const struct kitem *it)
{
	return (it->which == KI_SA ? s->dn->h_sa : it->which == KI_SB ? s->dn->h_sb : s->h_w) + it->first;
}

static int cu_create_params(void **state, const zp_g16_key *key)
{
	return cu_make(state, key, 1);
}

/* len bytes to the device on the copy stream (none: nothing). */
static int dens_copy(struct cu *s, void *dst, const void *src, size_t len)
{
	return len ? copy_in(s, dst, src, len) : 0;
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
		hcopy(s->h_c, in->abc[2], in->abc_len * fr);
		memset(s->h_c + in->abc_len, 0, (dm - in->abc_len) * fr);
		hcopy(s->h_w, in->inp, d->n_ic * fr);
		hcopy(s->h_w + d->n_ic, in->aux, d->n_l * fr);
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

/* The streamed arrays of a compact key, each range by range (kp_plan's items, in wit_order) against its
 * own scalars sc[q]: the 0/1 kernel, then the range's entries neither 0 nor 1 listed and summed. */
static int msm_streamed_dens(struct cu *s, const zp_fr *const sc[4], zp_g16_msm_out *out)
{
	struct kpipe kq;
	size_t kj = 0;
	int rc;
	if ((rc = kp_start(s, &kq, s->wit_it, s->n_wit_it, 0)))
		goto out;
	for (int k = 0; k < 4; k++) {
		int q = wit_order[k], g2 = q == ZP_CUDA_ARR_B2;
		void *o = cu_out(s, out, q);
		if (s->plan.res[q])
			continue;
		s->cc->jac_set_inf(g2, o);
		for (size_t off = 0; off < s->an[q]; off += s->kst, kj++) {
			const struct kitem *it = &s->wit_it[kj];
			const zp_fr *wr = sc[q] + off;
			size_t cnt = 0;
			void *bases;
			if (kj >= s->n_wit_it || it->which != q || it->first != off) {   /* kp_plan made them so */
				rc = zp_err_set(ZP_ERANGE, "CUDA backend: staged range %zu is not array %d's at %zu", kj, q, off);
				goto out;
			}
			if ((rc = kp_take(s, &kq, kj, &bases)) || (rc = ones_add(s, g2, o, bases, wr, NULL, it->m, 0)) ||
			    (rc = s->cc->nonbits(s->d_idx, &cnt, wr, it->m, s->d_sel, s->sel_len, s->ms)) ||
			    (rc = nonbits_add(s, g2, o, bases, it->m, 0, wr, s->d_idx, cnt)) || (rc = kp_done(s, &kq, kj)))
				goto out;
		}
	}
out:
	if (rc)
		zp_cuda_stream_sync(s->sst);
	return rc;
}

/* A compact key's witness step with the lean set: the totals dens_upload counted checked as msm_dens
 * checks the device's, then each array in wit_order range by range (w_it: its scalars staged from the
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
	if ((rc = kp_start(s, &kq, s->wit_it, s->n_wit_it, 0)) || (rc = kp_start(s, &wq, s->w_it, s->n_w_it, 1)))
		goto out;
	for (int k = 0; k < 4; k++) {
		int q = wit_order[k], g2 = q == ZP_CUDA_ARR_B2;
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
			if ((rc = kp_take(s, &wq, r, (void **)&wr)))
				goto out;
			if (s->plan.res[q])
				bases = (char *)res_d[q] + off * s->pt[g2];
			else if ((rc = kp_take(s, &kq, kj, &bases)))
				goto out;
			if ((rc = ones_add(s, g2, o, bases, wr, NULL, m, 0)) ||
			    (rc = s->cc->nonbits(s->d_idx, &cnt, wr, m, s->d_sel, s->sel_len, s->ms)) ||
			    (rc = nonbits_add(s, g2, o, bases, m, 0, wr, s->d_idx, cnt)))
				goto out;
			if (!s->plan.res[q] && (rc = kp_done(s, &kq, kj++)))
				goto out;
			if ((rc = kp_done(s, &wq, r)))
				goto out;
		}
	}
	stage(s, "streamed");
	rc = zp_cuda_stream_sync(s->ms);
out:
	if (rc)
		zp_cuda_stream_sync(s->sst);
	return rc;
}

/* A resident array group's MSMs on the scalars sc[0..n): their 0/1 lists, then each array q of mask (q = C:
 * from sc[np + 1], as an expanded key's) through msm_split. */
static int msm_group(struct cu *s, const zp_fr *sc, size_t n, unsigned mask, zp_g16_msm_out *out)
{
	size_t n_nb = 0, p_c = 0, n_one = 0, q_c = 0;
	const void *bases[4] = { s->d_a, s->d_b1, s->d_b2, s->d_c };
	int rc;
	if ((rc = list_idx(s, 0, sc, n, s->d_idx, s->h_idx, &n_nb, &p_c)) ||
	    (!s->ones_kernel && (rc = list_idx(s, 1, sc, n, s->d_one, s->h_one, &n_one, &q_c))))
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
	stage(s, "density");
	if (d->tot_h[0] != d->pop[0] || d->tot_h[1] != d->pop[1] || d->tot_h[2] != d->pop[2] ||
	    ninp + d->pop[0] != s->an[ZP_CUDA_ARR_A] || d->pop[1] + d->pop[2] != s->an[ZP_CUDA_ARR_B1])
		return zp_err_set(ZP_EMISMATCH, "a density bitmap's popcount differs from the one the caller gave");
	/* A: every input, then the aux entries in A; B: the inputs in B, then the aux entries in B */
	if ((rc = zp_cuda_copy_on_dev(d->sa, w, ninp * fr, s->ms)) ||
	    (d->pop[0] && (rc = zp_cuda_gather(d->sa + ninp, aux, fr, ia, d->pop[0], 0, s->ms))) ||
	    (d->pop[1] && (rc = zp_cuda_gather(d->sb, w, fr, ii, d->pop[1], 0, s->ms))) ||
	    (d->pop[2] && (rc = zp_cuda_gather(d->sb + d->pop[1], aux, fr, ib, d->pop[2], 0, s->ms))))
		return rc;
	stage(s, "gather");
	const zp_fr *const sc[4] = { d->sa, d->sb, d->sb, aux };
	const int *res = s->plan.res;
	unsigned bmask = (res[ZP_CUDA_ARR_B1] ? 1u << ZP_CUDA_ARR_B1 : 0) | (res[ZP_CUDA_ARR_B2] ? 1u << ZP_CUDA_ARR_B2 : 0);
	if (res[ZP_CUDA_ARR_A] && (rc = msm_group(s, d->sa, s->an[ZP_CUDA_ARR_A], 1u << ZP_CUDA_ARR_A, out)))
		return rc;
	stage(s, "A");
	if (bmask && (rc = msm_group(s, d->sb, s->an[ZP_CUDA_ARR_B1], bmask, out)))
		return rc;
	stage(s, "B");
	if (res[ZP_CUDA_ARR_C] && naux && (rc = msm_group(s, w, s->nv, 1u << ZP_CUDA_ARR_C, out)))
		return rc;
	stage(s, "C");
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
	return prove(s, 0, mo, msm_dens);
}

/* The key's host arrays are read per proof: some array streams from them (the device-made key's
 * streamed arrays are this backend's own copies, h_own: not the caller's). */
static int cu_reads_host_key(void *state)
{
	const struct cu *s = state;
	for (int i = 0; i < ZP_CUDA_NARR; i++)
		if (s->h_pts[i] && !s->h_own[i])
			return 1;
	return 0;
}

/* Device memory by use: the plan's figures (cuda/plan.c zp_cuda_plan_uses), for either key format. */
static int cu_mem_uses(void *state, zp_g16_mem_uses *u)
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
