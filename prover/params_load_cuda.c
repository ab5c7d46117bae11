/*
 * params_load_cuda.c — a .params decoding worker on the GPU (params_load.h's GPU path; CUDA builds only,
 * found by params_load.c through weak references as backends.c finds the CUDA backend).
 *
 * One worker per loader thread, each with its own stream and buffers: a chunk's raw bytes (already in a
 * page-locked read buffer) go up, cuda/params_check.cu decodes and checks every point (flags,
 * coordinates below q, on the curve, in the subgroup by endomorphism), the decoded points and one status
 * byte a point come back into page-locked buffers, and the worker copies the points into the
 * destination (the key region: its pages are faulted in by these copies, on every worker at once).
 * The first bad point's index comes back for the caller to name it (the CPU re-decodes it for the
 * message, and so confirms the GPU's verdict).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "knobs.h"
#include "params_load.h"
#include "zp_cuda.h"
#include "zp_err.h"

struct zp_params_gpu {
	void *st;
	void *d_in, *d_out, *h_out;
	uint8_t *d_st, *h_st;
	size_t cap;                /* bytes of one chunk */
};

void zp_params_gpu_close(zp_params_gpu *w)
{
	if (!w)
		return;
	if (w->st)
		zp_cuda_stream_sync(w->st);
	zp_cuda_free(w->d_in);
	zp_cuda_free(w->d_out);
	zp_cuda_free(w->d_st);
	zp_cuda_free_host(w->h_out);
	zp_cuda_free_host(w->h_st);
	zp_cuda_stream_destroy(w->st);
	free(w);
}

int zp_params_gpu_open(zp_params_gpu **out, size_t chunk)
{
	int dev, rc;
	*out = NULL;
	if ((rc = zp_cuda_device(&dev)) || (rc = zp_cuda_set_device(dev)))
		return rc;
	zp_params_gpu *w = calloc(1, sizeof *w);
	if (!w)
		return zp_err_set(-ENOMEM, ".params on the GPU: worker");
	w->cap = chunk;
	size_t pts = chunk / 96 + 1;
	if ((rc = zp_cuda_stream_create(&w->st)) || (rc = zp_cuda_alloc(&w->d_in, chunk, ".params on the GPU", "raw points")) ||
	    (rc = zp_cuda_alloc(&w->d_out, chunk, ".params on the GPU", "decoded points")) ||
	    (rc = zp_cuda_alloc((void **)&w->d_st, pts, ".params on the GPU", "statuses")) ||
	    (rc = zp_cuda_alloc_host(&w->h_out, chunk)) || (rc = zp_cuda_alloc_host((void **)&w->h_st, pts))) {
		zp_params_gpu_close(w);
		return rc;
	}
	*out = w;
	return 0;
}

int zp_params_gpu_host_alloc(void **p, size_t n)
{
	return zp_cuda_alloc_host(p, n);
}

void zp_params_gpu_host_free(void *p)
{
	zp_cuda_free_host(p);
}

int zp_params_gpu_decode(zp_params_gpu *w, int g2, const void *src, uint64_t n, void *dst, bool no_subgroup,
			 uint64_t *bad)
{
	size_t el = g2 ? 192 : 96, len = n * el; /* the decoded form is as large as the encoding */
	int rc;
	if (len > w->cap)
		return zp_err_set(ZP_ERANGE, ".params on the GPU: a chunk of %zu bytes (buffers of %zu)", len, w->cap);
	if ((rc = zp_cuda_copy_to_dev(w->d_in, src, len, w->st)) ||
	    (rc = zp_cuda_params_decode(g2, w->d_out, w->d_st, w->d_in, n, no_subgroup ? ZP_CUDA_PC_NO_SUBGROUP : 0, w->st)) ||
	    (rc = zp_cuda_copy_to_host(w->h_out, w->d_out, len, w->st)) ||
	    (rc = zp_cuda_copy_to_host(w->h_st, w->d_st, n, w->st)) || (rc = zp_cuda_stream_sync(w->st)))
		return rc;
	uint64_t i = 0, acc = 0;
	for (; i + 8 <= n; i += 8) { /* statuses are bytes, 0 = fine: eight at a time */
		memcpy(&acc, w->h_st + i, 8);
		if (acc)
			break;
	}
	for (; i < n; i++)
		if (w->h_st[i]) {
			*bad = i;
			return w->h_st[i];
		}
	memcpy(dst, w->h_out, len);
	return 0;
}
