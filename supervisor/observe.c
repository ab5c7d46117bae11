/*
 * observe.c — what the supervisor shows beyond the arena's counters: duration histograms per
 * key and stage (/metrics), a throughput history, and the parts of /status the status page
 * draws (jobs with progress and ETA, slots with their ages, each daemon's start-up progress).
 *
 * Histograms are fed once per finished job, when its results record is first written (so a
 * restarted supervisor does not count a job twice; it starts from zero, as a Prometheus
 * counter may). The main loop writes, the HTTP thread reads: one mutex.
 */
#include <errno.h>
#include <time.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stages.h"
#include "sup.h"
#include "config.h"
#include "rundir.h"
#include "sys.h"
#include "zp_file.h"

/* Upper bounds in seconds: a 2^27 partition's stages are around a second, a small circuit's
 * around a millisecond, a queue at peak minutes. */
static const double bounds[] = { 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 60,
				 120, 300, 600, 1800 };
#define NB (sizeof bounds / sizeof bounds[0])

struct hist {
	uint64_t le[NB]; /* observations <= bounds[i] (cumulative) */
	uint64_t count;
	double sum;
};

#define TP_N 300 /* throughput samples kept, one a second */
#define RECENT_N 64 /* finished jobs remembered for /status after their arena record is freed */

static struct {
	pthread_mutex_t mu;
	struct hist h[ZP_PIPE_MAX_KEYS][ZP_SPAN_COUNT];
	uint64_t tp[TP_N];        /* parts_proved summed over groups, at each sample */
	unsigned tp_n, tp_head;   /* samples held; next write position */
	uint64_t tp_last_ms;
	json_t *recent[RECENT_N]; /* job_brief of the last finished jobs, a ring */
	unsigned recent_head;
} O = { .mu = PTHREAD_MUTEX_INITIALIZER };

static void hist_add(struct hist *h, double s)
{
	for (unsigned i = 0; i < NB; i++)
		h->le[i] += s <= bounds[i];
	h->count++;
	h->sum += s;
}

static json_t *job_brief(struct sup *sup, struct zp_arena *a, unsigned g, uint32_t j, uint64_t now);
static void cluster_metrics(struct sup *sup, FILE *f);

void sup_observe_job(struct sup *sup, struct zp_arena *a, unsigned g, uint32_t j)
{
	json_t *brief = job_brief(sup, a, g, j, zp_now_ns());
	pthread_mutex_lock(&O.mu);
	json_decref(O.recent[O.recent_head]);
	O.recent[O.recent_head] = brief;
	O.recent_head = (O.recent_head + 1) % RECENT_N;
	pthread_mutex_unlock(&O.mu);

	const struct zp_arena_job *r = zp_arena_job_rec(a, j);
	const struct zp_pipe_key *k = zp_pipe_key_find(&sup->cfg, r->key_id);
	if (!k)
		return; /* a key no longer configured: nothing to label it with */
	unsigned ki = (unsigned)(k - sup->cfg.keys);
	pthread_mutex_lock(&O.mu);
	for (uint32_t p = 0; p < r->nparts; p++) {
		const struct zp_arena_part *pr = zp_arena_part_rec(a, j, p);
		uint64_t ts[ZP_TS_COUNT], t0, t1;
		for (unsigned s = 0; s < ZP_TS_COUNT; s++)
			ts[s] = zp_arena_load64(&pr->ts[s]);
		if (zp_word_state(zp_arena_load64(&pr->word)) != ZP_PART_DONE)
			continue; /* only partitions that went the whole way: a failed one's stages are partial */
		for (unsigned s = 0; s < ZP_SPAN_COUNT; s++)
			if (zp_span_bounds(s, ts, r->submit_ns, &t0, &t1))
				hist_add(&O.h[ki][s], (double)(t1 - t0) / 1e9);
	}
	pthread_mutex_unlock(&O.mu);
}

/* Label values: backslash, double quote and newline escaped (the text format's rule). */
static void label(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f), fputc(*v, f);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

