/*
 * zkpipe-supervisor — reads the config, creates or re-attaches each group's arena, starts
 * synthd × synth_workers and gpud × gpus per group with fork+exec (each pins itself to its
 * group's node; gpud i to its GPU's node, with CUDA_VISIBLE_DEVICES = that GPU's ordinal), watches them with pidfds, reclaims what a dead child owned and restarts it
 * with exponential backoff, serves the client API and /metrics, and stops cleanly on SIGTERM.
 *
 *   zkpipe-supervisor --config FILE [--foreground-log]
 *
 * Restart: a supervisor that died leaves its children running (they are not killed with
 * it) and its arenas intact. The next supervisor on the same run directory re-attaches the
 * arenas, adopts the live children it finds in their process tables (pidfd_open), reclaims
 * the dead ones' slots and partitions, and starts what is missing. Jobs accepted before the
 * crash are in the arena and complete.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "keyregion.h"
#include "progress.h"
#include "sup.h"
#include "knobs.h"
#include "config.h"
#include "files.h"
#include "health.h"
#include "hint.h"
#include "payload_ss.h"
#include "rundir.h"
#include "sys.h"
#include "zp_err.h"
#include "zp_file.h"
#include "zp_exit.h"
#include <jansson.h>

/* Paths here are built from PATH_MAX buffers; access/open report any that got cut. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

static const char *WHO = "supervisor";


static int pidfd_open_(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

/* ---------------------------------------------------------------- binaries */
static int find_bin(struct sup *sup, const char *name, const char *subdir, char *out)
{
	char c[3][PATH_MAX];
	snprintf(c[0], PATH_MAX, "%s/%s", sup->cfg.bin_dir, name);
	snprintf(c[1], PATH_MAX, "%s/%s", sup->self_dir, name);
	snprintf(c[2], PATH_MAX, "%s/../%s/%s", sup->self_dir, subdir, name);
	for (int i = sup->cfg.bin_dir[0] ? 0 : 1; i < 3; i++)
		if (access(c[i], X_OK) == 0)
			return snprintf(out, PATH_MAX, "%s", c[i]), 0;
	return zp_err_set(-ENOENT, "cannot find %s (set [run] bin_dir)", name);
}

/* ---------------------------------------------------------------- memory cgroup (v1) */
static void memcg_init(struct sup *sup)
{
	sup->memcg_root[0] = 0;
	if (!sup->cfg.synthd_mem_limit || sup->cfg.mem_mode == ZP_MEMLIMIT_OFF || sup->cfg.mem_mode == ZP_MEMLIMIT_RLIMIT)
		return;
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[PATH_MAX + 64];
	while (f && fgets(line, sizeof line, f)) {
		char *p = strstr(line, ":memory:");
		if (!p)
			continue;
		p += 8;
		p[strcspn(p, "\n")] = 0;
		char dir[PATH_MAX];
		snprintf(dir, sizeof dir, "/sys/fs/cgroup/memory%s", p);
		if (access(dir, W_OK) == 0)
			snprintf(sup->memcg_root, sizeof sup->memcg_root, "%s", dir);
	}
	if (f)
		fclose(f);
	if (!sup->memcg_root[0])
		zp_log(WHO, "no writable memory cgroup (v1): synthd memory limit by RLIMIT_DATA");
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = write(fd, s, strlen(s)) < 0 ? -errno : 0;
	close(fd);
	return r;
}

/* Cgroups are named per supervisor instance: "zkpipe-<FNV-1a of the run directory's real path>",
 * so two supervisors on one host (each its own run directory) never share a limit or a count. */
