/*
 * backend_cuda.c — the CUDA backend (prover/groth16.h's ops table on cuda/zp_cuda.h).
 *
 * create()   once per key: selects the device (ZP_CUDA_DEVICE, default 0), uploads the key's A, B1,
 *            (or, for a key made on the device, zp_g16_key.dev_points, adopts its arrays: no upload;
 *            they are freed by destroy — prover/setup_cuda.h)
 *            B2, C and H points (H: the odd-root points for ZP_H_SNARKJS, the coefficient query for
 *            ZP_H_COEFF), which stay resident; allocates device w, a, b, c, one MSM scratch buffer
 *            for the largest query, the NTT twiddles (root family 5 in both H modes, as the CPU
 *            backend) and a pinned host staging buffer. Nothing is allocated per proof.
 * upload()   copies w, a, b, c through the staging buffer to the device (the caller's buffers are
 *            only read) and notes whether the witness is all 0/1 (then the MSMs take the 0/1 path).
 * h()        zp_cuda_groth16_h on device-resident a, b, c, then the H MSM on the result.
 * msm()      Σ w·A, Σ w·B1, Σ w·B2 (G2 on the GPU), Σ w·C on the device-resident witness.
 * finish stays on the host (zp_g16_finish). Given the same r and s the proof equals the CPU
 * backend's bit for bit: every stage computes the same group elements, and the affine result is
 * unique.
 *
 * 0/1 scalars: the CPU MSM skips zeros and sums ones per scalar inside every MSM; the GPU's general
 * MSM handles them in its buckets, and when a whole scalar range is bits (checked on the host in
 * upload) the dedicated 0/1 kernel (zp_cuda_msm_g*_bits: a plain sum, no sort) is used instead.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "backends.h"
#include "groth16.h"
#include "ntt.h"
#include "zp_cuda.h"
#include "zp_err.h"

_Static_assert(sizeof(zp_cuda_g1_aff) == sizeof(zp_g1_affine), "G1 affine layouts differ");
_Static_assert(sizeof(zp_cuda_g2_aff) == sizeof(zp_g2_affine), "G2 affine layouts differ");
_Static_assert(sizeof(zp_cuda_g1_jac) == sizeof(zp_g1_jac), "G1 Jacobian layouts differ");
_Static_assert(sizeof(zp_cuda_g2_jac) == sizeof(zp_g2_jac), "G2 Jacobian layouts differ");

struct cu {
	const zp_g16_key *key;
	int dev;
	size_t nv, np, dom;
	unsigned log_dom;
	zp_cuda_g1_aff *d_a, *d_b1, *d_c, *d_h;
	zp_cuda_g2_aff *d_b2;
	zp_fr *d_w, *d_abc;
	void *d_scratch;
	size_t scratch_len;
	zp_cuda_ntt_ctx *ntt;
	cudaStream_t st;
	zp_fr *pinned;              /* nv + 3·dom scalars */
	int w_bits, aux_bits;       /* w[0..nv) / w[np+1..nv) all 0 or 1 */
	zp_g1_jac h;
};

#define CU_TRY(expr, what) do { \
		cudaError_t e_ = (expr); \
		if (e_ != cudaSuccess) { \
			rc = zp_err_set(ZP_ECUDA, "CUDA backend: %s: %s", what, cudaGetErrorString(e_)); \
			goto err; \
		} \
	} while (0)

int zp_g16_backend_cuda_probe(char *desc, size_t desc_len)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || (e == cudaSuccess && n == 0))
		return zp_err_set(-ENODEV, "backend cuda: no CUDA GPU (or no NVIDIA driver) on this machine (%s)",
				  e == cudaSuccess ? "no devices" : cudaGetErrorString(e));
	if (e != cudaSuccess)
		return zp_err_set(-ENODEV, "backend cuda: no usable CUDA GPU (%s)", cudaGetErrorString(e));
	const char *ev = getenv("ZP_CUDA_DEVICE");
	int dev = ev ? atoi(ev) : 0;
	if (dev < 0 || dev >= n)
		return zp_err_set(-ENODEV, "backend cuda: ZP_CUDA_DEVICE=%d but %d CUDA device(s)", dev, n);
	return zp_cuda_init(dev, desc, desc_len);
}

static void cu_destroy(void *state)
{
	struct cu *s = state;
	if (!s)
		return;
	cudaSetDevice(s->dev);
	if (s->ntt)
		zp_cuda_ntt_destroy(s->ntt);
	void *dev_ptrs[] = { s->d_a, s->d_b1, s->d_c, s->d_h, s->d_b2, s->d_w, s->d_abc, s->d_scratch };
	for (size_t i = 0; i < sizeof dev_ptrs / sizeof dev_ptrs[0]; i++)
		if (dev_ptrs[i])
			cudaFree(dev_ptrs[i]);
	if (s->pinned)
		cudaFreeHost(s->pinned);
	if (s->st)
		cudaStreamDestroy(s->st);
	free(s);
}

