/*
 * daemon.h — what zkpipe-synthd and zkpipe-gpud share: argument parsing, config, pinning,
 * attaching the group's arena, registering in its process table, hint sockets, SIGTERM,
 * orphan detection and cancellation checks.
 *
 * Both daemons are started by the supervisor as
 *   zkpipe-<role> --config FILE --group NAME --index I
 * and may be run by hand the same way (the arena must exist: the supervisor creates it).
 */
#ifndef ZP_DAEMON_H
#define ZP_DAEMON_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "pipe.h"

struct zp_daemon {
	struct zp_pipe_config cfg;
	unsigned group;
	unsigned index;
	enum zp_role role;
	char who[40];                /* "synthd.0@node0" */
	struct zp_arena *arena;
	zp_proc_h me;
	int hint_in;                 /* synthd: SUB on <group>.jobs; gpud: PULL on <group>.g<i> */
	int hint_out;                /* synthd: PUSH to every gpud; gpud: PUSH to the supervisor */
	int hint_fd;
	uint64_t last_beat_ms, last_orphan_ms, orphan_since_ms;
};

/* Returns 0; ZP_DAEMON_EXIT_NOW after --help / --version (exit 0); a positive exit code
 * (common/zp_exit.h: usage, config); or a negative code (start-up failed, message logged). */
#define ZP_DAEMON_EXIT_NOW 1000
/* The process exit code for zp_daemon_init's non-zero return. */
int  zp_daemon_init_exit(int r);
int  zp_daemon_init(struct zp_daemon *d, int argc, char **argv, enum zp_role role, const char *name);
/* Heartbeat and orphan check; cheap, call often. */
void zp_daemon_tick(struct zp_daemon *d);
bool zp_daemon_stopping(const struct zp_daemon *d);
/* poll the hint socket up to ms; drains what arrived. */
void zp_daemon_wait_hint(struct zp_daemon *d, int ms);
/* Sleep ms in slices, returning early on SIGTERM. */
void zp_daemon_sleep(struct zp_daemon *d, uint32_t ms);
void zp_daemon_hint_gpuds(struct zp_daemon *d);
void zp_daemon_hint_sup(struct zp_daemon *d, const char *what);
/* Fail partition ph (retried when retry, within the arena's attempt limit) with a formatted
 * reason; logs the outcome and hints the supervisor. */
void zp_daemon_fail_part(struct zp_daemon *d, zp_part_h ph, int retry, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Whether the client cancelled arena job `arena_id` (run_dir/cancel/<client id>). */
bool zp_daemon_cancelled(const struct zp_daemon *d, uint64_t arena_id);
uint64_t zp_daemon_client_id(const struct zp_daemon *d, uint64_t arena_id);
/* RLIMIT_DATA from [limits] synthd_memory unless the supervisor put us in a memory cgroup. */
void zp_limit_memory(struct zp_daemon *d);
void zp_daemon_exit(struct zp_daemon *d);

#endif
