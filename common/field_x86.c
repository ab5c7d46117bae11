/*
 * field_x86.c — run-time choice of the MULX/ADX Montgomery multiplication
 * (field_impl.h) on x86-64, and out-of-line entry points for it.
 *
 * The choice is made once, before main(), from CPUID (BMI2 and ADX both needed)
 * unless ZP_FIELD_PORTABLE=1 is set in the environment. On other architectures
 * this file only defines the flag (always false).
 */
#include "field_impl.h"
#include "zp_consts.h"
#include "knobs.h"

#include <stdlib.h>
#include <string.h>
#if ZP_FIELD_HAVE_ASM
#include <cpuid.h>
#endif

bool zp_field_adx;

#if ZP_FIELD_HAVE_ASM
/* the modulus, then -m^-1 mod 2^64 (zp_consts.h) */
const uint64_t zp_fp_asm_consts[7] = ZP_C64_FP_P_INV;
const uint64_t zp_fr_asm_consts[5] = ZP_C64_FR_P_INV;

const uint64_t zp_bn254_fp_asm_consts[5] = ZP_C64_BN_FP_P_INV;
const uint64_t zp_bn254_fr_asm_consts[5] = ZP_C64_BN_FR_P_INV;

/* CPUID.(EAX=7, ECX=0):EBX bit 8 = BMI2, bit 19 = ADX. Read directly: clang's
 * __builtin_cpu_supports has no "adx". */
bool zp_field_cpu_has_adx(void)
{
	unsigned a, b, c, d;
	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b >> 8 & 1) && (b >> 19 & 1);
}

__attribute__((constructor)) static void field_choose(void)
{
	zp_field_adx = !zp_knobs()->field_portable && zp_field_cpu_has_adx();
}
#else
bool zp_field_cpu_has_adx(void) { return false; }
#endif

bool zp_field_set_adx(bool on)
{
	zp_field_adx = on && zp_field_cpu_has_adx();
	return zp_field_adx;
}
