/* The GLV cut of cuda/glv.h on the host (the device runs the same C): β is a cube root of unity of
 * Fp and φ(P) = (β·x, y) equals [λ]P on G1 (the generator and random multiples of it); k = k1 + k2·λ
 * exactly with k1 < λ and k2 ≤ λ + 1 for 0, 1, r − 1, λ − 1, λ, λ + 1, λ², λ² + λ, 2^k, r − 2^k and
 * 200000 random scalars (uniform below r, and 128/192-bit ones). No GPU needed. */
#include <stdio.h>
#include <string.h>

#include "../../cuda/glv.h"
#include "ec.h"
#include "field.h"

static int fails;
#define CK(c, ...) do { if (!(c)) { fails++; fprintf(stderr, "FAIL: " __VA_ARGS__); fprintf(stderr, "\n"); } } while (0)

static const uint64_t R[4] = { 0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL };
static const uint64_t LAM[2] = { ZP_GLV_LAMBDA0, ZP_GLV_LAMBDA1 };

/* a < b over n limbs */
static int lt(const uint64_t *a, const uint64_t *b, int n)
{
	for (int i = n - 1; i >= 0; i--)
		if (a[i] != b[i])
			return a[i] < b[i];
	return 0;
}

static int check_split(const uint64_t k[4], const char *what)
{
	uint64_t k1[2], k2[2], s[5] = { 0 };
	zp_glv_split(k, k1, k2);
	/* s = k2·λ + k1, schoolbook with 128-bit products */
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++) {
			unsigned __int128 t = (unsigned __int128)k2[i] * LAM[j];
			unsigned __int128 c = (unsigned __int128)s[i + j] + (uint64_t)t;
			s[i + j] = (uint64_t)c;
			uint64_t carry = (uint64_t)(c >> 64) + (uint64_t)(t >> 64);
			for (int q = i + j + 1; q < 5 && carry; q++) {
				c = (unsigned __int128)s[q] + carry;
				s[q] = (uint64_t)c;
				carry = (uint64_t)(c >> 64);
			}
		}
	uint64_t carry = 0;
	for (int i = 0; i < 5; i++) {
		unsigned __int128 c = (unsigned __int128)s[i] + (i < 2 ? k1[i] : 0) + carry;
		s[i] = (uint64_t)c;
		carry = (uint64_t)(c >> 64);
	}
	int ok = s[4] == 0 && !memcmp(s, k, 32);
	uint64_t lp1[2] = { LAM[0] + 1, LAM[1] + (LAM[0] + 1 == 0) };
	ok = ok && lt(k1, LAM, 2) && !lt(lp1, k2, 2);
	CK(ok, "split of %s: k = %016llx%016llx%016llx%016llx -> k1 %016llx%016llx k2 %016llx%016llx", what,
	   (unsigned long long)k[3], (unsigned long long)k[2], (unsigned long long)k[1], (unsigned long long)k[0],
	   (unsigned long long)k1[1], (unsigned long long)k1[0], (unsigned long long)k2[1], (unsigned long long)k2[0]);
	return ok;
}

static void sub(uint64_t *r, const uint64_t *a, const uint64_t *b)
{
	uint64_t br = 0;
	for (int i = 0; i < 4; i++) {
		unsigned __int128 d = (unsigned __int128)a[i] - b[i] - br;
		r[i] = (uint64_t)d;
		br = (uint64_t)(d >> 64) ? 1 : 0;
	}
}

int main(void)
{
	/* β: Montgomery constant, β³ = 1 ≠ β */
	const uint32_t bm[12] = ZP_GLV_BETA_MONT;
	zp_fp beta, b2, b3;
	memcpy(&beta, bm, sizeof beta);
	zp_fp_mul(&b2, &beta, &beta);
	zp_fp_mul(&b3, &b2, &beta);
	CK(zp_fp_eq(&b3, &ZP_FP_ONE) && !zp_fp_eq(&beta, &ZP_FP_ONE), "beta is not a primitive cube root of unity");
	/* λ as a scalar; φ(P) = [λ]P for G and random multiples */
	uint64_t lraw[4] = { LAM[0], LAM[1], 0, 0 };
	zp_fr lam;
	zp_fr_to_mont(&lam, lraw);
	zp_rng g;
	zp_rng_seed(&g, 22);
	for (int t = 0; t < 8; t++) {
		zp_g1_jac P, L;
		zp_g1_affine a, la, phi;
		zp_g1_jac_from_affine(&P, &ZP_G1_GEN);
		if (t) {
			zp_fr k;
			zp_fr_random(&k, &g);
			zp_g1_jac_mul(&P, &P, &k);
		}
		zp_g1_jac_to_affine(&a, &P);
		zp_g1_jac_mul(&L, &P, &lam);
		zp_g1_jac_to_affine(&la, &L);
		phi = a;
		zp_fp_mul(&phi.x, &a.x, &beta);
		CK(zp_g1_affine_eq(&phi, &la), "phi(P) != [lambda]P (point %d)", t);
	}
	/* the cut */
	uint64_t k[4] = { 0, 0, 0, 0 }, one[4] = { 1, 0, 0, 0 };
	check_split(k, "0");
	check_split(one, "1");
	sub(k, R, one);
	check_split(k, "r - 1");
	uint64_t l4[4] = { LAM[0], LAM[1], 0, 0 };
	check_split(l4, "lambda");
	sub(k, l4, one);
	check_split(k, "lambda - 1");
	uint64_t lp[4] = { LAM[0] + 1, LAM[1], 0, 0 };
	check_split(lp, "lambda + 1");
	uint64_t l2[4];   /* λ² = r − λ − 1 */
	sub(k, R, lp);
	memcpy(l2, k, sizeof l2);
	check_split(l2, "lambda^2");
	uint64_t l2l[4];
	sub(l2l, R, one);
	check_split(l2l, "lambda^2 + lambda");
	for (int b = 0; b < 255; b++) {
		uint64_t p2[4] = { 0, 0, 0, 0 }, m[4];
		p2[b / 64] = 1ULL << (b % 64);
		check_split(p2, "2^b");
		sub(m, R, p2);
		check_split(m, "r - 2^b");
	}
	int bad = 0;
	for (int t = 0; t < 200000 && bad < 5; t++) {
		zp_fr x;
		uint64_t raw[4];
		zp_fr_random(&x, &g);
		zp_fr_from_mont(raw, &x);
		if (t % 4 == 1)
			raw[2] = raw[3] = 0;
		else if (t % 4 == 2)
			raw[3] = 0;
		bad += !check_split(raw, "random");
	}
	if (fails)
		fprintf(stderr, "%d failure(s)\n", fails);
	else
		printf("glv: beta, phi = [lambda] on 8 points, the cut on 518 edge and 200000 random scalars: OK\n");
	return fails != 0;
}
