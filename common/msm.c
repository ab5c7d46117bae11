/*
 * msm.c — BLS12-381's Pippenger multi-scalar multiplication for G1 and G2 (contract in msm.h); BN254's
 * is bn254_msm.c. What both share is msm_impl.h (signed digits, window sizes) and msm_tmpl.h, the one
 * implementation, instantiated here for G1 over Fp and G2 over Fp2 with the inline field arithmetic of
 * field_impl.h (MULX/ADX when the CPU has it).
 */
#include "msm.h"
#include "msm_impl.h"
#include "fp_ifma.h"

static bool g1_ba_vec(void);
int zp_msm_window_bits(size_t n) { return msm_window(n, msm_use_ba(n, g1_ba_vec() ? MSM_BA_MIN_G1_VEC : MSM_BA_MIN_G1)); }

/* ---- Fp, for G1 ---- */
static inline bool fp_is_zero(const zp_fp *a)
{
	return (a->l[0] | a->l[1] | a->l[2] | a->l[3] | a->l[4] | a->l[5]) == 0;
}
static inline void fp_neg(zp_fp *r, const zp_fp *a) { zp_fp_subc(r, &ZP_FP_ZERO, a); }

/* the MSM is variable time anyway: safegcd inversion (field.c), ~10× faster than a power */
#define fp_inv zp_fp_inv_vartime

#define G(x) g1_##x
#define FE zp_fp
#define AFF zp_g1_affine
#define XYZZ zp_g1_xyzz
#define JAC zp_g1_jac
#define fe_mul zp_fp_mulc
#define fe_sqr zp_fp_sqrc
#define fe_add zp_fp_addc
#define fe_sub zp_fp_subc
#define fe_neg fp_neg
#define fe_is_zero fp_is_zero
#define fe_one ZP_FP_ONE
#define fe_inv fp_inv
#define BA_MIN (g1_ba_vec() ? MSM_BA_MIN_G1_VEC : MSM_BA_MIN_G1)
#define SC zp_fr
#define sc_is_zero zp_fr_is_zero
#define sc_is_one(s) zp_fr_eq(s, &ZP_FR_ONE)
#define sc_from_mont zp_fr_from_mont
#include "msm_tmpl.h"
#undef G
#undef FE
#undef AFF
#undef XYZZ
#undef JAC
#undef fe_mul
#undef fe_sqr
#undef fe_add
#undef fe_sub
#undef fe_neg
#undef fe_is_zero
#undef fe_one
#undef fe_inv
#undef BA_MIN

/*
 * G1's batch of affine additions eight at a time with AVX-512 IFMA (fp_ifma_impl.h), when the CPU
 * has it (ZP_MSM_IFMA=0, or ZP_FIELD_PORTABLE=1, keeps the scalar ba_place / ba_apply). Then
 * ba_place only records (bucket, point, sign) for an affine bucket, and the apply does the rest:
 * pass 1 gathers xP, yP, xB, yB for the eight entries 8j..8j+7 (lane l = entry 8j + l) and forms
 * den = xP − xB, num = ±yP − yB on the lanes, finds P = ±B by x equality (rare: g1_ba_fix makes
 * P = B a doubling entry and drops P = −B, whose bucket empties) and keeps den, num, xB, yB and
 * xB + xP beside the prefix products of den down each lane; one scalar inversion (safegcd,
 * Montgomery's trick over the eight lane totals) serves the batch; pass 2 walks back with the
 * inverses and writes the sums. Values stay in zkpipe's Montgomery form (R = 2^384): an IFMA product
 * (R' = 2^416) of forms x·R·2^-32e1 and y·R·2^-32e2 is xy·R·2^-32(e1+e2+1), so each value has a
 * known "scale" e and the steps are arranged to land back on 0: prefix j has scale j; the lane
 * inverse is taken to scale −ng (ng groups; one scalar product by 2^32); then inv_j has scale −j−1,
 * 1/den_j = inv_j·pre_{j−1} scale −1, λ = num·(1/den) scale 0; λ' = λ·2^32 (shifts, no product:
 * zp_v8_shl) has scale −1, so λ·λ' = λ² and λ'·(xB − x3) land on scale 0. Six vector products an
 * entry, as the scalar path, at ~1/3 the cost each; results reduced to [0, q) before they are stored.
 */
