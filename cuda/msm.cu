/*
 * msm.cu — Pippenger MSM over G1 and G2 (one template over the point field and the scalar field),
 * bases affine and resident on device, for BLS12-381 (the zp_cuda_msm_* functions) and BN254 (through
 * zp_cuda_curve_bn254; the same kernels instantiated for ec.cuh's bn254 fields, scalars of both < 2^255).
 *
 * 1. digits:  scalars leave Montgomery form; each is cut into W signed c-bit digits
 *             d in (-2^(c-1), 2^(c-1)] (c·W >= 256, so the last carry always fits). A nonzero digit
 *             becomes a pair key = w·M + |d|-1 (M = 2^(c-1) buckets a window), value = i | sign<<31.
 * 2. sort:    CUB radix sort of the pairs on ceil(log2(W·M+1)) key bits; zero digits get the key
 *             W·M and sort past the end. Each bucket is now a contiguous run [st, en).
 *             Passes: steps 1–4 may run over P < W windows at a time (keys relative to the pass's
 *             first window), so the pair arrays hold n·P entries instead of n·W: the scratch of a
 *             2^27 MSM fits beside a resident Groth16 key without cutting the MSM into chunks
 *             (a chunk of n/4 points takes a smaller window and costs ~10–20 % more work).
 *             Each pass leaves its P window sums in a W-entry array; Horner runs once at the end.
 * 3. sums:    every bucket is cut into tasks of at most K entries; one thread a task adds its points
 *             into an XYZZ partial. A bucket that had more than one task is reduced again the same
 *             way over its partials, until each bucket has one. So the work per thread is bounded by
 *             K whatever the scalars are: all-ones (one bucket holds everything) costs log_K(n)
 *             short levels instead of one thread walking n points.
 * 4. windows: each window's buckets are split into segments of SL; a thread computes its segment's
 *             sum of d·B_d with the running-sum trick plus (lo-1)·(sum of B_d); segments are then
 *             added in a tree, and one thread combines the windows (Horner, c doublings each).
 * The 0/1 fast path skips 1–2: tasks of KB consecutive points add the selected ones, then the tree.
 * Timing and memory access depend on the scalars: not for secrets.
 */
#include <type_traits>
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include "cuda_impl.h"
#include "ec.cuh"
#include "glv.h"
#include "zp_cuda_plan.h"
extern "C" {
#include "ec.h"
#include "bn254.h"
}

#define MSM_K 32      /* entries per accumulation task */
#define MSM_KB 64     /* points per task on the 0/1 path */
#define MSM_F 32      /* fan-in of the tree reduction */

struct plan {
	unsigned c, W, P, M, key_bits, SL, S;    /* P: windows a pass */
	size_t n, N, B, max_tasks, cub_bytes;
	size_t off_keys[2], off_vals[2], off_st, off_en, off_nt, off_toff[2], off_tb[2], off_part[2], off_win, off_cub,
	       off_flag, total;
};

struct max_op { __host__ __device__ uint32_t operator()(uint32_t a, uint32_t b) const { return a > b ? a : b; } };

/* ZP_MSM_K0 = 32, 64 or 128 entries a flat level-0 task (default 64: G2 2^24 c = 20 367 ms against 375
 * with 32). */
static unsigned msm_k0(void)
{
	return (unsigned)zp_knobs()->msm_k0;
}

/* Window bits by size, measured on an H200 (bench/RESULTS.md): G1 2^26 ran 660 ms at c = 20 against
 * 694 (18), 729 (16), 735 (21); G2 2^24 609 ms at c = 16 against 628 (18), 656 (19) with bucket-aligned
 * tasks, whose idle lanes grow as buckets get sparser. With flat level-0 tasks (fourth round) G2 2^24
 * ran 367 ms at c = 20 against 386 (19), 394 (18), 396 (16); G1 2^26 still best at c = 20 (386 ms
 * against 406 at 21, 399 at 22). */
static unsigned auto_window(size_t n, int g2)
{
	unsigned lg = 0;
	while ((1ull << lg) < n) lg++;
	int c = (int)lg - (g2 ? 4 : 6);
	if (c < 6) c = 6;
	if (c > (g2 ? 20 : 21)) c = g2 ? 20 : 21;   /* G2 2^25: 690 ms at c = 20, 739 at 21, 763 at 22 */
	return (unsigned)c;
}

static size_t align_up(size_t x) { return (x + 255) & ~(size_t)255; }

/* Window of the split MSM (zp_cuda_msm_g*_split) in `parts` parts: parts·n entries of (256/parts + 1)-bit
 * signed-digit scalars, W = ceil(bits/c) windows. Cost model in entry additions: parts·n·W entries plus the
 * running sums, ~2.8 entry-equivalents per bucket (two full XYZZ additions), W·2^(c−1) buckets. */
static unsigned split_window(size_t n, unsigned parts)
{
	unsigned bits = 256 / parts + 1, best = 22;
	double bc = 0;
	for (unsigned c = 10; c <= 22; c++) {
		unsigned W = (bits + c - 1) / c;
		double cost = (double)parts * (double)n * W + 2.8 * W * (double)(1u << (c - 1));
		if (c == 10 || cost < bc) { bc = cost; best = c; }
	}
	return best;
}

/* pass_windows = 0: every window in one pass, unless n·W reaches 2^31 (then as many as fit).
 * parts > 1: the split MSM's n = parts × scalars entries of 256/parts-bit chunks (256/parts + 1 signed-digit bits). */
static int make_plan(plan *p, size_t n, unsigned window, unsigned pass_windows, size_t pt_bytes, unsigned parts = 1)
{
	unsigned bits = parts > 1 ? 256 / parts + 1 : 256;
	memset(p, 0, sizeof(*p));
	p->n = n;
	p->c = window ? window : parts > 1 ? split_window(n / parts, parts) : auto_window(n, pt_bytes > sizeof(g1_xyzz));
	if (p->c < 2 || p->c > 24) return zp_err_set(ZP_ERANGE, "msm: window %u", p->c);
	p->W = (bits + p->c - 1) / p->c;
	p->P = pass_windows && pass_windows < p->W ? pass_windows : p->W;
	if (!pass_windows && n)
		while (p->P > 1 && n * p->P >= (1ull << 31)) p->P--;
	p->M = 1u << (p->c - 1);
	p->N = n * p->P;
	if (p->N >= (1ull << 31)) return zp_err_set(ZP_ERANGE, "msm: n·windows a pass = %zu too large", p->N);
	p->B = (size_t)p->P * p->M;
	p->key_bits = 0;
	while ((1ull << p->key_bits) <= p->B) p->key_bits++;
	p->SL = p->M < 64 ? p->M : 64;
	p->S = p->M / p->SL;
	size_t bits_tasks = (n + MSM_KB - 1) / MSM_KB;
	p->max_tasks = p->N / MSM_K + p->B + 1;
	if (p->max_tasks < bits_tasks) p->max_tasks = bits_tasks;
	if (p->max_tasks < (size_t)p->P * p->S) p->max_tasks = (size_t)p->P * p->S;

	size_t sort_b = 0, scan_b = 0, scan2_b = 0;
	cub::DeviceRadixSort::SortPairs(NULL, sort_b, (uint32_t *)NULL, (uint32_t *)NULL, (uint32_t *)NULL,
	                                (uint32_t *)NULL, (int)p->N, 0, (int)p->key_bits);
	cub::DeviceScan::ExclusiveSum(NULL, scan_b, (uint32_t *)NULL, (uint32_t *)NULL, (int)(p->B + 1));
	cub::DeviceScan::InclusiveScan(NULL, scan2_b, (uint32_t *)NULL, (uint32_t *)NULL, max_op(),
	                               (int)p->max_tasks);
	p->cub_bytes = sort_b > scan_b ? sort_b : scan_b;
	if (scan2_b > p->cub_bytes) p->cub_bytes = scan2_b;

	size_t o = 0;
	for (int i = 0; i < 2; i++) { p->off_keys[i] = o; o += align_up(p->N * 4); }
	for (int i = 0; i < 2; i++) { p->off_vals[i] = o; o += align_up(p->N * 4); }
	p->off_st = o; o += align_up(p->B * 4);
	p->off_en = o; o += align_up(p->B * 4);
	p->off_nt = o; o += align_up((p->B + 1) * 4);
	for (int i = 0; i < 2; i++) { p->off_toff[i] = o; o += align_up((p->B + 1) * 4); }
	for (int i = 0; i < 2; i++) { p->off_tb[i] = o; o += align_up(p->max_tasks * 4); }
	for (int i = 0; i < 2; i++) { p->off_part[i] = o; o += align_up(p->max_tasks * pt_bytes); }
	p->off_win = o; o += align_up((size_t)p->W * pt_bytes);
	p->off_cub = o; o += align_up(p->cub_bytes);
	p->off_flag = o; o += 1024;
	p->total = o;
	return 0;
}

