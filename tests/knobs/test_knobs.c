/* The knobs (common/knobs.h): read once, at first use; zp_knobs_reload() reads again; each keeps its
 * reader's parsing; a bad checked knob fails zp_knob_get with ZP_ERANGE naming it, the default kept. */
#include <stdlib.h>
#include <string.h>

#include "../common/zp_test.h"
#include "knobs.h"
#include "zp_err.h"

int main(void)
{
	setenv("ZP_THREADS", "3", 1);
	setenv("ZP_MSM_BA", "0", 1);
	setenv("ZP_CUDA_BUFS", "7", 1);          /* out of [0, 2] */
	setenv("ZP_CUDA_DEVICE", "abc", 1);      /* not a number */
	setenv("ZP_CUDA_MEM_MARGIN_MB", "", 1);  /* empty = unset */
	unsetenv("ZP_MSM_IFMA");
	setenv("ZKPIPE_GPUD_PIPELINE", "1", 1);
	const zp_knobs_t *k = zp_knobs();
	CHECK(k->threads == 3, "ZP_THREADS=3 -> %d", k->threads);
	CHECK(k->msm_ba == 0, "ZP_MSM_BA=0 -> %d", k->msm_ba);
	CHECK(k->msm_ifma == 1, "a flag cleared by 0 is on when unset: %d", k->msm_ifma);
	CHECK(k->gpud_pipeline == 1, "ZKPIPE_GPUD_PIPELINE=1");
	CHECK(k->cuda_bufs.bad && zp_knob_get(&k->cuda_bufs, "test") == ZP_ERANGE && strstr(zp_err_msg(), "test: ZP_CUDA_BUFS=7"),
	      "bad ZP_CUDA_BUFS: %s", zp_err_msg());
	CHECK(k->cuda_bufs.v == 0, "a bad knob keeps its default");
	CHECK(k->cuda_device.bad && zp_knob_get(&k->cuda_device, "test") == ZP_ERANGE, "ZP_CUDA_DEVICE=abc is refused");
	CHECK(!k->cuda_mem_margin_mb.bad && k->cuda_mem_margin_mb.v == -1, "empty = default (-1: by the card)");
	CHECK(!k->cuda_mem_cap_mb.bad && k->cuda_mem_cap_mb.v == 0, "no cap by default");
	/* read once: a later change is not seen until a reload */
	setenv("ZP_THREADS", "5", 1);
	setenv("ZP_CUDA_BUFS", "2", 1);
	CHECK(zp_knobs()->threads == 3, "changed without a reload: %d", zp_knobs()->threads);
	zp_knobs_reload();
	CHECK(zp_knobs()->threads == 5, "after a reload: %d", zp_knobs()->threads);
	CHECK(!zp_knobs()->cuda_bufs.bad && zp_knobs()->cuda_bufs.v == 2 && zp_knob_get(&zp_knobs()->cuda_bufs, "test") == 0,
	      "ZP_CUDA_BUFS=2 after a reload");
	setenv("ZP_THREADS", "-4", 1);   /* ignored, as par.c always did */
	setenv("ZP_MSM_IFMA", "0", 1);
	zp_knobs_reload();
	CHECK(zp_knobs()->threads == 0, "ZP_THREADS=-4 -> %d", zp_knobs()->threads);
	CHECK(zp_knobs()->msm_ifma == 0, "ZP_MSM_IFMA=0 clears it: %d", zp_knobs()->msm_ifma);
	if (failures)
		return 1;
	printf("knobs: ok\n");
	return 0;
}
