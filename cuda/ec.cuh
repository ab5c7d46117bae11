/*
 * ec.cuh — G1 / G2 point arithmetic for device code, one template over the coordinate field; the
 * curves (bls12_381, bn254: both y^2 = x^3 + b, a = 0, which is all these formulas use) as type sets.
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

/* Function qualifiers of the point formulas: device code here; tests/cuda/ec_emul.cu redefines them
 * to run the very same formulas on the host over common/fp2.h's Fp2. */
#ifndef ZP_EC_FN
#define ZP_EC_FN ZP_DI
#endif
#ifndef ZP_EC_CALL
#define ZP_EC_CALL __device__ __noinline__
#endif

template <class F> struct affine_t { F x, y; ZP_EC_FN bool is_inf() const { return x.is_zero() && y.is_zero(); } };
template <class F> struct jac_t { F x, y, z; };

/*
 * ZP_G2_LOWREG (default 0 = the formulas as validated): for G2 (fp2_t) only. 1: the XYZZ addition
 * and doubling are __noinline__ calls (one copy per kernel instead of one inlined copy per call
 * site: window_seg_kernel inlined add() three times and mul_small's dbl/add loop, and ptxas spilled
 * ~6 KB a thread), and add() uses an order that retires each input at its last use (add_lowreg:
 * same products, same result, fewer Fp2 values live at once). 2: the mixed addition (the hot
 * bucket-sum kernel, which does not spill inlined) is a call too. G1 is unchanged.
 */
#ifndef ZP_G2_LOWREG
#define ZP_G2_LOWREG 0
#endif
template <class F> struct ec_lowreg { static const bool on = false, madd = false; };
template <class Fp> struct fp2_tt;
template <class Fp> struct ec_lowreg<fp2_tt<Fp> > { static const bool on = ZP_G2_LOWREG >= 1, madd = ZP_G2_LOWREG >= 2; };

