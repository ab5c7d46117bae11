/*
 * density.c — density bitmaps on the host (density.h).
 */
#include "density.h"

uint64_t zp_density_popcount(const uint64_t *w, uint64_t bits)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < bits / 64; i++)
		n += (uint64_t)__builtin_popcountll(w[i]);
	if (bits % 64)
		n += (uint64_t)__builtin_popcountll(w[bits / 64] & ((1ull << (bits % 64)) - 1));
	return n;
}

uint64_t zp_density_gather(zp_fr *dst, const zp_fr *src, const uint64_t *bits, uint64_t n)
{
	uint64_t k = 0;
	for (uint64_t i = 0; i < n; i += 64) {
		uint64_t m = bits[i / 64];
		if (n - i < 64)
			m &= (1ull << (n - i)) - 1;
		while (m) {
			unsigned b = (unsigned)__builtin_ctzll(m);
			dst[k++] = src[i + b];
			m &= m - 1;
		}
	}
	return k;
}

/* bits of word w that lie below n */
static uint64_t word_bits(const uint64_t *bits, uint64_t w, uint64_t n)
{
	uint64_t m = bits[w], left = n - w * 64;
	return left < 64 ? m & ((1ull << left) - 1) : m;
}

uint64_t zp_density_index(uint32_t *idx, uint32_t *off, const uint64_t *bits, uint64_t n)
{
	uint64_t words = (n + 63) / 64;
	for (uint64_t w = 0; w < words; w++) /* 1. count */
		off[w] = (uint32_t)__builtin_popcountll(word_bits(bits, w, n));
	off[words] = 0;
	uint32_t run = 0; /* 2. exclusive scan, in place */
	for (uint64_t w = 0; w <= words; w++) {
		uint32_t c = off[w];
		off[w] = run;
		run += c;
	}
	for (uint64_t w = 0; w < words; w++) { /* 3. each word its run */
		uint64_t m = word_bits(bits, w, n);
		uint32_t o = off[w];
		while (m) {
			idx[o++] = (uint32_t)(w * 64 + (uint64_t)__builtin_ctzll(m));
			m &= m - 1;
		}
	}
	return off[words];
}
