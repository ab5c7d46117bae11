/*
 * test_bn254_json — BN254 keys, proofs and JSON in the library (issue 20 item 2):
 *   test_g16_bn254_json BN_DIR BLS_DIR CIRCUIT   (oracle fixtures of both curves)
 * - the .zkey, .wtns and .r1cs say their curve; a BN254 key's points are its .bn members, the BLS ones NULL;
 * - snarkjs's vk.json reads to exactly the points of the .zkey's vk; vk, proof and public JSON written and read
 *   back give the same bytes (both curves);
 * - a proof made on the CPU verifies; proofs of one curve do not verify under the other's vk (ZP_EMISMATCH);
 *   zp_g16_check_witness refuses the other curve's witness; a BN254 key refuses ZP_H_COEFF;
 * - circuit evaluation: the key's A/B circuit and the .r1cs's give the same fingerprint only on the same curve.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "g16_json.h"
#include "groth16.h"
#include "r1cs.h"
#include "util.h"
#include "wtns.h"
#include "zkey.h"

static char tmp_path[256];

static const char *tmp(const char *name)
{
	snprintf(tmp_path, sizeof tmp_path, "/tmp/zp-bn254-json-%d-%s", (int)getpid(), name);
	return tmp_path;
}

static int vk_eq(const zp_g16_vk *a, const zp_g16_vk *b)
{
	if (a->curve != b->curve || a->n_public != b->n_public)
		return 0;
	if (a->curve == &zp_curve_bn254)
		return !memcmp(&a->bn.alpha1, &b->bn.alpha1, sizeof a->bn.alpha1) &&
		       !memcmp(&a->bn.beta2, &b->bn.beta2, 3 * sizeof a->bn.beta2) &&
		       !memcmp(a->bn.ic, b->bn.ic, (a->n_public + 1) * sizeof *a->bn.ic);
	return !memcmp(&a->alpha1, &b->alpha1, sizeof a->alpha1) && !memcmp(&a->beta2, &b->beta2, 3 * sizeof a->beta2) &&
	       !memcmp(a->ic, b->ic, (a->n_public + 1) * sizeof *a->ic);
}

struct fx { zp_zkey k; zp_wtns w; zp_r1cs r; zp_g16_vk vk, vkj; zp_g16_proof p; };

static void load(struct fx *f, const char *dir, const char *c)
{
	char p[4][512];
	snprintf(p[0], 512, "%s/%s/%s.zkey", dir, c, c);
	snprintf(p[1], 512, "%s/%s/%s.wtns", dir, c, c);
	snprintf(p[2], 512, "%s/%s/%s.r1cs", dir, c, c);
	snprintf(p[3], 512, "%s/%s/vk.json", dir, c);
	if (zp_zkey_read(&f->k, p[0]) || zp_wtns_read(&f->w, p[1]) || zp_r1cs_read(&f->r, p[2]) ||
	    zp_zkey_vk(&f->vk, &f->k) || zp_g16_vk_read_json(&f->vkj, p[3])) {
		fprintf(stderr, "cannot load the fixture %s/%s: %s\n", dir, c, zp_err_msg());
		exit(1);
	}
}

static void one_curve(struct fx *f, const zp_curve *cv)
{
	CHECK(f->k.curve == cv && f->w.curve == cv && f->r.curve == cv && f->k.circuit.curve == cv,
	      "%s: the files say their curve", cv->name);
	if (cv == &zp_curve_bn254)
		CHECK(!f->k.a && !f->k.h && f->k.bn.a && f->k.bn.h, "BN254 points in .bn, BLS members NULL");
	CHECK(vk_eq(&f->vk, &f->vkj), "%s: snarkjs's vk.json = the .zkey's vk", cv->name);
	/* vk JSON round trip */
	zp_g16_vk v2;
	CHECK(zp_g16_vk_write_json(tmp("vk.json"), &f->vk) == 0 && zp_g16_vk_read_json(&v2, tmp("vk.json")) == 0 &&
	      vk_eq(&f->vk, &v2), "%s: vk JSON round trip", cv->name);
	zp_g16_vk_free(&v2);
	/* prove, verify, proof and public JSON round trips */
	zp_g16_key key;
	CHECK(zp_g16_key_init(&key, &f->k, ZP_H_SNARKJS) == 0, "key init");
	CHECK(zp_g16_check_witness(&f->k, &f->w, "w") == 0, "witness fits");
	CHECK(zp_g16_prove(&f->p, &key, &f->k.circuit, f->w.w, f->w.n, NULL) == 0, "%s: prove", cv->name);
	CHECK(f->p.curve == cv, "the proof carries its curve");
	uint32_t np = f->k.n_public;
	CHECK(zp_g16_verify(&f->vk, &f->p, f->w.w + 1, np) == 0, "%s: verify", cv->name);
	zp_g16_proof q;
	CHECK(zp_g16_proof_write_json(tmp("p.json"), &f->p) == 0 && zp_g16_proof_read_json(&q, tmp("p.json")) == 0 &&
	      !memcmp(&q, &f->p, sizeof q), "%s: proof JSON round trip", cv->name);
	zp_fr *pub = NULL;
	uint32_t n = 0;
	CHECK(zp_g16_public_write_json_curve(tmp("u.json"), cv, f->w.w + 1, np) == 0 &&
	      zp_g16_public_read_json_curve(cv, &pub, &n, tmp("u.json")) == 0 && n == np &&
	      !memcmp(pub, f->w.w + 1, np * sizeof *pub), "%s: public JSON round trip", cv->name);
	free(pub);
	/* r1cs circuit = the key's circuit (fingerprint), and it proves */
	zp_circuit c;
	CHECK(zp_circuit_from_r1cs(&c, &f->r) == 0 && !memcmp(c.fingerprint, f->k.circuit.fingerprint, 16),
	      "%s: the .r1cs's circuit is the key's", cv->name);
	zp_g16_proof p2;
	CHECK(zp_g16_prove(&p2, &key, &c, f->w.w, f->w.n, NULL) == 0, "%s: prove with the r1cs (constraints checked)", cv->name);
	zp_circuit_free(&c);
	zp_g16_key_free(&key);
	unlink(tmp("vk.json"));
	unlink(tmp("p.json"));
	unlink(tmp("u.json"));
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s BN_DIR BLS_DIR CIRCUIT\n", argv[0]);
		return 2;
	}
	static struct fx bn, bls;
	load(&bn, argv[1], argv[3]);
	load(&bls, argv[2], argv[3]);
	one_curve(&bn, &zp_curve_bn254);
	one_curve(&bls, &zp_curve_bls12_381);
	/* across curves */
	CHECK(zp_g16_verify(&bls.vk, &bn.p, bn.w.w + 1, bn.k.n_public) == ZP_EMISMATCH, "BN254 proof, BLS12-381 vk");
	CHECK(zp_g16_verify(&bn.vk, &bls.p, bls.w.w + 1, bls.k.n_public) == ZP_EMISMATCH, "BLS12-381 proof, BN254 vk");
	CHECK(zp_g16_check_witness(&bn.k, &bls.w, "w") == ZP_EMISMATCH, "BLS12-381 witness, BN254 key");
	CHECK(zp_g16_check_witness(&bls.k, &bn.w, "w") == ZP_EMISMATCH, "BN254 witness, BLS12-381 key");
	zp_circuit c;
	zp_g16_key key;
	zp_g16_proof p;
	CHECK(zp_circuit_from_r1cs(&c, &bls.r) == 0 && memcmp(c.fingerprint, bn.k.circuit.fingerprint, 16), "fingerprints differ across curves");
	CHECK(zp_g16_key_init(&key, &bn.k, ZP_H_SNARKJS) == 0, "key");
	CHECK(zp_g16_prove(&p, &key, &c, bn.w.w, bn.w.n, NULL) == ZP_EMISMATCH, "BLS12-381 r1cs, BN254 key");
	zp_g16_key_free(&key);
	zp_circuit_free(&c);
	CHECK(zp_g16_key_init(&key, &bn.k, ZP_H_COEFF) == ZP_ERANGE, "BN254 key, coefficient H refused");
	/* a backend that declares no curves is a BLS12-381 one (the CUDA backend until it says BN254): it is
	 * refused a BN254 key before its create() runs; the CPU backends take both */
	zp_g16_backend_ops bls_only = zp_g16_backend_cpu;
	bls_only.curves = 0;
	bls_only.name = "bls-only";
	zp_g16_prover pr;
	CHECK(zp_g16_key_init(&key, &bn.k, ZP_H_SNARKJS) == 0, "key");
	CHECK(zp_g16_prover_init(&pr, &key, &bls_only) == ZP_ERANGE && pr.state == NULL, "BN254 key on a BLS12-381-only backend");
	CHECK(zp_g16_backend_supports(&zp_g16_backend_cpu, &key) == 0 && zp_g16_backend_supports(&zp_g16_backend_cpu_pipe, &key) == 0,
	      "the CPU backends prove BN254");
	zp_g16_key_free(&key);
	zp_g16_key bk;
	CHECK(zp_g16_key_init(&bk, &bls.k, ZP_H_SNARKJS) == 0 && zp_g16_backend_supports(&bls_only, &bk) == 0,
	      "a BLS12-381 key on it is fine");
	zp_g16_key_free(&bk);
	/* a tampered proof is invalid */
	p = bn.p;
	p.bn.c = bn.p.bn.a;
	CHECK(zp_g16_verify(&bn.vk, &p, bn.w.w + 1, bn.k.n_public) == ZP_EVERIFY, "tampered BN254 proof");
	printf("%s\n", test_failures ? "FAILED" : "ok");
	return test_failures ? 1 : 0;
}
