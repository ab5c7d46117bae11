/*
 * payload_zp.h — zkpipe's own slot payload "ZZPSL01" (payload_zp.c): one partition as synthd
 * writes it into a slot it owns FILLING and gpud reads it once the slot is READY.
 *
 *   [0, 4096)  struct zp_slot_payload (magic first)
 *   w          n_vars Fr (the witness), padded to 64 bytes
 *   a | b | c  domain Fr each: the constraints' A, B, C evaluated at w (has_c: the circuit knew
 *              C; otherwise c = a o b)
 * Offsets are relative to the slot; nothing in it points outside the slot.
 */
#ifndef ZP_PIPE_PAYLOAD_ZP_H
#define ZP_PIPE_PAYLOAD_ZP_H

#include <stdint.h>

#include "arena.h"

#define ZP_PAYLOAD_MAGIC 0x31304c53505a5aull /* "ZZPSL01" */
struct zp_slot_payload {
	uint64_t magic;
	uint64_t job_id;
	uint32_t part, n_vars, domain, n_public;
	uint8_t fingerprint[16];
	char key_id[ZP_KEY_ID_MAX];
	uint64_t off_w, off_a, off_b, off_c, bytes;
	uint32_t has_c, _pad;
};
/* Layout w | a | b | c after a 4 KiB header; returns total bytes. */
uint64_t zp_payload_layout(struct zp_slot_payload *p, uint32_t n_vars, uint32_t domain);

#endif
