/*
 * supraseal_abi.h — the C ABI of supranational's supraseal-c2 (c2/src/lib.rs, c2/cuda/groth16_cuda.cu,
 * c2/cuda/groth16_srs.cuh, sppark util/rusterror.h) and of its split start/finish variant in
 * filecoin-project/curio extern/supraseal-c2, as libzkpipe-supraseal exports it.
 *
 * bellperson (feature cuda-supraseal) synthesizes each partition on the CPU and calls these
 * functions; libzkpipe-supraseal answers them by handing the partitions to a running zkpipe
 * pipeline (docs/supraseal.md). Only the declarations below are the contract; layouts are pinned by
 * _Static_assert (x86-64 / aarch64 LP64: pointers and size_t are 8 bytes).
 *
 * Scalars (fr_t / blstrs Scalar): 4 × u64 little-endian limbs, Montgomery form with R = 2^256 —
 *   the same bytes as zp_fr.
 * Points (groth16_proof): sppark affine_t = blst_p1_affine {fp_t X, Y}, 6 × u64 LE limbs each,
 *   Montgomery form with R = 2^384, infinity = all zero; fp2 = {c0, c1} — the same bytes as
 *   zp_g1_affine / zp_g2_affine (a blstrs G1Affine / G2Affine is a transparent wrapper of these).
 * Errors (sppark RustError, Rust sppark::Error): {int code; char *message}, returned by value in
 *   registers; code 0 = success; message NULL or a malloc'ed string the caller frees with free(3).
 *   libzkpipe-supraseal sets code to a positive errno (ENOENT, EINVAL, ECONNREFUSED, ...) and
 *   always attaches a message saying what went wrong.
 * SRS (Rust `struct SRS { ptr }`, C++ `class SRS { inner* ptr }`): one pointer to a reference-
 *   counted handle; clone_SRS returns it by value with the count raised, drop_SRS lowers it.
 */
#ifndef ZP_SUPRASEAL_ABI_H
#define ZP_SUPRASEAL_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ec.h"
#include "field.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZP_SS_EXPORT __attribute__((visibility("default")))

/* sppark RustError::by_value */
typedef struct {
	int code;
	char *message;
} zp_ss_error;

/* supraseal SRS (by reference: SRS&, by value: SRS::by_value) */
typedef struct {
	const void *ptr;
} zp_ss_srs;

/* supraseal Assignment<fr_t>: field order and types exactly as c2/src/lib.rs (#[repr(C)]) and
 * groth16_cuda.cu declare them. Bit vectors are u64 words, bit i of word i/64 = element i. */
typedef struct {
	/* Density of queries */
	const uint64_t *a_aux_density;   /* aux wires present in A */
	size_t a_aux_bit_len;            /* = aux_assignment_size */
	size_t a_aux_popcount;
	const uint64_t *b_inp_density;   /* input wires present in B */
	size_t b_inp_bit_len;            /* = inp_assignment_size */
	size_t b_inp_popcount;
	const uint64_t *b_aux_density;   /* aux wires present in B */
	size_t b_aux_bit_len;            /* = aux_assignment_size */
	size_t b_aux_popcount;
	/* Evaluations of A, B, C polynomials: abc_size = constraints + inputs (bellperson adds one
	 * constraint input_i · 0 = 0 per input), zero-padded to the domain by the prover */
	const zp_fr *a;
	const zp_fr *b;
	const zp_fr *c;
	size_t abc_size;
	/* Assignments of variables: inputs (ONE first), then auxiliary */
	const zp_fr *inp_assignment_data;
	size_t inp_assignment_size;
	const zp_fr *aux_assignment_data;
	size_t aux_assignment_size;
} zp_ss_assignment;

/* groth16_cuda.cu struct groth16_proof { affine_t a; affine_fp2_t b; affine_t c; } */
typedef struct {
	zp_g1_affine a;
	zp_g2_affine b;
	zp_g1_affine c;
} zp_ss_proof;

