/*
 * db.c — one libpq connection with a deadline on every statement.
 *
 * libpq's synchronous calls wait as long as the kernel lets a TCP connection hang (minutes on a
 * cut link); every statement here is sent with PQsendQueryParams and its reply awaited with
 * poll() against the statement timeout, after which the connection is dropped. The caller
 * reconnects (with backoff) on its own schedule.
 */
#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster.h"
#include "zp_err.h"

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
	db->c = PQconnectdbParams(k, v, 1);
	if (!db->c)
		return zp_err_set(-ENOMEM, "database: out of memory");
	if (PQstatus(db->c) != CONNECTION_OK) {
		char m[512];
		snprintf(m, sizeof m, "%s", PQerrorMessage(db->c));
		m[strcspn(m, "\n")] = 0;
		zp_db_close(db);
		db->failures++;
		return zp_err_set(-ECONNREFUSED, "database: %s", m);
	}
	PQsetnonblocking(db->c, 1);
	db->connects++;
	return 0;
}

void zp_db_close(struct zp_db *db)
{
	if (db->c)
		PQfinish(db->c);
	db->c = NULL;
}

/* Wait for the socket until the deadline; 0, or -ETIMEDOUT. */
static int wait_sock(struct zp_db *db, short ev, uint64_t deadline)
{
	uint64_t now = now_ms();
	if (now >= deadline)
		return -ETIMEDOUT;
	struct pollfd p = { .fd = PQsocket(db->c), .events = ev };
	int r = poll(&p, 1, (int)(deadline - now));
	return r > 0 ? 0 : r == 0 ? -ETIMEDOUT : (errno == EINTR ? 0 : -errno);
}

static int lost(struct zp_db *db, int code, const char *what)
{
	char m[256];
	snprintf(m, sizeof m, "%s", db->c ? PQerrorMessage(db->c) : "");
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
		while ((f = PQflush(db->c)) == 1)
			if (wait_sock(db, POLLOUT | POLLIN, deadline))
				return lost(db, -ETIMEDOUT, "no answer within the statement timeout");
		if (f < 0)
			return lost(db, -ECONNRESET, "connection lost");
		while (PQisBusy(db->c)) {
			if (wait_sock(db, POLLIN, deadline))
				return lost(db, -ETIMEDOUT, "no answer within the statement timeout");
			if (!PQconsumeInput(db->c))
				return lost(db, -ECONNRESET, "connection lost");
		}
		PGresult *r = PQgetResult(db->c);
		if (!r)
			return 0;
		PQclear(*last);
		*last = r;
	}
}

static int result_code(struct zp_db *db, PGresult *r)
{
	ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
		return 0;
	const char *s = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	snprintf(db->sqlstate, sizeof db->sqlstate, "%s", s ? s : "");
	char m[512];
	snprintf(m, sizeof m, "%s", r ? PQresultErrorMessage(r) : PQerrorMessage(db->c));
	m[strcspn(m, "\n")] = 0;
	if (PQstatus(db->c) != CONNECTION_OK)
		return lost(db, -ECONNRESET, m);
	db->failures++;
	/* 40001 serialization failure, 40P01 deadlock: YugabyteDB raises them on conflicts */
	int code = !strcmp(db->sqlstate, "40001") || !strcmp(db->sqlstate, "40P01") ? -EAGAIN : -EIO;
	return zp_err_set(code, "database: %s", m);
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
	if (!PQsendQueryParams(db->c, sql, n, NULL, vals, lens, fmts, binary_results))
		return lost(db, -ECONNRESET, "cannot send");
	PGresult *r = NULL;
	int rc = collect(db, &r, deadline);
	if (!rc)
		rc = result_code(db, r);
	if (!rc && out)
		*out = r;
	else
		PQclear(r);
	return rc;
}

int zp_db_exec(struct zp_db *db, zp_db_res **out, const char *sql, int n, const char *const *vals)
{
	return zp_db_execb(db, out, sql, n, vals, NULL, NULL, 0);
}

int zp_db_cmd(struct zp_db *db, const char *sql) { return zp_db_exec(db, NULL, sql, 0, NULL); }
void zp_db_free(zp_db_res *r) { PQclear(r); }
int zp_db_rows(const zp_db_res *r) { return r ? PQntuples(r) : 0; }
const char *zp_db_val(const zp_db_res *r, int row, int col) { return PQgetvalue(r, row, col); }
int zp_db_len(const zp_db_res *r, int row, int col) { return PQgetlength(r, row, col); }
bool zp_db_null(const zp_db_res *r, int row, int col) { return PQgetisnull(r, row, col); }
int64_t zp_db_int(const zp_db_res *r, int row, int col) { return strtoll(PQgetvalue(r, row, col), NULL, 10); }
int zp_db_fd(const struct zp_db *db) { return db->c ? PQsocket(db->c) : -1; }

int zp_db_notifies(struct zp_db *db)
{
	if (!db->c)
		return 0;
	if (!PQconsumeInput(db->c)) {
		lost(db, -ECONNRESET, "connection lost");
		return 0;
	}
	int n = 0;
	for (PGnotify *m; (m = PQnotifies(db->c)); n++)
		PQfreemem(m);
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