#if defined(__x86_64__) && defined(__GNUC__)
#include "fp_ifma_impl.h"

_Static_assert(sizeof(zp_g1_affine) == 12 * sizeof(uint64_t), "zp_g1_affine is x then y, 6 words each");
static int ba_ifma_on;
static zp_fp ifma_two32, ifma_k2;   /* Montgomery 2^32; 2^448 mod q raw (= 1 at scale −2) */
static __m512i k2_v[8], one_s[8];   /* ifma_k2 and R mod q (the standard form's 1) on all lanes */
static pthread_once_t ba_ifma_once = PTHREAD_ONCE_INIT;

#define IE(x) x
#define IEV(x) zp_v8_##x
#define IE_N 8
#define IE_W 6
#define IE_P ZP_Q52
#define IE_FE zp_fp
#define IE_FE2 zp_fp2
#include "ifma_ext_tmpl.h"   /* ve1, ve2, e1_*, e2_*, v1_*, v2_*, ba_ent_lanes */

static IFMA_FN void ba_ifma_consts(void) { lanes_consts(&ifma_k2, &ZP_FP_ONE); }

static void ba_ifma_init(void)
{
	ba_ifma_on = zp_knobs()->msm_ifma && zp_fp_ifma_available();
	zp_fp_from_u64(&ifma_two32, 1ull << 32);
	zp_fp_mulc(&ifma_k2, &ifma_two32, &ifma_two32);
	if (ba_ifma_on)
		ba_ifma_consts();
}

/* inv = 1/tot lane by lane, times 2^32 (tot < 2^384): an IFMA value at scale e comes back at scale
 * −e − 1. Montgomery's trick over the eight lanes, one scalar inversion; the 2^32 goes on that one. */
static IFMA_FN void v8_lanes_inv(__m512i inv[8], const __m512i tot_v[8])
{
	zp_fp tot[8], pf[8], tinv[8], acc;
	zp_v8_to_fe(tot, tot_v);
	pf[0] = tot[0];
	for (int l = 1; l < 8; l++) zp_fp_mulc(&pf[l], &pf[l - 1], &tot[l]);
	fp_inv(&acc, &pf[7]);
	zp_fp_mulc(&acc, &acc, &ifma_two32);
	for (int l = 7; l > 0; l--) {
		zp_fp_mulc(&tinv[l], &acc, &pf[l - 1]);
		zp_fp_mulc(&acc, &acc, &tot[l]);
	}
	tinv[0] = acc;
	zp_v8_from_fe(inv, tinv);
}

/* The lanes ex of group j whose point has its bucket's x (rare): P = B becomes a doubling entry
 * (num = 3x², den = 2y, the scalar path's), P = −B empties the bucket (den = 1, lane dropped). */
static IFMA_FN __attribute__((noinline, cold)) __mmask8 g1_ba_fix(struct g1_ba *s, size_t j, __mmask8 ex, __m512i D[8],
                                                                 __m512i N[8])
{
	zp_fp d[8], nn[8];
	__mmask8 drop = 0;
	zp_v8_to_fe(d, D);   /* D, N < 2^384: exact */
	zp_v8_to_fe(nn, N);
	for (int l = 0; l < 8; l++) {
		if (!(ex >> l & 1))
			continue;
		const struct g1_ba_ent *e = &s->ent[8 * j + (size_t)l];
		const zp_g1_affine *p = &s->points[e->p & 0x7fffffffu], *B = &s->ab[e->b];
		zp_fp y, t;
		g1_ba_point_y(&y, p, e->p);
		if (memcmp(&y, &B->y, sizeof y) == 0) {
			zp_fp_sqrc(&t, &B->x);
			zp_fp_addc(&nn[l], &t, &t);
			zp_fp_addc(&nn[l], &nn[l], &t);
			zp_fp_addc(&d[l], &B->y, &B->y);
		} else {
			d[l] = ZP_FP_ONE;
			nn[l] = ZP_FP_ZERO;
			drop |= (__mmask8)(1u << l);
		}
	}
	zp_v8_from_fe(D, d);
	zp_v8_from_fe(N, nn);
	return drop;
}

