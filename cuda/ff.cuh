/*
 * ff.cuh — Fp, Fr (Montgomery, 32-bit limbs, PTX carry chains) and Fp2 for device code, one template
 * over a constant set per field: BLS12-381 (fp_cfg 12 limbs, fr_cfg 8) and BN254 (bn_fp_cfg, bn_fr_cfg,
 * 8 limbs each). Every field is ff<cfg>; Fp2 = fp2_tt<Fp> (u^2 = -1 for both curves).
 *
 * A field element is N little-endian 32-bit limbs, fully reduced (< modulus), in Montgomery form:
 * byte for byte the CPU's zp_fp / zp_fr. Multiplication is CIOS; by default (ZP_FF_MUL_EO) the
 * even/odd form of mont_mul_eo, else (mul_inl) one mad.lo carry chain and one mad.hi carry chain per
 * row. Either way the carry flag never crosses anything but madc/addc inside a chain.
 * Constants come from zp_consts.h (shared with the host) and are copied into local arrays so that,
 * once loops are unrolled, they fold into instruction immediates.
 *
 * ZP_FF_MUL_EO (default 1) selects the even/odd product (mul_eo below) for Fp and Fr; 0 restores
 * the original two-chains-per-row CIOS (mul_inl). Both give identical, fully reduced results.
 * sqr() is the product a·a unless the cfg sets DEDICATED_SQR (every cfg here leaves it false; the .params
 * check's G1 cfg in params_check.cu sets it): then the dedicated square mont_sqr_eo, the same bytes with
 * ~23 % fewer IMAD-equivalents, inlined or a __noinline__ call as the cfg's products are.
 */
#ifndef ZP_FF_CUH
#define ZP_FF_CUH

#include <stdint.h>
#include "zp_consts.h"

#define ZP_DI __device__ __forceinline__
#define ZP_HDI __host__ __device__ __forceinline__
#ifdef __CUDA_ARCH__
#define ZP_UNROLL _Pragma("unroll")
#else
#define ZP_UNROLL   /* host emulation (tests): gcc does not know the pragma */
#endif

#ifndef ZP_FF_MUL_EO
#define ZP_FF_MUL_EO 1
#endif
#ifndef ZP_FP2_LAZY
#define ZP_FP2_LAZY 1   /* 1: Fp2 products by fp2_mul_lazy (one call, 2 reductions instead of 3); on since the
                           H200 run of 2026-11-29 22:08 (gpu_test PASS, G2 MSM 2^24 425.5 -> 402.8 ms) */
#endif

/*
 * PTX carry-chain primitives. On the device each is one `asm volatile` instruction (volatile keeps
 * NVVM from reordering the flag readers, see NOTES.md). On the host (tests/cuda/ff_emul.cu) they
 * are emulated with an explicit carry flag, so the very same product code can be checked on a CPU.
 */
namespace ptx {
#ifdef __CUDA_ARCH__
ZP_DI uint32_t add_cc(uint32_t a, uint32_t b) { uint32_t d; asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
ZP_DI uint32_t addc_cc(uint32_t a, uint32_t b) { uint32_t d; asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
ZP_DI uint32_t addc(uint32_t a, uint32_t b) { uint32_t d; asm volatile("addc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
ZP_DI uint32_t mul_lo(uint32_t a, uint32_t b) { uint32_t d; asm volatile("mul.lo.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
ZP_DI uint32_t mul_hi(uint32_t a, uint32_t b) { uint32_t d; asm volatile("mul.hi.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
ZP_DI uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { uint32_t d; asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); return d; }
ZP_DI uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) { uint32_t d; asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); return d; }
ZP_DI uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) { uint32_t d; asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); return d; }
ZP_DI uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) { uint32_t d; asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); return d; }
ZP_DI uint32_t sub_cc(uint32_t a, uint32_t b) { uint32_t d; asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
ZP_DI uint32_t subc_cc(uint32_t a, uint32_t b) { uint32_t d; asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
ZP_DI uint32_t subc(uint32_t a, uint32_t b) { uint32_t d; asm volatile("subc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
/* hi << 1 | lo >> 31 (one funnel shift; no carry flag) */
ZP_DI uint32_t shl1(uint32_t lo, uint32_t hi) { return __funnelshift_l(lo, hi, 1); }
#else
/* host emulation: one carry flag, exactly PTX's semantics (.cc writes it, c-forms read it) */
static uint32_t cf;
static inline uint32_t set(uint64_t v) { cf = (uint32_t)(v >> 32); return (uint32_t)v; }
static inline uint32_t add_cc(uint32_t a, uint32_t b) { return set((uint64_t)a + b); }
static inline uint32_t addc_cc(uint32_t a, uint32_t b) { return set((uint64_t)a + b + cf); }
static inline uint32_t addc(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)a + b + cf); }
static inline uint32_t mul_lo(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)a * b); }
static inline uint32_t mul_hi(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
static inline uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return set((uint64_t)mul_lo(a, b) + c); }
static inline uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return set((uint64_t)mul_lo(a, b) + c + cf); }
static inline uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return set((uint64_t)mul_hi(a, b) + c + cf); }
static inline uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) { return (uint32_t)((uint64_t)mul_hi(a, b) + c + cf); }
/* subtraction: the flag is the borrow (PTX: subc computes a - (b + CC.CF)) */
static inline uint32_t sub_cc(uint32_t a, uint32_t b) { cf = a < b; return a - b; }
static inline uint32_t subc_cc(uint32_t a, uint32_t b) { uint32_t c = cf; cf = (uint64_t)a < (uint64_t)b + c; return a - b - c; }
static inline uint32_t subc(uint32_t a, uint32_t b) { return a - b - cf; }
static inline uint32_t shl1(uint32_t lo, uint32_t hi) { return hi << 1 | lo >> 31; }
#endif
}

