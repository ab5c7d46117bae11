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

bool zp_field_adx;

#if ZP_FIELD_HAVE_ASM
/* the modulus, then -m^-1 mod 2^64 (zp_consts.h) */
const uint64_t zp_fp_asm_consts[7] = ZP_C64_FP_P_INV;
const uint64_t zp_fr_asm_consts[5] = ZP_C64_FR_P_INV;

bool zp_field_cpu_has_adx(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("adx");
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
