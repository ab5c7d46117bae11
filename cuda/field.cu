/*
 * field.cu — device selection and element-wise kernels that expose the field and point
 * arithmetic to the tests (GPU results compared bit for bit with the CPU's), one kernel template
 * over the curve (ec.cuh's bls12_381, bn254): zp_cuda_elementwise is BLS12-381's, the
 * zp_cuda_curve tables' elementwise entries either curve's.
 */
#include <stdio.h>
#include "cuda_impl.h"
#include "ec.cuh"

extern "C" int zp_cuda_init(int device, char *desc, size_t desc_len)
{
	int rc = 0;
	cudaDeviceProp pr;
	ZP_CUDA_TRY(cudaSetDevice(device));
	ZP_CUDA_TRY(cudaGetDeviceProperties(&pr, device));
	if (desc)
		snprintf(desc, desc_len, "%s, sm_%d%d, %d SMs, %.1f GiB, L2 %d MiB", pr.name, pr.major, pr.minor,
		         pr.multiProcessorCount, pr.totalGlobalMem / 1073741824.0, pr.l2CacheSize >> 20);
	return 0;
err:
	return rc;
}

template <class F> static __device__ jac_t<F> pt_op(int op, const affine_t<F> &a, const affine_t<F> &b)
{
	xyzz_t<F> p = xyzz_t<F>::from_affine(a);
	if (op == 0) p.add(xyzz_t<F>::from_affine(b));
	else if (op == 1) p.add_affine(b);
	else p.dbl();
	return p.to_jac();
}

template <class Cv>
__global__ void elementwise_kernel(int op, void *out, const void *a, const void *b, size_t n)
{
	typedef typename Cv::fp fp_t;
	typedef typename Cv::fp2 fp2_t;
	typedef typename Cv::fr fr_t;
	typedef affine_t<fp_t> g1_aff;
	typedef affine_t<fp2_t> g2_aff;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) return;
	switch (op) {
#define FOP(T, expr) { const T x = ((const T *)a)[i], y = ((const T *)b)[i]; ((T *)out)[i] = (expr); (void)y; break; }
	case ZP_CUDA_FP_ADD: FOP(fp_t, x + y)
	case ZP_CUDA_FP_SUB: FOP(fp_t, x - y)
	case ZP_CUDA_FP_MUL: FOP(fp_t, x * y)
	case ZP_CUDA_FP_SQR: FOP(fp_t, x.sqr())
	case ZP_CUDA_FR_ADD: FOP(fr_t, x + y)
	case ZP_CUDA_FR_SUB: FOP(fr_t, x - y)
	case ZP_CUDA_FR_MUL: FOP(fr_t, x * y)
	case ZP_CUDA_FR_SQR: FOP(fr_t, x.sqr())
	case ZP_CUDA_FP2_MUL: FOP(fp2_t, x * y)
	case ZP_CUDA_FP2_SQR: FOP(fp2_t, x.sqr())
	case ZP_CUDA_FR_FROM_MONT: FOP(fr_t, x.from_mont())
#undef FOP
	case ZP_CUDA_G1_ADD: case ZP_CUDA_G1_ADD_MIXED: case ZP_CUDA_G1_DBL:
		((jac_t<fp_t> *)out)[i] = pt_op<fp_t>(op - ZP_CUDA_G1_ADD, ((const g1_aff *)a)[i], ((const g1_aff *)b)[i]);
		break;
	case ZP_CUDA_G2_ADD: case ZP_CUDA_G2_ADD_MIXED: case ZP_CUDA_G2_DBL:
		((jac_t<fp2_t> *)out)[i] = pt_op<fp2_t>(op - ZP_CUDA_G2_ADD, ((const g2_aff *)a)[i], ((const g2_aff *)b)[i]);
		break;
	}
}

/* Input and output element sizes of op; fp: the curve's Fp bytes (48 BLS12-381, 32 BN254). */
static size_t sizes(enum zp_cuda_op op, size_t *in, size_t fp)
{
	switch (op) {
	case ZP_CUDA_FP_ADD: case ZP_CUDA_FP_SUB: case ZP_CUDA_FP_MUL: case ZP_CUDA_FP_SQR: *in = fp; return fp;
	case ZP_CUDA_FR_ADD: case ZP_CUDA_FR_SUB: case ZP_CUDA_FR_MUL: case ZP_CUDA_FR_SQR: case ZP_CUDA_FR_FROM_MONT:
		*in = 32; return 32;
	case ZP_CUDA_FP2_MUL: case ZP_CUDA_FP2_SQR: *in = 2 * fp; return 2 * fp;
	case ZP_CUDA_G1_ADD: case ZP_CUDA_G1_ADD_MIXED: case ZP_CUDA_G1_DBL: *in = 2 * fp; return 3 * fp;
	case ZP_CUDA_G2_ADD: case ZP_CUDA_G2_ADD_MIXED: case ZP_CUDA_G2_DBL: *in = 4 * fp; return 6 * fp;
	}
	*in = 0;
	return 0;
}

template <class Cv> static int elementwise(enum zp_cuda_op op, void *out, const void *a, const void *b, size_t n)
{
	int rc = 0;
	size_t in_sz, out_sz = sizes(op, &in_sz, sizeof(typename Cv::fp));
	void *da = NULL, *db = NULL, *dout = NULL;
	if (!out_sz) return zp_err_set(ZP_ERANGE, "elementwise: op %d", (int)op);
	ZP_CUDA_TRY(cudaMalloc(&da, n * in_sz));
	ZP_CUDA_TRY(cudaMalloc(&db, n * in_sz));
	ZP_CUDA_TRY(cudaMalloc(&dout, n * out_sz));
	ZP_CUDA_TRY(cudaMemcpy(da, a, n * in_sz, cudaMemcpyHostToDevice));
	ZP_CUDA_TRY(cudaMemcpy(db, b, n * in_sz, cudaMemcpyHostToDevice));
	ZP_CUDA_TRY(cudaMemset(dout, 0xa5, n * out_sz));   /* poison: every element must be written */
	elementwise_kernel<Cv><<<zp_cdiv(n, 128), 128>>>((int)op, dout, da, db, n);
	ZP_CUDA_LAUNCHED();
	ZP_CUDA_TRY(cudaMemcpy(out, dout, n * out_sz, cudaMemcpyDeviceToHost));
err:
	cudaFree(da);
	cudaFree(db);
	cudaFree(dout);
	return rc;
}

extern "C" int zp_cuda_elementwise(enum zp_cuda_op op, void *out, const void *a, const void *b, size_t n)
{
	return elementwise<bls12_381>(op, out, a, b, n);
}
int zp_cuda_bls_elementwise(enum zp_cuda_op op, void *out, const void *a, const void *b, size_t n)
{
	return elementwise<bls12_381>(op, out, a, b, n);
}
int zp_cuda_bn_elementwise(enum zp_cuda_op op, void *out, const void *a, const void *b, size_t n)
{
	return elementwise<bn254>(op, out, a, b, n);
}
