/*
 * bn254.h — BN254 (alt_bn128; circom's and snarkjs's "bn128"; Ethereum's pairing precompile curve).
 *
 *   Fp: p = 0x30644e72...d87cfd47 (254 bits), Fr: r = 0x30644e72...f0000001 (254 bits, 2-adicity 28),
 *   both 4 limbs, Montgomery form with R = 2^256 — the same layout and the same code as BLS12-381's Fr
 *   (field.c's DEFINE_FIELD, field_impl.h's zp_mont4_mul_adx with each modulus's constants), so the same
 *   conventions as field.h hold: every value in memory is Montgomery and fully reduced, outputs may alias
 *   inputs, the bytes of an element are a snarkjs .zkey coordinate (little-endian Montgomery).
 *   Fp2 = Fp[u]/(u^2 + 1); Fp6 = Fp2[v]/(v^3 - xi), xi = 9 + u; Fp12 = Fp6[w]/(w^2 - v) (ffjavascript's tower).
 *   G1: y^2 = x^3 + 3 over Fp, prime order r (cofactor 1: every point on the curve is in G1).
 *   G2: y^2 = x^3 + 3/xi over Fp2 (the D-type sextic twist), the order-r subgroup (cofactor 2p - r).
 * Constants: zp_consts.h, generated and checked by common/gen_consts.py.
 *
 * Points: affine (x, y) with infinity = (0, 0), jacobian (Z = 0 at infinity), xyzz — as in ec.h, and
 * the same operations with zp_bn254_ prefixes (ec_tmpl.h instantiated once more in bn254_ec.c).
 * Affine structs are 64 / 128 bytes, the .zkey point sections of a bn128 key unchanged.
 */
#ifndef ZP_BN254_H
#define ZP_BN254_H

#include "field.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZP_BN254_LIMBS 4
#define ZP_BN254_BYTES 32

typedef struct { uint64_t l[ZP_BN254_LIMBS]; } zp_bn254_fp;
typedef struct { uint64_t l[ZP_BN254_LIMBS]; } zp_bn254_fr;
typedef struct { zp_bn254_fp c0, c1; } zp_bn254_fp2;
typedef struct { zp_bn254_fp2 c0, c1, c2; } zp_bn254_fp6;
typedef struct { zp_bn254_fp6 c0, c1; } zp_bn254_fp12;

extern const zp_bn254_fp ZP_BN254_FP_ZERO, ZP_BN254_FP_ONE;
extern const zp_bn254_fr ZP_BN254_FR_ZERO, ZP_BN254_FR_ONE;
extern const uint64_t ZP_BN254_FP_MODULUS[4], ZP_BN254_FR_MODULUS[4];
extern const zp_bn254_fp2 ZP_BN254_FP2_ZERO, ZP_BN254_FP2_ONE;
extern const zp_bn254_fp12 ZP_BN254_FP12_ONE;

/* ---- Fp and Fr: the operations of field.h's Fr, for each field (F = fp | fr) ---- */
#define ZP_BN254_FIELD_API(F, T)                                                     \
	void zp_bn254_##F##_add(T *r, const T *a, const T *b);                       \
	void zp_bn254_##F##_sub(T *r, const T *a, const T *b);                       \
	void zp_bn254_##F##_dbl(T *r, const T *a);                                   \
	void zp_bn254_##F##_neg(T *r, const T *a);                                   \
	void zp_bn254_##F##_mul(T *r, const T *a, const T *b);                       \
	void zp_bn254_##F##_sqr(T *r, const T *a);                                   \
	void zp_bn254_##F##_inv(T *r, const T *a);        /* inv(0) = 0 */           \
	void zp_bn254_##F##_pow(T *r, const T *a, const uint64_t *e, size_t elimbs); \
	bool zp_bn254_##F##_is_zero(const T *a);                                     \
	bool zp_bn254_##F##_eq(const T *a, const T *b);                              \
	void zp_bn254_##F##_cmov(T *r, const T *a, bool cond);                       \
	void zp_bn254_##F##_from_u64(T *r, uint64_t v);                              \
	void zp_bn254_##F##_to_mont(T *r, const uint64_t raw[4]);   /* raw < m */    \
	void zp_bn254_##F##_from_mont(uint64_t raw[4], const T *a);                  \
	int  zp_bn254_##F##_from_be(T *r, const uint8_t in[32]);  /* ZP_ENONCANON if >= m */ \
	int  zp_bn254_##F##_from_le(T *r, const uint8_t in[32]);                     \
	void zp_bn254_##F##_to_be(uint8_t out[32], const T *a);                      \
	void zp_bn254_##F##_to_le(uint8_t out[32], const T *a);                      \
	int  zp_bn254_##F##_from_dec(T *r, const char *s);                           \
	int  zp_bn254_##F##_to_dec(char *buf, size_t n, const T *a); /* 80 bytes */  \
	void zp_bn254_##F##_batch_inv(T *out, const T *in, size_t n, T *scratch);    \
	void zp_bn254_##F##_random(T *r, zp_rng *g);
