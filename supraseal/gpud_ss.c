/*
 * gpud_ss.c — bellperson partitions in zkpipe-gpud (contract in gpud_ss.h, payload in ss.h).
 */
#include "gpud_ss.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "groth16.h"
#include "msm.h"
#include "ntt.h"
#include "par.h"
#include "serialize.h"
#include "ss.h"
#include "zp_err.h"
#include "zp_mem.h"
#ifdef ZP_HAVE_CUDA
#include <cuda_runtime_api.h>
#include "backends.h"
#include "zp_cuda.h"
#endif

#define MAX_SS_KEYS 16
#define BLK 4096

struct ss_key {
	char id[ZP_KEY_ID_MAX];
	char path[PATH_MAX];
	int state;                       /* 1 loaded, < 0 failed (err says why) */
	char err[200];
	struct zp_ss_params_info in;
	zp_zkey fixed;                   /* alpha1, beta1, delta1, beta2, gamma2, delta2 (finish) */
	zp_g1_affine *ic, *h, *l, *a, *b1;
	zp_g2_affine *b2;
	/* per-proof buffers, sized for this key (GPU path: w, abc, bits only for the fallback; no sa, sb) */
	zp_fr *w, *abc, *sa, *sb;
	uint64_t *bits;
	zp_fr *pub;                      /* GPU path: the partition's inputs, for the self-check */
	void *scratch;
	size_t scratch_len;
	zp_ntt_domain dom;               /* family 7 */
	unsigned log_domain;
	struct ss_cuda *cu;              /* [group] backend = cuda: the key on the GPU (NULL: CPU) */
};

/* ---------------------------------------------------------------- the GPU path (backend = cuda)
 * The key's points stay resident on the device. Per proof, when the slot lies in host memory
 * registered with CUDA (gpud registers the whole arena at start, gpud.c pipe_start), w (inputs,
 * aux), a/b/c and the three density bitmaps go from the slot straight to the device (DMA on the
 * key's stream; the slot is released once the copies are done, before H and the MSMs start).
 * Otherwise (memlock limit: registration refused) the payload is copied out to host buffers
 * (allocated then, page-locked when allowed) and uploaded from there after the release, as before.
 * On the device: density bitmaps → index lists (cuda/bits.cu), their totals checked against the
 * caller's popcounts (while the H step runs), the A and B scalars packed by zp_cuda_gather, then
 * the H step (family-7 NTT, bellperson's coset) and every MSM, MSMs in chunks sized to the memory
 * left after the key. zp_g16_finish and the self-check stay on the host, as on the CPU path: given
 * the caller's r and s both paths give the same proof bytes. */
#ifdef ZP_HAVE_CUDA
struct ss_cuda {
	zp_cuda_g1_aff *h, *l, *a, *b1;
	zp_cuda_g2_aff *b2;
	zp_fr *w, *abc, *sa, *sb;
	void *scratch;
	size_t scratch_len, chunk;       /* at most chunk points per MSM call */
	zp_cuda_ntt_ctx *ntt;
	cudaStream_t st;
	cudaEvent_t ev;                  /* after the popcounts' copy to tot_h */
	uint64_t *bits;                  /* a_aux | b_inp | b_aux words, as in k->bits */
	uint32_t *idx;                   /* index lists: a_aux (aux entries) | b_inp (inp) | b_aux (aux) */
	uint32_t *tot, *tot_h;           /* the three lists' lengths: device, page-locked host */
	void *itmp;                      /* zp_cuda_bits_index temp */
	size_t itmp_len;
	void *reg[2];                    /* fallback host buffers (w, abc) registered with CUDA */
};

static void ss_cuda_free(struct ss_cuda *c)
{
	if (!c)
		return;
	if (c->ntt)
		zp_cuda_ntt_destroy(c->ntt);
	void *dp[] = { c->h, c->l, c->a, c->b1, c->b2, c->w, c->abc, c->sa, c->sb, c->scratch, c->bits, c->idx, c->tot,
		       c->itmp };
	for (size_t i = 0; i < sizeof dp / sizeof *dp; i++)
		if (dp[i])
			cudaFree(dp[i]);
	for (int i = 0; i < 2; i++)
		if (c->reg[i])
			cudaHostUnregister(c->reg[i]);
	if (c->tot_h)
		cudaFreeHost(c->tot_h);
	if (c->ev)
		cudaEventDestroy(c->ev);
	if (c->st)
		cudaStreamDestroy(c->st);
	free(c);
}

#define SS_CU(expr, what) do { \
		cudaError_t e_ = (expr); \
		if (e_ != cudaSuccess) { \
			r = zp_err_set(ZP_ECUDA, "%s: GPU: %s: %s", k->path, what, cudaGetErrorString(e_)); \
			goto fail; \
		} \
	} while (0)

