/* plan.c — the CUDA prover's device-memory plan, pure (zp_cuda_plan.h): no allocation, no CUDA call. */
#include "zp_cuda_plan.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "field.h"
#include "zp_err.h"

/* Affine point bytes of the curve, from the sizes table or the plan's input (x): 0 there means
 * BLS12-381's (zp_g1_affine 96, zp_g2_affine 192). G1B / G2B read the x in scope. */
#define PTB(x, g2) ((x)->aff_bytes[g2] ? (x)->aff_bytes[g2] : (g2) ? (size_t)192 : (size_t)96)
#define G1B PTB(PT_SRC, 0)
#define G2B PTB(PT_SRC, 1)
#define FRB sizeof(zp_fr)
#define MIN_LOG ZP_CUDA_PLAN_MIN_CHUNK_LOG

static size_t max2(size_t a, size_t b)
{
	return a > b ? a : b;
}

static size_t align256(size_t x)
{
	return (x + 255) & ~(size_t)255;
}

#define PT_SRC sz
size_t zp_cuda_plan_chunk_need(const zp_cuda_sizes *sz, int g2, size_t c, unsigned pass, int gather)
{
	size_t pt = PTB(sz, g2);
	size_t m = sz->msm_scratch(g2, c, 0, pass);
	if (!m)
		return SIZE_MAX;
	return (gather ? align256(c * FRB) + align256(c * pt) : 0) + max2(m, sz->bits_scratch(g2, c));
}

size_t zp_cuda_plan_wsplit_need(const zp_cuda_sizes *sz, int g2, size_t n)
{
	size_t pt = PTB(sz, g2), m = sz->split_scratch(g2, n, 4, 0, 0);
	return m ? align256(n * FRB) + align256(4 * n * pt) + m : SIZE_MAX;
}

/* The largest chunk 2^k (MIN_LOG <= k <= cap) whose MSM fits the budget in passes of at least 3
 * windows (fewer only for the smallest chunk): a pass re-reads every scalar, a chunk pays a smaller
 * window. 0 if none fits. */
static size_t pick_chunk(const zp_cuda_sizes *sz, int g2, unsigned cap, size_t budget, int gather)
{
	for (int k = (int)cap; k >= (int)MIN_LOG; k--) {
		size_t c = (size_t)1 << k;
		unsigned w = sz->msm_windows(g2, c, 0), want = w < 3 ? w : 3;
		if (zp_cuda_plan_chunk_need(sz, g2, c, want, gather) <= budget ||
		    (k == (int)MIN_LOG && zp_cuda_plan_chunk_need(sz, g2, c, 1, gather) <= budget))
			return c;
	}
	return 0;
}

#undef PT_SRC
#define PT_SRC in
void zp_cuda_plan_key(zp_cuda_plan *p, const zp_cuda_plan_in *in, size_t free_b, size_t total_b)
{
	memset(p, 0, sizeof *p);
	p->key_bytes = in->nv * (2 * G1B + G2B) + max2(in->nv - in->np - 1, 1) * G1B + in->dom * G1B;
	p->set_bytes = in->nv * FRB + 3 * in->dom * FRB;
	p->nbuf = 1;
	p->free_key = free_b;
	if (in->key_on_device)
		return;
	p->kstream = in->key_stream ||
		     free_b < p->key_bytes + p->set_bytes + ((size_t)4 << 30) + ((size_t)in->margin_mb << 20);
	(void)total_b;
}

/* A staging range of up to 2^key_stage points (G2 size), at most a quarter of what is left. */
static void plan_stream(zp_cuda_plan *p, const zp_cuda_plan_in *in, size_t *budget)
{
	unsigned kl = p->cap < (unsigned)in->key_stage_log ? p->cap : (unsigned)in->key_stage_log;
	while (kl > MIN_LOG && (G2B << kl) > *budget / 4)
		kl--;
	p->kst = (size_t)1 << kl;
	*budget = *budget > p->kst * G2B ? *budget - p->kst * G2B : 0;
	p->cap = kl;             /* every MSM works within one staged range */
}

/* The witness split's bases beyond the key's own: 3 more copies of A, B1, B2, C. */
static size_t wsplit_bytes(const zp_cuda_plan_in *in)
{
	size_t naux1 = max2(in->nv - in->np - 1, 1);
	return 3 * (in->nv * (2 * G1B + G2B) + naux1 * G1B);
}