static void memcg_prefix_init(struct sup *sup)
{
	char real[PATH_MAX];
	const char *p = realpath(sup->cfg.run_dir, real) ? real : sup->cfg.run_dir;
	uint32_t h = 2166136261u;
	for (; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	snprintf(sup->memcg_prefix, sizeof sup->memcg_prefix, "zkpipe-%08x", h);
}

static void memcg_dir(struct sup *sup, const struct child *c, char *dir, size_t n)
{
	snprintf(dir, n, "%s/%s.%s.synthd%u", sup->memcg_root, sup->memcg_prefix, sup->cfg.groups[c->group].name, c->index);
}

/* memory.oom_control's oom_kill count of dir, 0 when unreadable. */
static unsigned long long memcg_oom_count(const char *dir)
{
	char f[PATH_MAX + 32], line[128];
	snprintf(f, sizeof f, "%s/memory.oom_control", dir);
	FILE *fp = fopen(f, "re");
	unsigned long long kills = 0;
	while (fp && fgets(line, sizeof line, fp))
		sscanf(line, "oom_kill %llu", &kills);
	if (fp)
		fclose(fp);
	return kills;
}

/* A fresh child cgroup of our own with memory.limit_in_bytes; "" when it cannot be made. A
 * leftover of the same name (a supervisor that crashed) is removed first when it is empty. */
static void memcg_for(struct sup *sup, struct child *c)
{
	c->memcg[0] = 0;
	if (!sup->memcg_root[0] || c->role != ZP_ROLE_SYNTHD)
		return;
	char dir[PATH_MAX], f[PATH_MAX + 32], v[32];
	memcg_dir(sup, c, dir, sizeof dir);
	rmdir(dir);
	if (mkdir(dir, 0755) && errno != EEXIST)
		goto fail;
	snprintf(v, sizeof v, "%llu", (unsigned long long)sup->cfg.synthd_mem_limit);
	snprintf(f, sizeof f, "%s/memory.limit_in_bytes", dir);
	if (write_file(f, v))
		goto fail;
	snprintf(f, sizeof f, "%s/memory.memsw.limit_in_bytes", dir);
	write_file(f, v); /* absent without swap accounting: fine */
	snprintf(c->memcg, sizeof c->memcg, "%s", dir);
	c->memcg_oom_base = memcg_oom_count(dir);
	return;
fail:
	zp_log(WHO, "memory cgroup %s: %s; using RLIMIT_DATA", dir, strerror(errno));
}

/* An adopted synthd (a previous supervisor started it) lives in our cgroup of its name. */
static void memcg_adopt(struct sup *sup, struct child *c)
{
	char dir[PATH_MAX];
	struct stat st;
	if (!sup->memcg_root[0] || c->role != ZP_ROLE_SYNTHD)
		return;
	memcg_dir(sup, c, dir, sizeof dir);
	if (stat(dir, &st) == 0) {
		snprintf(c->memcg, sizeof c->memcg, "%s", dir);
		c->memcg_oom_base = memcg_oom_count(dir);
	}
}

static bool memcg_oom_killed(const struct child *c)
{
	return c->memcg[0] && memcg_oom_count(c->memcg) > c->memcg_oom_base;
}

/* The daemon is gone: its cgroup goes too (a v1 cgroup can be removed once it has no tasks;
 * an adopted child's parent may not have reaped it yet, so try a few times). */
static void memcg_remove(struct child *c)
{
	if (!c->memcg[0])
		return;
	for (int i = 0; i < 50 && rmdir(c->memcg) && errno == EBUSY; i++)
		usleep(2000);
	c->memcg[0] = 0;
}

/* ---------------------------------------------------------------- children */
/* ZP_ROLE_CLIENT: zkpipe-clusterd ([cluster]), a client of our API that holds the database
 * connection, so no database call ever runs in this loop (cluster/clusterd.c). */
static const char *role_bin(enum zp_role r)
{
	return r == ZP_ROLE_SYNTHD ? "zkpipe-synthd" : r == ZP_ROLE_CLIENT ? "zkpipe-clusterd" : "zkpipe-gpud";
}
static const char *role_dir(enum zp_role r)
{
	return r == ZP_ROLE_SYNTHD ? "synthd" : r == ZP_ROLE_CLIENT ? "cluster" : "gpud";
}

static int spawn(struct sup *sup, struct child *c)
{
	const struct zp_pipe_group *g = &sup->cfg.groups[c->group];
	char bin[PATH_MAX], idx[16], logp[PATH_MAX], thr[32], cg[PATH_MAX + 32];
	int r = find_bin(sup, role_bin(c->role), role_dir(c->role), bin);
	if (r) {
		zp_log(WHO, "%s", zp_err_msg());
		return r;
	}
	snprintf(idx, sizeof idx, "%u", c->index);
	zp_pipe_path(logp, sizeof logp, &sup->cfg, "log/%s.%s%u", g->name, role_dir(c->role), c->index);
	int logfd = open(logp, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	uint32_t t = c->role == ZP_ROLE_SYNTHD ? g->synth_threads : g->gpud_threads;
	snprintf(thr, sizeof thr, "ZP_THREADS=%u", t);
	memcg_for(sup, c);
	snprintf(cg, sizeof cg, "ZKPIPE_MEMCG=%s", c->memcg);
	int procs = -1;
	if (c->memcg[0]) {
		char f[PATH_MAX + 32];
		snprintf(f, sizeof f, "%s/cgroup.procs", c->memcg);
		procs = open(f, O_WRONLY | O_CLOEXEC);
	}
	char *argv[] = { bin, "--config", sup->cfg.path, "--group", (char *)g->name, "--index", idx, NULL };
	/* the environment is built before fork: the child only makes system calls */
	extern char **environ;
	size_t n = 0;
	while (environ[n])
		n++;
	char **envp = calloc(n + 8, sizeof *envp);
	size_t k = 0;
	bool gpud = c->role == ZP_ROLE_GPUD && c->index < g->gpus;
	static const char *const ours[] = { "ZP_THREADS=", "ZKPIPE_MEMCG=", "ZP_DKEEP=", "CUDA_VISIBLE_DEVICES=",
					     "CUDA_DEVICE_ORDER=", "ZP_CUDA_DEVICE=", "ZP_CUDA_MEM_CAP_MB=" };
	for (size_t i = 0; i < n; i++) {
		bool drop = false;
		for (unsigned j = 0; j < (gpud ? 7u : 3u); j++)
			drop |= !strncmp(environ[i], ours[j], strlen(ours[j]));
		if (!drop)
			envp[k++] = environ[i];
	}
	if (t)
		envp[k++] = thr;
	envp[k++] = cg;
	/* one GPU per gpud: its ordinal (PCI bus order) is the only device the process sees */
	char cvd[48];
	snprintf(cvd, sizeof cvd, "CUDA_VISIBLE_DEVICES=%d", gpud ? g->gpu_ordinal[c->index] : 0);
	if (gpud) {
		envp[k++] = cvd;
		envp[k++] = "CUDA_DEVICE_ORDER=PCI_BUS_ID";
		envp[k++] = "ZP_CUDA_DEVICE=0";
	}
	/* gpud: the group's device-memory cap ([group] gpu_memory; 0 = the whole card), the only one it gets */
	char cap[48];
	snprintf(cap, sizeof cap, "ZP_CUDA_MEM_CAP_MB=%llu", (unsigned long long)(g->gpu_memory >> 20));
	if (gpud)
		envp[k++] = cap;
	/* gpud: the keys its slot's last gpud kept on the device (dkeep.c), as fds 3.. */
	static char dkenv[ZP_DKEEP_TEXT + 16];
	int dkfd[ZP_DKEEP_KEYS * ZP_DKEEP_ARRAYS];
	unsigned ndk = 0;
	if (gpud && !sup_dkeep_env(c, dkenv, sizeof dkenv, dkfd, &ndk))
		envp[k++] = dkenv;
	pid_t pid = fork();
	if (pid == 0) {
		if (procs >= 0 && write(procs, "0", 1) < 0)
			_exit(126);
		if (logfd >= 0) {
			dup2(logfd, 1);
			dup2(logfd, 2);
		}
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		setpgid(0, 0); /* a ^C at the terminal reaches the supervisor, which stops us in order */
		int hi[ZP_DKEEP_KEYS * ZP_DKEEP_ARRAYS];
		for (unsigned i = 0; i < ndk; i++) /* out of the way of 3.., then into place (dup2 clears CLOEXEC) */
			if ((hi[i] = fcntl(dkfd[i], F_DUPFD_CLOEXEC, 1024)) < 0)
				_exit(126);
		for (unsigned i = 0; i < ndk; i++)
			if (dup2(hi[i], 3 + (int)i) < 0)
				_exit(126);
		syscall(SYS_close_range, 3 + ndk, ~0u, 0);
		execve(bin, argv, envp);
		_exit(127);
	}
	free(envp);
	if (pid > 0 && ndk) {
		zp_log(WHO, "gpud.%u@%s: handing it %u kept device key(s) (%.2f GiB)", c->index, g->name, c->n_dk,
		       zp_dkeep_bytes(c->dk, c->n_dk) / 1073741824.0);
		sup_dkeep_handed(c);
	}
	if (logfd >= 0)
		close(logfd);
	if (procs >= 0)
		close(procs);
	if (pid < 0)
		return zp_err_set(-errno, "fork");
	c->pid = pid;
	c->ours = true;
	c->pidfd = pidfd_open_(pid);
	c->started_ms = zp_mono_ms();
	sup_proc_record(sup, c->group, c->role, c->index, c->pid);
	if (gpud)
		zp_log(WHO, "started %s.%u@%s pid %d: GPU %s%sordinal %d, NUMA node %d", role_dir(c->role), c->index,
		       g->name, pid, g->gpu[c->index], g->gpu[c->index][0] ? " " : "", g->gpu_ordinal[c->index],
		       g->gpu_node[c->index]);
	else
		zp_log(WHO, "started %s.%u@%s pid %d%s", role_dir(c->role), c->index, g->name, pid,
		       c->memcg[0] ? " (memory cgroup)" : "");
	return 0;
}

/* The child's entry in its group's process table (matched by pid, role and name). */
static int child_proc(struct sup *sup, const struct child *c, zp_proc_h *h)
{
	struct zp_arena *a = sup->g[c->group].a;
	char name[24];
	snprintf(name, sizeof name, "%s.%u", role_dir(c->role), c->index);
	for (uint32_t i = 0; i < zp_arena_hdr(a)->proc_count; i++) {
		const struct zp_arena_proc *p = zp_arena_proc_rec(a, i);
		uint64_t w = zp_arena_load64(&p->word);
		unsigned st = zp_word_state(w);
		if ((st == ZP_PROC_ALIVE || st == ZP_PROC_DEAD) && p->pid == c->pid && p->role == c->role &&
		    !strncmp(p->name, name, sizeof name)) {
			*h = (zp_proc_h){ i, zp_word_gen(w) };
			return 0;
		}
	}
	return -ENOENT;
}

/* Whether a dead child had failed at start, and why: a gpud whose health file (its pid) does
 * not say "ready" (or "degraded": up, its keys failed), with the error it wrote there; another daemon dying within 10 s. */
static bool died_at_start(struct sup *sup, const struct child *c, uint64_t lived, const char *how, char *why, size_t n)
{
	snprintf(why, n, "%s", how);
	if (c->role != ZP_ROLE_GPUD)
		return lived < 10000;
	json_t *h = zp_health_read(&sup->cfg, c->group, c->index, c->pid);
	const char *st = json_string_value(json_object_get(h, "stage"));
	const char *err = json_string_value(json_object_get(h, "error"));
	bool at_start = !st || (strcmp(st, "ready") && strcmp(st, "degraded")); /* degraded: up, serving no key */
	if (at_start && err && *err)
		snprintf(why, n, "%s: %s", how, err);
	json_decref(h);
	return at_start;
}

/* A child ended: say why, reclaim, schedule a restart with backoff — unless it failed at start
 * the same way SUP_GIVE_UP times in a row: then it stays down and says why (status, /status,
 * the log; its keys fail when no other gpud serves them). */
static void child_died(struct sup *sup, struct child *c)
{
	int status = 0;
	char how[96] = "exited";
	bool reaped = c->ours && waitpid(c->pid, &status, WNOHANG) == c->pid; /* adopted: cannot say why */
	if (reaped) {
		if (WIFSIGNALED(status))
			snprintf(how, sizeof how, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
		else
			snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(status));
	}
	char why[ZP_ERRTXT_MAX - 24];
	snprintf(why, sizeof why, "%s.%u %s", role_dir(c->role), c->index, how);
	if (memcg_oom_killed(c)) {
		c->oom_kills++;
		strcat(how, ", OOM-killed at its memory limit");
		snprintf(why, sizeof why, "%s.%u OOM-killed at %llu MiB limit", role_dir(c->role), c->index,
			 (unsigned long long)(sup->cfg.synthd_mem_limit >> 20));
	} else if (c->stuck_ms) {
		snprintf(why, sizeof why, "%s.%u stuck (no progress for %.1f s), killed", role_dir(c->role), c->index,
			 c->stuck_ms / 1000.0);
	}
	memcg_remove(c);
	close(c->pidfd);
	c->pidfd = -1;
	/* its own entry first, so that a partition it leaves FAILED says why; then any other dead */
	zp_proc_h h;
	int n = child_proc(sup, c, &h) == 0 ? zp_arena_reclaim_proc_why(sup->g[c->group].a, h, why) > 0 : 0;
	n += zp_arena_reclaim_dead(sup->g[c->group].a);
	uint64_t now = zp_mono_ms(), lived = now - c->started_ms;
	char swhy[sizeof c->last_reason];
	/* only its own failures count: a non-zero exit or a crash, not a kill from outside (SIGKILL,
	 * SIGTERM: tests, operators, the OOM killer) nor a clean exit */
	bool failed = reaped && ((WIFEXITED(status) && WEXITSTATUS(status)) ||
				  (WIFSIGNALED(status) && (WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGABRT ||
							   WTERMSIG(status) == SIGBUS || WTERMSIG(status) == SIGILL ||
							   WTERMSIG(status) == SIGFPE)));
	bool at_start = !sup->stopping && failed && died_at_start(sup, c, lived, how, swhy, sizeof swhy);
	c->same_fails = !at_start ? 0 : !strcmp(swhy, c->last_reason) ? c->same_fails + 1 : 1;
	snprintf(c->last_reason, sizeof c->last_reason, "%s", at_start ? swhy : "");
	if (c->same_fails >= SUP_GIVE_UP) {
		c->given_up = true;
		snprintf(c->give_up_reason, sizeof c->give_up_reason, "failed at start %u times in a row: %s", c->same_fails,
			 swhy);
	}
	c->backoff_ms = lived > 10000 || !c->backoff_ms ? sup->cfg.restart_min_ms
			: (c->backoff_ms * 2 > sup->cfg.restart_max_ms ? sup->cfg.restart_max_ms : c->backoff_ms * 2);
	c->next_start_ms = now + c->backoff_ms;
	zp_log(WHO, "%s.%u@%s pid %d %s after %.1f s; reclaimed %d process(es)%s%s", role_dir(c->role), c->index,
	       sup->cfg.groups[c->group].name, c->pid, at_start ? swhy : how, lived / 1000.0, n,
	       sup->stopping ? "" : c->given_up ? "; NOT restarting: " : "; restarting after backoff",
	       c->given_up && !sup->stopping ? c->give_up_reason : "");
	c->pid = 0;
	c->stuck_ms = 0;
	if (!sup->stopping && !c->given_up)
		c->restarts++;
	zp_hint_send(sup->g[c->group].pub, "job"); /* wake synthds: partitions may be PENDING again */
	if (c->given_up)
		sup_keys_refresh(sup);
}

/* Adopt the live daemons a previous supervisor left in this group's process table. */
static void adopt(struct sup *sup, unsigned g)
{
	struct zp_arena *a = sup->g[g].a;
	for (uint32_t i = 0; i < zp_arena_hdr(a)->proc_count; i++) {
		const struct zp_arena_proc *p = zp_arena_proc_rec(a, i);
		uint64_t w = zp_arena_load64(&p->word);
		if (zp_word_state(w) != ZP_PROC_ALIVE || zp_arena_proc_alive(a, i) != 1 ||
		    (p->role != ZP_ROLE_SYNTHD && p->role != ZP_ROLE_GPUD))
			continue;
		const char *dot = strchr(p->name, '.');
		unsigned idx = dot ? (unsigned)strtoul(dot + 1, NULL, 10) : ~0u;
		for (unsigned k = 0; k < sup->nch; k++) {
			struct child *c = &sup->ch[k];
			if (c->group != g || c->role != p->role || c->index != idx || c->pid)
				continue;
			/* only a process this service started (its record in the run directory), checked again once
			 * the pidfd holds it (a pid reused in between has another start time) */
			if (!sup_proc_started(sup, g, p->role, idx, p->pid, p->start_time)) {
				zp_log(WHO, "NOT adopting %s pid %d: the run directory has no record that this service "
				       "started it (its process-table entry is not enough)", p->name, p->pid);
				break;
			}
			int fd = pidfd_open_(p->pid);
			if (fd < 0)
				break;
			if (!sup_proc_started(sup, g, p->role, idx, p->pid, p->start_time)) {
				close(fd);
				break;
			}
			c->pid = p->pid, c->pidfd = fd, c->ours = false, c->started_ms = zp_mono_ms();
			memcg_adopt(sup, c);
			zp_log(WHO, "adopted %s pid %d", p->name, p->pid);
			break;
		}
	}
}

/* ---------------------------------------------------------------- arenas, sockets */
/* Registered Filecoin keys (<run>/srs, pipeline/payload_ss.h) at start: a registration whose .params
 * changed or went is removed (its regions are pruned with the unconfigured keys'); a current one keeps
 * its regions ("ss_<id>"), so gpud takes the key from memory again instead of re-reading tens of GB. */
#define SUP_SRS_KEEP 64
struct srs_keep {
	const struct sup *sup;
	char names[SUP_SRS_KEEP][24];
	unsigned n;
};

static int srs_keep_one(const char *dir, const char *name, void *ctx)
{
	struct srs_keep *s = ctx;
	char path[PATH_MAX];
	int r = zp_ss_srs_registered(&s->sup->cfg, name, path);
	if (r < 0) {
		char reg[PATH_MAX + 32];
		snprintf(reg, sizeof reg, "%s/%s", dir, name);
		zp_log(WHO, "%s: registration removed%s", zp_err_text(r), unlink(reg) ? " (could not be)" : "");
	} else if (r == 0 && s->n < SUP_SRS_KEEP)
		snprintf(s->names[s->n++], sizeof s->names[0], "ss_%s", name);
	return 0;
}

/* The key regions of group g (shm/keyregion.h) whose key is no longer configured, nor registered and current
 * (srs, checked once at start: NULL at a stop), go — all of them when keep is false (key_regions = no, or a stop
 * with keep_arena = no): each can hold tens of GiB. */
static void prune_key_regions(struct sup *sup, unsigned g, bool keep, const struct srs_keep *srs)
{
	const char *names[ZP_PIPE_MAX_KEYS + SUP_SRS_KEEP] = { 0 };
	unsigned n = 0, ns = keep && srs ? srs->n : 0;
	for (unsigned i = 0; keep && i < sup->cfg.n_keys; i++)
		names[n++] = sup->cfg.keys[i].name;
	for (unsigned i = 0; i < ns; i++)
		names[n++] = srs->names[i];
	int gone = zp_keyregion_prune(sup->cfg.groups[g].arena, NULL, names, n);
	if (gone > 0)
		zp_log(WHO, "group %s: %d key region(s) removed (%s)", sup->cfg.groups[g].name, gone,
		       keep ? "their keys left the config, or their .params changed" : "key_regions = no or keep_arena = no");
	if (ns)
		zp_log(WHO, "group %s: %u registered .params file(s) unchanged: their key regions kept", sup->cfg.groups[g].name, ns);
}

static int open_group(struct sup *sup, unsigned g, const struct srs_keep *srs)
{
	struct zp_arena_params p;
	zp_pipe_arena_params(&sup->cfg, g, &p);
	struct group *G = &sup->g[g];
	int r = sup_arena_open(sup, g, &p); /* attach, create, or reshape keeping the accepted jobs */
	if (r)
		return r;
	prune_key_regions(sup, g, sup->cfg.key_regions, srs);
	fchmod(zp_arena_fd(G->a), 0600); /* public or not: only the service's own processes map it */
	const struct zp_arena_hdr *h = zp_arena_hdr(G->a);
	zp_log(WHO, "group %s: %s arena %s (%s, %u slots x %llu MiB = %llu MiB of slot data)",
	       sup->cfg.groups[g].name, G->created ? "created" : "re-attached", p.name, zp_backing_name(h->backing),
	       h->slot_count, (unsigned long long)(h->slot_size >> 20),
	       (unsigned long long)((h->slot_size * h->slot_count) >> 20));
	int n = zp_arena_reclaim_dead(G->a);
	if (n)
		zp_log(WHO, "group %s: reclaimed %d dead process(es)", sup->cfg.groups[g].name, n);
	if ((r = zp_arena_proc_register(G->a, 0, ZP_ROLE_SUPERVISOR, "supervisor", &G->me)))
		return r;
	char url[ZP_PIPE_URL_MAX];
	if ((r = zp_pipe_url(url, sizeof url, &sup->cfg, "%s.jobs", sup->cfg.groups[g].name)) ||
	    (r = G->pub = zp_hint_pub(url)) < 0)
		return r;
	if ((r = zp_pipe_url(url, sizeof url, &sup->cfg, "%s.sup", sup->cfg.groups[g].name)) ||
	    (r = G->pull = zp_hint_pull(url)) < 0)
		return r;
	chmod(url + 6, 0600); /* hints are between our own processes */
	G->pull_fd = zp_hint_fd(G->pull);
	return 0;
}

/* Modes (docs/pipeline.md, Security model): with public = yes other users may traverse the run
 * directory to reach api.ipc (0666) and nothing else; manifests, tokens, results, cancel flags
 * and logs stay 0700 in both modes. */
static int run_dir(struct sup *sup)
{
	/* The run directory is the service's own: an existing one must be a real directory of this user
	 * that no other user may write. A shared directory (dir = /tmp, a sticky or world-writable one)
	 * is refused rather than having its mode changed under every other user of the machine. */
	struct stat st;
	if (lstat(sup->cfg.run_dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return zp_err_set(-ENOTDIR, "[run] dir = %s: not a directory (a symlink is never followed here)",
			                  sup->cfg.run_dir);
		if (st.st_uid != geteuid())
			return zp_err_set(-EPERM, "[run] dir = %s: owned by uid %u, not by the service's uid %u",
			                  sup->cfg.run_dir, (unsigned)st.st_uid, (unsigned)geteuid());
		if (st.st_mode & (S_ISVTX | S_IWOTH | S_IWGRP))
			return zp_err_set(-EPERM, "[run] dir = %s: a shared directory (mode %04o): give the service a "
			                  "directory of its own, e.g. %s/zkpipe", sup->cfg.run_dir,
			                  (unsigned)(st.st_mode & 07777), sup->cfg.run_dir);
	}
	const char *sub[] = { "", "/in", "/results", "/cancel", "/log", "/tokens", "/migrate", "/health", "/procs" };
	for (unsigned i = 0; i < sizeof sub / sizeof *sub; i++) {
		char p[PATH_MAX];
		unsigned mode = i == 0 && sup->cfg.public_access ? 0711 : 0700;
		snprintf(p, sizeof p, "%s%s", sup->cfg.run_dir, sub[i]);
		int r = zp_file_mkdirs(p, mode);
		if (r)
			return r;
		chmod(p, mode);
	}
	char lock[PATH_MAX];
	zp_pipe_path(lock, sizeof lock, &sup->cfg, "supervisor.lock");
	int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB))
		return zp_err_set(-EBUSY, "another supervisor runs on %s (%s)", sup->cfg.run_dir, lock);
	char pid[32];
	int n = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
	if (ftruncate(fd, 0) == 0 && write(fd, pid, (size_t)n) < 0)
		zp_log(WHO, "write %s: %s", lock, strerror(errno));
	return 0; /* fd stays open: the lock lives as long as we do */
}

static bool loopback(const char *hostport)
{
	return !strncmp(hostport, "127.", 4) || !strncmp(hostport, "localhost:", 10) || !strncmp(hostport, "[::1]:", 6);
}

static int api_open(struct sup *sup)
{
	int r;
	if (sup->cfg.listen[0])
		snprintf(sup->api_url, sizeof sup->api_url, "%s", sup->cfg.listen);
	else if ((r = zp_api_default_url(sup->api_url, sizeof sup->api_url, sup->cfg.run_dir)))
		return r;
	sup->api = zp_api_rep(sup->api_url);
	if (sup->api < 0)
		return sup->api;
	if (!strncmp(sup->api_url, "ipc://", 6))
		chmod(sup->api_url + 6, sup->cfg.public_access ? 0666 : 0600);
	else if (!loopback(sup->api_url + (strncmp(sup->api_url, "tcp://", 6) ? 0 : 6)))
		zp_log(WHO, "WARNING: the client API listens on %s with no authentication: anyone who reaches it "
		       "can submit into allow_output and read allow_input", sup->api_url);
	sup->api_fd = zp_hint_fd(sup->api);
	return 0;
}

/* ---------------------------------------------------------------- stuck daemons */
/* A daemon whose heartbeat (its progress, pipeline/daemon.h) is older than stuck_timeout_s is
 * stuck — stopped, blocked in a read, or waiting on a GPU call that never returns: SIGKILL it.
 * Its pidfd then reports the death and child_died reclaims it like any other. */
static void watchdog(struct sup *sup)
{
	if (!sup->cfg.stuck_timeout_s)
		return;
	uint64_t now = zp_now_ns(), limit = (uint64_t)sup->cfg.stuck_timeout_s * 1000000000ull;
	for (unsigned k = 0; k < sup->nch; k++) {
		struct child *c = &sup->ch[k];
		zp_proc_h h;
		if (!c->pid || c->stuck_ms || child_proc(sup, c, &h))
			continue;
		uint64_t hb = zp_arena_load64(&zp_arena_proc_rec(sup->g[c->group].a, h.idx)->heartbeat_ns);
		if (hb >= now || now - hb <= limit)
			continue;
		c->stuck_ms = (now - hb) / 1000000;
		zp_log(WHO, "%s.%u@%s pid %d stuck: no progress for %.1f s (stuck_timeout_s = %u): SIGKILL",
		       role_dir(c->role), c->index, sup->cfg.groups[c->group].name, c->pid, c->stuck_ms / 1000.0,
		       sup->cfg.stuck_timeout_s);
		if (kill(c->pid, SIGKILL))
			c->stuck_ms = 0;
	}
}

/* ---------------------------------------------------------------- file descriptors */
/* Raise the soft RLIMIT_NOFILE to the hard one (allowed to anyone), then leave the HTTP
 * endpoint only what the service itself cannot need: a pidfd and a few socket fds per child,
 * the API's and the hints' sockets, the files a job scan opens. Idle HTTP clients then can
 * never take the descriptors the client API or a restart needs. */
static void fd_budget(struct sup *sup)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	rlim_t soft = rl.rlim_cur;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
			zp_log(WHO, "RLIMIT_NOFILE raised %llu -> %llu", (unsigned long long)soft,
			       (unsigned long long)rl.rlim_cur);
		else
			rl.rlim_cur = soft;
	}
	uint64_t reserve = 128 + 8ull * sup->nch, have = rl.rlim_cur == RLIM_INFINITY ? 1u << 20 : rl.rlim_cur;
	sup->http_fd_budget = have > reserve ? (unsigned)(have - reserve < 1u << 20 ? have - reserve : 1u << 20) : 0;
}

