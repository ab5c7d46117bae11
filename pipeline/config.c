/*
 * config.c — the supervisor's INI file (parsed by inih), shared by every daemon.
 *
 *   [run]       dir, listen, http, bin_dir, backing, public, allow_input, allow_output
 *               (allow_* are ':'-separated absolute directories)
 *   [limits]    max_attempts, synthd_memory (e.g. 512M), memory_limit = auto|cgroup|rlimit|off,
 *               restart_min_ms, restart_max_ms, orphan_timeout_s, retain_s,
 *               stuck_timeout_s, start_timeout_s (the stuck-daemon watchdog, docs/pipeline.md),
 *               stop_timeout_s (a stop's grace: SIGTERM, then SIGKILL this long after),
 *               http_connections, http_timeout_s, http_per_address (the HTTP endpoint's limits),
 *               write_retry_s (a full or read-only output: how long gpud retries a proof's write)
 *   [topology]  node0 = 0-7, node1 = 8-15 ...   (CPUs per node; default: libnuma)
 *   [key NAME]  zkey = path, r1cs = path (optional); or synth = synth:n=..,.. (a synthetic circuit,
 *               common/synth_spec.h) with zkey = path (a key made by zkpipe setup for it) or
 *               setup = device (gpud makes an insecure development key on its GPU)
 *   [group NAME] node, gpus, synth_workers, slots, slot_size, jobs, max_parts, arena,
 *               gpud_threads, synth_threads, backend = cpu|cuda (gpud's prover backend),
 *               gpus = N | list of CUDA ordinals / PCI bus ids, gpu.<i>.numa = node,
 *               gpu_memory = 24G (each gpud's device-memory cap; 0 = the whole card)
 *               (resolved here: see struct zp_pipe_group)
 *   [debug]     synth_delay_ms, prove_delay_ms, start_delay_ms, inject, crash_at, fixed_blinding,
 *               hold_at = start | synth | synthesized | prove | proved (tests only; the gate: daemon.h)
 *   [cluster]   database, node, heartbeat_s, dead_after_s, capacity, poll_ms, inline_max,
 *               stop = release | drain, drain_timeout_s, view_s, retain_days
 *               (cluster/, docs/cluster.md)
 * Relative paths are taken from the config file's directory.
 */
#include "config.h"
#include "rundir.h"
#include "knobs.h"
#include "synth_spec.h"
#include "zp_err.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

struct ctx {
	struct zp_pipe_config *c;
	char base[PATH_MAX];
	FILE *f;
	bool mid;                  /* the last chunk read ended inside a line (longer than inih's buffer) */
	int line, err_line;        /* the line being parsed; the first error's line (0 = none) */
	char err[640];             /* the first error only: its line and text must agree */
};

/* What each setting accepts, for the error that names it (and the list of known settings). */
static const struct setting { const char *sec, *key, *accepts; } settings[] = {
	{ "run", "dir", "a directory path (created; short: ipc paths end at 107 bytes)" },
	{ "run", "listen", "a nanomsg URL: ipc://PATH or tcp://127.0.0.1:PORT" },
	{ "run", "http", "HOST:PORT (e.g. 127.0.0.1:9464), empty = off" },
	{ "run", "bin_dir", "the directory of zkpipe-synthd and zkpipe-gpud" },
	{ "run", "keep_arena", "yes | no" },
	{ "run", "key_regions", "yes | no" },
	{ "run", "public", "yes | no" },
	{ "run", "allow_input", "existing directories separated by ':'" },
	{ "run", "allow_output", "existing directories separated by ':'" },
	{ "run", "backing", "auto | hugetlbfs | memfd-hugetlb | shm-thp | shm" },
	{ "limits", "max_attempts", "a positive integer" },
	{ "limits", "synthd_memory", "a size: bytes or 512M, 4G, 64k" },
	{ "limits", "memory_limit", "auto | cgroup | rlimit | off" },
	{ "limits", "restart_min_ms", "an integer (milliseconds)" },
	{ "limits", "restart_max_ms", "an integer (milliseconds)" },
	{ "limits", "orphan_timeout_s", "an integer (seconds)" },
	{ "limits", "retain_s", "an integer (seconds)" },
	{ "topology", "node<N>", "a CPU list (0-7,16-23) for node N < 16" },
	{ "key", "zkey", "a key file: .zkey (snarkjs, bls12381) or .zpk (zkpipe key convert / setup)" },
	{ "key", "r1cs", "the circuit's .r1cs (optional)" },
	{ "key", "synth", "synth:n=<constraints>[,bool=<fraction>,...] (common/synth_spec.h)" },
	{ "key", "setup", "device | file" },
	{ "key", "wasm", "circom's <circuit>.wasm, with generate_witness.js beside it (run by node)" },
	{ "key", "witness_bin", "circom's C++ witness generator binary (<circuit>, with <circuit>.dat)" },
	{ "key", "node", "the node binary for wasm (default: node on PATH)" },
	{ "key", "witness_timeout_s", "an integer (seconds, > 0)" },
	{ "key", "witness_memory", "a size: bytes or 512M, 4G (RLIMIT_AS of the generator)" },
	{ "key", "witness_cpu_s", "an integer (seconds of CPU, RLIMIT_CPU of the generator)" },
	{ "group", "node", "a NUMA node -1..15 (-1 = no pinning)" },
	{ "group", "gpus", "a count N, or a list of CUDA ordinals / PCI bus ids (0,1 or 0000:17:00.0,65:00.0)" },
	{ "group", "gpu.<i>.numa", "a NUMA node -1..15 for the group's GPU i" },
	{ "group", "synth_workers", "a positive integer" },
	{ "group", "slots", "a positive integer" },
	{ "group", "slot_size", "a size (bytes or 2M, 1G) or auto (the largest key's need)" },
	{ "group", "jobs", "a positive integer" },
	{ "group", "max_parts", "a positive integer" },
	{ "group", "gpud_threads", "an integer (0 = the node's CPUs)" },
	{ "group", "synth_threads", "an integer (0 = the node's CPUs)" },
	{ "group", "backend", "cpu | cuda" },
	{ "group", "gpu_memory", "0 (the whole card) or a size from 1G: 24G, 24GiB, 24576M, bytes" },
	{ "group", "arena", "an arena name (up to 47 characters)" },
	{ "debug", "synth_delay_ms", "an integer (milliseconds; tests only)" },
	{ "debug", "prove_delay_ms", "an integer (milliseconds; tests only)" },
	{ "debug", "inject", "what@n, ... (tests only: gpu-error, bad-proof, sticky, hang; create-fail@KEY; one-srs-card)" },
	{ "debug", "fixed_blinding", "yes | no (tests only: fixed r, s; not zero-knowledge)" },
	{ "debug", "hold_at", "start | synth | synthesized | prove | proved (tests only: partitions wait there for tokens in <dir>/hold)" },
};

