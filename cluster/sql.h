/*
 * sql.h — every statement the cluster's processes send, by name (the text is in sql.c).
 *
 * zkpipe-clusterd (clusterd.c, sim.c), the CLI's --database commands (cli.c), the status page's
 * view (view.c) and a job's output (out.c) run only these; schema.c keeps the schema and its
 * migrations. Each name says what the statement does; its comment gives the parameters ($n, text
 * unless marked) and the rows it returns (->). Only SQL that both PostgreSQL and YugabyteDB accept
 * (cluster.h). A statement that changes a job a node holds names (job, epoch, owner): the fence.
 */
#ifndef ZP_CLUSTER_SQL_H
#define ZP_CLUSTER_SQL_H

/* ---- Transactions and wake-up hints (LISTEN/NOTIFY is a hint only: polling is the truth) */
extern const char zp_sql_begin[]; /* BEGIN */
extern const char zp_sql_commit[]; /* COMMIT */
extern const char zp_sql_rollback[]; /* ROLLBACK */
extern const char zp_sql_listen_jobs[]; /* nodes: wake when a job is queued */
extern const char zp_sql_listen_done[]; /* clients (wait): wake when a job finishes */
extern const char zp_sql_notify_jobs[]; /* $1 payload (the key name, or ''): a job was queued or given back */
extern const char zp_sql_notify_done[]; /* $1 job id: a job finished */

/* ---- The client (cli.c): cluster init/nodes/drain, submit, wait, status, cancel */
extern const char zp_sql_inline_max[]; /* -> v: the bytes a client may store inline (meta) */
extern const char zp_sql_inline_max_set[]; /* $1 bytes: set the inline limit (cluster init --inline-max) */
/* -> every node's row as `cluster nodes` shows it, DOWN past its dead_after_s */
extern const char zp_sql_nodes_list[];
/* $1 key, $2 partitions -> why no node can claim such a job ('!' never, '~' not now, '' it can), the
 * keys served */
extern const char zp_sql_key_servable[];
extern const char zp_sql_job_add[]; /* $1 token .. $6 max_attempts -> id, or no row when the token is known */
extern const char zp_sql_job_by_token[]; /* $1 token -> id */
extern const char zp_sql_input_add[]; /* $1 job, $2 part, $3 path or NULL, $4 data (binary) or NULL */
extern const char zp_sql_event_submitted[]; /* $1 job: the audit trail's first event */
/* $1 job -> state, error, key, nparts, owners, committed parts, why unclaimable, running parts */
extern const char zp_sql_job_wait[];
/* $1 job -> the job row as `status --json` shows it (owner, epoch, committed, waiting) */
extern const char zp_sql_job_status[];
extern const char zp_sql_job_partitions[]; /* $1 job -> its committed partitions */
extern const char zp_sql_job_leases[]; /* $1 job -> each partition's lease */
extern const char zp_sql_job_events[]; /* $1 job -> its audit trail */
extern const char zp_sql_jobs_by_state[]; /* -> state, count */
/* -> nodes up, nodes, partitions proved, oldest queued (s), nodes down, the nodes not UP */
extern const char zp_sql_cluster_summary[];
extern const char zp_sql_job_cancel[]; /* $1 job: CANCELLED if QUEUED or RUNNING, with its event */
extern const char zp_sql_node_drain_set[]; /* $1 node, $2 drain flag -> the name, no row for an unknown node */
extern const char zp_sql_node_names[]; /* -> every node's name, comma-separated ('none') */
extern const char zp_sql_node_drain_state[]; /* $1 node -> state as readers see it, held, load, heartbeat age (s) */

/* ---- A node (clusterd.c): its row, its keys, the audit trail */
/* $1 node .. $17 stopping, $18 jobs, $19 epochs (arrays: the leases the node holds): upsert the row unless
 * another live instance holds the name -> drain, state, the instance and state before, whether a node
 * silent for $14 s holds partitions (reap), and the lease check as JSON: for each lease held and each
 * other one the database gives the node (a partition RUNNING under its name), [job, epoch, job state
 * ('' when gone), the parts RUNNING under the lease, held, key, nparts, output]; no row when the name
 * is taken */
