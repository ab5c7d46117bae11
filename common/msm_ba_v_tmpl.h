/*
 * msm_ba_v_tmpl.h — internal to msm_curve_tmpl.h: one group's batch-affine passes eight at a time on
 * AVX-512 IFMA lanes (the hooks msm_tmpl.h leaves: G(ba_vec), G(ba_apply_fast), G(ba_reduce_fast)),
 * written once for every curve and group. Included right after msm_tmpl.h, whose G, FE, AFF, XYZZ and
 * fe_* it uses, with
 *   MV_DEG      1 (G1: Fp lanes, MC(ve1)) or 2 (G2: Fp2 lanes, MC(ve2))
 * and the curve's MC(x), MC_PUB(x), MC_V(x), MC_N, MC_W, MC_PF and its lane parts (msm_curve_tmpl.h:
 * ifma_ext_tmpl.h's MC(ve1), MC(e1_mul), ..., MC(lanes_inv), MC(ba_prefetch), MC(one_s), MC(ifma_on)).
 * Without IFMA code in the build the hooks say no and the scalar paths run. The group ends here: MV_DEG
 * and msm_tmpl.h's group parameters (G, FE, AFF, XYZZ, JAC, fe_*, BA_MIN) are #undef'd at the end.
 *
 * The batch (ba_place recorded the entries only: bucket, point, sign): pass 1 gathers xP, yP, xB, yB
 * for the eight entries 8j..8j+7 (lane l = entry 8j + l) and forms den = xP − xB, num = ±yP − yB on
 * the lanes, finds P = ±B by x equality (rare: G(ba_fix) makes P = B a doubling entry and drops
 * P = −B, whose bucket empties) and keeps den, num, xB, yB and xB + xP beside the prefix products of
 * den down each lane; one scalar inversion (safegcd, Montgomery's trick over the eight lane totals:
 * MC(lanes_inv)) serves the batch; pass 2 walks back with the inverses and writes the sums. Values stay
 * in the scalar code's Montgomery form (R = 2^(64·MC_W)): an IFMA product (R' = 2^(52·MC_N) = R·2^S;
 * S = 32 for BLS12-381, 4 for BN254) of forms x·R·2^-Se1 and y·R·2^-Se2 is xy·R·2^-S(e1+e2+1), so each
 * value has a known "scale" e and the steps are arranged to land back on 0: prefix j has scale j; the
 * lane inverse is taken to scale −ng (ng groups; one scalar product by 2^S); then inv_j has scale
 * −j−1, 1/den_j = inv_j·pre_{j−1} scale −1, λ = num·(1/den) scale 0; λ' = λ·2^S (shifts, no product:
 * MC_V(shl)) has scale −1, so λ·λ' = λ² and λ'·(xB − x3) land on scale 0. Six vector products an
 * entry, as the scalar path, at ~1/3 the cost each; results reduced to [0, p) before they are stored.
 * Bounds: xB − x3 is taken + p, so λ'·(xB − x3) < 2p·2^S·2p < p·R' for both curves (BN254: p < 2^254,
 * R' = 2^260; BLS12-381: q < 2^381, R' = 2^416).
 *
 * G2 (MV_DEG 2) the same way over Fp2 lanes (MC(e2_mul): Karatsuba with one reduction a component,
 * the same scale rule as an Fp product), the denominators inverted through their norms: 1/D =
 * conj(D)/|D|², so the prefix products and the lane inverse are of Fp values (|D|² at scale 1: prefix
 * j at scale 2j + 1, the lane inverse taken to −2ng, inv_j at −2j − 2, 1/|D_j|² = inv_j·pre_{j−1} at
 * −2, and conj(D)·that at −1 as in G1); λ² as an Fp2 squaring (two Fp products).
 *
 * The running sums of a task's buckets (Σ (j+1)·B_j, G(ba_reduce_v)): eight segments of nb/8 buckets
 * as the eight lanes: lane l keeps run_l and sum_l over buckets l·S .. l·S + S − 1 (S = nb/8), and
 * the task's result is Σ_l sum_l + (l·S)·run_l (scalar, at the end). There the values are in IFMA's
 * own Montgomery form (R': one product by k2 = 2^2S·R on the way in, one by R mod p on the way out),
 * every stored coordinate reduced to [0, p), and the exceptional cases (either operand at infinity,
 * P = ±Q — a sum equals the run whenever a bucket is empty after the first) are lane masks
 * (msm_ifma_tmpl.h).
 */