static int ss_cuda_create(struct ss_key *k, uint64_t nw, size_t nmax)
{
	const struct zp_ss_params_info *in = &k->in;
	struct ss_cuda *c = calloc(1, sizeof *c);
	int r = 0;
	if (!c)
		return zp_err_set(-ENOMEM, "%s: GPU state", k->path);
	const char *ev = getenv("ZP_CUDA_DEVICE");
	size_t g1 = sizeof(zp_g1_affine), g2 = sizeof(zp_g2_affine), fr = sizeof(zp_fr), d = in->domain;
	SS_CU(cudaSetDevice(ev ? atoi(ev) : 0), "cudaSetDevice");
	SS_CU(cudaStreamCreateWithFlags(&c->st, cudaStreamNonBlocking), "stream");
	struct { void **dst; const void *src; size_t bytes; const char *what; } up[] = {
		{ (void **)&c->h, k->h, in->n_h * g1, "h" }, { (void **)&c->l, k->l, in->n_l * g1, "l" },
		{ (void **)&c->a, k->a, in->n_a * g1, "a" }, { (void **)&c->b1, k->b1, in->n_b1 * g1, "b_g1" },
		{ (void **)&c->b2, k->b2, in->n_b2 * g2, "b_g2" },
	};
	for (size_t i = 0; i < sizeof up / sizeof *up; i++) {
		SS_CU(cudaMalloc(up[i].dst, up[i].bytes + 64), up[i].what);
		SS_CU(cudaMemcpy(*up[i].dst, up[i].src, up[i].bytes, cudaMemcpyHostToDevice), up[i].what);
	}
	SS_CU(cudaMalloc((void **)&c->w, nw * fr + 64), "w");
	SS_CU(cudaMalloc((void **)&c->abc, 3 * d * fr), "a, b, c");
	SS_CU(cudaMalloc((void **)&c->sa, (size_t)in->n_a * fr + 64), "A scalars");
	SS_CU(cudaMalloc((void **)&c->sb, (size_t)in->n_b1 * fr + 64), "B scalars");
	/* the density gather: bitmaps, index lists, their totals, the index step's temp */
	size_t wa = (in->n_l + 63) / 64, wi = (in->n_ic + 63) / 64;
	size_t t1 = zp_cuda_bits_index_temp_size(in->n_l), t2 = zp_cuda_bits_index_temp_size(in->n_ic);
	c->itmp_len = t1 > t2 ? t1 : t2;
	SS_CU(cudaMalloc((void **)&c->bits, (2 * wa + wi) * 8 + 64), "density bitmaps");
	SS_CU(cudaMalloc((void **)&c->idx, (2 * (size_t)in->n_l + in->n_ic) * 4 + 64), "density index lists");
	SS_CU(cudaMalloc((void **)&c->tot, 64), "density totals");
	SS_CU(cudaMallocHost((void **)&c->tot_h, 64), "density totals (host)");
	SS_CU(cudaMalloc(&c->itmp, c->itmp_len), "density index temp");
	SS_CU(cudaEventCreateWithFlags(&c->ev, cudaEventDisableTiming), "event");
	if ((r = zp_cuda_ntt_create(&c->ntt, k->log_domain, ZP_NTT_ROOT7)))
		goto fail;
	/* MSM scratch: what the largest MSM needs, or the largest power-of-two chunk that fits */
	size_t fre = 0, tot = 0;
	SS_CU(cudaMemGetInfo(&fre, &tot), "cudaMemGetInfo");
	size_t avail = fre > ((size_t)2 << 30) ? fre - ((size_t)2 << 30) : 0;
	size_t n2 = in->n_b2 > nmax ? in->n_b2 : nmax;
	c->chunk = n2 ? n2 : 1;
	for (;;) {
		size_t s1 = zp_cuda_msm_scratch_size(0, c->chunk < nmax ? c->chunk : nmax, 0);
		size_t s2 = zp_cuda_msm_scratch_size(1, c->chunk < in->n_b2 ? c->chunk : in->n_b2, 0);
		c->scratch_len = s1 > s2 ? s1 : s2;
		if (c->scratch_len <= avail || c->chunk <= ((size_t)1 << 16))
			break;
		size_t p = 1;
		while (p * 2 < c->chunk)
			p *= 2;
		c->chunk = p;
	}
	SS_CU(cudaMalloc(&c->scratch, c->scratch_len), "MSM scratch");
	k->cu = c;
	return 0;
fail:
	ss_cuda_free(c);
	return r;
}

/* Whether [p, p + len) is host memory registered with CUDA (DMA-able): both ends are, and gpud
 * registers the arena as one range. A query that fails counts as no. */
static bool ss_dma_ok(const void *p, size_t len)
{
	const char *q[2] = { p, (const char *)p + (len ? len - 1 : 0) };
	for (int i = 0; i < 2; i++) {
		struct cudaPointerAttributes a;
		if (cudaPointerGetAttributes(&a, q[i]) != cudaSuccess) {
			(void)cudaGetLastError();
			return false;
		}
		if (a.type != cudaMemoryTypeHost)
			return false;
	}
	return true;
}

/* Where a partition's pieces are: in the slot, or in k's host buffers (the copy-out fallback). */
struct ss_src {
	const zp_fr *inp, *aux, *abc[3];
	const uint64_t *bits[3];         /* a_aux, b_inp, b_aux */
};

static struct ss_src src_slot(const uint8_t *base, const struct zp_ss_payload *p)
{
	return (struct ss_src){
		.inp = (const zp_fr *)(base + p->off_inp), .aux = (const zp_fr *)(base + p->off_aux),
		.abc = { (const zp_fr *)(base + p->off_a), (const zp_fr *)(base + p->off_b), (const zp_fr *)(base + p->off_c) },
		.bits = { (const uint64_t *)(base + p->off_a_aux), (const uint64_t *)(base + p->off_b_inp),
			  (const uint64_t *)(base + p->off_b_aux) },
	};
}

static struct ss_src src_host(const struct ss_key *k, const struct zp_ss_payload *p)
{
	uint64_t wa = (p->aux + 63) / 64, wi = (p->inp + 63) / 64, d = k->in.domain;
	return (struct ss_src){
		.inp = k->w, .aux = k->w + p->inp, .abc = { k->abc, k->abc + d, k->abc + 2 * d },
		.bits = { k->bits, k->bits + wa, k->bits + wa + wi },
	};
}

/* Queue the copies of w, a/b/c (tails zeroed up to the domain) and the bitmaps to the device on
 * the key's stream. Asynchronous: the caller waits (cudaStreamSynchronize) before reusing s. */
