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
#define GIB ((size_t)1 << 30)
#define STAGE_MIN_LOG 16u     /* the smallest staging range a streamed plan accepts (2^k points) */

void zp_cuda_plan_cap(const zp_cuda_plan_in *in, size_t *free_b, size_t *total_b)
{
	size_t cap = (size_t)in->cap_mb << 20;
	if (!in->cap_mb || cap >= *total_b)
		return;
	size_t used = *total_b > *free_b ? *total_b - *free_b : 0;
	*total_b = cap;
	*free_b = cap > used ? cap - used : 0;
}

size_t zp_cuda_plan_margin(const zp_cuda_plan_in *in, size_t total_b)
{
	if (in->margin_mb >= 0)
		return (size_t)in->margin_mb << 20;
	return total_b / 16 < 3 * GIB ? total_b / 16 : 3 * GIB;
}

size_t zp_cuda_plan_twiddles(unsigned max_log)
{
	return (((size_t)1 << max_log) / 2 + ((size_t)1 << 17)) * 32;
}

/* The points of A and of B1 / B2: a compact key's own counts, else one a wire. */
static size_t n_a(const zp_cuda_plan_in *in)
{
	return in->compact ? in->n_a : in->nv;
}

static size_t n_b(const zp_cuda_plan_in *in)
{
	return in->compact ? in->n_b : in->nv;
}

static size_t arr_bytes(const zp_cuda_plan_in *in, int i)
{
	switch (i) {
	case ZP_CUDA_ARR_A: return n_a(in) * G1B;
	case ZP_CUDA_ARR_B1: return n_b(in) * G1B;
	case ZP_CUDA_ARR_B2: return n_b(in) * G2B;
	case ZP_CUDA_ARR_C: return max2(in->nv - in->np - 1, 1) * G1B;
	default: return in->dom * G1B;
	}
}

/* One staging slot's bytes a point: the point (G2-sized); with the lean set its w entry and the range's
 * two list entries (the full set has lists of the whole witness, allocated with the tables). */
static size_t stage_pt(const zp_cuda_plan_in *in, int lean)
{
	return G2B + (lean ? FRB + 2 * sizeof(uint32_t) : 0);
}

/* The full set's lists of the whole witness (the 0/1 split's), allocated before step 2. */
static size_t full_lists(const zp_cuda_plan_in *in)
{
	return 2 * in->nv * sizeof(uint32_t) + ((size_t)1 << 20);
}

/* The room a streamed plan works in beside its resident arrays, input set and tables: at least two
 * staging ranges of 2^STAGE_MIN_LOG points and 1/4 GiB of MSM scratch and list temp; a quarter of what
 * the set and tables leave (avail) up to 2 GiB when the memory is there (larger ranges and chunks). */
static size_t stream_room(const zp_cuda_plan_in *in, int lean, size_t avail)
{
	size_t lo = 2 * ((size_t)1 << STAGE_MIN_LOG) * stage_pt(in, lean) + GIB / 4, want = avail / 4;
	want = want < 2 * GIB ? want : 2 * GIB;
	return max2(lo, want);
}

/* The spare a streamed plan wants beside its resident arrays, input set, lists and tables: staging and
 * MSM scratch for chunks of 2^22 points (about 1 KiB a point; less for a smaller witness), at most
 * 4 GiB. Measured at 2^27 on an H100 (bench/RESULTS.md, 2026-12-07): every array streamed with the
 * full set in the 2 GiB left at a 24 GiB cap (chunks 2^21) took 3.66 s a proof, the lean set with
 * 2^22 chunks at 16 GiB 2.87 s; bytes moved alone would pick the first. */
static size_t roomy_spare(const zp_cuda_plan_in *in)
{
	unsigned k = 0;
	while (k < 22 && ((size_t)1 << k) < max2(in->nv, in->dom))
		k++;
	if (in->msm_chunk_log > 0 && (unsigned)in->msm_chunk_log < k)
		k = (unsigned)in->msm_chunk_log;
	return ((size_t)1 << k) * 1024;
}

