/*
 * par.h — fork/join parallel loops for the compute kernels (MSM, NTT, sparse products).
 *
 * zp_par_for(n, fn, ctx) calls fn(ctx, i, worker) for every i in [0, n) on up to
 * zp_par_threads() threads (the caller is worker 0) and returns when all are done.
 * Tasks are handed out one at a time from an atomic counter, so uneven tasks balance.
 * The workers are a pool made on first use and kept (a 2^16 BN254 prove makes ~64 calls: at 16
 * threads, making 15 threads a call cost ~1000 clone3 + stack mmap/munmap); a call made while the
 * pool is busy (nested in a task, or another thread's) makes its own threads as before.
 *
 * Thread count: ZP_THREADS in the environment, else the CPUs this process may run
 * on (sched_getaffinity, so a supervisor's pinning is honoured). zp_par_set_threads()
 * overrides both (0 = back to the default).
 */
#ifndef ZP_PAR_H
#define ZP_PAR_H

#include <stddef.h>

typedef void (*zp_par_fn)(void *ctx, size_t i, int worker);

int  zp_par_threads(void);
void zp_par_set_threads(int n);
void zp_par_for(size_t n, zp_par_fn fn, void *ctx);

#endif
