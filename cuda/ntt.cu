/*
 * ntt.cu — radix-2 NTT over Fr, natural order in and out, up to 2^27 on device-resident data.
 *
 * Forward = decimation in frequency (Gentleman–Sande) in passes of up to NTT_K levels: a block
 * loads 2^k elements that differ only in k consecutive index bits into shared memory, runs the k
 * butterfly levels there and writes back, so a 2^27 transform reads and writes device memory
 * three times instead of 27. DIF leaves the output in bit-reversed order; a final in-place pass
 * (tile pairs through shared memory, bitrev_tiles) restores natural order and applies the
 * per-element scale (n^-1, s^-j) of the inverse.
 * The coset scale x_j·s^j of the forward transform is applied as the first pass loads.
 * Roots: either family of ntt.h (5: snarkjs, 7: bellperson/Filecoin), chosen per context.
 * The inverse transform is the forward one with w^-1 (read from the same table: w^-i = -w^(N/2-i)).
 * Twiddles: one table tw[i] = w_N^i, i <= N/2, N = 2^max_log, built once; w_n^j = tw[j·N/n].
 * Powers s^j come from two small tables (s^(j mod 2^14) and c·s^(2^14·floor(j/2^14))), cached in
 * the context (NTT_SLOTS sets, keyed by kind, log_n and s, least recently used replaced): a
 * repeated transform builds nothing; a first build synchronizes its stream once, so a cached set
 * is ready for any stream. Z^-1 of the bellperson H step is cached the same way.
 * Groth16 H (ZP_NTT_H_DIT, default 1): the inverse transform of a, b, c stays in bit-reversed order
 * (DIF passes only) and the coset forward transform is decimation in time (DIT passes), which takes
 * bit-reversed input to natural output; n^-1·s^j is applied as its first pass loads. That drops
 * six bit-reversal passes and 3·n products per H step. ZP_NTT_H_DIT=0 keeps the original order.
 * Block twiddles (ZP_NTT_BLOCK_TW, default 1): in a pass with b0 > 0 a block needs 2^k - 1 distinct
 * twiddles, w^(A + B) with A = low·2^(max_log-b0-m-1) (one per block and level) and
 * B = u·2^(max_log-m-1) (the same for every block, so cache-resident); the block builds them in
 * shared memory first (2^k - 1 products) instead of each butterfly gathering tw[ti] from the 2 GiB
 * table. Passes with b0 = 0 read the table directly (their twiddles are the B set only).
 * Pass tables: a pass with at most 2^19 (low, entry) pairs
 * (at 2^27 the middle pass, 2^9 blocks' worth) keeps every block's twiddles in one device table built
 * on first use (16 MiB at most, L2-resident) instead of 2^k - 1 products a block. Occupancy: the pass
 * kernels take their twiddle set in dynamic shared memory (none when a table or b0 = 0 serves), 6 blocks
 * an SM (<= 40 registers) with the largest shared carveout. Measured 2026-11-29 on the H200: NTT 2^27
 * 50.2 -> 47.9 ms, H step 2^27 377 -> 365 ms (both were switches, ZP_NTT_PASS_TAB / ZP_NTT_OCC, until issue 35).
 * The transforms (issue 22: each was a bit of a mask, NTT_OPT_* / ZP_NTT_OPT, measured side by side in
 * bench/RESULTS.md and all kept; the mask went with issue 35):
 *  SIGMA  cosets without a scale pass. A coset transform is a plain one whose twiddles at global level L
 *         (partners differing in index bit L) are multiplied by sig[L] = s^(2^(log_n-1-L)): DIT from
 *         bit-reversed input evaluates p(s·w^k) by p(z) = E(z^2) + z·O(z^2) at every level, and the DIF
 *         inverse undoes those butterflies with s^-1's factors. The factors ride in the block twiddles (one
 *         product an entry, as before), the pass tables (keyed by s) and a 2^k - 1 table for b0 = 0; the
 *         cost is that no twiddle is trivial (level 0: 1/2 product an element) instead of 2 products an
 *         element for c·s^j from two tables. Coset forward = bit reversal, then DIT; coset inverse = DIF,
 *         then the reversal. H step: per a, b, c the unscaled inverse (DIF) and the DIT coset forward, so
 *         A = n·a; h = (A·B - n·C)·k with k = n^-2 (snarkjs) or Z^-1·n^-3 (bellperson, whose coset inverse
 *         then needs no n^-1 either): 5 products an element of scaling in the whole step instead of 10.
 *  INVC   the inverse's n^-1 as one constant in the reversal (1 product an element instead of 2 + 2 loads).
 *  TWLOAD block twiddles w^(A+B) read from the table (one entry: A + B < N/2) instead of w^A·w^B: the first
 *         pass at 2^24..2^27 drops ~1 product an element; the inverse's b0 = 0 pass reads w^-ti from a
 *         2^k - 1 table instead of negating tw[N/2 - ti] in every butterfly.
 *  BAL    pass sizes as equal as possible (2^24: 8 + 8 + 8 instead of 9 + 9 + 6).
 *  TAB0   the b0 = 0 pass's twiddles from a 2^k - 1 table (see launch_pass).
 *  R4     pass4: 4 elements a thread, two levels between barriers, 6 blocks an SM (<= 80 registers; 8 blocks,
 *         64 registers, spilled and ran slower: bench/RESULTS.md, mask 87); a 1-level pass (log_n = 1) takes
 *         pass2.
 * Removed (issue 35): the H combine fused into c's last DIT pass (HFUSE) measured slower, H step 2^27 301.6
 * against 299.1 ms (H200, 2026-12-02, bench/RESULTS.md "NTT_OPT_HFUSE").
 * tests/cuda/ntt_sigma_model.py checks the index and factor arithmetic against the DFT; ntt_check the
 * transforms against the CPU on the device.
 */
#include "cuda_impl.h"
#include "ff.cuh"
extern "C" {
#include "ntt.h"
#include "bn254_ntt.h"
}

/* The curve-specific part of this file, per Fr (everything else is one template over fr_t):
 * S the 2-adicity of r - 1 (omega_{2^S} the context's top root), the root families, Montgomery one,
 * the bellperson coset generator (NULL: no bellperson H step) and omega_{2^k} from the CPU library. */
template <class fr_t> struct ntt_field;
template <> struct ntt_field<fr_t> {
	static const unsigned S = 32;
	static bool has_roots(int roots) { return roots == 5 || roots == 7; }
	static const uint32_t *root_top(int roots)
	{
		static const uint32_t W5[8] = ZP_C_FR_OMEGA32, W7[8] = ZP_C_FR_OMEGA32_ROOT7;
		return roots == 7 ? W7 : W5;
	}
	static const uint32_t *one() { static const uint32_t O[8] = ZP_C_FR_ONE; return O; }
	static const uint32_t *gen7() { static const uint32_t G[8] = ZP_C_FR_GEN7; return G; }
	static int root(zp_fr *w, unsigned k, int roots) { return zp_ntt_root(w, k, (enum zp_ntt_roots)roots); }
};
template <> struct ntt_field<bn_fr_t> {
	static const unsigned S = 28;
	static bool has_roots(int roots) { return roots == 5; }
	static const uint32_t *root_top(int) { static const uint32_t W[8] = ZP_C_BN_FR_OMEGA28; return W; }
	static const uint32_t *one() { static const uint32_t O[8] = ZP_C_BN_FR_ONE; return O; }
	static const uint32_t *gen7() { return NULL; }
	static int root(zp_fr *w, unsigned k, int) { return zp_bn254_ntt_root((zp_bn254_fr *)w, k); }
};

#define NTT_K 9
#define POW_LO_BITS 14
#define NTT_SLOTS 4
#define NTT_PTABS 12
#define NTT_PTAB_MAX (1u << 19)   /* entries (16 MiB) of one pass table */
#ifndef ZP_NTT_H_DIT
#define ZP_NTT_H_DIT 1
#endif
#ifndef ZP_NTT_BLOCK_TW
#define ZP_NTT_BLOCK_TW 1
#endif
/* ZP_NTT_RADIX_LOG (default 1 = one butterfly a thread between barriers, as validated): R > 1 makes
 * each thread of dif_pass_r / dit_pass_r hold 2^R elements in registers and run R butterfly levels
 * on them between two __syncthreads (blocks of 2^(k-R) threads): a 9-level pass has 3 (R = 3) or 5
 * (R = 2) barriers and shared-memory round trips instead of 9. Same twiddles, same products. */
