/*
 * zkpipe-clusterd — a cluster node's only link to the shared database (docs/cluster.md).
 *
 *   zkpipe-clusterd --config FILE        (started by zkpipe-supervisor when [cluster] is set)
 *
 * It heartbeats the node's row, registers the keys the node serves (refusing one whose
 * verifying key differs from the cluster's), claims QUEUED jobs for those keys (priority, then
 * age; FOR UPDATE SKIP LOCKED) while the node has free capacity, and submits each through the
 * supervisor's client API exactly as `zkpipe submit` would — only the partitions not yet
 * committed, with the submit token c<job>e<epoch>, outputs in <run dir>/cluster/j<job>e<epoch>.
 * Each partition proved locally is committed to the database at once, fenced by (job, epoch,
 * owner); when all are in, the job is marked DONE (and its output directory written from the
 * database's rows, if it names one). Any live node re-queues the jobs of nodes whose heartbeat
 * is older than dead_after_s.
 *
 * Why a process of its own (not a thread in the supervisor): a database call may hang for as
 * long as its timeout, and a libpq/OpenSSL fault must not take the supervisor down; the
 * supervisor's loop never waits on the database, so a database outage never stops local
 * proving. This process is single-threaded; its state is rebuilt from the database, the
 * spool and the supervisor's token files when it restarts (it dies with its supervisor:
 * PR_SET_PDEATHSIG), so nothing it holds in memory is the only copy.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "cluster.h"
#include "sim.h"
#include "sql.h"
#include "g16_json.h"
#include "config.h"
#include "zp_file.h"
#include "hint.h"
#include "paths.h"
#include "rundir.h"
#include "sys.h"
#include "zkey.h"
#include "zp_err.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

#define WHO "clusterd"
#define MAX_HELD 512
#define FILE_MAX (4u << 20) /* proofs, public inputs, vk: bounded reads */

struct nkey {
	const struct zp_pipe_key *k;
	int state;       /* 0 = vk not yet known, 1 = served, -1 = refused */
	char hash[40];
	char *vk;        /* vk.json text */
	char why[400];
};

struct hjob {
	int64_t id, epoch;
	char key[ZP_KEY_ID_MAX];
	char output[PATH_MAX];
	char dir[PATH_MAX];     /* <spool>/j<id>e<epoch> */
	uint32_t nparts, nlocal;
	uint32_t *map;          /* local partition -> job partition */
	uint8_t *sent;          /* local partition committed (or found committed) */
	uint64_t cid;           /* the supervisor's job id; 0 = not submitted yet */
	int local;              /* 0 active, 1 DONE, 2 FAILED */
	bool ready;             /* remaining partitions found, inputs written, map written */
	json_t *inputs;         /* what start_local submits; NULL once submitted */
	json_t *claimed;        /* the claim's input rows ([[part, path, inline?, bytes], ...]): begin() uses them
				 * once instead of asking again (zp_sql_lease_inputs); NULL for an adopted group */
	char error[700];
	bool failed;            /* to be marked FAILED with error */
	char requeue[700];      /* its inputs could not be fetched: given back as an attempt (FAILED at the last) */
};

/* Everything the process knows, made in main and passed to every function that reads or changes it
 * (this file has no mutable file-scope state: signals arrive through a signalfd, so no handler
 * needs a global). None of it is the only copy: the database, the spool and the supervisor's token
 * files rebuild it at a restart. */
struct clusterd {
	struct zp_pipe_config c;
	struct zp_pipe_cluster *cl;  /* &c.cluster */
	struct zp_db db;             /* the one connection; db.c == NULL while the database is away */
	char api_url[ZP_PIPE_URL_MAX]; /* our supervisor's client API */
	struct nkey keys[ZP_PIPE_MAX_KEYS]; /* one per c.keys[] */
	struct hjob *held[MAX_HELD]; /* the leases held: one group of a job's partitions each */
	unsigned nheld;
	uint64_t next_connect, backoff, last_hb, last_claim, connected_at;
	bool want_claim, registered;
	bool drain;             /* the node row's drain flag (zkpipe cluster drain): claim nothing */
	bool drained;           /* the row says DRAINED */
	char row_state[16];     /* the row's state at the last heartbeat (its change is logged) */
	bool stop_drain;        /* SIGTERM with [cluster] stop = drain: finishing what is held, then exit */
	uint64_t stop_deadline, last_drain_note;
	bool taken;             /* our node name is held by another live instance: do nothing */
	char instance[40];      /* <spool>/instance: who holds the name (kept across restarts) */
	uint64_t claimed, done, fenced;
	uint64_t commits, requeues;             /* partitions committed; jobs re-queued by this node */
	/* The last claim that found nothing fitting while the node was busy: its free partitions, and
	 * when. A claim costs the server row locks (a write) even when nothing fits, so it is not
	 * repeated with the same or less room until a hint (NOTIFY, a re-queue, a reconnection) resets
	 * this or 10 polls pass (scale_bench.sh). */
	uint32_t claim_empty_free;
	uint64_t claim_empty_at;
	uint64_t last_view, view_at, last_prune; /* view.c: the status page's cluster view */
	json_t *view;
	char view_err[400];
	int view_write_rc;      /* the last view.json write's result (a failure is logged once) */
	uint64_t last_sweep;    /* the spool sweep's last turn */
	bool reap_due;          /* the last heartbeat saw a silent node holding partitions: reap() has work */
};

/* ---------------------------------------------------------------- small helpers */
static char *read_small(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return NULL;
	struct stat st;
	char *b = NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size < FILE_MAX &&
	    (b = malloc((size_t)st.st_size + 1))) {
		ssize_t n = pread(fd, b, (size_t)st.st_size, 0);
		if (n != st.st_size) {
			free(b);
			b = NULL;
		} else {
			b[n] = 0;
			if (len)
				*len = (size_t)n;
		}
	}
	close(fd);
	return b;
}

static void rm_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	char p[PATH_MAX];
	for (struct dirent *e; (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR)
			rm_tree(p);
		else
			unlink(p);
	}
	closedir(d);
	rmdir(dir);
}


/* A stop signal waits, unread, in the signalfd (SIGTERM and SIGINT are blocked; loop() reads them). */
static bool stop_pending(void)
{
	sigset_t s;
	return !sigpending(&s) && (sigismember(&s, SIGTERM) == 1 || sigismember(&s, SIGINT) == 1);
}

/* One request to our supervisor; NULL when unreachable or refused (*err gets the reason). None is sent
 * once a stop signal waits: the supervisor stopping answers only "retry later", and the tick's later
 * requests would delay the stop (loop() reads the signal next). */
static json_t *api(struct clusterd *cd, json_t *req, char *err, size_t errn)
{
	if (zp_sim_on()) /* the scale benchmark's simulated node: no supervisor (sim.h) */
		return zp_sim_api(req, err, errn);
	if (stop_pending()) {
		json_decref(req);
		snprintf(err, errn, "supervisor unreachable: stopping (retry later)");
		return NULL;
	}
	char *txt = json_dumps(req, JSON_COMPACT), *rep = NULL;
	json_decref(req);
	zp_err_clear();
	int r = txt ? zp_api_call(cd->api_url, txt, &rep, 5000) : -ENOMEM;
	free(txt);
	if (r) {
		snprintf(err, errn, "supervisor unreachable: %s", zp_err_msg()[0] ? zp_err_msg() : zp_strerror(r));
		return NULL;
	}
	json_t *j = json_loads(rep, 0, NULL);
	free(rep);
	if (!j || !json_is_true(json_object_get(j, "ok"))) {
		snprintf(err, errn, "%s", j ? json_string_value(json_object_get(j, "error")) ?: "?" : "bad reply");
		json_decref(j);
		return NULL;
	}
	return j;
}

static void event(struct clusterd *cd, int64_t job, int64_t epoch, const char *what, const char *detail)
{
	char id[24], ep[24];
	zp_db_i64(id, job);
	zp_db_i64(ep, epoch);
	const char *p[] = { id, cd->cl->node, ep, what, detail ? detail : "" };
	zp_db_exec(&cd->db, NULL, zp_sql_event_add, 5, p);
}

