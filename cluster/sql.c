/*
 * sql.c — the text of every statement of sql.h, grouped as there, with the fragments several of
 * them share. A statement is sent as written: no text is built at run time (parameters only).
 */
#include "cluster.h"
#include "sim.h"
#include "sql.h"

/* A node's state as a reader must see it: the row's own (UP, DRAINING, DRAINED, STOPPED), or DOWN
 * once its heartbeat is older than the node's own dead_after_s (it cannot say so itself). */
#define NODE_STATE(n) "CASE WHEN " n ".state <> 'STOPPED' AND " n ".heartbeat < now() - " n ".dead_after_s"       \
		      " * interval '1 second' THEN 'DOWN' ELSE " n ".state END"
/* Why a job of key $K and $N partitions cannot be claimed now ("" when some live node can): no
 * node serves the key, or none takes that many partitions (both: it never will, unless a node
 * joins), or the nodes that could are all down, stopped or draining (one may come back). The
 * first character says which: '!' never, '~' not now. */
#define WHY_UNCLAIMABLE(K, N)                                                                              \
	"(SELECT CASE WHEN count(*) = 0 THEN '!no node of the cluster serves key ' || " K                        \
	" WHEN count(*) FILTER (WHERE n.max_parts = 0 OR n.max_parts >= " N ") = 0 THEN '!its ' || " N            \
	" || ' partitions exceed the max_parts of every node serving key ' || " K " || ' (largest '"              \
	" || max(n.max_parts) || ')'"                                                                           \
	" WHEN count(*) FILTER (WHERE (n.max_parts = 0 OR n.max_parts >= " N ") AND " NODE_STATE("n") " = 'UP'"     \
	"  AND NOT n.drain) = 0 THEN '~no live node serves key ' || " K " || ' now (' || string_agg(n.name || ' '"   \
	" || " NODE_STATE("n") " || CASE WHEN n.drain AND n.state = 'UP' THEN ' (drain requested)' ELSE '' END,"      \
	" ', ' ORDER BY n.name) || ')' ELSE '' END"                                                              \
	" FROM zkpipe.nodes n WHERE n.keys::jsonb ? " K ")"
/* A job nobody works on: QUEUED, or RUNNING (some partitions committed) with none of its partitions
 * leased (schema 4: the rest given back, waiting for a node) — why it waits is asked of both. */
#define NOBODY_ON(J)                                                                                        \
	"(" J ".state = 'QUEUED' OR (" J ".state = 'RUNNING' AND NOT EXISTS (SELECT 1 FROM zkpipe.inputs l"       \
	" WHERE l.job = " J ".id AND l.state = 'RUNNING')))"
/* A job whose partitions, once those of the CTE U are given back, are all QUEUED again (none
 * RUNNING, none committed) is QUEUED again too; else it keeps its state. (U's rows still show
 * their old state inside the statement: they are left out by key.) */
#define BACK_TO_QUEUED(J, U) \
	"CASE WHEN " J ".state = 'RUNNING' AND NOT EXISTS (SELECT 1 FROM zkpipe.inputs x WHERE x.job = " J ".id" \
	" AND x.state <> 'QUEUED' AND (x.job, x.part) NOT IN (SELECT job, part FROM " U ")) THEN 'QUEUED' ELSE " J ".state END"

/* ---------------------------------------------------------------- Transactions and wake-up hints */

const char zp_sql_begin[] =
	"BEGIN";

const char zp_sql_commit[] =
	"COMMIT";

const char zp_sql_rollback[] =
	"ROLLBACK";

const char zp_sql_listen_jobs[] =
	"LISTEN " ZP_CLUSTER_NOTIFY_JOBS;

const char zp_sql_listen_done[] =
	"LISTEN " ZP_CLUSTER_NOTIFY_DONE;

const char zp_sql_notify_jobs[] =
	"SELECT pg_notify('" ZP_CLUSTER_NOTIFY_JOBS "', $1)";