/* ---------------------------------------------------------------- loop */
static void plan_children(struct sup *sup)
{
	for (unsigned g = 0; g < sup->cfg.n_groups; g++) {
		const struct zp_pipe_group *gr = &sup->cfg.groups[g];
		for (unsigned k = 0; k < gr->synth_workers + gr->gpus && sup->nch < SUP_MAX_CHILDREN; k++) {
			struct child *c = &sup->ch[sup->nch++];
			*c = (struct child){ .group = g, .pidfd = -1,
					     .role = k < gr->gpus ? ZP_ROLE_GPUD : ZP_ROLE_SYNTHD,
					     .index = k < gr->gpus ? k : k - gr->gpus };
		}
	}
	if (sup->cfg.cluster.database[0] && sup->nch < SUP_MAX_CHILDREN)
		sup->ch[sup->nch++] = (struct child){ .group = 0, .pidfd = -1, .role = ZP_ROLE_CLIENT };
}

static char *api_reply(void *sup, const char *req, size_t len) { return sup_api_handle(sup, req, len); }

static void api_serve(struct sup *sup)
{
	while (zp_api_serve_one(sup->api, api_reply, sup) > 0)
		;
}

/* While the children stop, every request is answered at once, "stopping: retry later", rather than
 * left to its client's timeout: a clusterd between two requests of one tick would otherwise wait out
 * 5 s for each and meet the SIGKILL below before it could give its jobs back and mark its node
 * STOPPED (its calls treat "retry later" as transient, as they do an unreachable supervisor). */