/* ---------------------------------------------------------------- keys */
/* The node's verifying key of k: <run dir>/keys/<name>.vk.json, which gpud writes at start. */
static int key_load(struct clusterd *cd, struct nkey *nk)
{
	char path[PATH_MAX];
	zp_pipe_path(path, sizeof path, &cd->c, "keys/%s.vk.json", nk->k->name);
	if (zp_sim_on()) { /* a simulated node's synthetic key (sim.h) */
		int r = zp_sim_key(nk->k, nk->hash, sizeof nk->hash, &nk->vk, nk->why, sizeof nk->why);
		return r < 0 ? (nk->state = -1) : r;
	}
	if (nk->k->setup_device) {
		nk->state = -1;
		snprintf(nk->why, sizeof nk->why, "setup = device: every gpud has its own development key, "
			 "so the cluster cannot hold one verifying key for it");
		return -1;
	}
	zp_g16_vk vk;
	if (access(path, R_OK) || zp_g16_vk_read_json(&vk, path))
		return 0; /* gpud has not written it yet */
	XXH3_state_t *st = XXH3_createState();
	XXH3_128bits_reset(st);
	XXH3_128bits_update(st, &vk.alpha1, sizeof vk.alpha1);
	XXH3_128bits_update(st, &vk.beta2, sizeof vk.beta2);
	XXH3_128bits_update(st, &vk.gamma2, sizeof vk.gamma2);
	XXH3_128bits_update(st, &vk.delta2, sizeof vk.delta2);
	XXH3_128bits_update(st, &vk.n_public, sizeof vk.n_public);
	XXH3_128bits_update(st, vk.ic, sizeof *vk.ic * (vk.n_public + 1));
	XXH128_hash_t h = XXH3_128bits_digest(st);
	XXH3_freeState(st);
	zp_g16_vk_free(&vk);
	snprintf(nk->hash, sizeof nk->hash, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
	free(nk->vk);
	nk->vk = read_small(path, NULL);
	return nk->vk ? 1 : 0;
}

/* Register or check each key: the first node to serve a name fixes its vk hash. */
static int keys_register(struct clusterd *cd)
{
	for (unsigned i = 0; i < cd->c.n_keys; i++) {
		struct nkey *nk = &cd->keys[i];
		if (nk->state || key_load(cd, nk) <= 0)
			continue;
		const char *p[] = { nk->k->name, nk->hash, nk->vk, cd->cl->node };
		zp_db_res *r;
		int rc = zp_db_exec(&cd->db, NULL, zp_sql_key_register, 4, p);
		if (!rc)
			rc = zp_db_exec(&cd->db, &r, zp_sql_key_owner, 1, p);
		if (rc)
			return rc;
		if (!strcmp(zp_db_val(r, 0, 0), nk->hash)) {
			nk->state = 1;
			zp_log(WHO, "key %s: serving (verifying key %s)", nk->k->name, nk->hash);
		} else {
			nk->state = -1;
			snprintf(nk->why, sizeof nk->why, "this node's verifying key (hash %s, %s/keys/%s.vk.json) differs "
				 "from the cluster's (hash %s, fixed by node %s): not serving it", nk->hash, cd->c.run_dir,
				 nk->k->name, zp_db_val(r, 0, 0), zp_db_val(r, 0, 1));
			zp_log(WHO, "key %s: REFUSED: %s", nk->k->name, nk->why);
		}
		zp_db_free(r);
	}
	return 0;
}

static json_t *keys_json(const struct clusterd *cd, int want)
{
	json_t *o = json_object();
	for (unsigned i = 0; i < cd->c.n_keys; i++)
		if (cd->keys[i].state == want)
			json_object_set_new(o, cd->keys[i].k->name, json_string(want > 0 ? cd->keys[i].hash : cd->keys[i].why));
	return o;
}

/* ---------------------------------------------------------------- node row */
static uint32_t capacity(const struct clusterd *cd)
{
	if (cd->cl->capacity)
		return cd->cl->capacity;
	uint32_t s = 0;
	for (unsigned g = 0; g < cd->c.n_groups; g++)
		s += cd->c.groups[g].slots;
	return 2 * s;
}

static uint32_t load(const struct clusterd *cd)
{
	uint32_t n = 0;
	for (unsigned i = 0; i < cd->nheld; i++)
		for (uint32_t p = 0; p < cd->held[i]->nlocal; p++)
			n += !cd->held[i]->sent[p];
	return n;
}

static uint32_t max_parts(const struct clusterd *cd)
{
	uint32_t m = 0;
	for (unsigned g = 0; g < cd->c.n_groups; g++)
		m = cd->c.groups[g].max_parts > m ? cd->c.groups[g].max_parts : m;
	return m;
}

static void drop(struct clusterd *cd, struct hjob *j, const char *why);
static void check_held(struct clusterd *cd, json_t *rows);
static void adopt_owned(struct clusterd *cd, bool lost, json_t *rows);

/* The heartbeat's lease rows ([[job, epoch, job state, parts RUNNING under the lease, held, key, nparts,
 * output], ...]): one value of row k. */
static json_t *lease_at(json_t *rows, size_t k, size_t c) { return json_array_get(json_array_get(rows, k), c); }
static int64_t lease_int(json_t *rows, size_t k, size_t c) { return json_integer_value(lease_at(rows, k, c)); }
static const char *lease_str(json_t *rows, size_t k, size_t c) { return json_string_value(lease_at(rows, k, c)) ?: ""; }

/* Refresh the node row. The name is ours only while no other live instance holds it (a second
 * node configured with a taken name is refused, never shares the row); the row's drain flag
 * comes back, and in the same statement the lease check (check_held, then adopt_owned; lost: a
 * lease found that we do not hold is a lost commit, else ours from before a restart) and whether
 * reap() has work. 0, 1 refused (name taken), < 0 database error. */
static int heartbeat(struct clusterd *cd, bool first, bool lost)
{
	char groups[ZP_PIPE_MAX_GROUPS * ZP_PIPE_NAME_MAX] = "", cap[16], ld[16], nh[16], gp[16], host[128] = "";
	unsigned gpus = 0;
	for (unsigned g = 0; g < cd->c.n_groups; g++) {
		snprintf(groups + strlen(groups), sizeof groups - strlen(groups), "%s%s", g ? "," : "", cd->c.groups[g].name);
		gpus += cd->c.groups[g].gpus;
	}
	gethostname(host, sizeof host - 1);
	snprintf(cap, sizeof cap, "%u", capacity(cd));
	snprintf(ld, sizeof ld, "%u", load(cd));
	snprintf(nh, sizeof nh, "%u", cd->nheld);
	snprintf(gp, sizeof gp, "%u", gpus);
	char *kj = json_dumps(keys_json(cd, 1), JSON_COMPACT | JSON_SORT_KEYS);
	char *rj = json_dumps(keys_json(cd, -1), JSON_COMPACT | JSON_SORT_KEYS);
	char done[24], rt[24], dead[16], mp[16];
	snprintf(done, sizeof done, "%llu", (unsigned long long)cd->done);
	snprintf(rt, sizeof rt, "%llu", (unsigned long long)cd->db.round_trips + 1);
	snprintf(dead, sizeof dead, "%u", cd->cl->dead_after_s);
	snprintf(mp, sizeof mp, "%u", max_parts(cd));
	/* the leases we hold, for the lease check the same statement makes */
	const char *ids[MAX_HELD], *eps[MAX_HELD];
	char buf[MAX_HELD][24], ebuf[MAX_HELD][24];
	for (unsigned i = 0; i < cd->nheld; i++)
		zp_db_i64(buf[i], cd->held[i]->id), ids[i] = buf[i], zp_db_i64(ebuf[i], cd->held[i]->epoch), eps[i] = ebuf[i];
	char *arr = zp_db_array(ids, cd->nheld), *earr = zp_db_array(eps, cd->nheld);
	const char *p[] = { cd->cl->node, host, groups, gp, kj, rj, cap, ld, nh, first ? "t" : "f", ZP_CLUSTER_BUILD, done, rt,
			    dead, mp, cd->instance, cd->stop_drain ? "t" : "f", arr, earr };
	zp_db_res *r;
	int rc = zp_db_exec(&cd->db, &r, zp_sql_node_heartbeat, 19, p);
	free(kj);
	free(rj);
	free(arr);
	free(earr);
	if (rc)
		return rc;
	if (!zp_db_rows(r)) { /* the name is another live instance's */
		zp_db_free(r);
		const char *q[] = { cd->cl->node };
		if ((rc = zp_db_exec(&cd->db, &r, zp_sql_node_holder, 1, q)))
			return rc;
		if (!cd->taken)
			zp_log(WHO, "REFUSED: node name %s is held by another live node (host %s, instance %s, state %s, heartbeat "
			       "%s s ago; this one is instance %s of host %s): this node claims nothing and commits nothing "
			       "until that node is STOPPED or DOWN; give this one another [cluster] node name", cd->cl->node,
			       zp_db_rows(r) ? zp_db_val(r, 0, 0) : "?", zp_db_rows(r) ? zp_db_val(r, 0, 1) : "?",
			       zp_db_rows(r) ? zp_db_val(r, 0, 3) : "?", zp_db_rows(r) ? zp_db_val(r, 0, 2) : "?",
			       cd->instance, host);
		zp_db_free(r);
		cd->taken = true;
		while (cd->nheld) /* whatever we held is that node's now, or was given back */
			drop(cd, cd->held[0], "our node name is held by another instance");
		return 1;
	}
	bool drain = zp_db_val(r, 0, 0)[0] == 't';
	const char *was = zp_db_val(r, 0, 2), *was_st = zp_db_val(r, 0, 3);
	json_t *leases = json_loads(zp_db_val(r, 0, 5), 0, NULL);
	if (cd->taken)
		zp_log(WHO, "node name %s is ours again (the other instance is %s)", cd->cl->node, was_st);
	cd->taken = false;
	if (was[0] && strcmp(was, cd->instance) && strcmp(was_st, "STOPPED")) {
		/* we took the name over from a dead instance: what it held goes back to the queue as
		 * the reaper would have done, so our claims are new epochs and its late commits fence */
		const char *q[] = { cd->cl->node };
		zp_log(WHO, "node name %s taken over from instance %s (DOWN): re-queueing its jobs", cd->cl->node, was);
		zp_db_exec(&cd->db, NULL, zp_sql_node_takeover_requeue, 1, q);
		json_decref(leases); /* they were that instance's, and are QUEUED now: checked at the next beat */
		leases = NULL;
	}
	if (drain != cd->drain)
		zp_log(WHO, drain ? "draining: claiming nothing new; %u job(s) held (zkpipe cluster drain)"
		       : "undrained: claiming jobs again%.0u", cd->nheld);
	if (!strcmp(zp_db_val(r, 0, 1), "DRAINED") && strcmp(cd->row_state, "DRAINED"))
		zp_log(WHO, "drained: no job held, claiming nothing (zkpipe cluster undrain to resume)");
	cd->reap_due = zp_db_val(r, 0, 4)[0] == 't';
	snprintf(cd->row_state, sizeof cd->row_state, "%s", zp_db_val(r, 0, 1));
	cd->drained = !strcmp(cd->row_state, "DRAINED");
	cd->drain = drain;
	zp_db_free(r);
	if (leases) { /* NULL only without memory: checked at the next beat */
		check_held(cd, leases);
		adopt_owned(cd, lost, leases);
		json_decref(leases);
	}
	return cd->db.c ? 0 : -ECONNRESET; /* a set-up above may have lost the connection */
}

/* ---------------------------------------------------------------- held jobs */
/* A group of a job's partitions this node holds under one lease (epoch); epoch < 0: any of the job's. */
static struct hjob *held_find(struct clusterd *cd, int64_t id, int64_t epoch)
{
	for (unsigned i = 0; i < cd->nheld; i++)
		if (cd->held[i]->id == id && (epoch < 0 || cd->held[i]->epoch == epoch))
			return cd->held[i];
	return NULL;
}

static void held_free(struct clusterd *cd, struct hjob *j)
{
	for (unsigned i = 0; i < cd->nheld; i++)
		if (cd->held[i] == j) {
			cd->held[i] = cd->held[--cd->nheld];
			break;
		}
	free(j->map);
	free(j->sent);
	json_decref(j->inputs);
	json_decref(j->claimed);
	free(j);
}

static void local_cancel(struct clusterd *cd, uint64_t cid)
{
	char err[256];
	json_decref(api(cd, json_pack("{s:s, s:I}", "op", "cancel", "job", (json_int_t)cid), err, sizeof err));
}

/* We no longer hold the job (fenced, cancelled, finished): stop its local copy, forget it.
 * Its spool is removed by the sweep once the local job has ended. */
static void drop(struct clusterd *cd, struct hjob *j, const char *why)
{
	if (why)
		zp_log(WHO, "job %lld epoch %lld: %s", (long long)j->id, (long long)j->epoch, why);
	if (j->cid && !j->local)
		local_cancel(cd, j->cid);
	held_free(cd, j);
}

static void fail_job(struct clusterd *cd, struct hjob *j, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static struct hjob *held_new(struct clusterd *cd, int64_t id, int64_t epoch, const char *key, uint32_t nparts,
			     const char *out)
{
	if (cd->nheld == MAX_HELD)
		return NULL;
	struct hjob *j = calloc(1, sizeof *j);
	if (!j)
		return NULL;
	j->id = id, j->epoch = epoch, j->nparts = nparts;
	snprintf(j->key, sizeof j->key, "%s", key);
	snprintf(j->output, sizeof j->output, "%s", out);
	snprintf(j->dir, sizeof j->dir, "%s/j%llde%lld", cd->cl->spool, (long long)id, (long long)epoch);
	cd->held[cd->nheld++] = j;
	if (strlen(out) >= sizeof j->output) /* never act on a truncated path */
		fail_job(cd, j, "output: path longer than %zu bytes", sizeof j->output - 1);
	return j;
}

/* ---------------------------------------------------------------- claim and start */
static void fail_job(struct clusterd *cd, struct hjob *j, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = snprintf(j->error, sizeof j->error, "node %s: ", cd->cl->node);
	vsnprintf(j->error + n, sizeof j->error - (size_t)n, fmt, ap);
	va_end(ap);
	j->failed = true;
}

/* The partitions still to prove and their inputs; inline witnesses written into the spool. An
 * inline witness's size is read first (length() in SQL: one over this node's inline_max FAILS
 * the job without being fetched), then each is fetched alone, under a deadline that grows with
 * its bytes, so no witness is ever fetched in a result too large for its deadline. */
static int materialize(struct clusterd *cd, struct hjob *j, json_t *inputs)
{
	char id[24];
	zp_db_i64(id, j->id);
	char ep[24];
	zp_db_i64(ep, j->epoch);
	const char *p[] = { id, ep, cd->cl->node };
	int rc = 0;
	json_t *rows = j->claimed; /* the claim returned them: no round trip */
	j->claimed = NULL;
	if (!rows) { /* an adopted group, or a claim whose set-up is tried again */
		zp_db_res *r;
		if ((rc = zp_db_exec(&cd->db, &r, zp_sql_lease_inputs, 3, p)))
			return rc;
		rows = json_array();
		for (int i = 0; i < zp_db_rows(r); i++)
			json_array_append_new(rows, json_pack("[I, s, b, I]", (json_int_t)zp_db_int(r, i, 0), zp_db_val(r, i, 1),
							      zp_db_val(r, i, 2)[0] == 't', (json_int_t)zp_db_int(r, i, 3)));
		zp_db_free(r);
	}
	int n = (int)json_array_size(rows);
	j->map = calloc((size_t)n + 1, sizeof *j->map);
	j->sent = calloc((size_t)n + 1, 1);
	j->nlocal = (uint32_t)n;
	char d[PATH_MAX + 8];
	snprintf(d, sizeof d, "%s/in", j->dir);
	if (zp_file_mkdirs(d, 0700))
		rc = zp_err_set(-EIO, "%s: %s", d, zp_err_msg());
	for (int i = 0; i < n && !rc; i++) {
		json_t *row = json_array_get(rows, (size_t)i);
		j->map[i] = (uint32_t)json_integer_value(json_array_get(row, 0));
		if (!json_is_true(json_array_get(row, 2))) { /* a path on shared storage: the supervisor checks allow_input */
			json_array_append_new(inputs, json_string(json_string_value(json_array_get(row, 1)) ?: ""));
			continue;
		}
		uint64_t len = (uint64_t)json_integer_value(json_array_get(row, 3));
		if (len > cd->cl->inline_max) {
			fail_job(cd, j, "inline witness of partition %u: %llu bytes, over this node's [cluster] inline_max %llu "
				 "(not fetched)", j->map[i], (unsigned long long)len, (unsigned long long)cd->cl->inline_max);
			break;
		}
		char part[16];
		snprintf(part, sizeof part, "%u", j->map[i]);
		const char *q[] = { id, part };
		zp_db_res *w;
		int base = cd->db.timeout_ms;
		/* the statement deadline plus 1 s for every 4 MiB: 60 MiB gets 15 s more */
		cd->db.timeout_ms = base + (int)(len / (4u << 20) * 1000);
		rc = zp_db_execb(&cd->db, &w, zp_sql_input_data, 2, q,
				 NULL, NULL, 1);
		cd->db.timeout_ms = base;
		if (rc) {
			rc = zp_err_set(rc, "fetching the inline witness of partition %u (%llu bytes): %s", j->map[i],
					(unsigned long long)len, zp_err_msg());
			break;
		}
		char f[PATH_MAX + 32];
		snprintf(f, sizeof f, "%s/in/%u.wtns", j->dir, j->map[i]);
		if (zp_db_rows(w) != 1 || (uint64_t)zp_db_len(w, 0, 0) != len)
			rc = zp_err_set(-EIO, "the inline witness of partition %u changed while it was fetched", j->map[i]);
		else if ((rc = zp_file_write_atomic(f, zp_db_val(w, 0, 0), len, NULL)))
			fail_job(cd, j, "cannot write the inline witness %s: %s", f, zp_strerror(rc)), rc = 0;
		zp_db_free(w);
		json_array_append_new(inputs, json_string(f));
	}
	json_decref(rows);
	return rc;
}

/* The map file: which job partition each local partition is, kept for a restarted clusterd. */
static int map_write(const struct hjob *j)
{
	char f[PATH_MAX + 8], *b = malloc((size_t)j->nlocal * 12 + 2);
	size_t n = 0;
	if (!b)
		return -ENOMEM;
	for (uint32_t i = 0; i < j->nlocal; i++)
		n += (size_t)sprintf(b + n, "%u\n", j->map[i]);
	snprintf(f, sizeof f, "%s/map", j->dir);
	int r = zp_file_write_atomic(f, b, n, NULL);
	free(b);
	return r;
}

static int map_read(struct hjob *j)
{
	char f[PATH_MAX + 8];
	snprintf(f, sizeof f, "%s/map", j->dir);
	char *b = read_small(f, NULL);
	if (!b)
		return -ENOENT;
	uint32_t n = 0;
	for (char *c = b; *c; c++)
		n += *c == '\n';
	j->map = calloc((size_t)n + 1, sizeof *j->map);
	j->sent = calloc((size_t)n + 1, 1);
	j->nlocal = 0;
	for (char *s, *t = strtok_r(b, "\n", &s); t && j->nlocal < n; t = strtok_r(NULL, "\n", &s))
		j->map[j->nlocal++] = (uint32_t)strtoul(t, NULL, 10);
	free(b);
	return 0;
}

/* Submit the job's remaining partitions to our supervisor (idempotent: the token). */
static void start_local(struct clusterd *cd, struct hjob *j)
{
	char tok[64], out[PATH_MAX + 8], err[600];
	snprintf(tok, sizeof tok, "c%llde%lld", (long long)j->id, (long long)j->epoch);
	snprintf(out, sizeof out, "%s/out", j->dir);
	json_t *rep = api(cd, json_pack("{s:s, s:s, s:O, s:s, s:i, s:s}", "op", "submit", "key", j->key, "inputs",
				    j->inputs, "output", out, "priority", 0, "token", tok), err, sizeof err);
	if (!rep) {
		if (!strstr(err, "retry later") && strncmp(err, "supervisor unreachable", 22))
			fail_job(cd, j, "refused by its supervisor: %s", err);
		return; /* transient: tried again next tick */
	}
	j->cid = (uint64_t)json_integer_value(json_object_get(rep, "job"));
	zp_log(WHO, "job %lld epoch %lld: local job %llu (%u partition(s))", (long long)j->id, (long long)j->epoch,
	       (unsigned long long)j->cid, j->nlocal);
	json_decref(rep);
	json_decref(j->inputs);
	j->inputs = NULL;
}

/* A job we held before a restart: its map and the supervisor's token file say what runs. */
static bool readopt(struct clusterd *cd, struct hjob *j)
{
	char tok[PATH_MAX];
	zp_pipe_path(tok, sizeof tok, &cd->c, "tokens/c%llde%lld", (long long)j->id, (long long)j->epoch);
	char *t = read_small(tok, NULL);
	uint32_t *run = j->map, nrun = j->nlocal; /* what the database says is RUNNING under our lease */
	free(j->sent);
	j->map = NULL, j->sent = NULL, j->nlocal = 0;
	if (!t || map_read(j)) {
		free(t);
		j->map = run, j->nlocal = nrun, j->sent = calloc((size_t)nrun + 1, 1);
		return false;
	}
	for (uint32_t lp = 0; lp < j->nlocal; lp++) { /* committed before the restart: not ours to send */
		bool in = false;
		for (uint32_t k = 0; k < nrun && !in; k++)
			in = run[k] == j->map[lp];
		j->sent[lp] = !in;
	}
	free(run);
	j->cid = strtoull(t, NULL, 10);
	free(t);
	return j->cid != 0;
}

static void release_rest(struct clusterd *cd, struct hjob *j, const char *why);

/* A freshly claimed (or re-adopted) job: check its output, find its remaining work, start it. */
static void begin(struct clusterd *cd, struct hjob *j, bool adopted)
{
	if (j->failed)
		return;
	if (j->output[0]) { /* resolved and confined now; written later through the confined walk */
		char canon[PATH_MAX];
		zp_err_clear();
		if (zp_path_allowed(cd->c.allow_out, cd->c.n_out, j->output, canon, true))
			return fail_job(cd, j, "output %s: %s", j->output, cd->c.n_out ? zp_err_msg()
					: "this node allows no output directory ([run] allow_output)");
		snprintf(j->output, sizeof j->output, "%s", canon);
	}
	if (adopted && readopt(cd, j)) {
		j->ready = true;
		return;
	}
	char tok[PATH_MAX];
	zp_pipe_path(tok, sizeof tok, &cd->c, "tokens/c%llde%lld", (long long)j->id, (long long)j->epoch);
	if (adopted && !access(tok, F_OK)) { /* its local job ran, but the spool that says what it proved is gone */
		release_rest(cd, j, "adopted after a restart without its spool: given back to be proved again");
		return drop(cd, j, NULL);
	}
	free(j->map), free(j->sent);
	j->map = NULL, j->sent = NULL, j->nlocal = 0;
	json_decref(j->inputs);
	j->inputs = json_array();
	int rc = materialize(cd, j, j->inputs);
	if (!rc && !j->failed && j->nlocal)
		rc = map_write(j);
	if (rc == -ECONNRESET) { /* the database went away: no fault of the job's; tried again once back */
		zp_log(WHO, "job %lld: %s (tried again)", (long long)j->id, zp_err_msg());
		return;
	}
	if (rc) { /* it cannot be set up here: that is an attempt (given back, or FAILED at the last) */
		snprintf(j->requeue, sizeof j->requeue, "node %s could not set up the job's inputs: %s", cd->cl->node, zp_err_msg());
		zp_log(WHO, "job %lld: %s", (long long)j->id, j->requeue);
		return;
	}
	j->ready = true;
	if (!j->failed && j->nlocal)
		start_local(cd, j);
	else if (!j->failed) /* none of its partitions is ours any more */
		drop(cd, j, "no partition left under this lease");
}

/* Claim QUEUED partitions of our keys' open jobs, highest priority then oldest job, then
 * partition, up to our free capacity, under one new lease (epoch) for all of them: each job's
 * partitions taken become one group here, submitted to the supervisor as one local job. */
static int claim(struct clusterd *cd)
{
	uint32_t cap = capacity(cd), ld = load(cd), slots = 0;
	if (ld >= cap || cd->nheld >= MAX_HELD || cd->drain || cd->taken || cd->stop_drain)
		return 0;
	/* A node whose slots are all busy refills in bites of a quarter of its capacity: a partition it
	 * claimed now would wait in its local queue, where no other node can take it, and every claim is
	 * a write the server pays for (issue 34 item 7). Below its slots' worth it claims at once. */
	for (unsigned g = 0; g < cd->c.n_groups; g++)
		slots += cd->c.groups[g].slots;
	if (ld >= slots && cap - ld < (cap + 3) / 4)
		return 0;
	if (cd->nheld && cap - ld <= cd->claim_empty_free && zp_mono_ms() - cd->claim_empty_at < 10ull * cd->cl->poll_ms)
		return 0;
	const char *names[ZP_PIPE_MAX_KEYS];
	size_t nk = 0;
	for (unsigned i = 0; i < cd->c.n_keys; i++)
		if (cd->keys[i].state == 1)
			names[nk++] = cd->keys[i].k->name;
	if (!nk)
		return 0;
	char *arr = zp_db_array(names, nk), lim[16], mp[16];
	/* each job claimed is a group held: never more partitions than groups left */
	snprintf(lim, sizeof lim, "%u", cap - ld < MAX_HELD - cd->nheld ? cap - ld : MAX_HELD - cd->nheld);
	snprintf(mp, sizeof mp, "%u", max_parts(cd));
	const char *p[] = { arr, lim, cd->cl->node, mp };
	zp_db_res *r;
	uint64_t t0 = zp_sim_us();
	int rc = zp_db_exec(&cd->db, &r, zp_sql_claim, 4, p);
	zp_sim_note(ZP_SIM_CLAIM, t0, rc, rc ? 0 : zp_db_rows(r));
	free(arr);
	if (rc)
		return rc;
	for (int i = 0; i < zp_db_rows(r); i++) {
		struct hjob *j = held_new(cd, zp_db_int(r, i, 0), zp_db_int(r, i, 1), zp_db_val(r, i, 2),
					  (uint32_t)zp_db_int(r, i, 3), zp_db_val(r, i, 4));
		if (!j)
			break;
		cd->claimed++;
		zp_log(WHO, "claimed job %lld epoch %lld (%s, partition(s) %s of %u, attempt %lld)", (long long)j->id,
		       (long long)j->epoch, j->key, zp_db_val(r, i, 8), j->nparts, (long long)zp_db_int(r, i, 5) + 1);
		j->claimed = json_loads(zp_db_val(r, i, 9), 0, NULL); /* NULL (asked again) only without memory */
		if (j->failed)
			;
		else if (zp_db_int(r, i, 6) != j->nparts) /* a client's INSERT that forgot some inputs */
			fail_job(cd, j, "the job has %lld input row(s) for %u partitions", (long long)zp_db_int(r, i, 6),
				 j->nparts);
		else if (zp_db_val(r, i, 7)[0]) /* as many rows, not numbered 0..nparts-1 (part >= 0 is a CHECK) */
			fail_job(cd, j, "input row(s) for partition(s) %s: a job of %u partition(s) has rows 0..%u exactly",
				 zp_db_val(r, i, 7), j->nparts, j->nparts - 1);
		else
			begin(cd, j, false);
	}
	int n = zp_db_rows(r);
	zp_db_free(r);
	cd->want_claim = n > 0; /* took some: there may be more */
	cd->claim_empty_free = !n && cd->nheld ? cap - ld : 0;
	cd->claim_empty_at = zp_mono_ms();
	return 0;
}

/* ---------------------------------------------------------------- local progress */
/* Ask our supervisor how the job's local copy is doing; note local DONE / FAILED. */
static void local_poll(struct clusterd *cd, struct hjob *j, json_t **parts)
{
	char err[600];
	*parts = NULL;
	bool unsent = false;
	for (uint32_t p = 0; p < j->nlocal; p++)
		unsent |= !j->sent[p];
	if (!j->cid || (j->local && !unsent))
		return;
	json_t *rep = api(cd, json_pack("{s:s, s:I}", "op", "status", "job", (json_int_t)j->cid), err, sizeof err);
	if (!rep)
		return;
	const char *st = json_string_value(json_object_get(rep, "state"));
	if (st && !strcmp(st, "DONE"))
		j->local = 1;
	else if (st && !strcmp(st, "FAILED") && !j->local) {
		j->local = 2;
		fail_job(cd, j, "%s", json_string_value(json_object_get(rep, "error")) ?: "failed");
	}
	*parts = json_incref(json_object_get(rep, "partitions"));
	json_decref(rep);
}

/* "node0/gpud1 cpu": which gpud proved a local partition (part-<p>.gpu.json). */
static void gpu_of(const struct hjob *j, uint32_t lp, char *buf, size_t n)
{
	char f[PATH_MAX + 40];
	snprintf(f, sizeof f, "%s/out/part-%u.gpu.json", j->dir, lp);
	char *t = read_small(f, NULL);
	json_t *g = t ? json_loads(t, 0, NULL) : NULL;
	free(t);
	buf[0] = 0; /* unknown: recorded as "" (gpud writes the record before the proof, so rare) */
	if (g)
		snprintf(buf, n, "%s/gpud%lld %s (%s)", json_string_value(json_object_get(g, "group")) ?: "?",
			 (long long)json_integer_value(json_object_get(g, "gpud")),
			 json_string_value(json_object_get(g, "gpu")) ?: "", json_string_value(json_object_get(g, "backend")) ?: "");
	json_decref(g);
}

struct batch {
	size_t n;
	char **proof, **pub, **gpu, **stages, **part;
};

static void batch_free(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->proof[i]), free(b->pub[i]), free(b->gpu[i]), free(b->stages[i]), free(b->part[i]);
	}
	free(b->proof), free(b->pub), free(b->gpu), free(b->stages), free(b->part);
}

