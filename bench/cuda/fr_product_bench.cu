/*
 * fr_product_bench.cu — Fr products a second on the GPU: the integer product of cuda/ff.cuh (FMA-heavy
 * pipe), the FP64-limb product of cuda/ff_f64.cuh (FP64 pipe) and mixes of the two by warp (the four warps
 * 4g..4g+3, one on each scheduler, take the FP64 product when g mod M < F), to see whether the idle FP64 pipe can carry part of the NTT's
 * products. Each thread runs a chain a <- a·w_i of `iters` products on random data; CUDA events around
 * each launch after a warm-up, median of 5. Every mix must leave the same bytes as the integer product
 * (checked). Prints a table. Usage: fr_product_bench [iters] [blocks_per_sm]. A benchmark, never a test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <cuda_runtime.h>
#include "ff.cuh"
#include "ff_f64.cuh"

#define CU(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void __launch_bounds__(256)
k_chain(fr_t *x, const fr_t *w, int iters, int fmod, int fcnt)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	fr_t a = x[i], b = w[i];
	/* groups of 4 consecutive warps (one per scheduler: warp w runs on scheduler w mod 4), so that every
	 * scheduler sees both kinds; warp-uniform */
	bool fp = (int)((i >> 7) % (unsigned)fmod) < fcnt;
	if (fp) {
		for (int r = 0; r < iters; r++) { fr_t t; f64::fr_mul_f64(t.l, a.l, b.l); a = t; }
	} else {
		for (int r = 0; r < iters; r++) a = a * b;
	}
	x[i] = a;
}

static uint64_t st = 0x9e3779b97f4a7c15ull;
static uint32_t rnd32(void) { st ^= st << 13; st ^= st >> 7; st ^= st << 17; return (uint32_t)st; }

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 1000, per_sm = argc > 2 ? atoi(argv[2]) : 8;
	int dev = 0, sms = 0;
	cudaDeviceProp prop;
	CU(cudaGetDevice(&dev));
	CU(cudaGetDeviceProperties(&prop, dev));
	sms = prop.multiProcessorCount;
	size_t n = (size_t)sms * per_sm * 256;
	const uint32_t P[8] = ZP_C_FR_P;
	fr_t *h = (fr_t *)malloc(2 * n * sizeof(fr_t)), *out = (fr_t *)malloc(n * sizeof(fr_t)), *ref = (fr_t *)malloc(n * sizeof(fr_t));
	for (size_t i = 0; i < 2 * n; i++) {
		do { for (int j = 0; j < 8; j++) h[i].l[j] = rnd32(); h[i].l[7] &= 0x7fffffffu; }
		while (h[i].l[7] > P[7] || (h[i].l[7] == P[7] && h[i].l[6] >= P[6]));   /* < p (coarse) */
	}
	fr_t *d_x0, *d_x, *d_w;
	CU(cudaMalloc(&d_x0, n * sizeof(fr_t)));
	CU(cudaMalloc(&d_x, n * sizeof(fr_t)));
	CU(cudaMalloc(&d_w, n * sizeof(fr_t)));
	CU(cudaMemcpy(d_x0, h, n * sizeof(fr_t), cudaMemcpyHostToDevice));
	CU(cudaMemcpy(d_w, h + n, n * sizeof(fr_t), cudaMemcpyHostToDevice));
	cudaEvent_t e0, e1;
	CU(cudaEventCreate(&e0));
	CU(cudaEventCreate(&e1));
	struct { const char *name; int fmod, fcnt; } mix[] = {
		{ "integer (FMA-heavy)", 1, 0 }, { "FP64 limbs", 1, 1 }, { "1/4 FP64", 4, 1 }, { "1/3 FP64", 3, 1 },
		{ "1/2 FP64", 2, 1 }, { "2/3 FP64", 3, 2 },
	};
	int nm = sizeof mix / sizeof mix[0], bad = 0;
	double base = 0;
	printf("# fr_product_bench: %d SMs, %zu threads (%d blocks of 256 an SM), %d chained products a thread, %s\n",
	       sms, n, per_sm, iters, prop.name);
	printf("| product | ms (median of 5) | G products/s | vs integer | bytes == integer |\n|---|---:|---:|---:|---|\n");
	for (int m = 0; m < nm; m++) {
		float t[5];
		for (int r = -1; r < 5; r++) {
			CU(cudaMemcpy(d_x, d_x0, n * sizeof(fr_t), cudaMemcpyDeviceToDevice));
			CU(cudaEventRecord(e0));
			k_chain<<<(unsigned)(n / 256), 256>>>(d_x, d_w, iters, mix[m].fmod, mix[m].fcnt);
			CU(cudaGetLastError());
			CU(cudaEventRecord(e1));
			CU(cudaEventSynchronize(e1));
			if (r >= 0) CU(cudaEventElapsedTime(&t[r], e0, e1));
		}
		std::sort(t, t + 5);
		CU(cudaMemcpy(m == 0 ? ref : out, d_x, n * sizeof(fr_t), cudaMemcpyDeviceToHost));
		int same = m == 0 || !memcmp(out, ref, n * sizeof(fr_t));
		bad |= !same;
		double gps = (double)n * iters / (t[2] * 1e-3) / 1e9;
		if (m == 0) base = gps;
		printf("| %-20s | %8.2f | %7.2f | %5.3f | %s |\n", mix[m].name, t[2], gps, gps / base, same ? "yes" : "NO");
	}
	cudaFree(d_x0); cudaFree(d_x); cudaFree(d_w);
	free(h); free(out); free(ref);
	return bad;
}