/* The section's kind: "key" for [key NAME], "group" for [group NAME], else its name. */
static const char *sec_kind(const char *sec)
{
	return !strncmp(sec, "key ", 4) ? "key" : !strncmp(sec, "group ", 6) ? "group" : sec;
}

static const char *accepts(const char *sec, const char *k)
{
	const char *kind = sec_kind(sec);
	for (size_t i = 0; i < sizeof settings / sizeof *settings; i++)
		if (!strcmp(settings[i].sec, kind) &&
		    (!strcmp(settings[i].key, k) || (!strncmp(k, "gpu.", 4) && !strcmp(settings[i].key, "gpu.<i>.numa")) ||
		     (!strncmp(k, "node", 4) && !strcmp(settings[i].key, "node<N>"))))
			return settings[i].accepts;
	return NULL;
}

/* "dir, listen, ..." : the settings a section knows. */
static void known(char *buf, size_t n, const char *sec)
{
	const char *kind = sec_kind(sec);
	buf[0] = 0;
	for (size_t i = 0; i < sizeof settings / sizeof *settings; i++)
		if (!strcmp(settings[i].sec, kind))
			snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? ", " : "", settings[i].key);
}

/* Record an error at the current line unless one is recorded already (the first one wins). */
static void ctx_err(struct ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ctx_err(struct ctx *x, const char *fmt, ...)
{
	if (x->err_line)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->err, sizeof x->err, fmt, ap);
	va_end(ap);
	x->err_line = x->line;
}

/* A config error: the message as written, without zp_err_set's ": <strerror>" tail (which
 * read "Invalid argument: Invalid argument" after a message that already says what is wrong). */
static int cfg_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int cfg_fail(int code, const char *fmt, ...)
{
	char m[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	zp_err_set(code, "%s", m);
	char *e = (char *)zp_err_msg();
	e[strlen(m) < strlen(e) ? strlen(m) : strlen(e)] = 0;
	return code;
}

/* inih's reader: fgets that counts lines, so an error names the line it was found on. */
static char *reader(char *str, int num, void *stream)
{
	struct ctx *x = stream;
	char *r = fgets(str, num, x->f);
	if (r && !x->mid)
		x->line++;
	if (r)
		x->mid = !strchr(str, '\n');
	return r;
}

int zp_pipe_parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	uint64_t m = 1;
	switch (*end) {
	case 'k': case 'K': m = 1ull << 10; end++; break;
	case 'm': case 'M': m = 1ull << 20; end++; break;
	case 'g': case 'G': m = 1ull << 30; end++; break;
	case 0: break;
	default: return -EINVAL;
	}
	if (*end == 'i' || *end == 'B')
		end++;
	if (*end == 'B')
		end++;
	if (*end || (v && m > UINT64_MAX / v))
		return -EINVAL;
	*out = v * m;
	return 0;
}

int zp_pipe_parse_gpu_memory(const char *s, uint64_t *mib)
{
	uint64_t b;
	if (zp_pipe_parse_size(s, &b))
		return -EINVAL;
	if (b && (b < 1ull << 30 || b >> 20 > 1ull << 24))
		return ZP_ERANGE;
	*mib = b >> 20;
	return 0;
}

static int parse_u32(const char *s, uint32_t *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

/* yes/no, true/false, on/off, 1/0; anything else is an error (not a silent "no"). */
static int parse_bool(const char *s, bool *out)
{
	if (!strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "true") || !strcasecmp(s, "on"))
		return *out = true, 0;
	if (!strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "false") || !strcasecmp(s, "off"))
		return *out = false, 0;
	return -EINVAL;
}

