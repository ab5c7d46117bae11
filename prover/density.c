/*
 * density.c — density bitmaps on the host (density.h).
 */
#include "density.h"

#include <stdlib.h>

#include "par.h"

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

/* zp_density_gather_par: chunks of GP_WORDS words; at[c] a chunk's count, then its offset. */
#define GP_WORDS 16384
struct gpar { const uint64_t *bits; uint64_t n; const zp_fr *src; zp_fr *dst; uint64_t *at; };

static uint64_t gp_word(const struct gpar *g, uint64_t j)
{
	uint64_t x = g->bits[j];
	if (j == (g->n - 1) / 64 && g->n % 64)
		x &= (1ull << (g->n % 64)) - 1;
	return x;
}

static uint64_t gp_end(const struct gpar *g, size_t c)
{
	uint64_t nw = (g->n + 63) / 64, j1 = ((uint64_t)c + 1) * GP_WORDS;
	return j1 < nw ? j1 : nw;
}

static void gp_count(void *ctx, size_t c, int worker)
{
	struct gpar *g = ctx;
	uint64_t k = 0;
	(void)worker;
	for (uint64_t j = (uint64_t)c * GP_WORDS; j < gp_end(g, c); j++)
		k += (uint64_t)__builtin_popcountll(gp_word(g, j));
	g->at[c] = k;
}

static void gp_copy(void *ctx, size_t c, int worker)
{
	struct gpar *g = ctx;
	uint64_t k = g->at[c];
	(void)worker;
	for (uint64_t j = (uint64_t)c * GP_WORDS; j < gp_end(g, c); j++)
		for (uint64_t x = gp_word(g, j); x; x &= x - 1)
			g->dst[k++] = g->src[j * 64 + (uint64_t)__builtin_ctzll(x)];
}

uint64_t zp_density_gather_par(zp_fr *dst, const zp_fr *src, const uint64_t *bits, uint64_t n, uint64_t want)
{
	if (!n)
		return 0;
	size_t nc = (size_t)(((n + 63) / 64 + GP_WORDS - 1) / GP_WORDS);
	struct gpar g = { bits, n, src, dst, calloc(nc, sizeof(uint64_t)) };
	if (!g.at) {   /* no room for the offsets: the one-thread gather */
		uint64_t k = zp_density_popcount(bits, n);
		return k == want ? zp_density_gather(dst, src, bits, n) : k;
	}
	zp_par_for(nc, gp_count, &g);
	uint64_t tot = 0;
	for (size_t c = 0; c < nc; c++) {   /* counts to offsets */
		uint64_t k = g.at[c];
		g.at[c] = tot;
		tot += k;
	}
	if (tot == want)
		zp_par_for(nc, gp_copy, &g);
	free(g.at);
	return tot;
}
