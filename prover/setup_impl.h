/*
 * setup_impl.h — inside prover/: the setup's scalar pipeline (setup.c) with a pluggable
 * destination for the points (the CPU's tables into a zp_pkey, or CUDA: setup_cuda.c).
 *
 * zp_setup_run() draws the toxic waste, computes the fixed points on the CPU into *fixed
 * (alpha1, beta1, delta1, beta2, gamma2, delta2) and hands every query's scalars to the sink
 * in order A, B1, B2, IC, C, H, each as one or more calls of points(sec, k, off, n) for the
 * section's indices [off, off + n) (H in chunks of at most 2^20 scalars, the rest whole).
 * Scalars are wiped after use. Host memory: 3 Fr per wire + 2 chunk buffers. The curve is the circuit's
 * (setup_tmpl.h, once per curve); scalars are zp_fr containers of that curve's Fr. The CUDA sink makes
 * host keys of either curve; device keys (zp_setup_device) are BLS12-381's: zp_setup_cuda_check() refuses
 * other curves there before anything is made.
 */
#ifndef ZP_SETUP_IMPL_H
#define ZP_SETUP_IMPL_H

#include "setup.h"

typedef struct zp_setup_sink {
	/* tables the sink may use (set before the first points() call, owned by zp_setup_run) */
	const void *t1;                /* the curve's affine G1 / G2 points (BLS12-381: zp_g1_affine, ...) */
	const void *t2;
	int w1, w2;                    /* window bits */
	size_t t1_len, t2_len;         /* points */
	int (*begin)(struct zp_setup_sink *s);   /* tables ready (may be NULL) */
	int (*points)(struct zp_setup_sink *s, int sec, const zp_fr *k, size_t off, size_t n);
} zp_setup_sink;

/* The header geometry of c's key (flags, modes, fingerprint, origin) into *h. */
int zp_setup_header(zp_pkey_header *h, const zp_circuit *c, const zp_setup_opts *o);
int zp_setup_run(zp_zkey *fixed, const zp_circuit *c, const zp_setup_opts *o, zp_setup_sink *sink);

/* setup_cuda.c (the CUDA prover library): the points of a host key on the GPU (opts->device = 1). */
int zp_setup_cuda_host(zp_pkey *k, const zp_circuit *c, const zp_setup_opts *o);
int zp_setup_cuda_available(void);
/* 0 if zp_setup_device can make c's key (BLS12-381), else ZP_ERANGE naming the curve (setup.c). */
int zp_setup_cuda_check(const zp_circuit *c);

#endif
