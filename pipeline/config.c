/*
 * config.c — the supervisor's INI file (parsed by inih), shared by every daemon.
 *
 *   [run]       dir, listen, http, bin_dir, backing, public, allow_input, allow_output
 *               (allow_* are ':'-separated absolute directories)
 *   [limits]    max_attempts, synthd_memory (e.g. 512M), memory_limit = auto|cgroup|rlimit|off,
 *               restart_min_ms, restart_max_ms, orphan_timeout_s, retain_s
 *   [topology]  node0 = 0-7, node1 = 8-15 ...   (CPUs per node; default: libnuma)
 *   [key NAME]  zkey = path, r1cs = path (optional); or synth = synth:n=..,.. (a synthetic circuit,
 *               prover/synth.h) with zkey = path (a key made by zkpipe setup for it) or
 *               setup = device (gpud makes an insecure development key on its GPU)
 *   [group NAME] node, gpus, synth_workers, slots, slot_size, jobs, max_parts, arena,
 *               gpud_threads, synth_threads, backend = cpu|cuda (gpud's prover backend),
 *               gpus = N | list of CUDA ordinals / PCI bus ids, gpu.<i>.numa = node
 *               (resolved here: see struct zp_pipe_group)
 *   [debug]     synth_delay_ms, prove_delay_ms, inject, crash_at (tests only)
 * Relative paths are taken from the config file's directory.
 */
#include "pipe.h"
#include "knobs.h"
#include "synth.h"
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
#include <xxhash.h>

struct ctx {
	struct zp_pipe_config *c;
	char base[PATH_MAX];
	char err[256];
};

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

static bool parse_bool(const char *s)
{
	return !strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "true") || !strcasecmp(s, "on");
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
		if (!realpath(a, dirs[*n]))
			return -errno;
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
		return c->keep_arena = parse_bool(v), 0;
	if (!strcmp(k, "public"))
		return c->public_access = parse_bool(v), 0;
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
		return zp_err_set(-ENODEV, "%s: [group %s] gpus: %s is not an NVIDIA GPU (%s/bus/pci/devices/%s: "
				  "missing, or vendor/class not 0x10de/0x03xxxx)", cfg, g->name, bus,
				  zp_pipe_sysfs_root(), bus);
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/bus/pci/devices", zp_pipe_sysfs_root());
	DIR *d = opendir(p);
	if (!d)
		return zp_err_set(-errno, "%s: %s", cfg, p);
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
		return zp_err_set(ZP_ERANGE, "%s: [group %s]: gpus = %u, at most %d", cfg, g->name, g->gpus,
				  ZP_PIPE_MAX_GPUS);
	for (unsigned i = g->gpus; i < ZP_PIPE_MAX_GPUS; i++)
		if (g->gpu_numa_cfg[i] != -2)
			return zp_err_set(-EINVAL, "%s: [group %s] gpu.%u.numa: the group has %u GPU(s)", cfg,
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
				return zp_err_set(-EINVAL, "%s: [group %s] gpus: '%s' is neither a CUDA ordinal nor a "
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
				return zp_err_set(-EINVAL, "%s: [group %s] gpus: GPU %d listed twice", cfg, g->name,
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
		return zp_pipe_parse_size(v, &g->slot_size);
	if (!strcmp(k, "jobs"))
		return parse_u32(v, &g->jobs);
	if (!strcmp(k, "max_parts"))
		return parse_u32(v, &g->max_parts);
	if (!strcmp(k, "gpud_threads"))
		return parse_u32(v, &g->gpud_threads);
	if (!strcmp(k, "synth_threads"))
		return parse_u32(v, &g->synth_threads);
	if (!strcmp(k, "backend"))
		return strcmp(v, "cpu") && strcmp(v, "cuda") ? -EINVAL : (snprintf(g->backend, sizeof g->backend, "%s", v), 0);
	if (!strcmp(k, "arena"))
		return snprintf(g->arena, sizeof g->arena, "%s", v) < (int)sizeof g->arena ? 0 : -ENAMETOOLONG;
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
	else if (!strcmp(sec, "debug"))
		r = !strcmp(k, "synth_delay_ms")   ? parse_u32(v, &c->synth_delay_ms)
		    : !strcmp(k, "prove_delay_ms") ? parse_u32(v, &c->prove_delay_ms)
		    : !strcmp(k, "inject") ? (snprintf(c->inject, sizeof c->inject, "%s", v) < (int)sizeof c->inject ? 0 : -ENAMETOOLONG)
		    : !strcmp(k, "crash_at") ? (snprintf(c->crash_at, sizeof c->crash_at, "%s", v) < (int)sizeof c->crash_at ? 0 : -ENAMETOOLONG)
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
			if (r)
				snprintf(x->err, sizeof x->err, "[%s] synth = %s: %s", sec, v, zp_err_msg());
			if (r)
				return 0;
		} else if (!strcmp(k, "setup"))
			r = !strcmp(v, "device") ? (key->setup_device = 1, 0) : !strcmp(v, "file") ? (key->setup_device = 0, 0)
			  : -EINVAL;
	} else if (!strncmp(sec, "group ", 6)) {
		struct zp_pipe_group *g = group_for(c, sec + 6);
		r = g ? group_key(g, k, v) : -E2BIG;
	}
	if (r == 0)
		return 1;
	snprintf(x->err, sizeof x->err, "[%s] %s = %s: %s", sec, k, v,
		 r == -ENOENT ? "unknown setting" : r == -E2BIG ? "too many (or bad name)" : zp_strerror(r));
	return 0;
}

