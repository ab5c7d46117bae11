/*
 * tower_laws.h — the laws of one curve's instance of common/tower_tmpl.h, included once per curve by
 * test_fp12_laws.c: ring laws, inverses, squaring vs multiplication, multiplication by v and the sparse
 * line products vs full ones, every Frobenius map vs plain exponentiation by q^k (what validates the
 * FROB constants), the easy part of the final exponentiation, and the cyclotomic squaring /
 * exponentiation vs the generic ones.
 *
 * The includer defines: L(x) (this curve's name for the test function x), T2(x) T6(x) T12(x) (the
 * curve's Fp2/Fp6/Fp12 names), FP2 FP6 FP12 (its types), FP2_ONE, MODULUS and LIMBS (p), and
 * SPARSE_014 when the curve has the M-twist's products (mul_by_01, mul_by_1, mul_by_014).
 */

static void L(rand_fp6)(FP6 *a, zp_rng *g)
{
	T2(random)(&a->c0, g);
	T2(random)(&a->c1, g);
	T2(random)(&a->c2, g);
}

static void L(check_ring)(zp_rng *g)
{
	FP12 a, b, c, t, u, v, zero;
	memset(&zero, 0, sizeof zero);
	T12(random)(&a, g);
	T12(random)(&b, g);
	T12(random)(&c, g);
	T12(mul)(&t, &a, &b);
	T12(mul)(&t, &t, &c);
	T12(mul)(&u, &b, &c);
	T12(mul)(&u, &a, &u);
	CHECK(T12(eq)(&t, &u), "%s: fp12 mul not associative", NAME);
	T12(mul)(&t, &a, &b);
	T12(mul)(&u, &b, &a);
	CHECK(T12(eq)(&t, &u), "%s: fp12 mul not commutative", NAME);
	T12(add)(&t, &b, &c);
	T12(mul)(&t, &a, &t);
	T12(mul)(&u, &a, &b);
	T12(mul)(&v, &a, &c);
	T12(add)(&u, &u, &v);
	CHECK(T12(eq)(&t, &u), "%s: fp12 not distributive", NAME);
	T12(sub)(&t, &u, &v);
	T12(mul)(&v, &a, &b);
	CHECK(T12(eq)(&t, &v), "%s: fp12 sub", NAME);
	T12(sqr)(&t, &a);
	T12(mul)(&u, &a, &a);
	CHECK(T12(eq)(&t, &u), "%s: fp12 sqr != mul", NAME);
	T12(inv)(&t, &a);
	T12(mul)(&t, &t, &a);
	CHECK(T12(is_one)(&t), "%s: fp12 a·inv(a) != 1", NAME);
	CHECK(!T12(is_one)(&a) && !T12(is_zero)(&a), "%s: random element is 0 or 1", NAME);
	T12(inv)(&t, &zero);
	CHECK(T12(is_zero)(&t), "%s: fp12 inv(0) != 0", NAME);
	T12(conj)(&t, &a);
	T12(conj)(&t, &t);
	CHECK(T12(eq)(&t, &a), "%s: conj is not an involution", NAME);
}

static void L(check_fp6)(zp_rng *g)
{
	FP6 a, b, t, u, one;
	memset(&one, 0, sizeof one);
	one.c0 = FP2_ONE;
	L(rand_fp6)(&a, g);
	L(rand_fp6)(&b, g);
	T6(sqr)(&t, &a);
	T6(mul)(&u, &a, &a);
	CHECK(T6(eq)(&t, &u), "%s: fp6 sqr != mul", NAME);
	T6(inv)(&t, &a);
	T6(mul)(&t, &t, &a);
	CHECK(T6(eq)(&t, &one), "%s: fp6 a·inv(a) != 1", NAME);
	T6(neg)(&t, &a);
	T6(add)(&t, &t, &a);
	CHECK(T6(is_zero)(&t), "%s: fp6 a + (-a) != 0", NAME);
#ifdef SPARSE_014
	FP2 b0 = b.c0, b1 = b.c1;
	memset(&b.c2, 0, sizeof b.c2);
	T6(mul_by_01)(&t, &a, &b0, &b1);
	T6(mul)(&u, &a, &b);
	CHECK(T6(eq)(&t, &u), "%s: fp6 mul_by_01", NAME);
	memset(&b.c0, 0, sizeof b.c0);
	T6(mul_by_1)(&t, &a, &b1);
	T6(mul)(&u, &a, &b);
	CHECK(T6(eq)(&t, &u), "%s: fp6 mul_by_1", NAME);
#endif
	memset(&b, 0, sizeof b);
	b.c1 = FP2_ONE;  /* v */
	T6(mul_v)(&t, &a);
	T6(mul)(&u, &a, &b);
	CHECK(T6(eq)(&t, &u), "%s: fp6 mul_v", NAME);
}