/*
 * Even/odd Montgomery product core (N even, 2p < 2^(32N), N limbs; a, b < p):
 * r = a·b·2^(-32N) mod p, returned in [0, 2p) (the caller subtracts p once).
 *
 * The running CIOS value T (times 2^32 within a row) is kept as two N-limb accumulators,
 * T = X + Y·2^32. a·bi splits into a_even·bi = sum over even j of a_j·bi·2^(32j) (64-bit products
 * at disjoint places: lo at j, hi at j+1) and a_odd·bi = 2^32 · sum over odd j of a_j·bi·2^(32(j-1)):
 * the first is one carry chain into X, the second one into Y, each chain alternating mad.lo / mad.hi
 * of the same product (which ptxas can fuse into 64-bit IMAD.WIDE). Same for m·p.
 * After the reduction X[0] = 0, and T/2^32 = Y + X[1] + X[2..N-1]·2^32; the next row therefore takes
 * X' = Y + X[1] (the add's carry enters Y's chain at weight 2^32) and Y' = X[2..N-1] (shift by two).
 * Carries: every X chain's carry-out has weight 2^(32N) = Y[N-1]'s weight and is added there.
 * Y chains never carry out: Y·2^32 <= T < 2^33·p, so Y < 2p < 2^(32N) (CIOS keeps T/2^32 < 2p).
 * Checked against a plain CIOS on the host by tests/cuda/ff_emul.cu (edge values and random).
 */
template <int N> ZP_HDI void mont_mul_eo(uint32_t *r, const uint32_t *a, const uint32_t *b,
                                         const uint32_t *p, uint32_t inv)
{
	uint32_t X[N], Y[N];
	/* row 0: X = a_even·b0, Y = a_odd·b0 (no carries: the 64-bit products do not overlap) */
	{
		uint32_t bi = b[0];
		ZP_UNROLL for (int j = 0; j < N; j += 2) {
			X[j] = ptx::mul_lo(a[j], bi);
			X[j + 1] = ptx::mul_hi(a[j], bi);
			Y[j] = ptx::mul_lo(a[j + 1], bi);
			Y[j + 1] = ptx::mul_hi(a[j + 1], bi);
		}
	}
	ZP_UNROLL for (int i = 0; i < N; i++) {
		if (i > 0) {
			uint32_t bi = b[i], Xn[N], Yn[N];
			/* Y' = X[2..] + a_odd·bi + carry(Y[0] + X[1]) */
			Xn[0] = ptx::add_cc(Y[0], X[1]);
			ZP_UNROLL for (int j = 1; j < N - 1; j += 2) {
				Yn[j - 1] = ptx::madc_lo_cc(a[j], bi, X[j + 1]);
				Yn[j] = ptx::madc_hi_cc(a[j], bi, X[j + 2]);
			}
			Yn[N - 2] = ptx::madc_lo_cc(a[N - 1], bi, 0);
			Yn[N - 1] = ptx::madc_hi(a[N - 1], bi, 0);
			/* X' = Y + X[1] + a_even·bi */
			Xn[0] = ptx::mad_lo_cc(a[0], bi, Xn[0]);
			Xn[1] = ptx::madc_hi_cc(a[0], bi, Y[1]);
			ZP_UNROLL for (int j = 2; j < N; j += 2) {
				Xn[j] = ptx::madc_lo_cc(a[j], bi, Y[j]);
				Xn[j + 1] = ptx::madc_hi_cc(a[j], bi, Y[j + 1]);
			}
			Yn[N - 1] = ptx::addc(Yn[N - 1], 0);
			ZP_UNROLL for (int j = 0; j < N; j++) { X[j] = Xn[j]; Y[j] = Yn[j]; }
		}
		/* reduction: m·p, making X[0] = 0 */
		uint32_t m = X[0] * inv;
		X[0] = ptx::mad_lo_cc(m, p[0], X[0]);
		X[1] = ptx::madc_hi_cc(m, p[0], X[1]);
		ZP_UNROLL for (int j = 2; j < N; j += 2) {
			X[j] = ptx::madc_lo_cc(m, p[j], X[j]);
			X[j + 1] = ptx::madc_hi_cc(m, p[j], X[j + 1]);
		}
		Y[N - 1] = ptx::addc(Y[N - 1], 0);
		Y[0] = ptx::mad_lo_cc(m, p[1], Y[0]);
		Y[1] = ptx::madc_hi_cc(m, p[1], Y[1]);
		ZP_UNROLL for (int j = 2; j < N - 2; j += 2) {
			Y[j] = ptx::madc_lo_cc(m, p[j + 1], Y[j]);
			Y[j + 1] = ptx::madc_hi_cc(m, p[j + 1], Y[j + 1]);
		}
		Y[N - 2] = ptx::madc_lo_cc(m, p[N - 1], Y[N - 2]);
		Y[N - 1] = ptx::madc_hi(m, p[N - 1], Y[N - 1]);
	}
	/* result = T/2^32 = Y + X[1..N-1] */
	r[0] = ptx::add_cc(Y[0], X[1]);
	ZP_UNROLL for (int j = 1; j < N - 1; j++) r[j] = ptx::addc_cc(Y[j], X[j + 1]);
	r[N - 1] = ptx::addc(Y[N - 1], 0);
}

