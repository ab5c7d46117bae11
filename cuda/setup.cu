/*
 * setup.cu — fixed-base scalar multiplication for the Groth16 setup (zp_cuda.h's contract):
 * out_i = k_i·G from a host-built table of G's window multiples.
 *
 * Two kernels per call:
 *   1. one thread per scalar: k_i out of Montgomery form, then for every w-bit window j with digit
 *      d ≠ 0 one mixed XYZZ addition of table[j·(2^w − 1) + d − 1] = d·2^(w·j)·G (no doublings).
 *      The XYZZ result goes to scratch.
 *   2. one thread per FB_M consecutive points: Montgomery's batch inversion of ZZ·ZZZ (one Fp or
 *      Fp2 inversion per FB_M points, by Fermat: a^(p−2)), then x = X/ZZ, y = Y/ZZZ. Infinity
 *      (k = 0) becomes all-zero bytes. Affine coordinates are unique, so the result equals the
 *      CPU setup's (zp_g*_jac_batch_to_affine) bit for bit.
 * Not constant time (digits pick table entries, zero digits skip work): development keys only.
 */
#include "cuda_impl.h"
#include "ec.cuh"

#define FB_M 32        /* points per thread in the batch inversion */
#define FB_THREADS 128

__constant__ uint32_t c_fp_p[12] = ZP_C_FP_P;
__constant__ uint32_t c_bn_fp_p[8] = ZP_C_BN_FP_P;
template <class fp_t> static __device__ __forceinline__ uint32_t fp_p_limb(int i);
template <> __device__ __forceinline__ uint32_t fp_p_limb<fp_t>(int i) { return c_fp_p[i]; }
template <> __device__ __forceinline__ uint32_t fp_p_limb<bn_fp_t>(int i) { return c_bn_fp_p[i]; }

/* a^(p−2) = a^-1 (0 for 0). Square-and-multiply, MSB first; p's low limb is 0xffffaaab (BLS12-381),
 * 0xd87cfd47 (BN254): no borrow. */
template <class fp_t>
static __device__ __noinline__ fp_t fp_inv(const fp_t a)
{
	fp_t r = fp_t::one();
	for (int i = fp_t::N - 1; i >= 0; i--) {
		uint32_t e = fp_p_limb<fp_t>(i) - (i == 0 ? 2u : 0u);
		for (int b = 31; b >= 0; b--) {
			r = r.sqr();
			if ((e >> b) & 1)
				r = r * a;
		}
	}
	return r;
}
template <class C> static __device__ ff<C> f_inv(const ff<C> &a) { return fp_inv(a); }
/* (c0 + c1·u)^-1 = (c0 − c1·u)/(c0² + c1²) */
template <class fp_t> static __device__ fp2_tt<fp_t> f_inv(const fp2_tt<fp_t> &a)
{
	fp_t t = fp_inv(a.c0.sqr() + a.c1.sqr());
	fp2_tt<fp_t> r;
	r.c0 = a.c0 * t;
	r.c1 = (a.c1 * t).neg();
	return r;
}

template <class F, class R>
__global__ void fb_mul_kernel(xyzz_t<F> *acc_out, const R *k, size_t n, const affine_t<F> *table, unsigned w)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	R raw = k[i].from_mont();   /* both curves' Fr: 8 limbs of 32 bits */
	uint32_t m = (1u << w) - 1;
	unsigned nwin = (255 + w - 1) / w;
	xyzz_t<F> acc = xyzz_t<F>::inf();
	for (unsigned j = 0; j < nwin; j++) {
		unsigned bit = j * w, li = bit / 32, sh = bit % 32;   /* bit < 255: li <= 7 */
		uint32_t d = raw.l[li] >> sh;
		if (sh + w > 32 && li < 7)
			d |= raw.l[li + 1] << (32 - sh);
		d &= m;
		if (d)
			acc.add_affine(table[(size_t)j * m + d - 1]);
	}
	acc_out[i] = acc;
}

template <class F>
__global__ void fb_affine_kernel(affine_t<F> *out, const xyzz_t<F> *p, F *pre, size_t n)
{
	size_t i0 = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * FB_M;
	if (i0 >= n)
		return;
	size_t i1 = i0 + FB_M < n ? i0 + FB_M : n;
	F acc = F::one();
	for (size_t i = i0; i < i1; i++) {
		pre[i] = acc;
		if (!p[i].is_inf())
			acc = acc * (p[i].ZZ * p[i].ZZZ);
	}
	F inv = f_inv(acc);
	for (size_t i = i1; i-- > i0;) {
		const xyzz_t<F> q = p[i];
		affine_t<F> a;
		if (q.is_inf()) {
			a.x = F::zero();
			a.y = F::zero();
		} else {
			F di = inv * pre[i];               /* 1/(ZZ·ZZZ) */
			inv = inv * (q.ZZ * q.ZZZ);
			a.x = q.X * (di * q.ZZZ);
			a.y = q.Y * (di * q.ZZ);
		}
		out[i] = a;
	}
}