/* Absolute path of v (relative to the config's directory). */
static int abs_path(struct ctx *x, char *dst, const char *v)
{
	int n = v[0] == '/' ? snprintf(dst, PATH_MAX, "%s", v) : snprintf(dst, PATH_MAX, "%s/%s", x->base, v);
	return n < PATH_MAX ? 0 : -ENAMETOOLONG;
}

static int dir_list(struct ctx *x, char (*dirs)[PATH_MAX], unsigned *n, const char *v)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s", v);
	*n = 0;
	for (char *save, *t = strtok_r(tmp, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
		if (*n == ZP_PIPE_MAX_DIRS)
			return -E2BIG;
		char a[PATH_MAX];
		if (abs_path(x, a, t))
			return -ENAMETOOLONG;
		/* resolve now so later prefix checks compare real paths */
		struct stat st;
		errno = 0;
		if (!realpath(a, dirs[*n]) || stat(dirs[*n], &st) || !S_ISDIR(st.st_mode)) {
			int e = errno ? errno : ENOTDIR;
			ctx_err(x, "[run] %s: directory %s: %s (each entry must be an existing directory)",
				dirs == x->c->allow_in ? "allow_input" : "allow_output", a, strerror(e));
			return -e;
		}
		(*n)++;
	}
	return 0;
}

static struct zp_pipe_key *key_for(struct zp_pipe_config *c, const char *name)
{
	for (unsigned i = 0; i < c->n_keys; i++)
		if (!strcmp(c->keys[i].name, name))
			return &c->keys[i];
	if (c->n_keys == ZP_PIPE_MAX_KEYS || strlen(name) >= ZP_KEY_ID_MAX || !*name)
		return NULL;
	struct zp_pipe_key *k = &c->keys[c->n_keys++];
	snprintf(k->name, sizeof k->name, "%s", name);
	return k;
}

static struct zp_pipe_group *group_for(struct zp_pipe_config *c, const char *name)
{
	for (unsigned i = 0; i < c->n_groups; i++)
		if (!strcmp(c->groups[i].name, name))
			return &c->groups[i];
	if (c->n_groups == ZP_PIPE_MAX_GROUPS || strlen(name) >= ZP_PIPE_NAME_MAX || !*name)
		return NULL;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '_' || *p == '-'))
			return NULL;
	struct zp_pipe_group *g = &c->groups[c->n_groups++];
	*g = (struct zp_pipe_group){ .node = 0, .gpus = 1, .synth_workers = 2, .slots = 4,
				     .slot_size = 2u << 20, .jobs = 64, .max_parts = 16 };
	snprintf(g->name, sizeof g->name, "%s", name);
	for (unsigned i = 0; i < ZP_PIPE_MAX_GPUS; i++)
		g->gpu_numa_cfg[i] = -2;
	return g;
}

/* A listener without a host (listen = tcp:// then "*:5555" or ":5555"; http = 9464, :9464 or *:9464)
 * binds to loopback: the API and the HTTP endpoint have no authentication, so reaching them
 * from other hosts takes an address the operator writes out (docs/pipeline.md, Security model). */
static int loopback_default(char *dst, size_t n, const char *v, const char *scheme)
{
	size_t l = strlen(scheme);
	const char *host = !strncmp(v, scheme, l) ? v + l : (l ? NULL : v);
	const char *port = host ? strrchr(host, ':') : NULL;
	bool bare = host && !l && !strchr(host, ':'); /* http = 9464 */
	if (bare || (port && (port == host || (port == host + 1 && host[0] == '*'))))
		return snprintf(dst, n, "%s127.0.0.1:%s", scheme, bare ? host : port + 1) < (int)n ? 0 : -ENAMETOOLONG;
	return snprintf(dst, n, "%s", v) < (int)n ? 0 : -ENAMETOOLONG;
}

static int run_key(struct ctx *x, const char *k, const char *v)
{
	struct zp_pipe_config *c = x->c;
	if (!strcmp(k, "dir"))
		return abs_path(x, c->run_dir, v);
	if (!strcmp(k, "listen"))
		return loopback_default(c->listen, sizeof c->listen, v, "tcp://");
	if (!strcmp(k, "http"))
		return v[0] ? loopback_default(c->http, sizeof c->http, v, "") : (c->http[0] = 0, 0);
	if (!strcmp(k, "bin_dir"))
		return abs_path(x, c->bin_dir, v);
	if (!strcmp(k, "keep_arena"))
		return parse_bool(v, &c->keep_arena);
	if (!strcmp(k, "key_regions"))
		return parse_bool(v, &c->key_regions);
	if (!strcmp(k, "public"))
		return parse_bool(v, &c->public_access);
	if (!strcmp(k, "allow_input"))
		return dir_list(x, c->allow_in, &c->n_in, v);
	if (!strcmp(k, "allow_output"))
		return dir_list(x, c->allow_out, &c->n_out, v);
	if (!strcmp(k, "backing")) {
		for (int b = 0; b < ZP_BACKING_COUNT; b++)
			if (!strcmp(v, b ? zp_backing_name(b) : "auto"))
				return c->backing = b, 0;
		return -EINVAL;
	}
	return -ENOENT;
}

