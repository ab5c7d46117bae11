/*
 * curve.c — the two ops tables of curve.h: thin typed wrappers around each curve's own functions (calling
 * through a pointer of another function type would be undefined, hence the wrappers).
 */
#include "curve.h"
#include "bn254.h"
#include "bn254_msm.h"
#include "ec.h"
#include "msm.h"
#include "pairing.h"
#include "zp_err.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

/* W(curve prefix, type prefix): the wrappers for one curve */
#define CURVE_WRAPPERS(P, T, FR)                                                                   \
	static int P##_fr_dec(void *r, const char *s) { return zp_##FR##_from_dec(r, s); }           \
	static int P##_fr_todec(char *b, size_t n, const void *a) { return zp_##FR##_to_dec(b, n, a); } \
	static int P##_fr_fle(void *r, const uint8_t *le) { return zp_##FR##_from_le(r, le); }       \
	static void P##_fr_tle(uint8_t *le, const void *a) { zp_##FR##_to_le(le, a); }               \
	static void P##_fr_fm(uint64_t *raw, const void *a) { zp_##FR##_from_mont(raw, a); }         \
	static int P##_fp_dec(void *r, const char *s) { return zp_##T##fp_from_dec(r, s); }          \
	static int P##_fp_todec(char *b, size_t n, const void *a) { return zp_##T##fp_to_dec(b, n, a); } \
	static int P##_g1_chk(const void *p) { return zp_##T##g1_affine_check(p); }                   \
	static int P##_g2_chk(const void *p) { return zp_##T##g2_affine_check(p); }                   \
	static void P##_g1_neg(void *r, const void *p) { zp_##T##g1_affine_neg(r, p); }               \
	static void P##_g1_aff(void *r, const void *p) { zp_##T##g1_jac_to_affine(r, p); }            \
	static void P##_g2_aff(void *r, const void *p) { zp_##T##g2_jac_to_affine(r, p); }            \
	static int P##_msm1(void *o, const void *pt, const void *s, size_t n, void *scr, size_t len) \
	{                                                                                            \
		return zp_##T##msm_g1(o, pt, s, n, scr, len);                                        \
	}                                                                                            \
	static int P##_msm2(void *o, const void *pt, const void *s, size_t n, void *scr, size_t len) \
	{                                                                                            \
		return zp_##T##msm_g2(o, pt, s, n, scr, len);                                        \
	}                                                                                            \
	static void P##_sel1(void *o, const void *pt, const uint8_t *sel, size_t n)                  \
	{                                                                                            \
		zp_##T##msm_g1_sum_selected(o, pt, sel, n);                                          \
	}                                                                                            \
	static void P##_sel2(void *o, const void *pt, const uint8_t *sel, size_t n)                  \
	{                                                                                            \
		zp_##T##msm_g2_sum_selected(o, pt, sel, n);                                          \
	}
CURVE_WRAPPERS(bls, , fr)
CURVE_WRAPPERS(bn, bn254_, bn254_fr)

static int bls_fr_rnd(void *r) { return zp_fr_random_secure(r); }