int zp_cuda_plan_key(zp_cuda_plan *p, const zp_cuda_plan_in *in, size_t free_b, size_t total_b)
{
	memset(p, 0, sizeof *p);
	for (int i = 0; i < ZP_CUDA_NARR; i++)
		p->key_bytes += arr_bytes(in, i);
	p->set_bytes = in->nv * FRB + 3 * in->dom * FRB + (in->compact ? in->set_extra : 0);
	p->nbuf = 1;
	p->free_key = free_b;
	size_t margin = zp_cuda_plan_margin(in, total_b), usable = free_b > margin ? free_b - margin : 0;
	if (!in->key_stream && p->key_bytes + p->set_bytes + 4 * GIB <= usable) {
		for (int i = 0; i < ZP_CUDA_NARR; i++)
			p->res[i] = 1;
		p->res_bytes = p->key_bytes;
		p->need = p->key_bytes + p->set_bytes + 4 * GIB + margin;
		return 0;
	}
	if (in->key_stream) {   /* forced (tests): every array streamed, or those key_res names resident */
		p->kstream = 1;
		p->lean = in->key_stream == 2;
		for (int i = 0; i < ZP_CUDA_NARR; i++)
			if (in->key_res > 0 && (in->key_res >> i) & 1)
				p->res[i] = 1, p->res_bytes += arr_bytes(in, i);
		p->moved = p->key_bytes - p->res_bytes;
		if (p->lean)
			p->set_bytes = 2 * in->dom * FRB, p->moved += (in->nv + in->dom) * FRB;
		return 0;
	}
	/* the floor: the lean set with every array streamed (a compact key's too: its scalars gathered on the
	 * host, backend_cuda.c dens_upload) */
	size_t lean_set = 2 * in->dom * FRB, wc = (in->nv + in->dom) * FRB;
	if (in->compact)   /* its ranges carry the gathered A and B scalars and the aux entries (C), then c */
		wc = (n_a(in) + n_b(in) + max2(in->nv - in->np - 1, 1) + in->dom) * FRB;
	size_t floor_set = lean_set;
	p->need = floor_set + stream_room(in, 1, 0) + in->tables + margin;
	/* the least bytes moved a proof, among the choices that leave roomy_spare if any does (larger MSM
	 * chunks), else among all */
	int best = -1, best_roomy = 0;
	size_t best_cost = SIZE_MAX, best_res = 0, best_moved = 0, want_spare = roomy_spare(in);
	for (int lean = 0; lean < 2; lean++) {
		size_t set = lean ? lean_set : p->set_bytes;
		size_t room = stream_room(in, lean, usable > set + in->tables ? usable - set - in->tables : 0);
		for (unsigned m = 0; m < (1u << ZP_CUDA_NARR); m++) {
			size_t res = 0, cost;
			for (int i = 0; i < ZP_CUDA_NARR; i++)
				if (m & (1u << i))
					res += arr_bytes(in, i);
			size_t held = res + set + in->tables + (lean ? 0 : full_lists(in));
			if (held + room > usable)
				continue;
			int roomy = usable - held >= want_spare;
			/* the lean set moves w and c from host copies made at upload (a host copy and a transfer: counted
			 * twice), and every witness MSM goes range by range: it is the floor for small cards */
			cost = p->key_bytes - res + (lean ? 2 * wc : 0);
			if (roomy > best_roomy || (roomy == best_roomy && (cost < best_cost || (cost == best_cost && res > best_res))))
				best = (int)(m | (unsigned)lean << ZP_CUDA_NARR), best_cost = cost, best_res = res,
				best_moved = p->key_bytes - res + (lean ? wc : 0), best_roomy = roomy;
		}
	}
	if (best < 0) {
		p->fail = 1;
		p->kstream = 1;
		return zp_err_set(-ENOMEM, "CUDA backend: the key needs at least %.2f GiB of device memory (its input set "
				  "%.2f GiB with the key streamed from host memory, twiddles %.2f GiB, staging and scratch %.2f GiB, "
				  "margin %.2f GiB); "
				  "%.2f GiB of %.2f GiB are free%s", p->need / (double)GIB, floor_set / (double)GIB,
				  in->tables / (double)GIB, stream_room(in, 1, 0) / (double)GIB, margin / (double)GIB, free_b / (double)GIB,
				  total_b / (double)GIB, in->cap_mb ? " under the memory cap (gpu_memory, ZP_CUDA_MEM_CAP_MB)" : "");
	}
	p->lean = best >> ZP_CUDA_NARR;
	p->kstream = p->lean || (best & ((1 << ZP_CUDA_NARR) - 1)) != (1 << ZP_CUDA_NARR) - 1;   /* else resident, in less room */
	for (int i = 0; i < ZP_CUDA_NARR; i++)
		p->res[i] = (best >> i) & 1;
	p->res_bytes = best_res;
	p->moved = best_moved;
	if (p->lean)
		p->set_bytes = lean_set;
	return 0;
}

