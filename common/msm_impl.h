/*
 * msm_impl.h — internal to msm_curve_tmpl.h (every curve's MSMs): what its groups' Pippenger MSMs share
 * besides msm_tmpl.h itself: the signed-digit recoding, the window and batch sizes, the batch-affine
 * crossovers and bucket states. Included once per curve's file.
 *
 * Signed digits (Booth recoding): window w of a scalar k reads the c+1 bits
 * k[wc-1 .. wc+c-1] (bit -1 is 0) as v and takes
 *     d_w = (v >> 1) + (v & 1) - 2^c·(v >> c)      in [-2^(c-1), 2^(c-1)],
 * and Σ_w d_w·2^(wc) = k as long as the last window's top bit is 0; k < r < 2^255,
 * so ceil(256 / c) windows suffice. Each digit depends only on its own bits, so
 * windows are independent tasks; a negative digit adds -P (y negated) to bucket |d|.
 */
#ifndef ZP_MSM_IMPL_H
#define ZP_MSM_IMPL_H

#include "knobs.h"
#include "field_impl.h"
#include "par.h"
#include "zp_err.h"

#include <stdbool.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MSM_CLASS_CHUNKS 64
#define MSM_MAX_C 16

/* n points in at most MSM_CLASS_CHUNKS parallel chunks (the 0/1 classification, sum_selected): the
 * chunk length (at least 1); *count the chunks */
static inline size_t msm_chunks(size_t n, size_t *count)
{
	size_t len = (n + MSM_CLASS_CHUNKS - 1) / MSM_CLASS_CHUNKS;
	if (len == 0)
		len = 1;
	*count = (n + len - 1) / len;
	return len;
}

/* Booth digit of window w (see the top of the file). */
/* Signed (Booth) digit of the window of c bits that starts at bit s: bits s-1 .. s+c-1 of k. */
static inline int msm_digit(const uint64_t k[4], int s, int c)
{
	int pos = s - 1;           /* lowest bit read */
	unsigned len = (unsigned)c + 1;
	uint64_t v;
	if (pos < 0) {
		v = (k[0] << 1);
	} else if (pos >= 256) {
		return 0;
	} else {
		int word = pos >> 6, sh = pos & 63;
		v = k[word] >> sh;
		if (sh + (int)len > 64 && word < 3)
			v |= k[word + 1] << (64 - sh);
	}
	v &= ((uint64_t)1 << len) - 1;
	return (int)((v >> 1) + (v & 1)) - (int)((v >> c) << c);
}

/* Batch-affine accumulation (msm_tmpl.h) from this many non-trivial scalars on; measured crossovers
 * (one thread): scalar batch G1 between 2^12 and 2^13, G2 between 2^10 and 2^11; the AVX-512 IFMA batch
 * (G(ba_vec)) G1 between 2^8 and 2^10 (2^10: 13.1 → 7.9 ms), G2 below 2^6 (2^6: 5.7 → 5.1 ms).
 * ZP_MSM_BA=0/1 in the environment forces the plain XYZZ path / the batch one (tests). */
#define MSM_BA_MIN_G1 8192
#define MSM_BA_MIN_G2 2048
#define MSM_BA_MIN_G1_VEC 512
#define MSM_BA_MIN_G2_VEC 64
#define MSM_BA_CHAINS 4

/* batch-affine bucket states (msm_tmpl.h) */
enum { BA_INF = 0, BA_AFF = 1, BA_BUSY = 2, BA_XYZZ = 3 };

static inline bool msm_use_ba(size_t n, size_t min)
{
	int ba = zp_knobs()->msm_ba;
	return ba >= 0 ? ba == 1 : n >= min;
}

/* Additions per shared inversion for 2^(c-1) buckets (ZP_MSM_BATCH overrides, tuning). */
static inline size_t msm_batch(int c)
{
	if (zp_knobs()->msm_batch)
		return (size_t)zp_knobs()->msm_batch;
	/* an eighth of the buckets: with the safegcd inversion, c = 13 measured /8 ~7 % faster than
	 * /2 (fewer entries find their bucket busy and wait in the queue) */
	size_t b = ((size_t)1 << (c - 1)) / 8;
	return b < 32 ? 32 : b > 2048 ? 2048 : b;
}

/* Window size for n scalars on the plain (ba = false) or batch-affine path. */
static inline int msm_window(size_t n, bool ba)
{
	int kw = zp_knobs()->msm_window;   /* ZP_MSM_WINDOW: tuning experiments only */
	if (kw >= 2 && kw <= MSM_MAX_C)
		return kw;
	/* cost in mixed additions: per window, n bucket additions plus about 2^(c-1)
	 * buckets × 2 full additions (≈ 1.4 mixed ones each) in the running sum.
	 * A batch-affine bucket addition costs about 0.65 mixed ones, and its running
	 * sum adds affine buckets (1 + 1.4 per bucket; 1.1 relative fits the timings). */
	double per_pt = ba ? 0.65 : 1.0, per_bucket = ba ? 1.1 : 1.4;
	int best = 1;
	double best_cost = 0;
	for (int c = 1; c <= MSM_MAX_C; c++) {
		int nwin = (256 + c - 1) / c;
		double cost = (double)nwin * (per_pt * (double)n + per_bucket * (double)((size_t)1 << c));
		if (c == 1 || cost < best_cost) {
			best = c;
			best_cost = cost;
		}
	}
	return best;
}

/* The largest window either path could pick for up to n scalars (scratch sizing). */
static inline int msm_window_max(size_t n)
{
	int a = msm_window(n, false), b = msm_window(n, true);
	return a > b ? a : b;
}


/* Point ranges per window so that there are at least about 2 tasks per bucket set. */
static inline int msm_point_chunks(size_t m, int nwin, int sets)
{
	int p = (2 * sets + nwin - 1) / nwin;
	if (p < 1)
		p = 1;
	if ((size_t)p > m)
		p = (int)m;
	return p;
}

/* nwin·ceil(2·sets/nwin) < nwin + 2·sets <= 256 + 2·sets */
static inline int msm_max_tasks(int sets) { return 256 + 2 * sets; }


#endif
