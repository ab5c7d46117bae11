/*
 * backend_cpu_tmpl.h — internal: the CPU backend's stages for one curve (backend_cpu.c includes it once
 * per curve, as groth16.c does g16_tmpl.h). The includer defines S(x), FR, G1J, KP(k), MO(m), NTT(x)
 * (zp_ntt_##x / zp_bn254_ntt_##x), NTT_INIT(d, log, key), MSM(x) (zp_msm_##x / zp_bn254_msm_##x) and, for
 * BLS12-381 (bellperson's coefficient H and compact keys), BLS.
 */

struct S(cpu) {
	const zp_g16_key *key;
	const FR *w;
	FR *a, *b, *c;
	G1J h;
	NTT(domain) dom;
	void *scratch;
	size_t scratch_len;
#ifdef BLS
	struct cpu_dens *dens;     /* compact keys: the proof's input, copied (dens_upload) */
#endif
};

static void S(cpu_destroy)(void *state)
{
	struct S(cpu) *s = state;
	NTT(domain_free)(&s->dom);
	free(s->scratch);
#ifdef BLS
	dens_free(s->dens);
#endif
	free(s);
}

static int S(cpu_create)(void **state, const zp_g16_key *key)
{
	const zp_zkey *k = key->zkey;
	if (key->dev_points || !KP(k)->a)
		return zp_err_set(ZP_ERANGE, "CPU backend: the key's points are in GPU memory (setup = device), not on "
				  "the host: prove it with backend = cuda");
#ifdef BLS
	if (key->compact && key->h_mode != ZP_H_COEFF)
		return zp_err_set(ZP_ERANGE, "CPU backend: a compact key needs the coefficient H query");
#else
	if (key->compact || key->h_mode != ZP_H_SNARKJS)
		return zp_err_set(ZP_ERANGE, "CPU backend: compact keys and coefficient H are BLS12-381's; this key is %s",
				  k->curve->name);
#endif
	struct S(cpu) *s = calloc(1, sizeof(*s));
	if (!s)
		return zp_err_set(-ENOMEM, "CPU backend state");
	s->key = key;
	size_t nmax = k->n_vars > k->domain_size ? k->n_vars : k->domain_size;
	size_t g1 = MSM(g1_scratch_size)(nmax), g2 = MSM(g2_scratch_size)(k->n_vars);
#ifdef BLS
	if (key->compact) { /* the largest of H (domain − 1), L, A, B1; G2: B2 */
		size_t nl = (size_t)k->n_vars - k->n_public - 1, nh = (size_t)k->domain_size - 1;
		nmax = nh > nl ? nh : nl;
		nmax = nmax > key->n_a ? nmax : key->n_a;
		nmax = nmax > key->n_b ? nmax : key->n_b;
		g1 = zp_msm_g1_scratch_size(nmax);
		g2 = zp_msm_g2_scratch_size(key->n_b);
	}
#endif
	s->scratch_len = g1 > g2 ? g1 : g2;
	s->scratch = aligned_alloc(64, (s->scratch_len + 63) / 64 * 64);
	/* the key's own root family: the H step must evaluate on the domain its Lagrange basis used */
	int rc = s->scratch ? NTT_INIT(&s->dom, k->log_domain, key) : -ENOMEM;
#ifdef BLS
	if (!rc && key->compact)
		rc = dens_alloc(&s->dens, key);
#endif
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
	if (s->key->compact)
		return zp_err_set(ZP_ERANGE, "CPU backend: a compact key proves through dens_upload");
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
#ifdef BLS
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