/* The batch (ba_place recorded the entries only): pass 1 gathers xP, yP, xB, yB and forms
 * den = xP − xB, num = ±yP − yB on the lanes (kept, with the prefix products), pass 2 the rest. */
static IFMA_FN void g1_ba_apply_v(struct g1_ba *s)
{
	size_t n = s->nb, ng = (n + 7) / 8, cg = s->cap / 8 + 2;
	__m512i (*pre)[8] = (__m512i (*)[8])s->x8, (*vd)[8] = pre + cg, (*vn)[8] = vd + cg;
	__m512i (*vxb)[8] = vn + cg, (*vyb)[8] = vxb + cg, (*vsx)[8] = vyb + cg;   /* xB, yB, xB + xP */
	uint8_t *drop = (uint8_t *)(vsx + cg);
	__m512i inv[8], t[8], lam[8], lm1[8], x3[8], y3[8], xp[8], yp[8], bi, pi;
	const uint64_t *ab = s->ab[0].x.l, *pts = s->points[0].x.l;
	__mmask8 neg;
	for (size_t j = 0; j < ng; j++) {
		__mmask8 m = (__mmask8)(n - 8 * j >= 8 ? 0xff : (1u << (n - 8 * j)) - 1);
		ba_ent_lanes(s->ent, j, m, 12, &bi, &pi, &neg);   /* zp_g1_affine: x then y, 6 words each */
		__m512i *xb = vxb[j], *yb = vyb[j];
		zp_v8_gather(xp, pts, pi);
		zp_v8_gather(yp, pts, _mm512_add_epi64(pi, _mm512_set1_epi64(6)));
		zp_v8_gather(xb, ab, bi);
		zp_v8_gather(yb, ab, _mm512_add_epi64(bi, _mm512_set1_epi64(6)));
		__mmask8 ex = zp_v8_diff(t, xp, xb) & m;
		for (int k = 0; k < 8; k++) vsx[j][k] = _mm512_add_epi64(xb[k], xp[k]);   /* < 2q, limbs < 2^53 */
		zp_v8_addq(vd[j], t, 2);
		zp_v8_num(vn[j], yp, yb, neg);
		drop[j] = ex ? g1_ba_fix(s, j, ex, vd[j], vn[j]) : 0;
		if (m != 0xff)
			for (int k = 0; k < 8; k++) vd[j][k] = _mm512_mask_blend_epi64(m, one_s[k], vd[j][k]);
		if (j == 0)
			memcpy(pre[0], vd[0], sizeof pre[0]);
		else
			zp_v8_mul(pre[j], pre[j - 1], vd[j]);
	}
	v8_lanes_inv(inv, pre[ng - 1]);              /* scale ng − 1 -> −ng */
	for (size_t j = ng; j-- > 0;) {
		size_t cnt = n - 8 * j >= 8 ? 8 : n - 8 * j;
		__mmask8 m = (__mmask8)(cnt == 8 ? 0xff : (1u << cnt) - 1);
		if (j > 0) {
			zp_v8_mul(t, inv, pre[j - 1]);        /* 1/den_j, scale −1 */
			zp_v8_mul(inv, inv, vd[j]);
		} else {
			memcpy(t, inv, sizeof t);
		}
		ba_ent_lanes(s->ent, j, m, 12, &bi, &pi, &neg);
		zp_v8_mul(lam, vn[j], t);                 /* scale 0 */
		zp_v8_shl(lm1, lam);                      /* λ·2^32: scale −1, < 2q·2^32 */
		zp_v8_mul(x3, lam, lm1);                  /* λ², scale 0, < 2q */
		zp_v8_sub(x3, x3, vsx[j], 4);             /* λ² − xB − xP, < 6q */
		zp_v8_canon(x3);
		zp_v8_sub(t, vxb[j], x3, 2);
		zp_v8_mul(y3, lm1, t);                    /* scale 0 */
		zp_v8_sub(y3, y3, vyb[j], 2);            /* < 4q */
		zp_v8_canon4(y3);
		__mmask8 w = m & (__mmask8)~drop[j];
		zp_v8_scatter((uint64_t *)ab, bi, x3, w);
		zp_v8_scatter((uint64_t *)ab, _mm512_add_epi64(bi, _mm512_set1_epi64(6)), y3, w);
		for (size_t l = 0; l < cnt; l++)
			s->st[s->ent[8 * j + l].b] = (drop[j] >> l & 1) ? BA_INF : BA_AFF;
	}
}

