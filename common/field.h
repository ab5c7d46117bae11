/*
 * field.h — BLS12-381 prime fields on 64-bit limbs, little-endian limb order.
 *
 *   Fp: q = 0x1a0111ea...ffffaaab (381 bits), 6 limbs, Montgomery form with R = 2^384.
 *   Fr: r = 0x73eda753...00000001 (255 bits), 4 limbs, Montgomery form with R = 2^256.
 *
 * Every zp_fp / zp_fr value held in memory is in Montgomery form and fully reduced
 * (< modulus); conversion happens only at the edges (bytes, integers, strings).
 * The in-memory form is the same bytes as the CUDA side's 32-bit-limb form and as
 * a snarkjs .zkey point coordinate (little-endian Montgomery), so buffers move
 * between them unchanged.
 *
 * All arithmetic here is constant-time in its operands (no data-dependent branches
 * or table lookups) except zp_fp_sqrt/zp_fp_is_square's final comparison and the
 * *_from_bytes canonicity check, which only see public data.
 *
 * Output pointers may alias inputs.
 */
#ifndef ZP_FIELD_H
#define ZP_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZP_FP_LIMBS 6
#define ZP_FR_LIMBS 4
#define ZP_FP_BYTES 48
#define ZP_FR_BYTES 32

typedef struct { uint64_t l[ZP_FP_LIMBS]; } zp_fp;
typedef struct { uint64_t l[ZP_FR_LIMBS]; } zp_fr;

/* Constants (Montgomery form unless named _RAW). Derivations in field.c. */
extern const zp_fp ZP_FP_ZERO, ZP_FP_ONE;
extern const zp_fr ZP_FR_ZERO, ZP_FR_ONE;
extern const uint64_t ZP_FP_MODULUS[ZP_FP_LIMBS];
extern const uint64_t ZP_FR_MODULUS[ZP_FR_LIMBS];

/* ---- Fp ---- */
void zp_fp_add(zp_fp *r, const zp_fp *a, const zp_fp *b);
void zp_fp_sub(zp_fp *r, const zp_fp *a, const zp_fp *b);
void zp_fp_dbl(zp_fp *r, const zp_fp *a);
void zp_fp_neg(zp_fp *r, const zp_fp *a);
void zp_fp_mul(zp_fp *r, const zp_fp *a, const zp_fp *b);
void zp_fp_sqr(zp_fp *r, const zp_fp *a);
void zp_fp_inv(zp_fp *r, const zp_fp *a);            /* inv(0) = 0 */
void zp_fp_inv_vartime(zp_fp *r, const zp_fp *a);    /* the same, faster; time depends on a (not for secrets) */
void zp_fp_pow(zp_fp *r, const zp_fp *a, const uint64_t *e, size_t elimbs);
bool zp_fp_sqrt(zp_fp *r, const zp_fp *a);            /* false if a is not a square */
bool zp_fp_is_zero(const zp_fp *a);
bool zp_fp_eq(const zp_fp *a, const zp_fp *b);
void zp_fp_cmov(zp_fp *r, const zp_fp *a, bool cond); /* r = cond ? a : r */
/* "lexicographically largest" in the zcash sense: a > (q-1)/2 as an integer. */
bool zp_fp_is_lexlargest(const zp_fp *a);
void zp_fp_from_u64(zp_fp *r, uint64_t v);
void zp_fp_to_mont(zp_fp *r, const uint64_t raw[ZP_FP_LIMBS]);   /* raw must be < q */
void zp_fp_from_mont(uint64_t raw[ZP_FP_LIMBS], const zp_fp *a);
/* Canonical big-/little-endian 48-byte integer <-> element. from_* returns ZP_ENONCANON if >= q. */
int  zp_fp_from_be(zp_fp *r, const uint8_t in[ZP_FP_BYTES]);
int  zp_fp_from_le(zp_fp *r, const uint8_t in[ZP_FP_BYTES]);
void zp_fp_to_be(uint8_t out[ZP_FP_BYTES], const zp_fp *a);
void zp_fp_to_le(uint8_t out[ZP_FP_BYTES], const zp_fp *a);

/* ---- Fr ---- */
void zp_fr_add(zp_fr *r, const zp_fr *a, const zp_fr *b);
void zp_fr_sub(zp_fr *r, const zp_fr *a, const zp_fr *b);
void zp_fr_dbl(zp_fr *r, const zp_fr *a);
void zp_fr_neg(zp_fr *r, const zp_fr *a);
void zp_fr_mul(zp_fr *r, const zp_fr *a, const zp_fr *b);
void zp_fr_sqr(zp_fr *r, const zp_fr *a);
void zp_fr_inv(zp_fr *r, const zp_fr *a);            /* inv(0) = 0 */
void zp_fr_pow(zp_fr *r, const zp_fr *a, const uint64_t *e, size_t elimbs);
bool zp_fr_is_zero(const zp_fr *a);
bool zp_fr_eq(const zp_fr *a, const zp_fr *b);
void zp_fr_from_u64(zp_fr *r, uint64_t v);
void zp_fr_to_mont(zp_fr *r, const uint64_t raw[ZP_FR_LIMBS]);   /* raw must be < r */
void zp_fr_from_mont(uint64_t raw[ZP_FR_LIMBS], const zp_fr *a);
int  zp_fr_from_be(zp_fr *r, const uint8_t in[ZP_FR_BYTES]);
int  zp_fr_from_le(zp_fr *r, const uint8_t in[ZP_FR_BYTES]);
void zp_fr_to_be(uint8_t out[ZP_FR_BYTES], const zp_fr *a);
void zp_fr_to_le(uint8_t out[ZP_FR_BYTES], const zp_fr *a);
/* Batch inversion (Montgomery's trick); zeros stay zero. scratch holds n elements. */
void zp_fr_batch_inv(zp_fr *out, const zp_fr *in, size_t n, zp_fr *scratch);
void zp_fp_batch_inv(zp_fp *out, const zp_fp *in, size_t n, zp_fp *scratch);

/* ---- decimal strings (snarkjs JSON), normal form ---- */
/* Parse a non-negative decimal integer < modulus. ZP_EFORMAT / ZP_ENONCANON on bad input. */
int zp_fp_from_dec(zp_fp *r, const char *s);
int zp_fr_from_dec(zp_fr *r, const char *s);
/* Write the canonical decimal form; buf needs 120 bytes for Fp, 80 for Fr. Returns length. */
int zp_fp_to_dec(char *buf, size_t n, const zp_fp *a);
int zp_fr_to_dec(char *buf, size_t n, const zp_fr *a);

/* ---- deterministic random elements for tests and benchmarks (xoshiro256**) ---- */
typedef struct { uint64_t s[4]; } zp_rng;
void zp_rng_seed(zp_rng *g, uint64_t seed);
uint64_t zp_rng_next(zp_rng *g);
void zp_fp_random(zp_fp *r, zp_rng *g);
void zp_fr_random(zp_fr *r, zp_rng *g);
/* Uniform Fr from the OS CSPRNG (getrandom); for proof blinding. Returns 0 or -errno. */
int zp_fr_random_secure(zp_fr *r);

#endif
