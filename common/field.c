/*
 * field.c — Montgomery arithmetic for Fp and Fr on 64-bit limbs.
 *
 * Constants below were derived with arbitrary-precision integers (Python):
 *   R mod m = 2^(64n) mod m, R2 = 2^(128n) mod m, INV = -m^-1 mod 2^64.
 * Both moduli leave spare top bits (q < 2^381, r < 2^255), so a + b < 2^(64n)
 * never carries out and one conditional subtraction reduces any sum.
 *
 * The generic helpers are always_inline and take n as a constant, so each field
 * gets its own fully unrolled copy.
 */
#include "field.h"
#include "field_impl.h"
#include "zp_consts.h"
#include "zp_err.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

typedef unsigned __int128 u128;
#define INLINE static inline __attribute__((always_inline))

/* The moduli and Montgomery constants: zp_consts.h, generated from one source (gen_consts.py). */
const uint64_t ZP_FP_MODULUS[6] = ZP_C64_FP_P;
static const uint64_t FP_R2[6] = ZP_C64_FP_RR;
static const uint64_t FP_INV = ZP_C64_FP_INV;
const zp_fp ZP_FP_ZERO = { { 0 } };
const zp_fp ZP_FP_ONE = { ZP_C64_FP_ONE };  /* R mod q */

const uint64_t ZP_FR_MODULUS[4] = ZP_C64_FR_P;
static const uint64_t FR_R2[4] = ZP_C64_FR_RR;
static const uint64_t FR_INV = ZP_C64_FR_INV;
const zp_fr ZP_FR_ZERO = { { 0 } };
const zp_fr ZP_FR_ONE = { ZP_C64_FR_ONE };  /* R mod r */

/* ---------- generic limb arithmetic ---------- */

/* r = t - p if t >= p else t; t has n limbs plus a carry word hi. Constant time. */
INLINE void reduce_once(uint64_t *r, const uint64_t *t, uint64_t hi, const uint64_t *p, int n)
{
	uint64_t s[8], borrow = 0;
	for (int i = 0; i < n; i++) {
		u128 d = (u128)t[i] - p[i] - borrow;
		s[i] = (uint64_t)d;
		borrow = (uint64_t)(d >> 64) & 1;
	}
	/* t >= p iff no borrow out of (hi:t) - p */
	uint64_t keep_t = (uint64_t)0 - (borrow & (hi ^ 1) & 1);  /* all-ones if t < p */
	for (int i = 0; i < n; i++)
		r[i] = (t[i] & keep_t) | (s[i] & ~keep_t);
}

INLINE void add_mod(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, int n)
{
	uint64_t t[8], c = 0;
	for (int i = 0; i < n; i++) {
		u128 s = (u128)a[i] + b[i] + c;
		t[i] = (uint64_t)s;
		c = (uint64_t)(s >> 64);
	}
	reduce_once(r, t, c, p, n);
}

INLINE void sub_mod(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, int n)
{
	uint64_t t[8], borrow = 0;
	for (int i = 0; i < n; i++) {
		u128 d = (u128)a[i] - b[i] - borrow;
		t[i] = (uint64_t)d;
		borrow = (uint64_t)(d >> 64) & 1;
	}
	uint64_t mask = (uint64_t)0 - borrow, c = 0;
	for (int i = 0; i < n; i++) {
		u128 s = (u128)t[i] + (p[i] & mask) + c;
		r[i] = (uint64_t)s;
		c = (uint64_t)(s >> 64);
	}
}