const char zp_sql_notify_done[] =
	"SELECT pg_notify('" ZP_CLUSTER_NOTIFY_DONE "', $1)";

/* ---------------------------------------------------------------- The client */

const char zp_sql_inline_max[] =
	"SELECT v FROM zkpipe.meta WHERE k = 'inline_max'";

const char zp_sql_inline_max_set[] =
	"UPDATE zkpipe.meta SET v = $1 WHERE k = 'inline_max'";

const char zp_sql_nodes_list[] =
	"SELECT n.name, n.host, n.groups, n.gpus, n.keys, n.refused, n.capacity, n.load,"
	" n.held, " NODE_STATE("n") ", extract(epoch FROM now() - n.heartbeat)::float8, n.version, n.jobs_done,"
	" n.round_trips, (SELECT count(DISTINCT i.job) FROM zkpipe.inputs i JOIN zkpipe.jobs j ON j.id = i.job"
	"  WHERE i.owner = n.name AND i.state = 'RUNNING' AND j.state = 'RUNNING'),"
	" n.dead_after_s, n.max_parts, n.drain FROM zkpipe.nodes n ORDER BY n.name";

const char zp_sql_key_servable[] =
	"SELECT " WHY_UNCLAIMABLE("$1::text", "$2::int") ", (SELECT string_agg(DISTINCT k, ', ')"
	" FROM zkpipe.nodes, jsonb_object_keys(keys::jsonb) k)";

const char zp_sql_job_add[] =
	"INSERT INTO zkpipe.jobs (token, key, priority, nparts, output, max_attempts)"
	" VALUES ($1, $2, $3::int, $4::int, $5, $6::int) ON CONFLICT (token) DO NOTHING RETURNING id";

const char zp_sql_job_by_token[] =
	"SELECT id FROM zkpipe.jobs WHERE token = $1";

const char zp_sql_input_add[] =
	"INSERT INTO zkpipe.inputs (job, part, path, data) VALUES ($1::bigint, $2::int,"
	" $3, $4::bytea)";

const char zp_sql_event_submitted[] =
	"INSERT INTO zkpipe.events (job, what) VALUES ($1::bigint, 'submitted')";

const char zp_sql_job_wait[] =
	"SELECT j.state, j.error, j.key, j.nparts, (SELECT coalesce(string_agg(DISTINCT i.owner,"
	" ', '), '') FROM zkpipe.inputs i WHERE i.job = j.id AND i.state = 'RUNNING'),"
	" (SELECT coalesce(string_agg(part::text, ','), '') FROM zkpipe.partitions p WHERE p.job = j.id),"
	" CASE WHEN " NOBODY_ON("j") " THEN " WHY_UNCLAIMABLE("j.key", "j.nparts") " ELSE '' END"
	", (SELECT coalesce(string_agg(part::text, ','), '') FROM zkpipe.inputs i WHERE i.job = j.id"
	"  AND i.state = 'RUNNING')"
	" FROM zkpipe.jobs j WHERE id = $1::bigint";

const char zp_sql_job_status[] =
	"SELECT id, key, priority, state, nparts, output, (SELECT string_agg(DISTINCT i.owner, ', ')"
	" FROM zkpipe.inputs i WHERE i.job = j.id AND i.state = 'RUNNING'), (SELECT coalesce(max(i.epoch), 0)"
	" FROM zkpipe.inputs i WHERE i.job = j.id), attempts, max_attempts,"
	" created_at::text, claimed_at::text, started_at::text, done_at::text, error, token,"
	" (SELECT count(*) FROM zkpipe.partitions p WHERE p.job = j.id),"
	" CASE WHEN " NOBODY_ON("j") " THEN " WHY_UNCLAIMABLE("j.key", "j.nparts") " ELSE '' END"
	" FROM zkpipe.jobs j WHERE id = $1::bigint";

