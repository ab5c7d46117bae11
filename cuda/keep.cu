/*
 * keep.cu — device memory that outlives the process that made it (zp_cuda.h, "kept device memory").
 *
 * CUDA's virtual memory management: cuMemCreate with a POSIX file-descriptor handle type makes a
 * physical allocation that is a kernel object of the NVIDIA driver; cuMemExportToShareableHandle gives
 * an fd for it. The allocation lives while any mapping or any such fd refers to it, in any process:
 * an fd held by a process that never touched CUDA (the supervisor) keeps the bytes on the device after
 * the process that made them is gone, and the next process imports the fd and maps the same bytes —
 * no copy. The driver's entry points come through the runtime (cudaGetDriverEntryPointByVersion): the
 * programs keep linking only the static runtime.
 *
 * The checksum is for what such memory may have met since it was made (a killed process's stray
 * writes): a position-keyed 64-bit mix of every word, summed (the order of blocks does not matter, a
 * word moved or changed does), at memory speed (~20 ms for 82 GiB on an H200).
 */
#include <cuda.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "cuda_impl.h"

namespace {

struct drv {
	decltype(&cuMemCreate) create;
	decltype(&cuMemRelease) release;
	decltype(&cuMemAddressReserve) reserve;
	decltype(&cuMemAddressFree) address_free;
	decltype(&cuMemMap) map;
	decltype(&cuMemUnmap) unmap;
	decltype(&cuMemSetAccess) set_access;
	decltype(&cuMemExportToShareableHandle) export_h;
	decltype(&cuMemImportFromShareableHandle) import_h;
	decltype(&cuMemGetAllocationGranularity) granularity;
	decltype(&cuDeviceGetAttribute) attribute;
	decltype(&cuGetErrorString) error_string;
	int rc;
	char why[200];
};

drv g_drv;
pthread_once_t g_once = PTHREAD_ONCE_INIT;

template <typename F> bool entry(const char *name, F *fn)
{
	cudaDriverEntryPointQueryResult q;
	void *p = nullptr;
	if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
	    q != cudaDriverEntryPointSuccess || !p) {
		(void)cudaGetLastError();
		snprintf(g_drv.why, sizeof g_drv.why, "the driver has no %s", name);
		return false;
	}
	*fn = reinterpret_cast<F>(p);
	return true;
}

void load(void)
{
	drv &d = g_drv;
	bool ok = entry("cuMemCreate", &d.create) && entry("cuMemRelease", &d.release) &&
		  entry("cuMemAddressReserve", &d.reserve) && entry("cuMemAddressFree", &d.address_free) &&
		  entry("cuMemMap", &d.map) && entry("cuMemUnmap", &d.unmap) && entry("cuMemSetAccess", &d.set_access) &&
		  entry("cuMemExportToShareableHandle", &d.export_h) &&
		  entry("cuMemImportFromShareableHandle", &d.import_h) &&
		  entry("cuMemGetAllocationGranularity", &d.granularity) && entry("cuDeviceGetAttribute", &d.attribute) &&
		  entry("cuGetErrorString", &d.error_string);
	d.rc = ok ? 0 : -ENOTSUP;
}

int err(CUresult r, const char *what)
{
	const char *s = nullptr;
	if (g_drv.error_string)
		g_drv.error_string(r, &s);
	return zp_err_set(r == CUDA_ERROR_OUT_OF_MEMORY ? -ENOMEM : -EIO, "kept device memory: %s: %s (%d)", what,
			  s ? s : "unknown CUDA error", (int)r);
}

/* What an allocation or an import of kept memory needs: the current device, its granularity and the
 * allocation's properties. */
struct kdev {
	int dev;
	size_t g;
	CUmemAllocationProp prop;
};

/* The driver's entry points and *k; the device must be able to export POSIX fds. */
int ready(kdev *k)
{
	pthread_once(&g_once, load);
	if (g_drv.rc)
		return zp_err_set(g_drv.rc, "kept device memory: %s", g_drv.why);
	if (cudaGetDevice(&k->dev) != cudaSuccess) {
		(void)cudaGetLastError();
		return zp_err_set(-ENODEV, "kept device memory: no current device");
	}
	int fd_ok = 0;
	CUresult r = g_drv.attribute(&fd_ok, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
				     (CUdevice)k->dev);
	if (r != CUDA_SUCCESS)
		return err(r, "cuDeviceGetAttribute");
	if (!fd_ok)
		return zp_err_set(-ENOTSUP, "kept device memory: device %d cannot export memory as file descriptors", k->dev);
	memset(&k->prop, 0, sizeof k->prop);
	k->prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	k->prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	k->prop.location.id = k->dev;
	k->prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	if ((r = g_drv.granularity(&k->g, &k->prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM)) != CUDA_SUCCESS)
		return err(r, "cuMemGetAllocationGranularity");
	return 0;
}

