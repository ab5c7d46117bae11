/*
 * ff_emul.cu — the device Montgomery product of cuda/ff.cuh (mont_mul_eo, the even/odd split),
 * run on the host with ff.cuh's emulated PTX carry flag and compared with a textbook product
 * (full 2N-limb schoolbook, then word-by-word REDC, 64-bit arithmetic, fully reduced): Fp (12
 * limbs) and Fr (8 limbs) of BLS12-381 and BN254's Fp and Fr (8 limbs each: the bn_fp_cfg / bn_fr_cfg
 * instances), edge values (0, 1, p-1, p-2, 2^k, all-ones low limbs) and random ones.
 * Also checks mont_mul_eo's documented range [0, 2p), and the lazy-reduction Fp2 product
 * (fp2_mul_lazy, ZP_FP2_LAZY) with its 2N-limb product for both curves' Fp2, and the FP64-limb Fr
 * product of ff_f64.cuh (fr_mul_f64, BLS12-381's Fr) against the same oracle; and the dedicated square
 * (mont_sqr_eo) of all four fields against it and against mont_mul_eo(a, a). Needs no GPU.
 * Exit 0 pass, 1 fail.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <stdint.h>
#include "ff.cuh"
#include "ff_f64.cuh"

static uint64_t st[2] = { 0x243f6a8885a308d3ull, 0x13198a2e03707344ull };
static uint64_t rnd(void)
{ /* xorshift128+ */
	uint64_t s1 = st[0], s0 = st[1];
	st[0] = s0; s1 ^= s1 << 23; st[1] = s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26);
	return st[1] + s0;
}
static int cmp(const uint32_t *a, const uint32_t *b, int n)
{
	for (int i = n - 1; i >= 0; i--) if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
	return 0;
}
static void sub(uint32_t *r, const uint32_t *a, const uint32_t *b, int n)
{
	uint64_t br = 0;
	for (int i = 0; i < n; i++) { uint64_t d = (uint64_t)a[i] - b[i] - br; r[i] = (uint32_t)d; br = (d >> 63) & 1; }
}
/* textbook: t = a·b (2n limbs), then n REDC steps, then one subtraction */
static void ref_mul(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *p, uint32_t inv, int n)
{
	uint32_t t[2 * 12 + 1] = { 0 };
	for (int i = 0; i < n; i++) {
		uint64_t c = 0;
		for (int j = 0; j < n; j++) { uint64_t v = (uint64_t)a[j] * b[i] + t[i + j] + c; t[i + j] = (uint32_t)v; c = v >> 32; }
		for (int k = i + n; c; k++) { uint64_t v = (uint64_t)t[k] + c; t[k] = (uint32_t)v; c = v >> 32; }
	}
	for (int i = 0; i < n; i++) {
		uint32_t m = t[i] * inv;
		uint64_t c = 0;
		for (int j = 0; j < n; j++) { uint64_t v = (uint64_t)m * p[j] + t[i + j] + c; t[i + j] = (uint32_t)v; c = v >> 32; }
		for (int k = i + n; c; k++) { uint64_t v = (uint64_t)t[k] + c; t[k] = (uint32_t)v; c = v >> 32; }
	}
	/* result t[n..2n] < 2p */
	if (t[2 * n] || cmp(t + n, p, n) >= 0) sub(r, t + n, p, n); else memcpy(r, t + n, n * 4);
}
static void rand_below(uint32_t *x, const uint32_t *p, int n)
{
	do { for (int i = 0; i < n; i++) x[i] = (uint32_t)rnd(); x[n - 1] &= 0xffffffffu >> __builtin_clz(p[n - 1]) >> 0;
	} while (cmp(x, p, n) >= 0);
}
template <int N> static int run(const char *name, const uint32_t *p, uint32_t inv, long iters, bool f64 = false)
{
	enum { E = 10 };
	uint32_t edge[E][N];
	memset(edge, 0, sizeof edge);
	edge[1][0] = 1;
	memcpy(edge[2], p, N * 4); edge[2][0] -= 1;                 /* p-1 (p odd) */
	memcpy(edge[3], p, N * 4); edge[3][0] -= 2;                 /* p-2 */
	edge[4][N - 1] = 1u << (31 - __builtin_clz(p[N - 1]));      /* top bit of p's width */
	for (int i = 0; i < N - 1; i++) edge[5][i] = 0xffffffffu;   /* all-ones low limbs */
	for (int i = 0; i < N; i++) edge[6][i] = p[i] >> 1 | (i + 1 < N ? p[i + 1] << 31 : 0);  /* (p-1)/2 */
	edge[7][N / 2] = 1;
	memcpy(edge[8], p, N * 4); edge[8][0] -= 1; edge[8][N / 2] -= 1;
	for (int i = 0; i < N; i++) edge[9][i] = 0x80000000u;
	if (cmp(edge[9], p, N) >= 0) edge[9][N - 1] = 1;
	long bad = 0, range = 0, total = 0, bad_f64 = 0;
	uint32_t a[N], b[N], r1[N], r2[N], t[N];
	for (long it = 0; it < iters + E * E; it++) {
		if (it < E * E) { memcpy(a, edge[it / E], sizeof a); memcpy(b, edge[it % E], sizeof b); }
		else { rand_below(a, p, N); if (it & 1) memcpy(b, a, sizeof b); else rand_below(b, p, N); }
		mont_mul_eo<N>(t, a, b, p, inv);
		uint32_t tp[N];
		sub(tp, t, p, N);
		/* t < 2p  <=>  t - p < p when t >= p */
		if (cmp(t, p, N) >= 0 && cmp(tp, p, N) >= 0) range++;
		if (cmp(t, p, N) >= 0) memcpy(r1, tp, sizeof r1); else memcpy(r1, t, sizeof r1);
		ref_mul(r2, a, b, p, inv, N);
		if (memcmp(r1, r2, sizeof r1)) {
			if (bad < 3) {
				printf("%s mismatch at %ld:\n a=", name, it);
				for (int i = N - 1; i >= 0; i--) printf("%08x", a[i]);
				printf("\n b="); for (int i = N - 1; i >= 0; i--) printf("%08x", b[i]);
				printf("\n got  "); for (int i = N - 1; i >= 0; i--) printf("%08x", r1[i]);
				printf("\n want "); for (int i = N - 1; i >= 0; i--) printf("%08x", r2[i]);
				printf("\n");
			}
			bad++;
		}
		if (f64) {   /* BLS12-381's Fr: the FP64-pipe product of ff_f64.cuh gives the same bytes */
			uint32_t r3[8];
			f64::fr_mul_f64(r3, a, b);
			if (memcmp(r3, r2, sizeof r3)) {
				if (bad_f64 < 3) {
					printf("fr_mul_f64 mismatch at %ld:\n got  ", it);
					for (int i = 7; i >= 0; i--) printf("%08x", r3[i]);
					printf("\n want "); for (int i = 7; i >= 0; i--) printf("%08x", r2[i]);
					printf("\n");
				}
				bad_f64++;
			}
		}
		total++;
	}
	printf("%s: %ld products, %ld wrong, %ld out of [0, 2p)\n", name, total, bad, range);
	if (f64) printf("%s, FP64 limbs (fr_mul_f64): %ld products, %ld wrong\n", name, total, bad_f64);
	return bad || range || bad_f64;
}
/* (a + b) mod p, (a - b) mod p for reduced a, b */
static void add_mod(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *p, int n)
{
	uint64_t c = 0; uint32_t t[13];
	for (int i = 0; i < n; i++) { uint64_t v = (uint64_t)a[i] + b[i] + c; t[i] = (uint32_t)v; c = v >> 32; }
	t[n] = (uint32_t)c;
	if (t[n] || cmp(t, p, n) >= 0) sub(r, t, p, n); else memcpy(r, t, n * 4);
}
static void sub_mod(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *p, int n)
{
	if (cmp(a, b, n) >= 0) { sub(r, a, b, n); return; }
	uint32_t t[12]; sub(t, p, b, n); add_mod(r, a, t, p, n);
}
/* fp2_mul_lazy (ZP_FP2_LAZY) against Montgomery Karatsuba-free textbook Fp2:
 * c0 = a0·b0 - a1·b1, c1 = a0·b1 + a1·b0, each product by ref_mul; plus mul_wide alone */
