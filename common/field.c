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
#include "bn254.h"
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
	static void F##_to_bytes(uint8_t *out, const T *a, bool be)                         \
	{                                                                                    \
		uint64_t raw[N];                                                             \
		zp_##F##_from_mont(raw, a);                                                  \
		limbs_to_bytes(out, raw, N, be);                                             \
	}                                                                                    \
	void zp_##F##_to_be(uint8_t out[N * 8], const T *a) { F##_to_bytes(out, a, true); }      \
	void zp_##F##_to_le(uint8_t out[N * 8], const T *a) { F##_to_bytes(out, a, false); }     \
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

/* BN254's two fields: 4 limbs like Fr above, their constants from zp_consts.h (gen_consts.py).
 * Both moduli are < 2^254, so the same no-carry CIOS and single conditional subtraction apply. */
const uint64_t ZP_BN254_FP_MODULUS[4] = ZP_C64_BN_FP_P;
static const uint64_t BN_FP_R2[4] = ZP_C64_BN_FP_RR;
const zp_bn254_fp ZP_BN254_FP_ZERO = { { 0 } };
const zp_bn254_fp ZP_BN254_FP_ONE = { ZP_C64_BN_FP_ONE };
const uint64_t ZP_BN254_FR_MODULUS[4] = ZP_C64_BN_FR_P;
static const uint64_t BN_FR_R2[4] = ZP_C64_BN_FR_RR;
const zp_bn254_fr ZP_BN254_FR_ZERO = { { 0 } };
const zp_bn254_fr ZP_BN254_FR_ONE = { ZP_C64_BN_FR_ONE };
DEFINE_FIELD(bn254_fp, zp_bn254_fp, 4, ZP_BN254_FP_MODULUS, BN_FP_R2, ZP_C64_BN_FP_INV, ZP_BN254_FP_ONE)
DEFINE_FIELD(bn254_fr, zp_bn254_fr, 4, ZP_BN254_FR_MODULUS, BN_FR_R2, ZP_C64_BN_FR_INV, ZP_BN254_FR_ONE)

INLINE void cmov_n(uint64_t *r, const uint64_t *a, bool cond, int n)
{
	uint64_t mask = (uint64_t)0 - (uint64_t)cond;
	for (int i = 0; i < n; i++)
		r[i] = (r[i] & ~mask) | (a[i] & mask);
}
void zp_bn254_fp_cmov(zp_bn254_fp *r, const zp_bn254_fp *a, bool c) { cmov_n(r->l, a->l, c, 4); }
void zp_bn254_fr_cmov(zp_bn254_fr *r, const zp_bn254_fr *a, bool c) { cmov_n(r->l, a->l, c, 4); }

/* A square root in a field with p = 3 mod 4 (both curves' Fp): the candidate a^((p+1)/4) (e: its n words),
 * which is one when it squares back to a */
#define SQRT_3MOD4(P, T)                                                                              \
	static bool P##sqrt_3mod4(T *r, const T *a, const uint64_t *e, size_t n)                      \
	{                                                                                             \
		T c, c2;                                                                              \
		P##pow(&c, a, e, n);                                                                  \
		P##sqr(&c2, &c);                                                                      \
		if (!P##eq(&c2, a))                                                                   \
			return false;                                                                 \
		*r = c;                                                                               \
		return true;                                                                          \
	}
SQRT_3MOD4(zp_bn254_fp_, zp_bn254_fp)
SQRT_3MOD4(zp_fp_, zp_fp)

bool zp_bn254_fp_sqrt(zp_bn254_fp *r, const zp_bn254_fp *a)
{
	uint64_t e[4];   /* (p+1)/4 = p/4 + 1 as p = 3 mod 4 */
	for (int i = 0; i < 4; i++)
		e[i] = ZP_BN254_FP_MODULUS[i] >> 2 | (i < 3 ? ZP_BN254_FP_MODULUS[i + 1] << 62 : 0);
	e[0] += 1;   /* low limb of p/4 is not all ones: no carry */
	return zp_bn254_fp_sqrt_3mod4(r, a, e, 4);
}

void zp_fp_cmov(zp_fp *r, const zp_fp *a, bool cond) { cmov_n(r->l, a->l, cond, 6); }

bool zp_fp_sqrt(zp_fp *r, const zp_fp *a)
{
	static const uint64_t e[6] = ZP_C64_FP_SQRT_EXP;  /* (q+1)/4 */
	return zp_fp_sqrt_3mod4(r, a, e, 6);
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

/* Uniform below the modulus m (n words) by rejection: n random words, the top one cut to top_bits (m's
 * length), retried while not below m; the result read as Montgomery form is uniform too. BN254's moduli
 * are just under 2^254 (254 bits: ~25 % retried). */
static void random_below(uint64_t *r, const uint64_t *m, int n, int top_bits, zp_rng *g)
{
	do {
		for (int i = 0; i < n; i++)
			r[i] = zp_rng_next(g);
		r[n - 1] &= (1ULL << top_bits) - 1;
	} while (!lt_n(r, m, n));
}
void zp_fp_random(zp_fp *r, zp_rng *g) { random_below(r->l, ZP_FP_MODULUS, 6, 61, g); }
void zp_fr_random(zp_fr *r, zp_rng *g) { random_below(r->l, ZP_FR_MODULUS, 4, 63, g); }
void zp_bn254_fp_random(zp_bn254_fp *r, zp_rng *g) { random_below(r->l, ZP_BN254_FP_MODULUS, 4, 62, g); }
void zp_bn254_fr_random(zp_bn254_fr *r, zp_rng *g) { random_below(r->l, ZP_BN254_FR_MODULUS, 4, 62, g); }

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

/* zp_fp_inv_vartime, zp_bn254_fp_inv_vartime: Bernstein–Yang "safegcd", one template (safegcd_tmpl.h) */
typedef __int128 i128;
#define M62 ((uint64_t)-1 >> 2)

#define SG(x) bls_##x
#define SG_N 7
#define SG_W 6
#define SG_FE zp_fp
#define SG_Q62_INIT ZP_C62_FP_P
#define SG_QINV ZP_C62_FP_INV
#define SG_R3_INIT ZP_C64_FP_R3
#define SG_MUL zp_fp_mul
#define SG_NAME zp_fp_inv_vartime
#include "safegcd_tmpl.h"

#define SG(x) bn254_##x
#define SG_N 5
#define SG_W 4
#define SG_FE zp_bn254_fp
#define SG_Q62_INIT ZP_C62_BN_FP_P
#define SG_QINV ZP_C62_BN_FP_INV
#define SG_R3_INIT ZP_C64_BN_FP_R3
#define SG_MUL zp_bn254_fp_mul
#define SG_NAME zp_bn254_fp_inv_vartime
#include "safegcd_tmpl.h"
