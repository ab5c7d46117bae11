/*
 * ec_emul.cu — the device point formulas of cuda/ec.cuh (xyzz_t: add, add_lowreg of ZP_G2_LOWREG,
 * add_affine, dbl, mul_small, to_jac) run on the host over common/fp2.h's Fp2 (the CPU field, already
 * checked against ffjavascript) and compared with common/ec.h's G2 Jacobian arithmetic on random
 * points and on the special cases each formula branches on (P = Q, P = -Q, infinity on either side,
 * the same point in two different XYZZ representations). Needs no GPU. Exit 0 pass, 1 fail.
 */
#define ZP_EC_FN inline
#define ZP_EC_CALL __noinline__
#include <stdio.h>
#include <stdlib.h>
#include "ec.cuh"
#define _Static_assert static_assert   /* C11 spelling in the C headers */
extern "C" {
#include "field.h"
#include "fp2.h"
#include "ec.h"
}

/* Fp2 on the host with the interface ec.cuh's formulas use */
struct hfp2 {
	zp_fp2 v;
	static hfp2 zero() { hfp2 r; r.v = ZP_FP2_ZERO; return r; }
	static hfp2 one() { hfp2 r; r.v = ZP_FP2_ONE; return r; }
	bool is_zero() const { return zp_fp2_is_zero(&v); }
	bool operator==(const hfp2 &b) const { return zp_fp2_eq(&v, &b.v); }
	friend hfp2 operator+(const hfp2 &a, const hfp2 &b) { hfp2 r; zp_fp2_add(&r.v, &a.v, &b.v); return r; }
	friend hfp2 operator-(const hfp2 &a, const hfp2 &b) { hfp2 r; zp_fp2_sub(&r.v, &a.v, &b.v); return r; }
	friend hfp2 operator*(const hfp2 &a, const hfp2 &b) { hfp2 r; zp_fp2_mul(&r.v, &a.v, &b.v); return r; }
	hfp2 sqr() const { hfp2 r; zp_fp2_sqr(&r.v, &v); return r; }
	hfp2 dbl() const { hfp2 r; zp_fp2_dbl(&r.v, &v); return r; }
	hfp2 neg() const { hfp2 r; zp_fp2_neg(&r.v, &v); return r; }
};
typedef xyzz_t<hfp2> X;
typedef affine_t<hfp2> A;

static zp_rng rng;
static long checks, fails;

static zp_g2_jac to_cpu(const X &p)
{
	jac_t<hfp2> j = p.to_jac();
	zp_g2_jac r;
	r.x = j.x.v; r.y = j.y.v; r.z = j.z.v;
	return r;
}
static void expect(const char *what, const X &got, const zp_g2_jac *want)
{
	zp_g2_jac g = to_cpu(got);
	checks++;
	if (!zp_g2_jac_eq(&g, want)) { if (fails < 5) printf("%s: mismatch\n", what); fails++; }
}
static A rand_aff(void)
{
	zp_fr k; zp_g2_jac j; zp_g2_affine a; A r;
	zp_fr_random(&k, &rng);
	zp_g2_jac_from_affine(&j, &ZP_G2_GEN);
	zp_g2_jac_mul(&j, &j, &k);
	zp_g2_jac_to_affine(&a, &j);
	r.x.v = a.x; r.y.v = a.y;
	return r;
}
static zp_g2_jac jac_of(const A &a)
{
	zp_g2_affine c; zp_g2_jac j;
	c.x = a.x.v; c.y = a.y.v;
	zp_g2_jac_from_affine(&j, &c);
	return j;
}
/* a point with ZZ != 1: p1 + p2 through the formulas */
static X mixed(const A &p1, const A &p2) { X r = X::from_affine(p1); r.add_affine(p2); return r; }

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 200;
	zp_rng_seed(&rng, 12345);
	A inf_a; inf_a.x = hfp2::zero(); inf_a.y = hfp2::zero();
	for (long it = 0; it < iters; it++) {
		A a1 = rand_aff(), a2 = rand_aff(), a3 = rand_aff(), a4 = rand_aff();
		zp_g2_jac j1 = jac_of(a1), j2 = jac_of(a2), j3 = jac_of(a3), j4 = jac_of(a4), s12, s34, want, t;
		zp_g2_jac_add(&s12, &j1, &j2);
		zp_g2_jac_add(&s34, &j3, &j4);
		X p = mixed(a1, a2), q = mixed(a3, a4);
		expect("add_affine", p, &s12);
		/* full additions, both orders, both formulas */
		zp_g2_jac_add(&want, &s12, &s34);
		{ X r = p; r.add_inl(q); expect("add_inl", r, &want); }
		{ X r = p; r.add_lowreg(q); expect("add_lowreg", r, &want); }
		{ X r = q; r.add_lowreg(p); expect("add_lowreg swapped", r, &want); }
		/* same point, two representations: P = 0, R = 0 -> doubling */
		X p2 = mixed(a2, a1);
		zp_g2_jac_dbl(&want, &s12);
		{ X r = p; r.add_lowreg(p2); expect("add_lowreg P=Q", r, &want); }
		{ X r = p; r.add_inl(p2); expect("add_inl P=Q", r, &want); }
		{ X r = p; r.add_lowreg(p); expect("add_lowreg self", r, &want); }
		{ X r = p; r.dbl_inl(); expect("dbl", r, &want); }
		{ X r = p; r.dbl_lowreg(); expect("dbl_lowreg", r, &want); }
		/* P = -Q -> infinity */
		X np = p2; np.neg();
		zp_g2_jac_set_inf(&t);
		{ X r = p; r.add_lowreg(np); expect("add_lowreg P=-Q", r, &t); }
		{ X r = p; r.add_inl(np); expect("add_inl P=-Q", r, &t); }
		/* infinity on either side */
		{ X r = X::inf(); r.add_lowreg(p); expect("inf + p", r, &s12); }
		{ X r = p; r.add_lowreg(X::inf()); expect("p + inf", r, &s12); }
		{ X r = X::inf(); r.add_lowreg(X::inf()); expect("inf + inf", r, &t); }
		{ X r = X::inf(); r.dbl_lowreg(); expect("dbl_lowreg inf", r, &t); }
		{ X r = p; r.add_affine(inf_a); expect("p + inf (affine)", r, &s12); }
		/* mixed addition hitting P = Q and P = -Q */
		zp_g2_jac_dbl(&want, &j1);
		{ X r = X::from_affine(a1); r.add_affine(a1); expect("madd P=Q", r, &want); }
		{ A n1 = a1; n1.y = n1.y.neg(); X r = X::from_affine(a1); r.add_affine(n1); expect("madd P=-Q", r, &t); }
		/* mul_small (dbl + add in a loop), k up to 63 */
		{
			uint32_t k = (uint32_t)(zp_rng_next(&rng) & 63);
			uint64_t kk = k;
			X r = p; r.mul_small(k);
			zp_g2_jac_mul_u64(&want, &s12, &kk, 1);
			expect("mul_small", r, &want);
		}
	}
	printf("%ld checks, %ld wrong\n%s\n", checks, fails, fails ? "FAIL" : "ok");
	return fails != 0;
}
