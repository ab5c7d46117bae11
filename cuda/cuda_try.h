/*
 * cuda_try.h — the one CUDA error macro (internal to cuda/: the .cu files and runtime.c; nothing
 * outside cuda/ sees a cudaError_t). Needs cuda_runtime_api.h and zp_err.h before it.
 *
 * ZP_CUDA_TRY(expr): evaluate a CUDA runtime call; on failure record expr, file:line and CUDA's
 * message in zp_err_msg(), set rc = ZP_ECUDA and jump to the function's err: label.
 */
#ifndef ZP_CUDA_TRY_H
#define ZP_CUDA_TRY_H

#define ZP_CUDA_TRY(expr) do { \
	cudaError_t e_ = (expr); \
	if (e_ != cudaSuccess) { \
		rc = zp_err_set(ZP_ECUDA, "%s at %s:%d: %s", #expr, __FILE__, __LINE__, cudaGetErrorString(e_)); \
		goto err; \
	} \
} while (0)

#endif
