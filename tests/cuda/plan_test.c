/*
 * plan_test.c — the CUDA prover's device-memory plan (cuda/plan.c) without a GPU, at 2^20 … 2^27
 * with made-up free-memory figures: invariants (fits, chunk choices, split parts, streaming) and
 * today's decisions for an H200 at 2^27 pinned (docs/cuda.md, "The device-memory plan").
 *
 *   plan_test TABLE           check, with the kernels' scratch sizes read from TABLE
 *   plan_test record TABLE    (CUDA builds, on a GPU) run the same scenarios with the real size
 *                             functions and write every value they were asked for to TABLE
 *   plan_test live TABLE      (CUDA builds, on a GPU) every value in TABLE against the real functions:
 *                             exit 1 naming the first that differs (the table is stale)
 *
 * The sizes come from CUB's temp-storage queries, which need the device's architecture: so they are
 * recorded once on an H200 (tests/cuda/plan_sizes.txt; re-record when msm.cu's plan changes:
 * run-gpu-tests.sh checks the table against the live functions). A size the table lacks fails the test
 * naming the call.
 * free after the plan's first allocations (key, first input set, twiddles, 0/1 lists) is modelled as
 * the free figure less their bytes; the twiddles as 2^(log+1)/2 + 2^17 elements (ntt.cu's table and
 * slots, rounded up).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zp_cuda_plan.h"
#include "zp_err.h"
#ifdef ZP_HAVE_CUDA
#include "zp_cuda.h"
#endif

#define GIB ((size_t)1 << 30)
#define MIB ((size_t)1 << 20)

static int fails;
#define CHECK(c, ...) do { if (!(c)) { fails++; fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #c); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

/* ---- the size table: "fn a b c d value" per line ---- */
enum { F_MSM, F_WIN, F_SPLIT, F_SWIN, F_SBASES, F_BITS, F_NONBITS, NF };
static const char *fname[NF] = { "msm", "win", "split", "swin", "sbases", "bits", "nonbits" };
struct ent { int f; uint64_t a, b, c, d, v; };
static struct ent *tab;
static size_t ntab, cap;
static int recording;
static const zp_cuda_sizes *live;

static struct ent *find(int f, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	for (size_t i = 0; i < ntab; i++)
		if (tab[i].f == f && tab[i].a == a && tab[i].b == b && tab[i].c == c && tab[i].d == d)
			return &tab[i];
	return NULL;
}

static uint64_t real(int f, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	switch (f) {
	case F_MSM: return live->msm_scratch((int)a, b, (unsigned)c, (unsigned)d);
	case F_WIN: return live->msm_windows((int)a, b, (unsigned)c);
	case F_SPLIT: return live->split_scratch((int)a, b, (unsigned)(c >> 32), (unsigned)(c & 0xffffffff), (unsigned)d);
	case F_SWIN: return live->split_windows(a, (unsigned)b, (unsigned)c);
	case F_SBASES: return live->split_bases_scratch((int)a, b);
	case F_BITS: return live->bits_scratch((int)a, b);
	default: return live->nonbits_temp(a);
	}
}

static uint64_t look(int f, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	struct ent *e = find(f, a, b, c, d);
	if (e)
		return e->v;
	if (!recording) {
		fprintf(stderr, "plan_test: %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " not in the size table "
			"(re-record it on a GPU: plan_test record)\n", fname[f], a, b, c, d);
		exit(1);
	}
	if (ntab == cap && !(tab = realloc(tab, (cap = cap ? 2 * cap : 1024) * sizeof *tab)))
		exit(1);
	tab[ntab] = (struct ent){ f, a, b, c, d, real(f, a, b, c, d) };
	return tab[ntab++].v;
}

static size_t t_msm(int g2, size_t n, unsigned w, unsigned p) { return look(F_MSM, g2, n, w, p); }
static unsigned t_win(int g2, size_t n, unsigned w) { return (unsigned)look(F_WIN, g2, n, w, 0); }
static size_t t_split(int g2, size_t n, unsigned parts, unsigned w, unsigned p)
{
	return look(F_SPLIT, g2, n, (uint64_t)parts << 32 | w, p);
}
static unsigned t_swin(size_t n, unsigned parts, unsigned w) { return (unsigned)look(F_SWIN, n, parts, w, 0); }
static size_t t_sbases(int g2, size_t n) { return look(F_SBASES, g2, n, 0, 0); }
static size_t t_bits(int g2, size_t n) { return look(F_BITS, g2, n, 0, 0); }
static size_t t_nonbits(size_t n) { return look(F_NONBITS, n, 0, 0, 0); }
static const zp_cuda_sizes sizes = { t_msm, t_win, t_split, t_swin, t_sbases, t_bits, t_nonbits, { 96, 192 } };

static int load(const char *path)
{
	FILE *f = fopen(path, "r");
	char name[16];
	struct ent e;
	if (!f)
		return -errno;
	while (fscanf(f, "%15s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, name, &e.a, &e.b, &e.c, &e.d,
		      &e.v) == 6) {
		for (e.f = 0; e.f < NF && strcmp(name, fname[e.f]); e.f++)
			;
		if (e.f == NF || (ntab == cap && !(tab = realloc(tab, (cap = cap ? 2 * cap : 1024) * sizeof *tab))))
			return -EINVAL;
		tab[ntab++] = e;
	}
	fclose(f);
	return 0;
}

