/*
 * tshm.h — helpers for the shm tests: checks, unique names, spawning the
 * worker program (fork+exec), reading its "ok" line.
 */
#ifndef ZP_TESTS_TSHM_H
#define ZP_TESTS_TSHM_H

#include "arena.h"
#include "zp_err.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int t_fails __attribute__((unused));
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK(%s) failed [%s]\n", \
	__FILE__, __LINE__, #c, zp_err_msg()); t_fails++; } } while (0)
#define CHECK_EQ(a, b) do { long long _a = (long long)(a), _b = (long long)(b); if (_a != _b) { \
	fprintf(stderr, "%s:%d: %s = %lld, expected %s = %lld [%s]\n", __FILE__, __LINE__, \
		#a, _a, #b, _b, zp_err_msg()); t_fails++; } } while (0)
#define REQUIRE(c) do { if (!(c)) { fprintf(stderr, "%s:%d: REQUIRE(%s) failed [%s]\n", \
	__FILE__, __LINE__, #c, zp_err_msg()); exit(1); } } while (0)

static inline void t_name(char *buf, size_t n, const char *what)
{
	snprintf(buf, n, "t-%s-%d", what, (int)getpid());
}

static inline uint64_t t_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* fork+exec argv; if out_fd, the child's stdout comes back through a pipe. */
static inline pid_t t_spawn(char *const argv[], int *out_fd)
{
	int p[2] = { -1, -1 };
	if (out_fd && pipe(p) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		if (out_fd) {
			dup2(p[1], 1);
			close(p[0]);
			close(p[1]);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	if (out_fd) {
		close(p[1]);
		*out_fd = p[0];
	}
	return pid;
}

/* Read one line from fd (the worker's "ok ..." report). */
static inline int t_readline(int fd, char *buf, size_t n)
{
	size_t i = 0;
	while (i + 1 < n) {
		ssize_t r = read(fd, buf + i, 1);
		if (r <= 0)
			break;
		if (buf[i++] == '\n')
			break;
	}
	buf[i] = 0;
	return (int)i;
}

static inline int t_wait(pid_t pid)
{
	int st;
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static inline uint64_t t_cnt(const struct zp_arena *a, size_t off)
{
	return zp_arena_load64((const _Atomic uint64_t *)((const char *)&zp_arena_hdr(a)->counters + off));
}
#define CNT(a, f) t_cnt(a, offsetof(struct zp_arena_counters, f))

#endif