const char zp_sql_job_partitions[] =
	"SELECT part, node, gpu, epoch, proved_at::text, stages FROM zkpipe.partitions"
	" WHERE job = $1::bigint ORDER BY part";

const char zp_sql_job_leases[] =
	"SELECT part, state, owner, epoch, attempts, claimed_at::text FROM zkpipe.inputs"
	" WHERE job = $1::bigint ORDER BY part";

const char zp_sql_job_events[] =
	"SELECT at::text, node, epoch, what, detail FROM zkpipe.events WHERE job = $1::bigint"
	" ORDER BY id";

const char zp_sql_jobs_by_state[] =
	"SELECT state, count(*) FROM zkpipe.jobs GROUP BY state";

const char zp_sql_cluster_summary[] =
	"SELECT count(*) FILTER (WHERE " NODE_STATE("n") " IN ('UP', 'DRAINING', 'DRAINED')),"
	" count(*), (SELECT count(*) FROM zkpipe.partitions),"
	" (SELECT coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 FROM zkpipe.jobs"
	"  WHERE state = 'QUEUED'), count(*) FILTER (WHERE " NODE_STATE("n") " = 'DOWN'),"
	" coalesce(string_agg(n.name || ' ' || " NODE_STATE("n") ", ', ' ORDER BY n.name)"
	"  FILTER (WHERE " NODE_STATE("n") " <> 'UP'), '')"
	" FROM zkpipe.nodes n";

const char zp_sql_job_cancel[] =
	"WITH u AS (UPDATE zkpipe.jobs SET state = 'CANCELLED', done_at = now(),"
	" error = 'cancelled by client' WHERE id = $1::bigint AND state IN ('QUEUED', 'RUNNING')"
	" RETURNING id, epoch, coalesce(owner, '') AS owner)"
	" INSERT INTO zkpipe.events (job, node, epoch, what) SELECT id, owner, epoch, 'cancelled' FROM u";

const char zp_sql_node_drain_set[] =
	"UPDATE zkpipe.nodes SET drain = $2::bool WHERE name = $1 RETURNING name";

const char zp_sql_node_names[] =
	"SELECT coalesce(string_agg(name, ', ' ORDER BY name), 'none') FROM zkpipe.nodes";

const char zp_sql_node_drain_state[] =
	"SELECT " NODE_STATE("n") ", n.held, n.load,"
	" extract(epoch FROM now() - n.heartbeat)::int FROM zkpipe.nodes n WHERE n.name = $1";

/* ---------------------------------------------------------------- A node */