/* ---- scenarios ---- */
static zp_cuda_plan_in in_for(unsigned lg)
{
	/* PoRep-shaped: 130.3M wires at 2^27 (0.971 of the domain), a few public inputs */
	size_t dom = (size_t)1 << lg;
	return (zp_cuda_plan_in){ .nv = dom / 1000 * 971, .np = 8, .dom = dom, .log_dom = lg, .msm_chunk_log = 30,
				  .bufs = 0, .margin_mb = 3072, .key_stream = 0, .key_res = -1, .key_stage_log = 24, .split = -1,
				  .tables = zp_cuda_plan_twiddles(lg + 1) };
}

/* The tables allocated before step 2: twiddles, and (key resident) the 0/1 lists of nv entries; a
 * lean set's lists are a staged range's, planned in step 2 (stage_bytes). */
static size_t tables_of(const zp_cuda_plan *p, const zp_cuda_plan_in *in)
{
	return in->tables + (p->lean ? 0 : 2 * in->nv * 4 + sizes.nonbits_temp(in->nv));
}

/* free after the resident arrays, the first input set and the tables */
static size_t free_after_fixed(const zp_cuda_plan *p, const zp_cuda_plan_in *in, size_t free1)
{
	size_t fixed = p->res_bytes + p->set_bytes + tables_of(p, in);
	return free1 > fixed ? free1 - fixed : 0;
}

static int plan(zp_cuda_plan *p, const zp_cuda_plan_in *in, size_t free1, size_t total)
{
	int rc = zp_cuda_plan_key(p, in, free1, total);
	return rc ? rc : zp_cuda_plan_make(p, in, &sizes, free_after_fixed(p, in, free1), total);
}

static int is_pow2(size_t x) { return x && !(x & (x - 1)); }

/* Array i's bytes (a compact key's A and B of its own counts) and the witness split's bases beyond them. */
static size_t arr_b(const zp_cuda_plan_in *in, int i)
{
	size_t na = in->compact ? in->n_a : in->nv, nb = in->compact ? in->n_b : in->nv, naux1 = in->nv - in->np - 1;
	return i == ZP_CUDA_ARR_A ? na * 96 : i == ZP_CUDA_ARR_B1 ? nb * 96 : i == ZP_CUDA_ARR_B2 ? nb * 192
	     : i == ZP_CUDA_ARR_C ? naux1 * 96 : in->dom * 96;
}

static size_t wsplit_b(const zp_cuda_plan_in *in)
{
	size_t b = 0;
	for (int i = 0; i < ZP_CUDA_ARR_H; i++)
		b += arr_b(in, i);
	return 3 * b;
}

/* Device memory by use (zp_cuda_plan_uses): each figure is what the plan allocated for that use, the
 * figures add up to the device's total, and what is left free keeps the margin. */
static void uses_check(const zp_cuda_plan *p, const zp_cuda_plan_in *in, size_t free1, const char *what)
{
	zp_cuda_mem_uses u;
	zp_cuda_plan_uses(p, in, &u);
	size_t margin = zp_cuda_plan_margin(in, p->total_b);
	size_t sum = u.key + u.split + u.sets + u.scratch + u.tables + u.other + u.free;
	CHECK(sum == u.total && u.total == p->total_b, "%s: by use %zu, total %zu", what, sum, p->total_b);
	CHECK(u.key == p->res_bytes + p->stage_bytes, "%s: key %zu", what, u.key);
	CHECK(u.sets == (size_t)p->nbuf * p->set_bytes, "%s: sets %zu", what, u.sets);
	CHECK(u.scratch == p->scratch_len, "%s: scratch %zu", what, u.scratch);
	CHECK(u.split == (p->hsplit ? (size_t)(p->hsplit - 1) * in->dom * 96 : 0) +
			 (p->wsplit ? wsplit_b(in) : 0), "%s: split %zu", what, u.split);
	CHECK(u.tables == tables_of(p, in), "%s: tables %zu", what, u.tables);
	CHECK(u.other == p->total_b - free1, "%s: other %zu", what, u.other);
	CHECK(u.free >= margin, "%s: %zu left free, under the margin %zu", what, u.free, margin);
}

