/* links.c — the CUDA library compiles and links into a C program; without a GPU, exit 77 (skip). */
#include <stdio.h>
#include "zp_cuda.h"
#include "zp_err.h"

int main(void)
{
	char desc[256];
	int rc = zp_cuda_init(0, desc, sizeof desc);
	if (rc < 0) {
		printf("no usable GPU (%s): skip\n", zp_err_msg());
		return 77;
	}
	printf("%s\n", desc);
	/* a scratch-size query is host-only: exercise it */
	return zp_cuda_msm_scratch_size(0, 1 << 20, 0) > 0 ? 0 : 1;
}