/* Partitions DONE locally and not yet committed, read from the spool. */
static int batch_collect(struct hjob *j, json_t *parts, struct batch *b, uint32_t *lps)
{
	size_t m = j->nlocal;
	*b = (struct batch){ 0 };
	b->proof = calloc(m, sizeof(char *)), b->pub = calloc(m, sizeof(char *)), b->gpu = calloc(m, sizeof(char *));
	b->stages = calloc(m, sizeof(char *)), b->part = calloc(m, sizeof(char *));
	for (uint32_t lp = 0; lp < j->nlocal; lp++) {
		json_t *pj = json_array_get(parts, lp);
		const char *st = json_string_value(json_object_get(pj, "state"));
		if (j->sent[lp] || !st || strcmp(st, "DONE"))
			continue;
		char f[PATH_MAX + 40], g[256];
		snprintf(f, sizeof f, "%s/out/part-%u.proof.json", j->dir, lp);
		char *proof = read_small(f, NULL);
		snprintf(f, sizeof f, "%s/out/part-%u.public.json", j->dir, lp);
		char *pub = read_small(f, NULL);
		if (!proof || !pub) {
			free(proof), free(pub);
			continue;
		}
		gpu_of(j, lp, g, sizeof g);
		b->proof[b->n] = proof, b->pub[b->n] = pub, b->gpu[b->n] = strdup(g);
		b->stages[b->n] = json_dumps(json_object_get(pj, "ts"), JSON_COMPACT | JSON_SORT_KEYS);
		char pn[16];
		snprintf(pn, sizeof pn, "%u", j->map[lp]);
		b->part[b->n] = strdup(pn);
		lps[b->n++] = lp;
	}
	return 0;
}

