/*
 * bn254_ntt.c — BN254 Fr transforms (bn254_ntt.h): iterative radix-2 Cooley-Tukey on bit-reversed input.
 * Level with half-size h: butterfly t (< n/2) joins a[g·2h + j] and a[g·2h + j + h] (g = t / h,
 * j = t mod h) with ω_n^(j·n/2h). The inverse is the forward transform followed by a[i] <-> a[n-i]
 * (ω^-ij = ω^(i(n-j))) and the scaling by n^-1.
 */
#include "bn254_ntt.h"
#include "field_impl.h"
#include "par.h"
#include "zp_consts.h"
#include "zp_err.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fp_ifma.h"

typedef zp_bn254_fr fr;

#define CHUNK 4096
#define PAR_MIN ((size_t)1 << 14)

static const fr OMEGA28 = { ZP_C64_BN_FR_OMEGA28 };

static inline void fadd(fr *r, const fr *a, const fr *b) { zp_mod4_addc(r->l, a->l, b->l, ZP_BN254_FR_MODULUS); }
static inline void fsub(fr *r, const fr *a, const fr *b) { zp_mod4_subc(r->l, a->l, b->l, ZP_BN254_FR_MODULUS); }

int zp_bn254_ntt_root(fr *w, unsigned k)
{
	if (k > ZP_BN254_NTT_MAX_LOG)
		return zp_err_set(ZP_ERANGE, "bn254 ntt: no 2^%u-th root of unity (2-adicity 28)", k);
	*w = OMEGA28;
	for (unsigned i = ZP_BN254_NTT_MAX_LOG; i > k; i--)
		zp_bn254_fr_mul_fast(w, w, w);
	return 0;
}

int zp_bn254_ntt_domain_init(zp_bn254_ntt_domain *d, unsigned log_n)
{
	*d = (zp_bn254_ntt_domain){ 0 };
	if (log_n > ZP_BN254_NTT_MAX_LOG)
		return zp_err_set(ZP_ERANGE, "bn254 ntt: 2^%u points is more than 2^28", log_n);
	size_t n = (size_t)1 << log_n, half = n > 1 ? n / 2 : 1;
	d->tw = malloc(half * sizeof(fr));
	if (!d->tw)
		return -ENOMEM;
	d->log_n = log_n;
	d->n = n;
	zp_bn254_ntt_root(&d->omega, log_n);
	if (log_n < ZP_BN254_NTT_MAX_LOG)
		zp_bn254_ntt_root(&d->omega_2n, log_n + 1);
	zp_bn254_fr_inv(&d->omega_inv, &d->omega);
	zp_bn254_fr_from_u64(&d->n_inv, n);
	zp_bn254_fr_inv(&d->n_inv, &d->n_inv);
	d->tw[0] = ZP_BN254_FR_ONE;
	for (size_t j = 1; j < half; j++)
		zp_bn254_fr_mul_fast(&d->tw[j], &d->tw[j - 1], &d->omega);
	return 0;
}

void zp_bn254_ntt_domain_free(zp_bn254_ntt_domain *d)
{
	free(d->tw);
	*d = (zp_bn254_ntt_domain){ 0 };
}

struct level {
	fr *a;
	const fr *tw;
	size_t n, h, stride;
	unsigned lh;   /* log2 h */
};

static void level_task(void *ctx, size_t t0, int worker)
{
	(void)worker;
	const struct level *L = ctx;
	size_t lo = t0 * CHUNK, hi = lo + CHUNK < L->n / 2 ? lo + CHUNK : L->n / 2;
	for (size_t t = lo; t < hi; t++) {
		size_t j = t & (L->h - 1), i = ((t >> L->lh) << (L->lh + 1)) + j;
		fr v;
		zp_bn254_fr_mul_fast(&v, &L->a[i + L->h], &L->tw[j * L->stride]);
		fsub(&L->a[i + L->h], &L->a[i], &v);
		fadd(&L->a[i], &L->a[i], &v);
	}
}

/*
 * AVX-512 IFMA (when zp_fp_ifma_available(); ZP_FIELD_PORTABLE=1 keeps the scalar code): the levels
 * with h >= 8 take eight butterflies at once (eight consecutive j of one group), the scalings eight
 * elements at once. Elements stay in the scalar code's Montgomery form (R = 2^256) and reduced in
 * memory; lanes are five 52-bit limbs (ifma_tmpl.h's instance fr_v5_*, below) and a product is
 * a·b·2^-260, so the second factor of each product is taken times 2^4 (four shifts for a twiddle; a
 * kept "R' form" for a running power): the results are the scalar code's exactly.
 */