static char *stop_reply(void *sup, const char *req, size_t len)
{
	(void)sup, (void)req, (void)len;
	return strdup("{\"ok\":false,\"error\":\"the supervisor is stopping: retry later\",\"code\":\"stopping\"}");
}

/* The supervisor is a child subreaper: what a dead synthd's witness generator left (a child that
 * called setsid or double-forked out of its group, pipeline/witgen.c) is reparented here, not to
 * init. Any child of ours that is not a daemon we run is such a stray: SIGKILLed, and reaped at
 * the next call (it shows as a zombie child until then). /proc/self/task/<tid>/children of every
 * thread: a few small reads, every 100 ms. */
static void kill_stray(pid_t pid, void *arg)
{
	const struct sup *sup = arg;
	for (unsigned k = 0; k < sup->nch; k++)
		if (sup->ch[k].pid == pid)
			return; /* a daemon we run */
	int st;
	if (waitpid(pid, &st, WNOHANG) == pid)
		return; /* a zombie, now reaped */
	zp_log(WHO, "pid %ld: a stray child (left by a dead daemon's witness generator): SIGKILL", (long)pid);
	kill(pid, SIGKILL);
}

static void kill_strays(struct sup *sup)
{
	zp_each_child(kill_stray, sup);
}

static void shutdown_children(struct sup *sup)
{
	sup->stopping = true;
	for (unsigned k = 0; k < sup->nch; k++)
		if (sup->ch[k].pid)
			kill(sup->ch[k].pid, SIGTERM);
	uint64_t t0 = zp_mono_ms(), deadline = t0 + 1000ull * sup->cfg.stop_timeout_s, next_note = t0 + 1000, now;
	for (;;) {
		unsigned alive = 0;
		/* every second of the stop accounted for: who it waits for. Each note names its own second, and
		 * a loop that ran late (a loaded machine) writes every second it passed, not the elapsed time
		 * rounded (which skipped "1 s" when the first look came at 1.5 s) */
		now = zp_mono_ms();
		for (; now >= next_note; next_note += 1000) {
			char w[512] = "";
			for (unsigned k = 0; k < sup->nch; k++)
				if (sup->ch[k].pid)
					snprintf(w + strlen(w), sizeof w - strlen(w), "%s%s.%u@%s pid %d", w[0] ? ", " : "",
						 role_dir(sup->ch[k].role), sup->ch[k].index, sup->cfg.groups[sup->ch[k].group].name,
						 sup->ch[k].pid);
			zp_log(WHO, "stopping: %llu s; waiting for %s (SIGKILL at %u s)",
			       (unsigned long long)((next_note - t0) / 1000), w, sup->cfg.stop_timeout_s);
		}
		for (unsigned k = 0; k < sup->nch; k++) {
			struct child *c = &sup->ch[k];
			if (!c->pid)
				continue;
			struct pollfd p = { .fd = c->pidfd, .events = POLLIN };
			if (c->pidfd < 0 || poll(&p, 1, 0) > 0)
				child_died(sup, c);
			else
				alive++;
		}
		kill_strays(sup);
		while (zp_api_serve_one(sup->api, stop_reply, sup) > 0)
			;
		if (!alive)
			break;
		if (zp_mono_ms() > deadline) {
			for (unsigned k = 0; k < sup->nch; k++)
				if (sup->ch[k].pid)
					kill(sup->ch[k].pid, SIGKILL);
			deadline = UINT64_MAX;
		}
		usleep(20000);
	}
	for (unsigned k = 0; k < sup->nch; k++)
		memcg_remove(&sup->ch[k]);
	/* the time of the look that found every child gone (the notes above cover every whole second up to it),
	 * cut to a tenth: not rounded up past a second that has no note, nor counting the cgroups' removal */
	zp_log(WHO, "every child stopped in %.1f s", (double)((now - t0) / 100) / 10);
}

