/*
 * sup.h — zkpipe-supervisor's insides (supervisor/ only).
 *
 * One single-threaded poll loop (main.c) owns children, sockets and the job scan; the HTTP
 * endpoint (http.c) runs on libmicrohttpd's thread and only reads: the arena (atomics) and
 * the children table (plain ints, read racily for display).
 *
 * State: one struct sup, made by main() and passed explicitly to every function that reads or
 * writes it (the HTTP thread gets it as libmicrohttpd's handler argument, the API handler as
 * zp_api_serve_one's ctx); there is no global. observe.c keeps its histograms to itself.
 */
#ifndef ZP_SUP_H
#define ZP_SUP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "arena.h"
#include "config.h"
#include "dkeep.h"
#include "health.h"
#include "keyshape.h"
#include "zp_err.h"

#define SUP_MAX_CHILDREN 256

struct child {
	unsigned group, index;
	enum zp_role role;
	pid_t pid;                 /* 0 = not running */
	int pidfd;
	bool ours;                 /* forked by this supervisor (waitpid), else adopted */
	uint64_t started_ms, next_start_ms;
	uint32_t backoff_ms;
	unsigned restarts, oom_kills;
	uint64_t peak_rss_kib;     /* last seen VmHWM */
	/* failing at start: the same reason SUP_GIVE_UP times in a row stops the restarts */
	unsigned same_fails;
	bool given_up;
	char last_reason[300], give_up_reason[360];
	char memcg[PATH_MAX];      /* cgroup v1 directory, "" = none; one per daemon run, removed when it goes */
	unsigned long long memcg_oom_base; /* its oom_kill count when this daemon entered it */
	uint64_t stuck_ms;         /* no progress this long when the watchdog killed it; 0 = not killed */
	/* gpud: the keys it kept on the device, held for its next start (dkeep.c; fds are ours) */
	zp_dkeep_rec dk[ZP_DKEEP_KEYS];
	unsigned n_dk;
};

/* a child that dies before it is ready (gpud: its health file says so; others: within 10 s)
 * with the same reason this many times in a row is not restarted again */
#define SUP_GIVE_UP 3

enum { KH_LOADING, KH_READY, KH_FAILED };
struct key_health {
	bool valid;                /* passed validation (shape read) */
	int state;                 /* KH_* */
	struct zp_key_shape shape;
	unsigned gpuds_ready, gpuds_loading, gpuds_total;
	uint64_t load_bytes;       /* while loading: the key file's size, and how long a gpud has been at it */
	double load_s;
	char reason[ZP_ERR_MSG_MAX]; /* why it failed (a gpud's reason whole: gpud/keys.c's k->err) */
};

struct group {
	struct zp_arena *a;
	zp_proc_h me;
	int pub, pull, pull_fd;
	bool created;
};

struct sup {
	struct zp_pipe_config cfg;
	char self_dir[PATH_MAX];
	struct group g[ZP_PIPE_MAX_GROUPS];
	struct child ch[SUP_MAX_CHILDREN];
	unsigned nch;
	int api, api_fd;
	char api_url[ZP_PIPE_URL_MAX];
	void *http;                /* the HTTP endpoint (struct MHD_Daemon *; http.c) */
	void *http_conns;          /* its connections, for the per-address limit and eviction (http.c) */
	bool stopping, keep_arena;
	uint64_t draining_ms;      /* [cluster] stop = drain: when the signal came (0 = not draining) */
	char memcg_root[PATH_MAX]; /* our own memory cgroup (v1), "" when unusable */
	char memcg_prefix[48];     /* "zkpipe-<hash of the run directory>": per supervisor instance */
	unsigned http_fd_budget;   /* HTTP connections the fd limit leaves room for (main.c) */
	uint64_t started_ns;
	struct key_health keys[ZP_PIPE_MAX_KEYS];
};

/* jobs.c */
void sup_scan_jobs(struct sup *sup);
/* A job record as status JSON (caller json_decref's). */
void *sup_job_json(struct sup *sup, struct zp_arena *a, unsigned g, uint32_t j);
/* Record a finished job durably and free its record (see jobs.c); 0 when results/ has it. */
int sup_finish_job(struct sup *sup, struct zp_arena *a, unsigned g, uint32_t j, bool now);
/* results/<cid>.json from a JSON object, durably. */
int sup_record_write(struct sup *sup, uint64_t cid, void *js);
/* Handle one API request (JSON text); returns the malloc'ed JSON reply. */
char *sup_api_handle(struct sup *sup, const char *req, size_t len);
/* status JSON (all groups, processes, counters); caller json_decref's. */
void *sup_status_json(struct sup *sup);

