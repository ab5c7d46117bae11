/* cuda_impl.h — helpers shared by the .cu files of cuda/ (not part of the API). */
#ifndef ZP_CUDA_IMPL_H
#define ZP_CUDA_IMPL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "zp_cuda.h"
#define _Static_assert static_assert   /* C11's spelling in common/'s headers */
extern "C" {
#include "curve.h"
}
extern "C" {
#include "zp_err.h"
}
#include "knobs.h"
#include "cuda_try.h"   /* ZP_CUDA_TRY: the one error macro */

/* After a kernel launch: catches launch-configuration errors at once. */
#define ZP_CUDA_LAUNCHED() ZP_CUDA_TRY(cudaGetLastError())

/* Per-curve entries of the zp_cuda_curve tables (msm.cu builds them), defined beside their kernels:
 * zp_cuda_bls_* (BLS12-381, the typed functions' code) in setup.cu, field.cu, ntt.cu; zp_cuda_bn_* the same
 * for BN254. */
#define ZP_CUDA_CURVE_IMPL(NS)                                                                               \
	size_t NS##_split_bases_scratch(int g2, size_t n);                                                   \
	int NS##_split_bases(int g2, void *d_out, const void *d_bases, size_t n, unsigned parts, void *d_scratch, \
	                     size_t len, void *stream);                                                      \
	int NS##_elementwise(enum zp_cuda_op op, void *out, const void *a, const void *b, size_t n);         \
	int NS##_ntt_create(zp_cuda_ntt_ctx **ctx, unsigned max_log, int roots);
ZP_CUDA_CURVE_IMPL(zp_cuda_bls)
ZP_CUDA_CURVE_IMPL(zp_cuda_bn)

static inline unsigned zp_cdiv(size_t a, size_t b) { return (unsigned)((a + b - 1) / b); }

#endif