static int ss_cuda_upload(struct ss_key *k, const struct zp_ss_payload *p, const struct ss_src *s)
{
	struct ss_cuda *c = k->cu;
	size_t fr = sizeof(zp_fr), d = k->in.domain;
	uint64_t wa = (p->aux + 63) / 64, wi = (p->inp + 63) / 64;
	int r = 0;
	SS_CU(cudaMemcpyAsync(c->w, s->inp, p->inp * fr, cudaMemcpyHostToDevice, c->st), "upload inputs");
	SS_CU(cudaMemcpyAsync(c->w + p->inp, s->aux, p->aux * fr, cudaMemcpyHostToDevice, c->st), "upload aux");
	for (int m = 0; m < 3; m++) {
		zp_fr *dst = c->abc + m * d;
		SS_CU(cudaMemcpyAsync(dst, s->abc[m], p->abc * fr, cudaMemcpyHostToDevice, c->st), "upload a, b, c");
		if (d > p->abc)
			SS_CU(cudaMemsetAsync(dst + p->abc, 0, (d - p->abc) * fr, c->st), "zero a, b, c up to the domain");
	}
	uint64_t nw[3] = { wa, wi, wa }, at = 0;
	for (int i = 0; i < 3; at += nw[i], i++)
		SS_CU(cudaMemcpyAsync(c->bits + at, s->bits[i], nw[i] * 8, cudaMemcpyHostToDevice, c->st),
		      "upload density bitmaps");
	return 0;
fail:
	return r;
}

/* The fallback's host buffers (w, abc, bits), once per key, page-locked when the limit allows. */
static int ss_cuda_host_bufs(struct ss_key *k)
{
	if (k->w)
		return 0;
	uint64_t nw = (uint64_t)k->in.n_ic + k->in.n_l, d = k->in.domain;
	k->w = zp_aligned_alloc(64, nw * 32 + 64);
	k->abc = zp_aligned_alloc(64, 3 * d * 32 + 64);
	k->bits = zp_aligned_alloc(64, ((2 * k->in.n_l + k->in.n_ic) / 64 + 4) * 8 + 64);
	if (!k->w || !k->abc || !k->bits) {
		free(k->w); free(k->abc); free(k->bits);
		k->w = k->abc = NULL;
		k->bits = NULL;
		return zp_err_set(-ENOMEM, "%s: host buffers for %" PRIu64 " wires, domain %" PRIu64, k->path, nw, d);
	}
	void *hb[2] = { k->w, k->abc };
	size_t hl[2] = { nw * 32, 3 * d * 32 };
	for (int i = 0; i < 2; i++)
		if (cudaHostRegister(hb[i], hl[i], cudaHostRegisterDefault) == cudaSuccess)
			k->cu->reg[i] = hb[i];
	(void)cudaGetLastError(); /* a refused registration is not an error: pageable copies */
	return 0;
}

static int ss_msm(struct ss_cuda *c, int g2, void *out, const void *bases, const zp_fr *sc, size_t n)
{
	return zp_cuda_msm_chunked(g2, out, bases, sc, n, c->chunk, c->scratch, c->scratch_len, c->st);
}

/* Density gather, H and the five MSMs on the device. on_dev: w, a/b/c and the bitmaps are on the
 * device already (DMA from the slot), else they are uploaded from k's host buffers first. The
 * index lists' totals are checked against the caller's popcounts before any gather reads them. */
static int ss_cuda_msms(struct ss_key *k, const struct zp_ss_payload *p, int on_dev, zp_g16_msm_out *mo, char *why,
			size_t wn)
{
	struct ss_cuda *c = k->cu;
	const struct zp_ss_params_info *in = &k->in;
	size_t fr = sizeof(zp_fr), d = in->domain;
	uint64_t wa = (p->aux + 63) / 64, wi = (p->inp + 63) / 64;
	uint32_t *ia = c->idx, *ii = c->idx + p->aux, *ib = c->idx + p->aux + p->inp;
	const zp_fr *inp = c->w, *aux = c->w + p->inp;
	int r = 0;
	if (!on_dev) { /* the fallback: from k's host buffers */
		struct ss_src hs = src_host(k, p);
		if ((r = ss_cuda_upload(k, p, &hs)))
			goto fail;
	}
	if ((r = zp_cuda_bits_index(ia, c->tot, c->bits, p->aux, c->itmp, c->itmp_len, c->st)) ||
	    (r = zp_cuda_bits_index(ii, c->tot + 1, c->bits + wa, p->inp, c->itmp, c->itmp_len, c->st)) ||
	    (r = zp_cuda_bits_index(ib, c->tot + 2, c->bits + wa + wi, p->aux, c->itmp, c->itmp_len, c->st)))
		goto fail;
	SS_CU(cudaMemcpyAsync(c->tot_h, c->tot, 3 * sizeof(uint32_t), cudaMemcpyDeviceToHost, c->st), "popcounts");
	SS_CU(cudaEventRecord(c->ev, c->st), "event");
	/* the H step runs while the host checks the popcounts */
	if ((r = zp_cuda_groth16_h(c->ntt, c->abc, c->abc + d, c->abc + 2 * d, k->log_domain, ZP_CUDA_H_BELLPERSON, c->st)))
		goto fail;
	SS_CU(cudaEventSynchronize(c->ev), "popcounts");
	if (c->tot_h[0] != p->a_aux_pop || c->tot_h[1] != p->b_inp_pop || c->tot_h[2] != p->b_aux_pop) {
		snprintf(why, wn, "gpud: a density bitmap's popcount differs from the one the caller gave");
		r = ZP_EMISMATCH;
		goto out;
	}
	/* A: every input, then aux in A; B: inputs in B, then aux in B */
	SS_CU(cudaMemcpyAsync(c->sa, inp, p->inp * fr, cudaMemcpyDeviceToDevice, c->st), "A scalars");
	if ((r = zp_cuda_gather(c->sa + p->inp, aux, fr, ia, p->a_aux_pop, 0, c->st)) ||
	    (r = zp_cuda_gather(c->sb, inp, fr, ii, p->b_inp_pop, 0, c->st)) ||
	    (r = zp_cuda_gather(c->sb + p->b_inp_pop, aux, fr, ib, p->b_aux_pop, 0, c->st)) ||
	    (r = ss_msm(c, 0, &mo->h, c->h, c->abc, in->n_h)) ||
	    (r = ss_msm(c, 0, &mo->c, c->l, aux, in->n_l)) ||
	    (r = ss_msm(c, 0, &mo->a, c->a, c->sa, in->n_a)) ||
	    (r = ss_msm(c, 0, &mo->b1, c->b1, c->sb, in->n_b1)) ||
	    (r = ss_msm(c, 1, &mo->b2, c->b2, c->sb, in->n_b2)))
		goto fail;
	SS_CU(cudaStreamSynchronize(c->st), "synchronize");
	return 0;
fail:
	snprintf(why, wn, "gpud: H/MSM: %s", zp_err_msg()[0] ? zp_err_msg() : zp_strerror(r));
out:
	(void)cudaStreamSynchronize(c->st); /* nothing queued reads the host buffers after this */
	return r;
}
#else
struct ss_cuda;
#endif

