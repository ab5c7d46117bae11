/*
 * g16_adapt.c — the operations of g16_impl.h.
 *
 * Roots of unity: snarkjs's, from 5 (not 7): ω_32 = 5^t with r − 1 = 2^32·t, ω_k = ω_{k+1}².
 * The NTT is radix-2 (decimation in time, bit-reversed input), parallel over butterflies;
 * the MSM and pairing come from common/.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "g16_impl.h"
#include "par.h"
#include "zp_err.h"

static zp_fr roots[33];          /* roots[k] = ω_{2^k} */
static zp_fr inv_roots[33];
static pthread_once_t roots_once = PTHREAD_ONCE_INIT;

static void roots_init(void)
{
	uint64_t t[4];
	/* t = (r − 1) / 2^32 = r >> 32 (r is odd) */
	for (int i = 0; i < 4; i++)
		t[i] = ZP_FR_MODULUS[i] >> 32 | (i < 3 ? ZP_FR_MODULUS[i + 1] << 32 : 0);
	zp_fr five;
	zp_fr_from_u64(&five, 5);
	zp_fr_pow(&roots[32], &five, t, 4);
	for (int k = 32; k > 0; k--)
		zp_fr_sqr(&roots[k - 1], &roots[k]);
	for (int k = 0; k <= 32; k++)
		zp_fr_inv(&inv_roots[k], &roots[k]);
}

void g16_root_of_unity(zp_fr *w, uint32_t lg)
{
	pthread_once(&roots_once, roots_init);
	*w = roots[lg];
}

struct bf_ctx { zp_fr *a; const zp_fr *tw; uint32_t half, step; };

#define BF_PER_TASK 2048

static void bf_task(void *vctx, size_t t, int worker)
{
	struct bf_ctx *c = vctx;
	size_t b0 = t * BF_PER_TASK;
	for (size_t b = b0; b < b0 + BF_PER_TASK; b++) {
		size_t blk = b / c->half, j = b % c->half;
		zp_fr *x = &c->a[blk * 2 * c->half + j], *y = x + c->half, m;
		zp_fr_mul(&m, y, &c->tw[j * c->step]);
		zp_fr_sub(y, x, &m);
		zp_fr_add(x, x, &m);
	}
}

struct scale_ctx { zp_fr *a; zp_fr f; size_t n; };

static void scale_task(void *vctx, size_t t, int worker)
{
	struct scale_ctx *c = vctx;
	size_t i0 = t * BF_PER_TASK, i1 = i0 + BF_PER_TASK < c->n ? i0 + BF_PER_TASK : c->n;
	for (size_t i = i0; i < i1; i++)
		zp_fr_mul(&c->a[i], &c->a[i], &c->f);
}

int g16_ntt(zp_fr *a, uint32_t lg, int inverse)
{
	if (lg > 32)
		return zp_err_set(ZP_ERANGE, "NTT of size 2^%u", lg);
	pthread_once(&roots_once, roots_init);
	size_t n = (size_t)1 << lg;
	if (n == 1)
		return 0;
	for (size_t i = 0; i < n; i++) {
		size_t j = g16_bitrev((uint32_t)i, lg);
		if (i < j) {
			zp_fr t = a[i];
			a[i] = a[j];
			a[j] = t;
		}
	}
	zp_fr *tw = malloc(n / 2 * sizeof(zp_fr));
	if (!tw)
		return zp_err_set(-ENOMEM, "NTT twiddles (2^%u)", lg - 1);
	const zp_fr *w = inverse ? &inv_roots[lg] : &roots[lg];
	tw[0] = ZP_FR_ONE;
	for (size_t i = 1; i < n / 2; i++)
		zp_fr_mul(&tw[i], &tw[i - 1], w);
	size_t tasks = (n / 2 + BF_PER_TASK - 1) / BF_PER_TASK;
	for (uint32_t s = 1; s <= lg; s++) {
		struct bf_ctx c = { a, tw, 1u << (s - 1), (uint32_t)(n >> s) };
		if (n / 2 < BF_PER_TASK) {
			/* small: one task of exactly n/2 butterflies */
			for (size_t b = 0; b < n / 2; b++) {
				size_t blk = b / c.half, j = b % c.half;
				zp_fr *x = &a[blk * 2 * c.half + j], *y = x + c.half, m;
				zp_fr_mul(&m, y, &tw[j * c.step]);
				zp_fr_sub(y, x, &m);
				zp_fr_add(x, x, &m);
			}
		} else {
			zp_par_for(tasks, bf_task, &c);
		}
	}
	free(tw);
	if (inverse) {
		struct scale_ctx c = { a, ZP_FR_ZERO, n };
		zp_fr nn;
		zp_fr_from_u64(&nn, n);
		zp_fr_inv(&c.f, &nn);
		zp_par_for((n + BF_PER_TASK - 1) / BF_PER_TASK, scale_task, &c);
	}
	return 0;
}

