/*
 * ntt_tmpl.h — internal: the CPU NTT over one scalar field, included once by ntt.c (BLS12-381's Fr) and once
 * by bn254_ntt.c (BN254's Fr): the four-step transform, the coset transforms, the pointwise passes of the
 * H steps and the snarkjs H step. Contract and conventions: ntt.h (bn254_ntt.h: the same over BN254's Fr).
 *
 * The includer defines NT(x) (the public names: zp_ntt_##x, zp_bn254_ntt_##x), FR and DOM (the element and
 * domain types; the domain's private part is ntt.h's ZP_NTT_DOMAIN_PRIVATE), FR_ONE, FR_P64 / FR_P52 /
 * FR_P52_INV (the modulus, below 2^255, in 64- and 52-bit limbs, and -r^-1 mod 2^52: zp_consts.h), fr_mul
 * (field_impl.h's MULX/ADX dispatch), fr_inv, fr_from_u64, fr_is_zero, NT_MAX_LOG, NT_ADICITY (the
 * largest k with a 2^k-th root), NT_NAME (error messages) and, before the include, a function
 * root(FR *w, unsigned k, int family): ω_{2^k} of a root family (ntt.h), 0 or ZP_ERANGE.
 *
 * Why the output lands in bit-reversed order before step (3): write the input index j = j1·C + j2 and the
 * output index k = k1 + R·k2 (j1, k1 < R; j2, k2 < C). Then ω_n^(jk) = ω_R^(j1k1) · ω_n^(j2k1) · ω_C^(j2k2).
 * Step (1) is the R-point DFT over j1 for each column j2; a DIF leaves k1 at row rev_R(k1). Step (2)
 * multiplies by ω_n^(j2k1) and takes the C-point DFT over j2 along the row; its DIF leaves k2 at column
 * rev_C(k2). So X[k] sits at rev_R(k1)·C + rev_C(k2) = rev_n(k1 + R·k2) = rev_n(k), and one global bit
 * reversal (an involution, so in place) restores natural order. The inverse runs the same steps with
 * ω^-1 tables and folds n^-1 into the row multipliers; coset forward folds s^j into the column gather.
 *
 * AVX-512 IFMA (zp_fp_ifma_available(); ZP_FIELD_PORTABLE=1 keeps the scalar code): the DIF levels with
 * h >= 8 take eight butterflies at once (eight consecutive i of one group, their twiddles one load), the
 * last three levels run in registers on blocks of eight, and the scalings (row multipliers, coset powers,
 * the H step's a·b − c) eight elements at once. Elements stay in the scalar code's Montgomery form
 * (R = 2^256) and reduced in memory; lanes are five 52-bit limbs (ifma_tmpl.h's engine instanced for the
 * Fr: fr_v5_*; both Fr are below 2^255) and a product is a·b·2^-260, so the second factor of
 * each product is taken times 2^4 (four shifts for a twiddle; a kept "R' form" for a running power): the
 * results are the scalar code's exactly (a reduced Montgomery value is unique).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>   /* _addcarry_u64 / _subborrow_u64 (plain x86-64, no extra ISA) */

#include "field_impl.h"
#include "fp_ifma.h"
#include "par.h"
#include "zp_consts.h"
#include "zp_err.h"

#define INLINE static inline __attribute__((always_inline))

enum { FWD = 0, INV = 1 };
#define SMALL_LOG 12      /* up to 2^12 (128 KiB) one row does it all */
#define COL_W 4           /* columns gathered together: 4 × 32 B = two cache lines per row */
#define L1_LOG 10         /* DIF blocks of 2^10 elements (32 KiB) stay in L1 */
#define BR_B 4            /* bit reversal tiles of 2^4 × 2^4 elements */
#define CHUNK 4096        /* elements per task in pointwise passes */
#define MAX_SLOTS 64

/* Additions inline (Montgomery, fully reduced; r < 2^255, so a + b never carries out of 256 bits), the
 * reduction by masks, written out limb by limb as ntt.c had them: field_impl.h's zp_mod4_addc (a select,
 * compiled to a branch on the data here) and a looped mask form both made the scalar transform 20-25 %
 * slower (bench/RESULTS.md, "One CPU NTT"). */
static const uint64_t P64[4] = FR_P64;   /* zp_consts.h: constant-folded */