const char zp_sql_node_heartbeat[] =
	"WITH old AS (SELECT instance, state FROM zkpipe.nodes WHERE name = $1),"
	" u AS (INSERT INTO zkpipe.nodes (name, host, groups, gpus, keys, refused, capacity, load, held, state, version,"
	" started_at, heartbeat, jobs_done, round_trips, dead_after_s, max_parts, instance) VALUES ($1, $2, $3,"
	" $4::int, $5, $6, $7::int, $8::int, $9::int, 'UP', $11, now(), now(), $12::bigint, $13::bigint, $14::int,"
	" $15::int, $16)"
	" ON CONFLICT (name) DO UPDATE SET host = excluded.host, groups = excluded.groups, gpus = excluded.gpus,"
	" keys = excluded.keys, refused = excluded.refused, capacity = excluded.capacity, load = excluded.load,"
	" held = excluded.held, version = excluded.version, heartbeat = now(),"
	" state = CASE WHEN zkpipe.nodes.drain OR $17::bool THEN CASE WHEN $9::int = 0 THEN 'DRAINED' ELSE 'DRAINING' END"
	"  ELSE 'UP' END,"
	" jobs_done = excluded.jobs_done, round_trips = excluded.round_trips, dead_after_s = excluded.dead_after_s,"
	" max_parts = excluded.max_parts, instance = excluded.instance,"
	" started_at = CASE WHEN $10::bool OR zkpipe.nodes.instance <> excluded.instance THEN now()"
	"  ELSE zkpipe.nodes.started_at END"
	" WHERE zkpipe.nodes.instance IN ('', excluded.instance) OR zkpipe.nodes.state = 'STOPPED'"
	"  OR zkpipe.nodes.heartbeat < now() - zkpipe.nodes.dead_after_s * interval '1 second'"
	" RETURNING drain, state)"
	" SELECT u.drain, u.state, coalesce((SELECT instance FROM old), ''), coalesce((SELECT state FROM old), ''),"
	/* whether another node silent for dead_after_s still holds a partition: only then is there work for
	 * zp_sql_reap_dead (the index of RUNNING inputs by owner answers it) */
	" EXISTS (SELECT 1 FROM zkpipe.nodes d WHERE d.heartbeat < now() - $14::int * interval '1 second' AND d.name <> $1"
	"  AND EXISTS (SELECT 1 FROM zkpipe.inputs i WHERE i.owner = d.name AND i.state = 'RUNNING')),"
	/* the lease check: each lease the node holds ($18/$19) and each other one the database gives it */
	" (SELECT coalesce(json_agg(json_build_array(g.job, g.epoch, coalesce(j.state, ''), coalesce((SELECT"
	"  string_agg(i.part::text, ',' ORDER BY i.part) FROM zkpipe.inputs i WHERE i.job = g.job AND i.epoch = g.epoch"
	"  AND i.owner = $1 AND i.state = 'RUNNING'), ''), g.held, coalesce(j.key, ''), coalesce(j.nparts, 0),"
	"  coalesce(j.output, '')) ORDER BY g.job, g.epoch), '[]')"
	"  FROM (SELECT x.job, x.epoch, bool_or(x.held) AS held FROM (SELECT h.job, h.epoch, true AS held"
	"  FROM unnest($18::bigint[], $19::bigint[]) AS h(job, epoch) UNION ALL SELECT DISTINCT i.job, i.epoch, false"
	"  FROM zkpipe.inputs i WHERE i.owner = $1 AND i.state = 'RUNNING') x GROUP BY x.job, x.epoch) g"
	"  LEFT JOIN zkpipe.jobs j ON j.id = g.job)"
	" FROM u";

const char zp_sql_node_holder[] =
	"SELECT host, instance, extract(epoch FROM now() - heartbeat)::int, state"
	" FROM zkpipe.nodes WHERE name = $1";

const char zp_sql_node_takeover_requeue[] =
	"WITH u AS (UPDATE zkpipe.inputs SET state = 'QUEUED', owner = NULL, attempts = attempts + 1"
	"  WHERE owner = $1 AND state = 'RUNNING' RETURNING job, epoch, part),"
	" q AS (UPDATE zkpipe.jobs j SET state = " BACK_TO_QUEUED("j", "u") " WHERE j.id IN (SELECT job FROM u))"
	" INSERT INTO zkpipe.events (job, node, epoch, what, detail) SELECT job, $1, max(epoch), 'requeued',"
	" 'its node''s name was taken over by a new instance: partition(s) ' || string_agg(part::text, ', '"
	" ORDER BY part) FROM u GROUP BY job";

const char zp_sql_node_stop_release[] =
	"WITH u AS (UPDATE zkpipe.inputs SET state = 'QUEUED', owner = NULL WHERE owner = $1 AND state = 'RUNNING'"
	"  RETURNING job, epoch, part),"
	" q AS (UPDATE zkpipe.jobs j SET state = " BACK_TO_QUEUED("j", "u") " WHERE j.id IN (SELECT job FROM u)),"
	" e AS (INSERT INTO zkpipe.events (job, node, epoch, what, detail) SELECT job, $1, max(epoch), 'released',"
	" 'node stopped: partition(s) ' || string_agg(part::text, ', ' ORDER BY part) FROM u"
	"  WHERE job IN (SELECT id FROM zkpipe.jobs WHERE state IN ('QUEUED', 'RUNNING')) GROUP BY job)"
	" SELECT count(DISTINCT job) FROM u";