/* records.c: what the run directory remembers across crashes, full disks and arena re-creation */
/* [debug] crash_at = name: SIGKILL ourselves at that point (tests of the crash windows). */
void sup_debug_point(struct sup *sup, const char *name);
/* Whether path is a manifest of this run directory (in/<token>). */
bool sup_is_manifest(struct sup *sup, const char *path);
/* The cluster job a local job runs (cluster mode: submitted by zkpipe-clusterd with the token
 * c<job>e<epoch>), or 0. Tokens of that form are clusterd's in cluster mode (docs/cluster.md). */
long long sup_cluster_job(struct sup *sup, const struct zp_arena_job *r);
/* tokens/<token> for the record's manifest name, durably (0 also when it is there already). */
int sup_token_ensure(struct sup *sup, unsigned g, const struct zp_arena_job *r);
/* 1 with *cid when the token has a job (its file, or an arena record naming in/<token>). */
int sup_token_lookup(struct sup *sup, const char *tok, uint64_t *cid);
/* Before a mkdir -p of path: made[PATH_MAX] = the highest directory it will create ("" = none) ... */
void sup_missing_from(const char *path, char *made);
/* ... and after a refusal: remove what it created (a refused submit leaves nothing behind). */
void sup_mkdirs_undo(const char *path, const char *made);
/* Open group g's arena: attach, create, or reshape it (migrating its accepted jobs);
 * then resume a migration a crash interrupted and keep ids above those on disk. */
int sup_arena_open(struct sup *sup, unsigned g, const struct zp_arena_params *p);
/* Whether this service started pid (start time st) as daemon idx of role in group g: the run directory's
 * procs/ record says so and /proc agrees (records.c). Only such a process is adopted or signalled. */
bool sup_proc_started(struct sup *sup, unsigned g, enum zp_role role, unsigned idx, pid_t pid, uint64_t st);
/* That record, written right after the fork of daemon idx of role in group g (records.c). */
void sup_proc_record(struct sup *sup, unsigned g, enum zp_role role, unsigned idx, pid_t pid);
/* At start, once every arena is open: stale temporaries, tokens, lost jobs, orphan manifests. */
void sup_records_start(struct sup *sup);
/* keep_arena = no at stop: every unfinished job is recorded FAILED (with a warning). */
void sup_drop_jobs(struct sup *sup, unsigned g);
/* health.c */
int  sup_keys_validate(struct sup *sup);           /* at start: shapes, slot_size = auto; logs each key */
void sup_keys_fit(struct sup *sup);                /* after the arenas are open: a key no group's slots hold fails */
void sup_keys_refresh(struct sup *sup);            /* from the gpuds' health files; logs transitions */
/* NULL when the key may be submitted to, else the reason (in buf). */
const char *sup_key_refusal(struct sup *sup, const char *name, char *buf, size_t n);
bool sup_group_serves(struct sup *sup, unsigned g, const char *name);
void *sup_keys_json(struct sup *sup);              /* the "keys" array of /status */
const char *sup_key_state(struct sup *sup, const char *name, char *why, size_t n);

/* observe.c: histograms (fed by finished jobs), throughput, the status page's parts of /status */
void sup_observe_job(struct sup *sup, struct zp_arena *a, unsigned group, uint32_t job_idx);
void sup_observe_tick(struct sup *sup);
/* dkeep.c: device-kept keys (pipeline/dkeep.h) */
void sup_dkeep_tick(struct sup *sup, struct child *c);
int sup_dkeep_env(struct child *c, char *env, size_t len, int *fds, unsigned *nfd);
void sup_dkeep_handed(struct child *c);
void sup_observe_metrics(struct sup *sup, FILE *f);
/* A child's role as /status, /metrics and the page name it: zkpipe-clusterd (ZP_ROLE_CLIENT in the
 * arena's terms) is "clusterd", not a plain client. */
#define sup_child_role(c) ((c)->role == ZP_ROLE_CLIENT ? "clusterd" : zp_role_name((c)->role))
void sup_observe_status(struct sup *sup, void *status_json);

/* records.c: <out>/<x>.tmp.<pid> whose writer is gone, removed (at start, and when a job's record is freed) */
void sup_rm_output_tmps(struct sup *sup, const char *out, bool external);
/* http.c */
int  sup_http_start(struct sup *sup);
void sup_http_stop(struct sup *sup);

#endif