INLINE void cond_sub(uint64_t *o, uint64_t t0, uint64_t t1, uint64_t t2, uint64_t t3)
{
	unsigned long long s0, s1, s2, s3;
	unsigned char b;
	b = _subborrow_u64(0, t0, P64[0], &s0);
	b = _subborrow_u64(b, t1, P64[1], &s1);
	b = _subborrow_u64(b, t2, P64[2], &s2);
	b = _subborrow_u64(b, t3, P64[3], &s3);
	uint64_t keep = (uint64_t)0 - b;
	o[0] = (t0 & keep) | (s0 & ~keep);
	o[1] = (t1 & keep) | (s1 & ~keep);
	o[2] = (t2 & keep) | (s2 & ~keep);
	o[3] = (t3 & keep) | (s3 & ~keep);
}
INLINE void f_add(FR *r, const FR *a, const FR *b)
{
	unsigned long long t0, t1, t2, t3;
	unsigned char c;
	c = _addcarry_u64(0, a->l[0], b->l[0], &t0);
	c = _addcarry_u64(c, a->l[1], b->l[1], &t1);
	c = _addcarry_u64(c, a->l[2], b->l[2], &t2);
	_addcarry_u64(c, a->l[3], b->l[3], &t3);
	cond_sub(r->l, t0, t1, t2, t3);
}
INLINE void f_sub(FR *r, const FR *a, const FR *b)
{
	unsigned long long t0, t1, t2, t3, o0, o1, o2, o3;
	unsigned char c;
	c = _subborrow_u64(0, a->l[0], b->l[0], &t0);
	c = _subborrow_u64(c, a->l[1], b->l[1], &t1);
	c = _subborrow_u64(c, a->l[2], b->l[2], &t2);
	c = _subborrow_u64(c, a->l[3], b->l[3], &t3);
	uint64_t m = (uint64_t)0 - c;
	c = _addcarry_u64(0, t0, P64[0] & m, &o0);
	c = _addcarry_u64(c, t1, P64[1] & m, &o1);
	c = _addcarry_u64(c, t2, P64[2] & m, &o2);
	_addcarry_u64(c, t3, P64[3] & m, &o3);
	r->l[0] = o0; r->l[1] = o1; r->l[2] = o2; r->l[3] = o3;
}
INLINE void f_mul(FR *r, const FR *a, const FR *b) { fr_mul(r, a, b); }

/* base^e for a public exponent e. */
static void pow_u64(FR *r, const FR *base, uint64_t e)
{
	FR acc = FR_ONE, b = *base;
	while (e) {
		if (e & 1)
			f_mul(&acc, &acc, &b);
		f_mul(&b, &b, &b);
		e >>= 1;
	}
	*r = acc;
}