/* Give back the partitions of the group still RUNNING under our lease (attempts unchanged). */
static void release_rest(struct clusterd *cd, struct hjob *j, const char *why)
{
	char id[24], ep[24];
	zp_db_i64(id, j->id);
	zp_db_i64(ep, j->epoch);
	const char *p[] = { id, ep, cd->cl->node, why };
	zp_db_exec(&cd->db, NULL, zp_sql_lease_release, 4, p);
	cd->want_claim = true, cd->claim_empty_free = 0;
}

static void fenced(struct clusterd *cd, struct hjob *j, const char *what)
{
	cd->fenced++;
	char d[160];
	snprintf(d, sizeof d, "%s refused: the lease of epoch %lld is no longer ours", what, (long long)j->epoch);
	event(cd, j->id, j->epoch, "fenced", d);
	release_rest(cd, j, "the rest of a lease partly lost");
	drop(cd, j, d);
}

/* Write the job's output directory from the database's rows (so every writer writes the same
 * bytes), while holding the job's row lock. */
static int write_output(struct clusterd *cd, struct hjob *j)
{
	int dfd = zp_path_open_dir(cd->c.allow_out, cd->c.n_out, j->output, true, cd->c.public_access ? 0755 : 0700);
	if (dfd < 0)
		return fail_job(cd, j, "output %s: %s", j->output, zp_strerror(dfd)), 0;
	close(dfd);
	int rc = zp_cluster_write_proofs(&cd->db, &cd->c, j->id, j->key, j->nparts, j->output);
	if (rc && cd->db.c && rc != -EAGAIN)
		fail_job(cd, j, "output %s: %s", j->output, zp_err_msg());
	return j->failed ? 0 : rc;
}