#if defined(__x86_64__) && defined(__GNUC__)
#include "bn254.h"

static const uint64_t R52[5] = ZP_C52_BN_FR_P;   /* r in 52-bit limbs: the engine fr_v5_* over Fr */
#define IV(x) fr_v5_##x
#define IFMA_N 5
#define IFMA_W 4
#define IFMA_FE fr
#define IFMA_P R52
#define IFMA_PINV ZP_C52_BN_FR_INV
#include "ifma_tmpl.h"

static bool ntt_ifma;
static pthread_once_t ntt_once = PTHREAD_ONCE_INIT;
static void ntt_init(void) { ntt_ifma = fr_v5_consts_ok(ZP_BN254_FR_MODULUS) && zp_fp_ifma_available(); }
static bool use_ifma(void)
{
	pthread_once(&ntt_once, ntt_init);
	return ntt_ifma;
}

/* eight consecutive elements <-> five limb vectors (a 4 x 8 transpose by two-source permutes) */
static inline IFMA_FN void ld8(__m512i r[5], const fr *p)
{
	const uint64_t *w = p->l;
	__m512i A0 = _mm512_loadu_si512((const void *)w), A1 = _mm512_loadu_si512((const void *)(w + 8));
	__m512i A2 = _mm512_loadu_si512((const void *)(w + 16)), A3 = _mm512_loadu_si512((const void *)(w + 24));
	const __m512i i01 = _mm512_set_epi64(13, 9, 5, 1, 12, 8, 4, 0), i23 = _mm512_set_epi64(15, 11, 7, 3, 14, 10, 6, 2);
	const __m512i lo = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0), hi = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
	__m512i L[4], P0 = _mm512_permutex2var_epi64(A0, i01, A1), P1 = _mm512_permutex2var_epi64(A2, i01, A3);
	L[0] = _mm512_permutex2var_epi64(P0, lo, P1);
	L[1] = _mm512_permutex2var_epi64(P0, hi, P1);
	P0 = _mm512_permutex2var_epi64(A0, i23, A1);
	P1 = _mm512_permutex2var_epi64(A2, i23, A3);
	L[2] = _mm512_permutex2var_epi64(P0, lo, P1);
	L[3] = _mm512_permutex2var_epi64(P0, hi, P1);
	fr_v5_from64(r, L);
}
static inline IFMA_FN void st8(fr *p, const __m512i r[5])
{
	uint64_t *w = p->l;
	__m512i L[4];
	fr_v5_to64(L, r);
	const __m512i z0 = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), z1 = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
	const __m512i c0 = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), c1 = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
	__m512i Q01 = _mm512_permutex2var_epi64(L[0], z0, L[1]), Q01h = _mm512_permutex2var_epi64(L[0], z1, L[1]);
	__m512i Q23 = _mm512_permutex2var_epi64(L[2], z0, L[3]), Q23h = _mm512_permutex2var_epi64(L[2], z1, L[3]);
	_mm512_storeu_si512((void *)w, _mm512_permutex2var_epi64(Q01, c0, Q23));
	_mm512_storeu_si512((void *)(w + 8), _mm512_permutex2var_epi64(Q01, c1, Q23));
	_mm512_storeu_si512((void *)(w + 16), _mm512_permutex2var_epi64(Q01h, c0, Q23h));
	_mm512_storeu_si512((void *)(w + 24), _mm512_permutex2var_epi64(Q01h, c1, Q23h));
}
/* r = a·b (b's value times 2^4 < 2^260, a < r): the product of the values, reduced */
static inline IFMA_FN void rmul(__m512i r[5], const __m512i a[5], const __m512i b16[5])
{
	fr_v5_mul(r, a, b16);
	fr_v5_csub(r, 1);
}

