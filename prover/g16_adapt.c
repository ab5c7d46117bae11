/*
 * g16_adapt.c — the operations of g16_impl.h.
 *
 * Roots of unity: snarkjs's, from 5 (not 7): ω_32 = 5^t with r − 1 = 2^32·t, ω_k = ω_{k+1}².
 * The NTT is radix-2 (decimation in time, bit-reversed input), parallel over butterflies;
 * the MSM and pairing come from common/.
 */
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

static uint32_t bitrev(uint32_t x, uint32_t lg)
{
	return lg ? __builtin_bitreverse32(x) >> (32 - lg) : 0;
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
		size_t j = bitrev((uint32_t)i, lg);
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