#if defined(__x86_64__) && defined(__GNUC__)

#define MV_CW (MC_W * MV_DEG)   /* 64-bit words of a coordinate: an affine point has 2, an XYZZ one 4 */
#if MV_DEG == 1
#define MV_E MC(ve1)
#define MV_PT MC(v1_pt)
#define MV_INF MC(v1_inf)
#define MV_ADD MC(v1_add)
#define MV_MADD MC(v1_madd)
#define MV_SEL MC(v1_sel)
#define MV_IN MC(e1_in)
#define MV_TO_FE(f, a) MC_V(to_fe)(f, (a)->v)   /* as they are (< R: exact) */
#define MV_FROM_FE(a, f) MC_V(from_fe)((a)->v, f)
#define MV_GATHER(r, base, idx, off) MC_V(gather)((r).v, base, _mm512_add_epi64(idx, _mm512_set1_epi64(off)))
#else
#define MV_E MC(ve2)
#define MV_PT MC(v2_pt)
#define MV_INF MC(v2_inf)
#define MV_ADD MC(v2_add)
#define MV_MADD MC(v2_madd)
#define MV_SEL MC(v2_sel)
#define MV_IN MC(e2_in)
#define MV_TO_FE(f, a) MC(ve2_to_fe2)(f, a)   /* reduced */
#define MV_FROM_FE(a, f) MC(ve2_from_fe2)(a, f)
#define MV_GATHER(r, base, idx, off)                                                                  \
	(MC_V(gather)((r).c0.v, base, _mm512_add_epi64(idx, _mm512_set1_epi64(off))),                  \
	 MC_V(gather)((r).c1.v, base, _mm512_add_epi64(idx, _mm512_set1_epi64((off) + MC_W))))
#endif

_Static_assert(sizeof(struct G(ba_ent)) == 8, "an entry is one word: bucket, then point | sign << 31");
_Static_assert(sizeof(AFF) == 2 * MV_CW * sizeof(uint64_t), "an affine point is x then y, MV_CW words each");

/* The lanes ex of group j whose point has its bucket's x (rare): P = B becomes a doubling entry
 * (num = 3x², den = 2y, the scalar path's), P = −B empties the bucket (den = 1, lane dropped). */
static IFMA_FN __attribute__((noinline, cold)) __mmask8 G(ba_fix)(struct G(ba) *s, size_t j, __mmask8 ex, MV_E *D,
                                                                 MV_E *N)
{
	FE d[8], nn[8];
	__mmask8 drop = 0;
	MV_TO_FE(d, D);
	MV_TO_FE(nn, N);
	for (int l = 0; l < 8; l++) {
		if (!(ex >> l & 1))
			continue;
		const struct G(ba_ent) *e = &s->ent[8 * j + (size_t)l];
		const AFF *p = &s->points[e->p & 0x7fffffffu], *B = &s->ab[e->b];
		FE y, t;
		G(ba_point_y)(&y, p, e->p);
		if (memcmp(&y, &B->y, sizeof y) == 0) {
			fe_sqr(&t, &B->x);
			fe_add(&nn[l], &t, &t);
			fe_add(&nn[l], &nn[l], &t);
			fe_add(&d[l], &B->y, &B->y);
		} else {
			d[l] = fe_one;
			memset(&nn[l], 0, sizeof nn[l]);
			drop |= (__mmask8)(1u << l);
		}
	}
	MV_FROM_FE(D, d);
	MV_FROM_FE(N, nn);
	return drop;
}