/* What every plan must satisfy. */
static void invariants(const zp_cuda_plan *p, const zp_cuda_plan_in *in, size_t free1, const char *what)
{
	size_t free2 = free_after_fixed(p, in, free1), margin = zp_cuda_plan_margin(in, p->total_b);
	size_t g1 = 96;
	/* fits: what step 2 allocates, steady state and while split bases are made, within free − margin */
	size_t extra_h = p->hsplit ? ((size_t)p->hsplit - 1) * in->dom * g1 : 0;
	size_t extra_w = p->wsplit ? wsplit_b(in) : 0;
	size_t steady = (size_t)(p->nbuf - 1) * p->set_bytes + p->stage_bytes + extra_h + extra_w + p->scratch_len;
	CHECK(steady <= free2 - margin, "%s: %zu bytes planned, %zu free less the margin", what, steady, free2 - margin);
	if (p->hsplit)
		CHECK((size_t)(p->nbuf - 1) * p->set_bytes + (size_t)p->hsplit * in->dom * g1 + p->split_tmp <= free2 - margin,
		      "%s: making the split H bases does not fit", what);
	CHECK(p->scratch_len <= p->budget, "%s: scratch %zu > budget %zu", what, p->scratch_len, p->budget);
	/* chunks: powers of two in [2^8, 2^cap], each the largest that fits in passes of >= 3 windows */
	for (int g = 0; g < 2; g++) {
		size_t c = p->chunk[g];
		CHECK(is_pow2(c) && c >= 256 && c <= ((size_t)1 << p->cap), "%s: chunk[%d] = %zu (cap 2^%u)", what, g, c, p->cap);
		unsigned w = sizes.msm_windows(g, c, 0);
		CHECK(zp_cuda_plan_chunk_need(&sizes, g, c, w < 3 ? w : 3, 1) <= p->budget || c == 256,
		      "%s: chunk[%d] %zu does not fit", what, g, c);
		if (c < ((size_t)1 << p->cap)) {
			unsigned w2 = sizes.msm_windows(g, 2 * c, 0);
			CHECK(zp_cuda_plan_chunk_need(&sizes, g, 2 * c, w2 < 3 ? w2 : 3, 1) > p->budget,
			      "%s: chunk[%d] %zu is not the largest that fits", what, g, c);
		}
		CHECK(is_pow2(p->ones_chunk[g]) && p->ones_chunk[g] >= c && p->ones_chunk[g] <= ((size_t)1 << p->cap),
		      "%s: ones_chunk[%d] = %zu", what, g, p->ones_chunk[g]);
		CHECK(p->ones_chunk[g] == c || sizes.bits_scratch(g, p->ones_chunk[g]) <= p->scratch_len,
		      "%s: ones_chunk[%d] outgrows the scratch", what, g);
	}
	/* a streamed H: its ranges hold a slot's worth of G1 points (twice the G2-sized kst), its chunks up to that */
	CHECK(p->hst == 0 || (p->kstream && !p->res[ZP_CUDA_ARR_H] && is_pow2(p->hst) && p->hst >= p->kst && p->hst <= 2 * p->kst),
	      "%s: hst %zu (kst %zu)", what, p->hst, p->kst);
	CHECK(!p->kstream || p->res[ZP_CUDA_ARR_H] || p->hst == 2 * p->kst || p->kst >= in->dom, "%s: H streamed in ranges of %zu, kst %zu",
	      what, p->hst, p->kst);
	CHECK(is_pow2(p->hchunk) && p->hchunk >= 256 &&
	      p->hchunk <= (p->hst > ((size_t)1 << p->cap) ? p->hst : ((size_t)1 << p->cap)), "%s: hchunk %zu", what, p->hchunk);
	CHECK(p->hchunk >= p->chunk[0], "%s: H chunk (no gather) smaller than the witness chunk", what);
	/* the H MSM beside the witness MSMs: only streamed H, one set; its ranges and scratch exactly fill the
	 * buffers the H step leaves free (b; b and c with the full set); its chunk is at least the shared one's */
	if (p->hb_st) {
		size_t room = (p->lean ? 1 : 2) * in->dom * 32, st = 2 * ((p->hb_st * 96 + 255) & ~(size_t)255);
		unsigned w = sizes.msm_windows(0, p->hb_st, 0);
		CHECK(p->kstream && !p->res[ZP_CUDA_ARR_H] && p->nbuf == 1, "%s: H beside with H resident or two sets", what);
		CHECK(p->hb_room == room && st + p->hb_scratch == room, "%s: H beside room %zu (%zu), ranges %zu + scratch %zu",
		      what, p->hb_room, room, st, p->hb_scratch);
		CHECK(is_pow2(p->hb_st) && p->hb_st >= p->hchunk, "%s: H beside range %zu, H chunk %zu", what, p->hb_st, p->hchunk);
		CHECK(sizes.msm_scratch(0, p->hb_st, 0, w < 3 ? w : 3) <= p->hb_scratch, "%s: H beside scratch %zu", what,
		      p->hb_scratch);
	} else {
		CHECK(!p->hb_scratch && !p->hb_room, "%s: H beside scratch without ranges", what);
	}
	/* split parts */
	CHECK(p->hsplit == 0 || p->hsplit == 2 || p->hsplit == 4, "%s: hsplit %d", what, p->hsplit);
	CHECK(!p->wsplit || p->hsplit == 4, "%s: witness split without the 4-part H split", what);
	CHECK(!(p->kstream && p->hsplit), "%s: split bases with a streamed key", what);
	CHECK(in->split == 1 || in->log_dom >= ZP_CUDA_PLAN_SPLIT_MIN_LOG || !p->hsplit, "%s: split below 2^20", what);
	CHECK(p->hpass == 0 || p->hsplit == 2, "%s: hpass %u", what, p->hpass);
	CHECK(p->nbuf == 1 || p->nbuf == 2, "%s: nbuf %d", what, p->nbuf);
	/* streaming: exactly when the key, a full set and 4 GiB of room do not fit (or forced) */
	size_t full_set = in->nv * 32 + 3 * in->dom * 32 + (in->compact ? in->set_extra : 0), res = 0;
	CHECK(p->kstream || in->key_stream || p->res_bytes == p->key_bytes, "%s: streaming decision", what);
	CHECK(p->kstream == (in->key_stream || free1 < p->key_bytes + full_set + 4 * GIB + margin) ||
	      (!p->kstream && free1 >= p->key_bytes + full_set + in->tables + margin), "%s: streaming decision", what);
	CHECK(!p->kstream || (is_pow2(p->kst) && p->kst <= ((size_t)1 << in->key_stage_log) && p->kst >= 256), "%s: kst %zu",
	      what, p->kst);
	CHECK(p->set_bytes == (p->lean ? 2 * in->dom * 32 : full_set), "%s: set bytes %zu (lean %d)", what, p->set_bytes, p->lean);
	CHECK(!p->lean || (p->kstream && p->nbuf == 1), "%s: lean set with %d sets", what, p->nbuf);
	CHECK(!in->compact || p->nbuf == 1, "%s: a compact key's set: %d sets", what, p->nbuf);
	for (int i = 0; i < ZP_CUDA_NARR; i++) {
		size_t b = arr_b(in, i);
		CHECK(p->res[i] == 0 || p->res[i] == 1, "%s: res[%d]", what, i);
		res += p->res[i] ? b : 0;
		CHECK(p->kstream || p->res[i], "%s: array %d streamed without streaming", what, i);
	}
	CHECK(res == p->res_bytes, "%s: resident bytes %zu, arrays %zu", what, p->res_bytes, res);
	/* the placement moves the fewest bytes: no streamed array would fit resident beside what is planned
	 * (leaving the roomy spare, 2^min(log, 22) points x 1 KiB, where the plan leaves it) */
	if (p->kstream && !in->key_stream) {
		unsigned k = 0;
		while (k < 22 && ((size_t)1 << k) < (in->nv > in->dom ? in->nv : in->dom))
			k++;
		if (in->msm_chunk_log > 0 && (unsigned)in->msm_chunk_log < k)
			k = (unsigned)in->msm_chunk_log;
		size_t want = ((size_t)1 << k) * 1024, lists = p->lean ? 0 : 2 * in->nv * 4 + MIB;
		size_t held = margin + p->res_bytes + p->set_bytes + in->tables + lists;
		int roomy = free1 >= held + want;
		size_t room = 2 * GIB + 2 * ((size_t)1 << 16) * 232 + GIB / 4;
		if (roomy && want > room)
			room = want;
		for (int i = 0; i < ZP_CUDA_NARR; i++)
			CHECK(p->res[i] || free1 < held + arr_b(in, i) + room, "%s: array %d streamed though it fits", what, i);
	}
	uses_check(p, in, free1, what);
}