const char zp_sql_node_stopped[] =
	"UPDATE zkpipe.nodes SET state = 'STOPPED', load = 0, held = 0 WHERE name = $1";

const char zp_sql_key_register[] =
	"INSERT INTO zkpipe.keys (name, vk_hash, vk_json, first_node)"
	" VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING";

const char zp_sql_key_owner[] =
	"SELECT vk_hash, first_node FROM zkpipe.keys WHERE name = $1";

const char zp_sql_event_add[] =
	"INSERT INTO zkpipe.events (job, node, epoch, what, detail) VALUES ($1, $2, $3, $4, $5)";

/* ---------------------------------------------------------------- A node's leases */

const char zp_sql_claim[] =
	"WITH c AS (SELECT i.job, i.part FROM zkpipe.jobs j JOIN zkpipe.inputs i ON i.job = j.id"
	"  WHERE j.state IN ('QUEUED', 'RUNNING') AND j.key = ANY($1::text[]) AND j.nparts <= $4::int"
	"  AND i.state = 'QUEUED' ORDER BY j.priority DESC, j.id, i.part LIMIT $2::int FOR UPDATE OF i SKIP LOCKED),"
	" s AS (SELECT nextval('zkpipe.epochs') AS e WHERE EXISTS (SELECT 1 FROM c)),"
	" u AS (UPDATE zkpipe.inputs i SET state = 'RUNNING', owner = $3, epoch = s.e, claimed_at = now() FROM c, s"
	"  WHERE i.job = c.job AND i.part = c.part RETURNING i.job, i.part, i.epoch, i.attempts, i.path, i.data IS NOT NULL"
	"  AS inl, octet_length(i.data) AS len),"
	" q AS (UPDATE zkpipe.jobs j SET state = 'RUNNING', claimed_at = now(), started_at = coalesce(j.started_at, now())"
	"  WHERE j.id IN (SELECT job FROM u) AND j.state = 'QUEUED' RETURNING j.id),"
	" g AS (SELECT u.job, min(u.epoch) AS epoch, max(u.attempts) AS attempts,"
	"  string_agg(u.part::text, ', ' ORDER BY u.part) AS parts, json_agg(json_build_array(u.part, coalesce(u.path, ''),"
	"  u.inl, coalesce(u.len, 0)) ORDER BY u.part) AS inputs FROM u GROUP BY u.job),"
	" e AS (INSERT INTO zkpipe.events (job, node, epoch, what, detail) SELECT job, $3, epoch, 'claimed',"
	"  'partition(s) ' || parts FROM g)"
	" SELECT u.job, u.epoch, j.key, j.nparts, coalesce(j.output, ''), g.attempts,"
	"  (SELECT count(*) FROM zkpipe.inputs x WHERE x.job = u.job) AS ninputs,"
	"  (SELECT coalesce(string_agg(x.part::text, ', ' ORDER BY x.part), '') FROM zkpipe.inputs x"
	"   WHERE x.job = u.job AND x.part >= j.nparts) AS stray, g.parts, g.inputs"
	" FROM (SELECT DISTINCT job, epoch FROM u) u JOIN zkpipe.jobs j ON j.id = u.job JOIN g ON g.job = u.job"
	" ORDER BY j.priority DESC, u.job";

const char zp_sql_lease_inputs[] =
	"SELECT i.part, coalesce(i.path, ''), i.data IS NOT NULL,"
	" coalesce(octet_length(i.data), 0) FROM zkpipe.inputs i WHERE i.job = $1::bigint"
	" AND i.epoch = $2::bigint AND i.owner = $3 AND i.state = 'RUNNING' ORDER BY i.part";

const char zp_sql_input_data[] =
	"SELECT data FROM zkpipe.inputs WHERE job = $1::bigint AND part = $2::int";

