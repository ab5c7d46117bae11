/*
 * daemon.c — the start-up and housekeeping shared by zkpipe-synthd and zkpipe-gpud.
 */
#include <stdarg.h>
#include "daemon.h"
#include "config.h"
#include "files.h"
#include "hint.h"
#include "rundir.h"
#include "sys.h"
#include "knobs.h"
#include "progress.h"
#include "zp_err.h"
#include "zp_file.h"
#include "zp_exit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile sig_atomic_t stop_flag;

static void on_term(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static int usage(const char *name, FILE *f)
{
	fprintf(f, "usage: zkpipe-%s --config FILE --group NAME --index I\n"
		   "       zkpipe-%s --help | --version\n"
		   "  (started by zkpipe-supervisor; the group's arena must exist)\n\n%s", name, name, zp_exit_text);
	return f == stdout ? ZP_EX_OK : ZP_EX_USAGE;
}

static int attach(struct zp_daemon *d)
{
	const struct zp_pipe_group *g = &d->cfg.groups[d->group];
	struct zp_arena_shape shape = { .slot_count = g->slots, .job_count = g->jobs, .max_parts = g->max_parts };
	int r = -ENOENT;
	/* The supervisor creates the arena before starting us; allow it a moment after a restart. */
	for (int i = 0; i < 100 && (r == -ENOENT); i++) {
		r = zp_arena_attach(g->arena, 0, &shape, NULL, &d->arena);
		if (r == -ENOENT)
			usleep(50000);
	}
	if (r)
		zp_log(d->who, "attach arena %s: %s", g->arena, zp_err_text(r));
	return r;
}

static int sockets(struct zp_daemon *d)
{
	char url[ZP_PIPE_URL_MAX];
	const struct zp_pipe_group *g = &d->cfg.groups[d->group];
	int r;
	d->hint_out = zp_hint_push();
	if (d->hint_out < 0)
		return d->hint_out;
	if (d->role == ZP_ROLE_SYNTHD) {
		if ((r = zp_pipe_url(url, sizeof url, &d->cfg, "%s.jobs", g->name)) ||
		    (d->hint_in = zp_hint_sub(url)) < 0)
			return r ? r : d->hint_in;
		for (uint32_t i = 0; i < g->gpus; i++)
			if (!zp_pipe_url(url, sizeof url, &d->cfg, "%s.g%u", g->name, i))
				zp_hint_connect(d->hint_out, url);
	} else {
		if ((r = zp_pipe_url(url, sizeof url, &d->cfg, "%s.g%u", g->name, d->index)) ||
		    (d->hint_in = zp_hint_pull(url)) < 0)
			return r ? r : d->hint_in;
		if (!zp_pipe_url(url, sizeof url, &d->cfg, "%s.sup", g->name))
			zp_hint_connect(d->hint_out, url);
	}
	d->hint_fd = zp_hint_fd(d->hint_in);
	return 0;
}

int zp_daemon_init(struct zp_daemon *d, int argc, char **argv, enum zp_role role, const char *name)
{
	static const struct option opts[] = {
		{ "config", 1, 0, 'c' }, { "group", 1, 0, 'g' }, { "index", 1, 0, 'i' }, { "help", 0, 0, 'h' },
		{ "version", 0, 0, 'V' }, { 0, 0, 0, 0 } };
	const char *config = NULL, *group = NULL;
	long index = -1;
	int o, r;
	memset(d, 0, sizeof *d);
	d->role = role;
	d->hint_in = d->hint_out = -1;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (o == 'c')
			config = optarg;
		else if (o == 'g')
			group = optarg;
		else if (o == 'i')
			index = strtol(optarg, NULL, 10);
		else if (o == 'h')
			return usage(name, stdout), ZP_DAEMON_EXIT_NOW;
		else if (o == 'V')
			return printf("zkpipe-%s %s\n", name, ZP_VERSION), ZP_DAEMON_EXIT_NOW;
		else
			return usage(name, stderr);
	}
	if (!config || !group || index < 0)
		return usage(name, stderr);
	snprintf(d->who, sizeof d->who, "%s.%ld@%s", name, index, group);
	if ((r = zp_pipe_config_load(&d->cfg, config))) {
		zp_log(d->who, "%s", zp_err_msg());
		return ZP_EX_CONFIG;
	}
	if ((r = zp_pipe_group_find(&d->cfg, group)) < 0) {
		zp_log(d->who, "no [group %s] in %s", group, config);
		return ZP_EX_CONFIG;
	}
	d->group = (unsigned)r;
	d->index = (unsigned)index;
	struct sigaction sa = { .sa_handler = on_term };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* a gpud pins to its GPU's NUMA node (config.c resolved it), a synthd to the group's */
	const struct zp_pipe_group *gr = &d->cfg.groups[d->group];
	int node = role == ZP_ROLE_GPUD && d->index < gr->gpus ? gr->gpu_node[d->index] : gr->node;
	int cpus = zp_pipe_pin(&d->cfg, node);
	if (cpus < 0)
		zp_log(d->who, "pinning: %s (running unpinned)", zp_err_msg());
	if ((r = attach(d)))
		return r;
	char pname[24];
	snprintf(pname, sizeof pname, "%s.%u", name, d->index);
	if ((r = zp_arena_proc_register(d->arena, 0, role, pname, &d->me))) {
		zp_log(d->who, "register: %s", zp_err_text(r));
		return r;
	}
	if ((r = sockets(d))) {
		zp_log(d->who, "sockets: %s", zp_err_text(r));
		zp_arena_proc_unregister(d->arena, d->me);
		return r;
	}
	zp_daemon_long_stage(d, true); /* start-up: key loads and circuit builds come next */
	if (d->cfg.start_delay_ms) /* [debug]: a start-up as long as a big key load, beating nothing */
		usleep(d->cfg.start_delay_ms * 1000u);
	zp_daemon_hold(d, "start", NULL, -1); /* [debug] hold_at = start: before keys and circuits load */
	zp_log(d->who, "up: arena %s, proc %u, node %d, %d CPUs pinned", gr->arena, d->me.idx, node, cpus);
	/* start-up stages (key loading, upload) on stderr = our log, and in progress/<who>.json,
	 * which the supervisor's /status shows while our pid is the one it started */
	char pp[PATH_MAX];
	if (!zp_pipe_path(pp, sizeof pp, &d->cfg, "progress") && !zp_file_mkdirs(pp, 0700) &&
	    !zp_pipe_path(pp, sizeof pp, &d->cfg, "progress/%s.json", d->who))
		zp_progress_begin(d->who, 2, pp);
	return 0;
}