static void loop(struct sup *sup, int sfd)
{
	uint64_t last_scan = 0, scans = 0;
	while (!sup->stopping) {
		struct pollfd p[2 + ZP_PIPE_MAX_GROUPS + SUP_MAX_CHILDREN];
		unsigned n = 0, who[SUP_MAX_CHILDREN];
		p[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = sup->api_fd, .events = POLLIN };
		for (unsigned g = 0; g < sup->cfg.n_groups; g++)
			p[n++] = (struct pollfd){ .fd = sup->g[g].pull_fd, .events = POLLIN };
		unsigned base = n;
		for (unsigned k = 0; k < sup->nch; k++)
			if (sup->ch[k].pid && sup->ch[k].pidfd >= 0) {
				who[n - base] = k;
				p[n++] = (struct pollfd){ .fd = sup->ch[k].pidfd, .events = POLLIN };
			}
		poll(p, n, 100);
		if (p[0].revents) {
			struct signalfd_siginfo si;
			if (read(sfd, &si, sizeof si) != sizeof si)
				si.ssi_signo = 0;
			/* [cluster] stop = drain: clusterd finishes the jobs it holds first (it needs this loop:
			 * the API and the daemons), then exits; a second signal stops at once */
			struct child *cd = NULL;
			for (unsigned k = 0; k < sup->nch; k++)
				if (sup->ch[k].role == ZP_ROLE_CLIENT && sup->ch[k].pid)
					cd = &sup->ch[k];
			if (sup->cfg.cluster.stop_drain && cd && !sup->draining_ms) {
				zp_log(WHO, "signal %u: the cluster node drains first ([cluster] stop = drain, up to %u s); "
				       "a second signal stops at once", si.ssi_signo, sup->cfg.cluster.drain_timeout_s);
				kill(cd->pid, SIGTERM);
				sup->draining_ms = zp_mono_ms();
				continue;
			}
			zp_log(WHO, "signal %u: shutting down", si.ssi_signo);
			sup->stopping = true;
			break;
		}
		if (sup->draining_ms) {
			bool cd_alive = false;
			for (unsigned k = 0; k < sup->nch; k++)
				cd_alive |= sup->ch[k].role == ZP_ROLE_CLIENT && sup->ch[k].pid;
			if (!cd_alive || zp_mono_ms() - sup->draining_ms > (sup->cfg.cluster.drain_timeout_s + 30) * 1000ull) {
				zp_log(WHO, "cluster node %s after %.1f s: shutting down", cd_alive ? "still draining" : "drained",
				       (zp_mono_ms() - sup->draining_ms) / 1e3);
				sup->stopping = true;
				break;
			}
		}
		if (p[1].revents)
			api_serve(sup);
		for (unsigned g = 0; g < sup->cfg.n_groups; g++)
			if (p[2 + g].revents)
				zp_hint_drain(sup->g[g].pull);
		for (unsigned i = base; i < n; i++)
			if (p[i].revents)
				child_died(sup, &sup->ch[who[i - base]]);
		uint64_t now = zp_mono_ms();
		for (unsigned k = 0; k < sup->nch; k++) {
			struct child *c = &sup->ch[k];
			if (c->pid) {
				uint64_t rss = zp_proc_peak_rss_kib(c->pid);
				if (rss)
					c->peak_rss_kib = rss;
				if (now - last_scan >= 100)
					sup_dkeep_tick(sup, c);
			} else if (!c->given_up && now >= c->next_start_ms && !(sup->draining_ms && c->role == ZP_ROLE_CLIENT)) {
				if (spawn(sup, c))
					c->next_start_ms = now + sup->cfg.restart_max_ms;
			}
		}
		if (now - last_scan >= 100) {
			watchdog(sup);
			kill_strays(sup);
			sup_scan_jobs(sup);
			sup_observe_tick(sup);
			if (++scans % 5 == 0)
				sup_keys_refresh(sup);
			for (unsigned g = 0; g < sup->cfg.n_groups; g++)
				zp_arena_proc_heartbeat(sup->g[g].a, sup->g[g].me);
			last_scan = now;
		}
	}
}