void sup_observe_metrics(struct sup *sup, FILE *f)
{
	fputs("# HELP zkpipe_partition_stage_seconds time partitions spent in each stage (queued, slot_wait, synthesis, "
	      "ready, copy, gpu, finish; total = submit to done), per key\n"
	      "# TYPE zkpipe_partition_stage_seconds histogram\n", f);
	pthread_mutex_lock(&O.mu);
	for (unsigned k = 0; k < sup->cfg.n_keys; k++)
		for (unsigned s = 0; s < ZP_SPAN_COUNT; s++) {
			const struct hist *h = &O.h[k][s];
			for (unsigned i = 0; i <= NB; i++) {
				fputs("zkpipe_partition_stage_seconds_bucket{key=\"", f);
				label(f, sup->cfg.keys[k].name);
				if (i < NB)
					fprintf(f, "\",stage=\"%s\",le=\"%g\"} %llu\n", zp_span_name(s), bounds[i],
						(unsigned long long)h->le[i]);
				else
					fprintf(f, "\",stage=\"%s\",le=\"+Inf\"} %llu\n", zp_span_name(s),
						(unsigned long long)h->count);
			}
			fputs("zkpipe_partition_stage_seconds_sum{key=\"", f);
			label(f, sup->cfg.keys[k].name);
			fprintf(f, "\",stage=\"%s\"} %.9g\n", zp_span_name(s), h->sum);
			fputs("zkpipe_partition_stage_seconds_count{key=\"", f);
			label(f, sup->cfg.keys[k].name);
			fprintf(f, "\",stage=\"%s\"} %llu\n", zp_span_name(s), (unsigned long long)h->count);
		}
	pthread_mutex_unlock(&O.mu);
	cluster_metrics(sup, f);
}

/* ---------------------------------------------------------------- throughput */
static uint64_t proved_now(struct sup *sup)
{
	uint64_t n = 0;
	for (unsigned g = 0; g < sup->cfg.n_groups; g++)
		n += zp_arena_load64(&zp_arena_hdr(sup->g[g].a)->counters.parts_proved);
	return n;
}

void sup_observe_tick(struct sup *sup)
{
	uint64_t now = zp_mono_ms();
	if (O.tp_n && now - O.tp_last_ms < 1000) /* called every ~100 ms: a sample a second */
		return;
	uint64_t v = proved_now(sup);
	pthread_mutex_lock(&O.mu);
	O.tp[O.tp_head] = v;
	O.tp_head = (O.tp_head + 1) % TP_N;
	O.tp_n += O.tp_n < TP_N;
	O.tp_last_ms = now;
	pthread_mutex_unlock(&O.mu);
}

/* {"interval_s": 1, "proved": [partitions proved in each of the last seconds, oldest first]} */
static json_t *throughput_json(void)
{
	json_t *a = json_array();
	pthread_mutex_lock(&O.mu);
	for (unsigned i = 1; i < O.tp_n; i++) {
		unsigned cur = (O.tp_head + TP_N - O.tp_n + i) % TP_N, prev = (cur + TP_N - 1) % TP_N;
		json_array_append_new(a, json_integer((json_int_t)(O.tp[cur] - O.tp[prev])));
	}
	pthread_mutex_unlock(&O.mu);
	return json_pack("{s:i, s:o}", "interval_s", 1, "proved", a);
}

/* ---------------------------------------------------------------- /status parts */
#define JOBS_SHOWN 200
#define SLOTS_SHOWN 256

static json_t *job_brief(struct sup *sup, struct zp_arena *a, unsigned g, uint32_t j, uint64_t now)
{
	const struct zp_arena_job *r = zp_arena_job_rec(a, j);
	uint64_t w = zp_arena_load64(&r->word);
	unsigned st = zp_word_state(w), cnt[ZP_PART_FAILED + 1] = { 0 };
	for (uint32_t p = 0; p < r->nparts && p < ZP_ARENA_MAX_PARTS; p++)
		cnt[zp_word_state(zp_arena_load64(&zp_arena_part_rec(a, j, p)->word)) % (ZP_PART_FAILED + 1)]++;
	json_t *ps = json_object();
	for (unsigned s = 0; s <= ZP_PART_FAILED; s++)
		json_object_set_new(ps, zp_part_state_name(s), json_integer(cnt[s]));
	uint32_t done = zp_arena_load32(&r->parts_done);
	uint64_t end = st == ZP_JOB_ACTIVE ? now : zp_arena_load64(&r->done_ns);
	double age = end > r->submit_ns ? (double)(end - r->submit_ns) / 1e9 : 0;
	/* ETA at the job's own pace so far; unknown until its first partition is done */
	double eta = st == ZP_JOB_ACTIVE && done ? age / done * (r->nparts - done) : st == ZP_JOB_ACTIVE ? -1 : 0;
	char err[ZP_ERRTXT_MAX + 1];
	snprintf(err, sizeof err, "%.*s", ZP_ERRTXT_MAX, r->error);
	long long cj = sup_cluster_job(sup, r);
	json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:s, s:I, s:I, s:f, s:f, s:o}", "job",
			 (json_int_t)zp_job_client_id(g, r->id), "group", sup->cfg.groups[g].name, "key", r->key_id, "state",
			 zp_job_state_name(st), "parts", (int)r->nparts, "done", (int)done, "failed",
			 (int)zp_arena_load32(&r->parts_failed), "priority", (int)r->priority, "error", err,
			 "submit_ns", (json_int_t)r->submit_ns, "done_ns",
			 (json_int_t)zp_arena_load64(&r->done_ns), "age_s", age, "eta_s", eta,
			 "partition_states", ps);
	if (o && cj)
		json_object_set_new(o, "cluster_job", json_integer(cj));
	return o;
}

