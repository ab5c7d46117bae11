/*
 * cmd_client.c — `zkpipe submit | wait | status | cancel`: the client side of the
 * supervisor's API (JSON over nanomsg REQ/REP; see supervisor/jobs.c).
 *
 * Where the supervisor listens: --url URL, else --config FILE ([run] listen, or
 * ipc://<run dir>/api.ipc), else --run-dir DIR, else $ZKPIPE_URL, else $ZKPIPE_CONFIG.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "knobs.h"
#include "config.h"
#include "hint.h"
#include "rundir.h"
#include "sys.h"
#include "progress.h"
#include "zp_err.h"

#define CONN_OPTS { "url", 1, 0, 'U' }, { "config", 1, 0, 'C' }, { "run-dir", 1, 0, 'R' }
#define CONN_HELP "  --url URL | --config FILE | --run-dir DIR   where the supervisor listens\n" \
		  "                   (default: $ZKPIPE_URL, then $ZKPIPE_CONFIG)\n" \
		  "  --database URL   cluster mode: the cluster's database instead (zkpipe <command>\n" \
		  "                   --database URL --help; docs/cluster.md)\n"

static char url[ZP_PIPE_URL_MAX];

/* Handle a connection option; 1 if it was one. */
static int conn_opt(int o, const char *arg)
{
	static struct zp_pipe_config cfg;
	if (o == 'U')
		snprintf(url, sizeof url, "%s", arg);
	else if (o == 'R')
		zp_api_default_url(url, sizeof url, arg);
	else if (o == 'C') {
		if (zp_pipe_config_load(&cfg, arg)) {
			fprintf(stderr, "zkpipe: %s\n", zp_err_msg());
			exit(ZP_EX_CONFIG);
		}
		if (cfg.listen[0])
			snprintf(url, sizeof url, "%s", cfg.listen);
		else
			zp_api_default_url(url, sizeof url, cfg.run_dir);
	} else
		return 0;
	return 1;
}

static int conn_default(void)
{
	if (url[0])
		return 0;
	const char *u = zp_knobs()->url, *c = zp_knobs()->config;
	if (u && *u)
		return snprintf(url, sizeof url, "%s", u), 0;
	if (c && *c)
		return conn_opt('C', c), 0;
	fprintf(stderr, "zkpipe: where is the supervisor? give --url, --config or --run-dir\n");
	return -1;
}

/* One request: the reply object whether ok or not; NULL when unreachable (message unless quiet). */
static json_t *call_any(const char *u, json_t *req, int timeout_ms, int quiet)
{
	char *txt = json_dumps(req, JSON_COMPACT), *rep = NULL;
	zp_err_clear();
	int r = txt ? zp_api_call(u, txt, &rep, timeout_ms) : -ENOMEM;
	free(txt);
	if (r) {
		if (!quiet)
			fprintf(stderr, "zkpipe: %s\n", zp_err_text(r));
		return NULL;
	}
	json_error_t e;
	json_t *j = json_loads(rep, 0, &e);
	free(rep);
	if (!j && !quiet)
		fprintf(stderr, "zkpipe: bad reply: %s\n", e.text);
	return j;
}

/* The exit code for a refused request: by its "code" (a key that cannot be served, an unknown
 * job), else EX_API. */
static int refused_exit(json_t *rep)
{
	const char *c = json_string_value(json_object_get(rep, "code"));
	return !c ? EX_API : !strcmp(c, "key_failed") || !strcmp(c, "unknown_key") ? EX_KEY
	       : !strcmp(c, "unknown_job") ? EX_NO_JOB : EX_API;
}

static int last_refusal = EX_API;

json_t *zp_client_call(const char *u, json_t *req, int timeout_ms, int quiet)
{
	json_t *j = call_any(u, req, timeout_ms, quiet);
	last_refusal = EX_API;
	if (j && !json_is_true(json_object_get(j, "ok"))) {
		if (!quiet)
			fprintf(stderr, "zkpipe: %s\n", json_string_value(json_object_get(j, "error")));
		last_refusal = refused_exit(j);
		json_decref(j);
		return NULL;
	}
	return j;
}

