/*
 * params_gpu_test.c — the GPU's .params decoding and checks (cuda/params_check.cu) against the CPU's
 * (common/serialize.c zp_g1/g2_from_uncompressed), point by point; and their speed.
 *   params_gpu_test check N     N G1 and N/4 G2 points: valid ones (k·G, random k) with planted bad ones of
 *                               every kind at random places — flags (compression bit, sign bit, infinity
 *                               with a payload), a coordinate not below q (x = q, y all ones), off the curve
 *                               (y + 1), (0, 0) without the infinity flag, on the curve but outside the
 *                               subgroup (random x, its y), and well-formed infinities. Every point's GPU
 *                               status must be the CPU's verdict and every good point's bytes the CPU's, for
 *                               the G1 kernel and G2's.
 *   params_gpu_test bench LOG   2^LOG G1 and 2^(LOG-2) G2 valid points: decode + every check, and the curve
 *                               checks only, timed with CUDA events (median of 3 after a warm-up).
 * Exits 77 without a GPU.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "ec.h"
#include "field.h"
#include "par.h"
#include "params_synth.h"
#include "serialize.h"
#include "zp_cuda.h"
#include "zp_err.h"

#define G1B 96u
#define G2B 192u

static const uint8_t Q_BE[48] = { 0x1a, 0x01, 0x11, 0xea, 0x39, 0x7f, 0xe6, 0x9a, 0x4b, 0x1b, 0xa7, 0xb6, 0x43, 0x4b, 0xac, 0xd7,
				  0x64, 0x77, 0x4b, 0x84, 0xf3, 0x85, 0x12, 0xbf, 0x67, 0x30, 0xd2, 0xa0, 0xf6, 0xb0, 0xf6, 0x24,
				  0x1e, 0xab, 0xff, 0xfe, 0xb1, 0x53, 0xff, 0xff, 0xb9, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xaa, 0xab };

static int code_of(uint8_t st)
{
	static const int c[] = { 0, ZP_EFLAGS, ZP_ENONCANON, ZP_EINVAL_POINT, ZP_ESUBGROUP };
	return st < 5 ? c[st] : 1;
}

/* A point on the curve outside the subgroup: random x until it has a y (the CPU decompresses). */
/* Kind k of bad (or special) point into the encoding at e (el bytes; a valid point is there). */
static void plant(zp_rng *g, int g2, uint8_t *e, unsigned kind)
{
	size_t el = g2 ? G2B : G1B, half = el / 2;
	switch (kind) {
	case 0: e[0] |= ZP_SER_FLAG_COMPRESSED; break;                       /* flags: compression bit */
	case 1: e[0] |= ZP_SER_FLAG_SIGN; break;                             /* flags: sign bit */
	case 2: memset(e, 0, el); e[0] = ZP_SER_FLAG_INFINITY; e[el - 1] = 1; break; /* infinity with a payload */
	case 3: memset(e, 0, el); e[0] = ZP_SER_FLAG_INFINITY; break;        /* infinity: valid */
	case 4: memcpy(e, Q_BE, 48); break;                                  /* x (or x.c1) = q */
	case 5: memset(e + half, 0xff, 48); break;                           /* y (or y.c1) all ones */
	case 6: {                                                            /* y + 1: off the curve */
		uint8_t *y = e + el - 1;
		while (*y == 0xff)
			*y-- = 0;
		(*y)++;
		break;
	}
	case 7: memset(e, 0, el); break;                                     /* (0, 0), no infinity flag */
	case 8: zp_params_synth_off_subgroup(g, g2, e); break;               /* outside the subgroup */
	case 9: memcpy(e + 48, Q_BE, 48); break;                             /* G2: x.c0 = q (G1: y = q) */
	}
}
#define KINDS 10u

/* The kernels' Fp (cuda/params_check.cu) */
#define G1_FP "Fp products inlined, dedicated squares"
#define G2_FP "Fp products as calls"