static int limits_key(struct ctx *x, const char *k, const char *v)
{
	struct zp_pipe_config *c = x->c;
	if (!strcmp(k, "max_attempts"))
		return parse_u32(v, &c->max_attempts);
	if (!strcmp(k, "synthd_memory"))
		return zp_pipe_parse_size(v, &c->synthd_mem_limit);
	if (!strcmp(k, "memory_limit")) {
		static const char *m[] = { "auto", "cgroup", "rlimit", "off" };
		for (int i = 0; i < 4; i++)
			if (!strcmp(v, m[i]))
				return c->mem_mode = i, 0;
		return -EINVAL;
	}
	if (!strcmp(k, "restart_min_ms"))
		return parse_u32(v, &c->restart_min_ms);
	if (!strcmp(k, "restart_max_ms"))
		return parse_u32(v, &c->restart_max_ms);
	if (!strcmp(k, "orphan_timeout_s"))
		return parse_u32(v, &c->orphan_timeout_s);
	if (!strcmp(k, "retain_s"))
		return parse_u32(v, &c->retain_s);
	if (!strcmp(k, "stuck_timeout_s"))
		return parse_u32(v, &c->stuck_timeout_s);
	if (!strcmp(k, "start_timeout_s"))
		return parse_u32(v, &c->start_timeout_s);
	if (!strcmp(k, "stop_timeout_s"))
		return parse_u32(v, &c->stop_timeout_s);
	if (!strcmp(k, "http_connections"))
		return parse_u32(v, &c->http_connections);
	if (!strcmp(k, "http_timeout_s"))
		return parse_u32(v, &c->http_timeout_s);
	if (!strcmp(k, "http_per_address"))
		return parse_u32(v, &c->http_per_address);
	if (!strcmp(k, "write_retry_s"))
		return parse_u32(v, &c->write_retry_s);
	return -ENOENT;
}

/* `gpus = N` (ordinals 0..N-1) or a ','-separated list of ordinals / PCI bus ids. */
static int gpu_list(struct zp_pipe_group *g, const char *v)
{
	memset(g->gpu, 0, sizeof g->gpu);
	if (!strpbrk(v, ",:"))
		return parse_u32(v, &g->gpus);
	char tmp[512];
	if (snprintf(tmp, sizeof tmp, "%s", v) >= (int)sizeof tmp)
		return -E2BIG;
	g->gpus = 0;
	for (char *save, *t = strtok_r(tmp, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*t))
			t++;
		for (char *e = t + strlen(t); e > t && isspace((unsigned char)e[-1]);)
			*--e = 0;
		if (!*t)
			continue;
		if (g->gpus == ZP_PIPE_MAX_GPUS)
			return -E2BIG;
		char *d = g->gpu[g->gpus++];
		/* a bus id without its domain gets "0000:"; hex digits lowercase (sysfs spelling) */
		int n = snprintf(d, ZP_PIPE_GPU_NAME, "%s%s", strchr(t, ':') && strchr(t, ':') == strrchr(t, ':') ? "0000:" : "", t);
		if (n >= ZP_PIPE_GPU_NAME)
			return -ENAMETOOLONG;
		for (; *d; d++)
			*d = (char)tolower((unsigned char)*d);
	}
	return g->gpus ? 0 : -EINVAL;
}

const char *zp_pipe_sysfs_root(void)
{
	const char *e = zp_knobs()->sysfs;
	return e && *e ? e : "/sys";
}

static int read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	int r = fgets(buf, (int)n, f) ? 0 : -EIO;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return r;
}

static bool is_nvidia_gpu(const char *dev)
{
	char p[PATH_MAX], v[32], cl[32];
	snprintf(p, sizeof p, "%s/bus/pci/devices/%s/vendor", zp_pipe_sysfs_root(), dev);
	if (read_line(p, v, sizeof v) || strcmp(v, "0x10de"))
		return false;
	snprintf(p, sizeof p, "%s/bus/pci/devices/%s/class", zp_pipe_sysfs_root(), dev);
	return !read_line(p, cl, sizeof cl) && !strncmp(cl, "0x03", 4); /* display controller (VGA or 3D) */
}

/* A bus id's CUDA ordinal under CUDA_DEVICE_ORDER=PCI_BUS_ID: its rank among NVIDIA GPUs. */
static int bus_ordinal(const char *cfg, const struct zp_pipe_group *g, const char *bus)
{
	if (!is_nvidia_gpu(bus))
		return cfg_fail(-ENODEV, "%s: [group %s] gpus: %s is not an NVIDIA GPU (%s/bus/pci/devices/%s: "
				  "missing, or vendor/class not 0x10de/0x03xxxx)", cfg, g->name, bus,
				  zp_pipe_sysfs_root(), bus);
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/bus/pci/devices", zp_pipe_sysfs_root());
	DIR *d = opendir(p);
	if (!d)
		return cfg_fail(-errno, "%s: %s", cfg, p);
	int rank = 0;
	for (struct dirent *e; (e = readdir(d));)
		if (e->d_name[0] != '.' && strcmp(e->d_name, bus) < 0 && is_nvidia_gpu(e->d_name))
			rank++;
	closedir(d);
	return rank;
}