#if MV_DEG == 1
static IFMA_FN void G(ba_apply_v)(struct G(ba) *s)
{
	size_t n = s->nb, ng = (n + 7) / 8, cg = s->cap / 8 + 2;
	MV_E *pre = s->x8, *vd = pre + cg, *vn = vd + cg;
	MV_E *vxb = vn + cg, *vyb = vxb + cg, *vsx = vyb + cg;   /* xB, yB, xB + xP */
	uint8_t *drop = (uint8_t *)(vsx + cg);
	__m512i inv[MC_N], t[MC_N], lam[MC_N], lm1[MC_N], x3[MC_N], y3[MC_N], xp[MC_N], yp[MC_N], bi, pi;
	const uint64_t *ab = s->ab[0].x.l, *pts = s->points[0].x.l;
	__mmask8 neg;
	for (size_t j = 0; j < ng; j++) {
		__mmask8 m = (__mmask8)(n - 8 * j >= 8 ? 0xff : (1u << (n - 8 * j)) - 1);
		MC(ba_prefetch)(s->ent, n, j, ng, pts, ab, 2 * MV_CW);
		MC(ba_ent_lanes)(s->ent, j, m, 2 * MV_CW, &bi, &pi, &neg);
		__m512i *xb = vxb[j].v, *yb = vyb[j].v;
		MC_V(gather)(xp, pts, pi);
		MC_V(gather)(yp, pts, _mm512_add_epi64(pi, _mm512_set1_epi64(MC_W)));
		MC_V(gather)(xb, ab, bi);
		MC_V(gather)(yb, ab, _mm512_add_epi64(bi, _mm512_set1_epi64(MC_W)));
		__mmask8 ex = MC_V(diff)(t, xp, xb) & m;
		for (int k = 0; k < MC_N; k++) vsx[j].v[k] = _mm512_add_epi64(xb[k], xp[k]);   /* < 2p, limbs < 2^53 */
		MC_V(addq)(vd[j].v, t, 2);
		MC_V(num)(vn[j].v, yp, yb, neg);
		drop[j] = ex ? G(ba_fix)(s, j, ex, &vd[j], &vn[j]) : 0;
		if (m != 0xff)
			for (int k = 0; k < MC_N; k++) vd[j].v[k] = _mm512_mask_blend_epi64(m, MC(one_s)[k], vd[j].v[k]);
		if (j == 0)
			pre[0] = vd[0];
		else
			MC_V(mul)(pre[j].v, pre[j - 1].v, vd[j].v);
	}
	MC(lanes_inv)(inv, pre[ng - 1].v);            /* scale ng − 1 -> −ng */
	for (size_t j = ng; j-- > 0;) {
		size_t cnt = n - 8 * j >= 8 ? 8 : n - 8 * j;
		__mmask8 m = (__mmask8)(cnt == 8 ? 0xff : (1u << cnt) - 1);
		if (j > 0) {
			MC_V(mul)(t, inv, pre[j - 1].v);    /* 1/den_j, scale −1 */
			MC_V(mul)(inv, inv, vd[j].v);
		} else {
			memcpy(t, inv, sizeof t);
		}
		MC(ba_ent_lanes)(s->ent, j, m, 2 * MV_CW, &bi, &pi, &neg);
		MC_V(mul)(lam, vn[j].v, t);             /* scale 0, < 2p */
		MC_V(shl)(lm1, lam);                    /* λ·2^S: scale −1, < 2p·2^S */
		MC_V(mul)(x3, lam, lm1);                /* λ², scale 0, < 2p */
		MC_V(sub)(x3, x3, vsx[j].v, 4);         /* λ² − xB − xP, < 6p */
		MC_V(canon)(x3);
		MC_V(sub)(t, vxb[j].v, x3, 1);          /* < 2p */
		MC_V(mul)(y3, lm1, t);                  /* scale 0, < 2p */
		MC_V(sub)(y3, y3, vyb[j].v, 2);         /* < 4p */
		MC_V(canon4)(y3);
		__mmask8 w = m & (__mmask8)~drop[j];
		MC_V(scatter)((uint64_t *)ab, bi, x3, w);
		MC_V(scatter)((uint64_t *)ab, _mm512_add_epi64(bi, _mm512_set1_epi64(MC_W)), y3, w);
		for (size_t l = 0; l < cnt; l++)
			s->st[s->ent[8 * j + l].b] = (drop[j] >> l & 1) ? BA_INF : BA_AFF;
	}
}
#else
static IFMA_FN void G(ba_apply_v)(struct G(ba) *s)
{
	size_t n = s->nb, ng = (n + 7) / 8, cg = s->cap / 8 + 2;
	MC(ve1) *pre = s->x8, *vnr = pre + cg, inv, tn;
	__m512i zero[MC_N];
	for (int k = 0; k < MC_N; k++) zero[k] = _mm512_setzero_si512();
	MV_E *vd = (MV_E *)(vnr + cg), *vn = vd + cg, t, lam, lm1, x3, y3, xp, yp;
	MV_E *vxb = vn + cg, *vyb = vxb + cg, *vsx = vyb + cg;   /* xB, yB, xB + xP */
	uint8_t *drop = (uint8_t *)(vsx + cg);
	const uint64_t *ab = s->ab[0].x.c0.l, *pts = s->points[0].x.c0.l;
	__m512i bi, pi;
	__mmask8 neg;
	for (size_t j = 0; j < ng; j++) {
		__mmask8 m = (__mmask8)(n - 8 * j >= 8 ? 0xff : (1u << (n - 8 * j)) - 1);
		MC(ba_prefetch)(s->ent, n, j, ng, pts, ab, 2 * MV_CW);
		MC(ba_ent_lanes)(s->ent, j, m, 2 * MV_CW, &bi, &pi, &neg);
		MV_E *xb = &vxb[j], *yb = &vyb[j];
		MV_GATHER(xp, pts, pi, 0);
		MV_GATHER(yp, pts, pi, MV_CW);
		MV_GATHER(*xb, ab, bi, 0);
		MV_GATHER(*yb, ab, bi, MV_CW);
		__mmask8 ex = MC_V(diff)(t.c0.v, xp.c0.v, xb->c0.v) & MC_V(diff)(t.c1.v, xp.c1.v, xb->c1.v) & m;
		for (int k = 0; k < MC_N; k++) {   /* < 2p, limbs < 2^53 */
			vsx[j].c0.v[k] = _mm512_add_epi64(xb->c0.v[k], xp.c0.v[k]);
			vsx[j].c1.v[k] = _mm512_add_epi64(xb->c1.v[k], xp.c1.v[k]);
		}
		MC_V(addq)(vd[j].c0.v, t.c0.v, 2);
		MC_V(addq)(vd[j].c1.v, t.c1.v, 2);
		MC_V(num)(vn[j].c0.v, yp.c0.v, yb->c0.v, neg);
		MC_V(num)(vn[j].c1.v, yp.c1.v, yb->c1.v, neg);
		drop[j] = ex ? G(ba_fix)(s, j, ex, &vd[j], &vn[j]) : 0;
		if (m != 0xff)
			for (int k = 0; k < MC_N; k++) {
				vd[j].c0.v[k] = _mm512_mask_blend_epi64(m, MC(one_s)[k], vd[j].c0.v[k]);
				vd[j].c1.v[k] = _mm512_maskz_mov_epi64(m, vd[j].c1.v[k]);
			}
		MC(e2_norm)(&vnr[j], &vd[j]);                /* scale 1 */
		if (j == 0)
			pre[0] = vnr[0];
		else
			MC(e1_mul)(&pre[j], &pre[j - 1], &vnr[j]);   /* scale 2j + 1 */
	}
	MC(lanes_inv)(inv.v, pre[ng - 1].v);          /* scale 2ng − 1 -> −2ng */
	for (size_t j = ng; j-- > 0;) {
		size_t cnt = n - 8 * j >= 8 ? 8 : n - 8 * j;
		__mmask8 m = (__mmask8)(cnt == 8 ? 0xff : (1u << cnt) - 1);
		if (j > 0) {
			MC(e1_mul)(&tn, &inv, &pre[j - 1]);     /* 1/|D_j|², scale −2 */
			MC(e1_mul)(&inv, &inv, &vnr[j]);
		} else {
			tn = inv;
		}
		MC(e1_mul)(&t.c0, &vd[j].c0, &tn);           /* 1/D_j = conj(D_j)/|D_j|², scale −1 */
		MC(e1_mul)(&t.c1, &vd[j].c1, &tn);
		MC_V(sub)(t.c1.v, zero, t.c1.v, 2);          /* −(D1/|D|²) */
		MC(ba_ent_lanes)(s->ent, j, m, 2 * MV_CW, &bi, &pi, &neg);
		const MV_E *xb = &vxb[j], *yb = &vyb[j];
		MC(e2_mul)(&lam, &vn[j], &t);                /* scale 0 */
		MC_V(csub)(lam.c0.v, 1);
		MC_V(csub)(lam.c1.v, 1);                     /* < p */
		{   /* λ² = (λ0 + λ1)(λ0 − λ1) + 2λ0λ1·u, the second factors times 2^S (scale −1) */
			MC(ve1) sm, df;
			MC(e1_add)(&sm, &lam.c0, &lam.c1);
			MC(e1_sub)(&df, &lam.c0, &lam.c1, 1);   /* both < 2p */
			MC_V(shl)(df.v, df.v);
			MC(e1_mul)(&x3.c0, &sm, &df);           /* scale 0, < 2p */
			MC_V(shl)(lm1.c0.v, lam.c0.v);
			MC_V(shl)(lm1.c1.v, lam.c1.v);
			MC(e1_mul)(&x3.c1, &lam.c0, &lm1.c1);
			MC(e1_add)(&x3.c1, &x3.c1, &x3.c1);     /* < 4p */
		}
		MC_V(sub)(x3.c0.v, x3.c0.v, vsx[j].c0.v, 4);   /* λ² − xB − xP: < 6p */
		MC_V(sub)(x3.c1.v, x3.c1.v, vsx[j].c1.v, 4);   /* < 8p */
		MC_V(canon)(x3.c0.v);
		MC_V(canon)(x3.c1.v);
		MC_V(sub)(t.c0.v, xb->c0.v, x3.c0.v, 1);
		MC_V(sub)(t.c1.v, xb->c1.v, x3.c1.v, 1);     /* < 2p: (lm1 sum)·(t sum) < 4p·2^S·4p < p·R' */
		MC(e2_mul)(&y3, &lm1, &t);                   /* scale 0 */
		for (int c = 0; c < 2; c++) {
			__m512i *y = c ? y3.c1.v : y3.c0.v;
			MC_V(sub)(y, y, c ? yb->c1.v : yb->c0.v, 2);   /* < 4p */
			MC_V(canon4)(y);
		}
		__mmask8 w = m & (__mmask8)~drop[j];
		MC_V(scatter)((uint64_t *)ab, bi, x3.c0.v, w);
		MC_V(scatter)((uint64_t *)ab, _mm512_add_epi64(bi, _mm512_set1_epi64(MC_W)), x3.c1.v, w);
		MC_V(scatter)((uint64_t *)ab, _mm512_add_epi64(bi, _mm512_set1_epi64(2 * MC_W)), y3.c0.v, w);
		MC_V(scatter)((uint64_t *)ab, _mm512_add_epi64(bi, _mm512_set1_epi64(3 * MC_W)), y3.c1.v, w);
		for (size_t l = 0; l < cnt; l++)
			s->st[s->ent[8 * j + l].b] = (drop[j] >> l & 1) ? BA_INF : BA_AFF;
	}
}
#endif

