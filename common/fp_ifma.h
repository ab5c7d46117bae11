/*
 * fp_ifma.h — Fp (BLS12-381 base field) products eight at a time with AVX-512 IFMA
 * (vpmadd52luq / vpmadd52huq), for CPUs that have it; an experiment towards a vectorized CPU MSM.
 *
 * Form: eight elements limb-sliced, l[k][lane] = bits 52k..52k+51 of lane's value (8 limbs, 416
 * bits), Montgomery with R' = 2^416 (not the scalar code's 2^384: zp_fp8_pack / unpack convert),
 * values kept lazily in [0, 2p) (4p < 2^416, so a product of two such values is again < 2p).
 * Every function here needs zp_fp_ifma_available(); callers keep the scalar path for the others
 * (STYLE: a fast path for particular instructions needs a portable fallback chosen at run time).
 */
#ifndef ZP_FP_IFMA_H
#define ZP_FP_IFMA_H

#include <stdbool.h>
#include <stdint.h>

#include "field.h"

typedef struct { _Alignas(64) uint64_t l[8][8]; } zp_fp8;

/* AVX-512F + IFMA present and enabled by the OS (ZP_FIELD_PORTABLE=1 in the environment: false). */
bool zp_fp_ifma_available(void);
/* a[0..7] (zkpipe's Montgomery form) -> r; r's lanes -> a[0..7], fully reduced. */
void zp_fp8_pack(zp_fp8 *r, const zp_fp a[8]);
void zp_fp8_unpack(zp_fp a[8], const zp_fp8 *r);
/* r = a·b lane by lane (r may alias a or b). */
void zp_fp8_mul(zp_fp8 *r, const zp_fp8 *a, const zp_fp8 *b);

#endif
