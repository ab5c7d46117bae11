/*
 * cli.c — the client side of cluster mode: `zkpipe submit | wait | status | cancel --database URL`
 * and `zkpipe cluster init | nodes`. Every command speaks only SQL to the database (the
 * statements, named in sql.h, are the ones docs/cluster.md shows); no node needs to be reachable.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zp_exit.h"
#include "cluster.h"
#include "sql.h"
#include "config.h"
#include "zp_file.h"
#include "progress.h"
#include "rundir.h"
#include "sys.h"
#include "wtns.h"
#include "zp_err.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

/* The values of the local client's exit codes (tools/cmds.h: job failed, timeout, unreachable),
 * so a script reads `zkpipe wait` the same way with --config or --database. */
/* the one exit-code table (common/zp_exit.h): a database that cannot be reached is 10, as an unreachable supervisor */
enum { CL_OK = ZP_EX_OK, CL_USAGE = ZP_EX_USAGE, CL_INPUT = ZP_EX_INPUT, CL_FAILED = ZP_EX_JOB_FAILED, CL_TIMEOUT = ZP_EX_TIMEOUT,
       CL_DB = ZP_EX_API, CL_NO_JOB = ZP_EX_NO_JOB, CL_KEY = ZP_EX_KEY };

/* One command's state, passed down from zp_cluster_cli: its database link and its name (for messages). */
struct cli {
	struct zp_db db;
	const char *cmd;  /* argv[0]: submit, wait, status, cancel, cluster */
};

static int die(const struct cli *cl, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int die(const struct cli *cl, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "zkpipe %s: ", cl->cmd);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return code;
}

static int dberr(const struct cli *cl) { return die(cl, CL_DB, "%s", zp_err_msg()); }

bool zp_cluster_cli_wants(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--database") || !strncmp(argv[i], "--database=", 11))
			return true;
	return false;
}

static int open_db(struct cli *cl, const char *url, bool need_schema)
{
	if (!url || !*url)
		return die(cl, CL_USAGE, "--database URL is required (a libpq connection string or postgresql:// URI)");
	snprintf(cl->db.conninfo, sizeof cl->db.conninfo, "%s", url);
	snprintf(cl->db.app, sizeof cl->db.app, "zkpipe %s", cl->cmd);
	cl->db.timeout_ms = 15000;
	if (zp_db_connect(&cl->db))
		return dberr(cl);
	if (need_schema && zp_cluster_schema_check(&cl->db))
		return dberr(cl);
	return 0;
}

static void print_json(json_t *j)
{
	char *t = json_dumps(j, JSON_INDENT(1) | JSON_SORT_KEYS);
	puts(t ? t : "null");
	free(t);
	json_decref(j);
}

/* A result row as a JSON object, columns by name, NULL -> null, integers where asked. */
static json_t *row_json(zp_db_res *r, int row, const char *const *names, const char *ints)
{
	json_t *o = json_object();
	for (int c = 0; names[c]; c++) {
		json_t *v = zp_db_null(r, row, c) ? json_null()
			    : ints[c] == 'i' ? json_integer(zp_db_int(r, row, c))
			    : ints[c] == 'f' ? json_real(strtod(zp_db_val(r, row, c), NULL))
			    : ints[c] == 'j' ? json_loads(zp_db_val(r, row, c), 0, NULL)
			    : ints[c] == 'b' ? json_boolean(zp_db_val(r, row, c)[0] == 't')
			    : json_string(zp_db_val(r, row, c));
		json_object_set_new(o, names[c], v ? v : json_null());
	}
	return o;
}

/* ---------------------------------------------------------------- cluster init / nodes */
static int cluster_init(struct cli *cl, const char *url, int to, const char *inline_max)
{
	int rc, from;
	if ((rc = open_db(cl, url, false)))
		return rc;
	if (zp_cluster_migrate(&cl->db, to, &from))
		return dberr(cl);
	if (inline_max) {
		uint64_t v;
		char b[24];
		if (zp_pipe_parse_size(inline_max, &v) || v > (1ull << 30))
			return die(cl, CL_USAGE, "--inline-max %s: a size up to 1G (PostgreSQL's bytea limit)", inline_max);
		snprintf(b, sizeof b, "%llu", (unsigned long long)v);
		const char *p[] = { b };
		if (zp_db_exec(&cl->db, NULL, zp_sql_inline_max_set, 1, p))
			return dberr(cl);
	}
	int now;
	zp_cluster_schema_version(&cl->db, &now);
	printf("zkpipe schema: version %d%s (was %d)\n", now, now == from ? ", unchanged" : "", from);
	return CL_OK;
}

