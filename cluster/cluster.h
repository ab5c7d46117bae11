/*
 * cluster.h — zkpipe nodes sharing one PostgreSQL-protocol database (PostgreSQL, or YugabyteDB)
 * as their job queue. docs/cluster.md is the user's page; this header is the code's contract.
 *
 * WHO USES WHAT
 *   zkpipe-clusterd (clusterd.c)  one per cluster node, started by the supervisor when its config
 *                                 has [cluster] database = ...; it is the only process of a node
 *                                 that talks to the database, and it talks to its supervisor
 *                                 only through the client API (like `zkpipe submit`), so a
 *                                 database that hangs or is gone never stops local proving.
 *   zkpipe CLI (cli.c)            submit / wait / status / cancel with --database, and
 *                                 `zkpipe cluster init | nodes`.
 *
 * DATABASE ACCESS (db.c): libpq through a table of function pointers, filled by dlopen on the
 * CLI's first connect (so `zkpipe` starts without libpq) and by the linker in zkpipe-clusterd;
 * one connection per process, every statement sent asynchronously and
 * waited for with a deadline (a cut network cannot block a caller past it); keepalives and
 * tcp_user_timeout are set unless the connection string says otherwise. Only SQL that both
 * PostgreSQL and YugabyteDB accept: no advisory locks, no LOCK TABLE; LISTEN/NOTIFY is used
 * as a wake-up hint only (a failure to LISTEN or NOTIFY is ignored; polling is the truth).
 * The statements themselves are named in sql.h (text in sql.c); schema.c keeps the schema's.
 *
 * SCHEMA (schema.c): everything lives in the schema "zkpipe" (so a Filecoin farm's existing
 * database hosts it beside its own tables); versioned migrations, each idempotent.
 *   meta(k, v)            schema_version, inline_max (bytes a client may store inline)
 *   nodes                 name, host, groups, gpus, keys (JSON name -> vk hash), refused
 *                         (JSON name -> reason), capacity, load, state (UP, DRAINING, DRAINED,
 *                         STOPPED; readers show DOWN past dead_after_s), heartbeat (db clock);
 *                         v3: dead_after_s, max_parts, instance (who holds the name), drain
 *   keys                  name -> vk_hash (fixed by the first node serving it), vk_json
 *   jobs                  id, token, key, priority, state, nparts, output, owner, epoch
 *                         (the lease: +1 at every claim; the fencing token), attempts,
 *                         max_attempts, times, error; v5: committed (partition rows, counted by
 *                         every commit in its UPDATE of the job row)
 *   inputs(job, part)     path on shared storage, or data (an inline witness)
 *   partitions(job,part)  proof, public (snarkjs JSON), node, gpu, epoch, stages (JSON)
 *   events                job, node, epoch, what (submitted, claimed, requeued, released,
 *                         fenced, done, failed, cancelled), detail: the audit trail
 *
 * JOB STATES  QUEUED -> RUNNING(owner, epoch) -> DONE | FAILED | CANCELLED;
 *             RUNNING -> QUEUED when its node is presumed dead (attempts + 1; FAILED at
 *             max_attempts) or stops cleanly (released, attempts unchanged).
 * Every write a node makes for a job it holds names (id, epoch, owner) and holds the job row
 * lock: a node whose lease was taken away cannot write, so a job is delivered once.
 */
#ifndef ZP_CLUSTER_H
#define ZP_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZP_CLUSTER_SCHEMA_VERSION 5
#define ZP_CLUSTER_BUILD "zkpipe 0.1.0, schema 5" /* nodes.version */
#define ZP_CLUSTER_NOTIFY_JOBS "zkpipe_jobs" /* payload: key name; "a job was queued" */
#define ZP_CLUSTER_NOTIFY_DONE "zkpipe_done" /* payload: job id; "a job finished" */

/* the database round-trip histogram's upper bounds, seconds (zkpipe_cluster_db_seconds) */
#define ZP_DB_LAT_NB 12
#define ZP_DB_LAT_BOUNDS { 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5 }

#define ZP_DB_PREP_MAX 64

struct pg_conn;
struct pg_result;

struct zp_db {
	struct pg_conn *c;          /* NULL = not connected */
	char conninfo[1024];
	char app[64];               /* application_name */
	int timeout_ms;             /* per statement */
	uint64_t round_trips;       /* statements sent (connects not counted) */
	uint64_t connects, failures;
	char sqlstate[6];           /* of the last failed statement, "" if none */
	/* statement round-trip latency (send to last result, failed ones too): counts per bucket
	 * of ZP_DB_LAT_BOUNDS (cumulative only when exported), the overflow in lat_n[ZP_DB_LAT_NB] */
	uint64_t lat_n[ZP_DB_LAT_NB + 1];
	double lat_sum;
	/* prepare: send each statement prepared once per connection (zkpipe-clusterd: a node sends
	 * the same few statements for days; the server then skips parsing and, with a generic plan,
	 * planning them); prep[]: the statements prepared on this connection, by address */
	bool prepare;
	unsigned nprep;
	const char *prep[ZP_DB_PREP_MAX];
};

