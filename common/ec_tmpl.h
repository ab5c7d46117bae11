/*
 * ec_tmpl.h — the group operations of ec.h written once for both groups.
 * Private to ec.c, which includes it twice with:
 *   EC_G      g1 | g2            (names: zp_<EC_G>_jac_add, ...)
 *   EC_F      fp | fp2           (field: zp_<EC_F>_mul, ...)
 *   EC_FE     zp_fp | zp_fp2     (coordinate type)
 *   EC_ONE    ZP_FP_ONE | ZP_FP2_ONE
 *   EC_B      the curve constant b (4 or 4(1+u)), Montgomery form
 *   EC_SC     the scalar field of jac_mul (fr | bn254_fr: zp_<EC_SC>, zp_<EC_SC>_from_mont; 4 limbs)
 * bn254_ec.c includes it twice more for BN254's groups (EC_G bn254_g1 | bn254_g2 over bn254_fp | bn254_fp2).
 *
 * Formulas (curves y^2 = x^3 + b, a = 0), from the Explicit-Formulas Database:
 *   jacobian doubling dbl-2009-l, addition add-2007-bl, mixed madd-2007-bl;
 *   xyzz doubling dbl-2008-s-1, addition add-2008-s, mixed madd-2008-s.
 * These formulas are incomplete; the public add functions branch on the special
 * cases (infinity, P = Q, P = -Q).  add_ct() handles them with masks instead and
 * is what the constant-time scalar multiplication uses.
 */

#define EC_P2(a, b) a##b
#define EC_X2(a, b) EC_P2(a, b)
#define EC_PUB(name) EC_X2(EC_X2(zp_, EC_G), EC_X2(_, name))
#define EC_ST(name) EC_X2(EC_G, EC_X2(_, name))
#define FE(name) EC_X2(EC_X2(zp_, EC_F), EC_X2(_, name))
#define AFF EC_X2(EC_X2(zp_, EC_G), _affine)
#define JAC EC_X2(EC_X2(zp_, EC_G), _jac)
#define XYZZ EC_X2(EC_X2(zp_, EC_G), _xyzz)
#define SCT EC_X2(zp_, EC_SC)
#define SC_FROM_MONT EC_X2(EC_X2(zp_, EC_SC), _from_mont)

/* ---------------- affine ---------------- */

bool EC_PUB(affine_is_inf)(const AFF *p)
{
	return FE(is_zero)(&p->x) & FE(is_zero)(&p->y);
}

bool EC_PUB(affine_is_on_curve)(const AFF *p)
{
	if (EC_PUB(affine_is_inf)(p))
		return true;
	EC_FE l, r;
	FE(sqr)(&l, &p->y);
	FE(sqr)(&r, &p->x);
	FE(mul)(&r, &r, &p->x);
	FE(add)(&r, &r, &EC_B);
	return FE(eq)(&l, &r);
}

int EC_PUB(affine_check)(const AFF *p)
{
	if (!EC_PUB(affine_is_on_curve)(p))
		return ZP_EINVAL_POINT;
	if (!EC_PUB(affine_in_subgroup)(p))
		return ZP_ESUBGROUP;
	return 0;
}

bool EC_PUB(affine_eq)(const AFF *a, const AFF *b)
{
	return FE(eq)(&a->x, &b->x) & FE(eq)(&a->y, &b->y);
}

void EC_PUB(affine_neg)(AFF *r, const AFF *a)
{
	r->x = a->x;
	FE(neg)(&r->y, &a->y);
}

/* ---------------- jacobian ---------------- */

void EC_PUB(jac_set_inf)(JAC *r)
{
	r->x = EC_ONE;
	r->y = EC_ONE;
	r->z = (EC_FE){ 0 };
}

bool EC_PUB(jac_is_inf)(const JAC *p)
{
	return FE(is_zero)(&p->z);
}