/* ---- kernels ---- */

template <class F> struct pt_types { typedef affine_t<F> aff; typedef xyzz_t<F> xyzz; };

/* Windows [w0, w1) of every scalar (the carry runs from window 0); keys relative to w0, zero digits
 * get the sentinel (w1 - w0)·M. split_n > 0 (the split MSM in `parts` parts, 2 or 4): entry i = j·split_n + i'
 * is chunk j (bits j·cb .. j·cb + cb − 1, cb = 256/parts) of scalar i'; n = parts·split_n entries. */
template <class fr_t, bool GLV = false>
__global__ void digits_kernel(uint32_t *keys, uint32_t *vals, const fr_t *scalars, size_t n, unsigned c, unsigned w0,
                              unsigned w1, size_t split_n = 0, unsigned parts = 1)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) return;
	uint32_t l[9];
	uint32_t base_val = (uint32_t)i;
	if constexpr (GLV) {
		/* entry i = j·split_n + i': half j of scalar i' (k1 over P, k2 over φ(P)); the value names
		 * base i' and, in bit 30, φ */
		size_t j = i >= split_n, ip = i - j * split_n;
		fr_t s = scalars[ip].from_mont();
		uint64_t k[4], k1[2], k2[2];
		_Pragma("unroll") for (int t = 0; t < 4; t++) k[t] = (uint64_t)s.l[2 * t] | ((uint64_t)s.l[2 * t + 1] << 32);
		zp_glv_split(k, k1, k2);
		const uint64_t *h = j ? k2 : k1;
		l[0] = (uint32_t)h[0]; l[1] = (uint32_t)(h[0] >> 32); l[2] = (uint32_t)h[1]; l[3] = (uint32_t)(h[1] >> 32);
		_Pragma("unroll") for (int t = 4; t < 8; t++) l[t] = 0;
		base_val = (uint32_t)ip | (uint32_t)j << 30;
	} else if (split_n) {
		size_t j = i / split_n;
		unsigned L = 8 / parts, first = (unsigned)j * L;   /* limbs a chunk, its first limb */
		fr_t s = scalars[i - j * split_n].from_mont();
		_Pragma("unroll") for (int k = 0; k < 8; k++) l[k] = 0;
		_Pragma("unroll") for (int k = 0; k < 8; k++)
			_Pragma("unroll") for (int t = 0; t < 4; t++)
				if (t < (int)L && (unsigned)k == first + t) l[t] = s.l[k];
	} else {
		fr_t s = scalars[i].from_mont();
		_Pragma("unroll") for (int j = 0; j < 8; j++) l[j] = s.l[j];
	}
	l[8] = 0;
	uint32_t M = 1u << (c - 1), mask = (1u << c) - 1, carry = 0, sent = (w1 - w0) * M;
	for (unsigned w = 0; w < w1; w++) {
		unsigned off = w * c, li = off >> 5, sh = off & 31;
		uint32_t v = 0;
		if (off < 256) v = (uint32_t)(((uint64_t)l[li] | ((uint64_t)l[li + 1] << 32)) >> sh) & mask;
		v += carry;
		uint32_t key = sent, val = base_val, wr = w - w0;
		if (v > M) {            /* negative digit v - 2^c; v = 2^c is digit 0 with a carry */
			carry = 1;
			if (v != (1u << c)) { key = wr * M + ((1u << c) - v) - 1; val |= 1u << 31; }
		}
		else { carry = 0; if (v) key = wr * M + v - 1; }
		if (w < w0) continue;
		keys[(size_t)wr * n + i] = key;
		vals[(size_t)wr * n + i] = val;
	}
}

/* st/en of every bucket; *nnz = entries before the first sentinel (the nonzero digits; 0 stays 0). */
__global__ void bounds_kernel(uint32_t *st, uint32_t *en, const uint32_t *keys, size_t N, uint32_t sent, uint32_t *nnz)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= N) return;
	uint32_t k = keys[i];
	if (k == sent) return;
	if (i == 0 || keys[i - 1] != k) st[k] = (uint32_t)i;
	if (i == N - 1 || keys[i + 1] != k) {
		en[k] = (uint32_t)(i + 1);
		if (i == N - 1 || keys[i + 1] == sent) *nnz = (uint32_t)(i + 1);
	}
}

/* Tasks of bucket b: flat = 0, ceil(len/K) tasks of its own; flat = 1, the number of K-entry chunks of
 * the whole sorted array that its run [st, en) overlaps (one partial per chunk and bucket). */
__global__ void ntasks_kernel(uint32_t *nt, const uint32_t *st, const uint32_t *en, size_t B, unsigned K, int flat)
{
	size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (b > B) return;
	if (b == B || en[b] <= st[b]) { nt[b] = 0; return; }
	nt[b] = flat ? (en[b] - 1) / K - st[b] / K + 1 : (en[b] - st[b] + K - 1) / K;
}

__global__ void taskmap_kernel(uint32_t *tb, const uint32_t *nt, const uint32_t *toff, size_t B)
{
	size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (b < B && nt[b]) tb[toff[b]] = (uint32_t)b;
}

/* The base of a sorted entry's value: index in bits 0–29 (30 too without GLV), φ in bit 30 (GLV: the
 * BLS12-381 G1 endomorphism (β·x, y), glv.h), the sign in bit 31. */
template <class F> struct glv_beta;
template <> struct glv_beta<fp_t> {
	ZP_DI static fp_t get() { const uint32_t B[12] = ZP_GLV_BETA_MONT; fp_t r; _Pragma("unroll") for (int i = 0; i < 12; i++) r.l[i] = B[i]; return r; }
};
template <class F, bool GLV>
ZP_DI affine_t<F> entry_base(const affine_t<F> *__restrict__ bases, uint32_t v)
{
	if constexpr (GLV) {
		affine_t<F> P = bases[v & 0x3fffffffu];
		if ((v >> 30) & 1) P.x = P.x * glv_beta<F>::get();
		if (v >> 31) P.y = P.y.neg();
		return P;
	} else {
		affine_t<F> P = bases[v & 0x7fffffffu];
		if (v >> 31) P.y = P.y.neg();
		return P;
	}
}

/* Level 0, flat: thread g adds the entries [g·K, (g+1)·K) of the sorted
 * array whatever their buckets, and writes one partial for each bucket it touches, at
 * out[toff[b] + g - st[b]/K] (ntasks_kernel's flat count). Every thread adds K points (the last one
 * fewer): no lanes idle at the short last task of a bucket, which cost 3 % at 512 entries a bucket and
 * ~12 % at 128, so larger windows (fewer, sparser buckets) pay off (the bucket-aligned level 0 it replaced,
 * ZP_MSM_FLAT=0 until issue 35: bench/RESULTS.md, fourth round). 128 threads a block and no minimum: 255
 * registers, 2 blocks an SM for G2; forcing 3 or 4 blocks (or 5 of 64 threads) spilled 1.4–2 KB a thread and
 * ran 26–35 % slower (cuda/NOTES.md, fourth round). */
