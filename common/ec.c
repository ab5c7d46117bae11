/*
 * ec.c — G1 and G2 of BLS12-381: the operations of ec.h.
 *
 * The coordinate arithmetic is written once in ec_tmpl.h and instantiated here
 * for G1 (over Fp) and G2 (over Fp2).  This file adds what differs between the
 * groups: constants and the subgroup checks.
 *
 * Constants are in Montgomery form (x·2^384 mod q), derived with Python integers:
 *   generators: the zcash / IETF ones (draft-irtf-cfrg-pairing-friendly-curves),
 *     normal-form values in the comments; tests/ec checks them on the curve, of
 *     order r, and equal to ffjavascript's G1.g / G2.g;
 *   BETA = 2^((q-1)/3) mod q, a primitive cube root of unity in Fp (the one whose
 *     endomorphism (x, y) -> (BETA·x, y) acts on G1 as multiplication by -z^2);
 *   PSI_X = 1/(1+u)^((q-1)/3), PSI_Y = 1/(1+u)^((q-1)/2) in Fp2: the constants of
 *     psi = untwist ∘ Frobenius ∘ twist on the M-twist E'.
 * z = -0xd201000000010000 is the curve's BLS parameter.
 *
 * Subgroup checks (Scott, "A note on group membership tests for G1, G2 and GT on
 * BLS pairing-friendly curves", 2021):  P in G1  <=>  sigma(P) = [-z^2]P,
 *                                       Q in G2  <=>  psi(Q) = [z]Q.
 * Each costs about 64 (G2) or 128 (G1) doublings instead of the 255 doublings
 * and ~128 additions of [r]P; tests/ec checks them against [r]P = infinity.
 */
#include "ec.h"
#include "zp_err.h"

static const zp_fp G1_B = { {  /* 4 */
	0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL,
	0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL } };
static const zp_fp2 G2_B = {  /* 4 + 4u */
	{ { 0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL,
	    0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL } },
	{ { 0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL,
	    0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL } } };

const zp_g1_affine ZP_G1_GEN = {
	/* x = 0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb */
	{ { 0x5cb38790fd530c16ULL, 0x7817fc679976fff5ULL, 0x154f95c7143ba1c1ULL,
	    0xf0ae6acdf3d0e747ULL, 0xedce6ecc21dbf440ULL, 0x120177419e0bfb75ULL } },
	/* y = 0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1 */
	{ { 0xbaac93d50ce72271ULL, 0x8c22631a7918fd8eULL, 0xdd595f13570725ceULL,
	    0x51ac582950405194ULL, 0x0e1c8c3fad0059c0ULL, 0x0bbc3efc5008a26aULL } } };

const zp_g2_affine ZP_G2_GEN = {
	{ /* x.c0 = 0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8 */
	  { { 0xf5f28fa202940a10ULL, 0xb3f5fb2687b4961aULL, 0xa1a893b53e2ae580ULL,
	      0x9894999d1a3caee9ULL, 0x6f67b7631863366bULL, 0x058191924350bcd7ULL } },
	  /* x.c1 = 0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e */
	  { { 0xa5a9c0759e23f606ULL, 0xaaa0c59dbccd60c3ULL, 0x3bb17e18e2867806ULL,
	      0x1b1ab6cc8541b367ULL, 0xc2b6ed0ef2158547ULL, 0x11922a097360edf3ULL } } },
	{ /* y.c0 = 0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801 */
	  { { 0x4c730af860494c4aULL, 0x597cfa1f5e369c5aULL, 0xe7e6856caa0a635aULL,
	      0xbbefb5e96e0d495fULL, 0x07d3a975f0ef25a2ULL, 0x0083fd8e7e80dae5ULL } },
	  /* y.c1 = 0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be */
	  { { 0xadc0fc92df64b05dULL, 0x18aa270a2b1461dcULL, 0x86adac6a3be4eba0ULL,
	      0x79495c4ec93da33aULL, 0xe7175850a43ccaedULL, 0x0b2bc2a163de1bf2ULL } } } };

