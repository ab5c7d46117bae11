/*
 * bn254_msm.c — BN254's Pippenger multi-scalar multiplication for G1 and G2 (contract in bn254_msm.h):
 * msm_tmpl.h, the one implementation msm.c instantiates for BLS12-381, over BN254's Fp and Fp2 (shared
 * parts in msm_impl.h).
 */
#include "bn254_msm.h"
#include "msm_impl.h"
#include "fp_ifma.h"

/*
 * BN254 (bn254_msm.h): the same Pippenger, XYZZ and batch-affine paths over BN254's Fp and Fp2, with
 * BN254's Fr scalars (254 bits, read as 256 like BLS12-381's). Where the CPU has AVX-512 IFMA, the batches
 * and running sums are vector ones in five 52-bit limbs (bn254_ifma_impl.h; below), from the same 512 / 64
 * scalars as BLS12-381's; otherwise the scalar batch. The inversion is safegcd's variable-time one (one per
 * batch of additions), as BLS12-381's.
 */
static inline void bn_fp_add(zp_bn254_fp *r, const zp_bn254_fp *a, const zp_bn254_fp *b)
{
	zp_mod4_addc(r->l, a->l, b->l, ZP_BN254_FP_MODULUS);
}
static inline void bn_fp_sub(zp_bn254_fp *r, const zp_bn254_fp *a, const zp_bn254_fp *b)
{
	zp_mod4_subc(r->l, a->l, b->l, ZP_BN254_FP_MODULUS);
}
static inline void bn_fp_neg(zp_bn254_fp *r, const zp_bn254_fp *a) { bn_fp_sub(r, &ZP_BN254_FP_ZERO, a); }
static inline bool bn_fp_is_zero(const zp_bn254_fp *a) { return (a->l[0] | a->l[1] | a->l[2] | a->l[3]) == 0; }
static inline void bn_fp_sqr(zp_bn254_fp *r, const zp_bn254_fp *a) { zp_bn254_fp_mul_fast(r, a, a); }
#define SC zp_bn254_fr
#define sc_is_zero zp_bn254_fr_is_zero
#define sc_is_one(s) zp_bn254_fr_eq(s, &ZP_BN254_FR_ONE)
#define sc_from_mont zp_bn254_fr_from_mont

#define G(x) bn254_g1_##x
#define FE zp_bn254_fp
#define AFF zp_bn254_g1_affine
#define XYZZ zp_bn254_g1_xyzz
#define JAC zp_bn254_g1_jac
#define fe_mul zp_bn254_fp_mul_fast
#define fe_sqr bn_fp_sqr
#define fe_add bn_fp_add
#define fe_sub bn_fp_sub
#define fe_neg bn_fp_neg
#define fe_is_zero bn_fp_is_zero
#define fe_one ZP_BN254_FP_ONE
#define fe_inv zp_bn254_fp_inv_vartime
#define BA_MIN (bn254_g1_ba_vec() ? MSM_BA_MIN_G1_VEC : MSM_BA_MIN_G1)
#include "msm_tmpl.h"

/*
 * BN254's batches of affine additions eight at a time with AVX-512 IFMA: BLS12-381's g1_ba_apply_v
 * (msm.c: its comment says how) in five 52-bit limbs (bn254_ifma_impl.h: R' = 2^260, so a product
 * of scales e1, e2 lands at e1 + e2 + 1 in units of 2^-4, and λ' = λ·2^4 is four shifts). p < 2^254
 * leaves less room above 4p than BLS12-381's q does under 2^416, so xB − x3 is taken + p (not + 2p):
 * λ'·(xB − x3) < 32p·2p < p·2^260. The running sums stay scalar (msm_tmpl.h's loop).
 */
#if defined(__x86_64__) && defined(__GNUC__)
#include "bn254_ifma_impl.h"

_Static_assert(sizeof(zp_bn254_g1_affine) == 8 * sizeof(uint64_t), "zp_bn254_g1_affine is x then y, 4 words each");
static int bn_ifma_on;
static zp_bn254_fp bn_two4;         /* Montgomery 2^4 */
static __m512i bn_one_s[5];         /* R mod p (the standard form's 1) on all lanes */
static __m512i bn_k2_v[5];          /* 2^264 mod p raw: x·R -> x·R' in one product */
static pthread_once_t bn_ifma_once = PTHREAD_ONCE_INIT;