ZP_BN254_FIELD_API(fp, zp_bn254_fp)
ZP_BN254_FIELD_API(fr, zp_bn254_fr)
bool zp_bn254_fp_sqrt(zp_bn254_fp *r, const zp_bn254_fp *a);   /* false if a is not a square */
/* zp_bn254_fp_inv, faster (safegcd, field.c); time depends on a: for the MSM, never for secrets */
void zp_bn254_fp_inv_vartime(zp_bn254_fp *r, const zp_bn254_fp *a);

/* ---- Fp2 ---- */
void zp_bn254_fp2_add(zp_bn254_fp2 *r, const zp_bn254_fp2 *a, const zp_bn254_fp2 *b);
void zp_bn254_fp2_sub(zp_bn254_fp2 *r, const zp_bn254_fp2 *a, const zp_bn254_fp2 *b);
void zp_bn254_fp2_dbl(zp_bn254_fp2 *r, const zp_bn254_fp2 *a);
void zp_bn254_fp2_neg(zp_bn254_fp2 *r, const zp_bn254_fp2 *a);
void zp_bn254_fp2_conj(zp_bn254_fp2 *r, const zp_bn254_fp2 *a);   /* = Frobenius */
void zp_bn254_fp2_mul(zp_bn254_fp2 *r, const zp_bn254_fp2 *a, const zp_bn254_fp2 *b);
void zp_bn254_fp2_sqr(zp_bn254_fp2 *r, const zp_bn254_fp2 *a);
void zp_bn254_fp2_mul_fp(zp_bn254_fp2 *r, const zp_bn254_fp2 *a, const zp_bn254_fp *b);
void zp_bn254_fp2_mul_xi(zp_bn254_fp2 *r, const zp_bn254_fp2 *a);   /* times 9 + u */
void zp_bn254_fp2_inv(zp_bn254_fp2 *r, const zp_bn254_fp2 *a);       /* inv(0) = 0 */
void zp_bn254_fp2_pow(zp_bn254_fp2 *r, const zp_bn254_fp2 *a, const uint64_t *e, size_t elimbs);
bool zp_bn254_fp2_sqrt(zp_bn254_fp2 *r, const zp_bn254_fp2 *a);      /* false if not a square */
bool zp_bn254_fp2_is_zero(const zp_bn254_fp2 *a);
bool zp_bn254_fp2_eq(const zp_bn254_fp2 *a, const zp_bn254_fp2 *b);
void zp_bn254_fp2_random(zp_bn254_fp2 *r, zp_rng *g);