template <int N> static int run_fp2(const char *name, const uint32_t *p, const uint32_t *one, uint32_t inv, long iters)
{
	enum { E = 8 };
	uint32_t edge[E][N];
	memset(edge, 0, sizeof edge);
	edge[1][0] = 1;
	memcpy(edge[2], p, N * 4); edge[2][0] -= 1;
	memcpy(edge[3], p, N * 4); edge[3][0] -= 2;
	for (int i = 0; i < N - 1; i++) edge[4][i] = 0xffffffffu;
	for (int i = 0; i < N; i++) edge[5][i] = p[i] >> 1 | (i + 1 < N ? p[i + 1] << 31 : 0);
	memcpy(edge[6], one, N * 4);
	memcpy(edge[7], p, N * 4); edge[7][0] -= 1; edge[7][N / 2] -= 1;
	long bad = 0, total = 0;
	for (long it = 0; it < iters + E * E * E * E; it++) {
		uint32_t a0[N], a1[N], b0[N], b1[N], r0[N], r1[N], w0[N], w1[N], x[N], y[N];
		if (it < E * E * E * E) {
			memcpy(a0, edge[it % E], sizeof a0); memcpy(a1, edge[it / E % E], sizeof a1);
			memcpy(b0, edge[it / (E * E) % E], sizeof b0); memcpy(b1, edge[it / (E * E * E)], sizeof b1);
		} else {
			rand_below(a0, p, N); rand_below(a1, p, N); rand_below(b0, p, N); rand_below(b1, p, N);
			if (it % 5 == 0) { memcpy(b0, a0, sizeof b0); memcpy(b1, a1, sizeof b1); }   /* squares */
		}
		fp2_mul_lazy<N>(r0, r1, a0, a1, b0, b1, p, inv);
		ref_mul(x, a0, b0, p, inv, N); ref_mul(y, a1, b1, p, inv, N); sub_mod(w0, x, y, p, N);
		ref_mul(x, a0, b1, p, inv, N); ref_mul(y, a1, b0, p, inv, N); add_mod(w1, x, y, p, N);
		if (memcmp(r0, w0, sizeof r0) || memcmp(r1, w1, sizeof r1)) {
			if (bad < 3) printf("%s mismatch at %ld\n", name, it);
			bad++;
		}
		/* the 2N-limb product alone, against a schoolbook one */
		uint32_t T[2 * N], S[2 * N] = { 0 };
		mul_wide<N>(T, a0, b1);
		for (int i = 0; i < N; i++) {
			uint64_t c = 0;
			for (int j = 0; j < N; j++) { uint64_t v = (uint64_t)a0[j] * b1[i] + S[i + j] + c; S[i + j] = (uint32_t)v; c = v >> 32; }
			S[i + N] = (uint32_t)c;
		}
		if (memcmp(T, S, sizeof T)) { if (bad < 3) printf("mul_wide mismatch at %ld\n", it); bad++; }
		total++;
	}
	printf("%s: %ld products, %ld wrong\n", name, total, bad);
	return bad != 0;
}
/* the dedicated square (mont_sqr_eo = sqr_eo_parts + redc_eo + sub_p_if, ff's sqr() under DEDICATED_SQR) against ref_mul(a, a) and mont_mul_eo(a, a) reduced, byte for byte: edge values (0, 1, 2, p-1, p-2, the
 * Montgomery one, (p-1)/2, p's top bit, 2^(32k) - 1, 2^(32k), 2^(32k) + 1 and the low k limbs all ones for
 * every k < N, alternating bit patterns), random ones below p and ones of carry-making limbs (SPECIAL); and sqr_eo_parts alone (E + O = a², against a
 * schoolbook a·a) for any a < 2^(32N-1) (all ones below the top bit included). */