static int gpu_decode(int g2, const uint8_t *in, size_t n, uint8_t *out, uint8_t *st, unsigned no_sub, float *ms)
{
	size_t el = g2 ? G2B : G1B, ol = g2 ? sizeof(zp_g2_affine) : sizeof(zp_g1_affine);
	void *d_in = NULL, *d_out = NULL;
	uint8_t *d_st = NULL;
	int rc = 0;
	if ((rc = zp_cuda_alloc(&d_in, n * el, "params test", "in")) || (rc = zp_cuda_alloc(&d_out, n * ol, "params test", "out")) ||
	    (rc = zp_cuda_alloc((void **)&d_st, n, "params test", "status")))
		goto out;
	if ((rc = zp_cuda_copy_to_dev(d_in, in, n * el, NULL)))
		goto out;
	if (ms) { /* warm-up, then the median of 3 */
		cudaEvent_t a, b;
		cudaEventCreate(&a);
		cudaEventCreate(&b);
		float t[3];
		if ((rc = zp_cuda_params_decode(g2, d_out, d_st, d_in, n, no_sub, NULL)) || (rc = zp_cuda_device_sync()))
			goto out;
		for (int r = 0; r < 3; r++) {
			cudaEventRecord(a, 0);
			if ((rc = zp_cuda_params_decode(g2, d_out, d_st, d_in, n, no_sub, NULL)))
				goto out;
			cudaEventRecord(b, 0);
			cudaEventSynchronize(b);
			cudaEventElapsedTime(&t[r], a, b);
		}
		for (int i = 0; i < 3; i++)
			for (int j = i + 1; j < 3; j++)
				if (t[j] < t[i]) {
					float x = t[i];
					t[i] = t[j], t[j] = x;
				}
		*ms = t[1];
		cudaEventDestroy(a);
		cudaEventDestroy(b);
	} else if ((rc = zp_cuda_params_decode(g2, d_out, d_st, d_in, n, no_sub, NULL))) {
		goto out;
	}
	if ((rc = zp_cuda_device_sync()) || (out && (rc = zp_cuda_copy_to_host(out, d_out, n * ol, NULL))) ||
	    (st && (rc = zp_cuda_copy_to_host(st, d_st, n, NULL))))
		goto out;
out:
	zp_cuda_free(d_in);
	zp_cuda_free(d_out);
	zp_cuda_free(d_st);
	return rc;
}

static uint8_t *fill(const uint8_t *pool, unsigned np, size_t n, size_t el)
{
	uint8_t *e = malloc(n * el);
	for (size_t i = 0; e && i < n; i++)
		memcpy(e + i * el, pool + (i % np) * el, el);
	return e;
}

/* The CPU's verdict and bytes for every point, on all cores. */
struct cpu_ref { int g2; const uint8_t *e; uint8_t *out; int *code; size_t n; };

static void cpu_task(void *vx, size_t t, int worker)
{
	(void)worker;
	struct cpu_ref *x = vx;
	size_t el = x->g2 ? G2B : G1B, ol = x->g2 ? sizeof(zp_g2_affine) : sizeof(zp_g1_affine);
	for (size_t i = t * 1024; i < x->n && i < (t + 1) * 1024; i++)
		x->code[i] = x->g2 ? zp_g2_from_uncompressed((zp_g2_affine *)(x->out + i * ol), x->e + i * el, 0)
				   : zp_g1_from_uncompressed((zp_g1_affine *)(x->out + i * ol), x->e + i * el, 0);
}