static size_t max2(size_t a, size_t b)
{
	return a > b ? a : b;
}

static int cu_create(void **state, const zp_g16_key *key)
{
	const zp_zkey *k = key->zkey;
	int rc;
	char desc[160];
	if ((rc = zp_g16_backend_cuda_probe(desc, sizeof desc)))
		return rc;
	struct cu *s = calloc(1, sizeof(*s));
	if (!s)
		return zp_err_set(-ENOMEM, "CUDA backend state");
	const char *ev = getenv("ZP_CUDA_DEVICE");
	s->dev = ev ? atoi(ev) : 0;
	s->key = key;
	s->nv = k->n_vars;
	s->np = k->n_public;
	s->dom = k->domain_size;
	s->log_dom = k->log_domain;
	if (s->nv < s->np + 1) {
		rc = zp_err_set(ZP_EFORMAT, "CUDA backend: key has %zu wires for %zu public inputs", s->nv, s->np);
		goto err;
	}
	size_t naux = s->nv - s->np - 1;
	const zp_g1_affine *hpts = key->h_mode == ZP_H_SNARKJS ? k->h : key->h_coeff;
	if (!hpts && !key->dev_points) {
		rc = zp_err_set(ZP_ERANGE, "CUDA backend: the key has no H query for its H mode");
		goto err;
	}
	CU_TRY(cudaSetDevice(s->dev), "cudaSetDevice");
	CU_TRY(cudaStreamCreateWithFlags(&s->st, cudaStreamNonBlocking), "stream");
	size_t g1 = sizeof(zp_g1_affine), g2 = sizeof(zp_g2_affine), fr = sizeof(zp_fr);
	if (key->dev_points) {
		/* setup = device (prover/setup_cuda.h): the key's points are already on this device;
		 * adopt them (cu_destroy frees them). Nothing to upload. */
		zp_cuda_key_dev *kd = key->dev_points;
		s->d_a = kd->a;
		s->d_b1 = kd->b1;
		s->d_b2 = kd->b2;
		s->d_c = kd->c;
		s->d_h = kd->h;
		memset(kd, 0, sizeof *kd);
		goto points_resident;
	}
	CU_TRY(cudaMalloc((void **)&s->d_a, s->nv * g1), "device memory for A");
	CU_TRY(cudaMalloc((void **)&s->d_b1, s->nv * g1), "device memory for B1");
	CU_TRY(cudaMalloc((void **)&s->d_b2, s->nv * g2), "device memory for B2");
	CU_TRY(cudaMalloc((void **)&s->d_c, max2(naux, 1) * g1), "device memory for C");
	CU_TRY(cudaMalloc((void **)&s->d_h, s->dom * g1), "device memory for H");
	CU_TRY(cudaMemcpy(s->d_a, k->a, s->nv * g1, cudaMemcpyHostToDevice), "upload A");
	CU_TRY(cudaMemcpy(s->d_b1, k->b1, s->nv * g1, cudaMemcpyHostToDevice), "upload B1");
	CU_TRY(cudaMemcpy(s->d_b2, k->b2, s->nv * g2, cudaMemcpyHostToDevice), "upload B2");
	if (naux)
		CU_TRY(cudaMemcpy(s->d_c, k->c, naux * g1, cudaMemcpyHostToDevice), "upload C");
	CU_TRY(cudaMemcpy(s->d_h, hpts, s->dom * g1, cudaMemcpyHostToDevice), "upload H");
points_resident:
	CU_TRY(cudaMalloc((void **)&s->d_w, s->nv * fr), "device memory for w");
	CU_TRY(cudaMalloc((void **)&s->d_abc, 3 * s->dom * fr), "device memory for a, b, c");
	s->scratch_len = max2(zp_cuda_msm_scratch_size(0, max2(s->nv, s->dom), 0), zp_cuda_msm_scratch_size(1, s->nv, 0));
	CU_TRY(cudaMalloc(&s->d_scratch, s->scratch_len), "MSM scratch");
	CU_TRY(cudaMallocHost((void **)&s->pinned, (s->nv + 3 * s->dom) * fr), "pinned staging buffer");
	/* snarkjs H shifts by ω_2n: the twiddles reach 2^(log n + 1). Root family 5 in both H modes:
	 * the CPU backend's domain (zp_ntt_domain_init) is family 5, and so is the coefficient query
	 * zp_g16_key_init derives; zp_g16_key carries no family, so a family-7 key cannot be told apart. */
	if ((rc = zp_cuda_ntt_create(&s->ntt, s->log_dom + (key->h_mode == ZP_H_SNARKJS), ZP_NTT_ROOT5)))
		goto err;
	*state = s;
	return 0;
err:
	cu_destroy(s);
	return rc;
}