template <class F, bool GLV = false>
__global__ void __launch_bounds__(128, 1) acc_flat_kernel(xyzz_t<F> *out, const affine_t<F> *__restrict__ bases,
                                                          const uint32_t *__restrict__ keys, const uint32_t *__restrict__ vals,
                                                          const uint32_t *st, const uint32_t *toff, const uint32_t *nnz,
                                                          unsigned K)
{
	uint32_t g = blockIdx.x * blockDim.x + threadIdx.x, n = *nnz;
	if ((size_t)g * K >= n) return;
	uint32_t s = g * K, e = min(s + K, n), b = keys[s];
	xyzz_t<F> acc = xyzz_t<F>::inf();
	for (uint32_t i = s; i < e; i++) {
		uint32_t k = keys[i];
		if (k != b) {
			out[toff[b] + g - st[b] / K] = acc;
			acc = xyzz_t<F>::inf();
			b = k;
		}
		acc.add_affine(entry_base<F, GLV>(bases, vals[i]));
	}
	out[toff[b] + g - st[b] / K] = acc;
}

template <class F>
__global__ void acc_xyzz_kernel(xyzz_t<F> *out, const xyzz_t<F> *__restrict__ in, const uint32_t *st, const uint32_t *en,
                                const uint32_t *toff, const uint32_t *tb, uint32_t T)
{
	uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= T) return;
	uint32_t b = tb[t], s = st[b] + (t - toff[b]) * MSM_K, e = min(s + MSM_K, en[b]);
	xyzz_t<F> acc = in[s];
	for (uint32_t i = s + 1; i < e; i++) acc.add(in[i]);
	out[t] = acc;
}

/* Segment s of window w: sum over d in [lo, lo+SL) of d·B_d. */
template <class F>
__global__ void window_seg_kernel(xyzz_t<F> *out, const xyzz_t<F> *items, const uint32_t *st, const uint32_t *en,
                                  unsigned W, unsigned M, unsigned SL, unsigned S)
{
	unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= W * S) return;
	unsigned w = t / S, s = t % S, lo = s * SL + 1;
	xyzz_t<F> R = xyzz_t<F>::inf(), T = xyzz_t<F>::inf();
	for (int d = lo + SL - 1; d >= (int)lo; d--) {
		size_t b = (size_t)w * M + d - 1;
		if (en[b] > st[b]) R.add(items[st[b]]);
		T.add(R);
	}
	R.mul_small(lo - 1);
	T.add(R);
	out[t] = T;
}

template <class F>
__global__ void reduce_kernel(xyzz_t<F> *out, const xyzz_t<F> *in, unsigned groups, size_t len, unsigned fan)
{
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t olen = (len + fan - 1) / fan;
	if (t >= groups * olen) return;
	size_t g = t / olen, c = t % olen, e = min(len, (c + 1) * fan);
	xyzz_t<F> acc = xyzz_t<F>::inf();
	for (size_t i = c * fan; i < e; i++) acc.add(in[g * len + i]);
	out[t] = acc;
}

template <class F>
__global__ void horner_kernel(jac_t<F> *out, const xyzz_t<F> *win, unsigned W, unsigned c)
{
	xyzz_t<F> acc = win[W - 1];
	for (int w = (int)W - 2; w >= 0; w--) {
		for (unsigned k = 0; k < c; k++) acc.dbl();
		acc.add(win[w]);
	}
	*out = acc.to_jac();
}

template <class F>
__global__ void inf_xyzz_kernel(xyzz_t<F> *out, unsigned count)
{
	unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t < count) out[t] = xyzz_t<F>::inf();
}

/* flag != NULL: strict (a scalar other than 0/1 sets *flag); flag == NULL: such scalars are skipped
 * (the 0/1 half of the split MSM: the general MSM sums them separately). */
template <class F, class fr_t>
__global__ void bits_kernel(xyzz_t<F> *out, const affine_t<F> *__restrict__ bases, const fr_t *__restrict__ sc, size_t n,
                            uint32_t *flag)
{
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t s = t * MSM_KB;
	if (s >= n) return;
	size_t e = min(n, s + MSM_KB);
	xyzz_t<F> acc = xyzz_t<F>::inf();
	fr_t one = fr_t::one();
	for (size_t i = s; i < e; i++) {
		fr_t v = sc[i];
		if (v.is_zero()) continue;
		if (v != one) { if (flag) *flag = 1; continue; }
		acc.add_affine(bases[i]);
	}
	out[t] = acc;
}

__global__ void gather_kernel(uint4 *out, const uint4 *table, const uint32_t *idx, size_t n, unsigned words, uint32_t off)
{
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= n * words) return;
	size_t i = t / words, w = t % words;
	out[t] = table[(size_t)(idx[i] - off) * words + w];
}

/* ones = 0: scalar i is neither Montgomery 0 nor Montgomery 1; ones = 1: it is Montgomery 1. */
template <class fr_t> struct nonbit_pred {
	const fr_t *sc;
	int ones;
	__device__ bool operator()(uint32_t i) const
	{
		fr_t v = sc[i];
		return ones ? v == fr_t::one() : !v.is_zero() && v != fr_t::one();
	}
};

/* Σ bases[idx[i] − off] over tasks of MSM_KB list entries: every thread adds the same number of
 * points (the 0/1 kernel's threads idle on the zeros of their range). */
template <class F>
__global__ void sum_idx_kernel(xyzz_t<F> *out, const affine_t<F> *__restrict__ bases, const uint32_t *__restrict__ idx,
                               size_t n, uint32_t off)
{
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t s = t * MSM_KB;
	if (s >= n) return;
	size_t e = min(n, s + MSM_KB);
	xyzz_t<F> acc = xyzz_t<F>::inf();
	for (size_t i = s; i < e; i++) acc.add_affine(bases[idx[i] - off]);
	out[t] = acc;
}

/* ---- host side ---- */

/* ZP_MSM_PROFILE=1 in the environment: print per-phase times (digits+sort, bucket sums,
 * window segments, tree + Horner) to stderr. Costs a few event records when on. */
static cudaEvent_t prof_ev[5];
static int prof_on = -1;
static float prof_t[4];
static void prof_mark(cudaStream_t st, int i)
{
	if (prof_on < 0) {
		prof_on = zp_knobs()->msm_profile;
		for (int k = 0; prof_on && k < 5; k++) cudaEventCreate(&prof_ev[k]);
	}
	if (prof_on) cudaEventRecord(prof_ev[i], st);
}
/* after a pass's last mark: add its phase times */
static void prof_add(void)
{
	float t;
	if (!prof_on) return;
	cudaEventSynchronize(prof_ev[4]);
	for (int k = 0; k < 4; k++)
		if (cudaEventElapsedTime(&t, prof_ev[k], prof_ev[k + 1]) == cudaSuccess) prof_t[k] += t;
}
static void prof_report(const plan *p, int levels)
{
	if (!prof_on) return;
	fprintf(stderr, "msm n=%zu c=%u W=%u P=%u: digits+sort %.2f ms, bucket sums %.2f ms (%d levels, last pass), "
	        "segments %.2f ms, tree %.2f ms\n", p->n, p->c, p->W, p->P, prof_t[0], prof_t[1], levels, prof_t[2], prof_t[3]);
	memset(prof_t, 0, sizeof prof_t);
}

#define AT(p, off, T) ((T *)((char *)(p) + (off)))

