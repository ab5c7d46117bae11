/*
 * rundir.h — the run directory's layout and the names built in it (rundir.c).
 *
 * RUN DIRECTORY (run.dir in the config; mode 0700, created by the supervisor)
 *   api.ipc                 client API (REP), unless run.listen names another URL
 *   <group>.jobs            supervisor PUB -> synthd SUB: "a job arrived"
 *   <group>.g<i>            gpud i PULL <- synthd PUSH: "a slot is READY"
 *   <group>.sup             supervisor PULL <- gpud PUSH: "a partition/job finished"
 *   in/<token>              job manifest: one witness path per line, partition order (files.h)
 *   tokens/<token>          the client id a submit token became (supervisor/records.c)
 *   results/<job>.json      a finished job's record (written before its arena record is freed)
 *   cancel/<job>            exists = the client cancelled the job
 *   health/<group>.gpud<i>.json  gpud's health (health.h)
 *   progress/<who>.json     a daemon's progress (daemon.h)
 *   log/<group>.<role><i>   each daemon's stderr
 *   supervisor.lock/.pid    one supervisor per run directory (flock)
 * ipc paths must stay under 107 bytes (nanomsg aborts otherwise): the config loader checks.
 *
 * JOB IDS seen by clients: arena_id << 8 | group index (group index < 256): zp_job_client_id.
 */
#ifndef ZP_PIPE_RUNDIR_H
#define ZP_PIPE_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZP_IPC_PATH_MAX 107

struct zp_pipe_config;

/* The id a client sees for job arena_id of group g (the names results/<id>.json, cancel/<id>). */
static inline uint64_t zp_job_client_id(unsigned g, uint64_t arena_id) { return arena_id << 8 | g; }

/* "ipc://<run>/<leaf>" into buf; -ENAMETOOLONG past the ipc limit. */
int zp_pipe_url(char *buf, size_t n, const struct zp_pipe_config *c, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* "<run>/<leaf>" */
int zp_pipe_path(char *buf, size_t n, const struct zp_pipe_config *c, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Calls fn(dir, name, ctx) for each entry of <run>/<sub> whose name does not start with '.' (dir
 * is the folder's path), until fn returns nonzero, which is returned. A folder that is missing or
 * unreadable has no entries (0); fn may remove the entry it is given. */
typedef int (*zp_pipe_entry_fn)(const char *dir, const char *name, void *ctx);
int zp_pipe_each(const struct zp_pipe_config *c, const char *sub, zp_pipe_entry_fn fn, void *ctx);
/* A client's submit token: 1 to ZP_TOKEN_MAX of [A-Za-z0-9_-], so that it is a file name in
 * in/ and tokens/ as it stands (no '/', no '.', nothing to escape). */
#define ZP_TOKEN_MAX 64
bool zp_token_ok(const char *t);
/* A fresh token: prefix (may be "") + 32 hex digits of getrandom. 0, or -errno (getrandom failed). */
int zp_token_random(char out[ZP_TOKEN_MAX + 1], const char *prefix);

#endif
