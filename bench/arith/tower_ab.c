/*
 * tower_ab — one Groth16 verification (zp_g16_verify: the CLI's and gpud's self-check) and one pairing of
 * the generators, for the vk's curve: process CPU time per call, the mean of N calls. Built outside meson
 * by tower_ab.sh against two build trees (old and new library), so both sides run the same driver.
 * Usage: tower_ab VK.json PROOF.json PUBLIC.json N   prints "verify_us pairing_us"
 */
#include "bn254.h"
#include "g16_json.h"
#include "pairing.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	zp_g16_vk vk;
	zp_g16_proof pr;
	zp_fr *pub;
	uint32_t npub;
	if (argc != 5 || zp_g16_vk_read_json(&vk, argv[1]) || zp_g16_proof_read_json_curve(vk.curve, &pr, argv[2]) ||
	    zp_g16_public_read_json_curve(vk.curve, &pub, &npub, argv[3])) {
		fprintf(stderr, "usage: tower_ab VK.json PROOF.json PUBLIC.json N (files readable, one curve)\n");
		return 2;
	}
	int n = atoi(argv[4]), bn = vk.curve && vk.curve->id == ZP_CURVE_BN254;
	if (zp_g16_verify(&vk, &pr, pub, npub) != 0) {
		fprintf(stderr, "tower_ab: the proof does not verify\n");
		return 1;
	}
	double t0 = cpu_us();
	for (int i = 0; i < n; i++)
		(void)zp_g16_verify(&vk, &pr, pub, npub);
	double t1 = cpu_us();
	for (int i = 0; i < n; i++) {
		if (bn) {
			zp_bn254_fp12 e;
			zp_bn254_pairing(&e, &ZP_BN254_G1_GEN, &ZP_BN254_G2_GEN);
		} else {
			zp_fp12 e;
			zp_pairing(&e, &ZP_G1_GEN, &ZP_G2_GEN);
		}
	}
	double t2 = cpu_us();
	printf("%.1f %.1f\n", (t1 - t0) / n, (t2 - t1) / n);
	free(pub);
	zp_g16_vk_free(&vk);
	return 0;
}