static struct ss_key keys[MAX_SS_KEYS];
static unsigned n_keys;
static uint64_t last_tick_ms;

bool zp_ss_gpud_is_ours(const void *slot_data)
{
	return slot_data && ((const struct zp_ss_payload *)slot_data)->magic == ZP_SS_PAYLOAD_MAGIC;
}

/* ---------------------------------------------------------------- key loading */
struct dec {
	const uint8_t *src;
	void *dst;
	size_t n;
	int g2;
	int *rc;
	size_t *bad;
};

static void dec_task(void *vc, size_t t, int worker)
{
	struct dec *c = vc;
	size_t i0 = t * BLK, i1 = i0 + BLK < c->n ? i0 + BLK : c->n;
	for (size_t i = i0; i < i1; i++) {
		int r = c->g2 ? zp_g2_from_uncompressed((zp_g2_affine *)c->dst + i, c->src + i * 192, ZP_SER_NO_SUBGROUP)
			      : zp_g1_from_uncompressed((zp_g1_affine *)c->dst + i, c->src + i * 96, ZP_SER_NO_SUBGROUP);
		if (r) {
			c->rc[t] = r;
			c->bad[t] = i;
			return;
		}
	}
}

/* Decode n points at map + off into a new array; on-curve per point, then subgroup for all. */
static int decode(void **out, const uint8_t *map, uint64_t off, size_t n, int g2, const char *what, const char *path)
{
	size_t el = g2 ? sizeof(zp_g2_affine) : sizeof(zp_g1_affine);
	void *dst = aligned_alloc(64, (n * el + 63) / 64 * 64 + 64);
	size_t tasks = (n + BLK - 1) / BLK;
	int *rc = calloc(tasks + 1, sizeof(int));
	size_t *bad = calloc(tasks + 1, sizeof(size_t));
	int r = 0;
	if (!dst || !rc || !bad) {
		r = zp_err_set(-ENOMEM, "%s: %s: %zu points", path, what, n);
		goto out;
	}
	struct dec c = { map + off, dst, n, g2, rc, bad };
	zp_par_for(tasks, dec_task, &c);
	for (size_t t = 0; t < tasks && !r; t++)
		if (rc[t])
			r = zp_err_set(rc[t], "%s: %s: point %zu: %s", path, what, bad[t], zp_strerror(rc[t]));
	size_t b = 0;
	if (!r && (r = g2 ? zp_g2_affine_check_array(dst, n, 0, &b) : zp_g1_affine_check_array(dst, n, 0, &b)))
		r = zp_err_set(r, "%s: %s: point %zu: %s", path, what, b, zp_strerror(r));
out:
	free(rc);
	free(bad);
	if (r) {
		free(dst);
		return r;
	}
	*out = dst;
	return 0;
}

