/*
 * test_submit — job assembly as a unit: the supervisor's client API (libzpsup, sup_api_handle) on
 * a struct sup of the test's own, with a real arena (shm backing) and no daemons. A submit
 * becomes a manifest (one line per partition, in order), an arena job (key, partitions, priority,
 * canonical output, the manifest as inputs), its output directory and its token; the same token
 * again is the same job; a refused submit (too many partitions, an output outside allow_output,
 * a bad input, an unknown or failed key, a full arena after the output was made) leaves no
 * manifest, no job and no directory behind.
 */
#include "sup.h"
#include "config.h"
#include "files.h"
#include "hint.h"
#include "rundir.h"
#include "zp_err.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/zp_test.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

static char T[PATH_MAX];
static struct sup state;
static struct sup *sup = &state;

static const char *at(const char *fmt, const char *leaf)
{
	static char b[4][PATH_MAX];
	static int k;
	char *o = b[k++ & 3];
	char f[64];
	snprintf(f, sizeof f, "%%s/%s", fmt);
	snprintf(o, PATH_MAX, f, T, leaf);
	return o;
}

static bool exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* One request through the API handler; the reply parsed (caller decrefs). */
static json_t *call(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_t *call(const char *fmt, ...)
{
	char req[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(req, sizeof req, fmt, ap);
	va_end(ap);
	char *rep = sup_api_handle(sup, req, strlen(req));
	json_error_t e;
	json_t *j = rep ? json_loads(rep, 0, &e) : NULL;
	if (!j)
		fprintf(stderr, "  reply not JSON: %s\n", rep ? rep : "(none)");
	free(rep);
	return j;
}

static bool ok_of(json_t *j) { return json_is_true(json_object_get(j, "ok")); }
static const char *error_of(json_t *j) { return json_string_value(json_object_get(j, "error")) ?: ""; }

static unsigned active_jobs(void)
{
	const struct zp_arena_hdr *h = zp_arena_hdr(sup->g[0].a);
	unsigned n = 0;
	for (uint32_t j = 0; j < h->job_count; j++)
		n += zp_word_state(zp_arena_load64(&zp_arena_job_rec(sup->g[0].a, j)->word)) == ZP_JOB_ACTIVE;
	return n;
}

static int setup(void)
{
	char cfg[PATH_MAX + 16], text[2048];
	snprintf(cfg, sizeof cfg, "%s/zkpipe.ini", T);
	/* shm backing: no hugepages asked of the machine; the arena's name is this test's own */
	snprintf(text, sizeof text,
		 "[run]\ndir = run\nallow_input = in\nallow_output = out\nbacking = shm\n"
		 "[key s]\nsynth = synth:n=64\nsetup = device\n"
		 "[group g]\nslots = 2\njobs = 8\nmax_parts = 4\nsynth_workers = 1\narena = zptest_submit.%d\n",
		 (int)getpid());
	FILE *f = fopen(cfg, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		return perror(cfg), -1;
	static const char *dirs[] = { "in", "out", "out/j", "outside", "run", "run/in", "run/tokens", "run/results" };
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
		mkdir(at("%s", dirs[i]), 0700);
	if (zp_pipe_config_load(&sup->cfg, cfg) || sup_keys_validate(sup))
		return fprintf(stderr, "config: %s\n", zp_err_msg()), -1;
	struct zp_arena_params p;
	zp_pipe_arena_params(&sup->cfg, 0, &p);
	zp_arena_destroy(p.name, NULL);
	if (sup_arena_open(sup, 0, &p))
		return fprintf(stderr, "arena: %s\n", zp_err_msg()), -1;
	char url[ZP_PIPE_URL_MAX];
	if (zp_pipe_url(url, sizeof url, &sup->cfg, "g.jobs") || (sup->g[0].pub = zp_hint_pub(url)) < 0)
		return fprintf(stderr, "hint socket: %s\n", zp_err_msg()), -1;
	/* one gpud that has not given up: the group serves the key */
	sup->ch[0] = (struct child){ .group = 0, .role = ZP_ROLE_GPUD, .pidfd = -1 };
	sup->nch = 1;
	sup_keys_fit(sup);
	return 0;
}

static void accepted(void)
{
	json_t *j = call("{\"op\": \"submit\", \"key\": \"s\", \"inputs\": [\"synth:1\", \"synth:0x2\", \"synth:3\"], "
			 "\"output\": \"%s\", \"priority\": 5, \"token\": \"t1\"}", at("out/j/../%s", "a/b"));
	CHECK(ok_of(j), "submit refused: %s", error_of(j));
	uint64_t cid = (uint64_t)json_integer_value(json_object_get(j, "job"));
	CHECK((cid & 0xff) == 0 && !strcmp(json_string_value(json_object_get(j, "token")) ?: "", "t1") &&
	      !strcmp(json_string_value(json_object_get(j, "group")) ?: "", "g"), "reply: job %llu",
	      (unsigned long long)cid);
	json_decref(j);

	/* the manifest: one line per partition, in the request's order */
	const char *man = at("run/in/%s", "t1");
	char line[64];
	CHECK(zp_manifest_line(man, 0, line, sizeof line) == 0 && !strcmp(line, "synth:1"), "line 0: %s", line);
	CHECK(zp_manifest_line(man, 1, line, sizeof line) == 0 && !strcmp(line, "synth:0x2"), "line 1: %s", line);
	CHECK(zp_manifest_line(man, 2, line, sizeof line) == 0 && !strcmp(line, "synth:3"), "line 2: %s", line);
	CHECK(zp_manifest_line(man, 3, line, sizeof line) == ZP_ERANGE, "a 4th line");

	/* the arena job: what synthd and gpud will read */
	zp_job_h h;
	CHECK(zp_arena_find_job(sup->g[0].a, cid >> 8, &h) == 0, "job %llu not in the arena", (unsigned long long)cid);
	const struct zp_arena_job *r = zp_arena_job_rec(sup->g[0].a, h.idx);
	CHECK(zp_word_state(zp_arena_load64(&r->word)) == ZP_JOB_ACTIVE && r->nparts == 3 && r->priority == 5 &&
	      !strcmp(r->key_id, "s") && !strcmp(r->inputs, man) && !strcmp(r->output, at("out/%s", "a/b")),
	      "job record: %u parts, prio %u, key %s, inputs %s, output %s", r->nparts, r->priority, r->key_id,
	      r->inputs, r->output);
	for (uint32_t p = 0; p < 3; p++)
		CHECK(zp_word_state(zp_arena_load64(&zp_arena_part_rec(sup->g[0].a, h.idx, p)->word)) == ZP_PART_PENDING,
		      "partition %u not PENDING", p);
	struct stat st;
	CHECK(stat(at("out/%s", "a/b"), &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700,
	      "output directory");
	CHECK(exists(at("run/tokens/%s", "t1")), "token file");

	/* the same token again: the same job, not a second one */
	j = call("{\"op\": \"submit\", \"key\": \"s\", \"inputs\": [\"synth:9\"], \"output\": \"%s\", \"token\": \"t1\"}",
		 at("out/%s", "c"));
	CHECK(ok_of(j) && (uint64_t)json_integer_value(json_object_get(j, "job")) == cid &&
	      json_is_true(json_object_get(j, "duplicate")), "resubmit: %s", error_of(j));
	json_decref(j);
	CHECK(active_jobs() == 1 && !exists(at("out/%s", "c")), "resubmit made a job or a directory");
	/* an output in use by an active job */
	j = call("{\"op\": \"submit\", \"key\": \"s\", \"inputs\": [\"synth:1\"], \"output\": \"%s\", \"token\": \"t9\"}",
		 at("out/%s", "a/b"));
	CHECK(!ok_of(j) && strstr(error_of(j), "in use") && !exists(at("run/in/%s", "t9")), "busy output: %s",
	      error_of(j));
	json_decref(j);
}

/* A refused submit with token tok leaves no manifest, no job, and not the directory it named. */
static void refused(const char *what, const char *tok, const char *must_name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void refused(const char *what, const char *tok, const char *must_name, const char *fmt, ...)
{
	char req[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(req, sizeof req, fmt, ap);
	va_end(ap);
	unsigned before = active_jobs();
	json_t *j = call("%s", req);
	CHECK(j && !ok_of(j) && strstr(error_of(j), must_name), "%s: ok %d, error %s", what, ok_of(j), error_of(j));
	json_decref(j);
	CHECK(!exists(at("run/in/%s", tok)) && !exists(at("run/tokens/%s", tok)), "%s: manifest or token left", what);
	CHECK(active_jobs() == before, "%s: a job was made", what);
	CHECK(!exists(at("out/%s", "new")) && !exists(at("outside/%s", "new")), "%s: a directory was made", what);
}

static void refusals(void)
{
	const char *out = at("out/%s", "new/deep");
	refused("too many partitions", "r1", "too many partitions",
		"{\"op\": \"submit\", \"key\": \"s\", \"inputs\": [\"synth:1\", \"synth:2\", \"synth:3\", \"synth:4\", "
		"\"synth:5\"], \"output\": \"%s\", \"token\": \"r1\"}", out);
	refused("output outside allow_output", "r2", "output",
		"{\"op\": \"submit\", \"key\": \"s\", \"inputs\": [\"synth:1\"], \"output\": \"%s\", \"token\": \"r2\"}",
		at("outside/%s", "new"));
	refused("a bad input", "r3", "inputs[1]",
		"{\"op\": \"submit\", \"key\": \"s\", \"inputs\": [\"synth:1\", \"/etc/passwd\"], \"output\": \"%s\", "
		"\"token\": \"r3\"}", out);
	refused("unknown key", "r4", "s)",
		"{\"op\": \"submit\", \"key\": \"nokey\", \"inputs\": [\"synth:1\"], \"output\": \"%s\", \"token\": \"r4\"}",
		out);
	refused("bad token", "r/5", "token",
		"{\"op\": \"submit\", \"key\": \"s\", \"inputs\": [\"synth:1\"], \"output\": \"%s\", \"token\": \"r/5\"}",
		out);
	/* a failed key refuses new jobs ... */
	sup->keys[0].state = KH_FAILED;
	snprintf(sup->keys[0].reason, sizeof sup->keys[0].reason, "test: the gpud could not load it");
	refused("failed key", "r6", "could not load",
		"{\"op\": \"submit\", \"key\": \"s\", \"inputs\": [\"synth:1\"], \"output\": \"%s\", \"token\": \"r6\"}",
		out);
	/* ... but a re-sent submit of a job it accepted before still gets that job */
	json_t *j = call("{\"op\": \"submit\", \"key\": \"s\", \"inputs\": [\"synth:1\"], \"output\": \"%s\", "
			 "\"token\": \"t1\"}", out);
	CHECK(ok_of(j) && json_is_true(json_object_get(j, "duplicate")), "resubmit to a failed key: %s", error_of(j));
	json_decref(j);
	sup->keys[0].state = KH_LOADING;

	/* the arena full (jobs = 8): refused after its output directory was made, which goes again */
	int full = -1;
	for (int i = 0; i < 10 && full < 0; i++) {
		char tok[8], leaf[32];
		snprintf(tok, sizeof tok, "f%d", i);
		snprintf(leaf, sizeof leaf, "f%d/x", i);
		j = call("{\"op\": \"submit\", \"key\": \"s\", \"inputs\": [\"synth:1\"], \"output\": \"%s\", "
			 "\"token\": \"%s\"}", at("out/%s", leaf), tok);
		if (!ok_of(j)) {
			full = i;
			snprintf(leaf, sizeof leaf, "f%d", i);
			CHECK(strstr(error_of(j), "retry later") && !exists(at("out/%s", leaf)) &&
			      !exists(at("run/in/%s", tok)) && !exists(at("run/tokens/%s", tok)),
			      "full arena: %s; directory, manifest or token left", error_of(j));
		}
		json_decref(j);
	}
	CHECK(full == 7 && active_jobs() == 8, "arena of 8 jobs full after %d more (%u active)", full, active_jobs());
}

int main(void)
{
	umask(022);
	sup->g[0].pub = -1;
	zp_test_tmpdir("zp_submit", T);
	int rc = setup();
	if (rc == 0) {
		accepted();
		refusals();
	}
	if (sup->g[0].a) {
		zp_arena_close(sup->g[0].a);
		zp_arena_destroy(sup->cfg.groups[0].arena, NULL);
	}
	if (sup->g[0].pub >= 0)
		zp_hint_close(sup->g[0].pub);
	return zp_test_done("submit", T) || rc;
}
