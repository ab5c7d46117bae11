/*
 * knobs.h — every environment knob (ZP_*, ZKPIPE_*) read once into one struct.
 *
 * The table with each knob's meaning, default and reader: docs/knobs.md (tests/map/map_check.py
 * fails when a ZP_* / ZKPIPE_* getenv appears anywhere but common/knobs.c, or a knob is missing from
 * that table). Read at the first zp_knobs() call, not at load, so that a process may set its own
 * environment first (gpud exports ZP_CUDA_DEVICE=0 beside CUDA_VISIBLE_DEVICES, then reloads).
 * zp_knobs_reload() re-reads: for that case and for tests that vary a knob within one process;
 * it is not safe while other threads read the struct.
 *
 * Each knob keeps the parsing its reader had before the struct (a flag set by "1", one cleared by
 * "0", an integer ignored when out of range), except the numeric CUDA knobs (zp_knob_num): an
 * out-of-range or non-integer value is kept as "bad" and the reader fails with zp_knob_get()'s
 * error naming it, as the CUDA backend always did.
 */
#ifndef ZP_KNOBS_H
#define ZP_KNOBS_H

#ifdef __cplusplus
extern "C" {
#endif

/* An integer knob with a range: v is the default when unset (or empty), the value when valid. */
typedef struct {
	const char *name, *raw;   /* raw: the environment's string, NULL when unset */
	long v, lo, hi;
	int bad;                  /* set but not an integer in [lo, hi] */
} zp_knob_num;

typedef struct {
	/* common/ */
	int threads;              /* ZP_THREADS: worker threads (> 0), 0 = the affinity mask's CPUs */
	int field_portable;       /* ZP_FIELD_PORTABLE=1: portable field products (no ADX, no IFMA) */
	int msm_ba;               /* ZP_MSM_BA=0|1: batch-affine buckets off / on; -1 by size */
	int msm_batch;            /* ZP_MSM_BATCH: additions per shared inversion (1..65536), 0 auto */
	int msm_window;           /* ZP_MSM_WINDOW: CPU MSM window (2..16 used), 0 auto */
	int msm_ifma;             /* ZP_MSM_IFMA=0 clears it: the AVX-512 IFMA bucket path */
	/* cuda/ kernels */
	int msm_k0;               /* ZP_MSM_K0: 32, 64 (default) or 128 entries a flat task */
	int msm_profile;          /* ZP_MSM_PROFILE set: per-stage MSM event timings on stderr */
	int msm_glv;              /* ZP_MSM_GLV=k: BLS12-381 G1 MSMs from 2^k scalars take the GLV cut (default 0: off) */
	/* cuda/ runtime and the CUDA prover (prover/backend_cuda.c, cuda/plan.c) */
	zp_knob_num cuda_device;  /* ZP_CUDA_DEVICE: the device ordinal (checked against the count) */
	int cuda_verbose;         /* ZP_CUDA_VERBOSE: 1 plan, 2 also stage times; set to anything else: 1 */
	int cuda_no_register;     /* ZP_CUDA_NO_REGISTER set: refuse host registration (staging path) */
	zp_knob_num cuda_msm_chunk, cuda_bufs, cuda_mem_margin_mb, cuda_mem_cap_mb, cuda_key_stream, cuda_key_res, cuda_key_stage, cuda_split;
	zp_knob_num cuda_upload;   /* ZP_CUDA_UPLOAD: a key's upload from host memory (cuda/upload.c ways; 0 auto) */
	zp_knob_num cuda_split_keep; /* ZP_CUDA_SPLIT_KEEP=0: split bases made on the device even when a store has them */
	zp_knob_num params_gpu;    /* ZP_PARAMS_GPU: .params decoded and checked on the GPU (1), on the CPU (0), -1 auto */
	/* daemons and tools */
	int gpud_pipeline;        /* ZKPIPE_GPUD_PIPELINE=1: gpud's CPU backend behind the device pipeline */
	const char *memcg;        /* ZKPIPE_MEMCG: the cgroup the supervisor made (non-empty: no RLIMIT_DATA) */
	const char *dkeep;        /* ZP_DKEEP: gpud's device-kept keys from the supervisor (pipeline/dkeep.h); NULL unset */
	const char *sysfs;        /* ZKPIPE_SYSFS: sysfs root for GPU discovery (tests) */
	const char *hugetlbfs;    /* ZKPIPE_HUGETLBFS: the hugetlbfs mount to use */
	const char *config;       /* ZKPIPE_CONFIG: the supervisor's config (clients) */
	const char *group;        /* ZKPIPE_GROUP: the group a supraseal client submits to */
	const char *priority;     /* ZKPIPE_PRIORITY: a supraseal client's job priority */
	const char *wait_s;       /* ZKPIPE_WAIT_S: seconds a supraseal client waits for the pipeline */
	const char *url;          /* ZKPIPE_URL: the supervisor's API for `zkpipe` client commands */
	const char *examples;     /* ZKPIPE_EXAMPLES: where `zkpipe demo` finds examples/ */
	const char *progress_s;   /* ZKPIPE_PROGRESS_S: seconds between progress lines in a log (common/progress.c) */
} zp_knobs_t;

const zp_knobs_t *zp_knobs(void);
void zp_knobs_reload(void);
/* 0 when k is valid (k->v is then its value or default), else ZP_ERANGE: "who: NAME=value: want an
 * integer in [lo, hi]". */
int zp_knob_get(const zp_knob_num *k, const char *who);

#ifdef __cplusplus
}
#endif
#endif