static inline void fe_cmov_fp(zp_fp *r, const zp_fp *a, bool c)
{
	zp_fp_cmov(r, a, c);
}

static inline void fe_cmov_fp2(zp_fp2 *r, const zp_fp2 *a, bool c)
{
	zp_fp_cmov(&r->c0, &a->c0, c);
	zp_fp_cmov(&r->c1, &a->c1, c);
}

#define EC_G g1
#define EC_F fp
#define EC_FE zp_fp
#define EC_ONE ZP_FP_ONE
#define EC_B G1_B
#define EC_SC fr
#include "ec_tmpl.h"
#undef EC_G
#undef EC_F
#undef EC_FE
#undef EC_ONE
#undef EC_B
#undef EC_SC

#define EC_G g2
#define EC_F fp2
#define EC_FE zp_fp2
#define EC_ONE ZP_FP2_ONE
#define EC_B G2_B
#define EC_SC fr
#include "ec_tmpl.h"
#undef EC_G
#undef EC_F
#undef EC_FE
#undef EC_ONE
#undef EC_B
#undef EC_SC

/* ---------------- subgroup checks ---------------- */

static const uint64_t Z_ABS = 0xd201000000010000ULL;  /* |z|; z is negative */

static const zp_fp G1_BETA = { {  /* 0x5f19672f...fffefffe */
	0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL,
	0xc26a2ff874fd029bULL, 0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL } };

bool zp_g1_affine_in_subgroup(const zp_g1_affine *p)
{
	if (zp_g1_affine_is_inf(p))
		return true;
	zp_g1_jac t, s;
	zp_g1_affine sig = *p;
	zp_g1_jac_from_affine(&t, p);
	zp_g1_jac_mul_u64(&t, &t, &Z_ABS, 1);
	zp_g1_jac_mul_u64(&t, &t, &Z_ABS, 1);   /* [z^2]P */
	zp_g1_jac_neg(&t, &t);
	zp_fp_mul(&sig.x, &sig.x, &G1_BETA);
	zp_g1_jac_from_affine(&s, &sig);
	return zp_g1_jac_eq(&s, &t);
}

static const zp_fp2 G2_PSI_X = {
	{ { 0 } },
	/* 0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaad */
	{ { 0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL,
	    0xa20d1b8c7e881024ULL, 0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL } } };
static const zp_fp2 G2_PSI_Y = {
	/* 0x135203e60180a68ee2e9c448d77a2cd91c3dedd930b1cf60ef396489f61eb45e304466cf3e67fa0af1ee7b04121bdea2 */
	{ { 0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL,
	    0x92ad2afd19103e18ULL, 0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL } },
	/* 0x06af0e0437ff400b6831e36d6bd17ffe48395dabc2d3435e77f76e17009241c5ee67992f72ec05f4c81084fbede3cc09 */
	{ { 0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL,
	    0xd1ca2087da74d4a7ULL, 0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL } } };

bool zp_g2_affine_in_subgroup(const zp_g2_affine *p)
{
	if (zp_g2_affine_is_inf(p))
		return true;
	zp_g2_jac t, s;
	zp_g2_affine psi;
	zp_g2_jac_from_affine(&t, p);
	zp_g2_jac_mul_u64(&t, &t, &Z_ABS, 1);
	zp_g2_jac_neg(&t, &t);                  /* [z]P */
	zp_fp2_conj(&psi.x, &p->x);
	zp_fp2_mul(&psi.x, &psi.x, &G2_PSI_X);
	zp_fp2_conj(&psi.y, &p->y);
	zp_fp2_mul(&psi.y, &psi.y, &G2_PSI_Y);
	zp_g2_jac_from_affine(&s, &psi);
	return zp_g2_jac_eq(&s, &t);
}
