/*
 * view.c — what a node's status page shows of the cluster, read from the database by
 * zkpipe-clusterd (never by the supervisor, whose loop must not wait on PostgreSQL), and the
 * retention of finished jobs ([cluster] retain_days). docs/cluster.md, "The operator's view".
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "sql.h"
#include "zp_err.h"

int zp_cluster_view_query(struct zp_db *db, unsigned history, json_t **out)
{
	*out = NULL;
	char lim[16];
	snprintf(lim, sizeof lim, "%u", history);
	const char *p[] = { lim };
	zp_db_res *r;
	/* one round trip; the text of each list is parsed here (keys and refused are JSON text) */
	int rc = zp_db_exec(db, &r, zp_sql_cluster_view, 1, p);
	if (rc)
		return rc;
	json_error_t e;
	json_t *nodes = json_loads(zp_db_val(r, 0, 0), 0, &e), *jobs = json_loads(zp_db_val(r, 0, 1), 0, &e),
	       *hist = json_loads(zp_db_val(r, 0, 2), 0, &e);
	double now = strtod(zp_db_val(r, 0, 3), NULL);
	zp_db_free(r);
	if (!json_is_array(nodes) || !json_is_array(jobs) || !json_is_array(hist)) {
		json_decref(nodes), json_decref(jobs), json_decref(hist);
		return zp_err_set(-EIO, "database: the cluster view's rows are not JSON arrays");
	}
	size_t i;
	json_t *n;
	json_array_foreach(nodes, i, n) /* keys and refused are JSON text in the rows: objects here */
		for (const char *const *f = (const char *const[]){ "keys", "refused", NULL }; *f; f++) {
			json_t *o = json_loads(json_string_value(json_object_get(n, *f)) ?: "", 0, &e);
			json_object_set_new(n, *f, json_is_object(o) ? o : json_object());
			if (!json_is_object(o))
				json_decref(o);
		}
	*out = json_pack("{s:o, s:o, s:o, s:f}", "nodes", nodes, "jobs", jobs, "history", hist, "db_now", now);
	return *out ? 0 : zp_err_set(-ENOMEM, "out of memory");
}

int zp_cluster_prune(struct zp_db *db, uint32_t days, long long *n)
{
	char d[16];
	snprintf(d, sizeof d, "%u", days);
	const char *p[] = { d };
	zp_db_res *r;
	*n = 0;
	/* inputs and partitions go with their job (ON DELETE CASCADE); events name jobs without a
	 * foreign key: deleted here; a batch at a time, so one statement stays short */
	int rc = zp_db_exec(db, &r, zp_sql_prune, 1, p);
	if (rc)
		return rc;
	*n = zp_db_rows(r) ? zp_db_int(r, 0, 0) : 0;
	zp_db_free(r);
	return 0;
}
