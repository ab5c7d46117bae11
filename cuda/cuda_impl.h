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
#include "knobs.h"
#include "cuda_try.h"   /* ZP_CUDA_TRY: the one error macro */

/* After a kernel launch: catches launch-configuration errors at once. */
#define ZP_CUDA_LAUNCHED() ZP_CUDA_TRY(cudaGetLastError())

static inline unsigned zp_cdiv(size_t a, size_t b) { return (unsigned)((a + b - 1) / b); }

#endif
