/*
 * test_bn254_laws.c — common/bn254*: algebraic laws on random inputs (fresh seed each run, printed).
 *   fields: ring laws, inverses, portable = MULX/ADX, the Fp2 square root, the Fp12 Frobenius (= a^p);
 *   groups: generators of order r, add/dbl/mixed/xyzz agree, constant-time jac_mul = double-and-add;
 *   G2 subgroup: psi test = ([r]Q == O) on cofactor-cleared points and on raw twist points (not in G2);
 *   pairing: bilinearity e(aP, bQ) = e(P, Q)^ab, e^r = 1, non-degeneracy, the product check.
 */
#include "bn254.h"
#include "field_impl.h"
#include "zp_err.h"

#include "../common/zp_test.h"

typedef zp_bn254_fp fp;
typedef zp_bn254_fr fr;
typedef zp_bn254_fp2 fp2;
typedef zp_bn254_fp12 fp12;

static zp_rng g;

static void fr_rand(fr *a) { zp_bn254_fr_random(a, &g); }

static void field_laws(void)
{
	bool had = zp_field_adx;
	for (int i = 0; i < 200; i++) {
		fp a, b, c, t, u, v;
		zp_bn254_fp_random(&a, &g);
		zp_bn254_fp_random(&b, &g);
		zp_bn254_fp_random(&c, &g);
		zp_bn254_fp_add(&t, &a, &b);
		zp_bn254_fp_sub(&t, &t, &b);
		CHECK(zp_bn254_fp_eq(&t, &a), "fp (a+b)-b");
		zp_bn254_fp_add(&t, &b, &c);
		zp_bn254_fp_mul(&t, &a, &t);
		zp_bn254_fp_mul(&u, &a, &b);
		zp_bn254_fp_mul(&v, &a, &c);
		zp_bn254_fp_add(&u, &u, &v);
		CHECK(zp_bn254_fp_eq(&t, &u), "fp distributive");
		zp_bn254_fp_inv(&t, &a);
		zp_bn254_fp_mul(&t, &t, &a);
		CHECK(zp_bn254_fp_eq(&t, &ZP_BN254_FP_ONE), "fp a/a");
		zp_bn254_fp_mul_portable(&t, &a, &b);
		zp_field_set_adx(true);
		zp_bn254_fp_mul(&u, &a, &b);
		zp_field_set_adx(false);
		zp_bn254_fp_mul(&v, &a, &b);
		zp_field_set_adx(had);
		CHECK(zp_bn254_fp_eq(&t, &u) && zp_bn254_fp_eq(&t, &v), "fp portable = adx");
		fr x, y, z, w;
		fr_rand(&x);
		fr_rand(&y);
		zp_bn254_fr_mul_portable(&z, &x, &y);
		zp_field_set_adx(true);
		zp_bn254_fr_mul(&w, &x, &y);
		zp_field_set_adx(had);
		CHECK(zp_bn254_fr_eq(&z, &w), "fr portable = adx");
		zp_bn254_fr_inv(&z, &x);
		zp_bn254_fr_mul(&z, &z, &x);
		CHECK(zp_bn254_fr_eq(&z, &ZP_BN254_FR_ONE), "fr x/x");
		fp s;
		zp_bn254_fp_sqr(&t, &a);
		CHECK(zp_bn254_fp_sqrt(&s, &t), "fp sqrt of a square");
		zp_bn254_fp_sqr(&s, &s);
		CHECK(zp_bn254_fp_eq(&s, &t), "fp sqrt squares back");
	}
	for (int i = 0; i < 50; i++) {
		fp2 a, b, t, u;
		zp_bn254_fp2_random(&a, &g);
		zp_bn254_fp2_random(&b, &g);
		zp_bn254_fp2_mul(&t, &a, &a);
		zp_bn254_fp2_sqr(&u, &a);
		CHECK(zp_bn254_fp2_eq(&t, &u), "fp2 sqr = mul");
		zp_bn254_fp2_inv(&t, &a);
		zp_bn254_fp2_mul(&t, &t, &a);
		CHECK(zp_bn254_fp2_eq(&t, &ZP_BN254_FP2_ONE), "fp2 a/a");
		fp2 xi = { ZP_BN254_FP_ONE, ZP_BN254_FP_ONE }, nine;
		zp_bn254_fp_from_u64(&xi.c0, 9);
		zp_bn254_fp2_mul(&t, &b, &xi);
		zp_bn254_fp2_mul_xi(&u, &b);
		CHECK(zp_bn254_fp2_eq(&t, &u), "fp2 mul_xi");
		(void)nine;
		zp_bn254_fp2_sqr(&t, &a);
		CHECK(zp_bn254_fp2_sqrt(&u, &t), "fp2 sqrt of a square");
		zp_bn254_fp2_sqr(&u, &u);
		CHECK(zp_bn254_fp2_eq(&u, &t), "fp2 sqrt squares back");
	}
	for (int i = 0; i < 10; i++) {
		fp12 a, b, c, t, u;
		zp_bn254_fp12_random(&a, &g);
		zp_bn254_fp12_random(&b, &g);
		zp_bn254_fp12_random(&c, &g);
		zp_bn254_fp12_mul(&t, &a, &b);
		zp_bn254_fp12_mul(&t, &t, &c);
		zp_bn254_fp12_mul(&u, &b, &c);
		zp_bn254_fp12_mul(&u, &a, &u);
		CHECK(zp_bn254_fp12_eq(&t, &u), "fp12 associative");
		zp_bn254_fp12_mul(&t, &a, &a);
		zp_bn254_fp12_sqr(&u, &a);
		CHECK(zp_bn254_fp12_eq(&t, &u), "fp12 sqr = mul");
		zp_bn254_fp12_inv(&t, &a);
		zp_bn254_fp12_mul(&t, &t, &a);
		CHECK(zp_bn254_fp12_is_one(&t), "fp12 a/a");
		zp_bn254_fp12_frob(&t, &a);
		zp_bn254_fp12_pow(&u, &a, ZP_BN254_FP_MODULUS, 4);
		CHECK(zp_bn254_fp12_eq(&t, &u), "fp12 frob = a^p");
	}
}