/* ---- pairing ---- */
#include "pairing.h"

int g16_pairing_is_one(const zp_g1_affine *p, const zp_g2_affine *q, size_t n)
{
	return zp_pairing_check(p, q, n) == 0;
}

/* ---- MSM: Pippenger with unsigned c-bit windows and XYZZ buckets, one task per window ----
 * (prover-local until common/msm.h lands; variable-time in the scalars, which are witness
 * values: see SECURITY note in groth16.h) */
static uint32_t window_bits(size_t n)
{
	uint32_t c = 1;
	while (((size_t)1 << (c + 2)) < n && c < 16)
		c++;
	return c < 4 ? 4 : c;
}

static uint32_t digit(const uint64_t *k, uint32_t bit, uint32_t c)
{
	uint32_t limb = bit / 64, sh = bit % 64;
	uint64_t v = k[limb] >> sh;
	if (sh + c > 64 && limb < 3)
		v |= k[limb + 1] << (64 - sh);
	return (uint32_t)(v & (((uint64_t)1 << c) - 1));
}

#define DEFINE_MSM(G, AFF, JAC, XYZZ)                                                              \
	struct G##_msm_ctx { const AFF *p; const uint64_t *k; size_t n; uint32_t c; JAC *win; int err; }; \
	static void G##_window_task(void *vctx, size_t w, int worker)                              \
	{                                                                                          \
		struct G##_msm_ctx *m = vctx;                                                      \
		size_t nb = ((size_t)1 << m->c) - 1;                                               \
		XYZZ *b = malloc(nb * sizeof(XYZZ));                                               \
		if (!b) {                                                                          \
			m->err = 1;                                                                \
			return;                                                                    \
		}                                                                                  \
		for (size_t i = 0; i < nb; i++)                                                    \
			zp_##G##_xyzz_set_inf(&b[i]);                                              \
		for (size_t i = 0; i < m->n; i++) {                                                \
			uint32_t d = digit(m->k + 4 * i, (uint32_t)w * m->c, m->c);               \
			if (d)                                                                     \
				zp_##G##_xyzz_add_affine(&b[d - 1], &b[d - 1], &m->p[i]);          \
		}                                                                                  \
		XYZZ run, sum;                                                                     \
		zp_##G##_xyzz_set_inf(&run);                                                       \
		zp_##G##_xyzz_set_inf(&sum);                                                       \
		for (size_t i = nb; i-- > 0;) {                                                    \
			zp_##G##_xyzz_add(&run, &run, &b[i]);                                      \
			zp_##G##_xyzz_add(&sum, &sum, &run);                                       \
		}                                                                                  \
		zp_##G##_xyzz_to_jac(&m->win[w], &sum);                                            \
		free(b);                                                                           \
	}                                                                                          \
	int g16_msm_##G(JAC *out, const AFF *p, const zp_fr *k, size_t n)                          \
	{                                                                                          \
		zp_##G##_jac_set_inf(out);                                                         \
		if (n == 0)                                                                        \
			return 0;                                                                  \
		uint64_t *raw = malloc(n * 4 * sizeof(uint64_t));                                  \
		uint32_t c = window_bits(n), nw = (255 + c - 1) / c;                               \
		JAC *win = malloc(nw * sizeof(JAC));                                               \
		if (!raw || !win) {                                                                \
			free(raw);                                                                 \
			free(win);                                                                 \
			return zp_err_set(-ENOMEM, "MSM of %zu points", n);                        \
		}                                                                                  \
		for (size_t i = 0; i < n; i++)                                                     \
			zp_fr_from_mont(raw + 4 * i, &k[i]);                                       \
		struct G##_msm_ctx m = { p, raw, n, c, win, 0 };                                   \
		zp_par_for(nw, G##_window_task, &m);                                               \
		for (uint32_t w = nw; w-- > 0;) {                                                  \
			for (uint32_t i = 0; i < c && w + 1 < nw; i++)                             \
				zp_##G##_jac_dbl(out, out);                                        \
			zp_##G##_jac_add(out, out, &win[w]);                                       \
		}                                                                                  \
		free(raw);                                                                         \
		free(win);                                                                         \
		return m.err ? zp_err_set(-ENOMEM, "MSM buckets") : 0;                             \
	}

DEFINE_MSM(g1, zp_g1_affine, zp_g1_jac, zp_g1_xyzz)
DEFINE_MSM(g2, zp_g2_affine, zp_g2_jac, zp_g2_xyzz)