const char zp_sql_parts_commit[] =
	"WITH lk AS (SELECT id FROM zkpipe.jobs WHERE id = $1::bigint AND state = 'RUNNING' FOR UPDATE),"
	" u AS (UPDATE zkpipe.inputs SET state = 'DONE' WHERE job = $1::bigint AND epoch = $2::bigint"
	"  AND owner = $3 AND state = 'RUNNING' AND part = ANY($4::int[]) AND EXISTS (SELECT 1 FROM lk) RETURNING part),"
	" ins AS (INSERT INTO zkpipe.partitions (job, part, proof, public, node, gpu, epoch, stages)"
	"  SELECT $1::bigint, p.part, p.proof, p.public, $3, p.gpu, $2::bigint, p.stages FROM"
	"  unnest($4::int[], $5::text[], $6::text[], $7::text[], $8::text[]) AS p(part, proof, public, gpu, stages)"
	"  JOIN u ON u.part = p.part ON CONFLICT (job, part) DO NOTHING RETURNING part),"
	/* the job row, already locked by lk: an UPDATE reads its latest version, so committed counts
	 * every other node's commit that came before ours */
	" j AS (UPDATE zkpipe.jobs SET committed = committed + (SELECT count(*) FROM ins),"
	"  state = CASE WHEN $9::bool AND committed + (SELECT count(*) FROM ins) >= nparts THEN 'DONE' ELSE state END,"
	"  done_at = CASE WHEN $9::bool AND committed + (SELECT count(*) FROM ins) >= nparts THEN now() ELSE done_at END,"
	"  error = CASE WHEN $9::bool AND committed + (SELECT count(*) FROM ins) >= nparts THEN '' ELSE error END"
	"  WHERE id = $1::bigint AND EXISTS (SELECT 1 FROM lk) RETURNING committed >= nparts AS complete, state),"
	" e AS (INSERT INTO zkpipe.events (job, node, epoch, what) SELECT $1::bigint, $3, $2::bigint, 'done' FROM j"
	"  WHERE j.state = 'DONE'),"
	" n AS (SELECT pg_notify('" ZP_CLUSTER_NOTIFY_DONE "', $1::bigint::text) FROM j WHERE j.state = 'DONE')"
	" SELECT (SELECT count(*) FROM lk), coalesce((SELECT string_agg(part::text, ',') FROM u), ''),"
	"  coalesce((SELECT complete FROM j), false), (SELECT count(*) FROM n) > 0";

const char zp_sql_job_done[] =
	"WITH u AS (UPDATE zkpipe.jobs SET state = 'DONE', done_at = now(), error = '' WHERE id = $1::bigint"
	"  AND state = 'RUNNING' RETURNING id)"
	" INSERT INTO zkpipe.events (job, node, epoch, what) SELECT id, $3, $2::bigint, 'done' FROM u";

const char zp_sql_job_fail[] =
	"WITH u AS (UPDATE zkpipe.jobs SET state = 'FAILED', done_at = now(), error = $4 WHERE id = $1::bigint"
	"  AND state IN ('QUEUED', 'RUNNING') AND EXISTS (SELECT 1 FROM zkpipe.inputs i WHERE i.job = $1::bigint"
	"  AND i.epoch = $2::bigint AND i.owner = $3 AND i.state = 'RUNNING') RETURNING id),"
	" e AS (INSERT INTO zkpipe.events (job, node, epoch, what, detail) SELECT id, $3, $2::bigint, 'failed', $4 FROM u)"
	" SELECT id FROM u";

