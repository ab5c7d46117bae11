/*
 * ifma_ext_tmpl.h — internal to the MSMs (msm_curve_tmpl.h): one curve's lane elements over its
 * IFMA engine (an ifma_tmpl.h instance), included once per curve: Fp (ve1) and Fp2 = Fp[u]/(u² + 1)
 * (ve2) eight at a time as structs, in the engine's R' Montgomery form; the lane operations of
 * msm_ifma_tmpl.h's contract and its two instances (v1_* over Fp, v2_* over Fp2); the moves between
 * memory's standard form and R' form; the constants they need (IE(lanes_consts) sets them); the
 * batch entries as lanes (IE(ba_ent_lanes)).
 *
 * The includer defines:
 *   IE(x)       the names of this instance (msm_curve_tmpl.h's MC(x): x; bn254_x)
 *   IEV(x)      the engine's names (zp_v8_x, bn_v5_x); IE_N its limbs, IE_W the element's words
 *   IE_P        p in IE_N 52-bit limbs (the engine's modulus array)
 *   IE_FE IE_FE2  Fp's and Fp2's C types in memory
 * and has declared __m512i IE(k2_v)[IE_N] (2^(2·52·IE_N − 64·IE_W) mod p raw: x·R -> x·R' in one
 * product) and IE(one_s)[IE_N] (R mod p: R' form -> the standard form in one product), which
 * IE(lanes_consts) fills. All of them are #undef'd at the end.
 */

typedef struct { __m512i v[IE_N]; } IE(ve1);   /* eight Fp */
typedef struct { IE(ve1) c0, c1; } IE(ve2);    /* eight Fp2 */
static IE(ve1) IE(one_n1);                     /* 1 in R' form */
static IE(ve2) IE(one_n2);

/* one out-of-line copy each of the product and the reduction for the point formulas, which call
 * them ~60 times */
static IFMA_FN __attribute__((noinline)) void IE(e1_mul)(IE(ve1) *r, const IE(ve1) *a, const IE(ve1) *b) { IEV(mul)(r->v, a->v, b->v); }
static IFMA_FN __attribute__((noinline)) void IE(e1_canon)(IE(ve1) *r) { IEV(canon)(r->v); }
static IFMA_FN __attribute__((noinline)) void IE(e1_canon4)(IE(ve1) *r) { IEV(canon4)(r->v); }
static IFMA_FN void IE(e1_canon2)(IE(ve1) *r) { IEV(csub)(r->v, 1); }
static IFMA_FN void IE(e1_sub)(IE(ve1) *r, const IE(ve1) *a, const IE(ve1) *b, int m) { IEV(sub)(r->v, a->v, b->v, m); }
static IFMA_FN void IE(e1_add)(IE(ve1) *r, const IE(ve1) *a, const IE(ve1) *b) { IEV(add)(r->v, a->v, b->v); }
static IFMA_FN __mmask8 IE(e1_zero)(const IE(ve1) *a) { return IEV(zero)(a->v); }
static IFMA_FN void IE(e1_sel)(IE(ve1) *r, __mmask8 m, const IE(ve1) *a) { IEV(sel)(r->v, m, a->v); }
/* r = a·2^S (standard form -> R'/R scale, shifts only); r = a in R' form, reduced (one product) */
static IFMA_FN void IE(e1_shl)(IE(ve1) *r, const IE(ve1) *a) { IEV(shl)(r->v, a->v); }
static IFMA_FN void IE(e1_lift)(IE(ve1) *r, const IE(ve1) *a)
{
	IEV(mul)(r->v, a->v, IE(k2_v));
	IEV(csub)(r->v, 1);
}

/* Karatsuba with one reduction a component (the three products summed unreduced):
 * c0 = (a0b0 − a1b1 + p·R')·R'^-1, c1 = ((a0 + a1)(b0 + b1) − a0b0 − a1b1)·R'^-1 (= a0b1 + a1b0 >= 0).
 * For components < 2p (or one side < 2p·2^S, the other < 2p) both land under 2p after c0's one
 * conditional subtraction. */
