/*
 * gpud_ss.h — zkpipe-gpud's support for bellperson partitions (payload "ZZPSS01", ss.h), linked
 * into zkpipe-gpud. gpud calls three hooks:
 *
 *   zp_ss_gpud_is_ours(slot data)   the payload is a bellperson partition: prove it with
 *   zp_ss_gpud_prove(d, slot, part) this module (takes it out of the slot — backend cuda with
 *                                   the arena registered: DMA straight to the device, else a
 *                                   copy to host buffers —, releases the slot, proves,
 *                                   self-verifies, writes part-<p>.proof.bin, marks DONE);
 *   zp_ss_gpud_tick(d)              every loop turn (rate-limited inside): load newly registered
 *                                   .params files (<run>/srs/), reclaim dead library callers
 *                                   (role CLIENT) and fail unfilled partitions of external jobs
 *                                   whose submitter is gone;
 *   zp_ss_gpud_exit()               free the keys.
 *
 * Keys are the .params vectors as they are in the file — a, b_g1, b_g2 without points at
 * infinity — and each partition's density bitmaps select the scalars (as supraseal-c2 does), so
 * nothing is expanded to one point per wire. H is bellperson's coefficient form: root family 7,
 * coset generator 7 (common/ntt.h), MSM over the n − 1 points of the file. The proof is
 * A = α + Σ a·A + r·δ, B = β + Σ b·B + s·δ, C = Σ aux·L + H + s·A + r·B1 − r·s·δ
 * (zp_g16_finish) with the caller's r, s, so it equals supraseal's for the same r, s.
 */
#ifndef ZP_GPUD_SS_H
#define ZP_GPUD_SS_H

#include <stdbool.h>

#include "daemon.h"

bool zp_ss_gpud_is_ours(const void *slot_data);
void zp_ss_gpud_prove(struct zp_daemon *d, zp_slot_h sh, zp_part_h ph);
void zp_ss_gpud_tick(struct zp_daemon *d);
void zp_ss_gpud_exit(void);

#endif