static int check(size_t n1)
{
	const unsigned np = 512;
	struct { uint8_t *g1, *g2; } x = { malloc(np * G1B), malloc(np * G2B) };
	zp_params_synth_pool(x.g1, x.g2, np, 12345);
	zp_rng g;
	zp_rng_seed(&g, 777);
	int bad = 0;
	for (int g2 = 0; g2 < 2; g2++) {
		size_t n = g2 ? n1 / 4 : n1, el = g2 ? G2B : G1B, ol = g2 ? sizeof(zp_g2_affine) : sizeof(zp_g1_affine);
		uint8_t *e = fill(g2 ? x.g2 : x.g1, np, n, el), *out = malloc(n * ol), *st = malloc(n);
		unsigned planted[KINDS] = { 0 }, per = 3;
		for (unsigned k = 0; k < KINDS; k++) /* 3 of each kind, at random indices */
			for (unsigned r = 0; r < per; r++) {
				size_t i = (size_t)(zp_rng_next(&g) % n);
				plant(&g, g2, e + i * el, k);
				planted[k]++;
			}
		plant(&g, g2, e + (n - 1) * el, 8); /* the last point too */
		uint8_t *refs = malloc(n * ol);
		int *codes = malloc(n * sizeof(int));
		struct cpu_ref cr = { g2, e, refs, codes, n };
		zp_par_for((n + 1023) / 1024, cpu_task, &cr);
		memset(out, 0xa5, n * ol); /* poison: every byte must come from the GPU */
		memset(st, 0xff, n);
		int rc = gpu_decode(g2, e, n, out, st, 0, NULL);
		if (rc) {
			fprintf(stderr, "GPU decode: %s\n", zp_err_msg());
			return 1;
		}
		size_t nbad[5] = { 0 }, mism = 0;
		for (size_t i = 0; i < n; i++) {
			const uint8_t *ref = refs + i * ol;
			int c = codes[i];
			if (st[i] < 5)
				nbad[st[i]]++;
			if (c != code_of(st[i]) || (c == 0 && memcmp(ref, out + i * ol, ol))) {
				if (mism++ < 10)
					fprintf(stderr, "%s point %zu: CPU %s, GPU status %u%s\n", g2 ? "G2" : "G1", i, zp_strerror(c), st[i],
						c == 0 && code_of(st[i]) == 0 ? " (bytes differ)" : "");
			}
		}
		printf("%s (%s): %zu points, GPU = CPU on %zu; verdicts ok %zu, flags %zu, coordinate %zu, curve %zu, subgroup %zu "
		       "(planted %u of each of %u kinds)\n", g2 ? "G2" : "G1", g2 ? G2_FP : G1_FP, n, n - mism, nbad[0],
		       nbad[1], nbad[2], nbad[3], nbad[4], per, KINDS);
		/* every kind must have been seen as planted: at least (per - collisions) of each bad verdict */
		if (mism || !nbad[1] || !nbad[2] || !nbad[3] || nbad[4] < per)
			bad = 1;
		free(e);
		free(out);
		free(st);
		free(refs);
		free(codes);
	}
	printf("%s\n", bad ? "FAIL" : "PASS");
	free(x.g1);
	free(x.g2);
	return bad;
}

static int bench(unsigned lg)
{
	const unsigned np = 256;
	struct { uint8_t *g1, *g2; } x = { malloc(np * G1B), malloc(np * G2B) };
	zp_params_synth_pool(x.g1, x.g2, np, 99);
	printf("| what | points | ms | Mpoints/s | GB/s of .params |\n|---|---:|---:|---:|---:|\n");
	for (int g2 = 0; g2 < 2; g2++) {
		size_t n = (size_t)1 << (g2 ? lg - 2 : lg), el = g2 ? G2B : G1B;
		uint8_t *e = fill(g2 ? x.g2 : x.g1, np, n, el);
		/* every check, then the curve checks only */
		for (int curve_only = 0; curve_only < 2; curve_only++) {
			unsigned fl = curve_only ? ZP_CUDA_PC_NO_SUBGROUP : 0;
			float ms = 0;
			if (gpu_decode(g2, e, n, NULL, NULL, fl, &ms)) {
				fprintf(stderr, "GPU decode: %s\n", zp_err_msg());
				return 1;
			}
			printf("| %s decode, %s%s | %zu | %.2f | %.1f | %.2f |\n", g2 ? "G2" : "G1", curve_only ? "curve checks only" : "every check, ",
			       curve_only ? "" : g2 ? G2_FP : G1_FP, n, ms, n / ms / 1e3, n * el / ms / 1e6);
		}
		free(e);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: params_gpu_test check N | bench LOG\n");
		return 2;
	}
	char desc[160];
	if (zp_cuda_probe("params_gpu_test", desc, sizeof desc)) {
		fprintf(stderr, "%s: skipped\n", zp_err_msg());
		return 77;
	}
	printf("# %s\n", desc);
	if (!strcmp(argv[1], "check"))
		return check(strtoull(argv[2], NULL, 0));
	if (!strcmp(argv[1], "bench"))
		return bench((unsigned)atoi(argv[2]));
	return 2;
}
