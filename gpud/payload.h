/*
 * payload.h — slot payload kinds as plug-ins of gpud's loop (main.c). A READY slot's first 8
 * bytes (the magic) pick the kind; the loop then runs, for every kind alike:
 *
 *     check → take → release the slot → prove
 *
 * Each callback states its slot rule — what it may do with the slot and when the slot may be
 * released:
 *   check  reads the payload's header only and checks it against its key (counts, layout within
 *          the slot, fingerprint). Slot: held by gpud, read only. Nonzero: the partition cannot be
 *          proved (why says so; not retried); take is skipped.
 *   take   moves everything proving needs out of the slot — to the payload's host buffers or to a
 *          device input set — and wipes secrets it carries. Slot: held, read (secrets written
 *          over); when take returns, whatever it returns, nothing reads the slot any more and the
 *          loop releases it at once. >0: nothing to prove (the job ended meanwhile).
 *   prove  proves from what take kept (backend ops), self-checks, writes the proof files, marks the
 *          partition DONE — or fails it the kind's way (r < 0: check or take failed, why says
 *          why). Slot: released before prove is called; prove may hand the partition to the
 *          pipeline's threads and return at once.
 *   tick   (optional) each loop turn: the kind's housekeeping.
 */
#ifndef ZP_GPUD_PAYLOAD_H
#define ZP_GPUD_PAYLOAD_H

#include "gpud.h"

/* One partition from the slot to prove; ctx is the kind's (what take kept). */
struct gpud_part {
	zp_slot_h sh;
	zp_part_h ph;
	struct gpud_key *k;
	char why[ZP_ERRTXT_MAX];
	void *ctx;
};

struct gpud_payload {
	const char *name;
	uint64_t magic;                 /* 0: every payload no other kind claims */
	int  (*check)(struct gpud *g, const uint8_t *slot, struct gpud_part *pp);
	int  (*take)(struct gpud *g, uint8_t *slot, struct gpud_part *pp);
	void (*prove)(struct gpud *g, struct gpud_part *pp, int r);
	void (*tick)(struct gpud *g);
};

extern const struct gpud_payload gpud_payload_zp; /* "ZZPSL01" (payload_zp.c) */
extern const struct gpud_payload gpud_payload_ss; /* "ZZPSS01" (payload_ss.c) */

/* The tail of zkpipe's payload (payload_zp.c): fresh r, s, finish, self-check, proof files, DONE,
 * job assembly — for a partition of the pipeline (tail thread) and of the plain path alike. */
void gpud_zp_tail(struct gpud *g, struct gpud_flight *f);

#endif
