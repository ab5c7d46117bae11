/*
 * msm_ifma_tmpl.h — internal to the MSMs (ifma_ext_tmpl.h): XYZZ point formulas on eight lanes (AVX-512 IFMA), for the
 * vector running sums of the batch-affine MSM; included once per coordinate field.
 *
 * The includer defines:
 *   V(x)   names of this instance (v1_x for Fp, v2_x for Fp2)
 *   VE     the lane element type (eight elements in IFMA's R' = 2^416 Montgomery form)
 *   ve_mul(r, a, b)      r = a·b, each component < 2q (r may alias)
 *   ve_sub(r, a, b, m)   r = a − b + m·q per component (b < m·q), normalized, not reduced
 *   ve_canon(r)          r (< 8q per component) reduced to [0, q)
 *   ve_canon4(r), ve_canon2(r)   the same for r < 4q, r < 2q (a product)
 *   ve_add(r, a, b)      r = a + b, normalized, not reduced
 *   ve_zero(a)           mask of the lanes where a (reduced) is 0
 *   ve_sel(r, m, a)      r = a in the lanes of m
 *   ve_one               1 in R' form
 *   ve_shl(r, a)         r = a·2^32 per component, no reduction (a reduced: standard form -> R')
 *   ve_lift(r, a)        the same reduced to [0, q) (a product)
 * (all undefined again at the end of this file)
 * Every stored coordinate is reduced to [0, q); infinity is ZZ = 0 (X, Y anything).
 * Formulas: add-2008-s, madd-2008-s, dbl-2008-s-1 (a = 0), exceptional cases as lane masks.
 */

typedef struct { VE X, Y, ZZ, ZZZ; } V(pt);

static IFMA_FN void V(inf)(V(pt) *r)
{
	r->X = r->Y = ve_one;
	memset(&r->ZZ, 0, sizeof r->ZZ);
	memset(&r->ZZZ, 0, sizeof r->ZZZ);
}

static IFMA_FN void V(sel)(V(pt) *r, __mmask8 m, const V(pt) *a)
{
	ve_sel(&r->X, m, &a->X);
	ve_sel(&r->Y, m, &a->Y);
	ve_sel(&r->ZZ, m, &a->ZZ);
	ve_sel(&r->ZZZ, m, &a->ZZZ);
}

/* X3 = R² − PPP − 2Q, Y3 = R·(Q − X3) − T·PPP: the tail shared by the additions */
static IFMA_FN void V(tail)(V(pt) *r, const VE *R, const VE *PPP, const VE *Q, const VE *T)
{
	VE a, b;
	ve_mul(&a, R, R);
	ve_sub(&a, &a, PPP, 2);
	ve_add(&b, Q, Q);
	ve_sub(&r->X, &a, &b, 4);
	ve_canon(&r->X);
	ve_sub(&b, Q, &r->X, 1);
	ve_mul(&a, R, &b);
	ve_mul(&b, T, PPP);
	ve_sub(&r->Y, &a, &b, 2);
	ve_canon4(&r->Y);
}

/* r = 2p; p at infinity stays there (ZZ = 0) */
static IFMA_FN void V(dbl)(V(pt) *r, const V(pt) *p)
{
	VE U, Vv, W, S, M, t, X3;
	ve_add(&U, &p->Y, &p->Y);
	ve_mul(&Vv, &U, &U);
	ve_mul(&W, &U, &Vv);
	ve_mul(&S, &p->X, &Vv);
	ve_mul(&t, &p->X, &p->X);
	ve_add(&M, &t, &t);
	ve_add(&M, &M, &t);
	ve_mul(&t, &M, &M);
	ve_sub(&t, &t, &S, 2);
	ve_sub(&X3, &t, &S, 2);
	ve_canon(&X3);
	ve_sub(&t, &S, &X3, 1);
	ve_mul(&U, &M, &t);
	ve_mul(&t, &W, &p->Y);
	ve_sub(&r->Y, &U, &t, 2);
	ve_canon4(&r->Y);
	r->X = X3;
	ve_mul(&r->ZZ, &Vv, &p->ZZ);
	ve_canon2(&r->ZZ);
	ve_mul(&r->ZZZ, &W, &p->ZZZ);
	ve_canon2(&r->ZZZ);
}