/* devices: total, free before the key. The H200's total and free are nvidia-smi's on the H200 this
 * was recorded on (143771 / 143156 MiB, 2026-12-01) less ~0.5 GiB for the process's CUDA context; the
 * others are made up. */
static const struct dev { const char *name; size_t total, free; } devs[] = {
	{ "H200", 143771 * MIB, 142600 * MIB },
	{ "H100-80", 81559 * MIB, 81000 * MIB },
	{ "A10-24", 24 * GIB, 23 * GIB },
	{ "8G", 8 * GIB, 7 * GIB },
	{ "2G", 2 * GIB, 1800 * MIB },
};

static void sweep(void)
{
	char what[96];
	for (unsigned lg = 20; lg <= 27; lg++) {
		zp_cuda_plan_in in = in_for(lg);
		zp_cuda_plan prev = { 0 };
		int have_prev = 0;
		/* ascending memory: more never gives fewer input sets, smaller chunks or streaming back */
		for (int d = (int)(sizeof devs / sizeof devs[0]) - 1; d >= 0; d--) {
			zp_cuda_plan p;
			snprintf(what, sizeof what, "2^%u on %s", lg, devs[d].name);
			int rc = plan(&p, &in, devs[d].free, devs[d].total);
			if (rc) {
				CHECK(rc == -ENOMEM, "%s: rc %d (%s)", what, rc, zp_err_msg());
				CHECK(!have_prev, "%s: fails though less memory planned", what);
				continue;
			}
			invariants(&p, &in, devs[d].free, what);
			if (have_prev && p.kstream && prev.kstream)
				CHECK(p.moved <= prev.moved, "%s: moves more bytes with more memory", what);
			if (have_prev && !p.kstream && !prev.kstream) {
				CHECK(p.nbuf >= prev.nbuf, "%s: fewer input sets with more memory", what);
				CHECK(p.chunk[0] >= prev.chunk[0] || p.hsplit > prev.hsplit || p.nbuf > prev.nbuf,
				      "%s: smaller chunk with more memory", what);
			}
			if (have_prev)
				CHECK(!(p.kstream && !prev.kstream), "%s: streams though less memory did not", what);
			prev = p;
			have_prev = 1;
		}
		CHECK(have_prev, "2^%u: no device plans it", lg);
	}
}

