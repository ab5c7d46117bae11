/*
 * cli.c — the client side of cluster mode: `zkpipe submit | wait | status | cancel --database URL`
 * and `zkpipe cluster init | nodes`. Every command speaks only SQL to the database (the
 * statements are the ones docs/cluster.md shows); no node needs to be reachable.
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
#include "config.h"
#include "files.h"
#include "rundir.h"
#include "sys.h"
#include "wtns.h"
#include "zp_err.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

/* The values of the local client's exit codes (tools/cmds.h: job failed, timeout, unreachable),
 * so a script reads `zkpipe wait` the same way with --config or --database. */
/* the one exit-code table (common/zp_exit.h): a database that cannot be reached is 10, as an unreachable supervisor */
enum { CL_OK = ZP_EX_OK, CL_USAGE = ZP_EX_USAGE, CL_INPUT = ZP_EX_INPUT, CL_FAILED = ZP_EX_JOB_FAILED, CL_TIMEOUT = ZP_EX_TIMEOUT, CL_DB = ZP_EX_API };

static struct zp_db db;
static const char *cmd = "cluster";

static int die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int die(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "zkpipe %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return code;
}

static int dberr(void) { return die(CL_DB, "%s", zp_err_msg()); }

bool zp_cluster_cli_wants(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--database") || !strncmp(argv[i], "--database=", 11))
			return true;
	return false;
}

static int open_db(const char *url, bool need_schema)
{
	if (!url || !*url)
		return die(CL_USAGE, "--database URL is required (a libpq connection string or postgresql:// URI)");
	snprintf(db.conninfo, sizeof db.conninfo, "%s", url);
	snprintf(db.app, sizeof db.app, "zkpipe %s", cmd);
	db.timeout_ms = 15000;
	if (zp_db_connect(&db))
		return dberr();
	if (need_schema && zp_cluster_schema_check(&db))
		return dberr();
	return 0;
}

static void i64s(char *b, long long v) { snprintf(b, 24, "%lld", v); }

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
			    : json_string(zp_db_val(r, row, c));
		json_object_set_new(o, names[c], v ? v : json_null());
	}
	return o;
}

/* ---------------------------------------------------------------- cluster init / nodes */
static int cluster_init(const char *url, int to, const char *inline_max)
{
	int rc, from;
	if ((rc = open_db(url, false)))
		return rc;
	if (zp_cluster_migrate(&db, to, &from))
		return dberr();
	if (inline_max) {
		uint64_t v;
		char b[24];
		if (zp_pipe_parse_size(inline_max, &v) || v > (1ull << 30))
			return die(CL_USAGE, "--inline-max %s: a size up to 1G (PostgreSQL's bytea limit)", inline_max);
		snprintf(b, sizeof b, "%llu", (unsigned long long)v);
		const char *p[] = { b };
		if (zp_db_exec(&db, NULL, "UPDATE zkpipe.meta SET v = $1 WHERE k = 'inline_max'", 1, p))
			return dberr();
	}
	int now;
	zp_cluster_schema_version(&db, &now);
	printf("zkpipe schema: version %d%s (was %d)\n", now, now == from ? ", unchanged" : "", from);
	return CL_OK;
}