/* butterflies t in [lo, hi) of level L (lo, hi multiples of 8; h >= 8) */
static IFMA_FN void level_range_v(const struct level *L, size_t lo, size_t hi)
{
	const uint64_t *tw = L->tw[0].l;
	const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
	for (size_t t = lo; t < hi; t += 8) {
		size_t j = t & (L->h - 1), i = ((t >> L->lh) << (L->lh + 1)) + j;
		__m512i u[5], v[5], w[5], x[5], d[5];
		if (L->stride == 1) {
			ld8(w, &L->tw[j]);
		} else {
			__m512i idx = _mm512_slli_epi64(_mm512_mul_epu32(_mm512_add_epi64(lane, _mm512_set1_epi64((long long)j)),
			                                                 _mm512_set1_epi64((long long)L->stride)), 2);
			fr_v5_gather(w, tw, idx);
		}
		fr_v5_shl(w, w);
		ld8(u, &L->a[i]);
		ld8(v, &L->a[i + L->h]);
		rmul(x, v, w);
		fr_v5_sub(d, u, x, 1);
		fr_v5_csub(d, 1);
		fr_v5_add(u, u, x);
		fr_v5_csub(u, 1);
		st8(&L->a[i], u);
		st8(&L->a[i + L->h], d);
	}
}
static IFMA_FN void level_task_v(void *ctx, size_t t0, int worker)
{
	(void)worker;
	const struct level *L = ctx;
	size_t lo = t0 * CHUNK, hi = lo + CHUNK < L->n / 2 ? lo + CHUNK : L->n / 2;
	level_range_v(L, lo, hi);
}

/* The first three levels (h = 1, 2, 4) on blocks of eight elements in registers (after the bit
 * reversal a block holds whole groups): per level, U = the lane's first element, V = its partner
 * (lane permutes), X = V·w (h = 1: w = 1), lane = U + X or U − X. One pass over memory, not three. */
struct first3 {
	fr *a;
	size_t blocks;
	__m512i w2[5], w4[5];   /* the lanes' twiddles for h = 2 and 4, times 2^4 */
};
static IFMA_FN void first3_range(const struct first3 *F, size_t lo, size_t hi)
{
	const __m512i iu[3] = { _mm512_set_epi64(6, 6, 4, 4, 2, 2, 0, 0), _mm512_set_epi64(5, 4, 5, 4, 1, 0, 1, 0),
	                        _mm512_set_epi64(3, 2, 1, 0, 3, 2, 1, 0) };
	const __m512i iv[3] = { _mm512_set_epi64(7, 7, 5, 5, 3, 3, 1, 1), _mm512_set_epi64(7, 6, 7, 6, 3, 2, 3, 2),
	                        _mm512_set_epi64(7, 6, 5, 4, 7, 6, 5, 4) };
	const __mmask8 hm[3] = { 0xaa, 0xcc, 0xf0 };
	for (size_t bl = lo; bl < hi; bl++) {
		__m512i e[5];
		ld8(e, &F->a[8 * bl]);
		for (int lv = 0; lv < 3; lv++) {
			__m512i u[5], v[5], x[5], d[5];
			for (int k = 0; k < 5; k++) {
				u[k] = _mm512_permutexvar_epi64(iu[lv], e[k]);
				v[k] = _mm512_permutexvar_epi64(iv[lv], e[k]);
			}
			if (lv == 0)
				memcpy(x, v, sizeof x);
			else
				rmul(x, v, lv == 1 ? F->w2 : F->w4);
			for (int k = 0; k < 5; k++) {
				d[k] = _mm512_add_epi64(_mm512_sub_epi64(u[k], x[k]), _mm512_set1_epi64((long long)R52[k]));
				u[k] = _mm512_add_epi64(u[k], x[k]);
			}
			fr_v5_carry(d);
			fr_v5_carry(u);
			for (int k = 0; k < 5; k++) e[k] = _mm512_mask_blend_epi64(hm[lv], u[k], d[k]);
			fr_v5_csub(e, 1);
		}
		st8(&F->a[8 * bl], e);
	}
}
static IFMA_FN void first3_init(struct first3 *F, fr *a, size_t n, const fr *tw)
{
	*F = (struct first3){ .a = a, .blocks = n / 8 };
	fr w[8];
	for (int l = 0; l < 8; l++) w[l] = tw[(size_t)(l & 1) * (n / 4)];
	ld8(F->w2, w);
	fr_v5_shl(F->w2, F->w2);
	for (int l = 0; l < 8; l++) w[l] = tw[(size_t)(l & 3) * (n / 8)];
	ld8(F->w4, w);
	fr_v5_shl(F->w4, F->w4);
}