/* A result: rows of text values (binary where asked); free with zp_db_free. */
typedef struct pg_result zp_db_res;

/* libpq, by its soname: the CLI loads it with dlopen on its first connect (db.c). */
#define ZP_LIBPQ_SONAME "libpq.so.5"
/* Load libpq if this binary does not link it (zp_db_connect calls it; any thread, once). 0, or
 * -ELIBACC with "cluster commands need libpq (PostgreSQL client library): <dlerror()>" in
 * zp_err_msg(). Always 0 in zkpipe-clusterd, which links libpq. */
int zp_db_load(void);
/* Connect (blocking, bounded by connect_timeout = the statement timeout). 0 or -ECONNREFUSED
 * with the server's message in zp_err_msg(). */
int zp_db_connect(struct zp_db *db);
void zp_db_close(struct zp_db *db);
/* One statement with text parameters (NULL = SQL NULL), results in text (binary_results = 0)
 * or binary. *out may be NULL when no rows are wanted. 0; -ETIMEDOUT or -ECONNRESET (the
 * connection is closed: reconnect); -EAGAIN (serialization failure / deadlock: retry); -EIO
 * (the statement failed: zp_err_msg() has the server's message). */
int zp_db_exec(struct zp_db *db, zp_db_res **out, const char *sql, int n, const char *const *vals);
int zp_db_execb(struct zp_db *db, zp_db_res **out, const char *sql, int n, const char *const *vals,
		const int *lens, const int *fmts, int binary_results);
/* Statement without parameters or rows. */
int zp_db_cmd(struct zp_db *db, const char *sql);
void zp_db_free(zp_db_res *r);
int zp_db_rows(const zp_db_res *r);
const char *zp_db_val(const zp_db_res *r, int row, int col); /* "" for NULL */
int zp_db_len(const zp_db_res *r, int row, int col);
bool zp_db_null(const zp_db_res *r, int row, int col);
int64_t zp_db_int(const zp_db_res *r, int row, int col);
/* An int8 parameter's text (the decimal of v) in b, which holds ZP_DB_I64_LEN bytes; returns b. */
#define ZP_DB_I64_LEN 24
const char *zp_db_i64(char b[ZP_DB_I64_LEN], int64_t v);
/* The socket to poll for NOTIFYs (-1 when not connected); returns the count of notifications
 * consumed (their payloads are not needed: a hint is a hint). */
int zp_db_fd(const struct zp_db *db);
int zp_db_notifies(struct zp_db *db);
/* A PostgreSQL array literal of n text values ({"a","b"}), malloc'ed. */
char *zp_db_array(const char *const *v, size_t n);

/* schema.c: create or upgrade to `to` (0 = the latest). 0; the version found before in *from. */
int zp_cluster_migrate(struct zp_db *db, int to, int *from);
/* The schema's version (0 when absent). */
int zp_cluster_schema_version(struct zp_db *db, int *v);
/* Fail with a clear message unless the schema is exactly the version this build speaks. */
int zp_cluster_schema_check(struct zp_db *db);

/* out.c: a DONE job's part files and proofs.json from the database into canon, a canonical
 * directory under c's allow_output that exists. 0, or < 0 with the file or row named. */
struct zp_pipe_config;
int zp_cluster_write_proofs(struct zp_db *db, const struct zp_pipe_config *c, int64_t job, const char *key,
			    uint32_t nparts, const char *canon);

/* view.c: the cluster as a node's status page shows it (docs/cluster.md, "The operator's view").
 * zp_cluster_view_query reads nodes (DOWN past dead_after_s, partitions committed in the last
 * minute), QUEUED/RUNNING jobs (partitions committed) and the newest finished jobs in one
 * statement; *out gets {"nodes": [...], "jobs": [...], "history": [...]}. 0 or the db error. */
struct json_t;
int zp_cluster_view_query(struct zp_db *db, unsigned history, struct json_t **out);
/* Delete finished jobs (DONE, FAILED, CANCELLED) whose done_at is older than days, with their
 * inputs and partitions (ON DELETE CASCADE) and events; *n = jobs deleted. 0 or the db error. */
int zp_cluster_prune(struct zp_db *db, uint32_t days, long long *n);

/* cli.c: `zkpipe submit|wait|status|cancel --database ...` and `zkpipe cluster ...`;
 * argv[0] is the subcommand. Exit codes: common/zp_exit.h's table, as the local commands: 0, 2 usage,
 * 3 input (or unknown node), 9 timeout, 10 database unreachable or refused, 11 job FAILED or
 * CANCELLED, 12 unknown job, 13 key not served by any node. */
int zp_cluster_cli(int argc, char **argv);
/* Whether a client command line asks for the database (--database / --database=). */
bool zp_cluster_cli_wants(int argc, char **argv);

#endif