/* Tree-reduce `groups` runs of `len` points in buf[cur] down to one each; returns the buffer index. */
template <class F>
static int tree_reduce(xyzz_t<F> **buf, int cur, unsigned groups, size_t len, cudaStream_t st, int *out_idx)
{
	int rc = 0;
	while (len > 1) {
		size_t olen = (len + MSM_F - 1) / MSM_F;
		reduce_kernel<F><<<zp_cdiv(groups * olen, 128), 128, 0, st>>>(buf[cur ^ 1], buf[cur], groups, len, MSM_F);
		ZP_CUDA_LAUNCHED();
		cur ^= 1;
		len = olen;
	}
	*out_idx = cur;
	return 0;
err:
	return rc;
}

/* parts > 1: bases are the parts·n points of zp_cuda_msm_g*_split_bases, scalars n full ones cut into
 * 256/parts-bit chunks; n is then the number of entries (parts × the scalars). */
template <class F, class fr_t, bool GLV = false>
static int msm_run(jac_t<F> *out, const affine_t<F> *bases, const fr_t *scalars, size_t n, void *scratch,
                   size_t scratch_size, const zp_cuda_msm_opts *opts, unsigned parts = 1)
{
	int rc = 0;
	plan p;
	cudaStream_t st = opts ? (cudaStream_t)opts->stream : 0;
	if ((rc = make_plan(&p, n, opts ? opts->window : 0, opts ? opts->pass_windows : 0, sizeof(xyzz_t<F>), parts)))
		return rc;
	if (scratch_size < p.total) return zp_err_set(ZP_ERANGE, "msm: scratch %zu < %zu", scratch_size, p.total);
	uint32_t *keys[2] = { AT(scratch, p.off_keys[0], uint32_t), AT(scratch, p.off_keys[1], uint32_t) };
	uint32_t *vals[2] = { AT(scratch, p.off_vals[0], uint32_t), AT(scratch, p.off_vals[1], uint32_t) };
	uint32_t *bst = AT(scratch, p.off_st, uint32_t), *ben = AT(scratch, p.off_en, uint32_t);
	uint32_t *nt = AT(scratch, p.off_nt, uint32_t);
	uint32_t *toff[2] = { AT(scratch, p.off_toff[0], uint32_t), AT(scratch, p.off_toff[1], uint32_t) };
	uint32_t *tb[2] = { AT(scratch, p.off_tb[0], uint32_t), AT(scratch, p.off_tb[1], uint32_t) };
	xyzz_t<F> *part[2] = { AT(scratch, p.off_part[0], xyzz_t<F>), AT(scratch, p.off_part[1], xyzz_t<F>) };
	xyzz_t<F> *win = AT(scratch, p.off_win, xyzz_t<F>);
	void *cubt = AT(scratch, p.off_cub, void);
	jac_t<F> *dout = AT(scratch, p.off_flag, jac_t<F>);
	uint32_t *nnz = AT(scratch, p.off_flag + 512, uint32_t);
	int lvl = 0;
	const unsigned K0 = msm_k0();

	for (unsigned w0 = 0; w0 < p.W; w0 += p.P) {
		unsigned w1 = w0 + p.P < p.W ? w0 + p.P : p.W, pw = w1 - w0;
		size_t N = n * pw, B = (size_t)pw * p.M, cub_bytes = p.cub_bytes;
		unsigned key_bits = 0;
		while ((1ull << key_bits) <= B) key_bits++;
		const uint32_t *st_ = bst, *en_ = ben;
		uint32_t T = 0, T_prev = 0;
		int cur = 0;

		prof_mark(st, 0);
		digits_kernel<fr_t, GLV><<<zp_cdiv(n, 256), 256, 0, st>>>(keys[0], vals[0], scalars, n, p.c, w0, w1,
		                                                          parts > 1 ? n / parts : 0, parts);
		ZP_CUDA_LAUNCHED();
		ZP_CUDA_TRY(cub::DeviceRadixSort::SortPairs(cubt, cub_bytes, keys[0], keys[1], vals[0], vals[1], (int)N, 0,
		                                            (int)key_bits, st));
		prof_mark(st, 1);
		ZP_CUDA_TRY(cudaMemsetAsync(bst, 0, B * 4, st));
		ZP_CUDA_TRY(cudaMemsetAsync(ben, 0, B * 4, st));
		ZP_CUDA_TRY(cudaMemsetAsync(nnz, 0, 4, st));
		bounds_kernel<<<zp_cdiv(N, 256), 256, 0, st>>>(bst, ben, keys[1], N, (uint32_t)B, nnz);
		ZP_CUDA_LAUNCHED();

		for (lvl = 0;; lvl++) {
			uint32_t *to = toff[lvl & 1], *map = tb[0];
			const int fl = lvl == 0;
			ntasks_kernel<<<zp_cdiv(B + 1, 256), 256, 0, st>>>(nt, st_, en_, B, fl ? K0 : MSM_K, fl);
			ZP_CUDA_LAUNCHED();
			cub_bytes = p.cub_bytes;
			ZP_CUDA_TRY(cub::DeviceScan::ExclusiveSum(cubt, cub_bytes, nt, to, (int)(B + 1), st));
			ZP_CUDA_TRY(cudaMemcpyAsync(&T, to + B, 4, cudaMemcpyDeviceToHost, st));
			ZP_CUDA_TRY(cudaStreamSynchronize(st));
			if (lvl > 0 && T == T_prev) break;    /* every bucket is down to one partial */
			if (T == 0) break;                    /* every digit of this pass is zero */
			if (fl) {
				acc_flat_kernel<F, GLV><<<zp_cdiv(N, (size_t)K0 * 128), 128, 0, st>>>(part[0], bases, keys[1], vals[1], st_,
				                                                                 to, nnz, K0);
				ZP_CUDA_LAUNCHED();
				st_ = to;
				en_ = to + 1;
				T_prev = T;
				continue;
			}
			ZP_CUDA_TRY(cudaMemsetAsync(map, 0, (size_t)T * 4, st));
			taskmap_kernel<<<zp_cdiv(B, 256), 256, 0, st>>>(map, nt, to, B);
			ZP_CUDA_LAUNCHED();
			cub_bytes = p.cub_bytes;
			ZP_CUDA_TRY(cub::DeviceScan::InclusiveScan(cubt, cub_bytes, map, tb[1], max_op(), (int)T, st));
			acc_xyzz_kernel<F><<<zp_cdiv(T, 128), 128, 0, st>>>(part[cur ^ 1], part[cur], st_, en_, to, tb[1], T);
			ZP_CUDA_LAUNCHED();
			cur ^= 1;
			st_ = to;
			en_ = to + 1;
			T_prev = T;
		}
		prof_mark(st, 2);
		if (T == 0) {
			/* no nonzero digit in these windows: their sums are infinity */
			inf_xyzz_kernel<F><<<1, 64, 0, st>>>(win + w0, pw);
			ZP_CUDA_LAUNCHED();
			prof_mark(st, 3);
		} else {
			window_seg_kernel<F><<<zp_cdiv((size_t)pw * p.S, 64), 64, 0, st>>>(part[cur ^ 1], part[cur], st_, en_, pw,
			                                                                   p.M, p.SL, p.S);
			ZP_CUDA_LAUNCHED();
			cur ^= 1;
			prof_mark(st, 3);
			if ((rc = tree_reduce<F>(part, cur, pw, p.S, st, &cur))) return rc;
			ZP_CUDA_TRY(cudaMemcpyAsync(win + w0, part[cur], pw * sizeof(xyzz_t<F>), cudaMemcpyDeviceToDevice, st));
		}
		prof_mark(st, 4);
		prof_add();
	}
	horner_kernel<F><<<1, 1, 0, st>>>(dout, win, p.W, p.c);
	ZP_CUDA_LAUNCHED();
	ZP_CUDA_TRY(cudaMemcpyAsync(out, dout, sizeof(*out), cudaMemcpyDeviceToHost, st));
	ZP_CUDA_TRY(cudaStreamSynchronize(st));
	prof_report(&p, lvl);
	return 0;
err:
	return rc;
}