void EC_PUB(jac_from_affine)(JAC *r, const AFF *a)
{
	if (EC_PUB(affine_is_inf)(a)) {
		EC_PUB(jac_set_inf)(r);
		return;
	}
	r->x = a->x;
	r->y = a->y;
	r->z = EC_ONE;
}

/* (X, Y) / (Z^2, Z^3) given zinv = 1/Z (nonzero). */
static inline void EC_ST(jac_scale)(AFF *r, const JAC *p, const EC_FE *zinv)
{
	EC_FE z2, z3;
	FE(sqr)(&z2, zinv);
	FE(mul)(&z3, &z2, zinv);
	FE(mul)(&r->x, &p->x, &z2);
	FE(mul)(&r->y, &p->y, &z3);
}

void EC_PUB(jac_to_affine)(AFF *r, const JAC *p)
{
	if (EC_PUB(jac_is_inf)(p)) {
		*r = (AFF){ 0 };
		return;
	}
	EC_FE zinv;
	FE(inv)(&zinv, &p->z);
	EC_ST(jac_scale)(r, p, &zinv);
}

/*
 * Montgomery's trick with r[] as the scratch: r[i].x first holds the product of
 * the nonzero Z's of p[0..i]; one inversion; then back to front, each r[i] is
 * finished using only r[i-1].x, which is still a prefix product at that time.
 */
void EC_PUB(jac_batch_to_affine)(AFF *r, const JAC *p, size_t n)
{
	if (n == 0)
		return;
	EC_FE acc = EC_ONE;
	for (size_t i = 0; i < n; i++) {
		if (!EC_PUB(jac_is_inf)(&p[i]))
			FE(mul)(&acc, &acc, &p[i].z);
		r[i].x = acc;
	}
	FE(inv)(&acc, &acc);
	for (size_t i = n; i-- > 0;) {
		if (EC_PUB(jac_is_inf)(&p[i])) {
			r[i] = (AFF){ 0 };
			continue;
		}
		EC_FE zinv;
		if (i > 0)
			FE(mul)(&zinv, &acc, &r[i - 1].x);
		else
			zinv = acc;
		FE(mul)(&acc, &acc, &p[i].z);
		EC_ST(jac_scale)(&r[i], &p[i], &zinv);
	}
}

bool EC_PUB(jac_eq)(const JAC *a, const JAC *b)
{
	bool ia = EC_PUB(jac_is_inf)(a), ib = EC_PUB(jac_is_inf)(b);
	if (ia || ib)
		return ia == ib;
	EC_FE za2, zb2, za3, zb3, l, r;
	FE(sqr)(&za2, &a->z);
	FE(sqr)(&zb2, &b->z);
	FE(mul)(&l, &a->x, &zb2);
	FE(mul)(&r, &b->x, &za2);
	if (!FE(eq)(&l, &r))
		return false;
	FE(mul)(&za3, &za2, &a->z);
	FE(mul)(&zb3, &zb2, &b->z);
	FE(mul)(&l, &a->y, &zb3);
	FE(mul)(&r, &b->y, &za3);
	return FE(eq)(&l, &r);
}

void EC_PUB(jac_neg)(JAC *r, const JAC *a)
{
	r->x = a->x;
	FE(neg)(&r->y, &a->y);
	r->z = a->z;
}