static int cluster_nodes(struct cli *cl, const char *url, bool js)
{
	int rc;
	if ((rc = open_db(cl, url, true)))
		return rc;
	zp_db_res *r;
	if (zp_db_exec(&cl->db, &r, zp_sql_nodes_list, 0, NULL))
		return dberr(cl);
	static const char *const names[] = { "name", "host", "groups", "gpus", "keys", "refused", "capacity", "load",
					     "held", "state", "heartbeat_age_s", "version", "jobs_done", "round_trips",
					     "running_jobs", "dead_after_s", "max_parts", "drain", NULL };
	json_t *a = json_array();
	for (int i = 0; i < zp_db_rows(r); i++)
		json_array_append_new(a, row_json(r, i, names, "sssijjiiisfsiiiiib"));
	zp_db_free(r);
	if (js) {
		print_json(a);
		return CL_OK;
	}
	size_t i;
	json_t *n;
	printf("%-16s %-9s %9s %8s %8s %5s  %s\n", "node", "state", "heartbeat", "capacity", "load", "jobs", "keys");
	json_array_foreach(a, i, n) {
		char *k = json_dumps(json_object_get(n, "keys"), JSON_COMPACT | JSON_SORT_KEYS);
		const char *st = json_string_value(json_object_get(n, "state"));
		bool dr = json_is_true(json_object_get(n, "drain")) && !strcmp(st, "UP"); /* asked, not yet seen */
		printf("%-16s %-9s %8.1fs %8lld %8lld %5lld  %s\n", json_string_value(json_object_get(n, "name")),
		       dr ? "UP>DRAIN" : st, json_real_value(json_object_get(n, "heartbeat_age_s")),
		       json_integer_value(json_object_get(n, "capacity")), json_integer_value(json_object_get(n, "load")),
		       json_integer_value(json_object_get(n, "running_jobs")), k);
		free(k);
		json_t *ref = json_object_get(n, "refused");
		const char *kn;
		json_t *why;
		json_object_foreach(ref, kn, why)
			printf("%16s refuses key %s: %s\n", "", kn, json_string_value(why));
	}
	json_decref(a);
	return CL_OK;
}

/* ---------------------------------------------------------------- submit */
struct input {
	char path[PATH_MAX];
	char *data;   /* --inline: the file's bytes */
	size_t len;
};

static int read_input(struct cli *cl, struct input *in, const char *arg, bool inl, uint64_t max)
{
	if (!strncmp(arg, "synth:", 6)) { /* a synthetic circuit's witness seed: no file */
		snprintf(in->path, sizeof in->path, "%s", arg);
		return inl ? die(cl, CL_USAGE, "%s: --inline needs witness files, not synthetic seeds", arg) : 0;
	}
	if (!realpath(arg, in->path))
		return die(cl, CL_INPUT, "%s: %s", arg, strerror(errno));
	uint32_t n;
	int fd = open(in->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st))
		return die(cl, CL_INPUT, "%s: %s", in->path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return close(fd), die(cl, CL_INPUT, "%s: not a regular file", in->path);
	if (inl && (uint64_t)st.st_size > max) {
		close(fd);
		return die(cl, CL_INPUT, "%s: %lld bytes, over the cluster's inline limit of %llu (zkpipe cluster init "
			   "--inline-max); pass it by path on shared storage instead", in->path, (long long)st.st_size,
			   (unsigned long long)max);
	}
	if (zp_wtns_check_fd(fd, in->path, &n))
		return close(fd), die(cl, CL_INPUT, "%s", zp_err_msg());
	if (!inl)
		return close(fd), 0;
	in->len = (size_t)st.st_size;
	in->data = malloc(in->len + 1);
	ssize_t got = in->data ? pread(fd, in->data, in->len, 0) : -1;
	close(fd);
	return got == (ssize_t)in->len ? 0 : die(cl, CL_INPUT, "%s: short read", in->path);
}

/* Refuse a job no registered node (live or not) could ever claim: its key served by none (13,
 * as a key the local supervisor cannot serve), or more partitions than every serving node's
 * max_parts (10, as the local supervisor's refusal). A job only the absent could take is
 * accepted: `wait` and `status` say that it waits, and for whom. */
static int servable(struct cli *cl, const char *key, int nparts)
{
	char np[16];
	snprintf(np, sizeof np, "%d", nparts);
	const char *p[] = { key, np };
	zp_db_res *r;
	if (zp_db_exec(&cl->db, &r, zp_sql_key_servable, 2, p))
		return dberr(cl);
	const char *why = zp_db_val(r, 0, 0), *served = zp_db_val(r, 0, 1);
	int rc = CL_OK;
	if (why[0] == '!' && strstr(why, "partitions exceed"))
		rc = die(cl, CL_DB, "refused: %s", why + 1);
	else if (why[0] == '!')
		rc = die(cl, CL_KEY, "unknown key '%s': %s (the cluster's nodes serve: %s)", key, why + 1,
			 served[0] ? served : "none yet");
	zp_db_free(r);
	return rc;
}

static int inline_limit(struct cli *cl, uint64_t *max)
{
	zp_db_res *r;
	if (zp_db_exec(&cl->db, &r, zp_sql_inline_max, 0, NULL))
		return dberr(cl);
	*max = zp_db_rows(r) ? strtoull(zp_db_val(r, 0, 0), NULL, 10) : 64ull << 20;
	zp_db_free(r);
	return 0;
}