/*
 * The running sums of a task's buckets (Σ (j+1)·B_j), eight segments of nb/8 buckets as the eight
 * lanes: lane l keeps run_l and sum_l over buckets l·S .. l·S + S − 1 (S = nb/8), and the task's
 * result is Σ_l sum_l + (l·S)·run_l (scalar, at the end). Here the values are in IFMA's own
 * Montgomery form (R' = 2^416: one product by K2 = 2^448 mod q on the way in, one by R mod q on the
 * way out), every stored coordinate reduced to [0, q), and the exceptional cases (either operand at
 * infinity, P = ±Q — a sum equals the run whenever a bucket is empty after the first) are lane masks.
 */
static IFMA_FN void g1_ba_reduce_v(struct g1_ba *s, const zp_g1_xyzz *bk, size_t nb, zp_g1_xyzz *out)
{
	size_t S = nb / 8;
	const uint64_t *ab = s->ab[0].x.l, *xb = bk[0].x.l;
	/* zp_g1_affine: 12 words a bucket; zp_g1_xyzz: 24 */
#define J12 _mm512_add_epi64(_mm512_slli_epi64(ji, 3), _mm512_slli_epi64(ji, 2))
	BA_REDUCE_SCAN(v1, ve1, s->st, S,
	               (zp_v8_gather(bx.v, ab, J12), zp_v8_gather(by.v, ab, _mm512_add_epi64(J12, _mm512_set1_epi64(6)))),
	               (e1_in(&B.X, xb, _mm512_slli_epi64(J12, 1), 0), e1_in(&B.Y, xb, _mm512_slli_epi64(J12, 1), 6),
	                e1_in(&B.ZZ, xb, _mm512_slli_epi64(J12, 1), 12), e1_in(&B.ZZZ, xb, _mm512_slli_epi64(J12, 1), 18)));
#undef J12
	/* back to the standard form, then Σ_l sum_l + (l·S)·run_l */
	zp_fp c[8][8];
	const ve1 *from[8] = { &run.X, &run.Y, &run.ZZ, &run.ZZZ, &sum.X, &sum.Y, &sum.ZZ, &sum.ZZZ };
	for (int i = 0; i < 8; i++) e1_out(c[i], from[i]);
	zp_g1_xyzz rl[8], sl[8];
	for (int l = 0; l < 8; l++) {
		rl[l] = (zp_g1_xyzz){ c[0][l], c[1][l], c[2][l], c[3][l] };
		sl[l] = (zp_g1_xyzz){ c[4][l], c[5][l], c[6][l], c[7][l] };
	}
	BA_COMBINE(g1, zp_g1_xyzz, rl, sl, S, out);
}