/* The knobs do what docs/knobs.md says. */
static void knobs(void)
{
	const struct dev *h = &devs[0], *s = &devs[3];
	zp_cuda_plan p;
	zp_cuda_plan_in in = in_for(22);
	in.bufs = 1;
	CHECK(!plan(&p, &in, h->free, h->total) && p.nbuf == 1, "ZP_CUDA_BUFS=1");
	in = in_for(27);
	in.bufs = 2;
	CHECK(plan(&p, &in, s->free, s->total) == -ENOMEM || p.nbuf == 2, "ZP_CUDA_BUFS=2 on 8 GB");
	in = in_for(24);
	in.msm_chunk_log = 12;
	CHECK(!plan(&p, &in, h->free, h->total) && p.chunk[0] <= 4096 && p.chunk[1] <= 4096 && p.hchunk <= 4096,
	      "ZP_CUDA_MSM_CHUNK=12");
	invariants(&p, &in, h->free, "ZP_CUDA_MSM_CHUNK=12");
	in = in_for(24);
	in.split = 0;
	CHECK(!plan(&p, &in, h->free, h->total) && p.hsplit == 0, "ZP_CUDA_SPLIT=0");
	in = in_for(16 + 4);
	in.log_dom = 16, in.dom = 1 << 16, in.nv = 60000, in.split = 1;
	CHECK(!plan(&p, &in, h->free, h->total) && p.hsplit == 4, "ZP_CUDA_SPLIT=1 at 2^16");
	in = in_for(16 + 4);
	in.log_dom = 16, in.dom = 1 << 16, in.nv = 60000;
	CHECK(!plan(&p, &in, h->free, h->total) && p.hsplit == 0, "no split below 2^20 by default");
	in = in_for(22);
	in.key_stream = 1, in.key_stage_log = 12;
	CHECK(!plan(&p, &in, h->free, h->total) && p.kstream && p.kst == 4096 && p.chunk[1] <= 4096, "ZP_CUDA_KEY_STREAM=1");
	in.key_stream = 2, in.key_res = 1 << ZP_CUDA_ARR_A | 1 << ZP_CUDA_ARR_B2 | 1 << ZP_CUDA_ARR_H;
	CHECK(!plan(&p, &in, h->free, h->total) && p.kstream && p.lean && p.nbuf == 1 && p.res[ZP_CUDA_ARR_A] &&
	      !p.res[ZP_CUDA_ARR_B1] && p.res[ZP_CUDA_ARR_B2] && !p.res[ZP_CUDA_ARR_C] && p.res[ZP_CUDA_ARR_H],
	      "ZP_CUDA_KEY_STREAM=2 ZP_CUDA_KEY_RES=21: lean, A B2 H resident");
	invariants(&p, &in, h->free, "ZP_CUDA_KEY_STREAM=2 ZP_CUDA_KEY_RES=21");
	in.key_res = -1;
	in = in_for(22);
	in.margin_mb = 200000;   /* a margin past the device: not even a 2^8 chunk */
	CHECK(plan(&p, &in, h->free, h->total) == -ENOMEM, "margin past the device memory");
	in = in_for(22);
	in.cap_mb = 8192;   /* [group] gpu_memory = 8G on the H200: placed as on an 8 GiB card */
	{
		size_t f = h->free, t = h->total;
		zp_cuda_plan_cap(&in, &f, &t);
		CHECK(t == 8 * GIB && f == 8 * GIB - (h->total - h->free), "cap: %zu of %zu", f, t);
		in.cap_mb = 200000;   /* a cap past the card: the card */
		f = h->free, t = h->total;
		zp_cuda_plan_cap(&in, &f, &t);
		CHECK(t == h->total && f == h->free, "a cap past the card");
		in.cap_mb = 0;
	}
	/* the curve's point sizes: a BN254 key (64 / 128-byte points) is 2/3 of a BLS12-381 one (0 = BLS12-381) */
	in = in_for(22);
	(void)zp_cuda_plan_key(&p, &in, 0, 0);
	size_t bls = p.key_bytes;
	in.aff_bytes[0] = 64, in.aff_bytes[1] = 128;
	(void)zp_cuda_plan_key(&p, &in, 0, 0);
	CHECK(p.key_bytes * 3 == bls * 2 && p.key_bytes == in.nv * (2 * 64 + 128) + (in.nv - in.np - 1) * 64 + in.dom * 64,
	      "BN254 key bytes from its point sizes (%zu against BLS12-381's %zu)", p.key_bytes, bls);
	zp_cuda_sizes bn = sizes;
	bn.aff_bytes[0] = 64, bn.aff_bytes[1] = 128;
	CHECK(zp_cuda_plan_chunk_need(&bn, 1, 1 << 16, 0, 1) + (size_t)(1 << 16) * 64 == zp_cuda_plan_chunk_need(&sizes, 1, 1 << 16, 0, 1),
	      "BN254 gathered G2 bases are 128 bytes a point");
}

/* One-shot proofs (zkpipe prove) make no split bases: they would not be reused. ZP_CUDA_SPLIT=1 still
 * forces them. A key made on the device is placed as an uploaded one. */
static void one_shot(void)
{
	const struct dev *h = &devs[0];
	char what[64];
	for (unsigned lg = 20; lg <= 27; lg++) {
		zp_cuda_plan p, r;
		zp_cuda_plan_in in = in_for(lg);
		snprintf(what, sizeof what, "one-shot 2^%u on H200", lg);
		int rc = plan(&r, &in, h->free, h->total);
		in.one_shot = 1;
		CHECK(!rc && !plan(&p, &in, h->free, h->total), "%s plans", what);
		invariants(&p, &in, h->free, what);
		CHECK(p.hsplit == 0 && p.wsplit == 0 && p.split_tmp == 0, "%s: split %d / %d", what, p.hsplit, p.wsplit);
		CHECK(r.hsplit != 0, "2^%u resident on H200: split bases (%d)", lg, r.hsplit);
		zp_cuda_mem_uses u;
		zp_cuda_plan_uses(&r, &in, &u);
		printf("H200 2^%u by use (GiB): key %.2f split %.2f sets %.2f scratch %.2f tables %.2f other %.2f free %.2f\n", lg,
		       u.key / 1073741824.0, u.split / 1073741824.0, u.sets / 1073741824.0, u.scratch / 1073741824.0,
		       u.tables / 1073741824.0, u.other / 1073741824.0, u.free / 1073741824.0);
		CHECK(p.chunk[0] >= r.chunk[0] && p.chunk[1] >= r.chunk[1], "%s: smaller chunks than with split bases", what);
		in.split = 1;
		CHECK(!plan(&p, &in, h->free, h->total) && p.hsplit != 0, "%s with ZP_CUDA_SPLIT=1: split (%d)", what, p.hsplit);
	}
	/* a key made on the device is placed as if its arrays were not there yet (backend_cuda.c adds them
	 * to what is free): the same plan as an uploaded key's */
	zp_cuda_plan p, q;
	zp_cuda_plan_in in = in_for(27);
	in.key_on_device = 1;
	CHECK(!plan(&p, &in, devs[1].free, devs[1].total), "device key 2^27 on H100-80 plans");
	in.key_on_device = 0;
	CHECK(!plan(&q, &in, devs[1].free, devs[1].total) && !memcmp(p.res, q.res, sizeof p.res) && p.lean == q.lean,
	      "device key 2^27 on H100-80 placed as an uploaded one");
}