#ifndef ZP_NTT_RADIX_LOG
#define ZP_NTT_RADIX_LOG 1
#endif

/* scale table kinds: c·s^(±j) */
enum { POW_FWD = 0,      /* s^j           (coset forward) */
       POW_INV = 1,      /* n^-1·s^-j     (inverse, coset inverse) */
       POW_FWD_NINV = 2, /* n^-1·s^j      (H step: unscaled inverse then coset forward) */
       POW_SIG = 3,      /* lo[L] = s^(2^(log_n-1-L)), L < log_n: level factors (SIGMA) */
       POW_SIG_INV = 4   /* the same for s^-1 */ };
template <class fr_t> struct pow_slot {
	fr_t *lo, *hi;
	int valid, kind;
	unsigned log_n;
	fr_t s;
	unsigned long long used;
};

template <class fr_t> struct ntt_ctx {
	unsigned max_log;
	int roots;         /* 5 or 7: the root family (ntt.h's enum zp_ntt_roots) */
	fr_t w32;          /* omega_{2^S} of that family, Montgomery (S = ntt_field<fr_t>::S: 32, BN254 28) */
	fr_t *tw;          /* N/2 + 1 entries */
	struct pow_slot<fr_t> slot[NTT_SLOTS];   /* scale tables: 2^14 entries, 2^(27-14) entries each */
	unsigned long long tick;
	unsigned zinv_log_n;     /* consts[1] holds (g^n - 1)^-1 for this log_n; 0: none */
	fr_t *consts;      /* device: [1] Z inverse, [2 + slot] n^-1 of that slot's table, [6] n^-1 (ninv_log_n),
	                      [7] n, [8] the H combine's factor (hc_*) */
	unsigned ninv_log_n, hc_log_n;
	int hc_mode;
	struct { fr_t *tab; unsigned b0, k; int inverse; int sig; unsigned log_n; fr_t s; unsigned long long used; }
		ptab[NTT_PTABS];   /* pass tables, built on first use; sig: 0 none, else the POW_SIG kind of (s, log_n) */
};

/* ---- small helpers, run by a single thread ---- */
template <class fr_t>
static __device__ fr_t fr_pow_big(fr_t a, const uint32_t e[8])
{
	fr_t r = fr_t::one();
	for (int i = 255; i >= 0; i--) {
		r = r.sqr();
		if ((e[i >> 5] >> (i & 31)) & 1) r = r * a;
	}
	return r;
}
template <class fr_t>
static __device__ fr_t fr_inv(fr_t a)
{
	uint32_t P[8], e[8];
	for (int i = 0; i < 8; i++) e[i] = P[i] = fr_t::cfg::p(i);
	e[0] -= 2;    /* r - 2; r's low limb is 1, so this borrows: fix below */
	if (P[0] < 2) { e[0] = P[0] + 0xfffffffeu; int i = 1; while (e[i] == 0) { e[i] = 0xffffffffu; i++; } e[i]--; }
	return fr_pow_big(a, e);
}
template <class fr_t>
static __device__ fr_t omega(fr_t w, unsigned log_n)
{
	for (unsigned k = ntt_field<fr_t>::S; k > log_n; k--) w = w.sqr();
	return w;
}

template <class fr_t>
__global__ void tw_base(fr_t *lo, fr_t *hi, unsigned max_log, fr_t w32)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	fr_t w = omega(w32, max_log);
	if (i < 1024) lo[i] = w.pow(i);
	if (i < (1u << max_log) / 2 / 1024 + 1) hi[i] = w.pow((uint64_t)i * 1024);
}
template <class fr_t>
__global__ void tw_fill(fr_t *tw, const fr_t *lo, const fr_t *hi, size_t count)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < count) tw[i] = hi[i >> 10] * lo[i & 1023];
}

/* Scale tables for s^j·c: lo[j] = s^j (j < 2^14), hi[k] = c·s^(k·2^14) (s^-1 for s when invert_s). */
template <class fr_t>
static __device__ __forceinline__ void pow_tables_fill(fr_t *lo, fr_t *hi, fr_t s, const fr_t &c, int invert_s,
                                                       unsigned hi_count)
{
	__shared__ fr_t sh_s;
	if (threadIdx.x == 0) sh_s = invert_s ? fr_inv(s) : s;
	__syncthreads();
	fr_t b = sh_s;
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < (1u << POW_LO_BITS)) lo[i] = b.pow(i);
	if (i < hi_count) hi[i] = c * b.pow((uint64_t)i << POW_LO_BITS);
}
template <class fr_t>
__global__ void pow_tables(fr_t *lo, fr_t *hi, fr_t s, fr_t c, int invert_s, unsigned hi_count)
{
	pow_tables_fill(lo, hi, s, c, invert_s, hi_count);
}
/* c·s^j from the tables; c is folded into hi. */
template <class fr_t>
static __device__ __forceinline__ fr_t scale_at(const fr_t *lo, const fr_t *hi, size_t j)
{
	return hi[j >> POW_LO_BITS] * lo[j & ((1u << POW_LO_BITS) - 1)];
}

/* w^(±x) from the table, x <= N/2: w^-x = -w^(N/2-x); x = 0 gives one. */
template <class fr_t>
static __device__ __forceinline__ fr_t tw_at(const fr_t *__restrict__ tw, size_t nhalf_tab, size_t x, int inverse)
{
	if (x == 0) return fr_t::one();
	return inverse ? tw[nhalf_tab - x].neg() : tw[x];
}
/* Entry e of a block's twiddle set (see block_twiddles). A + B < N/2 (A < 2^(max_log-m-1), B <=
 * (2^m - 1)·2^(max_log-m-1)), so w^(A+B) is one table entry: twload (TWLOAD) reads it instead of
 * multiplying w^A·w^B (the same canonical value). sig (SIGMA): times the level's factor
 * sig[b0 + m] (see the header: cosets by level-scaled twiddles). */
template <class fr_t>
static __device__ __forceinline__ fr_t block_tw_entry(const fr_t *__restrict__ tw, unsigned max_log, unsigned b0,
                                                      size_t low, unsigned e, int inverse,
                                                      const fr_t *__restrict__ sig = NULL, int twload = 0)
{
	size_t nhalf_tab = 1ull << (max_log - 1);
	unsigned m = 31 - __clz(e + 1), u = e + 1 - (1u << m);
	size_t A = low << (max_log - b0 - m - 1), B = (size_t)u << (max_log - m - 1);
	if (sig) return tw_at(tw, nhalf_tab, A + B, inverse) * sig[b0 + m];
	if ((twload & 1) || A == 0 || B == 0) return tw_at(tw, nhalf_tab, A + B, inverse);
	return tw_at(tw, nhalf_tab, A, inverse) * tw_at(tw, nhalf_tab, B, inverse);
}
/* This block's twiddles: tws[2^m - 1 + u] = w^(±ti), ti = (low + u·2^b0)·2^(max_log-b0-m-1), u < 2^m,
 * m < k, as w^A·w^B (see the header). All threads of the block take part; sync before use. */
template <class fr_t>
static __device__ __forceinline__ void block_twiddles(fr_t *tws, const fr_t *__restrict__ tw, unsigned max_log,
                                                      unsigned b0, unsigned k, size_t low, int inverse,
                                                      const fr_t *__restrict__ sig = NULL, int twload = 0)
{
	for (unsigned e = threadIdx.x; e < (1u << k) - 1; e += blockDim.x)
		tws[e] = block_tw_entry(tw, max_log, b0, low, e, inverse, sig, twload);
}
/* Pass table: every block's twiddles of a pass with few distinct `low` (2^b0 of them)
 * built once into device memory, tab[low·(2^k - 1) + e]; the pass reads its row (L2-resident)
 * instead of building it (2^k - 1 products a block). */
template <class fr_t>
__global__ void pass_tab_build(fr_t *tab, const fr_t *__restrict__ tw, unsigned max_log, unsigned b0, unsigned k,
                               int inverse, const fr_t *__restrict__ sig)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x, per = (1u << k) - 1;
	if (i >= (per << b0)) return;
	tab[i] = block_tw_entry(tw, max_log, b0, i / per, (unsigned)(i % per), inverse, sig);
}

