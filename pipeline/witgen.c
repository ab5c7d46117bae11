/*
 * witgen.c — run a circuit's own witness generator on an input.json: circom's wasm generator
 * (node generate_witness.js <circuit>.wasm input.json out.wtns) or its C++ one
 * (<circuit> input.json out.wtns). Used by synthd (a partition given as input.json) and by
 * `zkpipe prove --input`.
 *
 * The generator is untrusted code fed a client's file, so it runs
 *   - by fork + execve with an argv built here: no shell sees any user string;
 *   - in its own fresh directory (cwd, TMPDIR and HOME), removed afterwards, with stdin
 *     /dev/null and stdout+stderr to a log there (its last line goes into the error);
 *   - under RLIMIT_AS (memory), RLIMIT_CPU, RLIMIT_FSIZE (the witness size plus slack),
 *     RLIMIT_NOFILE 64, RLIMIT_CORE 0, in its own process group, killed (the whole group) at
 *     the wall-clock timeout;
 *   - tied to its caller's life: PR_SET_PDEATHSIG (SIGKILL) before exec, so it dies with the
 *     synthd that ran it; the caller is a child subreaper, so whatever the generator left
 *     (a child that called setsid or double-forked out of the group) becomes the caller's child
 *     once the generator is gone and is killed then (kill_descendants); whatever is left when
 *     the caller itself dies goes to the supervisor, also a subreaper, which kills it.
 * node's limit is RLIMIT_DATA, not RLIMIT_AS: V8 reserves ~10 GiB of address space per wasm memory
 * for guard pages (PROT_NONE, never data), which any sane RLIMIT_AS refuses (measured: the mul circuit
 * needs 12 GiB of AS). `--disable-wasm-trap-handler` would avoid the reservation but only node >= 20
 * knows it: Debian 12's node 18.20 exits 9 "bad option" (issue 37, a fresh Debian machine). RLIMIT_DATA
 * counts what node writes (its heap, buffers, the wasm memory's pages as they are used) on every node.
 */
#include "witgen.h"
#include "config.h"
#include "sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zp_err.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

/* rm -r of the generator's directory: one level of files plus what it made below (no
 * symlink is followed: unlinkat on the entry itself). */
static void rm_tree(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		DIR *d = fdopendir(fd);
		for (struct dirent *e; d && (e = readdir(d));)
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				if (unlinkat(fd, e->d_name, 0) && errno == EISDIR)
					rm_tree(fd, e->d_name);
		if (d)
			closedir(d);
		else
			close(fd);
	}
	unlinkat(dfd, name, AT_REMOVEDIR);
}

void zp_witgen_cleanup(const char *dir)
{
	if (dir && dir[0])
		rm_tree(AT_FDCWD, dir);
}

/* What the generator said before failing, from the tail of its log: node ends a crash with a
 * stack trace and "Node.js vX.Y.Z", so the last line says nothing. The last "...Error: message"
 * line is taken with the lines of its message up to the first "    at " frame (circom's
 * calculator puts "Error in template T line: N" there), joined by "; " and without a plain
 * "Error: " prefix; without one, the last line that is neither a frame nor node's version. */
