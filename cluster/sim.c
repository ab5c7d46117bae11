/*
 * sim.c — zkpipe-clusterd's simulated node for the scale benchmark (sim.h says what and why).
 * Single-threaded, like clusterd: everything happens inside the API calls clusterd makes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "config.h"
#include "zp_file.h"
#include "sim.h"
#include "sql.h"
#include "sys.h"
#include "zp_err.h"

#define PURGE_MS 600000 /* a local job finished this long ago is forgotten (clusterd has long committed it) */

struct sjob {
	char token[64];
	char out[PATH_MAX];
	uint32_t nparts;
	uint64_t submit_ms;
	uint64_t *start_ms, *done_ms; /* monotonic */
	uint32_t *gpu;
	uint8_t *written;
	bool cancelled;
};

static struct {
	int ms;                  /* -1 = off */
	const struct zp_pipe_config *c;
	uint64_t *gpu_free;      /* monotonic ms at which each simulated GPU is free */
	unsigned ngpu;
	struct sjob **jobs;      /* local job id - 1 */
	size_t njobs, cap, first_live;
	int64_t real_minus_mono_ns;
	struct sample { uint64_t wall_ms; uint32_t us; int16_t what, rows; } *s;
	size_t ns, scap;
	uint64_t proved;
} S = { .ms = -1 };

bool zp_sim_on(void) { return S.ms >= 0; }

static uint64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

uint64_t zp_sim_us(void) { return mono_ns() / 1000; }

int zp_sim_init(const char *ms, const struct zp_pipe_config *c)
{
	char *e;
	errno = 0;
	long v = strtol(ms, &e, 10);
	if (errno || e == ms || *e || v < 0 || v > 600000)
		return zp_err_set(-EINVAL, "--simulate-prove-ms %s: a whole number of milliseconds, 0..600000", ms);
	S.ms = (int)v;
	S.c = c;
	for (unsigned g = 0; g < c->n_groups; g++)
		S.ngpu += c->groups[g].gpus;
	if (!S.ngpu)
		S.ngpu = 1;
	S.gpu_free = calloc(S.ngpu, sizeof *S.gpu_free);
	struct timespec r;
	clock_gettime(CLOCK_REALTIME, &r);
	S.real_minus_mono_ns = (int64_t)((uint64_t)r.tv_sec * 1000000000ull + (uint64_t)r.tv_nsec) - (int64_t)mono_ns();
	return S.gpu_free ? 0 : -ENOMEM;
}

int zp_sim_db_check(struct zp_db *db)
{
	zp_db_res *r;
	int rc = zp_db_exec(db, &r, zp_sql_sim_check, 0, NULL);
	if (rc)
		return rc;
	bool ok = zp_db_rows(r) == 1 && !strcmp(zp_db_val(r, 0, 0), "yes");
	zp_db_free(r);
	if (!ok)
		return zp_err_set(-EPERM, "--simulate-prove-ms: this database is not marked for simulated nodes (a benchmark's "
				  "scratch database has the row zkpipe.meta ('" ZP_SIM_META_KEY "', 'yes'); never add it to "
				  "a database that real nodes use): refusing to run");
	return 0;
}

int zp_sim_key(const struct zp_pipe_key *k, char *hash, size_t hn, char **vk, char *why, size_t wn)
{
	if (!k->setup_device || !k->synth[0]) {
		snprintf(why, wn, "a simulated node serves only synthetic keys (synth = ... with setup = device)");
		return -1;
	}
	uint64_t h = XXH3_64bits(k->synth, strlen(k->synth));
	snprintf(hash, hn, "sim-%016llx", (unsigned long long)h);
	char b[400];
	snprintf(b, sizeof b, "{\"protocol\": \"simulated\", \"synth\": \"%s\"}", k->synth);
	free(*vk);
	*vk = strdup(b);
	return *vk ? 1 : 0;
}

/* ---------------------------------------------------------------- the simulated supervisor */
static struct sjob *find(uint64_t id) { return id && id <= S.njobs ? S.jobs[id - 1] : NULL; }

static void purge(uint64_t now)
{
	while (S.first_live < S.njobs) {
		struct sjob *j = S.jobs[S.first_live];
		if (j && !j->cancelled && (!j->nparts || now < j->done_ms[j->nparts - 1] + PURGE_MS))
			break; /* parts end in order on each GPU; the last queued ends last */
		if (j) {
			free(j->start_ms), free(j->done_ms), free(j->gpu), free(j->written), free(j);
			S.jobs[S.first_live] = NULL;
		}
		S.first_live++;
	}
}