template <class F, class R, class A>
static int fixed_base(A *d_out, const zp_fr *d_scalars, size_t n, const A *d_table, unsigned window,
		      void *d_scratch, size_t scratch_size, void *stream)
{
	int rc = 0;
	cudaStream_t st = (cudaStream_t)stream;
	if (n == 0)
		return 0;
	if (window < 1 || window > 20)
		return zp_err_set(ZP_ERANGE, "fixed-base: window %u bits (1..20)", window);
	size_t need = n * (sizeof(xyzz_t<F>) + sizeof(F));
	if (!d_scratch || scratch_size < need)
		return zp_err_set(ZP_ERANGE, "fixed-base: scratch of %zu bytes, %zu needed for %zu points", scratch_size,
				  need, n);
	{
		xyzz_t<F> *acc = (xyzz_t<F> *)d_scratch;
		F *pre = (F *)(acc + n);
		fb_mul_kernel<F, R><<<zp_cdiv(n, FB_THREADS), FB_THREADS, 0, st>>>(acc, (const R *)d_scalars, n,
										  (const affine_t<F> *)d_table, window);
		ZP_CUDA_LAUNCHED();
		size_t nt = (n + FB_M - 1) / FB_M;
		fb_affine_kernel<F><<<zp_cdiv(nt, 64), 64, 0, st>>>((affine_t<F> *)d_out, acc, pre, n);
		ZP_CUDA_LAUNCHED();
	}
	return 0;
err:
	return rc;
}

extern "C" size_t zp_cuda_fixed_base_scratch_size(int g2, size_t n)
{
	return n * (g2 ? sizeof(g2_xyzz) + sizeof(fp2_t) : sizeof(g1_xyzz) + sizeof(fp_t));
}

extern "C" int zp_cuda_g1_fixed_base(zp_cuda_g1_aff *d_out, const zp_fr *d_scalars, size_t n,
				     const zp_cuda_g1_aff *d_table, unsigned window, void *d_scratch,
				     size_t scratch_size, void *stream)
{
	static_assert(sizeof(g1_aff) == sizeof(zp_cuda_g1_aff), "G1 affine layout");
	return fixed_base<fp_t, fr_t>(d_out, d_scalars, n, d_table, window, d_scratch, scratch_size, stream);
}

extern "C" int zp_cuda_g2_fixed_base(zp_cuda_g2_aff *d_out, const zp_fr *d_scalars, size_t n,
				     const zp_cuda_g2_aff *d_table, unsigned window, void *d_scratch,
				     size_t scratch_size, void *stream)
{
	static_assert(sizeof(g2_aff) == sizeof(zp_cuda_g2_aff), "G2 affine layout");
	return fixed_base<fp2_t, fr_t>(d_out, d_scalars, n, d_table, window, d_scratch, scratch_size, stream);
}

/* BN254's: the same kernels over its fields (the CPU's zp_bn254_g1_affine / g2_affine layouts) */
extern "C" size_t zp_cuda_bn254_fixed_base_scratch_size(int g2, size_t n)
{
	return n * (g2 ? sizeof(xyzz_t<bn_fp2_t>) + sizeof(bn_fp2_t) : sizeof(xyzz_t<bn_fp_t>) + sizeof(bn_fp_t));
}

extern "C" int zp_cuda_bn254_fixed_base(int g2, void *d_out, const zp_fr *d_scalars, size_t n, const void *d_table,
					unsigned window, void *d_scratch, size_t scratch_size, void *stream)
{
	static_assert(sizeof(affine_t<bn_fp_t>) == 64 && sizeof(affine_t<bn_fp2_t>) == 128, "BN254 affine layout");
	if (g2)
		return fixed_base<bn_fp2_t, bn_fr_t>((affine_t<bn_fp2_t> *)d_out, d_scalars, n,
						     (const affine_t<bn_fp2_t> *)d_table, window, d_scratch, scratch_size, stream);
	return fixed_base<bn_fp_t, bn_fr_t>((affine_t<bn_fp_t> *)d_out, d_scalars, n, (const affine_t<bn_fp_t> *)d_table,
					    window, d_scratch, scratch_size, stream);
}

/* ---- bases of the split MSM (zp_cuda_msm_g*_split): out[j·n + i] = 2^(cb·j)·P_i, j < parts, cb = 256/parts ---- */
template <class F>
__global__ void split_dbl_kernel(xyzz_t<F> *acc, affine_t<F> *out4, const affine_t<F> *bases, size_t n, size_t i0,
                                 size_t m, unsigned parts)
{
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= m)
		return;
	affine_t<F> a = bases[i0 + t];
	out4[i0 + t] = a;
	xyzz_t<F> x = xyzz_t<F>::from_affine(a);
	for (unsigned j = 0; j + 1 < parts; j++) {
		for (unsigned k = 0; k < 256 / parts; k++)
			x.dbl();
		acc[(size_t)j * m + t] = x;
	}
}