/* The split H MSM in 4 parts (3·dom more H bases resident, 4·dom while they are made, its scratch in
 * one piece), and the witness MSMs too if their 3× more points (one array's 4× while it is made) and
 * the one-chunk split scratch fit as well; else in 2 parts (2·dom H bases, half the memory, the same
 * bucket entries) with as many windows a pass as fit: what a 2^27 PoRep key leaves room for (the
 * making needs 2·dom more for a moment, the MSM then dom more beside its scratch). */
static void plan_split(zp_cuda_plan *p, const zp_cuda_plan_in *in, const zp_cuda_sizes *sz, size_t *budget,
		       size_t *hsplit_ss, size_t *wneed)
{
	size_t dom = in->dom, nv = in->nv, b = *budget;
	size_t h4_bytes = 4 * dom * G1B, tmp_len = sz->split_bases_scratch(0, max2(dom / 8, 32));   /* 8 launches */
	size_t wkey = wsplit_bytes(in);
	*wneed = max2(zp_cuda_plan_wsplit_need(sz, 0, nv), zp_cuda_plan_wsplit_need(sz, 1, nv));
	if (p->kstream || in->split == 0 ||
	    (in->split != 1 && (in->one_shot || in->log_dom < ZP_CUDA_PLAN_SPLIT_MIN_LOG)))
		return;
	if ((*hsplit_ss = sz->split_scratch(0, dom, 4, 0, 0)) && b > h4_bytes + tmp_len && b - 3 * dom * G1B > *hsplit_ss) {
		int w = *wneed != SIZE_MAX && b > 3 * dom * G1B + wkey + 4 * nv * G2B + tmp_len &&
			b - 3 * dom * G1B - wkey > max2(*wneed, *hsplit_ss);
		p->hsplit = 4;
		p->wsplit = w;
		p->split_tmp = tmp_len;
		*budget = b - (3 * dom * G1B + (w ? wkey : 0));   /* each query is the first quarter of its array */
		return;
	}
	if (in->glv)
		return;   /* the GLV cut: the 2-part split's entries with no bases made */
	unsigned W = sz->split_windows(dom, 2, 0), P = 0;
	for (unsigned q = W; q >= 1 && !P && b > 2 * dom * G1B + tmp_len; q--) {
		size_t ss = sz->split_scratch(0, dom, 2, 0, q == W ? 0 : q);
		if (ss && b - dom * G1B > ss)
			P = q, *hsplit_ss = ss;
	}
	if (P) {
		p->hsplit = 2;
		p->hpass = P == W ? 0 : P;
		p->split_tmp = tmp_len;
		*budget = b - dom * G1B;   /* the H query is the first half */
	}
}

int zp_cuda_plan_make(zp_cuda_plan *p, const zp_cuda_plan_in *in, const zp_cuda_sizes *sz, size_t free_b,
		      size_t total_b)
{
	size_t margin = (size_t)in->margin_mb << 20, budget = free_b > margin ? free_b - margin : 0;
	size_t hsplit_ss = 0, wneed = SIZE_MAX;
	p->free_b = free_b;
	p->total_b = total_b;
	p->margin = margin;
	p->nbuf = 1;
	p->cap = 0;
	while (((size_t)1 << p->cap) < max2(in->nv, in->dom))
		p->cap++;
	if (p->cap > (unsigned)in->msm_chunk_log)
		p->cap = (unsigned)in->msm_chunk_log;
	if (p->cap < MIN_LOG)
		p->cap = MIN_LOG;
	if (p->kstream)
		plan_stream(p, in, &budget);
	unsigned pair_log = p->cap < ZP_CUDA_PLAN_PAIR_CHUNK_LOG ? p->cap : ZP_CUDA_PLAN_PAIR_CHUNK_LOG;
	size_t min_need = zp_cuda_plan_chunk_need(sz, 1, (size_t)1 << MIN_LOG, 1, 1);
	int two = in->bufs == 2 || (in->bufs == 0 && budget > p->set_bytes &&
				    zp_cuda_plan_chunk_need(sz, 1, (size_t)1 << pair_log, 0, 1) <= budget - p->set_bytes);
	if (two) {
		if (budget < p->set_bytes + min_need)
			return zp_err_set(-ENOMEM, "CUDA backend: ZP_CUDA_BUFS=2: a second input set (%zu bytes) and the "
					  "smallest MSM chunk (%zu bytes) need %zu bytes, %zu free (margin %zu of %zu)",
					  p->set_bytes, min_need, p->set_bytes + min_need, free_b, margin, total_b);
		p->nbuf = 2;
		budget -= p->set_bytes;
	}
	plan_split(p, in, sz, &budget, &hsplit_ss, &wneed);
	p->chunk[0] = pick_chunk(sz, 0, p->cap, budget, 1);
	p->chunk[1] = pick_chunk(sz, 1, p->cap, budget, 1);
	p->hchunk = pick_chunk(sz, 0, p->cap, budget, 0);
	if (!p->chunk[0] || !p->chunk[1] || !p->hchunk)
		return zp_err_set(-ENOMEM, "CUDA backend: MSM scratch needs at least %zu bytes (a 2^%u chunk) on top of "
				  "the key and the input buffers; %zu bytes of %zu are free (margin %zu, "
				  "ZP_CUDA_MEM_MARGIN_MB)", min_need, MIN_LOG, free_b, total_b, margin);
	/* the scratch: all the budget the chunks can use (more windows a pass, fewer passes) */
	p->scratch_len = max2(zp_cuda_plan_chunk_need(sz, 0, p->chunk[0], 0, 1), zp_cuda_plan_chunk_need(sz, 1, p->chunk[1], 0, 1));
	p->scratch_len = max2(p->scratch_len, zp_cuda_plan_chunk_need(sz, 0, p->hchunk, 0, 0));
	if (p->hsplit)
		p->scratch_len = max2(p->scratch_len, hsplit_ss);
	else if (in->glv)   /* all the GLV cut's windows in one pass where the budget allows */
		p->scratch_len = max2(p->scratch_len, sz->split_scratch(0, p->hchunk, 2, 0, 0));
	if (p->wsplit)
		p->scratch_len = max2(p->scratch_len, wneed);
	if (p->scratch_len > budget)
		p->scratch_len = budget;
	p->budget = budget;
	for (int g = 0; g < 2; g++) {
		p->ones_chunk[g] = p->chunk[g];
		while (p->ones_chunk[g] < ((size_t)1 << p->cap) && sz->bits_scratch(g, 2 * p->ones_chunk[g]) <= p->scratch_len)
			p->ones_chunk[g] *= 2;
	}
	return 0;
}

