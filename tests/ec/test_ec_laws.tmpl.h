/*
 * The group laws for one group; included by test_ec_laws.c once per group with
 *   T_G g1|g2, T_RANDOM / T_ON_CURVE the point makers of ec_test.h.
 */
#define P2(a, b) a##b
#define X2(a, b) P2(a, b)
#define GF(name) X2(X2(zp_, T_G), X2(_, name))
#define AFF X2(X2(zp_, T_G), _affine)
#define JAC X2(X2(zp_, T_G), _jac)
#define XYZZ X2(X2(zp_, T_G), _xyzz)

static void X2(laws_, T_G)(zp_rng *g, int rounds)
{
	for (int it = 0; it < rounds; it++) {
		AFF pa, qa, sa, ta, inf = { 0 };
		JAC p, q, s, t, u, v, w, jinf;
		T_RANDOM(&pa, g);
		T_RANDOM(&qa, g);
		T_RANDOM(&sa, g);
		GF(jac_from_affine)(&p, &pa);
		GF(jac_from_affine)(&q, &qa);
		GF(jac_from_affine)(&s, &sa);
		GF(jac_set_inf)(&jinf);
		/* Move p off Z = 1 so the formulas see general Z. */
		GF(jac_add)(&p, &p, &q);
		GF(jac_add)(&p, &p, &s);
		GF(jac_to_affine)(&pa, &p);
		CHECK(GF(affine_is_on_curve)(&pa));
		CHECK(GF(affine_in_subgroup)(&pa));

		/* commutativity, associativity */
		GF(jac_add)(&t, &p, &q);
		GF(jac_add)(&u, &q, &p);
		CHECK(GF(jac_eq)(&t, &u));
		GF(jac_add)(&t, &t, &s);
		GF(jac_add)(&u, &q, &s);
		GF(jac_add)(&u, &p, &u);
		CHECK(GF(jac_eq)(&t, &u));
		CHECK(!GF(jac_eq)(&t, &p));

		/* identity and inverse */
		GF(jac_add)(&t, &p, &jinf);
		CHECK(GF(jac_eq)(&t, &p));
		GF(jac_add)(&t, &jinf, &p);
		CHECK(GF(jac_eq)(&t, &p));
		GF(jac_neg)(&u, &p);
		GF(jac_add)(&t, &p, &u);
		CHECK(GF(jac_is_inf)(&t));
		GF(jac_add_affine)(&t, &jinf, &inf);
		CHECK(GF(jac_is_inf)(&t));
		GF(jac_add)(&t, &jinf, &jinf);
		CHECK(GF(jac_is_inf)(&t));
		GF(jac_dbl)(&t, &jinf);
		CHECK(GF(jac_is_inf)(&t));
		AFF na;
		GF(affine_neg)(&na, &pa);
		GF(jac_add_affine)(&t, &p, &na);
		CHECK(GF(jac_is_inf)(&t));
		GF(jac_to_affine)(&ta, &jinf);
		CHECK(GF(affine_is_inf)(&ta));

		/* doubling = adding to itself (full, mixed, with another Z) */
		GF(jac_dbl)(&t, &p);
		GF(jac_add)(&u, &p, &p);
		CHECK(GF(jac_eq)(&t, &u));
		GF(jac_add_affine)(&u, &p, &pa);
		CHECK(GF(jac_eq)(&t, &u));
		GF(jac_from_affine)(&v, &pa);
		GF(jac_add)(&u, &p, &v);
		CHECK(GF(jac_eq)(&t, &u));

		/* mixed = full */
		GF(jac_add)(&t, &p, &q);
		GF(jac_add_affine)(&u, &p, &qa);
		CHECK(GF(jac_eq)(&t, &u));
		GF(jac_add_affine)(&u, &jinf, &qa);
		CHECK(GF(jac_eq)(&u, &q));
		GF(jac_add_affine)(&u, &p, &inf);
		CHECK(GF(jac_eq)(&u, &p));

		/* xyzz agrees with jacobian */
		XYZZ xp, xq, xs, xinf;
		GF(xyzz_from_affine)(&xp, &pa);
		GF(xyzz_from_affine)(&xq, &qa);
		GF(xyzz_set_inf)(&xinf);
		GF(xyzz_add_affine)(&xs, &xp, &qa);       /* p + q */
		GF(xyzz_add)(&xs, &xs, &xp);              /* 2p + q */
		GF(xyzz_dbl)(&xs, &xs);                   /* 4p + 2q */
		GF(xyzz_add)(&xs, &xs, &xinf);
		GF(xyzz_add)(&xs, &xinf, &xs);
		GF(xyzz_add_affine)(&xs, &xs, &inf);
		GF(xyzz_to_jac)(&w, &xs);
		GF(jac_add)(&t, &p, &q);
		GF(jac_add)(&t, &t, &p);
		GF(jac_dbl)(&t, &t);
		CHECK(GF(jac_eq)(&t, &w));
		/* xyzz special cases: P + P, P + (-P), dbl(inf), inf + affine */
		XYZZ x2, x3;
		GF(xyzz_dbl)(&x2, &xp);
		GF(xyzz_add)(&x3, &xp, &xp);
		GF(xyzz_to_jac)(&u, &x2);
		GF(xyzz_to_jac)(&v, &x3);
		CHECK(GF(jac_eq)(&u, &v));
		GF(xyzz_add_affine)(&x3, &xp, &pa);
		GF(xyzz_to_jac)(&v, &x3);
		CHECK(GF(jac_eq)(&u, &v));
		GF(jac_dbl)(&v, &p);
		CHECK(GF(jac_eq)(&u, &v));
		GF(xyzz_add_affine)(&x3, &x2, &pa);      /* 3p, general ZZ with madd */
		GF(xyzz_add_affine)(&x3, &x3, &na);      /* 2p */
		GF(xyzz_to_jac)(&v, &x3);
		CHECK(GF(jac_eq)(&u, &v));
		GF(xyzz_add_affine)(&x3, &xp, &na);
		GF(xyzz_to_jac)(&v, &x3);
		CHECK(GF(jac_is_inf)(&v));
		XYZZ xn;
		GF(xyzz_from_affine)(&xn, &na);
		GF(xyzz_add)(&x3, &x2, &xn);             /* 2p - p, general ZZ */
		GF(xyzz_add)(&x3, &x3, &xn);             /* 0 */
		GF(xyzz_to_jac)(&v, &x3);
		CHECK(GF(jac_is_inf)(&v));
		GF(xyzz_dbl)(&x3, &xinf);
		GF(xyzz_to_jac)(&v, &x3);
		CHECK(GF(jac_is_inf)(&v));
		GF(xyzz_add_affine)(&x3, &xinf, &qa);
		GF(xyzz_to_jac)(&v, &x3);
		CHECK(GF(jac_eq)(&v, &q));

		/* scalar multiplication: [r]P = 0, [a]P + [b]P = [a+b]P, [a]([b]P) = [ab]P,
		 * constant-time mul agrees with mul_u64 */
		zp_fr a, b, c, one, mone;
		uint64_t raw[4];
		zp_fr_random(&a, g);
		zp_fr_random(&b, g);
		GF(jac_mul_u64)(&t, &p, EC_TEST_R, 4);
		CHECK(GF(jac_is_inf)(&t));
		GF(jac_mul)(&t, &p, &a);
		zp_fr_from_mont(raw, &a);
		GF(jac_mul_u64)(&u, &p, raw, 4);
		CHECK(GF(jac_eq)(&t, &u));
		GF(jac_mul)(&u, &p, &b);
		GF(jac_add)(&u, &u, &t);
		zp_fr_add(&c, &a, &b);
		GF(jac_mul)(&v, &p, &c);
		CHECK(GF(jac_eq)(&u, &v));
		GF(jac_mul)(&u, &t, &b);
		zp_fr_mul(&c, &a, &b);
		GF(jac_mul)(&v, &p, &c);
		CHECK(GF(jac_eq)(&u, &v));
		GF(jac_mul)(&u, &p, &ZP_FR_ZERO);
		CHECK(GF(jac_is_inf)(&u));
		GF(jac_mul)(&u, &jinf, &a);
		CHECK(GF(jac_is_inf)(&u));
		one = ZP_FR_ONE;
		GF(jac_mul)(&u, &p, &one);
		CHECK(GF(jac_eq)(&u, &p));
		zp_fr_neg(&mone, &one);
		GF(jac_mul)(&u, &p, &mone);
		GF(jac_neg)(&v, &p);
		CHECK(GF(jac_eq)(&u, &v));
		zp_fr_from_u64(&c, 2);
		GF(jac_mul)(&u, &p, &c);
		GF(jac_dbl)(&v, &p);
		CHECK(GF(jac_eq)(&u, &v));
		uint64_t small = 37;
		zp_fr_from_u64(&c, small);
		GF(jac_mul)(&u, &p, &c);
		GF(jac_mul_u64)(&v, &p, &small, 1);
		CHECK(GF(jac_eq)(&u, &v));
		/* also on a point outside the subgroup: [k]P by both methods */
		T_ON_CURVE(&ta, g);
		GF(jac_from_affine)(&w, &ta);
		GF(jac_mul)(&u, &w, &a);
		zp_fr_from_mont(raw, &a);
		GF(jac_mul_u64)(&v, &w, raw, 4);
		CHECK(GF(jac_eq)(&u, &v));

		/* batch to affine, with infinities among the inputs, vs one at a time */
		JAC arr[7];
		AFF out[7], one_aff;
		arr[0] = p; arr[1] = jinf; arr[2] = q; arr[3] = s;
		arr[4] = jinf; GF(jac_dbl)(&arr[5], &p); arr[6] = t;
		GF(jac_batch_to_affine)(out, arr, 7);
		for (int i = 0; i < 7; i++) {
			GF(jac_to_affine)(&one_aff, &arr[i]);
			CHECK(GF(affine_eq)(&one_aff, &out[i]));
		}
		CHECK(GF(affine_is_inf)(&out[1]) && GF(affine_is_inf)(&out[4]));
		GF(jac_batch_to_affine)(out, &jinf, 1);
		CHECK(GF(affine_is_inf)(&out[0]));
		GF(jac_batch_to_affine)(out, arr, 0);

		/* aliasing: r == a */
		u = p;
		GF(jac_add)(&u, &u, &u);
		GF(jac_dbl)(&v, &p);
		CHECK(GF(jac_eq)(&u, &v));
		u = p;
		GF(jac_mul)(&u, &u, &a);
		GF(jac_mul)(&v, &p, &a);
		CHECK(GF(jac_eq)(&u, &v));
		(void)sa;
	}
}

#undef P2
#undef X2
#undef GF
#undef AFF
#undef JAC
#undef XYZZ