#define IE(x) bn_##x
#define IEV(x) bn_v5_##x
#define IE_N 5
#define IE_W 4
#define IE_P ZP_BN_P52
#define IE_FE zp_bn254_fp
#define IE_FE2 zp_bn254_fp2
#include "ifma_ext_tmpl.h"   /* bn_ve1, bn_ve2, bn_e1_*, bn_e2_*, bn_v1_*, bn_v2_*, bn_ba_ent_lanes */

static IFMA_FN void bn_ifma_consts(void)
{
	zp_bn254_fp k2;
	zp_bn254_fp_mul_fast(&k2, &bn_two4, &bn_two4);   /* 2^8·R = 2^264 raw */
	bn_lanes_consts(&k2, &ZP_BN254_FP_ONE);
}

static void bn_ifma_init(void)
{
	bn_ifma_on = bn_v5_consts_ok(ZP_BN254_FP_MODULUS) && zp_knobs()->msm_ifma && zp_fp_ifma_available();
	zp_bn254_fp_from_u64(&bn_two4, 16);
	if (bn_ifma_on)
		bn_ifma_consts();
}

/* inv = 1/tot lane by lane, times 2^4 (tot < 2p): scale e -> −e − 1; Montgomery's trick over the lanes */
static IFMA_FN void bn_v5_lanes_inv(__m512i inv[5], const __m512i tot_v[5])
{
	zp_bn254_fp tot[8], pf[8], tinv[8], acc;
	__m512i t[5];
	memcpy(t, tot_v, sizeof t);
	bn_v5_csub(t, 1);
	bn_v5_to_fe(tot, t);
	pf[0] = tot[0];
	for (int l = 1; l < 8; l++) zp_bn254_fp_mul_fast(&pf[l], &pf[l - 1], &tot[l]);
	zp_bn254_fp_inv_vartime(&acc, &pf[7]);
	zp_bn254_fp_mul_fast(&acc, &acc, &bn_two4);
	for (int l = 7; l > 0; l--) {
		zp_bn254_fp_mul_fast(&tinv[l], &acc, &pf[l - 1]);
		zp_bn254_fp_mul_fast(&acc, &acc, &tot[l]);
	}
	tinv[0] = acc;
	bn_v5_from_fe(inv, tinv);
}
/* BLS12-381's g1_ba_reduce_v (msm.c): eight segments of nb/8 buckets as the lanes */
static IFMA_FN void bn254_g1_ba_reduce_v(struct bn254_g1_ba *s, const zp_bn254_g1_xyzz *bk, size_t nb, zp_bn254_g1_xyzz *out)
{
	size_t S = nb / 8;
	const uint64_t *ab = s->ab[0].x.l, *xb = bk[0].x.l;
	/* zp_bn254_g1_affine: 8 words a bucket; zp_bn254_g1_xyzz: 16 */
#define J8 _mm512_slli_epi64(ji, 3)
	BA_REDUCE_SCAN(bn_v1, bn_ve1, s->st, S,
	               (bn_v5_gather(bx.v, ab, J8), bn_v5_gather(by.v, ab, _mm512_add_epi64(J8, _mm512_set1_epi64(4)))),
	               (bn_e1_in(&B.X, xb, _mm512_slli_epi64(J8, 1), 0), bn_e1_in(&B.Y, xb, _mm512_slli_epi64(J8, 1), 4),
	                bn_e1_in(&B.ZZ, xb, _mm512_slli_epi64(J8, 1), 8), bn_e1_in(&B.ZZZ, xb, _mm512_slli_epi64(J8, 1), 12)));
#undef J8
	zp_bn254_fp c[8][8];
	const bn_ve1 *from[8] = { &run.X, &run.Y, &run.ZZ, &run.ZZZ, &sum.X, &sum.Y, &sum.ZZ, &sum.ZZZ };
	for (int i = 0; i < 8; i++) bn_e1_out(c[i], from[i]);
	zp_bn254_g1_xyzz rl[8], sl[8];
	for (int l = 0; l < 8; l++) {
		rl[l] = (zp_bn254_g1_xyzz){ c[0][l], c[1][l], c[2][l], c[3][l] };
		sl[l] = (zp_bn254_g1_xyzz){ c[4][l], c[5][l], c[6][l], c[7][l] };
	}
	BA_COMBINE(bn254_g1, zp_bn254_g1_xyzz, rl, sl, S, out);
}

