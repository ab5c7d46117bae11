/*
 * subgroup_emul.cu — the GPU's subgroup checks (cuda/subgroup.cuh, Jacobian double-and-add chains)
 * run on the host over the CPU's fields (as ec_emul.cu does for ec.cuh) and compared with common/ec.c's
 * zp_g1/g2_affine_in_subgroup on: points of the subgroup (k·G), random points of the curve outside it
 * (random x, its y), and points of small order (the curve's order over 3, 11, … times a random point:
 * they make the double-and-add hit P = Q and P = −Q), for G1 and G2; G1 also with ff.cuh's dedicated square
 * (mont_sqr_eo) for every sqr(), as params_check.cu's default G1 kernel. Needs no GPU. Exit 0 pass, 1 fail.
 *   subgroup_emul N    N points of each kind and group
 */
#define ZP_EC_FN inline
#define ZP_EC_CALL __noinline__
#define ZP_SG_FN inline
#define ZP_SG_CALL __noinline__
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ec.cuh"
#include "host_field.cuh"   /* HOST_FIELD */
#include "subgroup.cuh"
#define _Static_assert static_assert   /* C11 spelling in the C headers */
extern "C" {
#include "field.h"
#include "fp2.h"
#include "ec.h"
#include "serialize.h"
}

HOST_FIELD(hfp, zp_fp, zp_fp, ZP_FP_ZERO, ZP_FP_ONE, zp_fp_sqr)
/* the CPU's field with ff.cuh's dedicated square (mont_sqr_eo, the params check's DEDICATED_SQR cfgs) for sqr():
 * the G1 chains as the GPU's default G1 kernel runs them */
static void dev_sqr(zp_fp *r, const zp_fp *a)
{
	uint32_t x[12], y[12];
	const uint32_t P[12] = ZP_C_FP_P;
	memcpy(x, a, sizeof x);
	mont_sqr_eo<12>(y, x, P, ZP_C_FP_INV);
	memcpy(r, y, sizeof y);
}
HOST_FIELD(hfps, zp_fp, zp_fp, ZP_FP_ZERO, ZP_FP_ONE, dev_sqr)
struct hfp2 { /* c0, c1 as ff.cuh's fp2_tt has them (sg_in_g2 conjugates through them) */
	hfp c0, c1;
	static hfp2 of(const zp_fp2 &a) { hfp2 r; r.c0.v = a.c0; r.c1.v = a.c1; return r; }
	zp_fp2 v() const { zp_fp2 r; r.c0 = c0.v; r.c1 = c1.v; return r; }
	static hfp2 zero() { return of(ZP_FP2_ZERO); }
	static hfp2 one() { return of(ZP_FP2_ONE); }
	bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
	bool operator==(const hfp2 &b) const { return c0 == b.c0 && c1 == b.c1; }
	friend hfp2 operator+(const hfp2 &a, const hfp2 &b) { zp_fp2 r, x = a.v(), y = b.v(); zp_fp2_add(&r, &x, &y); return of(r); }
	friend hfp2 operator-(const hfp2 &a, const hfp2 &b) { zp_fp2 r, x = a.v(), y = b.v(); zp_fp2_sub(&r, &x, &y); return of(r); }
	friend hfp2 operator*(const hfp2 &a, const hfp2 &b) { zp_fp2 r, x = a.v(), y = b.v(); zp_fp2_mul(&r, &x, &y); return of(r); }
	hfp2 sqr() const { zp_fp2 r, x = v(); zp_fp2_sqr(&r, &x); return of(r); }
	hfp2 dbl() const { zp_fp2 r, x = v(); zp_fp2_dbl(&r, &x); return of(r); }
	hfp2 neg() const { zp_fp2 r, x = v(); zp_fp2_neg(&r, &x); return of(r); }
};

static hfp const_fp(const uint64_t *c)
{
	hfp r;
	memcpy(&r.v, c, sizeof r.v);
	return r;
}

static const uint64_t BETA[6] = ZP_SG_G1_BETA, PSI_X1[6] = ZP_SG_G2_PSI_X1, PSI_Y[12] = ZP_SG_G2_PSI_Y;
/* Small-order points: [#E/ℓ]Q for a random Q of the curve, #E = h1·r (h1 = 0x396c8c005555e1568c00aaab0000aaab),
 * ℓ = 3 and 11 (both divide h1): 64-bit limbs, little-endian. */
static const uint64_t E1_OVER_3[6] = { 0xd955555555558e39ull, 0x0a395554e5c6aaaaull, 0xcd104635a790520cull,
				       0xcc27c3d6fbd7063full, 0x190937e76bc3e447ull, 0x08ab05f8bdd54cdeull };