/* Absolute path of p; its parent must exist (the file itself need not). */
static int absolute(const char *p, char *out)
{
	if (realpath(p, out))
		return 0;
	char a[PATH_MAX], b[PATH_MAX], dir[PATH_MAX];
	snprintf(a, sizeof a, "%s", p);
	snprintf(b, sizeof b, "%s", p);
	if (!realpath(dirname(a), dir))
		return -errno;
	return snprintf(out, PATH_MAX, "%s/%s", dir, basename(b)) < PATH_MAX ? 0 : -ENAMETOOLONG;
}

/* ---------------------------------------------------------------- submit */
static const char submit_help[] =
	"usage: zkpipe submit --key K --output DIR [--priority N] [--token T] [--overwrite]\n"
	"                     [--wait [--timeout S]] WTNS...\n"
	"       zkpipe submit --key K --output DIR [--input input.json]... [INPUT.json...]\n"
	"       (a key with synth = ...: its partitions are synth:<witness seed> instead of .wtns files)\n"
	"  Submit one job: one partition per witness file, proved with key K of the supervisor's\n"
	"  config; its proofs go to DIR (part-<p>.proof.json/.public.json, then proofs.json).\n"
	"  Prints the job id once the job is in the arena.\n" CONN_HELP
	"  --token T        idempotency token: re-submitting with T returns the same job (default: a random\n"
	"                   one, so the client's own re-sent request is never a second job)\n"
	"  --overwrite      DIR may hold an earlier job's files (proofs.json, part-*.json): remove them\n"
	"                   first (without it such a DIR is refused: the two jobs' proofs would mix)\n"
	"  --wait           wait for the job and exit as `zkpipe wait` does (its progress line too)\n"
	"  --timeout S      with --wait: give up waiting after S seconds (exit 9; the job goes on)\n"
	"  Inputs may be input.json files when the key names a witness generator ([key] wasm = or\n"
	"  witness_bin =): synthd computes each witness. Exit 13 when the key cannot be served.\n";

static void free_ptrs(char ***p) { free(*p); }