/* CIOS Montgomery multiplication: r = a*b/2^(64n) mod p. */
INLINE void mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b,
		     const uint64_t *p, uint64_t inv, int n)
{
	uint64_t t[8] = { 0 };
	uint64_t t_n = 0;
	for (int i = 0; i < n; i++) {
		u128 c = 0;
		for (int j = 0; j < n; j++) {
			c = (u128)a[j] * b[i] + t[j] + (uint64_t)(c >> 64);
			t[j] = (uint64_t)c;
		}
		u128 s = (u128)t_n + (uint64_t)(c >> 64);
		t_n = (uint64_t)s;
		uint64_t t_n1 = (uint64_t)(s >> 64);
		uint64_t m = t[0] * inv;
		c = (u128)m * p[0] + t[0];
		for (int j = 1; j < n; j++) {
			c = (u128)m * p[j] + t[j] + (uint64_t)(c >> 64);
			t[j - 1] = (uint64_t)c;
		}
		s = (u128)t_n + (uint64_t)(c >> 64);
		t[n - 1] = (uint64_t)s;
		t_n = t_n1 + (uint64_t)(s >> 64);
	}
	reduce_once(r, t, t_n, p, n);
}

INLINE bool is_zero_n(const uint64_t *a, int n)
{
	uint64_t acc = 0;
	for (int i = 0; i < n; i++)
		acc |= a[i];
	return acc == 0;
}

INLINE bool eq_n(const uint64_t *a, const uint64_t *b, int n)
{
	uint64_t acc = 0;
	for (int i = 0; i < n; i++)
		acc |= a[i] ^ b[i];
	return acc == 0;
}

/* a < b as integers (variable time: public data only). */
static bool lt_n(const uint64_t *a, const uint64_t *b, int n)
{
	for (int i = n - 1; i >= 0; i--)
		if (a[i] != b[i])
			return a[i] < b[i];
	return false;
}

static void bytes_to_limbs(uint64_t *out, const uint8_t *in, int n, bool big_endian)
{
	for (int i = 0; i < n; i++) {
		uint64_t v = 0;
		for (int k = 0; k < 8; k++) {
			int idx = big_endian ? (n * 8 - 1 - (i * 8 + k)) : (i * 8 + k);
			v |= (uint64_t)in[idx] << (8 * k);
		}
		out[i] = v;
	}
}

static void limbs_to_bytes(uint8_t *out, const uint64_t *in, int n, bool big_endian)
{
	for (int i = 0; i < n; i++)
		for (int k = 0; k < 8; k++) {
			int idx = big_endian ? (n * 8 - 1 - (i * 8 + k)) : (i * 8 + k);
			out[idx] = (uint8_t)(in[i] >> (8 * k));
		}
}

/* ---------- decimal conversion (public values only) ---------- */

/* Parse decimal into n limbs; fails on overflow past n limbs, empty or non-digit. */
static int dec_to_limbs(uint64_t *out, const char *s, int n)
{
	memset(out, 0, sizeof(uint64_t) * n);
	if (!s || !*s)
		return ZP_EFORMAT;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return ZP_EFORMAT;
		uint64_t c = (uint64_t)(*s - '0');
		for (int i = 0; i < n; i++) {
			u128 v = (u128)out[i] * 10 + c;
			out[i] = (uint64_t)v;
			c = (uint64_t)(v >> 64);
		}
		if (c)
			return ZP_ENONCANON;
	}
	return 0;
}

static int limbs_to_dec(char *buf, size_t cap, const uint64_t *in, int n)
{
	uint64_t t[8];
	char tmp[160];
	int len = 0;
	memcpy(t, in, sizeof(uint64_t) * n);
	do {
		uint64_t rem = 0;
		for (int i = n - 1; i >= 0; i--) {
			u128 cur = ((u128)rem << 64) | t[i];
			t[i] = (uint64_t)(cur / 10);
			rem = (uint64_t)(cur % 10);
		}
		tmp[len++] = (char)('0' + rem);
	} while (!is_zero_n(t, n));
	if ((size_t)len + 1 > cap)
		return ZP_ERANGE;
	for (int i = 0; i < len; i++)
		buf[i] = tmp[len - 1 - i];
	buf[len] = 0;
	return len;
}

/* ---------- per-field instantiation ---------- */