static const uint64_t R_LIMBS[4] = { 0x43e1f593f0000001ULL, 0x2833e84879b97091ULL, 0xb85045b68181585dULL, 0x30644e72e131a029ULL };

/* 2p - r: the twist's cofactor */
static void twist_cofactor(uint64_t h[4])
{
	unsigned __int128 c = 0;
	for (int i = 0; i < 4; i++) {
		c += (unsigned __int128)ZP_BN254_FP_MODULUS[i] * 2 - R_LIMBS[i];
		h[i] = (uint64_t)c;
		c = (unsigned __int128)((__int128)c >> 64);
	}
}

static void group_laws(void)
{
	zp_bn254_g1_jac P, t, u, v;
	zp_bn254_g1_affine a1;
	CHECK(zp_bn254_g1_affine_check(&ZP_BN254_G1_GEN) == 0, "G1 generator on the curve");
	CHECK(zp_bn254_g2_affine_check(&ZP_BN254_G2_GEN) == 0, "G2 generator in G2");
	zp_bn254_g1_jac_from_affine(&P, &ZP_BN254_G1_GEN);
	zp_bn254_g1_jac_mul_u64(&t, &P, R_LIMBS, 4);
	CHECK(zp_bn254_g1_jac_is_inf(&t), "[r]G1 = O");
	zp_bn254_g2_jac Q, s, w;
	zp_bn254_g2_jac_from_affine(&Q, &ZP_BN254_G2_GEN);
	zp_bn254_g2_jac_mul_u64(&s, &Q, R_LIMBS, 4);
	CHECK(zp_bn254_g2_jac_is_inf(&s), "[r]G2 = O");
	for (int i = 0; i < 20; i++) {
		fr k, m;
		uint64_t kr[4];
		fr_rand(&k);
		fr_rand(&m);
		zp_bn254_fr_from_mont(kr, &k);
		zp_bn254_g1_jac_mul(&t, &P, &k);
		zp_bn254_g1_jac_mul_u64(&u, &P, kr, 4);
		CHECK(zp_bn254_g1_jac_eq(&t, &u), "G1 ct mul = double-and-add");
		zp_bn254_g1_jac_to_affine(&a1, &t);
		CHECK(zp_bn254_g1_affine_check(&a1) == 0, "kG1 on the curve");
		zp_bn254_g1_jac_mul(&v, &P, &m);
		zp_bn254_g1_jac_add(&u, &t, &v);               /* kP + mP */
		fr km;
		zp_bn254_fr_add(&km, &k, &m);
		zp_bn254_g1_jac_mul(&v, &P, &km);
		CHECK(zp_bn254_g1_jac_eq(&u, &v), "G1 kP + mP = (k+m)P");
		zp_bn254_g1_jac_add_affine(&v, &t, &a1);
		zp_bn254_g1_jac_dbl(&u, &t);
		CHECK(zp_bn254_g1_jac_eq(&u, &v), "G1 mixed add of itself = dbl");
		zp_bn254_g1_xyzz x1, x2;
		zp_bn254_g1_xyzz_from_affine(&x1, &a1);
		zp_bn254_g1_xyzz_dbl(&x2, &x1);
		zp_bn254_g1_xyzz_add_affine(&x2, &x2, &a1);
		zp_bn254_g1_xyzz_to_jac(&v, &x2);
		zp_bn254_g1_jac_add(&u, &u, &t);
		CHECK(zp_bn254_g1_jac_eq(&u, &v), "G1 xyzz 3P");
		zp_bn254_g2_jac_mul(&s, &Q, &k);
		zp_bn254_g2_jac_mul(&w, &Q, &m);
		zp_bn254_g2_jac_add(&s, &s, &w);
		zp_bn254_g2_jac_mul(&w, &Q, &km);
		CHECK(zp_bn254_g2_jac_eq(&s, &w), "G2 kQ + mQ = (k+m)Q");
	}
	/* the psi subgroup test against [r]Q on twist points outside G2 and their cofactor-cleared multiples */
	uint64_t h[4];
	twist_cofactor(h);
	int outside = 0;
	for (int i = 0; i < 8; i++) {
		fp2 x0;
		zp_bn254_g2_affine q, qh;
		zp_bn254_fp2_random(&x0, &g);
		zp_bn254_g2_from_x(&q, &x0);
		CHECK(zp_bn254_g2_affine_is_on_curve(&q), "twist point on E'");
		zp_bn254_g2_jac_from_affine(&s, &q);
		zp_bn254_g2_jac_mul_u64(&w, &s, R_LIMBS, 4);
		bool in = zp_bn254_g2_jac_is_inf(&w);
		outside += !in;
		CHECK(zp_bn254_g2_affine_in_subgroup(&q) == in, "psi test = [r]Q test (raw)");
		CHECK(in || zp_bn254_g2_affine_check(&q) == ZP_ESUBGROUP, "outside G2 -> ZP_ESUBGROUP");
		zp_bn254_g2_jac_mul_u64(&w, &s, h, 4);
		zp_bn254_g2_jac_to_affine(&qh, &w);
		zp_bn254_g2_jac_mul_u64(&w, &w, R_LIMBS, 4);
		CHECK(zp_bn254_g2_jac_is_inf(&w), "[h]Q has order r");
		CHECK(zp_bn254_g2_affine_in_subgroup(&qh), "psi test accepts [h]Q");
		/* psi acts on G2 as [p mod r] */
		zp_bn254_g2_affine ps;
		zp_bn254_g2_psi(&ps, &qh);
		zp_bn254_g2_jac_from_affine(&s, &qh);
		zp_bn254_g2_jac_mul_u64(&s, &s, ZP_BN254_FP_MODULUS, 4);
		zp_bn254_g2_jac_from_affine(&w, &ps);
		CHECK(zp_bn254_g2_jac_eq(&s, &w), "psi = [p] on G2");
	}
	CHECK(outside >= 7, "random twist points are (almost surely) outside G2: %d of 8", outside);
}