int cmd_submit(int argc, char **argv)
{
	static const struct option opts[] = { CONN_OPTS, { "key", 1, 0, 'k' }, { "output", 1, 0, 'o' },
		{ "priority", 1, 0, 'p' }, { "token", 1, 0, 't' }, { "wait", 0, 0, 'w' }, { "help", 0, 0, 'h' },
		{ "input", 1, 0, 'i' }, { "overwrite", 0, 0, 'O' }, { "timeout", 1, 0, 'T' }, { 0 } };
	const char *key = NULL, *out = NULL, *tok = NULL;
	double timeout = 0;
	char *end;
	int overwrite = 0;
	/* --input files, then the positional ones (freed on every return: LeakSanitizer runs the CLI) */
	__attribute__((cleanup(free_ptrs))) char **ins = calloc((size_t)argc + 1, sizeof *ins);
	int nin = 0;
	long prio = 0;
	int o, wait = 0;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (conn_opt(o, optarg))
			continue;
		switch (o) {
		case 'k': key = optarg; break;
		case 'o': out = optarg; break;
		case 'p': prio = strtol(optarg, NULL, 10); break;
		case 't': tok = optarg; break;
		case 'w': wait = 1; break;
		case 'O': overwrite = 1; break;
		case 'T':
			if ((timeout = strtod(optarg, &end)) <= 0 || *end) {
				fprintf(stderr, "zkpipe submit: --timeout is a positive number of seconds, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'i': ins[nin++] = optarg; break;
		case 'h': fputs(submit_help, stdout); return 0;
		default: fputs(submit_help, stderr); return 2;
		}
	}
	for (int i = optind; i < argc; i++)
		ins[nin++] = argv[i];
	if (!key || !out || !nin) {
		fputs(submit_help, stderr);
		return 2;
	}
	if (timeout > 0 && !wait) {
		fprintf(stderr, "zkpipe submit: --timeout goes with --wait\n");
		return 2;
	}
	if (conn_default())
		return 2;
	char path[PATH_MAX];
	json_t *inputs = json_array();
	for (int i = 0; i < nin; i++) {
		if (!strncmp(ins[i], "synth:", 6)) { /* a synthetic circuit's partition: a witness seed, not a file */
			json_array_append_new(inputs, json_string(ins[i]));
			continue;
		}
		if (absolute(ins[i], path)) {
			fprintf(stderr, "zkpipe submit: %s: %s\n", ins[i], strerror(errno));
			json_decref(inputs);
			return 3;
		}
		json_array_append_new(inputs, json_string(path));
	}
	if (absolute(out, path)) {
		fprintf(stderr, "zkpipe submit: output %s: its parent directory must exist\n", out);
		json_decref(inputs);
		return 3;
	}
	json_t *req = json_pack("{s:s, s:s, s:o, s:s, s:i}", "op", "submit", "key", key, "inputs", inputs,
				"output", path, "priority", (int)prio);
	/* always a token: the REQ socket re-sends an unanswered request every second, to a restarted
	 * supervisor too; with the client's own token every copy is this job, never a second one or a
	 * refusal of its output as "in use" (a token the supervisor draws is new for each copy) */
	char tbuf[ZP_TOKEN_MAX + 1];
	if (!tok) {
		int e = zp_token_random(tbuf, "c-");
		if (e) {
			fprintf(stderr, "zkpipe submit: getrandom: %s\n", strerror(-e));
			json_decref(req);
			return 1;
		}
		tok = tbuf;
	}
	json_object_set_new(req, "token", json_string(tok));
	if (overwrite)
		json_object_set_new(req, "overwrite", json_true());
	json_t *rep = zp_client_call(url, req, 10000, 0);
	json_decref(req);
	if (!rep)
		return last_refusal;
	long long id = json_integer_value(json_object_get(rep, "job"));
	printf("%lld\n", id);
	fflush(stdout);
	json_decref(rep);
	return wait ? zp_client_wait(url, &id, 1, timeout, 0) : 0;
}

/* ---------------------------------------------------------------- wait */
/* One job's wait: 0 DONE, or the exit code of why it cannot finish (FAILED or cancelled, unknown
 * to the supervisor, its key failed); -1 while it may still finish. */
static int job_outcome(json_t *rep, long long id, int quiet)
{
	if (!rep)
		return -1; /* unreachable: the supervisor may be restarting; ask again */
	if (!json_is_true(json_object_get(rep, "ok"))) {
		int ex = refused_exit(rep);
		if (ex == EX_API)
			return -1;
		if (!quiet)
			printf("job %lld: %s\n", id, json_string_value(json_object_get(rep, "error")));
		return ex;
	}
	const char *st = json_string_value(json_object_get(rep, "state"));
	const char *ks = json_string_value(json_object_get(rep, "key_state"));
	if (st && !strcmp(st, "DONE")) {
		if (!quiet)
			printf("job %lld DONE: %s/proofs.json\n", id, json_string_value(json_object_get(rep, "output")));
		return 0;
	}
	if (st && !strcmp(st, "FAILED")) {
		if (!quiet)
			printf("job %lld FAILED: %s\n", id, json_string_value(json_object_get(rep, "error")));
		return EX_JOB_FAILED;
	}
	if (ks && !strcmp(ks, "failed")) {
		if (!quiet)
			printf("job %lld cannot finish: key %s failed: %s\n", id,
			       json_string_value(json_object_get(rep, "key")),
			       json_string_value(json_object_get(rep, "key_error")));
		return EX_KEY;
	}
	return -1;
}

/* One letter a partition, in order: . pending, c claimed, s synthesis, R ready, P proving,
 * D done, F failed; past 64 partitions, counts by state instead. */
static void part_states(json_t *rep, char *out, size_t n)
{
	static const char *const names[] = { "PENDING", "CLAIMED", "SYNTH", "READY", "PROVING", "DONE", "FAILED" };
	static const char letters[] = ".csRPDF";
	json_t *parts = json_object_get(rep, "partitions"), *p;
	size_t i, np = json_array_size(parts), k = 0;
	unsigned cnt[7] = { 0 };
	if (np <= 64 && n > np + 2)
		out[k++] = '[';
	json_array_foreach(parts, i, p) {
		const char *st = json_string_value(json_object_get(p, "state"));
		unsigned s = 0;
		while (s < 7 && (!st || strcmp(st, names[s])))
			s++;
		cnt[s < 7 ? s : 0]++;
		if (np <= 64 && k + 2 < n)
			out[k++] = s < 7 ? letters[s] : '?';
	}
	if (np <= 64 && k + 1 < n) {
		out[k++] = ']';
		out[k] = 0;
		return;
	}
	out[0] = 0;
	for (unsigned s = 0; s < 7; s++)
		if (cnt[s])
			snprintf(out + strlen(out), n - strlen(out), "%s%s %u", out[0] ? ", " : "", names[s], cnt[s]);
}

/* The job's line: partitions done of total and the state of each. */
static void wait_progress(json_t *rep, long long id, int i, int n, int *staged)
{
	char st[64], note[ZP_PROGRESS_NOTE_MAX];
	if (!*staged) {
		if (n > 1)
			snprintf(st, sizeof st, "job %lld (%d of %d) partitions", id, i + 1, n);
		else
			snprintf(st, sizeof st, "job %lld partitions", id);
		zp_progress_stage(st, (uint64_t)json_integer_value(json_object_get(rep, "parts")), "items");
		*staged = 1;
	}
	part_states(rep, note, sizeof note);
	zp_progress_note(note);
	zp_progress_set((uint64_t)json_integer_value(json_object_get(rep, "done")));
}

int zp_client_wait(const char *u, const long long *ids, int n, double timeout_s, int quiet)
{
	int rc = 0;
	uint64_t t0 = zp_mono_ms();
	if (!quiet) /* stderr: stdout keeps its one result line a job, for scripts */
		zp_progress_begin("zkpipe wait", 2, NULL);
	for (int i = 0; i < n; i++) {
		int staged = 0;
		for (;;) {
			json_t *req = json_pack("{s:s, s:I}", "op", "status", "job", (json_int_t)ids[i]);
			json_t *rep = call_any(u, req, 5000, 1);
			json_decref(req);
			const char *st = rep ? json_string_value(json_object_get(rep, "state")) : NULL;
			int ex = job_outcome(rep, ids[i], 1);
			/* a job already finished when first asked gets its result line only: a progress
			 * line would say "done in 0.0 s" of a job that took minutes, long ago */
			if (st && !quiet && (ex < 0 || staged))
				wait_progress(rep, ids[i], i, n, &staged);
			if (ex >= 0) {
				if (!quiet && staged)
					zp_progress_end(NULL);
				job_outcome(rep, ids[i], quiet); /* its result line, after the progress line ends */
				json_decref(rep);
				rc = rc ? rc : ex; /* the first job that did not finish DONE names the exit */
				break;
			}
			if (timeout_s > 0 && (zp_mono_ms() - t0) / 1e3 > timeout_s) {
				if (!quiet && staged)
					zp_progress_end(NULL);
				if (!quiet) /* st points into rep: print before it is freed (ASAN found the reverse) */
					printf("job %lld: still %s after %g s\n", ids[i], st ? st : "unreachable", timeout_s);
				json_decref(rep);
				return EX_TIMEOUT;
			}
			json_decref(rep);
			usleep(100000);
		}
	}
	return rc;
}

static const char wait_help[] =
	"usage: zkpipe wait [--timeout S] JOB...\n"
	"  Wait until every job is DONE or cannot finish (survives a supervisor restart: it asks again).\n"
	"  Exit 0 when all are DONE; else the first job's reason: 11 FAILED or cancelled, 12 unknown job,\n"
	"  13 its key failed (cannot be served); 9 on timeout (zkpipe --help: every exit code).\n"
	"  While a job runs, stderr shows a progress line: partitions done of all, ETA, and one letter a\n"
	"  partition in order: . pending, c claimed by a synthd, s synthesis (witness, a/b/c), R ready in a\n"
	"  slot, P proving on a gpud, D done, F failed (past 64 partitions, counts by state instead).\n"
	"  Each job then gets one line on stdout: DONE with its proofs.json, or why it cannot finish.\n"
	"  --timeout S      give up after S seconds (exit 9; the jobs go on)\n" CONN_HELP;

int cmd_wait(int argc, char **argv)
{
	static const struct option opts[] = { CONN_OPTS, { "timeout", 1, 0, 't' }, { "help", 0, 0, 'h' }, { 0 } };
	double timeout = 0;
	int o;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (conn_opt(o, optarg))
			continue;
		if (o == 't')
			timeout = strtod(optarg, NULL);
		else
			return fputs(wait_help, o == 'h' ? stdout : stderr), o == 'h' ? 0 : 2;
	}
	if (optind >= argc || conn_default())
		return fputs(wait_help, stderr), 2;
	int n = argc - optind;
	long long *ids = calloc((size_t)n, sizeof *ids);
	for (int i = 0; i < n; i++)
		ids[i] = strtoll(argv[optind + i], NULL, 10);
	int rc = zp_client_wait(url, ids, n, timeout, 0);
	free(ids);
	return rc;
}