#define BA_IFMA_ENTRY(g, T, VEC)                                                                  \
	static bool g##_ba_vec(void)                                                               \
	{                                                                                          \
		pthread_once(&ba_ifma_once, ba_ifma_init);                                         \
		return VEC && ba_ifma_on;                                                          \
	}                                                                                          \
	static bool g##_ba_apply_fast(struct g##_ba *s)                                            \
	{                                                                                          \
		pthread_once(&ba_ifma_once, ba_ifma_init);                                         \
		if (!ba_ifma_on)                                                                   \
			return false;                                                              \
		g##_ba_apply_v(s);                                                                 \
		return true;                                                                       \
	}                                                                                          \
	static bool g##_ba_reduce_fast(struct g##_ba *s, const T *bk, size_t nb, T *out)           \
	{                                                                                          \
		pthread_once(&ba_ifma_once, ba_ifma_init);                                         \
		if (!ba_ifma_on || nb < 64 || nb % 8)                                              \
			return false;                                                              \
		g##_ba_reduce_v(s, bk, nb, out);                                                   \
		return true;                                                                       \
	}
#else
/* no IFMA code in this build: the scalar paths run */
#define BA_IFMA_ENTRY(g, T, VEC) BA_SCALAR_ENTRY(g, T)
#endif
BA_IFMA_ENTRY(g1, zp_g1_xyzz, 1)

/* ---- Fp2 = Fp[u]/(u^2 + 1), for G2: fp2_tmpl.h inline over the products above ---- */
#define F2(x) fp2_##x
#define FP2_FN static inline
#define FP2_T zp_fp2
#define FP_T zp_fp
#define fb_add zp_fp_addc
#define fb_sub zp_fp_subc
#define fb_neg fp_neg
#define fb_mul zp_fp_mulc
#define fb_sqr zp_fp_sqrc
#define fb_inv fp_inv
#define fb_is_zero fp_is_zero
#include "fp2_tmpl.h"

#define G(x) g2_##x
#define FE zp_fp2
#define AFF zp_g2_affine
#define XYZZ zp_g2_xyzz
#define JAC zp_g2_jac
#define fe_mul fp2_mul
#define fe_sqr fp2_sqr
#define fe_add fp2_add
#define fe_sub fp2_sub
#define fe_neg fp2_neg
#define fe_is_zero fp2_is_zero
#define fe_one ZP_FP2_ONE
#define fe_inv fp2_inv
#define BA_MIN (g2_ba_vec() ? MSM_BA_MIN_G2_VEC : MSM_BA_MIN_G2)
#include "msm_tmpl.h"   /* SC and sc_* as for G1 */

/*
 * G2's batch the same way over Fp2 lanes (ve2, e2_mul: Karatsuba with one reduction a component, the
 * same scale rule as an Fp product), the denominators inverted through their Fp norms
 * (g2_ba_apply_v); λ² as an Fp2 squaring (two Fp products).
 */
#if defined(__x86_64__) && defined(__GNUC__)
/* G2's P = ±B lanes as G1's (g1_ba_fix) */
static IFMA_FN __attribute__((noinline, cold)) __mmask8 g2_ba_fix(struct g2_ba *s, size_t j, __mmask8 ex, ve2 *D, ve2 *N)
{
	zp_fp2 d[8], nn[8];
	__mmask8 drop = 0;
	ve2_to_fe2(d, D);
	ve2_to_fe2(nn, N);
	for (int l = 0; l < 8; l++) {
		if (!(ex >> l & 1))
			continue;
		const struct g2_ba_ent *e = &s->ent[8 * j + (size_t)l];
		const zp_g2_affine *p = &s->points[e->p & 0x7fffffffu], *B = &s->ab[e->b];
		zp_fp2 y, t;
		g2_ba_point_y(&y, p, e->p);
		if (memcmp(&y, &B->y, sizeof y) == 0) {
			fp2_sqr(&t, &B->x);
			fp2_add(&nn[l], &t, &t);
			fp2_add(&nn[l], &nn[l], &t);
			fp2_add(&d[l], &B->y, &B->y);
		} else {
			d[l] = ZP_FP2_ONE;
			nn[l] = ZP_FP2_ZERO;
			drop |= (__mmask8)(1u << l);
		}
	}
	ve2_from_fe2(D, d);
	ve2_from_fe2(N, nn);
	return drop;
}

/* G1's apply over Fp2 lanes, the denominators inverted through their norms: 1/D = conj(D)/|D|², so
 * the prefix products and the lane inverse are of Fp values (|D|² at scale 1: prefix j at scale
 * 2j + 1, the lane inverse taken to −2ng, inv_j at −2j − 2, 1/|D_j|² = inv_j·pre_{j−1} at −2, and
 * conj(D)·that at −1 as in G1). */