static int resolve_gpus(const char *cfg, struct zp_pipe_group *g)
{
	if (g->gpus > ZP_PIPE_MAX_GPUS)
		return cfg_fail(ZP_ERANGE, "%s: [group %s]: gpus = %u, at most %d", cfg, g->name, g->gpus,
				  ZP_PIPE_MAX_GPUS);
	for (unsigned i = g->gpus; i < ZP_PIPE_MAX_GPUS; i++)
		if (g->gpu_numa_cfg[i] != -2)
			return cfg_fail(-EINVAL, "%s: [group %s] gpu.%u.numa: the group has %u GPU(s)", cfg,
					  g->name, i, g->gpus);
	for (unsigned i = 0; i < g->gpus; i++) {
		const char *e = g->gpu[i];
		int node = -1;
		if (!*e) {
			g->gpu_ordinal[i] = (int)i;
		} else if (!strchr(e, ':')) {
			char *end;
			long o = strtol(e, &end, 10);
			if (end == e || *end || o < 0 || o > 1023)
				return cfg_fail(-EINVAL, "%s: [group %s] gpus: '%s' is neither a CUDA ordinal nor a "
						  "PCI bus id (0000:17:00.0)", cfg, g->name, e);
			g->gpu_ordinal[i] = (int)o;
		} else {
			int o = bus_ordinal(cfg, g, e);
			if (o < 0)
				return o;
			g->gpu_ordinal[i] = o;
			char p[PATH_MAX], v[32];
			snprintf(p, sizeof p, "%s/bus/pci/devices/%s/numa_node", zp_pipe_sysfs_root(), e);
			if (!read_line(p, v, sizeof v))
				node = atoi(v); /* -1: the platform does not say */
			if (node >= ZP_PIPE_MAX_NODES)
				node = -1;
		}
		for (unsigned j = 0; j < i; j++)
			if (g->gpu_ordinal[j] == g->gpu_ordinal[i])
				return cfg_fail(-EINVAL, "%s: [group %s] gpus: GPU %d listed twice", cfg, g->name,
						  g->gpu_ordinal[i]);
		g->gpu_node[i] = g->gpu_numa_cfg[i] != -2 ? g->gpu_numa_cfg[i] : node >= 0 ? node : g->node;
	}
	return 0;
}

static int group_key(struct zp_pipe_group *g, const char *k, const char *v)
{
	if (!strcmp(k, "node")) {
		char *end;
		long n = strtol(v, &end, 10);
		if (*end || n < -1 || n >= ZP_PIPE_MAX_NODES)
			return -EINVAL;
		return g->node = (int)n, 0;
	}
	if (!strcmp(k, "gpus"))
		return gpu_list(g, v);
	if (!strncmp(k, "gpu.", 4)) {
		char *end;
		unsigned long i = strtoul(k + 4, &end, 10);
		long n;
		if (end == k + 4 || strcmp(end, ".numa") || i >= ZP_PIPE_MAX_GPUS)
			return -ENOENT;
		n = strtol(v, &end, 10);
		if (end == v || *end || n < -1 || n >= ZP_PIPE_MAX_NODES)
			return -EINVAL;
		return g->gpu_numa_cfg[i] = (int)n, 0;
	}
	if (!strcmp(k, "synth_workers"))
		return parse_u32(v, &g->synth_workers);
	if (!strcmp(k, "slots"))
		return parse_u32(v, &g->slots);
	if (!strcmp(k, "slot_size"))
		return !strcmp(v, "auto") ? (g->slot_size = 0, 0) : zp_pipe_parse_size(v, &g->slot_size) ? -EINVAL
		       : g->slot_size ? 0 : ZP_ERANGE;
	if (!strcmp(k, "jobs"))
		return parse_u32(v, &g->jobs);
	if (!strcmp(k, "max_parts"))
		return parse_u32(v, &g->max_parts);
	if (!strcmp(k, "gpud_threads"))
		return parse_u32(v, &g->gpud_threads);
	if (!strcmp(k, "synth_threads"))
		return parse_u32(v, &g->synth_threads);
	if (!strcmp(k, "gpu_memory")) {
		uint64_t mib = 0;
		int r = zp_pipe_parse_gpu_memory(v, &mib);
		return r ? r : (g->gpu_memory = mib << 20, 0);
	}
	if (!strcmp(k, "backend"))
		return strcmp(v, "cpu") && strcmp(v, "cuda") ? -EINVAL : (snprintf(g->backend, sizeof g->backend, "%s", v), 0);
	if (!strcmp(k, "arena"))
		return snprintf(g->arena, sizeof g->arena, "%s", v) < (int)sizeof g->arena ? 0 : -ENAMETOOLONG;
	return -ENOENT;
}

