/*
 * ss_bits_index — the GPU gather's index step on the host (bits_index_model, the pass-for-pass
 * model of cuda/bits.cu) against gpud's CPU gather (zp_density_gather) and a bit-by-bit loop: same
 * count as zp_density_popcount, the set bits' indices ascending, and src[idx[j]] equal to what
 * zp_density_gather packs, on every size and density of bits_cases.h; zp_density_gather_par (the
 * parallel gather of the CPU backend and the CUDA backend's lean set) packs the same, and writes nothing
 * when the count is not the one it is told.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bits_cases.h"
#include "density.h"

/* zp_density_gather_par against the one-thread gather's g[0..cnt): told cnt it writes the same; told
 * cnt + 1 it writes nothing (dst unchanged) and still returns cnt. */
static int gpar_check(uint64_t n, enum bits_kind k, const uint64_t *bits, const zp_fr *src, const zp_fr *g, uint64_t cnt)
{
	zp_fr *p = malloc((n + 1) * sizeof(zp_fr));
	int bad = 0;
	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	memset(p, 0xa5, (n + 1) * sizeof(zp_fr));
	uint64_t r = zp_density_gather_par(p, src, bits, n, cnt);
	if (r != cnt || memcmp(p, g, cnt * sizeof(zp_fr)))
		bad = fprintf(stderr, "n %" PRIu64 " %s: zp_density_gather_par %" PRIu64 " entries, %s\n", n, bits_kind_name[k],
			      r, r != cnt ? "count differs" : "values differ from zp_density_gather");
	memset(p, 0xa5, (n + 1) * sizeof(zp_fr));
	r = zp_density_gather_par(p, src, bits, n, cnt + 1);
	for (uint64_t i = 0; !bad && i < (n + 1) * sizeof(zp_fr); i++)
		if (((const unsigned char *)p)[i] != 0xa5)
			bad = fprintf(stderr, "n %" PRIu64 " %s: told a wrong count, zp_density_gather_par wrote\n", n,
				      bits_kind_name[k]);
	if (!bad && r != cnt)
		bad = fprintf(stderr, "n %" PRIu64 " %s: told a wrong count, returned %" PRIu64 "\n", n, bits_kind_name[k], r);
	free(p);
	return bad ? 1 : 0;
}

static int check(uint64_t n, enum bits_kind k)
{
	uint64_t words = (n + 63) / 64;
	uint64_t *bits = calloc(words + 1, 8);
	uint32_t *idx = calloc(n + 1, 4), *off = calloc(words + 2, 4), *naive = calloc(n + 1, 4);
	zp_fr *src = calloc(n + 1, sizeof(zp_fr)), *g = calloc(n + 1, sizeof(zp_fr)), *h = calloc(n + 1, sizeof(zp_fr));
	int bad = 0;
	if (!bits || !idx || !off || !naive || !src || !g || !h) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	bits_fill(bits, n, k);
	for (uint64_t i = 0; i < n; i++)
		for (int l = 0; l < 4; l++)
			src[i].l[l] = bits_next();
	uint64_t cnt = bits_index_model(idx, off, bits, n), nn = 0;
	for (uint64_t i = 0; i < n; i++)
		if (bits[i / 64] >> (i % 64) & 1)
			naive[nn++] = (uint32_t)i;
	uint64_t ng = zp_density_gather(g, src, bits, n);
	for (uint64_t j = 0; j < cnt && j <= n; j++)
		h[j] = src[idx[j]];
	if (cnt != zp_density_popcount(bits, n) || cnt != nn || cnt != ng)
		bad = fprintf(stderr, "n %" PRIu64 " %s: count %" PRIu64 ", popcount %" PRIu64 ", loop %" PRIu64
			      ", gather %" PRIu64 "\n", n, bits_kind_name[k], cnt, zp_density_popcount(bits, n), nn, ng);
	else if (memcmp(idx, naive, cnt * 4))
		bad = fprintf(stderr, "n %" PRIu64 " %s: index list differs from the bit loop\n", n, bits_kind_name[k]);
	else if (memcmp(g, h, cnt * sizeof(zp_fr)))
		bad = fprintf(stderr, "n %" PRIu64 " %s: src[idx] differs from zp_density_gather\n", n, bits_kind_name[k]);
	else if (gpar_check(n, k, bits, src, g, cnt))
		bad = 1;
	else if (k == BK_ONES && cnt != n)
		bad = fprintf(stderr, "n %" PRIu64 " all ones: %" PRIu64 " set\n", n, cnt);
	else if (k == BK_ZEROS && cnt != 0)
		bad = fprintf(stderr, "n %" PRIu64 " all zeros: %" PRIu64 " set\n", n, cnt);
	free(bits); free(idx); free(off); free(naive); free(src); free(g); free(h);
	return bad ? 1 : 0;
}

int main(void)
{
	int fails = 0, cases = 0;
	for (size_t s = 0; s < sizeof bits_sizes / sizeof *bits_sizes; s++)
		for (int k = 0; k < BK_COUNT; k++, cases++)
			fails += check(bits_sizes[s], (enum bits_kind)k);
	printf("ss_bits_index: %d cases, %d failed\n", cases, fails);
	return fails ? 1 : 0;
}