_Static_assert(sizeof(struct bn254_g1_ba_ent) == 8, "an entry is one word: bucket, then point | sign << 31");

/* P = ±B lanes (rare): P = B a doubling entry (num = 3x², den = 2y), P = −B dropped (bucket empties) */
static IFMA_FN __attribute__((noinline, cold)) __mmask8 bn254_g1_ba_fix(struct bn254_g1_ba *s, size_t j, __mmask8 ex,
                                                                       __m512i D[5], __m512i N[5])
{
	zp_bn254_fp d[8], nn[8];
	__mmask8 drop = 0;
	__m512i t[5];
	memcpy(t, D, sizeof t);
	bn_v5_to_fe(d, t);   /* D, N < 2^256: exact */
	bn_v5_to_fe(nn, N);
	for (int l = 0; l < 8; l++) {
		if (!(ex >> l & 1))
			continue;
		const struct bn254_g1_ba_ent *e = &s->ent[8 * j + (size_t)l];
		const zp_bn254_g1_affine *p = &s->points[e->p & 0x7fffffffu], *B = &s->ab[e->b];
		zp_bn254_fp y, u;
		bn254_g1_ba_point_y(&y, p, e->p);
		if (memcmp(&y, &B->y, sizeof y) == 0) {
			bn_fp_sqr(&u, &B->x);
			bn_fp_add(&nn[l], &u, &u);
			bn_fp_add(&nn[l], &nn[l], &u);
			bn_fp_add(&d[l], &B->y, &B->y);
		} else {
			d[l] = ZP_BN254_FP_ONE;
			nn[l] = ZP_BN254_FP_ZERO;
			drop |= (__mmask8)(1u << l);
		}
	}
	bn_v5_from_fe(D, d);
	bn_v5_from_fe(N, nn);
	return drop;
}

/* Prefetch the points and buckets of group j's entries (the batch knows them all: the gathers of a
 * group a few ahead then find them in cache; the points are random reads over the whole base array) */