static json_t *submit(json_t *req, char *err, size_t errn)
{
	const char *tok = json_string_value(json_object_get(req, "token")) ?: "";
	const char *out = json_string_value(json_object_get(req, "output")) ?: "";
	json_t *in = json_object_get(req, "inputs");
	for (size_t i = S.first_live; i < S.njobs; i++)
		if (S.jobs[i] && tok[0] && !strcmp(S.jobs[i]->token, tok))
			return json_pack("{s:b, s:I}", "ok", 1, "job", (json_int_t)(i + 1));
	size_t n = json_array_size(in);
	if (!n || !out[0] || strlen(out) >= PATH_MAX || strlen(tok) >= 64) {
		snprintf(err, errn, "simulated supervisor: a submit needs inputs, an output and a short token");
		return NULL;
	}
	if (S.njobs == S.cap) {
		size_t nc = S.cap ? 2 * S.cap : 256;
		struct sjob **nj = realloc(S.jobs, nc * sizeof *nj);
		if (!nj)
			return snprintf(err, errn, "simulated supervisor: out of memory"), NULL;
		S.jobs = nj, S.cap = nc;
	}
	struct sjob *j = calloc(1, sizeof *j);
	if (!j || !(j->start_ms = calloc(n, 8)) || !(j->done_ms = calloc(n, 8)) || !(j->gpu = calloc(n, 4)) ||
	    !(j->written = calloc(n, 1))) {
		if (j)
			free(j->start_ms), free(j->done_ms), free(j->gpu), free(j);
		return snprintf(err, errn, "simulated supervisor: out of memory"), NULL;
	}
	snprintf(j->token, sizeof j->token, "%s", tok);
	snprintf(j->out, sizeof j->out, "%s", out);
	j->nparts = (uint32_t)n;
	uint64_t now = zp_mono_ms();
	j->submit_ms = now;
	for (uint32_t p = 0; p < n; p++) { /* FIFO on the earliest free GPU */
		unsigned g = 0;
		for (unsigned i = 1; i < S.ngpu; i++)
			g = S.gpu_free[i] < S.gpu_free[g] ? i : g;
		j->gpu[p] = g;
		j->start_ms[p] = S.gpu_free[g] > now ? S.gpu_free[g] : now;
		j->done_ms[p] = S.gpu_free[g] = j->start_ms[p] + (uint64_t)S.ms;
	}
	S.jobs[S.njobs++] = j;
	return json_pack("{s:b, s:I}", "ok", 1, "job", (json_int_t)S.njobs);
}

static int put(const char *dir, uint32_t p, const char *ext, const char *text)
{
	char f[PATH_MAX + 64];
	snprintf(f, sizeof f, "%s/part-%u.%s", dir, p, ext);
	zp_file_write_opts o = { .no_sync = true }; /* stand-in proofs: atomic for readers, not worth an fsync */
	return zp_file_write_atomic(f, text, strlen(text), &o);
}

/* What gpud would leave for a proved partition: a proof of snarkjs's shape and size (numbers
 * derived from the job's token and partition, so they differ), its public input, its gpu record. */
static int write_part(struct sjob *j, uint32_t p)
{
	if (zp_file_mkdirs(j->out, 0700))
		return -EIO;
	char num[8][80], proof[1200], pub[120], gpu[200];
	uint64_t h = XXH3_64bits_withSeed(j->token, strlen(j->token), p);
	for (int i = 0; i < 8; i++) {
		uint64_t x = h + (uint64_t)i * 0x9e3779b97f4a7c15ull;
		snprintf(num[i], sizeof num[i], "%019llu%019llu%019llu%019llu", (unsigned long long)(x % 10000000000000000000ull),
			 (unsigned long long)((x * 3) % 10000000000000000000ull),
			 (unsigned long long)((x * 7) % 10000000000000000000ull), (unsigned long long)((x * 11) % 1000000000000000000ull));
	}
	snprintf(proof, sizeof proof,
		 "{\"pi_a\":[\"%s\",\"%s\",\"1\"],\"pi_b\":[[\"%s\",\"%s\"],[\"%s\",\"%s\"],[\"1\",\"0\"]],"
		 "\"pi_c\":[\"%s\",\"%s\",\"1\"],\"protocol\":\"simulated\",\"curve\":\"bn128\"}",
		 num[0], num[1], num[2], num[3], num[4], num[5], num[6], num[7]);
	snprintf(pub, sizeof pub, "[\"%llu\"]", (unsigned long long)h);
	snprintf(gpu, sizeof gpu, "{\"group\":\"%s\",\"gpud\":%u,\"gpu\":\"simulated\",\"backend\":\"sim\"}",
		 S.c->n_groups ? S.c->groups[0].name : "sim", j->gpu[p]);
	int rc;
	if ((rc = put(j->out, p, "gpu.json", gpu)) || (rc = put(j->out, p, "public.json", pub)) ||
	    (rc = put(j->out, p, "proof.json", proof)))
		return rc;
	j->written[p] = 1;
	S.proved++;
	return 0;
}

