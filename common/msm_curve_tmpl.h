/*
 * msm_curve_tmpl.h — internal: one curve's Pippenger MSMs (msm.h's contract; bn254_msm.h's is the same),
 * written once and included once by each curve's file, which holds only that curve's parameters (msm.c:
 * BLS12-381; bn254_msm.c: BN254), as ntt.c and bn254_ntt.c do for ntt_tmpl.h. Here: Fp2 inline for the
 * G2 buckets (fp2_tmpl.h), the curve's IFMA lane elements (ifma_ext_tmpl.h) and what its vector batches
 * share (the lane inverse, the prefetch, the one-time check and constants), G1 over Fp and G2 over Fp2
 * (msm_tmpl.h, each followed by its vector batch-affine passes, msm_ba_v_tmpl.h), and the public entry
 * points. What the curves' MSMs share besides: msm_impl.h (signed digits, window and batch sizes).
 *
 * The includer defines (names by the curve naming rule: BLS12-381 unprefixed):
 *   MC(x)        the curve's static names (x; bn254_x)
 *   MC_PUB(x)    its public names and types (zp_x; zp_bn254_x): fp, fp2, fr, g1_affine, msm_g1, ...
 *   MC_FP_ONE MC_FP2_ONE MC_FR_ONE   1 in Montgomery form
 *   fp_mul fp_sqr fp_add fp_sub fp_neg fp_inv fp_is_zero   Fp's ops, (r, a[, b]), inline where they can
 *                be; fp_inv the variable-time one (safegcd: the MSM is variable time anyway)
 *   and in x86-64 GCC/Clang builds, its Fp's IFMA engine (an ifma_tmpl.h instance, included before):
 *   MC_V(x)      the engine's names (zp_v8_x, bn_v5_x); MC_N its limbs, MC_W Fp's 64-bit words
 *   MC_P52       p in MC_N 52-bit limbs; MC_MODULUS p in MC_W words (the engine's constants are checked
 *                against it once before use)
 *   MC_PF        vector batches: how many groups of eight entries ahead their points and buckets are
 *                prefetched (0: none; measured per curve)
 * None of them is undefined here: the includer's file ends with them.
 */
#include "msm_impl.h"
#include "fp_ifma.h"

/* ---- Fp2 = Fp[u]/(u^2 + 1), for G2: fp2_tmpl.h inline over the curve's Fp ops ---- */
#define F2(x) MC(fp2_##x)
#define FP2_FN static inline
#define FP2_T MC_PUB(fp2)
#define FP_T MC_PUB(fp)
#define fb_add fp_add
#define fb_sub fp_sub
#define fb_neg fp_neg
#define fb_mul fp_mul
#define fb_sqr fp_sqr
#define fb_inv fp_inv
#define fb_is_zero fp_is_zero
#include "fp2_tmpl.h"

/* ---- the curve's IFMA lanes: what both groups' vector batches use ---- */
#if defined(__x86_64__) && defined(__GNUC__)
static int MC(ifma_on);                   /* the vector batches run (CPU, knobs, the engine's constants) */
static MC_PUB(fp) MC(two_s);              /* 2^S = R'/R, Montgomery form */
static __m512i MC(k2_v)[MC_N];            /* 2^2S·R raw on all lanes: x·R -> x·R' in one product */
static __m512i MC(one_s)[MC_N];           /* R mod p (the standard form's 1) on all lanes */
static pthread_once_t MC(ifma_once) = PTHREAD_ONCE_INIT;

#define IE(x) MC(x)
#define IEV(x) MC_V(x)
#define IE_N MC_N
#define IE_W MC_W
#define IE_P MC_P52
#define IE_FE MC_PUB(fp)
#define IE_FE2 MC_PUB(fp2)
#include "ifma_ext_tmpl.h"   /* MC(ve1), MC(ve2), MC(e1_*), MC(e2_*), MC(v1_*), MC(v2_*), MC(ba_ent_lanes) */

static IFMA_FN void MC(ifma_consts)(void)
{
	MC_PUB(fp) k2;
	fp_mul(&k2, &MC(two_s), &MC(two_s));   /* 2^S·R · 2^S·R / R */
	MC(lanes_consts)(&k2, &MC_FP_ONE);
}

static void MC(ifma_init)(void)
{
	MC(ifma_on) = MC_V(consts_ok)(MC_MODULUS) && zp_knobs()->msm_ifma && zp_fp_ifma_available();
	MC_PUB(fp_from_u64)(&MC(two_s), 1ull << (52 * MC_N - 64 * MC_W));
	if (MC(ifma_on))
		MC(ifma_consts)();
}

/* inv = 1/tot lane by lane, times 2^S (tot < 2p): an IFMA value at scale e comes back at scale −e − 1.
 * Montgomery's trick over the eight lanes, one scalar inversion; the 2^S goes on that one. */
static IFMA_FN void MC(lanes_inv)(__m512i inv[MC_N], const __m512i tot_v[MC_N])
{
	MC_PUB(fp) tot[8], pf[8], tinv[8], acc;
	__m512i t[MC_N];
	memcpy(t, tot_v, sizeof t);
	MC_V(csub)(t, 1);
	MC_V(to_fe)(tot, t);
	pf[0] = tot[0];
	for (int l = 1; l < 8; l++) fp_mul(&pf[l], &pf[l - 1], &tot[l]);
	fp_inv(&acc, &pf[7]);
	fp_mul(&acc, &acc, &MC(two_s));
	for (int l = 7; l > 0; l--) {
		fp_mul(&tinv[l], &acc, &pf[l - 1]);
		fp_mul(&acc, &acc, &tot[l]);
	}
	tinv[0] = acc;
	MC_V(from_fe)(inv, tinv);
}