/* A job to list: from an arena record (g, j) or the recent ring (brief). */
struct listed { uint64_t submit_ns; long long id; unsigned g; uint32_t j; json_t *brief; };

static int newest_first(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;
	return x->submit_ns > y->submit_ns ? -1 : x->submit_ns < y->submit_ns ? 1 : (x->id < y->id) - (x->id > y->id);
}

/* Jobs in the arenas (ACTIVE and the finished ones still retained) and the last RECENT_N
 * finished ones whose records are gone, newest first, at most JOBS_SHOWN: what a status page
 * lists. Sorted on (time, id) first, so only the shown ones pay for their partition counts. */
static json_t *jobs_json(struct sup *sup, uint64_t now)
{
	size_t n = 0, cap = RECENT_N;
	for (unsigned g = 0; g < sup->cfg.n_groups; g++)
		cap += zp_arena_hdr(sup->g[g].a)->job_count;
	struct listed *l = calloc(cap, sizeof *l);
	json_t *out = json_array();
	if (!l)
		return out;
	for (unsigned g = 0; g < sup->cfg.n_groups; g++)
		for (uint32_t j = 0; j < zp_arena_hdr(sup->g[g].a)->job_count; j++) {
			const struct zp_arena_job *r = zp_arena_job_rec(sup->g[g].a, j);
			unsigned st = zp_word_state(zp_arena_load64(&r->word));
			if (st == ZP_JOB_ACTIVE || st == ZP_JOB_DONE || st == ZP_JOB_FAILED)
				l[n++] = (struct listed){ r->submit_ns, (long long)zp_job_client_id(g, r->id), g, j, NULL };
		}
	size_t arena_n = n;
	pthread_mutex_lock(&O.mu);
	for (unsigned i = 0; i < RECENT_N; i++) {
		long long id = O.recent[i] ? json_integer_value(json_object_get(O.recent[i], "job")) : -1;
		int dup = id < 0;
		for (size_t k = 0; k < arena_n && !dup; k++) /* still in its arena: that record is fresher */
			dup = l[k].id == id;
		if (!dup)
			l[n++] = (struct listed){ (uint64_t)json_integer_value(json_object_get(O.recent[i], "submit_ns")), id, 0,
						  0, json_deep_copy(O.recent[i]) };
	}
	pthread_mutex_unlock(&O.mu);
	qsort(l, n, sizeof *l, newest_first);
	for (size_t k = 0; k < n; k++) {
		if (k < JOBS_SHOWN)
			json_array_append_new(out, l[k].brief ? l[k].brief : job_brief(sup, sup->g[l[k].g].a, l[k].g, l[k].j, now));
		else
			json_decref(l[k].brief);
	}
	free(l);
	return out;
}

static json_t *slots_json(struct sup *sup, unsigned g, uint64_t now)
{
	struct zp_arena *a = sup->g[g].a;
	json_t *out = json_array();
	for (uint32_t i = 0; i < zp_arena_hdr(a)->slot_count && i < SLOTS_SHOWN; i++) {
		const struct zp_arena_slot *s = zp_arena_slot_rec(a, i);
		uint64_t w = zp_arena_load64(&s->word), t = zp_arena_load64(&s->state_ns);
		json_t *o = json_pack("{s:i, s:s, s:f}", "index", (int)i, "state", zp_slot_state_name(zp_word_state(w) & 3),
				      "age_s", t && now > t ? (double)(now - t) / 1e9 : 0.0);
		if (zp_word_state(w) != ZP_SLOT_FREE) { /* racy display read: job and part are the filler's */
			json_object_set_new(o, "job", json_integer((json_int_t)zp_job_client_id(g, s->job_id)));
			json_object_set_new(o, "part", json_integer((json_int_t)s->part));
		}
		json_array_append_new(out, o);
	}
	return out;
}

/* A daemon's start-up progress (progress/<role>.<i>@<group>.json, common/progress.h), when
 * the file is that very process's (its pid), else NULL. Bounded, never follows a link. */
