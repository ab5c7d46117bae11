/*
 * zp_cuda_plan.h — the CUDA prover's device-memory plan as pure functions (cuda/plan.c): from the
 * device's free memory, the key's sizes and the knobs to a plan struct; prover/backend_cuda.c applies
 * it (allocates what it says). No CUDA runtime here: CI tests it without nvcc or a GPU
 * (tests/cuda/plan_test.c, with the kernels' scratch sizes recorded on an H200).
 *
 * Two steps, because the backend measures free memory twice:
 *   zp_cuda_plan_key(): before anything is allocated: is the key resident or streamed from host memory?
 *   zp_cuda_plan_make(): after the key, the first input set, the NTT twiddles and the 0/1 split's lists
 *     are allocated: a second input set, the split H / witness MSMs, MSM chunks and scratch.
 * A compact key (.params) is planned the same way with its arrays' true sizes (zp_cuda_plan_in.compact).
 * Policy (docs/cuda.md, "The device-memory plan"): resident when the key, one input set and 4 GiB of
 * working room fit in what is free less the margin (ZP_CUDA_MEM_MARGIN_MB); a second input set when a
 * 2^24-entry G2 MSM still fits beside it; the split H MSM from a 2^20 domain, in 4 parts (and the
 * witness MSMs too) when that fits, else in 2 with as many windows a pass as fit; chunks the largest
 * 2^k that fit in passes of >= 3 windows; the scratch all the budget the chunks can use.
 */
#ifndef ZP_CUDA_PLAN_H
#define ZP_CUDA_PLAN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The kernels' scratch sizes (zp_cuda.h; zp_cuda_sizes_device in cuda/runtime.c is the real one for
 * BLS12-381, zp_cuda_curve_bn254.sizes BN254's). */
typedef struct zp_cuda_sizes {
	size_t (*msm_scratch)(int g2, size_t n, unsigned window, unsigned pass_windows);
	unsigned (*msm_windows)(int g2, size_t n, unsigned window);
	size_t (*split_scratch)(int g2, size_t n, unsigned parts, unsigned window, unsigned pass_windows);
	unsigned (*split_windows)(size_t n, unsigned parts, unsigned window);
	size_t (*split_bases_scratch)(int g2, size_t n);
	size_t (*bits_scratch)(int g2, size_t n);
	size_t (*nonbits_temp)(size_t n);   /* not used by the plan: what the 0/1 lists take before it (tests) */
	size_t aff_bytes[2];                /* the curve's affine G1, G2 points; 0: BLS12-381's 96, 192 */
} zp_cuda_sizes;
/* The kernels' own (cuda/runtime.c; CUDA builds only). */
extern const zp_cuda_sizes zp_cuda_sizes_device;

#define ZP_CUDA_PLAN_MIN_CHUNK_LOG 8u
#define ZP_CUDA_PLAN_PAIR_CHUNK_LOG 24u   /* a second input set only if an MSM of 2^24 still fits beside it */
#define ZP_CUDA_PLAN_SPLIT_MIN_LOG 20u    /* the split H MSM by default from this domain */

