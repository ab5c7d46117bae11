/*
 * params_synth.h — synthetic Filecoin .params files for benchmarks and tests (bench/keys/params_bench,
 * tests/scale/test_params_load, tests/cuda/params_gpu_test). A fixture, not the prover's: compiled into its users, not libzpprover.
 */
#ifndef ZP_PARAMS_SYNTH_H
#define ZP_PARAMS_SYNTH_H

#include <stdint.h>

#include "params.h"

/* A .params file of the given counts whose points are drawn from a pool of `pool` distinct valid points per
 * group (k·G for k from seed; the fixed points too), repeated — every point still passes the loader's full
 * checks, and writing is a copy at disk speed (a real setup at 2^27 would take hours). The PoRep shape for
 * a domain 2^log: zp_params_counts_porep. */
int zp_params_write_synthetic(const char *path, const zp_params_info *c, unsigned pool, uint64_t seed);
/* n valid points per group, k_i·G for k_i drawn from seed and i, uncompressed (.params encoding) into g1
 * (n × 96 bytes) and g2 (n × 192), on all threads: the pool zp_params_write_synthetic repeats. */
void zp_params_synth_pool(uint8_t *g1, uint8_t *g2, unsigned n, uint64_t seed);
/* A point on the curve (G2 when g2) outside its subgroup, uncompressed (.params encoding) into out (96 or 192
 * bytes): random x from g until one decompresses — the bad point a loader's subgroup check must refuse. */
void zp_params_synth_off_subgroup(zp_rng *g, int g2, uint8_t *out);
/* Offsets, size and domain of c from its six counts. */
void zp_params_info_layout(zp_params_info *c);
/* Counts shaped like a Filecoin 32 GiB PoRep key scaled to domain 2^log: IC 329, h 2^log − 1, l 0.971·2^log,
 * a = IC + l, b_g1 = b_g2 = a quarter of a (what bellperson's filter by value leaves of B). */
void zp_params_counts_porep(zp_params_info *c, unsigned log);

#endif