int zp_daemon_init_exit(int r)
{
	return r == ZP_DAEMON_EXIT_NOW ? ZP_EX_OK : r > 0 ? r : ZP_EX_START;
}

bool zp_daemon_stopping(const struct zp_daemon *d)
{
	(void)d;
	return stop_flag != 0;
}

/* Any ALIVE supervisor entry whose process still runs. */
static bool supervisor_alive(struct zp_daemon *d)
{
	const struct zp_arena_hdr *h = zp_arena_hdr(d->arena);
	for (uint32_t i = 0; i < h->proc_count; i++) {
		const struct zp_arena_proc *p = zp_arena_proc_rec(d->arena, i);
		uint64_t w = zp_arena_load64(&p->word);
		if (zp_word_state(w) == ZP_PROC_ALIVE && p->role == ZP_ROLE_SUPERVISOR &&
		    zp_arena_proc_alive(d->arena, i) == 1)
			return true;
	}
	return false;
}

void zp_daemon_stage(struct zp_daemon *d, unsigned w, bool busy)
{
	if (w < ZP_DAEMON_WORKERS)
		atomic_store_explicit(&d->stage_ns[w], busy ? zp_now_ns() : 0, memory_order_relaxed);
}

void zp_daemon_progress(struct zp_daemon *d, unsigned w)
{
	if (w < ZP_DAEMON_WORKERS && atomic_load_explicit(&d->stage_ns[w], memory_order_relaxed))
		atomic_store_explicit(&d->stage_ns[w], zp_now_ns(), memory_order_relaxed);
}


/* The oldest progress among the loop (now: it is ticking) and the busy workers. */
static uint64_t progress_ns(struct zp_daemon *d)
{
	uint64_t hb = zp_now_ns();
	for (unsigned w = 0; w < ZP_DAEMON_WORKERS; w++) {
		uint64_t s = atomic_load_explicit(&d->stage_ns[w], memory_order_relaxed);
		if (s && s < hb)
			hb = s;
	}
	return hb;
}