static int cluster_key(struct zp_pipe_cluster *cl, const char *k, const char *v)
{
	if (!strcmp(k, "database"))
		return snprintf(cl->database, sizeof cl->database, "%s", v) < (int)sizeof cl->database ? 0 : -ENAMETOOLONG;
	if (!strcmp(k, "node")) {
		if (!*v || strlen(v) >= sizeof cl->node || strpbrk(v, " \t/\\'\""))
			return -EINVAL;
		return snprintf(cl->node, sizeof cl->node, "%s", v), 0;
	}
	if (!strcmp(k, "heartbeat_s"))
		return parse_u32(v, &cl->heartbeat_s);
	if (!strcmp(k, "dead_after_s"))
		return parse_u32(v, &cl->dead_after_s);
	if (!strcmp(k, "capacity"))
		return parse_u32(v, &cl->capacity);
	if (!strcmp(k, "poll_ms"))
		return parse_u32(v, &cl->poll_ms);
	if (!strcmp(k, "inline_max"))
		return zp_pipe_parse_size(v, &cl->inline_max);
	if (!strcmp(k, "stop")) {
		if (strcmp(v, "drain") && strcmp(v, "release"))
			return -EINVAL;
		return cl->stop_drain = !strcmp(v, "drain"), 0;
	}
	if (!strcmp(k, "drain_timeout_s"))
		return parse_u32(v, &cl->drain_timeout_s);
	if (!strcmp(k, "view_s"))
		return cl->view_set = true, parse_u32(v, &cl->view_s);
	if (!strcmp(k, "retain_days"))
		return parse_u32(v, &cl->retain_days);
	return -ENOENT;
}

static int handler(void *user, const char *sec, const char *k, const char *v)
{
	struct ctx *x = user;
	struct zp_pipe_config *c = x->c;
	int r = -ENOENT;
	if (!strcmp(sec, "run"))
		r = run_key(x, k, v);
	else if (!strcmp(sec, "limits"))
		r = limits_key(x, k, v);
	else if (!strcmp(sec, "cluster"))
		r = cluster_key(&c->cluster, k, v);
	else if (!strcmp(sec, "debug"))
		r = !strcmp(k, "synth_delay_ms")   ? parse_u32(v, &c->synth_delay_ms)
		    : !strcmp(k, "prove_delay_ms") ? parse_u32(v, &c->prove_delay_ms)
		    : !strcmp(k, "start_delay_ms") ? parse_u32(v, &c->start_delay_ms)
		    : !strcmp(k, "inject") ? (snprintf(c->inject, sizeof c->inject, "%s", v) < (int)sizeof c->inject ? 0 : -ENAMETOOLONG)
		    : !strcmp(k, "fixed_blinding") ? parse_bool(v, &c->fixed_blinding)
		    : !strcmp(k, "crash_at") ? (snprintf(c->crash_at, sizeof c->crash_at, "%s", v) < (int)sizeof c->crash_at ? 0 : -ENAMETOOLONG)
		    : !strcmp(k, "hold_at") ? (!strcmp(v, "start") || !strcmp(v, "synth") || !strcmp(v, "synthesized") ||
					       !strcmp(v, "prove") ||
					       !strcmp(v, "proved") || !*v
					       ? (snprintf(c->hold_at, sizeof c->hold_at, "%s", v), 0) : -EINVAL)
		    : -ENOENT;
	else if (!strcmp(sec, "topology")) {
		char *end;
		long n = strncmp(k, "node", 4) ? -1 : strtol(k + 4, &end, 10);
		if (n >= 0 && n < ZP_PIPE_MAX_NODES && !*end)
			r = snprintf(c->node_cpus[n], sizeof c->node_cpus[n], "%s", v) < 128 ? 0 : -ENAMETOOLONG;
	} else if (!strncmp(sec, "key ", 4)) {
		struct zp_pipe_key *key = key_for(c, sec + 4);
		if (!key)
			r = -E2BIG;
		else if (!strcmp(k, "zkey"))
			r = abs_path(x, key->zkey, v);
		else if (!strcmp(k, "r1cs"))
			r = abs_path(x, key->r1cs, v);
		else if (!strcmp(k, "synth")) {
			zp_synth_params sp;
			r = snprintf(key->synth, sizeof key->synth, "%s", v) >= (int)sizeof key->synth ? -ENAMETOOLONG
				: zp_synth_parse(&sp, v) ? ZP_EFORMAT : zp_synth_check(&sp) ? ZP_ERANGE : 0;
			if (r) {
				ctx_err(x, "[%s] synth = %s: %s (accepted: %s)", sec, v, zp_err_msg(), accepts(sec, k));
				return 0;
			}
		} else if (!strcmp(k, "wasm"))
			r = abs_path(x, key->wasm, v);
		else if (!strcmp(k, "witness_bin"))
			r = abs_path(x, key->witness_bin, v);
		else if (!strcmp(k, "node"))
			r = abs_path(x, key->node, v);
		else if (!strcmp(k, "witness_timeout_s"))
			r = parse_u32(v, &key->witness_timeout_s) ? -EINVAL : key->witness_timeout_s ? 0 : ZP_ERANGE;
		else if (!strcmp(k, "witness_cpu_s"))
			r = parse_u32(v, &key->witness_cpu_s);
		else if (!strcmp(k, "witness_memory"))
			r = zp_pipe_parse_size(v, &key->witness_memory);
		else if (!strcmp(k, "setup"))
			r = !strcmp(v, "device") ? (key->setup_device = 1, 0) : !strcmp(v, "file") ? (key->setup_device = 0, 0)
			  : -EINVAL;
	} else if (!strncmp(sec, "group ", 6)) {
		struct zp_pipe_group *g = group_for(c, sec + 6);
		r = g ? group_key(g, k, v) : -E2BIG;
	}
	if (r == 0)
		return 1;
	const char *acc = accepts(sec, k);
	if (r == -ENOENT && !acc) {
		char kn[1024];
		known(kn, sizeof kn, sec);
		if (kn[0])
			ctx_err(x, "[%s] %s: unknown setting (known in this section: %s)", sec, k, kn);
		else
			ctx_err(x, "[%s]: unknown section (known: [run], [limits], [topology], [key NAME], "
				"[group NAME], [debug], [cluster])", sec);
	} else if (r == -E2BIG) {
		ctx_err(x, "[%s]: too many such sections (at most %d keys, %d groups) or a bad name "
			"(letters, digits, '_' and '-'; keys up to %d, groups up to %d characters)", sec,
			ZP_PIPE_MAX_KEYS, ZP_PIPE_MAX_GROUPS, ZP_KEY_ID_MAX - 1, ZP_PIPE_NAME_MAX - 1);
	} else {
		ctx_err(x, "[%s] %s = %s: %s (accepted: %s)", sec, k, v,
			r == -ENAMETOOLONG ? "too long" : r == ZP_ERANGE ? "out of range" : "not a valid value",
			acc ? acc : "see docs/pipeline.md");
	}
	return 0;
}