/* Cache blocking: every level with 2h <= NTT_BLOCK acts within aligned blocks of NTT_BLOCK elements
 * (128 KiB), so one task takes a block through all of them (first3, then h = 8 .. NTT_BLOCK/2) while it
 * stays in cache; the levels above run one pass each. One parallel loop for the low levels, not one a level. */
#define NTT_BLOCK ((size_t)4096)
struct blocked {
	struct first3 F;
	fr *a;
	const fr *tw;
	size_t n, B;
};
static IFMA_FN void blocked_task(void *ctx, size_t blk, int worker)
{
	(void)worker;
	const struct blocked *X = ctx;
	first3_range(&X->F, blk * (X->B / 8), (blk + 1) * (X->B / 8));
	unsigned lh = 3;
	for (size_t h = 8; h < X->B; h *= 2, lh++) {
		struct level L = { .a = X->a, .tw = X->tw, .n = X->n, .h = h, .stride = X->n / (2 * h), .lh = lh };
		level_range_v(&L, blk * (X->B / 2), (blk + 1) * (X->B / 2));
	}
}
/* the levels below B on blocks; returns B (the first level left to do) */
static IFMA_FN size_t low_levels(fr *a, size_t n, const fr *tw)
{
	struct blocked X = { .a = a, .tw = tw, .n = n, .B = n < NTT_BLOCK ? n : NTT_BLOCK };
	first3_init(&X.F, a, n, tw);
	size_t tasks = n / X.B;
	if (n >= PAR_MIN)
		zp_par_for(tasks, blocked_task, &X);
	else
		for (size_t t = 0; t < tasks; t++)
			blocked_task(&X, t, 0);
	return X.B;
}

/* a[j] *= c·s^j for j < n (n a multiple of 8): the lanes' factors c·s^(j+l) kept in R' form (value
 * times 2^260, < r), stepped by s^8 in R' form */
static IFMA_FN void scale_v(fr *a, size_t n, const fr *c, const fr *s)
{
	fr p[8], s8[8], e = *s;
	p[0] = *c;
	for (int l = 1; l < 8; l++) zp_bn254_fr_mul_fast(&p[l], &p[l - 1], s);
	for (int i = 0; i < 3; i++) zp_bn254_fr_mul_fast(&e, &e, &e);
	for (int l = 0; l < 8; l++) s8[l] = e;
	__m512i Q[5], S8[5], t[5];
	ld8(Q, p);
	fr_v5_shl(Q, Q);
	fr_v5_csub(Q, 8);
	fr_v5_csub(Q, 4);
	fr_v5_csub(Q, 2);
	fr_v5_csub(Q, 1);
	ld8(S8, s8);
	fr_v5_shl(S8, S8);                   /* < 16r */
	for (size_t j = 0; j < n; j += 8) {
		ld8(t, &a[j]);
		rmul(t, t, Q);
		st8(&a[j], t);
		rmul(Q, Q, S8);
	}
}

/* a[j] = a[j]·b[j] − c[j] */
static IFMA_FN void abc_v(fr *a, const fr *b, const fr *c, size_t n)
{
	for (size_t j = 0; j < n; j += 8) {
		__m512i x[5], y[5], z[5];
		ld8(x, &a[j]);
		ld8(y, &b[j]);
		ld8(z, &c[j]);
		fr_v5_shl(y, y);
		rmul(x, x, y);
		fr_v5_sub(x, x, z, 1);
		fr_v5_csub(x, 1);
		st8(&a[j], x);
	}
}
#else
static bool use_ifma(void) { return false; }
static void level_task_v(void *ctx, size_t t0, int worker) { level_task(ctx, t0, worker); }
static size_t low_levels(fr *a, size_t n, const fr *tw) { (void)a; (void)n; (void)tw; abort(); }
static void scale_v(fr *a, size_t n, const fr *c, const fr *s) { (void)a; (void)n; (void)c; (void)s; abort(); }
static void abc_v(fr *a, const fr *b, const fr *c, size_t n) { (void)a; (void)b; (void)c; (void)n; abort(); }
#endif

/* the bit reversal's swaps (i, rev i), i < rev i, in ranges of i on all threads from PAR_MIN (the pairs
 * are disjoint, so ranges never touch the same element twice) */
