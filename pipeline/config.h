/*
 * config.h — the config file every process of zkpipe reads (config.c; its sections and keys are
 * listed there): run directory and limits, keys, groups (GPUs, NUMA nodes), [cluster], [debug].
 *
 * Each process loads it at start (the supervisor passes the file's path to the daemons it starts);
 * errors name the file, line, section and key. Nothing here is shared memory.
 */
#ifndef ZP_PIPE_CONFIG_H
#define ZP_PIPE_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"

#define ZP_PIPE_MAX_KEYS   16
#define ZP_PIPE_MAX_GROUPS 8
#define ZP_PIPE_MAX_DIRS   8
#define ZP_PIPE_MAX_NODES  16
#define ZP_PIPE_MAX_GPUS   16
#define ZP_PIPE_GPU_NAME   16
#define ZP_PIPE_NAME_MAX   24
#define ZP_PIPE_URL_MAX    256

struct zp_pipe_key {
	char name[ZP_KEY_ID_MAX];
	char zkey[PATH_MAX];
	char r1cs[PATH_MAX];       /* optional: C matrix, full satisfiability check */
	char synth[256];           /* synthetic circuit "synth:n=..,bool=.." (prover/synth.h): synthd builds
	                            * it from these parameters; partitions are "synth:<witness seed>" */
	int setup_device;          /* setup = device: each gpud makes an insecure development key for the
	                            * synthetic circuit on its GPU at start (no key file) */
	/* Witness generator (optional): partitions may then be input.json files; synthd runs it
	 * (pipeline/witgen.c) under the limits below. wasm: node generate_witness.js beside it. */
	char wasm[PATH_MAX];       /* circom's <circuit>_js/<circuit>.wasm */
	char witness_bin[PATH_MAX];/* circom's C++ generator (<circuit>_cpp/<circuit>, .dat beside it) */
	char node[PATH_MAX];       /* node for wasm; "" = node on PATH */
	uint32_t witness_timeout_s;/* wall clock; default 60 */
	uint32_t witness_cpu_s;    /* RLIMIT_CPU; default 2 x timeout */
	uint64_t witness_memory;   /* RLIMIT_AS bytes; default 4 GiB */
};

struct zp_pipe_group {
	char name[ZP_PIPE_NAME_MAX];
	char arena[ZP_ARENA_NAME_MAX];
	int node;                  /* NUMA node; -1 = no pinning */
	uint32_t gpus;             /* gpud processes (CPU backend: each one a prover) */
	uint32_t synth_workers;    /* synthd processes */
	uint32_t slots;
	uint64_t slot_size;        /* 0 = auto: the largest need of the keys (sup_slot_auto, supervisor/keyshape.c) */
	uint32_t jobs, max_parts;
	uint32_t gpud_threads, synth_threads; /* ZP_THREADS for each daemon; 0 = all CPUs of the node */
	char backend[8];           /* gpud's prover backend: "cpu" (default, "") or "cuda" */
	uint64_t gpu_memory;       /* device memory each gpud's plan may use (bytes, whole MiB); 0 = the whole card.
	                            * The supervisor passes it as ZP_CUDA_MEM_CAP_MB (cuda/plan.c) */
	/* GPUs: gpud i serves GPU i of the group. `gpus = N` lists ordinals 0..N-1;
	 * `gpus = 0,2` or `gpus = 0000:17:00.0,65:00.0` lists CUDA ordinals or PCI bus ids.
	 * Resolved at load: ordinal (a bus id's rank among the NVIDIA display-class PCI
	 * functions in sysfs, i.e. CUDA_DEVICE_ORDER=PCI_BUS_ID numbering) and NUMA node
	 * (gpu.<i>.numa if given, else the bus id's sysfs numa_node when >= 0, else `node`). */
	char gpu[ZP_PIPE_MAX_GPUS][ZP_PIPE_GPU_NAME]; /* as configured; "" = ordinal i */
	int gpu_numa_cfg[ZP_PIPE_MAX_GPUS];           /* gpu.<i>.numa; -2 = not given */
	int gpu_ordinal[ZP_PIPE_MAX_GPUS];            /* resolved */
	int gpu_node[ZP_PIPE_MAX_GPUS];               /* resolved; -1 = no pinning */
};

/* [cluster]: the supervisor becomes a node of a farm sharing one PostgreSQL database (cluster/,
 * docs/cluster.md); it starts zkpipe-clusterd, which claims the database's jobs for this node's
 * keys and submits them through the local API. database "" = not a cluster node. */
struct zp_pipe_cluster {
	char database[1024];       /* libpq connection string or URI */
	char node[64];             /* this node's name in the database; default: the hostname */
	uint32_t heartbeat_s;      /* default 2 */
	uint32_t dead_after_s;     /* a node silent this long loses its jobs; default 15 */
	uint32_t capacity;         /* partitions held at once; 0 = 2 x the slots of every group */
	uint32_t poll_ms;          /* look for work this often without a NOTIFY; default 1000 */
	uint64_t inline_max;       /* largest inline witness this node writes out (bytes); default 64M */
	bool stop_drain;           /* stop = drain: SIGTERM finishes the jobs held first (claiming none);
	                            * stop = release (default): SIGTERM hands them back at once */
	uint32_t drain_timeout_s;  /* stop = drain: at most this long, then the rest is handed back; default 600 */
	uint32_t view_s;           /* clusterd reads the cluster's view for the status page this often; default 5, 0 = never */
	bool view_set;
	uint32_t retain_days;      /* finished jobs older than this are deleted with their rows; 0 (default) = kept */
	char spool[PATH_MAX];      /* <run dir>/cluster: inline witnesses and local outputs; allowed
	                            * for input and output by the loader */
};

