/* field_impl.h's carry-chain variants used by the MSM — zp_fp_addc, zp_fp_subc,
 * zp_fp_mulc, zp_fp_sqrc — equal field.h's zp_fp_add/sub/mul on random values and
 * on edge values (0, 1, q-1, q-2, values just below q), on both the MULX/ADX path
 * and the portable one; products are checked against zp_fp_mul_portable. */
#include "field_impl.h"

#include <stdio.h>
#include <string.h>

static int fails;

static void check(const char *op, const zp_fp *got, const zp_fp *want, const zp_fp *a, const zp_fp *b)
{
	if (memcmp(got, want, sizeof(*got)) == 0)
		return;
	if (fails++ < 5)
		fprintf(stderr, "FAIL %s a0=%016llx b0=%016llx\n", op, (unsigned long long)a->l[0],
			(unsigned long long)b->l[0]);
}

static void value(zp_fp *x, int kind, zp_rng *g)
{
	zp_fp_random(x, g);
	switch (kind) {
	case 0: *x = ZP_FP_ZERO; break;
	case 1: *x = ZP_FP_ONE; break;
	case 2: case 3: case 4:   /* q - 1, q - 2, q - small: the largest residues */
		memcpy(x->l, ZP_FP_MODULUS, sizeof(x->l));
		x->l[0] -= kind == 4 ? 1 + zp_rng_next(g) % 1000 : (uint64_t)(kind - 1);
		break;
	case 5: x->l[0] = 1; x->l[1] = x->l[2] = x->l[3] = x->l[4] = x->l[5] = 0; break;
	default: break;
	}
}

int main(void)
{
	zp_rng g;
	zp_rng_seed(&g, 77);
	for (int path = 0; path < 2; path++) {
		if (path == 1)
			zp_field_set_adx(false);   /* the portable path */
		for (int i = 0; i < 200000; i++) {
			zp_fp a, b, r1, r2;
			value(&a, i < 64 ? i % 8 : (int)(zp_rng_next(&g) % 12), &g);
			value(&b, i < 64 ? i / 8 : (int)(zp_rng_next(&g) % 12), &g);
			zp_fp_add(&r1, &a, &b); zp_fp_addc(&r2, &a, &b); check("addc", &r2, &r1, &a, &b);
			zp_fp_sub(&r1, &a, &b); zp_fp_subc(&r2, &a, &b); check("subc", &r2, &r1, &a, &b);
			zp_fp_mul_portable(&r1, &a, &b); zp_fp_mulc(&r2, &a, &b); check("mulc", &r2, &r1, &a, &b);
			zp_fp_mul_portable(&r1, &a, &a); zp_fp_sqrc(&r2, &a); check("sqrc", &r2, &r1, &a, &a);
		}
	}
	zp_field_set_adx(true);
	printf("%s\n", fails ? "carry-chain field ops differ" : "carry-chain field ops agree");
	return fails ? 1 : 0;
}
