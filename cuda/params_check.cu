/*
 * params_check.cu — .params points decoded and checked on the GPU (zp_cuda.h's contract): one thread
 * a point, zcash's uncompressed big-endian encoding in, the CPU's Montgomery affine form and a status
 * byte out. The checks and their order are common/serialize.c's (zp_g1_from_uncompressed,
 * zp_g2_from_uncompressed), so a point passes here exactly when it passes there:
 *   flags      compression bit clear, sign bit clear; infinity only with an all-zero payload
 *              (→ all-zero output, status OK)
 *   coordinate every coordinate (flag bits masked off the first) below q
 *   curve      finite and y^2 = x^3 + b (G1 b = 4, G2 b = 4 + 4u)
 *   subgroup   by endomorphism, as common/ec.c: G1 φ(P) = −[z^2]P with φ(x, y) = (βx, y) (Bowe); G2
 *              ψ(P) = [z]P (Scott), z = −0xd201000000010000; [|z|] by double-and-add (63 doublings, 5
 *              additions: |z| has 6 bits set) in Jacobian coordinates, both sides compared projectively
 *              (cuda/subgroup.cuh; an XYZZ chain was measured slower, 19.6 against 23.2 M points/s).
 * The G1 kernel's Fp has its products inlined and its squares — 5 of a doubling's 7 products — by ff.cuh's
 * dedicated square mont_sqr_eo. H200, 2^24 points: products as __noinline__ calls 23.1 M points/s, inlined 23.6,
 * inlined + dedicated squares 25.9 (bench/RESULTS.md; the other two were switches, ZP_PARAMS_GPU_INLINE /
 * ZP_PARAMS_GPU_SQR, until issue 35). A dedicated-square build of the calls kernel (a __noinline__ sqr_call)
 * disagreed with the CPU on almost every valid point on the H200 (2026-12-02, 31 of 262144 agreed) while the
 * host emulation of the same code agrees — the XYZZ chain's story again. G2 uses fp_t as it is. The cfg with
 * DEDICATED_SQR is this file's only: MSM, NTT and the rest keep ff.cuh's base cfgs.
 * A bad point's output is zero; the host re-decodes it on the CPU for the error message (and to
 * confirm the verdict). Not constant time: the key's points are public.
 */
#include "cuda_impl.h"
#include "ec.cuh"
#include "subgroup.cuh"

#define PC_THREADS 128

/* common/ec.c's constants, Montgomery form, as 64-bit limbs (little-endian: the u32 limbs' bytes) */
__constant__ uint64_t c_beta[6] = ZP_SG_G1_BETA;
__constant__ uint64_t c_psi_x1[6] = ZP_SG_G2_PSI_X1;
__constant__ uint64_t c_psi_y[12] = ZP_SG_G2_PSI_Y;

/* The G1 kernel's Fp: products inlined (ff.cuh's fp_cfg calls them), squares by the dedicated square
 * (ff.cuh's mont_sqr_eo, inlined as the products are). */
struct fp_inl_sqr_cfg : fp_cfg {
	static const bool INLINE_MUL = true;
	static const bool DEDICATED_SQR = true;
};
typedef ff<fp_inl_sqr_cfg> fpis_t;

template <class C> static __device__ __forceinline__ ff<C> fp_const(const uint64_t *c)
{
	ff<C> r;
#pragma unroll
	for (int i = 0; i < 6; i++) {
		r.l[2 * i] = (uint32_t)c[i];
		r.l[2 * i + 1] = (uint32_t)(c[i] >> 32);
	}
	return r;
}

/* A 48-byte big-endian coordinate at w (12 words as they lie in memory), the flag bits masked off when
 * first; false when it is not below q. */
template <class C> static __device__ __forceinline__ bool fp_from_be(ff<C> &r, const uint32_t *w, bool first)
{
#pragma unroll
	for (int i = 0; i < 12; i++)
		r.l[i] = __byte_perm(w[11 - i], 0, 0x0123);
	if (first)
		r.l[11] &= 0x1fffffffu;
	/* r < p: from the top limb down, the first that differs decides */
	int lt = 0, done = 0;
#pragma unroll
	for (int i = 11; i >= 0; i--) {
		uint32_t p = fp_cfg::p(i);
		if (!done && r.l[i] != p) {
			lt = r.l[i] < p;
			done = 1;
		}
	}
	if (!lt)
		return false;
	r = r.to_mont();
	return true;
}