static void last_line(const char *log, char *out, size_t n)
{
	char buf[4096];
	out[0] = 0;
	int fd = open(log, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	off_t end = lseek(fd, 0, SEEK_END);
	off_t at = end > (off_t)sizeof buf - 1 ? end - (off_t)sizeof buf + 1 : 0;
	ssize_t got = pread(fd, buf, sizeof buf - 1, at);
	close(fd);
	if (got <= 0)
		return;
	buf[got] = 0;
	char *lines[256];
	int nl = 0;
	for (char *s = buf, *e; s && *s && nl < 256; s = e ? e + 1 : NULL) {
		if ((e = strchr(s, '\n')))
			*e = 0;
		size_t l = strlen(s);
		while (l && (s[l - 1] == ' ' || s[l - 1] == '\r' || s[l - 1] == '\t'))
			s[--l] = 0;
		if (l)
			lines[nl++] = s;
	}
	if (at > 0 && nl > 1) /* the first line may be cut */
		memmove(lines, lines + 1, (size_t)--nl * sizeof *lines);
	int err = -1, last = -1;
	for (int i = 0; i < nl; i++) {
		const char *c = strstr(lines[i], "Error: ");
		bool frame = !strncmp(lines[i] + strspn(lines[i], " \t"), "at ", 3);
		/* "Error: m", "TypeError: m": letters only before it */
		if (c && !frame && strspn(lines[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") ==
					   (size_t)(c - lines[i]) + 5)
			err = i;
		if (!frame && strncmp(lines[i], "Node.js v", 9))
			last = i;
	}
	if (err < 0) {
		if (last >= 0)
			snprintf(out, n, "%s", lines[last]);
		return;
	}
	const char *m = lines[err];
	while (!strncmp(m, "Error: ", 7)) /* circom's calculator wraps: "Error: Error: Assert Failed." */
		m += 7;
	snprintf(out, n, "%s", m);
	for (int i = err + 1; i < nl && strncmp(lines[i] + strspn(lines[i], " \t"), "at ", 3) &&
			      strncmp(lines[i], "Node.js v", 9); i++)
		snprintf(out + strlen(out), n - strlen(out), "; %s", lines[i]);
}

/* p made absolute against the current directory (the generator runs in its own one): no
 * symlink is resolved, generate_witness.js is looked up beside the path as given. */
static int absolute(const char *what, const char *p, char *out, size_t n)
{
	char cwd[PATH_MAX];
	if (!p[0] || p[0] == '/')
		return snprintf(out, n, "%s", p) >= (int)n ? zp_err_set(-ENAMETOOLONG, "%s %s: name too long", what, p) : 0;
	if (!getcwd(cwd, sizeof cwd))
		return zp_err_set(-errno, "%s %s: the current directory: %s", what, p, strerror(errno));
	if (snprintf(out, n, "%s/%s", cwd, p) >= (int)n)
		return zp_err_set(-ENAMETOOLONG, "%s %s: name too long", what, p);
	return 0;
}

static void child(const struct zp_witgen *g, char *const argv[], const char *dir, const char *log, pid_t parent,
		  int is_node)
{
	struct rlimit as = { g->mem_bytes, g->mem_bytes }, cpu = { g->cpu_s, g->cpu_s + 1 },
		      fs = { g->max_out_bytes, g->max_out_bytes }, nf = { 64, 64 }, core = { 0, 0 };
	setpgid(0, 0);
	/* dies with its synthd; a parent gone before the prctl took effect is caught by getppid */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(126);
	int in = open("/dev/null", O_RDONLY), out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 || chdir(dir))
		_exit(126);
	syscall(SYS_close_range, 3, ~0u, 0);
	if ((g->mem_bytes && setrlimit(is_node ? RLIMIT_DATA : RLIMIT_AS, &as)) || (g->cpu_s && setrlimit(RLIMIT_CPU, &cpu)) ||
	    (g->max_out_bytes && setrlimit(RLIMIT_FSIZE, &fs)) || setrlimit(RLIMIT_NOFILE, &nf) ||
	    setrlimit(RLIMIT_CORE, &core))
		_exit(126);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	char home[PATH_MAX + 8], tmp[PATH_MAX + 8];
	snprintf(home, sizeof home, "HOME=%s", dir);
	snprintf(tmp, sizeof tmp, "TMPDIR=%s", dir);
	char *envp[] = { "PATH=/usr/local/bin:/usr/bin:/bin", home, tmp, "LC_ALL=C", NULL };
	execve(argv[0], argv, envp);
	_exit(127);
}

/* Every child of ours, SIGKILLed and reaped until none is left: the generator's descendants that
 * left its process group (setsid, double fork) are reparented to us (a subreaper) as their
 * parents die, one level per round. The caller runs no other children. Bounded: 5 s. */
static void sigkill_pid(pid_t pid, void *arg)
{
	(void)arg;
	kill(pid, SIGKILL);
}

static void kill_descendants(void)
{
	uint64_t end = zp_mono_ms() + 5000;
	for (;;) {
		unsigned n = zp_each_child(sigkill_pid, NULL);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (!n || zp_mono_ms() > end) /* none left (or no children file: CONFIG_PROC_CHILDREN) */
			return;
		usleep(n ? 1000 : 10000);
	}
}

/* Wait for pid up to timeout_s; kill its group at the deadline, or when g->abort says so.
 * Returns the wait status. */
static int wait_bounded(const struct zp_witgen *g, pid_t pid, uint32_t timeout_s, bool *timed_out, bool *aborted)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0), st = 0;
	uint64_t deadline = zp_mono_ms() + (uint64_t)timeout_s * 1000;
	*timed_out = *aborted = false;
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			st = 127 << 8;
			break;
		}
		uint64_t now = zp_mono_ms();
		if (!*timed_out && !*aborted && g->abort && g->abort(g->abort_ctx))
			*aborted = true, kill(-pid, SIGKILL), kill(pid, SIGKILL);
		if (now >= deadline && !*timed_out && !*aborted) {
			*timed_out = true;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
		}
		struct pollfd p = { .fd = pfd, .events = POLLIN };
		if (pfd >= 0)
			poll(&p, 1, now >= deadline ? 100 : (int)(deadline - now < 200 ? deadline - now : 200));
		else
			usleep(20000);
	}
	if (pfd >= 0)
		close(pfd);
	kill(-pid, SIGKILL); /* anything it left behind in its group */
	kill_descendants();  /* and anything that left the group */
	return st;
}