static IFMA_FN void g2_ba_apply_v(struct g2_ba *s)
{
	size_t n = s->nb, ng = (n + 7) / 8, cg = s->cap / 8 + 2;
	ve1 *pre = (ve1 *)s->x8, *vnr = pre + cg, inv, tn;
	__m512i zero8[8];
	for (int k = 0; k < 8; k++) zero8[k] = _mm512_setzero_si512();
	ve2 *vd = (ve2 *)(vnr + cg), *vn = vd + cg, t, lam, lm1, x3, y3, xp, yp;
	ve2 *vxb = vn + cg, *vyb = vxb + cg, *vsx = vyb + cg;   /* xB, yB, xB + xP */
	uint8_t *drop = (uint8_t *)(vsx + cg);
	const uint64_t *ab = s->ab[0].x.c0.l, *pts = s->points[0].x.c0.l;
	__m512i bi, pi;
	__mmask8 neg;
#define G2_GATHER(r, base, idx, off)                                                              \
	(zp_v8_gather((r).c0.v, base, _mm512_add_epi64(idx, _mm512_set1_epi64(off))),              \
	 zp_v8_gather((r).c1.v, base, _mm512_add_epi64(idx, _mm512_set1_epi64((off) + 6))))
	for (size_t j = 0; j < ng; j++) {
		__mmask8 m = (__mmask8)(n - 8 * j >= 8 ? 0xff : (1u << (n - 8 * j)) - 1);
		ba_ent_lanes(s->ent, j, m, 24, &bi, &pi, &neg);   /* zp_g2_affine: x.c0 x.c1 y.c0 y.c1, 6 words each */
		ve2 *xb = &vxb[j], *yb = &vyb[j];
		G2_GATHER(xp, pts, pi, 0);
		G2_GATHER(yp, pts, pi, 12);
		G2_GATHER(*xb, ab, bi, 0);
		G2_GATHER(*yb, ab, bi, 12);
		__mmask8 ex = zp_v8_diff(t.c0.v, xp.c0.v, xb->c0.v) & zp_v8_diff(t.c1.v, xp.c1.v, xb->c1.v) & m;
		for (int k = 0; k < 8; k++) {   /* < 2q, limbs < 2^53 */
			vsx[j].c0.v[k] = _mm512_add_epi64(xb->c0.v[k], xp.c0.v[k]);
			vsx[j].c1.v[k] = _mm512_add_epi64(xb->c1.v[k], xp.c1.v[k]);
		}
		zp_v8_addq(vd[j].c0.v, t.c0.v, 2);
		zp_v8_addq(vd[j].c1.v, t.c1.v, 2);
		zp_v8_num(vn[j].c0.v, yp.c0.v, yb->c0.v, neg);
		zp_v8_num(vn[j].c1.v, yp.c1.v, yb->c1.v, neg);
		drop[j] = ex ? g2_ba_fix(s, j, ex, &vd[j], &vn[j]) : 0;
		if (m != 0xff)
			for (int k = 0; k < 8; k++) {
				vd[j].c0.v[k] = _mm512_mask_blend_epi64(m, one_s[k], vd[j].c0.v[k]);
				vd[j].c1.v[k] = _mm512_maskz_mov_epi64(m, vd[j].c1.v[k]);
			}
		e2_norm(&vnr[j], &vd[j]);                /* scale 1 */
		if (j == 0)
			pre[0] = vnr[0];
		else
			e1_mul(&pre[j], &pre[j - 1], &vnr[j]);   /* scale 2j + 1 */
	}
	v8_lanes_inv(inv.v, pre[ng - 1].v);          /* scale 2ng − 1 -> −2ng */
	for (size_t j = ng; j-- > 0;) {
		size_t cnt = n - 8 * j >= 8 ? 8 : n - 8 * j;
		__mmask8 m = (__mmask8)(cnt == 8 ? 0xff : (1u << cnt) - 1);
		if (j > 0) {
			e1_mul(&tn, &inv, &pre[j - 1]);     /* 1/|D_j|², scale −2 */
			e1_mul(&inv, &inv, &vnr[j]);
		} else {
			tn = inv;
		}
		e1_mul(&t.c0, &vd[j].c0, &tn);           /* 1/D_j = conj(D_j)/|D_j|², scale −1 */
		e1_mul(&t.c1, &vd[j].c1, &tn);
		zp_v8_sub(t.c1.v, zero8, t.c1.v, 2);      /* −(D1/|D|²) */
		ba_ent_lanes(s->ent, j, m, 24, &bi, &pi, &neg);
		const ve2 *xb = &vxb[j], *yb = &vyb[j];
		e2_mul(&lam, &vn[j], &t);                   /* scale 0 */
		zp_v8_csub(lam.c0.v, 1);
		zp_v8_csub(lam.c1.v, 1);                  /* < q */
		{   /* λ² = (λ0 + λ1)(λ0 − λ1) + 2λ0λ1·u, the second factors times 2^32 (scale −1) */
			ve1 sm, df;
			e1_add(&sm, &lam.c0, &lam.c1);
			e1_sub(&df, &lam.c0, &lam.c1, 1);   /* both < 2q */
			zp_v8_shl(df.v, df.v);
			e1_mul(&x3.c0, &sm, &df);           /* scale 0, < 2q */
			zp_v8_shl(lm1.c0.v, lam.c0.v);
			zp_v8_shl(lm1.c1.v, lam.c1.v);
			e1_mul(&x3.c1, &lam.c0, &lm1.c1);
			e1_add(&x3.c1, &x3.c1, &x3.c1);     /* < 4q */
		}
		zp_v8_sub(x3.c0.v, x3.c0.v, vsx[j].c0.v, 4);   /* λ² − xB − xP: < 6q */
		zp_v8_sub(x3.c1.v, x3.c1.v, vsx[j].c1.v, 4);   /* < 8q */
		zp_v8_canon(x3.c0.v);
		zp_v8_canon(x3.c1.v);
		zp_v8_sub(t.c0.v, xb->c0.v, x3.c0.v, 1);
		zp_v8_sub(t.c1.v, xb->c1.v, x3.c1.v, 1);   /* < 2q: (lm1 sum)·(t sum) < 8q²·2^32 < 2^416·q */
		e2_mul(&y3, &lm1, &t);                  /* scale 0 */
		for (int c = 0; c < 2; c++) {
			__m512i *y = c ? y3.c1.v : y3.c0.v;
			zp_v8_sub(y, y, c ? yb->c1.v : yb->c0.v, 2);   /* < 4q */
			zp_v8_canon4(y);
		}
		__mmask8 w = m & (__mmask8)~drop[j];
		zp_v8_scatter((uint64_t *)ab, bi, x3.c0.v, w);
		zp_v8_scatter((uint64_t *)ab, _mm512_add_epi64(bi, _mm512_set1_epi64(6)), x3.c1.v, w);
		zp_v8_scatter((uint64_t *)ab, _mm512_add_epi64(bi, _mm512_set1_epi64(12)), y3.c0.v, w);
		zp_v8_scatter((uint64_t *)ab, _mm512_add_epi64(bi, _mm512_set1_epi64(18)), y3.c1.v, w);
		for (size_t l = 0; l < cnt; l++)
			s->st[s->ent[8 * j + l].b] = (drop[j] >> l & 1) ? BA_INF : BA_AFF;
	}
#undef G2_GATHER
}