static int insert_inputs(struct cli *cl, long long id, struct input *in, int n)
{
	char ids[ZP_DB_I64_LEN], part[16];
	zp_db_i64(ids, id);
	for (int i = 0; i < n; i++) {
		snprintf(part, sizeof part, "%d", i);
		const char *p[] = { ids, part, in[i].data ? NULL : in[i].path, in[i].data };
		int lens[] = { 0, 0, 0, (int)in[i].len }, fmts[] = { 0, 0, 0, 1 };
		if (zp_db_execb(&cl->db, NULL, zp_sql_input_add, 4, p, lens, fmts, 0))
			return -1;
	}
	return 0;
}

static int submit_tx(struct cli *cl, const char *key, const char *prio, const char *tok, const char *out, const char *maxa,
		     struct input *in, int n, long long *id, bool *dup)
{
	char np[16];
	snprintf(np, sizeof np, "%d", n);
	const char *p[] = { tok, key, prio, np, out, maxa };
	zp_db_res *r;
	*dup = false;
	if (zp_db_cmd(&cl->db, zp_sql_begin) ||
	    zp_db_exec(&cl->db, &r, zp_sql_job_add, 6, p))
		return -1;
	if (!zp_db_rows(r)) { /* the token is known: that job */
		zp_db_free(r);
		const char *t[] = { tok };
		if (zp_db_cmd(&cl->db, zp_sql_rollback) || zp_db_exec(&cl->db, &r, zp_sql_job_by_token, 1, t))
			return -1;
		*dup = true;
		*id = zp_db_rows(r) ? zp_db_int(r, 0, 0) : -1;
		zp_db_free(r);
		return 0;
	}
	*id = zp_db_int(r, 0, 0);
	zp_db_free(r);
	char ids[ZP_DB_I64_LEN];
	zp_db_i64(ids, *id);
	const char *e[] = { ids };
	if (insert_inputs(cl, *id, in, n) ||
	    zp_db_exec(&cl->db, NULL, zp_sql_event_submitted, 1, e) ||
	    zp_db_cmd(&cl->db, zp_sql_commit))
		return -1;
	const char *k[] = { key };
	zp_db_exec(&cl->db, NULL, zp_sql_notify_jobs, 1, k); /* a hint */
	return 0;
}

static const char submit_help[] =
	"usage: zkpipe submit --database URL --key K [--priority N] [--token T] [--inline] [--output DIR]\n"
	"                     [--max-attempts N] WTNS...\n"
	"  Queue one job in the cluster's database (one partition per witness) and print its id.\n"
	"  Witnesses are passed by absolute path (storage every node mounts; each node checks its\n"
	"  allow_input), or with --inline stored in the database (up to the cluster's inline limit).\n"
	"  --output DIR: the node that completes the job also writes the proofs there (its allow_output);\n"
	"  `zkpipe wait --output` writes them wherever the client runs.\n"
	"  Exit 0 queued (its id on stdout); 13 unknown key (no node of the cluster serves it); 10 refused\n"
	"  (more partitions than every node serving the key takes) or database unreachable; 3 a witness\n"
	"  missing, malformed or over the inline limit; 2 usage.\n";

static int submit(struct cli *cl, int argc, char **argv)
{
	static const struct option opts[] = { { "database", 1, 0, 'd' }, { "key", 1, 0, 'k' }, { "priority", 1, 0, 'p' },
		{ "token", 1, 0, 't' }, { "inline", 0, 0, 'i' }, { "output", 1, 0, 'o' }, { "max-attempts", 1, 0, 'm' },
		{ "help", 0, 0, 'h' }, { 0 } };
	const char *url = NULL, *key = NULL, *tok = NULL, *out = NULL, *prio = "0", *maxa = "3";
	bool inl = false;
	int o;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1)
		switch (o) {
		case 'd': url = optarg; break;
		case 'k': key = optarg; break;
		case 'p': prio = optarg; break;
		case 't': tok = optarg; break;
		case 'i': inl = true; break;
		case 'o': out = optarg; break;
		case 'm': maxa = optarg; break;
		case 'h': fputs(submit_help, stdout); return CL_OK;
		default: fputs(submit_help, stderr); return CL_USAGE;
		}
	if (!key || optind >= argc)
		return fputs(submit_help, stderr), CL_USAGE;
	char *end;
	long pv = strtol(prio, &end, 10), mv = strtol(maxa, NULL, 10);
	if (*end || pv < 0 || pv > 1000000)
		return die(cl, CL_USAGE, "--priority %s: an integer 0..1000000 (higher first)", prio);
	if (mv < 1 || mv > 100)
		return die(cl, CL_USAGE, "--max-attempts %s: 1..100", maxa);
	if (tok && !zp_token_ok(tok))
		return die(cl, CL_USAGE, "--token: 1-64 of [A-Za-z0-9_-]");
	if (out && (out[0] != '/' || strlen(out) >= PATH_MAX))
		return die(cl, CL_USAGE, "--output %s: an absolute path under %d bytes (a directory on the proving node)", out,
			   PATH_MAX);
	int rc, n = argc - optind;
	uint64_t max = 0;
	if ((rc = open_db(cl, url, true)) || (rc = servable(cl, key, n)) || (inl && (rc = inline_limit(cl, &max))))
		return rc;
	struct input *in = calloc((size_t)n, sizeof *in);
	for (int i = 0; i < n && !rc; i++)
		rc = read_input(cl, &in[i], argv[optind + i], inl, max);
	long long id = -1;
	bool dup = false;
	if (!rc && submit_tx(cl, key, prio, tok, out, maxa, in, n, &id, &dup))
		rc = dberr(cl);
	for (int i = 0; i < n; i++)
		free(in[i].data);
	free(in);
	if (rc)
		return rc;
	printf("%lld\n", id);
	if (dup)
		fprintf(stderr, "zkpipe submit: token %s: job %lld was submitted before\n", tok, id);
	return CL_OK;
}