/* Today's decisions on an H200 (docs/cuda.md "The device-memory plan"; as gpud logged them at 2^27 on 2026-11-30,
 * bench/RESULTS.md "split H MSM (2 parts)"): resident key, two input sets, the H MSM split in 2 parts at
 * one window a pass, so the witness chunks drop to G1 2^26 / G2 2^25; at 2^24 the 4-part split. */
static void pinned(void)
{
	zp_cuda_plan p;
	zp_cuda_plan_in in = in_for(27);
	int rc = plan(&p, &in, devs[0].free, devs[0].total);
	CHECK(!rc, "H200 2^27 plans");
	CHECK(!p.kstream, "H200 2^27: key resident");
	CHECK(p.nbuf == 2, "H200 2^27: two input sets (%d)", p.nbuf);
	CHECK(p.hsplit == 2 && p.hpass == 1 && !p.wsplit, "H200 2^27: H split in 2 parts, 1 window a pass (%d, %u, %d)",
	      p.hsplit, p.hpass, p.wsplit);
	CHECK(p.chunk[0] == (size_t)1 << 26 && p.chunk[1] == (size_t)1 << 25, "H200 2^27: chunks G1 2^26 / G2 2^25 (%zu / %zu)",
	      p.chunk[0], p.chunk[1]);
	{ /* the GLV cut (ZP_MSM_GLV; backend_cuda.c sets glv for BLS12-381): no split bases, their 12 GiB to
	   * the scratch and the chunks; the H MSM whole */
		zp_cuda_plan q;
		size_t s0 = p.scratch_len;
		in.glv = 1;
		rc = plan(&q, &in, devs[0].free, devs[0].total);
		CHECK(!rc && !q.kstream && q.nbuf == 2 && !q.hsplit && !q.wsplit, "H200 2^27 GLV: two sets, no split (%d, %d)",
		      q.nbuf, q.hsplit);
		CHECK(q.hchunk == in.dom && q.chunk[0] >= p.chunk[0] && q.chunk[1] >= p.chunk[1] && q.scratch_len >= s0,
		      "H200 2^27 GLV: H whole, chunks %zu / %zu, scratch %zu (split: %zu)", q.chunk[0], q.chunk[1],
		      q.scratch_len, s0);
		zp_cuda_mem_uses u;
		zp_cuda_plan_uses(&q, &in, &u);
		CHECK(u.split == 0, "H200 2^27 GLV: %zu bytes of split bases", u.split);
		printf("plan_test: H200 2^27 with the GLV cut: chunks G1 %zu G2 %zu H %zu, scratch %.1f GiB (split plan: %.1f GiB "
		       "+ %.1f GiB of split H bases)\n", q.chunk[0], q.chunk[1], q.hchunk, q.scratch_len / 1073741824.0,
		       s0 / 1073741824.0, (double)(in.dom * 96) / 1073741824.0);
		in.glv = 0;
	}
	in = in_for(24);
	rc = plan(&p, &in, devs[0].free, devs[0].total);
	CHECK(!rc && p.nbuf == 2 && p.hsplit == 4 && p.wsplit, "H200 2^24: two sets, H and witness MSMs split in 4 "
	      "(%d, %d, %d)", p.nbuf, p.hsplit, p.wsplit);
	in = in_for(27);
	rc = plan(&p, &in, devs[1].free, devs[1].total);
	CHECK(!rc && p.kstream && !p.lean && p.res[ZP_CUDA_ARR_B2] && p.res[ZP_CUDA_ARR_H] && p.moved <= 2 * in.nv * 96,
	      "H100-80 2^27: the full set, B2, H and all but two G1 arrays of the ~70 GiB key resident (moved %zu, lean %d)",
	      p.moved, p.lean);
}

/* Every recorded size against the live function. */
#ifdef ZP_HAVE_CUDA
static int check_live(void)
{
	size_t bad = 0;
	for (size_t i = 0; i < ntab; i++) {
		uint64_t v = real(tab[i].f, tab[i].a, tab[i].b, tab[i].c, tab[i].d);
		if (v != tab[i].v && bad++ < 5)
			fprintf(stderr, "plan_test: %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 ": table %" PRIu64
				", live %" PRIu64 "\n", fname[tab[i].f], tab[i].a, tab[i].b, tab[i].c, tab[i].d, tab[i].v, v);
	}
	printf("plan_test: %zu of %zu recorded sizes differ from the kernels' (%s)\n", bad, ntab,
	       bad ? "re-record: plan_test record" : "the table is current");
	return bad ? 1 : 0;
}
#endif

/* A compact key (.params) of PoRep shape at 2^lg: A in about half the wires, B in an eighth; its input set's
 * extra (the gathered A and B scalars, the density bitmaps and index lists, the index temp) as
 * prover/backend_cuda.c's dens_bytes counts it (the temp taken as 64 MiB). One input set (its ops). */
static zp_cuda_plan_in compact_in(unsigned lg)
{
	zp_cuda_plan_in in = in_for(lg);
	size_t nic = in.np + 1, nl = in.nv - nic;
	in.compact = 1;
	in.n_a = nic + (nl + 1) / 2;
	in.n_b = in.nv / 8;
	in.bufs = 1;
	in.set_extra = (in.n_a + in.n_b) * 32 + (2 * ((nl + 63) / 64) + (nic + 63) / 64) * 8 + 64 + (2 * nl + nic) * 4 + 128 +
		       64 * MIB;
	return in;
}

/* A compact key through the one plan: its arrays' true sizes (less than an expanded key's), its full set
 * with the density step's extra, or the lean set (its scalars gathered on the host); it plans wherever its
 * floor (the lean set, every array streamed) fits, streams exactly when its resident need does not fit,
 * and more memory never moves more bytes; forced streaming (ZP_CUDA_KEY_STREAM=2) is the lean set. */
