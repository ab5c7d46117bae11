/*
 * curve.h — the curve as a parameter: one ops table per supported curve (BLS12-381, BN254), for code
 * that works on either (the prover, key loaders, the CLI) without knowing its types.
 *
 * Design (docs/prover.md, "The curve as a parameter"): the arithmetic stays per-curve and compile-time generic
 * — field.c's DEFINE_FIELD, ec_tmpl.h, msm_tmpl.h instantiated once per curve, each curve with its own C types
 * (zp_fr / zp_bn254_fr, ...) so nothing mixes them by accident and the hot loops pay no indirection. This table
 * is the run-time seam above that: coarse operations (an MSM, a pairing check, a point check) behind function
 * pointers on untyped buffers whose sizes the table gives. One indirect call per MSM costs nothing; the prover
 * holds `const zp_curve *` taken from its key (zp_curve_by_modulus on a .zkey/.wtns prime, or a key file's
 * curve id) and never names a curve's types.
 *
 * Buffers: scalars are Fr elements in Montgomery form, fr_bytes each; points are the curve's affine
 * structs (g1_bytes / g2_bytes, infinity all zero), jacobian results g1_jac_bytes / g2_jac_bytes.
 * Every function keeps its module's contract (msm.h, bn254_msm.h, pairing.h, ec.h, bn254.h).
 */
#ifndef ZP_CURVE_H
#define ZP_CURVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { ZP_CURVE_BLS12_381 = 1, ZP_CURVE_BN254 = 2 } zp_curve_id;

typedef struct zp_curve {
	zp_curve_id id;
	const char *name;           /* "bls12-381" | "bn254" */
	const char *snarkjs_name;   /* snarkjs's curve name: "bls12381" | "bn128" */
	size_t fp_bytes, fr_bytes;  /* canonical integer sizes: 48/32, 32/32 */
	size_t g1_bytes, g2_bytes;  /* affine structs: 96/192, 64/128 */
	size_t g1_jac_bytes, g2_jac_bytes;
	const uint64_t *fp_modulus, *fr_modulus;   /* little-endian limbs */
	unsigned fp_limbs, fr_limbs;
	const void *g1_gen, *g2_gen;                /* affine generators */

	int (*fr_from_dec)(void *r, const char *s); /* ZP_EFORMAT / ZP_ENONCANON */
	int (*fr_to_dec)(char *buf, size_t n, const void *a);  /* normal form, n >= 80 */
	int (*fr_from_le)(void *r, const uint8_t *le);         /* fr_bytes normal form; ZP_ENONCANON if >= r */
	void (*fr_to_le)(uint8_t *le, const void *a);
	void (*fr_from_mont)(uint64_t *raw, const void *a);    /* fr_limbs limbs: a·R^-1 */
	int (*fr_random_secure)(void *r);                       /* uniform in [0, r) from getrandom(2) */
	const void *fr_one;                                     /* Montgomery 1 */
	int (*fp_from_dec)(void *r, const char *s);
	int (*fp_to_dec)(char *buf, size_t n, const void *a);
	int (*g1_check)(const void *p);             /* 0 | ZP_EINVAL_POINT | ZP_ESUBGROUP */
	int (*g2_check)(const void *p);
	void (*g1_neg)(void *r, const void *p);     /* affine */
	void (*g1_jac_to_affine)(void *r, const void *p);
	void (*g2_jac_to_affine)(void *r, const void *p);
	size_t (*msm_g1_scratch_size)(size_t n);
	int (*msm_g1)(void *out_jac, const void *points, const void *scalars, size_t n, void *scratch, size_t len);
	size_t (*msm_g2_scratch_size)(size_t n);
	int (*msm_g2)(void *out_jac, const void *points, const void *scalars, size_t n, void *scratch, size_t len);
	void (*msm_g1_sum_selected)(void *out_jac, const void *points, const uint8_t *sel, size_t n);
	void (*msm_g2_sum_selected)(void *out_jac, const void *points, const uint8_t *sel, size_t n);
	/* 0 if Π e(g1s[i], g2s[i]) = 1, ZP_EVERIFY otherwise; points already checked */
	int (*pairing_check)(const void *g1s, const void *g2s, size_t n);
} zp_curve;

extern const zp_curve zp_curve_bls12_381, zp_curve_bn254;

/* By name ("bls12-381", "bls12381", "bn254", "bn128", "alt_bn128"); NULL if unknown. */
const zp_curve *zp_curve_by_name(const char *name);
/* By the scalar field's modulus as little-endian bytes (how .zkey/.wtns/.r1cs headers carry it). */
const zp_curve *zp_curve_by_fr_modulus(const uint8_t *le, size_t n);
/* The same by the base field's modulus (a .zkey's q). */
const zp_curve *zp_curve_by_fp_modulus(const uint8_t *le, size_t n);
/* The curve by its id (a key file's curve field); NULL if unknown. NULL in means BLS12-381
 * (structs made before curves existed, zero-initialised): zp_curve_of(NULL) = &zp_curve_bls12_381. */
const zp_curve *zp_curve_by_id(uint32_t id);
static inline const zp_curve *zp_curve_of(const zp_curve *c)
{
	return c ? c : &zp_curve_bls12_381;
}
/* a < m for a little-endian byte string a and m's n limbs (canonicity checks of encodings). */
bool zp_curve_lt_limbs(const uint8_t *a, const uint64_t *m, unsigned n);

#endif
