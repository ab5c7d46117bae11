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
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "keyregion.h"
#include "progress.h"
#include "sup.h"
#include "zp_err.h"
#include "zp_exit.h"
#include <jansson.h>

/* Paths here are built from PATH_MAX buffers; access/open report any that got cut. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

struct sup S;
static const char *WHO = "supervisor";

uint64_t sup_client_id(unsigned group, uint64_t arena_id) { return arena_id << 8 | group; }

static int pidfd_open_(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

/* ---------------------------------------------------------------- binaries */
static int find_bin(const char *name, const char *subdir, char *out)
{
	char c[3][PATH_MAX];
	snprintf(c[0], PATH_MAX, "%s/%s", S.cfg.bin_dir, name);
	snprintf(c[1], PATH_MAX, "%s/%s", S.self_dir, name);
	snprintf(c[2], PATH_MAX, "%s/../%s/%s", S.self_dir, subdir, name);
	for (int i = S.cfg.bin_dir[0] ? 0 : 1; i < 3; i++)
		if (access(c[i], X_OK) == 0)
			return snprintf(out, PATH_MAX, "%s", c[i]), 0;
	return zp_err_set(-ENOENT, "cannot find %s (set [run] bin_dir)", name);
}

/* ---------------------------------------------------------------- memory cgroup (v1) */
static void memcg_init(void)
{
	S.memcg_root[0] = 0;
	if (!S.cfg.synthd_mem_limit || S.cfg.mem_mode == ZP_MEMLIMIT_OFF || S.cfg.mem_mode == ZP_MEMLIMIT_RLIMIT)
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
			snprintf(S.memcg_root, sizeof S.memcg_root, "%s", dir);
	}
	if (f)
		fclose(f);
	if (!S.memcg_root[0])
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
static void memcg_prefix_init(void)
{
	char real[PATH_MAX];
	const char *p = realpath(S.cfg.run_dir, real) ? real : S.cfg.run_dir;
	uint32_t h = 2166136261u;
	for (; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	snprintf(S.memcg_prefix, sizeof S.memcg_prefix, "zkpipe-%08x", h);
}

static void memcg_dir(const struct child *c, char *dir, size_t n)
{
	snprintf(dir, n, "%s/%s.%s.synthd%u", S.memcg_root, S.memcg_prefix, S.cfg.groups[c->group].name, c->index);
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
static void memcg_for(struct child *c)
{
	c->memcg[0] = 0;
	if (!S.memcg_root[0] || c->role != ZP_ROLE_SYNTHD)
		return;
	char dir[PATH_MAX], f[PATH_MAX + 32], v[32];
	memcg_dir(c, dir, sizeof dir);
	rmdir(dir);
	if (mkdir(dir, 0755) && errno != EEXIST)
		goto fail;
	snprintf(v, sizeof v, "%llu", (unsigned long long)S.cfg.synthd_mem_limit);
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
static void memcg_adopt(struct child *c)
{
	char dir[PATH_MAX];
	struct stat st;
	if (!S.memcg_root[0] || c->role != ZP_ROLE_SYNTHD)
		return;
	memcg_dir(c, dir, sizeof dir);
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

static int spawn(struct child *c)
{
	const struct zp_pipe_group *g = &S.cfg.groups[c->group];
	char bin[PATH_MAX], idx[16], logp[PATH_MAX], thr[32], cg[PATH_MAX + 32];
	int r = find_bin(role_bin(c->role), role_dir(c->role), bin);
	if (r) {
		zp_log(WHO, "%s", zp_err_msg());
		return r;
	}
	snprintf(idx, sizeof idx, "%u", c->index);
	zp_pipe_path(logp, sizeof logp, &S.cfg, "log/%s.%s%u", g->name, role_dir(c->role), c->index);
	int logfd = open(logp, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	uint32_t t = c->role == ZP_ROLE_SYNTHD ? g->synth_threads : g->gpud_threads;
	snprintf(thr, sizeof thr, "ZP_THREADS=%u", t);
	memcg_for(c);
	snprintf(cg, sizeof cg, "ZKPIPE_MEMCG=%s", c->memcg);
	int procs = -1;
	if (c->memcg[0]) {
		char f[PATH_MAX + 32];
		snprintf(f, sizeof f, "%s/cgroup.procs", c->memcg);
		procs = open(f, O_WRONLY | O_CLOEXEC);
	}
	char *argv[] = { bin, "--config", S.cfg.path, "--group", (char *)g->name, "--index", idx, NULL };
	/* the environment is built before fork: the child only makes system calls */
	extern char **environ;
	size_t n = 0;
	while (environ[n])
		n++;
	char **envp = calloc(n + 6, sizeof *envp);
	size_t k = 0;
	bool gpud = c->role == ZP_ROLE_GPUD && c->index < g->gpus;
	static const char *const ours[] = { "ZP_THREADS=", "ZKPIPE_MEMCG=", "CUDA_VISIBLE_DEVICES=",
					     "CUDA_DEVICE_ORDER=", "ZP_CUDA_DEVICE=" };
	for (size_t i = 0; i < n; i++) {
		bool drop = false;
		for (unsigned j = 0; j < (gpud ? 5u : 2u); j++)
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
		syscall(SYS_close_range, 3, ~0u, 0);
		execve(bin, argv, envp);
		_exit(127);
	}
	free(envp);
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
static int child_proc(const struct child *c, zp_proc_h *h)
{
	struct zp_arena *a = S.g[c->group].a;
	char name[24];
	snprintf(name, sizeof name, "%s.%u", role_dir(c->role), c->index);
	for (uint32_t i = 0; i < zp_arena_hdr(a)->proc_count; i++) {
		const struct zp_arena_proc *p = zp_arena_proc_rec(a, i);
		uint64_t w = atomic_load((_Atomic uint64_t *)&p->word);
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
 * not say "ready", with the error it wrote there; another daemon dying within 10 s. */
static bool died_at_start(const struct child *c, uint64_t lived, const char *how, char *why, size_t n)
{
	snprintf(why, n, "%s", how);
	if (c->role != ZP_ROLE_GPUD)
		return lived < 10000;
	json_t *h = zp_health_read(&S.cfg, c->group, c->index, c->pid);
	const char *st = json_string_value(json_object_get(h, "stage"));
	const char *err = json_string_value(json_object_get(h, "error"));
	bool at_start = !st || strcmp(st, "ready");
	if (at_start && err && *err)
		snprintf(why, n, "%s: %s", how, err);
	json_decref(h);
	return at_start;
}

/* A child ended: say why, reclaim, schedule a restart with backoff — unless it failed at start
 * the same way SUP_GIVE_UP times in a row: then it stays down and says why (status, /status,
 * the log; its keys fail when no other gpud serves them). */
static void child_died(struct child *c)
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
			 (unsigned long long)(S.cfg.synthd_mem_limit >> 20));
	} else if (c->stuck_ms) {
		snprintf(why, sizeof why, "%s.%u stuck (no progress for %.1f s), killed", role_dir(c->role), c->index,
			 c->stuck_ms / 1000.0);
	}
	memcg_remove(c);
	close(c->pidfd);
	c->pidfd = -1;
	/* its own entry first, so that a partition it leaves FAILED says why; then any other dead */
	zp_proc_h h;
	int n = child_proc(c, &h) == 0 ? zp_arena_reclaim_proc_why(S.g[c->group].a, h, why) > 0 : 0;
	n += zp_arena_reclaim_dead(S.g[c->group].a);
	uint64_t now = zp_mono_ms(), lived = now - c->started_ms;
	char swhy[sizeof c->last_reason];
	/* only its own failures count: a non-zero exit or a crash, not a kill from outside (SIGKILL,
	 * SIGTERM: tests, operators, the OOM killer) nor a clean exit */
	bool failed = reaped && ((WIFEXITED(status) && WEXITSTATUS(status)) ||
				  (WIFSIGNALED(status) && (WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGABRT ||
							   WTERMSIG(status) == SIGBUS || WTERMSIG(status) == SIGILL ||
							   WTERMSIG(status) == SIGFPE)));
	bool at_start = !S.stopping && failed && died_at_start(c, lived, how, swhy, sizeof swhy);
	c->same_fails = !at_start ? 0 : !strcmp(swhy, c->last_reason) ? c->same_fails + 1 : 1;
	snprintf(c->last_reason, sizeof c->last_reason, "%s", at_start ? swhy : "");
	if (c->same_fails >= SUP_GIVE_UP) {
		c->given_up = true;
		snprintf(c->give_up_reason, sizeof c->give_up_reason, "failed at start %u times in a row: %s", c->same_fails,
			 swhy);
	}
	c->backoff_ms = lived > 10000 || !c->backoff_ms ? S.cfg.restart_min_ms
			: (c->backoff_ms * 2 > S.cfg.restart_max_ms ? S.cfg.restart_max_ms : c->backoff_ms * 2);
	c->next_start_ms = now + c->backoff_ms;
	zp_log(WHO, "%s.%u@%s pid %d %s after %.1f s; reclaimed %d process(es)%s%s", role_dir(c->role), c->index,
	       S.cfg.groups[c->group].name, c->pid, at_start ? swhy : how, lived / 1000.0, n,
	       S.stopping ? "" : c->given_up ? "; NOT restarting: " : "; restarting after backoff",
	       c->given_up && !S.stopping ? c->give_up_reason : "");
	c->pid = 0;
	c->stuck_ms = 0;
	if (!S.stopping && !c->given_up)
		c->restarts++;
	zp_hint_send(S.g[c->group].pub, "job"); /* wake synthds: partitions may be PENDING again */
	if (c->given_up)
		sup_keys_refresh();
}

/* Adopt the live daemons a previous supervisor left in this group's process table. */
static void adopt(unsigned g)
{
	struct zp_arena *a = S.g[g].a;
	for (uint32_t i = 0; i < zp_arena_hdr(a)->proc_count; i++) {
		const struct zp_arena_proc *p = zp_arena_proc_rec(a, i);
		uint64_t w = atomic_load((_Atomic uint64_t *)&p->word);
		if (zp_word_state(w) != ZP_PROC_ALIVE || zp_arena_proc_alive(a, i) != 1 ||
		    (p->role != ZP_ROLE_SYNTHD && p->role != ZP_ROLE_GPUD))
			continue;
		const char *dot = strchr(p->name, '.');
		unsigned idx = dot ? (unsigned)strtoul(dot + 1, NULL, 10) : ~0u;
		for (unsigned k = 0; k < S.nch; k++) {
			struct child *c = &S.ch[k];
			if (c->group != g || c->role != p->role || c->index != idx || c->pid)
				continue;
			int fd = pidfd_open_(p->pid);
			if (fd < 0)
				break;
			c->pid = p->pid, c->pidfd = fd, c->ours = false, c->started_ms = zp_mono_ms();
			memcg_adopt(c);
			zp_log(WHO, "adopted %s pid %d", p->name, p->pid);
			break;
		}
	}
}

/* ---------------------------------------------------------------- arenas, sockets */
/* The key regions of group g (shm/keyregion.h) whose key is no longer configured go (all of them when
 * keep is false: key_regions = no, or a stop with keep_arena = no): each can hold tens of GiB. */
static void prune_key_regions(unsigned g, bool keep)
{
	const char *names[ZP_PIPE_MAX_KEYS];
	unsigned n = 0;
	for (unsigned i = 0; keep && i < S.cfg.n_keys; i++)
		names[n++] = S.cfg.keys[i].name;
	int gone = zp_keyregion_prune(S.cfg.groups[g].arena, NULL, names, n);
	if (gone > 0)
		zp_log(WHO, "group %s: %d key region(s) removed (%s)", S.cfg.groups[g].name, gone,
		       keep ? "their keys left the config" : "key_regions = no or keep_arena = no");
}

static int open_group(unsigned g)
{
	struct zp_arena_params p;
	zp_pipe_arena_params(&S.cfg, g, &p);
	struct group *G = &S.g[g];
	int r = sup_arena_open(g, &p); /* attach, create, or reshape keeping the accepted jobs */
	if (r)
		return r;
	prune_key_regions(g, S.cfg.key_regions);
	fchmod(zp_arena_fd(G->a), 0600); /* public or not: only the service's own processes map it */
	const struct zp_arena_hdr *h = zp_arena_hdr(G->a);
	zp_log(WHO, "group %s: %s arena %s (%s, %u slots x %llu MiB = %llu MiB of slot data)",
	       S.cfg.groups[g].name, G->created ? "created" : "re-attached", p.name, zp_backing_name(h->backing),
	       h->slot_count, (unsigned long long)(h->slot_size >> 20),
	       (unsigned long long)((h->slot_size * h->slot_count) >> 20));
	int n = zp_arena_reclaim_dead(G->a);
	if (n)
		zp_log(WHO, "group %s: reclaimed %d dead process(es)", S.cfg.groups[g].name, n);
	if ((r = zp_arena_proc_register(G->a, 0, ZP_ROLE_SUPERVISOR, "supervisor", &G->me)))
		return r;
	char url[ZP_PIPE_URL_MAX];
	if ((r = zp_pipe_url(url, sizeof url, &S.cfg, "%s.jobs", S.cfg.groups[g].name)) ||
	    (r = G->pub = zp_hint_pub(url)) < 0)
		return r;
	if ((r = zp_pipe_url(url, sizeof url, &S.cfg, "%s.sup", S.cfg.groups[g].name)) ||
	    (r = G->pull = zp_hint_pull(url)) < 0)
		return r;
	chmod(url + 6, 0600); /* hints are between our own processes */
	G->pull_fd = zp_hint_fd(G->pull);
	return 0;
}

/* Modes (docs/pipeline.md, Security model): with public = yes other users may traverse the run
 * directory to reach api.ipc (0666) and nothing else; manifests, tokens, results, cancel flags
 * and logs stay 0700 in both modes. */
static int run_dir(void)
{
	const char *sub[] = { "", "/in", "/results", "/cancel", "/log", "/tokens", "/migrate", "/health" };
	for (unsigned i = 0; i < sizeof sub / sizeof *sub; i++) {
		char p[PATH_MAX];
		unsigned mode = i == 0 && S.cfg.public_access ? 0711 : 0700;
		snprintf(p, sizeof p, "%s%s", S.cfg.run_dir, sub[i]);
		int r = zp_mkdirs(p, mode);
		if (r)
			return r;
		chmod(p, mode);
	}
	char lock[PATH_MAX];
	zp_pipe_path(lock, sizeof lock, &S.cfg, "supervisor.lock");
	int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB))
		return zp_err_set(-EBUSY, "another supervisor runs on %s (%s)", S.cfg.run_dir, lock);
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

static int api_open(void)
{
	int r;
	if (S.cfg.listen[0])
		snprintf(S.api_url, sizeof S.api_url, "%s", S.cfg.listen);
	else if ((r = zp_api_default_url(S.api_url, sizeof S.api_url, S.cfg.run_dir)))
		return r;
	S.api = zp_api_rep(S.api_url);
	if (S.api < 0)
		return S.api;
	if (!strncmp(S.api_url, "ipc://", 6))
		chmod(S.api_url + 6, S.cfg.public_access ? 0666 : 0600);
	else if (!loopback(S.api_url + (strncmp(S.api_url, "tcp://", 6) ? 0 : 6)))
		zp_log(WHO, "WARNING: the client API listens on %s with no authentication: anyone who reaches it "
		       "can submit into allow_output and read allow_input", S.api_url);
	S.api_fd = zp_hint_fd(S.api);
	return 0;
}

/* ---------------------------------------------------------------- stuck daemons */
/* A daemon whose heartbeat (its progress, pipeline/daemon.h) is older than stuck_timeout_s is
 * stuck — stopped, blocked in a read, or waiting on a GPU call that never returns: SIGKILL it.
 * Its pidfd then reports the death and child_died reclaims it like any other. */
static void watchdog(void)
{
	if (!S.cfg.stuck_timeout_s)
		return;
	uint64_t now = zp_now_ns(), limit = (uint64_t)S.cfg.stuck_timeout_s * 1000000000ull;
	for (unsigned k = 0; k < S.nch; k++) {
		struct child *c = &S.ch[k];
		zp_proc_h h;
		if (!c->pid || c->stuck_ms || child_proc(c, &h))
			continue;
		uint64_t hb = atomic_load(&((struct zp_arena_proc *)zp_arena_proc_rec(S.g[c->group].a, h.idx))->heartbeat_ns);
		if (hb >= now || now - hb <= limit)
			continue;
		c->stuck_ms = (now - hb) / 1000000;
		zp_log(WHO, "%s.%u@%s pid %d stuck: no progress for %.1f s (stuck_timeout_s = %u): SIGKILL",
		       role_dir(c->role), c->index, S.cfg.groups[c->group].name, c->pid, c->stuck_ms / 1000.0,
		       S.cfg.stuck_timeout_s);
		if (kill(c->pid, SIGKILL))
			c->stuck_ms = 0;
	}
}

/* ---------------------------------------------------------------- file descriptors */
/* Raise the soft RLIMIT_NOFILE to the hard one (allowed to anyone), then leave the HTTP
 * endpoint only what the service itself cannot need: a pidfd and a few socket fds per child,
 * the API's and the hints' sockets, the files a job scan opens. Idle HTTP clients then can
 * never take the descriptors the client API or a restart needs. */
static void fd_budget(void)
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
	uint64_t reserve = 128 + 8ull * S.nch, have = rl.rlim_cur == RLIM_INFINITY ? 1u << 20 : rl.rlim_cur;
	S.http_fd_budget = have > reserve ? (unsigned)(have - reserve < 1u << 20 ? have - reserve : 1u << 20) : 0;
}

/* ---------------------------------------------------------------- loop */
static void plan_children(void)
{
	for (unsigned g = 0; g < S.cfg.n_groups; g++) {
		const struct zp_pipe_group *gr = &S.cfg.groups[g];
		for (unsigned k = 0; k < gr->synth_workers + gr->gpus && S.nch < SUP_MAX_CHILDREN; k++) {
			struct child *c = &S.ch[S.nch++];
			*c = (struct child){ .group = g, .pidfd = -1,
					     .role = k < gr->gpus ? ZP_ROLE_GPUD : ZP_ROLE_SYNTHD,
					     .index = k < gr->gpus ? k : k - gr->gpus };
		}
	}
	if (S.cfg.cluster.database[0] && S.nch < SUP_MAX_CHILDREN)
		S.ch[S.nch++] = (struct child){ .group = 0, .pidfd = -1, .role = ZP_ROLE_CLIENT };
}

static void api_serve(void)
{
	while (zp_api_serve_one(S.api, sup_api_handle) > 0)
		;
}

static void shutdown_children(void)
{
	S.stopping = true;
	for (unsigned k = 0; k < S.nch; k++)
		if (S.ch[k].pid)
			kill(S.ch[k].pid, SIGTERM);
	uint64_t deadline = zp_mono_ms() + 10000;
	for (;;) {
		unsigned alive = 0;
		for (unsigned k = 0; k < S.nch; k++) {
			struct child *c = &S.ch[k];
			if (!c->pid)
				continue;
			struct pollfd p = { .fd = c->pidfd, .events = POLLIN };
			if (c->pidfd < 0 || poll(&p, 1, 0) > 0)
				child_died(c);
			else
				alive++;
		}
		if (!alive)
			break;
		if (zp_mono_ms() > deadline) {
			for (unsigned k = 0; k < S.nch; k++)
				if (S.ch[k].pid)
					kill(S.ch[k].pid, SIGKILL);
			deadline = UINT64_MAX;
		}
		usleep(20000);
	}
	for (unsigned k = 0; k < S.nch; k++)
		memcg_remove(&S.ch[k]);
}

static void loop(int sfd)
{
	uint64_t last_scan = 0, scans = 0;
	while (!S.stopping) {
		struct pollfd p[2 + ZP_PIPE_MAX_GROUPS + SUP_MAX_CHILDREN];
		unsigned n = 0, who[SUP_MAX_CHILDREN];
		p[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = S.api_fd, .events = POLLIN };
		for (unsigned g = 0; g < S.cfg.n_groups; g++)
			p[n++] = (struct pollfd){ .fd = S.g[g].pull_fd, .events = POLLIN };
		unsigned base = n;
		for (unsigned k = 0; k < S.nch; k++)
			if (S.ch[k].pid && S.ch[k].pidfd >= 0) {
				who[n - base] = k;
				p[n++] = (struct pollfd){ .fd = S.ch[k].pidfd, .events = POLLIN };
			}
		poll(p, n, 100);
		if (p[0].revents) {
			struct signalfd_siginfo si;
			if (read(sfd, &si, sizeof si) == sizeof si)
				zp_log(WHO, "signal %u: shutting down", si.ssi_signo);
			S.stopping = true;
			break;
		}
		if (p[1].revents)
			api_serve();
		for (unsigned g = 0; g < S.cfg.n_groups; g++)
			if (p[2 + g].revents)
				zp_hint_drain(S.g[g].pull);
		for (unsigned i = base; i < n; i++)
			if (p[i].revents)
				child_died(&S.ch[who[i - base]]);
		uint64_t now = zp_mono_ms();
		for (unsigned k = 0; k < S.nch; k++) {
			struct child *c = &S.ch[k];
			if (c->pid) {
				uint64_t rss = zp_proc_peak_rss_kib(c->pid);
				if (rss)
					c->peak_rss_kib = rss;
			} else if (!c->given_up && now >= c->next_start_ms) {
				if (spawn(c))
					c->next_start_ms = now + S.cfg.restart_max_ms;
			}
		}
		if (now - last_scan >= 100) {
			watchdog();
			sup_scan_jobs();
			sup_observe_tick();
			if (++scans % 5 == 0)
				sup_keys_refresh();
			for (unsigned g = 0; g < S.cfg.n_groups; g++)
				zp_arena_proc_heartbeat(S.g[g].a, S.g[g].me);
			last_scan = now;
		}
	}
}

int main(int argc, char **argv)
{
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
	umask(S.cfg.public_access ? 022 : 077);
	if ((r = zp_pipe_config_load(&S.cfg, config))) {
		zp_log(WHO, "%s", zp_err_msg());
		return ZP_EX_CONFIG;
	}
	/* every key checked (and slot_size = auto resolved) before any arena is made for it */
	if (sup_keys_validate())
		return ZP_EX_CONFIG;
	if (S.cfg.public_access)
		umask(022);
	S.started_ns = zp_now_ns();
	char self[PATH_MAX];
	ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
	self[l > 0 ? l : 0] = 0;
	snprintf(S.self_dir, sizeof S.self_dir, "%s", dirname(self));
	S.keep_arena = S.cfg.keep_arena;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	int sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if ((r = run_dir())) {
		zp_log(WHO, "%s", zp_err_msg());
		return r == -EBUSY ? ZP_EX_BUSY : ZP_EX_START;
	}
	memcg_init();
	memcg_prefix_init();
	plan_children();
	fd_budget();
	zp_progress_begin(WHO, 2, NULL); /* populating a large arena takes a while: say so in our log */
	for (unsigned g = 0; g < S.cfg.n_groups; g++) {
		if ((r = open_group(g))) {
			zp_log(WHO, "%s", zp_err_msg()[0] ? zp_err_msg() : zp_strerror(r));
			/* a config shape the existing arena cannot take (records.c says the way out): a config error */
			return r == ZP_EMISMATCH ? ZP_EX_CONFIG : ZP_EX_START;
		}
		adopt(g);
	}
	zp_progress_end(NULL);
	sup_keys_fit();
	sup_records_start();
	if ((r = api_open())) {
		zp_log(WHO, "API %s: %s", S.api_url, zp_err_msg());
		return ZP_EX_START;
	}
	if (S.cfg.http[0] && (r = sup_http_start()))
		zp_log(WHO, "http %s: %s (continuing without it)", S.cfg.http, zp_err_msg());
	else if (S.cfg.http[0] && !loopback(S.cfg.http))
		zp_log(WHO, "WARNING: http %s has no authentication: /status shows every job's paths", S.cfg.http);
	char kl[1024] = "";
	for (unsigned i = 0; i < S.cfg.n_keys; i++)
		snprintf(kl + strlen(kl), sizeof kl - strlen(kl), "%s%s (%s)", i ? ", " : "", S.cfg.keys[i].name,
			 S.keys[i].state == KH_FAILED ? "FAILED" : "validated, loading in gpud");
	zp_log(WHO, "serving %s%s%s; %u group(s), %u key(s): %s", S.api_url, S.cfg.http[0] ? ", http " : "",
	       S.cfg.http, S.cfg.n_groups, S.cfg.n_keys, kl);
	sup_scan_jobs();
	loop(sfd);
	sup_http_stop();
	shutdown_children();
	sup_scan_jobs();
	for (unsigned g = 0; g < S.cfg.n_groups; g++) {
		if (!S.keep_arena)
			sup_drop_jobs(g);
		zp_arena_proc_unregister(S.g[g].a, S.g[g].me);
		zp_hint_close(S.g[g].pub);
		zp_hint_close(S.g[g].pull);
		zp_arena_close(S.g[g].a);
		if (!S.keep_arena) {
			zp_arena_destroy(S.cfg.groups[g].arena, NULL);
			prune_key_regions(g, false);
		}
	}
	zp_hint_close(S.api);
	zp_log(WHO, "stopped");
	return 0;
}
