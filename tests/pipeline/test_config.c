/*
 * test_config — pipeline/config.c as a unit: what a config file sets (defaults, relative paths
 * taken from the file's directory, sizes, lists, loopback defaults, GPU lists) and, for each kind
 * of bad input, that zp_pipe_config_load refuses it (return code) with an error that names the
 * file, the line, the section, the key and what the key accepts — the parts a user needs to fix
 * it. The error's parts are checked, not its wording.
 */
#include "config.h"
#include "zp_err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/zp_test.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

static char T[PATH_MAX];                 /* the temporary directory (resolved) */
static char cfg_path[PATH_MAX];
static struct zp_pipe_config C;          /* large: not on the stack */

/* a section with no settings does not exist for inih: every one here sets something */
static const char *base_ok = "[run]\ndir = run\n[key k]\nzkey = k.zkey\n[group g]\nnode = 0\n";

/* Write the config file (a fresh name each time, so a message naming an older file fails). */
static void write_cfg(const char *text)
{
	static int n;
	snprintf(cfg_path, sizeof cfg_path, "%s/c%d.ini", T, n++);
	FILE *f = fopen(cfg_path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(cfg_path);
		exit(1);
	}
}

static int load(const char *text)
{
	write_cfg(text);
	zp_err_clear();
	return zp_pipe_config_load(&C, cfg_path);
}

/* The message holds every one of the NULL-terminated parts. */
static bool names(const char *msg, ...)
{
	va_list ap;
	va_start(ap, msg);
	bool ok = true;
	for (const char *p; (p = va_arg(ap, const char *));)
		if (!strstr(msg, p)) {
			fprintf(stderr, "  message lacks '%s': %s\n", p, msg);
			ok = false;
		}
	va_end(ap);
	return ok;
}

static const char *line_no(int n)
{
	static char b[32];
	snprintf(b, sizeof b, "line %d", n);
	return b;
}

/* A bad value: refused with -EINVAL, naming file, line, section, key, value and what it accepts. */
static void bad_value(const char *text, int line, const char *sec, const char *key, const char *val,
		      const char *accepted)
{
	int r = load(text);
	CHECK(r == -EINVAL, "[%s] %s = %s: load returned %d, wanted -EINVAL", sec, key, val, r);
	CHECK(names(zp_err_msg(), cfg_path, line_no(line), sec, key, val, accepted, (char *)NULL),
	      "[%s] %s = %s: the error does not name all of it", sec, key, val);
}

static void defaults(void)
{
	CHECK(load(base_ok) == 0, "minimal config: %s", zp_err_msg());
	char want[PATH_MAX + 16];
	snprintf(want, sizeof want, "%s/run", T);
	CHECK(!strcmp(C.run_dir, want), "run dir %s, wanted %s (relative to the config's directory)", C.run_dir, want);
	snprintf(want, sizeof want, "%s/k.zkey", T);
	CHECK(C.n_keys == 1 && !strcmp(C.keys[0].name, "k") && !strcmp(C.keys[0].zkey, want), "key k: zkey %s",
	      C.keys[0].zkey);
	CHECK(!strcmp(C.path, cfg_path), "path %s, wanted %s", C.path, cfg_path);
	CHECK(C.max_attempts == 3 && C.restart_min_ms == 100 && C.restart_max_ms == 5000 && C.orphan_timeout_s == 60 &&
	      C.stuck_timeout_s == 120 && C.start_timeout_s == 1800 && C.http_connections == 64 &&
	      C.http_timeout_s == 10 && C.http_per_address == 16 && C.write_retry_s == 300 && C.keep_arena && !C.public_access && C.mem_mode == ZP_MEMLIMIT_AUTO &&
	      C.backing == ZP_BACKING_AUTO && !C.synthd_mem_limit && !C.http[0] && !C.cluster.database[0],
	      "[run]/[limits] defaults");
	const struct zp_pipe_key *k = &C.keys[0];
	CHECK(k->witness_timeout_s == 60 && k->witness_cpu_s == 120 && k->witness_memory == 4ull << 30 &&
	      !k->setup_device, "key defaults: timeout %u cpu %u memory %llu", k->witness_timeout_s, k->witness_cpu_s,
	      (unsigned long long)k->witness_memory);
	const struct zp_pipe_group *g = &C.groups[0];
	CHECK(C.n_groups == 1 && !strcmp(g->name, "g") && g->node == 0 && g->gpus == 1 && g->synth_workers == 2 &&
	      g->slots == 4 && g->slot_size == 2u << 20 && g->jobs == 64 && g->max_parts == 16 && !g->backend[0] &&
	      g->gpu_ordinal[0] == 0 && g->gpu_node[0] == 0, "group defaults");
	/* the arena's default name: zp<hash of the run dir>.<group>, the same for every process */
	size_t an = strlen(g->arena);
	CHECK(!strncmp(g->arena, "zp", 2) && an == 2 + 8 + 2 && !strcmp(g->arena + 10, ".g"), "arena %s", g->arena);
	char first[sizeof g->arena];
	snprintf(first, sizeof first, "%s", g->arena);
	CHECK(load(base_ok) == 0 && !strcmp(C.groups[0].arena, first), "arena name not stable");
	CHECK(zp_pipe_key_find(&C, "k") == &C.keys[0] && !zp_pipe_key_find(&C, "x"), "zp_pipe_key_find");
	CHECK(zp_pipe_group_find(&C, "g") == 0 && zp_pipe_group_find(&C, "x") == -ENOENT, "zp_pipe_group_find");
}

