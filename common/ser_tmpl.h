/*
 * ser_tmpl.h — internal to serialize.c: one group's zcash bytes and .zkey limbs (serialize.h's formats and
 * order of checks), written once for G1 (over Fp) and G2 (over Fp2). serialize.c includes it twice with:
 *   SER_G       g1 | g2            (names: zp_<SER_G>_to_compressed, ...; <SER_G>_finish, <SER_G>_check_one)
 *   SER_F       fp | fp2           (the field's public ops zp_<SER_F>_sqr, ...; the coordinate helpers
 *                                   <SER_F>_to_be, <SER_F>_from_be, <SER_F>_from_zkey, <SER_F>_canonical)
 *   SER_FE      zp_fp | zp_fp2
 *   SER_CB      a coordinate's bytes (ZP_FP_BYTES, 2·ZP_FP_BYTES)
 *   SER_NAME    "G1" | "G2" (error messages)
 *   SER_SET_B(b)  sets b (a SER_FE) to the curve's b: 4, 4 + 4u
 * All of them are #undef'd at the end.
 */

#define SER_P2(a, b) a##b
#define SER_X2(a, b) SER_P2(a, b)
#define SER_PUB(name) SER_X2(SER_X2(zp_, SER_G), SER_X2(_, name))
#define SER_ST(name) SER_X2(SER_G, SER_X2(_, name))
#define SER_FF(name) SER_X2(SER_X2(zp_, SER_F), SER_X2(_, name))   /* the field's public op */
#define SER_FC(name) SER_X2(SER_F, SER_X2(_, name))                 /* serialize.c's coordinate helper */
#define SER_AFF SER_X2(SER_X2(zp_, SER_G), _affine)

/* finite: t came from an encoding with its own infinity, so (0, 0) is not infinity here. */
static int SER_ST(finish)(SER_AFF *p, const SER_AFF *t, bool finite, unsigned opts, const char *what)
{
	if ((finite && SER_PUB(affine_is_inf)(t)) || !SER_PUB(affine_is_on_curve)(t))
		return zp_err_set(ZP_EINVAL_POINT, "%s: point not on the curve", what);
	if (!(opts & ZP_SER_NO_SUBGROUP) && !SER_PUB(affine_in_subgroup)(t))
		return zp_err_set(ZP_ESUBGROUP, "%s: point not in the subgroup", what);
	*p = *t;
	return 0;
}

void SER_PUB(to_compressed)(uint8_t out[SER_CB], const SER_AFF *p)
{
	if (SER_PUB(affine_is_inf)(p)) {
		memset(out, 0, SER_CB);
		out[0] = ZP_SER_FLAG_COMPRESSED | ZP_SER_FLAG_INFINITY;
		return;
	}
	SER_FC(to_be)(out, &p->x);
	out[0] |= ZP_SER_FLAG_COMPRESSED;
	if (SER_FF(is_lexlargest)(&p->y))
		out[0] |= ZP_SER_FLAG_SIGN;
}

void SER_PUB(to_uncompressed)(uint8_t out[2 * SER_CB], const SER_AFF *p)
{
	if (SER_PUB(affine_is_inf)(p)) {
		memset(out, 0, 2 * SER_CB);
		out[0] = ZP_SER_FLAG_INFINITY;
		return;
	}
	SER_FC(to_be)(out, &p->x);
	SER_FC(to_be)(out + SER_CB, &p->y);
}

int SER_PUB(from_compressed)(SER_AFF *p, const uint8_t in[SER_CB], unsigned opts)
{
	static const char what[] = SER_NAME " compressed";
	bool sign;
	int rc = check_flags(in, SER_CB, true, &sign, what);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		*p = (SER_AFF){ 0 };
		return 0;
	}
	SER_AFF t;
	SER_FE rhs, b;
	if ((rc = SER_FC(from_be)(&t.x, in, true)) < 0)
		return bad_coord(rc, what);
	SER_FF(sqr)(&rhs, &t.x);
	SER_FF(mul)(&rhs, &rhs, &t.x);
	SER_SET_B(b);
	SER_FF(add)(&rhs, &rhs, &b);
	if (!SER_FF(sqrt)(&t.y, &rhs))
		return zp_err_set(ZP_ENOTSQR, "%s: x has no point on the curve", what);
	if (SER_FF(is_lexlargest)(&t.y) != sign)
		SER_FF(neg)(&t.y, &t.y);
	return SER_ST(finish)(p, &t, true, opts, what);
}

int SER_PUB(from_uncompressed)(SER_AFF *p, const uint8_t in[2 * SER_CB], unsigned opts)
{
	static const char what[] = SER_NAME " uncompressed";
	bool sign;
	int rc = check_flags(in, 2 * SER_CB, false, &sign, what);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		*p = (SER_AFF){ 0 };
		return 0;
	}
	SER_AFF t;
	if ((rc = SER_FC(from_be)(&t.x, in, true)) < 0 || (rc = SER_FC(from_be)(&t.y, in + SER_CB, false)) < 0)
		return bad_coord(rc, what);
	return SER_ST(finish)(p, &t, true, opts, what);
}

int SER_PUB(affine_from_zkey_bytes)(SER_AFF *p, const uint8_t in[2 * SER_CB], unsigned opts)
{
	static const char what[] = SER_NAME " zkey";
	SER_AFF t;
	if (SER_FC(from_zkey)(&t.x, in) < 0 || SER_FC(from_zkey)(&t.y, in + SER_CB) < 0)
		return bad_coord(ZP_ENONCANON, what);
	return SER_ST(finish)(p, &t, false, opts, what);
}

/* One point of a .zkey array: 0 or the code (no message; callers add the index). */
static int SER_ST(check_one)(const SER_AFF *p, unsigned opts)
{
	if (!SER_FC(canonical)(&p->x) || !SER_FC(canonical)(&p->y))
		return ZP_ENONCANON;
	if (!SER_PUB(affine_is_on_curve)(p))
		return ZP_EINVAL_POINT;
	if (!(opts & ZP_SER_NO_SUBGROUP) && !SER_PUB(affine_in_subgroup)(p))
		return ZP_ESUBGROUP;
	return 0;
}

#undef SER_P2
#undef SER_X2
#undef SER_PUB
#undef SER_ST
#undef SER_FF
#undef SER_FC
#undef SER_AFF
#undef SER_G
#undef SER_F
#undef SER_FE
#undef SER_CB
#undef SER_NAME
#undef SER_SET_B