extern const char zp_sql_node_heartbeat[];
/* $1 node -> host, instance, heartbeat age (s), state: who holds the name */
extern const char zp_sql_node_holder[];
/* $1 node: the partitions a dead instance of the name held go back (attempts + 1) */
extern const char zp_sql_node_takeover_requeue[];
/* $1 node: a clean stop gives back every partition it holds (attempts unchanged) -> jobs given back */
extern const char zp_sql_node_stop_release[];
extern const char zp_sql_node_stopped[]; /* $1 node: marked STOPPED */
/* $1 key, $2 vk hash, $3 vk.json, $4 node: the first node to serve a key fixes its hash */
extern const char zp_sql_key_register[];
extern const char zp_sql_key_owner[]; /* $1 key -> vk hash, first node */
extern const char zp_sql_event_add[]; /* $1 job, $2 node, $3 epoch, $4 what, $5 detail */

/* ---- A node's leases (clusterd.c): claim, set up, commit, finish, give back, reap. Every write names
 * (job, epoch, owner). */
/* $1 keys (array), $2 partitions at most, $3 node, $4 max_parts -> one row a job claimed under one new
 * epoch: job, epoch, key, nparts, output, attempts, input rows, stray parts, parts, and the claimed
 * partitions' inputs as zp_sql_lease_inputs gives them ([[part, path, inline?, inline bytes], ...], JSON);
 * the job's started_at set at its first claim */
extern const char zp_sql_claim[];
/* $1 job, $2 epoch, $3 node -> part, path, inline?, inline bytes of each partition RUNNING under the lease */
extern const char zp_sql_lease_inputs[];
extern const char zp_sql_input_data[]; /* $1 job, $2 part -> data (binary): one inline witness */
/* $1 job, $2 epoch, $3 node, $4..$8 arrays of part, proof, public, gpu, stages, $9 finish (bool): lock the
 * job row while RUNNING, mark DONE the partitions still RUNNING under the lease and insert their proofs,
 * add them to jobs.committed; when that completes the job and $9, mark it DONE (its event, NOTIFY) ->
 * 1 while the job was RUNNING (else 0: nothing written), parts committed, job complete, marked DONE here */
extern const char zp_sql_parts_commit[];
extern const char zp_sql_job_done[]; /* $1 job, $2 epoch, $3 node: DONE, with its event */
/* $1 job, $2 epoch, $3 node, $4 error -> id when FAILED (only by a node that still holds a partition
 * under the lease) */
extern const char zp_sql_job_fail[];
/* $1 job, $2 epoch, $3 node, $4 why: give back the lease's RUNNING partitions (attempts unchanged), notify */
extern const char zp_sql_lease_release[];
/* $1 job, $2 epoch, $3 node, $4 why: give back as an attempt (FAILED at the last) -> state, attempts,
 * max_attempts */
extern const char zp_sql_lease_give_back[];
/* $1 dead_after_s, $2 node: re-queue the partitions of nodes silent that long (attempts + 1, FAILED at
 * max_attempts) -> job, state, node, parts */
extern const char zp_sql_reap_dead[];

/* ---- The operator's view (view.c), a job's output (out.c), the scale benchmark (sim.c) */
/* $1 history rows -> nodes, QUEUED/RUNNING jobs, finished jobs (JSON arrays), the database's clock */
extern const char zp_sql_cluster_view[];
/* $1 days -> finished jobs older than that deleted (1000 at most), with their events */
extern const char zp_sql_prune[];
extern const char zp_sql_job_proofs[]; /* $1 job -> part, proof, public */
extern const char zp_sql_sim_check[]; /* -> the meta row that marks a scale-benchmark database */

#endif