static void pairing_laws(void)
{
	fp12 e, e1, e2;
	zp_bn254_pairing(&e, &ZP_BN254_G1_GEN, &ZP_BN254_G2_GEN);
	CHECK(!zp_bn254_fp12_is_one(&e), "e(G1, G2) != 1");
	zp_bn254_fp12_pow(&e1, &e, R_LIMBS, 4);
	CHECK(zp_bn254_fp12_is_one(&e1), "e(G1, G2)^r = 1");
	zp_bn254_g1_jac P;
	zp_bn254_g2_jac Q;
	zp_bn254_g1_jac_from_affine(&P, &ZP_BN254_G1_GEN);
	zp_bn254_g2_jac_from_affine(&Q, &ZP_BN254_G2_GEN);
	for (int i = 0; i < 3; i++) {
		fr a, b, ab;
		uint64_t abr[4];
		fr_rand(&a);
		fr_rand(&b);
		zp_bn254_fr_mul(&ab, &a, &b);
		zp_bn254_fr_from_mont(abr, &ab);
		zp_bn254_g1_jac aP;
		zp_bn254_g2_jac bQ;
		zp_bn254_g1_affine aPa, nP;
		zp_bn254_g2_affine bQa;
		zp_bn254_g1_jac_mul(&aP, &P, &a);
		zp_bn254_g2_jac_mul(&bQ, &Q, &b);
		zp_bn254_g1_jac_to_affine(&aPa, &aP);
		zp_bn254_g2_jac_to_affine(&bQa, &bQ);
		zp_bn254_pairing(&e1, &aPa, &bQa);
		zp_bn254_fp12_pow(&e2, &e, abr, 4);
		CHECK(zp_bn254_fp12_eq(&e1, &e2), "e(aP, bQ) = e(P, Q)^ab");
		/* e(aP, bQ)·e(-abP, Q) = 1 */
		zp_bn254_g1_jac_mul(&aP, &P, &ab);
		zp_bn254_g1_jac_to_affine(&nP, &aP);
		zp_bn254_g1_affine_neg(&nP, &nP);
		zp_bn254_g1_affine ps[2] = { aPa, nP };
		zp_bn254_g2_affine qs[2] = { bQa, ZP_BN254_G2_GEN };
		CHECK(zp_bn254_pairing_check(ps, qs, 2) == 0, "e(aP, bQ)·e(-abP, Q) = 1");
		qs[1] = bQa;
		CHECK(zp_bn254_pairing_check(ps, qs, 2) == ZP_EVERIFY, "a wrong product is not 1");
	}
	zp_bn254_g1_affine inf1 = { 0 };
	zp_bn254_pairing(&e1, &inf1, &ZP_BN254_G2_GEN);
	CHECK(zp_bn254_fp12_is_one(&e1), "e(O, Q) = 1");
}

int main(void)
{
	zp_rng_seed(&g, zp_test_seed());
	field_laws();
	group_laws();
	pairing_laws();
	if (failures) {
		fprintf(stderr, "bn254_laws: %d failures\n", failures);
		return 1;
	}
	printf("bn254_laws: ok\n");
	return 0;
}