const char zp_sql_lease_release[] =
	"WITH u AS (UPDATE zkpipe.inputs SET state = 'QUEUED', owner = NULL WHERE job = $1::bigint"
	"  AND epoch = $2::bigint AND owner = $3 AND state = 'RUNNING' RETURNING job, part),"
	" q AS (UPDATE zkpipe.jobs j SET state = " BACK_TO_QUEUED("j", "u") " WHERE j.id = $1::bigint"
	"  AND EXISTS (SELECT 1 FROM u)),"
	" e AS (INSERT INTO zkpipe.events (job, node, epoch, what, detail) SELECT $1::bigint, $3, $2::bigint, 'released',"
	"  $4 || ': partition(s) ' || string_agg(part::text, ', ' ORDER BY part) FROM u HAVING count(*) > 0)"
	" SELECT pg_notify('" ZP_CLUSTER_NOTIFY_JOBS "', '') FROM u LIMIT 1";

const char zp_sql_lease_give_back[] =
	"WITH u AS (UPDATE zkpipe.inputs SET attempts = attempts + 1, owner = NULL, state = 'QUEUED'"
	"  WHERE job = $1::bigint AND epoch = $2::bigint AND owner = $3 AND state = 'RUNNING' RETURNING job, part, attempts),"
	" m AS (SELECT max(attempts) AS a FROM u HAVING count(*) > 0),"
	" f AS (UPDATE zkpipe.jobs j SET attempts = greatest(j.attempts, m.a),"
	"  state = CASE WHEN m.a >= j.max_attempts THEN 'FAILED' ELSE " BACK_TO_QUEUED("j", "u") " END,"
	"  done_at = CASE WHEN m.a >= j.max_attempts THEN now() ELSE NULL END,"
	"  error = CASE WHEN m.a >= j.max_attempts THEN $4 || ' (attempt ' || m.a || ' of ' || j.max_attempts || ')'"
	"   ELSE j.error END"
	"  FROM m WHERE j.id = $1::bigint AND j.state IN ('QUEUED', 'RUNNING') RETURNING j.state, j.attempts, j.max_attempts),"
	" e AS (INSERT INTO zkpipe.events (job, node, epoch, what, detail) SELECT $1::bigint, $3, $2::bigint,"
	"  CASE state WHEN 'FAILED' THEN 'failed' ELSE 'requeued' END, $4 FROM f)"
	" SELECT state, attempts, max_attempts FROM f";

const char zp_sql_reap_dead[] =
	"WITH d AS (SELECT name, extract(epoch FROM now() - heartbeat)::int AS age FROM zkpipe.nodes"
	"  WHERE heartbeat < now() - $1::int * interval '1 second' AND name <> $2),"
	" u AS (UPDATE zkpipe.inputs i SET attempts = i.attempts + 1, owner = NULL, state = 'QUEUED'"
	"  FROM d WHERE i.owner = d.name AND i.state = 'RUNNING' RETURNING i.job, i.part, i.epoch, i.attempts, d.name, d.age),"
	" m AS (SELECT job, max(attempts) AS a, max(epoch) AS ep, min(name) AS name, max(age) AS age,"
	"  string_agg(part::text, ', ' ORDER BY part) AS parts FROM u GROUP BY job),"
	" f AS (UPDATE zkpipe.jobs j SET attempts = greatest(j.attempts, m.a),"
	"  state = CASE WHEN m.a >= j.max_attempts THEN 'FAILED' ELSE " BACK_TO_QUEUED("j", "u") " END,"
	"  done_at = CASE WHEN m.a >= j.max_attempts THEN now() ELSE NULL END,"
	"  error = CASE WHEN m.a >= j.max_attempts THEN 'node ' || m.name || ' presumed dead (no heartbeat"
	" for ' || m.age || ' s) at attempt ' || m.a || ' of ' || j.max_attempts ELSE j.error END"
	"  FROM m WHERE j.id = m.job AND j.state IN ('QUEUED', 'RUNNING') RETURNING j.id, j.state),"
	" e AS (INSERT INTO zkpipe.events (job, node, epoch, what, detail) SELECT m.job, $2, m.ep,"
	"  CASE f.state WHEN 'FAILED' THEN 'failed' ELSE 'requeued' END,"
	"  'node ' || m.name || ' silent for ' || m.age || ' s: partition(s) ' || m.parts FROM m JOIN f ON f.id = m.job)"
	" SELECT m.job, f.state, m.name, m.parts FROM m JOIN f ON f.id = m.job";