static int all_bits(const zp_fr *v, size_t n)
{
	static const zp_fr zero;
	for (size_t i = 0; i < n; i++)
		if (memcmp(&v[i], &zero, sizeof zero) && memcmp(&v[i], &ZP_FR_ONE, sizeof zero))
			return 0;
	return 1;
}

static int cu_upload(void *state, const zp_fr *w, zp_fr *a, zp_fr *b, zp_fr *c)
{
	struct cu *s = state;
	size_t fr = sizeof(zp_fr), d = s->dom * fr;
	int rc = 0;
	CU_TRY(cudaSetDevice(s->dev), "cudaSetDevice");
	/* the staging buffer is free: the previous proof's copies are done (also after a failed proof) */
	CU_TRY(cudaStreamSynchronize(s->st), "synchronize");
	memcpy(s->pinned, w, s->nv * fr);
	CU_TRY(cudaMemcpyAsync(s->d_w, s->pinned, s->nv * fr, cudaMemcpyHostToDevice, s->st), "upload w");
	uint8_t *p = (uint8_t *)(s->pinned + s->nv);
	memcpy(p, a, d);
	memcpy(p + d, b, d);
	memcpy(p + 2 * d, c, d);
	CU_TRY(cudaMemcpyAsync(s->d_abc, p, 3 * d, cudaMemcpyHostToDevice, s->st), "upload a, b, c");
	s->aux_bits = all_bits(w + s->np + 1, s->nv - s->np - 1);
	s->w_bits = s->aux_bits && all_bits(w, s->np + 1);
	return 0;
err:
	return rc;
}

static int msm_g1(struct cu *s, zp_g1_jac *out, const zp_cuda_g1_aff *d_bases, const zp_fr *d_sc, size_t n, int bits)
{
	zp_cuda_g1_jac r;
	int rc;
	if (n == 0) {
		memset(out, 0, sizeof *out);
		return 0;
	}
	if (bits)
		rc = zp_cuda_msm_g1_bits(&r, d_bases, d_sc, n, s->d_scratch, s->scratch_len, s->st);
	else
		rc = zp_cuda_msm_g1(&r, d_bases, d_sc, n, s->d_scratch, s->scratch_len,
				    &(zp_cuda_msm_opts){ .window = 0, .stream = s->st });
	memcpy(out, &r, sizeof r);
	return rc;
}

static int cu_h(void *state)
{
	struct cu *s = state;
	int rc = 0;
	zp_fr *da = s->d_abc, *db = da + s->dom, *dc = db + s->dom;
	CU_TRY(cudaSetDevice(s->dev), "cudaSetDevice");
	if ((rc = zp_cuda_groth16_h(s->ntt, da, db, dc, s->log_dom,
				    s->key->h_mode == ZP_H_SNARKJS ? ZP_CUDA_H_SNARKJS : ZP_CUDA_H_BELLPERSON, s->st)))
		return rc;    /* zp_err_msg() names the failing CUDA call */
	if ((rc = msm_g1(s, &s->h, s->d_h, da, s->dom, 0)))
		return rc;
	return 0;
err:
	return rc;
}

static int cu_msm(void *state, zp_g16_msm_out *out)
{
	struct cu *s = state;
	int rc = 0;
	CU_TRY(cudaSetDevice(s->dev), "cudaSetDevice");
	if ((rc = msm_g1(s, &out->a, s->d_a, s->d_w, s->nv, s->w_bits)) ||
	    (rc = msm_g1(s, &out->b1, s->d_b1, s->d_w, s->nv, s->w_bits)) ||
	    (rc = msm_g1(s, &out->c, s->d_c, s->d_w + s->np + 1, s->nv - s->np - 1, s->aux_bits)))
		return rc;
	zp_cuda_g2_jac r2;
	rc = s->w_bits ? zp_cuda_msm_g2_bits(&r2, s->d_b2, s->d_w, s->nv, s->d_scratch, s->scratch_len, s->st)
		       : zp_cuda_msm_g2(&r2, s->d_b2, s->d_w, s->nv, s->d_scratch, s->scratch_len,
					&(zp_cuda_msm_opts){ .window = 0, .stream = s->st });
	if (rc)
		return rc;
	memcpy(&out->b2, &r2, sizeof r2);
	out->h = s->h;
	CU_TRY(cudaStreamSynchronize(s->st), "synchronize");
	return 0;
err:
	return rc;
}

const zp_g16_backend_ops zp_g16_backend_cuda = {
	.name = "cuda",
	.create = cu_create,
	.upload = cu_upload,
	.h = cu_h,
	.msm = cu_msm,
	.destroy = cu_destroy,
};
