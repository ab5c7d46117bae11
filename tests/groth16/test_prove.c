/* Prover and verifier on a circom2/snarkjs fixture (args: DIR NAME, files DIR/NAME.{zkey,wtns,r1cs}
 * and DIR/vk.json):
 *   - a proof verifies (self-check and zp_g16_verify from the zkey and from vk.json);
 *   - same r, s -> same bytes, run to run, across both H conventions (snarkjs odd-root
 *     points vs bellperson's coefficient query derived from them), from a reused prover and
 *     from a, b, c given directly;
 *   - a tampered proof and a wrong public input are rejected;
 *   - a witness of the wrong size, an r1cs of another circuit, an unsatisfying witness (named
 *     at its constraint with the r1cs; caught by the self-check without it) and a damaged key
 *     point give errors, no proof. */
#include "g16_json.h"
#include "groth16.h"
#include "r1cs.h"
#include "util.h"
#include "wtns.h"
#include "zkey.h"

static char path[4][512];

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "tests/groth16/data", *name = argc > 2 ? argv[2] : "mul";
	snprintf(path[0], sizeof(path[0]), "%s/%s.zkey", dir, name);
	snprintf(path[1], sizeof(path[1]), "%s/%s.wtns", dir, name);
	snprintf(path[2], sizeof(path[2]), "%s/%s.r1cs", dir, name);
	snprintf(path[3], sizeof(path[3]), "%s/vk.json", dir);
	zp_zkey k;
	zp_wtns w;
	zp_r1cs r1;
	zp_circuit cr;
	zp_g16_key ks, kc;
	zp_g16_vk vk, vkj;
	if (zp_zkey_read(&k, path[0]) || zp_wtns_read(&w, path[1]) || zp_r1cs_read(&r1, path[2]) ||
	    zp_circuit_from_r1cs(&cr, &r1) || zp_zkey_vk(&vk, &k) || zp_g16_vk_read_json(&vkj, path[3])) {
		fprintf(stderr, "fixture: %s\n", zp_err_msg());
		return 1;
	}
	CHECK(zp_g16_key_init(&ks, &k, ZP_H_SNARKJS) == 0, "key snarkjs");
	CHECK(zp_g16_key_init(&kc, &k, ZP_H_COEFF) == 0, "key coeff");
	zp_fr r, s;
	zp_fr_from_u64(&r, 123456789);
	zp_fr_from_dec(&s, "4242424242424242424242424242424242424242");
	zp_g16_prove_opts o = { .r = &r, .s = &s };
	zp_g16_proof p1, p2, p3, p4;
	CHECK(zp_g16_prove(&p1, &ks, &k.circuit, w.w, w.n, &o) == 0, "prove snarkjs H");
	CHECK(zp_g16_prove(&p2, &ks, &k.circuit, w.w, w.n, &o) == 0, "prove again");
	CHECK(zp_g16_prove(&p3, &kc, &cr, w.w, w.n, &o) == 0, "prove coeff H with r1cs");
	CHECK(zp_g16_prove(&p4, &ks, &k.circuit, w.w, w.n, NULL) == 0, "prove random r, s");
	CHECK(memcmp(&p1, &p2, sizeof(p1)) == 0, "not deterministic for fixed r, s");
	CHECK(memcmp(&p1, &p3, sizeof(p1)) == 0, "H conventions disagree");
	CHECK(memcmp(&p1, &p4, sizeof(p1)) != 0, "random r, s gave the fixed-r,s proof");
	/* one prover, several proofs; and from a, b, c computed outside (a synthesizer's slot) */
	zp_g16_prover pr;
	zp_g16_proof p5, p6;
	size_t n = k.domain_size;
	zp_fr *abc = calloc(3 * n, sizeof(zp_fr));
	CHECK(zp_g16_prover_init(&pr, &ks, NULL) == 0, "prover init");
	CHECK(zp_g16_prover_prove(&pr, &p5, &cr, w.w, w.n, &o) == 0, "prover prove");
	zp_circuit_eval(&cr, w.w, abc, abc + n, abc + 2 * n);
	CHECK(zp_g16_prover_prove_abc(&pr, &p6, w.w, w.n, abc, abc + n, abc + 2 * n, &o) == 0, "prove_abc");
	CHECK(memcmp(&p1, &p5, sizeof(p1)) == 0 && memcmp(&p1, &p6, sizeof(p1)) == 0, "prover reuse / abc differ");
	zp_g16_prover_free(&pr);
	free(abc);
	const zp_fr *pub = w.w + 1;
	CHECK(zp_g16_verify(&vk, &p1, pub, k.n_public) == 0, "verify (zkey vk)");
	CHECK(zp_g16_verify(&vkj, &p4, pub, k.n_public) == 0, "verify (vk.json)");

	/* tampered: pi_c replaced by pi_a (a valid point, wrong proof); wrong public input */
	zp_g16_proof bad = p1;
	bad.c = p1.a;
	CHECK(zp_g16_verify(&vk, &bad, pub, k.n_public) == ZP_EVERIFY, "tampered proof accepted");
	zp_fr *pub2 = malloc(k.n_public * sizeof(zp_fr));
	memcpy(pub2, pub, k.n_public * sizeof(zp_fr));
	zp_fr_add(&pub2[0], &pub2[0], &ZP_FR_ONE);
	CHECK(zp_g16_verify(&vk, &p1, pub2, k.n_public) == ZP_EVERIFY, "wrong public accepted");
	CHECK(zp_g16_verify(&vk, &p1, pub, k.n_public - 1) == ZP_EMISMATCH, "public count");
	/* off-curve pi_a */
	bad = p1;
	zp_fp_add(&bad.a.y, &bad.a.y, &ZP_FP_ONE);
	CHECK(zp_g16_verify(&vk, &bad, pub, k.n_public) == ZP_EINVAL_POINT, "off-curve accepted");

	/* witness size mismatch */
	CHECK(zp_g16_prove(&p2, &ks, &k.circuit, w.w, w.n - 1, &o) == ZP_EMISMATCH, "short witness");
	/* r1cs of another circuit: change one coefficient */
	zp_fr_add(&cr.m[0].val[0], &cr.m[0].val[0], &ZP_FR_ONE);
	zp_circuit_free(&cr);
	r1.m[0].val[0] = ZP_FR_ZERO;
	zp_fr_add(&r1.m[0].val[0], &r1.m[0].val[0], &ZP_FR_ONE);
	zp_fr_add(&r1.m[0].val[0], &r1.m[0].val[0], &ZP_FR_ONE);
	CHECK(zp_circuit_from_r1cs(&cr, &r1) == 0, "recompile");
	int rc = zp_g16_prove(&p2, &ks, &cr, w.w, w.n, &o);
	CHECK(rc == ZP_EMISMATCH && strstr(zp_err_msg(), "fingerprint"), "other circuit: %d", rc);
	zp_circuit_free(&cr);
	zp_r1cs_free(&r1);
	zp_r1cs_read(&r1, path[2]);
	zp_circuit_from_r1cs(&cr, &r1);
	/* unsatisfying witness: change the last wire (an internal signal) */
	zp_fr_add(&w.w[w.n - 1], &w.w[w.n - 1], &ZP_FR_ONE);
	rc = zp_g16_prove(&p2, &ks, &cr, w.w, w.n, &o);
	CHECK(rc == ZP_EUNSAT && strstr(zp_err_msg(), "constraint"), "unsat with r1cs: %d", rc);
	rc = zp_g16_prove(&p2, &ks, &k.circuit, w.w, w.n, &o);
	CHECK(rc == ZP_EVERIFY, "unsat without r1cs: %d", rc);
	CHECK(zp_g1_affine_is_inf(&p2.a) && zp_g1_affine_is_inf(&p2.c), "failed prove left a proof");

	/* a damaged key point (canonical coordinates, off the curve): no proof, the self-check says so */
	zp_fr_sub(&w.w[w.n - 1], &w.w[w.n - 1], &ZP_FR_ONE);   /* the witness is good again */
	CHECK(zp_g16_prove(&p2, &ks, &k.circuit, w.w, w.n, &o) == 0, "restored witness");
	zp_fp_add(&k.b1[w.n - 1].y, &k.b1[w.n - 1].y, &ZP_FP_ONE);
	rc = zp_g16_prove(&p2, &ks, &k.circuit, w.w, w.n, &o);
	CHECK(rc == ZP_EVERIFY, "damaged key point: %d", rc);

	free(pub2);
	zp_g16_key_free(&ks);
	zp_g16_key_free(&kc);
	zp_g16_vk_free(&vk);
	zp_g16_vk_free(&vkj);
	zp_circuit_free(&cr);
	zp_r1cs_free(&r1);
	zp_wtns_free(&w);
	zp_zkey_free(&k);
	if (test_failures)
		return 1;
	printf("prove ok (%s)\n", name);
	return 0;
}