/* Two staging ranges of up to 2^key_stage points (G2 size; the lean set's w ranges beside them, the
 * range's lists), together at most half of what is left. */
static void plan_stream(zp_cuda_plan *p, const zp_cuda_plan_in *in, const zp_cuda_sizes *sz, size_t *budget)
{
	unsigned kl = p->cap < (unsigned)in->key_stage_log ? p->cap : (unsigned)in->key_stage_log;
	size_t pt = stage_pt(in, p->lean);
	while (kl > MIN_LOG && 2 * (pt << kl) + (p->lean ? sz->nonbits_temp((size_t)1 << kl) : 0) > *budget / 2)
		kl--;
	p->kst = (size_t)1 << kl;
	p->stage_bytes = 2 * p->kst * pt + (p->lean ? sz->nonbits_temp(p->kst) : 0);
	*budget = *budget > p->stage_bytes ? *budget - p->stage_bytes : 0;
	p->cap = kl;             /* every MSM works within one staged range */
	/* H's points are G1: a slot of kst G2-sized points holds G2B / G1B × kst of them, so the H MSM's ranges
	 * (and chunks, where the scratch allows) are that much larger. At 2^27 on an H100 (bench/RESULTS.md, 2026-12-07)
	 * the H MSM took 1.47 s in 2^21 chunks (a .params key, 15000 MiB cap) and 1.13 s in 2^22 chunks (an expanded key's
	 * lean plan at 16 GiB); this change itself is not yet measured on a GPU. */
	if (!p->res[ZP_CUDA_ARR_H]) {
		size_t h = p->kst * (G2B / G1B);
		while (h > p->kst && h / 2 >= in->dom)
			h /= 2;
		p->hst = h;
	}
}

