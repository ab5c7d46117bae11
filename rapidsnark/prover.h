/*
 * prover.h — rapidsnark's prover interface, served by libzkpipe-rapidsnark (`pkg-config zkpipe-rapidsnark`).
 *
 * A program written against iden3/rapidsnark's library links this library instead and changes nothing
 * else: the same functions, argument types, return codes and JSON texts. Behind them is zkpipe's CPU
 * Groth16 prover (docs/rapidsnark.md). Keys are snarkjs .zkey files; witnesses circom .wtns files.
 *
 * Curves: BN254 (snarkjs/circom "bn128"), as rapidsnark; BLS12-381 ("bls12381") as an extension. The
 * curve is read from the zkey; a witness of the other curve is refused (PROVER_ERROR, both named).
 *
 * Outputs (NUL-terminated, compact JSON, keys sorted, as rapidsnark's nlohmann::json dump() writes):
 *   proof:  {"pi_a":["x","y","1"],"pi_b":[["x0","x1"],["y0","y1"],["1","0"]],"pi_c":["x","y","1"],
 *            "protocol":"groth16"}
 *   public: ["s1","s2",...]         decimal strings, wires 1..nPublic of the witness
 * Every proof is checked by a pairing before it is returned.
 *
 * Buffer sizes: groth16_proof_size gives rapidsnark's 810 bytes, enough for any BN254 proof; a
 * BLS12-381 proof is longer (381-bit coordinates) and gets PROVER_ERROR_SHORT_BUFFER with the required
 * size the first time. groth16_public_size_for_zkey_* give 82 bytes per public signal + 4 (both curves'
 * scalars have at most 78 digits).
 *
 * Error messages: when error_msg is not NULL and error_msg_maxsize > 0 a NUL-terminated message
 * (truncated to fit) is written on every failure.
 *
 * Threads: proofs use the process's CPUs (its affinity mask; ZP_THREADS=N caps it). A prover object may
 * be shared by threads; its proofs then run one at a time.
 */
#ifndef ZKPIPE_RAPIDSNARK_PROVER_H
#define ZKPIPE_RAPIDSNARK_PROVER_H

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes of the prover functions. */
#define PROVER_OK                     0x0
#define PROVER_ERROR                  0x1   /* see error_msg */
#define PROVER_ERROR_SHORT_BUFFER     0x2   /* *proof_size / *public_size now hold the sizes needed */
#define PROVER_INVALID_WITNESS_LENGTH 0x3   /* the witness's count differs from the key's nVars */

/* *public_size = the buffer size that holds the public signals' JSON for this zkey (header only). */
int groth16_public_size_for_zkey_buf(const void *zkey_buffer, unsigned long long zkey_size,
				     unsigned long long *public_size,
				     char *error_msg, unsigned long long error_msg_maxsize);
int groth16_public_size_for_zkey_file(const char *zkey_fname, unsigned long long *public_size,
				      char *error_msg, unsigned long long error_msg_maxsize);

/* *proof_size = 810, rapidsnark's proof buffer size (any BN254 proof fits). */
void groth16_proof_size(unsigned long long *proof_size);

/* A prover object for one key, reused by many proofs; free with groth16_prover_destroy. The zkey is
 * copied: the caller's buffer may be freed once this returns. */
int groth16_prover_create(void **prover_object, const void *zkey_buffer, unsigned long long zkey_size,
			  char *error_msg, unsigned long long error_msg_maxsize);
int groth16_prover_create_zkey_file(void **prover_object, const char *zkey_file_path,
				    char *error_msg, unsigned long long error_msg_maxsize);

/* Prove one witness. On entry *proof_size / *public_size are the buffers' sizes; on PROVER_OK they are
 * the lengths written (without the NUL); on PROVER_ERROR_SHORT_BUFFER they are the sizes required
 * (with the NUL) and nothing is written to the buffers. */
int groth16_prover_prove(void *prover_object, const void *wtns_buffer, unsigned long long wtns_size,
			 char *proof_buffer, unsigned long long *proof_size,
			 char *public_buffer, unsigned long long *public_size,
			 char *error_msg, unsigned long long error_msg_maxsize);

void groth16_prover_destroy(void *prover_object);

/* One-shot: create, prove, destroy. */
int groth16_prover(const void *zkey_buffer, unsigned long long zkey_size,
		   const void *wtns_buffer, unsigned long long wtns_size,
		   char *proof_buffer, unsigned long long *proof_size,
		   char *public_buffer, unsigned long long *public_size,
		   char *error_msg, unsigned long long error_msg_maxsize);
int groth16_prover_zkey_file(const char *zkey_file_path,
			     const void *wtns_buffer, unsigned long long wtns_size,
			     char *proof_buffer, unsigned long long *proof_size,
			     char *public_buffer, unsigned long long *public_size,
			     char *error_msg, unsigned long long error_msg_maxsize);

#ifdef __cplusplus
}
#endif
#endif