/* The pieces the pass kernels (pass2, pass_r, pass4) share. The block's first element
 * index; *low: its low index bits (b0 of them: the twiddles' `low`). */
static __device__ __forceinline__ size_t pass_base(unsigned b0, unsigned k, size_t *low)
{
	size_t g = blockIdx.x;
	*low = g & ((1ull << b0) - 1);
	size_t high = g >> b0;
	return (high << (b0 + k)) | *low;
}
/* The block's twiddle row (read when btw): a pass table's (ptab), else tws_dyn, built here. */
template <class fr_t>
static __device__ __forceinline__ const fr_t *pass_tws(bool btw, fr_t *tws_dyn, const fr_t *ptab, const fr_t *__restrict__ tw,
                                                       unsigned max_log, unsigned b0, unsigned k, size_t low, int inverse,
                                                       const fr_t *__restrict__ sig, int twload)
{
	const fr_t *tws = ptab ? ptab + low * ((1u << k) - 1) : tws_dyn;
	if (btw && !ptab) block_twiddles(tws_dyn, tw, max_log, b0, k, low, inverse, sig, twload);
	return tws;
}
/* The block's 2^k elements into shared memory (nt threads, this one's first element t0), each scaled by
 * c·s^j on the way when plo (j = idx; DIT: bitrev(idx), the coefficient index); then a barrier. (t0 from
 * the caller: a threadIdx.x read here gave pass_r and pass4 other machine code, nvcc 13, sm_90.) */
template <bool DIT, class fr_t>
static __device__ __forceinline__ void pass_load(fr_t *s, const fr_t *x, size_t base, unsigned b0, unsigned k, unsigned t0,
                                                 unsigned nt, unsigned log_n, const fr_t *__restrict__ plo,
                                                 const fr_t *__restrict__ phi)
{
	for (unsigned t = t0; t < (1u << k); t += nt) {
		size_t idx = base + ((size_t)t << b0);
		fr_t v = x[idx];
		if (plo) v = v * scale_at(plo, phi, DIT ? __brevll(idx) >> (64 - log_n) : idx);
		s[t] = v;
	}
	__syncthreads();
}
/* And back. */
template <class fr_t>
static __device__ __forceinline__ void pass_store(fr_t *x, const fr_t *s, size_t base, unsigned b0, unsigned k, unsigned nt)
{
	for (unsigned t = threadIdx.x; t < (1u << k); t += nt)
		x[base + ((size_t)t << b0)] = s[t];
}

/* Level m of a 2-element pass (thread q: one butterfly), then a barrier. DIF: (a + b, (a - b)·w); DIT:
 * (a + b·w, a - b·w). */
template <bool DIT, bool SIG, class fr_t>
static __device__ __forceinline__ void pass2_level(fr_t *s, unsigned q, int m, size_t low, unsigned b0, unsigned max_log,
                                                   bool btw, const fr_t *tws, const fr_t *__restrict__ tw, int inverse,
                                                   size_t nhalf_tab)
{
	unsigned t1 = ((q >> m) << (m + 1)) | (q & ((1u << m) - 1)), t2 = t1 + (1u << m);
	size_t j = low + ((size_t)(t1 & ((1u << m) - 1)) << b0);
	size_t ti = j << (max_log - b0 - m - 1);
	fr_t a = s[t1], b = s[t2];
	if (!DIT) s[t1] = a + b;
	fr_t d = DIT ? b : a - b;
	if (ti != 0 || SIG) {
		fr_t w = btw ? tws[(1u << m) - 1 + (t1 & ((1u << m) - 1))]
		             : inverse ? tw[nhalf_tab - ti].neg() : tw[ti];
		d = d * w;
	}
	if (DIT) {
		s[t1] = a + d;
		s[t2] = a - d;
	} else {
		s[t2] = d;
	}
	__syncthreads();
}
/* One pass over index bits [b0, b0+k), 2 elements a thread. DIF (levels descending): natural input,
 * bit-reversed output once every pass ran. DIT (levels ascending, b0 rising from 0): bit-reversed input,
 * natural output; with plo, element idx is first scaled by c·s^j, j = bitrev(idx) (its coefficient
 * index). Both: the same block layout and twiddle index. tw_shift = max_log - log_n. */
template <int MINB, bool DIT, bool SIG, class fr_t>
__global__ void __launch_bounds__(1 << (NTT_K - 1), MINB)
pass2(fr_t *x, const fr_t *__restrict__ tw, unsigned max_log, unsigned log_n, unsigned b0,
      unsigned k, int inverse, const fr_t *__restrict__ plo, const fr_t *__restrict__ phi, const fr_t *ptab,
      const fr_t *__restrict__ sig, int twload)
{
	__shared__ fr_t s[1 << NTT_K];
	extern __shared__ uint4 tws_raw[];  /* one untyped declaration for every fr_t (CUDA needs that) */
	fr_t *tws_dyn = (fr_t *)tws_raw;    /* 2^k - 1 entries when the block builds its twiddles, else none */
	size_t low, base = pass_base(b0, k, &low);
	unsigned half = 1u << (k - 1), q = threadIdx.x;
	if (!SIG) sig = NULL;   /* a compile-time NULL: the plain kernels keep their registers */
	const bool btw = ZP_NTT_BLOCK_TW && (b0 > 0 || SIG || (twload & 2));
	const fr_t *tws = pass_tws(btw, tws_dyn, ptab, tw, max_log, b0, k, low, inverse, sig, twload);
	pass_load<DIT>(s, x, base, b0, k, q, half, log_n, plo, phi);
	size_t nhalf_tab = 1ull << (max_log - 1);
	if (DIT)
		for (int m = 0; m < (int)k; m++)
			pass2_level<true, SIG>(s, q, m, low, b0, max_log, btw, tws, tw, inverse, nhalf_tab);
	else
		for (int m = k - 1; m >= 0; m--)
			pass2_level<false, SIG>(s, q, m, low, b0, max_log, btw, tws, tw, inverse, nhalf_tab);
	pass_store(x, s, base, b0, k, half);
}

/* ---- ZP_NTT_RADIX_LOG > 1: R levels a barrier ---- */
/* Twiddle of the butterfly at level l whose first element index has low bits u (u < 2^l). */
template <bool SIG = false, class fr_t>
static __device__ __forceinline__ fr_t pass_tw(bool btw, const fr_t *tws, const fr_t *__restrict__ tw, unsigned max_log,
                                               size_t low, unsigned b0, unsigned l, unsigned u, int inverse, bool *one)
{
	size_t j = low + ((size_t)u << b0);
	size_t ti = j << (max_log - b0 - l - 1);
	*one = !SIG && ti == 0;   /* SIG: every twiddle carries its level's factor (tws; btw is set) */
	if (*one) return fr_t::one();
	if (btw) return tws[(1u << l) - 1 + u];
	size_t nhalf_tab = 1ull << (max_log - 1);
	return inverse ? tw[nhalf_tab - ti].neg() : tw[ti];
}
/* Levels [lo, lo + r) over the 2^r elements t + i·2^lo (t has zero bits lo..lo+r-1), in registers.
 * DIF: levels descending, d = (a - b)·w; DIT: ascending, b·w first. */