/* Commit the batch, each partition fenced by its own lease: one statement (schema 5) that holds the
 * job row's lock (so the commits of one job, from any nodes, are serialized), marks the partitions
 * still RUNNING under our lease DONE, inserts their proofs and adds them to jobs.committed, which
 * the UPDATE reads at the row's latest version: the last commit sees all the others, and marks the
 * job DONE in the same statement. A job with an output directory: the same statement inside a
 * transaction, which then writes the directory (if complete) and marks it DONE: whoever commits
 * the last partition assembles the job, exactly once.
 * Returns 1 when the group was dropped (fenced, or the job left RUNNING). */
static int commit_parts(struct clusterd *cd, struct hjob *j, json_t *parts)
{
	uint32_t *lps = calloc(j->nlocal + 1, sizeof *lps);
	struct batch b;
	batch_collect(j, parts, &b, lps);
	int ret = 0;
	if (b.n) {
		char id[24], ep[24];
		zp_db_i64(id, j->id);
		zp_db_i64(ep, j->epoch);
		char *a[5] = { zp_db_array((const char *const *)b.part, b.n), zp_db_array((const char *const *)b.proof, b.n),
			       zp_db_array((const char *const *)b.pub, b.n), zp_db_array((const char *const *)b.gpu, b.n),
			       zp_db_array((const char *const *)b.stages, b.n) };
		/* a job with an output directory is completed inside a transaction (its directory is written
		 * while the job row is locked, and nothing stays if that fails); any other commit is one
		 * statement, which marks the job DONE itself when it completes it */
		bool tx = j->output[0] != 0;
		const char *p[] = { id, ep, cd->cl->node, a[0], a[1], a[2], a[3], a[4], tx ? "f" : "t" };
		zp_db_res *r = NULL;
		uint64_t t0 = zp_sim_us();
		int rc, running = 0, all = 0;
		char got[4096] = "";
		if (tx && (rc = zp_db_cmd(&cd->db, zp_sql_begin)))
			goto out;
		if ((rc = zp_db_exec(&cd->db, &r, zp_sql_parts_commit, 9, p)))
			goto out;
		running = zp_db_int(r, 0, 0) > 0;
		snprintf(got, sizeof got, "%s", zp_db_val(r, 0, 1));
		all = tx ? zp_db_val(r, 0, 2)[0] == 't' : zp_db_val(r, 0, 3)[0] == 't';
		zp_db_free(r);
		r = NULL;
		if (!running || !tx)
			goto out;
		if (all && (rc = write_output(cd, j)))
			goto out;
		if (j->failed) { /* the output could not be written: nothing of this transaction stays */
			running = 0; /* rolled back below; marked FAILED by the caller */
			goto out;
		}
		if (all && (rc = zp_db_exec(&cd->db, NULL, zp_sql_job_done, 3, p)))
			goto out;
		rc = zp_db_cmd(&cd->db, zp_sql_commit);
	out:
		zp_db_free(r);
		for (int i = 0; i < 5; i++)
			free(a[i]);
		if (!rc && !running && tx)
			zp_db_cmd(&cd->db, zp_sql_rollback);
		if (!rc && j->failed)
			goto done;
		if (rc) {
			zp_sim_note(ZP_SIM_COMMIT, t0, rc, 0);
			if (cd->db.c && tx)
				zp_db_cmd(&cd->db, zp_sql_rollback);
			goto done; /* tried again next tick */
		}
		if (!running) { /* cancelled, FAILED, or DONE by others: nothing of ours to add */
			zp_sim_note(ZP_SIM_COMMIT, t0, 0, 0);
			drop(cd, j, "the job is no longer RUNNING");
			ret = 1;
			goto done;
		}
		unsigned n = 0, lost = 0;
		for (size_t i = 0; i < b.n; i++) {
			bool in = false;
			for (const char *c = got; *c && !in; c += strcspn(c, ",") + (c[strcspn(c, ",")] == ','))
				in = (size_t)strcspn(c, ",") == strlen(b.part[i]) && !strncmp(c, b.part[i], strlen(b.part[i]));
			if (in)
				j->sent[lps[i]] = 1, n++;
			else
				lost++;
		}
		cd->commits += n;
		zp_sim_note(ZP_SIM_COMMIT, t0, 0, (int)n);
		if (all) {
			const char *q[] = { id };
			if (tx) /* the one-statement commit sent it */
				zp_db_exec(&cd->db, NULL, zp_sql_notify_done, 1, q); /* a hint */
			cd->done++;
			zp_log(WHO, "job %lld DONE (the last partition committed by this node, epoch %lld)%s%s", (long long)j->id,
			       (long long)j->epoch, j->output[0] ? ", output " : "", j->output);
		}
		if (lost)
			fenced(cd, j, "partition commit"), ret = 1;
	}
done:
	batch_free(&b);
	free(lps);
	return ret;
}

static int mark_failed(struct clusterd *cd, struct hjob *j)
{
	char id[24], ep[24];
	zp_db_i64(id, j->id);
	zp_db_i64(ep, j->epoch);
	const char *p[] = { id, ep, cd->cl->node, j->error };
	zp_db_res *r;
	/* fenced: only a node that still holds a partition of the job under this lease fails it */
	int rc = zp_db_exec(&cd->db, &r, zp_sql_job_fail, 4, p);
	if (rc)
		return rc;
	if (zp_db_rows(r))
		zp_log(WHO, "job %lld FAILED: %s", (long long)j->id, j->error);
	else
		zp_log(WHO, "job %lld: not marked FAILED (%s): the lease of epoch %lld is no longer ours", (long long)j->id,
		       j->error, (long long)j->epoch);
	zp_db_free(r);
	drop(cd, j, NULL);
	return 0;
}