/* Eight lanes (R' form) -> eight elements in the standard form */
static IFMA_FN void G(v_out)(FE v[8], const MV_E *a)
{
#if MV_DEG == 1
	MC(e1_out)(v, a);
#else
	MC_PUB(fp) c0[8], c1[8];
	MC(e1_out)(c0, &a->c0);
	MC(e1_out)(c1, &a->c1);
	for (int l = 0; l < 8; l++) {
		v[l].c0 = c0[l];
		v[l].c1 = c1[l];
	}
#endif
}

/* The running sums (see the top of the file): lane l over buckets l·S + k, k = S−1 .. 0; an affine
 * bucket is gathered as it is (the standard form, which MV_MADD takes), an XYZZ one put in R' form. */
static IFMA_FN void G(ba_reduce_v)(struct G(ba) *s, const XYZZ *bk, size_t nb, XYZZ *out)
{
	size_t S = nb / 8;
	const uint64_t *ab = (const uint64_t *)s->ab, *xb = (const uint64_t *)bk;
	MV_PT run, sum, B;
	MV_E bx, by;
	_Alignas(64) uint64_t jw[8];
	MV_INF(&run);
	MV_INF(&sum);
	for (size_t k = S; k-- > 0;) {
		__mmask8 aff = 0, xyzz = 0;
		for (int l = 0; l < 8; l++) {
			size_t j = (size_t)l * S + k;
			jw[l] = j;
			if (s->st[j] == BA_AFF)
				aff |= (__mmask8)(1u << l);
			else if (s->st[j] == BA_XYZZ)
				xyzz |= (__mmask8)(1u << l);
		}
		/* word offsets of the lanes' buckets: affine (2·MV_CW words a bucket), XYZZ (twice that) */
		__m512i ja = _mm512_mul_epu32(_mm512_load_si512((const void *)jw), _mm512_set1_epi64(2 * MV_CW));
		if (aff) {
			MV_GATHER(bx, ab, ja, 0);
			MV_GATHER(by, ab, ja, MV_CW);
			MV_MADD(&run, &run, &bx, &by, aff);
		}
		if (xyzz) {
			MV_PT t;
			__m512i jx = _mm512_add_epi64(ja, ja);
			MV_IN(&B.X, xb, jx, 0);
			MV_IN(&B.Y, xb, jx, MV_CW);
			MV_IN(&B.ZZ, xb, jx, 2 * MV_CW);
			MV_IN(&B.ZZZ, xb, jx, 3 * MV_CW);
			MV_ADD(&t, &run, &B);
			MV_SEL(&run, xyzz, &t);
		}
		MV_ADD(&sum, &sum, &run);
	}
	/* back to the standard form, then *out = Σ_l sum_l + (l·S)·run_l (scalar) */
	FE c[8][8];
	const MV_E *from[8] = { &run.X, &run.Y, &run.ZZ, &run.ZZZ, &sum.X, &sum.Y, &sum.ZZ, &sum.ZZZ };
	for (int i = 0; i < 8; i++) G(v_out)(c[i], from[i]);
	XYZZ rl[8], sl[8], acc, m;
	for (int l = 0; l < 8; l++) {
		rl[l] = (XYZZ){ c[0][l], c[1][l], c[2][l], c[3][l] };
		sl[l] = (XYZZ){ c[4][l], c[5][l], c[6][l], c[7][l] };
	}
	G(set_inf)(&acc);
	for (int l = 0; l < 8; l++) {
		G(set_inf)(&m);
		for (size_t e = (size_t)l * S; e; e >>= 1) {
			if (e & 1)
				G(add)(&m, &m, &rl[l]);
			G(dbl)(&rl[l], &rl[l]);
		}
		G(add)(&acc, &acc, &m);
		G(add)(&acc, &acc, &sl[l]);
	}
	*out = acc;
}

