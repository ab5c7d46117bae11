/*
 * bits_cases.h — density bitmaps for the gather tests (ss_bits_index.c on the CPU, ss_gather_gpu.c
 * on a GPU): sizes around word edges, densities from none to all, and junk past n in the last word
 * (which every reader must ignore); and bits_index_model, the host model of the GPU's index step.
 */
#ifndef ZP_TEST_BITS_CASES_H
#define ZP_TEST_BITS_CASES_H

#include <stdint.h>
#include <string.h>

enum bits_kind { BK_RANDOM, BK_SPARSE, BK_DENSE, BK_ONES, BK_ZEROS, BK_ALTERNATE, BK_COUNT };
static const char *bits_kind_name[] = { "random", "sparse (3%)", "dense (97%)", "all ones", "all zeros", "alternating" };

static uint64_t bits_rng = 0x243f6a8885a308d3ull;
static uint64_t bits_next(void)
{
	bits_rng ^= bits_rng << 13;
	bits_rng ^= bits_rng >> 7;
	bits_rng ^= bits_rng << 17;
	return bits_rng;
}

/* ⌈n/64⌉ words of kind k; the bits past n in the last word are random junk. */
static void bits_fill(uint64_t *w, uint64_t n, enum bits_kind k)
{
	uint64_t words = (n + 63) / 64;
	for (uint64_t i = 0; i < words; i++) {
		uint64_t m = 0;
		switch (k) {
		case BK_RANDOM: m = bits_next(); break;
		case BK_ONES: m = ~0ull; break;
		case BK_ZEROS: m = 0; break;
		case BK_ALTERNATE: m = 0x5555555555555555ull; break;
		case BK_SPARSE: case BK_DENSE:
			for (int b = 0; b < 64; b++)
				if (bits_next() % 100 < 3)
					m |= 1ull << b;
			if (k == BK_DENSE)
				m = ~m;
			break;
		default: break;
		}
		w[i] = m;
	}
	if (n % 64) /* junk past n */
		w[words - 1] |= bits_next() & ~((1ull << (n % 64)) - 1);
}

/* Sizes: empty, around word edges, a PoRep partition's 329 inputs, larger odd sizes. */
static const uint64_t bits_sizes[] = { 0, 1, 2, 63, 64, 65, 127, 128, 129, 329, 1000, 4113, 65536, 100003,
					 /* zp_density_gather_par's chunks are 2^20 bits: one and a bit, three and a tail */
					 (1u << 20) + 1, 3 * (1u << 20) + 37 };

/* bits of word w that lie below n */
static uint64_t word_bits(const uint64_t *bits, uint64_t w, uint64_t n)
{
	uint64_t m = bits[w], left = n - w * 64;
	return left < 64 ? m & ((1ull << left) - 1) : m;
}

/* The GPU gather's index step (cuda/bits.cu, zp_cuda_bits_index) on the host, pass for pass: off
 * gets each word's popcount, then their exclusive sum (⌈n/64⌉ + 1 entries: room for that); idx
 * gets the indices i < n of the set bits, ascending, each word writing its run at off[word].
 * Returns how many (off[⌈n/64⌉]). The reference the GPU check and the CPU test compare with
 * (a test fixture: not in the prover's library). */
static uint64_t bits_index_model(uint32_t *idx, uint32_t *off, const uint64_t *bits, uint64_t n)
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

#endif