/* ---- Fp6, Fp12 ---- */
void zp_bn254_fp6_add(zp_bn254_fp6 *r, const zp_bn254_fp6 *a, const zp_bn254_fp6 *b);
void zp_bn254_fp6_sub(zp_bn254_fp6 *r, const zp_bn254_fp6 *a, const zp_bn254_fp6 *b);
void zp_bn254_fp6_neg(zp_bn254_fp6 *r, const zp_bn254_fp6 *a);
void zp_bn254_fp6_mul(zp_bn254_fp6 *r, const zp_bn254_fp6 *a, const zp_bn254_fp6 *b);
void zp_bn254_fp6_mul_v(zp_bn254_fp6 *r, const zp_bn254_fp6 *a);    /* times v */
void zp_bn254_fp6_inv(zp_bn254_fp6 *r, const zp_bn254_fp6 *a);
bool zp_bn254_fp6_is_zero(const zp_bn254_fp6 *a);
void zp_bn254_fp12_add(zp_bn254_fp12 *r, const zp_bn254_fp12 *a, const zp_bn254_fp12 *b);
void zp_bn254_fp12_sub(zp_bn254_fp12 *r, const zp_bn254_fp12 *a, const zp_bn254_fp12 *b);
void zp_bn254_fp12_mul(zp_bn254_fp12 *r, const zp_bn254_fp12 *a, const zp_bn254_fp12 *b);
void zp_bn254_fp12_sqr(zp_bn254_fp12 *r, const zp_bn254_fp12 *a);
void zp_bn254_fp12_inv(zp_bn254_fp12 *r, const zp_bn254_fp12 *a);
void zp_bn254_fp12_conj(zp_bn254_fp12 *r, const zp_bn254_fp12 *a);  /* = a^(p^6) */
void zp_bn254_fp12_frob(zp_bn254_fp12 *r, const zp_bn254_fp12 *a);  /* a^p */
void zp_bn254_fp12_pow(zp_bn254_fp12 *r, const zp_bn254_fp12 *a, const uint64_t *e, size_t elimbs);
bool zp_bn254_fp12_eq(const zp_bn254_fp12 *a, const zp_bn254_fp12 *b);
bool zp_bn254_fp12_is_one(const zp_bn254_fp12 *a);
void zp_bn254_fp12_random(zp_bn254_fp12 *r, zp_rng *g);
/* The twelve Fp coefficients of a in ffjavascript's order (c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1). */
void zp_bn254_fp12_coeffs(zp_bn254_fp out[12], const zp_bn254_fp12 *a);

/* ---- G1, G2 ---- */
typedef struct { zp_bn254_fp x, y; } zp_bn254_g1_affine;
typedef struct { zp_bn254_fp x, y, z; } zp_bn254_g1_jac;
typedef struct { zp_bn254_fp x, y, zz, zzz; } zp_bn254_g1_xyzz;
typedef struct { zp_bn254_fp2 x, y; } zp_bn254_g2_affine;
typedef struct { zp_bn254_fp2 x, y, z; } zp_bn254_g2_jac;
typedef struct { zp_bn254_fp2 x, y, zz, zzz; } zp_bn254_g2_xyzz;
_Static_assert(sizeof(zp_bn254_g1_affine) == 64, "BN254 G1 affine must be 64 bytes");
_Static_assert(sizeof(zp_bn254_g2_affine) == 128, "BN254 G2 affine must be 128 bytes");

extern const zp_bn254_g1_affine ZP_BN254_G1_GEN;   /* (1, 2) */
extern const zp_bn254_g2_affine ZP_BN254_G2_GEN;   /* EIP-197's, ffjavascript's bn128 G2.g */

#define ZP_BN254_EC_API(G, A, J, X, S)                                               \
	bool zp_bn254_##G##_affine_is_inf(const A *p);                               \
	bool zp_bn254_##G##_affine_is_on_curve(const A *p);  /* infinity counts */   \
	bool zp_bn254_##G##_affine_in_subgroup(const A *p);  /* assumes on curve */  \
	int  zp_bn254_##G##_affine_check(const A *p);  /* 0 | ZP_EINVAL_POINT | ZP_ESUBGROUP */ \
	bool zp_bn254_##G##_affine_eq(const A *a, const A *b);                       \
	void zp_bn254_##G##_affine_neg(A *r, const A *a);                            \
	void zp_bn254_##G##_jac_set_inf(J *r);                                       \
	bool zp_bn254_##G##_jac_is_inf(const J *p);                                  \
	void zp_bn254_##G##_jac_from_affine(J *r, const A *a);                       \
	void zp_bn254_##G##_jac_to_affine(A *r, const J *p);                         \
	void zp_bn254_##G##_jac_batch_to_affine(A *r, const J *p, size_t n);         \
	bool zp_bn254_##G##_jac_eq(const J *a, const J *b);                          \
	void zp_bn254_##G##_jac_neg(J *r, const J *a);                               \
	void zp_bn254_##G##_jac_dbl(J *r, const J *a);                               \
	void zp_bn254_##G##_jac_add(J *r, const J *a, const J *b);                   \
	void zp_bn254_##G##_jac_add_affine(J *r, const J *a, const A *b);            \
	void zp_bn254_##G##_jac_mul(J *r, const J *a, const S *k);  /* constant time in k */ \
	void zp_bn254_##G##_jac_mul_u64(J *r, const J *a, const uint64_t *k, size_t klimbs); \
	void zp_bn254_##G##_xyzz_set_inf(X *r);                                      \
	void zp_bn254_##G##_xyzz_from_affine(X *r, const A *a);                      \
	void zp_bn254_##G##_xyzz_to_jac(J *r, const X *p);                           \
	void zp_bn254_##G##_xyzz_dbl(X *r, const X *a);                              \
	void zp_bn254_##G##_xyzz_add(X *r, const X *a, const X *b);                  \
	void zp_bn254_##G##_xyzz_add_affine(X *r, const X *a, const A *b);