/* r = a + b, every case; r may be a */
static IFMA_FN void V(add)(V(pt) *r, const V(pt) *a, const V(pt) *b)
{
	VE U1, U2, S1, S2, P, R, PP, PPP, Q, t;
	V(pt) o;
	ve_mul(&U1, &a->X, &b->ZZ);
	ve_mul(&U2, &b->X, &a->ZZ);
	ve_mul(&S1, &a->Y, &b->ZZZ);
	ve_mul(&S2, &b->Y, &a->ZZZ);
	ve_sub(&P, &U2, &U1, 2);
	ve_canon4(&P);
	ve_sub(&R, &S2, &S1, 2);
	ve_canon4(&R);
	__mmask8 ainf = ve_zero(&a->ZZ), binf = ve_zero(&b->ZZ), pz = ve_zero(&P), rz = ve_zero(&R);
	ve_mul(&PP, &P, &P);
	ve_mul(&PPP, &P, &PP);
	ve_mul(&Q, &U1, &PP);
	V(tail)(&o, &R, &PPP, &Q, &S1);
	ve_mul(&t, &a->ZZ, &b->ZZ);
	ve_mul(&o.ZZ, &t, &PP);        /* a = −b: P = 0, so ZZ = 0, infinity */
	ve_canon2(&o.ZZ);
	ve_mul(&t, &a->ZZZ, &b->ZZZ);
	ve_mul(&o.ZZZ, &t, &PPP);
	ve_canon2(&o.ZZZ);
	__mmask8 dbl = pz & rz & (__mmask8)~ainf & (__mmask8)~binf;
	if (dbl) {
		V(pt) d;
		V(dbl)(&d, b);
		V(sel)(&o, dbl, &d);
	}
	V(sel)(&o, ainf, b);
	V(sel)(&o, binf & (__mmask8)~ainf, a);
	*r = o;
}

/* r = a + (x, y) in the lanes of m, every case; x, y in zkpipe's standard Montgomery form (R = 2^384,
 * reduced): the products take them times 2^32 (ve_shl: R' form, not reduced), and only lanes that
 * take the point itself (a at infinity, or a doubling) need it reduced in R' form (ve_lift). */
static IFMA_FN void V(madd)(V(pt) *r, const V(pt) *a, const VE *xs, const VE *ys, __mmask8 m)
{
	VE x, y, U2, S2, P, R, PP, PPP, Q;
	V(pt) o;
	ve_shl(&x, xs);
	ve_shl(&y, ys);
	ve_mul(&U2, &x, &a->ZZ);
	ve_mul(&S2, &y, &a->ZZZ);
	ve_sub(&P, &U2, &a->X, 2);
	ve_canon4(&P);
	ve_sub(&R, &S2, &a->Y, 2);
	ve_canon4(&R);
	__mmask8 ainf = ve_zero(&a->ZZ), pz = ve_zero(&P), rz = ve_zero(&R);
	ve_mul(&PP, &P, &P);
	ve_mul(&PPP, &P, &PP);
	ve_mul(&Q, &a->X, &PP);
	V(tail)(&o, &R, &PPP, &Q, &a->Y);
	ve_mul(&o.ZZ, &a->ZZ, &PP);
	ve_canon2(&o.ZZ);
	ve_mul(&o.ZZZ, &a->ZZZ, &PPP);
	ve_canon2(&o.ZZZ);
	__mmask8 dbl = pz & rz & (__mmask8)~ainf & m;
	if ((ainf | dbl) & m) {
		V(pt) lift = { x, y, ve_one, ve_one };
		ve_lift(&lift.X, xs);
		ve_lift(&lift.Y, ys);
		if (dbl) {
			V(pt) d;
			V(dbl)(&d, &lift);
			V(sel)(&o, dbl, &d);
		}
		V(sel)(&o, ainf, &lift);
	}
	V(sel)(r, m, &o);
}

/* the parameters are this instance's: the next include defines its own */
#undef V
#undef VE
#undef ve_mul
#undef ve_sub
#undef ve_canon
#undef ve_canon4
#undef ve_canon2
#undef ve_add
#undef ve_zero
#undef ve_sel
#undef ve_one
#undef ve_shl
#undef ve_lift
