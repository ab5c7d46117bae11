#include "groth16.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bn254.h"
#include "bn254_msm.h"
#include "msm.h"
#include "ntt.h"
#include "pairing.h"
#include "par.h"
#include "zp_err.h"

/* ---- the curve-typed parts, once per curve ---- */
#define KP(k) (k)
#define PP(p) (p)
#define MO(m) (m)
#define VP(v) (v)
#define ZP_CN_BLS12_381
#include "curve_names.h"
#define PAIRING zp_pairing_check
#define MSM(x) zp_msm_##x
#include "g16_tmpl.h"
#undef KP
#undef PP
#undef MO
#undef VP
#include "curve_names.h" /* undefines the names */
#undef PAIRING
#undef MSM
#define KP(k) (&(k)->bn)
#define PP(p) (&(p)->bn)
#define MO(m) (&(m)->bn)
#define VP(v) (&(v)->bn)
#define ZP_CN_BN254
#include "curve_names.h"
#define PAIRING zp_bn254_pairing_check
#define MSM(x) zp_bn254_msm_##x
#include "g16_tmpl.h"

/* ---- coefficient H query from snarkjs's odd-root H points ----
 * snarkjs's H_j satisfy Σ_j d_j·H_j = h(τ)Z(τ)/δ for d_j = (ab−c)(x_j), x_j = ω_2n^(2j+1), and
 * Z(x_j) = x_j^n − 1 = −2. Taking h = x^i: Q_i = τ^i·Z(τ)/δ = −2·ω_2n^i·Σ_j ω_n^(ij)·H_j — a DFT
 * over points (radix-2, in place), then a scale per point. */
static uint32_t bitrev(uint32_t x, uint32_t lg)
{
	x = (x >> 16) | (x << 16);
	x = ((x & 0xff00ff00u) >> 8) | ((x & 0x00ff00ffu) << 8);
	x = ((x & 0xf0f0f0f0u) >> 4) | ((x & 0x0f0f0f0fu) << 4);
	x = ((x & 0xccccccccu) >> 2) | ((x & 0x33333333u) << 2);
	x = ((x & 0xaaaaaaaau) >> 1) | ((x & 0x55555555u) << 1);
	return lg ? x >> (32 - lg) : 0;
}

#define g1_mul_fr g1_mul_fr_bls

struct pdft_ctx { zp_g1_jac *v; const zp_fr *tw; uint32_t half, step; };

static void pdft_task(void *vctx, size_t t, int worker)
{
	struct pdft_ctx *c = vctx;
	size_t blk = t / c->half, j = t % c->half;
	zp_g1_jac *x = &c->v[blk * 2 * c->half + j], *y = x + c->half, m;
	g1_mul_fr(&m, y, &c->tw[j * c->step]);
	zp_g1_jac_neg(y, &m);
	zp_g1_jac_add(y, x, y);
	zp_g1_jac_add(x, x, &m);
}

struct scale_ctx { zp_g1_jac *v; const zp_fr *f; };

static void scale_task(void *vctx, size_t i, int worker)
{
	struct scale_ctx *c = vctx;
	g1_mul_fr(&c->v[i], &c->v[i], &c->f[i]);
}

static int coeff_h_query(zp_g1_affine *q, const zp_g1_affine *h, uint32_t lg)
{
	size_t n = (size_t)1 << lg;
	zp_g1_jac *v = malloc(n * sizeof(*v));
	zp_fr *tw = malloc(n * sizeof(*tw));
	if (!v || !tw) {
		free(v);
		free(tw);
		return zp_err_set(-ENOMEM, "coefficient H query of %zu points", n);
	}
	for (size_t j = 0; j < n; j++)
		zp_g1_jac_from_affine(&v[bitrev((uint32_t)j, lg)], &h[j]);
	zp_fr w;
	zp_ntt_root(&w, lg, ZP_NTT_ROOT5);
	tw[0] = ZP_FR_ONE;
	for (size_t i = 1; i < n; i++)
		zp_fr_mul(&tw[i], &tw[i - 1], &w);
	for (uint32_t s = 1; s <= lg; s++) {
		struct pdft_ctx c = { v, tw, 1u << (s - 1), (uint32_t)(n >> s) };
		zp_par_for(n / 2, pdft_task, &c);
	}
	/* scale: f_i = −2·ω_2n^i (reuse tw) */
	zp_fr w2, m2;
	zp_ntt_root(&w2, lg + 1, ZP_NTT_ROOT5);
	zp_fr_from_u64(&m2, 2);
	zp_fr_neg(&tw[0], &m2);
	for (size_t i = 1; i < n; i++)
		zp_fr_mul(&tw[i], &tw[i - 1], &w2);
	struct scale_ctx sc = { v, tw };
	zp_par_for(n, scale_task, &sc);
	zp_g1_jac_batch_to_affine(q, v, n);
	free(v);
	free(tw);
	return 0;
}