static void values(void)
{
	char text[4096];
	snprintf(text, sizeof text,
		 "; a comment\n[run]\ndir = %s/r2\nlisten = tcp://:5555\nhttp = 9464\nkeep_arena = no\npublic = yes\n"
		 "allow_input = in:/\nallow_output = out\nbacking = shm\n"
		 "[limits]\nmax_attempts = 5\nsynthd_memory = 512M\nmemory_limit = rlimit\nrestart_min_ms = 9000\n"
		 "[key k]\nzkey = /abs/k.zkey\nwitness_timeout_s = 7\nwitness_memory = 1G\n"
		 "[key s]\nsynth = synth:n=1024\nsetup = device\n"
		 "[group g]\nnode = -1\ngpus = 0,2\ngpu.1.numa = 1\nslot_size = auto\nbackend = cuda\narena = myarena\n"
		 "[group h]\nslot_size = 1G\n[topology]\nnode0 = 0-3\n[debug]\nhold_at = prove\n",
		 T);
	CHECK(load(text) == 0, "full config: %s", zp_err_msg());
	char in[PATH_MAX + 8], out[PATH_MAX + 8];
	snprintf(in, sizeof in, "%s/in", T);
	snprintf(out, sizeof out, "%s/out", T);
	CHECK(!strcmp(C.listen, "tcp://127.0.0.1:5555"), "listen without a host binds loopback: %s", C.listen);
	CHECK(!strcmp(C.http, "127.0.0.1:9464"), "http = port binds loopback: %s", C.http);
	CHECK(!C.keep_arena && C.public_access, "keep_arena / public");
	CHECK(C.n_in == 2 && !strcmp(C.allow_in[0], in) && !strcmp(C.allow_in[1], "/"), "allow_input %u: %s", C.n_in,
	      C.allow_in[0]);
	CHECK(C.n_out == 1 && !strcmp(C.allow_out[0], out), "allow_output: %s", C.allow_out[0]);
	CHECK(C.backing == ZP_BACKING_SHM, "backing %d", C.backing);
	CHECK(C.max_attempts == 5 && C.synthd_mem_limit == 512ull << 20 && C.mem_mode == ZP_MEMLIMIT_RLIMIT,
	      "[limits]");
	CHECK(C.restart_min_ms == 9000 && C.restart_max_ms == 9000, "restart_max_ms raised to min: %u",
	      C.restart_max_ms);
	CHECK(!strcmp(C.keys[0].zkey, "/abs/k.zkey") && C.keys[0].witness_timeout_s == 7 &&
	      C.keys[0].witness_cpu_s == 14 && C.keys[0].witness_memory == 1ull << 30, "key k");
	CHECK(C.n_keys == 2 && C.keys[1].setup_device && !strcmp(C.keys[1].synth, "synth:n=1024"), "key s");
	const struct zp_pipe_group *g = &C.groups[0];
	CHECK(C.n_groups == 2 && g->node == -1 && g->gpus == 2 && g->gpu_ordinal[0] == 0 && g->gpu_ordinal[1] == 2 &&
	      g->gpu_node[0] == -1 && g->gpu_node[1] == 1, "gpus = 0,2 with gpu.1.numa = 1");
	CHECK(g->slot_size == 0 && !strcmp(g->backend, "cuda") && !strcmp(g->arena, "myarena"), "group g");
	CHECK(C.groups[1].slot_size == 1ull << 30, "group h slot_size %llu", (unsigned long long)C.groups[1].slot_size);
	CHECK(!strcmp(C.node_cpus[0], "0-3"), "[topology] node0");
	CHECK(!strcmp(C.hold_at, "prove"), "[debug] hold_at: '%s'", C.hold_at);
	struct zp_arena_params p;
	zp_pipe_arena_params(&C, 1, &p);
	CHECK(p.slot_count == 4 && p.slot_size == 1ull << 30 && p.job_count == 64 && p.max_parts == 16 &&
	      p.max_attempts == 5 && p.backing == ZP_BACKING_SHM && p.proc_count == 2 + 1 + 8 &&
	      !strcmp(p.name, C.groups[1].arena), "zp_pipe_arena_params");
}