/* idx == NULL: the 0/1 kernel over scalars; else the sum of bases[idx[j] - off] over j < n. */
template <class F, class fr_t>
static int msm_bits_run(jac_t<F> *out, const affine_t<F> *bases, const fr_t *scalars, size_t n, void *scratch,
                        size_t scratch_size, void *stream, int masked, const uint32_t *idx = NULL, uint32_t off = 0)
{
	int rc = 0;
	cudaStream_t st = (cudaStream_t)stream;
	size_t tasks = (n + MSM_KB - 1) / MSM_KB;
	size_t need = 2 * align_up(tasks * sizeof(xyzz_t<F>)) + 512;
	uint32_t flag = 0;
	if (n == 0) return zp_err_set(ZP_ERANGE, "msm: n = 0");
	if (scratch_size < need) return zp_err_set(ZP_ERANGE, "msm: scratch %zu < %zu", scratch_size, need);
	xyzz_t<F> *part[2] = { (xyzz_t<F> *)scratch, AT(scratch, align_up(tasks * sizeof(xyzz_t<F>)), xyzz_t<F>) };
	char *tail = (char *)scratch + 2 * align_up(tasks * sizeof(xyzz_t<F>));
	uint32_t *dflag = (uint32_t *)tail;
	int cur = 0;
	ZP_CUDA_TRY(cudaMemsetAsync(dflag, 0, 4, st));
	if (idx)
		sum_idx_kernel<F><<<zp_cdiv(tasks, 128), 128, 0, st>>>(part[0], bases, idx, n, off);
	else
		bits_kernel<F><<<zp_cdiv(tasks, 128), 128, 0, st>>>(part[0], bases, scalars, n, masked ? NULL : dflag);
	ZP_CUDA_LAUNCHED();
	if ((rc = tree_reduce<F>(part, 0, 1, tasks, st, &cur))) return rc;
	horner_kernel<F><<<1, 1, 0, st>>>((jac_t<F> *)part[cur ^ 1], part[cur], 1, 0);
	ZP_CUDA_LAUNCHED();
	ZP_CUDA_TRY(cudaMemcpyAsync(out, part[cur ^ 1], sizeof(*out), cudaMemcpyDeviceToHost, st));
	ZP_CUDA_TRY(cudaMemcpyAsync(&flag, dflag, 4, cudaMemcpyDeviceToHost, st));
	ZP_CUDA_TRY(cudaStreamSynchronize(st));
	if (flag) return zp_err_set(ZP_ERANGE, "msm_bits: a scalar is neither 0 nor 1");
	return 0;
err:
	return rc;
}

extern "C" size_t zp_cuda_msm_scratch_size_passes(int g2, size_t n, unsigned window, unsigned pass_windows)
{
	plan p;
	if (make_plan(&p, n, window, pass_windows, g2 ? sizeof(g2_xyzz) : sizeof(g1_xyzz))) return 0;
	return p.total + 1024;
}
extern "C" size_t zp_cuda_msm_scratch_size(int g2, size_t n, unsigned window)
{
	return zp_cuda_msm_scratch_size_passes(g2, n, window, 0);
}
extern "C" unsigned zp_cuda_msm_windows(int g2, size_t n, unsigned window)
{
	plan p;
	if (make_plan(&p, n, window, 0, g2 ? sizeof(g2_xyzz) : sizeof(g1_xyzz))) return 0;
	return p.W;
}

static int split_check(size_t n, unsigned parts);

/* The GLV MSM (glv.h): 2n entries of 128-bit halves over the n bases, planned as the split MSM in 2 parts
 * (the same windows and scratch, zp_cuda_msm_split_scratch_size(0, n, 2, ...)). */
extern "C" int zp_cuda_msm_g1_glv(zp_cuda_g1_jac *out, const zp_cuda_g1_aff *d_bases, const zp_fr *d_scalars, size_t n,
                                  void *d_scratch, size_t scratch_size, const zp_cuda_msm_opts *opts)
{
	int rc = split_check(n, 2);
	return rc ? rc : msm_run<fp_t, fr_t, true>((jac_t<fp_t> *)out, (const g1_aff *)d_bases, (const fr_t *)d_scalars,
	                                          2 * n, d_scratch, scratch_size, opts, 2);
}

/* ZP_MSM_GLV=k (default 0: off): BLS12-381 G1 MSMs of at least 2^k scalars with an automatic window take
 * the GLV cut when the scratch they are given holds it (as many windows a pass as fit, at least one); else,
 * or for an explicit window, the plain MSM. The result is the same point either way. Off by default: on an
 * H200 it ran 118.3 / 396.3 / 764.8 ms at 2^24 / 2^26 / 2^27 against plain 116.2 / 385.8 / 768.4 and the
 * 2-part split bases' 703.1 (bench/RESULTS.md): the β product on half the entries costs what the cut saves. */
static int g1_msm_auto(jac_t<fp_t> *out, const g1_aff *bases, const fr_t *sc, size_t n, void *scratch, size_t len,
                       const zp_cuda_msm_opts *opts)
{
	int lg = zp_knobs()->msm_glv;
	if (lg > 0 && n >= ((size_t)1 << lg) && (!opts || !opts->window) && !split_check(n, 2)) {
		plan p;
		if (!make_plan(&p, 2 * n, 0, 0, sizeof(g1_xyzz), 2)) {
			unsigned pw = 0;
			if (p.total + 1024 > len) {
				for (pw = p.W - 1; pw >= 1; pw--)
					if (!make_plan(&p, 2 * n, 0, pw, sizeof(g1_xyzz), 2) && p.total + 1024 <= len) break;
			}
			if (pw >= 1 || p.total + 1024 <= len) {
				zp_cuda_msm_opts o = { 0, opts ? opts->stream : NULL, pw };
				return msm_run<fp_t, fr_t, true>(out, bases, sc, 2 * n, scratch, len, &o, 2);
			}
		}
	}
	return msm_run<fp_t>(out, bases, sc, n, scratch, len, opts);
}

extern "C" int zp_cuda_msm_g1(zp_cuda_g1_jac *out, const zp_cuda_g1_aff *d_bases, const zp_fr *d_scalars, size_t n,
                              void *d_scratch, size_t scratch_size, const zp_cuda_msm_opts *opts)
{
	return g1_msm_auto((jac_t<fp_t> *)out, (const g1_aff *)d_bases, (const fr_t *)d_scalars, n, d_scratch,
	                   scratch_size, opts);
}
extern "C" int zp_cuda_msm_g2(zp_cuda_g2_jac *out, const zp_cuda_g2_aff *d_bases, const zp_fr *d_scalars, size_t n,
                              void *d_scratch, size_t scratch_size, const zp_cuda_msm_opts *opts)
{
#ifdef MSM_NO_G2
	return zp_err_set(ZP_ERANGE, "built without G2");
#else
	return msm_run<fp2_t>((jac_t<fp2_t> *)out, (const g2_aff *)d_bases, (const fr_t *)d_scalars, n, d_scratch,
	                      scratch_size, opts);
#endif
}
/* The split MSM: parts·n bases [2^(cb·j)]·P_i (j-major, cb = 256/parts, zp_cuda_msm_g*_split_bases), each
 * scalar's parts chunks of cb bits as their scalars (parts 4 at 2^24: 3 windows of 22 bits, 12n bucket entries
 * instead of 13n; parts 2: 6 windows, the same 12n with half the bases' memory). */