/* dbl-2009-l. Infinity (Z = 0) and 2-torsion (Y = 0) give Z3 = 0. */
void EC_PUB(jac_dbl)(JAC *r, const JAC *p)
{
	EC_FE A, B, C, D, E, F, t;
	FE(sqr)(&A, &p->x);
	FE(sqr)(&B, &p->y);
	FE(sqr)(&C, &B);
	FE(add)(&D, &p->x, &B);
	FE(sqr)(&D, &D);
	FE(sub)(&D, &D, &A);
	FE(sub)(&D, &D, &C);
	FE(dbl)(&D, &D);
	FE(dbl)(&E, &A);
	FE(add)(&E, &E, &A);
	FE(sqr)(&F, &E);
	FE(mul)(&r->z, &p->y, &p->z);   /* before r->x/y: r may alias p */
	FE(dbl)(&r->z, &r->z);
	FE(dbl)(&t, &D);
	FE(sub)(&r->x, &F, &t);
	FE(sub)(&t, &D, &r->x);
	FE(mul)(&t, &E, &t);
	FE(dbl)(&C, &C);
	FE(dbl)(&C, &C);
	FE(dbl)(&C, &C);
	FE(sub)(&r->y, &t, &C);
}

/* The common tail of add-2007-bl and madd-2007-bl: X3 = R^2 - J - 2V,
 * Y3 = R(V - X3) - 2 S J (S = S1, or Y1 for the mixed add). Reads R, J, V, S
 * before writing r, so S may not point into r. */
static inline __attribute__((always_inline)) void EC_ST(jac_add_xy)(JAC *r, const EC_FE *R,
	const EC_FE *J, const EC_FE *V, const EC_FE *S)
{
	EC_FE t, u;
	FE(sqr)(&r->x, R);
	FE(sub)(&r->x, &r->x, J);
	FE(sub)(&r->x, &r->x, V);
	FE(sub)(&r->x, &r->x, V);
	FE(sub)(&t, V, &r->x);
	FE(mul)(&t, R, &t);
	FE(mul)(&u, S, J);
	FE(dbl)(&u, &u);
	FE(sub)(&r->y, &t, &u);
}

/*
 * add-2007-bl for a, b not infinity.  Leaves H and R (= 2(S2 - S1)) so the
 * caller can tell a = b (H = R = 0) and a = -b (H = 0, R != 0; then Z3 = 0
 * already, the right answer).
 */
static inline void EC_ST(jac_add_raw)(JAC *r, const JAC *a, const JAC *b, EC_FE *H, EC_FE *R)
{
	EC_FE z1z1, z2z2, u1, u2, s1, s2, I, J, V, t;
	FE(sqr)(&z1z1, &a->z);
	FE(sqr)(&z2z2, &b->z);
	FE(mul)(&u1, &a->x, &z2z2);
	FE(mul)(&u2, &b->x, &z1z1);
	FE(mul)(&s1, &a->y, &b->z);
	FE(mul)(&s1, &s1, &z2z2);
	FE(mul)(&s2, &b->y, &a->z);
	FE(mul)(&s2, &s2, &z1z1);
	FE(sub)(H, &u2, &u1);
	FE(dbl)(&I, H);
	FE(sqr)(&I, &I);
	FE(mul)(&J, H, &I);
	FE(sub)(R, &s2, &s1);
	FE(dbl)(R, R);
	FE(mul)(&V, &u1, &I);
	FE(add)(&t, &a->z, &b->z);
	FE(sqr)(&t, &t);
	FE(sub)(&t, &t, &z1z1);
	FE(sub)(&t, &t, &z2z2);
	FE(mul)(&r->z, &t, H);
	EC_ST(jac_add_xy)(r, R, &J, &V, &s1);
}

void EC_PUB(jac_add)(JAC *r, const JAC *a, const JAC *b)
{
	if (EC_PUB(jac_is_inf)(a)) {
		*r = *b;
		return;
	}
	if (EC_PUB(jac_is_inf)(b)) {
		*r = *a;
		return;
	}
	JAC t;
	EC_FE H, R;
	EC_ST(jac_add_raw)(&t, a, b, &H, &R);
	if (FE(is_zero)(&H) && FE(is_zero)(&R)) {
		EC_PUB(jac_dbl)(r, a);
		return;
	}
	*r = t;
}