#define DEFINE_FIELD(F, T, N, P, R2, INV, ONE)                                        \
	void zp_##F##_add(T *r, const T *a, const T *b) { add_mod(r->l, a->l, b->l, P, N); } \
	void zp_##F##_sub(T *r, const T *a, const T *b) { sub_mod(r->l, a->l, b->l, P, N); } \
	void zp_##F##_dbl(T *r, const T *a) { add_mod(r->l, a->l, a->l, P, N); }             \
	void zp_##F##_neg(T *r, const T *a)                                                 \
	{                                                                                    \
		static const uint64_t zero[N];                                               \
		sub_mod(r->l, zero, a->l, P, N);                                             \
	}                                                                                    \
	void zp_##F##_mul_portable(T *r, const T *a, const T *b) { mont_mul(r->l, a->l, b->l, P, INV, N); } \
	void zp_##F##_mul(T *r, const T *a, const T *b) { zp_##F##_mul_fast(r, a, b); }     \
	void zp_##F##_sqr(T *r, const T *a) { zp_##F##_mul_fast(r, a, a); }                 \
	bool zp_##F##_is_zero(const T *a) { return is_zero_n(a->l, N); }                   \
	bool zp_##F##_eq(const T *a, const T *b) { return eq_n(a->l, b->l, N); }           \
	void zp_##F##_to_mont(T *r, const uint64_t raw[N]) { mont_mul(r->l, raw, R2, P, INV, N); } \
	void zp_##F##_from_mont(uint64_t raw[N], const T *a)                                \
	{                                                                                    \
		static const uint64_t one[N] = { 1 };                                         \
		mont_mul(raw, a->l, one, P, INV, N);                                         \
	}                                                                                    \
	void zp_##F##_from_u64(T *r, uint64_t v)                                            \
	{                                                                                    \
		uint64_t raw[N] = { v };                                                     \
		if (!lt_n(raw, P, N))                                                        \
			raw[0] -= P[0]; /* only reachable for Fr with v >= r: impossible */  \
		zp_##F##_to_mont(r, raw);                                                    \
	}                                                                                    \
	void zp_##F##_pow(T *r, const T *a, const uint64_t *e, size_t elimbs)               \
	{                                                                                    \
		T acc = ONE, base = *a;                                                      \
		for (size_t i = elimbs; i-- > 0;)                                            \
			for (int b = 63; b >= 0; b--) {                                      \
				zp_##F##_sqr(&acc, &acc);                                    \
				if ((e[i] >> b) & 1)                                         \
					zp_##F##_mul(&acc, &acc, &base);                     \
			}                                                                    \
		*r = acc;                                                                    \
	}                                                                                    \
	void zp_##F##_inv(T *r, const T *a)                                                 \
	{                                                                                    \
		uint64_t e[N];                                                               \
		memcpy(e, P, sizeof(e));                                                     \
		e[0] -= 2; /* low limb of both moduli is > 2 */                              \
		zp_##F##_pow(r, a, e, N);                                                    \
	}                                                                                    \
	static int F##_from_bytes(T *r, const uint8_t *in, bool be)                         \
	{                                                                                    \
		uint64_t raw[N];                                                             \
		bytes_to_limbs(raw, in, N, be);                                              \
		if (!lt_n(raw, P, N))                                                        \
			return ZP_ENONCANON;                                                 \
		zp_##F##_to_mont(r, raw);                                                    \
		return 0;                                                                    \
	}                                                                                    \
	int zp_##F##_from_be(T *r, const uint8_t in[N * 8]) { return F##_from_bytes(r, in, true); } \
	int zp_##F##_from_le(T *r, const uint8_t in[N * 8]) { return F##_from_bytes(r, in, false); } \
	void zp_##F##_to_be(uint8_t out[N * 8], const T *a)                                       \
	{                                                                                    \
		uint64_t raw[N];                                                             \
		zp_##F##_from_mont(raw, a);                                                  \
		limbs_to_bytes(out, raw, N, true);                                           \
	}                                                                                    \
	void zp_##F##_to_le(uint8_t out[N * 8], const T *a)                                       \
	{                                                                                    \
		uint64_t raw[N];                                                             \
		zp_##F##_from_mont(raw, a);                                                  \
		limbs_to_bytes(out, raw, N, false);                                          \
	}                                                                                    \
	int zp_##F##_from_dec(T *r, const char *s)                                          \
	{                                                                                    \
		uint64_t raw[N + 1];                                                         \
		int rc = dec_to_limbs(raw, s, N + 1);                                        \
		if (rc < 0)                                                                  \
			return rc;                                                           \
		if (raw[N] || !lt_n(raw, P, N))                                              \
			return ZP_ENONCANON;                                                 \
		zp_##F##_to_mont(r, raw);                                                    \
		return 0;                                                                    \
	}                                                                                    \
	int zp_##F##_to_dec(char *buf, size_t n, const T *a)                                \
	{                                                                                    \
		uint64_t raw[N];                                                             \
		zp_##F##_from_mont(raw, a);                                                  \
		return limbs_to_dec(buf, n, raw, N);                                         \
	}                                                                                    \
	void zp_##F##_batch_inv(T *out, const T *in, size_t n, T *scratch)                  \
	{                                                                                    \
		T acc = ONE;                                                                 \
		for (size_t i = 0; i < n; i++) {                                             \
			scratch[i] = acc;                                                    \
			if (!zp_##F##_is_zero(&in[i]))                                       \
				zp_##F##_mul(&acc, &acc, &in[i]);                            \
		}                                                                            \
		zp_##F##_inv(&acc, &acc);                                                    \
		for (size_t i = n; i-- > 0;) {                                               \
			if (zp_##F##_is_zero(&in[i])) {                                      \
				out[i] = in[i];                                              \
				continue;                                                    \
			}                                                                    \
			T t;                                                                 \
			zp_##F##_mul(&t, &acc, &scratch[i]);                                 \
			zp_##F##_mul(&acc, &acc, &in[i]);                                    \
			out[i] = t;                                                          \
		}                                                                            \
	}

DEFINE_FIELD(fp, zp_fp, 6, ZP_FP_MODULUS, FP_R2, FP_INV, ZP_FP_ONE)
DEFINE_FIELD(fr, zp_fr, 4, ZP_FR_MODULUS, FR_R2, FR_INV, ZP_FR_ONE)

void zp_fp_cmov(zp_fp *r, const zp_fp *a, bool cond)
{
	uint64_t mask = (uint64_t)0 - (uint64_t)cond;
	for (int i = 0; i < 6; i++)
		r->l[i] = (r->l[i] & ~mask) | (a->l[i] & mask);
}

bool zp_fp_sqrt(zp_fp *r, const zp_fp *a)
{
	/* q = 3 mod 4: candidate a^((q+1)/4), then check. */
	static const uint64_t e[6] = ZP_C64_FP_SQRT_EXP;  /* (q+1)/4 */
	zp_fp c, c2;
	zp_fp_pow(&c, a, e, 6);
	zp_fp_sqr(&c2, &c);
	if (!zp_fp_eq(&c2, a))
		return false;
	*r = c;
	return true;
}

bool zp_fp_is_lexlargest(const zp_fp *a)
{
	static const uint64_t half[6] = ZP_C64_FP_HALF;  /* (q-1)/2 */
	uint64_t raw[6];
	zp_fp_from_mont(raw, a);
	return lt_n(half, raw, 6);
}

/* ---------- random ---------- */

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void zp_rng_seed(zp_rng *g, uint64_t seed)
{
	for (int i = 0; i < 4; i++) {  /* splitmix64 */
		uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		g->s[i] = z ^ (z >> 31);
	}
}

uint64_t zp_rng_next(zp_rng *g)
{
	uint64_t *s = g->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
	s[2] ^= t; s[3] = rotl(s[3], 45);
	return result;
}

/* Uniform below the modulus by rejection; the result read as Montgomery form is uniform too. */
void zp_fp_random(zp_fp *r, zp_rng *g)
{
	do {
		for (int i = 0; i < 6; i++)
			r->l[i] = zp_rng_next(g);
		r->l[5] &= (1ULL << 61) - 1;
	} while (!lt_n(r->l, ZP_FP_MODULUS, 6));
}

void zp_fr_random(zp_fr *r, zp_rng *g)
{
	do {
		for (int i = 0; i < 4; i++)
			r->l[i] = zp_rng_next(g);
		r->l[3] &= (1ULL << 63) - 1;
	} while (!lt_n(r->l, ZP_FR_MODULUS, 4));
}

int zp_fr_random_secure(zp_fr *r)
{
	uint64_t raw[4];
	do {
		size_t got = 0;
		while (got < sizeof(raw)) {
			ssize_t k = getrandom((uint8_t *)raw + got, sizeof(raw) - got, 0);
			if (k < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			got += (size_t)k;
		}
		raw[3] &= (1ULL << 63) - 1;
	} while (!lt_n(raw, ZP_FR_MODULUS, 4));
	zp_fr_to_mont(r, raw);
	memset(raw, 0, sizeof(raw));
	return 0;
}

/*
 * zp_fp_inv_vartime: Bernstein–Yang "safegcd" (https://eprint.iacr.org/2019/266) in its
 * variable-time form. Start with f = q, g = x (the raw Montgomery limbs, x = a·R), d = 0, e = 1.
 * Each round runs 62 divsteps on the low 64 bits of f and g alone, which yields a 2×2 integer
 * matrix t (the divsteps' effect scaled by 2^62); applying t to the full f, g and dividing by 2^62
 * is exact, and applying it to d, e is done modulo q (a multiple of q is added first so that the
 * low 62 bits vanish). That keeps d·x ≡ f and e·x ≡ g (mod q) throughout. When g reaches 0,
 * f = ±gcd(q, x) = ±1, so ±d = x^-1 = a^-1·R^-1; one Montgomery product by R^3 makes it a^-1·R.
 * Numbers are signed, in seven 62-bit limbs (limbs 0..5 in [0, 2^62), limb 6 signed); d, e stay
 * in (−2q, q).
 */
typedef struct { int64_t v[7]; } s62;
typedef __int128 i128;
#define M62 ((uint64_t)-1 >> 2)
static const s62 Q62 = { ZP_C62_FP_P };
static const uint64_t Q62_INV = ZP_C62_FP_INV;   /* q^-1 mod 2^62 */
/* R^3 mod q (R = 2^384): Montgomery-multiplying (x·R)^-1 by it gives x^-1·R */
static const zp_fp FP_R3 = { ZP_C64_FP_R3 };

/* 62 divsteps on (f, g) given their low bits; returns the new eta, the matrix in t (u v q r) */
static int64_t divsteps62_var(int64_t eta, uint64_t f, uint64_t g, int64_t t[4])
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
static void update_de62(s62 *d, s62 *e, const int64_t t[4])
{
	const int64_t u = t[0], v = t[1], q = t[2], r = t[3];
	int64_t sd = d->v[6] >> 63, se = e->v[6] >> 63;
	int64_t md = (u & sd) + (v & se), me = (q & sd) + (r & se);
	i128 cd = (i128)u * d->v[0] + (i128)v * e->v[0];
	i128 ce = (i128)q * d->v[0] + (i128)r * e->v[0];
	md -= (int64_t)((Q62_INV * (uint64_t)cd + (uint64_t)md) & M62);
	me -= (int64_t)((Q62_INV * (uint64_t)ce + (uint64_t)me) & M62);
	cd += (i128)Q62.v[0] * md;
	ce += (i128)Q62.v[0] * me;
	cd >>= 62;
	ce >>= 62;
	for (int i = 1; i < 7; i++) {
		cd += (i128)u * d->v[i] + (i128)v * e->v[i] + (i128)Q62.v[i] * md;
		ce += (i128)q * d->v[i] + (i128)r * e->v[i] + (i128)Q62.v[i] * me;
		d->v[i - 1] = (int64_t)((uint64_t)cd & M62);
		e->v[i - 1] = (int64_t)((uint64_t)ce & M62);
		cd >>= 62;
		ce >>= 62;
	}
	d->v[6] = (int64_t)cd;
	e->v[6] = (int64_t)ce;
}

/* (f, g) = t·(f, g) / 2^62 (exact) */
static void update_fg62(s62 *f, s62 *g, const int64_t t[4])
{
	const int64_t u = t[0], v = t[1], q = t[2], r = t[3];
	i128 cf = (i128)u * f->v[0] + (i128)v * g->v[0];
	i128 cg = (i128)q * f->v[0] + (i128)r * g->v[0];
	cf >>= 62;
	cg >>= 62;
	for (int i = 1; i < 7; i++) {
		cf += (i128)u * f->v[i] + (i128)v * g->v[i];
		cg += (i128)q * f->v[i] + (i128)r * g->v[i];
		f->v[i - 1] = (int64_t)((uint64_t)cf & M62);
		g->v[i - 1] = (int64_t)((uint64_t)cg & M62);
		cf >>= 62;
		cg >>= 62;
	}
	f->v[6] = (int64_t)cf;
	g->v[6] = (int64_t)cg;
}

/* a += s·q (s = ±1), then the limbs carried back to [0, 2^62) (limb 6 signed) */
static void s62_addq(s62 *a, int s)
{
	i128 c = 0;
	for (int i = 0; i < 7; i++) {
		c += (i128)a->v[i] + (i128)s * Q62.v[i];
		if (i < 6) {
			a->v[i] = (int64_t)((uint64_t)c & M62);
			c >>= 62;
		} else {
			a->v[i] = (int64_t)c;
		}
	}
}

static bool s62_ge_q(const s62 *a)
{
	if (a->v[6] != Q62.v[6])
		return a->v[6] > Q62.v[6];
	for (int i = 5; i >= 0; i--)
		if (a->v[i] != Q62.v[i])
			return a->v[i] > Q62.v[i];
	return true;
}

void zp_fp_inv_vartime(zp_fp *r, const zp_fp *a)
{
	const uint64_t *x = a->l;
	if ((x[0] | x[1] | x[2] | x[3] | x[4] | x[5]) == 0) {
		memset(r, 0, sizeof(*r));
		return;
	}
	s62 f = Q62, d = { { 0 } }, e = { { 1 } };
	s62 g = { { (int64_t)(x[0] & M62), (int64_t)((x[0] >> 62 | x[1] << 2) & M62), (int64_t)((x[1] >> 60 | x[2] << 4) & M62),
	            (int64_t)((x[2] >> 58 | x[3] << 6) & M62), (int64_t)((x[3] >> 56 | x[4] << 8) & M62),
	            (int64_t)((x[4] >> 54 | x[5] << 10) & M62), (int64_t)(x[5] >> 52) } };
	int64_t eta = -1, t[4];
	for (;;) {
		eta = divsteps62_var(eta, (uint64_t)f.v[0], (uint64_t)g.v[0], t);
		update_de62(&d, &e, t);
		update_fg62(&f, &g, t);
		if ((g.v[0] | g.v[1] | g.v[2] | g.v[3] | g.v[4] | g.v[5] | g.v[6]) == 0)
			break;
	}
	/* f = ±1: d·x ≡ f, so the inverse is ±d; bring it into [0, q) */
	if (f.v[6] < 0) {
		i128 c = 0;
		for (int i = 0; i < 7; i++) {
			c -= d.v[i];
			if (i < 6) {
				d.v[i] = (int64_t)((uint64_t)c & M62);
				c >>= 62;
			} else {
				d.v[i] = (int64_t)c;
			}
		}
	}
	while (d.v[6] < 0)
		s62_addq(&d, 1);
	while (s62_ge_q(&d))
		s62_addq(&d, -1);
	zp_fp raw = { { (uint64_t)d.v[0] | (uint64_t)d.v[1] << 62, (uint64_t)d.v[1] >> 2 | (uint64_t)d.v[2] << 60,
	                (uint64_t)d.v[2] >> 4 | (uint64_t)d.v[3] << 58, (uint64_t)d.v[3] >> 6 | (uint64_t)d.v[4] << 56,
	                (uint64_t)d.v[4] >> 8 | (uint64_t)d.v[5] << 54, (uint64_t)d.v[5] >> 10 | (uint64_t)d.v[6] << 52 } };
	zp_fp_mul(r, &raw, &FP_R3);   /* (x·R)^-1 · R^3 / R = x^-1·R */
}
