/* tests/install/tiny.c — a program built against an installed libzkpipe (pkg-config zkpipe):
 * proves a witness with a .zkey, verifies the proof with verification_key.json, and checks that a
 * wrong public input is rejected.   usage: tiny KEY.zkey W.wtns VK.json */
#include <stdio.h>
#include <zkpipe.h>

int main(int argc, char **argv)
{
	zp_zkey k;
	zp_wtns w;
	zp_g16_key key;
	zp_g16_proof p;
	zp_g16_vk vk;
	int rc;
	if (argc != 4)
		return 2;
	if ((rc = zp_zkey_read(&k, argv[1])) || (rc = zp_wtns_read(&w, argv[2])) ||
	    (rc = zp_g16_key_init(&key, &k, ZP_H_SNARKJS)) || (rc = zp_g16_prove(&p, &key, &k.circuit, w.w, w.n, NULL)) ||
	    (rc = zp_g16_vk_read_json(&vk, argv[3]))) {
		fprintf(stderr, "tiny: %s\n", zp_err_msg());
		return 1;
	}
	rc = zp_g16_verify(&vk, &p, w.w + 1, k.n_public);
	zp_fr bad = w.w[1];
	zp_fr_add(&bad, &bad, &w.w[0]);   /* public input + 1 */
	w.w[1] = bad;
	int rc_bad = zp_g16_verify(&vk, &p, w.w + 1, k.n_public);
	printf("%s %s\n", rc == 0 ? "OK" : "INVALID", rc_bad == 0 ? "ACCEPTED-WRONG" : "REJECTED-WRONG");
	zp_g16_vk_free(&vk);
	zp_g16_key_free(&key);
	zp_wtns_free(&w);
	zp_zkey_free(&k);
	return rc == 0 && rc_bad != 0 ? 0 : 1;
}