static json_t *progress_of(struct sup *sup, const struct child *c)
{
	char p[PATH_MAX], *buf = NULL, keep[ZP_ERR_MSG_MAX];
	size_t n = 0;
	if (!c->pid || zp_pipe_path(p, sizeof p, &sup->cfg, "progress/%s.%u@%s.json", zp_role_name(c->role), c->index,
				    sup->cfg.groups[c->group].name))
		return NULL;
	zp_err_save(keep); /* absent or refused: no progress shown, no error of the caller's replaced */
	int r = zp_file_read(AT_FDCWD, p, O_NOFOLLOW, 4096, &buf, &n);
	zp_err_restore(keep);
	json_t *j = r ? NULL : json_loadb(buf, n, 0, NULL);
	free(buf);
	if (!json_is_object(j) || json_integer_value(json_object_get(j, "pid")) != c->pid) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* ---------------------------------------------------------------- the cluster */
/* <run dir>/cluster/view.json, written by zkpipe-clusterd every [cluster] view_s (cluster/clusterd.c):
 * the supervisor reads a file, never the database. NULL when not a cluster node or none yet;
 * age_s = how old the file is (a clusterd that stopped writing shows as a stale view). */
#define VIEW_MAX (8u << 20)
static json_t *cluster_view(struct sup *sup)
{
	if (!sup->cfg.cluster.database[0])
		return NULL;
	char p[PATH_MAX + 16];
	snprintf(p, sizeof p, "%s/view.json", sup->cfg.cluster.spool);
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 || (uint64_t)st.st_size > VIEW_MAX) {
		if (fd >= 0)
			close(fd);
		return json_pack("{s:s, s:b}", "error", "no cluster view yet (zkpipe-clusterd writes it every view_s)",
				 "connected", 0);
	}
	char *buf = malloc((size_t)st.st_size);
	ssize_t n = buf ? read(fd, buf, (size_t)st.st_size) : -1;
	close(fd);
	json_t *v = n > 0 ? json_loadb(buf, (size_t)n, 0, NULL) : NULL;
	free(buf);
	if (!json_is_object(v)) {
		json_decref(v);
		return NULL;
	}
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	double age = (double)(now.tv_sec - st.st_mtim.tv_sec) + (double)(now.tv_nsec - st.st_mtim.tv_nsec) / 1e9;
	json_object_set_new(v, "age_s", json_real(age > 0 ? age : 0));
	return v;
}

static void metric_line(FILE *f, const char *name, const char *labels, double v)
{
	fprintf(f, "%s%s%s%s %.9g\n", name, labels[0] ? "{" : "", labels, labels[0] ? "}" : "", v);
}

/* zkpipe_cluster_*: this node's clusterd counters and database round trips, and each node's
 * heartbeat age as of now (the view's age added); nothing when not a cluster node */