template <int r, bool DIT, bool SIG = false, class fr_t>
static __device__ __forceinline__ void pass_group(fr_t *s, const fr_t *tws, const fr_t *__restrict__ tw, unsigned max_log,
                                                  size_t low, unsigned b0, unsigned lo, unsigned t, int inverse, bool btw)
{
	fr_t e[1 << r];
	ZP_UNROLL for (int i = 0; i < (1 << r); i++) e[i] = s[t + ((unsigned)i << lo)];
	ZP_UNROLL for (int step = 0; step < r; step++) {
		const int rr = DIT ? step : r - 1 - step;
		ZP_UNROLL for (int i = 0; i < (1 << r); i++) {
			if (i & (1 << rr)) continue;
			const int i2 = i + (1 << rr);
			unsigned u = (t & ((1u << lo) - 1)) + ((unsigned)(i & ((1 << rr) - 1)) << lo);
			bool one;
			fr_t w = pass_tw<SIG>(btw, tws, tw, max_log, low, b0, lo + rr, u, inverse, &one);
			fr_t a = e[i], b = e[i2];
			if (DIT) {
				if (!one) b = b * w;
				e[i] = a + b;
				e[i2] = a - b;
			} else {
				e[i] = a + b;
				fr_t d = a - b;
				e[i2] = one ? d : d * w;
			}
		}
	}
	ZP_UNROLL for (int i = 0; i < (1 << r); i++) s[t + ((unsigned)i << lo)] = e[i];
}
template <bool DIT, bool SIG = false, class fr_t>
static __device__ __forceinline__ void pass_levels(fr_t *s, const fr_t *tws, const fr_t *__restrict__ tw, unsigned max_log,
                                                   size_t low, unsigned b0, unsigned k, unsigned Rk, int inverse, bool btw)
{
	unsigned q = threadIdx.x;
	for (unsigned done = 0; done < k;) {
		unsigned r = k - done < Rk ? k - done : Rk;
		unsigned lo = DIT ? done : k - done - r;
		unsigned G = 1u << (Rk - r);   /* groups of 2^r elements a thread (r < Rk only in the last step) */
		for (unsigned g = 0; g < G; g++) {
			unsigned sg = q * G + g;
			unsigned t = ((sg >> lo) << (lo + r)) | (sg & ((1u << lo) - 1));
			switch (r) {
			case 1: pass_group<1, DIT, SIG>(s, tws, tw, max_log, low, b0, lo, t, inverse, btw); break;
			case 2: pass_group<2, DIT, SIG>(s, tws, tw, max_log, low, b0, lo, t, inverse, btw); break;
#if ZP_NTT_RADIX_LOG >= 3
			case 3: pass_group<3, DIT, SIG>(s, tws, tw, max_log, low, b0, lo, t, inverse, btw); break;
#endif
			}
		}
		__syncthreads();
		done += r;
	}
}
/* pass2 with blockDim.x = 2^(k - Rk), Rk = min(ZP_NTT_RADIX_LOG, k). */
template <bool DIT, class fr_t>
__global__ void __launch_bounds__(1 << (NTT_K - 1))
pass_r(fr_t *x, const fr_t *__restrict__ tw, unsigned max_log, unsigned log_n, unsigned b0,
       unsigned k, int inverse, const fr_t *__restrict__ plo, const fr_t *__restrict__ phi)
{
	__shared__ fr_t s[1 << NTT_K];
	__shared__ fr_t tws[ZP_NTT_BLOCK_TW ? (1 << NTT_K) - 1 : 1];
	size_t low, base = pass_base(b0, k, &low);
	unsigned nt = blockDim.x, Rk = k - (31 - __clz(nt));
	const bool btw = ZP_NTT_BLOCK_TW && b0 > 0;
	if (btw) block_twiddles(tws, tw, max_log, b0, k, low, inverse);
	pass_load<DIT>(s, x, base, b0, k, threadIdx.x, nt, log_n, plo, phi);
	pass_levels<DIT>(s, tws, tw, max_log, low, b0, k, Rk, inverse, btw);
	pass_store(x, s, base, b0, k, nt);
}
/* R4: the pass as pass2 (same twiddles: pass tables, block twiddles in dynamic shared
 * memory, level factors, scale on load), but each thread holds 4 elements in registers and runs two levels
 * between barriers (pass_levels with Rk = 2; an odd k ends with two radix-2 butterflies a thread): half the
 * barriers and shared-memory round trips, two independent products in flight a thread. blockDim 2^(k-2). */
template <int MINB, bool DIT, bool SIG, class fr_t>
__global__ void __launch_bounds__(1 << (NTT_K - 2), MINB)
pass4(fr_t *x, const fr_t *__restrict__ tw, unsigned max_log, unsigned log_n, unsigned b0, unsigned k, int inverse,
      const fr_t *__restrict__ plo, const fr_t *__restrict__ phi, const fr_t *ptab, const fr_t *__restrict__ sig,
      int twload)
{
	__shared__ fr_t s[1 << NTT_K];
	extern __shared__ uint4 tws_raw[];
	fr_t *tws_dyn = (fr_t *)tws_raw;
	if (!SIG) sig = NULL;
	size_t low, base = pass_base(b0, k, &low);
	unsigned nt = blockDim.x;
	const bool btw = ZP_NTT_BLOCK_TW && (b0 > 0 || SIG || (twload & 2));
	const fr_t *tws = pass_tws(btw, tws_dyn, ptab, tw, max_log, b0, k, low, inverse, sig, twload);
	pass_load<DIT>(s, x, base, b0, k, threadIdx.x, nt, log_n, plo, phi);
	pass_levels<DIT, SIG>(s, tws, tw, max_log, low, b0, k, 2, inverse, btw);
	pass_store(x, s, base, b0, k, nt);
}
static unsigned pass_threads(unsigned k)
{
	unsigned R = ZP_NTT_RADIX_LOG < k ? ZP_NTT_RADIX_LOG : k;
	return 1u << (k - R);
}

/* Bit-reversal permutation in place, with optional per-element scale c·s^j (j = output index). */
template <class fr_t>
__global__ void bitrev_scale(fr_t *x, unsigned log_n, const fr_t *plo, const fr_t *phi, const fr_t *cmul)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >> log_n) return;
	size_t r = __brevll(i) >> (64 - log_n);
	if (i > r) return;
	fr_t a = x[i], b = x[r];
	if (plo) { b = b * scale_at(plo, phi, i); if (i != r) a = a * scale_at(plo, phi, r); }
	if (cmul) { fr_t c = cmul[0]; b = b * c; a = a * c; }
	x[i] = b;
	if (i != r) x[r] = a;
}

/* The same permutation by tiles (log_n >= 2·BR_H): i = (hi: BR_H bits | mid | lo: BR_H bits) goes to
 * (rev lo | rev mid | rev hi), so the 2^(2·BR_H) elements of mid value M all go to mid value M' = rev(M):
 * a block takes the tile pair (M, M') (M <= M'; the block of M > M' has nothing to do), reads both into
 * shared memory in runs of 2^BR_H consecutive elements (512 bytes) and writes them back swapped, in the
 * same runs. In place, every read of the pair before any write; the bit-at-a-time kernel above scatters
 * 32-byte accesses and waits on DRAM (6.1 ms at 2^27, ncu). */
#define BR_H 4
template <class fr_t>
__global__ void __launch_bounds__(1 << (2 * BR_H))
bitrev_tiles(fr_t *x, unsigned log_n, const fr_t *plo, const fr_t *phi, const fr_t *cmul)
{
	__shared__ fr_t A[1 << BR_H][(1 << BR_H) + 1], B[1 << BR_H][(1 << BR_H) + 1];
	const unsigned mbits = log_n - 2 * BR_H, t = threadIdx.x;
	size_t M = blockIdx.x, M2 = mbits ? __brevll(M) >> (64 - mbits) : 0;
	if (M > M2) return;
	unsigned hi = t >> BR_H, lo = t & ((1u << BR_H) - 1);
	unsigned rhi = __brev(hi) >> (32 - BR_H), rlo = __brev(lo) >> (32 - BR_H);
	size_t ia = ((size_t)hi << (log_n - BR_H)) | (M << BR_H) | lo;
	size_t ib = ((size_t)hi << (log_n - BR_H)) | (M2 << BR_H) | lo;
	A[hi][lo] = x[ia];
	if (M2 != M) B[hi][lo] = x[ib];
	__syncthreads();
	/* tile M2 at (hi, lo) receives tile M's (rev lo, rev hi); tile M the other way */
	fr_t va = A[rlo][rhi];
	if (plo) va = va * scale_at(plo, phi, ib);
	if (cmul) va = va * cmul[0];
	x[ib] = va;
	if (M2 != M) {
		fr_t vb = B[rlo][rhi];
		if (plo) vb = vb * scale_at(plo, phi, ia);
		if (cmul) vb = vb * cmul[0];
		x[ia] = vb;
	}
}
/* Natural order from bit-reversed (with the optional scale): tiles where the size allows (the swap
 * kernel was the only one until 2026-11-29, ZP_NTT_BITREV_TILES=0 until issue 35: bench/RESULTS.md). */
