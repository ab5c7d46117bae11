/*
 * r1cs.h — reader for circom's .r1cs (iden3 container, magic "r1cs", version 1).
 *
 *   §1 header: u32 n8 (32), prime[32] (must be BLS12-381 r), u32 nWires, u32 nOutputs,
 *      u32 nPubInputs, u32 nPrvInputs, u64 nLabels, u32 nConstraints
 *   §2 constraints: per constraint A, B, C linear combinations, each u32 nTerms then
 *      nTerms x (u32 wire, coef[32] normal-form LE)
 *   §3 wire -> label map (not needed to prove; size checked when present)
 *
 * The reader validates everything it reads (canonical coefficients, wires < nWires, section
 * sizes consumed exactly) and builds A, B, C as CSR with n_constraints rows.
 */
#ifndef ZP_R1CS_H
#define ZP_R1CS_H

#include <stddef.h>
#include <stdint.h>

#include "circuit.h"

typedef struct {
	uint32_t n_wires, n_outputs, n_pub_inputs, n_prv_inputs, n_constraints;
	uint64_t n_labels;
	zp_csr m[3];            /* values in Montgomery form of curve's Fr */
	const zp_curve *curve;  /* from §1's prime: BLS12-381 or BN254 */
} zp_r1cs;

int  zp_r1cs_parse(zp_r1cs *r, const uint8_t *data, size_t len, const char *name);
int  zp_r1cs_read(zp_r1cs *r, const char *path);
void zp_r1cs_free(zp_r1cs *r);
/* A header peek (nothing past the header is read): nWires and, when curve is not NULL, the curve (from
 * the prime: BLS12-381 or BN254). What the supervisor checks before it serves a key or takes a job. */
int  zp_r1cs_peek(const char *path, uint32_t *n_wires, const zp_curve **curve);

/* Compile: the r1cs's A, B, C plus the Groth16 public-input rows, padded to the domain. */
int  zp_circuit_from_r1cs(zp_circuit *c, const zp_r1cs *r);

#endif