/*
 * Lazy-reduction Fp2 product (ZP_FP2_LAZY, default 1): Karatsuba with three 2N-limb products and two
 * Montgomery reductions instead of three full Montgomery products (5N^2 instead of 6N^2 32-bit
 * multiply-adds, one final subtraction fewer). Needs 2p < 2^(32N) (BLS12-381: p < 2^381, N = 12).
 *   t0 = a0·b0, t1 = a1·b1, t2 = (a0 + a1)·(b0 + b1)   (sums unreduced, < 2p; products < 4p^2)
 *   c0 = REDC(t0 - t1, plus p·2^(32N) when that borrows)   in [0, p·2^(32N)) -> REDC < 2p
 *   c1 = REDC(t2 - t0 - t1) = REDC(a0·b1 + a1·b0)          < 2p^2 < p·2^(32N) -> REDC < 2p
 * then one conditional subtraction of p each. Every chain pairs mad.lo / mad.hi of one product at
 * adjacent limbs (as in mont_mul_eo, so ptxas can use 64-bit IMAD.WIDE): row i adds v·m·2^(32i) to
 * T as two chains, v's even limbs (positions i..i+N-1) then its odd limbs (i+1..i+N); `cc` carries
 * what left position i+N into the next row (at most 2; 0 after the last row, as the results fit in
 * 2N limbs: a·b < 2^(64N), T + m·p < 2p·2^(32N) < 2^(64N)). Checked on the host by tests/cuda/ff_emul.cu.
 */
