/*
 * stages.h — a partition's life as spans between its stage timestamps (shm/arena.h's
 * zp_stage, plus the job's submit time): what /metrics' duration histograms, `zkpipe
 * timeline`'s bars and the status page count, so the three always agree on what "copy" or
 * "finish" means.
 *
 *   queued     submit      → claimed      (no synthd free to take it)
 *   slot_wait  claimed     → synth_start  (synthd waits for a FREE slot)
 *   synthesis  synth_start → synth_end    (witness read + a, b, c into the slot)
 *   ready      ready       → copy_start   (READY, waiting for a gpud)
 *   copy       copy_start  → copy_end     (slot copied out / DMA'd, then released)
 *   gpu        gpu_start   → gpu_end      (H + MSMs)
 *   finish     gpu_end     → done         (finish, self-check, proof written)
 *   total      submit      → done
 * A gap between copy_end and gpu_start (device pipeline: the input set waits for the GPU) is
 * no stage of its own; the spans in order never overlap.
 */
#ifndef ZP_PIPE_STAGES_H
#define ZP_PIPE_STAGES_H

#include <stdint.h>

#include "arena.h"

enum zp_span {
	ZP_SPAN_QUEUED, ZP_SPAN_SLOT_WAIT, ZP_SPAN_SYNTH, ZP_SPAN_READY, ZP_SPAN_COPY, ZP_SPAN_GPU,
	ZP_SPAN_FINISH, ZP_SPAN_TOTAL, ZP_SPAN_COUNT,
};
#define ZP_SPAN_BARS ZP_SPAN_TOTAL /* the spans drawn as bars: all but total */

/* "queued", "slot_wait", ..., "total"; NULL past the end. */
const char *zp_span_name(unsigned span);
/* The span's bounds for one partition: ts[] by enum zp_stage (0 = not reached), submit_ns the
 * job's. 1 with *t0 <= *t1 when both ends were reached (in order), else 0. */
int zp_span_bounds(unsigned span, const uint64_t ts[ZP_TS_COUNT], uint64_t submit_ns, uint64_t *t0, uint64_t *t1);
/* enum zp_stage of a timestamp name ("claimed" ... "done", as zp_stage_name), or -1. */
int zp_stage_by_name(const char *name);

#endif