/* ---------------------------------------------------------------- wait */
/* Part files and proofs.json for a DONE job, from the database, into the client's directory. */
static int write_outputs(struct cli *cl, long long id, const char *key, int nparts, const char *dir)
{
	static struct zp_pipe_config oc; /* the client's own directory is the only one allowed */
	if (zp_file_mkdirs(dir, 0755) || !realpath(dir, oc.allow_out[0]))
		return die(cl, CL_INPUT, "--output %s: %s", dir, zp_err_msg()[0] ? zp_err_msg() : strerror(errno));
	oc.n_out = 1;
	oc.public_access = true; /* files 0644: the caller's umask still applies to the directory */
	if (zp_cluster_write_proofs(&cl->db, &oc, id, key, (uint32_t)nparts, oc.allow_out[0]))
		return die(cl, cl->db.c ? CL_INPUT : CL_DB, "%s", zp_err_msg());
	return CL_OK;
}

/* The progress line of a job (stderr), as the local `wait` draws it: partitions committed of all,
 * and one letter a partition: D committed, r being proved by the owner, . waiting to be claimed
 * (past 64 partitions, counts instead); then the state, the owner, or why nobody can claim it. */
static bool in_list(const char *list, int p)
{
	char pn[16];
	snprintf(pn, sizeof pn, "%d", p);
	for (const char *c = list; *c; c += strcspn(c, ",") + (c[strcspn(c, ",")] == ','))
		if (strcspn(c, ",") == strlen(pn) && !strncmp(c, pn, strlen(pn)))
			return true;
	return false;
}

static void wait_progress(long long id, int i, int n, int nparts, const char *st, const char *owner,
			  const char *committed, const char *running, const char *why, bool *staged)
{
	char note[ZP_PROGRESS_NOTE_MAX], stage[64];
	if (!*staged) {
		if (n > 1)
			snprintf(stage, sizeof stage, "job %lld (%d of %d) partitions", id, i + 1, n);
		else
			snprintf(stage, sizeof stage, "job %lld partitions", id);
		zp_progress_stage(stage, (uint64_t)nparts, "items");
		*staged = true;
	}
	/* committed: "0,3,4" (the parts in the database) */
	unsigned done = 0, k = 0;
	char letters[70];
	bool run = !strcmp(st, "RUNNING");
	if (nparts <= 64)
		letters[k++] = '[';
	for (int p = 0; p < nparts; p++) { /* each partition's own lease: committed, being proved, queued */
		bool in = in_list(committed, p);
		done += in;
		if (nparts <= 64)
			letters[k++] = in ? 'D' : run && in_list(running, p) ? 'r' : '.';
	}
	if (nparts <= 64)
		letters[k++] = ']';
	letters[k] = 0;
	if (nparts > 64)
		snprintf(letters, sizeof letters, "%u committed", done);
	if (why[0])
		snprintf(note, sizeof note, "%s %s: %s", letters, st, why + 1);
	else if (run)
		snprintf(note, sizeof note, "%s RUNNING on %s", letters, owner);
	else
		snprintf(note, sizeof note, "%s %s", letters, st);
	zp_progress_note(note);
	zp_progress_set(done);
}