static int cluster_nodes(const char *url, bool js)
{
	int rc;
	if ((rc = open_db(url, true)))
		return rc;
	zp_db_res *r;
	if (zp_db_exec(&db, &r, "SELECT n.name, n.host, n.groups, n.gpus, n.keys, n.refused, n.capacity, n.load,"
		       " n.held, n.state, extract(epoch FROM now() - n.heartbeat)::float8, n.version, n.jobs_done, n.round_trips,"
		       " (SELECT count(*) FROM zkpipe.jobs j WHERE j.owner = n.name AND j.state = 'RUNNING')"
		       " FROM zkpipe.nodes n ORDER BY n.name", 0, NULL))
		return dberr();
	static const char *const names[] = { "name", "host", "groups", "gpus", "keys", "refused", "capacity", "load",
					     "held", "state", "heartbeat_age_s", "version", "jobs_done", "round_trips",
					     "running_jobs", NULL };
	json_t *a = json_array();
	for (int i = 0; i < zp_db_rows(r); i++)
		json_array_append_new(a, row_json(r, i, names, "sssijjiiisfsiii"));
	zp_db_free(r);
	if (js) {
		print_json(a);
		return CL_OK;
	}
	size_t i;
	json_t *n;
	printf("%-16s %-8s %9s %8s %8s %5s  %s\n", "node", "state", "heartbeat", "capacity", "load", "jobs", "keys");
	json_array_foreach(a, i, n) {
		char *k = json_dumps(json_object_get(n, "keys"), JSON_COMPACT | JSON_SORT_KEYS);
		printf("%-16s %-8s %8.1fs %8lld %8lld %5lld  %s\n", json_string_value(json_object_get(n, "name")),
		       json_string_value(json_object_get(n, "state")), json_real_value(json_object_get(n, "heartbeat_age_s")),
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

static int read_input(struct input *in, const char *arg, bool inl, uint64_t max)
{
	if (!strncmp(arg, "synth:", 6)) { /* a synthetic circuit's witness seed: no file */
		snprintf(in->path, sizeof in->path, "%s", arg);
		return inl ? die(CL_USAGE, "%s: --inline needs witness files, not synthetic seeds", arg) : 0;
	}
	if (!realpath(arg, in->path))
		return die(CL_INPUT, "%s: %s", arg, strerror(errno));
	uint32_t n;
	int fd = open(in->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st))
		return die(CL_INPUT, "%s: %s", in->path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return close(fd), die(CL_INPUT, "%s: not a regular file", in->path);
	if (inl && (uint64_t)st.st_size > max) {
		close(fd);
		return die(CL_INPUT, "%s: %lld bytes, over the cluster's inline limit of %llu (zkpipe cluster init "
			   "--inline-max); pass it by path on shared storage instead", in->path, (long long)st.st_size,
			   (unsigned long long)max);
	}
	if (zp_wtns_check_fd(fd, in->path, &n))
		return close(fd), die(CL_INPUT, "%s", zp_err_msg());
	if (!inl)
		return close(fd), 0;
	in->len = (size_t)st.st_size;
	in->data = malloc(in->len + 1);
	ssize_t got = in->data ? pread(fd, in->data, in->len, 0) : -1;
	close(fd);
	return got == (ssize_t)in->len ? 0 : die(CL_INPUT, "%s: short read", in->path);
}

static int known_key(const char *key)
{
	const char *p[] = { key };
	zp_db_res *r;
	if (zp_db_exec(&db, &r, "SELECT string_agg(name, ', ' ORDER BY name), bool_or(name = $1) FROM zkpipe.keys",
		       1, p))
		return dberr();
	int rc = !strcmp(zp_db_val(r, 0, 1), "t") ? 0
		 : die(CL_INPUT, "unknown key '%s' (the cluster's nodes serve: %s)", key,
		       zp_db_val(r, 0, 0)[0] ? zp_db_val(r, 0, 0) : "none yet");
	zp_db_free(r);
	return rc;
}

static int inline_limit(uint64_t *max)
{
	zp_db_res *r;
	if (zp_db_exec(&db, &r, "SELECT v FROM zkpipe.meta WHERE k = 'inline_max'", 0, NULL))
		return dberr();
	*max = zp_db_rows(r) ? strtoull(zp_db_val(r, 0, 0), NULL, 10) : 64ull << 20;
	zp_db_free(r);
	return 0;
}

static int insert_inputs(long long id, struct input *in, int n)
{
	char ids[24], part[16];
	i64s(ids, id);
	for (int i = 0; i < n; i++) {
		snprintf(part, sizeof part, "%d", i);
		const char *p[] = { ids, part, in[i].data ? NULL : in[i].path, in[i].data };
		int lens[] = { 0, 0, 0, (int)in[i].len }, fmts[] = { 0, 0, 0, 1 };
		if (zp_db_execb(&db, NULL, "INSERT INTO zkpipe.inputs (job, part, path, data) VALUES ($1::bigint, $2::int,"
				" $3, $4::bytea)", 4, p, lens, fmts, 0))
			return -1;
	}
	return 0;
}

static int submit_tx(const char *key, const char *prio, const char *tok, const char *out, const char *maxa,
		     struct input *in, int n, long long *id, bool *dup)
{
	char np[16];
	snprintf(np, sizeof np, "%d", n);
	const char *p[] = { tok, key, prio, np, out, maxa };
	zp_db_res *r;
	*dup = false;
	if (zp_db_cmd(&db, "BEGIN") ||
	    zp_db_exec(&db, &r, "INSERT INTO zkpipe.jobs (token, key, priority, nparts, output, max_attempts)"
		       " VALUES ($1, $2, $3::int, $4::int, $5, $6::int) ON CONFLICT (token) DO NOTHING RETURNING id", 6, p))
		return -1;
	if (!zp_db_rows(r)) { /* the token is known: that job */
		zp_db_free(r);
		const char *t[] = { tok };
		if (zp_db_cmd(&db, "ROLLBACK") || zp_db_exec(&db, &r, "SELECT id FROM zkpipe.jobs WHERE token = $1", 1, t))
			return -1;
		*dup = true;
		*id = zp_db_rows(r) ? zp_db_int(r, 0, 0) : -1;
		zp_db_free(r);
		return 0;
	}
	*id = zp_db_int(r, 0, 0);
	zp_db_free(r);
	char ids[24];
	i64s(ids, *id);
	const char *e[] = { ids };
	if (insert_inputs(*id, in, n) ||
	    zp_db_exec(&db, NULL, "INSERT INTO zkpipe.events (job, what) VALUES ($1::bigint, 'submitted')", 1, e) ||
	    zp_db_cmd(&db, "COMMIT"))
		return -1;
	const char *k[] = { key };
	zp_db_exec(&db, NULL, "SELECT pg_notify('" ZP_CLUSTER_NOTIFY_JOBS "', $1)", 1, k); /* a hint */
	return 0;
}

static const char submit_help[] =
	"usage: zkpipe submit --database URL --key K [--priority N] [--token T] [--inline] [--output DIR]\n"
	"                     [--max-attempts N] WTNS...\n"
	"  Queue one job in the cluster's database (one partition per witness) and print its id.\n"
	"  Witnesses are passed by absolute path (storage every node mounts; each node checks its\n"
	"  allow_input), or with --inline stored in the database (up to the cluster's inline limit).\n"
	"  --output DIR: the node that completes the job also writes the proofs there (its allow_output);\n"
	"  `zkpipe wait --output` writes them wherever the client runs.\n";

static int submit(int argc, char **argv)
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
		return die(CL_USAGE, "--priority %s: an integer 0..1000000 (higher first)", prio);
	if (mv < 1 || mv > 100)
		return die(CL_USAGE, "--max-attempts %s: 1..100", maxa);
	if (tok && !zp_token_ok(tok))
		return die(CL_USAGE, "--token: 1-64 of [A-Za-z0-9_-]");
	if (out && (out[0] != '/' || strlen(out) >= PATH_MAX))
		return die(CL_USAGE, "--output %s: an absolute path under %d bytes (a directory on the proving node)", out,
			   PATH_MAX);
	int rc, n = argc - optind;
	uint64_t max = 0;
	if ((rc = open_db(url, true)) || (rc = known_key(key)) || (inl && (rc = inline_limit(&max))))
		return rc;
	struct input *in = calloc((size_t)n, sizeof *in);
	for (int i = 0; i < n && !rc; i++)
		rc = read_input(&in[i], argv[optind + i], inl, max);
	long long id = -1;
	bool dup = false;
	if (!rc && submit_tx(key, prio, tok, out, maxa, in, n, &id, &dup))
		rc = dberr();
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
static int write_outputs(long long id, const char *key, int nparts, const char *dir)
{
	static struct zp_pipe_config oc; /* the client's own directory is the only one allowed */
	if (zp_mkdirs(dir, 0755) || !realpath(dir, oc.allow_out[0]))
		return die(CL_INPUT, "--output %s: %s", dir, zp_err_msg()[0] ? zp_err_msg() : strerror(errno));
	oc.n_out = 1;
	oc.public_access = true; /* files 0644: the caller's umask still applies to the directory */
	if (zp_cluster_write_proofs(&db, &oc, id, key, (uint32_t)nparts, oc.allow_out[0]))
		return die(db.c ? CL_INPUT : CL_DB, "%s", zp_err_msg());
	return CL_OK;
}

/* One look at the job: 1 finished (rc set), 0 still going, < 0 database trouble. */
static int wait_once(long long id, const char *dir, int *rc)
{
	char ids[24];
	i64s(ids, id);
	const char *p[] = { ids };
	zp_db_res *r;
	if (zp_db_exec(&db, &r, "SELECT state, error, key, nparts FROM zkpipe.jobs WHERE id = $1::bigint", 1, p))
		return -1;
	if (!zp_db_rows(r)) {
		zp_db_free(r);
		*rc = die(CL_INPUT, "unknown job %lld", id);
		return 1;
	}
	const char *st = zp_db_val(r, 0, 0);
	int fin = strcmp(st, "QUEUED") && strcmp(st, "RUNNING");
	if (fin && !strcmp(st, "DONE")) {
		*rc = dir ? write_outputs(id, zp_db_val(r, 0, 2), (int)zp_db_int(r, 0, 3), dir) : CL_OK;
		if (!*rc)
			printf("job %lld DONE%s%s\n", id, dir ? ": " : "", dir ? dir : "");
	} else if (fin) {
		printf("job %lld %s: %s\n", id, st, zp_db_val(r, 0, 1));
		*rc = CL_FAILED;
	}
	zp_db_free(r);
	return fin;
}

/* Until DONE/FAILED/CANCELLED or the timeout; rides through database restarts (reconnects). */
static int wait_job(long long id, const char *dir, double timeout_s, uint64_t t0)
{
	uint64_t backoff = 200;
	for (;;) {
		int rc = CL_OK, f = db.c ? wait_once(id, dir, &rc) : -1;
		if (f > 0)
			return rc;
		if (f < 0 && !db.c) {
			usleep((useconds_t)backoff * 1000);
			backoff = backoff * 2 > 3000 ? 3000 : backoff * 2;
			if (!zp_db_connect(&db)) {
				backoff = 200;
				zp_db_cmd(&db, "LISTEN " ZP_CLUSTER_NOTIFY_DONE);
			}
		} else if (f < 0) {
			return dberr();
		}
		if (timeout_s > 0 && (zp_mono_ms() - t0) / 1e3 > timeout_s) {
			printf("job %lld: not finished after %.0f s\n", id, timeout_s);
			return CL_TIMEOUT;
		}
		struct pollfd pf = { .fd = zp_db_fd(&db), .events = POLLIN };
		if (db.c && poll(&pf, 1, 500) > 0) /* NOTIFY: a hint; the query above is the truth */
			zp_db_notifies(&db);
	}
}

static int wait_cmd(int argc, char **argv)
{
	static const struct option opts[] = { { "database", 1, 0, 'd' }, { "output", 1, 0, 'o' },
					      { "timeout", 1, 0, 't' }, { "help", 0, 0, 'h' }, { 0 } };
	static const char help[] = "usage: zkpipe wait --database URL [--output DIR] [--timeout S] JOB...\n"
				   "  Wait for jobs; with --output write part-<p>.proof.json / .public.json and\n"
				   "  proofs.json (one job) or DIR/<job>/... (several) from the database.\n"
				   "  Exit 0 all DONE, 8 one FAILED or CANCELLED, 9 timeout, 10 database error.\n";
	const char *url = NULL, *dir = NULL;
	double timeout = 0;
	int o;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1)
		switch (o) {
		case 'd': url = optarg; break;
		case 'o': dir = optarg; break;
		case 't': timeout = strtod(optarg, NULL); break;
		case 'h': fputs(help, stdout); return CL_OK;
		default: fputs(help, stderr); return CL_USAGE;
		}
	if (optind >= argc)
		return fputs(help, stderr), CL_USAGE;
	int rc = open_db(url, true), worst = CL_OK;
	if (rc)
		return rc;
	zp_db_cmd(&db, "LISTEN " ZP_CLUSTER_NOTIFY_DONE);
	uint64_t t0 = zp_mono_ms();
	for (int i = optind; i < argc; i++) {
		char sub[PATH_MAX];
		long long id = strtoll(argv[i], NULL, 10);
		if (dir && argc - optind > 1)
			snprintf(sub, sizeof sub, "%s/%lld", dir, id);
		rc = wait_job(id, dir ? (argc - optind > 1 ? sub : dir) : NULL, timeout, t0);
		if (rc == CL_TIMEOUT || rc == CL_DB)
			return rc;
		worst = rc > worst ? rc : worst;
	}
	return worst;
}

/* ---------------------------------------------------------------- status, cancel */
static json_t *job_json(long long id)
{
	char ids[24];
	i64s(ids, id);
	const char *p[] = { ids };
	zp_db_res *r;
	static const char *const jn[] = { "job", "key", "priority", "state", "parts", "output", "owner", "epoch",
					  "attempts", "max_attempts", "created_at", "claimed_at", "started_at", "done_at",
					  "error", "token", "committed", NULL };
	static const char *const pn[] = { "part", "node", "gpu", "epoch", "proved_at", "stages", NULL };
	static const char *const en[] = { "at", "node", "epoch", "what", "detail", NULL };
	if (zp_db_exec(&db, &r, "SELECT id, key, priority, state, nparts, output, owner, epoch, attempts, max_attempts,"
		       " created_at::text, claimed_at::text, started_at::text, done_at::text, error, token,"
		       " (SELECT count(*) FROM zkpipe.partitions p WHERE p.job = j.id)"
		       " FROM zkpipe.jobs j WHERE id = $1::bigint", 1, p))
		return NULL;
	if (!zp_db_rows(r)) {
		zp_db_free(r);
		return json_object();
	}
	json_t *j = row_json(r, 0, jn, "isisissiiissssssi");
	zp_db_free(r);
	json_t *parts = json_array(), *ev = json_array();
	if (zp_db_exec(&db, &r, "SELECT part, node, gpu, epoch, proved_at::text, stages FROM zkpipe.partitions"
		       " WHERE job = $1::bigint ORDER BY part", 1, p))
		return json_decref(j), NULL;
	for (int i = 0; i < zp_db_rows(r); i++)
		json_array_append_new(parts, row_json(r, i, pn, "issisj"));
	zp_db_free(r);
	if (zp_db_exec(&db, &r, "SELECT at::text, node, epoch, what, detail FROM zkpipe.events WHERE job = $1::bigint"
		       " ORDER BY id", 1, p))
		return json_decref(j), NULL;
	for (int i = 0; i < zp_db_rows(r); i++)
		json_array_append_new(ev, row_json(r, i, en, "ssiss"));
	zp_db_free(r);
	json_object_set_new(j, "partitions", parts);
	json_object_set_new(j, "events", ev);
	return j;
}

static json_t *summary_json(void)
{
	zp_db_res *r;
	json_t *o = json_object(), *by = json_object();
	if (zp_db_exec(&db, &r, "SELECT state, count(*) FROM zkpipe.jobs GROUP BY state", 0, NULL))
		return NULL;
	for (int i = 0; i < zp_db_rows(r); i++)
		json_object_set_new(by, zp_db_val(r, i, 0), json_integer(zp_db_int(r, i, 1)));
	zp_db_free(r);
	json_object_set_new(o, "jobs", by);
	if (zp_db_exec(&db, &r, "SELECT count(*) FILTER (WHERE state = 'UP' AND heartbeat > now() - interval '30 seconds'),"
		       " count(*), (SELECT count(*) FROM zkpipe.partitions),"
		       " (SELECT coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 FROM zkpipe.jobs"
		       "  WHERE state = 'QUEUED') FROM zkpipe.nodes", 0, NULL))
		return json_decref(o), NULL;
	json_object_set_new(o, "nodes_up", json_integer(zp_db_int(r, 0, 0)));
	json_object_set_new(o, "nodes", json_integer(zp_db_int(r, 0, 1)));
	json_object_set_new(o, "partitions_proved", json_integer(zp_db_int(r, 0, 2)));
	json_object_set_new(o, "oldest_queued_s", json_real(strtod(zp_db_val(r, 0, 3), NULL)));
	zp_db_free(r);
	return o;
}

static int status_cmd(int argc, char **argv, bool cancel)
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
			return fprintf(o == 'h' ? stdout : stderr, "usage: zkpipe %s --database URL [--json] %s\n", cmd,
				       cancel ? "JOB" : "[JOB]"), o == 'h' ? CL_OK : CL_USAGE;
	if (cancel && optind >= argc)
		return die(CL_USAGE, "which job?");
	int rc = open_db(url, true);
	if (rc)
		return rc;
	long long id = optind < argc ? strtoll(argv[optind], NULL, 10) : -1;
	if (cancel) {
		char ids[24];
		i64s(ids, id);
		const char *p[] = { ids };
		if (zp_db_exec(&db, NULL, "WITH u AS (UPDATE zkpipe.jobs SET state = 'CANCELLED', done_at = now(),"
			       " error = 'cancelled by client' WHERE id = $1::bigint AND state IN ('QUEUED', 'RUNNING')"
			       " RETURNING id, epoch, coalesce(owner, '') AS owner)"
			       " INSERT INTO zkpipe.events (job, node, epoch, what) SELECT id, owner, epoch, 'cancelled' FROM u",
			       1, p))
			return dberr();
	}
	json_t *j = id >= 0 ? job_json(id) : summary_json();
	if (!j)
		return dberr();
	if (id >= 0 && !json_object_size(j))
		return json_decref(j), die(CL_INPUT, "unknown job %lld", id);
	if (js) {
		print_json(j);
		return CL_OK;
	}
	if (id >= 0)
		printf("job %lld %s: key %s, %lld/%lld partitions committed, owner %s, epoch %lld, attempts %lld%s%s\n", id,
		       json_string_value(json_object_get(j, "state")), json_string_value(json_object_get(j, "key")),
		       json_integer_value(json_object_get(j, "committed")), json_integer_value(json_object_get(j, "parts")),
		       json_string_value(json_object_get(j, "owner")) ?: "-", json_integer_value(json_object_get(j, "epoch")),
		       json_integer_value(json_object_get(j, "attempts")),
		       *json_string_value(json_object_get(j, "error")) ? "; " : "",
		       json_string_value(json_object_get(j, "error")));
	else {
		char *t = json_dumps(json_object_get(j, "jobs"), JSON_COMPACT | JSON_SORT_KEYS);
		printf("cluster: %lld/%lld node(s) up; jobs %s; %lld partitions proved; oldest queued %.1f s\n",
		       json_integer_value(json_object_get(j, "nodes_up")), json_integer_value(json_object_get(j, "nodes")), t,
		       json_integer_value(json_object_get(j, "partitions_proved")),
		       json_real_value(json_object_get(j, "oldest_queued_s")));
		free(t);
	}
	json_decref(j);
	return CL_OK;
}

/* ---------------------------------------------------------------- dispatch */
static const char cluster_help[] =
	"usage: zkpipe cluster init --database URL [--inline-max SIZE]   create or upgrade the schema\n"
	"       zkpipe cluster nodes --database URL [--json]             nodes: heartbeat, keys, load\n"
	"  and, against the database instead of one supervisor:\n"
	"       zkpipe submit|wait|status|cancel --database URL ...      (see each --help)\n";

static int cluster_cmd(int argc, char **argv)
{
	static const struct option opts[] = { { "database", 1, 0, 'd' }, { "json", 0, 0, 'j' }, { "to", 1, 0, 't' },
		{ "inline-max", 1, 0, 'i' }, { "help", 0, 0, 'h' }, { 0 } };
	if (argc < 2 || !strcmp(argv[1], "--help"))
		return fputs(cluster_help, argc < 2 ? stderr : stdout), argc < 2 ? CL_USAGE : CL_OK;
	const char *sub = argv[1], *url = NULL, *im = NULL;
	bool js = false;
	int to = 0, o;
	argc--, argv++;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1)
		switch (o) {
		case 'd': url = optarg; break;
		case 'j': js = true; break;
		case 't': to = atoi(optarg); break;
		case 'i': im = optarg; break;
		case 'h': fputs(cluster_help, stdout); return CL_OK;
		default: fputs(cluster_help, stderr); return CL_USAGE;
		}
	if (!strcmp(sub, "init"))
		return cluster_init(url, to, im);
	if (!strcmp(sub, "nodes"))
		return cluster_nodes(url, js);
	return fputs(cluster_help, stderr), CL_USAGE;
}

int zp_cluster_cli(int argc, char **argv)
{
	cmd = argv[0];
	int rc;
	if (!strcmp(cmd, "submit"))
		rc = submit(argc, argv);
	else if (!strcmp(cmd, "wait"))
		rc = wait_cmd(argc, argv);
	else if (!strcmp(cmd, "status"))
		rc = status_cmd(argc, argv, false);
	else if (!strcmp(cmd, "cancel"))
		rc = status_cmd(argc, argv, true);
	else
		rc = cluster_cmd(argc, argv);
	zp_db_close(&db);
	return rc;
}
