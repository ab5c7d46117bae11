/*
 * ss_gather_gpu — gpud's device density gather (cuda/bits.cu zp_cuda_bits_index, then
 * zp_cuda_gather) against the host: the index list equals bits_index_model's, its total
 * zp_density_popcount, and the packed scalars zp_density_gather's, byte for byte, on every size and density
 * of bits_cases.h plus a 2^24-bit partition (timed). Also: a short temp buffer is refused.
 * Exit 77 without a GPU (CI).   usage: ss_gather_gpu [log2 of the large case, default 24]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>

#include "bits_cases.h"
#include "density.h"
#include "zp_cuda.h"
#include "zp_err.h"

#define CK(expr) do { cudaError_t e_ = (expr); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s: %s\n", #expr, cudaGetErrorString(e_)); exit(1); } } while (0)

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void *xcalloc(size_t n, size_t el)
{
	void *p = calloc(n ? n : 1, el);
	if (!p) { fprintf(stderr, "out of memory\n"); exit(1); }
	return p;
}

static int check(uint64_t n, enum bits_kind k, cudaStream_t st, int timed)
{
	uint64_t words = (n + 63) / 64;
	uint64_t *bits = xcalloc(words + 1, 8);
	uint32_t *idx = xcalloc(n + 1, 4), *off = xcalloc(words + 2, 4), *didx_h = xcalloc(n + 1, 4), tot = ~0u;
	zp_fr *src = xcalloc(n + 1, sizeof(zp_fr)), *g = xcalloc(n + 1, sizeof(zp_fr)), *h = xcalloc(n + 1, sizeof(zp_fr));
	bits_fill(bits, n, k);
	for (uint64_t i = 0; i < n; i++)
		for (int l = 0; l < 4; l++)
			src[i].l[l] = bits_next();
	uint64_t cnt = bits_index_model(idx, off, bits, n), ng = zp_density_gather(g, src, bits, n);
	uint64_t *d_bits;
	uint32_t *d_idx, *d_tot;
	zp_fr *d_src, *d_out;
	void *d_tmp;
	size_t tl = zp_cuda_bits_index_temp_size(n);
	CK(cudaMalloc((void **)&d_bits, (words + 1) * 8));
	CK(cudaMalloc((void **)&d_idx, (n + 1) * 4));
	CK(cudaMalloc((void **)&d_tot, 4));
	CK(cudaMalloc((void **)&d_src, (n + 1) * sizeof(zp_fr)));
	CK(cudaMalloc((void **)&d_out, (n + 1) * sizeof(zp_fr)));
	CK(cudaMalloc(&d_tmp, tl));
	CK(cudaMemcpy(d_bits, bits, words * 8, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_src, src, n * sizeof(zp_fr), cudaMemcpyHostToDevice));
	CK(cudaMemset(d_idx, 0xff, (n + 1) * 4));
	CK(cudaMemset(d_tot, 0xff, 4));
	CK(cudaDeviceSynchronize());
	int bad = 0;
	double t0 = now_ms();
	int r = zp_cuda_bits_index(d_idx, d_tot, d_bits, n, d_tmp, tl, st);
	if (r) {
		fprintf(stderr, "n %" PRIu64 " %s: zp_cuda_bits_index: %s\n", n, bits_kind_name[k], zp_err_msg());
		exit(1);
	}
	CK(cudaMemcpyAsync(&tot, d_tot, 4, cudaMemcpyDeviceToHost, st));
	CK(cudaStreamSynchronize(st));
	double t1 = now_ms();
	if (tot == cnt && (r = zp_cuda_gather(d_out, d_src, sizeof(zp_fr), d_idx, tot, 0, st))) {
		fprintf(stderr, "n %" PRIu64 " %s: zp_cuda_gather: %s\n", n, bits_kind_name[k], zp_err_msg());
		exit(1);
	}
	CK(cudaStreamSynchronize(st));
	double t2 = now_ms();
	CK(cudaMemcpy(didx_h, d_idx, (n + 1) * 4, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(h, d_out, cnt * sizeof(zp_fr), cudaMemcpyDeviceToHost));
	if (tot != cnt || cnt != zp_density_popcount(bits, n) || cnt != ng)
		bad = fprintf(stderr, "n %" PRIu64 " %s: device total %u, host %" PRIu64 ", popcount %" PRIu64 "\n", n,
			      bits_kind_name[k], tot, cnt, zp_density_popcount(bits, n));
	else if (memcmp(didx_h, idx, cnt * 4))
		bad = fprintf(stderr, "n %" PRIu64 " %s: device index list differs from the host's\n", n, bits_kind_name[k]);
	else if (cnt < n && didx_h[cnt] != ~0u)
		bad = fprintf(stderr, "n %" PRIu64 " %s: wrote past the list's end\n", n, bits_kind_name[k]);
	else if (memcmp(h, g, cnt * sizeof(zp_fr)))
		bad = fprintf(stderr, "n %" PRIu64 " %s: device gather differs from zp_density_gather\n", n, bits_kind_name[k]);
	if (timed)
		printf("n %" PRIu64 " %s: %" PRIu64 " set; index %.3f ms, gather %.3f ms%s\n", n, bits_kind_name[k], cnt,
		       t1 - t0, t2 - t1, bad ? " FAILED" : "");
	cudaFree(d_bits); cudaFree(d_idx); cudaFree(d_tot); cudaFree(d_src); cudaFree(d_out); cudaFree(d_tmp);
	free(bits); free(idx); free(off); free(didx_h); free(src); free(g); free(h);
	return bad ? 1 : 0;
}

/* A temp buffer shorter than zp_cuda_bits_index_temp_size is refused (ZP_ERANGE), nothing launched. */
static int short_temp(cudaStream_t st)
{
	size_t tl = zp_cuda_bits_index_temp_size(1000);
	int r = zp_cuda_bits_index((uint32_t *)8, (uint32_t *)8, (const uint64_t *)8, 1000, (void *)8, tl - 1, st);
	if (r != ZP_ERANGE) {
		fprintf(stderr, "short temp: %d, want ZP_ERANGE\n", r);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned big = argc > 1 ? (unsigned)atoi(argv[1]) : 24;
	int nd = 0;
	if (cudaGetDeviceCount(&nd) != cudaSuccess || nd == 0) {
		printf("ss_gather_gpu: no CUDA device: skipped\n");
		return 77;
	}
	cudaStream_t st;
	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	int fails = short_temp(st), cases = 1;
	for (size_t s = 0; s < sizeof bits_sizes / sizeof *bits_sizes; s++)
		for (int k = 0; k < BK_COUNT; k++, cases++)
			fails += check(bits_sizes[s], (enum bits_kind)k, st, 0);
	uint64_t n = (1ull << big) + 37;
	for (int k = 0; k < BK_COUNT; k++, cases++) /* warm-up on the first: its times include CUB's start */
		fails += check(n, (enum bits_kind)k, st, 1);
	printf("ss_gather_gpu: %d cases, %d failed\n", cases, fails);
	cudaStreamDestroy(st);
	return fails ? 1 : 0;
}