/* The flag byte and payload: 0 finite, 1 infinity, -1 bad (ZP_EFLAGS on the CPU). */
static __device__ __forceinline__ int flags_of(const uint32_t *w, int nw)
{
	uint32_t b0 = w[0] & 0xffu;   /* little-endian load: the first byte is the low one */
	if (b0 & 0x80u)               /* compression bit: this is the uncompressed form */
		return -1;
	if (b0 & 0x20u)               /* sign bit on an uncompressed point */
		return -1;
	if (!(b0 & 0x40u))
		return 0;
	uint32_t acc = w[0] & ~0x40u;
	for (int i = 1; i < nw; i++)
		acc |= w[i];
	return acc ? -1 : 1;
}

/* Coordinates of one point: G1 x, y; G2 x = c0 + c1·u and y the same, each as c1 ‖ c0. */
template <class C> static __device__ __forceinline__ bool decode(affine_t<ff<C> > &p, const uint32_t *w)
{
	return fp_from_be(p.x, w, true) && fp_from_be(p.y, w + 12, false);
}
static __device__ __forceinline__ bool decode(affine_t<fp2_t> &p, const uint32_t *w)
{
	return fp_from_be(p.x.c1, w, true) && fp_from_be(p.x.c0, w + 12, false) && fp_from_be(p.y.c1, w + 24, false) &&
	       fp_from_be(p.y.c0, w + 36, false);
}

template <class C> static __device__ __forceinline__ ff<C> curve_b(ff<C>) { return ff<C>::one().dbl().dbl(); }
static __device__ __forceinline__ fp2_t curve_b(fp2_t)
{
	fp2_t b;
	b.c0 = b.c1 = fp_t::one().dbl().dbl();
	return b;
}

template <class F> static __device__ __noinline__ bool on_curve(const affine_t<F> p)
{
	return p.y.sqr() == p.x.sqr() * p.x + curve_b(F());
}

template <class C> static __device__ __forceinline__ bool in_subgroup(const affine_t<ff<C> > &p)
{
	return sg_in_g1(p, fp_const<C>(c_beta));
}
static __device__ __forceinline__ bool in_subgroup(const affine_t<fp2_t> &p)
{
	fp2_t px, py;
	px.c0 = fp_t::zero(), px.c1 = fp_const<fp_cfg>(c_psi_x1);
	py.c0 = fp_const<fp_cfg>(c_psi_y), py.c1 = fp_const<fp_cfg>(c_psi_y + 6);
	return sg_in_g2(p, px, py);
}

template <class F, int NW>
__global__ void params_kernel(affine_t<F> *out, uint8_t *status, const uint32_t *in, size_t n, unsigned flags)
{
	const bool no_subgroup = flags & ZP_CUDA_PC_NO_SUBGROUP;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		const uint32_t *w = in + i * NW;   /* read where used: nothing of the encoding stays live */
		affine_t<F> p;
		p.x = F::zero(), p.y = F::zero();
		int f = flags_of(w, NW);
		uint8_t st = ZP_CUDA_PT_OK;
		if (f < 0)
			st = ZP_CUDA_PT_FLAGS;
		else if (f == 0 && !decode(p, w))
			st = ZP_CUDA_PT_COORD;
		else if (f == 0 && (p.is_inf() || !on_curve(p)))
			st = ZP_CUDA_PT_CURVE;
		else if (f == 0 && !no_subgroup && !in_subgroup(p))
			st = ZP_CUDA_PT_SUBGROUP;
		if (st != ZP_CUDA_PT_OK)
			p.x = F::zero(), p.y = F::zero();
		out[i] = p;
		status[i] = st;
	}
}

extern "C" int zp_cuda_params_decode(int g2, void *d_out, uint8_t *d_status, const void *d_in, size_t n,
				     unsigned flags, void *stream)
{
	int rc = 0, dev, sms = 132;
	cudaStream_t st = (cudaStream_t)stream;
	if (!n)
		return 0;
	if (cudaGetDevice(&dev) == cudaSuccess)
		cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
	{
		size_t blocks = zp_cdiv(n, PC_THREADS), cap = (size_t)sms * 16;
		unsigned nb = (unsigned)(blocks < cap ? blocks : cap);
		const uint32_t *in = (const uint32_t *)d_in;
		if (g2)
			params_kernel<fp2_t, 48><<<nb, PC_THREADS, 0, st>>>((affine_t<fp2_t> *)d_out, d_status, in, n, flags);
		else
			params_kernel<fpis_t, 24><<<nb, PC_THREADS, 0, st>>>((affine_t<fpis_t> *)d_out, d_status, in, n, flags);
		ZP_CUDA_LAUNCHED();
	}
	return 0;
err:
	return rc;
}
