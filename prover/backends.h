/*
 * backends.h — choosing a Groth16 prover backend (prover/groth16.h's ops table) by name.
 *
 *   "cpu"   zp_g16_backend_cpu (always built)
 *   "cuda"  zp_g16_backend_cuda (prover/backend_cuda.c): only in builds with nvcc (have_cuda,
 *           ZP_HAVE_CUDA) and only where a CUDA device is present. Its compact (.params) keys prove
 *           through zp_g16_backend_cuda_params (the same prover, the density ops), which
 *           zp_g16_backend_for_key (groth16.h) picks by the key's format.
 *
 * zp_g16_backend_find() checks availability up front so that callers fail with one clear line
 * before loading keys: -ENOTSUP "not built with CUDA", -ENODEV "no CUDA device" (message in
 * zp_err_msg()), ZP_ERANGE for an unknown name. The device a CUDA backend uses is
 * ZP_CUDA_DEVICE (common/knobs.h, default 0), checked by cuda/runtime.c's zp_cuda_device(). The chunked
 * MSM driver the CUDA backend and gpud's supraseal path share is cuda/zp_cuda.h's zp_cuda_msm_chunked().
 */
#ifndef ZP_BACKENDS_H
#define ZP_BACKENDS_H

#include "groth16.h"

#ifdef ZP_HAVE_CUDA
extern const zp_g16_backend_ops zp_g16_backend_cuda;
extern const zp_g16_backend_ops zp_g16_backend_cuda_params;
/* 0 when a CUDA device is usable (desc: a one-line description), else -ENODEV / ZP_ECUDA. */
int zp_g16_backend_cuda_probe(char *desc, size_t desc_len);
#endif

int zp_g16_backend_find(const zp_g16_backend_ops **be, const char *name);

#endif