static int64_t wall_ns(uint64_t mono_ms) { return (int64_t)(mono_ms * 1000000ull) + S.real_minus_mono_ns; }

static json_t *status(struct sjob *j)
{
	uint64_t now = zp_mono_ms();
	json_t *parts = json_array();
	bool all = true;
	for (uint32_t p = 0; p < j->nparts; p++) {
		bool done = now >= j->done_ms[p] && !j->cancelled;
		if (done && !j->written[p] && write_part(j, p))
			done = false; /* tried again at the next poll */
		all &= done;
		json_t *ts = json_pack("{s:I}", "claimed", (json_int_t)wall_ns(j->submit_ms));
		if (now >= j->start_ms[p])
			json_object_set_new(ts, "prove_start", json_integer(wall_ns(j->start_ms[p])));
		if (done)
			json_object_set_new(ts, "done", json_integer(wall_ns(j->done_ms[p])));
		json_array_append_new(parts, json_pack("{s:s, s:o}", "state", done ? "DONE" : now >= j->start_ms[p] ?
						       "PROVING" : "QUEUED", "ts", ts));
	}
	return json_pack("{s:b, s:s, s:s, s:o}", "ok", 1, "state", j->cancelled ? "FAILED" : all ? "DONE" : "ACTIVE",
			 "error", j->cancelled ? "cancelled" : "", "partitions", parts);
}

json_t *zp_sim_api(json_t *req, char *err, size_t errn)
{
	const char *op = json_string_value(json_object_get(req, "op")) ?: "";
	uint64_t id = (uint64_t)json_integer_value(json_object_get(req, "job"));
	json_t *rep = NULL;
	purge(zp_mono_ms());
	if (!strcmp(op, "submit"))
		rep = submit(req, err, errn);
	else if (strcmp(op, "status") && strcmp(op, "cancel"))
		snprintf(err, errn, "simulated supervisor: no op %s", op);
	else if (!find(id))
		snprintf(err, errn, "no job %llu", (unsigned long long)id);
	else if (!strcmp(op, "status"))
		rep = status(find(id));
	else {
		find(id)->cancelled = true;
		rep = json_pack("{s:b}", "ok", 1);
	}
	json_decref(req);
	return rep;
}

/* ---------------------------------------------------------------- measurement */
void zp_sim_note(enum zp_sim_what w, uint64_t t0_us, int rc, int rows)
{
	if (!zp_sim_on() || rc)
		return;
	if (S.ns == S.scap) {
		size_t nc = S.scap ? 2 * S.scap : 1024;
		struct sample *n = realloc(S.s, nc * sizeof *n);
		if (!n)
			return;
		S.s = n, S.scap = nc;
	}
	uint64_t t1 = zp_sim_us(), d = t1 - t0_us;
	S.s[S.ns++] = (struct sample){ .wall_ms = (uint64_t)(wall_ns(t1 / 1000) / 1000000), .us = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d,
				       .what = (int16_t)w, .rows = (int16_t)(rows > 32767 ? 32767 : rows) };
}

void zp_sim_finish(const struct zp_db *db)
{
	if (!zp_sim_on())
		return;
	char f[PATH_MAX + 32];
	snprintf(f, sizeof f, "%s/sim-stats.tsv", S.c->run_dir);
	char *txt = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&txt, &len);
	if (!o)
		return zp_log("clusterd", "%s: %s", f, strerror(errno));
	fprintf(o, "# node %s: round_trips %llu connects %llu proved %llu\n", S.c->cluster.node,
		(unsigned long long)db->round_trips, (unsigned long long)db->connects, (unsigned long long)S.proved);
	for (size_t i = 0; i < S.ns; i++)
		fprintf(o, "%s\t%llu\t%u\t%d\n", S.s[i].what == ZP_SIM_CLAIM ? "claim" : "commit",
			(unsigned long long)S.s[i].wall_ms, S.s[i].us, S.s[i].rows);
	zp_file_write_opts no = { .no_sync = true };
	int rc = fclose(o) ? -ENOMEM : zp_file_write_atomic(f, txt, len, &no);
	free(txt);
	if (rc)
		zp_log("clusterd", "%s", zp_err_text(rc));
}