/* Step 1 saw free_key, step 2 free_b: what went between is the key (unless it streams or was on the
 * device already), the first input set and the tables; step 2's own allocations come out of free_b. */
void zp_cuda_plan_uses(const zp_cuda_plan *p, const zp_cuda_plan_in *in, zp_cuda_mem_uses *u)
{
	size_t key_dev = p->kstream ? 0 : p->key_bytes;            /* allocated between the two steps */
	size_t key_before = in->key_on_device ? p->key_bytes : 0;  /* already there at step 1 */
	size_t stage = p->kstream ? p->kst * G2B : 0;
	memset(u, 0, sizeof *u);
	u->total = p->total_b;
	u->key = in->key_on_device ? p->key_bytes : key_dev + stage;
	u->split = p->hsplit ? (size_t)(p->hsplit - 1) * in->dom * G1B + (p->wsplit ? wsplit_bytes(in) : 0) : 0;
	u->sets = (size_t)p->nbuf * p->set_bytes;
	u->scratch = p->scratch_len;
	size_t between = p->free_key > p->free_b ? p->free_key - p->free_b : 0;
	size_t known = (in->key_on_device ? 0 : key_dev) + p->set_bytes;
	u->tables = between > known ? between - known : 0;
	u->other = p->total_b > p->free_key + key_before ? p->total_b - p->free_key - key_before : 0;
	size_t step2 = (size_t)(p->nbuf - 1) * p->set_bytes + stage + u->split + u->scratch;
	u->free = p->free_b > step2 ? p->free_b - step2 : 0;
}

/* A compact key's MSM chunk and scratch (prover/backend_cuda.c's density path): the largest MSM whole
 * when its scratch fits in what is free less 2 GiB, else halved to powers of two until it does, never
 * below 2^16 (the allocation then says what was short). */
void zp_cuda_plan_compact(const zp_cuda_sizes *sz, size_t nmax, size_t n_g2, size_t free_b, size_t *chunk,
			  size_t *scratch_len)
{
	size_t keep = (size_t)2 << 30, avail = free_b > keep ? free_b - keep : 0;
	size_t c = max2(nmax, n_g2), len;
	c = c ? c : 1;
	for (;;) {
		size_t s1 = sz->msm_scratch(0, c < nmax ? c : nmax, 0, 0);
		size_t s2 = sz->msm_scratch(1, c < n_g2 ? c : n_g2, 0, 0);
		len = max2(s1, s2);
		if (len <= avail || c <= ((size_t)1 << 16))
			break;
		size_t p = 1;
		while (p * 2 < c)
			p *= 2;
		c = p;
	}
	*chunk = c;
	*scratch_len = len;
}
