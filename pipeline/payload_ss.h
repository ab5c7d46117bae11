/*
 * payload_ss.h — the Filecoin (bellperson) slot payload and its protocol, shared by the client
 * library that runs in the caller's process (supraseal/lib.c) and zkpipe-gpud (gpud/payload_ss.c),
 * beside zkpipe's own payload (pipe.h, struct zp_slot_payload).
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
 *   gpud writes part-<p>.proof.bin (zp_ss_proof, 384 bytes) and part-<p>.error (text) before
 *   failing a partition.
 */
#ifndef ZP_PAYLOAD_SS_H
#define ZP_PAYLOAD_SS_H

#include <limits.h>
#include <stdint.h>
#include <stddef.h>

#include "arena.h"
#include "field.h"

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

/* SRS id of a file (see above) and its realpath. */
int zp_ss_srs_id(const char *path, char id[ZP_KEY_ID_MAX], char real[PATH_MAX]);

/* The registration <run>/srs/<hex> (hex: the id's 16 digits) and its file's path (into path): 0 when that
 * file still has this id; 1 when there is no such registration; < 0 when it is stale — the file is gone
 * (its -errno), changed since (another size, mtime or inode: ZP_EMISMATCH), or the registration cannot be
 * read — zp_err naming the registration, the file and what happened. gpud does not load a stale one; the
 * supervisor, at start, removes it and its key regions, and keeps the regions of the current ones. */
struct zp_pipe_config;
int zp_ss_srs_registered(const struct zp_pipe_config *c, const char *hex, char path[PATH_MAX]);

#endif