/* madd-2007-bl: b affine, not infinity, a not infinity. */
static inline void EC_ST(jac_madd_raw)(JAC *r, const JAC *a, const AFF *b, EC_FE *H, EC_FE *R)
{
	EC_FE z1z1, u2, s2, HH, I, J, V, t;
	FE(sqr)(&z1z1, &a->z);
	FE(mul)(&u2, &b->x, &z1z1);
	FE(mul)(&s2, &b->y, &a->z);
	FE(mul)(&s2, &s2, &z1z1);
	FE(sub)(H, &u2, &a->x);
	FE(sqr)(&HH, H);
	FE(dbl)(&I, &HH);
	FE(dbl)(&I, &I);
	FE(mul)(&J, H, &I);
	FE(sub)(R, &s2, &a->y);
	FE(dbl)(R, R);
	FE(mul)(&V, &a->x, &I);
	FE(add)(&t, &a->z, H);
	FE(sqr)(&t, &t);
	FE(sub)(&t, &t, &z1z1);
	FE(sub)(&r->z, &t, &HH);
	EC_FE y1 = a->y;  /* jac_add_xy reads S after writing r->x */
	EC_ST(jac_add_xy)(r, R, &J, &V, &y1);
}

void EC_PUB(jac_add_affine)(JAC *r, const JAC *a, const AFF *b)
{
	if (EC_PUB(affine_is_inf)(b)) {
		*r = *a;
		return;
	}
	if (EC_PUB(jac_is_inf)(a)) {
		EC_PUB(jac_from_affine)(r, b);
		return;
	}
	JAC t;
	EC_FE H, R;
	EC_ST(jac_madd_raw)(&t, a, b, &H, &R);
	if (FE(is_zero)(&H) && FE(is_zero)(&R)) {
		EC_PUB(jac_dbl)(r, a);
		return;
	}
	*r = t;
}

/* r = c ? a : r without a branch: every 64-bit word of the point masked (a point is words only) */
static inline void EC_ST(jac_cmov)(JAC *r, const JAC *a, bool c)
{
	_Static_assert(sizeof(JAC) % sizeof(uint64_t) == 0, "a point is 64-bit words");
	uint64_t mask = (uint64_t)0 - (uint64_t)c, *rw = (uint64_t *)(void *)r;
	const uint64_t *aw = (const uint64_t *)(const void *)a;
	for (size_t i = 0; i < sizeof *r / sizeof *rw; i++)
		rw[i] = (rw[i] & ~mask) | (aw[i] & mask);
}

/* Complete addition without branches on the points (for secret-dependent sums). */
static void EC_ST(jac_add_ct)(JAC *r, const JAC *a, const JAC *b)
{
	JAC t, d;
	EC_FE H, R;
	bool ainf = EC_PUB(jac_is_inf)(a), binf = EC_PUB(jac_is_inf)(b);
	EC_ST(jac_add_raw)(&t, a, b, &H, &R);
	EC_PUB(jac_dbl)(&d, a);
	bool same = FE(is_zero)(&H) & FE(is_zero)(&R) & !ainf & !binf;
	EC_ST(jac_cmov)(&t, &d, same);
	EC_ST(jac_cmov)(&t, b, ainf);
	EC_ST(jac_cmov)(&t, a, binf);
	*r = t;
}

/*
 * Fixed 4-bit windows over all 256 bits of k (normal form), table of 0..15·P
 * read by a full masked scan, one doubling chain and one complete addition per
 * window: the sequence of field operations does not depend on k.
 */
