/*
 * inv_vartime_tmpl.h — test_fp_inv_vartime's checks for one field, included once per field with F(op)
 * (the field's functions: F(inv), F(inv_vartime), ...), FE, FONE, FMOD, FLIMBS and FNAME.
 */
static void F(check_one)(const FE *a, const char *what, long i)
{
	FE want, got, p, back;
	F(inv)(&want, a);
	F(inv_vartime)(&got, a);
	CHECK(F(eq)(&want, &got), "%s %s %ld: inverse differs from zp_fp_inv", FNAME, what, i);
	if (F(is_zero)(a)) {
		CHECK(F(is_zero)(&got), "%s %s %ld: inv(0) != 0", FNAME, what, i);
		return;
	}
	F(mul)(&p, a, &got);
	CHECK(F(eq)(&p, &FONE), "%s %s %ld: a·inv(a) != 1", FNAME, what, i);
	F(inv_vartime)(&back, &got);
	CHECK(F(eq)(&back, a), "%s %s %ld: inv(inv(a)) != a", FNAME, what, i);
}

static void FRUN(void)
{
	zp_rng g;
	zp_rng_seed(&g, zp_test_seed());
	FE a;
	long k = 0;
	/* small values, their negatives and powers of two */
	for (uint64_t v = 0; v < 40; v++) {
		F(from_u64)(&a, v);
		F(check_one)(&a, "small", (long)v);
		F(neg)(&a, &a);
		F(check_one)(&a, "-small", (long)v);
	}
	F(from_u64)(&a, 1);
	for (int e = 0; e < 400; e++) {
		F(check_one)(&a, "2^e", e);
		F(add)(&a, &a, &a);
	}
	/* raw Montgomery limbs: tiny, near q, one limb set, top limb only */
	uint64_t raw[FLIMBS];
	for (uint64_t v = 1; v < 8; v++) {
		memset(raw, 0, sizeof raw);
		raw[0] = v;
		memcpy(a.l, raw, sizeof raw);
		F(check_one)(&a, "raw tiny", (long)v);
		memcpy(a.l, FMOD, sizeof raw);
		a.l[0] -= v;
		F(check_one)(&a, "raw q - v", (long)v);
	}
	for (int w = 0; w < FLIMBS; w++)
		for (int b = 0; b < 64; b += 7) {
			memset(a.l, 0, sizeof a.l);
			a.l[w] = 1ull << b;
			if (w == FLIMBS - 1 && (a.l[w] >> 60))
				continue;   /* keep it under q */
			F(check_one)(&a, "raw bit", w * 64 + b);
		}
	/* unreduced limbs x + q (< 2^384; the MSM's lane totals are < 2q): the inverse of x */
	for (long i = 0; i < 2000; i++) {
		FE x, y, want, got;
		F(random)(&x, &g);
		unsigned __int128 c = 0;
		for (int w = 0; w < FLIMBS; w++) {
			c += (unsigned __int128)x.l[w] + FMOD[w];
			y.l[w] = (uint64_t)c;
			c >>= 64;
		}
		if (c)
			continue;   /* x + q >= 2^384 */
		F(inv)(&want, &x);
		F(inv_vartime)(&got, &y);
		CHECK(F(eq)(&want, &got), "%s x + q %ld: inverse differs from inv(x)", FNAME, i);
	}
	/* random */
	for (long i = 0; i < 20000; i++, k++) {
		F(random)(&a, &g);
		F(check_one)(&a, "random", i);
	}
}

#undef F
#undef FE
#undef FONE
#undef FMOD
#undef FLIMBS
#undef FNAME
#undef FRUN