static IFMA_FN void e2_gather(ve2 *r, const uint64_t *base, __m512i idx, int off)
{
	zp_v8_gather(r->c0.v, base, _mm512_add_epi64(idx, _mm512_set1_epi64(off)));
	zp_v8_gather(r->c1.v, base, _mm512_add_epi64(idx, _mm512_set1_epi64(off + 6)));
}
/* G2's running sums as G1's (g1_ba_reduce_v), over Fp2 lanes */
static IFMA_FN void g2_ba_reduce_v(struct g2_ba *s, const zp_g2_xyzz *bk, size_t nb, zp_g2_xyzz *out)
{
	size_t S = nb / 8;
	const uint64_t *ab = s->ab[0].x.c0.l, *xb = bk[0].x.c0.l;
	/* zp_g2_affine: 24 words a bucket; zp_g2_xyzz: 48 */
#define J24 _mm512_add_epi64(_mm512_slli_epi64(ji, 4), _mm512_slli_epi64(ji, 3))
	BA_REDUCE_SCAN(v2, ve2, s->st, S,
	               (e2_gather(&bx, ab, J24, 0), e2_gather(&by, ab, J24, 12)),
	               (e2_in(&B.X, xb, _mm512_slli_epi64(J24, 1), 0), e2_in(&B.Y, xb, _mm512_slli_epi64(J24, 1), 12),
	                e2_in(&B.ZZ, xb, _mm512_slli_epi64(J24, 1), 24), e2_in(&B.ZZZ, xb, _mm512_slli_epi64(J24, 1), 36)));
#undef J24
	zp_fp c[16][8];
	const ve1 *from[16] = { &run.X.c0, &run.X.c1, &run.Y.c0, &run.Y.c1, &run.ZZ.c0, &run.ZZ.c1, &run.ZZZ.c0, &run.ZZZ.c1,
	                        &sum.X.c0, &sum.X.c1, &sum.Y.c0, &sum.Y.c1, &sum.ZZ.c0, &sum.ZZ.c1, &sum.ZZZ.c0, &sum.ZZZ.c1 };
	for (int i = 0; i < 16; i++) e1_out(c[i], from[i]);
	zp_g2_xyzz rl[8], sl[8];
	for (int l = 0; l < 8; l++) {
		rl[l] = (zp_g2_xyzz){ { c[0][l], c[1][l] }, { c[2][l], c[3][l] }, { c[4][l], c[5][l] }, { c[6][l], c[7][l] } };
		sl[l] = (zp_g2_xyzz){ { c[8][l], c[9][l] }, { c[10][l], c[11][l] }, { c[12][l], c[13][l] }, { c[14][l], c[15][l] } };
	}
	BA_COMBINE(g2, zp_g2_xyzz, rl, sl, S, out);
}