/* One look at the job: 1 finished (rc set), 0 still going, < 0 database trouble. */
static int wait_once(struct cli *cl, long long id, const char *dir, int i, int n, bool quiet, bool *staged, int *rc)
{
	char ids[ZP_DB_I64_LEN];
	zp_db_i64(ids, id);
	const char *p[] = { ids };
	zp_db_res *r;
	if (zp_db_exec(&cl->db, &r, zp_sql_job_wait, 1, p))
		return -1;
	if (!zp_db_rows(r)) {
		zp_db_free(r);
		if (*staged)
			zp_progress_end(NULL);
		printf("job %lld: unknown job (not in the cluster's database)\n", id);
		*rc = CL_NO_JOB;
		return 1;
	}
	const char *st = zp_db_val(r, 0, 0), *why = zp_db_val(r, 0, 6);
	int fin = strcmp(st, "QUEUED") && strcmp(st, "RUNNING");
	/* a job already finished when first asked gets its result line only, as in the local wait */
	if (!quiet && (!fin || *staged))
		wait_progress(id, i, n, (int)zp_db_int(r, 0, 3), st, zp_db_val(r, 0, 4), zp_db_val(r, 0, 5),
			      zp_db_val(r, 0, 7), why, staged);
	if ((fin || why[0] == '!') && *staged)
		zp_progress_end(NULL);
	if (fin && !strcmp(st, "DONE")) {
		*rc = dir ? write_outputs(cl, id, zp_db_val(r, 0, 2), (int)zp_db_int(r, 0, 3), dir) : CL_OK;
		if (!*rc)
			printf("job %lld DONE%s%s\n", id, dir ? ": " : "", dir ? dir : "");
	} else if (fin) {
		printf("job %lld %s: %s\n", id, st, zp_db_val(r, 0, 1));
		*rc = CL_FAILED;
	} else if (why[0] == '!') { /* no registered node could ever claim it: waiting would be forever */
		printf("job %lld cannot finish: %s (it stays %s until such a node joins)\n", id, why + 1, st);
		*rc = CL_KEY;
		fin = 1;
	}
	zp_db_free(r);
	return fin;
}

/* Until DONE/FAILED/CANCELLED or the timeout; rides through database restarts (reconnects). */
static int wait_job(struct cli *cl, long long id, const char *dir, double timeout_s, uint64_t t0, int i, int n, bool quiet)
{
	uint64_t backoff = 200;
	bool staged = false;
	for (;;) {
		int rc = CL_OK, f = cl->db.c ? wait_once(cl, id, dir, i, n, quiet, &staged, &rc) : -1;
		if (f > 0)
			return rc;
		if (f < 0 && !cl->db.c) {
			usleep((useconds_t)backoff * 1000);
			backoff = backoff * 2 > 3000 ? 3000 : backoff * 2;
			if (!zp_db_connect(&cl->db)) {
				backoff = 200;
				zp_db_cmd(&cl->db, zp_sql_listen_done);
			}
		} else if (f < 0) {
			if (staged)
				zp_progress_end(NULL);
			return dberr(cl);
		}
		if (timeout_s > 0 && (zp_mono_ms() - t0) / 1e3 > timeout_s) {
			if (staged)
				zp_progress_end(NULL);
			printf("job %lld: not finished after %.0f s\n", id, timeout_s);
			return CL_TIMEOUT;
		}
		struct pollfd pf = { .fd = zp_db_fd(&cl->db), .events = POLLIN };
		if (cl->db.c && poll(&pf, 1, 500) > 0) /* NOTIFY: a hint; the query above is the truth */
			zp_db_notifies(&cl->db);
	}
}

/* The exit codes of the --database commands: the one table (common/zp_exit.h, `zkpipe --help`);
 * docs/cluster.md lists them, and tests/cluster/farm.sh checks docs = --help = behaviour. */
#define WAIT_EXITS                                                                                          \
	"  Exit 0 all DONE; else the first job's reason: 11 FAILED or CANCELLED, 12 unknown job, 13 it cannot\n"  \
	"  finish (no node of the cluster serves its key, or none takes that many partitions); 9 timeout;\n"      \
	"  10 database unreachable or refused; 2 usage.\n"

static int wait_cmd(struct cli *cl, int argc, char **argv)
{
	static const struct option opts[] = { { "database", 1, 0, 'd' }, { "output", 1, 0, 'o' },
					      { "timeout", 1, 0, 't' }, { "quiet", 0, 0, 'q' }, { "help", 0, 0, 'h' }, { 0 } };
	static const char help[] = "usage: zkpipe wait --database URL [--output DIR] [--timeout S] [--quiet] JOB...\n"
				   "  Wait for jobs; with --output write part-<p>.proof.json / .public.json and\n"
				   "  proofs.json (one job) or DIR/<job>/... (several) from the database.\n"
				   "  While a job runs, stderr shows a progress line: partitions committed of all, and one\n"
				   "  letter a partition (D committed, r being proved by its owner, . queued), the owner, or\n"
				   "  why no node can claim it now (--quiet: none). Each job then gets one line on stdout.\n"
				   WAIT_EXITS;
	const char *url = NULL, *dir = NULL;
	double timeout = 0;
	bool quiet = false;
	int o;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1)
		switch (o) {
		case 'd': url = optarg; break;
		case 'o': dir = optarg; break;
		case 't': timeout = strtod(optarg, NULL); break;
		case 'q': quiet = true; break;
		case 'h': fputs(help, stdout); return CL_OK;
		default: fputs(help, stderr); return CL_USAGE;
		}
	if (optind >= argc)
		return fputs(help, stderr), CL_USAGE;
	for (int i = optind; i < argc; i++) {
		char *e;
		if (strtoll(argv[i], &e, 10) <= 0 || *e)
			return die(cl, CL_USAGE, "job %s: a job id (a positive integer)", argv[i]);
	}
	int rc = open_db(cl, url, true), worst = CL_OK;
	if (rc)
		return rc;
	zp_db_cmd(&cl->db, zp_sql_listen_done);
	if (!quiet) /* stderr: stdout keeps its one result line a job, for scripts */
		zp_progress_begin("zkpipe wait", 2, NULL);
	uint64_t t0 = zp_mono_ms();
	for (int i = optind; i < argc; i++) {
		char sub[PATH_MAX];
		long long id = strtoll(argv[i], NULL, 10);
		if (dir && argc - optind > 1)
			snprintf(sub, sizeof sub, "%s/%lld", dir, id);
		rc = wait_job(cl, id, dir ? (argc - optind > 1 ? sub : dir) : NULL, timeout, t0, i - optind, argc - optind, quiet);
		if (rc == CL_TIMEOUT || rc == CL_DB)
			return rc;
		worst = worst ? worst : rc; /* the first job that did not finish DONE names the exit */
	}
	return worst;
}