template <int N> ZP_HDI void mac_row(uint32_t *T, uint32_t m, const uint32_t *v, uint32_t &cc)
{
	/* T[0..N] += m·v + cc·2^(32N) (cc: carry from the previous row); cc = what leaves T[N] */
	T[0] = ptx::mad_lo_cc(m, v[0], T[0]);
	T[1] = ptx::madc_hi_cc(m, v[0], T[1]);
	ZP_UNROLL for (int j = 2; j < N; j += 2) {
		T[j] = ptx::madc_lo_cc(m, v[j], T[j]);
		T[j + 1] = ptx::madc_hi_cc(m, v[j], T[j + 1]);
	}
	T[N] = ptx::addc_cc(T[N], cc);
	uint32_t c1 = ptx::addc(0, 0);
	T[1] = ptx::mad_lo_cc(m, v[1], T[1]);
	T[2] = ptx::madc_hi_cc(m, v[1], T[2]);
	ZP_UNROLL for (int j = 3; j < N; j += 2) {
		T[j] = ptx::madc_lo_cc(m, v[j], T[j]);
		T[j + 1] = ptx::madc_hi_cc(m, v[j], T[j + 1]);
	}
	cc = ptx::addc(c1, 0);
}
/* T (2N limbs) = a·b, a, b < 2^(32N) */
template <int N> ZP_HDI void mul_wide(uint32_t *T, const uint32_t *a, const uint32_t *b)
{
	uint32_t cc = 0;
	ZP_UNROLL for (int j = 0; j < 2 * N; j++) T[j] = 0;
	ZP_UNROLL for (int i = 0; i < N; i++) {
		mac_row<N>(T + i, b[i], a, cc);   /* touches T[i..i+N] only */
	}
}
/* r = T·2^(-32N) mod p in [0, 2p) for T < p·2^(32N); T is clobbered */
template <int N> ZP_HDI void redc_wide(uint32_t *r, uint32_t *T, const uint32_t *p, uint32_t inv)
{
	uint32_t cc = 0;
	ZP_UNROLL for (int i = 0; i < N; i++) {
		uint32_t m = T[i] * inv;
		mac_row<N>(T + i, m, p, cc);   /* touches T[i..i+N] only */
	}
	ZP_UNROLL for (int j = 0; j < N; j++) r[j] = T[N + j];
}
/* r = t - p if t >= p else t (t < 2p) */
template <int N> ZP_HDI void sub_p_if(uint32_t *r, const uint32_t *t, const uint32_t *p)
{
	uint32_t d[N];
	d[0] = ptx::sub_cc(t[0], p[0]);
	ZP_UNROLL for (int j = 1; j < N; j++) d[j] = ptx::subc_cc(t[j], p[j]);
	uint32_t borrow = ptx::subc(0, 0);   /* all ones when t < p */
	ZP_UNROLL for (int j = 0; j < N; j++) r[j] = (t[j] & borrow) | (d[j] & ~borrow);
}
/*
 * Dedicated square (ff's sqr() when the cfg's DEDICATED_SQR is true; mont_sqr_eo): the bytes of
 * mont_mul_eo(a, a) after its final subtraction, laid out so that every 64-bit product meets its addend in
 * one fixed register pairing (as in mont_mul_eo; a textbook triangle of cross products, doubled, plus the
 * diagonal, then redc_wide, was 557 SASS instructions against the product's 379: its shifting rows make
 * ptxas copy values between pairings), and without a doubling pass. For a < 2^(32N-1) (every field here: p < 2^(32N-1)), with b = 2a (b_j = a_j << 1 |
 * a_(j-1) >> 31, still N limbs):
 *   a² = sum_i a_i·2^(64i)·(a_i + (a_(i+1) << 1)·2^32 + sum_{k>=2} b_(i+k)·2^(32k))
 * (2·sum_{j>i} a_j 2^(32j) = 2a minus 2·(a mod 2^(32(i+1))), whose only overlap with b's limbs above i is
 * a_i's top bit in b_(i+1)): N(N+1)/2 products, no cross sum to double. Taken by distance k (the
 * product of a_i with its k-th multiplier lies at 2i+k, 2i+k+1), one k is one carry chain of adjacent
 * lo/hi pairs; even k into E, odd k into O, so the pairings never mix. Chains run from the largest k
 * down: chain k spans [k, 2N-k-1], the earlier ones of its parity only [k+2, 2N-k-3], so its first and
 * last pairs start at 0 and nothing carries out of it (a 64-bit product plus 1 fits). a² = E + O,
 * O[0] = O[2N-1] = 0 (sqr_eo_parts).
 * REDC of E + O by mont_mul_eo's window (redc_eo): X (weights 0..N-1) + Y·2^32, row 0 X = E[0..N-1],
 * Y = O[1..N-1] as the addends of m·p's even / odd limbs; each later row r shifts (X' = Y + X[1], the
 * carry entering Y's chain; Y' = X[2..]) and takes the high half H = E[N..] + O[N..] (one add chain)
 * limb by limb, H[N+r-1] in the free addend of weight N-1 at the top of Y's chain, H[2N-1] in the
 * final sum. No chain overflows: every row's window holds less than 2^(32N+1) + p (limbs of weights
 * up to N-1 only; a limb of weight N would not fit: a second high limb per row, E's and O's apart,
 * was tried and fails), so with m·p (m < 2^32) Y stays below 2^(32N). The result
 * (a² + M·p)/2^(32N) < 2p loses p once (sub_p_if).
 * N even. Checked on the host by tests/cuda/ff_emul.cu.
 */