/* ---------------------------------------------------------------- The operator's view */

const char zp_sql_cluster_view[] =
	"SELECT"
	" (SELECT coalesce(json_agg(x ORDER BY x.name), '[]') FROM (SELECT n.name, n.host, " NODE_STATE("n") " AS state,"
	"  round(extract(epoch FROM now() - n.heartbeat)::numeric, 1)::float8 AS heartbeat_age_s, n.keys, n.refused,"
	"  n.groups, n.gpus, n.capacity, n.load, n.held, n.jobs_done, n.drain, n.dead_after_s, n.max_parts,"
	"  (SELECT count(*) FROM zkpipe.partitions q WHERE q.node = n.name AND q.proved_at > now() - interval '60 seconds')"
	"   AS parts_60s"
	"  FROM zkpipe.nodes n) x),"
	" (SELECT coalesce(json_agg(x ORDER BY x.id), '[]') FROM (SELECT j.id, j.token, j.key, j.priority, j.state,"
	"  j.nparts, (SELECT count(*) FROM zkpipe.partitions q WHERE q.job = j.id) AS done,"
	"  (SELECT string_agg(DISTINCT i.owner, ',') FROM zkpipe.inputs i WHERE i.job = j.id AND i.state = 'RUNNING')"
	"  AS owner, (SELECT coalesce(max(i.epoch), 0) FROM zkpipe.inputs i WHERE i.job = j.id) AS epoch,"
	"  (SELECT count(*) FROM zkpipe.inputs i WHERE i.job = j.id AND i.state = 'RUNNING') AS running,"
	"  j.attempts, j.max_attempts, round(extract(epoch FROM now() - j.created_at)::numeric, 1)::float8 AS age_s,"
	"  j.error FROM zkpipe.jobs j WHERE j.state IN ('QUEUED', 'RUNNING') ORDER BY j.id LIMIT 500) x),"
	" (SELECT coalesce(json_agg(x ORDER BY x.done_unix DESC NULLS LAST, x.id DESC), '[]') FROM (SELECT j.id,"
	"  j.token, j.key, j.priority, j.state, j.nparts, (SELECT count(*) FROM zkpipe.partitions q WHERE q.job = j.id)"
	"  AS done, (SELECT string_agg(DISTINCT q.node, ',') FROM zkpipe.partitions q WHERE q.job = j.id) AS nodes,"
	"  j.attempts, extract(epoch FROM j.done_at)::bigint AS done_unix,"
	"  round(extract(epoch FROM j.done_at - j.created_at)::numeric, 2)::float8 AS took_s, j.error"
	"  FROM zkpipe.jobs j WHERE j.state IN ('DONE', 'FAILED', 'CANCELLED')"
	"  ORDER BY j.done_at DESC NULLS LAST, j.id DESC LIMIT $1::int) x),"
	" extract(epoch FROM now())::float8";

const char zp_sql_prune[] =
	"WITH old AS (SELECT id FROM zkpipe.jobs WHERE state IN ('DONE', 'FAILED', 'CANCELLED')"
	"  AND done_at < now() - $1::int * interval '1 day' ORDER BY id LIMIT 1000),"
	" ev AS (DELETE FROM zkpipe.events WHERE job IN (SELECT id FROM old)),"
	" d AS (DELETE FROM zkpipe.jobs WHERE id IN (SELECT id FROM old) RETURNING id)"
	" SELECT count(*) FROM d";

const char zp_sql_job_proofs[] =
	"SELECT part, proof, public FROM zkpipe.partitions WHERE job = $1::bigint"
	" ORDER BY part";

const char zp_sql_sim_check[] =
	"SELECT v FROM zkpipe.meta WHERE k = '" ZP_SIM_META_KEY "'";
