/*
 * schema.c — the cluster schema and its migrations.
 *
 * Migration N moves the schema from version N-1 to N. Each statement is idempotent (IF NOT
 * EXISTS), so a migration cut short, or two `zkpipe cluster init` at once, are harmless: the
 * version is raised only after its statements succeeded, and only upwards. YugabyteDB's DDL is
 * not transactional by default, which is why idempotence, not a transaction, makes this safe.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "zp_err.h"

static const char *const v1[] = {
	"CREATE SCHEMA IF NOT EXISTS zkpipe",
	"CREATE TABLE IF NOT EXISTS zkpipe.meta (k text PRIMARY KEY, v text NOT NULL)",
	"INSERT INTO zkpipe.meta (k, v) VALUES ('inline_max', '67108864') ON CONFLICT (k) DO NOTHING",
	"CREATE TABLE IF NOT EXISTS zkpipe.nodes ("
	" name text PRIMARY KEY, host text NOT NULL, groups text NOT NULL DEFAULT '',"
	" gpus int NOT NULL DEFAULT 0, keys text NOT NULL DEFAULT '{}', refused text NOT NULL DEFAULT '{}',"
	" capacity int NOT NULL DEFAULT 0, load int NOT NULL DEFAULT 0, held int NOT NULL DEFAULT 0,"
	" state text NOT NULL DEFAULT 'UP', version text NOT NULL DEFAULT '',"
	" jobs_done bigint NOT NULL DEFAULT 0, round_trips bigint NOT NULL DEFAULT 0,"
	" started_at timestamptz NOT NULL DEFAULT now(), heartbeat timestamptz NOT NULL DEFAULT now())",
	"CREATE TABLE IF NOT EXISTS zkpipe.keys ("
	" name text PRIMARY KEY, vk_hash text NOT NULL, vk_json text NOT NULL, first_node text NOT NULL,"
	" created_at timestamptz NOT NULL DEFAULT now())",
	"CREATE TABLE IF NOT EXISTS zkpipe.jobs ("
	" id bigserial PRIMARY KEY, token text UNIQUE, key text NOT NULL, priority int NOT NULL DEFAULT 0,"
	" state text NOT NULL DEFAULT 'QUEUED'"
	"  CHECK (state IN ('QUEUED', 'RUNNING', 'DONE', 'FAILED', 'CANCELLED')),"
	" nparts int NOT NULL CHECK (nparts > 0), output text, owner text, epoch bigint NOT NULL DEFAULT 0,"
	" attempts int NOT NULL DEFAULT 0, max_attempts int NOT NULL DEFAULT 3,"
	" created_at timestamptz NOT NULL DEFAULT now(), claimed_at timestamptz, started_at timestamptz,"
	" done_at timestamptz, error text NOT NULL DEFAULT '')",
	"CREATE TABLE IF NOT EXISTS zkpipe.inputs ("
	" job bigint NOT NULL REFERENCES zkpipe.jobs (id) ON DELETE CASCADE, part int NOT NULL,"
	" path text, data bytea, PRIMARY KEY (job, part), CHECK ((path IS NULL) <> (data IS NULL)))",
	"CREATE TABLE IF NOT EXISTS zkpipe.partitions ("
	" job bigint NOT NULL REFERENCES zkpipe.jobs (id) ON DELETE CASCADE, part int NOT NULL,"
	" proof text NOT NULL, public text NOT NULL, node text NOT NULL, gpu text NOT NULL DEFAULT '',"
	" epoch bigint NOT NULL, stages text NOT NULL DEFAULT '{}', proved_at timestamptz NOT NULL DEFAULT now(),"
	" PRIMARY KEY (job, part))",
	NULL,
};

/* v2: the audit trail, and the index the claim query walks. */
static const char *const v2[] = {
	"CREATE TABLE IF NOT EXISTS zkpipe.events ("
	" id bigserial PRIMARY KEY, job bigint, at timestamptz NOT NULL DEFAULT now(), node text NOT NULL DEFAULT '',"
	" epoch bigint NOT NULL DEFAULT 0, what text NOT NULL, detail text NOT NULL DEFAULT '')",
	"CREATE INDEX IF NOT EXISTS events_job ON zkpipe.events (job)",
	/* the claim walks QUEUED jobs in its order and filters keys: a partial index, small and
	 * ordered (an index led by key could not give one order for several keys) */
	"CREATE INDEX IF NOT EXISTS jobs_queued ON zkpipe.jobs (priority DESC, id) WHERE state = 'QUEUED'",
	"CREATE INDEX IF NOT EXISTS jobs_owner ON zkpipe.jobs (owner, state)",
	NULL,
};

/* v3 (issue 34): what a reader needs to tell a node's truth without its config (dead_after_s:
 * past it a node is DOWN; max_parts: the largest job it takes), who holds a name (instance: a
 * second live node of one name is refused), drains, and partitions numbered from 0. Rows written
 * by SQL before v3 with a negative partition end FAILED here, before the CHECK goes on. */