/* The group could not be set up here (its inputs not fetched): its partitions go back as one
 * attempt each (another node may succeed), or the job is FAILED with the reason at its last. */
static int give_back(struct clusterd *cd, struct hjob *j)
{
	char id[24], ep[24];
	zp_db_i64(id, j->id);
	zp_db_i64(ep, j->epoch);
	const char *p[] = { id, ep, cd->cl->node, j->requeue };
	zp_db_res *r;
	int rc = zp_db_exec(&cd->db, &r, zp_sql_lease_give_back, 4, p);
	if (rc)
		return rc;
	if (zp_db_rows(r))
		zp_log(WHO, "job %lld: attempt %s of %s %s", (long long)j->id, zp_db_val(r, 0, 1), zp_db_val(r, 0, 2),
		       !strcmp(zp_db_val(r, 0, 0), "FAILED") ? "was the last: FAILED" : "given back to the queue");
	zp_db_free(r);
	drop(cd, j, NULL);
	cd->want_claim = true;
	return 0;
}

/* One job's turn: its local progress, then (database up) commits, completion, failure. */
static void job_tick(struct clusterd *cd, struct hjob *j)
{
	json_t *parts;
	local_poll(cd, j, &parts);
	if (!cd->db.c) {
		json_decref(parts);
		return;
	}
	if (j->failed) {
		json_decref(parts);
		mark_failed(cd, j);
		return;
	}
	if (j->requeue[0]) {
		json_decref(parts);
		give_back(cd, j);
		return;
	}
	if (!j->ready || (!j->cid && j->nlocal)) {
		json_decref(parts);
		if (!j->ready)
			begin(cd, j, false);
		else
			start_local(cd, j);
		return;
	}
	if (parts && commit_parts(cd, j, parts)) {
		json_decref(parts);
		return;
	}
	json_decref(parts);
	bool all = true;
	for (uint32_t p = 0; p < j->nlocal; p++)
		all &= j->sent[p];
	if (all && !j->failed) /* every partition of this lease committed: the group is done here */
		drop(cd, j, NULL);
}

/* ---------------------------------------------------------------- ownership, dead nodes */
/* Leases we hold that the database no longer gives us (the job cancelled, FAILED by another
 * node, or our partitions re-queued while we were cut off): let them go. A partition we committed
 * that is RUNNING under our lease again (the database lost an acknowledged commit: a crash with
 * synchronous_commit off, an asynchronous replica promoted) is committed again from the spool. */
static void check_held(struct clusterd *cd, json_t *r)
{
	for (unsigned i = cd->nheld; i-- > 0;) {
		struct hjob *j = cd->held[i];
		const char *why = "no longer in the database";
		for (size_t k = 0; k < json_array_size(r); k++) {
			if (lease_int(r, k, 0) != j->id || lease_int(r, k, 1) != j->epoch || !json_is_true(lease_at(r, k, 4)))
				continue;
			const char *st = lease_str(r, k, 2), *run = lease_str(r, k, 3);
			if (!strcmp(st, "CANCELLED")) {
				why = "cancelled by a client";
				break;
			}
			if (strcmp(st, "RUNNING")) { /* finished without our partitions: they were taken from us */
				why = !strcmp(st, "DONE") ? "our lease was taken away (presumed dead?) and the job was completed by "
				      "others: dropping our copy" : "the job FAILED: dropping our copy";
				break;
			}
			why = NULL;
			if (!j->ready)
				break; /* not set up yet: begin() takes what is still ours */
			unsigned lost = 0, back = 0;
			for (uint32_t lp = 0; lp < j->nlocal; lp++) {
				char pn[16];
				snprintf(pn, sizeof pn, "%u", j->map[lp]);
				bool in = false;
				for (const char *c = run; *c && !in; c += strcspn(c, ",") + (c[strcspn(c, ",")] == ','))
					in = strcspn(c, ",") == strlen(pn) && !strncmp(c, pn, strlen(pn));
				if (!in && !j->sent[lp])
					lost++;
				if (in && j->sent[lp])
					j->sent[lp] = 0, back++;
			}
			if (lost)
				why = "our lease was taken away (presumed dead?): dropping our copy";
			else if (back)
				zp_log(WHO, "job %lld: %u committed partition(s) missing from the database; committing them again",
				       (long long)j->id, back);
			break;
		}
		if (why && strncmp(why, "cancelled", 9))
			event(cd, j->id, j->epoch, "dropped", why);
		if (why && strstr(why, "taken away"))
			release_rest(cd, j, "the rest of a lease partly lost");
		if (why)
			drop(cd, j, why);
	}
}

/* Re-queue the partitions of nodes silent for dead_after_s, each on its own (attempts + 1; the
 * job FAILED when one reaches max_attempts); partitions they committed stay. Any live node does
 * this; the UPDATE is row-locked, so two nodes doing it at once re-queue a partition once. */
static int reap(struct clusterd *cd)
{
	/* after an outage of the database itself every heartbeat is stale: give every node a full
	 * dead_after_s from our own reconnection to come back before judging it */
	if (zp_mono_ms() - cd->connected_at < cd->cl->dead_after_s * 1000ull)
		return 0;
	if (!cd->reap_due) /* the heartbeat just said no silent node holds anything: no statement */
		return 0;
	char dead[16];
	snprintf(dead, sizeof dead, "%u", cd->cl->dead_after_s);
	const char *p[] = { dead, cd->cl->node };
	zp_db_res *r;
	int rc = zp_db_exec(&cd->db, &r, zp_sql_reap_dead, 2, p);
	if (rc)
		return rc;
	for (int i = 0; i < zp_db_rows(r); i++)
		zp_log(WHO, "job %lld of silent node %s: %s", (long long)zp_db_int(r, i, 0), zp_db_val(r, i, 2),
		       !strcmp(zp_db_val(r, i, 1), "FAILED") ? "FAILED (max attempts)" : "partition(s) re-queued");
	if (zp_db_rows(r))
		cd->want_claim = true, cd->claim_empty_free = 0;
	cd->requeues += (uint64_t)zp_db_rows(r);
	zp_db_free(r);
	return 0;
}

/* ---------------------------------------------------------------- (re)connect */
/* Leases the database says we hold that we do not know: at a (re)connection, ours from before a
 * restart; at a heartbeat, a group we finished whose commit the database lost (a crash with
 * synchronous_commit off, an asynchronous replica promoted): its partitions are RUNNING under our
 * lease again. Either way taken up again: from the spool when it is still there (committed
 * again, not re-proved), else given back to be proved again. */
static void adopt_owned(struct clusterd *cd, bool lost, json_t *r)
{
	for (size_t i = 0; i < json_array_size(r); i++) {
		if (json_is_true(lease_at(r, i, 4)) || strcmp(lease_str(r, i, 2), "RUNNING") || !lease_str(r, i, 3)[0] ||
		    held_find(cd, lease_int(r, i, 0), lease_int(r, i, 1)))
			continue;
		struct hjob *j = held_new(cd, lease_int(r, i, 0), lease_int(r, i, 1), lease_str(r, i, 5),
					  (uint32_t)lease_int(r, i, 6), lease_str(r, i, 7));
		if (!j)
			break;
		const char *pl = lease_str(r, i, 3); /* the partitions RUNNING under this lease */
		uint32_t n = 1;
		for (const char *c = pl; *c; c++)
			n += *c == ',';
		j->map = calloc(n + 1, sizeof *j->map);
		j->sent = calloc(n + 1, 1);
		for (const char *c = pl; *c && j->nlocal < n; c += strcspn(c, ",") + (c[strcspn(c, ",")] == ','))
			j->map[j->nlocal++] = (uint32_t)strtoul(c, NULL, 10);
		if (lost)
			zp_log(WHO, "job %lld: %u committed partition(s) missing from the database (partition(s) %s RUNNING "
			       "under our lease of epoch %lld again); committing them again", (long long)j->id, j->nlocal, pl,
			       (long long)j->epoch);
		else
			zp_log(WHO, "job %lld epoch %lld: ours from before a restart (partition(s) %s); resuming",
			       (long long)j->id, (long long)j->epoch, pl);
		begin(cd, j, true);
	}
}

static void db_down(struct clusterd *cd, const char *what)
{
	zp_log(WHO, "database %s: %s; retrying in %.1f s (local proving continues)", what, zp_err_msg(), cd->backoff / 1e3);
	zp_db_close(&cd->db);
	cd->next_connect = zp_mono_ms() + cd->backoff;
	/* capped well below dead_after_s, so a database restart costs no node its jobs */
	uint64_t cap = cd->cl->dead_after_s * 250ull < 5000 ? cd->cl->dead_after_s * 250ull : 5000;
	cd->backoff = cd->backoff * 2 > cap ? (cap > 200 ? cap : 200) : cd->backoff * 2;
}

