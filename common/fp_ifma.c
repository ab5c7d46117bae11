/*
 * fp_ifma.c — see fp_ifma.h: whether the eight-lane AVX-512 IFMA Fp arithmetic (fp_ifma_impl.h)
 * may run here (the product itself, Montgomery in radix 2^52 on eight lanes: fp_ifma_impl.h).
 * The eight-element value form and its pack / unpack, a test and bench fixture, are bench/arith/fp8.h.
 */
#include "fp_ifma.h"
#include "knobs.h"

#include <pthread.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include "fp_ifma_impl.h"

static uint64_t P52[8], PINV52;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init(void)
{
	const uint64_t *q = ZP_FP_MODULUS;
	zp_to52(P52, q);
	uint64_t x = 1;   /* q^-1 mod 2^64 by Newton's iteration (q odd) */
	for (int i = 0; i < 6; i++) x *= 2 - q[0] * x;
	PINV52 = (0 - x) & ZP_MASK52;
}

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
