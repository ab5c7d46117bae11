/*
 * runtime.c — the CUDA runtime behind C types (zp_cuda.h, "runtime"): device selection, streams and
 * events, device and page-locked memory, copies, host registration, sticky-error detection and the
 * chunked MSM driver. With the .cu files, the only code that calls the CUDA runtime (docs/DESIGN.md's
 * map; tests/map/map_check.py enforces it).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "ec.h"
#include "knobs.h"
#include "zp_cuda.h"
#include "zp_cuda_plan.h"
#include "zp_err.h"
#include "cuda_try.h"

/* The device ZP_CUDA_DEVICE names, checked; messages start with who. */
static int device_for(const char *who, int *dev)
{
	const zp_knob_num *k = &zp_knobs()->cuda_device;
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	*dev = -1;
	if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || (e == cudaSuccess && n == 0))
		return zp_err_set(-ENODEV, "%s: no CUDA GPU (or no NVIDIA driver) on this machine (%s)", who,
				  e == cudaSuccess ? "no devices" : cudaGetErrorString(e));
	if (e != cudaSuccess)
		return zp_err_set(-ENODEV, "%s: no usable CUDA GPU (%s)", who, cudaGetErrorString(e));
	if (k->bad)   /* not a device, as one past the count: "no usable device" (-ENODEV) */
		return zp_err_set(-ENODEV, "%s: ZP_CUDA_DEVICE=%s: not a device number (%d CUDA device(s))", who, k->raw, n);
	if (k->v >= n)
		return zp_err_set(-ENODEV, "%s: ZP_CUDA_DEVICE=%ld but %d CUDA device(s)", who, k->v, n);
	*dev = (int)k->v;
	return 0;
}

int zp_cuda_device(int *dev)
{
	return device_for("CUDA", dev);
}

int zp_cuda_device_count(void)
{
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess) {
		(void)cudaGetLastError();
		return 0;
	}
	return n;
}

int zp_cuda_probe(const char *who, char *desc, size_t desc_len)
{
	char tmp[160];
	int dev, rc = device_for(who, &dev);
	if (rc)
		return rc;
	return zp_cuda_init(dev, desc ? desc : tmp, desc ? desc_len : sizeof tmp);
}

int zp_cuda_set_device(int dev)
{
	int rc = 0;
	ZP_CUDA_TRY(cudaSetDevice(dev));
	return 0;
err:
	return rc;
}

int zp_cuda_device_sync(void)
{
	int rc = 0;
	ZP_CUDA_TRY(cudaDeviceSynchronize());
	return 0;
err:
	return rc;
}

int zp_cuda_stream_create(void **st)
{
	int rc = 0;
	cudaStream_t s = NULL;
	ZP_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	*st = s;
	return 0;
err:
	*st = NULL;
	return rc;
}

int zp_cuda_stream_create_high(void **st)
{
	int rc = 0, least = 0, greatest = 0;
	cudaStream_t s = NULL;
	ZP_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
	ZP_CUDA_TRY(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest));
	*st = s;
	return 0;
err:
	*st = NULL;
	return rc;
}

void zp_cuda_stream_destroy(void *st)
{
	if (st)
		cudaStreamDestroy((cudaStream_t)st);
}

int zp_cuda_stream_sync(void *st)
{
	int rc = 0;
	ZP_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)st));
	return 0;
err:
	return rc;
}

int zp_cuda_event_create(void **ev)
{
	int rc = 0;
	cudaEvent_t e = NULL;
	ZP_CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
	*ev = e;
	return 0;
err:
	*ev = NULL;
	return rc;
}

int zp_cuda_event_create_timed(void **ev)
{
	int rc = 0;
	cudaEvent_t e = NULL;
	ZP_CUDA_TRY(cudaEventCreate(&e));
	*ev = e;
	return 0;
err:
	*ev = NULL;
	return rc;
}

