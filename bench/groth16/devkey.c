/*
 * g16_devkey — a snarkjs-format Groth16 .zkey for an .r1cs from toxic waste drawn from a seed.
 *
 *   g16_devkey CIRCUIT.r1cs OUT.zkey [seed]
 *
 * DEVELOPMENT AND BENCHMARKS ONLY: anyone who knows the seed can forge proofs. It exists because
 * snarkjs's own route (powers of tau + prepare phase2 in JavaScript) takes hours past 2^16 on a
 * small machine; snarkjs proves and verifies with the key this writes (bench/groth16/run.sh checks).
 *
 * With τ, α, β, γ, δ and the domain ω (snarkjs's, from 5) of size n:
 *   L_i(τ) = (τ^n − 1)·ω^i / (n·(τ − ω^i)),  u_j = Σ_i A[i][j]·L_i(τ) (v: B, w: C; the public rows
 *   nConstraints + s carry A[.][s] = 1),  K_j = β·u_j + α·v_j + w_j;
 *   A_j = u_j·G1, B1_j = v_j·G1, B2_j = v_j·G2, IC_j = K_j/γ·G1 (j <= nPublic), C_j = K_j/δ·G1;
 *   H_j = x_j·(τ^2n − 1) / (2n·δ·(τ − x_j))·G1 with x_j = ω_2n·ω^j — the odd-root basis: for h of
 *   degree < n, Σ_j (−2·h(x_j))·H_j = h(τ)·Z(τ)/δ, which is what snarkjs's prover relies on.
 * Points are computed with 8-bit fixed-base tables, in parallel. The curve is the r1cs's (BLS12-381 or
 * BN254, circom's bn128): the construction is devkey_tmpl.h, instantiated once per curve.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bn254.h"
#include "bn254_ntt.h"
#include "curve.h"
#include "ec.h"
#include "ntt.h"
#include "par.h"
#include "r1cs.h"
#include "zp_err.h"

#define BLK 1024

/* ---- writing the container ---- */
static void put32(FILE *f, uint32_t v) { fwrite(&v, 4, 1, f); }
static void put64(FILE *f, uint64_t v) { fwrite(&v, 8, 1, f); }
static void section(FILE *f, uint32_t id, uint64_t size) { put32(f, id); put64(f, size); }

/* BLS12-381 */
#define DK(x) bls_##x
#define DKFR(op) zp_fr_##op
#define DKG1(op) zp_g1_##op
#define DKG2(op) zp_g2_##op
#define DK_FRT zp_fr
#define DK_G1A zp_g1_affine
#define DK_G1J zp_g1_jac
#define DK_G2A zp_g2_affine
#define DK_G2J zp_g2_jac
#define DK_FR_ONE ZP_FR_ONE
#define DK_G1_GEN ZP_G1_GEN
#define DK_G2_GEN ZP_G2_GEN
#define DK_FP_MODULUS ZP_FP_MODULUS
#define DK_FP_BYTES 48
#define DK_FR_MODULUS ZP_FR_MODULUS
#define DK_NTT_ROOT(w, k) zp_ntt_root(w, k, ZP_NTT_ROOT5)
#include "devkey_tmpl.h"
#undef DK
#undef DKFR
#undef DKG1
#undef DKG2
#undef DK_FRT
#undef DK_G1A
#undef DK_G1J
#undef DK_G2A
#undef DK_G2J
#undef DK_FR_ONE
#undef DK_G1_GEN
#undef DK_G2_GEN
#undef DK_FP_MODULUS
#undef DK_FP_BYTES
#undef DK_FR_MODULUS
#undef DK_NTT_ROOT

/* BN254 (snarkjs's bn128) */
#define DK(x) bn254_##x
#define DKFR(op) zp_bn254_fr_##op
#define DKG1(op) zp_bn254_g1_##op
#define DKG2(op) zp_bn254_g2_##op
#define DK_FRT zp_bn254_fr
#define DK_G1A zp_bn254_g1_affine
#define DK_G1J zp_bn254_g1_jac
#define DK_G2A zp_bn254_g2_affine
#define DK_G2J zp_bn254_g2_jac
#define DK_FR_ONE ZP_BN254_FR_ONE
#define DK_G1_GEN ZP_BN254_G1_GEN
#define DK_G2_GEN ZP_BN254_G2_GEN
#define DK_FP_MODULUS ZP_BN254_FP_MODULUS
#define DK_FP_BYTES 32
#define DK_FR_MODULUS ZP_BN254_FR_MODULUS
#define DK_NTT_ROOT(w, k) zp_bn254_ntt_root(w, k)
#include "devkey_tmpl.h"

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: g16_devkey CIRCUIT.r1cs OUT.zkey [seed]   (development keys: insecure)\n");
		return 2;
	}
	uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 0) : 1;
	zp_r1cs r1;
	if (zp_r1cs_read(&r1, argv[1])) {
		fprintf(stderr, "g16_devkey: %s\n", zp_err_msg());
		return 3;
	}
	int rc = zp_curve_of(r1.curve)->id == ZP_CURVE_BN254 ? bn254_devkey(&r1, argv[2], seed)
							     : bls_devkey(&r1, argv[2], seed);
	zp_r1cs_free(&r1);
	return rc;
}
