/*
 * fp_ifma.h — whether the AVX-512 IFMA Fp arithmetic (vpmadd52luq / vpmadd52huq; common/fp_ifma_impl.h,
 * eight lanes on registers, Montgomery with R' = 2^416) may run on this CPU: the MSM's vector batch-affine
 * path (msm.c) and BN254's NTT levels take it when it says yes. Callers keep the scalar path for the others
 * (STYLE: a fast path for particular instructions needs a portable fallback chosen at run time).
 * Eight elements as a C value (pack, unpack, one product) for tests and benchmarks: bench/arith/fp8.h.
 */
#ifndef ZP_FP_IFMA_H
#define ZP_FP_IFMA_H

#include <stdbool.h>
#include <stdint.h>

#include "field.h"

/* AVX-512F + IFMA present and enabled by the OS (ZP_FIELD_PORTABLE=1 in the environment: false). */
bool zp_fp_ifma_available(void);

#endif
