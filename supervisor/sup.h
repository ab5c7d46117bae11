/*
 * sup.h — zkpipe-supervisor's insides (supervisor/ only).
 *
 * One single-threaded poll loop (main.c) owns children, sockets and the job scan; the HTTP
 * endpoint (http.c) runs on libmicrohttpd's thread and only reads: the arena (atomics) and
 * the children table (plain ints, read racily for display).
 */
#ifndef ZP_SUP_H
#define ZP_SUP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "arena.h"
#include "pipe.h"

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
	char memcg[PATH_MAX];      /* cgroup v1 directory, "" = none */
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
	void *http;
	bool stopping, keep_arena;
	char memcg_root[PATH_MAX]; /* our own memory cgroup (v1), "" when unusable */
	uint64_t started_ns;
};

extern struct sup S;

/* jobs.c */
void sup_scan_jobs(void);
/* Handle one API request (JSON text); returns the malloc'ed JSON reply. */
char *sup_api_handle(const char *req, size_t len);
/* status JSON (all groups, processes, counters); caller json_decref's. */
void *sup_status_json(void);

/* observe.c: histograms (fed by finished jobs), throughput, the status page's parts of /status */
void sup_observe_job(unsigned group, uint32_t job_idx);
void sup_observe_tick(void);
void sup_observe_metrics(FILE *f);
void sup_observe_status(void *status_json);

/* http.c */
int  sup_http_start(void);
void sup_http_stop(void);

/* main.c */
uint64_t sup_client_id(unsigned group, uint64_t arena_id);

#endif
