/*
 * fp_ifma.c — see fp_ifma.h: whether the eight-lane AVX-512 IFMA Fp arithmetic (fp_ifma_impl.h)
 * may run here (the product itself, Montgomery in radix 2^52 on eight lanes: fp_ifma_impl.h).
 * The eight-element value form and its pack / unpack, a test and bench fixture, are bench/arith/fp8.h.
 */
#include "fp_ifma.h"
#include "knobs.h"

#include <pthread.h>
#include <string.h>

#define MASK52 ((1ull << 52) - 1)

static uint64_t P52[8], PINV52;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* 52-bit limbs of a 384-bit integer, and back (the value must fit 384 bits) */
static void to52(uint64_t out[8], const uint64_t in[ZP_FP_LIMBS])
{
	for (int k = 0; k < 8; k++) {
		unsigned bit = 52u * (unsigned)k, w = bit / 64, s = bit % 64;
		uint64_t v = w < ZP_FP_LIMBS ? in[w] >> s : 0;
		if (s > 12 && w + 1 < ZP_FP_LIMBS) v |= in[w + 1] << (64 - s);
		out[k] = v & MASK52;
	}
}
static void init(void)
{
	const uint64_t *q = ZP_FP_MODULUS;
	to52(P52, q);
	uint64_t x = 1;   /* q^-1 mod 2^64 by Newton's iteration (q odd) */
	for (int i = 0; i < 6; i++) x *= 2 - q[0] * x;
	PINV52 = (0 - x) & MASK52;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include "fp_ifma_impl.h"

bool zp_fp_ifma_available(void)
{
	if (zp_knobs()->field_portable) return false;
	pthread_once(&once, init);
	if (memcmp(P52, ZP_Q52, sizeof P52) || PINV52 != ZP_Q52_PINV) return false;   /* constants disagree: never */
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
}
#else
bool zp_fp_ifma_available(void) { return false; }
#endif