static int split_check(size_t n, unsigned parts)
{
	if (parts != 2 && parts != 4) return zp_err_set(ZP_ERANGE, "msm split: %u parts (2 or 4)", parts);
	if (n > ((size_t)1 << 29) / parts * 2) return zp_err_set(ZP_ERANGE, "msm split: n = %zu too large for %u parts", n, parts);
	return 0;
}
extern "C" size_t zp_cuda_msm_split_scratch_size(int g2, size_t n, unsigned parts, unsigned window,
                                                 unsigned pass_windows)
{
	plan p;
	if (split_check(n, parts) ||
	    make_plan(&p, parts * n, window, pass_windows, g2 ? sizeof(g2_xyzz) : sizeof(g1_xyzz), parts)) return 0;
	return p.total + 1024;
}
extern "C" unsigned zp_cuda_msm_split_windows(size_t n, unsigned parts, unsigned window)
{
	plan p;
	if (split_check(n, parts) || make_plan(&p, parts * n, window, 0, sizeof(g1_xyzz), parts)) return 0;
	return p.W;
}
extern "C" int zp_cuda_msm_g1_split(zp_cuda_g1_jac *out, const zp_cuda_g1_aff *d_bases, const zp_fr *d_scalars,
                                    size_t n, unsigned parts, void *d_scratch, size_t scratch_size,
                                    const zp_cuda_msm_opts *opts)
{
	int rc = split_check(n, parts);
	return rc ? rc : msm_run<fp_t>((jac_t<fp_t> *)out, (const g1_aff *)d_bases, (const fr_t *)d_scalars, parts * n,
	                               d_scratch, scratch_size, opts, parts);
}
extern "C" int zp_cuda_msm_g2_split(zp_cuda_g2_jac *out, const zp_cuda_g2_aff *d_bases, const zp_fr *d_scalars,
                                    size_t n, unsigned parts, void *d_scratch, size_t scratch_size,
                                    const zp_cuda_msm_opts *opts)
{
#ifdef MSM_NO_G2
	return zp_err_set(ZP_ERANGE, "built without G2");
#else
	int rc = split_check(n, parts);
	return rc ? rc : msm_run<fp2_t>((jac_t<fp2_t> *)out, (const g2_aff *)d_bases, (const fr_t *)d_scalars, parts * n,
	                                d_scratch, scratch_size, opts, parts);
#endif
}
extern "C" size_t zp_cuda_msm_bits_scratch_size(int g2, size_t n)
{
	size_t tasks = (n + MSM_KB - 1) / MSM_KB;
	return 2 * align_up(tasks * (g2 ? sizeof(g2_xyzz) : sizeof(g1_xyzz))) + 512;
}

/* DeviceSelect::If over the indices 0..n-1; the count lands after CUB's temp storage. */
extern "C" size_t zp_cuda_nonbits_temp_size(size_t n)
{
	size_t b = 0;
	cub::DeviceSelect::If(NULL, b, thrust::counting_iterator<uint32_t>(0), (uint32_t *)NULL, (int *)NULL, (int)n,
	                      nonbit_pred<fr_t>{ NULL, 0 });
	return align_up(b) + 256;
}
template <class fr_t>
static int select_idx(uint32_t *d_idx, size_t *count, const void *d_scalars, size_t n, void *d_tmp, size_t tmp_size,
                      void *stream, int ones)
{
	int rc = 0;
	cudaStream_t st = (cudaStream_t)stream;
	size_t b = 0;
	int cnt = 0;
	if (n >= (1ull << 31)) return zp_err_set(ZP_ERANGE, "nonbits: n = %zu", n);
	cub::DeviceSelect::If(NULL, b, thrust::counting_iterator<uint32_t>(0), d_idx, (int *)NULL, (int)n,
	                      nonbit_pred<fr_t>{ (const fr_t *)d_scalars, ones });
	if (align_up(b) + 256 > tmp_size) return zp_err_set(ZP_ERANGE, "nonbits: temp %zu < %zu", tmp_size, align_up(b) + 256);
	int *dcnt = (int *)((char *)d_tmp + align_up(b));
	ZP_CUDA_TRY(cub::DeviceSelect::If(d_tmp, b, thrust::counting_iterator<uint32_t>(0), d_idx, dcnt, (int)n,
	                                  nonbit_pred<fr_t>{ (const fr_t *)d_scalars, ones }, st));
	ZP_CUDA_TRY(cudaMemcpyAsync(&cnt, dcnt, sizeof cnt, cudaMemcpyDeviceToHost, st));
	ZP_CUDA_TRY(cudaStreamSynchronize(st));
	*count = (size_t)cnt;
	return 0;
err:
	return rc;
}
extern "C" int zp_cuda_nonbits(uint32_t *d_idx, size_t *count, const zp_fr *d_scalars, size_t n, void *d_tmp,
                               size_t tmp_size, void *stream)
{
	return select_idx<fr_t>(d_idx, count, d_scalars, n, d_tmp, tmp_size, stream, 0);
}
extern "C" int zp_cuda_ones(uint32_t *d_idx, size_t *count, const zp_fr *d_scalars, size_t n, void *d_tmp,
                            size_t tmp_size, void *stream)
{
	return select_idx<fr_t>(d_idx, count, d_scalars, n, d_tmp, tmp_size, stream, 1);
}

/* ---- a query's density: which of its points are not at infinity ----
 * bits[i / 32] bit i % 32 set = point i is not at infinity (affine: every byte 0); a list filtered by it keeps
 * the entries whose point a sum would really add (bellperson's density, for keys that keep their points at
 * infinity: a synthetic PoRep circuit's AND/XOR/FIELD outputs appear in C only). */
__global__ void nonzero_bits_kernel(uint32_t *bits, const uint4 *pts, size_t n, unsigned words)
{
	size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (w * 32 >= n) return;
	uint32_t m = 0;
	for (unsigned b = 0; b < 32; b++) {
		size_t i = w * 32 + b;
		if (i >= n) break;
		uint32_t acc = 0;
		for (unsigned k = 0; k < words; k++) { uint4 v = pts[i * words + k]; acc |= v.x | v.y | v.z | v.w; }
		m |= (uint32_t)(acc != 0) << b;
	}
	bits[w] = m;
}
struct dens_pred {
	const uint32_t *bits;
	uint32_t off;
	__device__ bool operator()(uint32_t v) const { uint32_t i = v - off; return (bits[i >> 5] >> (i & 31)) & 1; }
};
extern "C" int zp_cuda_nonzero_bits(uint32_t *d_bits, const void *d_pts, size_t n, size_t pt_bytes, void *stream)
{
	int rc = 0;
	if (pt_bytes == 0 || pt_bytes % 16) return zp_err_set(ZP_ERANGE, "density: point size %zu", pt_bytes);
	if (!n) return 0;
	size_t words = (n + 31) / 32;
	nonzero_bits_kernel<<<zp_cdiv(words, 128), 128, 0, (cudaStream_t)stream>>>(d_bits, (const uint4 *)d_pts, n,
	                                                                         (unsigned)(pt_bytes / 16));
	ZP_CUDA_LAUNCHED();
	return 0;
err:
	return rc;
}
extern "C" size_t zp_cuda_filter_temp_size(size_t n)
{
	size_t b = 0;
	cub::DeviceSelect::If(NULL, b, (const uint32_t *)NULL, (uint32_t *)NULL, (int *)NULL, (int)n, dens_pred{ NULL, 0 });
	return align_up(b) + 256;
}
extern "C" int zp_cuda_filter_idx(uint32_t *d_out, size_t *count, const uint32_t *d_in, size_t n, const uint32_t *d_bits,
                                  uint32_t off, void *d_tmp, size_t tmp_size, void *stream)
{
	int rc = 0;
	cudaStream_t st = (cudaStream_t)stream;
	size_t b = 0;
	int cnt = 0;
	*count = 0;
	if (n == 0) return 0;
	if (n >= (1ull << 31)) return zp_err_set(ZP_ERANGE, "density filter: n = %zu", n);
	cub::DeviceSelect::If(NULL, b, d_in, d_out, (int *)NULL, (int)n, dens_pred{ d_bits, off });
	if (align_up(b) + 256 > tmp_size) return zp_err_set(ZP_ERANGE, "density filter: temp %zu < %zu", tmp_size, align_up(b) + 256);
	int *dcnt = (int *)((char *)d_tmp + align_up(b));
	ZP_CUDA_TRY(cub::DeviceSelect::If(d_tmp, b, d_in, d_out, dcnt, (int)n, dens_pred{ d_bits, off }, st));
	ZP_CUDA_TRY(cudaMemcpyAsync(&cnt, dcnt, sizeof cnt, cudaMemcpyDeviceToHost, st));
	ZP_CUDA_TRY(cudaStreamSynchronize(st));
	*count = (size_t)cnt;
	return 0;
err:
	return rc;
}