struct brev {
	fr *a;
	size_t n;
	unsigned log_n;
};
static inline size_t rev_bits(size_t i, unsigned log_n)
{
	uint64_t x = (uint64_t)i;
	x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
	x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
	x = ((x >> 4) & 0x0f0f0f0f0f0f0f0full) | ((x & 0x0f0f0f0f0f0f0f0full) << 4);
	x = __builtin_bswap64(x);
	return (size_t)(x >> (64 - log_n));
}
static void brev_task(void *ctx, size_t t0, int worker)
{
	(void)worker;
	const struct brev *B = ctx;
	size_t lo = t0 * CHUNK, hi = lo + CHUNK < B->n ? lo + CHUNK : B->n;
	for (size_t i = lo; i < hi; i++) {
		size_t j = rev_bits(i, B->log_n);
		if (i < j) {
			fr t = B->a[i];
			B->a[i] = B->a[j];
			B->a[j] = t;
		}
	}
}
static void bit_reverse(fr *a, unsigned log_n)
{
	size_t n = (size_t)1 << log_n;
	if (log_n == 0)
		return;
	struct brev B = { .a = a, .n = n, .log_n = log_n };
	size_t tasks = (n + CHUNK - 1) / CHUNK;
	if (n >= PAR_MIN)
		zp_par_for(tasks, brev_task, &B);
	else
		for (size_t t = 0; t < tasks; t++)
			brev_task(&B, t, 0);
}

static int check(const zp_bn254_ntt_domain *d)
{
	return d->tw ? 0 : zp_err_set(ZP_ERANGE, "bn254 ntt: domain not initialized");
}

int zp_bn254_ntt_forward(zp_bn254_ntt_domain *d, fr *a)
{
	int rc = check(d);
	if (rc < 0)
		return rc;
	bit_reverse(a, d->log_n);
	bool v = d->n >= 16 && use_ifma();
	unsigned lh = 0;
	size_t h = 1;
	if (v) {
		h = low_levels(a, d->n, d->tw);
		for (size_t b = h; b > 1; b >>= 1)
			lh++;
	}
	for (; h < d->n; h *= 2, lh++) {
		struct level L = { .a = a, .tw = d->tw, .n = d->n, .h = h, .stride = d->n / (2 * h), .lh = lh };
		size_t tasks = (d->n / 2 + CHUNK - 1) / CHUNK;
		void (*task)(void *, size_t, int) = v && h >= 8 ? level_task_v : level_task;
		if (d->n >= PAR_MIN)
			zp_par_for(tasks, task, &L);
		else
			for (size_t t = 0; t < tasks; t++)
				task(&L, t, 0);
	}
	return 0;
}

/* The scalar path's element-wise passes, in CHUNKs on all threads from PAR_MIN: a[j] *= c·s^j (s = NULL: by c),
 * or a[j] = a[j]·b[j] − c[j]. A chunk starts from s^lo by squarings (exact products: the same values as the
 * running power of one pass). */
struct scale {
	fr *a;
	const fr *b, *c, *s;
	size_t n;
};
static void scale_task(void *ctx, size_t t0, int worker)
{
	(void)worker;
	const struct scale *X = ctx;
	size_t lo = t0 * CHUNK, hi = lo + CHUNK < X->n ? lo + CHUNK : X->n;
	fr p = *X->c;
	if (X->s) {
		fr e = *X->s;
		for (size_t k = lo; k; k >>= 1) {
			if (k & 1)
				zp_bn254_fr_mul_fast(&p, &p, &e);
			zp_bn254_fr_mul_fast(&e, &e, &e);
		}
	}
	for (size_t j = lo; j < hi; j++) {
		zp_bn254_fr_mul_fast(&X->a[j], &X->a[j], &p);
		if (X->s)
			zp_bn254_fr_mul_fast(&p, &p, X->s);
	}
}
static void abc_task(void *ctx, size_t t0, int worker)
{
	(void)worker;
	const struct scale *X = ctx;
	size_t lo = t0 * CHUNK, hi = lo + CHUNK < X->n ? lo + CHUNK : X->n;
	for (size_t j = lo; j < hi; j++) {
		zp_bn254_fr_mul_fast(&X->a[j], &X->a[j], &X->b[j]);
		fsub(&X->a[j], &X->a[j], &X->c[j]);
	}
}
static void elementwise(void (*task)(void *, size_t, int), struct scale *X)
{
	size_t tasks = (X->n + CHUNK - 1) / CHUNK;
	if (X->n >= PAR_MIN)
		zp_par_for(tasks, task, X);
	else
		for (size_t t = 0; t < tasks; t++)
			task(X, t, 0);
}
static void scale_powers(fr *a, size_t n, const fr *s)
{
	struct scale X = { .a = a, .c = &ZP_BN254_FR_ONE, .s = s, .n = n };
	elementwise(scale_task, &X);
}

