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
 *              ψ(P) = [z]P (Scott), z = −0xd201000000010000; [|z|] by double-and-add over XYZZ (63
 *              doublings, 5 additions: |z| has 6 bits set), both sides compared projectively.
 * A bad point's output is zero; the host re-decodes it on the CPU for the error message (and to
 * confirm the verdict). Not constant time: the key's points are public.
 */
#include "cuda_impl.h"
#include "ec.cuh"

#define PC_THREADS 128

static const uint64_t Z_ABS = 0xd201000000010000ull;   /* |z|; bit 63 set */

/* common/ec.c's constants, Montgomery form, as 64-bit limbs (little-endian: the u32 limbs' bytes) */
__constant__ uint64_t c_beta[6] = { 0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull, 0x16a8ca3ac61577f7ull,
				    0xc26a2ff874fd029bull, 0x3636b76660701c6eull, 0x051ba4ab241b6160ull };
__constant__ uint64_t c_psi_x1[6] = { 0x890dc9e4867545c3ull, 0x2af322533285a5d5ull, 0x50880866309b7e2cull,
				      0xa20d1b8c7e881024ull, 0x14e4f04fe2db9068ull, 0x14e56d3f1564853aull };
__constant__ uint64_t c_psi_y[12] = { 0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull,
				      0x92ad2afd19103e18ull, 0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull,
				      0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull,
				      0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull };

static __device__ __forceinline__ fp_t fp_const(const uint64_t *c)
{
	fp_t r;
#pragma unroll
	for (int i = 0; i < 6; i++) {
		r.l[2 * i] = (uint32_t)c[i];
		r.l[2 * i + 1] = (uint32_t)(c[i] >> 32);
	}
	return r;
}

/* A 48-byte big-endian coordinate at w (12 words as they lie in memory), the flag bits masked off when
 * first; false when it is not below q. */
static __device__ __forceinline__ bool fp_from_be(fp_t &r, const uint32_t *w, bool first)
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
static __device__ __forceinline__ bool decode(affine_t<fp_t> &p, const uint32_t *w)
{
	return fp_from_be(p.x, w, true) && fp_from_be(p.y, w + 12, false);
}
static __device__ __forceinline__ bool decode(affine_t<fp2_t> &p, const uint32_t *w)
{
	return fp_from_be(p.x.c1, w, true) && fp_from_be(p.x.c0, w + 12, false) && fp_from_be(p.y.c1, w + 24, false) &&
	       fp_from_be(p.y.c0, w + 36, false);
}

static __device__ __forceinline__ fp_t curve_b(fp_t) { return fp_t::one().dbl().dbl(); }
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

/* [|z|]·P for an affine P, MSB first. */
template <class F> static __device__ __noinline__ xyzz_t<F> mul_z_aff(const affine_t<F> p)
{
	xyzz_t<F> t = xyzz_t<F>::from_affine(p);
	for (int b = 62; b >= 0; b--) {
		t.dbl();
		if ((Z_ABS >> b) & 1)
			t.add_affine(p);
	}
	return t;
}
/* [|z|]·Q for an XYZZ Q. */
static __device__ __noinline__ xyzz_t<fp_t> mul_z(const xyzz_t<fp_t> q)
{
	xyzz_t<fp_t> t = q;
	for (int b = 62; b >= 0; b--) {
		t.dbl();
		if ((Z_ABS >> b) & 1)
			t.add(q);
	}
	return t;
}

/* XYZZ t equals −(x, y) (finite affine): X = x·ZZ and −Y = y·ZZZ. */
template <class F> static __device__ __forceinline__ bool eq_neg(const xyzz_t<F> &t, const F &x, const F &y)
{
	return !t.is_inf() && t.X == x * t.ZZ && t.Y.neg() == y * t.ZZZ;
}

static __device__ bool in_subgroup(const affine_t<fp_t> &p)
{
	xyzz_t<fp_t> t = mul_z(mul_z_aff(p));   /* [z^2]P */
	return eq_neg(t, p.x * fp_const(c_beta), p.y);   /* −[z^2]P = (βx, y) */
}
static __device__ bool in_subgroup(const affine_t<fp2_t> &p)
{
	xyzz_t<fp2_t> t = mul_z_aff(p);         /* [|z|]P = −[z]P */
	fp2_t cx, cy, px, py;
	cx.c0 = p.x.c0, cx.c1 = p.x.c1.neg();   /* conjugates */
	cy.c0 = p.y.c0, cy.c1 = p.y.c1.neg();
	px.c0 = fp_t::zero(), px.c1 = fp_const(c_psi_x1);
	py.c0 = fp_const(c_psi_y), py.c1 = fp_const(c_psi_y + 6);
	return eq_neg(t, cx * px, cy * py);     /* [z]P = ψ(P) */
}

template <class F, int NW>
__global__ void params_kernel(affine_t<F> *out, uint8_t *status, const uint32_t *in, size_t n, int no_subgroup)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		uint32_t w[NW];
#pragma unroll
		for (int k = 0; k < NW; k++)
			w[k] = in[i * NW + k];
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
				     int no_subgroup, void *stream)
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
		if (g2)
			params_kernel<fp2_t, 48><<<nb, PC_THREADS, 0, st>>>((affine_t<fp2_t> *)d_out, d_status,
									  (const uint32_t *)d_in, n, no_subgroup);
		else
			params_kernel<fp_t, 24><<<nb, PC_THREADS, 0, st>>>((affine_t<fp_t> *)d_out, d_status,
									 (const uint32_t *)d_in, n, no_subgroup);
		ZP_CUDA_LAUNCHED();
	}
	return 0;
err:
	return rc;
}