/* ---------------------------------------------------------------- status, cancel */
static void print_summary(json_t *rep)
{
	size_t i;
	json_t *g, *p;
	printf("supervisor pid %lld, up %.0f s, peak RSS %lld KiB\n", json_integer_value(json_object_get(rep, "pid")),
	       json_real_value(json_object_get(rep, "uptime_s")), json_integer_value(json_object_get(rep, "peak_rss_kib")));
	json_array_foreach(json_object_get(rep, "groups"), i, g) {
		json_t *s = json_object_get(g, "slots"), *j = json_object_get(g, "jobs"), *c = json_object_get(g, "counters");
		printf("group %s: arena %s (%s, %lld MiB), slots FREE %lld FILLING %lld READY %lld COPYING %lld; "
		       "jobs ACTIVE %lld; proved %lld, failed %lld, retried %lld\n",
		       json_string_value(json_object_get(g, "name")), json_string_value(json_object_get(g, "arena")),
		       json_string_value(json_object_get(g, "backing")),
		       json_integer_value(json_object_get(g, "arena_bytes")) >> 20,
		       json_integer_value(json_object_get(s, "FREE")), json_integer_value(json_object_get(s, "FILLING")),
		       json_integer_value(json_object_get(s, "READY")), json_integer_value(json_object_get(s, "COPYING")),
		       json_integer_value(json_object_get(j, "ACTIVE")), json_integer_value(json_object_get(c, "parts_proved")),
		       json_integer_value(json_object_get(c, "parts_failed")),
		       json_integer_value(json_object_get(c, "parts_retried")));
		if (!strcmp(json_string_value(json_object_get(g, "state")) ?: "", "degraded"))
			printf("  DEGRADED: %s\n", json_string_value(json_object_get(g, "error")));
	}
	json_array_foreach(json_object_get(rep, "processes"), i, p) {
		json_t *pr = json_object_get(p, "progress"); /* a daemon still starting: what it is doing */
		printf("  %-6s %-7s %lld  pid %-7lld %s restarts %lld  peak RSS %lld KiB%s%s\n",
		       json_string_value(json_object_get(p, "group")), json_string_value(json_object_get(p, "role")),
		       json_integer_value(json_object_get(p, "index")), json_integer_value(json_object_get(p, "pid")),
		       json_is_true(json_object_get(p, "alive")) ? "alive" : "down ",
		       json_integer_value(json_object_get(p, "restarts")),
		       json_integer_value(json_object_get(p, "peak_rss_kib")),
		       pr && !json_is_true(json_object_get(pr, "finished")) ? "  " : "",
		       pr && !json_is_true(json_object_get(pr, "finished")) ? json_string_value(json_object_get(pr, "line")) : "");
		if (json_is_true(json_object_get(p, "given_up")))
			printf("         NOT RESTARTED: %s\n", json_string_value(json_object_get(p, "error")));
		json_t *gm = json_object_get(p, "gpu_memory"), *sv = json_object_get(p, "serves");
		if (json_is_object(gm) && json_is_array(sv)) { /* a gpud: what it serves, its device-memory cap and card */
			long long cap = json_integer_value(json_object_get(gm, "cap"));
			long long tot = json_integer_value(json_object_get(gm, "total"));
			printf("         %s backend, %s", json_string_value(json_object_get(p, "backend")) ?: "?",
			       json_string_value(json_object_get(p, "stage")) ?: "?");
			if (cap)
				printf(", device memory capped at %.2f GiB", cap / 1073741824.0);
			if (tot)
				printf(", card %.2f GiB", tot / 1073741824.0);
			size_t j;
			json_t *kn;
			printf("; serves:");
			json_array_foreach(sv, j, kn)
				printf(" %s", json_string_value(kn));
			if (!json_array_size(sv))
				printf(" no key");
			json_t *pk = json_object_get(p, "parked");
			if (json_array_size(pk)) {
				printf(" (parked for another key's room, taken up again at their next call:");
				json_array_foreach(pk, j, kn)
					printf(" %s", json_string_value(kn));
				printf(")");
			}
			printf("\n");
		}
	}
	json_t *cl = json_object_get(rep, "cluster"); /* cluster mode: clusterd's view (docs/cluster.md) */
	if (json_is_object(cl)) {
		printf("cluster: node %s, %s, view %.1f s old", json_string_value(json_object_get(cl, "node")) ?: "?",
		       json_is_true(json_object_get(cl, "connected")) ? "connected" : "NOT connected",
		       json_number_value(json_object_get(cl, "age_s")) + json_number_value(json_object_get(cl, "data_age_s")));
		if (*(json_string_value(json_object_get(cl, "error")) ?: ""))
			printf(" (%s)", json_string_value(json_object_get(cl, "error")));
		printf("\n  nodes:");
		json_array_foreach(json_object_get(cl, "nodes"), i, p)
			printf(" %s %s (heartbeat %.1f s, load %lld/%lld)", json_string_value(json_object_get(p, "name")),
			       json_string_value(json_object_get(p, "state")), json_number_value(json_object_get(p, "heartbeat_age_s")),
			       json_integer_value(json_object_get(p, "load")), json_integer_value(json_object_get(p, "capacity")));
		printf("\n");
		json_array_foreach(json_object_get(cl, "jobs"), i, p) {
			printf("  cluster job %lld %s %s, %lld/%lld partitions", json_integer_value(json_object_get(p, "id")),
			       json_string_value(json_object_get(p, "key")), json_string_value(json_object_get(p, "state")),
			       json_integer_value(json_object_get(p, "done")), json_integer_value(json_object_get(p, "nparts")));
			if (json_is_string(json_object_get(p, "owner")))
				printf(", owner %s", json_string_value(json_object_get(p, "owner")));
			if (json_integer_value(json_object_get(p, "local")))
				printf(", local job %lld", json_integer_value(json_object_get(p, "local")));
			printf("\n");
		}
	}
	json_array_foreach(json_object_get(rep, "keys"), i, p) {
		const char *st = json_string_value(json_object_get(p, "state"));
		printf("key %s: %s", json_string_value(json_object_get(p, "name")), st);
		if (json_is_string(json_object_get(p, "curve")))
			printf(", %s", json_string_value(json_object_get(p, "curve")));
		if (json_object_get(p, "slot_bytes"))
			printf(" (%lld/%lld gpud(s) ready; a partition needs %lld bytes of slot)",
			       json_integer_value(json_object_get(p, "gpuds_ready")),
			       json_integer_value(json_object_get(p, "gpuds")),
			       json_integer_value(json_object_get(p, "slot_bytes")));
		if (!strcmp(st, "failed"))
			printf(": %s; submits refused", json_string_value(json_object_get(p, "error")));
		if (!strcmp(st, "loading") && json_integer_value(json_object_get(p, "loading_bytes")))
			printf(": %lld MiB key, %.1f s so far", json_integer_value(json_object_get(p, "loading_bytes")) >> 20,
			       json_real_value(json_object_get(p, "loading_s")));
		printf("\n");
	}
}

