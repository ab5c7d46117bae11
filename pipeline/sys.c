/*
 * sys.c — process-level helpers (sys.h): NUMA pinning (topology from the config or libnuma),
 * peak RSS, monotonic time, log lines, error context.
 */
#include "sys.h"
#include "config.h"
#include "zp_err.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

uint64_t zp_mono_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

unsigned zp_each_child(void (*fn)(pid_t pid, void *arg), void *arg)
{
	unsigned n = 0;
	DIR *d = opendir("/proc/self/task");
	for (struct dirent *t; d && (t = readdir(d));) {
		if (t->d_name[0] == '.')
			continue;
		char path[300], buf[4096];
		snprintf(path, sizeof path, "/proc/self/task/%s/children", t->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t got = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
		if (fd >= 0)
			close(fd);
		buf[got > 0 ? got : 0] = 0;
		for (char *p = buf, *e; *p; p = e) {
			long pid = strtol(p, &e, 10);
			if (e == p || (*e != ' ' && *e != '\n'))
				break; /* the end, or a pid cut by the buffer: the next call reads it whole */
			if (pid > 0) {
				fn((pid_t)pid, arg);
				n++;
			}
		}
	}
	if (d)
		closedir(d);
	return n;
}

void zp_log(const char *who, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	struct tm tm;
	localtime_r(&t.tv_sec, &tm);
	fprintf(stderr, "%02d:%02d:%02d.%03ld %s[%d]: %s\n", tm.tm_hour, tm.tm_min, tm.tm_sec,
		t.tv_nsec / 1000000, who, (int)getpid(), msg);
}

uint64_t zp_proc_peak_rss_kib(int pid)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	uint64_t v = 0;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "VmHWM:", 6)) {
			v = strtoull(line + 6, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* "0-3,8,10-11" into set; count of CPUs or -EINVAL. */
static int parse_cpus(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	int n = 0;
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (end == s || a < 0 || a >= CPU_SETSIZE)
			return -EINVAL;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a || b >= CPU_SETSIZE)
				return -EINVAL;
			s = end;
		}
		for (long c = a; c <= b; c++, n++)
			CPU_SET((int)c, set);
		if (*s == ',')
			s++;
		else if (*s)
			return -EINVAL;
	}
	return n;
}

int zp_pipe_pin(const struct zp_pipe_config *c, int node)
{
	if (node < 0)
		return 0;
	cpu_set_t set;
	int n = 0;
	bool have_numa = numa_available() >= 0;
	if (c->node_cpus[node][0]) {
		if ((n = parse_cpus(c->node_cpus[node], &set)) < 0)
			return zp_err_set(-EINVAL, "[topology] node%d = %s: bad CPU list", node, c->node_cpus[node]);
	} else if (have_numa && node <= numa_max_node()) {
		struct bitmask *bm = numa_allocate_cpumask();
		if (numa_node_to_cpus(node, bm) == 0) {
			CPU_ZERO(&set);
			for (unsigned i = 0; i < bm->size && i < CPU_SETSIZE; i++)
				if (numa_bitmask_isbitset(bm, i))
					CPU_SET(i, &set), n++;
		}
		numa_free_cpumask(bm);
	}
	/* Keep only CPUs this process may use at all (a container may have fewer). */
	cpu_set_t allowed;
	if (n > 0 && sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
		CPU_AND(&set, &set, &allowed);
		n = CPU_COUNT(&set);
	}
	if (n > 0 && sched_setaffinity(0, sizeof set, &set))
		return zp_err_set(-errno, "pin to node %d", node);
	/* Memory: bind only to a node that exists here; a config topology may describe
	 * nodes this machine lacks (testing multi-node logic on one node). */
	if (have_numa && node <= numa_max_node()) {
		struct bitmask *nm = numa_allocate_nodemask();
		numa_bitmask_setbit(nm, (unsigned)node);
		numa_set_membind(nm);
		numa_free_nodemask(nm);
	}
	return n > 0 ? n : 0;
}