static void sizes(void)
{
	static const struct { const char *s; uint64_t v; } ok[] = {
		{ "0", 0 }, { "123", 123 }, { "64k", 64 << 10 }, { "64K", 64 << 10 }, { "2M", 2 << 20 },
		{ "1G", 1ull << 30 }, { "4GiB", 4ull << 30 }, { "3MB", 3 << 20 }, { "16777216", 16777216 },
	};
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		uint64_t v = 1;
		CHECK(zp_pipe_parse_size(ok[i].s, &v) == 0 && v == ok[i].v, "size %s: %llu", ok[i].s,
		      (unsigned long long)v);
	}
	static const char *bad[] = { "", "x", "M", "12T", "1Mx", "1 M", "-1k", "99999999999G", "18446744073709551616" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		uint64_t v = 77;
		CHECK(zp_pipe_parse_size(bad[i], &v) == -EINVAL && v == 77, "size '%s' accepted", bad[i]);
	}
}

/* [group] gpu_memory: sizes in any of the size forms, 0 = the whole card, default 0; stored in whole MiB
 * (what ZP_CUDA_MEM_CAP_MB carries); refused naming file, line, section, key and value otherwise */
static void gpu_memory(void)
{
	static const struct { const char *s; uint64_t mib; } ok[] = {
		{ "24G", 24576 }, { "24GiB", 24576 }, { "24GB", 24576 }, { "24576M", 24576 }, { "25769803776", 24576 },
		{ "0", 0 }, { "1G", 1024 }, { "141G", 144384 }, { "16777216M", 16777216 }, { "1073741825", 1024 },
	};
	char text[512];
	CHECK(load(base_ok) == 0 && C.groups[0].gpu_memory == 0, "default gpu_memory %llu", (unsigned long long)C.groups[0].gpu_memory);
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		uint64_t mib = 7;
		CHECK(zp_pipe_parse_gpu_memory(ok[i].s, &mib) == 0 && mib == ok[i].mib, "gpu memory %s: %llu MiB", ok[i].s,
		      (unsigned long long)mib);
		snprintf(text, sizeof text, "%sgpu_memory = %s\n", base_ok, ok[i].s);
		CHECK(load(text) == 0 && C.groups[0].gpu_memory == ok[i].mib << 20, "[group g] gpu_memory = %s: %s %llu",
		      ok[i].s, zp_err_msg(), (unsigned long long)C.groups[0].gpu_memory);
	}
	static const struct { const char *s; int r; } bad[] = {
		{ "24X", -EINVAL }, { "", -EINVAL }, { "-24G", -EINVAL }, { "24 G", -EINVAL }, { "whole", -EINVAL },
		{ "24", ZP_ERANGE },         /* 24 bytes: meant 24G */
		{ "1023M", ZP_ERANGE }, { "16777217M", ZP_ERANGE }, { "17592186044416k", ZP_ERANGE },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		uint64_t mib = 7;
		CHECK(zp_pipe_parse_gpu_memory(bad[i].s, &mib) == bad[i].r && mib == 7, "gpu memory '%s' accepted or wrong code",
		      bad[i].s);
		if (!bad[i].s[0])
			continue; /* inih: "key =" is an empty value, the same path */
		snprintf(text, sizeof text, "[run]\ndir = r\n[key k]\nzkey = k\n[group g]\nnode = 0\ngpu_memory = %s\n", bad[i].s);
		bad_value(text, 7, "[group g]", "gpu_memory", bad[i].s, "the whole card");
	}
	/* a second group keeps its own */
	CHECK(load("[run]\ndir = r\n[key k]\nzkey = k\n[group g]\ngpu_memory = 16G\n[group h]\nnode = 0\n") == 0 &&
	      C.groups[0].gpu_memory == 16ull << 30 && C.groups[1].gpu_memory == 0, "per group: %s", zp_err_msg());
}

