/*
 * zkpipe-supraseal.h — the C ABI of libzkpipe-supraseal (installed; `pkg-config --cflags --libs
 * zkpipe-supraseal`): supranational's supraseal-c2 C ABI (c2/cuda/groth16_cuda.cu, groth16_srs.cuh,
 * sppark's RustError) and the split start/finish calls of curio's copy, answered by a running zkpipe
 * pipeline (docs/supraseal.md, docs/filecoin.md). Stand-alone: only <stdbool.h>, <stddef.h>,
 * <stdint.h>. The Rust crate rust/supraseal-c2 declares the same functions; supraseal/supraseal_abi.h
 * is the library's own view of them, in zkpipe's types (the same bytes, pinned by _Static_assert in both).
 *
 * Every function is thread-safe. Set ZKPIPE_CONFIG to the supervisor's config file first; the caller
 * runs as the supervisor's user (the arena is 0600).
 *
 * Bytes: a scalar is BLS12-381 Fr as 4 × u64 little-endian limbs in Montgomery form (R = 2^256), as
 * blstrs' Scalar; a proof is blst affine points A (G1), B (G2), C (G1): 6 × u64 LE limbs per Fp in
 * Montgomery form (R = 2^384), Fp2 = {c0, c1}, infinity all zero — 384 bytes. Bit vectors are u64
 * words, bit i of word i/64 = element i.
 * Errors: code 0 = success, else a positive errno (ENOENT key missing, EINVAL sizes/arguments,
 * ECONNREFUSED no pipeline, ETIMEDOUT no gpud for ZKPIPE_WAIT_S, EIO a partition failed, E2BIG,
 * EFBIG, EBADMSG) with a message the caller frees with free(3).
 */
#ifndef ZKPIPE_SUPRASEAL_H
#define ZKPIPE_SUPRASEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZKPIPE_SUPRASEAL_VERSION "0.1.0"

typedef struct {
	int code;      /* 0 = success, else a positive errno */
	char *message; /* NULL or malloc'ed: free(3) it */
} zkpipe_ss_error;

/* a registered .params key: one pointer to the library's reference-counted handle */
typedef struct {
	const void *ptr;
} zkpipe_ss_srs;

typedef struct {
	uint64_t limb[4];
} zkpipe_ss_fr;

typedef struct {
	uint64_t x[6], y[6];
} zkpipe_ss_g1_affine;

typedef struct {
	uint64_t x[2][6], y[2][6];
} zkpipe_ss_g2_affine;

typedef struct {
	zkpipe_ss_g1_affine a;
	zkpipe_ss_g2_affine b;
	zkpipe_ss_g1_affine c;
} zkpipe_ss_proof;

/* one partition as bellperson's ProvingAssignment holds it (17 words, supraseal-c2's order) */
typedef struct {
	const uint64_t *a_aux_density; /* aux wires in A */
	size_t a_aux_bit_len;          /* = aux_assignment_size */
	size_t a_aux_popcount;
	const uint64_t *b_inp_density; /* input wires in B */
	size_t b_inp_bit_len;          /* = inp_assignment_size */
	size_t b_inp_popcount;
	const uint64_t *b_aux_density; /* aux wires in B */
	size_t b_aux_bit_len;          /* = aux_assignment_size */
	size_t b_aux_popcount;
	const zkpipe_ss_fr *a; /* A·w, B·w, C·w over abc_size = constraints + inputs rows */
	const zkpipe_ss_fr *b;
	const zkpipe_ss_fr *c;
	size_t abc_size;
	const zkpipe_ss_fr *inp_assignment_data; /* ONE, then the public inputs */
	size_t inp_assignment_size;
	const zkpipe_ss_fr *aux_assignment_data;
	size_t aux_assignment_size;
} zkpipe_ss_assignment;

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(void *) == 8 && sizeof(size_t) == 8, "LP64 only, as supraseal-c2");
_Static_assert(sizeof(zkpipe_ss_error) == 16, "sppark RustError is two words");
_Static_assert(sizeof(zkpipe_ss_assignment) == 136, "Assignment is 17 words");
_Static_assert(sizeof(zkpipe_ss_proof) == 384, "groth16_proof is 384 bytes");
#endif

/* Registers the .params file at srs_path with the pipeline (gpud loads each file once for every
 * process). cache: one handle per path in this process (supraseal's cache); false: a new handle. */
zkpipe_ss_error create_SRS(zkpipe_ss_srs *ret, const char *srs_path, bool cache);
void evict_SRS(const zkpipe_ss_srs *srs);
void drop_SRS(zkpipe_ss_srs *srs);
zkpipe_ss_srs clone_SRS(const zkpipe_ss_srs *srs);

/* Proves num_circuits partitions with r_s[i], s_s[i] into proofs[i]; blocks until all are back.
 * gpu_mtx and gpu_index (curio's form; supranational's passes neither) are accepted and ignored:
 * zkpipe's gpud owns the devices. */
zkpipe_ss_error generate_groth16_proofs_c(const zkpipe_ss_assignment provers[], size_t num_circuits,
					  const zkpipe_ss_fr r_s[], const zkpipe_ss_fr s_s[], zkpipe_ss_proof proofs[],
					  const zkpipe_ss_srs *srs, void *gpu_mtx, int gpu_index);

/* curio's split calls. start copies every partition into the pipeline and returns a handle in
 * *pending_out: the caller's buffers are free as soon as it returns. finalize waits, writes the
 * proofs and frees the handle (also on error); destroy_pending_proof cancels and frees it. */
void *create_gpu_mutex(void);
void destroy_gpu_mutex(void *mtx);
zkpipe_ss_error generate_groth16_proofs_start_c(const zkpipe_ss_assignment provers[], size_t num_circuits,
						const zkpipe_ss_fr r_s[], const zkpipe_ss_fr s_s[],
						const zkpipe_ss_srs *srs, void *gpu_mtx, int gpu_index,
						void **pending_out);
zkpipe_ss_error finalize_groth16_proof_c(void *pending, zkpipe_ss_proof proofs[]);
void destroy_pending_proof(void *pending);

#ifdef __cplusplus
}
#endif

#endif