static void compact(void)
{
	char what[96];
	for (unsigned lg = 20; lg <= 27; lg++) {
		zp_cuda_plan_in in = compact_in(lg), ex = in_for(lg);
		zp_cuda_plan p, pe;
		size_t prev_moved = SIZE_MAX;
		int prev_ok = 0;
		for (int d = (int)(sizeof devs / sizeof devs[0]) - 1; d >= 0; d--) {
			snprintf(what, sizeof what, "compact 2^%u on %s", lg, devs[d].name);
			int rc = plan(&p, &in, devs[d].free, devs[d].total);
			if (rc) {
				CHECK(rc == -ENOMEM && !prev_ok, "%s: rc %d (%s)", what, rc, zp_err_msg());
				zp_err_clear();
				continue;
			}
			invariants(&p, &in, devs[d].free, what);
			CHECK(!p.kstream || p.moved <= prev_moved, "%s: moves more bytes with more memory", what);
			prev_moved = p.kstream ? p.moved : 0;
			prev_ok = 1;
			CHECK(!zp_cuda_plan_key(&pe, &ex, devs[d].free, devs[d].total), "%s: expanded", what);
			CHECK(p.key_bytes < pe.key_bytes, "%s: key %zu bytes, the expanded key's %zu", what, p.key_bytes, pe.key_bytes);
		}
		CHECK(prev_ok, "compact 2^%u: the H200 does not plan it", lg);
	}
	{   /* 2^27 under a 15000 MiB cap, as the H100 saw it (bench/RESULTS.md, 2026-12-07, eighteenth session):
	     * the lean set, every array streamed; the H MSM in ranges and chunks of twice the staging range */
		zp_cuda_plan_in c27 = compact_in(27);
		zp_cuda_plan q;
		c27.tables = zp_cuda_plan_twiddles(27);
		c27.margin_mb = -1;
		int rc = plan(&q, &c27, 15052505088u, 15728640000u);
		CHECK(!rc && q.lean && q.kstream && !q.res[ZP_CUDA_ARR_H] && q.hst == 2 * q.kst && q.hchunk == q.hst &&
		      q.hchunk > q.chunk[0] && q.hb_st == ((size_t)1 << 22) && q.hb_scratch >= sizes.msm_scratch(0, q.hb_st, 0, 0), "compact 2^27 at 15000 MiB: lean %d, kst %zu, hst %zu, H chunk %zu, G1 chunk %zu (%s)",
		      q.lean, q.kst, q.hst, q.hchunk, q.chunk[0], rc ? zp_err_msg() : "");
		if (!rc)
			invariants(&q, &c27, 15052505088u, "compact 2^27 at 15000 MiB");
		printf("plan_test: compact 2^27 at a 15000 MiB cap: staging 2^%u (G2-sized), H ranges %zu, chunks G1 %zu G2 %zu H %zu; "
		       "H beside the witness in ranges of %zu, scratch %.2f GiB\n", q.cap, q.hst, q.chunk[0], q.chunk[1], q.hchunk,
		       q.hb_st, q.hb_scratch / 1073741824.0);
	}
	zp_cuda_plan_in in = compact_in(24);
	in.key_stream = 2;
	zp_cuda_plan p;
	CHECK(!plan(&p, &in, devs[0].free, devs[0].total) && p.kstream && p.lean && p.nbuf == 1 &&
	      p.set_bytes == 2 * in.dom * 32,
	      "compact ZP_CUDA_KEY_STREAM=2: streamed, lean set (lean %d, %d sets)", p.lean, p.nbuf);
	invariants(&p, &in, devs[0].free, "compact ZP_CUDA_KEY_STREAM=2");
	in.key_stream = 1, in.key_res = 1 << ZP_CUDA_ARR_H | 1 << ZP_CUDA_ARR_B2;
	CHECK(!plan(&p, &in, devs[0].free, devs[0].total) && p.kstream && p.res[ZP_CUDA_ARR_H] && p.res[ZP_CUDA_ARR_B2] &&
	      !p.res[ZP_CUDA_ARR_A] && p.res_bytes == arr_b(&in, ZP_CUDA_ARR_H) + arr_b(&in, ZP_CUDA_ARR_B2),
	      "compact ZP_CUDA_KEY_RES: H and B2 resident");
}

/* Every card from 16 GB up (issue 32): 16, 24, 32, 40, 48, 80, 94 and 141 GB (marketed, decimal; 600 MiB
 * taken by the CUDA context), 2^24 … 2^27, the margin by the card. An expanded key always plans: every
 * array resident where it fits, else a placement that streams; nothing planned past free − margin; more
 * memory never moves more bytes. A compact key (.params; PoRep-shaped counts) through the same plan: planned
 * on every card too (its floor the lean set), streamed where it does not fit resident. Prints the table
 * docs/cuda.md names. */
