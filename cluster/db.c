/*
 * db.c — one libpq connection with a deadline on every statement.
 *
 * libpq's synchronous calls wait as long as the kernel lets a TCP connection hang (minutes on a
 * cut link); every statement here is sent with PQsendQueryParams and its reply awaited with
 * poll() against the statement timeout, after which the connection is dropped. The caller
 * reconnects (with backoff) on its own schedule.
 *
 * LIBPQ, LOADED OR LINKED. Every libpq call goes through the table `pq`, whose members have
 * libpq-fe.h's own prototypes (__typeof__), so the compiler checks each call as if direct.
 * Built for the zkpipe CLI (libzpcluster), the table is filled by dlopen("libpq.so.5") + dlsym
 * on the first zp_db_connect: only the --database and `cluster` commands need libpq and the ~20
 * libraries it pulls in, and loading them at every start cost ~9 ms of a ~20 ms `zkpipe` start.
 * Built for zkpipe-clusterd (-DZP_PQ_LINKED: it always needs libpq), the table is initialized
 * with the functions themselves and the binary links libpq as before.
 */
#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifndef ZP_PQ_LINKED
#include <dlfcn.h>
#include <pthread.h>
#endif

#include "cluster.h"
#include "zp_err.h"

/* Every libpq function this file calls; a new call fails to compile until it is listed here. */
#define PQ_FUNCS(X)                                                                              \
	X(PQconnectdbParams) X(PQstatus) X(PQerrorMessage) X(PQsetnonblocking) X(PQfinish)      \
	X(PQsocket) X(PQflush) X(PQisBusy) X(PQconsumeInput) X(PQgetResult) X(PQclear)          \
	X(PQresultStatus) X(PQresultErrorField) X(PQresultErrorMessage) X(PQsendQueryParams)    \
	X(PQntuples) X(PQgetvalue) X(PQgetlength) X(PQgetisnull) X(PQnotifies) X(PQfreemem)        \
	X(PQsendPrepare) X(PQsendQueryPrepared) X(PQtransactionStatus)

#define PQ_MEMBER(f) __typeof__(f) *f;
#define PQ_LINK(f) .f = f,
static struct {
	PQ_FUNCS(PQ_MEMBER)
} pq
#ifdef ZP_PQ_LINKED
	= { PQ_FUNCS(PQ_LINK) }
#endif
;

#ifdef ZP_PQ_LINKED
int zp_db_load(void) { return 0; }
#else
static pthread_once_t pq_once = PTHREAD_ONCE_INIT;
static char pq_err[512]; /* why the table is empty; "" once it is filled (pthread_once: all threads see it) */