/* limbs that make carries: products of two of them are often 2^32 - 1 (mod 2^32) or 2^64 - 2^33 + 1 */
static const uint32_t SPECIAL[] = { 0, 1, 2, 3, 0xffffffffu, 0xfffffffeu, 0xfffffffdu, 0x80000000u, 0x7fffffffu, 0x80000001u,
				    0x55555555u, 0xaaaaaaaau, 0xaaaaaaabu, 0x33333333u, 0xcccccccdu, 0x00010001u, 0xffff0000u };
enum { NSPECIAL = sizeof SPECIAL / sizeof SPECIAL[0] };
static void special_below(uint32_t *x, const uint32_t *p, int n)
{
	do { for (int i = 0; i < n; i++) x[i] = SPECIAL[rnd() % NSPECIAL]; x[n - 1] &= 0xffffffffu >> __builtin_clz(p[n - 1]);
	} while (cmp(x, p, n) >= 0);
}
template <int N> static int run_sqr(const char *name, const uint32_t *p, const uint32_t *one, uint32_t inv, long iters)
{
	enum { E = 8 + 4 * N };
	static uint32_t edge[E][N];
	memset(edge, 0, sizeof edge);
	int e = 1;                                                   /* edge[0] = 0 */
	edge[e++][0] = 1;
	edge[e++][0] = 2;
	memcpy(edge[e], p, N * 4); edge[e++][0] -= 1;                /* p-1 */
	memcpy(edge[e], p, N * 4); edge[e++][0] -= 2;                /* p-2 */
	memcpy(edge[e++], one, N * 4);                               /* R mod p */
	for (int i = 0; i < N; i++) edge[e][i] = p[i] >> 1 | (i + 1 < N ? p[i + 1] << 31 : 0);
	e++;                                                         /* (p-1)/2 */
	edge[e++][N - 1] = 1u << (31 - __builtin_clz(p[N - 1]));    /* top bit of p's width */
	for (int i = 0; i < N; i++) edge[e][i] = 0xaaaaaaaau & (i == N - 1 ? p[N - 1] >> 1 : ~0u);
	e++;
	for (int k = 1; k < N; k++) {
		for (int i = 0; i < k; i++) edge[e][i] = 0xffffffffu; /* 2^(32k) - 1: the low k limbs all ones */
		e++;
		edge[e++][k] = 1;                                     /* 2^(32k) */
		edge[e][0] = 1; edge[e++][k] = 1;                     /* 2^(32k) + 1 */
		for (int i = 0; i < k; i++) edge[e][i] = 0xffffffffu; /* the low k limbs all ones, p's top limb less one */
		edge[e++][N - 1] = p[N - 1] - 1;
	}
	if (e > E) { printf("%s: edge table overflow\n", name); return 1; }
	long bad = 0, bad_eo = 0, bad_parts = 0, total = 0;
	for (long it = 0; it < iters + e + 3; it++) {
		uint32_t a[N], r2[N], r3[N], r4[N], t[N], tp[N];
		if (it < e) memcpy(a, edge[it], sizeof a);
		else if (it % 3 == 0) special_below(a, p, N);
		else rand_below(a, p, N);
		ref_mul(r2, a, a, p, inv, N);
		mont_sqr_eo<N>(r4, a, p, inv);
		if (memcmp(r4, r2, sizeof r4)) {
			if (bad_eo < 3) {
				printf("%s mont_sqr_eo mismatch at %ld:\n a=", name, it);
				for (int i = N - 1; i >= 0; i--) printf("%08x", a[i]);
				printf("\n got  "); for (int i = N - 1; i >= 0; i--) printf("%08x", r4[i]);
				printf("\n want "); for (int i = N - 1; i >= 0; i--) printf("%08x", r2[i]);
				printf("\n");
			}
			bad_eo++;
		}
		mont_mul_eo<N>(t, a, a, p, inv);
		sub(tp, t, p, N);
		if (cmp(t, p, N) >= 0) memcpy(r3, tp, sizeof r3); else memcpy(r3, t, sizeof r3);
		if (memcmp(r4, r3, sizeof r4)) {   /* = mont_mul_eo(a, a) reduced */
			if (bad < 3) {
				printf("%s square mismatch at %ld:\n a=", name, it);
				for (int i = N - 1; i >= 0; i--) printf("%08x", a[i]);
				printf("\n got  "); for (int i = N - 1; i >= 0; i--) printf("%08x", r4[i]);
				printf("\n want "); for (int i = N - 1; i >= 0; i--) printf("%08x", r3[i]);
				printf("\n");
			}
			bad++;
		}
		/* sqr_eo_parts alone: the last three are all ones, all ones but the top limb, random (top bit cleared below) */
		uint32_t w[N], S[2 * N];
		if (it >= iters + e) {
			for (int i = 0; i < N; i++) w[i] = it == iters + e + 2 ? (uint32_t)rnd() : 0xffffffffu;
			if (it == iters + e + 1) w[N - 1] = 0;
		} else if (it % 3 == 0) {
			memcpy(w, a, sizeof w);
			w[N - 1] = SPECIAL[rnd() % NSPECIAL];   /* a's top limb too (below its top bit) */
		} else if (it & 1) {
			for (int i = 0; i < N; i++) w[i] = (uint32_t)rnd() | (rnd() & 1 ? 0xffff0000u : 0); /* biased high */
		} else {
			memcpy(w, a, sizeof w);
		}
		/* sqr_eo_parts (a < 2^(32N-1)): E + O = a², O[0] = O[2N-1] = 0 */
		uint32_t Ep[2 * N], Op[2 * N], U[2 * N];
		w[N - 1] &= 0x7fffffffu;
		for (int i = 0; i < 2 * N; i++) S[i] = 0;
		for (int i = 0; i < N; i++) {
			uint64_t c = 0;
			for (int j = 0; j < N; j++) { uint64_t v = (uint64_t)w[j] * w[i] + S[i + j] + c; S[i + j] = (uint32_t)v; c = v >> 32; }
			S[i + N] = (uint32_t)c;
		}
		sqr_eo_parts<N>(Ep, Op, w);
		uint64_t c = 0;
		for (int i = 0; i < 2 * N; i++) { uint64_t v = (uint64_t)Ep[i] + Op[i] + c; U[i] = (uint32_t)v; c = v >> 32; }
		if (c || Op[0] || Op[2 * N - 1] || memcmp(U, S, sizeof U)) {
			if (bad_parts < 3) {
				printf("%s sqr_eo_parts mismatch at %ld:\n a=", name, it);
				for (int i = N - 1; i >= 0; i--) printf("%08x", w[i]);
				printf("\n");
			}
			bad_parts++;
		}
		total++;
	}
	printf("%s: %ld squares (%d edge values), mont_sqr_eo %ld wrong against ref_mul, %ld against mont_mul_eo; "
	       "sqr_eo_parts %ld wrong\n", name, total, e, bad_eo, bad, bad_parts);
	return bad || bad_eo || bad_parts;
}
int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 200000;
	const uint32_t FP[12] = ZP_C_FP_P, FR[8] = ZP_C_FR_P, FP_ONE[12] = ZP_C_FP_ONE;
	const uint32_t BFP[8] = ZP_C_BN_FP_P, BFR[8] = ZP_C_BN_FR_P, BFP_ONE[8] = ZP_C_BN_FP_ONE;
	int fail = run<12>("Fp even/odd", FP, ZP_C_FP_INV, iters);
	fail |= run<8>("Fr even/odd", FR, ZP_C_FR_INV, iters, true);
	fail |= run_fp2<12>("Fp2 lazy", FP, FP_ONE, ZP_C_FP_INV, iters / 4);
	/* BN254: the same templates with its constant sets (ff.cuh's bn_fp_cfg, bn_fr_cfg) */
	fail |= run<8>("BN254 Fp even/odd", BFP, bn_fp_cfg::INV, iters);
	fail |= run<8>("BN254 Fr even/odd", BFR, bn_fr_cfg::INV, iters);
	fail |= run_fp2<8>("BN254 Fp2 lazy", BFP, BFP_ONE, bn_fp_cfg::INV, iters / 4);
	/* the dedicated square (ff.cuh's mont_sqr_eo, DEDICATED_SQR) for all four fields */
	const uint32_t FR_ONE[8] = ZP_C_FR_ONE, BFR_ONE[8] = ZP_C_BN_FR_ONE;
	fail |= run_sqr<12>("Fp square", FP, FP_ONE, ZP_C_FP_INV, iters);
	fail |= run_sqr<8>("Fr square", FR, FR_ONE, ZP_C_FR_INV, iters);
	fail |= run_sqr<8>("BN254 Fp square", BFP, BFP_ONE, bn_fp_cfg::INV, iters);
	fail |= run_sqr<8>("BN254 Fr square", BFR, BFR_ONE, bn_fr_cfg::INV, iters);
	if (fp_cfg::DEDICATED_SQR || fr_cfg::DEDICATED_SQR || bn_fp_cfg::DEDICATED_SQR || bn_fr_cfg::DEDICATED_SQR) {
		printf("a base cfg has DEDICATED_SQR set: MSM/NTT code would change\n");
		fail = 1;
	}
	for (int i = 0; i < 8; i++)
		if (bn_fp_cfg::p(i) != BFP[i] || bn_fr_cfg::p(i) != BFR[i]) { printf("BN254 cfg modulus limb %d\n", i); fail = 1; }
	/* self-check of the oracle: R·R^-1... 1·1 = R^-1 is not 1, but one·one = one (Montgomery one) */
	const uint32_t ONE[12] = ZP_C_FP_ONE;
	uint32_t o[12];
	ref_mul(o, ONE, ONE, FP, ZP_C_FP_INV, 12);
	if (memcmp(o, ONE, sizeof o)) { printf("oracle: one*one != one\n"); fail = 1; }
	const uint32_t RR[12] = ZP_C_FP_RR;
	uint32_t x[12] = { 1 };
	ref_mul(o, x, RR, FP, ZP_C_FP_INV, 12);
	if (memcmp(o, ONE, sizeof o)) { printf("oracle: 1*RR != one\n"); fail = 1; }
	/* the BN254 oracle too: one·one = one, 1·RR = one (RR = R^2 mod p) */
	{
		const uint32_t BRR[8] = ZP_C_BN_FP_RR;
		uint32_t bo[8], bx[8] = { 1 };
		ref_mul(bo, BFP_ONE, BFP_ONE, BFP, ZP_C_BN_FP_INV, 8);
		if (memcmp(bo, BFP_ONE, sizeof bo)) { printf("BN254 oracle: one*one != one\n"); fail = 1; }
		ref_mul(bo, bx, BRR, BFP, ZP_C_BN_FP_INV, 8);
		if (memcmp(bo, BFP_ONE, sizeof bo)) { printf("BN254 oracle: 1*RR != one\n"); fail = 1; }
	}
	printf("%s\n", fail ? "FAIL" : "ok");
	return fail;
}