static int check(struct zp_pipe_config *c)
{
	if (!c->run_dir[0])
		return zp_err_set(-EINVAL, "%s: [run] dir is required", c->path);
	if (strlen(c->run_dir) + 24 > ZP_IPC_PATH_MAX)
		return zp_err_set(-ENAMETOOLONG, "%s: [run] dir '%s' is too long for ipc sockets (%zu bytes; "
				  "nanomsg's ipc paths end at %d)", c->path, c->run_dir, strlen(c->run_dir),
				  ZP_IPC_PATH_MAX);
	if (!c->n_keys || !c->n_groups)
		return zp_err_set(-EINVAL, "%s: at least one [key NAME] and one [group NAME]", c->path);
	for (unsigned i = 0; i < c->n_keys; i++) {
		const struct zp_pipe_key *k = &c->keys[i];
		if (k->setup_device && !k->synth[0])
			return zp_err_set(-EINVAL, "%s: [key %s] setup = device needs synth = (the circuit to make the key for)",
					  c->path, k->name);
		if (k->setup_device && k->zkey[0])
			return zp_err_set(-EINVAL, "%s: [key %s] has both zkey and setup = device", c->path, k->name);
		if (k->synth[0] && k->r1cs[0])
			return zp_err_set(-EINVAL, "%s: [key %s] has both synth and r1cs", c->path, k->name);
		if (!k->zkey[0] && !k->setup_device)
			return zp_err_set(-EINVAL, "%s: [key %s] needs zkey (or synth = .. with setup = device)", c->path,
					  k->name);
	}
	if (c->restart_min_ms > c->restart_max_ms)
		c->restart_max_ms = c->restart_min_ms;
	for (unsigned i = 0; i < c->n_groups; i++) {
		struct zp_pipe_group *g = &c->groups[i];
		if (!g->slots || !g->synth_workers || !g->gpus || !g->jobs || !g->max_parts ||
		    g->synth_workers + g->gpus + 4 > ZP_ARENA_MAX_PROCS)
			return zp_err_set(ZP_ERANGE, "%s: [group %s]: slots, synth_workers, gpus, jobs and "
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
	c->keep_arena = true;
	if (!realpath(path, c->path))
		return zp_err_set(-errno, "config %s", path);
	snprintf(x.base, sizeof x.base, "%s", c->path);
	snprintf(x.base, sizeof x.base, "%s", dirname(x.base));
	int line = ini_parse(c->path, handler, &x);
	if (line < 0)
		return zp_err_set(-EIO, "config %s: cannot read", c->path);
	if (line > 0)
		return zp_err_set(-EINVAL, "config %s line %d: %s", c->path, line,
				  x.err[0] ? x.err : "syntax error");
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

static int vpath(char *buf, size_t n, const char *pre, const struct zp_pipe_config *c, const char *fmt,
		 va_list ap)
{
	char leaf[256];
	vsnprintf(leaf, sizeof leaf, fmt, ap);
	int l = snprintf(buf, n, "%s%s/%s", pre, c->run_dir, leaf);
	return l < 0 || (size_t)l >= n ? -ENAMETOOLONG : 0;
}

int zp_pipe_url(char *buf, size_t n, const struct zp_pipe_config *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vpath(buf, n, "ipc://", c, fmt, ap);
	va_end(ap);
	if (r == 0 && strlen(buf) - 6 > ZP_IPC_PATH_MAX)
		r = zp_err_set(-ENAMETOOLONG, "ipc path %s: over %d bytes", buf + 6, ZP_IPC_PATH_MAX);
	return r;
}

int zp_pipe_path(char *buf, size_t n, const struct zp_pipe_config *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vpath(buf, n, "", c, fmt, ap);
	va_end(ap);
	return r;
}
