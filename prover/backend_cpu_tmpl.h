/*
 * backend_cpu_tmpl.h — internal: the CPU backend's stages for one curve (backend_cpu.c includes it once
 * per curve, as groth16.c does g16_tmpl.h). The includer defines S(x), FR, G1A, G2A, G1J, KP(k), MO(m),
 * NTT(x) (zp_ntt_##x / zp_bn254_ntt_##x), MSM(x) (zp_msm_##x / zp_msm_bn254_##x) and, for a curve with
 * bellperson's coefficient H, HAS_COEFF.
 */

struct S(cpu) {
	const zp_g16_key *key;
	const FR *w;
	FR *a, *b, *c;
	G1J h;
	NTT(domain) dom;
	void *scratch;
	size_t scratch_len;
};

static void S(cpu_destroy)(void *state)
{
	struct S(cpu) *s = state;
	NTT(domain_free)(&s->dom);
	free(s->scratch);
	free(s);
}

static int S(cpu_create)(void **state, const zp_g16_key *key)
{
	const zp_zkey *k = key->zkey;
	if (key->dev_points || !KP(k)->a)
		return zp_err_set(ZP_ERANGE, "CPU backend: the key's points are in GPU memory (setup = device), not on "
				  "the host: prove it with backend = cuda");
	struct S(cpu) *s = calloc(1, sizeof(*s));
	if (!s)
		return zp_err_set(-ENOMEM, "CPU backend state");
	s->key = key;
	size_t nmax = k->n_vars > k->domain_size ? k->n_vars : k->domain_size;
	size_t g1 = MSM(g1_scratch_size)(nmax), g2 = MSM(g2_scratch_size)(k->n_vars);
	s->scratch_len = g1 > g2 ? g1 : g2;
	s->scratch = aligned_alloc(64, (s->scratch_len + 63) / 64 * 64);
	int rc = s->scratch ? NTT(domain_init)(&s->dom, k->log_domain) : -ENOMEM;
	if (rc) {
		size_t len = s->scratch_len;
		S(cpu_destroy)(s);
		return zp_err_set(rc, "CPU backend: NTT domain 2^%u and MSM scratch (%zu bytes)", k->log_domain, len);
	}
	*state = s;
	return 0;
}

/* zp_fr containers hold the key's curve's Fr (groth16.h) */
static int S(cpu_upload)(void *state, const zp_fr *w, zp_fr *a, zp_fr *b, zp_fr *c)
{
	struct S(cpu) *s = state;
	s->w = (const FR *)w;
	s->a = (FR *)a;
	s->b = (FR *)b;
	s->c = (FR *)c;
	return 0;
}

static int S(cpu_h)(void *state)
{
	struct S(cpu) *s = state;
	const zp_zkey *k = s->key->zkey;
	int rc;
	if (s->key->h_mode == ZP_H_SNARKJS) {
		if ((rc = NTT(h_snarkjs)(&s->dom, s->a, s->b, s->c)))
			return zp_err_set(rc, "H (snarkjs convention)");
		return MSM(g1)(&s->h, KP(k)->h, s->a, k->domain_size, s->scratch, s->scratch_len);
	}
#ifdef HAS_COEFF
	if ((rc = NTT(h_bellperson)(&s->dom, s->a, s->b, s->c)))
		return zp_err_set(rc, "H (coefficient convention)");
	return MSM(g1)(&s->h, s->key->h_coeff, s->a, k->domain_size, s->scratch, s->scratch_len);
#else
	return zp_err_set(ZP_ERANGE, "H (coefficient convention): not for %s keys", k->curve->name);
#endif
}

static int S(cpu_msm)(void *state, zp_g16_msm_out *out0)
{
	struct S(cpu) *s = state;
	const zp_zkey *k = s->key->zkey;
	__typeof__(MO(out0)) out = MO(out0);
	size_t nv = k->n_vars, np = k->n_public;
	void *sc = s->scratch;
	size_t sl = s->scratch_len;
	int rc;
	if ((rc = MSM(g1)(&out->a, KP(k)->a, s->w, nv, sc, sl)) || (rc = MSM(g1)(&out->b1, KP(k)->b1, s->w, nv, sc, sl)) ||
	    (rc = MSM(g2)(&out->b2, KP(k)->b2, s->w, nv, sc, sl)) ||
	    (rc = MSM(g1)(&out->c, KP(k)->c, s->w + np + 1, nv - np - 1, sc, sl)))
		return zp_err_set(rc, "MSM");
	out->h = s->h;
	return 0;
}