static const char *const v3[] = {
	"ALTER TABLE zkpipe.nodes ADD COLUMN IF NOT EXISTS dead_after_s int NOT NULL DEFAULT 15",
	"ALTER TABLE zkpipe.nodes ADD COLUMN IF NOT EXISTS max_parts int NOT NULL DEFAULT 0",
	"ALTER TABLE zkpipe.nodes ADD COLUMN IF NOT EXISTS instance text NOT NULL DEFAULT ''",
	"ALTER TABLE zkpipe.nodes ADD COLUMN IF NOT EXISTS drain boolean NOT NULL DEFAULT false",
	"UPDATE zkpipe.jobs j SET state = 'FAILED', done_at = now(), owner = NULL,"
	" error = 'an input row has a negative partition number (schema 3 refuses them)'"
	" WHERE state IN ('QUEUED', 'RUNNING') AND EXISTS (SELECT 1 FROM zkpipe.inputs i WHERE i.job = j.id AND i.part < 0)",
	"DELETE FROM zkpipe.inputs WHERE part < 0",
	"DELETE FROM zkpipe.partitions WHERE part < 0",
	/* DROP IF EXISTS + ADD in one statement: idempotent without IF NOT EXISTS for constraints */
	"ALTER TABLE zkpipe.inputs DROP CONSTRAINT IF EXISTS inputs_part_nonneg,"
	" ADD CONSTRAINT inputs_part_nonneg CHECK (part >= 0)",
	"ALTER TABLE zkpipe.partitions DROP CONSTRAINT IF EXISTS partitions_part_nonneg,"
	" ADD CONSTRAINT partitions_part_nonneg CHECK (part >= 0)",
	NULL,
};

/* v4 (issue 34 item 6): one lease a partition. Each inputs row (one a partition, written at
 * submit) carries its own lease: state QUEUED / RUNNING / DONE (committed), owner, epoch (a lease
 * number from the sequence zkpipe.epochs, drawn at every claim, so a partition's next lease is
 * always larger; the partitions one claim statement takes share it), attempts, claimed_at. A job
 * is RUNNING from its first claimed partition to DONE (all committed), FAILED or CANCELLED;
 * jobs.owner is no longer written (NULL). A job a v3 node held whole is carried over: its
 * committed partitions DONE, the rest RUNNING under the same owner and epoch (so that node's
 * spool and local job are adopted as they were), attempts from the job. */
static const char *const v4[] = {
	"ALTER TABLE zkpipe.inputs ADD COLUMN IF NOT EXISTS state text NOT NULL DEFAULT 'QUEUED'",
	"ALTER TABLE zkpipe.inputs ADD COLUMN IF NOT EXISTS owner text",
	"ALTER TABLE zkpipe.inputs ADD COLUMN IF NOT EXISTS epoch bigint NOT NULL DEFAULT 0",
	"ALTER TABLE zkpipe.inputs ADD COLUMN IF NOT EXISTS attempts int NOT NULL DEFAULT 0",
	"ALTER TABLE zkpipe.inputs ADD COLUMN IF NOT EXISTS claimed_at timestamptz",
	"ALTER TABLE zkpipe.inputs DROP CONSTRAINT IF EXISTS inputs_state,"
	" ADD CONSTRAINT inputs_state CHECK (state IN ('QUEUED', 'RUNNING', 'DONE'))",
	"CREATE SEQUENCE IF NOT EXISTS zkpipe.epochs",
	/* only while the jobs still carry whole-job leases (a rerun after v4 finds owner NULL) */
	"UPDATE zkpipe.inputs i SET state = CASE WHEN EXISTS (SELECT 1 FROM zkpipe.partitions p WHERE p.job = i.job"
	"  AND p.part = i.part) THEN 'DONE' ELSE 'RUNNING' END, owner = j.owner, epoch = j.epoch, attempts = j.attempts,"
	"  claimed_at = j.claimed_at FROM zkpipe.jobs j WHERE j.id = i.job AND j.state = 'RUNNING' AND j.owner IS NOT NULL",
	"UPDATE zkpipe.inputs i SET attempts = j.attempts FROM zkpipe.jobs j WHERE j.id = i.job AND j.state = 'QUEUED'"
	" AND i.state = 'QUEUED' AND i.attempts < j.attempts",
	"UPDATE zkpipe.inputs i SET state = 'DONE' FROM zkpipe.partitions p WHERE p.job = i.job AND p.part = i.part"
	" AND i.state <> 'DONE'",
	"UPDATE zkpipe.jobs SET owner = NULL WHERE owner IS NOT NULL",
	/* the sequence above every epoch a v3 node may still hold (setval is idempotent this way) */
	"SELECT setval('zkpipe.epochs', m + 1, false) FROM (SELECT greatest((SELECT coalesce(max(epoch), 0) FROM zkpipe.jobs),"
	" (SELECT coalesce(max(epoch), 0) FROM zkpipe.inputs)) AS m) x WHERE m + 1 >= (SELECT last_value FROM zkpipe.epochs)",
	/* the claim walks open jobs in priority order, then their queued partitions */
	"CREATE INDEX IF NOT EXISTS jobs_open ON zkpipe.jobs (priority DESC, id) WHERE state IN ('QUEUED', 'RUNNING')",
	"CREATE INDEX IF NOT EXISTS inputs_queued ON zkpipe.inputs (job, part) WHERE state = 'QUEUED'",
	"CREATE INDEX IF NOT EXISTS inputs_owner ON zkpipe.inputs (owner) WHERE state = 'RUNNING'",
	NULL,
};

