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
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "progress.h"
#include "sup.h"
#include "zp_err.h"

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

/* A child cgroup of our own with memory.limit_in_bytes; "" when it cannot be made. */
static void memcg_for(struct child *c)
{
	c->memcg[0] = 0;
	if (!S.memcg_root[0] || c->role != ZP_ROLE_SYNTHD)
		return;
	char dir[PATH_MAX], f[PATH_MAX + 32], v[32];
	snprintf(dir, sizeof dir, "%s/zkpipe.%s.synthd%u", S.memcg_root, S.cfg.groups[c->group].name, c->index);
	if (mkdir(dir, 0755) && errno != EEXIST)
		goto fail;
	snprintf(v, sizeof v, "%llu", (unsigned long long)S.cfg.synthd_mem_limit);
	snprintf(f, sizeof f, "%s/memory.limit_in_bytes", dir);
	if (write_file(f, v))
		goto fail;
	snprintf(f, sizeof f, "%s/memory.memsw.limit_in_bytes", dir);
	write_file(f, v); /* absent without swap accounting: fine */
	snprintf(c->memcg, sizeof c->memcg, "%s", dir);
	return;
fail:
	zp_log(WHO, "memory cgroup %s: %s; using RLIMIT_DATA", dir, strerror(errno));
}

static bool memcg_oom_killed(const struct child *c)
{
	char f[PATH_MAX + 32], line[128];
	if (!c->memcg[0])
		return false;
	snprintf(f, sizeof f, "%s/memory.oom_control", c->memcg);
	FILE *fp = fopen(f, "re");
	unsigned long long kills = 0;
	while (fp && fgets(line, sizeof line, fp))
		sscanf(line, "oom_kill %llu", &kills);
	if (fp)
		fclose(fp);
	return kills > c->oom_kills;
}

/* ---------------------------------------------------------------- children */
static const char *role_bin(enum zp_role r) { return r == ZP_ROLE_SYNTHD ? "zkpipe-synthd" : "zkpipe-gpud"; }
static const char *role_dir(enum zp_role r) { return r == ZP_ROLE_SYNTHD ? "synthd" : "gpud"; }

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

/* A child ended: say why, reclaim, schedule a restart with backoff. */
static void child_died(struct child *c)
{
	int status = 0;
	char how[96] = "exited";
	if (c->ours && waitpid(c->pid, &status, WNOHANG) == c->pid) {
		if (WIFSIGNALED(status))
			snprintf(how, sizeof how, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
		else
			snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(status));
	}
	if (memcg_oom_killed(c)) {
		c->oom_kills++;
		strcat(how, ", OOM-killed at its memory limit");
	}
	close(c->pidfd);
	c->pidfd = -1;
	int n = zp_arena_reclaim_dead(S.g[c->group].a);
	uint64_t now = zp_mono_ms(), lived = now - c->started_ms;
	c->backoff_ms = lived > 10000 || !c->backoff_ms ? S.cfg.restart_min_ms
			: (c->backoff_ms * 2 > S.cfg.restart_max_ms ? S.cfg.restart_max_ms : c->backoff_ms * 2);
	c->next_start_ms = now + c->backoff_ms;
	zp_log(WHO, "%s.%u@%s pid %d %s after %.1f s; reclaimed %d process(es)%s",
	       role_dir(c->role), c->index, S.cfg.groups[c->group].name, c->pid, how, lived / 1000.0, n,
	       S.stopping ? "" : "; restarting after backoff");
	c->pid = 0;
	if (!S.stopping)
		c->restarts++;
	zp_hint_send(S.g[c->group].pub, "job"); /* wake synthds: partitions may be PENDING again */
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
			zp_log(WHO, "adopted %s pid %d", p->name, p->pid);
			break;
		}
	}
}

/* ---------------------------------------------------------------- arenas, sockets */
static int open_group(unsigned g)
{
	struct zp_arena_params p;
	zp_pipe_arena_params(&S.cfg, g, &p);
	struct group *G = &S.g[g];
	int r = sup_arena_open(g, &p); /* attach, create, or reshape keeping the accepted jobs */
	if (r)
		return r;
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
	const char *sub[] = { "", "/in", "/results", "/cancel", "/log", "/tokens", "/migrate" };
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
		if (S.ch[k].memcg[0])
			rmdir(S.ch[k].memcg);
}

static void loop(int sfd)
{
	uint64_t last_scan = 0;
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
			} else if (now >= c->next_start_ms) {
				if (spawn(c))
					c->next_start_ms = now + S.cfg.restart_max_ms;
			}
		}
		if (now - last_scan >= 100) {
			sup_scan_jobs();
			sup_observe_tick();
			for (unsigned g = 0; g < S.cfg.n_groups; g++)
				zp_arena_proc_heartbeat(S.g[g].a, S.g[g].me);
			last_scan = now;
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = { { "config", 1, 0, 'c' }, { "help", 0, 0, 'h' }, { 0 } };
	const char *config = NULL;
	int o, r;
	while ((o = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		if (o == 'c')
			config = optarg;
		else {
			fprintf(stderr, "usage: zkpipe-supervisor --config FILE\n");
			return 2;
		}
	}
	if (!config) {
		fprintf(stderr, "usage: zkpipe-supervisor --config FILE\n");
		return 2;
	}
	umask(S.cfg.public_access ? 022 : 077);
	if ((r = zp_pipe_config_load(&S.cfg, config))) {
		zp_log(WHO, "%s", zp_err_msg());
		return 1;
	}
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
		return 1;
	}
	memcg_init();
	plan_children();
	zp_progress_begin(WHO, 2, NULL); /* populating a large arena takes a while: say so in our log */
	for (unsigned g = 0; g < S.cfg.n_groups; g++) {
		if ((r = open_group(g))) {
			zp_log(WHO, "%s", zp_err_msg()[0] ? zp_err_msg() : zp_strerror(r));
			return 1;
		}
		adopt(g);
	}
	zp_progress_end(NULL);
	sup_records_start();
	if ((r = api_open())) {
		zp_log(WHO, "API %s: %s", S.api_url, zp_err_msg());
		return 1;
	}
	if (S.cfg.http[0] && (r = sup_http_start()))
		zp_log(WHO, "http %s: %s (continuing without it)", S.cfg.http, zp_err_msg());
	else if (S.cfg.http[0] && !loopback(S.cfg.http))
		zp_log(WHO, "WARNING: http %s has no authentication: /status shows every job's paths", S.cfg.http);
	zp_log(WHO, "serving %s%s%s; %u group(s), %u key(s)", S.api_url, S.cfg.http[0] ? ", http " : "",
	       S.cfg.http, S.cfg.n_groups, S.cfg.n_keys);
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
		if (!S.keep_arena)
			zp_arena_destroy(S.cfg.groups[g].arena, NULL);
	}
	zp_hint_close(S.api);
	zp_log(WHO, "stopped");
	return 0;
}
