/*
 * params_load.h — a Filecoin .params file (format in params.h) decoded at disk speed into memory the
 * caller gives (a key region's sections: shm/keyregion.h), every point checked.
 *
 * One thread reads the file with io_uring (O_DIRECT when the file is mostly not in the page cache, so
 * a cold read streams at the device's speed without a copy through the cache; buffered when it is,
 * so a warm one is a memory copy): chunks of whole points, QD in flight. As each chunk lands, one of
 * the decoding threads (all cores) turns its big-endian zcash points into the prover's Montgomery
 * affine form in place in the destination and checks each on the curve and in its subgroup; the
 * chunk's buffer then goes back to the reader. A progress stage ("loading X") counts the bytes
 * decoded. The first bad point stops the load and is named (vector, index, why); nothing of it is
 * used (the caller drops the region).
 */
#ifndef ZP_PARAMS_LOAD_H
#define ZP_PARAMS_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "ec.h"
#include "params.h"
#include "zkey.h"

/* Where the points go: n_ic, n_h, n_l, n_a, n_b1 G1 and n_b2 G2 points (the caller's memory). */
typedef struct {
	zp_g1_affine *ic, *h, *l, *a, *b1;
	zp_g2_affine *b2;
} zp_params_dst;

enum zp_params_io { ZP_PARAMS_IO_AUTO, ZP_PARAMS_IO_BUFFERED, ZP_PARAMS_IO_DIRECT };
/* Where the points are decoded and checked: AUTO = ZP_PARAMS_GPU's choice (default: the GPU when the program
 * links the CUDA prover and a device answers, else the CPU). */
enum zp_params_dev { ZP_PARAMS_DEV_AUTO, ZP_PARAMS_DEV_CPU, ZP_PARAMS_DEV_GPU };

typedef struct {
	enum zp_params_io io;
	enum zp_params_dev dev;
	unsigned threads;          /* decoders; 0 = zp_par_threads() (CPU), 8 GPU workers */
	bool no_subgroup;          /* benchmarks only: the curve check without the subgroup check, to
	                            * show what the subgroup checks cost; never for a key that proves */
} zp_params_load_opts;

typedef struct {
	double secs;               /* the whole load */
	double reader_idle_s;      /* the reader waiting for a free buffer: decoding was the bottleneck */
	uint64_t bytes, points;
	bool direct;               /* O_DIRECT was used */
	bool gpu;                  /* decoded and checked on the GPU */
	unsigned threads;
} zp_params_load_stats;

/* The GPU path's workers (params_load_cuda.c, in the CUDA prover; params_load.c refers to them weakly):
 * each with its own stream and buffers for chunks of up to `chunk` bytes. decode: n points of one group
 * (g2) from src (page-locked, from zp_params_gpu_host_alloc, for full speed) decoded and checked on the
 * GPU into dst; 0 all good, > 0 the status (zp_cuda.h ZP_CUDA_PT_*) of the first bad point, *bad its
 * index (dst then undefined), < 0 an error. */
typedef struct zp_params_gpu zp_params_gpu;
int zp_params_gpu_open(zp_params_gpu **w, size_t chunk);
int zp_params_gpu_decode(zp_params_gpu *w, int g2, const void *src, uint64_t n, void *dst, bool no_subgroup,
			 uint64_t *bad);
void zp_params_gpu_close(zp_params_gpu *w);
int zp_params_gpu_host_alloc(void **p, size_t n);
void zp_params_gpu_host_free(void *p);

/* Load path (counts c: zp_params_scan) into d; the six fixed points (alpha1, beta1, beta2, gamma2, delta1, delta2)
 * into fixed's fields, checked. opts and stats may be NULL. */
int zp_params_load_into(const char *path, const zp_params_info *c, const zp_params_dst *d, zp_zkey *fixed,
			const zp_params_load_opts *opts, zp_params_load_stats *stats);

#endif
