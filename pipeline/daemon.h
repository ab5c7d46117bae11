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
#include "config.h"

#define ZP_DAEMON_WORKERS 4

/*
 * HEARTBEATS ARE PROGRESS. zp_daemon_tick writes the proc entry's heartbeat_ns from the
 * thread that runs the daemon's loop; it is called between units of work and while waiting
 * for work, never from inside a stage, so a stage that hangs (SIGSTOP, a read that never
 * returns, a GPU call that never completes) lets the heartbeat age. Worker threads bracket
 * their stages with zp_daemon_stage(d, w, true/false) and call zp_daemon_progress in long
 * loops. Start-up (until the first tick) and key loads are declared long stages
 * (zp_daemon_long_stage): the heartbeat is set start_timeout_s - stuck_timeout_s ahead, so
 * the supervisor's watchdog allows them start_timeout_s.
 */
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
	/* Progress of worker threads' stages (gpud's GPU and tail threads): 0 = idle, else the
	 * stage's last progress (zp_now_ns). The heartbeat tick writes the oldest of them, so a
	 * thread stuck in a call that never returns stops the beat however often main ticks. */
	_Atomic uint64_t stage_ns[ZP_DAEMON_WORKERS];
	char hold_token[256];        /* [debug] hold_at: the token taken for the next unit ("" = none) */
	bool hold_waiting;           /* [debug] hold_at: the gate turned us away (logged once a wait) */
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
/* Worker w (1 .. ZP_DAEMON_WORKERS-1; 0 is free for the loop's own use) starts / ends a stage. */
void zp_daemon_stage(struct zp_daemon *d, unsigned w, bool busy);
/* Worker w's stage moved on (long loops, debug delays). */
void zp_daemon_progress(struct zp_daemon *d, unsigned w);
/* The calling thread enters (on) or leaves (!on) a long stage (start-up, a key or circuit
 * load): the heartbeat is pushed ahead so the watchdog allows start_timeout_s; leaving it
 * beats at once (start-up is left by the loop's first tick). */
void zp_daemon_long_stage(struct zp_daemon *d, bool on);
/* The same for a stage the config bounds itself (synthd's witness generator: witness_timeout_s):
 * the watchdog allows it allow_s (at least stuck_timeout_s); zp_daemon_long_stage(d, false) ends it. */
void zp_daemon_long_stage_for(struct zp_daemon *d, uint32_t allow_s);
/* poll the hint socket up to ms; drains what arrived. */
void zp_daemon_wait_hint(struct zp_daemon *d, int ms);
/* Sleep ms in slices, returning early on SIGTERM. */
void zp_daemon_sleep(struct zp_daemon *d, uint32_t ms);
/*
 * [debug] hold_at = synth | prove: THE TEST'S GATE. A daemon starts a unit of that stage (synthd:
 * claiming a PENDING partition; gpud: taking a READY slot) only when the gate lets it:
 * <run dir>/hold/open exists (open for all), or it took a token — it removed one other entry of
 * <run dir>/hold (unlink: exactly one daemon gets each). Work stays where it is meanwhile
 * (PENDING, or READY in its slot), so a daemon stopped at the gate leaves nothing half done.
 * zp_daemon_gate: true = go ahead (false: wait a little and ask again; the turn-away is logged
 * once per wait). The daemon then says what its token let through (zp_daemon_gate_used logs
 * "token T let job J part P through"), or, finding no work, puts it back (zp_daemon_gate_unused).
 * Tests: hold every partition at a stage, let exactly N through, open the gate.
 */
bool zp_daemon_gate(struct zp_daemon *d, const char *stage);
/* The blocking points (hold_at = start: each daemon's start-up, before its keys and circuits load
 * (ph NULL); synthesized: synthd's slot filled, still FILLING; proved: gpud's proof computed, the
 * partition still PROVING, zkpipe payloads): block there with the same tokens, ticking (w < 0, the
 * loop's thread) or as worker w, so a test kills a daemon certainly mid-stage or submits while
 * keys are still loading. Logs "job J part P held until ..." once; a stop lets the unit go on. */
void zp_daemon_hold(struct zp_daemon *d, const char *point, const zp_part_h *ph, int w);
void zp_daemon_gate_used(struct zp_daemon *d, zp_part_h ph);
void zp_daemon_gate_unused(struct zp_daemon *d);
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