int zp_cuda_event_ms(float *ms, void *from, void *to)
{
	int rc = 0;
	ZP_CUDA_TRY(cudaEventElapsedTime(ms, (cudaEvent_t)from, (cudaEvent_t)to));
	return 0;
err:
	return rc;
}

void zp_cuda_event_destroy(void *ev)
{
	if (ev)
		cudaEventDestroy((cudaEvent_t)ev);
}

int zp_cuda_event_record(void *ev, void *st)
{
	int rc = 0;
	ZP_CUDA_TRY(cudaEventRecord((cudaEvent_t)ev, (cudaStream_t)st));
	return 0;
err:
	return rc;
}

int zp_cuda_event_sync(void *ev)
{
	int rc = 0;
	ZP_CUDA_TRY(cudaEventSynchronize((cudaEvent_t)ev));
	return 0;
err:
	return rc;
}

int zp_cuda_stream_wait(void *st, void *ev)
{
	int rc = 0;
	ZP_CUDA_TRY(cudaStreamWaitEvent((cudaStream_t)st, (cudaEvent_t)ev, 0));
	return 0;
err:
	return rc;
}

int zp_cuda_alloc(void **d, size_t bytes, const char *who, const char *what)
{
	cudaError_t e = cudaMalloc(d, bytes ? bytes : 1);
	if (e == cudaSuccess)
		return 0;
	size_t fr = 0, tot = 0;
	cudaGetLastError();   /* out of memory is not sticky: leave no error for the next call */
	cudaMemGetInfo(&fr, &tot);
	*d = NULL;
	return zp_err_set(e == cudaErrorMemoryAllocation ? -ENOMEM : ZP_ECUDA,
			  "%s: device memory for %s: %zu bytes needed, %zu of %zu free (%s)", who, what, bytes, fr, tot,
			  cudaGetErrorString(e));
}

void zp_cuda_free(void *d)
{
	if (d)
		cudaFree(d);
}

int zp_cuda_alloc_host(void **p, size_t bytes)
{
	int rc = 0;
	ZP_CUDA_TRY(cudaMallocHost(p, bytes));
	return 0;
err:
	*p = NULL;
	return rc;
}

void zp_cuda_free_host(void *p)
{
	if (p)
		cudaFreeHost(p);
}

int zp_cuda_mem_info(size_t *free_b, size_t *total_b)
{
	int rc = 0;
	ZP_CUDA_TRY(cudaMemGetInfo(free_b, total_b));
	return 0;
err:
	return rc;
}

static int copy(void *dst, const void *src, size_t len, enum cudaMemcpyKind kind, void *st)
{
	int rc = 0;
	if (st)
		ZP_CUDA_TRY(cudaMemcpyAsync(dst, src, len, kind, (cudaStream_t)st));
	else
		ZP_CUDA_TRY(cudaMemcpy(dst, src, len, kind));
	return 0;
err:
	return rc;
}

int zp_cuda_copy_to_dev(void *d, const void *h, size_t len, void *st)
{
	return copy(d, h, len, cudaMemcpyHostToDevice, st);
}

int zp_cuda_copy_to_host(void *h, const void *d, size_t len, void *st)
{
	return copy(h, d, len, cudaMemcpyDeviceToHost, st);
}

int zp_cuda_copy_on_dev(void *dst, const void *src, size_t len, void *st)
{
	return copy(dst, src, len, cudaMemcpyDeviceToDevice, st);
}

int zp_cuda_zero(void *d, size_t len, void *st)
{
	int rc = 0;
	ZP_CUDA_TRY(cudaMemsetAsync(d, 0, len, (cudaStream_t)st));
	return 0;
err:
	return rc;
}

/* Host ranges registered for direct DMA (set before the proving threads start; looked up per copy). */
static struct { char *p; size_t len; } regs[8];
static int n_regs;
static pthread_mutex_t regs_lock = PTHREAD_MUTEX_INITIALIZER;