/* BN254's r < 2^254: 254 random bits, rejected until below r (about 1 draw in 1.3) */
static int bn_fr_rnd(void *r)
{
	uint8_t le[32];
	int rc;
	do {
		size_t got = 0;
		while (got < sizeof le) {
			ssize_t k = getrandom(le + got, sizeof le - got, 0);
			if (k < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			got += (size_t)k;
		}
		le[31] &= 0x3f;
	} while ((rc = zp_bn254_fr_from_le(r, le)) == ZP_ENONCANON);
	explicit_bzero(le, sizeof le);
	return rc;
}

static int bls_pair(const void *p, const void *q, size_t n) { return zp_pairing_check(p, q, n); }
static int bn_pair(const void *p, const void *q, size_t n) { return zp_bn254_pairing_check(p, q, n); }

#define CURVE_OPS(P, T)                                                                             \
	.fr_from_dec = P##_fr_dec, .fr_to_dec = P##_fr_todec, .fr_from_le = P##_fr_fle, .fr_to_le = P##_fr_tle, \
	.fr_from_mont = P##_fr_fm, .fr_random_secure = P##_fr_rnd, .fp_from_dec = P##_fp_dec,             \
	.fp_to_dec = P##_fp_todec, .g1_check = P##_g1_chk, .g2_check = P##_g2_chk, .g1_neg = P##_g1_neg, \
	.g1_jac_to_affine = P##_g1_aff, .g2_jac_to_affine = P##_g2_aff,                                  \
	.msm_g1_scratch_size = zp_##T##msm_g1_scratch_size, .msm_g1 = P##_msm1,                          \
	.msm_g2_scratch_size = zp_##T##msm_g2_scratch_size, .msm_g2 = P##_msm2,                          \
	.msm_g1_sum_selected = P##_sel1, .msm_g2_sum_selected = P##_sel2, .pairing_check = P##_pair

const zp_curve zp_curve_bls12_381 = {
	.id = ZP_CURVE_BLS12_381, .name = "bls12-381", .snarkjs_name = "bls12381",
	.fp_bytes = ZP_FP_BYTES, .fr_bytes = ZP_FR_BYTES,
	.g1_bytes = sizeof(zp_g1_affine), .g2_bytes = sizeof(zp_g2_affine),
	.g1_jac_bytes = sizeof(zp_g1_jac), .g2_jac_bytes = sizeof(zp_g2_jac),
	.fp_modulus = ZP_FP_MODULUS, .fr_modulus = ZP_FR_MODULUS, .fp_limbs = ZP_FP_LIMBS, .fr_limbs = ZP_FR_LIMBS,
	.g1_gen = &ZP_G1_GEN, .g2_gen = &ZP_G2_GEN, .fr_one = &ZP_FR_ONE,
	CURVE_OPS(bls, ),
};

const zp_curve zp_curve_bn254 = {
	.id = ZP_CURVE_BN254, .name = "bn254", .snarkjs_name = "bn128",
	.fp_bytes = ZP_BN254_BYTES, .fr_bytes = ZP_BN254_BYTES,
	.g1_bytes = sizeof(zp_bn254_g1_affine), .g2_bytes = sizeof(zp_bn254_g2_affine),
	.g1_jac_bytes = sizeof(zp_bn254_g1_jac), .g2_jac_bytes = sizeof(zp_bn254_g2_jac),
	.fp_modulus = ZP_BN254_FP_MODULUS, .fr_modulus = ZP_BN254_FR_MODULUS,
	.fp_limbs = ZP_BN254_LIMBS, .fr_limbs = ZP_BN254_LIMBS,
	.g1_gen = &ZP_BN254_G1_GEN, .g2_gen = &ZP_BN254_G2_GEN, .fr_one = &ZP_BN254_FR_ONE,
	CURVE_OPS(bn, bn254_),
};

const zp_curve *zp_curve_by_name(const char *name)
{
	static const struct { const char *n; const zp_curve *c; } names[] = {
		{ "bls12-381", &zp_curve_bls12_381 }, { "bls12381", &zp_curve_bls12_381 },
		{ "bn254", &zp_curve_bn254 }, { "bn128", &zp_curve_bn254 }, { "alt_bn128", &zp_curve_bn254 },
	};
	for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(name, names[i].n))
			return names[i].c;
	return NULL;
}

static bool same_modulus(const uint8_t *le, size_t n, const uint64_t *m, size_t bytes)
{
	bool same = n == bytes;
	for (size_t k = 0; same && k < n; k++)
		same &= le[k] == (uint8_t)(m[k / 8] >> (8 * (k % 8)));
	return same;
}

/* The curve whose Fp (fp) or Fr modulus is le[0..n) */
static const zp_curve *by_modulus(const uint8_t *le, size_t n, bool fp)
{
	const zp_curve *all[] = { &zp_curve_bls12_381, &zp_curve_bn254 };
	for (size_t i = 0; i < 2; i++)
		if (same_modulus(le, n, fp ? all[i]->fp_modulus : all[i]->fr_modulus, fp ? all[i]->fp_bytes : all[i]->fr_bytes))
			return all[i];
	return NULL;
}

const zp_curve *zp_curve_by_fr_modulus(const uint8_t *le, size_t n) { return by_modulus(le, n, false); }
const zp_curve *zp_curve_by_fp_modulus(const uint8_t *le, size_t n) { return by_modulus(le, n, true); }

const zp_curve *zp_curve_by_id(uint32_t id)
{
	return id == ZP_CURVE_BLS12_381 ? &zp_curve_bls12_381 : id == ZP_CURVE_BN254 ? &zp_curve_bn254 : NULL;
}

bool zp_curve_lt_limbs(const uint8_t *a, const uint64_t *m, unsigned n)
{
	for (unsigned i = n; i-- > 0;) {
		uint64_t x;
		memcpy(&x, a + 8 * i, 8);
		if (x != m[i])
			return x < m[i];
	}
	return false;
}