/* ---------------------------------------------------------------- status, cancel */
static json_t *job_json(struct cli *cl, long long id)
{
	char ids[ZP_DB_I64_LEN];
	zp_db_i64(ids, id);
	const char *p[] = { ids };
	zp_db_res *r;
	static const char *const jn[] = { "job", "key", "priority", "state", "parts", "output", "owner", "epoch",
					  "attempts", "max_attempts", "created_at", "claimed_at", "started_at", "done_at",
					  "error", "token", "committed", "waiting", NULL };
	static const char *const pn[] = { "part", "node", "gpu", "epoch", "proved_at", "stages", NULL };
	static const char *const en[] = { "at", "node", "epoch", "what", "detail", NULL };
	if (zp_db_exec(&cl->db, &r, zp_sql_job_status, 1, p))
		return NULL;
	if (!zp_db_rows(r)) {
		zp_db_free(r);
		return json_object();
	}
	json_t *j = row_json(r, 0, jn, "isisissiiissssssis");
	zp_db_free(r);
	json_t *parts = json_array(), *ev = json_array();
	if (zp_db_exec(&cl->db, &r, zp_sql_job_partitions, 1, p))
		return json_decref(j), NULL;
	for (int i = 0; i < zp_db_rows(r); i++)
		json_array_append_new(parts, row_json(r, i, pn, "issisj"));
	zp_db_free(r);
	/* each partition's lease (schema 4): state QUEUED / RUNNING / DONE, owner, epoch, attempts */
	static const char *const ln[] = { "part", "state", "owner", "epoch", "attempts", "claimed_at", NULL };
	json_t *leases = json_array();
	if (zp_db_exec(&cl->db, &r, zp_sql_job_leases, 1, p))
		return json_decref(j), json_decref(parts), json_decref(ev), json_decref(leases), NULL;
	for (int i = 0; i < zp_db_rows(r); i++)
		json_array_append_new(leases, row_json(r, i, ln, "issiis"));
	zp_db_free(r);
	json_object_set_new(j, "leases", leases);
	if (zp_db_exec(&cl->db, &r, zp_sql_job_events, 1, p))
		return json_decref(j), NULL;
	for (int i = 0; i < zp_db_rows(r); i++)
		json_array_append_new(ev, row_json(r, i, en, "ssiss"));
	zp_db_free(r);
	/* "" or why no node can claim it: "!..." never (no registered node could), "~..." not now */
	const char *w = json_string_value(json_object_get(j, "waiting"));
	json_object_set_new(j, "claimable", json_string(!w || !w[0] ? "yes" : w[0] == '!' ? "never" : "not now"));
	json_object_set_new(j, "waiting", json_string(w && w[0] ? w + 1 : ""));
	json_object_set_new(j, "partitions", parts);
	json_object_set_new(j, "events", ev);
	return j;
}

static json_t *summary_json(struct cli *cl)
{
	zp_db_res *r;
	json_t *o = json_object(), *by = json_object();
	if (zp_db_exec(&cl->db, &r, zp_sql_jobs_by_state, 0, NULL))
		return NULL;
	for (int i = 0; i < zp_db_rows(r); i++)
		json_object_set_new(by, zp_db_val(r, i, 0), json_integer(zp_db_int(r, i, 1)));
	zp_db_free(r);
	json_object_set_new(o, "jobs", by);
	if (zp_db_exec(&cl->db, &r, zp_sql_cluster_summary, 0, NULL))
		return json_decref(o), NULL;
	json_object_set_new(o, "nodes_up", json_integer(zp_db_int(r, 0, 0)));
	json_object_set_new(o, "nodes", json_integer(zp_db_int(r, 0, 1)));
	json_object_set_new(o, "partitions_proved", json_integer(zp_db_int(r, 0, 2)));
	json_object_set_new(o, "oldest_queued_s", json_real(strtod(zp_db_val(r, 0, 3), NULL)));
	json_object_set_new(o, "nodes_down", json_integer(zp_db_int(r, 0, 4)));
	json_object_set_new(o, "nodes_not_up", json_string(zp_db_val(r, 0, 5))); /* "n2 DOWN, n3 STOPPED" */
	zp_db_free(r);
	return o;
}