static int load_key(struct ss_key *k, bool gpu, const struct zp_arena *arena)
{
	int r = zp_ss_params_scan(k->path, &k->in);
	if (r)
		return r;
	const struct zp_ss_params_info *in = &k->in;
	int fd = open(k->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return zp_err_set(-errno, "%s", k->path);
	const uint8_t *map = mmap(NULL, in->file_bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return zp_err_set(-errno, "%s: mmap", k->path);
	madvise((void *)map, in->file_bytes, MADV_SEQUENTIAL);
	void *p;
	zp_zkey *f = &k->fixed;
	if (!(r = decode(&p, map, 0, 1, 0, "alpha_g1", k->path))) { f->alpha1 = *(zp_g1_affine *)p; free(p); }
	if (!r && !(r = decode(&p, map, 96, 1, 0, "beta_g1", k->path))) { f->beta1 = *(zp_g1_affine *)p; free(p); }
	if (!r && !(r = decode(&p, map, 192, 1, 1, "beta_g2", k->path))) { f->beta2 = *(zp_g2_affine *)p; free(p); }
	if (!r && !(r = decode(&p, map, 384, 1, 1, "gamma_g2", k->path))) { f->gamma2 = *(zp_g2_affine *)p; free(p); }
	if (!r && !(r = decode(&p, map, 576, 1, 0, "delta_g1", k->path))) { f->delta1 = *(zp_g1_affine *)p; free(p); }
	if (!r && !(r = decode(&p, map, 672, 1, 1, "delta_g2", k->path))) { f->delta2 = *(zp_g2_affine *)p; free(p); }
	if (!r) r = decode((void **)&k->ic, map, in->off_ic, in->n_ic, 0, "IC", k->path);
	if (!r) r = decode((void **)&k->h, map, in->off_h, in->n_h, 0, "h", k->path);
	if (!r) r = decode((void **)&k->l, map, in->off_l, in->n_l, 0, "l", k->path);
	if (!r) r = decode((void **)&k->a, map, in->off_a, in->n_a, 0, "a", k->path);
	if (!r) r = decode((void **)&k->b1, map, in->off_b1, in->n_b1, 0, "b_g1", k->path);
	if (!r) r = decode((void **)&k->b2, map, in->off_b2, in->n_b2, 1, "b_g2", k->path);
	munmap((void *)map, in->file_bytes);
	if (r)
		return r;
	/* buffers for one proof: inputs + aux (= IC count + L count), a/b/c over the domain */
	uint64_t nw = (uint64_t)in->n_ic + in->n_l, d = in->domain;
	size_t nmax = in->n_h;
	if (in->n_l > nmax) nmax = in->n_l;
	if (in->n_a > nmax) nmax = in->n_a;
	if (in->n_b1 > nmax) nmax = in->n_b1;
	if (!gpu) {
		size_t g1 = zp_msm_g1_scratch_size(nmax), g2 = zp_msm_g2_scratch_size(in->n_b2);
		k->scratch_len = g1 > g2 ? g1 : g2;
		k->w = zp_aligned_alloc(64, nw * 32 + 64);
		k->abc = zp_aligned_alloc(64, 3 * d * 32 + 64);
		k->sa = zp_aligned_alloc(64, (uint64_t)in->n_a * 32 + 64);
		k->sb = zp_aligned_alloc(64, (uint64_t)in->n_b1 * 32 + 64);
		k->bits = zp_aligned_alloc(64, ((2 * in->n_l + in->n_ic) / 64 + 4) * 8 + 64);
		k->scratch = aligned_alloc(64, (k->scratch_len + 63) / 64 * 64 + 64);
		if (!k->w || !k->abc || !k->sa || !k->sb || !k->bits || !k->scratch)
			return zp_err_set(-ENOMEM, "%s: buffers for %" PRIu64 " wires, domain %" PRIu64, k->path, nw, d);
	}
	unsigned lg = 0;
	while ((1ull << lg) < d)
		lg++;
	k->log_domain = lg;
	if ((r = zp_ntt_domain_init_ex(&k->dom, lg, ZP_NTT_ROOT7, 0)))
		return zp_err_set(r, "%s: NTT domain 2^%u", k->path, lg);
	if (gpu) {
#ifdef ZP_HAVE_CUDA
		if ((r = ss_cuda_create(k, nw, nmax)))
			return r;
		/* the device holds the points now; the host keeps only what finish and verify read */
		free(k->h); free(k->l); free(k->a); free(k->b1); free(k->b2);
		k->h = k->l = k->a = k->b1 = NULL;
		k->b2 = NULL;
		if (!(k->pub = zp_aligned_alloc(64, (uint64_t)in->n_ic * 32 + 64)))
			return zp_err_set(-ENOMEM, "%s: %u inputs", k->path, in->n_ic);
		/* partitions go slot → device when the arena is registered; else through host buffers */
		const struct zp_arena_hdr *ah = zp_arena_hdr(arena);
		if (!ss_dma_ok(ah, ah->total_size) && (r = ss_cuda_host_bufs(k)))
			return r;
#else
		return zp_err_set(-ENOTSUP, "%s: backend cuda: this build has no CUDA support", k->path);
#endif
	}
	return 0;
}

static void key_free(struct ss_key *k)
{
#ifdef ZP_HAVE_CUDA
	ss_cuda_free(k->cu);
#endif
	free(k->ic); free(k->h); free(k->l); free(k->a); free(k->b1); free(k->b2);
	free(k->w); free(k->abc); free(k->sa); free(k->sb); free(k->bits); free(k->scratch); free(k->pub);
	zp_ntt_domain_free(&k->dom);
	memset(k, 0, sizeof *k);
}

static struct ss_key *key_get(struct zp_daemon *d, const char *id, bool load)
{
	for (unsigned i = 0; i < n_keys; i++)
		if (!strcmp(keys[i].id, id))
			return &keys[i];
	if (!load || strncmp(id, ZP_SS_KEY_PREFIX, strlen(ZP_SS_KEY_PREFIX)))
		return NULL;
	char reg[PATH_MAX], path[PATH_MAX] = "";
	if (zp_pipe_path(reg, sizeof reg, &d->cfg, "srs/%s", id + strlen(ZP_SS_KEY_PREFIX)))
		return NULL;
	FILE *fp = fopen(reg, "re");
	if (!fp)
		return NULL; /* not registered (yet): the library writes it before submitting */
	bool ok = fgets(path, sizeof path, fp) != NULL;
	fclose(fp);
	if (!ok)
		return NULL;
	path[strcspn(path, "\n")] = 0;
	if (n_keys == MAX_SS_KEYS) {
		zp_log(d->who, "srs %s: %u keys loaded already (the most this gpud keeps)", id, MAX_SS_KEYS);
		return NULL;
	}
	struct ss_key *k = &keys[n_keys++];
	snprintf(k->id, sizeof k->id, "%s", id);
	snprintf(k->path, sizeof k->path, "%s", path);
	uint64_t t0 = zp_mono_ms();
	zp_err_clear();
	const char *be = d->cfg.groups[d->group].backend;
	zp_daemon_long_stage(d, true); /* a key load: the watchdog allows start_timeout_s */
	int r = load_key(k, !strcmp(be, "cuda"), d->arena);
	zp_daemon_long_stage(d, false);
	if (r) {
		char id2[ZP_KEY_ID_MAX], p2[PATH_MAX];
		memcpy(id2, k->id, sizeof id2);
		memcpy(p2, k->path, sizeof p2);
		char msg[200];
		snprintf(msg, sizeof msg, "%s", zp_err_msg()[0] ? zp_err_msg() : zp_strerror(r));
		key_free(k);
		memcpy(k->id, id2, sizeof id2);
		memcpy(k->path, p2, sizeof p2);
		k->state = r;
		snprintf(k->err, sizeof k->err, "srs %s: %s", path, msg);
		zp_log(d->who, "%s (its partitions fail)", k->err);
		return k;
	}
	k->state = 1;
	zp_log(d->who, "srs %s: %s: IC %u, h %u, l %u, a %u, b %u; loaded in %" PRIu64 " ms%s", id, path, k->in.n_ic,
	       k->in.n_h, k->in.n_l, k->in.n_a, k->in.n_b1, zp_mono_ms() - t0,
	       !k->cu ? "" : k->w ? "; on the GPU, partitions through host buffers (arena not registered for DMA)"
				  : "; on the GPU, partitions DMAed straight from the slot");
	return k;
}

/* ---------------------------------------------------------------- proving */
static int put_file(const char *path, const void *buf, size_t n);
static void part_error(struct zp_daemon *d, zp_part_h ph, const char *out, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void part_error(struct zp_daemon *d, zp_part_h ph, const char *out, const char *fmt, ...)
{
	char why[ZP_ERRTXT_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (out && out[0]) {
		char f[PATH_MAX];
		snprintf(f, sizeof f, "%s/part-%u.error", out, ph.part);
		put_file(f, why, strlen(why)); /* wakes the caller at once */
	}
	int st = zp_arena_part_fail(d->arena, d->me, ph, 0, why);
	zp_log(d->who, "supraseal part %u: %s -> %s", ph.part, why, st >= 0 ? zp_part_state_name((unsigned)st) : zp_strerror(st));
	zp_daemon_hint_sup(d, "fail");
}

/* Check the payload's header against the key (reads nothing past the header): *kp, *p; on error
 * -1 and the reason in why. */
static int check_payload(struct zp_daemon *d, const uint8_t *base, struct ss_key **kp, struct zp_ss_payload *p,
			 char *why, size_t wn)
{
	*p = *(const struct zp_ss_payload *)base;
	p->key_id[ZP_KEY_ID_MAX - 1] = 0;
	struct ss_key *k = key_get(d, p->key_id, true);
	if (!k) {
		snprintf(why, wn, "gpud: srs %s is not registered in %s/srs", p->key_id, d->cfg.run_dir);
		return -1;
	}
	if (k->state != 1) {
		snprintf(why, wn, "gpud: %s", k->err);
		return -1;
	}
	*kp = k;
	const struct zp_ss_params_info *in = &k->in;
	struct zp_ss_payload want = *p;
	zp_ss_payload_layout(&want);
	if (p->inp != in->n_ic || p->aux != in->n_l || p->abc > in->domain || p->domain != in->domain ||
	    memcmp(&want.off_inp, &p->off_inp, sizeof(uint64_t) * 10) || p->bytes > zp_arena_slot_size(d->arena) ||
	    p->inp + p->a_aux_pop != in->n_a || p->b_inp_pop + p->b_aux_pop != in->n_b1) {
		snprintf(why, wn, "gpud: partition shape (inputs %" PRIu64 ", aux %" PRIu64 ", abc %" PRIu64
			 ") does not match srs %s (IC %u, l %u, domain %" PRIu64 ")", p->inp, p->aux, p->abc, k->path,
			 in->n_ic, in->n_l, in->domain);
		return -1;
	}
	return 0;
}

/* Copy a checked payload out of the slot at base into k's host buffers; r, s to rs, wiped in the slot. */
static void copy_out(struct ss_key *k, uint8_t *base, const struct zp_ss_payload *p, zp_fr rs[2])
{
	size_t fr = sizeof(zp_fr), dd = k->in.domain;
	memcpy(k->w, base + p->off_inp, p->inp * fr);
	memcpy(k->w + p->inp, base + p->off_aux, p->aux * fr);
	for (int m = 0; m < 3; m++) {
		zp_fr *dst = k->abc + m * dd;
		memcpy(dst, base + (m == 0 ? p->off_a : m == 1 ? p->off_b : p->off_c), p->abc * fr);
		memset(dst + p->abc, 0, (dd - p->abc) * fr);
	}
	uint64_t wa = (p->aux + 63) / 64, wi = (p->inp + 63) / 64;
	memcpy(k->bits, base + p->off_a_aux, wa * 8);
	memcpy(k->bits + wa, base + p->off_b_inp, wi * 8);
	memcpy(k->bits + wa + wi, base + p->off_b_aux, wa * 8);
	memcpy(rs, base + p->off_rs, 2 * fr);
	explicit_bzero(base + p->off_rs, 2 * fr); /* r, s do not outlive their use */
}

/* Take a checked partition out of the slot before it is released: on the GPU path straight to
 * the device when the slot is DMA-able (*on_dev = 1; returns after the copies finished), else
 * copy_out into k's host buffers. r, s go to rs and are wiped in the slot either way. On error
 * -1 and the reason in why (no copy is in flight then). */
static int take(struct ss_key *k, uint8_t *base, const struct zp_ss_payload *p, zp_fr rs[2], int *on_dev, char *why,
		size_t wn)
{
	*on_dev = 0;
#ifdef ZP_HAVE_CUDA
	if (k->cu) {
		memcpy(k->pub, base + p->off_inp, p->inp * sizeof(zp_fr));
		if (ss_dma_ok(base, p->bytes)) {
			struct ss_src s = src_slot(base, p);
			zp_err_clear();
			int r = ss_cuda_upload(k, p, &s);
			memcpy(rs, base + p->off_rs, 2 * sizeof(zp_fr));
			explicit_bzero(base + p->off_rs, 2 * sizeof(zp_fr)); /* r, s do not outlive their use */
			cudaError_t e = cudaStreamSynchronize(k->cu->st); /* the slot is read until here */
			if (!r && e != cudaSuccess)
				r = zp_err_set(ZP_ECUDA, "%s: GPU: copy from the slot: %s", k->path, cudaGetErrorString(e));
			if (r) {
				snprintf(why, wn, "gpud: copy to the GPU: %s", zp_err_msg()[0] ? zp_err_msg() : zp_strerror(r));
				return -1;
			}
			*on_dev = 1;
			return 0;
		}
		zp_err_clear();
		int r = ss_cuda_host_bufs(k);
		if (r) {
			snprintf(why, wn, "gpud: %s", zp_err_msg()[0] ? zp_err_msg() : zp_strerror(r));
			explicit_bzero(base + p->off_rs, 2 * sizeof(zp_fr));
			return -1;
		}
	}
#endif
	copy_out(k, base, p, rs);
	return 0;
}

/* The CPU path: popcounts, gathers, H and the five MSMs on the host from k's buffers. */
static int cpu_msms(struct ss_key *k, const struct zp_ss_payload *p, zp_g16_msm_out *mo, char *why, size_t wn)
{
	const struct zp_ss_params_info *in = &k->in;
	uint64_t wa = (p->aux + 63) / 64, wi = (p->inp + 63) / 64;
	const uint64_t *a_aux = k->bits, *b_inp = k->bits + wa, *b_aux = k->bits + wa + wi;
	if (zp_ss_popcount(a_aux, p->aux) != p->a_aux_pop || zp_ss_popcount(b_inp, p->inp) != p->b_inp_pop ||
	    zp_ss_popcount(b_aux, p->aux) != p->b_aux_pop) {
		snprintf(why, wn, "gpud: a density bitmap's popcount differs from the one the caller gave");
		return ZP_EMISMATCH;
	}
	const zp_fr *inp = k->w, *aux = k->w + p->inp;
	/* A: every input (bellperson's input constraints put them all in A), then aux in A */
	memcpy(k->sa, inp, p->inp * sizeof(zp_fr));
	zp_ss_gather(k->sa + p->inp, aux, a_aux, p->aux);
	uint64_t nb = zp_ss_gather(k->sb, inp, b_inp, p->inp);
	zp_ss_gather(k->sb + nb, aux, b_aux, p->aux);
	zp_fr *a = k->abc, *b = a + in->domain, *c = b + in->domain;
	int r = zp_ntt_h_bellperson(&k->dom, a, b, c);
	void *sc = k->scratch;
	size_t sl = k->scratch_len;
	if (!r) r = zp_msm_g1(&mo->h, k->h, a, in->n_h, sc, sl);
	if (!r) r = zp_msm_g1(&mo->c, k->l, aux, in->n_l, sc, sl);
	if (!r) r = zp_msm_g1(&mo->a, k->a, k->sa, in->n_a, sc, sl);
	if (!r) r = zp_msm_g1(&mo->b1, k->b1, k->sb, in->n_b1, sc, sl);
	if (!r) r = zp_msm_g2(&mo->b2, k->b2, k->sb, in->n_b2, sc, sl);
	if (r)
		snprintf(why, wn, "gpud: H/MSM: %s", zp_err_msg()[0] ? zp_err_msg() : zp_strerror(r));
	return r;
}

/* on_dev: take() put the partition on the device (GPU path) rather than in k's host buffers. */
static int prove(struct ss_key *k, const struct zp_ss_payload *p, const zp_fr rs[2], int on_dev, zp_g16_proof *proof,
		 char *why, size_t wn)
{
	const struct zp_ss_params_info *in = &k->in;
	const zp_fr *inp = k->w;
	zp_g16_msm_out mo;
	int r;
#ifdef ZP_HAVE_CUDA
	if (k->cu) {
		inp = k->pub;
		r = ss_cuda_msms(k, p, on_dev, &mo, why, wn);
	} else
#endif
		r = cpu_msms(k, p, &mo, why, wn);
	(void)on_dev;
	if (r)
		return r;
	zp_g16_finish(proof, &k->fixed, &mo, &rs[0], &rs[1]);
	zp_g16_vk vk = { .alpha1 = k->fixed.alpha1, .beta2 = k->fixed.beta2, .gamma2 = k->fixed.gamma2,
			 .delta2 = k->fixed.delta2, .n_public = in->n_ic - 1, .ic = k->ic };
	r = zp_g16_verify(&vk, proof, inp + 1, in->n_ic - 1);
	if (r) {
		snprintf(why, wn, "gpud: the proof failed its pairing check: the assignment does not satisfy the "
				  "circuit of %s (or a/b/c are not its evaluations)", k->path);
		return r;
	}
	return 0;
}

/* Write a small file for the library: tmp + rename, no fsync (the run directory is transient; the
 * caller that reads it dies with the machine). */
static int put_file(const char *path, const void *buf, size_t n)
{
	char tmp[PATH_MAX + 32];
	snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return zp_err_set(-errno, "%s", tmp);
	ssize_t k = write(fd, buf, n);
	int r = k == (ssize_t)n ? 0 : k < 0 ? -errno : -EIO;
	close(fd);
	if (!r && rename(tmp, path))
		r = -errno;
	if (r) {
		unlink(tmp);
		return zp_err_set(r, "%s", path);
	}
	return 0;
}

static int write_proof_bin(const char *out, uint32_t part, const zp_g16_proof *proof)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/part-%u.proof.bin", out, part);
	return put_file(path, proof, sizeof *proof);
}

void zp_ss_gpud_prove(struct zp_daemon *d, zp_slot_h sh, zp_part_h ph)
{
	const struct zp_arena_job *jr = zp_arena_job_rec(d->arena, ph.job.idx);
	char out[ZP_PATH_MAX];
	memcpy(out, jr->output, sizeof out);
	uint64_t job_id = jr->id;
	struct zp_ss_payload p;
	struct ss_key *k = NULL;
	zp_fr rs[2];
	char why[ZP_ERRTXT_MAX] = "";
	uint8_t *base = zp_arena_slot_data(d->arena, sh);
	int on_dev = 0;
	int bad = check_payload(d, base, &k, &p, why, sizeof why);
	if (!bad)
		bad = take(k, base, &p, rs, &on_dev, why, sizeof why);
	zp_arena_release_slot(d->arena, d->me, sh); /* the slot is free before proving starts */
	if (zp_arena_job_state(d->arena, ph.job) != ZP_JOB_ACTIVE)
		goto wipe;
	if (bad) {
		part_error(d, ph, out, "%s", why);
		goto wipe;
	}
	if (zp_daemon_cancelled(d, job_id)) {
		part_error(d, ph, out, "cancelled by client");
		goto wipe;
	}
	zp_arena_part_stamp(d->arena, ph, ZP_TS_GPU_START);
	zp_g16_proof proof;
	zp_err_clear();
	int r = prove(k, &p, rs, on_dev, &proof, why, sizeof why);
	zp_daemon_sleep(d, d->cfg.prove_delay_ms); /* [debug]: lets tests kill mid-proof */
	zp_arena_part_stamp(d->arena, ph, ZP_TS_GPU_END);
	if (r) {
		part_error(d, ph, out, "%s", why);
		goto wipe;
	}
	if ((r = write_proof_bin(out, ph.part, &proof))) {
		part_error(d, ph, NULL, "write proof: %s", zp_err_msg());
		goto wipe;
	}
	if ((r = zp_arena_part_done(d->arena, d->me, ph)))
		zp_log(d->who, "supraseal part_done: %s", zp_strerror(r));
	else if (zp_arena_job_state(d->arena, ph.job) == ZP_JOB_DONE)
		zp_daemon_hint_sup(d, "done");
wipe:
	explicit_bzero(rs, sizeof rs);
}

/* ---------------------------------------------------------------- housekeeping */
static void load_registered(struct zp_daemon *d)
{
	char dir[PATH_MAX];
	if (zp_pipe_path(dir, sizeof dir, &d->cfg, "srs"))
		return;
	DIR *dp = opendir(dir);
	if (!dp)
		return;
	struct dirent *e;
	while ((e = readdir(dp))) {
		if (strlen(e->d_name) != 16 || strchr(e->d_name, '.'))
			continue;
		char id[ZP_KEY_ID_MAX];
		snprintf(id, sizeof id, ZP_SS_KEY_PREFIX "%s", e->d_name);
		key_get(d, id, true);
	}
	closedir(dp);
}

/* External jobs whose submitter is gone: fail their unfilled (PENDING) partitions. */
static void fail_orphans(struct zp_daemon *d)
{
	const struct zp_arena_hdr *h = zp_arena_hdr(d->arena);
	for (uint32_t j = 0; j < h->job_count; j++) {
		const struct zp_arena_job *jr = zp_arena_job_rec(d->arena, j);
		uint64_t w = atomic_load((_Atomic uint64_t *)&jr->word);
		if (zp_word_state(w) != ZP_JOB_ACTIVE || !(jr->flags & ZP_JOB_EXTERNAL))
			continue;
		int pid = 0;
		unsigned long long start = 0;
		if (sscanf(jr->inputs, ZP_SS_INPUT_PREFIX "%d:%llu", &pid, &start) != 2 ||
		    (pid > 0 && zp_proc_start_time(pid) == start))
			continue;
		zp_job_h jh = { j, zp_word_gen(w) };
		uint32_t np = jr->nparts;
		for (uint32_t p = 0; p < np; p++) {
			zp_part_h ph = { jh, p };
			if (zp_arena_claim_part_at(d->arena, d->me, ph) == 0) {
				zp_arena_part_fail(d->arena, d->me, ph, 0, "the calling process died before handing this partition over");
				zp_log(d->who, "supraseal job %llu part %u: caller pid %d is gone: FAILED", (unsigned long long)jr->id,
				       p, pid);
			}
		}
		zp_daemon_hint_sup(d, "fail");
	}
}

void zp_ss_gpud_tick(struct zp_daemon *d)
{
	uint64_t now = zp_mono_ms();
	if (now - last_tick_ms < 250)
		return;
	last_tick_ms = now;
	load_registered(d);
	/* library callers (role CLIENT) are nobody's children: reclaim the dead ones here */
	const struct zp_arena_hdr *h = zp_arena_hdr(d->arena);
	for (uint32_t i = 0; i < h->proc_count; i++) {
		const struct zp_arena_proc *pr = zp_arena_proc_rec(d->arena, i);
		uint64_t w = atomic_load((_Atomic uint64_t *)&pr->word);
		if (zp_word_state(w) == ZP_PROC_FREE || pr->role != ZP_ROLE_CLIENT)
			continue;
		if (zp_word_state(w) == ZP_PROC_DEAD || zp_arena_proc_alive(d->arena, i) == 0) {
			int n = zp_arena_reclaim_proc(d->arena, (zp_proc_h){ i, zp_word_gen(w) });
			if (n > 0)
				zp_log(d->who, "reclaimed %d slot(s)/partition(s) of dead caller pid %d", n, pr->pid);
		}
	}
	fail_orphans(d);
}

void zp_ss_gpud_exit(void)
{
	for (unsigned i = 0; i < n_keys; i++)
		key_free(&keys[i]);
	n_keys = 0;
}