extern "C" int zp_cuda_msm_g1_sum_idx(zp_cuda_g1_jac *out, const zp_cuda_g1_aff *d_bases, const uint32_t *d_idx,
                                      size_t n, uint32_t idx_off, void *d_scratch, size_t scratch_size, void *stream)
{
	return msm_bits_run<fp_t, fr_t>((jac_t<fp_t> *)out, (const g1_aff *)d_bases, NULL, n, d_scratch, scratch_size, stream, 1,
	                          d_idx, idx_off);
}
extern "C" int zp_cuda_msm_g2_sum_idx(zp_cuda_g2_jac *out, const zp_cuda_g2_aff *d_bases, const uint32_t *d_idx,
                                      size_t n, uint32_t idx_off, void *d_scratch, size_t scratch_size, void *stream)
{
#ifdef MSM_NO_G2
	return zp_err_set(ZP_ERANGE, "built without G2");
#else
	return msm_bits_run<fp2_t, fr_t>((jac_t<fp2_t> *)out, (const g2_aff *)d_bases, NULL, n, d_scratch, scratch_size, stream, 1,
	                           d_idx, idx_off);
#endif
}

static int gather(void *out, const void *table, const uint32_t *idx, size_t n, unsigned bytes, uint32_t off = 0,
                  cudaStream_t st = 0)
{
	int rc = 0;
	unsigned words = bytes / 16;
	if (n == 0) return 0;
	gather_kernel<<<zp_cdiv(n * words, 256), 256, 0, st>>>((uint4 *)out, (const uint4 *)table, idx, n, words, off);
	ZP_CUDA_LAUNCHED();
	return 0;
err:
	return rc;
}
extern "C" int zp_cuda_g1_gather(zp_cuda_g1_aff *o, const zp_cuda_g1_aff *t, const uint32_t *idx, size_t n)
{
	return gather(o, t, idx, n, sizeof(*o));
}
extern "C" int zp_cuda_g2_gather(zp_cuda_g2_aff *o, const zp_cuda_g2_aff *t, const uint32_t *idx, size_t n)
{
	return gather(o, t, idx, n, sizeof(*o));
}
extern "C" int zp_cuda_gather(void *d_out, const void *d_table, size_t elem_bytes, const uint32_t *d_idx, size_t n,
                              uint32_t idx_off, void *stream)
{
	if (elem_bytes == 0 || elem_bytes % 16) return zp_err_set(ZP_ERANGE, "gather: element size %zu", elem_bytes);
	return gather(d_out, d_table, d_idx, n, (unsigned)elem_bytes, idx_off, (cudaStream_t)stream);
}

/* ---- either curve: the generic calls behind zp_cuda_curve (zp_cuda.h) ----
 * The same templates as the BLS12-381 functions above; for bls12_381 they instantiate exactly the
 * kernels those use (no second copy), for bn254 its own. g2 picks the point field. */
template <class Cv> struct msm_curve {
	typedef typename Cv::fp G1F;
	typedef typename Cv::fp2 G2F;
	typedef typename Cv::fr R;
	static size_t pt(int g2) { return g2 ? sizeof(xyzz_t<G2F>) : sizeof(xyzz_t<G1F>); }

	static size_t scratch(int g2, size_t n, unsigned window, unsigned pass_windows)
	{
		plan p;
		if (make_plan(&p, n, window, pass_windows, pt(g2))) return 0;
		return p.total + 1024;
	}
	static unsigned windows(int g2, size_t n, unsigned window)
	{
		plan p;
		if (make_plan(&p, n, window, 0, pt(g2))) return 0;
		return p.W;
	}
	static int msm(int g2, void *out, const void *d_bases, const void *d_sc, size_t n, void *d_scratch, size_t len,
	               const zp_cuda_msm_opts *opts)
	{
		if constexpr (std::is_same<Cv, bls12_381>::value)
			if (!g2)
				return g1_msm_auto((jac_t<fp_t> *)out, (const g1_aff *)d_bases, (const fr_t *)d_sc, n, d_scratch, len,
				                   opts);
		if (g2)
			return msm_run<G2F>((jac_t<G2F> *)out, (const affine_t<G2F> *)d_bases, (const R *)d_sc, n, d_scratch,
			                    len, opts);
		return msm_run<G1F>((jac_t<G1F> *)out, (const affine_t<G1F> *)d_bases, (const R *)d_sc, n, d_scratch, len,
		                    opts);
	}
	static size_t split_scratch(int g2, size_t n, unsigned parts, unsigned window, unsigned pass_windows)
	{
		plan p;
		if (split_check(n, parts) || make_plan(&p, parts * n, window, pass_windows, pt(g2), parts)) return 0;
		return p.total + 1024;
	}
	static int msm_split(int g2, void *out, const void *d_bases, const void *d_sc, size_t n, unsigned parts,
	                     void *d_scratch, size_t len, const zp_cuda_msm_opts *opts)
	{
		int rc = split_check(n, parts);
		if (rc) return rc;
		if (g2)
			return msm_run<G2F>((jac_t<G2F> *)out, (const affine_t<G2F> *)d_bases, (const R *)d_sc, parts * n,
			                    d_scratch, len, opts, parts);
		return msm_run<G1F>((jac_t<G1F> *)out, (const affine_t<G1F> *)d_bases, (const R *)d_sc, parts * n, d_scratch,
		                    len, opts, parts);
	}
	static size_t bits_scratch(int g2, size_t n)
	{
		size_t tasks = (n + MSM_KB - 1) / MSM_KB;
		return 2 * align_up(tasks * pt(g2)) + 512;
	}
	/* masked 0: the strict 0/1 kernel (*_bits), 1: other scalars skipped (*_ones) */
	static int bits(int g2, void *out, const void *d_bases, const void *d_sc, size_t n, void *d_scratch, size_t len,
	                void *stream, int masked)
	{
		if (g2)
			return msm_bits_run<G2F>((jac_t<G2F> *)out, (const affine_t<G2F> *)d_bases, (const R *)d_sc, n, d_scratch,
			                         len, stream, masked);
		return msm_bits_run<G1F>((jac_t<G1F> *)out, (const affine_t<G1F> *)d_bases, (const R *)d_sc, n, d_scratch,
		                         len, stream, masked);
	}
	static int msm_bits(int g2, void *out, const void *b, const void *s, size_t n, void *d_scratch, size_t len,
	                    void *stream)
	{
		return bits(g2, out, b, s, n, d_scratch, len, stream, 0);
	}
	static int msm_ones(int g2, void *out, const void *b, const void *s, size_t n, void *d_scratch, size_t len,
	                    void *stream)
	{
		return bits(g2, out, b, s, n, d_scratch, len, stream, 1);
	}
	static int nonbits(uint32_t *d_idx, size_t *count, const void *d_sc, size_t n, void *d_tmp, size_t tmp_size,
	                   void *stream)
	{
		return select_idx<R>(d_idx, count, d_sc, n, d_tmp, tmp_size, stream, 0);
	}
	static int ones(uint32_t *d_idx, size_t *count, const void *d_sc, size_t n, void *d_tmp, size_t tmp_size,
	                void *stream)
	{
		return select_idx<R>(d_idx, count, d_sc, n, d_tmp, tmp_size, stream, 1);
	}
	static int sum_idx(int g2, void *out, const void *d_bases, const uint32_t *d_idx, size_t n, uint32_t idx_off,
	                   void *d_scratch, size_t len, void *stream)
	{
		if (g2)
			return msm_bits_run<G2F, R>((jac_t<G2F> *)out, (const affine_t<G2F> *)d_bases, NULL, n, d_scratch, len,
			                            stream, 1, d_idx, idx_off);
		return msm_bits_run<G1F, R>((jac_t<G1F> *)out, (const affine_t<G1F> *)d_bases, NULL, n, d_scratch, len,
		                            stream, 1, d_idx, idx_off);
	}
};