template <int N, int K> ZP_HDI void sqr_chains(uint32_t *S, const uint32_t *a, const uint32_t *b)
{
	/* chain K, then K-2, ...: S[2i+K .. 2i+K+1] += a_i·v_K(i), i = 0..N-1-K (v_0(i) = a_i, v_1(i) =
	 * a_(i+1) << 1, v_k(i) = b_(i+k)); S[K, K+1, 2N-K-2, 2N-K-1] are 0 on entry */
	if constexpr (K >= 0) {
		auto v = [&](int i) -> uint32_t { return K == 0 ? a[i] : K == 1 ? a[i + 1] << 1 : b[i + K]; };
		if constexpr (N - K == 1) {
			S[K] = ptx::mul_lo(a[0], v(0));
			S[K + 1] = ptx::mul_hi(a[0], v(0));
		} else {
			S[K] = ptx::mad_lo_cc(a[0], v(0), S[K]);
			S[K + 1] = ptx::madc_hi_cc(a[0], v(0), S[K + 1]);
			ZP_UNROLL for (int i = 1; i < N - K - 1; i++) {
				S[2 * i + K] = ptx::madc_lo_cc(a[i], v(i), S[2 * i + K]);
				S[2 * i + K + 1] = ptx::madc_hi_cc(a[i], v(i), S[2 * i + K + 1]);
			}
			S[2 * N - K - 2] = ptx::madc_lo_cc(a[N - 1 - K], v(N - 1 - K), S[2 * N - K - 2]);
			S[2 * N - K - 1] = ptx::madc_hi(a[N - 1 - K], v(N - 1 - K), S[2 * N - K - 1]);
		}
		sqr_chains<N, K - 2>(S, a, b);
	}
}
/* a² = E + O (2N limbs each; O[0] = O[2N-1] = 0), a < 2^(32N-1), N even */
template <int N> ZP_HDI void sqr_eo_parts(uint32_t *E, uint32_t *O, const uint32_t *a)
{
	static_assert(N % 2 == 0, "sqr_eo_parts: N even");
	uint32_t b[N];
	b[0] = a[0] << 1;
	ZP_UNROLL for (int j = 1; j < N; j++) b[j] = ptx::shl1(a[j - 1], a[j]);
	ZP_UNROLL for (int j = 0; j < 2 * N; j++) E[j] = 0, O[j] = 0;
	sqr_chains<N, N - 1>(O, a, b);   /* odd k */
	sqr_chains<N, N - 2>(E, a, b);   /* even k, the diagonal (k = 0) last */
}
/* r = (E + O)·2^(-32N) mod p in [0, 2p) for E + O < p·2^(32N), O[0] = O[2N-1] = 0, N even */
template <int N> ZP_HDI void redc_eo(uint32_t *r, const uint32_t *E, const uint32_t *O, const uint32_t *p, uint32_t inv)
{
	uint32_t X[N], Y[N];
	/* the high half H = E[N..] + O[N..] (no carry out: E + O < 2^(64N)); H[N+i-1] enters row i at weight N-1 */
	uint32_t H[2 * N];
	H[N] = ptx::add_cc(E[N], O[N]);
	ZP_UNROLL for (int j = N + 1; j < 2 * N - 1; j++) H[j] = ptx::addc_cc(E[j], O[j]);
	H[2 * N - 1] = ptx::addc(E[2 * N - 1], 0);
	{	/* row 0 */
		uint32_t m = E[0] * inv;
		Y[0] = ptx::mad_lo_cc(m, p[1], O[1]);
		Y[1] = ptx::madc_hi_cc(m, p[1], O[2]);
		ZP_UNROLL for (int j = 2; j < N - 2; j += 2) {
			Y[j] = ptx::madc_lo_cc(m, p[j + 1], O[j + 1]);
			Y[j + 1] = ptx::madc_hi_cc(m, p[j + 1], O[j + 2]);
		}
		Y[N - 2] = ptx::madc_lo_cc(m, p[N - 1], O[N - 1]);
		Y[N - 1] = ptx::madc_hi(m, p[N - 1], 0);
		X[0] = ptx::mad_lo_cc(m, p[0], E[0]);
		X[1] = ptx::madc_hi_cc(m, p[0], E[1]);
		ZP_UNROLL for (int j = 2; j < N; j += 2) {
			X[j] = ptx::madc_lo_cc(m, p[j], E[j]);
			X[j + 1] = ptx::madc_hi_cc(m, p[j], E[j + 1]);
		}
		Y[N - 1] = ptx::addc(Y[N - 1], 0);
	}
	ZP_UNROLL for (int i = 1; i < N; i++) {
		uint32_t Xn[N], Yn[N];
		uint32_t x0 = ptx::add_cc(Y[0], X[1]);   /* X'[0]; its carry has weight 1: Y's chain */
		uint32_t m = x0 * inv;
		ZP_UNROLL for (int j = 0; j < N - 2; j += 2) {
			Yn[j] = ptx::madc_lo_cc(m, p[j + 1], X[j + 2]);
			Yn[j + 1] = ptx::madc_hi_cc(m, p[j + 1], X[j + 3]);
		}
		Yn[N - 2] = ptx::madc_lo_cc(m, p[N - 1], H[N + i - 1]);
		Yn[N - 1] = ptx::madc_hi(m, p[N - 1], 0);
		Xn[0] = ptx::mad_lo_cc(m, p[0], x0);
		Xn[1] = ptx::madc_hi_cc(m, p[0], Y[1]);
		ZP_UNROLL for (int j = 2; j < N; j += 2) {
			Xn[j] = ptx::madc_lo_cc(m, p[j], Y[j]);
			Xn[j + 1] = ptx::madc_hi_cc(m, p[j], Y[j + 1]);
		}
		Yn[N - 1] = ptx::addc(Yn[N - 1], 0);
		ZP_UNROLL for (int j = 0; j < N; j++) { X[j] = Xn[j]; Y[j] = Yn[j]; }
	}
	r[0] = ptx::add_cc(Y[0], X[1]);
	ZP_UNROLL for (int j = 1; j < N - 1; j++) r[j] = ptx::addc_cc(Y[j], X[j + 1]);
	r[N - 1] = ptx::addc(Y[N - 1], H[2 * N - 1]);
}
/* r = a²·2^(-32N) mod p, fully reduced (a < p < 2^(32N-1)): the bytes of mont_mul_eo(a, a) reduced */
template <int N> ZP_HDI void mont_sqr_eo(uint32_t *r, const uint32_t *a, const uint32_t *p, uint32_t inv)
{
	uint32_t E[2 * N], O[2 * N], u[N];
	sqr_eo_parts<N>(E, O, a);
	redc_eo<N>(u, E, O, p, inv);
	sub_p_if<N>(r, u, p);
}
/* (r0 + r1·u) = (a0 + a1·u)(b0 + b1·u), u^2 = -1, all fully reduced, Montgomery form */
template <int N> ZP_HDI void fp2_mul_lazy(uint32_t *r0, uint32_t *r1, const uint32_t *a0, const uint32_t *a1,
                                          const uint32_t *b0, const uint32_t *b1, const uint32_t *p, uint32_t inv)
{
	/* order: the inputs die into t0, t1, sa, sb; t0, t1 into t0 - t1 and t1 = t0 + t1 */
	uint32_t t0[2 * N], t1[2 * N], t2[2 * N], sa[N], sb[N];
	mul_wide<N>(t0, a0, b0);
	mul_wide<N>(t1, a1, b1);
	sa[0] = ptx::add_cc(a0[0], a1[0]);
	ZP_UNROLL for (int j = 1; j < N; j++) sa[j] = ptx::addc_cc(a0[j], a1[j]);
	sb[0] = ptx::add_cc(b0[0], b1[0]);
	ZP_UNROLL for (int j = 1; j < N; j++) sb[j] = ptx::addc_cc(b0[j], b1[j]);
	/* t2 = t0 + t1 (< 2p^2: no carry out) */
	t2[0] = ptx::add_cc(t0[0], t1[0]);
	ZP_UNROLL for (int j = 1; j < 2 * N; j++) t2[j] = ptx::addc_cc(t0[j], t1[j]);
	/* t0 -= t1, plus p·2^(32N) on borrow */
	t0[0] = ptx::sub_cc(t0[0], t1[0]);
	ZP_UNROLL for (int j = 1; j < 2 * N; j++) t0[j] = ptx::subc_cc(t0[j], t1[j]);
	uint32_t neg = ptx::subc(0, 0);
	t0[N] = ptx::add_cc(t0[N], p[0] & neg);
	ZP_UNROLL for (int j = 1; j < N; j++) t0[N + j] = ptx::addc_cc(t0[N + j], p[j] & neg);
	/* t1 = sa·sb - (t0 + t1) = a0·b1 + a1·b0 (never negative) */
	mul_wide<N>(t1, sa, sb);
	t1[0] = ptx::sub_cc(t1[0], t2[0]);
	ZP_UNROLL for (int j = 1; j < 2 * N; j++) t1[j] = ptx::subc_cc(t1[j], t2[j]);
	uint32_t u[N];
	redc_wide<N>(u, t0, p, inv);
	sub_p_if<N>(r0, u, p);
	redc_wide<N>(u, t1, p, inv);
	sub_p_if<N>(r1, u, p);
}

