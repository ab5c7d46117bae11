/*
 * ec_emul.cu — the device point formulas of cuda/ec.cuh (xyzz_t: add, add_lowreg of ZP_G2_LOWREG,
 * add_affine, dbl, mul_small, to_jac) run on the host over the CPU's fields (already checked against
 * ffjavascript) and compared with the CPU's Jacobian arithmetic, for BLS12-381's G1 and G2 (common/ec.h)
 * and BN254's G1 and G2 (common/bn254.h: y^2 = x^3 + 3 and its twist, the curves of ec.cuh's bn254),
 * on random points and on the special cases each formula branches on (P = Q, P = -Q, infinity on either
 * side, the same point in two different XYZZ representations). Needs no GPU. Exit 0 pass, 1 fail.
 */
#define ZP_EC_FN inline
#define ZP_EC_CALL __noinline__
#include <stdio.h>
#include <stdlib.h>
#include "ec.cuh"
#include "host_field.cuh"   /* HOST_FIELD */
#define _Static_assert static_assert   /* C11 spelling in the C headers */
extern "C" {
#include "field.h"
#include "fp2.h"
#include "ec.h"
#include "bn254.h"
}

HOST_FIELD(hfp, zp_fp, zp_fp, ZP_FP_ZERO, ZP_FP_ONE, zp_fp_sqr)
HOST_FIELD(hfp2, zp_fp2, zp_fp2, ZP_FP2_ZERO, ZP_FP2_ONE, zp_fp2_sqr)
HOST_FIELD(hbfp, zp_bn254_fp, zp_bn254_fp, ZP_BN254_FP_ZERO, ZP_BN254_FP_ONE, zp_bn254_fp_sqr)
HOST_FIELD(hbfp2, zp_bn254_fp2, zp_bn254_fp2, ZP_BN254_FP2_ZERO, ZP_BN254_FP2_ONE, zp_bn254_fp2_sqr)