static IFMA_FN __attribute__((noinline)) void IE(e2_mul)(IE(ve2) *r, const IE(ve2) *a, const IE(ve2) *b)
{
	IE(ve1) sa, sb;
	__m512i t0[2 * IE_N], t1[2 * IE_N];
	IE(e1_add)(&sa, &a->c0, &a->c1);
	IE(e1_add)(&sb, &b->c0, &b->c1);
	for (int k = 0; k < 2 * IE_N; k++) t0[k] = t1[k] = _mm512_setzero_si512();
	IEV(mulw)(t0, a->c0.v, b->c0.v);
	IEV(mulw)(t1, a->c1.v, b->c1.v);
	for (int k = 0; k < 2 * IE_N; k++) {
		__m512i d = _mm512_sub_epi64(t0[k], t1[k]);
		t1[k] = _mm512_sub_epi64(_mm512_setzero_si512(), _mm512_add_epi64(t0[k], t1[k]));
		t0[k] = k < IE_N ? d : _mm512_add_epi64(d, _mm512_set1_epi64((long long)IE_P[k - IE_N]));
	}
	IEV(redc)(r->c0.v, t0);
	IEV(csub)(r->c0.v, 1);
	IEV(mulw)(t1, sa.v, sb.v);
	IEV(redc)(r->c1.v, t1);
}
/* r = a0² + a1² (the norm of a), one reduction: < 2p for components < 3p */
static IFMA_FN __attribute__((noinline)) void IE(e2_norm)(IE(ve1) *r, const IE(ve2) *a)
{
	__m512i t[2 * IE_N];
	for (int k = 0; k < 2 * IE_N; k++) t[k] = _mm512_setzero_si512();
	IEV(mulw)(t, a->c0.v, a->c0.v);
	IEV(mulw)(t, a->c1.v, a->c1.v);
	IEV(redc)(r->v, t);
}
static IFMA_FN void IE(e2_sub)(IE(ve2) *r, const IE(ve2) *a, const IE(ve2) *b, int m)
{
	IE(e1_sub)(&r->c0, &a->c0, &b->c0, m);
	IE(e1_sub)(&r->c1, &a->c1, &b->c1, m);
}
static IFMA_FN void IE(e2_canon)(IE(ve2) *r) { IE(e1_canon)(&r->c0); IE(e1_canon)(&r->c1); }
static IFMA_FN void IE(e2_canon4)(IE(ve2) *r) { IE(e1_canon4)(&r->c0); IE(e1_canon4)(&r->c1); }
static IFMA_FN void IE(e2_canon2)(IE(ve2) *r) { IE(e1_canon2)(&r->c0); IE(e1_canon2)(&r->c1); }
static IFMA_FN void IE(e2_add)(IE(ve2) *r, const IE(ve2) *a, const IE(ve2) *b) { IE(e1_add)(&r->c0, &a->c0, &b->c0); IE(e1_add)(&r->c1, &a->c1, &b->c1); }
static IFMA_FN __mmask8 IE(e2_zero)(const IE(ve2) *a) { return IE(e1_zero)(&a->c0) & IE(e1_zero)(&a->c1); }
static IFMA_FN void IE(e2_sel)(IE(ve2) *r, __mmask8 m, const IE(ve2) *a) { IE(e1_sel)(&r->c0, m, &a->c0); IE(e1_sel)(&r->c1, m, &a->c1); }
static IFMA_FN void IE(e2_shl)(IE(ve2) *r, const IE(ve2) *a) { IE(e1_shl)(&r->c0, &a->c0); IE(e1_shl)(&r->c1, &a->c1); }
static IFMA_FN void IE(e2_lift)(IE(ve2) *r, const IE(ve2) *a) { IE(e1_lift)(&r->c0, &a->c0); IE(e1_lift)(&r->c1, &a->c1); }

#define V(x) IE(v1_##x)
#define VE IE(ve1)
#define ve_shl IE(e1_shl)
#define ve_lift IE(e1_lift)
#define ve_mul IE(e1_mul)
#define ve_sub IE(e1_sub)
#define ve_canon IE(e1_canon)
#define ve_canon4 IE(e1_canon4)
#define ve_canon2 IE(e1_canon2)
#define ve_add IE(e1_add)
#define ve_zero IE(e1_zero)
#define ve_sel IE(e1_sel)
#define ve_one IE(one_n1)
#include "msm_ifma_tmpl.h"
#define V(x) IE(v2_##x)
#define VE IE(ve2)
#define ve_shl IE(e2_shl)
#define ve_lift IE(e2_lift)
#define ve_mul IE(e2_mul)
#define ve_sub IE(e2_sub)
#define ve_canon IE(e2_canon)
#define ve_canon4 IE(e2_canon4)
#define ve_canon2 IE(e2_canon2)
#define ve_add IE(e2_add)
#define ve_zero IE(e2_zero)
#define ve_sel IE(e2_sel)
#define ve_one IE(one_n2)
#include "msm_ifma_tmpl.h"