void zp_daemon_long_stage_for(struct zp_daemon *d, uint32_t allow_s)
{
	uint64_t ahead = allow_s > d->cfg.stuck_timeout_s ? allow_s - d->cfg.stuck_timeout_s : 0;
	zp_arena_proc_heartbeat_at(d->arena, d->me, zp_now_ns() + ahead * 1000000000ull);
	d->last_beat_ms = 0; /* the next tick, after the stage, beats at once */
}

void zp_daemon_long_stage(struct zp_daemon *d, bool on)
{
	if (on) {
		zp_daemon_long_stage_for(d, d->cfg.start_timeout_s);
		return;
	}
	zp_arena_proc_heartbeat_at(d->arena, d->me, progress_ns(d));
	d->last_beat_ms = zp_mono_ms();
}

void zp_daemon_tick(struct zp_daemon *d)
{
	uint64_t now = zp_mono_ms();
	if (now - d->last_beat_ms >= 200) {
		zp_arena_proc_heartbeat_at(d->arena, d->me, progress_ns(d));
		d->last_beat_ms = now;
	}
	if (now - d->last_orphan_ms < 1000)
		return;
	d->last_orphan_ms = now;
	if (supervisor_alive(d)) {
		d->orphan_since_ms = 0;
	} else if (!d->orphan_since_ms) {
		d->orphan_since_ms = now;
		zp_log(d->who, "no supervisor; exiting in %u s unless one appears", d->cfg.orphan_timeout_s);
	} else if (now - d->orphan_since_ms >= (uint64_t)d->cfg.orphan_timeout_s * 1000) {
		zp_log(d->who, "orphaned for %u s: exiting", d->cfg.orphan_timeout_s);
		stop_flag = 1;
	}
}

void zp_daemon_wait_hint(struct zp_daemon *d, int ms)
{
	struct pollfd p = { .fd = d->hint_fd, .events = POLLIN };
	if (d->hint_fd >= 0 && poll(&p, 1, ms) > 0)
		zp_hint_drain(d->hint_in);
	else if (d->hint_fd < 0)
		usleep((useconds_t)ms * 1000);
}

void zp_daemon_sleep(struct zp_daemon *d, uint32_t ms)
{
	uint64_t end = zp_mono_ms() + ms;
	while (!stop_flag && zp_mono_ms() < end) {
		usleep(10000);
		zp_daemon_tick(d);
	}
}

/* The gate's token: true when <run>/hold/open exists (tok "") or an entry was unlinked (its name in tok). */
static bool take_token(struct zp_daemon *d, char *tok, size_t n, char *dir, size_t dn)
{
	char p[PATH_MAX + 260];
	tok[0] = 0;
	if (zp_pipe_path(dir, dn, &d->cfg, "hold"))
		return true;
	snprintf(p, sizeof p, "%s/open", dir);
	if (!access(p, F_OK))
		return true;
	DIR *dh = opendir(dir);
	struct dirent *e;
	while (dh && (e = readdir(dh))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "open") || strlen(e->d_name) >= n)
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		if (!unlink(p)) {
			snprintf(tok, n, "%s", e->d_name);
			break;
		}
	}
	if (dh)
		closedir(dh);
	return tok[0] != 0;
}

bool zp_daemon_gate(struct zp_daemon *d, const char *stage)
{
	d->hold_token[0] = 0;
	if (!d->cfg.hold_at[0] || strcmp(d->cfg.hold_at, stage))
		return true;
	char dir[PATH_MAX];
	if (take_token(d, d->hold_token, sizeof d->hold_token, dir, sizeof dir))
		return d->hold_waiting = false, true;
	if (!d->hold_waiting)
		zp_log(d->who, "[debug] hold_at = %s: held until %s/open or a token there", stage, dir);
	d->hold_waiting = true;
	return false;
}