static void db_up(struct clusterd *cd)
{
	int rc;
	if ((rc = zp_db_connect(&cd->db)))
		return db_down(cd, "unreachable");
	int v = 0;
	if (!zp_cluster_schema_version(&cd->db, &v) && v > 0 && v < ZP_CLUSTER_SCHEMA_VERSION) {
		/* a database an older zkpipe made: upgraded in place (every migration is idempotent, so
		 * nodes starting together may all run it) */
		int from = v;
		if ((rc = zp_cluster_migrate(&cd->db, 0, &from)))
			return db_down(cd, "schema migration");
		zp_log(WHO, "the database's zkpipe schema migrated from version %d to %d", from, ZP_CLUSTER_SCHEMA_VERSION);
	}
	if ((rc = zp_cluster_schema_check(&cd->db)))
		return db_down(cd, "schema");
	if (zp_sim_on() && zp_sim_db_check(&cd->db))
		zp_log(WHO, "%s", zp_err_msg()), exit(1);
	if ((rc = keys_register(cd)) || (rc = heartbeat(cd, !cd->registered, false)) < 0)
		return db_down(cd, "lost");
	if (zp_db_cmd(&cd->db, zp_sql_listen_jobs))
		zp_log(WHO, "LISTEN refused (%s): polling every %u ms only", zp_err_msg(), cd->cl->poll_ms);
	cd->registered = true;
	cd->backoff = 200;
	cd->want_claim = true, cd->claim_empty_free = 0;
	cd->last_hb = cd->connected_at = zp_mono_ms();
	zp_log(WHO, "connected to the database as node %s (capacity %u partitions, %u job(s) held)", cd->cl->node,
	       capacity(cd), cd->nheld);
}

/* ---------------------------------------------------------------- spool sweep */
/* Spool directories of jobs we no longer hold: removed once their local copy has ended
 * (the supervisor's tokens/ file names it; a cancelled copy ends quickly). */
static void sweep(struct clusterd *cd)
{
	DIR *d = opendir(cd->cl->spool);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		long long id, ep;
		if (sscanf(e->d_name, "j%llde%lld", &id, &ep) != 2)
			continue;
		struct hjob *h = held_find(cd, id, ep);
		if (h)
			continue;
		if (!cd->db.c && !h)
			continue; /* maybe ours from before a restart: the database decides */
		char tok[PATH_MAX], dir[PATH_MAX + 300], err[300];
		zp_pipe_path(tok, sizeof tok, &cd->c, "tokens/c%llde%lld", id, ep);
		char *t = read_small(tok, NULL);
		bool ended = true;
		if (t) {
			json_t *rep = api(cd, json_pack("{s:s, s:I}", "op", "status", "job", (json_int_t)strtoull(t, NULL, 10)),
					  err, sizeof err);
			const char *st = rep ? json_string_value(json_object_get(rep, "state")) : NULL;
			ended = !rep || !st || !strcmp(st, "DONE") || !strcmp(st, "FAILED");
			if (!ended)
				local_cancel(cd, strtoull(t, NULL, 10));
			json_decref(rep);
			free(t);
		}
		if (ended) {
			snprintf(dir, sizeof dir, "%s/%s", cd->cl->spool, e->d_name);
			rm_tree(dir);
		}
	}
	closedir(d);
}

/* ---------------------------------------------------------------- loop */
static int db_tick(struct clusterd *cd)
{
	uint64_t now = zp_mono_ms();
	int rc = 0;
	/* draining and nothing left: say DRAINED now, not a heartbeat later */
	if (now - cd->last_hb >= cd->cl->heartbeat_s * 1000ull || (cd->drain && !cd->nheld && !cd->drained)) {
		cd->last_hb = now;
		if ((rc = heartbeat(cd, false, true)) || (rc = keys_register(cd)) || (rc = reap(cd)))
			return rc;
	}
	if (cd->want_claim || now - cd->last_claim >= cd->cl->poll_ms) {
		cd->last_claim = now;
		cd->want_claim = false;
		rc = claim(cd);
	}
	return rc;
}

static void tick(struct clusterd *cd)
{
	for (unsigned i = cd->nheld; i-- > 0;)
		if (i < cd->nheld)
			job_tick(cd, cd->held[i]);
	if (cd->db.c && db_tick(cd) && !cd->db.c)
		db_down(cd, "lost");
}

/* What the spool says of a job's local partitions, without asking the supervisor (which is
 * stopping and answers nothing): a partition whose proof file is there is DONE (gpud writes the
 * public inputs, then the proof, each atomically). Stage times are not known: {}. */
static json_t *spool_parts(const struct hjob *j)
{
	json_t *a = json_array();
	for (uint32_t lp = 0; lp < j->nlocal; lp++) {
		char f[PATH_MAX + 40];
		snprintf(f, sizeof f, "%s/out/part-%u.proof.json", j->dir, lp);
		json_array_append_new(a, json_pack("{s:s, s:{}}", "state", access(f, R_OK) ? "UNKNOWN" : "DONE", "ts"));
	}
	return a;
}

/* A clean stop: commit what is done (read from the spool), give the rest back (attempts
 * unchanged), say so; every step's time in the log. */
static void stop(struct clusterd *cd)
{
	uint64_t t0 = zp_mono_ms(), t1;
	if (!cd->db.c || cd->taken) { /* no database, or the row and its jobs are another instance's */
		zp_log(WHO, "stopped: %s; %u job(s) held are left to the database (re-queued after dead_after_s)",
		       cd->taken ? "our node name is another instance's" : "the database is unreachable", cd->nheld);
		return;
	}
	unsigned before = cd->nheld;
	uint64_t done0 = cd->done;
	for (unsigned i = cd->nheld; i-- > 0;) {
		if (i >= cd->nheld)
			continue;
		struct hjob *j = cd->held[i];
		json_t *parts = j->ready && j->cid ? spool_parts(j) : NULL;
		int dropped = parts ? commit_parts(cd, j, parts) : 0;
		json_decref(parts);
		if (dropped || !cd->db.c)
			continue;
		bool all = j->ready && !j->failed && !j->requeue[0];
		for (uint32_t p = 0; all && p < j->nlocal; p++)
			all = j->sent[p];
		if (all)
			drop(cd, j, NULL);
	}
	t1 = zp_mono_ms();
	zp_log(WHO, "stop: committed what the spool holds of %u job(s), %llu completed (%.1f s)", before,
	       (unsigned long long)(cd->done - done0), (t1 - t0) / 1e3);
	const char *p[] = { cd->cl->node };
	zp_db_res *r = NULL;
	zp_db_exec(&cd->db, &r, zp_sql_node_stop_release, 1, p);
	long long back = r && zp_db_rows(r) ? zp_db_int(r, 0, 0) : -1;
	zp_db_free(r);
	zp_db_exec(&cd->db, NULL, zp_sql_node_stopped, 1, p);
	const char *any[] = { "" };
	zp_db_exec(&cd->db, NULL, zp_sql_notify_jobs, 1, any);
	zp_log(WHO, "stop: %lld job(s) given back to the queue, node marked STOPPED (%.1f s)", back,
	       (zp_mono_ms() - t1) / 1e3);
	zp_log(WHO, "stopped in %.1f s: claimed %llu, done %llu, fenced %llu; %llu database round trips, %llu connects",
	       (zp_mono_ms() - t0) / 1e3, (unsigned long long)cd->claimed, (unsigned long long)cd->done,
	       (unsigned long long)cd->fenced, (unsigned long long)cd->db.round_trips, (unsigned long long)cd->db.connects);
}

