/*
 * ec.cuh — G1 / G2 point arithmetic for device code, one template over the coordinate field.
 *
 * affine: (x, y), Montgomery form, the CPU's and .zkey's layout; the point at infinity is all zero
 *         bytes ((0,0) is on neither curve).
 * xyzz:   (X, Y, ZZ, ZZZ) with x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; infinity is ZZ = 0.
 *         Formulas from the Explicit-Formulas Database (add-2008-s, madd-2008-s, dbl-2008-s-1,
 *         mdbl-2008-s-1), a = 0. Every addition handles P = Q (doubles) and P = -Q (infinity),
 *         which bucket sums hit whenever a base repeats.
 * jac:    (X, Y, Z), x = X/Z^2, y = Y/Z^3, infinity Z = 0: what the host receives.
 * The data-dependent branches are fine: MSM bases and scalars here are not secret (STYLE.md).
 */
#ifndef ZP_EC_CUH
#define ZP_EC_CUH

#include "ff.cuh"

template <class F> struct affine_t { F x, y; ZP_DI bool is_inf() const { return x.is_zero() && y.is_zero(); } };
template <class F> struct jac_t { F x, y, z; };

template <class F> struct xyzz_t {
	F X, Y, ZZ, ZZZ;

	ZP_DI static xyzz_t inf() { xyzz_t r; r.X = F::one(); r.Y = F::one(); r.ZZ = F::zero(); r.ZZZ = F::zero(); return r; }
	ZP_DI bool is_inf() const { return ZZ.is_zero(); }
	ZP_DI static xyzz_t from_affine(const affine_t<F> &a) {
		if (a.is_inf()) return inf();
		xyzz_t r; r.X = a.x; r.Y = a.y; r.ZZ = F::one(); r.ZZZ = F::one(); return r;
	}
	ZP_DI void neg() { Y = Y.neg(); }

	/* dbl-2008-s-1 */
	ZP_DI void dbl() {
		if (is_inf()) return;
		F U = Y.dbl(), V = U.sqr(), W = U * V, S = X * V;
		F X2 = X.sqr(), M = X2.dbl() + X2;
		F X3 = M.sqr() - S.dbl();
		Y = M * (S - X3) - W * Y;
		X = X3;
		ZZ = V * ZZ;
		ZZZ = W * ZZZ;
	}
	/* mdbl-2008-s-1: this = 2·a */
	ZP_DI void set_dbl_affine(const affine_t<F> &a) {
		F U = a.y.dbl(), V = U.sqr(), W = U * V, S = a.x * V;
		F X2 = a.x.sqr(), M = X2.dbl() + X2;
		X = M.sqr() - S.dbl();
		Y = M * (S - X) - W * a.y;
		ZZ = V;
		ZZZ = W;
	}
	/* madd-2008-s: this += a */
	ZP_DI void add_affine(const affine_t<F> &a) {
		if (a.is_inf()) return;
		if (is_inf()) { *this = from_affine(a); return; }
		F U2 = a.x * ZZ, S2 = a.y * ZZZ;
		F P = U2 - X, R = S2 - Y;
		if (P.is_zero()) {
			if (R.is_zero()) set_dbl_affine(a);
			else *this = inf();
			return;
		}
		F PP = P.sqr(), PPP = P * PP, Q = X * PP;
		F X3 = R.sqr() - PPP - Q.dbl();
		Y = R * (Q - X3) - Y * PPP;
		X = X3;
		ZZ = ZZ * PP;
		ZZZ = ZZZ * PPP;
	}
	/* add-2008-s: this += b */
	ZP_DI void add(const xyzz_t &b) {
		if (b.is_inf()) return;
		if (is_inf()) { *this = b; return; }
		F U1 = X * b.ZZ, U2 = b.X * ZZ, S1 = Y * b.ZZZ, S2 = b.Y * ZZZ;
		F P = U2 - U1, R = S2 - S1;
		if (P.is_zero()) {
			if (R.is_zero()) dbl();
			else *this = inf();
			return;
		}
		F PP = P.sqr(), PPP = P * PP, Q = U1 * PP;
		F X3 = R.sqr() - PPP - Q.dbl();
		Y = R * (Q - X3) - S1 * PPP;
		X = X3;
		ZZ = ZZ * b.ZZ * PP;
		ZZZ = ZZZ * b.ZZZ * PPP;
	}
	/* Jacobian with Z = ZZ·ZZZ: X·ZZ·ZZZ^2, Y·ZZ^3·ZZZ^2 (no inversion). */
	ZP_DI jac_t<F> to_jac() const {
		jac_t<F> j;
		if (is_inf()) { j.x = F::one(); j.y = F::one(); j.z = F::zero(); return j; }
		F Z3 = ZZZ.sqr(), ZZ2 = ZZ.sqr();
		j.z = ZZ * ZZZ;
		j.x = X * ZZ * Z3;
		j.y = Y * ZZ2 * ZZ * Z3;
		return j;
	}
	/* this = k·this for a small public k (k >= 0). */
	ZP_DI void mul_small(uint32_t k) {
		xyzz_t acc = inf(), b = *this;
		while (k) { if (k & 1) acc.add(b); b.dbl(); k >>= 1; }
		*this = acc;
	}
};

typedef affine_t<fp_t> g1_aff;
typedef xyzz_t<fp_t> g1_xyzz;
typedef affine_t<fp2_t> g2_aff;
typedef xyzz_t<fp2_t> g2_xyzz;

#endif
