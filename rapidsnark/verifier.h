/*
 * verifier.h — rapidsnark's verifier interface, served by libzkpipe-rapidsnark (see prover.h).
 *
 * groth16_verify takes three NUL-terminated JSON texts: a proof (snarkjs's or rapidsnark's proof.json),
 * the public inputs (a non-empty array of decimal strings) and a verification key (snarkjs's
 * verification_key.json: protocol "groth16", curve "bn128" as rapidsnark, or "bls12381" as an
 * extension). Points are checked on the curve and in their subgroup, inputs must be < r.
 */
#ifndef ZKPIPE_RAPIDSNARK_VERIFIER_H
#define ZKPIPE_RAPIDSNARK_VERIFIER_H

#ifdef __cplusplus
extern "C" {
#endif

#define VERIFIER_VALID_PROOF   0x0
#define VERIFIER_INVALID_PROOF 0x1   /* well-formed, but the pairing check fails (or a point is off the curve/group) */
#define VERIFIER_ERROR         0x2   /* unreadable proof, inputs or key, or counts that do not match; see error_msg */

int groth16_verify(const char *proof, const char *inputs, const char *verification_key,
		   char *error_msg, unsigned long error_msg_maxsize);

#ifdef __cplusplus
}
#endif
#endif