static int lock_spool(struct clusterd *cd)
{
	char f[PATH_MAX + 8];
	if (zp_file_mkdirs(cd->cl->spool, 0700))
		return zp_err_set(-EIO, "%s: %s", cd->cl->spool, zp_err_msg());
	snprintf(f, sizeof f, "%s/lock", cd->cl->spool);
	int fd = open(f, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	for (int i = 0; fd >= 0 && i < 100; i++) { /* a previous clusterd may still be exiting */
		if (!flock(fd, LOCK_EX | LOCK_NB))
			return 0;
		usleep(100000);
	}
	return zp_err_set(-EBUSY, "another zkpipe-clusterd holds %s", f);
}

/* <spool>/instance: this node's identity in the database, made once (the spool's lock keeps one
 * clusterd a run directory), so a restarted clusterd is the same instance and a second node
 * given the same name is another. */
static int instance_id(struct clusterd *cd)
{
	char f[PATH_MAX + 16];
	snprintf(f, sizeof f, "%s/instance", cd->cl->spool);
	char *t = read_small(f, NULL);
	if (t && strlen(t) >= 16 && strlen(t) < sizeof cd->instance && !t[strspn(t, "0123456789abcdef")]) {
		snprintf(cd->instance, sizeof cd->instance, "%s", t);
		free(t);
		return 0;
	}
	free(t);
	char tok[ZP_TOKEN_MAX + 1];
	if (zp_token_random(tok, ""))
		return zp_err_set(-EIO, "getrandom failed");
	snprintf(cd->instance, sizeof cd->instance, "%s", tok);
	int rc = zp_file_write_atomic(f, cd->instance, strlen(cd->instance), NULL);
	return rc ? zp_err_set(rc, "%s: %s", f, zp_strerror(rc)) : 0;
}

/* ---------------------------------------------------------------- the operator's view */
/* Every view_s: the cluster as the database has it (view.c), this node's counters and round-trip
 * histogram, and the local job id of each cluster job it holds, written atomically to
 * <spool>/view.json for the supervisor's /status, page and /metrics (which read a file: never the
 * database). Written while the database is away too (connected false, the last view kept, its
 * age), so the page says so. [cluster] retain_days: finished jobs past it are pruned hourly. */
static void view_tick(struct clusterd *cd)
{
	uint64_t now = zp_mono_ms();
	if (!cd->cl->view_s || (cd->last_view && now - cd->last_view < cd->cl->view_s * 1000ull))
		return;
	cd->last_view = now;
	if (cd->db.c && !cd->taken) {
		json_t *v = NULL;
		if (!zp_cluster_view_query(&cd->db, 200, &v)) {
			json_decref(cd->view);
			cd->view = v;
			cd->view_at = now;
			cd->view_err[0] = 0;
		} else {
			snprintf(cd->view_err, sizeof cd->view_err, "%s", zp_err_msg());
			if (!cd->db.c)
				return db_down(cd, "lost");
		}
		if (cd->cl->retain_days && (!cd->last_prune || now - cd->last_prune >= 3600000)) {
			long long n = 0;
			if (!zp_cluster_prune(&cd->db, cd->cl->retain_days, &n)) {
				cd->last_prune = n >= 1000 ? now - 3600000 : now; /* more left: the next turn goes on */
				if (n)
					zp_log(WHO, "retain_days = %u: %lld finished job(s) deleted with their partitions, inputs and "
					       "events", cd->cl->retain_days, n);
			} else {
				zp_log(WHO, "retain_days: pruning failed: %s", zp_err_msg());
				if (!cd->db.c)
					return db_down(cd, "lost");
			}
		}
	} else if (!cd->db.c)
		snprintf(cd->view_err, sizeof cd->view_err, "database unreachable (retrying)");
	else
		snprintf(cd->view_err, sizeof cd->view_err, "node name %s is held by another live instance", cd->cl->node);
	json_t *jobs = json_object_get(cd->view, "jobs"), *x;
	size_t i;
	json_array_foreach(jobs, i, x) {
		struct hjob *h = held_find(cd, (int64_t)json_integer_value(json_object_get(x, "id")), -1);
		bool ours = h && h->cid;
		json_object_set_new(x, "local", ours ? json_integer((json_int_t)h->cid) : json_null());
	}
	static const double b[ZP_DB_LAT_NB] = ZP_DB_LAT_BOUNDS;
	json_t *le = json_array(), *cnt = json_array();
	uint64_t total = 0;
	for (unsigned k = 0; k <= ZP_DB_LAT_NB; k++) {
		total += cd->db.lat_n[k];
		if (k < ZP_DB_LAT_NB)
			json_array_append_new(le, json_real(b[k]));
		json_array_append_new(cnt, json_integer((json_int_t)total)); /* cumulative; the last is +Inf */
	}
	json_t *o = json_pack("{s:i, s:s, s:b, s:s, s:O?, s:O?, s:O?, s:O?, s:f, s:i, s:i, s:i,"
			      " s:{s:I, s:I, s:I, s:I, s:I, s:I}, s:{s:o, s:o, s:f}}",
			      "version", 1, "node", cd->cl->node, "connected", cd->db.c != NULL, "error", cd->view_err,
			      "nodes", json_object_get(cd->view, "nodes"), "jobs", jobs,
			      "history", json_object_get(cd->view, "history"), "db_now", json_object_get(cd->view, "db_now"),
			      "data_age_s", cd->view ? (now - cd->view_at) / 1e3 : -1.0, "view_s", (int)cd->cl->view_s,
			      "retain_days", (int)cd->cl->retain_days, "dead_after_s", (int)cd->cl->dead_after_s,
			      "counters", "claims", (json_int_t)cd->claimed, "commits", (json_int_t)cd->commits,
			      "requeues", (json_int_t)cd->requeues, "lease_losses", (json_int_t)cd->fenced,
			      "jobs_done", (json_int_t)cd->done, "round_trips", (json_int_t)cd->db.round_trips,
			      "db_seconds", "le", le, "count", cnt, "sum", cd->db.lat_sum);
	char *txt = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	char f[PATH_MAX + 16];
	snprintf(f, sizeof f, "%s/view.json", cd->cl->spool);
	int rc = txt ? zp_file_write_atomic(f, txt, strlen(txt), NULL) : -ENOMEM;
	if (rc && rc != cd->view_write_rc)
		zp_log(WHO, "%s: cannot write the cluster view: %s", f, zp_strerror(rc));
	cd->view_write_rc = rc;
	free(txt);
}

static void loop(struct clusterd *cd, int sfd)
{
	for (;;) {
		struct pollfd p[2] = { { .fd = sfd, .events = POLLIN }, { .fd = zp_db_fd(&cd->db), .events = POLLIN } };
		poll(p, cd->db.c ? 2 : 1, 100);
		if (p[0].revents) {
			struct signalfd_siginfo si;
			if (read(sfd, &si, sizeof si) != sizeof si)
				si.ssi_signo = 0;
			if (!cd->cl->stop_drain || cd->stop_drain || !cd->nheld || !cd->db.c) {
				zp_log(WHO, "signal %u: stopping%s", si.ssi_signo, cd->nheld ? ", handing the jobs held back" : "");
				break;
			}
			cd->stop_drain = true; /* [cluster] stop = drain: claim nothing, finish what is held */
			cd->stop_deadline = zp_mono_ms() + cd->cl->drain_timeout_s * 1000ull;
			cd->last_hb = 0;
			zp_log(WHO, "signal %u: draining before the stop ([cluster] stop = drain): %u job(s), %u partition(s) "
			       "held; up to %u s (drain_timeout_s), a second signal hands them back at once", si.ssi_signo, cd->nheld,
			       load(cd), cd->cl->drain_timeout_s);
		}
		if (cd->stop_drain) {
			uint64_t now = zp_mono_ms();
			if (!cd->nheld) {
				zp_log(WHO, "drained for the stop in %.1f s", (now + cd->cl->drain_timeout_s * 1000ull - cd->stop_deadline) / 1e3);
				break;
			}
			if (now >= cd->stop_deadline) {
				zp_log(WHO, "drain_timeout_s (%u s) reached with %u job(s) held: handing them back", cd->cl->drain_timeout_s,
				       cd->nheld);
				break;
			}
			if (now - cd->last_drain_note >= 5000) {
				cd->last_drain_note = now;
				zp_log(WHO, "draining for the stop: %u job(s), %u partition(s) left, %.0f s to the drain timeout", cd->nheld,
				       load(cd), (cd->stop_deadline - now) / 1e3);
			}
		}
		if (cd->db.c && p[1].revents && zp_db_notifies(&cd->db))
			cd->want_claim = true, cd->claim_empty_free = 0;
		if (!cd->db.c && zp_mono_ms() >= cd->next_connect)
			db_up(cd);
		tick(cd);
		view_tick(cd);
		if (zp_mono_ms() - cd->last_sweep > 5000) {
			cd->last_sweep = zp_mono_ms();
			sweep(cd);
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = { { "config", 1, 0, 'c' }, { "group", 1, 0, 'g' }, { "index", 1, 0, 'i' },
					      { "help", 0, 0, 'h' },
					      { "simulate-prove-ms", 1, 0, 's' }, { 0 } };
	const char *config = NULL, *sim = NULL;
	int o;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1)
		if (o == 'c')
			config = optarg;
		else if (o == 's') /* the scale benchmark only (sim.h); the supervisor never passes it */
			sim = optarg;
		else if (o != 'g' && o != 'i')
			return fputs("usage: zkpipe-clusterd --config FILE\n", o == 'h' ? stdout : stderr), o == 'h' ? 0 : 2;
	if (!config)
		return fputs("usage: zkpipe-clusterd --config FILE\n", stderr), 2;
	pid_t parent = getppid();
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* dies with its supervisor; the next one starts a new clusterd */
	if (getppid() != parent)
		return 1;
	struct clusterd *cd = calloc(1, sizeof *cd); /* the process's state; lives until it exits */
	if (!cd)
		return zp_log(WHO, "out of memory"), 1;
	if (zp_pipe_config_load(&cd->c, config))
		return zp_log(WHO, "%s", zp_err_msg()), 1;
	cd->cl = &cd->c.cluster;
	if (sim && zp_sim_init(sim, &cd->c))
		return zp_log(WHO, "%s", zp_err_msg()), 2;
	if (!cd->cl->database[0])
		return zp_log(WHO, "%s has no [cluster] database", config), 1;
	if (cd->c.listen[0])
		snprintf(cd->api_url, sizeof cd->api_url, "%s", cd->c.listen);
	else
		zp_api_default_url(cd->api_url, sizeof cd->api_url, cd->c.run_dir);
	snprintf(cd->db.conninfo, sizeof cd->db.conninfo, "%s", cd->cl->database);
	snprintf(cd->db.app, sizeof cd->db.app, "zkpipe-clusterd %s", cd->cl->node);
	/* a statement waits at most this long (then the connection is dropped and made again): long
	 * enough for a loaded server, short enough that a cut link is noticed within a few beats */
	uint32_t tmo = cd->cl->heartbeat_s * 2000;
	cd->db.timeout_ms = (int)(tmo < 5000 ? 5000 : tmo > 15000 ? 15000 : tmo);
	cd->db.prepare = true; /* the same few statements for days: parsed once per connection (db.c) */
	for (unsigned i = 0; i < cd->c.n_keys; i++)
		cd->keys[i].k = &cd->c.keys[i];
	if (lock_spool(cd) || instance_id(cd))
		return zp_log(WHO, "%s", zp_err_msg()), 1;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	int sfd = signalfd(-1, &set, SFD_CLOEXEC);
	cd->backoff = 200;
	zp_log(WHO, "node %s: database %s, heartbeat %u s, dead after %u s", cd->cl->node, cd->cl->database,
	       cd->cl->heartbeat_s, cd->cl->dead_after_s);
	loop(cd, sfd);
	stop(cd);
	zp_sim_finish(&cd->db);
	zp_db_close(&cd->db);
	return 0;
}