/* a[i] <-> a[n-i] for 0 < i < n/2, ranges of i on all threads from PAR_MIN */
static void mirror_task(void *ctx, size_t t0, int worker)
{
	(void)worker;
	const struct brev *B = ctx;
	size_t lo = t0 * CHUNK, hi = lo + CHUNK < B->n / 2 ? lo + CHUNK : B->n / 2;
	for (size_t i = lo > 0 ? lo : 1; i < hi; i++) {
		fr t = B->a[i];
		B->a[i] = B->a[B->n - i];
		B->a[B->n - i] = t;
	}
}

/* the inverse without its n^-1: forward, then a[i] <-> a[n-i] */
static int inverse_unscaled(zp_bn254_ntt_domain *d, fr *a)
{
	int rc = zp_bn254_ntt_forward(d, a);
	if (rc < 0)
		return rc;
	struct brev B = { .a = a, .n = d->n };
	size_t tasks = (d->n / 2 + CHUNK - 1) / CHUNK;
	if (d->n >= PAR_MIN)
		zp_par_for(tasks, mirror_task, &B);
	else
		for (size_t t = 0; t < tasks; t++)
			mirror_task(&B, t, 0);
	return 0;
}

int zp_bn254_ntt_inverse(zp_bn254_ntt_domain *d, fr *a)
{
	int rc = inverse_unscaled(d, a);
	if (rc < 0)
		return rc;
	if (d->n >= 8 && use_ifma()) {
		scale_v(a, d->n, &d->n_inv, &ZP_BN254_FR_ONE);
		return 0;
	}
	struct scale X = { .a = a, .c = &d->n_inv, .n = d->n };
	elementwise(scale_task, &X);
	return 0;
}

int zp_bn254_ntt_coset_forward(zp_bn254_ntt_domain *d, fr *a, const fr *shift)
{
	int rc = check(d);
	if (rc < 0)
		return rc;
	if (zp_bn254_fr_is_zero(shift))
		return zp_err_set(ZP_ERANGE, "bn254 ntt: coset shift 0");
	if (d->n >= 8 && use_ifma())
		scale_v(a, d->n, &ZP_BN254_FR_ONE, shift);
	else
		scale_powers(a, d->n, shift);
	return zp_bn254_ntt_forward(d, a);
}

int zp_bn254_ntt_coset_inverse(zp_bn254_ntt_domain *d, fr *a, const fr *shift)
{
	int rc = check(d);
	if (rc < 0)
		return rc;
	if (zp_bn254_fr_is_zero(shift))
		return zp_err_set(ZP_ERANGE, "bn254 ntt: coset shift 0");
	fr inv;
	zp_bn254_fr_inv(&inv, shift);
	if ((rc = zp_bn254_ntt_inverse(d, a)) < 0)
		return rc;
	scale_powers(a, d->n, &inv);
	return 0;
}

int zp_bn254_ntt_h_snarkjs(zp_bn254_ntt_domain *d, fr *a, fr *b, fr *c)
{
	int rc = check(d);
	if (rc < 0)
		return rc;
	if (d->log_n >= ZP_BN254_NTT_MAX_LOG)
		return zp_err_set(ZP_ERANGE, "bn254 ntt: the snarkjs coset needs ω_{2n}: 2^%u is too large", d->log_n);
	fr *v[3] = { a, b, c };
	if (d->n >= 8 && use_ifma()) {   /* the inverse's n^-1 and the coset's powers in one pass */
		for (int i = 0; i < 3; i++) {
			if ((rc = inverse_unscaled(d, v[i])) < 0)
				return rc;
			scale_v(v[i], d->n, &d->n_inv, &d->omega_2n);
			if ((rc = zp_bn254_ntt_forward(d, v[i])) < 0)
				return rc;
		}
		abc_v(a, b, c, d->n);
		return 0;
	}
	for (int i = 0; i < 3; i++)
		if ((rc = zp_bn254_ntt_inverse(d, v[i])) < 0 || (rc = zp_bn254_ntt_coset_forward(d, v[i], &d->omega_2n)) < 0)
			return rc;
	struct scale X = { .a = a, .b = b, .c = c, .n = d->n };
	elementwise(abc_task, &X);
	return 0;
}
