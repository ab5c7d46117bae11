/*
 * pipe.h — what zkpipe-supervisor, zkpipe-synthd, zkpipe-gpud and the `zkpipe` client
 * share: the config file, the run directory's layout, the slot payload, job manifests and
 * proof outputs, path policy, nanomsg hints and the client request/reply.
 *
 * Truth lives in the arena (shm/arena.h); everything here is either configuration read once
 * at start, files written atomically (temp + rename), or hints that may be lost.
 *
 * RUN DIRECTORY (run.dir in the config; mode 0700, created by the supervisor)
 *   api.ipc                 client API (REP), unless run.listen names another URL
 *   <group>.jobs            supervisor PUB -> synthd SUB: "a job arrived"
 *   <group>.g<i>            gpud i PULL <- synthd PUSH: "a slot is READY"
 *   <group>.sup             supervisor PULL <- gpud PUSH: "a partition/job finished"
 *   in/<token>              job manifest: one witness path per line, partition order
 *   results/<job>.json      a finished job's record (written before its arena record is freed)
 *   cancel/<job>            exists = the client cancelled the job
 *   log/<group>.<role><i>   each daemon's stderr
 *   supervisor.lock/.pid    one supervisor per run directory (flock)
 * ipc paths must stay under 107 bytes (nanomsg aborts otherwise): the config loader checks.
 *
 * JOB IDS seen by clients: arena_id << 8 | group index (group index < 256).
 *
 * PROOF OUTPUT (job.output, a directory the supervisor creates):
 *   part-<p>.proof.json / part-<p>.public.json  snarkjs's formats, one pair per partition
 *   proofs.json  the job's proof: {"job", "key", "partitions": [{"proof", "public"}, ...]},
 *                written once every partition is DONE; its presence means the job is complete.
 *   error.txt    a FAILED job's reason.
 * Every file is written to <name>.tmp.<pid> (O_EXCL | O_NOFOLLOW, inside the directory opened by
 * an openat walk from the allowed root) and renamed into place.
 */