int zp_g16_key_init(zp_g16_key *key, const zp_zkey *zkey, zp_h_mode mode)
{
	memset(key, 0, sizeof(*key));
	key->zkey = zkey;
	key->h_mode = mode;
	key->roots = 5;            /* a snarkjs key's family; the coefficient query below is derived in it */
	if (mode != ZP_H_COEFF)
		return 0;
	if (zp_zkey_is_bn254(zkey))
		return zp_err_set(ZP_ERANGE, "H mode coeff (bellperson's H query) is for BLS12-381 keys; this key is %s: "
				  "use the snarkjs H mode", zkey->curve->name);
	key->h_coeff = malloc((size_t)zkey->domain_size * sizeof(zp_g1_affine));
	if (!key->h_coeff)
		return zp_err_set(-ENOMEM, "coefficient H query");
	int rc = coeff_h_query(key->h_coeff, zkey->h, zkey->log_domain);
	if (rc)
		zp_g16_key_free(key);
	return rc;
}

void zp_g16_key_free(zp_g16_key *key)
{
	free(key->h_coeff);
	key->h_coeff = NULL;
}

/* ---- finish and verify: the curve's instance ---- */
void zp_g16_finish(zp_g16_proof *proof, const zp_zkey *k, const zp_g16_msm_out *m, const zp_fr *r, const zp_fr *s)
{
	memset(proof, 0, sizeof(*proof));   /* the other curve's members too: a proof is its bytes */
	if (zp_zkey_is_bn254(k))
		finish_bn(proof, k, m, r, s);
	else
		finish_bls(proof, k, m, r, s);
}

int zp_g16_verify(const zp_g16_vk *vk, const zp_g16_proof *proof, const zp_fr *pub, uint32_t n_pub)
{
	const zp_curve *kc = zp_curve_of(vk->curve), *pc = zp_curve_of(proof->curve);
	if (kc != pc)
		return zp_err_set(ZP_EMISMATCH, "the proof is a %s proof, the verification key is a %s key: the curves differ",
				  pc->name, kc->name);
	if (n_pub != vk->n_public)
		return zp_err_set(ZP_EMISMATCH, "%u public inputs, the verification key expects %u", n_pub, vk->n_public);
	return kc->id == ZP_CURVE_BN254 ? verify_bn(vk, proof, pub, n_pub) : verify_bls(vk, proof, pub, n_pub);
}

/* ---- prove ---- */
static int check_inputs(const zp_g16_key *key, const zp_circuit *circ, uint32_t n_w)
{
	const zp_zkey *k = key->zkey;
	if (n_w != k->n_vars)
		return zp_err_set(ZP_EMISMATCH, "witness has %u values, the key's circuit has %u wires (nVars): "
				  "the witness is not for this circuit", n_w, k->n_vars);
	if (zp_curve_of(circ->curve) != zp_curve_of(k->curve))
		return zp_err_set(ZP_EMISMATCH, "the circuit (r1cs) is a %s circuit, the key is a %s key: the curves differ",
				  zp_curve_of(circ->curve)->name, zp_curve_of(k->curve)->name);
	if (circ != &k->circuit && memcmp(circ->fingerprint, k->circuit.fingerprint, 16) != 0) {
		char a[33], b[33];
		zp_circuit_fingerprint_hex(circ, a);
		zp_circuit_fingerprint_hex(&k->circuit, b);
		return zp_err_set(ZP_EMISMATCH, "circuit fingerprint %s does not match the key's %s: "
				  "the r1cs is not the circuit this key was made for", a, b);
	}
	if (key->h_mode == ZP_H_COEFF && !key->h_coeff)
		return zp_err_set(ZP_ERANGE, "coefficient H mode without its H query");
	return 0;
}

static void *alloc_fr(size_t n)
{
	return aligned_alloc(64, (n * sizeof(zp_fr) + 63) / 64 * 64);
}

int zp_g16_prover_init(zp_g16_prover *p, const zp_g16_key *key, const zp_g16_backend_ops *backend)
{
	memset(p, 0, sizeof(*p));
	p->key = key;
	p->be = zp_g16_backend_for_key(backend ? backend : &zp_g16_backend_cpu, key);
	if (key->h_mode == ZP_H_COEFF && !key->h_coeff)
		return zp_err_set(ZP_ERANGE, "coefficient H mode without its H query");
	int rc = zp_g16_backend_supports(p->be, key);
	return rc ? rc : p->be->create(&p->state, key);
}

void zp_g16_prover_free(zp_g16_prover *p)
{
	if (p->state)
		p->be->destroy(p->state);
	p->state = NULL;
}