/* lane coordinates (standard form, gathered from base + idx + off words) -> R' form, reduced; and back
 * to the standard form's eight elements */
static IFMA_FN void IE(e1_in)(IE(ve1) *r, const uint64_t *base, __m512i idx, int off)
{
	__m512i t[IE_N];
	IEV(gather)(t, base, _mm512_add_epi64(idx, _mm512_set1_epi64(off)));
	IEV(mul)(r->v, t, IE(k2_v));
	IEV(csub)(r->v, 1);
}
static IFMA_FN void IE(e1_out)(IE_FE v[8], const IE(ve1) *a)
{
	__m512i t[IE_N];
	IEV(mul)(t, a->v, IE(one_s));
	IEV(csub)(t, 1);
	IEV(to_fe)(v, t);
}
static IFMA_FN void IE(e2_in)(IE(ve2) *r, const uint64_t *base, __m512i idx, int off)
{
	IE(e1_in)(&r->c0, base, idx, off);
	IE(e1_in)(&r->c1, base, idx, off + IE_W);
}
/* as they are (no change of form): lanes (< 8p) reduced -> eight Fp2; eight Fp2 -> lanes */
static IFMA_FN void IE(ve2_to_fe2)(IE_FE2 v[8], const IE(ve2) *a)
{
	IE_FE t0[8], t1[8];
	__m512i c0[IE_N], c1[IE_N];
	memcpy(c0, a->c0.v, sizeof c0);
	memcpy(c1, a->c1.v, sizeof c1);
	IEV(canon)(c0);
	IEV(canon)(c1);
	IEV(to_fe)(t0, c0);
	IEV(to_fe)(t1, c1);
	for (int l = 0; l < 8; l++) { v[l].c0 = t0[l]; v[l].c1 = t1[l]; }
}
static IFMA_FN void IE(ve2_from_fe2)(IE(ve2) *r, const IE_FE2 v[8])
{
	IE_FE c0[8], c1[8];
	for (int l = 0; l < 8; l++) { c0[l] = v[l].c0; c1[l] = v[l].c1; }
	IEV(from_fe)(r->c0.v, c0);
	IEV(from_fe)(r->c1.v, c1);
}

/* Group j's batch entries (struct G(ba_ent), msm_tmpl.h: bucket in the low 32 bits, point | sign << 31
 * in the high ones) as word offsets of their affine bucket and point (`words` a point) and the
 * negation mask; lanes outside m read entry 0 of nothing: bucket 0, point 0. */
static IFMA_FN void IE(ba_ent_lanes)(const void *ent, size_t j, __mmask8 m, unsigned words, __m512i *bi, __m512i *pi,
                                     __mmask8 *neg)
{
	__m512i e = _mm512_maskz_loadu_epi64(m, (const uint64_t *)ent + 8 * j), w = _mm512_set1_epi64(words);
	*bi = _mm512_mul_epu32(e, w);
	*pi = _mm512_mul_epu32(_mm512_and_si512(_mm512_srli_epi64(e, 32), _mm512_set1_epi64(0x7fffffff)), w);
	*neg = _mm512_test_epi64_mask(e, _mm512_set1_epi64((long long)(1ull << 63)));
}

/* IE(k2_v) and IE(one_s) from k2 (2^(2·52·IE_N − 64·IE_W) mod p, raw) and one (R mod p); 1 in R' form */
static IFMA_FN void IE(lanes_consts)(const IE_FE *k2, const IE_FE *one)
{
	IE_FE k[8], o[8];
	for (int l = 0; l < 8; l++) { k[l] = *k2; o[l] = *one; }
	IEV(from_fe)(IE(k2_v), k);
	IEV(from_fe)(IE(one_s), o);
	IEV(mul)(IE(one_n1).v, IE(one_s), IE(k2_v));   /* R·k2·R'^-1 = R' mod p */
	IEV(canon)(IE(one_n1).v);
	IE(one_n2).c0 = IE(one_n1);
	memset(&IE(one_n2).c1, 0, sizeof IE(one_n2).c1);
}

#undef IE
#undef IEV
#undef IE_N
#undef IE_W
#undef IE_P
#undef IE_FE
#undef IE_FE2