/* Map handle h (size bytes) at a new address readable and writable by dev. */
int map_new(void **d, CUmemGenericAllocationHandle h, size_t size, int dev)
{
	CUdeviceptr va = 0;
	CUresult r = g_drv.reserve(&va, size, 0, 0, 0);
	if (r != CUDA_SUCCESS)
		return err(r, "cuMemAddressReserve");
	if ((r = g_drv.map(va, size, 0, h, 0)) != CUDA_SUCCESS) {
		g_drv.address_free(va, size);
		return err(r, "cuMemMap");
	}
	CUmemAccessDesc acc;
	memset(&acc, 0, sizeof acc);
	acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	acc.location.id = dev;
	acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	if ((r = g_drv.set_access(va, size, &acc, 1)) != CUDA_SUCCESS) {
		g_drv.unmap(va, size);
		g_drv.address_free(va, size);
		return err(r, "cuMemSetAccess");
	}
	*d = (void *)va;
	return 0;
}

/* map_new, then release h: the mapping (and any exported fd) holds the allocation from here on. */
int map_release(void **d, CUmemGenericAllocationHandle h, size_t size, int dev)
{
	int rc = map_new(d, h, size, dev);
	g_drv.release(h);
	return rc;
}

__global__ void sum_kernel(const uint64_t *p, size_t n, unsigned long long *out)
{
	uint64_t acc = 0;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		uint64_t x = p[i] ^ (i * 0x9e3779b97f4a7c15ull);
		x ^= x >> 31;
		x *= 0xbf58476d1ce4e5b9ull;
		x ^= x >> 29;
		acc += x;
	}
	for (int o = 16; o; o >>= 1)
		acc += __shfl_down_sync(0xffffffffu, acc, o);
	if ((threadIdx.x & 31) == 0)
		atomicAdd(out, (unsigned long long)acc);
}

} // namespace

extern "C" size_t zp_cuda_dkeep_size(size_t bytes)
{
	kdev k;
	k.g = 0;
	if (ready(&k) || !k.g)
		return bytes;
	return (bytes + k.g - 1) / k.g * k.g;
}

extern "C" int zp_cuda_dkeep_alloc(void **d, size_t bytes, int *fd)
{
	kdev k;
	CUmemGenericAllocationHandle h;
	*d = nullptr;
	*fd = -1;
	int rc = ready(&k);
	if (rc)
		return rc;
	size_t size = (bytes + k.g - 1) / k.g * k.g;
	CUresult r = g_drv.create(&h, size, &k.prop, 0);
	if (r != CUDA_SUCCESS)
		return err(r, "cuMemCreate");
	int f = -1;
	if ((r = g_drv.export_h(&f, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0)) != CUDA_SUCCESS) {
		g_drv.release(h);
		return err(r, "cuMemExportToShareableHandle");
	}
	if ((rc = map_release(d, h, size, k.dev))) {
		close(f);
		return rc;
	}
	*fd = f;
	return 0;
}

extern "C" int zp_cuda_dkeep_import(void **d, size_t bytes, int fd)
{
	kdev k;
	CUmemGenericAllocationHandle h;
	*d = nullptr;
	int rc = ready(&k);
	if (rc)
		return rc;
	if (bytes % k.g)
		return zp_err_set(-EINVAL, "kept device memory: %zu bytes is not a multiple of the granularity %zu", bytes,
				  k.g);
	CUresult r = g_drv.import_h(&h, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	if (r != CUDA_SUCCESS)
		return err(r, "cuMemImportFromShareableHandle");
	return map_release(d, h, bytes, k.dev);
}

extern "C" void zp_cuda_dkeep_free(void *d, size_t bytes)
{
	if (!d || g_drv.rc || !g_drv.unmap)
		return;
	g_drv.unmap((CUdeviceptr)d, bytes);
	g_drv.address_free((CUdeviceptr)d, bytes);
}

extern "C" int zp_cuda_checksum(const void *d, size_t bytes, uint64_t *sum, void *stream)
{
	int rc = 0;
	unsigned long long *acc = nullptr, h = 0;
	cudaStream_t st = (cudaStream_t)stream;
	if (bytes % 8)
		return zp_err_set(-EINVAL, "checksum: %zu bytes is not a whole number of 64-bit words", bytes);
	ZP_CUDA_TRY(cudaMallocAsync((void **)&acc, sizeof *acc, st));
	ZP_CUDA_TRY(cudaMemsetAsync(acc, 0, sizeof *acc, st));
	if (bytes)
		sum_kernel<<<132 * 8, 512, 0, st>>>((const uint64_t *)d, bytes / 8, acc);
	ZP_CUDA_TRY(cudaGetLastError());
	ZP_CUDA_TRY(cudaMemcpyAsync(&h, acc, sizeof h, cudaMemcpyDeviceToHost, st));
	ZP_CUDA_TRY(cudaStreamSynchronize(st));
	*sum = h;
err:
	if (acc) {
		cudaFreeAsync(acc, st);
		cudaStreamSynchronize(st);
	}
	return rc;
}
