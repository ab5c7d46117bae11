/*
 * g16_tmpl.h — internal: the curve-typed parts of groth16.c (finish, verify), instantiated once per
 * curve so each runs on its curve's own types with no indirection (docs/prover.md "Curves in the prover").
 *
 * The includer defines, then includes this file:
 *   S(x)       this instance's name for x (x##_bls, x##_bn)
 *   FR, G1A, G1J, G2A, G2J   the curve's types
 *   F(x)       the curve's function x (zp_##x, zp_bn254_##x): fr_mul, g1_jac_add, ...
 *   MSM(x)     zp_msm_##x / zp_bn254_msm_##x (verify's inputs)
 *   PAIRING    the pairing check
 *   KP(k), PP(p), MO(m), VP(v)   the curve's members of a zp_zkey, proof, msm out, vk
 * Scalars cross the public API as zp_fr containers (32 bytes, either curve's Montgomery form): copied
 * into FR here.
 */

static __attribute__((unused)) void S(g1_mul_fr)(G1J *r, const G1J *p, const FR *k)
{
	uint64_t raw[4];
	F(fr_from_mont)(raw, k);
	F(g1_jac_mul_u64)(r, p, raw, 4);
}

/* blinding and combining, constant time in r and s (groth16.h's formulas) */
static void S(finish)(zp_g16_proof *proof, const zp_zkey *zk, const zp_g16_msm_out *mo, const zp_fr *rr,
		      const zp_fr *ss)
{
	const __typeof__(*KP(zk)) *k = KP(zk);
	const __typeof__(*MO(mo)) *m = MO(mo);
	G1J a, b1, c, t, d1, rs_d;
	G2J b2, t2, d2;
	FR r, s, rs;
	memcpy(&r, rr, sizeof r);
	memcpy(&s, ss, sizeof s);

	F(g1_jac_from_affine)(&d1, &k->delta1);
	F(g2_jac_from_affine)(&d2, &k->delta2);
	/* A = α1 + ΣwA + r·δ1 */
	F(g1_jac_add_affine)(&a, &m->a, &k->alpha1);
	F(g1_jac_mul)(&t, &d1, &r);
	F(g1_jac_add)(&a, &a, &t);
	/* B = β2 + ΣwB2 + s·δ2 ; B1 = β1 + ΣwB1 + s·δ1 */
	F(g2_jac_add_affine)(&b2, &m->b2, &k->beta2);
	F(g2_jac_mul)(&t2, &d2, &s);
	F(g2_jac_add)(&b2, &b2, &t2);
	F(g1_jac_add_affine)(&b1, &m->b1, &k->beta1);
	F(g1_jac_mul)(&t, &d1, &s);
	F(g1_jac_add)(&b1, &b1, &t);
	/* C = ΣwC + H + s·A + r·B1 − r·s·δ1 */
	F(g1_jac_add)(&c, &m->c, &m->h);
	F(g1_jac_mul)(&t, &a, &s);
	F(g1_jac_add)(&c, &c, &t);
	F(g1_jac_mul)(&t, &b1, &r);
	F(g1_jac_add)(&c, &c, &t);
	F(fr_mul)(&rs, &r, &s);
	F(g1_jac_mul)(&rs_d, &d1, &rs);
	F(g1_jac_neg)(&rs_d, &rs_d);
	F(g1_jac_add)(&c, &c, &rs_d);

	F(g1_jac_to_affine)(&PP(proof)->a, &a);
	F(g2_jac_to_affine)(&PP(proof)->b, &b2);
	F(g1_jac_to_affine)(&PP(proof)->c, &c);
	proof->curve = zp_curve_of(zk->curve);   /* never NULL in a proof: its bytes compare */
	explicit_bzero(&r, sizeof r);
	explicit_bzero(&s, sizeof s);
	explicit_bzero(&rs, sizeof rs);
}

/* e(−A, B)·e(α, β)·e(vk_x, γ)·e(C, δ) == 1, the proof's points checked first */
static int S(verify)(const zp_g16_vk *vk0, const zp_g16_proof *proof, const zp_fr *pub, uint32_t n_pub)
{
	const __typeof__(*VP(vk0)) *vk = VP(vk0);
	const __typeof__(*PP(proof)) *pr = PP(proof);
	int rc;
	if ((rc = F(g1_affine_check)(&pr->a)))
		return zp_err_set(rc, "proof: pi_a");
	if ((rc = F(g2_affine_check)(&pr->b)))
		return zp_err_set(rc, "proof: pi_b");
	if ((rc = F(g1_affine_check)(&pr->c)))
		return zp_err_set(rc, "proof: pi_c");
	/* vk_x = IC_0 + Σ pub_i·IC_i (public data: variable-time is fine), one MSM: a PoRep partition's 328
	 * inputs one by one (double-and-add) took ~80 ms, the most of a small proof's time in gpud */
	G1J x, t;
	F(g1_jac_from_affine)(&x, &vk->ic[0]);
	if (n_pub) {
		size_t sl = MSM(g1_scratch_size)(n_pub);
		FR *sc = malloc(n_pub * sizeof(FR));
		void *scratch = malloc(sl);
		if (!sc || !scratch) {
			free(sc), free(scratch);
			return zp_err_set(-ENOMEM, "verify: %u public inputs", n_pub);
		}
		for (uint32_t i = 0; i < n_pub; i++)
			memcpy(&sc[i], &pub[i], sizeof sc[i]);
		rc = MSM(g1)(&t, vk->ic + 1, sc, n_pub, scratch, sl);
		free(sc), free(scratch);
		if (rc)
			return zp_err_set(rc, "verify: the inputs' MSM");
		F(g1_jac_add)(&x, &x, &t);
	}
	G1A p[4];
	G2A q[4] = { pr->b, vk->beta2, vk->gamma2, vk->delta2 };
	F(g1_affine_neg)(&p[0], &pr->a);
	p[1] = vk->alpha1;
	F(g1_jac_to_affine)(&p[2], &x);
	p[3] = pr->c;
	if (PAIRING(p, q, 4) != 0)
		return zp_err_set(ZP_EVERIFY, "pairing check failed");
	return 0;
}