int zp_cuda_host_registered(const void *p, size_t len)
{
	int yes = 0;
	pthread_mutex_lock(&regs_lock);
	for (int i = 0; i < n_regs && !yes; i++)
		yes = (const char *)p >= regs[i].p && (const char *)p + len <= regs[i].p + regs[i].len;
	pthread_mutex_unlock(&regs_lock);
	return yes;
}

int zp_cuda_host_register(void *p, size_t len)
{
	int rc = 0, dev;
	if (zp_knobs()->cuda_no_register) /* tests: the staging fallback, as under a small memlock limit */
		return zp_err_set(-EPERM, "CUDA: host registration disabled (ZP_CUDA_NO_REGISTER)");
	if (n_regs == (int)(sizeof regs / sizeof regs[0]))
		return zp_err_set(ZP_EFULL, "CUDA: %d host ranges registered already", n_regs);
	if ((rc = zp_cuda_device(&dev)))
		return rc;
	ZP_CUDA_TRY(cudaSetDevice(dev));
	ZP_CUDA_TRY(cudaHostRegister(p, len, cudaHostRegisterDefault));   /* memlock limit? see ulimit -l */
	pthread_mutex_lock(&regs_lock);
	regs[n_regs].p = p;
	regs[n_regs].len = len;
	n_regs++;
	pthread_mutex_unlock(&regs_lock);
	return 0;
err:
	cudaGetLastError(); /* not sticky: clear it */
	return rc;
}

void zp_cuda_host_unregister(void *p)
{
	pthread_mutex_lock(&regs_lock);
	for (int i = 0; i < n_regs; i++)
		if (regs[i].p == p) {
			cudaHostUnregister(p);
			regs[i] = regs[--n_regs];
			break;
		}
	pthread_mutex_unlock(&regs_lock);
}

int zp_cuda_host_pin_ro(const void *p, size_t len)
{
	if (len && cudaHostRegister((void *)p, len, cudaHostRegisterReadOnly) == cudaSuccess)
		return 0;
	(void)cudaGetLastError(); /* a refused registration only makes the staging copies slower */
	return -1;
}

int zp_cuda_host_pin(void *p, size_t len)
{
	if (len && cudaHostRegister(p, len, cudaHostRegisterDefault) == cudaSuccess)
		return 0;
	(void)cudaGetLastError(); /* a refused registration only means pageable copies */
	return -1;
}

void zp_cuda_host_unpin(const void *p)
{
	if (p)
		cudaHostUnregister((void *)p);
}

/* Errors after which the CUDA context is unusable (every later call fails the same way). */
static int sticky(cudaError_t e)
{
	switch (e) {
	case cudaErrorIllegalAddress: case cudaErrorLaunchFailure: case cudaErrorHardwareStackError:
	case cudaErrorIllegalInstruction: case cudaErrorMisalignedAddress: case cudaErrorInvalidAddressSpace:
	case cudaErrorInvalidPc: case cudaErrorAssert: case cudaErrorECCUncorrectable: case cudaErrorLaunchTimeout:
	case cudaErrorContextIsDestroyed: case cudaErrorDevicesUnavailable: case cudaErrorUnknown:
		return 1;
	default:
		return 0;
	}
}

int zp_cuda_fatal(void)
{
	int dev = (int)zp_knobs()->cuda_device.v;
	cudaError_t e = cudaSetDevice(dev);
	if (!sticky(e))
		e = cudaGetLastError();
	if (!sticky(e))
		e = cudaDeviceSynchronize();
	if (!sticky(e))
		cudaGetLastError();
	return sticky(e);
}

void zp_cuda_clear_error(void)
{
	(void)cudaGetLastError();
}

/* ---- the chunked MSM driver, for either curve (zp_cuda_curve: its kernels and its host Jacobian sums) ---- */