static int status_cmd(struct cli *cl, int argc, char **argv, bool cancel)
{
	static const struct option opts[] = { { "database", 1, 0, 'd' }, { "json", 0, 0, 'j' }, { "help", 0, 0, 'h' },
					      { 0 } };
	const char *url = NULL;
	bool js = false;
	int o;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1)
		if (o == 'd')
			url = optarg;
		else if (o == 'j')
			js = true;
		else
			return fprintf(o == 'h' ? stdout : stderr, "usage: zkpipe %s --database URL [--json] %s\n"
				       "  Exit 0; 12 unknown job; 10 database unreachable; 2 usage.\n", cl->cmd,
				       cancel ? "JOB" : "[JOB]"), o == 'h' ? CL_OK : CL_USAGE;
	if (cancel && optind >= argc)
		return die(cl, CL_USAGE, "which job?");
	int rc = open_db(cl, url, true);
	if (rc)
		return rc;
	long long id = optind < argc ? strtoll(argv[optind], NULL, 10) : -1;
	if (cancel) {
		char ids[ZP_DB_I64_LEN];
		zp_db_i64(ids, id);
		const char *p[] = { ids };
		if (zp_db_exec(&cl->db, NULL, zp_sql_job_cancel, 1, p))
			return dberr(cl);
	}
	json_t *j = id >= 0 ? job_json(cl, id) : summary_json(cl);
	if (!j)
		return dberr(cl);
	if (id >= 0 && !json_object_size(j))
		return json_decref(j), die(cl, CL_NO_JOB, "unknown job %lld (not in the cluster's database)", id);
	if (js) {
		print_json(j);
		return CL_OK;
	}
	if (id >= 0)
		printf("job %lld %s: key %s, %lld/%lld partitions committed, owner %s, epoch %lld, attempts %lld%s%s%s%s\n", id,
		       json_string_value(json_object_get(j, "state")), json_string_value(json_object_get(j, "key")),
		       json_integer_value(json_object_get(j, "committed")), json_integer_value(json_object_get(j, "parts")),
		       json_string_value(json_object_get(j, "owner")) ?: "-", json_integer_value(json_object_get(j, "epoch")),
		       json_integer_value(json_object_get(j, "attempts")),
		       *json_string_value(json_object_get(j, "error")) ? "; " : "",
		       json_string_value(json_object_get(j, "error")),
		       *json_string_value(json_object_get(j, "waiting")) ? "; cannot be claimed: " : "",
		       json_string_value(json_object_get(j, "waiting")));
	else {
		char *t = json_dumps(json_object_get(j, "jobs"), JSON_COMPACT | JSON_SORT_KEYS);
		const char *nu = json_string_value(json_object_get(j, "nodes_not_up"));
		printf("cluster: %lld/%lld node(s) up%s%s%s; jobs %s; %lld partitions proved; oldest queued %.1f s\n",
		       json_integer_value(json_object_get(j, "nodes_up")), json_integer_value(json_object_get(j, "nodes")),
		       nu[0] ? " (" : "", nu, nu[0] ? ")" : "", t,
		       json_integer_value(json_object_get(j, "partitions_proved")),
		       json_real_value(json_object_get(j, "oldest_queued_s")));
		free(t);
	}
	json_decref(j);
	return CL_OK;
}

/* ---------------------------------------------------------------- drain */
/* Set or clear a node's drain flag; with drain, wait until the node itself reports DRAINED (it
 * claims nothing new and has finished, committed or failed every job it held). A node that is
 * DOWN or STOPPED holds nothing it could finish: reported at once. */