static void pq_load(void)
{
	void *h = dlopen(ZP_LIBPQ_SONAME, RTLD_NOW | RTLD_LOCAL);
	const char *e;
	if (!h) {
		e = dlerror();
		snprintf(pq_err, sizeof pq_err, "%s", e ? e : ZP_LIBPQ_SONAME ": cannot be loaded");
		return;
	}
	void *f;
#define PQ_SYM(name)                                                                             \
	if (!(f = dlsym(h, #name)))                                                              \
		goto missing;                                                                    \
	pq.name = (__typeof__(pq.name))f;
	PQ_FUNCS(PQ_SYM)
#undef PQ_SYM
	return;
missing:
	e = dlerror();
	snprintf(pq_err, sizeof pq_err, "%s", e ? e : ZP_LIBPQ_SONAME ": a function is missing");
	memset(&pq, 0, sizeof pq);
	dlclose(h);
}

int zp_db_load(void)
{
	pthread_once(&pq_once, pq_load);
	if (pq_err[0])
		return zp_err_set(-ELIBACC, "cluster commands need libpq (PostgreSQL client library): %s "
				  "(Debian/Ubuntu: apt install libpq5)", pq_err);
	return 0;
}
#endif

static uint64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* Our defaults come first: a value in the user's connection string overrides them. */
int zp_db_connect(struct zp_db *db)
{
	char tmo[16], utmo[16];
	int t = db->timeout_ms > 0 ? db->timeout_ms : 10000;
	snprintf(tmo, sizeof tmo, "%d", (t + 999) / 1000);
	snprintf(utmo, sizeof utmo, "%d", t);
	const char *k[] = { "connect_timeout", "keepalives", "keepalives_idle", "keepalives_interval",
			    "keepalives_count", "tcp_user_timeout", "application_name", "dbname", NULL };
	const char *v[] = { tmo, "1", "5", "2", "3", utmo, db->app[0] ? db->app : "zkpipe", db->conninfo, NULL };
	zp_db_close(db);
	int rc = zp_db_load();
	if (rc)
		return rc;
	db->c = pq.PQconnectdbParams(k, v, 1);
	if (!db->c)
		return zp_err_set(-ENOMEM, "database: out of memory");
	if (pq.PQstatus(db->c) != CONNECTION_OK) {
		char m[512];
		snprintf(m, sizeof m, "%s", pq.PQerrorMessage(db->c));
		m[strcspn(m, "\n")] = 0;
		zp_db_close(db);
		db->failures++;
		return zp_err_set(-ECONNREFUSED, "database: %s", m);
	}
	pq.PQsetnonblocking(db->c, 1);
	db->connects++;
	/* A prepared statement's plan made once (clusterd): left to itself the server plans the claim anew
	 * at every call (its estimate of a generic plan is worse; measured no faster: bench/RESULTS.md), and
	 * planning it cost more than running it. A server without the setting (before PostgreSQL 12) keeps
	 * its own choice: the error is ignored. */
	if (db->prepare && zp_db_cmd(db, "SET plan_cache_mode = force_generic_plan") && !db->c)
		return zp_err_set(-ECONNREFUSED, "database: %s", zp_err_msg());
	/* A statement given up at its deadline (the connection dropped) must not go on waiting on the server:
	 * a commit waiting for a row lock held past the deadline would otherwise keep its backend, one more a
	 * retry, until the server refuses connections ("too many clients"). The server looks at the socket
	 * every second while a statement runs and ends it once the client is gone (PostgreSQL 14 and later;
	 * an older server or another one without the setting keeps the old behaviour: the error is ignored). */
	if (zp_db_cmd(db, "SET client_connection_check_interval = 1000") && !db->c)
		return zp_err_set(-ECONNREFUSED, "database: %s", zp_err_msg());
	return 0;
}

void zp_db_close(struct zp_db *db)
{
	if (db->c)
		pq.PQfinish(db->c);
	db->c = NULL;
	db->nprep = 0; /* prepared statements live and die with their connection */
}

/* Wait for the socket until the deadline; 0, or -ETIMEDOUT. */
static int wait_sock(struct zp_db *db, short ev, uint64_t deadline)
{
	uint64_t now = now_ms();
	if (now >= deadline)
		return -ETIMEDOUT;
	struct pollfd p = { .fd = pq.PQsocket(db->c), .events = ev };
	int r = poll(&p, 1, (int)(deadline - now));
	return r > 0 ? 0 : r == 0 ? -ETIMEDOUT : (errno == EINTR ? 0 : -errno);
}

static int lost(struct zp_db *db, int code, const char *what)
{
	char m[256];
	snprintf(m, sizeof m, "%s", db->c ? pq.PQerrorMessage(db->c) : "");
	m[strcspn(m, "\n")] = 0;
	zp_db_close(db);
	db->failures++;
	return zp_err_set(code, "database: %s%s%s", what, m[0] ? ": " : "", m);
}

/* Read every result of the statement sent; keep the last one that is not NULL. */
static int collect(struct zp_db *db, PGresult **last, uint64_t deadline)
{
	for (;;) {
		int f;
		while ((f = pq.PQflush(db->c)) == 1)
			if (wait_sock(db, POLLOUT | POLLIN, deadline))
				return lost(db, -ETIMEDOUT, "no answer within the statement timeout");
		if (f < 0)
			return lost(db, -ECONNRESET, "connection lost");
		while (pq.PQisBusy(db->c)) {
			if (wait_sock(db, POLLIN, deadline))
				return lost(db, -ETIMEDOUT, "no answer within the statement timeout");
			if (!pq.PQconsumeInput(db->c))
				return lost(db, -ECONNRESET, "connection lost");
		}
		PGresult *r = pq.PQgetResult(db->c);
		if (!r)
			return 0;
		pq.PQclear(*last);
		*last = r;
	}
}

static int result_code(struct zp_db *db, PGresult *r)
{
	ExecStatusType st = r ? pq.PQresultStatus(r) : PGRES_FATAL_ERROR;
	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
		return 0;
	const char *s = r ? pq.PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	snprintf(db->sqlstate, sizeof db->sqlstate, "%s", s ? s : "");
	char m[512];
	snprintf(m, sizeof m, "%s", r ? pq.PQresultErrorMessage(r) : pq.PQerrorMessage(db->c));
	m[strcspn(m, "\n")] = 0;
	if (pq.PQstatus(db->c) != CONNECTION_OK)
		return lost(db, -ECONNRESET, m);
	db->failures++;
	/* 40001 serialization failure, 40P01 deadlock: YugabyteDB raises them on conflicts */
	int code = !strcmp(db->sqlstate, "40001") || !strcmp(db->sqlstate, "40P01") ? -EAGAIN : -EIO;
	return zp_err_set(code, "database: %s", m);
}

/* Send one statement: as text (PQsendQueryParams: parsed and planned by the server every time),
 * or, when db->prepare is set, as a statement prepared once per connection and named by its slot
 * (the server parses it once and may keep a generic plan). A statement is known by its address:
 * every caller passes one of sql.c's constant strings (prepared only with parameters). */
static int send_stmt(struct zp_db *db, const char *sql, int n, const char *const *vals, const int *lens,
		     const int *fmts, int binary_results, uint64_t deadline, PGresult **r)
{
	unsigned k = 0;
	bool prep = db->prepare && n > 0; /* parameterless ones (BEGIN, COMMIT, DDL) are rare: as text */
	while (prep && k < db->nprep && db->prep[k] != sql)
		k++;
	if (!prep || k == ZP_DB_PREP_MAX) { /* as text (also once more statements than slots were sent) */
		if (!pq.PQsendQueryParams(db->c, sql, n, NULL, vals, lens, fmts, binary_results))
			return lost(db, -ECONNRESET, "cannot send");
		return collect(db, r, deadline);
	}
	char name[16];
	snprintf(name, sizeof name, "zp%u", k);
	int rc;
	if (k == db->nprep) { /* first use on this connection: one more round trip, once */
		db->round_trips++;
		if (!pq.PQsendPrepare(db->c, name, sql, n, NULL))
			return lost(db, -ECONNRESET, "cannot send");
		if ((rc = collect(db, r, deadline)) || (rc = result_code(db, *r)))
			return rc;
		pq.PQclear(*r);
		*r = NULL;
		db->prep[db->nprep++] = sql;
	}
	if (!pq.PQsendQueryPrepared(db->c, name, n, vals, lens, fmts, binary_results))
		return lost(db, -ECONNRESET, "cannot send");
	return collect(db, r, deadline);
}

int zp_db_execb(struct zp_db *db, zp_db_res **out, const char *sql, int n, const char *const *vals,
		const int *lens, const int *fmts, int binary_results)
{
	if (out)
		*out = NULL;
	db->sqlstate[0] = 0;
	if (!db->c)
		return zp_err_set(-ECONNRESET, "database: not connected");
	uint64_t deadline = now_ms() + (uint64_t)(db->timeout_ms > 0 ? db->timeout_ms : 10000);
	db->round_trips++;
	PGresult *r = NULL;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = send_stmt(db, sql, n, vals, lens, fmts, binary_results, deadline, &r);
	if (!rc)
		rc = result_code(db, r);
	/* 0A000 "cached plan must not change result type": a table a prepared statement reads was
	 * altered under it (a migration, a pooler's DISCARD). Outside a transaction it is sent again
	 * once, after every prepared statement of the connection is forgotten. */
	if (rc == -EIO && db->prepare && db->c && !strcmp(db->sqlstate, "0A000") &&
	    pq.PQtransactionStatus(db->c) == PQTRANS_IDLE) {
		pq.PQclear(r);
		r = NULL;
		if (!pq.PQsendQueryParams(db->c, "DEALLOCATE ALL", 0, NULL, NULL, NULL, NULL, 0))
			rc = lost(db, -ECONNRESET, "cannot send");
		else if (!(rc = collect(db, &r, deadline)) && !(rc = result_code(db, r))) {
			db->nprep = 0;
			pq.PQclear(r);
			r = NULL;
			db->sqlstate[0] = 0;
			if (!(rc = send_stmt(db, sql, n, vals, lens, fmts, binary_results, deadline, &r)))
				rc = result_code(db, r);
		}
	}
	static const double lat_b[ZP_DB_LAT_NB] = ZP_DB_LAT_BOUNDS;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	unsigned b = 0;
	while (b < ZP_DB_LAT_NB && dt > lat_b[b])
		b++;
	db->lat_n[b]++;
	db->lat_sum += dt;
	if (!rc && out)
		*out = r;
	else
		pq.PQclear(r);
	return rc;
}

int zp_db_exec(struct zp_db *db, zp_db_res **out, const char *sql, int n, const char *const *vals)
{
	return zp_db_execb(db, out, sql, n, vals, NULL, NULL, 0);
}

int zp_db_cmd(struct zp_db *db, const char *sql) { return zp_db_exec(db, NULL, sql, 0, NULL); }
void zp_db_free(zp_db_res *r)
{
	if (r) /* NULL may come before libpq is loaded */
		pq.PQclear(r);
}
int zp_db_rows(const zp_db_res *r) { return r ? pq.PQntuples(r) : 0; }
const char *zp_db_val(const zp_db_res *r, int row, int col) { return pq.PQgetvalue(r, row, col); }
int zp_db_len(const zp_db_res *r, int row, int col) { return pq.PQgetlength(r, row, col); }
bool zp_db_null(const zp_db_res *r, int row, int col) { return pq.PQgetisnull(r, row, col); }
int64_t zp_db_int(const zp_db_res *r, int row, int col) { return strtoll(pq.PQgetvalue(r, row, col), NULL, 10); }

const char *zp_db_i64(char b[ZP_DB_I64_LEN], int64_t v)
{
	snprintf(b, ZP_DB_I64_LEN, "%lld", (long long)v);
	return b;
}
int zp_db_fd(const struct zp_db *db) { return db->c ? pq.PQsocket(db->c) : -1; }

int zp_db_notifies(struct zp_db *db)
{
	if (!db->c)
		return 0;
	if (!pq.PQconsumeInput(db->c)) {
		lost(db, -ECONNRESET, "connection lost");
		return 0;
	}
	int n = 0;
	for (PGnotify *m; (m = pq.PQnotifies(db->c)); n++)
		pq.PQfreemem(m);
	return n;
}

char *zp_db_array(const char *const *v, size_t n)
{
	size_t len = 3;
	for (size_t i = 0; i < n; i++)
		len += 2 * strlen(v[i]) + 3;
	char *s = malloc(len), *p = s;
	if (!s)
		return NULL;
	*p++ = '{';
	for (size_t i = 0; i < n; i++) {
		if (i)
			*p++ = ',';
		*p++ = '"';
		for (const char *c = v[i]; *c; c++) {
			if (*c == '"' || *c == '\\')
				*p++ = '\\';
			*p++ = *c;
		}
		*p++ = '"';
	}
	*p++ = '}';
	*p = 0;
	return s;
}
