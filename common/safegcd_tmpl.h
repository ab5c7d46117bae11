/*
 * safegcd_tmpl.h — internal to field.c: the variable-time inversion of one prime field, included once per
 * field (BLS12-381's q, BN254's p). The includer defines (and this file undefines):
 *   SG(x)        names this instance's static helpers
 *   SG_N, SG_W   signed 62-bit limbs of the working numbers (7 | 5), 64-bit limbs of a field element (6 | 4)
 *   SG_FE        the field element type (Montgomery form, SG_W limbs .l[])
 *   SG_Q62_INIT  the modulus in SG_N 62-bit limbs, SG_QINV its inverse mod 2^62 (zp_consts.h)
 *   SG_R3_INIT   R^3 mod q for R = 2^(64·SG_W), SG_MUL the field's Montgomery product
 *   SG_NAME      the public function: void SG_NAME(SG_FE *r, const SG_FE *a)
 * and, once before the first inclusion, i128 and M62.
 *
 * Bernstein–Yang "safegcd" (https://eprint.iacr.org/2019/266) in its variable-time form. Start with
 * f = q, g = x (the raw Montgomery limbs, x = a·R), d = 0, e = 1. Each round runs 62 divsteps on the low
 * 64 bits of f and g alone, which yields a 2×2 integer matrix t (the divsteps' effect scaled by 2^62);
 * applying t to the full f, g and dividing by 2^62 is exact, and applying it to d, e is done modulo q (a
 * multiple of q is added first so that the low 62 bits vanish). That keeps d·x ≡ f and e·x ≡ g (mod q)
 * throughout. When g reaches 0, f = ±gcd(q, x) = ±1, so ±d = x^-1 = a^-1·R^-1; one Montgomery product by
 * R^3 makes it a^-1·R. Numbers are signed, in SG_N 62-bit limbs (limbs 0..SG_N−2 in [0, 2^62), the top
 * one signed); d, e stay in (−2q, q). SG_N·62 bits leave room for q's bits, the sign and the factor 2.
 */
typedef struct { int64_t v[SG_N]; } SG(s62);
static const SG(s62) SG(Q62) = { SG_Q62_INIT };
static const SG_FE SG(R3) = { SG_R3_INIT };

/* 62 divsteps on (f, g) given their low bits; returns the new eta, the matrix in t (u v q r) */
static int64_t SG(divsteps62)(int64_t eta, uint64_t f, uint64_t g, int64_t t[4])
{
	uint64_t u = 1, v = 0, q = 0, r = 1;
	int i = 62;
	for (;;) {
		int zeros = __builtin_ctzll(g | (~0ull << i));   /* g's zero bits, at most i */
		g >>= zeros;
		u <<= zeros;
		v <<= zeros;
		eta -= zeros;
		i -= zeros;
		if (i == 0)
			break;
		/* g odd now */
		uint64_t w;
		int limit;
		if (eta < 0) {   /* swap: (f, g) = (g, −f) */
			uint64_t tmp;
			eta = -eta;
			tmp = f; f = g; g = 0 - tmp;
			tmp = u; u = q; q = 0 - tmp;
			tmp = v; v = r; r = 0 - tmp;
			limit = (int)eta + 1 > i ? i : (int)eta + 1;
			/* w = −g/f mod 2^min(limit, 6) (f·(f² − 2) = −f^-1 mod 64 for odd f), so that
			 * g + w·f loses that many low bits */
			uint64_t m = (~0ull >> (64 - limit)) & 63u;
			w = (f * g * (f * f - 2)) & m;
		} else {
			limit = (int)eta + 1 > i ? i : (int)eta + 1;
			uint64_t m = (~0ull >> (64 - limit)) & 15u;
			w = f + (((f + 1) & 4) << 1);   /* f^-1 mod 16 */
			w = (0 - w * g) & m;            /* −g/f mod 2^min(limit, 4) */
		}
		g += f * w;
		q += u * w;
		r += v * w;
	}
	t[0] = (int64_t)u;
	t[1] = (int64_t)v;
	t[2] = (int64_t)q;
	t[3] = (int64_t)r;
	return eta;
}

/* (d, e) = t·(d, e) / 2^62 mod q, kept in (−2q, q) */
static void SG(update_de)(SG(s62) *d, SG(s62) *e, const int64_t t[4])
{
	const int64_t u = t[0], v = t[1], q = t[2], r = t[3];
	int64_t sd = d->v[SG_N - 1] >> 63, se = e->v[SG_N - 1] >> 63;
	int64_t md = (u & sd) + (v & se), me = (q & sd) + (r & se);
	i128 cd = (i128)u * d->v[0] + (i128)v * e->v[0];
	i128 ce = (i128)q * d->v[0] + (i128)r * e->v[0];
	md -= (int64_t)((SG_QINV * (uint64_t)cd + (uint64_t)md) & M62);
	me -= (int64_t)((SG_QINV * (uint64_t)ce + (uint64_t)me) & M62);
	cd += (i128)SG(Q62).v[0] * md;
	ce += (i128)SG(Q62).v[0] * me;
	cd >>= 62;
	ce >>= 62;
	for (int i = 1; i < SG_N; i++) {
		cd += (i128)u * d->v[i] + (i128)v * e->v[i] + (i128)SG(Q62).v[i] * md;
		ce += (i128)q * d->v[i] + (i128)r * e->v[i] + (i128)SG(Q62).v[i] * me;
		d->v[i - 1] = (int64_t)((uint64_t)cd & M62);
		e->v[i - 1] = (int64_t)((uint64_t)ce & M62);
		cd >>= 62;
		ce >>= 62;
	}
	d->v[SG_N - 1] = (int64_t)cd;
	e->v[SG_N - 1] = (int64_t)ce;
}