_Static_assert(sizeof(void *) == 8 && sizeof(size_t) == 8, "LP64 only, as supraseal-c2");
_Static_assert(sizeof(zp_ss_error) == 16 && offsetof(zp_ss_error, message) == 8, "RustError");
_Static_assert(sizeof(zp_ss_srs) == 8, "SRS is one pointer");
_Static_assert(sizeof(zp_fr) == 32, "fr_t is 32 bytes");
_Static_assert(offsetof(zp_ss_assignment, a_aux_density) == 0, "Assignment.a_aux_density");
_Static_assert(offsetof(zp_ss_assignment, a_aux_bit_len) == 8, "Assignment.a_aux_bit_len");
_Static_assert(offsetof(zp_ss_assignment, a_aux_popcount) == 16, "Assignment.a_aux_popcount");
_Static_assert(offsetof(zp_ss_assignment, b_inp_density) == 24, "Assignment.b_inp_density");
_Static_assert(offsetof(zp_ss_assignment, b_inp_bit_len) == 32, "Assignment.b_inp_bit_len");
_Static_assert(offsetof(zp_ss_assignment, b_inp_popcount) == 40, "Assignment.b_inp_popcount");
_Static_assert(offsetof(zp_ss_assignment, b_aux_density) == 48, "Assignment.b_aux_density");
_Static_assert(offsetof(zp_ss_assignment, b_aux_bit_len) == 56, "Assignment.b_aux_bit_len");
_Static_assert(offsetof(zp_ss_assignment, b_aux_popcount) == 64, "Assignment.b_aux_popcount");
_Static_assert(offsetof(zp_ss_assignment, a) == 72, "Assignment.a");
_Static_assert(offsetof(zp_ss_assignment, b) == 80, "Assignment.b");
_Static_assert(offsetof(zp_ss_assignment, c) == 88, "Assignment.c");
_Static_assert(offsetof(zp_ss_assignment, abc_size) == 96, "Assignment.abc_size");
_Static_assert(offsetof(zp_ss_assignment, inp_assignment_data) == 104, "Assignment.inp_assignment_data");
_Static_assert(offsetof(zp_ss_assignment, inp_assignment_size) == 112, "Assignment.inp_assignment_size");
_Static_assert(offsetof(zp_ss_assignment, aux_assignment_data) == 120, "Assignment.aux_assignment_data");
_Static_assert(offsetof(zp_ss_assignment, aux_assignment_size) == 128, "Assignment.aux_assignment_size");
_Static_assert(sizeof(zp_ss_assignment) == 136, "Assignment is 17 words");
_Static_assert(sizeof(zp_g1_affine) == 96 && sizeof(zp_g2_affine) == 192, "blst affine points");
_Static_assert(offsetof(zp_ss_proof, a) == 0 && offsetof(zp_ss_proof, b) == 96 && offsetof(zp_ss_proof, c) == 288,
	       "groth16_proof fields");
_Static_assert(sizeof(zp_ss_proof) == 384, "groth16_proof is 384 bytes");

/* ---- supra_seal c2 ---- */

/* Load (register with zkpipe's gpud) the .params file at srs_path. cache = true: share one
 * handle per path in this process (supraseal's LRU cache); false: a fresh handle. Either way
 * zkpipe's gpud loads a given file once and serves every process. */
ZP_SS_EXPORT zp_ss_error create_SRS(zp_ss_srs *ret, const char *srs_path, bool cache);
ZP_SS_EXPORT void evict_SRS(const zp_ss_srs *ref);
ZP_SS_EXPORT void drop_SRS(zp_ss_srs *ref);
ZP_SS_EXPORT zp_ss_srs clone_SRS(const zp_ss_srs *rhs);

/* Prove num_circuits partitions with randomness r_s[i], s_s[i] into proofs[i]. Blocks until all
 * are proved or one fails. curio's variant passes two more arguments (std::mutex *gpu_mtx,
 * int gpu_index) after srs; they are accepted and ignored (the caller cleans the stack on SysV
 * x86-64 and AAPCS64 alike), zkpipe's gpud picks the device. */
ZP_SS_EXPORT zp_ss_error generate_groth16_proofs_c(const zp_ss_assignment provers[], size_t num_circuits,
						   const zp_fr r_s[], const zp_fr s_s[], zp_ss_proof proofs[],
						   const zp_ss_srs *srs);

/* ---- curio split API ---- */
ZP_SS_EXPORT void *create_gpu_mutex(void);
ZP_SS_EXPORT void destroy_gpu_mutex(void *mtx);
/* Copies every partition into the pipeline's slots and returns; the caller's buffers are free
 * as soon as this returns (stronger than curio's contract, which keeps them until finish). */
ZP_SS_EXPORT zp_ss_error generate_groth16_proofs_start_c(const zp_ss_assignment provers[], size_t num_circuits,
							 const zp_fr r_s[], const zp_fr s_s[], const zp_ss_srs *srs,
							 void *gpu_mtx, int gpu_index, void **pending_out);
/* Waits for the proofs of a started call, writes them, frees the handle (also on error). */
ZP_SS_EXPORT zp_ss_error finalize_groth16_proof_c(void *handle, zp_ss_proof proofs[]);
/* Abandons a started call: its partitions are cancelled, the handle freed. */
ZP_SS_EXPORT void destroy_pending_proof(void *handle);

#ifdef __cplusplus
}
#endif

#endif