/* A cluster node's defaults, and its spool (<run dir>/cluster) allowed for input and output:
 * clusterd writes inline witnesses there and has the supervisor put proofs there. The run
 * directory may not exist yet: its nearest existing ancestor is resolved instead. */
static int check_cluster(struct zp_pipe_config *c)
{
	struct zp_pipe_cluster *cl = &c->cluster;
	if (!cl->database[0])
		return 0;
	if (!cl->node[0] && gethostname(cl->node, sizeof cl->node - 1))
		snprintf(cl->node, sizeof cl->node, "localhost");
	cl->heartbeat_s = cl->heartbeat_s ? cl->heartbeat_s : 2;
	cl->dead_after_s = cl->dead_after_s ? cl->dead_after_s : 15;
	cl->poll_ms = cl->poll_ms ? cl->poll_ms : 1000;
	cl->inline_max = cl->inline_max ? cl->inline_max : 64ull << 20;
	cl->drain_timeout_s = cl->drain_timeout_s ? cl->drain_timeout_s : 600;
	cl->view_s = cl->view_set ? cl->view_s : 5;
	if (cl->dead_after_s <= cl->heartbeat_s)
		return zp_err_set(-EINVAL, "%s: [cluster] dead_after_s (%u) must exceed heartbeat_s (%u)", c->path,
				  cl->dead_after_s, cl->heartbeat_s);
	char real[PATH_MAX], rest[PATH_MAX] = "", tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s", c->run_dir);
	while (!realpath(tmp, real)) {
		char *sl = strrchr(tmp, '/');
		if (!sl || sl == tmp)
			return zp_err_set(-ENOENT, "%s: [run] dir %s: no existing ancestor", c->path, c->run_dir);
		char r2[PATH_MAX];
		snprintf(r2, sizeof r2, "%s%s", sl, rest);
		snprintf(rest, sizeof rest, "%s", r2);
		*sl = 0;
	}
	if (snprintf(cl->spool, sizeof cl->spool, "%s%s/cluster", real, rest) >= (int)sizeof cl->spool)
		return zp_err_set(-ENAMETOOLONG, "%s: [run] dir too long", c->path);
	if (c->n_in == ZP_PIPE_MAX_DIRS || c->n_out == ZP_PIPE_MAX_DIRS)
		return zp_err_set(-E2BIG, "%s: a cluster node needs one allow_input / allow_output entry free for %s",
				  c->path, cl->spool);
	snprintf(c->allow_in[c->n_in++], PATH_MAX, "%s", cl->spool);
	snprintf(c->allow_out[c->n_out++], PATH_MAX, "%s", cl->spool);
	return 0;
}