template <class F> struct xyzz_t {
	F X, Y, ZZ, ZZZ;

	ZP_EC_FN static xyzz_t inf() { xyzz_t r; r.X = F::one(); r.Y = F::one(); r.ZZ = F::zero(); r.ZZZ = F::zero(); return r; }
	ZP_EC_FN bool is_inf() const { return ZZ.is_zero(); }
	ZP_EC_FN static xyzz_t from_affine(const affine_t<F> &a) {
		if (a.is_inf()) return inf();
		xyzz_t r; r.X = a.x; r.Y = a.y; r.ZZ = F::one(); r.ZZZ = F::one(); return r;
	}
	ZP_EC_FN void neg() { Y = Y.neg(); }

	/* dbl-2008-s-1 */
	ZP_EC_FN void dbl() {
		if (ec_lowreg<F>::on) dbl_call(*this); else dbl_inl();
	}
	static ZP_EC_CALL void dbl_call(xyzz_t &a) { a.dbl_lowreg(); }
	/* dbl-2008-s-1, inputs retired at their last use (ZP_G2_LOWREG): X2 = X^2 first, then
	 * U = 2Y, V = U^2, W = U·V, ZZ3 = V·ZZ, ZZZ3 = W·ZZZ, S = X·V, M = 3·X2, X3 = M^2 - 2S,
	 * Y3 = M·(S - X3) - W·Y. */
	ZP_EC_FN void dbl_lowreg() {
		if (is_inf()) return;
		F X2 = X.sqr();
		F U = Y.dbl();
		F V = U.sqr();
		F W = U * V;
		ZZ = V * ZZ;
		ZZZ = W * ZZZ;
		F S = X * V;
		F M = X2.dbl() + X2;
		X = M.sqr() - S.dbl();
		Y = M * (S - X) - W * Y;
	}
	ZP_EC_FN void dbl_inl() {
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
	ZP_EC_FN void set_dbl_affine(const affine_t<F> &a) {
		F U = a.y.dbl(), V = U.sqr(), W = U * V, S = a.x * V;
		F X2 = a.x.sqr(), M = X2.dbl() + X2;
		X = M.sqr() - S.dbl();
		Y = M * (S - X) - W * a.y;
		ZZ = V;
		ZZZ = W;
	}
	/* madd-2008-s: this += a */
	ZP_EC_FN void add_affine(const affine_t<F> &a) {
		if (ec_lowreg<F>::madd) add_affine_call(*this, a); else add_affine_inl(a);
	}
	static ZP_EC_CALL void add_affine_call(xyzz_t &p, const affine_t<F> a) { p.add_affine_inl(a); }
	ZP_EC_FN void add_affine_inl(const affine_t<F> &a) {
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
	ZP_EC_FN void add(const xyzz_t &b) {
		if (ec_lowreg<F>::on) add_call(*this, b); else add_inl(b);
	}
	static ZP_EC_CALL void add_call(xyzz_t &a, const xyzz_t b) { a.add_lowreg(b); }
	/* add-2008-s with the same products in an order that retires each input at its last use
	 * (ZP_G2_LOWREG): U1 = X1·ZZ2, P = X2·ZZ1 - U1, ZZ' = ZZ1·ZZ2, S1 = Y1·ZZZ2, R = Y2·ZZZ1 - S1,
	 * ZZZ' = ZZZ1·ZZZ2; then PP = P^2, PPP = P·PP, ZZ3 = ZZ'·PP, ZZZ3 = ZZZ'·PPP, Q = U1·PP,
	 * X3 = R^2 - PPP - 2Q, Y3 = R·(Q - X3) - S1·PPP: at most ~7 Fp2 values live instead of ~12.
	 * P = 0 overwrites all of *this (2·b, or infinity), so ZZ and ZZZ may change before the test. */
	ZP_EC_FN void add_lowreg(const xyzz_t &b) {
		if (b.is_inf()) return;
		if (is_inf()) { *this = b; return; }
		F U1 = X * b.ZZ;
		F P = b.X * ZZ - U1;
		ZZ = ZZ * b.ZZ;
		F S1 = Y * b.ZZZ;
		F R = b.Y * ZZZ - S1;
		ZZZ = ZZZ * b.ZZZ;
		if (P.is_zero()) {
			if (R.is_zero()) { *this = b; dbl(); }   /* this == b */
			else *this = inf();
			return;
		}
		F PP = P.sqr();
		F PPP = P * PP;
		ZZ = ZZ * PP;
		ZZZ = ZZZ * PPP;
		F Q = U1 * PP;
		X = R.sqr() - PPP - Q.dbl();
		Y = R * (Q - X) - S1 * PPP;
	}
	ZP_EC_FN void add_inl(const xyzz_t &b) {
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
	ZP_EC_FN jac_t<F> to_jac() const {
		jac_t<F> j;
		if (is_inf()) { j.x = F::one(); j.y = F::one(); j.z = F::zero(); return j; }
		F Z3 = ZZZ.sqr(), ZZ2 = ZZ.sqr();
		j.z = ZZ * ZZZ;
		j.x = X * ZZ * Z3;
		j.y = Y * ZZ2 * ZZ * Z3;
		return j;
	}
	/* this = k·this for a small public k (k >= 0). */
	ZP_EC_FN void mul_small(uint32_t k) {
		xyzz_t acc = inf(), b = *this;
		while (k) { if (k & 1) acc.add(b); b.dbl(); k >>= 1; }
		*this = acc;
	}
};

typedef affine_t<fp_t> g1_aff;
typedef xyzz_t<fp_t> g1_xyzz;
typedef affine_t<fp2_t> g2_aff;
typedef xyzz_t<fp2_t> g2_xyzz;

/* A curve for the kernels: its fields. The MSM, NTT and split-bases code is templated on these (and
 * on G1 = fp, G2 = fp2 as the point field), instantiated once per curve behind cuda/zp_cuda.h. */
struct bls12_381 { typedef fp_t fp; typedef fp2_t fp2; typedef fr_t fr; };
struct bn254 { typedef bn_fp_t fp; typedef bn_fp2_t fp2; typedef bn_fr_t fr; };

#endif