struct fp_cfg {
	static const int N = 12;
	static const uint32_t INV = ZP_C_FP_INV;
#ifndef ZP_FP_INLINE
#define ZP_FP_INLINE 0
#endif
	static const bool INLINE_MUL = ZP_FP_INLINE;   /* inlined everywhere, a 12-limb product makes ptxas crawl */
	static const bool DEDICATED_SQR = false;   /* sqr() by mont_sqr_eo (true) or as a product (false) */
	ZP_HDI static uint32_t p(int i) { const uint32_t P[12] = ZP_C_FP_P; return P[i]; }
	ZP_DI static uint32_t one(int i) { const uint32_t O[12] = ZP_C_FP_ONE; return O[i]; }
	ZP_DI static uint32_t rr(int i) { const uint32_t O[12] = ZP_C_FP_RR; return O[i]; }
};
struct fr_cfg {
	static const int N = 8;
	static const uint32_t INV = ZP_C_FR_INV;
	static const bool INLINE_MUL = true;
	static const bool DEDICATED_SQR = false;   /* sqr() by mont_sqr_eo (true) or as a product (false) */
	ZP_HDI static uint32_t p(int i) { const uint32_t P[8] = ZP_C_FR_P; return P[i]; }
	ZP_DI static uint32_t one(int i) { const uint32_t O[8] = ZP_C_FR_ONE; return O[i]; }
	ZP_DI static uint32_t rr(int i) { const uint32_t O[8] = ZP_C_FR_RR; return O[i]; }
};
/* BN254 (zp_consts.h's ZP_C_BN_*): p, r < 2^254, so 2p < 2^256 holds for mont_mul_eo and fp2_mul_lazy.
 * ZP_BN_FP_INLINE (default 0): Fp products as __noinline__ calls like BLS12-381's Fp (MSM kernels make
 * dozens of them a point addition); 1 inlines them as Fr's are (longer compiles, no call ABI). */
#ifndef ZP_BN_FP_INLINE
#define ZP_BN_FP_INLINE 0
#endif
struct bn_fp_cfg {
	static const int N = 8;
	static const uint32_t INV = ZP_C_BN_FP_INV;
	static const bool INLINE_MUL = ZP_BN_FP_INLINE;
	static const bool DEDICATED_SQR = false;   /* sqr() by mont_sqr_eo (true) or as a product (false) */
	ZP_HDI static uint32_t p(int i) { const uint32_t P[8] = ZP_C_BN_FP_P; return P[i]; }
	ZP_DI static uint32_t one(int i) { const uint32_t O[8] = ZP_C_BN_FP_ONE; return O[i]; }
	ZP_DI static uint32_t rr(int i) { const uint32_t O[8] = ZP_C_BN_FP_RR; return O[i]; }
};
struct bn_fr_cfg {
	static const int N = 8;
	static const uint32_t INV = ZP_C_BN_FR_INV;
	static const bool INLINE_MUL = true;
	static const bool DEDICATED_SQR = false;   /* sqr() by mont_sqr_eo (true) or as a product (false) */
	ZP_HDI static uint32_t p(int i) { const uint32_t P[8] = ZP_C_BN_FR_P; return P[i]; }
	ZP_DI static uint32_t one(int i) { const uint32_t O[8] = ZP_C_BN_FR_ONE; return O[i]; }
	ZP_DI static uint32_t rr(int i) { const uint32_t O[8] = ZP_C_BN_FR_RR; return O[i]; }
};