int main(int argc, char **argv)
{
	static struct sup state; /* large (the children table): not on the stack */
	struct sup *sup = &state;
	static const struct option opts[] = { { "config", 1, 0, 'c' }, { "help", 0, 0, 'h' },
		{ "version", 0, 0, 'V' }, { 0 } };
	static const char usage[] = "usage: zkpipe-supervisor --config FILE\n"
		"       zkpipe-supervisor --help | --version\n"
		"  Runs the proving service the config describes (docs/pipeline.md): creates or re-attaches\n"
		"  each group's arena, starts and watches synthd and gpud, serves the client API and HTTP.\n\n";
	const char *config = NULL;
	int o, r;
	while ((o = getopt_long(argc, argv, "c:hV", opts, NULL)) != -1) {
		if (o == 'c')
			config = optarg;
		else if (o == 'h')
			return printf("%s%s", usage, zp_exit_text), ZP_EX_OK;
		else if (o == 'V')
			return printf("zkpipe-supervisor %s\n", ZP_VERSION), ZP_EX_OK;
		else
			return fputs(usage, stderr), ZP_EX_USAGE;
	}
	if (!config || optind != argc)
		return fputs(usage, stderr), ZP_EX_USAGE;
	umask(sup->cfg.public_access ? 022 : 077);
	if ((r = zp_pipe_config_load(&sup->cfg, config))) {
		zp_log(WHO, "%s", zp_err_msg());
		return ZP_EX_CONFIG;
	}
	/* every key checked (and slot_size = auto resolved) before any arena is made for it */
	if (sup_keys_validate(sup))
		return ZP_EX_CONFIG;
	if (sup->cfg.public_access)
		umask(022);
	sup->started_ns = zp_now_ns();
	char self[PATH_MAX];
	ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
	self[l > 0 ? l : 0] = 0;
	snprintf(sup->self_dir, sizeof sup->self_dir, "%s", dirname(self));
	sup->keep_arena = sup->cfg.keep_arena;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	int sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if ((r = run_dir(sup))) {
		zp_log(WHO, "%s", zp_err_msg());
		return r == -EBUSY ? ZP_EX_BUSY : ZP_EX_START;
	}
	memcg_init(sup);
	memcg_prefix_init(sup);
	prctl(PR_SET_CHILD_SUBREAPER, 1); /* a dead daemon's leftovers come to us (kill_strays) */
	for (unsigned i = 0; i < sup->cfg.n_keys; i++) {
		const struct zp_pipe_key *k = &sup->cfg.keys[i];
		if ((k->wasm[0] || k->witness_bin[0]) && sup->cfg.stuck_timeout_s &&
		    k->witness_timeout_s >= sup->cfg.stuck_timeout_s)
			zp_log(WHO, "key %s: witness_timeout_s = %u is not below stuck_timeout_s = %u: fine, a witness "
			       "generator is a declared long stage (the watchdog allows it %u s)", k->name,
			       k->witness_timeout_s, sup->cfg.stuck_timeout_s, k->witness_timeout_s + 30);
	}
	plan_children(sup);
	fd_budget(sup);
	struct srs_keep srs = { .sup = sup }; /* the registrations, checked once for every group */
	zp_pipe_each(&sup->cfg, "srs", srs_keep_one, &srs);
	zp_progress_begin(WHO, 2, NULL); /* populating a large arena takes a while: say so in our log */
	for (unsigned g = 0; g < sup->cfg.n_groups; g++) {
		if ((r = open_group(sup, g, &srs))) {
			zp_log(WHO, "%s", zp_err_text(r));
			/* a config shape the existing arena cannot take (records.c says the way out): a config error */
			return r == ZP_EMISMATCH ? ZP_EX_CONFIG : ZP_EX_START;
		}
		adopt(sup, g);
	}
	zp_progress_end(NULL);
	sup_keys_fit(sup);
	sup_records_start(sup);
	if ((r = api_open(sup))) {
		zp_log(WHO, "API %s: %s", sup->api_url, zp_err_msg());
		return ZP_EX_START;
	}
	if (sup->cfg.http[0] && (r = sup_http_start(sup)))
		zp_log(WHO, "http %s: %s (continuing without it)", sup->cfg.http, zp_err_msg());
	else if (sup->cfg.http[0] && !loopback(sup->cfg.http))
		zp_log(WHO, "WARNING: http %s has no authentication: /status shows every job's paths", sup->cfg.http);
	char kl[1024] = "";
	for (unsigned i = 0; i < sup->cfg.n_keys; i++)
		snprintf(kl + strlen(kl), sizeof kl - strlen(kl), "%s%s (%s)", i ? ", " : "", sup->cfg.keys[i].name,
			 sup->keys[i].state == KH_FAILED ? "FAILED" : "validated, loading in gpud");
	for (unsigned g = 0; g < sup->cfg.n_groups; g++)
		if (sup->cfg.groups[g].gpu_memory)
			zp_log(WHO, "group %s: gpu_memory = %.2f GiB: each gpud plans its device memory as if its card had that much "
			       "(ZP_CUDA_MEM_CAP_MB=%llu)", sup->cfg.groups[g].name, sup->cfg.groups[g].gpu_memory / 1073741824.0,
			       (unsigned long long)(sup->cfg.groups[g].gpu_memory >> 20));
	if (zp_knobs()->cuda_mem_cap_mb.raw)
		zp_log(WHO, "ZP_CUDA_MEM_CAP_MB=%s in this environment is not passed to gpuds: [group] gpu_memory sets their cap",
		       zp_knobs()->cuda_mem_cap_mb.raw);
	zp_log(WHO, "serving %s%s%s; %u group(s), %u key(s): %s", sup->api_url, sup->cfg.http[0] ? ", http " : "",
	       sup->cfg.http, sup->cfg.n_groups, sup->cfg.n_keys, kl);
	sup_scan_jobs(sup);
	loop(sup, sfd);
	sup_http_stop(sup);
	shutdown_children(sup);
	sup_scan_jobs(sup);
	for (unsigned g = 0; g < sup->cfg.n_groups; g++) {
		if (!sup->keep_arena)
			sup_drop_jobs(sup, g);
		zp_arena_proc_unregister(sup->g[g].a, sup->g[g].me);
		zp_hint_close(sup->g[g].pub);
		zp_hint_close(sup->g[g].pull);
		zp_arena_close(sup->g[g].a);
		if (!sup->keep_arena) {
			zp_arena_destroy(sup->cfg.groups[g].arena, NULL);
			prune_key_regions(sup, g, false, NULL);
		}
	}
	zp_hint_close(sup->api);
	kill_strays(sup);
	zp_log(WHO, "stopped");
	return 0;
}
