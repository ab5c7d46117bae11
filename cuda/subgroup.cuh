/*
 * subgroup.cuh — the subgroup checks of BLS12-381 points by endomorphism (cuda/params_check.cu), one template
 * over the coordinate field, as common/ec.c does them: G1 φ(P) = −[z²]P with φ(x, y) = (βx, y) (Bowe), G2
 * ψ(P) = [z]P (Scott), z = −0xd201000000010000. [|z|] is a double-and-add, MSB first (63 doublings, 5
 * additions: |z| has 6 bits set), in Jacobian coordinates (dbl-2009-l: 2M + 5S; madd-2007-bl, add-2007-bl;
 * every addition handles P = Q and P = −Q, which points outside the subgroup can hit); the result is
 * compared with the affine side projectively. P is finite and on the curve.
 * Function qualifiers come from ZP_SG_FN / ZP_SG_CALL (device code by default; tests/cuda/subgroup_emul.cu
 * runs the same formulas on the host over the CPU's fields, against common/ec.c).
 */
#ifndef ZP_SUBGROUP_CUH
#define ZP_SUBGROUP_CUH

#include "ec.cuh"   /* affine_t */

#ifndef ZP_SG_FN
#define ZP_SG_FN __device__ __forceinline__
#endif
#ifndef ZP_SG_CALL
#define ZP_SG_CALL __device__ __noinline__
#endif

/* common/ec.c's G1_BETA, G2_PSI_X (its c1; c0 is 0) and G2_PSI_Y (c0 then c1), Montgomery form, 64-bit limbs */
#define ZP_SG_G1_BETA { 0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull, 0x16a8ca3ac61577f7ull, \
			0xc26a2ff874fd029bull, 0x3636b76660701c6eull, 0x051ba4ab241b6160ull }
#define ZP_SG_G2_PSI_X1 { 0x890dc9e4867545c3ull, 0x2af322533285a5d5ull, 0x50880866309b7e2cull, \
			  0xa20d1b8c7e881024ull, 0x14e4f04fe2db9068ull, 0x14e56d3f1564853aull }
#define ZP_SG_G2_PSI_Y { 0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull, \
			 0x92ad2afd19103e18ull, 0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull, \
			 0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull, \
			 0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull }

static const uint64_t ZP_SG_Z_ABS = 0xd201000000010000ull;   /* |z|; bit 63 set */

/* [|z|]·P in Jacobian coordinates (x = X/Z², y = Y/Z³, infinity Z = 0): a doubling is 2M + 5S
 * (dbl-2009-l), ~20 % fewer products than XYZZ's 9 (measured on the H200: 23.2 against 19.6 M G1 points/s). */
template <class F> struct jpt { F X, Y, Z; };

template <class F> static ZP_SG_FN void jdbl(jpt<F> &p)
{
	F A = p.X.sqr(), B = p.Y.sqr(), C = B.sqr();
	F D = ((p.X + B).sqr() - A - C).dbl();
	F E = A.dbl() + A;
	F X3 = E.sqr() - D.dbl();
	F Z3 = (p.Y * p.Z).dbl();
	F C8 = C.dbl().dbl().dbl();
	p.Y = E * (D - X3) - C8;
	p.X = X3;
	p.Z = Z3;
}

/* An addition's operands with the same x (H = 0): P = Q (r = 0) doubles p, P = −Q gives infinity. True
 * when so (p is then the sum). */
template <class F> static ZP_SG_FN bool jadd_same_x(jpt<F> &p, const F &H, const F &r)
{
	if (!H.is_zero())
		return false;
	if (r.is_zero())
		jdbl(p);
	else
		p.Z = F::zero();
	return true;
}

/* p += (x, y) affine, finite (madd-2007-bl; P = Q doubles, P = −Q gives infinity). */
template <class F> static ZP_SG_FN void jadd_aff(jpt<F> &p, const affine_t<F> &q)
{
	if (p.Z.is_zero()) {
		p.X = q.x, p.Y = q.y, p.Z = F::one();
		return;
	}
	F Z1Z1 = p.Z.sqr();
	F U2 = q.x * Z1Z1, S2 = q.y * p.Z * Z1Z1;
	F H = U2 - p.X, r = (S2 - p.Y).dbl();
	if (jadd_same_x(p, H, r))
		return;
	F HH = H.sqr(), I = HH.dbl().dbl(), J = H * I, V = p.X * I;
	F X3 = r.sqr() - J - V.dbl();
	p.Y = r * (V - X3) - (p.Y * J).dbl();
	p.Z = (p.Z + H).sqr() - Z1Z1 - HH;
	p.X = X3;
}

/* p += q, both Jacobian (add-2007-bl). */
template <class F> static ZP_SG_FN void jadd(jpt<F> &p, const jpt<F> &q)
{
	if (q.Z.is_zero())
		return;
	if (p.Z.is_zero()) {
		p = q;
		return;
	}
	F Z1Z1 = p.Z.sqr(), Z2Z2 = q.Z.sqr();
	F U1 = p.X * Z2Z2, U2 = q.X * Z1Z1;
	F S1 = p.Y * q.Z * Z2Z2, S2 = q.Y * p.Z * Z1Z1;
	F H = U2 - U1, r = (S2 - S1).dbl();
	if (jadd_same_x(p, H, r))
		return;
	F I = H.dbl().sqr(), J = H * I, V = U1 * I;
	F X3 = r.sqr() - J - V.dbl();
	p.Y = r * (V - X3) - (S1 * J).dbl();
	p.Z = ((p.Z + q.Z).sqr() - Z1Z1 - Z2Z2) * H;
	p.X = X3;
}

template <class F> static ZP_SG_CALL jpt<F> jmul_z_aff(const affine_t<F> p)
{
	jpt<F> t;
	t.X = p.x, t.Y = p.y, t.Z = F::one();
	for (int b = 62; b >= 0; b--) {
		jdbl(t);
		if ((ZP_SG_Z_ABS >> b) & 1)
			jadd_aff(t, p);
	}
	return t;
}
template <class F> static ZP_SG_CALL jpt<F> jmul_z(const jpt<F> q)
{
	jpt<F> t = q;
	for (int b = 62; b >= 0; b--) {
		jdbl(t);
		if ((ZP_SG_Z_ABS >> b) & 1)
			jadd(t, q);
	}
	return t;
}

/* Jacobian t equals −(x, y) (finite affine): X = x·Z² and −Y = y·Z³. */
template <class F> static ZP_SG_FN bool jeq_neg(const jpt<F> &t, const F &x, const F &y)
{
	if (t.Z.is_zero())
		return false;
	F Z2 = t.Z.sqr();
	return t.X == x * Z2 && t.Y.neg() == y * Z2 * t.Z;
}

/* P (finite, on the curve) in G1: −[z²]P = (βx, y). */
template <class F> static ZP_SG_FN bool sg_in_g1(const affine_t<F> &p, const F &beta)
{
	return jeq_neg(jmul_z(jmul_z_aff(p)), p.x * beta, p.y);
}

/* P (finite, on the twist) in G2: −[|z|]P = ψ(P) = (conj(x)·ψx, conj(y)·ψy). */
template <class F2> static ZP_SG_FN bool sg_in_g2(const affine_t<F2> &p, const F2 &psi_x, const F2 &psi_y)
{
	F2 cx, cy;
	cx.c0 = p.x.c0, cx.c1 = p.x.c1.neg();
	cy.c0 = p.y.c0, cy.c1 = p.y.c1.neg();
	return jeq_neg(jmul_z_aff(p), cx * psi_x, cy * psi_y);
}

#endif