void EC_PUB(jac_mul)(JAC *r, const JAC *a, const SCT *k)
{
	JAC tbl[16], acc, sel;
	uint64_t e[4];
	_Static_assert(sizeof(SCT) == sizeof(e), "jac_mul walks 4-limb scalars");
	SC_FROM_MONT(e, k);
	EC_PUB(jac_set_inf)(&tbl[0]);
	tbl[1] = *a;
	for (int i = 2; i < 16; i++)
		EC_ST(jac_add_ct)(&tbl[i], &tbl[i - 1], a);
	EC_PUB(jac_set_inf)(&acc);
	for (int w = 63; w >= 0; w--) {
		for (int j = 0; j < 4; j++)
			EC_PUB(jac_dbl)(&acc, &acc);
		uint64_t nib = (e[w / 16] >> (4 * (w % 16))) & 15;
		sel = tbl[0];
		for (uint64_t j = 1; j < 16; j++)
			EC_ST(jac_cmov)(&sel, &tbl[j], (bool)(((nib ^ j) - 1) >> 63));
		EC_ST(jac_add_ct)(&acc, &acc, &sel);
	}
	*r = acc;
	for (int i = 0; i < 4; i++)
		((volatile uint64_t *)e)[i] = 0;
}

/* Plain double-and-add from the top bit; variable time (public scalars only). */
void EC_PUB(jac_mul_u64)(JAC *r, const JAC *a, const uint64_t *k, size_t klimbs)
{
	JAC acc, base = *a;
	EC_PUB(jac_set_inf)(&acc);
	for (size_t i = klimbs; i-- > 0;)
		for (int b = 63; b >= 0; b--) {
			EC_PUB(jac_dbl)(&acc, &acc);
			if ((k[i] >> b) & 1)
				EC_PUB(jac_add)(&acc, &acc, &base);
		}
	*r = acc;
}

/* ---------------- xyzz ---------------- */

void EC_PUB(xyzz_set_inf)(XYZZ *r)
{
	r->x = EC_ONE;
	r->y = EC_ONE;
	r->zz = (EC_FE){ 0 };
	r->zzz = (EC_FE){ 0 };
}

static inline bool EC_ST(xyzz_is_inf)(const XYZZ *p)
{
	return FE(is_zero)(&p->zz);
}

void EC_PUB(xyzz_from_affine)(XYZZ *r, const AFF *a)
{
	if (EC_PUB(affine_is_inf)(a)) {
		EC_PUB(xyzz_set_inf)(r);
		return;
	}
	r->x = a->x;
	r->y = a->y;
	r->zz = EC_ONE;
	r->zzz = EC_ONE;
}

/* With ZZ^3 = ZZZ^2, Z = ZZZ/ZZ; scaling by ZZ^2 gives Z' = ZZZ, X' = X·ZZ^2, Y' = Y·ZZZ^2. */
void EC_PUB(xyzz_to_jac)(JAC *r, const XYZZ *p)
{
	if (EC_ST(xyzz_is_inf)(p)) {
		EC_PUB(jac_set_inf)(r);
		return;
	}
	EC_FE t;
	FE(sqr)(&t, &p->zz);
	FE(mul)(&r->x, &p->x, &t);
	FE(sqr)(&t, &p->zzz);
	FE(mul)(&r->y, &p->y, &t);
	r->z = p->zzz;
}

/* dbl-2008-s-1; infinity and 2-torsion come out with ZZ = 0. */
void EC_PUB(xyzz_dbl)(XYZZ *r, const XYZZ *p)
{
	EC_FE U, V, W, S, M, t;
	FE(dbl)(&U, &p->y);
	FE(sqr)(&V, &U);
	FE(mul)(&W, &U, &V);
	FE(mul)(&S, &p->x, &V);
	FE(sqr)(&M, &p->x);
	FE(dbl)(&t, &M);
	FE(add)(&M, &M, &t);
	FE(mul)(&r->zz, &V, &p->zz);
	FE(mul)(&r->zzz, &W, &p->zzz);
	FE(mul)(&W, &W, &p->y);
	FE(sqr)(&r->x, &M);
	FE(dbl)(&t, &S);
	FE(sub)(&r->x, &r->x, &t);
	FE(sub)(&t, &S, &r->x);
	FE(mul)(&t, &M, &t);
	FE(sub)(&r->y, &t, &W);
}