static void errors(void)
{
	/* a bad value: the line it is on, its section, key, value, and what the key accepts */
	bad_value("[run]\ndir = r\nkeep_arena = maybe\n[key k]\nzkey = k\n[group g]\n", 3, "[run]", "keep_arena",
		  "maybe", "yes | no");
	bad_value("[run]\ndir = r\n\n\nbacking = tmpfs\n", 5, "[run]", "backing", "tmpfs", "hugetlbfs | memfd-hugetlb");
	bad_value("[limits]\nmemory_limit = some\n", 2, "[limits]", "memory_limit", "some", "auto | cgroup | rlimit | off");
	bad_value("[limits]\nsynthd_memory = 12T\n", 2, "[limits]", "synthd_memory", "12T", "a size");
	bad_value("[limits]\nmax_attempts = -3\n", 2, "[limits]", "max_attempts", "-3", "a positive integer");
	bad_value("[group g]\nbackend = opencl\n", 2, "[group g]", "backend", "opencl", "cpu | cuda");
	bad_value("[group g]\nnode = 16\n", 2, "[group g]", "node", "16", "a NUMA node -1..15");
	bad_value("[group g]\nslot_size = 0\n", 2, "[group g]", "slot_size", "0", "auto");
	bad_value("[group g]\ngpu.0.numa = x\n", 2, "[group g]", "gpu.0.numa", "x", "a NUMA node");
	bad_value("[key k]\nsetup = gpu\n", 2, "[key k]", "setup", "gpu", "device | file");
	bad_value("[key k]\nwitness_timeout_s = 0\n", 2, "[key k]", "witness_timeout_s", "0", "> 0");
	bad_value("[debug]\nhold_at = proving\n", 2, "[debug]", "hold_at", "proving", "start | synth | synthesized | prove | proved");
	bad_value("[key k]\nsynth = synth:n=abc\n", 2, "[key k]", "synth", "synth:n=abc", "synth:n=<constraints>");

	/* an unknown setting names the section's known ones; an unknown section lists the sections */
	int r = load("[run]\ndir = r\nallow_inputs = /tmp\n");
	CHECK(r == -EINVAL && names(zp_err_msg(), cfg_path, line_no(3), "[run]", "allow_inputs", "allow_input",
				     "allow_output", "listen", (char *)NULL), "unknown setting: %d", r);
	r = load("[run]\ndir = r\n[nosuch]\nx = 1\n");
	CHECK(r == -EINVAL && names(zp_err_msg(), cfg_path, line_no(4), "[nosuch]", "[run]", "[group NAME]", "[cluster]",
				     (char *)NULL), "unknown section: %d", r);
	/* a line that is not INI; the first error wins over later ones */
	r = load("[run]\ndir = r\nthis is not ini\n");
	CHECK(r == -EINVAL && names(zp_err_msg(), cfg_path, line_no(3), (char *)NULL), "syntax error: %d", r);
	r = load("[run]\npublic = perhaps\nkeep_arena = maybe\n");
	CHECK(r == -EINVAL && names(zp_err_msg(), line_no(2), "public", (char *)NULL) &&
	      !strstr(zp_err_msg(), "keep_arena"), "first error: %s", zp_err_msg());
	/* a directory list names the entry that is not a directory */
	r = load("[run]\ndir = r\nallow_output = out:nonexistent\n");
	CHECK(r < 0 && names(zp_err_msg(), cfg_path, line_no(3), "allow_output", "nonexistent", (char *)NULL),
	      "allow_output: %d", r);
	/* a group name that is not a name */
	r = load("[group a/b]\nslots = 1\n");
	CHECK(r == -EINVAL && names(zp_err_msg(), cfg_path, line_no(2), "[group a/b]", (char *)NULL), "group name: %d",
	      r);

	/* whole-file checks: name the file and what is missing or contradictory */
	r = load("[key k]\nzkey = k\n[group g]\nnode = 0\n");
	CHECK(r == -EINVAL && names(zp_err_msg(), cfg_path, "[run] dir", (char *)NULL), "no run dir: %d", r);
	r = load("[run]\ndir = r\n[group g]\nnode = 0\n");
	CHECK(r == -EINVAL && names(zp_err_msg(), cfg_path, "[key NAME]", (char *)NULL), "no key: %d", r);
	r = load("[run]\ndir = r\n[key k]\nzkey = k\nsynth = synth:n=64\nsetup = device\n[group g]\nnode = 0\n");
	CHECK(r == -EINVAL && names(zp_err_msg(), cfg_path, "[key k]", "zkey", "setup = device", (char *)NULL),
	      "zkey and setup = device: %d", r);
	r = load("[run]\ndir = r\n[key k]\nr1cs = k.r1cs\n[group g]\nnode = 0\n");
	CHECK(r == -EINVAL && names(zp_err_msg(), cfg_path, "[key k]", "zkey", (char *)NULL), "key without zkey: %d", r);
	r = load("[run]\ndir = r\n[key k]\nzkey = k\n[group g]\nslots = 0\n");
	CHECK(r == ZP_ERANGE && names(zp_err_msg(), cfg_path, "[group g]", "slots", (char *)NULL), "slots = 0: %d", r);
	r = load("[run]\ndir = r\n[key k]\nzkey = k\n[group g]\ngpus = 2\ngpu.3.numa = 0\n");
	CHECK(r == -EINVAL && names(zp_err_msg(), cfg_path, "[group g]", "gpu.3.numa", (char *)NULL),
	      "gpu.3.numa of 2: %d", r);
	r = load("[run]\ndir = r\n[key k]\nzkey = k\n[group g]\ngpus = 1,1\n");
	CHECK(r == -EINVAL && names(zp_err_msg(), cfg_path, "[group g]", "gpus", "twice", (char *)NULL),
	      "GPU listed twice: %d", r);
	char text[1024], longdir[200];
	memset(longdir, 'd', 100);
	longdir[100] = 0;
	snprintf(text, sizeof text, "[run]\ndir = /%s\n[key k]\nzkey = k\n[group g]\nnode = 0\n", longdir);
	r = load(text);
	CHECK(r == -ENAMETOOLONG && names(zp_err_msg(), cfg_path, "[run] dir", longdir, (char *)NULL),
	      "run dir too long for ipc: %d", r);
	char missing[PATH_MAX + 16];
	snprintf(missing, sizeof missing, "%s/none.ini", T);
	zp_err_clear();
	r = zp_pipe_config_load(&C, missing);
	CHECK(r == -ENOENT && names(zp_err_msg(), missing, (char *)NULL), "missing file: %d %s", r, zp_err_msg());
}

int main(void)
{
	zp_test_tmpdir("zp_config", T);
	char d[PATH_MAX + 8];
	snprintf(d, sizeof d, "%s/in", T);
	mkdir(d, 0700);
	snprintf(d, sizeof d, "%s/out", T);
	mkdir(d, 0700);
	defaults();
	values();
	sizes();
	gpu_memory();
	errors();
	return zp_test_done("config", T);
}