static bool G(ba_vec)(void)
{
	pthread_once(&MC(ifma_once), MC(ifma_init));
	return MC(ifma_on);
}
static bool G(ba_apply_fast)(struct G(ba) *s)
{
	if (!G(ba_vec)())
		return false;
	G(ba_apply_v)(s);
	return true;
}
static bool G(ba_reduce_fast)(struct G(ba) *s, const XYZZ *bk, size_t nb, XYZZ *out)
{
	if (!G(ba_vec)() || nb < 64 || nb % 8)
		return false;
	G(ba_reduce_v)(s, bk, nb, out);
	return true;
}

#undef MV_CW
#undef MV_E
#undef MV_PT
#undef MV_INF
#undef MV_ADD
#undef MV_MADD
#undef MV_SEL
#undef MV_IN
#undef MV_TO_FE
#undef MV_FROM_FE
#undef MV_GATHER

#else
/* no IFMA code in this build: the scalar paths run */
static bool G(ba_vec)(void) { return false; }
static bool G(ba_apply_fast)(struct G(ba) *s) { (void)s; return false; }
static bool G(ba_reduce_fast)(struct G(ba) *s, const XYZZ *bk, size_t nb, XYZZ *out)
{
	(void)s; (void)bk; (void)nb; (void)out;
	return false;
}
#endif
#undef MV_DEG
/* the group's msm_tmpl.h parameters too: the group ends here */
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
