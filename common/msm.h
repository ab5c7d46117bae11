/*
 * msm.h — multi-scalar multiplication on the CPU: out = Σ k_i · P_i for G1 and G2.
 *
 * Inputs:
 *   points   n affine points (ec.h layout, the .zkey point sections unchanged);
 *            infinity = (0, 0) is allowed anywhere and contributes nothing.
 *   scalars  n zp_fr in Montgomery form (the witness / h-polynomial layout);
 *            converted to integers once per call.
 *   scratch  caller-owned, at least zp_msm_g1_scratch_size(n) bytes (g2 likewise),
 *            8-byte aligned (64 is better). The compute call allocates nothing.
 *            Its contents on entry don't matter; on return they are garbage.
 * Output: a jacobian point (Z = 0 for infinity).
 *
 * Method: scalars k = 0 are skipped and points with k = 1 are summed directly
 * (a Groth16 witness is mostly bits: those terms are a sum of points, not
 * Pippenger); the rest go through Pippenger with signed (Booth) digits in
 * [-2^(c-1), 2^(c-1)], so 2^(c-1) buckets per window. From 8192 remaining
 * scalars (G1; 2048 for G2) buckets are affine and filled by batch-affine
 * additions (a batch of independent bucket += point additions shares one field
 * inversion; a point whose bucket is already in the batch waits in a conflict
 * queue; a bucket that keeps overflowing the queue switches to XYZZ); below that,
 * buckets are XYZZ updated with mixed XYZZ+affine additions. The window size c is
 * chosen from the number of remaining scalars and the path. Work is split over windows (and
 * point ranges when there are more threads than windows) on zp_par_threads()
 * threads (ZP_THREADS), each thread with its own bucket set from scratch.
 *
 * Threads: the scratch size is computed for zp_par_threads() at the time of the
 * _scratch_size call; if the thread count is raised later, the compute call still
 * runs correctly on as many bucket sets as the scratch holds.
 *
 * Not constant time: the running time and memory accesses depend on the scalars
 * (fine for the witness-dependent MSMs of a proof; never use for secret keys).
 * Returns 0, or ZP_ERANGE if scratch is smaller than required.
 */
#ifndef ZP_MSM_H
#define ZP_MSM_H

#include "ec.h"

#include <stddef.h>

/* One curve's MSM functions, named by its prefix P (zp_, zp_bn254_: the curve naming rule): the scratch
 * size and the MSM for G1 and G2, and
 * P##msm_g*_sum_selected: the sum of the points whose selector is non-zero, out = Σ_{sel[i] != 0} P_i, on
 * all threads, for callers that already know their scalars are bits; allocates nothing. */
#define ZP_MSM_API(P)                                                                                      \
	size_t P##msm_g1_scratch_size(size_t n);                                                           \
	int P##msm_g1(P##g1_jac *out, const P##g1_affine *points, const P##fr *scalars, size_t n, void *scratch, \
		      size_t scratch_len);                                                                 \
	size_t P##msm_g2_scratch_size(size_t n);                                                           \
	int P##msm_g2(P##g2_jac *out, const P##g2_affine *points, const P##fr *scalars, size_t n, void *scratch, \
		      size_t scratch_len);                                                                 \
	void P##msm_g1_sum_selected(P##g1_jac *out, const P##g1_affine *points, const uint8_t *sel, size_t n); \
	void P##msm_g2_sum_selected(P##g2_jac *out, const P##g2_affine *points, const uint8_t *sel, size_t n);
ZP_MSM_API(zp_)

/* The window size zp_msm_g1 would pick for n non-trivial scalars (benchmarks, tests;
 * zp_msm_g2 may differ between 2048 and 8192 scalars, where only it batches).
 * ZP_MSM_WINDOW=c in the environment (2..16) overrides the choice, for tuning;
 * ZP_MSM_BA=0 or 1 forces the XYZZ or the batch-affine path (tests, tuning). */
int zp_msm_window_bits(size_t n);

#endif