/* Shared tail of add-2008-s / madd-2008-s: given U1, S1, P = U2 - U1, R = S2 - S1. */
static inline void EC_ST(xyzz_finish)(XYZZ *r, const EC_FE *u1, const EC_FE *s1, const EC_FE *P,
				      const EC_FE *R, EC_FE *pp, EC_FE *ppp)
{
	EC_FE Q, t, y;
	FE(sqr)(pp, P);
	FE(mul)(ppp, P, pp);
	FE(mul)(&Q, u1, pp);
	FE(mul)(&y, s1, ppp);
	FE(sqr)(&r->x, R);
	FE(sub)(&r->x, &r->x, ppp);
	FE(dbl)(&t, &Q);
	FE(sub)(&r->x, &r->x, &t);
	FE(sub)(&t, &Q, &r->x);
	FE(mul)(&t, R, &t);
	FE(sub)(&r->y, &t, &y);
}

void EC_PUB(xyzz_add)(XYZZ *r, const XYZZ *a, const XYZZ *b)
{
	if (EC_ST(xyzz_is_inf)(a)) {
		*r = *b;
		return;
	}
	if (EC_ST(xyzz_is_inf)(b)) {
		*r = *a;
		return;
	}
	EC_FE u1, u2, s1, s2, P, R, pp, ppp;
	FE(mul)(&u1, &a->x, &b->zz);
	FE(mul)(&u2, &b->x, &a->zz);
	FE(mul)(&s1, &a->y, &b->zzz);
	FE(mul)(&s2, &b->y, &a->zzz);
	FE(sub)(&P, &u2, &u1);
	FE(sub)(&R, &s2, &s1);
	if (FE(is_zero)(&P)) {
		if (FE(is_zero)(&R))
			EC_PUB(xyzz_dbl)(r, a);
		else
			EC_PUB(xyzz_set_inf)(r);
		return;
	}
	EC_FE zz, zzz;
	FE(mul)(&zz, &a->zz, &b->zz);
	FE(mul)(&zzz, &a->zzz, &b->zzz);
	EC_ST(xyzz_finish)(r, &u1, &s1, &P, &R, &pp, &ppp);
	FE(mul)(&r->zz, &zz, &pp);
	FE(mul)(&r->zzz, &zzz, &ppp);
}

void EC_PUB(xyzz_add_affine)(XYZZ *r, const XYZZ *a, const AFF *b)
{
	if (EC_PUB(affine_is_inf)(b)) {
		*r = *a;
		return;
	}
	if (EC_ST(xyzz_is_inf)(a)) {
		EC_PUB(xyzz_from_affine)(r, b);
		return;
	}
	EC_FE u2, s2, P, R, pp, ppp;
	FE(mul)(&u2, &b->x, &a->zz);
	FE(mul)(&s2, &b->y, &a->zzz);
	FE(sub)(&P, &u2, &a->x);
	FE(sub)(&R, &s2, &a->y);
	if (FE(is_zero)(&P)) {
		if (FE(is_zero)(&R))
			EC_PUB(xyzz_dbl)(r, a);
		else
			EC_PUB(xyzz_set_inf)(r);
		return;
	}
	EC_FE u1 = a->x, s1 = a->y, zz = a->zz, zzz = a->zzz;
	EC_ST(xyzz_finish)(r, &u1, &s1, &P, &R, &pp, &ppp);
	FE(mul)(&r->zz, &zz, &pp);
	FE(mul)(&r->zzz, &zzz, &ppp);
}

#undef EC_P2
#undef EC_X2
#undef EC_PUB
#undef EC_ST
#undef FE
#undef AFF
#undef JAC
#undef XYZZ
#undef SCT
#undef SC_FROM_MONT
/* the parameters too: the next instantiation defines its own */
#undef EC_G
#undef EC_F
#undef EC_FE
#undef EC_ONE
#undef EC_B
#undef EC_SC