static size_t msm_bytes(const zp_cuda_curve *cc, int g2, size_t n, unsigned parts, unsigned p)
{
	size_t b = parts > 1 ? cc->split_scratch(g2, n, parts, 0, p) : cc->msm_scratch(g2, n, 0, p);
	return b ? b : SIZE_MAX;
}

int zp_cuda_curve_msm_passes(const zp_cuda_curve *cc, int g2, size_t n, unsigned parts, size_t len)
{
	unsigned w = parts > 1 ? cc->split_windows(n, parts, 0) : cc->msm_windows(g2, n, 0);
	if (w && msm_bytes(cc, g2, n, parts, 0) <= len)
		return 0;
	for (unsigned p = w; p >= 1; p--)
		if (msm_bytes(cc, g2, n, parts, p) <= len)
			return (int)p;
	return -1;
}

int zp_cuda_msm_passes(int g2, size_t n, unsigned parts, size_t len)
{
	return zp_cuda_curve_msm_passes(&zp_cuda_curve_bls12_381, g2, n, parts, len);
}

int zp_cuda_curve_msm_add(const zp_cuda_curve *cc, void *stream, int g2, void *acc, const void *d_bases,
			  const void *d_sc, size_t n, void *scratch, size_t len)
{
	zp_cuda_msm_opts o = { .window = 0, .stream = stream };
	uint64_t r[3 * 2 * 8];   /* a Jacobian G2 point of either curve (BLS12-381: 288 bytes) */
	int rc, p = zp_cuda_curve_msm_passes(cc, g2, n, 1, len);
	if (p < 0)
		return zp_err_set(ZP_ERANGE, "msm: %zu bytes of scratch cannot hold one window of %zu entries", len, n);
	o.pass_windows = (unsigned)p;
	if ((rc = cc->msm(g2, r, d_bases, d_sc, n, scratch, len, &o)))
		return rc;
	cc->jac_add(g2, acc, r);
	return 0;
}

int zp_cuda_msm_add(void *stream, int g2, void *acc, const void *d_bases, const zp_fr *d_sc, size_t n,
		       void *scratch, size_t len)
{
	return zp_cuda_curve_msm_add(&zp_cuda_curve_bls12_381, stream, g2, acc, d_bases, d_sc, n, scratch, len);
}

int zp_cuda_curve_msm_chunked(const zp_cuda_curve *cc, int g2, void *out, const void *d_bases, const void *d_sc,
			      size_t n, size_t chunk, void *scratch, size_t len, void *stream)
{
	size_t esz = cc->aff_bytes[g2];
	int rc;
	cc->jac_set_inf(g2, out);
	if (!chunk)
		return zp_err_set(ZP_ERANGE, "msm: chunk of 0 entries");
	for (size_t off = 0; off < n; off += chunk) {
		size_t m = n - off < chunk ? n - off : chunk;
		if ((rc = zp_cuda_curve_msm_add(cc, stream, g2, out, (const uint8_t *)d_bases + off * esz,
						(const uint8_t *)d_sc + off * cc->fr_bytes, m, scratch, len)))
			return rc;
	}
	return 0;
}

int zp_cuda_msm_chunked(int g2, void *out, const void *d_bases, const zp_fr *d_sc, size_t n, size_t chunk,
			void *scratch, size_t len, void *stream)
{
	return zp_cuda_curve_msm_chunked(&zp_cuda_curve_bls12_381, g2, out, d_bases, d_sc, n, chunk, scratch, len,
					 stream);
}

const zp_cuda_sizes zp_cuda_sizes_device = {
	.msm_scratch = zp_cuda_msm_scratch_size_passes,
	.msm_windows = zp_cuda_msm_windows,
	.split_scratch = zp_cuda_msm_split_scratch_size,
	.split_windows = zp_cuda_msm_split_windows,
	.split_bases_scratch = zp_cuda_msm_split_bases_scratch_size,
	.bits_scratch = zp_cuda_msm_bits_scratch_size,
	.nonbits_temp = zp_cuda_nonbits_temp_size,
};