template <class fr_t>
static void launch_bitrev(fr_t *x, unsigned log_n, const fr_t *plo, const fr_t *phi, cudaStream_t st,
                          const fr_t *cmul = NULL)
{
	if (log_n >= 2 * BR_H)
		bitrev_tiles<<<(unsigned)(1ull << (log_n - 2 * BR_H)), 1 << (2 * BR_H), 0, st>>>(x, log_n, plo, phi, cmul);
	else
		bitrev_scale<<<zp_cdiv(1ull << log_n, 256), 256, 0, st>>>(x, log_n, plo, phi, cmul);
}

template <class fr_t> static fr_t host_fr(const uint32_t *l) { fr_t r; memcpy(r.l, l, sizeof(r.l)); return r; }

template <class fr_t> static void ntt_destroy(ntt_ctx<fr_t> *c);
template <class fr_t> static int ntt_create(ntt_ctx<fr_t> **out, unsigned max_log, int roots)
{
	int rc = 0;
	ntt_ctx<fr_t> *c = (ntt_ctx<fr_t> *)calloc(1, sizeof(*c));
	fr_t *lo = NULL, *hi = NULL;
	if (!c) return -ENOMEM;
	if (max_log < 1 || max_log > 27 || !ntt_field<fr_t>::has_roots(roots)) {
		free(c);
		return zp_err_set(ZP_ERANGE, "ntt: max_log %u, roots %d", max_log, roots);
	}
	c->max_log = max_log;
	c->roots = roots;
	c->w32 = host_fr<fr_t>(ntt_field<fr_t>::root_top(roots));
	size_t cnt = (1ull << max_log) / 2 + 1, hic = cnt / 1024 + 2;
	ZP_CUDA_TRY(cudaMalloc(&c->tw, cnt * sizeof(fr_t)));
	for (int i = 0; i < NTT_SLOTS; i++) {
		ZP_CUDA_TRY(cudaMalloc(&c->slot[i].lo, (1u << POW_LO_BITS) * sizeof(fr_t)));
		ZP_CUDA_TRY(cudaMalloc(&c->slot[i].hi, (1u << (27 - POW_LO_BITS)) * sizeof(fr_t)));
	}
	ZP_CUDA_TRY(cudaMalloc(&c->consts, 16 * sizeof(fr_t)));
	ZP_CUDA_TRY(cudaMalloc(&lo, 1024 * sizeof(fr_t)));
	ZP_CUDA_TRY(cudaMalloc(&hi, hic * sizeof(fr_t)));
	tw_base<<<zp_cdiv(hic > 1024 ? hic : 1024, 256), 256>>>(lo, hi, max_log, c->w32);
	ZP_CUDA_LAUNCHED();
	tw_fill<<<zp_cdiv(cnt, 256), 256>>>(c->tw, lo, hi, cnt);
	ZP_CUDA_LAUNCHED();
	ZP_CUDA_TRY(cudaDeviceSynchronize());
	cudaFree(lo);
	cudaFree(hi);
	*out = c;
	return 0;
err:
	cudaFree(lo);
	cudaFree(hi);
	ntt_destroy(c);
	return rc;
}

template <class fr_t> static void ntt_destroy(ntt_ctx<fr_t> *c)
{
	if (!c) return;
	cudaFree(c->tw);
	for (int i = 0; i < NTT_SLOTS; i++) {
		cudaFree(c->slot[i].lo);
		cudaFree(c->slot[i].hi);
	}
	cudaFree(c->consts);
	for (int i = 0; i < NTT_PTABS; i++) cudaFree(c->ptab[i].tab);
	free(c);
}

/* n = 2^log_n in the field. */
template <class fr_t> static __device__ __forceinline__ fr_t fr_pow2(unsigned log_n)
{
	fr_t n = fr_t::one();
	for (unsigned i = 0; i < log_n; i++) n = n.dbl();
	return n;
}
/* out[0] = n^-1 (a scale table's c, INVC's constant): on the device, from n's Montgomery form. */
template <class fr_t>
__global__ void inv_n_kernel(fr_t *out, unsigned log_n)
{
	out[0] = fr_inv(fr_pow2<fr_t>(log_n));
}
/* The same with c read from device memory (inv_n_kernel's n^-1). */
template <class fr_t>
__global__ void pow_tables_dev_c(fr_t *lo, fr_t *hi, fr_t s, const fr_t *c, int invert_s, unsigned hi_count)
{
	pow_tables_fill(lo, hi, s, c[0], invert_s, hi_count);
}

/* Level factors: lo[L] = v^(2^(log_n-1-L)), v = s or s^-1 (POW_SIG, POW_SIG_INV). */
template <class fr_t>
__global__ void sig_build(fr_t *lo, fr_t s, int invert, unsigned log_n)
{
	fr_t v = invert ? fr_inv(s) : s;
	for (int L = (int)log_n - 1; L >= 0; L--) {
		lo[L] = v;
		v = v.sqr();
	}
}
/* The SIGMA H combine's constants: out[0] = n, out[1] = n^-2 (snarkjs) or (g^n - 1)^-1·n^-3
 * (bellperson: the Z^-1 and the final inverse's n^-1 folded in), for h = (A·B - n·C)·out[1] where A, B, C
 * are the coset transforms of the unscaled inverses (n·a, n·b, n·c). */
template <class fr_t>
__global__ void hconst_kernel(fr_t *out, fr_t g, unsigned log_n, int bellperson)
{
	fr_t n = fr_pow2<fr_t>(log_n);
	fr_t ni = fr_inv(n);
	fr_t k = ni * ni;
	if (bellperson) {
		fr_t t = g;
		for (unsigned i = 0; i < log_n; i++) t = t.sqr();
		k = k * ni * fr_inv(t - fr_t::one());
	}
	out[0] = n;
	out[1] = k;
}
/* The pass table of (b0, k, inverse[, level factors sig of kind sigk for (s, log_n)]), built (and the stream
 * synchronized) on first use, the least recently used one replaced when all are taken; NULL when off, not
 * needed (b0 = 0 without factors), or too large. */
template <class fr_t>
static int get_ptab(ntt_ctx<fr_t> *c, unsigned b0, unsigned k, int inverse, const fr_t *sig, int sigk, const fr_t *sv,
                    unsigned log_n, int inv0, cudaStream_t st, const fr_t **out)
{
	int rc = 0, pick = -1;
	size_t cnt = (size_t)((1u << k) - 1) << b0;
	*out = NULL;
	if (!ZP_NTT_BLOCK_TW || (b0 == 0 && !sig && !inv0) || cnt > NTT_PTAB_MAX) return 0;
	if (!sig) log_n = 0;
	for (int i = 0; i < NTT_PTABS; i++) {
		if (c->ptab[i].tab && c->ptab[i].b0 == b0 && c->ptab[i].k == k && c->ptab[i].inverse == inverse &&
		    c->ptab[i].sig == (sig ? sigk : 0) && c->ptab[i].log_n == log_n &&
		    (!sig || !memcmp(c->ptab[i].s.l, sv->l, sizeof sv->l))) {
			c->ptab[i].used = ++c->tick;
			*out = c->ptab[i].tab;
			return 0;
		}
		if (pick < 0 || !c->ptab[i].tab || (c->ptab[pick].tab && c->ptab[i].used < c->ptab[pick].used)) pick = i;
	}
	if (c->ptab[pick].tab) { cudaFree(c->ptab[pick].tab); c->ptab[pick].tab = NULL; }
	ZP_CUDA_TRY(cudaMalloc(&c->ptab[pick].tab, cnt * sizeof(fr_t)));
	pass_tab_build<<<zp_cdiv(cnt, 256), 256, 0, st>>>(c->ptab[pick].tab, c->tw, c->max_log, b0, k, inverse, sig);
	ZP_CUDA_LAUNCHED();
	ZP_CUDA_TRY(cudaStreamSynchronize(st));
	c->ptab[pick].b0 = b0; c->ptab[pick].k = k; c->ptab[pick].inverse = inverse;
	c->ptab[pick].sig = sig ? sigk : 0; c->ptab[pick].log_n = log_n;
	if (sig) c->ptab[pick].s = *sv;
	c->ptab[pick].used = ++c->tick;
	*out = c->ptab[pick].tab;
	return 0;
err:
	return rc;
}
/* Level factors of a SIGMA transform (the pass kernels' sig): which kind, for which s. */
template <class fr_t> struct sig_ref {
	const fr_t *d = NULL;   /* device: d[L], L < log_n; NULL: none */
	int kind = 0;
	fr_t s;
};
/* One DIF or DIT pass: 6 blocks an SM, the most shared memory, pass table or twiddles built in dynamic
 * shared memory; pass4 (R4) from k = 2. */
