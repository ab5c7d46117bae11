/*
 * bits.cu — density bitmap → ascending index list (zp_cuda_bits_index, contract in zp_cuda.h).
 *
 * A bitmap of n bits is ⌈n/64⌉ u64 words, bit i in word i/64 at position i%64 (bellperson's
 * density order; bits at and past n in the last word are ignored). Three passes on the stream:
 *   1. count:  one thread a word writes its popcount to cnt[w]; cnt[words] = 0;
 *   2. scan:   CUB DeviceScan::ExclusiveSum over the words + 1 counts: off[w] = set bits before
 *              word w, off[words] = the total;
 *   3. write:  one thread a word writes its set bits' indices, ascending, at idx[off[w]...].
 * supraseal/ss_common.c zp_ss_bits_index is the same three passes on the host (CPU tests).
 * Temp layout (zp_cuda_bits_index_temp_size): cnt | off | CUB's temp storage, each 256-aligned.
 */
#include <cub/cub.cuh>
#include "cuda_impl.h"

static size_t bits_align(size_t x) { return (x + 255) & ~(size_t)255; }

static __device__ __forceinline__ uint64_t word_bits(const uint64_t *bits, size_t w, size_t n)
{
	uint64_t m = bits[w];
	size_t left = n - w * 64;
	if (left < 64)
		m &= (1ull << left) - 1;
	return m;
}

__global__ void bits_count_kernel(uint32_t *cnt, const uint64_t *bits, size_t n, size_t words)
{
	size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (w < words)
		cnt[w] = (uint32_t)__popcll(word_bits(bits, w, n));
	else if (w == words)
		cnt[w] = 0;
}

__global__ void bits_write_kernel(uint32_t *idx, const uint32_t *off, const uint64_t *bits, size_t n, size_t words)
{
	size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (w >= words)
		return;
	uint64_t m = word_bits(bits, w, n);
	uint32_t o = off[w], base = (uint32_t)(w * 64);
	while (m) {
		idx[o++] = base + (uint32_t)(__ffsll((long long)m) - 1);
		m &= m - 1;
	}
}

static size_t cub_scan_bytes(size_t items)
{
	size_t b = 0;
	cub::DeviceScan::ExclusiveSum(NULL, b, (uint32_t *)NULL, (uint32_t *)NULL, (int)items); /* the call's types */
	return b;
}

extern "C" size_t zp_cuda_bits_index_temp_size(size_t n)
{
	size_t words = (n + 63) / 64;
	return 2 * bits_align((words + 1) * sizeof(uint32_t)) + bits_align(cub_scan_bytes(words + 1));
}

extern "C" int zp_cuda_bits_index(uint32_t *d_idx, uint32_t *d_total, const uint64_t *d_bits, size_t n, void *d_tmp,
                                  size_t tmp_size, void *stream)
{
	int rc = 0;
	cudaStream_t st = (cudaStream_t)stream;
	size_t words = (n + 63) / 64, arr = bits_align((words + 1) * sizeof(uint32_t));
	if (n > 0xffffffffull)
		return zp_err_set(ZP_ERANGE, "bits_index: n = %zu bits (at most 2^32 - 1)", n);
	if (tmp_size < zp_cuda_bits_index_temp_size(n))
		return zp_err_set(ZP_ERANGE, "bits_index: temp %zu < %zu bytes", tmp_size, zp_cuda_bits_index_temp_size(n));
	uint32_t *cnt = (uint32_t *)d_tmp, *off = (uint32_t *)((char *)d_tmp + arr);
	void *cub_tmp = (char *)d_tmp + 2 * arr;
	size_t cub_bytes = cub_scan_bytes(words + 1);
	bits_count_kernel<<<zp_cdiv(words + 1, 256), 256, 0, st>>>(cnt, d_bits, n, words);
	ZP_CUDA_LAUNCHED();
	ZP_CUDA_TRY(cub::DeviceScan::ExclusiveSum(cub_tmp, cub_bytes, cnt, off, (int)(words + 1), st));
	if (words) {
		bits_write_kernel<<<zp_cdiv(words, 256), 256, 0, st>>>(d_idx, off, d_bits, n, words);
		ZP_CUDA_LAUNCHED();
	}
	ZP_CUDA_TRY(cudaMemcpyAsync(d_total, off + words, sizeof(uint32_t), cudaMemcpyDeviceToDevice, st));
	return 0;
err:
	return rc;
}