static inline size_t rev_bits(size_t x, unsigned bits)
{
	uint64_t v = x;
	v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
	v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
	v = ((v >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((v & 0x0f0f0f0f0f0f0f0fULL) << 4);
	v = __builtin_bswap64(v);
	return bits ? (size_t)(v >> (64 - bits)) : 0;
}

/* ---------- IFMA lanes (see the top) ---------- */
#if defined(__x86_64__) && defined(__GNUC__)
static const uint64_t M52[5] = FR_P52;   /* r in 52-bit limbs: the engine fr_v5_* over this Fr */
#define IV(x) fr_v5_##x
#define IFMA_N 5
#define IFMA_W 4
#define IFMA_FE FR
#define IFMA_P M52
#define IFMA_PINV FR_P52_INV
#include "ifma_tmpl.h"

static bool ntt_ifma;
static pthread_once_t ntt_once = PTHREAD_ONCE_INIT;
static void ntt_init(void) { ntt_ifma = fr_v5_consts_ok(P64) && zp_fp_ifma_available(); }
static bool use_ifma(void)
{
	pthread_once(&ntt_once, ntt_init);
	return ntt_ifma;
}

/* eight consecutive elements <-> five limb vectors (a 4 x 8 transpose by two-source permutes) */
static inline IFMA_FN void ld8(__m512i r[5], const FR *p)
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
static inline IFMA_FN void st8(FR *p, const __m512i r[5])
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
/* r = a·b (a·b < r·2^260, e.g. a < 2r and b's value times 2^4 < 16r): the product of the values, reduced */
static inline IFMA_FN void rmul(__m512i r[5], const __m512i a[5], const __m512i b16[5])
{
	fr_v5_mul(r, a, b16);
	fr_v5_csub(r, 1);
}
/* eight elements times 2^4 from FR values (twiddles, factors) */
static inline IFMA_FN void ld8_16(__m512i r[5], const FR *p)
{
	ld8(r, p);
	fr_v5_shl(r, r);
}

/* One DIF level with half-size h >= 8 over a[0..m): x, y <- x + y, (x − y)·ω_{2h}^i. */
static IFMA_FN void dif_level_v(FR *a, size_t m, size_t h, const FR *tw)
{
	const FR *t = tw + h - 1;
	for (size_t s = 0; s < m; s += 2 * h)
		for (size_t i = 0; i < h; i += 8) {
			__m512i u[5], v[5], w[5], d[5];
			ld8(u, &a[s + i]);
			ld8(v, &a[s + i + h]);
			ld8_16(w, &t[i]);
			fr_v5_sub(d, u, v, 1);
			fr_v5_add(u, u, v);
			fr_v5_csub(u, 1);
			rmul(d, d, w);
			st8(&a[s + i], u);
			st8(&a[s + i + h], d);
		}
}

/* The last three levels (h = 4, 2, 1) on blocks of eight in registers: per level U = the lane's first
 * element, V = its partner (lane permutes), the lane = U + V or (U − V)·w (h = 1: w = 1). */
static IFMA_FN void last3_v(FR *a, size_t m, const FR *tw)
{
	const __m512i iu[3] = { _mm512_set_epi64(3, 2, 1, 0, 3, 2, 1, 0), _mm512_set_epi64(5, 4, 5, 4, 1, 0, 1, 0),
	                        _mm512_set_epi64(6, 6, 4, 4, 2, 2, 0, 0) };
	const __m512i iv[3] = { _mm512_set_epi64(7, 6, 5, 4, 7, 6, 5, 4), _mm512_set_epi64(7, 6, 7, 6, 3, 2, 3, 2),
	                        _mm512_set_epi64(7, 7, 5, 5, 3, 3, 1, 1) };
	const __mmask8 dm[3] = { 0xf0, 0xcc, 0xaa };
	FR w[8];
	__m512i W[2][5];
	for (int l = 0; l < 8; l++) w[l] = tw[3 + (l & 3)];   /* h = 4: ω_8^(l mod 4) */
	ld8_16(W[0], w);
	for (int l = 0; l < 8; l++) w[l] = tw[1 + (l & 1)];   /* h = 2: ω_4^(l mod 2) */
	ld8_16(W[1], w);
	for (size_t b = 0; b < m; b += 8) {
		__m512i e[5];
		ld8(e, &a[b]);
		for (int lv = 0; lv < 3; lv++) {
			__m512i u[5], v[5], d[5];
			for (int k = 0; k < 5; k++) {
				u[k] = _mm512_permutexvar_epi64(iu[lv], e[k]);
				v[k] = _mm512_permutexvar_epi64(iv[lv], e[k]);
			}
			fr_v5_sub(d, u, v, 1);
			if (lv < 2)
				rmul(d, d, W[lv]);
			fr_v5_add(u, u, v);
			for (int k = 0; k < 5; k++)
				e[k] = _mm512_mask_blend_epi64(dm[lv], u[k], d[k]);
			fr_v5_csub(e, 1);
		}
		st8(&a[b], e);
	}
}

/* a[j] *= c·s^j for j < n (n a multiple of 8): the lanes' factors c·s^(j+l) kept in R' form (value
 * times 2^260, < r), stepped by s^8 in R' form */
static IFMA_FN void scale_v(FR *a, size_t n, const FR *c, const FR *s)
{
	FR p[8], s8[8], e = *s;
	p[0] = *c;
	for (int l = 1; l < 8; l++) f_mul(&p[l], &p[l - 1], s);
	for (int i = 0; i < 3; i++) f_mul(&e, &e, &e);
	for (int l = 0; l < 8; l++) s8[l] = e;
	__m512i Q[5], S8[5], t[5];
	ld8_16(Q, p);
	fr_v5_csub(Q, 8);
	fr_v5_csub(Q, 4);
	fr_v5_csub(Q, 2);
	fr_v5_csub(Q, 1);
	ld8_16(S8, s8);                   /* < 16r */
	for (size_t j = 0; j < n; j += 8) {
		ld8(t, &a[j]);
		rmul(t, t, Q);
		st8(&a[j], t);
		rmul(Q, Q, S8);
	}
}

/* a[j] = (a[j]·b[j] − c[j])·k (k NULL: 1), n a multiple of 8 */
static IFMA_FN void abc_v(FR *a, const FR *b, const FR *c, size_t n, const FR *k)
{
	__m512i K[5];
	if (k) {
		FR kk[8];
		for (int l = 0; l < 8; l++) kk[l] = *k;
		ld8_16(K, kk);
	}
	for (size_t j = 0; j < n; j += 8) {
		__m512i x[5], y[5], z[5];
		ld8(x, &a[j]);
		ld8_16(y, &b[j]);
		ld8(z, &c[j]);
		rmul(x, x, y);
		fr_v5_sub(x, x, z, 1);
		fr_v5_csub(x, 1);
		if (k)
			rmul(x, x, K);
		st8(&a[j], x);
	}
}
#else
static bool use_ifma(void) { return false; }
static void dif_level_v(FR *a, size_t m, size_t h, const FR *tw) { (void)a; (void)m; (void)h; (void)tw; abort(); }
static void last3_v(FR *a, size_t m, const FR *tw) { (void)a; (void)m; (void)tw; abort(); }
static void scale_v(FR *a, size_t n, const FR *c, const FR *s) { (void)a; (void)n; (void)c; (void)s; abort(); }
static void abc_v(FR *a, const FR *b, const FR *c, size_t n, const FR *k)
{
	(void)a; (void)b; (void)c; (void)n; (void)k;
	abort();
}
#endif

/* ---------- domain ---------- */

static void split(unsigned log_n, unsigned *log_rows, unsigned *log_cols)
{
	*log_rows = log_n <= SMALL_LOG ? 0 : log_n / 2;
	*log_cols = log_n - *log_rows;
}

static unsigned slot_count(unsigned nslots)
{
	if (nslots == 0)
		nslots = (unsigned)zp_par_threads();
	if (nslots < 1)
		nslots = 1;
	return nslots > MAX_SLOTS ? MAX_SLOTS : nslots;
}

/* Elements: 2 DIF tables of R-1 and C-1, 2 row-step tables of R, slots of R·COL_W (none when R = 1). */
static size_t domain_elems(unsigned log_n, unsigned nslots, size_t *slot_elems)
{
	unsigned lr, lc;
	split(log_n, &lr, &lc);
	size_t R = (size_t)1 << lr, C = (size_t)1 << lc;
	*slot_elems = R > 1 ? R * COL_W : 0;
	return 2 * (R - 1) + 2 * (C - 1) + 2 * R + (size_t)slot_count(nslots) * *slot_elems;
}

/* Per-level DIF twiddles for an m-point transform: level h (m/2, ..., 1) holds ω_{2h}^i, i < h, at t[h-1]. */
static void fill_dif_table(FR *t, unsigned log_m, unsigned log_n, const FR *w_n)
{
	for (unsigned lh = 0; lh < log_m; lh++) {
		size_t h = (size_t)1 << lh;
		FR w = *w_n;   /* ω_{2h} = ω_n^(n / 2h) */
		for (unsigned i = lh + 1; i < log_n; i++)
			f_mul(&w, &w, &w);
		FR *lv = t + h - 1;
		lv[0] = FR_ONE;
		for (size_t i = 1; i < h; i++)
			f_mul(&lv[i], &lv[i - 1], &w);
	}
}

/* The domain of 2^log_n points of a root family with nslots column buffers (0: one a thread). */
static int domain_init(DOM *d, unsigned log_n, int family, unsigned nslots)
{
	memset(d, 0, sizeof(*d));
	if (log_n > NT_MAX_LOG)
		return zp_err_set(ZP_ERANGE, NT_NAME ": log_n %u above %d", log_n, NT_MAX_LOG);
	int rc = root(&d->omega, log_n, family);
	if (rc < 0)
		return zp_err_set(rc, NT_NAME ": unknown root family %d", family);
	if (log_n < NT_ADICITY)
		root(&d->omega_2n, log_n + 1, family);
	fr_inv(&d->omega_inv, &d->omega);
	FR nf;
	fr_from_u64(&nf, (uint64_t)1 << log_n);
	fr_inv(&d->n_inv, &nf);
	d->log_n = log_n;
	d->n = (size_t)1 << log_n;
	split(log_n, &d->log_rows, &d->log_cols);
	d->nslots = slot_count(nslots);

	size_t total = domain_elems(log_n, nslots, &d->slot_elems);
	d->mem_bytes = total * sizeof(FR);
	d->mem = aligned_alloc(64, (d->mem_bytes + 63) & ~(size_t)63);
	if (!d->mem) {
		memset(d, 0, sizeof(*d));
		return zp_err_set(-ENOMEM, NT_NAME ": domain 2^%u: %zu bytes", log_n, total * sizeof(FR));
	}
	size_t R = (size_t)1 << d->log_rows, C = (size_t)1 << d->log_cols;
	FR *p = d->mem;
	for (int dir = 0; dir < 2; dir++) {
		const FR *w = dir == FWD ? &d->omega : &d->omega_inv;
		d->tw_rows[dir] = p; p += R - 1;
		d->tw_cols[dir] = p; p += C - 1;
		d->row_step[dir] = p; p += R;
		fill_dif_table(d->tw_rows[dir], d->log_rows, log_n, w);
		fill_dif_table(d->tw_cols[dir], d->log_cols, log_n, w);
		d->row_step[dir][0] = FR_ONE;
		for (size_t k = 1; k < R; k++)
			f_mul(&d->row_step[dir][k], &d->row_step[dir][k - 1], w);
	}
	d->slots = d->slot_elems ? p : NULL;
	return 0;
}

void NT(domain_free)(DOM *d)
{
	free(d->mem);
	memset(d, 0, sizeof(*d));
}

/* ---------- DIF sub-transforms (natural in, bit-reversed out) ---------- */

INLINE void bfly(FR *x, FR *y, const FR *w)
{
	FR u = *x, v = *y;
	f_add(x, &u, &v);
	f_sub(&v, &u, &v);
	f_mul(y, &v, w);
}

INLINE void bfly1(FR *x, FR *y)
{
	FR u = *x, v = *y;
	f_add(x, &u, &v);
	f_sub(y, &u, &v);
}

/* One DIF level with half-size h over a[0..m). */
static void dif_level(FR *a, size_t m, size_t h, const FR *tw)
{
	const FR *t = tw + h - 1;
	for (size_t s = 0; s < m; s += 2 * h) {
		bfly1(&a[s], &a[s + h]);
		for (size_t i = 1; i < h; i++)
			bfly(&a[s + i], &a[s + i + h], &t[i]);
	}
}

/* a[j] *= p·s^j for j < n; vec: IFMA lanes (n a multiple of 8) */
static void scale(FR *a, size_t n, FR p, const FR *s, bool vec)
{
	if (vec) {
		scale_v(a, n, &p, s);
		return;
	}
	for (size_t j = 0; j < n; j++) {
		f_mul(&a[j], &a[j], &p);
		f_mul(&p, &p, s);
	}
}

/* Depth-first once a block fits in L1, breadth-first above; vec: IFMA lanes (log_m >= 3). */
static void dif(FR *a, unsigned log_m, const FR *tw, bool vec)
{
	size_t m = (size_t)1 << log_m;
	if (log_m == 0)
		return;
	if (log_m > L1_LOG) {
		(vec ? dif_level_v : dif_level)(a, m, m / 2, tw);
		dif(a, log_m - 1, tw, vec);
		dif(a + m / 2, log_m - 1, tw, vec);
		return;
	}
	for (size_t h = m / 2; h >= (vec ? 8 : 2); h /= 2)
		(vec ? dif_level_v : dif_level)(a, m, h, tw);
	if (vec)
		last3_v(a, m, tw);
	else
		for (size_t s = 0; s < m; s += 2)
			bfly1(&a[s], &a[s + 1]);
}

/* ---------- the three passes ---------- */

struct xform {
	DOM *d;
	FR *a;
	int dir;
	bool coset;          /* forward only: scale a_j by shift^j in the columns (R = 1: the row) */
	bool vec;            /* IFMA lanes (rows and columns of at least 8) */
	FR shift;
	FR shift_c;          /* shift^C */
	atomic_size_t next;  /* column blocks handed out */
	size_t nblocks;
};

/* Step (1) on columns [c0, c0 + COL_W) through buf. */
static void column_block(struct xform *x, FR *buf, size_t c0)
{
	const DOM *d = x->d;
	size_t R = (size_t)1 << d->log_rows, C = (size_t)1 << d->log_cols;
	FR *a = x->a, p[COL_W];
	if (x->coset) {
		pow_u64(&p[0], &x->shift, c0);
		for (int w = 1; w < COL_W; w++)
			f_mul(&p[w], &p[w - 1], &x->shift);
	}
	for (size_t j = 0; j < R; j++)
		for (int w = 0; w < COL_W; w++)
			buf[w * R + j] = a[j * C + c0 + w];
	for (int w = 0; w < COL_W; w++) {
		if (x->coset)
			scale(buf + w * R, R, p[w], &x->shift_c, x->vec);
		dif(buf + w * R, d->log_rows, d->tw_rows[x->dir], x->vec);
	}
	for (size_t j = 0; j < R; j++)
		for (int w = 0; w < COL_W; w++)
			a[j * C + c0 + w] = buf[w * R + j];
}

static void column_task(void *ctx, size_t slot, int worker)
{
	struct xform *x = ctx;
	FR *buf = x->d->slots + slot * x->d->slot_elems;
	for (;;) {
		size_t b = atomic_fetch_add_explicit(&x->next, 1, memory_order_relaxed);
		if (b >= x->nblocks)
			return;
		column_block(x, buf, b * COL_W);
	}
}

/* Step (2) on row r: multiply element j by p0·step^j, then the C-point DIF. */
static void row_task(void *ctx, size_t r, int worker)
{
	struct xform *x = ctx;
	const DOM *d = x->d;
	size_t C = (size_t)1 << d->log_cols;
	FR *row = x->a + r * C;
	FR p = x->dir == INV ? d->n_inv : FR_ONE, step;
	bool mul = x->dir == INV;
	if (d->log_rows > 0) {
		step = d->row_step[x->dir][rev_bits(r, d->log_rows)];
		mul = mul || r != 0;
	} else {
		step = x->coset ? x->shift : FR_ONE;
		mul = mul || x->coset;
	}
	if (mul)
		scale(row, C, p, &step, x->vec);
	dif(row, d->log_cols, d->tw_cols[x->dir], x->vec);
}

struct brev {
	FR *a;
	unsigned log_n;
};

INLINE void swap_fr(FR *x, FR *y)
{
	FR t = *x;
	*x = *y;
	*y = t;
}

/* Step (3): tiles of mid values [t·64, t·64 + 64); index = hi(B) | mid | lo(B). */
static void brev_task(void *ctx, size_t t, int worker)
{
	struct brev *b = ctx;
	unsigned L = b->log_n, M = L - 2 * BR_B;
	size_t mend = (t + 1) * 64, nmid = (size_t)1 << M;
	if (mend > nmid)
		mend = nmid;
	for (size_t m = t * 64; m < mend; m++) {
		size_t mr = rev_bits(m, M);
		if (mr < m)
			continue;
		for (size_t h = 0; h < (1u << BR_B); h++) {
			size_t rh = rev_bits(h, BR_B);
			for (size_t l = 0; l < (1u << BR_B); l++) {
				size_t i = (h << (L - BR_B)) | (m << BR_B) | l;
				size_t j = (rev_bits(l, BR_B) << (L - BR_B)) | (mr << BR_B) | rh;
				if (m < mr || i < j)   /* mid pair (m, mr) is this task's alone */
					swap_fr(&b->a[i], &b->a[j]);
			}
		}
	}
}

static void bit_reverse(FR *a, unsigned log_n)
{
	if (log_n < 2 * BR_B + 6) {
		size_t n = (size_t)1 << log_n;
		for (size_t i = 0; i < n; i++) {
			size_t j = rev_bits(i, log_n);
			if (i < j)
				swap_fr(&a[i], &a[j]);
		}
		return;
	}
	struct brev b = { .a = a, .log_n = log_n };
	zp_par_for(((size_t)1 << (log_n - 2 * BR_B)) / 64, brev_task, &b);
}

static int transform(DOM *d, FR *a, int dir, const FR *shift)
{
	if (!d->mem)
		return zp_err_set(ZP_ERANGE, NT_NAME ": domain not initialized");
	struct xform x = { .d = d, .a = a, .dir = dir, .coset = shift != NULL, .vec = d->log_cols >= 3 && use_ifma() };
	if (shift) {
		x.shift = *shift;
		pow_u64(&x.shift_c, shift, (uint64_t)1 << d->log_cols);
	}
	if (d->log_rows > 0) {
		size_t C = (size_t)1 << d->log_cols;
		x.nblocks = C / COL_W;
		atomic_init(&x.next, 0);
		zp_par_for(x.nblocks < d->nslots ? x.nblocks : d->nslots, column_task, &x);
	}
	zp_par_for((size_t)1 << d->log_rows, row_task, &x);
	bit_reverse(a, d->log_n);
	return 0;
}

/* ---------- pointwise passes ---------- */

struct pointwise {
	FR *a;
	const FR *b, *c;
	size_t n;
	FR s;          /* scale: the ratio */
	FR k;          /* combine: the multiplier of (ab - c) */
	bool mulk, vec;
};

static void scale_task(void *ctx, size_t t, int worker)
{
	struct pointwise *c = ctx;
	size_t lo = t * CHUNK, hi = lo + CHUNK < c->n ? lo + CHUNK : c->n;
	FR p;
	pow_u64(&p, &c->s, lo);
	scale(c->a + lo, hi - lo, p, &c->s, c->vec);
}

/* a_j *= s^j */
static void scale_powers(FR *a, size_t n, const FR *s)
{
	struct pointwise c = { .a = a, .n = n, .s = *s, .vec = n >= 8 && use_ifma() };
	zp_par_for((n + CHUNK - 1) / CHUNK, scale_task, &c);
}

static void abc_task(void *ctx, size_t t, int worker)
{
	struct pointwise *x = ctx;
	size_t lo = t * CHUNK, hi = lo + CHUNK < x->n ? lo + CHUNK : x->n;
	if (x->vec) {
		abc_v(x->a + lo, x->b + lo, x->c + lo, hi - lo, x->mulk ? &x->k : NULL);
		return;
	}
	for (size_t j = lo; j < hi; j++) {
		FR v;
		f_mul(&v, &x->a[j], &x->b[j]);
		f_sub(&x->a[j], &v, &x->c[j]);
		if (x->mulk)
			f_mul(&x->a[j], &x->a[j], &x->k);
	}
}

/* a <- (a∘b - c)·k (k NULL: 1) */
static void combine(FR *a, const FR *b, const FR *c, size_t n, const FR *k)
{
	struct pointwise x = { .a = a, .b = b, .c = c, .n = n, .mulk = k != NULL, .vec = n >= 8 && use_ifma() };
	if (k)
		x.k = *k;
	zp_par_for((n + CHUNK - 1) / CHUNK, abc_task, &x);
}

int NT(forward)(DOM *d, FR *a) { return transform(d, a, FWD, NULL); }
int NT(inverse)(DOM *d, FR *a) { return transform(d, a, INV, NULL); }

int NT(coset_forward)(DOM *d, FR *a, const FR *shift)
{
	if (fr_is_zero(shift))
		return zp_err_set(ZP_ERANGE, NT_NAME ": coset shift is zero");
	return transform(d, a, FWD, shift);
}

int NT(coset_inverse)(DOM *d, FR *a, const FR *shift)
{
	if (fr_is_zero(shift))
		return zp_err_set(ZP_ERANGE, NT_NAME ": coset shift is zero");
	int rc = transform(d, a, INV, NULL);
	if (rc < 0)
		return rc;
	FR sinv;
	fr_inv(&sinv, shift);
	scale_powers(a, d->n, &sinv);
	return 0;
}

/* ---------- Groth16 H, snarkjs's convention ---------- */

/* Evaluations on the domain -> evaluations on shift·domain. */
static int to_coset(DOM *d, FR *v, const FR *shift)
{
	int rc = transform(d, v, INV, NULL);
	return rc < 0 ? rc : transform(d, v, FWD, shift);
}

int NT(h_snarkjs)(DOM *d, FR *a, FR *b, FR *c)
{
	if (d->mem && d->log_n >= NT_ADICITY)
		return zp_err_set(ZP_ERANGE, NT_NAME ": the snarkjs coset needs ω_{2n}: 2^%u is too large", d->log_n);
	FR *v[3] = { a, b, c };
	for (int i = 0; i < 3; i++) {
		int rc = to_coset(d, v[i], &d->omega_2n);
		if (rc < 0)
			return rc;
	}
	combine(a, b, c, d->n, NULL);
	return 0;
}

#undef INLINE