static void cards(void)
{
	static const unsigned gb[] = { 16, 24, 32, 40, 48, 80, 94, 141 };
	char what[96];
	for (unsigned lg = 24; lg <= 27; lg++) {
		size_t prev_moved = SIZE_MAX, prev_cmoved = SIZE_MAX;
		for (size_t c = 0; c < sizeof gb / sizeof *gb; c++) {
			size_t total = (size_t)gb[c] * 1000000000, free1 = total - 600 * MIB;
			zp_cuda_plan p;
			zp_cuda_plan_in in = in_for(lg);
			in.margin_mb = -1;
			in.tables = zp_cuda_plan_twiddles(lg);   /* a PoRep key: bellperson's H, transforms of 2^lg */
			snprintf(what, sizeof what, "2^%u on a %u GB card", lg, gb[c]);
			int rc = plan(&p, &in, free1, total);
			CHECK(!rc, "%s: %s", what, zp_err_msg());
			if (rc)
				continue;
			invariants(&p, &in, free1, what);
			CHECK(p.moved <= prev_moved, "%s: moves %zu bytes a proof, more than with less memory (%zu)", what, p.moved,
			      prev_moved);
			prev_moved = p.moved;
			printf("plan_test: %-22s %-9s resident [%s%s%s%s%s] %s set, %6.2f GiB moved a proof, stage 2^%-2u chunks "
			       "G1 %-9zu G2 %-9zu\n", what, p.kstream ? "streamed" : "resident",
			       p.res[0] ? "A " : "", p.res[1] ? "B1 " : "", p.res[2] ? "B2 " : "", p.res[3] ? "C " : "",
			       p.res[4] ? "H" : "", p.lean ? "lean" : "full", p.moved / 1073741824.0, p.kstream ? p.cap : 0,
			       p.chunk[0], p.chunk[1]);
			/* the compact key of this size through the same plan: it plans exactly where its floor fits */
			zp_cuda_plan pc;
			zp_cuda_plan_in ic = compact_in(lg);
			ic.margin_mb = -1;
			ic.tables = in.tables;
			snprintf(what, sizeof what, "compact 2^%u on %u GB", lg, gb[c]);
			rc = plan(&pc, &ic, free1, total);
			CHECK(!rc || (rc == -ENOMEM && pc.fail && free1 < pc.need), "%s: %s", what, zp_err_msg());
			CHECK(!rc, "%s: refused (every card from 16 GB plans a compact key): %s", what, zp_err_msg());
			if (!rc) {
				invariants(&pc, &ic, free1, what);
				CHECK(pc.moved <= prev_cmoved, "%s: moves %zu bytes a proof, more than with less memory (%zu)", what,
				      pc.moved, prev_cmoved);
				prev_cmoved = pc.moved;
			} else {
				CHECK(prev_cmoved == SIZE_MAX, "%s: refused though a smaller card planned it", what);
			}
			/* what a next key on this card would find: the plan takes what it can use (docs/filecoin.md §6) */
			zp_cuda_mem_uses cu = { 0 };
			if (!rc)
				zp_cuda_plan_uses(&pc, &ic, &cu);
			printf("plan_test: %-22s %-9s resident [%s%s%s%s%s], %6.2f GiB moved a proof, key %.1f GiB, plan needs %.1f GiB, "
			       "left free %.1f GiB\n",
			       what, rc ? "refused" : pc.kstream ? "streamed" : "resident", pc.res[0] ? "A " : "",
			       pc.res[1] ? "B1 " : "", pc.res[2] ? "B2 " : "", pc.res[3] ? "C " : "", pc.res[4] ? "H" : "",
			       rc ? 0.0 : pc.moved / 1073741824.0, pc.key_bytes / 1073741824.0, pc.need / 1073741824.0,
			       cu.free / 1073741824.0);
			zp_err_clear();
		}
	}
	/* the floor's sentence: a card too small for even the lean set */
	zp_cuda_plan p;
	zp_cuda_plan_in in = in_for(27);
	in.margin_mb = -1;
	int rc = zp_cuda_plan_key(&p, &in, 6 * GIB, 8 * GIB);
	CHECK(rc == -ENOMEM && p.fail && strstr(zp_err_msg(), "needs at least") && strstr(zp_err_msg(), "GiB are free"),
	      "2^27 on 8 GiB: refused in one sentence (%s)", zp_err_msg());
	in.cap_mb = 8192;
	size_t f = 140 * GIB, t = 141 * GIB;
	zp_cuda_plan_cap(&in, &f, &t);
	rc = zp_cuda_plan_key(&p, &in, f, t);
	CHECK(rc == -ENOMEM && strstr(zp_err_msg(), "memory cap"), "2^27 under an 8 GiB cap names the cap (%s)", zp_err_msg());
	zp_err_clear();
}

int main(int argc, char **argv)
{
	const char *path = argc == 3 && (!strcmp(argv[1], "record") || !strcmp(argv[1], "live")) ? argv[2]
			 : argc == 2 ? argv[1] : NULL;
	if (!path) {
		fprintf(stderr, "usage: plan_test TABLE | plan_test record TABLE | plan_test live TABLE\n");
		return 2;
	}
	if (argc == 3 && !strcmp(argv[1], "live")) {
#ifdef ZP_HAVE_CUDA
		live = &zp_cuda_sizes_device;
		if (load(path)) {
			fprintf(stderr, "plan_test: cannot read %s\n", path);
			return 1;
		}
		return check_live();
#else
		fprintf(stderr, "plan_test: live needs a CUDA build\n");
		return 2;
#endif
	}
	if (argc == 3) {
#ifdef ZP_HAVE_CUDA
		recording = 1;
		live = &zp_cuda_sizes_device;
#else
		fprintf(stderr, "plan_test: record needs a CUDA build\n");
		return 2;
#endif
	} else if (load(path)) {
		fprintf(stderr, "plan_test: cannot read %s\n", path);
		return 1;
	}
	sweep();
	knobs();
	one_shot();
	pinned();
	compact();
	cards();
	if (recording) {
		FILE *f = fopen(path, "w");
		if (!f)
			return 1;
		for (size_t i = 0; i < ntab; i++)
			fprintf(f, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", fname[tab[i].f], tab[i].a,
				tab[i].b, tab[i].c, tab[i].d, tab[i].v);
		fclose(f);
		printf("plan_test: %zu sizes recorded in %s\n", ntab, path);
	}
	printf("plan_test: %d failure(s)\n", fails);
	return fails ? 1 : 0;
}
