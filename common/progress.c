/*
 * progress.c — the process's progress sink (see progress.h): one task at a time, stages in
 * sequence, lines on a fd and a JSON snapshot file.
 */
#include "progress.h"
#include "knobs.h"
#include "zp_err.h"
#include "zp_file.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TTY_EVERY_NS  100000000ull  /* an updating line: 10 redraws a second */
#define JSON_EVERY_NS 1000000000ull /* the snapshot file: once a second */

static struct {
	pthread_mutex_t mu;          /* stage changes and output */
	int on, fd, tty;
	char who[ZP_PROGRESS_WHO_MAX], stage[ZP_PROGRESS_STAGE_MAX], note[ZP_PROGRESS_NOTE_MAX], json[4096];
	const char *unit;
	uint64_t total, t0, t_begin, line_every, base;
	int based; /* base taken (the first zp_progress_set of the stage) */
	_Atomic uint64_t done, next_line, next_json;
	int finished;
} P = { .mu = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

static uint64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Log lines every $ZKPIPE_PROGRESS_S seconds (default 5; fractions allowed, at least 0.05). */
static uint64_t log_every(void)
{
	const char *e = zp_knobs()->progress_s;
	double s = e && *e ? strtod(e, NULL) : 5.0;
	if (!(s >= 0.05))
		s = 0.05;
	return (uint64_t)(s * 1e9);
}

static void emit_locked(int line, int force_json, int final);

/* A stage that counts nothing for a minute (a conversion, an fsync) must still show it is
 * alive: this thread prints and publishes whatever is due, every 50 ms, for the life of the
 * process (one thread, started by the first zp_progress_stage). */
static void *ticker(void *arg)
{
	(void)arg;
	for (;;) {
		usleep(50000);
		pthread_mutex_lock(&P.mu);
		if (P.on && !P.finished)
			emit_locked(0, 0, 0);
		pthread_mutex_unlock(&P.mu);
	}
	return NULL;
}

/* Detached, with every signal blocked: the process's signal handling stays with its own threads. */
static void start_ticker(void)
{
	sigset_t all, old;
	pthread_t t;
	pthread_attr_t at;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 256 << 10); /* it formats one line: no 8 MiB stack (RLIMIT_DATA counts it) */
	(void)pthread_create(&t, &at, ticker, NULL); /* none: lines then come only with progress */
	pthread_attr_destroy(&at);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void zp_progress_begin(const char *who, int fd, const char *json_path)
{
	pthread_mutex_lock(&P.mu);
	P.on = 1, P.fd = fd, P.tty = fd >= 0 && isatty(fd);
	snprintf(P.who, sizeof P.who, "%s", who ? who : "");
	snprintf(P.json, sizeof P.json, "%s", json_path ? json_path : "");
	P.stage[0] = 0, P.unit = "items", P.total = 0, P.t0 = P.t_begin = mono_ns(), P.finished = 0;
	P.line_every = P.tty ? TTY_EVERY_NS : log_every();
	atomic_store(&P.done, 0);
	pthread_mutex_unlock(&P.mu);
}

int zp_progress_active(void) { return P.on; }

static void view_locked(struct zp_progress_view *v)
{
	memset(v, 0, sizeof *v);
	snprintf(v->who, sizeof v->who, "%s", P.who);
	snprintf(v->stage, sizeof v->stage, "%s", P.stage);
	snprintf(v->note, sizeof v->note, "%s", P.note);
	v->unit = P.unit;
	v->done = atomic_load(&P.done);
	v->total = P.total;
	v->elapsed_s = (double)(mono_ns() - P.t0) / 1e9;
	uint64_t moved = v->done > P.base ? v->done - P.base : 0;
	v->rate = v->elapsed_s > 0.05 ? (double)moved / v->elapsed_s : 0;
	/* no ETA before 5 % of the stage has moved: a first small chunk (329 IC points ahead of 65,536 C
	 * points) extrapolates to absurd times ("ETA 3,691 s" of an 8 s setup) */
	uint64_t left = v->total > P.base ? v->total - P.base : 0;
	v->eta_s = v->total && v->rate > 0 && v->done <= v->total && moved * 20 >= left
			   ? (double)(v->total - v->done) / v->rate : -1;
	v->finished = P.finished;
}

int zp_progress_get(struct zp_progress_view *v)
{
	if (!P.on)
		return -ENOENT;
	pthread_mutex_lock(&P.mu);
	view_locked(v);
	pthread_mutex_unlock(&P.mu);
	return 0;
}

/* 1234567 bytes -> "1.2 MiB"; items as plain numbers. */
static void amount(char *b, size_t n, double x, const char *unit)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	if (strcmp(unit, "bytes")) {
		snprintf(b, n, "%.0f", x);
		return;
	}
	unsigned i = 0;
	while (x >= 1024 && i < 4)
		x /= 1024, i++;
	snprintf(b, n, i ? "%.1f %s" : "%.0f %s", x, u[i]);
}