#define BN_PF_GROUPS 4
static inline void bn_ba_prefetch(const void *ent, size_t n, size_t j, const uint64_t *pts, const uint64_t *ab,
                                  unsigned words)
{
	const uint32_t *e = (const uint32_t *)ent;
	size_t lo = 8 * j, hi = lo + 8 < n ? lo + 8 : n;
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

static IFMA_FN void bn254_g1_ba_apply_v(struct bn254_g1_ba *s)
{
	size_t n = s->nb, ng = (n + 7) / 8, cg = s->cap / 8 + 2;
	__m512i (*pre)[5] = (__m512i (*)[5])s->x8, (*vd)[5] = pre + cg, (*vn)[5] = vd + cg;
	__m512i (*vxb)[5] = vn + cg, (*vyb)[5] = vxb + cg, (*vsx)[5] = vyb + cg;   /* xB, yB, xB + xP */
	uint8_t *drop = (uint8_t *)(vsx + cg);
	__m512i inv[5], t[5], lam[5], lm1[5], x3[5], y3[5], xp[5], yp[5], bi, pi;
	const uint64_t *ab = s->ab[0].x.l, *pts = s->points[0].x.l;
	__mmask8 neg;
	for (size_t j = 0; j < ng && j < BN_PF_GROUPS; j++)
		bn_ba_prefetch(s->ent, n, j, pts, ab, 8);
	for (size_t j = 0; j < ng; j++) {
		__mmask8 m = (__mmask8)(n - 8 * j >= 8 ? 0xff : (1u << (n - 8 * j)) - 1);
		if (j + BN_PF_GROUPS < ng)
			bn_ba_prefetch(s->ent, n, j + BN_PF_GROUPS, pts, ab, 8);
		bn_ba_ent_lanes(s->ent, j, m, 8, &bi, &pi, &neg);
		__m512i *xb = vxb[j], *yb = vyb[j];
		bn_v5_gather(xp, pts, pi);
		bn_v5_gather(yp, pts, _mm512_add_epi64(pi, _mm512_set1_epi64(4)));
		bn_v5_gather(xb, ab, bi);
		bn_v5_gather(yb, ab, _mm512_add_epi64(bi, _mm512_set1_epi64(4)));
		__mmask8 ex = bn_v5_diff(t, xp, xb) & m;
		for (int k = 0; k < 5; k++) vsx[j][k] = _mm512_add_epi64(xb[k], xp[k]);   /* < 2p, limbs < 2^53 */
		bn_v5_addq(vd[j], t, 2);
		bn_v5_num(vn[j], yp, yb, neg);
		drop[j] = ex ? bn254_g1_ba_fix(s, j, ex, vd[j], vn[j]) : 0;
		if (m != 0xff)
			for (int k = 0; k < 5; k++) vd[j][k] = _mm512_mask_blend_epi64(m, bn_one_s[k], vd[j][k]);
		if (j == 0)
			memcpy(pre[0], vd[0], sizeof pre[0]);
		else
			bn_v5_mul(pre[j], pre[j - 1], vd[j]);
	}
	bn_v5_lanes_inv(inv, pre[ng - 1]);            /* scale ng − 1 -> −ng */
	for (size_t j = ng; j-- > 0;) {
		size_t cnt = n - 8 * j >= 8 ? 8 : n - 8 * j;
		__mmask8 m = (__mmask8)(cnt == 8 ? 0xff : (1u << cnt) - 1);
		if (j > 0) {
			bn_v5_mul(t, inv, pre[j - 1]);        /* 1/den_j, scale −1 */
			bn_v5_mul(inv, inv, vd[j]);
		} else {
			memcpy(t, inv, sizeof t);
		}
		bn_ba_ent_lanes(s->ent, j, m, 8, &bi, &pi, &neg);
		bn_v5_mul(lam, vn[j], t);                 /* scale 0, < 2p */
		bn_v5_shl(lm1, lam);                      /* λ·2^4: scale −1, < 32p */
		bn_v5_mul(x3, lam, lm1);                  /* λ², scale 0, < 2p */
		bn_v5_sub(x3, x3, vsx[j], 4);             /* λ² − xB − xP, < 6p */
		bn_v5_canon(x3);
		bn_v5_sub(t, vxb[j], x3, 1);              /* < 2p */
		bn_v5_mul(y3, lm1, t);                    /* scale 0, < 2p */
		bn_v5_sub(y3, y3, vyb[j], 2);             /* < 4p */
		bn_v5_canon4(y3);
		__mmask8 w = m & (__mmask8)~drop[j];
		bn_v5_scatter((uint64_t *)ab, bi, x3, w);
		bn_v5_scatter((uint64_t *)ab, _mm512_add_epi64(bi, _mm512_set1_epi64(4)), y3, w);
		for (size_t l = 0; l < cnt; l++)
			s->st[s->ent[8 * j + l].b] = (drop[j] >> l & 1) ? BA_INF : BA_AFF;
	}
}

#define BN_IFMA_ENTRY(g, T)                                                                       \
	static bool g##_ba_vec(void)                                                               \
	{                                                                                          \
		pthread_once(&bn_ifma_once, bn_ifma_init);                                         \
		return bn_ifma_on;                                                                 \
	}                                                                                          \
	static bool g##_ba_apply_fast(struct g##_ba *s)                                            \
	{                                                                                          \
		if (!g##_ba_vec())                                                                 \
			return false;                                                              \
		g##_ba_apply_v(s);                                                                 \
		return true;                                                                       \
	}                                                                                          \
	static bool g##_ba_reduce_fast(struct g##_ba *s, const T *bk, size_t nb, T *out)           \
	{                                                                                          \
		if (!g##_ba_vec() || nb < 64 || nb % 8)                                            \
			return false;                                                              \
		g##_ba_reduce_v(s, bk, nb, out);                                                   \
		return true;                                                                       \
	}
BN_IFMA_ENTRY(bn254_g1, zp_bn254_g1_xyzz)
#else
BA_SCALAR_ENTRY(bn254_g1, zp_bn254_g1_xyzz)
#endif
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

/* 1/(a0 + a1 u) = (a0 - a1 u) / (a0² + a1²), the norm inverted by safegcd */
/* Fp2 inline here (bn254_tower.c's are calls): the scalar G2 paths (XYZZ buckets, 0/1 scalars, Horner) */
#define F2(x) bn_fp2_##x
#define FP2_FN static inline
#define FP2_T zp_bn254_fp2
#define FP_T zp_bn254_fp
#define fb_add bn_fp_add
#define fb_sub bn_fp_sub
#define fb_neg bn_fp_neg
#define fb_mul zp_bn254_fp_mul_fast
#define fb_sqr bn_fp_sqr
#define fb_inv zp_bn254_fp_inv_vartime
#define fb_is_zero bn_fp_is_zero
#include "fp2_tmpl.h"

#define G(x) bn254_g2_##x
#define FE zp_bn254_fp2
#define AFF zp_bn254_g2_affine
#define XYZZ zp_bn254_g2_xyzz
#define JAC zp_bn254_g2_jac
#define fe_mul bn_fp2_mul
#define fe_sqr bn_fp2_sqr
#define fe_add bn_fp2_add
#define fe_sub bn_fp2_sub
#define fe_neg bn_fp2_neg
#define fe_is_zero bn_fp2_is_zero
#define fe_one ZP_BN254_FP2_ONE
#define fe_inv bn_fp2_inv
#define BA_MIN (bn254_g2_ba_vec() ? MSM_BA_MIN_G2_VEC : MSM_BA_MIN_G2)
#include "msm_tmpl.h"

/* BN254's G2 batch over Fp2 lanes: BLS12-381's g2_ba_apply_v (msm.c; denominators through their norms) in
 * five limbs, with G1's bounds (xB − x3 taken + p). */
#if defined(__x86_64__) && defined(__GNUC__)
/* G2's P = ±B lanes as G1's (bn254_g1_ba_fix) */
static IFMA_FN __attribute__((noinline, cold)) __mmask8 bn254_g2_ba_fix(struct bn254_g2_ba *s, size_t j, __mmask8 ex,
                                                                       bn_ve2 *D, bn_ve2 *N)
{
	zp_bn254_fp2 d[8], nn[8];
	__mmask8 drop = 0;
	bn_ve2_to_fe2(d, D);
	bn_ve2_to_fe2(nn, N);
	for (int l = 0; l < 8; l++) {
		if (!(ex >> l & 1))
			continue;
		const struct bn254_g2_ba_ent *e = &s->ent[8 * j + (size_t)l];
		const zp_bn254_g2_affine *p = &s->points[e->p & 0x7fffffffu], *B = &s->ab[e->b];
		zp_bn254_fp2 y, t;
		bn254_g2_ba_point_y(&y, p, e->p);
		if (memcmp(&y, &B->y, sizeof y) == 0) {
			zp_bn254_fp2_sqr(&t, &B->x);
			zp_bn254_fp2_add(&nn[l], &t, &t);
			zp_bn254_fp2_add(&nn[l], &nn[l], &t);
			zp_bn254_fp2_add(&d[l], &B->y, &B->y);
		} else {
			d[l] = ZP_BN254_FP2_ONE;
			nn[l] = ZP_BN254_FP2_ZERO;
			drop |= (__mmask8)(1u << l);
		}
	}
	bn_ve2_from_fe2(D, d);
	bn_ve2_from_fe2(N, nn);
	return drop;
}

_Static_assert(sizeof(zp_bn254_g2_affine) == 16 * sizeof(uint64_t), "zp_bn254_g2_affine is x.c0 x.c1 y.c0 y.c1");
static IFMA_FN void bn254_g2_ba_apply_v(struct bn254_g2_ba *s)
{
	size_t n = s->nb, ng = (n + 7) / 8, cg = s->cap / 8 + 2;
	bn_ve1 *pre = (bn_ve1 *)s->x8, *vnr = pre + cg, inv, tn;
	__m512i zero5[5];
	for (int k = 0; k < 5; k++) zero5[k] = _mm512_setzero_si512();
	bn_ve2 *vd = (bn_ve2 *)(vnr + cg), *vn = vd + cg, t, lam, lm1, x3, y3, xp, yp;
	bn_ve2 *vxb = vn + cg, *vyb = vxb + cg, *vsx = vyb + cg;   /* xB, yB, xB + xP */
	uint8_t *drop = (uint8_t *)(vsx + cg);
	const uint64_t *ab = s->ab[0].x.c0.l, *pts = s->points[0].x.c0.l;
	__m512i bi, pi;
	__mmask8 neg;
#define BN_G2_GATHER(r, base, idx, off)                                                           \
	(bn_v5_gather((r).c0.v, base, _mm512_add_epi64(idx, _mm512_set1_epi64(off))),              \
	 bn_v5_gather((r).c1.v, base, _mm512_add_epi64(idx, _mm512_set1_epi64((off) + 4))))
	for (size_t j = 0; j < ng && j < BN_PF_GROUPS; j++)
		bn_ba_prefetch(s->ent, n, j, pts, ab, 16);
	for (size_t j = 0; j < ng; j++) {
		__mmask8 m = (__mmask8)(n - 8 * j >= 8 ? 0xff : (1u << (n - 8 * j)) - 1);
		if (j + BN_PF_GROUPS < ng)
			bn_ba_prefetch(s->ent, n, j + BN_PF_GROUPS, pts, ab, 16);
		bn_ba_ent_lanes(s->ent, j, m, 16, &bi, &pi, &neg);
		bn_ve2 *xb = &vxb[j], *yb = &vyb[j];
		BN_G2_GATHER(xp, pts, pi, 0);
		BN_G2_GATHER(yp, pts, pi, 8);
		BN_G2_GATHER(*xb, ab, bi, 0);
		BN_G2_GATHER(*yb, ab, bi, 8);
		__mmask8 ex = bn_v5_diff(t.c0.v, xp.c0.v, xb->c0.v) & bn_v5_diff(t.c1.v, xp.c1.v, xb->c1.v) & m;
		for (int k = 0; k < 5; k++) {   /* < 2p, limbs < 2^53 */
			vsx[j].c0.v[k] = _mm512_add_epi64(xb->c0.v[k], xp.c0.v[k]);
			vsx[j].c1.v[k] = _mm512_add_epi64(xb->c1.v[k], xp.c1.v[k]);
		}
		bn_v5_addq(vd[j].c0.v, t.c0.v, 2);
		bn_v5_addq(vd[j].c1.v, t.c1.v, 2);
		bn_v5_num(vn[j].c0.v, yp.c0.v, yb->c0.v, neg);
		bn_v5_num(vn[j].c1.v, yp.c1.v, yb->c1.v, neg);
		drop[j] = ex ? bn254_g2_ba_fix(s, j, ex, &vd[j], &vn[j]) : 0;
		if (m != 0xff)
			for (int k = 0; k < 5; k++) {
				vd[j].c0.v[k] = _mm512_mask_blend_epi64(m, bn_one_s[k], vd[j].c0.v[k]);
				vd[j].c1.v[k] = _mm512_maskz_mov_epi64(m, vd[j].c1.v[k]);
			}
		bn_e2_norm(&vnr[j], &vd[j]);              /* scale 1 */
		if (j == 0)
			pre[0] = vnr[0];
		else
			bn_e1_mul(&pre[j], &pre[j - 1], &vnr[j]);   /* scale 2j + 1 */
	}
#undef BN_G2_GATHER
	bn_v5_lanes_inv(inv.v, pre[ng - 1].v);        /* scale 2ng − 1 -> −2ng */
	for (size_t j = ng; j-- > 0;) {
		size_t cnt = n - 8 * j >= 8 ? 8 : n - 8 * j;
		__mmask8 m = (__mmask8)(cnt == 8 ? 0xff : (1u << cnt) - 1);
		if (j > 0) {
			bn_e1_mul(&tn, &inv, &pre[j - 1]);   /* 1/|D_j|², scale −2 */
			bn_e1_mul(&inv, &inv, &vnr[j]);
		} else {
			tn = inv;
		}
		bn_e1_mul(&t.c0, &vd[j].c0, &tn);         /* 1/D_j = conj(D_j)/|D_j|², scale −1 */
		bn_e1_mul(&t.c1, &vd[j].c1, &tn);
		bn_v5_sub(t.c1.v, zero5, t.c1.v, 2);       /* −(D1/|D|²) */
		bn_ba_ent_lanes(s->ent, j, m, 16, &bi, &pi, &neg);
		const bn_ve2 *xb = &vxb[j], *yb = &vyb[j];
		bn_e2_mul(&lam, &vn[j], &t);              /* scale 0 */
		bn_v5_csub(lam.c0.v, 1);
		bn_v5_csub(lam.c1.v, 1);                  /* < p */
		{   /* λ² = (λ0 + λ1)(λ0 − λ1) + 2λ0λ1·u, the second factors times 2^4 (scale −1) */
			__m512i sm[5], df[5];
			bn_v5_add(sm, lam.c0.v, lam.c1.v);
			bn_v5_sub(df, lam.c0.v, lam.c1.v, 1);   /* both < 2p */
			bn_v5_shl(df, df);
			bn_v5_mul(x3.c0.v, sm, df);           /* scale 0, < 2p */
			bn_v5_shl(lm1.c0.v, lam.c0.v);
			bn_v5_shl(lm1.c1.v, lam.c1.v);
			bn_v5_mul(x3.c1.v, lam.c0.v, lm1.c1.v);
			bn_v5_add(x3.c1.v, x3.c1.v, x3.c1.v); /* < 4p */
		}
		bn_v5_sub(x3.c0.v, x3.c0.v, vsx[j].c0.v, 4);   /* λ² − xB − xP: < 6p */
		bn_v5_sub(x3.c1.v, x3.c1.v, vsx[j].c1.v, 4);   /* < 8p */
		bn_v5_canon(x3.c0.v);
		bn_v5_canon(x3.c1.v);
		bn_v5_sub(t.c0.v, xb->c0.v, x3.c0.v, 1);
		bn_v5_sub(t.c1.v, xb->c1.v, x3.c1.v, 1);     /* < 2p: (lm1 sum)·(t sum) < 32p·4p < 2^260·p */
		bn_e2_mul(&y3, &lm1, &t);                 /* scale 0 */
		for (int c = 0; c < 2; c++) {
			__m512i *y = c ? y3.c1.v : y3.c0.v;
			bn_v5_sub(y, y, c ? yb->c1.v : yb->c0.v, 2);   /* < 4p */
			bn_v5_canon4(y);
		}
		__mmask8 w = m & (__mmask8)~drop[j];
		bn_v5_scatter((uint64_t *)ab, bi, x3.c0.v, w);
		bn_v5_scatter((uint64_t *)ab, _mm512_add_epi64(bi, _mm512_set1_epi64(4)), x3.c1.v, w);
		bn_v5_scatter((uint64_t *)ab, _mm512_add_epi64(bi, _mm512_set1_epi64(8)), y3.c0.v, w);
		bn_v5_scatter((uint64_t *)ab, _mm512_add_epi64(bi, _mm512_set1_epi64(12)), y3.c1.v, w);
		for (size_t l = 0; l < cnt; l++)
			s->st[s->ent[8 * j + l].b] = (drop[j] >> l & 1) ? BA_INF : BA_AFF;
	}
}
static IFMA_FN void bn254_g2_ba_reduce_v(struct bn254_g2_ba *s, const zp_bn254_g2_xyzz *bk, size_t nb, zp_bn254_g2_xyzz *out)
{
	size_t S = nb / 8;
	const uint64_t *ab = s->ab[0].x.c0.l, *xb = bk[0].x.c0.l;
	/* zp_bn254_g2_affine: 16 words a bucket; zp_bn254_g2_xyzz: 32 */
#define J16 _mm512_slli_epi64(ji, 4)
#define BN_E2_GATHER(r, off) (bn_v5_gather((r).c0.v, ab, _mm512_add_epi64(J16, _mm512_set1_epi64(off))), \
                              bn_v5_gather((r).c1.v, ab, _mm512_add_epi64(J16, _mm512_set1_epi64((off) + 4))))
	BA_REDUCE_SCAN(bn_v2, bn_ve2, s->st, S, (BN_E2_GATHER(bx, 0), BN_E2_GATHER(by, 8)),
	               (bn_e2_in(&B.X, xb, _mm512_slli_epi64(J16, 1), 0), bn_e2_in(&B.Y, xb, _mm512_slli_epi64(J16, 1), 8),
	                bn_e2_in(&B.ZZ, xb, _mm512_slli_epi64(J16, 1), 16), bn_e2_in(&B.ZZZ, xb, _mm512_slli_epi64(J16, 1), 24)));
#undef BN_E2_GATHER
#undef J16
	zp_bn254_fp c[16][8];
	const bn_ve1 *from[16] = { &run.X.c0, &run.X.c1, &run.Y.c0, &run.Y.c1, &run.ZZ.c0, &run.ZZ.c1, &run.ZZZ.c0, &run.ZZZ.c1,
	                         &sum.X.c0, &sum.X.c1, &sum.Y.c0, &sum.Y.c1, &sum.ZZ.c0, &sum.ZZ.c1, &sum.ZZZ.c0, &sum.ZZZ.c1 };
	for (int i = 0; i < 16; i++) bn_e1_out(c[i], from[i]);
	zp_bn254_g2_xyzz rl[8], sl[8];
	for (int l = 0; l < 8; l++) {
		rl[l] = (zp_bn254_g2_xyzz){ { c[0][l], c[1][l] }, { c[2][l], c[3][l] }, { c[4][l], c[5][l] }, { c[6][l], c[7][l] } };
		sl[l] = (zp_bn254_g2_xyzz){ { c[8][l], c[9][l] }, { c[10][l], c[11][l] }, { c[12][l], c[13][l] }, { c[14][l], c[15][l] } };
	}
	BA_COMBINE(bn254_g2, zp_bn254_g2_xyzz, rl, sl, S, out);
}
BN_IFMA_ENTRY(bn254_g2, zp_bn254_g2_xyzz)
#else
BA_SCALAR_ENTRY(bn254_g2, zp_bn254_g2_xyzz)
#endif

/* ---- public entry points ---- */

size_t zp_bn254_msm_g1_scratch_size(size_t n) { return bn254_g1_scratch_for(n, zp_par_threads()); }
size_t zp_bn254_msm_g2_scratch_size(size_t n) { return bn254_g2_scratch_for(n, zp_par_threads()); }
int zp_bn254_msm_g1(zp_bn254_g1_jac *out, const zp_bn254_g1_affine *points, const zp_bn254_fr *scalars, size_t n,
		    void *scratch, size_t scratch_len)
{
	return bn254_g1_msm(out, points, scalars, n, scratch, scratch_len);
}
int zp_bn254_msm_g2(zp_bn254_g2_jac *out, const zp_bn254_g2_affine *points, const zp_bn254_fr *scalars, size_t n,
		    void *scratch, size_t scratch_len)
{
	return bn254_g2_msm(out, points, scalars, n, scratch, scratch_len);
}
void zp_bn254_msm_g1_sum_selected(zp_bn254_g1_jac *out, const zp_bn254_g1_affine *points, const uint8_t *sel, size_t n)
{
	bn254_g1_sum_selected(out, points, sel, n);
}
void zp_bn254_msm_g2_sum_selected(zp_bn254_g2_jac *out, const zp_bn254_g2_affine *points, const uint8_t *sel, size_t n)
{
	bn254_g2_sum_selected(out, points, sel, n);
}