static int check(struct zp_pipe_config *c)
{
	if (!c->run_dir[0])
		return cfg_fail(-EINVAL, "%s: [run] dir is required", c->path);
	if (strlen(c->run_dir) + 24 > ZP_IPC_PATH_MAX)
		return cfg_fail(-ENAMETOOLONG, "%s: [run] dir '%s' is too long for ipc sockets (%zu bytes; "
				  "nanomsg's ipc paths end at %d)", c->path, c->run_dir, strlen(c->run_dir),
				  ZP_IPC_PATH_MAX);
	if (!c->n_keys || !c->n_groups)
		return cfg_fail(-EINVAL, "%s: at least one [key NAME] and one [group NAME]", c->path);
	for (unsigned i = 0; i < c->n_keys; i++) {
		const struct zp_pipe_key *k = &c->keys[i];
		if (k->setup_device && !k->synth[0])
			return cfg_fail(-EINVAL, "%s: [key %s] setup = device needs synth = (the circuit to make the key for)",
					  c->path, k->name);
		if (k->setup_device && k->zkey[0])
			return cfg_fail(-EINVAL, "%s: [key %s] has both zkey and setup = device", c->path, k->name);
		if (k->synth[0] && k->r1cs[0])
			return cfg_fail(-EINVAL, "%s: [key %s] has both synth and r1cs", c->path, k->name);
		if (!k->zkey[0] && !k->setup_device)
			return cfg_fail(-EINVAL, "%s: [key %s] needs zkey (or synth = .. with setup = device)", c->path,
					  k->name);
		if (k->wasm[0] && k->witness_bin[0])
			return cfg_fail(-EINVAL, "%s: [key %s] has both wasm and witness_bin (one witness generator)",
					  c->path, k->name);
		struct zp_pipe_key *kw = &c->keys[i];
		if (!kw->witness_timeout_s)
			kw->witness_timeout_s = 60;
		if (!kw->witness_cpu_s)
			kw->witness_cpu_s = 2 * kw->witness_timeout_s;
		if (!kw->witness_memory)
			kw->witness_memory = 4ull << 30;
		if ((k->wasm[0] || k->witness_bin[0]) && k->synth[0])
			return cfg_fail(-EINVAL, "%s: [key %s] a synthetic circuit has no witness generator", c->path,
					  k->name);
	}
	if (c->restart_min_ms > c->restart_max_ms)
		c->restart_max_ms = c->restart_min_ms;
	int rc = check_cluster(c);
	if (rc)
		return rc;
	for (unsigned i = 0; i < c->n_groups; i++) {
		struct zp_pipe_group *g = &c->groups[i];
		if (!g->slots || !g->synth_workers || !g->gpus || !g->jobs || !g->max_parts ||
		    g->synth_workers + g->gpus + 4 > ZP_ARENA_MAX_PROCS)
			return cfg_fail(ZP_ERANGE, "%s: [group %s]: slots, synth_workers, gpus, jobs and "
					  "max_parts must be positive", c->path, g->name);
		int r = resolve_gpus(c->path, g);
		if (r)
			return r;
		if (!g->arena[0]) {
			uint32_t h = (uint32_t)XXH64(c->run_dir, strlen(c->run_dir), 0);
			snprintf(g->arena, sizeof g->arena, "zp%08x.%s", h, g->name);
		}
	}
	return 0;
}

int zp_pipe_config_load(struct zp_pipe_config *c, const char *path)
{
	static struct ctx x; /* large; one loader at a time */
	memset(c, 0, sizeof *c);
	memset(&x, 0, sizeof x);
	x.c = c;
	c->max_attempts = 3;
	c->restart_min_ms = 100;
	c->restart_max_ms = 5000;
	c->orphan_timeout_s = 60;
	c->retain_s = 0;
	c->stuck_timeout_s = 120;  /* ~80x the longest steady-state stage at 2^27 (docs/pipeline.md) */
	c->start_timeout_s = 1800; /* key loads: ~100 s per 2^27 key */
	c->stop_timeout_s = 10;    /* a partition in flight finishes well within (2 s at 2^27 on a GPU) */
	c->http_connections = 64;
	c->http_timeout_s = 10;
	c->http_per_address = 16;
	c->write_retry_s = 300;    /* a full or read-only output: the proof is kept and written this long */
	c->keep_arena = true;
	c->key_regions = true;
	if (!realpath(path, c->path))
		return cfg_fail(-errno, "config %s: %s", path, strerror(errno));
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", c->path);
	snprintf(x.base, sizeof x.base, "%s", dirname(dir)); /* not in place: snprintf from its own buffer */
	x.f = fopen(c->path, "re");
	if (!x.f)
		return cfg_fail(-errno, "config %s: cannot read: %s", c->path, strerror(errno));
	int line = ini_parse_stream(reader, &x, handler, &x);
	fclose(x.f);
	if (line < 0)
		return cfg_fail(-EIO, "config %s: cannot read", c->path);
	/* inih returns its first error's line; a syntax error there comes before any of ours */
	if (x.err_line && (line == 0 || line >= x.err_line))
		return cfg_fail(-EINVAL, "config %s line %d: %s", c->path, x.err_line, x.err);
	if (line > 0)
		return cfg_fail(-EINVAL, "config %s line %d: syntax error (expected [section] or key = value)",
				  c->path, line);
	return check(c);
}

const struct zp_pipe_key *zp_pipe_key_find(const struct zp_pipe_config *c, const char *name)
{
	for (unsigned i = 0; i < c->n_keys; i++)
		if (!strcmp(c->keys[i].name, name))
			return &c->keys[i];
	return NULL;
}

int zp_pipe_group_find(const struct zp_pipe_config *c, const char *name)
{
	for (unsigned i = 0; i < c->n_groups; i++)
		if (!strcmp(c->groups[i].name, name))
			return (int)i;
	return -ENOENT;
}

void zp_pipe_arena_params(const struct zp_pipe_config *c, unsigned g, struct zp_arena_params *p)
{
	const struct zp_pipe_group *gr = &c->groups[g];
	*p = (struct zp_arena_params){
		.name = gr->arena, .slot_count = gr->slots, .slot_size = gr->slot_size,
		.job_count = gr->jobs, .max_parts = gr->max_parts,
		.proc_count = gr->synth_workers + gr->gpus + 8, .max_attempts = c->max_attempts,
		.backing = c->backing,
	};
}