int zp_progress_format(const struct zp_progress_view *v, char *buf, size_t n)
{
	char d[32], t[32], r[32];
	amount(d, sizeof d, (double)v->done, v->unit);
	amount(t, sizeof t, (double)v->total, v->unit);
	if (strcmp(v->unit, "bytes") && v->rate < 10) /* a few partitions a second: keep a decimal */
		snprintf(r, sizeof r, "%.1f", v->rate);
	else
		amount(r, sizeof r, v->rate, v->unit);
	int k;
	if (v->total)
		k = snprintf(buf, n, "%s: %s of %s (%.0f %%)", v->stage, d, t, 100.0 * (double)v->done / (double)v->total);
	else if (v->done)
		k = snprintf(buf, n, "%s: %s", v->stage, d);
	else
		k = snprintf(buf, n, "%s", v->stage);
	if (k < 0 || (size_t)k >= n)
		return k;
	if (v->rate > 0 && v->done)
		k += snprintf(buf + k, n - (size_t)k, ", %s/s", r);
	if ((size_t)k < n && v->finished)
		k += snprintf(buf + k, n - (size_t)k, ", done in %.1f s", v->elapsed_s);
	else if ((size_t)k < n && v->eta_s >= 0)
		k += snprintf(buf + k, n - (size_t)k, ", ETA %.0f s", v->eta_s + 0.5);
	else if ((size_t)k < n)
		k += snprintf(buf + k, n - (size_t)k, ", %.0f s", v->elapsed_s);
	if ((size_t)k < n && v->note[0])
		k += snprintf(buf + k, n - (size_t)k, " %s", v->note);
	return k;
}

/* JSON string contents: the stage names come from code and config, but quote them properly. */
static size_t esc(char *o, size_t n, const char *s)
{
	size_t k = 0;
	for (; *s && k + 7 < n; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			o[k++] = '\\', o[k++] = (char)c;
		else if (c < 0x20)
			k += (size_t)snprintf(o + k, n - k, "\\u%04x", c);
		else
			o[k++] = (char)c;
	}
	o[k] = 0;
	return k;
}