void zp_daemon_hold(struct zp_daemon *d, const char *point, const zp_part_h *ph, int w)
{
	if (!d->cfg.hold_at[0] || strcmp(d->cfg.hold_at, point))
		return;
	char dir[PATH_MAX], tok[256], what[64] = "start-up";
	if (ph)
		snprintf(what, sizeof what, "job %llu part %u",
			 (unsigned long long)zp_daemon_client_id(d, zp_arena_job_rec(d->arena, ph->job.idx)->id), ph->part);
	bool logged = false;
	while (!take_token(d, tok, sizeof tok, dir, sizeof dir) && !zp_daemon_stopping(d)) {
		if (!logged)
			zp_log(d->who, "[debug] hold_at = %s: %s held until %s/open or a token there", point, what, dir);
		logged = true;
		usleep(20000);
		if (w < 0)
			zp_daemon_tick(d);
		else
			zp_daemon_progress(d, (unsigned)w);
	}
	if (tok[0])
		zp_log(d->who, "[debug] hold_at = %s: token %s let %s through", point, tok, what);
	if (!ph && logged)
		zp_daemon_long_stage(d, true); /* start-up goes on: our ticks ended its allowance */
}

void zp_daemon_gate_used(struct zp_daemon *d, zp_part_h ph)
{
	if (!d->hold_token[0])
		return;
	zp_log(d->who, "[debug] hold_at = %s: token %s let job %llu part %u through", d->cfg.hold_at, d->hold_token,
	       (unsigned long long)zp_daemon_client_id(d, zp_arena_job_rec(d->arena, ph.job.idx)->id), ph.part);
	d->hold_token[0] = 0;
}

void zp_daemon_gate_unused(struct zp_daemon *d)
{
	char p[PATH_MAX];
	if (!d->hold_token[0] || zp_pipe_path(p, sizeof p, &d->cfg, "hold/%s", d->hold_token))
		return;
	int fd = open(p, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	else
		zp_log(d->who, "[debug] hold_at: token %s not put back: %s", d->hold_token, strerror(errno));
	d->hold_token[0] = 0;
}

void zp_daemon_hint_gpuds(struct zp_daemon *d) { zp_hint_send(d->hint_out, "ready"); }
void zp_daemon_hint_sup(struct zp_daemon *d, const char *what) { zp_hint_send(d->hint_out, what); }

void zp_daemon_fail_part(struct zp_daemon *d, zp_part_h ph, int retry, const char *fmt, ...)
{
	char why[ZP_ERRTXT_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	int st = zp_arena_part_fail(d->arena, d->me, ph, retry, why);
	zp_log(d->who, "job %llu part %u: %s -> %s", (unsigned long long)ph.job.idx, ph.part, why,
	       st >= 0 ? zp_part_state_name((unsigned)st) : zp_strerror(st));
	zp_daemon_hint_sup(d, "fail");
}

uint64_t zp_daemon_client_id(const struct zp_daemon *d, uint64_t arena_id)
{
	return zp_job_client_id(d->group, arena_id);
}

bool zp_daemon_cancelled(const struct zp_daemon *d, uint64_t arena_id)
{
	char p[PATH_MAX];
	struct stat st;
	return !zp_pipe_path(p, sizeof p, &d->cfg, "cancel/%llu",
			     (unsigned long long)zp_daemon_client_id(d, arena_id)) && stat(p, &st) == 0;
}

void zp_limit_memory(struct zp_daemon *d)
{
	const char *cg = zp_knobs()->memcg;
	if (!d->cfg.synthd_mem_limit || d->cfg.mem_mode == ZP_MEMLIMIT_OFF || (cg && *cg))
		return;
	if (d->cfg.mem_mode == ZP_MEMLIMIT_CGROUP)
		zp_log(d->who, "memory_limit = cgroup but no cgroup was set up: using RLIMIT_DATA");
	struct rlimit rl = { d->cfg.synthd_mem_limit, d->cfg.synthd_mem_limit };
	if (setrlimit(RLIMIT_DATA, &rl))
		zp_log(d->who, "RLIMIT_DATA: %s", strerror(errno));
	else
		zp_log(d->who, "memory limit %llu bytes (RLIMIT_DATA)", (unsigned long long)rl.rlim_cur);
}

void zp_daemon_exit(struct zp_daemon *d)
{
	zp_log(d->who, "stopping");
	zp_arena_proc_unregister(d->arena, d->me);
	zp_hint_close(d->hint_in);
	zp_hint_close(d->hint_out);
	zp_arena_close(d->arena);
}