ZP_BN254_EC_API(g1, zp_bn254_g1_affine, zp_bn254_g1_jac, zp_bn254_g1_xyzz, zp_bn254_fr)
ZP_BN254_EC_API(g2, zp_bn254_g2_affine, zp_bn254_g2_jac, zp_bn254_g2_xyzz, zp_bn254_fr)
/* psi = untwist ∘ Frobenius ∘ twist on E' (an endomorphism; on G2 it is multiplication by p mod r). */
void zp_bn254_g2_psi(zp_bn254_g2_affine *r, const zp_bn254_g2_affine *a);
/* A point of E'(Fp2) from x = the first square x^3 + b' at or after x0 (tests: usually NOT in G2). */
void zp_bn254_g2_from_x(zp_bn254_g2_affine *r, const zp_bn254_fp2 *x0);

/* ---- pairing ---- */
/* Miller loop of the optimal ate pairing (loop 6x + 2, then the lines through pi(Q) and -pi^2(Q)). */
void zp_bn254_miller_loop(zp_bn254_fp12 *f, const zp_bn254_g1_affine *p, const zp_bn254_g2_affine *q);
/* f^((p^12 - 1)/r) exactly (the easy part (p^6 - 1)(p^2 + 1), then the hard part by its integer). */
void zp_bn254_final_exp(zp_bn254_fp12 *r, const zp_bn254_fp12 *f);
/* e(P, Q); 1 if either is infinity. Points must be checked (zp_bn254_*_affine_check) by the caller. */
void zp_bn254_pairing(zp_bn254_fp12 *r, const zp_bn254_g1_affine *p, const zp_bn254_g2_affine *q);
/* 0 if Π e(P_i, Q_i) == 1 (one final exponentiation; Ethereum's precompile 0x08 / the Groth16 check),
 * ZP_EVERIFY otherwise — as pairing.h's zp_pairing_check. */
int zp_bn254_pairing_check(const zp_bn254_g1_affine *p, const zp_bn254_g2_affine *q, size_t n);

/* ---- serialization as snarkjs (uncompressed) and Ethereum (EIP-196/197) use it ----
 * G1: 64 bytes, x ‖ y, each 32-byte big-endian. G2: 128 bytes, x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0 (EIP-197 order).
 * Infinity: all zero. from_bytes: ZP_ENONCANON for a coordinate >= p, ZP_EINVAL_POINT off the curve,
 * ZP_ESUBGROUP for a G2 point outside the order-r subgroup (G1 has cofactor 1: no such case). */
#define ZP_BN254_G1_BYTES 64
#define ZP_BN254_G2_BYTES 128
void zp_bn254_g1_to_bytes(uint8_t out[64], const zp_bn254_g1_affine *p);
int  zp_bn254_g1_from_bytes(zp_bn254_g1_affine *p, const uint8_t in[64]);
void zp_bn254_g2_to_bytes(uint8_t out[128], const zp_bn254_g2_affine *p);
int  zp_bn254_g2_from_bytes(zp_bn254_g2_affine *p, const uint8_t in[128]);

#endif
