/*
 * backend_cuda_impl.h — the CUDA backend's one state and the seams between its four files (not an API:
 * every name here is hidden; prover/backend_cuda.c's head comment says what each file holds).
 *   backend_cuda.c         the state: create (plan inputs, cu_apply: what the plan allocates), destroy,
 *                          the expanded key's ops table (zp_g16_backend_cuda)
 *   backend_cuda_key.c     key residency: upload or adoption, kept keys (dev_keep), the split bases and
 *                          their store
 *   backend_cuda_proof.c   the per-proof path: input upload, staged ranges (kpipe), H step and H MSM,
 *                          witness MSMs (0/1 split), prove(); the expanded key format
 *   backend_cuda_params.c  the compact (.params) key format: density bitmaps in front of the same
 *                          prove(), its ops table (zp_g16_backend_cuda_params)
 * A key format (struct cu_fmt) is what differs between an expanded and a compact key: chosen once by the
 * ops table's create, never switched on inside the per-proof path.
 */
#ifndef ZP_BACKEND_CUDA_IMPL_H
#define ZP_BACKEND_CUDA_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "groth16.h"
#include "knobs.h"
#include "zp_cuda.h"
#include "zp_cuda_plan.h"
#include "zp_err.h"

#pragma GCC visibility push(hidden)

#define CU_STAGE_BYTES ((size_t)64 << 20)
#define CU_JAC_WORDS 36             /* a Jacobian point of either group of either curve (BLS12-381 G2: 288 bytes) */
#define CU_WHO "CUDA backend"

/* Key streaming: ranges staged on sst beside the compute stream (backend_cuda_proof.c's cu_kp_*).
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

struct cu;

/* A key format: what an expanded and a compact (.params) key do differently, as hooks the shared path
 * calls (none of it switches on the format). */
struct cu_fmt {
	int compact;                                    /* the key's zp_g16_key.compact must match */
	int (*init)(struct cu *s, const zp_g16_key *key);   /* create, before anything is allocated (or NULL) */
	int (*alloc)(struct cu *s);                     /* create, beside the first input set (or NULL) */
	void (*release)(struct cu *s);                  /* destroy (or NULL) */
	void (*ranges)(struct cu *s);                   /* a streamed plan's witness ranges (cu_kp_plan) */
	const zp_fr *(*scalars)(const struct cu *s, const struct kitem *it);   /* a KI_* range's host scalars */
};
extern const struct cu_fmt cu_fmt_expanded, cu_fmt_params;


#define CU_STAGE_BYTES ((size_t)64 << 20)
#define CU_JAC_WORDS 36             /* a Jacobian point of either group of either curve (BLS12-381 G2: 288 bytes) */
#define CU_WHO "CUDA backend"

struct cubuf {
	zp_fr *d_w, *d_abc;         /* nv, 3·dom scalars */
	void *copied;               /* event recorded on the copy stream after the set's last copy */
};

struct cu {
	const zp_g16_key *key;
	const struct cu_fmt *fmt;   /* the key format's hooks (cu_fmt_expanded, cu_fmt_params) */
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
	void *d_sel;                /* zp_cuda_nonbits temp */
	size_t sel_len;
	/* density (not for a streamed key): bit i of d_nz[q] says point i of A, B1, B2
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
	void *wst;                  /* the witness MSMs' stream beside the H step (cu_prove) */
	void *ms;                   /* the stream the witness MSMs run on now: st, or wst while they overlap */
	void *tev[6];               /* ZP_CUDA_VERBOSE: H step start/end, witness start/end, H MSM start/end */
	unsigned long nproof;       /* proofs made (ZP_CUDA_VERBOSE numbers them) */
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
	/* the H MSM beside the witness MSMs (plan.hb_st): its own ranges of hb_st points, staged
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
	/* key->dev_keep: the key's arrays as kept allocations (kalloc/cu_kfree), fds of their own */
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
	struct cudens *dn;          /* a compact key's density step (backend_cuda_params.c); NULL: an expanded key */
};