typedef struct {
	size_t nv, np, dom;        /* wires, public inputs, domain (2^log_dom) */
	unsigned log_dom;
	int key_on_device;         /* the key was made in device memory (placed as if not there yet) */
	size_t tables;             /* what is allocated before step 2 beside the resident arrays and the first set
	                            * when the key streams (the NTT twiddles: zp_cuda_plan_twiddles) */
	/* knobs (common/knobs.h), already checked: */
	long msm_chunk_log;        /* ZP_CUDA_MSM_CHUNK, 30 = no cap */
	long bufs;                 /* ZP_CUDA_BUFS: 0 by memory, 1 or 2 forced */
	long margin_mb;            /* ZP_CUDA_MEM_MARGIN_MB; -1: by the card, 3 GiB or 1/16 of it if less */
	long cap_mb;               /* ZP_CUDA_MEM_CAP_MB ([group] gpu_memory): plan as if the card had this
	                            * much (zp_cuda_plan_cap); 0: the card */
	long key_stream;           /* ZP_CUDA_KEY_STREAM: 1 forces streaming, 2 with the lean set */
	long key_res;              /* ZP_CUDA_KEY_RES: with key_stream, the resident arrays (mask of 1 << ZP_CUDA_ARR_*); -1 none */
	long key_stage_log;        /* ZP_CUDA_KEY_STAGE: cap of the staging range, 2^k points */
	long split;                /* ZP_CUDA_SPLIT: -1 by domain, 0 off, 1 whenever it fits */
	size_t aff_bytes[2];       /* the key's affine G1, G2 points; 0: BLS12-381's 96, 192 */
	int one_shot;              /* the key proves once (zkpipe prove): split bases would not be reused, so
	                            * none are made unless ZP_CUDA_SPLIT=1 forces them */
	int glv;                   /* the H MSM takes the GLV cut (BLS12-381 G1, ZP_MSM_GLV): no 2-part split
	                            * bases (the same cut with none); its scratch is sized for the cut */
	/* A compact key (bellperson .params, density bitmaps): A holds n_a points, B1 and B2 n_b (0: nv each,
	 * an expanded key); its input set holds set_extra bytes more (the gathered A and B scalars, the density
	 * bitmaps and index lists) and is never lean (the gather reads w on the device). The kernels' sizes are
	 * still asked for nv entries: n_a, n_b <= nv, so every MSM of the key fits what they say. */
	int compact;
	size_t n_a, n_b, set_extra;
} zp_cuda_plan_in;

/* The key's arrays in the plan's order (res[], the backend's host/device pointers). */
enum { ZP_CUDA_ARR_A, ZP_CUDA_ARR_B1, ZP_CUDA_ARR_B2, ZP_CUDA_ARR_C, ZP_CUDA_ARR_H, ZP_CUDA_NARR };

typedef struct {
	int kstream;               /* some of the key streams from host memory (or the witness does: lean) */
	int res[ZP_CUDA_NARR];     /* each array resident (1) or streamed range by range from host memory (0) */
	int lean;                  /* the lean input set: a, b on the device (c goes up into b's buffer once a·b is
	                            * formed), w streamed range by range with the key; for cards where the full
	                            * set does not fit beside the staging */
	size_t res_bytes;          /* the resident arrays' bytes */
	size_t moved;              /* bytes from host memory a proof beyond the input set's own (the plan's cost) */
	size_t need;               /* zp_cuda_plan_key: the least this key needs free (its floor: lean set, every
	                            * array streamed, the smallest staging and scratch, the margin) */
	int fail;                  /* not even the floor fits: create refuses the key (zp_cuda_plan_key's message) */
	size_t key_bytes, set_bytes;   /* the key's points; one input set (w, a, b, c) */
	size_t kst;                /* streaming: staging range, points (G2-sized); two of them (copy beside compute) */
	size_t hst;                /* streaming H: its staging range, G1 points (as many as a kst slot holds: the
	                            * H MSM's chunks twice the witness's) */
	/* streaming H beside the witness MSMs: the input set's buffers the H step leaves free (b, and c with the
	 * full set: hb_room bytes) hold the H MSM's own two staging ranges of hb_st G1 points and its scratch
	 * (hb_scratch bytes), so the H MSM (compute-bound) runs while the witness MSMs (bound by the host link)
	 * stream theirs. 0: the H MSM after the witness MSMs, in the shared staging. */
	size_t hb_st, hb_scratch, hb_room;
	size_t stage_bytes;        /* streaming: both staging ranges, the lean set's w ranges and the per-range lists */
	int nbuf;                  /* input sets: 1 or 2 */
	int hsplit;                /* H MSM split in 4 or 2 parts; 0 plain */
	unsigned hpass;            /* its windows a pass, 0 = all */
	int wsplit;                /* the witness MSMs split in 4 too */
	size_t split_tmp;          /* scratch for making split bases (hsplit) */
	size_t chunk[2];           /* witness-MSM chunk entries, G1 / G2 */
	size_t hchunk;             /* H MSM chunk entries */
	size_t ones_chunk[2];      /* 0/1-kernel chunk entries */
	size_t scratch_len;        /* the MSM scratch */
	size_t budget;             /* what the chunks and scratch were fitted in (free − margin − the plan's other allocations) */
	unsigned cap;              /* log2 of the largest chunk considered */
	size_t free_b, total_b, margin;   /* what zp_cuda_plan_make saw (messages, verbose) */
	size_t free_key;           /* what zp_cuda_plan_key saw: free before the key (after it, for a key made
	                            * on the device) */
} zp_cuda_plan;