template <class fr_t>
static int launch_pass(ntt_ctx<fr_t> *c, bool dit, fr_t *x, unsigned log_n, unsigned b0, unsigned k, int inverse,
                       const fr_t *plo, const fr_t *phi, const sig_ref<fr_t> &sg, cudaStream_t st)
{
	int rc = 0;
	const fr_t *pt = NULL, *sig = sg.d;
	/* the kernels' twload: bit 0 TWLOAD (block twiddles w^(A+B) loaded), bit 1 TAB0 (the b0 = 0
	 * pass reads w^(+-ti) from a 2^k - 1 table, contiguous and L1-resident, instead of the strided big table;
	 * the inverse then negates nothing) */
	int tab0 = b0 == 0;
	int twload = 1 | (tab0 ? 2 : 0);
	if ((rc = get_ptab(c, b0, k, inverse, sig, sg.kind, &sg.s, log_n, tab0, st, &pt))) return rc;
	size_t shm = ZP_NTT_BLOCK_TW && (b0 > 0 || sig || tab0) && !pt ? ((1u << k) - 1) * sizeof(fr_t) : 0;
	typedef void (*pass_kernel)(fr_t *, const fr_t *, unsigned, unsigned, unsigned, unsigned, int, const fr_t *,
	                            const fr_t *, const fr_t *, const fr_t *, int);
	static pass_kernel const kern[2][2][2] = {   /* [R4][dit][sig] */
		{ { pass2<6, false, false, fr_t>, pass2<6, false, true, fr_t> },
		  { pass2<6, true, false, fr_t>, pass2<6, true, true, fr_t> } },
		{ { pass4<6, false, false, fr_t>, pass4<6, false, true, fr_t> },
		  { pass4<6, true, false, fr_t>, pass4<6, true, true, fr_t> } } };
	static int carve;
	if (!carve) {
		for (int i = 0; i < 8; i++)
			cudaFuncSetAttribute(kern[i >> 2][(i >> 1) & 1][i & 1], cudaFuncAttributePreferredSharedMemoryCarveout, 100);
		carve = 1;
	}
	const int r4 = k >= 2;
	dim3 grid((unsigned)(1ull << (log_n - k))), block(1u << (k - 1 - r4));
	kern[r4][dit][sig != NULL]<<<grid, block, shm, st>>>(x, c->tw, c->max_log, log_n, b0, k, inverse, plo, phi, pt,
	                                                    sig, twload);
	ZP_CUDA_LAUNCHED();
	return 0;
err:
	return rc;
}

/* Pass sizes (BAL): the fewest passes of at most NTT_K levels, sizes as equal as possible (2^24: 8 + 8 + 8
 * instead of 9 + 9 + 6). ks[i]: pass i's levels counted from the top (DIF order); returns the count. */
static int pass_sizes(unsigned log_n, unsigned ks[8])
{
	int np = (int)((log_n + NTT_K - 1) / NTT_K);
	for (int i = 0; i < np; i++)
		ks[i] = log_n / np + ((unsigned)i < log_n % np);
	return np;
}
/* All passes: DIF (natural in, bit-reversed out; plo/phi: scale c·s^idx as the first pass loads) from the top
 * level down, or DIT (bit-reversed in, natural out; c·s^bitrev(idx)) from the bottom up, the first pass taking
 * ks[0] either way (the original order); sg: level factors. */
template <class fr_t>
static int ntt_passes(ntt_ctx<fr_t> *c, bool dit, fr_t *x, unsigned log_n, int inverse, const fr_t *plo,
                      const fr_t *phi, cudaStream_t st, const sig_ref<fr_t> &sg = sig_ref<fr_t>())
{
	int rc = 0;
	unsigned ks[8];
	int np = pass_sizes(log_n, ks);
	unsigned b0 = dit ? 0 : log_n;
	for (int i = 0; i < np; i++) {
		unsigned k = ks[i];
		if (!dit)
			b0 -= k;
		if (ZP_NTT_RADIX_LOG > 1)
			(dit ? pass_r<true, fr_t> : pass_r<false, fr_t>)<<<(unsigned)(1ull << (log_n - k)), pass_threads(k), 0, st>>>(
				x, c->tw, c->max_log, log_n, b0, k, inverse, plo, phi);
		else if ((rc = launch_pass(c, dit, x, log_n, b0, k, inverse, plo, phi, sg, st)))
			return rc;
		ZP_CUDA_LAUNCHED();
		plo = phi = NULL;
		if (dit)
			b0 += k;
	}
	return 0;
err:
	return rc;
}

/* The scale tables c·s^(±j) of `kind` for log_n, built (and the stream synchronized) unless cached. */
template <class fr_t>
static int get_pow(ntt_ctx<fr_t> *c, int kind, fr_t s, unsigned log_n, cudaStream_t st,
                   const fr_t **plo, const fr_t **phi)
{
	int rc = 0, pick = 0;
	for (int i = 0; i < NTT_SLOTS; i++) {
		struct pow_slot<fr_t> *e = &c->slot[i];
		if (e->valid && e->kind == kind && e->log_n == log_n && !memcmp(e->s.l, s.l, sizeof s.l)) {
			e->used = ++c->tick;
			*plo = e->lo; *phi = e->hi;
			return 0;
		}
		if (!e->valid || (c->slot[pick].valid && e->used < c->slot[pick].used)) pick = i;
	}
	struct pow_slot<fr_t> *e = &c->slot[pick];
	e->valid = 0;
	unsigned hic = log_n > POW_LO_BITS ? 1u << (log_n - POW_LO_BITS) : 1;
	unsigned th = (1u << POW_LO_BITS) > hic ? (1u << POW_LO_BITS) : hic;
	if (kind == POW_SIG || kind == POW_SIG_INV) {
		sig_build<<<1, 1, 0, st>>>(e->lo, s, kind == POW_SIG_INV, log_n);
		ZP_CUDA_LAUNCHED();
	} else if (kind == POW_FWD) {
		fr_t one = host_fr<fr_t>(ntt_field<fr_t>::one());
		pow_tables<<<zp_cdiv(th, 256), 256, 0, st>>>(e->lo, e->hi, s, one, 0, hic);
		ZP_CUDA_LAUNCHED();
	} else {
		inv_n_kernel<<<1, 1, 0, st>>>(c->consts + 2 + pick, log_n);
		ZP_CUDA_LAUNCHED();
		pow_tables_dev_c<<<zp_cdiv(th, 256), 256, 0, st>>>(e->lo, e->hi, s, c->consts + 2 + pick,
		                                                   kind == POW_INV, hic);
		ZP_CUDA_LAUNCHED();
	}
	ZP_CUDA_TRY(cudaStreamSynchronize(st));
	e->valid = 1; e->kind = kind; e->log_n = log_n; e->s = s; e->used = ++c->tick;
	*plo = e->lo; *phi = e->hi;
	return 0;
err:
	return rc;
}

/* n^-1 on the device (consts[6]) for log_n, computed once per log_n. */
template <class fr_t>
static int get_ninv(ntt_ctx<fr_t> *c, unsigned log_n, cudaStream_t st, const fr_t **out)
{
	int rc = 0;
	if (c->ninv_log_n != log_n) {
		c->ninv_log_n = 0;
		inv_n_kernel<<<1, 1, 0, st>>>(c->consts + 6, log_n);
		ZP_CUDA_LAUNCHED();
		ZP_CUDA_TRY(cudaStreamSynchronize(st));
		c->ninv_log_n = log_n;
	}
	*out = c->consts + 6;
	return 0;
err:
	return rc;
}
template <class fr_t>
static int get_sig(ntt_ctx<fr_t> *c, int kind, fr_t s, unsigned log_n, cudaStream_t st, sig_ref<fr_t> *out)
{
	const fr_t *lo, *hi;
	int rc = get_pow(c, kind, s, log_n, st, &lo, &hi);
	if (rc) return rc;
	out->d = lo; out->kind = kind; out->s = s;
	return 0;
}