int zp_g16_prover_prove_abc(zp_g16_prover *p, zp_g16_proof *proof, const zp_fr *w, uint32_t n_w, zp_fr *a,
			    zp_fr *b, zp_fr *c, const zp_g16_prove_opts *opts)
{
	static const zp_g16_prove_opts defaults = { 0 };
	const zp_zkey *k = p->key->zkey;
	zp_g16_msm_out mo;
	zp_fr r, s;
	int rc;
	if (!opts)
		opts = &defaults;
	memset(proof, 0, sizeof(*proof));
	if (n_w != k->n_vars)
		return zp_err_set(ZP_EMISMATCH, "witness has %u values, the key's circuit has %u wires (nVars): "
				  "the witness is not for this circuit", n_w, k->n_vars);
	if (opts->r) {
		r = *opts->r;
		s = *opts->s;
	} else if ((rc = zp_curve_of(k->curve)->fr_random_secure(&r)) ||
		   (rc = zp_curve_of(k->curve)->fr_random_secure(&s))) {
		return zp_err_set(rc, "getrandom for r and s");
	}
	if (!p->be->upload || !p->be->h || !p->be->msm) { /* a compact key's table (zp_g16_backend_for_key): density ops only */
		rc = zp_err_set(ZP_ERANGE, "the %s backend proves this key (%s) through its density ops only", p->be->name,
				p->key->compact ? "a compact .params key" : "its format");
		goto out;
	}
	if ((rc = p->be->upload(p->state, w, a, b, c)) || (rc = p->be->h(p->state)) ||
	    (rc = p->be->msm(p->state, &mo)))
		goto out;
	zp_g16_finish(proof, k, &mo, &r, &s);
	if (!opts->skip_verify) {
		zp_g16_vk vk = { .alpha1 = k->alpha1, .beta2 = k->beta2, .gamma2 = k->gamma2, .delta2 = k->delta2,
				 .n_public = k->n_public, .ic = k->ic, .curve = k->curve,
				 .bn = { k->bn.alpha1, k->bn.beta2, k->bn.gamma2, k->bn.delta2, k->bn.ic } };
		/* any failure here (pairing, or a proof point off the curve: a damaged key point
		 * propagates into the proof) means the same thing: no proof */
		if ((rc = zp_g16_verify(&vk, proof, w + 1, k->n_public)) != 0) {
			char why[160];
			snprintf(why, sizeof(why), "%s", zp_err_msg());
			rc = zp_err_set(ZP_EVERIFY, "the new proof failed its self-check (%s): the witness "
					"probably does not satisfy the circuit (give the .r1cs to name the failing "
					"constraint), or the key is damaged", why);
		}
	}
out:
	explicit_bzero(&r, sizeof(r));
	explicit_bzero(&s, sizeof(s));
	if (rc)
		memset(proof, 0, sizeof(*proof));
	return rc;
}

int zp_g16_prover_prove(zp_g16_prover *p, zp_g16_proof *proof, const zp_circuit *circ, const zp_fr *w,
			uint32_t n_w, const zp_g16_prove_opts *opts)
{
	int rc;
	memset(proof, 0, sizeof(*proof));
	if ((rc = check_inputs(p->key, circ, n_w)))
		return rc;
	size_t n = p->key->zkey->domain_size;
	zp_fr *abc = alloc_fr(3 * n);
	if (!abc)
		return zp_err_set(-ENOMEM, "a, b, c for a domain of %zu", n);
	zp_circuit_eval(circ, w, abc, abc + n, abc + 2 * n);
	rc = opts && opts->skip_check ? 0 : zp_circuit_check(circ, abc, abc + n, abc + 2 * n);
	if (!rc)
		rc = zp_g16_prover_prove_abc(p, proof, w, n_w, abc, abc + n, abc + 2 * n, opts);
	free(abc);
	return rc;
}

int zp_g16_prove(zp_g16_proof *proof, const zp_g16_key *key, const zp_circuit *circ, const zp_fr *w, uint32_t n_w,
		 const zp_g16_prove_opts *opts)
{
	zp_g16_prover p;
	zp_g16_key once = *key; /* one proof: nothing made for reuse (split bases) */
	once.one_shot = true;
	int rc = zp_g16_prover_init(&p, &once, opts ? opts->backend : NULL);
	if (!rc)
		rc = zp_g16_prover_prove(&p, proof, circ, w, n_w, opts);
	zp_g16_prover_free(&p);
	if (rc)
		memset(proof, 0, sizeof(*proof));
	return rc;
}

int zp_g16_backend_supports(const zp_g16_backend_ops *be, const zp_g16_key *key)
{
	const zp_curve *cv = zp_curve_of(key->zkey->curve);
	unsigned m = be->curves ? be->curves : 1u << ZP_CURVE_BLS12_381;
	if (m & (1u << cv->id))
		return 0;
	return zp_err_set(ZP_ERANGE, "the %s backend does not prove %s keys yet (it proves BLS12-381): this key is %s; "
			  "use backend = cpu", be->name, cv->name, cv->name);
}

int zp_g16_check_witness(const zp_zkey *k, const zp_wtns *w, const char *name)
{
	const zp_curve *kc = zp_curve_of(k->curve), *wc = zp_curve_of(w->curve);
	if (kc != wc)
		return zp_err_set(ZP_EMISMATCH, "%s is a %s witness, the key is a %s key: the curves differ", name,
				  wc->name, kc->name);
	if (w->n != k->n_vars)
		return zp_err_set(ZP_EMISMATCH, "%s has %u values, the key's circuit has %u wires (nVars): "
				  "the witness is not for this circuit", name, w->n, k->n_vars);
	return 0;
}