/* A CPU group: its field wrapper, affine / Jacobian types, scalar type and functions (P the prefix) */
#define HOST_GROUP(NAME, HF, AFF, JAC, FR, P, FRP, GEN)                                                      \
	struct NAME {                                                                                        \
		typedef HF F;                                                                                \
		typedef JAC jac;                                                                             \
		static void add(JAC *r, const JAC *a, const JAC *b) { P##_jac_add(r, a, b); }                \
		static void dbl(JAC *r, const JAC *a) { P##_jac_dbl(r, a); }                                 \
		static bool eq(const JAC *a, const JAC *b) { return P##_jac_eq(a, b); }                      \
		static void set_inf(JAC *r) { P##_jac_set_inf(r); }                                          \
		static void mul_u64(JAC *r, const JAC *a, uint64_t k) { P##_jac_mul_u64(r, a, &k, 1); }      \
		static JAC of(const affine_t<HF> &a) { AFF c; JAC j; c.x = a.x.v; c.y = a.y.v; P##_jac_from_affine(&j, &c); return j; } \
		static affine_t<HF> rand_aff(zp_rng *g)                                                      \
		{                                                                                            \
			FR k; JAC j; AFF a; affine_t<HF> r;                                                  \
			FRP##_random(&k, g);                                                                 \
			P##_jac_from_affine(&j, &GEN);                                                       \
			P##_jac_mul(&j, &j, &k);                                                             \
			P##_jac_to_affine(&a, &j);                                                           \
			r.x.v = a.x; r.y.v = a.y;                                                            \
			return r;                                                                            \
		}                                                                                            \
	};
HOST_GROUP(bls_g1, hfp, zp_g1_affine, zp_g1_jac, zp_fr, zp_g1, zp_fr, ZP_G1_GEN)
HOST_GROUP(bls_g2, hfp2, zp_g2_affine, zp_g2_jac, zp_fr, zp_g2, zp_fr, ZP_G2_GEN)
HOST_GROUP(bn_g1, hbfp, zp_bn254_g1_affine, zp_bn254_g1_jac, zp_bn254_fr, zp_bn254_g1, zp_bn254_fr, ZP_BN254_G1_GEN)
HOST_GROUP(bn_g2, hbfp2, zp_bn254_g2_affine, zp_bn254_g2_jac, zp_bn254_fr, zp_bn254_g2, zp_bn254_fr, ZP_BN254_G2_GEN)

static zp_rng rng;
static long checks, fails;

template <class G> static void expect(const char *grp, const char *what, const xyzz_t<typename G::F> &got,
                                      const typename G::jac *want)
{
	jac_t<typename G::F> j = got.to_jac();
	typename G::jac g;
	g.x = j.x.v; g.y = j.y.v; g.z = j.z.v;
	checks++;
	if (!G::eq(&g, want)) { if (fails < 5) printf("%s %s: mismatch\n", grp, what); fails++; }
}

/* Every formula and branch once, on random points of group G. */
template <class G> static void round(const char *grp)
{
	typedef typename G::F F;
	typedef xyzz_t<F> X;
	typedef affine_t<F> A;
	typedef typename G::jac J;
	/* a point with ZZ != 1: p1 + p2 through the formulas */
	auto mixed = [](const A &p1, const A &p2) { X r = X::from_affine(p1); r.add_affine(p2); return r; };
#define EXPECT(what, got, want) expect<G>(grp, what, got, want)
	A inf_a; inf_a.x = F::zero(); inf_a.y = F::zero();
	A a1 = G::rand_aff(&rng), a2 = G::rand_aff(&rng), a3 = G::rand_aff(&rng), a4 = G::rand_aff(&rng);
	J j1 = G::of(a1), j2 = G::of(a2), j3 = G::of(a3), j4 = G::of(a4), s12, s34, want, t;
	G::add(&s12, &j1, &j2);
	G::add(&s34, &j3, &j4);
	X p = mixed(a1, a2), q = mixed(a3, a4);
	EXPECT("add_affine", p, &s12);
	/* full additions, both orders, both formulas */
	G::add(&want, &s12, &s34);
	{ X r = p; r.add_inl(q); EXPECT("add_inl", r, &want); }
	{ X r = p; r.add_lowreg(q); EXPECT("add_lowreg", r, &want); }
	{ X r = q; r.add_lowreg(p); EXPECT("add_lowreg swapped", r, &want); }
	/* same point, two representations: P = 0, R = 0 -> doubling */
	X p2 = mixed(a2, a1);
	G::dbl(&want, &s12);
	{ X r = p; r.add_lowreg(p2); EXPECT("add_lowreg P=Q", r, &want); }
	{ X r = p; r.add_inl(p2); EXPECT("add_inl P=Q", r, &want); }
	{ X r = p; r.add_lowreg(p); EXPECT("add_lowreg self", r, &want); }
	{ X r = p; r.dbl_inl(); EXPECT("dbl", r, &want); }
	{ X r = p; r.dbl_lowreg(); EXPECT("dbl_lowreg", r, &want); }
	/* P = -Q -> infinity */
	X np = p2; np.neg();
	G::set_inf(&t);
	{ X r = p; r.add_lowreg(np); EXPECT("add_lowreg P=-Q", r, &t); }
	{ X r = p; r.add_inl(np); EXPECT("add_inl P=-Q", r, &t); }
	/* infinity on either side */
	{ X r = X::inf(); r.add_lowreg(p); EXPECT("inf + p", r, &s12); }
	{ X r = p; r.add_lowreg(X::inf()); EXPECT("p + inf", r, &s12); }
	{ X r = X::inf(); r.add_lowreg(X::inf()); EXPECT("inf + inf", r, &t); }
	{ X r = X::inf(); r.dbl_lowreg(); EXPECT("dbl_lowreg inf", r, &t); }
	{ X r = p; r.add_affine(inf_a); EXPECT("p + inf (affine)", r, &s12); }
	/* mixed addition hitting P = Q and P = -Q */
	G::dbl(&want, &j1);
	{ X r = X::from_affine(a1); r.add_affine(a1); EXPECT("madd P=Q", r, &want); }
	{ A n1 = a1; n1.y = n1.y.neg(); X r = X::from_affine(a1); r.add_affine(n1); EXPECT("madd P=-Q", r, &t); }
	/* mul_small (dbl + add in a loop), k up to 63 */
	{
		uint32_t k = (uint32_t)(zp_rng_next(&rng) & 63);
		X r = p; r.mul_small(k);
		G::mul_u64(&want, &s12, k);
		EXPECT("mul_small", r, &want);
	}
#undef EXPECT
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 200;
	zp_rng_seed(&rng, 12345);
	for (long it = 0; it < iters; it++) {
		round<bls_g2>("BLS12-381 G2");
		round<bls_g1>("BLS12-381 G1");
		round<bn_g1>("BN254 G1");
		round<bn_g2>("BN254 G2");
	}
	printf("%ld checks, %ld wrong\n%s\n", checks, fails, fails ? "FAIL" : "ok");
	return fails != 0;
}