/* (f, g) = t·(f, g) / 2^62 (exact) */
static void SG(update_fg)(SG(s62) *f, SG(s62) *g, const int64_t t[4])
{
	const int64_t u = t[0], v = t[1], q = t[2], r = t[3];
	i128 cf = (i128)u * f->v[0] + (i128)v * g->v[0];
	i128 cg = (i128)q * f->v[0] + (i128)r * g->v[0];
	cf >>= 62;
	cg >>= 62;
	for (int i = 1; i < SG_N; i++) {
		cf += (i128)u * f->v[i] + (i128)v * g->v[i];
		cg += (i128)q * f->v[i] + (i128)r * g->v[i];
		f->v[i - 1] = (int64_t)((uint64_t)cf & M62);
		g->v[i - 1] = (int64_t)((uint64_t)cg & M62);
		cf >>= 62;
		cg >>= 62;
	}
	f->v[SG_N - 1] = (int64_t)cf;
	g->v[SG_N - 1] = (int64_t)cg;
}

/* a = s·a + k·q (s = ±1, k = −1, 0, 1), then the limbs carried back to [0, 2^62) (the top one signed) */
static void SG(affine)(SG(s62) *a, int s, int k)
{
	i128 c = 0;
	for (int i = 0; i < SG_N; i++) {
		c += (i128)s * a->v[i] + (i128)k * SG(Q62).v[i];
		if (i < SG_N - 1) {
			a->v[i] = (int64_t)((uint64_t)c & M62);
			c >>= 62;
		} else {
			a->v[i] = (int64_t)c;
		}
	}
}

static bool SG(ge_q)(const SG(s62) *a)
{
	for (int i = SG_N - 1; i >= 0; i--)
		if (a->v[i] != SG(Q62).v[i])
			return a->v[i] > SG(Q62).v[i];
	return true;
}

static bool SG(is_zero)(const SG(s62) *a)
{
	int64_t o = 0;
	for (int i = 0; i < SG_N; i++)
		o |= a->v[i];
	return o == 0;
}

/* 64-bit limbs ↔ 62-bit limbs (bit 62·i of the number starts limb i) */
static void SG(split)(SG(s62) *g, const uint64_t *x)
{
	for (int i = 0; i < SG_N; i++) {
		int bit = 62 * i, w = bit / 64, o = bit % 64;
		uint64_t v = w < SG_W ? x[w] >> o : 0;
		if (o > 2 && w + 1 < SG_W)
			v |= x[w + 1] << (64 - o);
		g->v[i] = (int64_t)(i < SG_N - 1 ? v & M62 : v);
	}
}

static void SG(join)(uint64_t *x, const SG(s62) *d)
{
	for (int w = 0; w < SG_W; w++) {
		int bit = 64 * w, i = bit / 62, o = bit % 62;
		uint64_t v = (uint64_t)d->v[i] >> o;
		if (i + 1 < SG_N)   /* o = 2w <= 10: limbs i and i + 1 hold the word's 64 bits */
			v |= (uint64_t)d->v[i + 1] << (62 - o);
		x[w] = v;
	}
}

void SG_NAME(SG_FE *r, const SG_FE *a)
{
	uint64_t o = 0;
	for (int i = 0; i < SG_W; i++)
		o |= a->l[i];
	if (o == 0) {
		memset(r, 0, sizeof(*r));
		return;
	}
	SG(s62) f = SG(Q62), d = { { 0 } }, e = { { 1 } }, g;
	SG(split)(&g, a->l);
	int64_t eta = -1, t[4];
	do {
		eta = SG(divsteps62)(eta, (uint64_t)f.v[0], (uint64_t)g.v[0], t);
		SG(update_de)(&d, &e, t);
		SG(update_fg)(&f, &g, t);
	} while (!SG(is_zero)(&g));
	/* f = ±1: d·x ≡ f, so the inverse is ±d; bring it into [0, q) */
	if (f.v[SG_N - 1] < 0)
		SG(affine)(&d, -1, 0);
	while (d.v[SG_N - 1] < 0)
		SG(affine)(&d, 1, 1);
	while (SG(ge_q)(&d))
		SG(affine)(&d, 1, -1);
	SG_FE raw;
	SG(join)(raw.l, &d);
	SG_MUL(r, &raw, &SG(R3));   /* (x·R)^-1 · R^3 / R = x^-1·R */
}

#undef SG
#undef SG_N
#undef SG_W
#undef SG_FE
#undef SG_Q62_INIT
#undef SG_QINV
#undef SG_R3_INIT
#undef SG_MUL
#undef SG_NAME