/* Prefetch the points and buckets of group g's entries (the batch knows them all: the gathers of a group
 * MC_PF ahead then find them in cache; the points are random reads over the whole base array) */
static inline void MC(ba_prefetch_group)(const void *ent, size_t n, size_t g, const uint64_t *pts,
                                         const uint64_t *ab, unsigned words)
{
	const uint32_t *e = (const uint32_t *)ent;
	size_t lo = 8 * g, hi = lo + 8 < n ? lo + 8 : n;
	for (size_t i = lo; i < hi; i++) {
		const char *p = (const char *)(pts + (size_t)(e[2 * i + 1] & 0x7fffffffu) * words);
		const char *b = (const char *)(ab + (size_t)e[2 * i] * words);
		for (unsigned o = 0; o < words * 8; o += 64) {
			__builtin_prefetch(p + o);
			__builtin_prefetch(b + o, 1);
		}
		__builtin_prefetch(p + words * 8 - 1);
		__builtin_prefetch(b + words * 8 - 1, 1);
	}
}
/* At group j of ng in a vector batch: group j + MC_PF (at j = 0 first the groups before it); nothing when
 * MC_PF is 0 */
static inline void MC(ba_prefetch)(const void *ent, size_t n, size_t j, size_t ng, const uint64_t *pts,
                                   const uint64_t *ab, unsigned words)
{
#if MC_PF
	if (j == 0)
		for (size_t g = 0; g < ng && g < MC_PF; g++)
			MC(ba_prefetch_group)(ent, n, g, pts, ab, words);
	if (j + MC_PF < ng)
		MC(ba_prefetch_group)(ent, n, j + MC_PF, pts, ab, words);
#else
	(void)ent, (void)n, (void)j, (void)ng, (void)pts, (void)ab, (void)words;
#endif
}
#endif

#define SC MC_PUB(fr)
#define sc_is_zero MC_PUB(fr_is_zero)
#define sc_is_one(s) MC_PUB(fr_eq)(s, &MC_FR_ONE)
#define sc_from_mont MC_PUB(fr_from_mont)

/* ---- G1 over Fp ---- */
#define G(x) MC(g1_##x)
#define FE MC_PUB(fp)
#define AFF MC_PUB(g1_affine)
#define XYZZ MC_PUB(g1_xyzz)
#define JAC MC_PUB(g1_jac)
#define fe_mul fp_mul
#define fe_sqr fp_sqr
#define fe_add fp_add
#define fe_sub fp_sub
#define fe_neg fp_neg
#define fe_is_zero fp_is_zero
#define fe_one MC_FP_ONE
#define fe_inv fp_inv
#define BA_MIN (G(ba_vec)() ? MSM_BA_MIN_G1_VEC : MSM_BA_MIN_G1)
#include "msm_tmpl.h"
#define MV_DEG 1
#include "msm_ba_v_tmpl.h"   /* ends the group: undefines G, FE, ..., BA_MIN */

/* ---- G2 over Fp2 ---- */
#define G(x) MC(g2_##x)
#define FE MC_PUB(fp2)
#define AFF MC_PUB(g2_affine)
#define XYZZ MC_PUB(g2_xyzz)
#define JAC MC_PUB(g2_jac)
#define fe_mul MC(fp2_mul)
#define fe_sqr MC(fp2_sqr)
#define fe_add MC(fp2_add)
#define fe_sub MC(fp2_sub)
#define fe_neg MC(fp2_neg)
#define fe_is_zero MC(fp2_is_zero)
#define fe_one MC_FP2_ONE
#define fe_inv MC(fp2_inv)
#define BA_MIN (G(ba_vec)() ? MSM_BA_MIN_G2_VEC : MSM_BA_MIN_G2)
#include "msm_tmpl.h"
#define MV_DEG 2
#include "msm_ba_v_tmpl.h"   /* ends the group: undefines G, FE, ..., BA_MIN */
#undef SC
#undef sc_is_zero
#undef sc_is_one
#undef sc_from_mont

/* ---- public entry points ---- */

size_t MC_PUB(msm_g1_scratch_size)(size_t n) { return MC(g1_scratch_for)(n, zp_par_threads()); }
size_t MC_PUB(msm_g2_scratch_size)(size_t n) { return MC(g2_scratch_for)(n, zp_par_threads()); }

int MC_PUB(msm_g1)(MC_PUB(g1_jac) *out, const MC_PUB(g1_affine) *points, const MC_PUB(fr) *scalars, size_t n,
                   void *scratch, size_t scratch_len)
{
	return MC(g1_msm)(out, points, scalars, n, scratch, scratch_len);
}

int MC_PUB(msm_g2)(MC_PUB(g2_jac) *out, const MC_PUB(g2_affine) *points, const MC_PUB(fr) *scalars, size_t n,
                   void *scratch, size_t scratch_len)
{
	return MC(g2_msm)(out, points, scalars, n, scratch, scratch_len);
}

void MC_PUB(msm_g1_sum_selected)(MC_PUB(g1_jac) *out, const MC_PUB(g1_affine) *points, const uint8_t *sel, size_t n)
{
	MC(g1_sum_selected)(out, points, sel, n);
}

void MC_PUB(msm_g2_sum_selected)(MC_PUB(g2_jac) *out, const MC_PUB(g2_affine) *points, const uint8_t *sel, size_t n)
{
	MC(g2_sum_selected)(out, points, sel, n);
}