#ifdef SPARSE_014
static void L(check_sparse)(zp_rng *g)
{
	FP12 a, l, t, u;
	memset(&l, 0, sizeof l);
	T12(random)(&a, g);
	T2(random)(&l.c0.c0, g);
	T2(random)(&l.c0.c1, g);
	T2(random)(&l.c1.c1, g);
	T12(mul_by_014)(&t, &a, &l.c0.c0, &l.c0.c1, &l.c1.c1);
	T12(mul)(&u, &a, &l);
	CHECK(T12(eq)(&t, &u), "%s: fp12 mul_by_014 != full mul", NAME);
}
#endif

static void L(check_frobenius)(zp_rng *g)
{
	uint64_t qk[3][3 * LIMBS];
	FP12 a, t, u;
	memcpy(qk[0], MODULUS, LIMBS * sizeof(uint64_t));
	big_mul(qk[1], qk[0], LIMBS, MODULUS, LIMBS);
	big_mul(qk[2], qk[1], 2 * LIMBS, MODULUS, LIMBS);
	T12(random)(&a, g);
	for (unsigned k = 1; k <= 3; k++) {
		T12(frobenius)(&t, &a, k);
		T12(pow)(&u, &a, qk[k - 1], LIMBS * k);
		CHECK(T12(eq)(&t, &u), "%s: frobenius %u != a^(q^%u)", NAME, k, k);
	}
	T12(frobenius)(&t, &a, 6);
	T12(conj)(&u, &a);
	CHECK(T12(eq)(&t, &u), "%s: frobenius 6 != conj", NAME);
	T12(frobenius)(&u, &a, 1);
	for (int i = 1; i < 6; i++)
		T12(frobenius)(&u, &u, 1);
	CHECK(T12(eq)(&t, &u), "%s: frobenius 1 six times != frobenius 6", NAME);
	T12(frobenius)(&t, &a, 12);
	CHECK(T12(eq)(&t, &a), "%s: frobenius 12 != identity", NAME);
	T12(frobenius)(&t, &a, 5);
	T12(frobenius)(&t, &t, 7);
	CHECK(T12(eq)(&t, &a), "%s: frobenius 5 then 7 != identity", NAME);
}

static void L(check_cyclotomic)(zp_rng *g)
{
	FP12 a, m, t, u;
	T12(random)(&a, g);
	/* m = a^((q^6 - 1)(q^2 + 1)) lies in the cyclotomic subgroup */
	T12(inv)(&t, &a);
	T12(conj)(&m, &a);
	T12(mul)(&m, &m, &t);
	T12(frobenius)(&t, &m, 2);
	T12(mul)(&m, &m, &t);
	T12(final_exp_easy)(&u, &a);
	CHECK(T12(eq)(&u, &m), "%s: final_exp_easy != a^((q^6 - 1)(q^2 + 1))", NAME);
	T12(conj)(&t, &m);
	T12(mul)(&t, &t, &m);
	CHECK(T12(is_one)(&t), "%s: cyclotomic: conj(m)·m != 1", NAME);
	T12(cyclotomic_sqr)(&t, &m);
	T12(sqr)(&u, &m);
	CHECK(T12(eq)(&t, &u), "%s: cyclotomic_sqr != sqr", NAME);
	uint64_t e = zp_rng_next(g);
	T12(cyclotomic_pow_u64)(&t, &m, e);
	T12(pow)(&u, &m, &e, 1);
	CHECK(T12(eq)(&t, &u), "%s: cyclotomic_pow_u64 != pow", NAME);
	T12(cyclotomic_pow_u64)(&t, &m, 0);
	CHECK(T12(is_one)(&t), "%s: m^0 != 1", NAME);
}

static void L(check)(zp_rng *g)
{
	for (int i = 0; i < 8; i++) {
		L(check_ring)(g);
		L(check_fp6)(g);
#ifdef SPARSE_014
		L(check_sparse)(g);
#endif
		L(check_cyclotomic)(g);
	}
	L(check_frobenius)(g);
	L(check_frobenius)(g);
}

#undef L
#undef T2
#undef T6
#undef T12
#undef FP2
#undef FP6
#undef FP12
#undef FP2_ONE
#undef MODULUS
#undef LIMBS
#undef NAME
#undef SPARSE_014
