/*
 * progress.h — one way to say "still working, this far, this fast, this long to go", used
 * wherever a user waits: key loading and conversion, setup, GPU key upload, gpud's start-up
 * stages, `zkpipe wait`.
 *
 * Libraries report what they do (zp_progress_stage / zp_progress_add) to the process's one
 * current sink, and do nothing when none is installed; the program decides where it goes
 * (zp_progress_begin): a file descriptor — an updating line (\r, ~10 per second) when it is a
 * terminal, a plain line every few seconds ($ZKPIPE_PROGRESS_S, default 5) when it is a log —
 * and/or a JSON snapshot file (rewritten atomically about once a second and at every stage
 * change) that the supervisor shows in /status.
 *
 * Thread-safe: zp_progress_add may be called from any thread (atomic counter; whichever
 * caller finds the output due prints, the others skip). Stages are set from one thread. The
 * first stage starts one detached thread (signals blocked) that prints what is due, so a stage
 * that counts nothing still shows its elapsed time. Lines are write(2)s on the fd; stdout or
 * stderr are fflush'ed first so stdio output keeps its order.
 */
#ifndef ZP_PROGRESS_H
#define ZP_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#define ZP_PROGRESS_WHO_MAX   48
#define ZP_PROGRESS_STAGE_MAX 96
#define ZP_PROGRESS_NOTE_MAX  160
#define ZP_PROGRESS_JSON_MAX  2048

/* A snapshot of where the current task stands (also what the JSON file holds). */
struct zp_progress_view {
	char who[ZP_PROGRESS_WHO_MAX];
	char stage[ZP_PROGRESS_STAGE_MAX];
	char note[ZP_PROGRESS_NOTE_MAX]; /* detail after the figures ("[DDPR..]"), "" = none */
	const char *unit;          /* "bytes" or "items" */
	uint64_t done, total;      /* total 0 = unknown */
	double elapsed_s;          /* in this stage */
	double rate;               /* units per second over the stage, 0 = not yet known */
	double eta_s;              /* -1 = unknown */
	int finished;              /* the last stage ended (zp_progress_end) */
};

/* Install the process's sink. fd < 0: no lines; json_path NULL/"": no snapshot file.
 * who names the process or command in lines and JSON ("gpud node0/0", "key convert"). */
void zp_progress_begin(const char *who, int fd, const char *json_path);
/* Start a stage: total units of kind unit ("bytes" or "items"; total 0 = unknown). */
void zp_progress_stage(const char *stage, uint64_t total, const char *unit);
/* Count n more units done in the current stage; prints / publishes when due. */
void zp_progress_add(uint64_t n);
/* Set the done count outright (a poll of remote state). The stage's first call is the
 * baseline of its rate (work done before we looked is not our speed). */
void zp_progress_set(uint64_t done);
/* Detail shown after the figures until the next stage. */
void zp_progress_note(const char *note);
/* The task is over: a final line (summary, or the last stage's figures) and finished = 1. */
void zp_progress_end(const char *summary);
/* 1 when a sink is installed (callers may skip work that only feeds progress). */
int zp_progress_active(void);

/* Current view; 0, or -ENOENT without a sink. */
int zp_progress_get(struct zp_progress_view *v);
/* "stage: 1.2 of 3.4 GiB (35 %), 512 MiB/s, ETA 4 s" — what a line says. */
int zp_progress_format(const struct zp_progress_view *v, char *buf, size_t n);
/* The view as one JSON object (no trailing newline); the length, or -ENOSPC. */
int zp_progress_json(const struct zp_progress_view *v, char *buf, size_t n);

#endif
