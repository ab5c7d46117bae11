/*
 * backends.h — choosing a Groth16 prover backend (prover/groth16.h's ops table) by name.
 *
 *   "cpu"   zp_g16_backend_cpu (always built)
 *   "cuda"  zp_g16_backend_cuda (prover/backend_cuda.c): only in builds with nvcc (have_cuda,
 *           ZP_HAVE_CUDA) and only where a CUDA device is present.
 *
 * zp_g16_backend_find() checks availability up front so that callers fail with one clear line
 * before loading keys: -ENOTSUP "not built with CUDA", -ENODEV "no CUDA device" (message in
 * zp_err_msg()), ZP_ERANGE for an unknown name. The device a CUDA backend uses is
 * ZP_CUDA_DEVICE (environment, default 0), read by its create().
 */
#ifndef ZP_BACKENDS_H
#define ZP_BACKENDS_H

#include "groth16.h"

#ifdef ZP_HAVE_CUDA
extern const zp_g16_backend_ops zp_g16_backend_cuda;
/* 0 when a CUDA device is usable (desc: a one-line description), else -ENODEV / ZP_ECUDA. */
int zp_g16_backend_cuda_probe(char *desc, size_t desc_len);
/* out (a zp_g1_jac, or zp_g2_jac when g2) = Σ s_i·P_i over device bases and scalars, as bucket MSMs
 * of at most `chunk` entries each (scratch sized for one chunk: zp_cuda_msm_scratch_size), chunk
 * results added on the host. What the backend's H MSM and gpud's supraseal partitions use. */
int zp_g16_cuda_msm_chunked(int g2, void *out, const void *d_bases, const zp_fr *d_scalars, size_t n, size_t chunk,
			    void *d_scratch, size_t scratch_len, void *stream);
#endif

int zp_g16_backend_find(const zp_g16_backend_ops **be, const char *name);

#endif