/* host: the CPU's Jacobian arithmetic, the chunk sums of zp_cuda_curve_msm_add */
static void bls_jac_set_inf(int g2, void *p) { if (g2) zp_g2_jac_set_inf((zp_g2_jac *)p); else zp_g1_jac_set_inf((zp_g1_jac *)p); }
static void bls_jac_add(int g2, void *acc, const void *b)
{
	if (g2) { zp_g2_jac t; zp_g2_jac_add(&t, (const zp_g2_jac *)acc, (const zp_g2_jac *)b); *(zp_g2_jac *)acc = t; }
	else { zp_g1_jac t; zp_g1_jac_add(&t, (const zp_g1_jac *)acc, (const zp_g1_jac *)b); *(zp_g1_jac *)acc = t; }
}
static void bn_jac_set_inf(int g2, void *p)
{
	if (g2) zp_bn254_g2_jac_set_inf((zp_bn254_g2_jac *)p); else zp_bn254_g1_jac_set_inf((zp_bn254_g1_jac *)p);
}
static void bn_jac_add(int g2, void *acc, const void *b)
{
	if (g2) {
		zp_bn254_g2_jac t;
		zp_bn254_g2_jac_add(&t, (const zp_bn254_g2_jac *)acc, (const zp_bn254_g2_jac *)b);
		*(zp_bn254_g2_jac *)acc = t;
	} else {
		zp_bn254_g1_jac t;
		zp_bn254_g1_jac_add(&t, (const zp_bn254_g1_jac *)acc, (const zp_bn254_g1_jac *)b);
		*(zp_bn254_g1_jac *)acc = t;
	}
}
/* BLS12-381's 0/1 MSMs (zp_cuda.h): the curve table's (masked 1: other scalars skipped); G2 refused in a
 * -DMSM_NO_G2 build, as zp_cuda_msm_g2 does. */
static int bls_bits(int g2, void *out, const void *d_bases, const zp_fr *d_scalars, size_t n, void *d_scratch,
                    size_t scratch_size, void *stream, int masked)
{
#ifdef MSM_NO_G2
	if (g2) return zp_err_set(ZP_ERANGE, "built without G2");
#endif
	return msm_curve<bls12_381>::bits(g2, out, d_bases, d_scalars, n, d_scratch, scratch_size, stream, masked);
}
extern "C" int zp_cuda_msm_g1_bits(zp_cuda_g1_jac *out, const zp_cuda_g1_aff *d_bases, const zp_fr *d_scalars,
                                   size_t n, void *d_scratch, size_t scratch_size, void *stream)
{
	return bls_bits(0, out, d_bases, d_scalars, n, d_scratch, scratch_size, stream, 0);
}
extern "C" int zp_cuda_msm_g2_bits(zp_cuda_g2_jac *out, const zp_cuda_g2_aff *d_bases, const zp_fr *d_scalars,
                                   size_t n, void *d_scratch, size_t scratch_size, void *stream)
{
	return bls_bits(1, out, d_bases, d_scalars, n, d_scratch, scratch_size, stream, 0);
}
extern "C" int zp_cuda_msm_g1_ones(zp_cuda_g1_jac *out, const zp_cuda_g1_aff *d_bases, const zp_fr *d_scalars,
                                   size_t n, void *d_scratch, size_t scratch_size, void *stream)
{
	return bls_bits(0, out, d_bases, d_scalars, n, d_scratch, scratch_size, stream, 1);
}
extern "C" int zp_cuda_msm_g2_ones(zp_cuda_g2_jac *out, const zp_cuda_g2_aff *d_bases, const zp_fr *d_scalars,
                                   size_t n, void *d_scratch, size_t scratch_size, void *stream)
{
	return bls_bits(1, out, d_bases, d_scalars, n, d_scratch, scratch_size, stream, 1);
}

static_assert(sizeof(jac_t<fp_t>) == sizeof(zp_g1_jac) && sizeof(jac_t<fp2_t>) == sizeof(zp_g2_jac), "BLS12-381 jac");
static_assert(sizeof(jac_t<bn_fp_t>) == sizeof(zp_bn254_g1_jac) && sizeof(jac_t<bn_fp2_t>) == sizeof(zp_bn254_g2_jac),
              "BN254 jac");
static_assert(sizeof(affine_t<bn_fp_t>) == sizeof(zp_bn254_g1_affine) &&
              sizeof(affine_t<bn_fp2_t>) == sizeof(zp_bn254_g2_affine), "BN254 affine");
/* the memory plan's view of BN254 (BLS12-381's: zp_cuda_sizes_device, cuda/runtime.c) */
static const zp_cuda_sizes bn_sizes = {
	msm_curve<bn254>::scratch, msm_curve<bn254>::windows, msm_curve<bn254>::split_scratch, zp_cuda_msm_split_windows,
	zp_cuda_bn_split_bases_scratch, msm_curve<bn254>::bits_scratch, zp_cuda_nonbits_temp_size,
	{ sizeof(affine_t<bn_fp_t>), sizeof(affine_t<bn_fp2_t>) } };

#define ZP_CUDA_CURVE_TABLE(cv, ID, NAME, NS, SIZES, HOST)                                                     \
	{ .id = ID, .name = NAME, .fr_bytes = sizeof(cv::fr),                                                   \
	  .aff_bytes = { sizeof(affine_t<cv::fp>), sizeof(affine_t<cv::fp2>) },                                 \
	  .jac_bytes = { sizeof(jac_t<cv::fp>), sizeof(jac_t<cv::fp2>) },                                       \
	  .msm_scratch = msm_curve<cv>::scratch, .msm_windows = msm_curve<cv>::windows, .msm = msm_curve<cv>::msm, \
	  .split_scratch = msm_curve<cv>::split_scratch, .split_windows = zp_cuda_msm_split_windows,             \
	  .split_bases_scratch = NS##_split_bases_scratch, .split_bases = NS##_split_bases,                      \
	  .msm_split = msm_curve<cv>::msm_split, .bits_scratch = msm_curve<cv>::bits_scratch,                    \
	  .msm_bits = msm_curve<cv>::msm_bits, .msm_ones = msm_curve<cv>::msm_ones,                             \
	  .nonbits = msm_curve<cv>::nonbits, .ones = msm_curve<cv>::ones, .msm_sum_idx = msm_curve<cv>::sum_idx, \
	  .elementwise = NS##_elementwise, .ntt_create = NS##_ntt_create, .sizes = SIZES,                         \
	  .jac_set_inf = HOST##_jac_set_inf, .jac_add = HOST##_jac_add }
extern "C" const zp_cuda_curve zp_cuda_curve_bls12_381 =
	ZP_CUDA_CURVE_TABLE(bls12_381, ZP_CURVE_BLS12_381, "bls12-381", zp_cuda_bls, &zp_cuda_sizes_device, bls);
extern "C" const zp_cuda_curve zp_cuda_curve_bn254 =
	ZP_CUDA_CURVE_TABLE(bn254, ZP_CURVE_BN254, "bn254", zp_cuda_bn, &bn_sizes, bn);
extern "C" const zp_cuda_curve *zp_cuda_curve_of(int id)
{
	return id == ZP_CURVE_BLS12_381 ? &zp_cuda_curve_bls12_381 : id == ZP_CURVE_BN254 ? &zp_cuda_curve_bn254 : NULL;
}