/* Device memory by use, from a plan (zp_cuda_plan_uses): what an operator needs to see whether a second
 * key fits. Sums to total. */
typedef struct {
	size_t key;                /* the key's points (a streamed key: its staging range) */
	size_t split;              /* the split bases beyond the key's own (H; A, B1, B2, C when wsplit) */
	size_t sets;               /* the input sets (w, a, b, c) */
	size_t scratch;            /* MSM scratch */
	size_t tables;             /* NTT twiddles, the 0/1 split's lists */
	size_t other;              /* outside this key's backend: the CUDA context, other keys, other processes */
	size_t free;               /* left free (the margin included) */
	size_t total;
} zp_cuda_mem_uses;

/* Free and total device memory as the plan sees them under in->cap_mb: total = the cap, free = what the
 * cap leaves after what is in use (by anyone) now. */
void zp_cuda_plan_cap(const zp_cuda_plan_in *in, size_t *free_b, size_t *total_b);
/* The NTT context's device tables for transforms up to 2^max_log (cuda/ntt.cu: half the roots and the
 * pass slots, 32-byte elements). */
size_t zp_cuda_plan_twiddles(unsigned max_log);
/* The margin kept free (in->margin_mb, or by the card's size). */
size_t zp_cuda_plan_margin(const zp_cuda_plan_in *in, size_t total_b);
/* Step 1: the key's placement from the device's free memory before the key (for a key made on the
 * device: free as if its arrays were not there). Every array resident with the full input set and
 * 4 GiB of room when that fits; else the placement that moves the fewest bytes from host memory a
 * proof: which arrays stay resident, full or lean input set. Fills kstream, res, lean, key_bytes,
 * set_bytes, need; 0, or -ENOMEM (fail set) with one sentence naming what is needed against what is free. */
int zp_cuda_plan_key(zp_cuda_plan *p, const zp_cuda_plan_in *in, size_t free_b, size_t total_b);
/* Step 2: the rest from what is free after the key, one input set, twiddles and the 0/1 lists:
 * 0, or -ENOMEM naming bytes needed against free ("ZP_CUDA_BUFS=2: ..." or "MSM scratch needs ..."). */
int zp_cuda_plan_make(zp_cuda_plan *p, const zp_cuda_plan_in *in, const zp_cuda_sizes *sz, size_t free_b,
		      size_t total_b);
/* Device bytes one witness-MSM chunk of c entries needs, in passes of pass windows (gather: with room
 * for the gathered scalars and bases), and the witness split MSM's one chunk of n entries. */
size_t zp_cuda_plan_chunk_need(const zp_cuda_sizes *sz, int g2, size_t c, unsigned pass, int gather);
size_t zp_cuda_plan_wsplit_need(const zp_cuda_sizes *sz, int g2, size_t n);
/* Device memory by use once plan p (both steps) is applied. */
void zp_cuda_plan_uses(const zp_cuda_plan *p, const zp_cuda_plan_in *in, zp_cuda_mem_uses *u);

#ifdef __cplusplus
}
#endif
#endif