int zp_progress_json(const struct zp_progress_view *v, char *buf, size_t n)
{
	char who[2 * ZP_PROGRESS_WHO_MAX], st[2 * ZP_PROGRESS_STAGE_MAX], nt[2 * ZP_PROGRESS_NOTE_MAX], line[512];
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	esc(who, sizeof who, v->who);
	esc(st, sizeof st, v->stage);
	esc(nt, sizeof nt, v->note);
	zp_progress_format(v, line, sizeof line);
	char ln[1024];
	esc(ln, sizeof ln, line);
	int k = snprintf(buf, n, "{\"who\":\"%s\",\"pid\":%d,\"stage\":\"%s\",\"note\":\"%s\",\"unit\":\"%s\",\"done\":%llu,\"total\":%llu,"
			 "\"elapsed_s\":%.3f,\"rate\":%.3f,\"eta_s\":%.3f,\"finished\":%s,\"updated_ns\":%llu,\"line\":\"%s\"}",
			 who, (int)getpid(), st, nt, v->unit, (unsigned long long)v->done, (unsigned long long)v->total,
			 v->elapsed_s, v->rate, v->eta_s, v->finished ? "true" : "false",
			 (unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec, ln);
	return k < 0 || (size_t)k >= n ? -ENOSPC : k;
}

/* Snapshot file: zp_file's atomic write, so a reader never sees half of one; not synced (rewritten
 * many times a second, worth nothing after a crash). A failure leaves the last snapshot. */
static void publish_locked(const struct zp_progress_view *v)
{
	char js[ZP_PROGRESS_JSON_MAX];
	int n = zp_progress_json(v, js, sizeof js);
	if (n < 0 || !P.json[0] || (size_t)n + 1 >= sizeof js)
		return;
	js[n++] = '\n';
	zp_file_write_opts o = { .mode = 0600, .no_sync = true };
	char keep[ZP_ERR_MSG_MAX];
	zp_err_save(keep);
	zp_file_write_atomic(P.json, js, (size_t)n, &o);
	zp_err_restore(keep);
}

static void line_locked(const struct zp_progress_view *v, int final)
{
	char txt[512], out[640];
	zp_progress_format(v, txt, sizeof txt);
	int n;
	if (P.tty) {
		n = snprintf(out, sizeof out, "\r%s%s%s\033[K%s", P.who, P.who[0] ? ": " : "", txt, final ? "\n" : "");
	} else {
		struct timespec t;
		struct tm tm;
		clock_gettime(CLOCK_REALTIME, &t);
		localtime_r(&t.tv_sec, &tm);
		n = snprintf(out, sizeof out, "%02d:%02d:%02d.%03ld %s[%d]: %s\n", tm.tm_hour, tm.tm_min, tm.tm_sec,
			     t.tv_nsec / 1000000, P.who, (int)getpid(), txt);
	}
	if (P.fd == 1 || P.fd == 2) /* what the program printed with stdio comes first */
		fflush(P.fd == 1 ? stdout : stderr);
	if (n > 0 && write(P.fd, out, (size_t)n < sizeof out ? (size_t)n : sizeof out - 1) < 0)
		P.fd = -1; /* a closed terminal: stop printing, keep working */
}

/* Print and publish what is due now. line: 1 print now (a terminal's line at a stage change, the
 * final line), 0 when due, -1 not now; force_json: rewrite the snapshot now. Nothing before
 * the first stage. */
static void emit_locked(int line, int force_json, int final)
{
	uint64_t now = mono_ns();
	struct zp_progress_view v;
	if (!P.stage[0])
		return;
	view_locked(&v);
	if (P.fd >= 0 && (line > 0 || (!line && now >= atomic_load(&P.next_line)))) {
		line_locked(&v, final);
		atomic_store(&P.next_line, now + P.line_every);
	}
	if (P.json[0] && (force_json || now >= atomic_load(&P.next_json))) {
		publish_locked(&v);
		atomic_store(&P.next_json, now + JSON_EVERY_NS);
	}
}

void zp_progress_stage(const char *stage, uint64_t total, const char *unit)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	if (!P.on)
		return;
	pthread_once(&once, start_ticker); /* at the first stage: a sink that never reports costs no thread */
	pthread_mutex_lock(&P.mu);
	snprintf(P.stage, sizeof P.stage, "%s", stage);
	P.note[0] = 0, P.base = 0, P.based = 0;
	P.unit = unit && !strcmp(unit, "bytes") ? "bytes" : "items";
	P.total = total, P.t0 = mono_ns(), P.finished = 0;
	atomic_store(&P.done, 0);
	/* a terminal's line shows the new stage at once; a log keeps its pace (a line every few
	 * seconds whatever the stage), so a run of quick stages is not a screenful */
	emit_locked(P.tty ? 1 : -1, 1, 0);
	pthread_mutex_unlock(&P.mu);
}

static void maybe_emit(void)
{
	uint64_t now = mono_ns();
	if (now < atomic_load(&P.next_line) && (!P.json[0] || now < atomic_load(&P.next_json)))
		return;
	if (pthread_mutex_trylock(&P.mu)) /* another thread is printing: it shows our count too */
		return;
	emit_locked(0, 0, 0);
	pthread_mutex_unlock(&P.mu);
}

void zp_progress_add(uint64_t n)
{
	if (!P.on)
		return;
	atomic_fetch_add(&P.done, n);
	maybe_emit();
}

void zp_progress_set(uint64_t done)
{
	if (!P.on)
		return;
	if (!P.based) { /* joined mid-way (a job half done when `wait` began): rate from here on */
		pthread_mutex_lock(&P.mu);
		P.base = done, P.based = 1, P.t0 = mono_ns();
		pthread_mutex_unlock(&P.mu);
	}
	atomic_store(&P.done, done);
	maybe_emit();
}

void zp_progress_note(const char *note)
{
	if (!P.on)
		return;
	pthread_mutex_lock(&P.mu);
	snprintf(P.note, sizeof P.note, "%s", note ? note : "");
	pthread_mutex_unlock(&P.mu);
}

void zp_progress_end(const char *summary)
{
	if (!P.on)
		return;
	pthread_mutex_lock(&P.mu);
	if (summary) { /* the whole task's figure: its time since begin */
		snprintf(P.stage, sizeof P.stage, "%s", summary);
		P.total = 0, P.t0 = P.t_begin, P.note[0] = 0;
		atomic_store(&P.done, 0);
	}
	P.finished = 1;
	emit_locked(1, 1, 1);
	pthread_mutex_unlock(&P.mu);
}