template <class F, class A>
static int split_bases(A *d_out4, const A *d_bases, size_t n, unsigned parts, void *d_scratch, size_t scratch_size,
		       void *stream)
{
	int rc = 0;
	cudaStream_t st = (cudaStream_t)stream;
	if (parts != 2 && parts != 4)
		return zp_err_set(ZP_ERANGE, "msm split bases: %u parts (2 or 4)", parts);
	const size_t per = (parts - 1) * (sizeof(xyzz_t<F>) + sizeof(F));
	size_t m = d_scratch ? scratch_size / per : 0;   /* points a launch */
	if (n && m < (n < FB_M ? n : FB_M))
		return zp_err_set(ZP_ERANGE, "msm split bases: scratch of %zu bytes, at least %zu needed", scratch_size,
				  (n < FB_M ? n : FB_M) * per);
	if (m > n) m = n;
	for (size_t i0 = 0; i0 < n; i0 += m) {
		size_t mm = n - i0 < m ? n - i0 : m;
		xyzz_t<F> *acc = (xyzz_t<F> *)d_scratch;
		F *pre = (F *)(acc + (parts - 1) * mm);
		split_dbl_kernel<F><<<zp_cdiv(mm, 64), 64, 0, st>>>(acc, (affine_t<F> *)d_out4, (const affine_t<F> *)d_bases, n,
								   i0, mm, parts);
		ZP_CUDA_LAUNCHED();
		for (size_t j = 1; j < parts; j++) {
			size_t nt = (mm + FB_M - 1) / FB_M;
			fb_affine_kernel<F><<<zp_cdiv(nt, 64), 64, 0, st>>>((affine_t<F> *)d_out4 + j * n + i0,
									  acc + (j - 1) * mm, pre, mm);
			ZP_CUDA_LAUNCHED();
		}
	}
	return 0;
err:
	return rc;
}

template <class Cv> static size_t split_bases_scratch(int g2, size_t n)
{
	typedef typename Cv::fp G1F;
	typedef typename Cv::fp2 G2F;
	size_t m = n < ((size_t)1 << 22) ? n : ((size_t)1 << 22);
	if (m < FB_M) m = FB_M;
	return 3 * m * (g2 ? sizeof(xyzz_t<G2F>) + sizeof(G2F) : sizeof(xyzz_t<G1F>) + sizeof(G1F));
}
extern "C" size_t zp_cuda_msm_split_bases_scratch_size(int g2, size_t n)
{
	return split_bases_scratch<bls12_381>(g2, n);
}
extern "C" int zp_cuda_msm_g1_split_bases(zp_cuda_g1_aff *d_out, const zp_cuda_g1_aff *d_bases, size_t n,
					  unsigned parts, void *d_scratch, size_t scratch_size, void *stream)
{
	return split_bases<fp_t>(d_out, d_bases, n, parts, d_scratch, scratch_size, stream);
}
extern "C" int zp_cuda_msm_g2_split_bases(zp_cuda_g2_aff *d_out, const zp_cuda_g2_aff *d_bases, size_t n,
					  unsigned parts, void *d_scratch, size_t scratch_size, void *stream)
{
	return split_bases<fp2_t>(d_out, d_bases, n, parts, d_scratch, scratch_size, stream);
}

/* the zp_cuda_curve entries (cuda_impl.h) */
template <class Cv> static int split_bases_any(int g2, void *d_out, const void *d_bases, size_t n, unsigned parts,
                                               void *d_scratch, size_t len, void *stream)
{
	typedef affine_t<typename Cv::fp> A1;
	typedef affine_t<typename Cv::fp2> A2;
	if (g2)
		return split_bases<typename Cv::fp2>((A2 *)d_out, (const A2 *)d_bases, n, parts, d_scratch, len, stream);
	return split_bases<typename Cv::fp>((A1 *)d_out, (const A1 *)d_bases, n, parts, d_scratch, len, stream);
}
size_t zp_cuda_bls_split_bases_scratch(int g2, size_t n) { return split_bases_scratch<bls12_381>(g2, n); }
size_t zp_cuda_bn_split_bases_scratch(int g2, size_t n) { return split_bases_scratch<bn254>(g2, n); }
int zp_cuda_bls_split_bases(int g2, void *d_out, const void *d_bases, size_t n, unsigned parts, void *d_scratch,
                            size_t len, void *stream)
{
	return split_bases_any<bls12_381>(g2, d_out, d_bases, n, parts, d_scratch, len, stream);
}
int zp_cuda_bn_split_bases(int g2, void *d_out, const void *d_bases, size_t n, unsigned parts, void *d_scratch,
                           size_t len, void *stream)
{
	return split_bases_any<bn254>(g2, d_out, d_bases, n, parts, d_scratch, len, stream);
}

extern "C" void zp_cuda_key_dev_free(zp_cuda_key_dev *k)
{
	if (!k)
		return;
	void *p[] = { k->a, k->b1, k->c, k->h, k->b2 };
	for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
		if (p[i])
			cudaFree(p[i]);
	memset(k, 0, sizeof *k);
}
