/*
 * ec.h — the groups of BLS12-381.
 *
 *   G1: y^2 = x^3 + 4 over Fp.        G2: y^2 = x^3 + 4(1 + u) over Fp2 (M-twist).
 *   Both of prime order r (the Fr modulus) after cofactor clearing.
 *
 * Coordinates (all field elements in Montgomery form, see field.h):
 *   affine   (x, y)            infinity is (0, 0) — never on the curve, and the
 *                              all-zero bytes snarkjs writes for it in a .zkey;
 *   jacobian (X, Y, Z)         x = X/Z^2, y = Y/Z^3; infinity has Z = 0;
 *   xyzz     (X, Y, ZZ, ZZZ)   x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; infinity has ZZ = 0.
 * Affine structs are exactly 96 / 192 bytes with no padding, so an array of them
 * is the .zkey point section and the CUDA kernels' input, byte for byte.
 *
 * Checks: zp_g1_affine_is_on_curve / zp_g1_affine_in_subgroup (and g2) take public
 * points; zp_g1_affine_check returns 0, ZP_EINVAL_POINT or ZP_ESUBGROUP.
 *
 * Scalar multiplication by an Fr element in Montgomery form (zp_fr) is constant-
 * time in the scalar (used with r and s of the proof); *_mul_u64 and the MSMs of
 * msm.h are not.
 */
#ifndef ZP_EC_H
#define ZP_EC_H

#include "field.h"
#include "fp2.h"

typedef struct { zp_fp x, y; } zp_g1_affine;
typedef struct { zp_fp x, y, z; } zp_g1_jac;
typedef struct { zp_fp x, y, zz, zzz; } zp_g1_xyzz;
typedef struct { zp_fp2 x, y; } zp_g2_affine;
typedef struct { zp_fp2 x, y, z; } zp_g2_jac;
typedef struct { zp_fp2 x, y, zz, zzz; } zp_g2_xyzz;

_Static_assert(sizeof(zp_g1_affine) == 96, "G1 affine must be 96 bytes");
_Static_assert(sizeof(zp_g2_affine) == 192, "G2 affine must be 192 bytes");

/* Standard generators (the zcash / IETF ones; ffjavascript's G1.g and G2.g). */
extern const zp_g1_affine ZP_G1_GEN;
extern const zp_g2_affine ZP_G2_GEN;

/* ---- G1 ---- */
bool zp_g1_affine_is_inf(const zp_g1_affine *p);
bool zp_g1_affine_is_on_curve(const zp_g1_affine *p);   /* infinity counts as on the curve */
bool zp_g1_affine_in_subgroup(const zp_g1_affine *p);   /* assumes on curve */
int  zp_g1_affine_check(const zp_g1_affine *p);         /* 0 | ZP_EINVAL_POINT | ZP_ESUBGROUP */
bool zp_g1_affine_eq(const zp_g1_affine *a, const zp_g1_affine *b);
void zp_g1_affine_neg(zp_g1_affine *r, const zp_g1_affine *a);

void zp_g1_jac_set_inf(zp_g1_jac *r);
bool zp_g1_jac_is_inf(const zp_g1_jac *p);
void zp_g1_jac_from_affine(zp_g1_jac *r, const zp_g1_affine *a);
void zp_g1_jac_to_affine(zp_g1_affine *r, const zp_g1_jac *p);
void zp_g1_jac_batch_to_affine(zp_g1_affine *r, const zp_g1_jac *p, size_t n);
bool zp_g1_jac_eq(const zp_g1_jac *a, const zp_g1_jac *b);  /* projective equality */
void zp_g1_jac_neg(zp_g1_jac *r, const zp_g1_jac *a);
void zp_g1_jac_dbl(zp_g1_jac *r, const zp_g1_jac *a);
void zp_g1_jac_add(zp_g1_jac *r, const zp_g1_jac *a, const zp_g1_jac *b);       /* complete */
void zp_g1_jac_add_affine(zp_g1_jac *r, const zp_g1_jac *a, const zp_g1_affine *b); /* mixed, complete */
void zp_g1_jac_mul(zp_g1_jac *r, const zp_g1_jac *a, const zp_fr *k);          /* constant time in k */
void zp_g1_jac_mul_u64(zp_g1_jac *r, const zp_g1_jac *a, const uint64_t *k, size_t klimbs); /* raw integer */

void zp_g1_xyzz_set_inf(zp_g1_xyzz *r);
void zp_g1_xyzz_from_affine(zp_g1_xyzz *r, const zp_g1_affine *a);
void zp_g1_xyzz_to_jac(zp_g1_jac *r, const zp_g1_xyzz *p);
void zp_g1_xyzz_dbl(zp_g1_xyzz *r, const zp_g1_xyzz *a);
void zp_g1_xyzz_add(zp_g1_xyzz *r, const zp_g1_xyzz *a, const zp_g1_xyzz *b);
void zp_g1_xyzz_add_affine(zp_g1_xyzz *r, const zp_g1_xyzz *a, const zp_g1_affine *b);

/* ---- G2: same operations ---- */
bool zp_g2_affine_is_inf(const zp_g2_affine *p);
bool zp_g2_affine_is_on_curve(const zp_g2_affine *p);
bool zp_g2_affine_in_subgroup(const zp_g2_affine *p);
int  zp_g2_affine_check(const zp_g2_affine *p);
bool zp_g2_affine_eq(const zp_g2_affine *a, const zp_g2_affine *b);
void zp_g2_affine_neg(zp_g2_affine *r, const zp_g2_affine *a);

void zp_g2_jac_set_inf(zp_g2_jac *r);
bool zp_g2_jac_is_inf(const zp_g2_jac *p);
void zp_g2_jac_from_affine(zp_g2_jac *r, const zp_g2_affine *a);
void zp_g2_jac_to_affine(zp_g2_affine *r, const zp_g2_jac *p);
void zp_g2_jac_batch_to_affine(zp_g2_affine *r, const zp_g2_jac *p, size_t n);
bool zp_g2_jac_eq(const zp_g2_jac *a, const zp_g2_jac *b);
void zp_g2_jac_neg(zp_g2_jac *r, const zp_g2_jac *a);
void zp_g2_jac_dbl(zp_g2_jac *r, const zp_g2_jac *a);
void zp_g2_jac_add(zp_g2_jac *r, const zp_g2_jac *a, const zp_g2_jac *b);
void zp_g2_jac_add_affine(zp_g2_jac *r, const zp_g2_jac *a, const zp_g2_affine *b);
void zp_g2_jac_mul(zp_g2_jac *r, const zp_g2_jac *a, const zp_fr *k);
void zp_g2_jac_mul_u64(zp_g2_jac *r, const zp_g2_jac *a, const uint64_t *k, size_t klimbs);

void zp_g2_xyzz_set_inf(zp_g2_xyzz *r);
void zp_g2_xyzz_from_affine(zp_g2_xyzz *r, const zp_g2_affine *a);
void zp_g2_xyzz_to_jac(zp_g2_jac *r, const zp_g2_xyzz *p);
void zp_g2_xyzz_dbl(zp_g2_xyzz *r, const zp_g2_xyzz *a);
void zp_g2_xyzz_add(zp_g2_xyzz *r, const zp_g2_xyzz *a, const zp_g2_xyzz *b);
void zp_g2_xyzz_add_affine(zp_g2_xyzz *r, const zp_g2_xyzz *a, const zp_g2_affine *b);

#endif
