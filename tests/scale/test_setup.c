/* Development setup: keys made by zp_setup prove and verify with zkpipe's prover, in both H
 * conventions; with the same toxic waste and the same r, s both conventions give the same
 * proof; the odd-root H points turned into the coefficient query by the prover's own point
 * DFT equal setup's τ^i·Z(τ)/δ points; keys say they are insecure; a wrong witness fails. */
#include "groth16.h"
#include "keyfile.h"
#include "r1cs.h"
#include "setup.h"
#include "synth.h"
#include "util.h"
#include "wtns.h"

static void toxic(zp_fr t[5])
{
	const char *d[5] = { "123456789123456789123456789", "987654321", "55555555555555", "77777", "31415926535" };
	for (int i = 0; i < 5; i++)
		zp_fr_from_dec(&t[i], d[i]);
}

static void prove_both(const zp_circuit *c, const zp_fr *w, const char *what)
{
	zp_fr t[5], r, s;
	toxic(t);
	zp_fr_from_u64(&r, 1234567);
	zp_fr_from_u64(&s, 7654321);
	zp_pkey ks, kc, kd;
	zp_g16_proof p1, p2, p3;
	zp_g16_prove_opts o = { .r = &r, .s = &s };
	zp_setup_opts so = { .h_mode = ZP_H_SNARKJS, .toxic = t, .origin = what };
	CHECK(zp_setup(&ks, c, &so) == 0, "%s: setup snarkjs", what);
	so.h_mode = ZP_H_COEFF;
	CHECK(zp_setup(&kc, c, &so) == 0, "%s: setup coeff", what);
	CHECK(ks.hdr->flags & ZP_PKEY_INSECURE, "%s: key not flagged insecure", what);
	CHECK(zp_g16_prove(&p1, zp_pkey_g16(&ks), c, w, c->n_vars, &o) == 0, "%s: prove snarkjs H", what);
	CHECK(zp_g16_prove(&p2, zp_pkey_g16(&kc), c, w, c->n_vars, &o) == 0, "%s: prove coeff H", what);
	CHECK(!memcmp(&p1, &p2, sizeof(p1)), "%s: the two H conventions give different proofs", what);
	CHECK(zp_g16_prove(&p3, zp_pkey_g16(&ks), c, w, c->n_vars, NULL) == 0, "%s: prove, random r, s", what);
	zp_g16_vk vk;
	CHECK(zp_zkey_vk(&vk, &ks.zk) == 0 && zp_g16_verify(&vk, &p3, w + 1, c->n_public) == 0, "%s: verify", what);
	p3.c = p3.a;
	CHECK(zp_g16_verify(&vk, &p3, w + 1, c->n_public) == ZP_EVERIFY, "%s: tampered proof verifies", what);
	zp_g16_vk_free(&vk);
	/* the prover's odd-root -> coefficient conversion reproduces setup's coefficient H */
	CHECK(zp_pkey_from_zkey(&kd, &ks.zk, ZP_H_COEFF) == 0, "%s: derive coeff H", what);
	CHECK(!memcmp(kd.g16.h_coeff, kc.g16.h_coeff, (size_t)c->domain_size * sizeof(zp_g1_affine)),
	      "%s: derived coefficient H differs from setup's", what);
	zp_pkey_free(&kd);
	/* a witness that breaks one row: the prover refuses */
	zp_fr *bad = malloc(c->n_vars * sizeof(zp_fr));
	memcpy(bad, w, c->n_vars * sizeof(zp_fr));
	zp_fr_add(&bad[c->n_vars - 1], &bad[c->n_vars - 1], &ZP_FR_ONE);
	CHECK(zp_g16_prove(&p1, zp_pkey_g16(&kc), c, bad, c->n_vars, &o) == ZP_EUNSAT, "%s: bad witness proved", what);
	free(bad);
	zp_pkey_free(&ks);
	zp_pkey_free(&kc);
}

int main(int argc, char **argv)
{
	zp_synth_params p;
	zp_synth_params_porep(&p, 1000);
	p.n_public = 6;
	p.window = 256;
	zp_circuit c;
	CHECK(zp_synth_circuit(&c, &p) == 0, "synth");
	zp_fr *w = malloc(c.n_vars * sizeof(zp_fr));
	CHECK(zp_synth_witness(w, &c, &p, 99) == 0, "witness");
	prove_both(&c, w, "synthetic");
	free(w);
	zp_circuit_free(&c);

	/* root family 7 and a zero toxic value */
	zp_fr t[5];
	toxic(t);
	t[4] = ZP_FR_ZERO;
	zp_synth_params_porep(&p, 100);
	p.n_public = 2;
	zp_pkey k;
	CHECK(zp_synth_circuit(&c, &p) == 0, "synth small");
	zp_setup_opts so = { .toxic = t };
	CHECK(zp_setup(&k, &c, &so) == ZP_ERANGE, "zero δ accepted");
	so = (zp_setup_opts){ .roots = 7 };
	CHECK(zp_setup(&k, &c, &so) == 0 && k.hdr->roots == 7, "roots 7");
	zp_pkey_free(&k);
	zp_circuit_free(&c);

	/* a circom circuit: the committed mul fixture (r1cs + wtns) */
	if (argc > 1) {
		char pr[512], pw[512];
		snprintf(pr, sizeof(pr), "%s/mul.r1cs", argv[1]);
		snprintf(pw, sizeof(pw), "%s/mul.wtns", argv[1]);
		zp_r1cs r1;
		zp_wtns wt;
		CHECK(zp_r1cs_read(&r1, pr) == 0 && zp_circuit_from_r1cs(&c, &r1) == 0 && zp_wtns_read(&wt, pw) == 0,
		      "fixture");
		prove_both(&c, wt.w, "mul.circom");
		zp_r1cs_free(&r1);
		zp_wtns_free(&wt);
		zp_circuit_free(&c);
	}
	return DONE();
}