/* The witness split's bases beyond the key's own: 3 more copies of A, B1, B2, C. */
static size_t wsplit_bytes(const zp_cuda_plan_in *in)
{
	size_t naux1 = max2(in->nv - in->np - 1, 1);
	return 3 * (n_a(in) * G1B + n_b(in) * (G1B + G2B) + naux1 * G1B);
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
		int w = *wneed != SIZE_MAX && b > 3 * dom * G1B + wkey + 4 * n_b(in) * G2B + tmp_len &&
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

/* A streamed H beside the witness MSMs (plan.hb_*): in the buffers the H step leaves free, two staging ranges
 * and the scratch of the largest chunk 2^k (up to the domain and 2^24) whose MSM fits with every window in one
 * pass, else in passes of at least 3 windows — when that chunk is at least the shared staging's H chunk (else
 * the H MSM stays after the witness MSMs). The scratch is all the room the ranges leave. */
static void plan_hbeside(zp_cuda_plan *p, const zp_cuda_plan_in *in, const zp_cuda_sizes *sz)
{
	p->hb_st = p->hb_scratch = p->hb_room = 0;
	if (!p->kstream || p->res[ZP_CUDA_ARR_H] || p->nbuf != 1)
		return;
	size_t room = (p->lean ? 1 : 2) * in->dom * FRB;
	unsigned top = 0;
	while (top < 24 && ((size_t)1 << top) < in->dom)
		top++;
	for (int few = 0; few < 2; few++)
		for (int k = (int)top; k >= (int)MIN_LOG; k--) {
			size_t c = (size_t)1 << k, stage = 2 * align256(c * G1B);
			unsigned w = sz->msm_windows(0, c, 0), want = few ? (w < 3 ? w : 3) : 0;
			size_t m = sz->msm_scratch(0, c, 0, want);
			if (!m || stage + m > room)
				continue;
			if (c < p->hchunk)
				break;
			p->hb_st = c;
			p->hb_room = room;
			p->hb_scratch = room - stage;
			return;
		}
}

int zp_cuda_plan_make(zp_cuda_plan *p, const zp_cuda_plan_in *in, const zp_cuda_sizes *sz, size_t free_b,
		      size_t total_b)
{
	size_t margin = zp_cuda_plan_margin(in, total_b), budget = free_b > margin ? free_b - margin : 0;
	size_t hsplit_ss = 0, wneed = SIZE_MAX;
	p->free_b = free_b;
	p->total_b = total_b;
	p->margin = margin;
	p->nbuf = 1;
	p->hst = 0;
	p->cap = 0;
	while (((size_t)1 << p->cap) < max2(in->nv, in->dom))
		p->cap++;
	if (p->cap > (unsigned)in->msm_chunk_log)
		p->cap = (unsigned)in->msm_chunk_log;
	if (p->cap < MIN_LOG)
		p->cap = MIN_LOG;
	if (p->kstream)
		plan_stream(p, in, sz, &budget);
	unsigned pair_log = p->cap < ZP_CUDA_PLAN_PAIR_CHUNK_LOG ? p->cap : ZP_CUDA_PLAN_PAIR_CHUNK_LOG;
	size_t min_need = zp_cuda_plan_chunk_need(sz, 1, (size_t)1 << MIN_LOG, 1, 1);
	int two = p->lean ? 0 : in->bufs == 2 || (in->bufs == 0 && budget > p->set_bytes &&
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
	unsigned hcap = p->cap;
	while (p->hst && ((size_t)1 << (hcap + 1)) <= p->hst)
		hcap++;
	p->hchunk = pick_chunk(sz, 0, hcap, budget, 0);
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
	plan_hbeside(p, in, sz);
	for (int g = 0; g < 2; g++) {
		p->ones_chunk[g] = p->chunk[g];
		while (p->ones_chunk[g] < ((size_t)1 << p->cap) && sz->bits_scratch(g, 2 * p->ones_chunk[g]) <= p->scratch_len)
			p->ones_chunk[g] *= 2;
	}
	return 0;
}

/* Step 1 saw free_key (for a key made on the device: as if its arrays were not there), step 2 free_b:
 * what went between is the resident arrays, the first input set and the tables; step 2's own
 * allocations (staging, a second set, split bases, scratch) come out of free_b. */
void zp_cuda_plan_uses(const zp_cuda_plan *p, const zp_cuda_plan_in *in, zp_cuda_mem_uses *u)
{
	memset(u, 0, sizeof *u);
	u->total = p->total_b;
	u->key = p->res_bytes + p->stage_bytes;
	u->split = p->hsplit ? (size_t)(p->hsplit - 1) * in->dom * G1B + (p->wsplit ? wsplit_bytes(in) : 0) : 0;
	u->sets = (size_t)p->nbuf * p->set_bytes;
	u->scratch = p->scratch_len;
	size_t between = p->free_key > p->free_b ? p->free_key - p->free_b : 0;
	size_t known = p->res_bytes + p->set_bytes;
	u->tables = between > known ? between - known : 0;
	u->other = p->total_b > p->free_key ? p->total_b - p->free_key : 0;
	size_t step2 = (size_t)(p->nbuf - 1) * p->set_bytes + p->stage_bytes + u->split + u->scratch;
	u->free = p->free_b > step2 ? p->free_b - step2 : 0;
}