static int drain_cmd(struct cli *cl, const char *url, const char *node, bool on, bool nowait, double timeout_s)
{
	if (!node)
		return die(cl, CL_USAGE, "which node? (zkpipe cluster %s --database URL NODE)", on ? "drain" : "undrain");
	int rc = open_db(cl, url, true);
	if (rc)
		return rc;
	const char *p[] = { node, on ? "t" : "f" };
	zp_db_res *r;
	if (zp_db_exec(&cl->db, &r, zp_sql_node_drain_set, 2, p))
		return dberr(cl);
	int found = zp_db_rows(r);
	zp_db_free(r);
	if (!found) {
		if (zp_db_exec(&cl->db, &r, zp_sql_node_names, 0, NULL))
			return dberr(cl);
		rc = die(cl, CL_INPUT, "unknown node '%s' (the cluster's nodes: %s)", node, zp_db_val(r, 0, 0));
		zp_db_free(r);
		return rc;
	}
	if (!on) {
		printf("node %s: undrained (it claims jobs again from its next heartbeat)\n", node);
		return CL_OK;
	}
	if (nowait) {
		printf("node %s: drain requested\n", node);
		return CL_OK;
	}
	uint64_t t0 = zp_mono_ms(), last = 0;
	for (;;) {
		if (zp_db_exec(&cl->db, &r, zp_sql_node_drain_state, 1, p))
			return dberr(cl);
		if (!zp_db_rows(r))
			return zp_db_free(r), die(cl, CL_INPUT, "node %s: its row was removed", node);
		char st[16];
		snprintf(st, sizeof st, "%s", zp_db_val(r, 0, 0));
		long long held = zp_db_int(r, 0, 1), ld = zp_db_int(r, 0, 2), age = zp_db_int(r, 0, 3);
		zp_db_free(r);
		if (!strcmp(st, "DRAINED")) {
			printf("node %s: drained (claims nothing new, holds no job)\n", node);
			return CL_OK;
		}
		if (!strcmp(st, "STOPPED") || !strcmp(st, "DOWN")) {
			printf("node %s: %s%s%lld s ago: it holds nothing it can finish (its jobs, if any, go back to the queue); it "
			       "will claim nothing when it is back, until `zkpipe cluster undrain`\n", node, st,
			       !strcmp(st, "DOWN") ? ", last heartbeat " : " ", age);
			return CL_OK;
		}
		if (timeout_s > 0 && (zp_mono_ms() - t0) / 1e3 > timeout_s) {
			printf("node %s: not drained after %.0f s (%s, %lld job(s), %lld partition(s) held); it goes on draining\n",
			       node, timeout_s, st, held, ld);
			return CL_TIMEOUT;
		}
		if (zp_mono_ms() - last >= 5000) {
			last = zp_mono_ms();
			fprintf(stderr, "zkpipe cluster drain: node %s %s, %lld job(s) and %lld partition(s) held, %.0f s\n", node,
				!strcmp(st, "UP") ? "UP (drain not yet seen)" : st, held, ld, (zp_mono_ms() - t0) / 1e3);
		}
		usleep(200000);
	}
}

/* ---------------------------------------------------------------- dispatch */
static const char cluster_help[] =
	"usage: zkpipe cluster init --database URL [--inline-max SIZE]   create or upgrade the schema\n"
	"       zkpipe cluster nodes --database URL [--json]             nodes: state, heartbeat, keys, load\n"
	"       zkpipe cluster drain --database URL [--no-wait] [--timeout S] NODE\n"
	"                                   the node claims nothing new, finishes what it holds; waits until\n"
	"                                   it reports DRAINED\n"
	"       zkpipe cluster undrain --database URL NODE              it claims jobs again\n"
	"  A node whose heartbeat is older than its dead_after_s is DOWN.\n"
	"  and, against the database instead of one supervisor:\n"
	"       zkpipe submit|wait|status|cancel --database URL ...      (see each --help)\n"
	"  Exit 0; 3 unknown node; 9 drain timed out (the node goes on draining); 10 database\n"
	"  unreachable; 2 usage.\n";

static int cluster_cmd(struct cli *cl, int argc, char **argv)
{
	static const struct option opts[] = { { "database", 1, 0, 'd' }, { "json", 0, 0, 'j' }, { "to", 1, 0, 't' },
		{ "inline-max", 1, 0, 'i' }, { "no-wait", 0, 0, 'n' }, { "timeout", 1, 0, 'T' }, { "help", 0, 0, 'h' }, { 0 } };
	if (argc < 2 || !strcmp(argv[1], "--help"))
		return fputs(cluster_help, argc < 2 ? stderr : stdout), argc < 2 ? CL_USAGE : CL_OK;
	const char *sub = argv[1], *url = NULL, *im = NULL;
	bool js = false, nowait = false;
	double tmo = 0;
	int to = 0, o;
	argc--, argv++;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1)
		switch (o) {
		case 'd': url = optarg; break;
		case 'j': js = true; break;
		case 't': to = atoi(optarg); break;
		case 'i': im = optarg; break;
		case 'n': nowait = true; break;
		case 'T': tmo = strtod(optarg, NULL); break;
		case 'h': fputs(cluster_help, stdout); return CL_OK;
		default: fputs(cluster_help, stderr); return CL_USAGE;
		}
	if (!strcmp(sub, "init"))
		return cluster_init(cl, url, to, im);
	if (!strcmp(sub, "nodes"))
		return cluster_nodes(cl, url, js);
	if (!strcmp(sub, "drain") || !strcmp(sub, "undrain"))
		return drain_cmd(cl, url, optind < argc ? argv[optind] : NULL, !strcmp(sub, "drain"), nowait, tmo);
	return fputs(cluster_help, stderr), CL_USAGE;
}

int zp_cluster_cli(int argc, char **argv)
{
	struct cli c = { .cmd = argv[0] }, *cl = &c;
	int rc;
	if (!strcmp(cl->cmd, "submit"))
		rc = submit(cl, argc, argv);
	else if (!strcmp(cl->cmd, "wait"))
		rc = wait_cmd(cl, argc, argv);
	else if (!strcmp(cl->cmd, "status"))
		rc = status_cmd(cl, argc, argv, false);
	else if (!strcmp(cl->cmd, "cancel"))
		rc = status_cmd(cl, argc, argv, true);
	else
		rc = cluster_cmd(cl, argc, argv);
	zp_db_close(&cl->db);
	return rc;
}