enum zp_memlimit_mode { ZP_MEMLIMIT_AUTO, ZP_MEMLIMIT_CGROUP, ZP_MEMLIMIT_RLIMIT, ZP_MEMLIMIT_OFF };

struct zp_pipe_config {
	char path[PATH_MAX];       /* the config file (absolute) */
	char run_dir[PATH_MAX];
	char listen[ZP_PIPE_URL_MAX];
	char http[64];             /* "host:port" or "" (off) */
	char bin_dir[PATH_MAX];    /* where zkpipe-synthd / zkpipe-gpud live */
	char allow_in[ZP_PIPE_MAX_DIRS][PATH_MAX];
	char allow_out[ZP_PIPE_MAX_DIRS][PATH_MAX];
	unsigned n_in, n_out;
	uint32_t max_attempts;
	uint64_t synthd_mem_limit; /* bytes, 0 = none */
	enum zp_memlimit_mode mem_mode;
	uint32_t restart_min_ms, restart_max_ms;
	uint32_t orphan_timeout_s; /* a daemon whose supervisor is gone this long exits */
	uint32_t retain_s;         /* finished jobs' arena records freed after this */
	uint32_t stuck_timeout_s;  /* a daemon whose heartbeat (progress) is older is SIGKILLed; 0 = off */
	uint32_t start_timeout_s;  /* allowance for start-up and key loads (declared long stages) */
	uint32_t stop_timeout_s;   /* the supervisor's stop: children SIGKILLed this long after SIGTERM */
	uint32_t http_connections; /* most HTTP connections at once (clamped to the fd budget) */
	uint32_t http_timeout_s;   /* an HTTP connection idle this long is closed */
	uint32_t http_per_address; /* most HTTP connections of one client address; the oldest idle is evicted */
	uint32_t write_retry_s;    /* ENOSPC/EROFS on an output: the proof is kept and its write retried this long */
	enum zp_backing backing;
	bool public_access;        /* run dir, sockets and arena 0755/0666 instead of owner-only */
	bool keep_arena;           /* clean stop leaves the arenas (default yes): jobs outlive us */
	bool key_regions;          /* gpud keeps each loaded key in a key region (shm/keyregion.h) that its
	                            * restarts take it from (default yes); no: none, and old ones removed */
	uint32_t synth_delay_ms, prove_delay_ms; /* [debug]: stretch stages so tests can kill mid-stage */
	uint32_t start_delay_ms;   /* [debug]: a daemon's start-up stretched (no heartbeat), like a long key load */
	char inject[128];          /* [debug] inject = what@n, ...: GPU-side failures for tests (gpud/pipe.c) */
	char crash_at[64];         /* [debug] crash_at = point: the supervisor SIGKILLs itself there (tests) */
	char hold_at[16];          /* [debug] hold_at = start | synth | synthesized | prove | proved: partitions pass that
	                            * point only with a token from <run dir>/hold (zp_daemon_gate, daemon.h; tests) */
	bool fixed_blinding;       /* [debug] fixed_blinding = yes: gpud proves with r = 12345, s = 67890 (tests
	                            * only: such proofs are not zero-knowledge; a restart's proofs are then the
	                            * same bytes) */
	struct zp_pipe_key keys[ZP_PIPE_MAX_KEYS];
	unsigned n_keys;
	struct zp_pipe_group groups[ZP_PIPE_MAX_GROUPS];
	unsigned n_groups;
	char node_cpus[ZP_PIPE_MAX_NODES][128]; /* [topology] nodeN = cpu list; "" = ask libnuma */
	struct zp_pipe_cluster cluster;
};

/* Parse an INI config (inih). Errors name the file, line and key. */
int zp_pipe_config_load(struct zp_pipe_config *c, const char *path);
const struct zp_pipe_key *zp_pipe_key_find(const struct zp_pipe_config *c, const char *name);
int zp_pipe_group_find(const struct zp_pipe_config *c, const char *name);
/* The arena params of a group. */
void zp_pipe_arena_params(const struct zp_pipe_config *c, unsigned g, struct zp_arena_params *p);
/* Parse "2M", "64k", "1G", plain bytes. */
int zp_pipe_parse_size(const char *s, uint64_t *out);
/* A device-memory cap ([group] gpu_memory, the CLI's and benches' --gpu-memory / GPU_MEMORY): a size as
 * above ("24G", "24GiB", "24576M", bytes) or 0 (the whole card), into whole MiB (rounded down):
 * -EINVAL not a size, ZP_ERANGE below 1 GiB (other than 0) or above ZP_CUDA_MEM_CAP_MB's 16 TiB. */
int zp_pipe_parse_gpu_memory(const char *s, uint64_t *mib);
/* The sysfs root read for PCI devices: $ZKPIPE_SYSFS (tests: a fake tree), else "/sys". */
const char *zp_pipe_sysfs_root(void);

#endif
