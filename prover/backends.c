/* backends.c — backend lookup by name (prover/backends.h). */
#include <errno.h>
#include <string.h>

#include "backends.h"
#include "zp_err.h"

int zp_g16_backend_find(const zp_g16_backend_ops **be, const char *name)
{
	*be = NULL;
	if (!name || !strcmp(name, "cpu")) {
		*be = &zp_g16_backend_cpu;
		return 0;
	}
	if (strcmp(name, "cuda"))
		return zp_err_set(ZP_ERANGE, "unknown prover backend '%s' (cpu or cuda)", name);
#ifdef ZP_HAVE_CUDA
	char desc[160];
	int rc = zp_g16_backend_cuda_probe(desc, sizeof desc);
	if (rc)
		return rc;
	*be = &zp_g16_backend_cuda;
	return 0;
#else
	return zp_err_set(-ENOTSUP, "backend cuda: this build has no CUDA support (rebuild with nvcc on PATH: "
			  "meson setup -Dcuda=enabled)");
#endif
}
