/*
 * ss.h — what libzkpipe-supraseal (in the caller's process) and zkpipe-gpud share for bellperson
 * partitions: the slot payload, the .params header scan, SRS ids and their registration files.
 *
 * SLOT PAYLOAD "ZZPSS01" (one partition, written by the library into a slot it owns FILLING):
 *   [0, 4096)  struct zp_ss_payload (magic first, at the same place as zp_slot_payload's)
 *   then, each at a 64-byte aligned offset: inp (inp_size Fr) | aux (aux_size Fr) | a | b | c
 *   (abc_size Fr each; not padded — the prover pads to the domain) | a_aux bits | b_inp bits |
 *   b_aux bits (u64 words, ⌈len/64⌉ each) | r, s (2 Fr).
 *   Scalars are zp_fr (Montgomery, = blstrs). Nothing in it points outside the slot.
 *
 * SRS ID: "ss:" + 16 hex digits of FNV-1a-64 over (realpath, st_dev, st_ino, st_size,
 *   st_mtime ns). The library writes <run>/srs/<16 hex> (the realpath, atomically) before the
 *   first job naming it; gpud loads every file listed there once (at its next tick) and keeps
 *   it. A changed file (new size / mtime) is a new id.
 *
 * JOB: flags ZP_JOB_EXTERNAL, key_id = SRS id, inputs = "supraseal:<pid>:<start time>" (the
 *   submitter, so a dead one's unfilled partitions can be failed), output = <run>/ss/<pid>.<n>.
 *   gpud writes part-<p>.proof.bin (zp_ss_proof, 384 bytes), the snarkjs JSON pair, and
 *   part-<p>.error (text) before failing a partition.
 */
#ifndef ZP_SS_H
#define ZP_SS_H

#include <stdint.h>
#include <stddef.h>

#include "arena.h"
#include "field.h"
#include "pipe.h"

#define ZP_SS_PAYLOAD_MAGIC 0x31305353505a5aull /* "ZZPSS01" */
#define ZP_SS_KEY_PREFIX "ss:"
#define ZP_SS_INPUT_PREFIX "supraseal:"

struct zp_ss_payload {
	uint64_t magic;
	uint64_t job_id;
	uint32_t part, _pad;
	char key_id[ZP_KEY_ID_MAX];
	uint64_t inp, aux, abc, domain;
	uint64_t a_aux_pop, b_inp_pop, b_aux_pop;
	uint64_t off_inp, off_aux, off_a, off_b, off_c, off_a_aux, off_b_inp, off_b_aux, off_rs;
	uint64_t bytes;
};
_Static_assert(sizeof(struct zp_ss_payload) <= 4096, "payload header fits its page");

/* Offsets for the counts in p (inp, aux, abc set); returns the total bytes. */
uint64_t zp_ss_payload_layout(struct zp_ss_payload *p);

/* Counts and offsets of a .params file (docs/keys.md §3), from its count fields alone. */
struct zp_ss_params_info {
	uint32_t n_ic, n_h, n_l, n_a, n_b1, n_b2;
	uint64_t off_ic, off_h, off_l, off_a, off_b1, off_b2; /* first point of each vector */
	uint64_t file_bytes;
	uint64_t domain;          /* n_h + 1, a power of two */
};
/* Scan path's count fields; ZP_EFORMAT / ZP_ETRUNC with a message naming the file. */
int zp_ss_params_scan(const char *path, struct zp_ss_params_info *info);

/* Set bits among the first `bits` of a density bit vector (u64 words, LSB first). */
uint64_t zp_ss_popcount(const uint64_t *w, uint64_t bits);

/* dst gets src[i] for every set bit i < n (ascending); returns how many (gpud's CPU gather). */
uint64_t zp_ss_gather(zp_fr *dst, const zp_fr *src, const uint64_t *bits, uint64_t n);

/* The GPU gather's index step (cuda/bits.cu, zp_cuda_bits_index) on the host, pass for pass: off
 * gets each word's popcount, then their exclusive sum (⌈n/64⌉ + 1 entries: room for that); idx
 * gets the indices i < n of the set bits, ascending, each word writing its run at off[word].
 * Returns how many (off[⌈n/64⌉]). The reference the GPU check and the CPU test compare with. */
uint64_t zp_ss_bits_index(uint32_t *idx, uint32_t *off, const uint64_t *bits, uint64_t n);

/* SRS id of a file (see above) and its realpath. */
int zp_ss_srs_id(const char *path, char id[ZP_KEY_ID_MAX], char real[PATH_MAX]);

#endif
