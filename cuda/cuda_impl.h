/* cuda_impl.h — helpers shared by the .cu files of cuda/ (not part of the API). */
#ifndef ZP_CUDA_IMPL_H
#define ZP_CUDA_IMPL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "zp_cuda.h"
extern "C" {
#include "zp_err.h"
}

/* Evaluate a CUDA runtime call; on failure record expr, file:line and CUDA's message, set
 * rc = ZP_ECUDA and jump to the function's err: label. */
#define ZP_CUDA_TRY(expr) do { \
	cudaError_t e_ = (expr); \
	if (e_ != cudaSuccess) { \
		rc = zp_err_set(ZP_ECUDA, "%s at %s:%d: %s", #expr, __FILE__, __LINE__, cudaGetErrorString(e_)); \
		goto err; \
	} \
} while (0)
/* After a kernel launch: catches launch-configuration errors at once. */
#define ZP_CUDA_LAUNCHED() ZP_CUDA_TRY(cudaGetLastError())

static inline unsigned zp_cdiv(size_t a, size_t b) { return (unsigned)((a + b - 1) / b); }

#endif
