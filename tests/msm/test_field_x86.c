/* The MULX/ADX Montgomery multiply equals the portable one (Fp and Fr), bit for bit,
 * on millions of random and edge-case inputs; and zp_fp_mul dispatches to it. */
#include "field_impl.h"

#include <stdio.h>
#include <string.h>

#define N_RANDOM 2000000

static int fails;

static void check_fp(const zp_fp *a, const zp_fp *b)
{
#if ZP_FIELD_HAVE_ASM
	zp_fp x, y;
	zp_fp_mul_portable(&x, a, b);
	zp_fp_mul_adx(&y, a, b);
	if (memcmp(&x, &y, sizeof(x)) && fails++ < 5)
		fprintf(stderr, "fp mismatch a=%016lx.. b=%016lx..\n", (unsigned long)a->l[5], (unsigned long)b->l[5]);
#endif
}

static void check_fr(const zp_fr *a, const zp_fr *b)
{
#if ZP_FIELD_HAVE_ASM
	zp_fr x, y;
	zp_fr_mul_portable(&x, a, b);
	zp_fr_mul_adx(&y, a, b);
	if (memcmp(&x, &y, sizeof(x)) && fails++ < 5)
		fprintf(stderr, "fr mismatch a=%016lx.. b=%016lx..\n", (unsigned long)a->l[3], (unsigned long)b->l[3]);
#endif
}

int main(void)
{
	if (!ZP_FIELD_HAVE_ASM || !zp_field_cpu_has_adx()) {
		printf("SKIP: no BMI2/ADX on this CPU\n");
		return 77;
	}
	if (!zp_field_set_adx(true)) {
		fprintf(stderr, "could not enable adx path\n");
		return 1;
	}
	zp_rng g;
	zp_rng_seed(&g, 0x5eed);
	/* edge values: 0, 1, R, q-1, q-2, small integers, all-high limbs */
	zp_fp efp[8];
	zp_fr efr[8];
	memset(efp, 0, sizeof(efp));
	memset(efr, 0, sizeof(efr));
	efp[1].l[0] = 1;
	efp[2] = ZP_FP_ONE;
	memcpy(efp[3].l, ZP_FP_MODULUS, 48); efp[3].l[0] -= 1;
	memcpy(efp[4].l, ZP_FP_MODULUS, 48); efp[4].l[0] -= 2;
	zp_fp_from_u64(&efp[5], 2);
	memcpy(efp[6].l, ZP_FP_MODULUS, 48); efp[6].l[0] -= 0x1000; efp[6].l[1] = 0;
	zp_fp_neg(&efp[7], &ZP_FP_ONE);
	efr[1].l[0] = 1;
	efr[2] = ZP_FR_ONE;
	memcpy(efr[3].l, ZP_FR_MODULUS, 32); efr[3].l[0] -= 1;
	memcpy(efr[4].l, ZP_FR_MODULUS, 32); efr[4].l[0] -= 2;
	zp_fr_from_u64(&efr[5], 2);
	efr[6].l[3] = ZP_FR_MODULUS[3] - 1; efr[6].l[2] = ~0ULL; efr[6].l[1] = ~0ULL; efr[6].l[0] = ~0ULL;
	zp_fr_neg(&efr[7], &ZP_FR_ONE);
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++) {
			check_fp(&efp[i], &efp[j]);
			check_fr(&efr[i], &efr[j]);
		}
	/* random values, and chains feeding outputs back in */
	zp_fp a, b, c;
	zp_fr x, y, z;
	zp_fp_random(&c, &g);
	zp_fr_random(&z, &g);
	for (long i = 0; i < N_RANDOM; i++) {
		zp_fp_random(&a, &g);
		zp_fp_random(&b, &g);
		check_fp(&a, &b);
		check_fp(&a, &a);
		check_fp(&a, &efp[i & 7]);
		check_fp(&c, &a);
		zp_fp_mul_portable(&c, &c, &a);
		zp_fr_random(&x, &g);
		zp_fr_random(&y, &g);
		check_fr(&x, &y);
		check_fr(&x, &efr[i & 7]);
		check_fr(&z, &x);
		zp_fr_mul_portable(&z, &z, &x);
	}
	/* public entry points agree with the portable path under both settings */
	zp_fp p1, p2;
	zp_fp_mul(&p1, &a, &b);
	zp_field_set_adx(false);
	zp_fp_mul(&p2, &a, &b);
	if (memcmp(&p1, &p2, sizeof(p1)) || zp_field_adx) {
		fprintf(stderr, "dispatch mismatch\n");
		fails++;
	}
	zp_field_set_adx(true);
	if (fails) {
		fprintf(stderr, "%d mismatches\n", fails);
		return 1;
	}
	printf("ok: %d random rounds, Fp and Fr\n", N_RANDOM);
	return 0;
}