void zp_witgen_of_key(struct zp_witgen *g, const struct zp_pipe_key *k, uint32_t n_vars)
{
	memset(g, 0, sizeof *g);
	snprintf(g->wasm, sizeof g->wasm, "%s", k->wasm);
	snprintf(g->bin, sizeof g->bin, "%s", k->witness_bin);
	snprintf(g->node, sizeof g->node, "%s", k->node);
	g->timeout_s = k->witness_timeout_s ? k->witness_timeout_s : 60;
	g->cpu_s = k->witness_cpu_s ? k->witness_cpu_s : 2 * g->timeout_s;
	g->mem_bytes = k->witness_memory ? k->witness_memory : 4ull << 30;
	/* a .wtns is a 64-byte header, the prime and 32 bytes per wire; the generator's log shares it */
	g->max_out_bytes = n_vars ? (uint64_t)n_vars * 32 + (16u << 20) : 0;
}

int zp_witgen_open_input(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? zp_err_set(-errno, "input %s: %s", path, strerror(errno)) : fd;
}

/* The open input -> dir/input.json: a regular file (not a FIFO or device: we would block), at
 * most max bytes. */
static int copy_input(int in, const char *name, const char *dst, uint64_t max)
{
	int out = -1, r = 0;
	struct stat st;
	if (fstat(in, &st) || !S_ISREG(st.st_mode))
		r = zp_err_set(-EINVAL, "input %s: not a regular file", name);
	else if ((uint64_t)st.st_size > max)
		r = zp_err_set(ZP_ERANGE, "input %s: %lld bytes, over the %llu-byte limit", name,
			       (long long)st.st_size, (unsigned long long)max);
	else if ((out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0)
		r = zp_err_set(-errno, "%s: %s", dst, strerror(errno));
	char buf[65536];
	uint64_t total = 0, off = 0;
	for (ssize_t n; !r && (n = pread(in, buf, sizeof buf, (off_t)off)) != 0; off += (uint64_t)n) {
		if (n < 0 || (total += (uint64_t)n) > max || write(out, buf, (size_t)n) != n)
			r = zp_err_set(n < 0 ? -errno : ZP_ERANGE, "input %s: read or copy failed", name);
	}
	if (out >= 0)
		close(out);
	return r;
}

int zp_witgen_run(const struct zp_witgen *g, int in_fd, const char *input, const char *parent, char *dir,
		  size_t dn, char *wtns, size_t wn)
{
	char js[PATH_MAX + 32], log[PATH_MAX + 16], why[300];
	dir[0] = 0;
	if (!g->wasm[0] && !g->bin[0])
		return zp_err_set(-EINVAL, "no witness generator configured (wasm or witness_bin)");
	if (snprintf(dir, dn, "%s/zpwit.XXXXXX", parent) >= (int)dn || !mkdtemp(dir)) {
		int e = errno;
		dir[0] = 0;
		return zp_err_set(-e, "witness generator: temporary directory under %s: %s", parent, strerror(e));
	}
	snprintf(wtns, wn, "%s/witness.wtns", dir);
	snprintf(log, sizeof log, "%s/generator.log", dir);
	char in_copy[PATH_MAX + 16];
	snprintf(in_copy, sizeof in_copy, "%s/input.json", dir);
	int rc = copy_input(in_fd, input, in_copy, g->max_in_bytes ? g->max_in_bytes : 64u << 20);
	if (rc)
		return rc;
	/* a relative path (`zkpipe prove --wasm circuit_js/circuit.wasm`) means the caller's
	 * directory, not the generator's: resolved before the child's chdir */
	char wasm[PATH_MAX], bin[PATH_MAX], node[PATH_MAX];
	if ((rc = absolute("wasm", g->wasm, wasm, sizeof wasm)) || (rc = absolute("witness_bin", g->bin, bin, sizeof bin)) ||
	    (rc = absolute("node", g->node[0] ? g->node : "/usr/bin/node", node, sizeof node)))
		return rc;
	char *argv[8];
	int n = 0;
	const char *what;
	if (wasm[0]) {
		const char *sl = strrchr(wasm, '/');
		snprintf(js, sizeof js, "%.*s/generate_witness.js", (int)(sl - wasm), wasm);
		if (access(wasm, R_OK) || access(js, R_OK))
			return zp_err_set(ZP_EWITGEN, "witness generator: %s: %s", access(wasm, R_OK) ? g->wasm : js,
					  strerror(errno));
		argv[n++] = node;
		argv[n++] = js;
		argv[n++] = wasm;
		what = "node generate_witness.js";
	} else {
		argv[n++] = bin;
		what = g->bin;
	}
	argv[n++] = in_copy;
	argv[n++] = wtns;
	argv[n] = NULL;
	uint64_t t0 = zp_mono_ms();
	prctl(PR_SET_CHILD_SUBREAPER, 1); /* what the generator leaves is ours to kill (kill_descendants) */
	pid_t self = getpid(), pid = fork();
	if (pid == 0)
		child(g, argv, dir, log, self, wasm[0] != 0);
	if (pid < 0)
		return zp_err_set(-errno, "witness generator: fork: %s", strerror(errno));
	bool timed_out, aborted;
	int st = wait_bounded(g, pid, g->timeout_s, &timed_out, &aborted);
	double secs = (zp_mono_ms() - t0) / 1e3;
	last_line(log, why, sizeof why);
	struct stat sb;
	if (aborted)
		return zp_err_set(-ECANCELED, "witness generator (%s) on %s: stopped (synthd stopping or the job "
				  "cancelled)", what, input);
	if (timed_out)
		return zp_err_set(ZP_EWITGEN, "witness generator (%s) on %s: killed at its %u s timeout", what, input,
				  g->timeout_s);
	/* the generator's own words first: a job's error is cut at ZP_ERRTXT_MAX */
	if (WIFSIGNALED(st))
		return zp_err_set(ZP_EWITGEN, "witness generator%s%s: killed by signal %d (%s)%s (%s on %s, after %.1f s)",
				  why[0] ? ": " : "", why, WTERMSIG(st), strsignal(WTERMSIG(st)),
				  WTERMSIG(st) == SIGXCPU ? ": its CPU limit" : WTERMSIG(st) == SIGXFSZ ? ": its output limit" : "",
				  what, input, secs);
	if (WEXITSTATUS(st) == 126 || WEXITSTATUS(st) == 127)
		return zp_err_set(ZP_EWITGEN, "witness generator (%s): could not be started (exit %d: missing, not "
				  "executable, or a limit could not be set)", what, WEXITSTATUS(st));
	if (WEXITSTATUS(st))
		return zp_err_set(ZP_EWITGEN, "witness generator%s%s (%s on %s: exit status %d after %.1f s)",
				  why[0] ? ": " : " failed", why, what, input, WEXITSTATUS(st), secs);
	if (lstat(wtns, &sb) || !S_ISREG(sb.st_mode))
		return zp_err_set(ZP_EWITGEN, "witness generator (%s) on %s: exited 0 without writing a witness", what,
				  input);
	return 0;
}