/* After a cancel: the state the job reached, not the ACTIVE of the moment the request came (its
 * partitions stop at their next stage; one being proved finishes first). Asks again for up to
 * 30 s; rep is the cancel's reply, the last reply is returned (to be freed). */
static json_t *cancel_outcome(json_t *rep)
{
	long long id = json_integer_value(json_object_get(rep, "job"));
	bool requested = json_is_true(json_object_get(rep, "cancel_requested"));
	uint64_t t0 = zp_mono_ms();
	const char *st = json_string_value(json_object_get(rep, "state"));
	while (requested && st && !strcmp(st, "ACTIVE") && zp_mono_ms() - t0 < 30000) {
		usleep(100000);
		json_t *req = json_pack("{s:s, s:I}", "op", "status", "job", (json_int_t)id);
		json_t *r = call_any(url, req, 5000, 1);
		json_decref(req);
		if (r && json_is_true(json_object_get(r, "ok")) && json_string_value(json_object_get(r, "state"))) {
			json_decref(rep);
			rep = r;
			st = json_string_value(json_object_get(rep, "state"));
		} else {
			json_decref(r);
		}
	}
	long long done = json_integer_value(json_object_get(rep, "done")), parts = json_integer_value(json_object_get(rep, "parts"));
	const char *err = json_string_value(json_object_get(rep, "error"));
	if (!st)
		printf("job %lld: cancel sent\n", id);
	else if (!requested)
		printf("job %lld had already finished %s (%lld/%lld partitions done): nothing to cancel\n", id, st, done, parts);
	else if (!strcmp(st, "DONE"))
		printf("job %lld finished DONE before the cancel took effect (%lld/%lld partitions done)\n", id, done, parts);
	else if (!strcmp(st, "ACTIVE"))
		printf("job %lld: cancel requested, still finishing the partitions being proved (%lld/%lld done); "
		       "zkpipe wait %lld\n", id, done, parts, id);
	else
		printf("job %lld cancelled (%s%s%s): %lld/%lld partitions done\n", id, st, err && *err ? ": " : "",
		       err ? err : "", done, parts);
	return rep;
}