template <class fr_t>
static int ntt_run(ntt_ctx<fr_t> *c, zp_fr *d_x, unsigned log_n, int inverse, const zp_fr *shift, void *stream)
{
	int rc = 0;
	cudaStream_t st = (cudaStream_t)stream;
	fr_t *x = (fr_t *)d_x;
	if (log_n > c->max_log || log_n < 1)
		return zp_err_set(ZP_ERANGE, "ntt: log_n %u (max %u)", log_n, c->max_log);
	fr_t one = host_fr<fr_t>(ntt_field<fr_t>::one());
	fr_t s = one;
	if (shift) memcpy(s.l, shift->l, sizeof(s.l));
	const fr_t *plo = NULL, *phi = NULL;
	const bool sigma = ZP_NTT_BLOCK_TW && ZP_NTT_RADIX_LOG == 1;
	if (!inverse && shift && sigma) {
		/* coset forward: natural order to bit-reversed, then DIT with level-scaled twiddles (no scale pass) */
		sig_ref<fr_t> sg = sig_ref<fr_t>();
		if ((rc = get_sig(c, POW_SIG, s, log_n, st, &sg))) return rc;
		launch_bitrev(x, log_n, (const fr_t *)NULL, (const fr_t *)NULL, st);
		ZP_CUDA_LAUNCHED();
		return ntt_passes<fr_t>(c, true, x, log_n, 0, NULL, NULL, st, sg);
	}
	if (inverse && (!shift || sigma)) {
		/* inverse: DIF (coset: twiddles scaled by the levels' s^-(2^..)), n^-1 as one constant in the reversal */
		sig_ref<fr_t> sg = sig_ref<fr_t>();
		const fr_t *ni = NULL;
		if (shift && (rc = get_sig(c, POW_SIG_INV, s, log_n, st, &sg))) return rc;
		if ((rc = get_ninv(c, log_n, st, &ni))) return rc;
		if ((rc = ntt_passes<fr_t>(c, false, x, log_n, 1, NULL, NULL, st, sg))) return rc;
		launch_bitrev(x, log_n, (const fr_t *)NULL, (const fr_t *)NULL, st, ni);
		ZP_CUDA_LAUNCHED();
		return 0;
	}
	if (!inverse && shift && (rc = get_pow(c, POW_FWD, s, log_n, st, &plo, &phi))) return rc;
	if ((rc = ntt_passes(c, false, x, log_n, inverse, plo, phi, st))) return rc;
	plo = phi = NULL;
	if (inverse && (rc = get_pow(c, POW_INV, s, log_n, st, &plo, &phi))) return rc;
	launch_bitrev(x, log_n, plo, phi, st);
	ZP_CUDA_LAUNCHED();
	return 0;
err:
	return rc;
}

/* h = (a·b - c)·zinv (bellperson) or a·b - c (snarkjs, zinv NULL). */
template <class fr_t>
__global__ void h_combine(fr_t *a, const fr_t *b, const fr_t *c, size_t n, const fr_t *zinv)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) return;
	fr_t h = a[i] * b[i] - c[i];
	if (zinv) h = h * zinv[0];
	a[i] = h;
}
/* h = (a·b - c·k[0])·k[1] (SIGMA: see hconst_kernel) */
template <class fr_t>
__global__ void h_combine3(fr_t *a, const fr_t *b, const fr_t *c, size_t n, const fr_t *k)
{
	/* two elements a thread (i and i + n/2), all six loads issued before the products */
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x, h = n >> 1;
	if (n & 1) {   /* the NTT sizes are powers of two: n = 1 only */
		if (i == 0) a[0] = (a[0] * b[0] - c[0] * k[0]) * k[1];
		return;
	}
	if (i >= h) return;
	fr_t a0 = a[i], b0 = b[i], c0 = c[i], a1 = a[i + h], b1 = b[i + h], c1 = c[i + h];
	const fr_t k0 = k[0], k1 = k[1];
	a[i] = (a0 * b0 - c0 * k0) * k1;
	a[i + h] = (a1 * b1 - c1 * k0) * k1;
}
/* The lean input set's H step (zp_cuda_groth16_h_part): two device buffers, c uploaded into b's once
 * a·b is formed. Same values as h_combine / h_combine3 by parts: a·b, then (a·b − c)·zinv or
 * (a·b − c·k[0])·k[1]. */
template <class fr_t>
__global__ void h_mul(fr_t *a, const fr_t *b, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) a[i] = a[i] * b[i];
}
template <class fr_t>
__global__ void h_sub(fr_t *a, const fr_t *c, size_t n, const fr_t *zinv)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) return;
	fr_t h = a[i] - c[i];
	if (zinv) h = h * zinv[0];
	a[i] = h;
}
template <class fr_t>
__global__ void h_sub3(fr_t *a, const fr_t *c, size_t n, const fr_t *k)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) a[i] = (a[i] - c[i] * k[0]) * k[1];
}
/* zinv = (g^n - 1)^-1 */
template <class fr_t>
__global__ void z_inv_kernel(fr_t *out, fr_t g, unsigned log_n)
{
	fr_t t = g;
	for (unsigned i = 0; i < log_n; i++) t = t.sqr();
	out[1] = fr_inv(t - fr_t::one());
}
/* The H step with SIGMA: per a, b, c the unscaled inverse (DIF, bit-reversed out) and the coset
 * forward as DIT with level-scaled twiddles (no scale anywhere: A = n·a); then h = (A·B - n·C)·k in one
 * pass (k = n^-2, bellperson also Z^-1·n^-1), and for bellperson the coset inverse as DIF with the levels'
 * s^-(2^..) twiddles and a plain reversal (its n^-1 is in k). */
