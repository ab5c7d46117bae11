/*
 * out.c — a DONE job's proofs from the database into a directory: part-<p>.proof.json,
 * part-<p>.public.json, then proofs.json (zp_job_assemble), every file written atomically inside
 * the directory opened by pipeline/'s confined walk. Shared by the node that completes a job
 * (its allow_output) and `zkpipe wait --output` (the client's own directory).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cluster.h"
#include "sql.h"
#include "config.h"
#include "files.h"
#include "zp_err.h"

int zp_cluster_write_proofs(struct zp_db *db, const struct zp_pipe_config *c, int64_t job, const char *key,
			    uint32_t nparts, const char *canon)
{
	char id[ZP_DB_I64_LEN];
	const char *p[] = { zp_db_i64(id, job) };
	zp_db_res *r;
	int rc = zp_db_exec(db, &r, zp_sql_job_proofs, 1, p);
	if (rc)
		return rc;
	if (zp_db_rows(r) != (int)nparts)
		rc = zp_err_set(-EIO, "job %lld: %d partition(s) in the database for %u", (long long)job, zp_db_rows(r),
				nparts);
	for (int i = 0; i < zp_db_rows(r) && !rc; i++) {
		char f[64];
		snprintf(f, sizeof f, "part-%lld.proof.json", (long long)zp_db_int(r, i, 0));
		rc = zp_out_write(c, canon, f, zp_db_val(r, i, 1), (size_t)zp_db_len(r, i, 1));
		snprintf(f, sizeof f, "part-%lld.public.json", (long long)zp_db_int(r, i, 0));
		if (!rc)
			rc = zp_out_write(c, canon, f, zp_db_val(r, i, 2), (size_t)zp_db_len(r, i, 2));
	}
	zp_db_free(r);
	if (!rc)
		rc = zp_job_assemble(c, canon, (uint64_t)job, key, nparts);
	return rc;
}