#ifndef ZP_PIPE_H
#define ZP_PIPE_H

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
#define ZP_IPC_PATH_MAX    107

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
	uint64_t slot_size;        /* 0 = auto: the largest need of the keys (zp_pipe_slot_auto) */
	uint32_t jobs, max_parts;
	uint32_t gpud_threads, synth_threads; /* ZP_THREADS for each daemon; 0 = all CPUs of the node */
	char backend[8];           /* gpud's prover backend: "cpu" (default, "") or "cuda" */
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
	uint32_t http_connections; /* most HTTP connections at once (clamped to the fd budget) */
	uint32_t http_timeout_s;   /* an HTTP connection idle this long is closed */
	enum zp_backing backing;
	bool public_access;        /* run dir, sockets and arena 0755/0666 instead of owner-only */
	bool keep_arena;           /* clean stop leaves the arenas (default yes): jobs outlive us */
	bool key_regions;          /* gpud keeps each loaded key in a key region (shm/keyregion.h) that its
	                            * restarts take it from (default yes); no: none, and old ones removed */
	uint32_t synth_delay_ms, prove_delay_ms; /* [debug]: stretch stages so tests can kill mid-stage */
	uint32_t start_delay_ms;   /* [debug]: a daemon's start-up stretched (no heartbeat), like a long key load */
	char inject[128];          /* [debug] inject = what@n, ...: GPU-side failures for tests (gpud/pipe.c) */
	char crash_at[64];         /* [debug] crash_at = point: the supervisor SIGKILLs itself there (tests) */
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
/* "ipc://<run>/<leaf>" into buf; -ENAMETOOLONG past the ipc limit. */
int zp_pipe_url(char *buf, size_t n, const struct zp_pipe_config *c, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* "<run>/<leaf>" */
int zp_pipe_path(char *buf, size_t n, const struct zp_pipe_config *c, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Parse "2M", "64k", "1G", plain bytes. */
int zp_pipe_parse_size(const char *s, uint64_t *out);

/* Pin the calling process to a group's node: CPUs from [topology] or libnuma, memory bound
 * to the node when it exists on this machine. Returns the CPU count pinned to (>0), 0 when
 * not pinned. */
int zp_pipe_pin(const struct zp_pipe_config *c, int node);
/* The sysfs root read for PCI devices: $ZKPIPE_SYSFS (tests: a fake tree), else "/sys". */
const char *zp_pipe_sysfs_root(void);

/* ---------------------------------------------------------------- keys and health (health.c) */
/* A key's shape, read from its header (or synth parameters) without loading it. */
struct zp_key_shape {
	uint32_t n_vars, n_public, domain, log_domain;
	uint64_t slot_bytes;       /* one partition's payload: the smallest slot_size that holds it */
	char kind[24];             /* "zkey", "zpk", "synth", "synth, setup = device" */
	char warning[PATH_MAX + 96];/* served, but something is off (an r1cs of another circuit) */
};
/* Validate a configured key as far as can be done without loading it: the zkey/zpk header
 * (protocol, BLS12-381 curve and prime, counts), the r1cs (readable; its wires against the key's
 * vars: a mismatch is s->warning), the witness generator's files. The error names the key and
 * the file. */
int zp_pipe_key_shape(const struct zp_pipe_key *k, struct zp_key_shape *s);
/* slot_size = auto: the largest key need, rounded up to 2 MiB; sets groups[g].slot_size.
 * why gets the key that sized it. */
int zp_pipe_slot_auto(struct zp_pipe_config *c, unsigned g, char *why, size_t n);
uint64_t zp_pipe_slot_round(uint64_t bytes);
/* gpud's health file (<run>/health/<group>.gpud<i>.json; format in health.c). write takes a
 * json_t *; read returns a json_t * (caller decrefs) or NULL when absent or another pid's. */
int zp_health_path(char *buf, size_t n, const struct zp_pipe_config *c, unsigned g, unsigned i);
int zp_health_write(const struct zp_pipe_config *c, unsigned g, unsigned i, void *json);
void *zp_health_read(const struct zp_pipe_config *c, unsigned g, unsigned i, int pid);

/* ---------------------------------------------------------------- witness generator (witgen.c) */
struct zp_witgen {
	char wasm[PATH_MAX];       /* circom's <circuit>.wasm (generate_witness.js beside it), or "" */
	char bin[PATH_MAX];        /* circom's C++ generator, or "" */
	char node[PATH_MAX];       /* "" = /usr/bin/node */
	uint32_t timeout_s, cpu_s; /* wall clock (killed), RLIMIT_CPU */
	uint64_t mem_bytes;        /* RLIMIT_AS */
	uint64_t max_out_bytes;    /* RLIMIT_FSIZE: the witness it may write (0 = no limit) */
	uint64_t max_in_bytes;     /* input.json larger than this is refused (0: 64 MiB) */
};
/* The generator of a configured key (wasm or witness_bin set), with its limits. */
void zp_witgen_of_key(struct zp_witgen *g, const struct zp_pipe_key *k, uint32_t n_vars);
/* Copy the open input.json in_fd (a regular file, bounded; input names it in messages) into a
 * fresh directory <parent>/zpwit.XXXXXX (path in dir), run the generator there on that copy,
 * leave the witness at wtns (inside dir). ZP_EWITGEN naming exit status / signal / limit /
 * timeout and the generator's last line. The caller closes in_fd, reads wtns, then
 * zp_witgen_cleanup(dir) (also after a failure). */
int zp_witgen_run(const struct zp_witgen *g, int in_fd, const char *input, const char *parent, char *dir,
		  size_t dn, char *wtns, size_t wn);
/* open(path) for zp_witgen_run: O_RDONLY | O_NONBLOCK | O_NOFOLLOW (a FIFO is refused by fstat,
 * never waited on). Returns the fd or -errno. */
int zp_witgen_open_input(const char *path);
void zp_witgen_cleanup(const char *dir);

/* ---------------------------------------------------------------- slot payload */
#define ZP_PAYLOAD_MAGIC 0x31304c53505a5aull /* "ZZPSL01" */
struct zp_slot_payload {
	uint64_t magic;
	uint64_t job_id;
	uint32_t part, n_vars, domain, n_public;
	uint8_t fingerprint[16];
	char key_id[ZP_KEY_ID_MAX];
	uint64_t off_w, off_a, off_b, off_c, bytes;
	uint32_t has_c, _pad;
};
/* Layout w | a | b | c after a 4 KiB header; returns total bytes. */
uint64_t zp_payload_layout(struct zp_slot_payload *p, uint32_t n_vars, uint32_t domain);

/* ---------------------------------------------------------------- files */
/* Header-only peeks of the operator's key files (cheap validation): r1cs nWires, zkey nVars.
 * Witnesses are read by prover/wtns.h (zp_wtns_check_fd at submit, zp_wtns_read_fd in synthd). */
int zp_peek_r1cs(const char *path, uint32_t *n_wires);
int zp_peek_zkey(const char *path, uint32_t *n_vars);

/* Job manifest: write lines atomically; read line `part`. */
int zp_manifest_write(const char *path, const char *const *inputs, uint32_t n);
int zp_manifest_line(const char *path, uint32_t part, char *buf, size_t n);

/* Write buf to path through <path>.tmp.<pid> + fsync + rename + fsync of the directory
 * (run-directory files, mode 0600): once it returns 0 the file survives a crash; on error
 * nothing is left at the tmp name. The temporary is created O_EXCL | O_NOFOLLOW and renamed
 * over the name, so a symlink at either name is replaced, never written through. _at: name
 * inside the open directory dirfd. */
int zp_write_atomic(const char *path, const void *buf, size_t len);
int zp_write_atomic_at(int dirfd, const char *name, const void *buf, size_t len, unsigned mode);
/* fsync the directory holding `path` (a rename or unlink there becomes durable). */
int zp_fsync_parent(const char *path);
/* mkdir -p with mode (the operator's directories: the run directory) */
int zp_mkdirs(const char *path, unsigned mode);

/* ---------------------------------------------------------------- client-named paths
 * Confinement: a path a request names is resolved completely (symlinks, '.', '..', the last
 * component too; for an output, the part that does not exist yet is appended and may hold no
 * '.' or '..') and must lie under one of dirs (allow_input / allow_output, resolved at config
 * load). Every later open — at submit, in synthd, in gpud — walks from that root with openat
 * and O_NOFOLLOW, so a component swapped for a symlink after submit fails the open (-ELOOP or
 * -ENOTDIR) instead of leading elsewhere. */
int zp_path_resolve(const char *path, char out[PATH_MAX], bool may_be_missing);
/* Resolve path into canon and check it lies under dirs: 0, -EACCES (outside), -errno. */
int zp_path_allowed(char (*dirs)[PATH_MAX], unsigned n, const char *path, char canon[PATH_MAX], bool may_be_missing);
/* The directory canon (canonical, under dirs) opened by the walk; create: mkdirat each missing
 * component with mode. Returns the fd or -errno. */
int zp_path_open_dir(char (*dirs)[PATH_MAX], unsigned n, const char *canon, bool create, unsigned mode);
/* A client's input file: the walk, then O_RDONLY | O_NONBLOCK | O_NOFOLLOW, regular files only
 * (a FIFO, device or directory is refused by name without waiting). Returns the fd or -errno. */
int zp_path_open_input(char (*dirs)[PATH_MAX], unsigned n, const char *canon);

/* A job's output directory (canonical, under allow_output) opened by the walk. */
int zp_out_open(const struct zp_pipe_config *c, const char *out);
/* <out>/<name> written atomically inside the walked directory; mode 0644 with public = yes
 * (the submitter reads its proofs), else 0600, like the directory's 0755 / 0700. */
int zp_out_write(const struct zp_pipe_config *c, const char *out, const char *name, const void *buf, size_t len);
/* <out>/<name> exists as a regular file (a symlink there does not count). */
bool zp_out_has(const struct zp_pipe_config *c, const char *out, const char *name);
/* Assemble <out>/proofs.json from the part files (read without following symlinks). */
int zp_job_assemble(const struct zp_pipe_config *c, const char *out, uint64_t job, const char *key, uint32_t nparts);

/* ---------------------------------------------------------------- hints (nanomsg) */
/* Sockets with a receive fd for poll(); all sends are non-blocking, all drops harmless. */
int zp_hint_pull(const char *url);          /* bind */
int zp_hint_sub(const char *url);           /* connect, subscribe all */
int zp_hint_pub(const char *url);           /* bind */
int zp_hint_push(void);                     /* connect with zp_hint_connect */
int zp_hint_connect(int s, const char *url);
void zp_hint_send(int s, const char *what);
int zp_hint_fd(int s);                      /* NN_RCVFD */
void zp_hint_drain(int s);
void zp_hint_close(int s);

/* ---------------------------------------------------------------- client API */
/* One JSON request, one JSON reply (both NUL-terminated text). The caller frees *reply.
 * Messages are capped at 1 MiB: the client refuses to send more; the server receives up to
 * ZP_API_RCV_HARD and answers a request over 1 MiB with ok: false (hint.c says why). */
#define ZP_API_MAX_MSG (1u << 20)
#define ZP_API_RCV_HARD (64u << 20)
int zp_api_call(const char *url, const char *req, char **reply, int timeout_ms);
/* Server side: bind a REP socket; serve every queued request through fn (returns a
 * malloc'ed reply). serve_one returns 1 when it served one, 0 when none was waiting. */
int zp_api_rep(const char *url);
int zp_api_serve_one(int s, char *(*fn)(const char *req, size_t len));
/* Default API url for a run directory. */
int zp_api_default_url(char *buf, size_t n, const char *run_dir);

/* Prefix the current error message (zp_err_msg) with a context; returns code. */
int zp_err_wrap(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Process helpers */
uint64_t zp_mono_ms(void);
/* Peak RSS (VmHWM) of pid in KiB, 0 if unknown. */
uint64_t zp_proc_peak_rss_kib(int pid);
/* Log line to stderr: "<ts> <who>: msg". */
void zp_log(const char *who, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