template <class fr_t>
static int groth16_h_sigma(ntt_ctx<fr_t> *c, zp_fr *v[3], unsigned log_n, enum zp_cuda_h_mode mode, const zp_fr &shift,
                           cudaStream_t st, int part)
{
	int rc = 0;
	fr_t s; memcpy(s.l, shift.l, sizeof(s.l));
	sig_ref<fr_t> sg = sig_ref<fr_t>(), sgi = sig_ref<fr_t>();
	const bool bp = mode == ZP_CUDA_H_BELLPERSON;
	if ((rc = get_sig(c, POW_SIG, s, log_n, st, &sg))) return rc;
	if (bp && (rc = get_sig(c, POW_SIG_INV, s, log_n, st, &sgi))) return rc;
	if (c->hc_log_n != log_n || c->hc_mode != (int)mode) {
		c->hc_log_n = 0;
		hconst_kernel<<<1, 1, 0, st>>>(c->consts + 7, s, log_n, bp);
		ZP_CUDA_LAUNCHED();
		ZP_CUDA_TRY(cudaStreamSynchronize(st));
		c->hc_log_n = log_n; c->hc_mode = (int)mode;
	}
	/* part 0 (lean set): a, b transformed, a <- a·b; part 1: c (in v[1]) transformed, then the combine */
	for (int i = part == 1 ? 1 : 0; i < (part == 0 ? 2 : part == 1 ? 2 : 3); i++) {
		if ((rc = ntt_passes<fr_t>(c, false, (fr_t *)v[i], log_n, 1, NULL, NULL, st))) return rc;
		if ((rc = ntt_passes<fr_t>(c, true, (fr_t *)v[i], log_n, 0, NULL, NULL, st, sg))) return rc;
	}
	if (part == 0) {
		h_mul<<<zp_cdiv(1ull << log_n, 256), 256, 0, st>>>((fr_t *)v[0], (const fr_t *)v[1], 1ull << log_n);
		ZP_CUDA_LAUNCHED();
		return 0;
	}
	if (part == 1) {
		h_sub3<<<zp_cdiv(1ull << log_n, 256), 256, 0, st>>>((fr_t *)v[0], (const fr_t *)v[1], 1ull << log_n, c->consts + 7);
		ZP_CUDA_LAUNCHED();
	} else {
		h_combine3<<<zp_cdiv((1ull << log_n) / 2 + 1, 256), 256, 0, st>>>((fr_t *)v[0], (const fr_t *)v[1], (const fr_t *)v[2],
		                                                       1ull << log_n, c->consts + 7);
		ZP_CUDA_LAUNCHED();
	}
	if (!bp) return 0;
	if ((rc = ntt_passes<fr_t>(c, false, (fr_t *)v[0], log_n, 1, NULL, NULL, st, sgi))) return rc;
	launch_bitrev((fr_t *)v[0], log_n, (const fr_t *)NULL, (const fr_t *)NULL, st);
	ZP_CUDA_LAUNCHED();
	return 0;
err:
	return rc;
}
template <class fr_t>
static int groth16_h_run(ntt_ctx<fr_t> *c, zp_fr *d_a, zp_fr *d_b, zp_fr *d_c, unsigned log_n,
                      enum zp_cuda_h_mode mode, void *stream, int part = -1)
{
	int rc = 0;
	cudaStream_t st = (cudaStream_t)stream;
	zp_fr shift;
	zp_fr *v[3] = { d_a, d_b, d_c };
	if (log_n > c->max_log || log_n < 1)   /* the DIT path below does not go through zp_cuda_ntt */
		return zp_err_set(ZP_ERANGE, "groth16_h: log_n %u (max %u)", log_n, c->max_log);
	if (mode == ZP_CUDA_H_BELLPERSON) {
		const uint32_t *G = ntt_field<fr_t>::gen7();
		if (!G) return zp_err_set(ZP_ERANGE, "groth16_h: no bellperson H step for this curve (snarkjs mode only)");
		memcpy(shift.l, G, sizeof(shift.l));
	} else {
		if (log_n + 1 > c->max_log) return zp_err_set(ZP_ERANGE, "groth16_h: snarkjs mode needs max_log > %u", log_n);
		/* w_2n from the CPU library: a host constant, so no device round trip */
		if ((rc = ntt_field<fr_t>::root(&shift, log_n + 1, c->roots)) < 0) return rc;
	}
#if ZP_NTT_H_DIT && ZP_NTT_BLOCK_TW && ZP_NTT_RADIX_LOG == 1
	return groth16_h_sigma(c, v, log_n, mode, shift, st, part);
#else   /* the builds before these (-DZP_NTT_H_DIT=0, -DZP_NTT_BLOCK_TW=0, bench/gpu/build-*.sh) and the radix-R one */
	for (int i = part == 1 ? 1 : 0; i < (part >= 0 ? 2 : 3); i++) {
#if ZP_NTT_H_DIT
		/* iNTT without its n^-1 and without the permutation, then the coset NTT as DIT from
		 * bit-reversed input, scaled by n^-1·s^j on load: natural order out, as before */
		const fr_t *plo, *phi;
		fr_t s; memcpy(s.l, shift.l, sizeof(s.l));
		if ((rc = ntt_passes<fr_t>(c, false, (fr_t *)v[i], log_n, 1, NULL, NULL, st))) return rc;
		if ((rc = get_pow(c, POW_FWD_NINV, s, log_n, st, &plo, &phi))) return rc;
		if ((rc = ntt_passes(c, true, (fr_t *)v[i], log_n, 0, plo, phi, st))) return rc;
#else
		if ((rc = ntt_run(c, v[i], log_n, 1, NULL, stream))) return rc;
		if ((rc = ntt_run(c, v[i], log_n, 0, &shift, stream))) return rc;
#endif
	}
	if (mode == ZP_CUDA_H_BELLPERSON && c->zinv_log_n != log_n) {
		/* shift is the fixed generator here, so Z^-1 depends on log_n only: computed once */
		fr_t g; memcpy(g.l, shift.l, sizeof(g.l));
		c->zinv_log_n = 0;
		z_inv_kernel<<<1, 1, 0, st>>>(c->consts, g, log_n);
		ZP_CUDA_LAUNCHED();
		ZP_CUDA_TRY(cudaStreamSynchronize(st));
		c->zinv_log_n = log_n;
	}
	if (part == 0) {
		h_mul<<<zp_cdiv(1ull << log_n, 256), 256, 0, st>>>((fr_t *)d_a, (const fr_t *)d_b, 1ull << log_n);
		ZP_CUDA_LAUNCHED();
		return 0;
	}
	if (part == 1)   /* c is in b's buffer */
		h_sub<<<zp_cdiv(1ull << log_n, 256), 256, 0, st>>>((fr_t *)d_a, (const fr_t *)d_b, 1ull << log_n,
		                                                  mode == ZP_CUDA_H_BELLPERSON ? c->consts + 1 : NULL);
	else
		h_combine<<<zp_cdiv(1ull << log_n, 256), 256, 0, st>>>((fr_t *)d_a, (fr_t *)d_b, (fr_t *)d_c, 1ull << log_n,
		                                                      mode == ZP_CUDA_H_BELLPERSON ? c->consts + 1 : NULL);
	ZP_CUDA_LAUNCHED();
	if (mode == ZP_CUDA_H_BELLPERSON)
		return ntt_run(c, d_a, log_n, 1, &shift, stream);
	return 0;
err:
	return rc;
#endif
}

/* ---- the C boundary: a context is one curve's (zp_cuda_ntt_create: BLS12-381; the zp_cuda_curve tables'
 * ntt_create: either), the calls dispatch on it ---- */
struct zp_cuda_ntt_ctx {
	ntt_ctx<fr_t> *bls;
	ntt_ctx<bn_fr_t> *bn;
};
template <class fr_t> static int ctx_wrap(zp_cuda_ntt_ctx **out, ntt_ctx<fr_t> *impl, ntt_ctx<fr_t> *zp_cuda_ntt_ctx::*m)
{
	zp_cuda_ntt_ctx *c = (zp_cuda_ntt_ctx *)calloc(1, sizeof(*c));
	if (!c) { ntt_destroy(impl); return -ENOMEM; }
	c->*m = impl;
	*out = c;
	return 0;
}
int zp_cuda_bls_ntt_create(zp_cuda_ntt_ctx **out, unsigned max_log, int roots)
{
	ntt_ctx<fr_t> *impl = NULL;
	int rc = ntt_create(&impl, max_log, roots);
	return rc ? rc : ctx_wrap(out, impl, &zp_cuda_ntt_ctx::bls);
}
int zp_cuda_bn_ntt_create(zp_cuda_ntt_ctx **out, unsigned max_log, int roots)
{
	ntt_ctx<bn_fr_t> *impl = NULL;
	int rc = ntt_create(&impl, max_log, roots);
	return rc ? rc : ctx_wrap(out, impl, &zp_cuda_ntt_ctx::bn);
}
int zp_cuda_ntt_create(zp_cuda_ntt_ctx **out, unsigned max_log, int roots)
{
	return zp_cuda_bls_ntt_create(out, max_log, roots);
}
void zp_cuda_ntt_destroy(zp_cuda_ntt_ctx *c)
{
	if (!c) return;
	if (c->bls) ntt_destroy(c->bls);
	if (c->bn) ntt_destroy(c->bn);
	free(c);
}
int zp_cuda_ntt(zp_cuda_ntt_ctx *c, zp_fr *d_x, unsigned log_n, int inverse, const zp_fr *shift, void *stream)
{
	return c->bn ? ntt_run(c->bn, d_x, log_n, inverse, shift, stream) : ntt_run(c->bls, d_x, log_n, inverse, shift, stream);
}
int zp_cuda_groth16_h(zp_cuda_ntt_ctx *c, zp_fr *d_a, zp_fr *d_b, zp_fr *d_c, unsigned log_n,
                      enum zp_cuda_h_mode mode, void *stream)
{
	return c->bn ? groth16_h_run(c->bn, d_a, d_b, d_c, log_n, mode, stream)
	             : groth16_h_run(c->bls, d_a, d_b, d_c, log_n, mode, stream);
}
int zp_cuda_groth16_h_part(zp_cuda_ntt_ctx *c, zp_fr *d_a, zp_fr *d_b, int part, unsigned log_n,
                           enum zp_cuda_h_mode mode, void *stream)
{
	if (part != 0 && part != 1)
		return zp_err_set(ZP_ERANGE, "groth16_h_part: part %d", part);
	return c->bn ? groth16_h_run(c->bn, d_a, d_b, (zp_fr *)NULL, log_n, mode, stream, part)
	             : groth16_h_run(c->bls, d_a, d_b, (zp_fr *)NULL, log_n, mode, stream, part);
}