static int status_or_cancel(int argc, char **argv, const char *op)
{
	static const struct option opts[] = { CONN_OPTS, { "json", 0, 0, 'j' }, { "help", 0, 0, 'h' }, { 0 } };
	int o, js = 0;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (conn_opt(o, optarg))
			continue;
		if (o == 'j')
			js = 1;
		else {
			fprintf(o == 'h' ? stdout : stderr, "usage: zkpipe %s [--json] %s\n%s", op,
				strcmp(op, "cancel") ? "[JOB]" : "JOB", CONN_HELP);
			return o == 'h' ? 0 : 2;
		}
	}
	if (conn_default() || (!strcmp(op, "cancel") && optind >= argc))
		return 2;
	json_t *req = json_pack("{s:s}", "op", op);
	if (optind < argc)
		json_object_set_new(req, "job", json_integer(strtoll(argv[optind], NULL, 10)));
	json_t *rep = zp_client_call(url, req, 5000, 0);
	json_decref(req);
	if (!rep)
		return last_refusal;
	if (js) {
		char *t = json_dumps(rep, JSON_INDENT(1));
		puts(t);
		free(t);
	} else if (!strcmp(op, "cancel")) {
		rep = cancel_outcome(rep);
	} else if (optind < argc) {
		char cj[40] = "";
		if (json_integer_value(json_object_get(rep, "cluster_job")) > 0)
			snprintf(cj, sizeof cj, " (cluster job %lld)", json_integer_value(json_object_get(rep, "cluster_job")));
		printf("job %lld%s %s: %lld/%lld partitions done, %lld failed%s%s\n", json_integer_value(json_object_get(rep, "job")),
		       cj, json_string_value(json_object_get(rep, "state")), json_integer_value(json_object_get(rep, "done")),
		       json_integer_value(json_object_get(rep, "parts")), json_integer_value(json_object_get(rep, "failed")),
		       *json_string_value(json_object_get(rep, "error")) ? "; " : "",
		       json_string_value(json_object_get(rep, "error")));
	} else {
		print_summary(rep);
	}
	json_decref(rep);
	return 0;
}

int cmd_status(int argc, char **argv) { return status_or_cancel(argc, argv, "status"); }
int cmd_cancel(int argc, char **argv) { return status_or_cancel(argc, argv, "cancel"); }
