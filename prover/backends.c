/* backends.c — backend lookup by name (prover/backends.h).
 *
 * The CUDA backend lives in its own library (libzpprovercuda: backend_cuda.c, setup_cuda.c), which
 * only the programs that prove on a GPU link (zkpipe-gpud, zkpipe; meson's prover_cuda_dep, linked
 * whole). This file, in the CPU prover every program links, refers to it weakly: in a program without
 * it the symbols are NULL and "cuda" is refused as in a build without nvcc. */
#include <errno.h>
#include <string.h>

#include "backends.h"
#include "zp_err.h"

extern const zp_g16_backend_ops zp_g16_backend_cuda __attribute__((weak));
int zp_g16_backend_cuda_probe(char *desc, size_t desc_len) __attribute__((weak));

int zp_g16_backend_find(const zp_g16_backend_ops **be, const char *name)
{
	*be = NULL;
	if (!name || !strcmp(name, "cpu")) {
		*be = &zp_g16_backend_cpu;
		return 0;
	}
	if (strcmp(name, "cuda"))
		return zp_err_set(ZP_ERANGE, "unknown prover backend '%s' (cpu or cuda)", name);
	if (!&zp_g16_backend_cuda || !zp_g16_backend_cuda_probe)
		return zp_err_set(-ENOTSUP, "backend cuda: this build has no CUDA support (rebuild with nvcc on PATH: "
				  "meson setup -Dcuda=enabled)");
	char desc[160];
	int rc = zp_g16_backend_cuda_probe(desc, sizeof desc);
	if (rc)
		return rc;
	*be = &zp_g16_backend_cuda;
	return 0;
}