/* v5 (issue 34 item 7): a partition commit is one statement. jobs.committed counts the job's
 * partition rows: every commit adds the rows it inserted in the same UPDATE of the job row that
 * serializes the job's commits (an UPDATE reads the row's latest version, where a statement's other
 * reads see only its snapshot), so the commit that completes the job sees it complete and marks it
 * DONE in the same statement. Recounted here for jobs written before (idempotent). */
static const char *const v5[] = {
	"ALTER TABLE zkpipe.jobs ADD COLUMN IF NOT EXISTS committed int NOT NULL DEFAULT 0",
	"UPDATE zkpipe.jobs j SET committed = c.n FROM (SELECT p.job, count(*)::int AS n FROM zkpipe.partitions p"
	" GROUP BY p.job) c WHERE c.job = j.id AND j.committed <> c.n",
	NULL,
};

static const char *const *const migrations[] = { NULL, v1, v2, v3, v4, v5 };
_Static_assert(sizeof migrations / sizeof *migrations == ZP_CLUSTER_SCHEMA_VERSION + 1, "one migration a version");

int zp_cluster_schema_version(struct zp_db *db, int *v)
{
	zp_db_res *r;
	*v = 0;
	int rc = zp_db_exec(db, &r, "SELECT count(*) FROM information_schema.tables"
			    " WHERE table_schema = 'zkpipe' AND table_name = 'meta'", 0, NULL);
	if (rc)
		return rc;
	bool have = zp_db_int(r, 0, 0) > 0;
	zp_db_free(r);
	if (!have)
		return 0;
	if ((rc = zp_db_exec(db, &r, "SELECT v FROM zkpipe.meta WHERE k = 'schema_version'", 0, NULL)))
		return rc;
	*v = zp_db_rows(r) ? (int)zp_db_int(r, 0, 0) : 0;
	zp_db_free(r);
	return 0;
}

static int apply(struct zp_db *db, int n)
{
	for (const char *const *s = migrations[n]; *s; s++) {
		int rc = zp_db_cmd(db, *s);
		if (rc)
			return zp_err_set(rc, "migration %d: %s", n, zp_err_msg());
	}
	char ver[16];
	snprintf(ver, sizeof ver, "%d", n);
	const char *p[] = { ver };
	return zp_db_exec(db, NULL, "INSERT INTO zkpipe.meta (k, v) VALUES ('schema_version', $1)"
			  " ON CONFLICT (k) DO UPDATE SET v = excluded.v WHERE zkpipe.meta.v::int < excluded.v::int",
			  1, p);
}

int zp_cluster_migrate(struct zp_db *db, int to, int *from)
{
	int v, rc;
	if (!to)
		to = ZP_CLUSTER_SCHEMA_VERSION;
	if (to < 0 || to > ZP_CLUSTER_SCHEMA_VERSION)
		return zp_err_set(-EINVAL, "schema version %d: this build knows 1..%d", to, ZP_CLUSTER_SCHEMA_VERSION);
	if ((rc = zp_cluster_schema_version(db, &v)))
		return rc;
	if (from)
		*from = v;
	if (v > ZP_CLUSTER_SCHEMA_VERSION)
		return zp_err_set(ZP_EVERSION, "the database's zkpipe schema is version %d, newer than this build's %d: "
				  "upgrade zkpipe", v, ZP_CLUSTER_SCHEMA_VERSION);
	for (int n = v + 1; n <= to; n++)
		if ((rc = apply(db, n)))
			return rc;
	return 0;
}

int zp_cluster_schema_check(struct zp_db *db)
{
	int v, rc = zp_cluster_schema_version(db, &v);
	if (rc)
		return rc;
	if (v == ZP_CLUSTER_SCHEMA_VERSION)
		return 0;
	if (!v)
		return zp_err_set(ZP_EVERSION, "the database has no zkpipe schema: run `zkpipe cluster init --database ...`");
	return zp_err_set(ZP_EVERSION, "the database's zkpipe schema is version %d, this build speaks %d: %s", v,
			  ZP_CLUSTER_SCHEMA_VERSION, v < ZP_CLUSTER_SCHEMA_VERSION ? "run `zkpipe cluster init` to upgrade it"
			  : "upgrade zkpipe");
}