#endif
BA_IFMA_ENTRY(g2, zp_g2_xyzz, 1)
#undef G
#undef FE
#undef AFF
#undef XYZZ
#undef JAC
#undef fe_mul
#undef fe_sqr
#undef fe_add
#undef fe_sub
#undef fe_neg
#undef fe_is_zero
#undef fe_one
#undef fe_inv
#undef BA_MIN
#undef SC
#undef sc_is_zero
#undef sc_is_one
#undef sc_from_mont

/* ---- public entry points ---- */

size_t zp_msm_g1_scratch_size(size_t n) { return g1_scratch_for(n, zp_par_threads()); }
size_t zp_msm_g2_scratch_size(size_t n) { return g2_scratch_for(n, zp_par_threads()); }

int zp_msm_g1(zp_g1_jac *out, const zp_g1_affine *points, const zp_fr *scalars, size_t n,
	      void *scratch, size_t scratch_len)
{
	return g1_msm(out, points, scalars, n, scratch, scratch_len);
}

int zp_msm_g2(zp_g2_jac *out, const zp_g2_affine *points, const zp_fr *scalars, size_t n,
	      void *scratch, size_t scratch_len)
{
	return g2_msm(out, points, scalars, n, scratch, scratch_len);
}

void zp_msm_g1_sum_selected(zp_g1_jac *out, const zp_g1_affine *points, const uint8_t *sel, size_t n)
{
	g1_sum_selected(out, points, sel, n);
}

void zp_msm_g2_sum_selected(zp_g2_jac *out, const zp_g2_affine *points, const uint8_t *sel, size_t n)
{
	g2_sum_selected(out, points, sel, n);
}