static inline size_t max2(size_t a, size_t b)
{
	return a > b ? a : b;
}

static inline size_t align256(size_t x)
{
	return (x + 255) & ~(size_t)255;
}

/* Device memory that says, on failure, how much was asked for and how much is free. */
static inline int dmalloc(void **p, size_t bytes, const char *what)
{
	return zp_cuda_alloc(p, bytes, CU_WHO, what);
}


/* ZP_CUDA_VERBOSE: 1 plan and key placement, 2 also every proof's stage times. */
static inline int verbose(void)
{
	return zp_knobs()->cuda_verbose;
}


/* Where the MSM stages' results go: the curve's members of zp_g16_msm_out (0 A, 1 B1, 2 B2, 3 C, 4 H),
 * Jacobian points of the curve (zp_g1_jac / zp_g2_jac, a BN254 key's in o->bn). */
static inline void *cu_out(const struct cu *s, zp_g16_msm_out *o, int which)
{
	void *bls[5] = { &o->a, &o->b1, &o->b2, &o->c, &o->h };
	void *bn[5] = { &o->bn.a, &o->bn.b1, &o->bn.b2, &o->bn.c, &o->bn.h };
	return s->cc->id == ZP_CURVE_BN254 ? bn[which] : bls[which];
}

static inline double mono_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* backend_cuda.c */
int cu_make(void **state, const zp_g16_key *key, const struct cu_fmt *fmt);
void cu_destroy(void *state);
int cu_mem_info(const struct cu *s, size_t *fr, size_t *tot);
int cu_host_register(void *p, size_t len);
void cu_host_unregister(void *p);
int cu_fatal(void);
int cu_reads_host_key(void *state);
int cu_mem_uses(void *state, zp_g16_mem_uses *u);

/* backend_cuda_key.c */
int cu_key_upload(struct cu *s, const zp_g16_key *key);
int cu_apply_split(struct cu *s, const zp_g16_key *key);
int cu_flush_up(struct cu *s, const char *what);
void cu_dk_export(struct cu *s, const zp_g16_key *key);
void cu_kfree(struct cu *s, void *p);

/* backend_cuda_proof.c */
extern const int cu_wit_order[4];
int cu_kp_plan(struct cu *s);
int cu_kp_start(struct cu *s, struct kpipe *q, const struct kitem *it, size_t n, int kind);
int cu_kp_take(struct cu *s, struct kpipe *q, size_t j, void **d);
int cu_kp_done(struct cu *s, struct kpipe *q, size_t j);
int cu_copy_in(struct cu *s, void *dst, const void *src, size_t len);
void cu_hcopy(void *dst, const void *src, size_t len);
int cu_upload_async(void *state, int b, const zp_fr *w, const zp_fr *a, const zp_fr *bb, const zp_fr *c);
int cu_upload_wait(void *state, int b);
int cu_upload(void *state, const zp_fr *w, zp_fr *a, zp_fr *b, zp_fr *c);
int cu_h(void *state);
int cu_msm(void *state, zp_g16_msm_out *out);
int cu_prove_buf(void *state, int b, zp_g16_msm_out *out);
int cu_ones_add(struct cu *s, int g2, void *out, const void *bases, const zp_fr *w, const uint32_t *idx, size_t n,
		uint32_t off);
int cu_nonbits_add(struct cu *s, int g2, void *out, const void *bases, size_t blen, uint32_t b_off, const zp_fr *w,
		   const uint32_t *idx, size_t n);
int cu_msm_group(struct cu *s, const zp_fr *sc, size_t n, unsigned mask, zp_g16_msm_out *out);
void cu_stage(struct cu *s, const char *what);
/* the witness MSMs of input set b (an expanded key's msm_buf, a compact key's msm_dens) */
typedef int (*wit_fn)(struct cu *s, int b, zp_g16_msm_out *out);
int cu_prove(struct cu *s, int b, zp_g16_msm_out *out, wit_fn wit);

#pragma GCC visibility pop

#endif
