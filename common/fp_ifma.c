/*
 * fp_ifma.c — see fp_ifma.h: whether the eight-lane AVX-512 IFMA Fp arithmetic (fp_ifma_impl.h, an
 * instance of ifma_tmpl.h) may run here (the product itself, Montgomery in radix 2^52 on eight lanes).
 * The eight-element value form and its pack / unpack, a test and bench fixture, are bench/arith/fp8.h.
 */
#include "fp_ifma.h"
#include "knobs.h"

#include <pthread.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include "fp_ifma_impl.h"

static bool consts_ok;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init(void) { consts_ok = zp_v8_consts_ok(ZP_FP_MODULUS); }

bool zp_fp_ifma_available(void)
{
	if (zp_knobs()->field_portable) return false;
	pthread_once(&once, init);
	if (!consts_ok) return false;   /* the 52-bit constants disagree with q: never */
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
}
#else
bool zp_fp_ifma_available(void) { return false; }
#endif