static void cluster_metrics(struct sup *sup, FILE *f)
{
	json_t *v = cluster_view(sup);
	if (!v)
		return;
	json_t *c = json_object_get(v, "counters");
	static const char *const ctr[][2] = {
		{ "claims", "jobs claimed by this node" },
		{ "commits", "partitions committed to the database by this node" },
		{ "requeues", "jobs of silent nodes re-queued by this node" },
		{ "lease_losses", "jobs this node lost to another (a commit or completion fenced by the epoch)" },
		{ "jobs_done", "jobs completed by this node" },
		{ "round_trips", "database statements sent by this node" },
	};
	for (size_t i = 0; c && i < sizeof ctr / sizeof ctr[0]; i++) {
		fprintf(f, "# HELP zkpipe_cluster_%s_total %s\n# TYPE zkpipe_cluster_%s_total counter\n", ctr[i][0], ctr[i][1],
			ctr[i][0]);
		fprintf(f, "zkpipe_cluster_%s_total %lld\n", ctr[i][0], (long long)json_integer_value(json_object_get(c, ctr[i][0])));
	}
	fputs("# HELP zkpipe_cluster_connected 1 while clusterd is connected to the database\n"
	      "# TYPE zkpipe_cluster_connected gauge\n", f);
	metric_line(f, "zkpipe_cluster_connected", "", json_is_true(json_object_get(v, "connected")));
	fputs("# HELP zkpipe_cluster_view_age_seconds age of the cluster view shown (clusterd writes it every view_s)\n"
	      "# TYPE zkpipe_cluster_view_age_seconds gauge\n", f);
	double dage = json_number_value(json_object_get(v, "data_age_s"));
	double age = json_number_value(json_object_get(v, "age_s")) + (dage > 0 ? dage : 0);
	metric_line(f, "zkpipe_cluster_view_age_seconds", "", age);
	json_t *h = json_object_get(v, "db_seconds"), *le = json_object_get(h, "le"), *cnt = json_object_get(h, "count");
	if (json_array_size(cnt) == json_array_size(le) + 1 && json_array_size(le)) {
		fputs("# HELP zkpipe_cluster_db_seconds database statement round-trip time (send to result) of this node\n"
		      "# TYPE zkpipe_cluster_db_seconds histogram\n", f);
		for (size_t i = 0; i < json_array_size(cnt); i++) {
			if (i < json_array_size(le))
				fprintf(f, "zkpipe_cluster_db_seconds_bucket{le=\"%g\"} %lld\n", json_number_value(json_array_get(le, i)),
					(long long)json_integer_value(json_array_get(cnt, i)));
			else
				fprintf(f, "zkpipe_cluster_db_seconds_bucket{le=\"+Inf\"} %lld\n",
					(long long)json_integer_value(json_array_get(cnt, i)));
		}
		fprintf(f, "zkpipe_cluster_db_seconds_sum %.9g\n", json_number_value(json_object_get(h, "sum")));
		fprintf(f, "zkpipe_cluster_db_seconds_count %lld\n",
			(long long)json_integer_value(json_array_get(cnt, json_array_size(cnt) - 1)));
	}
	json_t *nodes = json_object_get(v, "nodes"), *n;
	size_t i;
	if (json_array_size(nodes)) {
		fputs("# HELP zkpipe_cluster_node_heartbeat_age_seconds seconds since each node's last heartbeat\n"
		      "# TYPE zkpipe_cluster_node_heartbeat_age_seconds gauge\n", f);
		json_array_foreach(nodes, i, n) {
			fputs("zkpipe_cluster_node_heartbeat_age_seconds{node=\"", f);
			label(f, json_string_value(json_object_get(n, "name")) ?: "");
			fprintf(f, "\",state=\"%s\"} %.3f\n", json_string_value(json_object_get(n, "state")) ?: "",
				json_number_value(json_object_get(n, "heartbeat_age_s")) + age);
		}
		fputs("# HELP zkpipe_cluster_node_up 1 for a node UP, DRAINING or DRAINED; 0 DOWN or STOPPED\n"
		      "# TYPE zkpipe_cluster_node_up gauge\n", f);
		json_array_foreach(nodes, i, n) {
			const char *s = json_string_value(json_object_get(n, "state")) ?: "";
			fputs("zkpipe_cluster_node_up{node=\"", f);
			label(f, json_string_value(json_object_get(n, "name")) ?: "");
			fprintf(f, "\"} %d\n", strcmp(s, "DOWN") && strcmp(s, "STOPPED"));
		}
	}
	json_t *jobs = json_object_get(v, "jobs"), *j;
	unsigned q = 0, r = 0;
	json_array_foreach(jobs, i, j) {
		const char *s = json_string_value(json_object_get(j, "state")) ?: "";
		q += !strcmp(s, "QUEUED"), r += !strcmp(s, "RUNNING");
	}
	fputs("# HELP zkpipe_cluster_jobs cluster jobs by state (QUEUED, RUNNING)\n# TYPE zkpipe_cluster_jobs gauge\n", f);
	fprintf(f, "zkpipe_cluster_jobs{state=\"QUEUED\"} %u\nzkpipe_cluster_jobs{state=\"RUNNING\"} %u\n", q, r);
	json_decref(v);
}

void sup_observe_status(struct sup *sup, void *status)
{
	json_t *st = status;
	uint64_t now = zp_now_ns();
	json_t *groups = json_object_get(st, "groups"), *procs = json_object_get(st, "processes");
	for (unsigned g = 0; g < sup->cfg.n_groups && g < json_array_size(groups); g++)
		json_object_set_new(json_array_get(groups, g), "slot_list", slots_json(sup, g, now));
	for (unsigned k = 0; k < sup->nch && k < json_array_size(procs); k++) {
		json_t *p = progress_of(sup, &sup->ch[k]);
		if (p)
			json_object_set_new(json_array_get(procs, k), "progress", p);
	}
	json_object_set_new(st, "job_list", jobs_json(sup, now));
	json_object_set_new(st, "throughput", throughput_json());
	json_object_set_new(st, "now_ns", json_integer((json_int_t)now));
	json_t *cv = cluster_view(sup);
	if (cv)
		json_object_set_new(st, "cluster", cv);
}