template <class C> struct __align__(16) ff {
	typedef C cfg;
	static const int N = C::N;
	uint32_t l[N];

	ZP_DI static ff zero() { ff r; _Pragma("unroll") for (int i = 0; i < N; i++) r.l[i] = 0; return r; }
	ZP_DI static ff one() { ff r; _Pragma("unroll") for (int i = 0; i < N; i++) r.l[i] = C::one(i); return r; }
	ZP_DI static ff rr() { ff r; _Pragma("unroll") for (int i = 0; i < N; i++) r.l[i] = C::rr(i); return r; }

	ZP_DI bool is_zero() const {
		uint32_t acc = 0;
		_Pragma("unroll") for (int i = 0; i < N; i++) acc |= l[i];
		return acc == 0;
	}
	ZP_DI bool operator==(const ff &b) const {
		uint32_t acc = 0;
		_Pragma("unroll") for (int i = 0; i < N; i++) acc |= l[i] ^ b.l[i];
		return acc == 0;
	}
	ZP_DI bool operator!=(const ff &b) const { return !(*this == b); }

	/* r = t - p if t >= p (t < 2p, t[N] the extra top limb), else t. */
	ZP_DI static void final_sub(uint32_t *r, const uint32_t *t, uint32_t top) {
		uint32_t d[N], borrow;
		asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(t[0]), "r"(C::p(0)));
		_Pragma("unroll") for (int i = 1; i < N; i++)
			asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[i]) : "r"(t[i]), "r"(C::p(i)));
		asm volatile("subc.u32 %0, %1, 0;" : "=r"(borrow) : "r"(top));
		/* borrow == 0xffffffff when t < p */
		_Pragma("unroll") for (int i = 0; i < N; i++) r[i] = borrow ? t[i] : d[i];
	}

	ZP_DI friend ff operator+(const ff &a, const ff &b) {
		uint32_t t[N], top;
		asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(t[0]) : "r"(a.l[0]), "r"(b.l[0]));
		_Pragma("unroll") for (int i = 1; i < N; i++)
			asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(t[i]) : "r"(a.l[i]), "r"(b.l[i]));
		asm volatile("addc.u32 %0, 0, 0;" : "=r"(top));
		ff r;
		final_sub(r.l, t, top);
		return r;
	}
	ZP_DI friend ff operator-(const ff &a, const ff &b) {
		uint32_t t[N], borrow;
		asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(t[0]) : "r"(a.l[0]), "r"(b.l[0]));
		_Pragma("unroll") for (int i = 1; i < N; i++)
			asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(t[i]) : "r"(a.l[i]), "r"(b.l[i]));
		asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));
		/* add p & borrow-mask */
		ff r;
		asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.l[0]) : "r"(t[0]), "r"(C::p(0) & borrow));
		_Pragma("unroll") for (int i = 1; i < N - 1; i++)
			asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.l[i]) : "r"(t[i]), "r"(C::p(i) & borrow));
		asm volatile("addc.u32 %0, %1, %2;" : "=r"(r.l[N - 1]) : "r"(t[N - 1]), "r"(C::p(N - 1) & borrow));
		return r;
	}
	ZP_DI ff neg() const { return is_zero() ? *this : zero() - *this; }
	ZP_DI ff dbl() const { return *this + *this; }

	/* Montgomery product a·b·R^-1 (CIOS). */
	ZP_DI friend ff operator*(const ff &a, const ff &b) {
		if (C::INLINE_MUL) return ZP_FF_MUL_EO ? mul_eo(a, b) : mul_inl(a, b);
		return mul_call(a, b);
	}
	static __device__ __noinline__ ff mul_call(const ff a, const ff b) { return ZP_FF_MUL_EO ? mul_eo(a, b) : mul_inl(a, b); }
	ZP_DI static ff mul_eo(const ff &a, const ff &b) {
		uint32_t P[N], t[N];
		_Pragma("unroll") for (int i = 0; i < N; i++) P[i] = C::p(i);
		mont_mul_eo<N>(t, a.l, b.l, P, C::INV);
		ff r;
		final_sub(r.l, t, 0);
		return r;
	}
	ZP_DI static ff mul_inl(const ff &a, const ff &b) {
		uint32_t t[N + 2];
		_Pragma("unroll") for (int j = 0; j < N + 2; j++) t[j] = 0;
		_Pragma("unroll") for (int i = 0; i < N; i++) {
			uint32_t bi = b.l[i];
			asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(a.l[0]), "r"(bi));
			_Pragma("unroll") for (int j = 1; j < N; j++)
				asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(a.l[j]), "r"(bi));
			asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(t[N]));
			asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
			asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(a.l[0]), "r"(bi));
			_Pragma("unroll") for (int j = 1; j < N; j++)
				asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(a.l[j]), "r"(bi));
			asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));

			uint32_t m = t[0] * C::INV;
			asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(m), "r"(C::p(0)));
			_Pragma("unroll") for (int j = 1; j < N; j++)
				asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(m), "r"(C::p(j)));
			asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(t[N]));
			asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
			asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(m), "r"(C::p(0)));
			_Pragma("unroll") for (int j = 1; j < N; j++)
				asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(m), "r"(C::p(j)));
			asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
			_Pragma("unroll") for (int j = 0; j <= N; j++) t[j] = t[j + 1];
			t[N + 1] = 0;
		}
		ff r;
		final_sub(r.l, t, t[N]);
		return r;
	}
	/* a²: a product a·a unless the cfg asks for the dedicated square (mont_sqr_eo; inlined or a call, as products) */
	ZP_DI ff sqr() const {
		if constexpr (C::DEDICATED_SQR) {
			if constexpr (C::INLINE_MUL)
				return sqr_inl(*this);
			else
				return sqr_call(*this);
		} else {
			return *this * *this;
		}
	}
	static __device__ __noinline__ ff sqr_call(const ff a) { return sqr_inl(a); }
	ZP_DI static ff sqr_inl(const ff &a) {
		uint32_t P[N];
		_Pragma("unroll") for (int i = 0; i < N; i++) P[i] = C::p(i);
		ff r;
		mont_sqr_eo<N>(r.l, a.l, P, C::INV);
		return r;
	}
	ZP_DI ff to_mont() const { return *this * rr(); }
	ZP_DI ff from_mont() const { ff o = zero(); o.l[0] = 1; return *this * o; }

	/* this^e for a small public exponent (square-and-multiply, MSB first). */
	ZP_DI ff pow(uint64_t e) const {
		ff r = one(), b = *this;
		while (e) { if (e & 1) r = r * b; b = b.sqr(); e >>= 1; }
		return r;
	}
};

