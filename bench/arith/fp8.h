/*
 * fp8.h — eight Fp elements in the AVX-512 IFMA form as a C value, for the product's test
 * (tests/field/test_fp_ifma) and its timing (bench_arith): a fixture over common/fp_ifma_impl.h's
 * zp_v8_mul, the product the MSM uses on registers. Compiled into those two, not libzpcommon.
 *
 * Form: eight elements limb-sliced, l[k][lane] = bits 52k..52k+51 of lane's value (8 limbs, 416
 * bits), Montgomery with R' = 2^416 (not the scalar code's 2^384: zp_fp8_pack / unpack convert),
 * values kept lazily in [0, 2p) (4p < 2^416, so a product of two such values is again < 2p).
 * zp_fp8_mul needs zp_fp_ifma_available() (common/fp_ifma.h).
 */
#ifndef ZP_FP8_H
#define ZP_FP8_H

#include <stdint.h>

#include "field.h"

typedef struct { _Alignas(64) uint64_t l[8][8]; } zp_fp8;

/* a[0..7] (zkpipe's Montgomery form) -> r; r's lanes -> a[0..7], fully reduced. */
void zp_fp8_pack(zp_fp8 *r, const zp_fp a[8]);
void zp_fp8_unpack(zp_fp a[8], const zp_fp8 *r);
/* r = a·b lane by lane (r may alias a or b). */
void zp_fp8_mul(zp_fp8 *r, const zp_fp8 *a, const zp_fp8 *b);

#endif
