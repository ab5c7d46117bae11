/*
 * stages.c — the span table of stages.h.
 */
#include <string.h>

#include "stages.h"

#define SUBMIT (-1)

static const struct { const char *name; int from, to; } spans[ZP_SPAN_COUNT] = {
	[ZP_SPAN_QUEUED]    = { "queued",    SUBMIT,            ZP_TS_CLAIMED },
	[ZP_SPAN_SLOT_WAIT] = { "slot_wait", ZP_TS_CLAIMED,     ZP_TS_SYNTH_START },
	[ZP_SPAN_SYNTH]     = { "synthesis", ZP_TS_SYNTH_START, ZP_TS_SYNTH_END },
	[ZP_SPAN_READY]     = { "ready",     ZP_TS_READY,       ZP_TS_COPY_START },
	[ZP_SPAN_COPY]      = { "copy",      ZP_TS_COPY_START,  ZP_TS_COPY_END },
	[ZP_SPAN_GPU]       = { "gpu",       ZP_TS_GPU_START,   ZP_TS_GPU_END },
	[ZP_SPAN_FINISH]    = { "finish",    ZP_TS_GPU_END,     ZP_TS_DONE },
	[ZP_SPAN_TOTAL]     = { "total",     SUBMIT,            ZP_TS_DONE },
};

const char *zp_span_name(unsigned span)
{
	return span < ZP_SPAN_COUNT ? spans[span].name : NULL;
}

int zp_span_bounds(unsigned span, const uint64_t ts[ZP_TS_COUNT], uint64_t submit_ns, uint64_t *t0, uint64_t *t1)
{
	if (span >= ZP_SPAN_COUNT)
		return 0;
	uint64_t a = spans[span].from == SUBMIT ? submit_ns : ts[spans[span].from], b = ts[spans[span].to];
	if (!a || !b || b < a)
		return 0;
	*t0 = a, *t1 = b;
	return 1;
}

int zp_stage_by_name(const char *name)
{
	for (unsigned s = 0; s < ZP_TS_COUNT; s++)
		if (!strcmp(zp_stage_name(s), name))
			return (int)s;
	return -1;
}
