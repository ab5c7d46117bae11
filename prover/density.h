/*
 * density.h — density bitmaps: which wires a compact query covers (bellperson's DensityTracker,
 * handed over per partition by its prover ABI; docs/supraseal.md). u64 words, LSB first; bit i set
 * = wire i has a point. The CPU backend gathers scalars with these; the CUDA backend builds index
 * lists on the device (cuda/bits.cu), whose host model is bits_index_model in
 * tests/supraseal/bits_cases.h.
 */
#ifndef ZP_DENSITY_H
#define ZP_DENSITY_H

#include <stdint.h>

#include "field.h"

/* Set bits among the first `bits` of a bitmap. */
uint64_t zp_density_popcount(const uint64_t *w, uint64_t bits);

/* dst gets src[i] for every set bit i < n (ascending); returns how many (the CPU gather). */
uint64_t zp_density_gather(zp_fr *dst, const zp_fr *src, const uint64_t *bits, uint64_t n);

/* zp_density_gather over zp_par_for (chunks of 2^20 bits: a counting pass, then the copy pass from each
 * chunk's offset): the same dst, written only when the count equals want (a bitmap that disagrees with
 * the popcount its caller gave writes nothing). Returns the count. */
uint64_t zp_density_gather_par(zp_fr *dst, const zp_fr *src, const uint64_t *bits, uint64_t n, uint64_t want);

#endif