typedef ff<fp_cfg> fp_t;
typedef ff<fr_cfg> fr_t;
typedef ff<bn_fp_cfg> bn_fp_t;
typedef ff<bn_fr_cfg> bn_fr_t;

/* Fp2 = Fp[u]/(u^2 + 1), c0 first: the CPU's zp_fp2 / zp_bn254_fp2 layout. (fp2_t is a name inside the
 * template: the injected class name, so the body reads as it did when it was BLS12-381's only.) */
template <class fp_t> struct fp2_tt {
	typedef fp2_tt fp2_t;
	static const int N = fp_t::N;
	fp_t c0, c1;
	ZP_DI static fp2_t zero() { fp2_t r; r.c0 = fp_t::zero(); r.c1 = fp_t::zero(); return r; }
	ZP_DI static fp2_t one() { fp2_t r; r.c0 = fp_t::one(); r.c1 = fp_t::zero(); return r; }
	ZP_DI bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
	ZP_DI bool operator==(const fp2_t &b) const { return c0 == b.c0 && c1 == b.c1; }
	ZP_DI friend fp2_t operator+(const fp2_t &a, const fp2_t &b) { fp2_t r; r.c0 = a.c0 + b.c0; r.c1 = a.c1 + b.c1; return r; }
	ZP_DI friend fp2_t operator-(const fp2_t &a, const fp2_t &b) { fp2_t r; r.c0 = a.c0 - b.c0; r.c1 = a.c1 - b.c1; return r; }
	ZP_DI fp2_t neg() const { fp2_t r; r.c0 = c0.neg(); r.c1 = c1.neg(); return r; }
	ZP_DI fp2_t dbl() const { return *this + *this; }
	ZP_DI friend fp2_t operator*(const fp2_t &a, const fp2_t &b) {
		if (ZP_FP2_LAZY) return mul_lazy_call(a, b);
		fp_t t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
		fp_t t2 = (a.c0 + a.c1) * (b.c0 + b.c1);
		fp2_t r;
		r.c0 = t0 - t1;
		r.c1 = t2 - t0 - t1;
		return r;
	}
	static __device__ __noinline__ fp2_t mul_lazy_call(const fp2_t a, const fp2_t b) {
		uint32_t P[N];
		_Pragma("unroll") for (int i = 0; i < N; i++) P[i] = fp_t::cfg::p(i);
		fp2_t r;
		fp2_mul_lazy<N>(r.c0.l, r.c1.l, a.c0.l, a.c1.l, b.c0.l, b.c1.l, P, fp_t::cfg::INV);
		return r;
	}
	ZP_DI fp2_t sqr() const {
		fp2_t r;
		fp_t t = c0 * c1;
		r.c0 = (c0 + c1) * (c0 - c1);
		r.c1 = t.dbl();
		return r;
	}
};
typedef fp2_tt<fp_t> fp2_t;
typedef fp2_tt<bn_fp_t> bn_fp2_t;

#endif