static const uint64_t E1_OVER_11[6] = { 0xf5745d1745d183e1ull, 0x02c9d1743eaa8ba2ull, 0xac4a41b18aca44ecull,
					0x09221e235bf4d328ull, 0xc102839c34a9c9e5ull, 0x025d302c90dd14f6ull };

static long checks, fails, n_in, n_out, control_miss;
static zp_rng rng;

static void expect(const char *what, bool want, bool got)
{
	checks++;
	want ? n_in++ : n_out++;
	if (got != want) {
		if (fails < 8)
			printf("%s: CPU %d, subgroup.cuh %d\n", what, want, got);
		fails++;
	}
}

static void g1_case(const char *what, const zp_g1_affine *a)
{
	if (zp_g1_affine_is_inf(a))
		return;
	affine_t<hfp> p;
	p.x.v = a->x, p.y.v = a->y;
	hfp beta = const_fp(BETA);
	bool want = zp_g1_affine_in_subgroup(a);
	expect(what, want, sg_in_g1(p, beta));
	affine_t<hfps> ps; /* the same with the dedicated square */
	ps.x.v = a->x, ps.y.v = a->y;
	hfps betas;
	betas.v = beta.v;
	expect(what, want, sg_in_g1(ps, betas));
	/* control: with the other cube root of unity (β²) the test must stop agreeing on subgroup points */
	if (want && sg_in_g1(p, beta * beta))
		control_miss++;
}

static void g2_case(const char *what, const zp_g2_affine *a)
{
	if (zp_g2_affine_is_inf(a))
		return;
	affine_t<hfp2> p;
	p.x = hfp2::of(a->x), p.y = hfp2::of(a->y);
	hfp2 px, py;
	px.c0 = hfp::zero(), px.c1 = const_fp(PSI_X1);
	py.c0 = const_fp(PSI_Y), py.c1 = const_fp(PSI_Y + 6);
	expect(what, zp_g2_affine_in_subgroup(a), sg_in_g2(p, px, py));
}

/* A random point of the curve (random x until the CPU decompresses one), no subgroup check. */
static void rand_curve(int g2, void *out)
{
	for (;;) {
		uint8_t c[96];
		for (int i = 0; i < 96; i++)
			c[i] = (uint8_t)zp_rng_next(&rng);
		c[0] = (uint8_t)((c[0] & 0x0f) | ZP_SER_FLAG_COMPRESSED);
		c[48] &= 0x0f;
		if (!(g2 ? zp_g2_from_compressed((zp_g2_affine *)out, c, ZP_SER_NO_SUBGROUP)
			 : zp_g1_from_compressed((zp_g1_affine *)out, c, ZP_SER_NO_SUBGROUP)))
			return;
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;
	zp_rng_seed(&rng, 2026);
	for (int i = 0; i < n; i++) {
		zp_fr k;
		zp_fr_random(&k, &rng);
		zp_g1_jac j;
		zp_g1_affine a;
		zp_g1_jac_from_affine(&j, &ZP_G1_GEN);
		zp_g1_jac_mul(&j, &j, &k);
		zp_g1_jac_to_affine(&a, &j);
		g1_case("G1 k·G", &a);
		zp_g2_jac j2;
		zp_g2_affine a2;
		zp_g2_jac_from_affine(&j2, &ZP_G2_GEN);
		zp_g2_jac_mul(&j2, &j2, &k);
		zp_g2_jac_to_affine(&a2, &j2);
		g2_case("G2 k·G", &a2);
		rand_curve(0, &a);
		g1_case("G1 random curve point", &a);
		rand_curve(1, &a2);
		g2_case("G2 random twist point", &a2);
		/* small order: [#E/3]Q, [#E/11]Q (order 3, 11 or 1), and their sums with a subgroup point */
		zp_g1_jac q, t;
		zp_g1_affine s;
		zp_g1_jac_from_affine(&q, &a);
		for (int m = 0; m < 2; m++) {
			rand_curve(0, &a);
			zp_g1_jac_from_affine(&q, &a);
			zp_g1_jac_mul_u64(&t, &q, m ? E1_OVER_11 : E1_OVER_3, 6);
			zp_g1_jac_to_affine(&s, &t);
			g1_case(m ? "G1 order 11" : "G1 order 3", &s);
			zp_g1_jac_add(&t, &t, &j);
			zp_g1_jac_to_affine(&s, &t);
			g1_case(m ? "G1 order 11 + k·G" : "G1 order 3 + k·G", &s);
		}
	}
	printf("subgroup_emul: %ld checks (G1, G2; subgroup.cuh's Jacobian chains against common/ec.c; %ld in the subgroup, %ld "
	       "not), %ld failed; control (β² for β) accepted %ld subgroup points (want 0)\n", checks, n_in, n_out, fails,
	       control_miss);
	return fails || control_miss || !n_in || !n_out ? 1 : 0;
}
