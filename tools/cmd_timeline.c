/*
 * cmd_timeline.c — `zkpipe timeline`: the run's waterfall as an SVG, so a stall is seen at a
 * glance: one row per partition (grouped by job), one bar per stage of pipeline/stages.h
 * (queued, slot wait, synthesis, READY, copy, GPU, finish), and under them a strip per group
 * of slot occupancy (slot claimed → released) and of GPU busy time (gpu_start → gpu_end,
 * the number of gpuds at work).
 *
 * Data: finished jobs from <run dir>/results/<job>.json (the supervisor writes each one with
 * its partitions' stage timestamps before freeing the arena record), active ones from the
 * supervisor when it answers. The SVG's structure is part of the interface (tests read it):
 *   g.job[data-job][data-key][data-state] > g.partition[data-job][data-part][data-state]
 *     > rect.bar[data-stage][data-t0][data-t1]   (stage order, ns timestamps)
 *   g.strip[data-strip=slots|gpu][data-group][data-max] > rect.occ[data-t0][data-t1][data-count]
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmds.h"
#include "config.h"
#include "files.h"
#include "hint.h"
#include "rundir.h"
#include "stages.h"
#include "zp_err.h"
#include "zp_file.h"

#define MAX_ROWS     4000        /* partitions drawn; the newest jobs win */
#define MAX_RECORD   (16u << 20) /* a results file larger than this is not ours */
#define PLOT_W       1100.0
#define LABEL_W      170.0
#define ROW_H        11.0
#define JOB_H        15.0
#define STRIP_H      34.0

struct tl_part {
	unsigned part;
	char state[12];
	uint64_t ts[ZP_TS_COUNT];
};

struct tl_job {
	long long id, cluster; /* cluster: the cluster job it runs (cluster mode), 0 = none */
	char key[ZP_KEY_ID_MAX], group[ZP_PIPE_NAME_MAX], state[12];
	uint64_t submit_ns;
	unsigned nparts;
	struct tl_part *p;
};

struct tl {
	struct tl_job *j;
	size_t n, cap;
	uint64_t t0, t1;             /* the drawn time range */
	const struct zp_pipe_config *cfg;
};

/* ---------------------------------------------------------------- loading */
static int has_job(const struct tl *t, long long id)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->j[i].id == id)
			return 1;
	return 0;
}

/* A job object as the API's status and results/<job>.json have it. */
static int add_job(struct tl *t, json_t *o)
{
	json_t *parts = json_object_get(o, "partitions");
	long long id = json_integer_value(json_object_get(o, "job"));
	if (!json_is_array(parts) || !json_is_integer(json_object_get(o, "job")) || has_job(t, id))
		return 0;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct tl_job *nj = realloc(t->j, cap * sizeof *nj);
		if (!nj)
			return -ENOMEM;
		t->j = nj, t->cap = cap;
	}
	struct tl_job *j = &t->j[t->n];
	memset(j, 0, sizeof *j);
	j->id = id;
	j->cluster = json_integer_value(json_object_get(o, "cluster_job"));
	snprintf(j->key, sizeof j->key, "%s", json_string_value(json_object_get(o, "key")) ?: "");
	snprintf(j->group, sizeof j->group, "%s", json_string_value(json_object_get(o, "group")) ?: "");
	snprintf(j->state, sizeof j->state, "%s", json_string_value(json_object_get(o, "state")) ?: "");
	j->submit_ns = (uint64_t)json_integer_value(json_object_get(o, "submit_ns"));
	j->nparts = (unsigned)json_array_size(parts);
	if (j->nparts > ZP_ARENA_MAX_PARTS)
		return 0;
	j->p = calloc(j->nparts ? j->nparts : 1, sizeof *j->p);
	if (!j->p)
		return -ENOMEM;
	size_t i;
	json_t *p;
	json_array_foreach(parts, i, p) {
		struct tl_part *q = &j->p[i];
		q->part = (unsigned)i;
		snprintf(q->state, sizeof q->state, "%s", json_string_value(json_object_get(p, "state")) ?: "");
		const char *k;
		json_t *v;
		json_object_foreach(json_object_get(p, "ts"), k, v) {
			int s = zp_stage_by_name(k);
			if (s >= 0 && json_is_integer(v))
				q->ts[s] = (uint64_t)json_integer_value(v);
		}
	}
	t->n++;
	return 0;
}

/* One results file: a regular file of ours, bounded, never through a link. */
static json_t *load_record(int dfd, const char *name)
{
	char *txt = NULL;
	if (zp_file_read(dfd, name, O_NOFOLLOW, MAX_RECORD, &txt, NULL))
		return NULL;
	json_t *j = json_loads(txt, 0, NULL);
	free(txt);
	return j;
}

static int is_record_name(const char *n)
{
	size_t l = strlen(n);
	if (l < 6 || strcmp(n + l - 5, ".json"))
		return 0;
	for (size_t i = 0; i < l - 5; i++)
		if (n[i] < '0' || n[i] > '9')
			return 0;
	return 1;
}

static int load_results(struct tl *t, long long only)
{
	char dir[PATH_MAX];
	if (zp_pipe_path(dir, sizeof dir, t->cfg, "results"))
		return zp_err_set(-ENAMETOOLONG, "run directory too long");
	DIR *d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : zp_err_set(-errno, "%s: %s", dir, strerror(errno));
	struct dirent *e;
	int rc = 0;
	while (!rc && (e = readdir(d))) {
		if (!is_record_name(e->d_name) || (only >= 0 && strtoll(e->d_name, NULL, 10) != only))
			continue;
		json_t *j = load_record(dirfd(d), e->d_name);
		if (j)
			rc = add_job(t, j);
		json_decref(j);
	}
	closedir(d);
	return rc;
}

/* Active jobs (and, for --job, a finished one) from the supervisor, when it answers. */
static void load_live(struct tl *t, const char *url, long long only)
{
	json_t *req = only >= 0 ? json_pack("{s:s, s:I}", "op", "status", "job", (json_int_t)only)
				: json_pack("{s:s}", "op", "status");
	json_t *rep = zp_client_call(url, req, 3000, 1);
	json_decref(req);
	if (rep && only >= 0)
		add_job(t, rep);
	size_t i;
	json_t *j;
	json_array_foreach(only >= 0 || !rep ? NULL : json_object_get(rep, "job_list"), i, j) {
		long long id = json_integer_value(json_object_get(j, "job"));
		if (has_job(t, id))
			continue;
		json_t *r2 = json_pack("{s:s, s:I}", "op", "status", "job", (json_int_t)id);
		json_t *one = zp_client_call(url, r2, 3000, 1);
		json_decref(r2);
		if (one)
			add_job(t, one);
		json_decref(one);
	}
	json_decref(rep);
}

static int by_submit(const void *a, const void *b)
{
	const struct tl_job *x = a, *y = b;
	return x->submit_ns < y->submit_ns ? -1 : x->submit_ns > y->submit_ns ? 1 : x->id < y->id ? -1 : x->id > y->id;
}

/* Oldest first; past MAX_ROWS partitions the oldest jobs are dropped. Returns how many were. */
static size_t order_and_cap(struct tl *t)
{
	if (!t->n) /* no job (t->j NULL): qsort and memmove take no NULL, even for 0 items (UBSAN) */
		return 0;
	qsort(t->j, t->n, sizeof *t->j, by_submit);
	size_t rows = 0, first = t->n;
	while (first > 0 && rows + t->j[first - 1].nparts <= MAX_ROWS)
		rows += t->j[--first].nparts;
	for (size_t i = 0; i < first; i++)
		free(t->j[i].p);
	memmove(t->j, t->j + first, (t->n - first) * sizeof *t->j);
	t->n -= first;
	return first;
}

static void time_range(struct tl *t)
{
	t->t0 = UINT64_MAX, t->t1 = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct tl_job *j = &t->j[i];
		if (j->submit_ns && j->submit_ns < t->t0)
			t->t0 = j->submit_ns;
		for (unsigned p = 0; p < j->nparts; p++)
			for (unsigned s = 0; s < ZP_TS_COUNT; s++) {
				uint64_t v = j->p[p].ts[s];
				if (v && v < t->t0)
					t->t0 = v;
				if (v > t->t1)
					t->t1 = v;
			}
	}
	if (t->t0 == UINT64_MAX)
		t->t0 = t->t1 = 0;
	if (t->t1 <= t->t0)
		t->t1 = t->t0 + 1000000; /* a range of at least 1 ms to divide by */
}

/* ---------------------------------------------------------------- drawing */
static const char *const colors[ZP_SPAN_BARS] = { "#c9d1dc", "#f7d070", "#f0b429", "#3ea6ff", "#8e6bd8", "#2e9e5b",
						  "#1d6b3f" };
static const char *const labels[ZP_SPAN_BARS] = { "queued", "waiting for a slot", "synthesis", "READY", "copy", "GPU",
						  "finish" };

static double xof(const struct tl *t, uint64_t ns)
{
	return LABEL_W + PLOT_W * (double)(ns - t->t0) / (double)(t->t1 - t->t0);
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: if ((unsigned char)*s >= 0x20) fputc(*s, f);
		}
}

static void draw_partition(FILE *f, const struct tl *t, const struct tl_job *j, const struct tl_part *p, double y)
{
	fprintf(f, "<g class=\"partition\" data-job=\"%lld\" data-part=\"%u\" data-state=\"", j->id, p->part);
	xml_text(f, p->state);
	fprintf(f, "\"><text x=\"%.1f\" y=\"%.1f\" class=\"pl\">partition %u</text>\n", LABEL_W - 6, y + ROW_H - 2.5,
		p->part);
	for (unsigned s = 0; s < ZP_SPAN_BARS; s++) {
		uint64_t a, b;
		if (!zp_span_bounds(s, p->ts, j->submit_ns, &a, &b))
			continue;
		double x0 = xof(t, a), x1 = xof(t, b);
		fprintf(f, "<rect class=\"bar %s\" data-stage=\"%s\" data-t0=\"%llu\" data-t1=\"%llu\" x=\"%.2f\" y=\"%.1f\" "
			   "width=\"%.2f\" height=\"%.1f\" fill=\"%s\"><title>job %lld partition %u: %s %.3f ms</title></rect>\n",
			zp_span_name(s), zp_span_name(s), (unsigned long long)a, (unsigned long long)b, x0, y + 1,
			x1 - x0 > 0.3 ? x1 - x0 : 0.3, ROW_H - 2, colors[s], j->id, p->part, labels[s], (double)(b - a) / 1e6);
	}
	fputs("</g>\n", f);
}

struct ev { uint64_t t; int d; };

static int by_time(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t ? 1 : x->d - y->d; /* ends before starts at one instant */
}

/* One strip: how many of the group's intervals [from, to] overlap, as steps. what: "slots" (slot
 * claimed at synth_start, released at copy_end) or "gpu" (gpu_start → gpu_end). */
static void draw_strip(FILE *f, const struct tl *t, const char *group, int gpu, unsigned max, double y)
{
	size_t n = 0, cap = 0;
	struct ev *e = NULL;
	int from = gpu ? ZP_TS_GPU_START : ZP_TS_SYNTH_START, to = gpu ? ZP_TS_GPU_END : ZP_TS_COPY_END;
	for (size_t i = 0; i < t->n; i++) {
		if (strcmp(t->j[i].group, group))
			continue;
		for (unsigned p = 0; p < t->j[i].nparts; p++) {
			uint64_t a = t->j[i].p[p].ts[from], b = t->j[i].p[p].ts[to];
			if (!a || !b || b < a)
				continue;
			if (n + 2 > cap) {
				cap = cap ? 2 * cap : 256;
				struct ev *ne = realloc(e, cap * sizeof *e);
				if (!ne)
					goto out;
				e = ne;
			}
			e[n++] = (struct ev){ a, +1 };
			e[n++] = (struct ev){ b, -1 };
		}
	}
	qsort(e, n, sizeof *e, by_time);
	unsigned peak = 0;
	int cur = 0;
	for (size_t i = 0; i < n; i++)
		if ((cur += e[i].d) > (int)peak)
			peak = (unsigned)cur;
	if (peak > max)
		max = peak; /* never clip what happened (a reclaimed slot's stale stamps, say) */
	fprintf(f, "<g class=\"strip\" data-strip=\"%s\" data-group=\"", gpu ? "gpu" : "slots");
	xml_text(f, group);
	fprintf(f, "\" data-max=\"%u\" data-peak=\"%u\">\n<text x=\"%.1f\" y=\"%.1f\" class=\"pl\">", max, peak, LABEL_W - 6,
		y + STRIP_H / 2 + 3);
	xml_text(f, group);
	fprintf(f, ": %s (max %u)</text>\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"sbg\"/>\n",
		gpu ? "GPU busy" : "slots held", max, LABEL_W, y, PLOT_W, STRIP_H);
	cur = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		cur += e[i].d;
		if (cur <= 0 || e[i + 1].t == e[i].t)
			continue;
		double h = STRIP_H * cur / (max ? max : 1), x0 = xof(t, e[i].t), x1 = xof(t, e[i + 1].t);
		fprintf(f, "<rect class=\"occ\" data-t0=\"%llu\" data-t1=\"%llu\" data-count=\"%d\" x=\"%.2f\" y=\"%.2f\" "
			   "width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n", (unsigned long long)e[i].t,
			(unsigned long long)e[i + 1].t, cur, x0, y + STRIP_H - h, x1 - x0, h, gpu ? "#2e9e5b" : "#f0b429");
	}
	fputs("</g>\n", f);
out:
	free(e);
}

static unsigned group_max(const struct tl *t, const char *group, int gpu)
{
	int g = zp_pipe_group_find(t->cfg, group);
	return g < 0 ? 0 : gpu ? t->cfg->groups[g].gpus : t->cfg->groups[g].slots;
}

static void draw_axis(FILE *f, const struct tl *t, double y0, double y1)
{
	static const double mant[3] = { 1, 2, 5 };
	double span = (double)(t->t1 - t->t0) / 1e9, decade = 1e-3, step = decade;
	for (unsigned k = 0; span / step > 12; k++) { /* 1, 2, 5 × 10^n: at most a dozen ticks */
		if (k && k % 3 == 0)
			decade *= 10;
		step = mant[k % 3] * decade;
	}
	fputs("<g class=\"axis\">\n", f);
	for (double s = 0; s <= span + 1e-12; s += step) {
		double x = LABEL_W + PLOT_W * s / span;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\">%.*f s</text>\n",
			x, y0, x, y1, x, y0 - 3, step < 0.01 ? 3 : step < 0.1 ? 2 : step < 1 ? 1 : 0, s);
	}
	fputs("</g>\n", f);
}

static void draw(FILE *f, const struct tl *t, size_t dropped)
{
	unsigned rows = 0;
	char groups[ZP_PIPE_MAX_GROUPS][ZP_PIPE_NAME_MAX];
	unsigned ng = 0;
	for (size_t i = 0; i < t->n; i++) {
		rows += t->j[i].nparts;
		unsigned g = 0;
		while (g < ng && strcmp(groups[g], t->j[i].group))
			g++;
		if (g == ng && ng < ZP_PIPE_MAX_GROUPS)
			snprintf(groups[ng++], sizeof groups[0], "%s", t->j[i].group);
	}
	double top = 48, h = top + t->n * JOB_H + rows * ROW_H + 10 + ng * 2 * (STRIP_H + 8) + 30;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		   "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"10\">\n",
		LABEL_W + PLOT_W + 20, h, LABEL_W + PLOT_W + 20, h);
	fprintf(f, "<title>zkpipe timeline: %zu jobs, %u partitions, %.3f s%s</title>\n", t->n, rows,
		(double)(t->t1 - t->t0) / 1e9, dropped ? " (older jobs left out)" : "");
	fputs("<style>.pl{text-anchor:end;fill:#333}.jl{font-weight:bold;fill:#1d2330}.axis line{stroke:#e3e6eb}"
	      ".axis text{fill:#6b7385;text-anchor:middle}.sbg{fill:#f3f4f6}</style>\n"
	      "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n", f);
	fputs("<g class=\"legend\">", f);
	for (unsigned s = 0; s < ZP_SPAN_BARS; s++)
		fprintf(f, "<rect x=\"%.0f\" y=\"6\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%.0f\" y=\"15\">%s</text>",
			LABEL_W + s * 120.0, colors[s], LABEL_W + s * 120.0 + 14, labels[s]);
	if (dropped)
		fprintf(f, "<text x=\"10\" y=\"15\">%zu older jobs left out</text>", dropped);
	fputs("</g>\n", f);
	double y = top;
	draw_axis(f, t, top - 6, h - 24);
	fputs("<g class=\"jobs\">\n", f);
	for (size_t i = 0; i < t->n; i++) {
		const struct tl_job *j = &t->j[i];
		fprintf(f, "<g class=\"job\" data-job=\"%lld\" data-key=\"", j->id);
		xml_text(f, j->key);
		fputs("\" data-state=\"", f);
		xml_text(f, j->state);
		if (j->cluster > 0)
			fprintf(f, "\" data-cluster-job=\"%lld", j->cluster);
		fprintf(f, "\" data-parts=\"%u\"><text x=\"4\" y=\"%.1f\" class=\"jl\">job %lld ", j->nparts, y + JOB_H - 4, j->id);
		if (j->cluster > 0)
			fprintf(f, "(cluster %lld) ", j->cluster);
		xml_text(f, j->key);
		fputs(" ", f);
		xml_text(f, j->state);
		fputs("</text>\n", f);
		y += JOB_H;
		for (unsigned p = 0; p < j->nparts; p++, y += ROW_H)
			draw_partition(f, t, j, &j->p[p], y);
		fputs("</g>\n", f);
	}
	fputs("</g>\n", f);
	y += 10;
	for (unsigned g = 0; g < ng; g++) {
		draw_strip(f, t, groups[g], 0, group_max(t, groups[g], 0), y);
		y += STRIP_H + 8;
		draw_strip(f, t, groups[g], 1, group_max(t, groups[g], 1), y);
		y += STRIP_H + 8;
	}
	fputs("</svg>\n", f);
}

/* ---------------------------------------------------------------- entry points */
int zp_timeline_write(const struct zp_pipe_config *cfg, const char *url, long long only, const char *out,
		      unsigned *jobs, unsigned *rows)
{
	struct tl t = { .cfg = cfg };
	int rc = load_results(&t, only);
	if (!rc && url)
		load_live(&t, url, only);
	size_t dropped = rc ? 0 : order_and_cap(&t);
	if (!rc && only >= 0 && !t.n) /* nothing to draw for that job: write no file */
		rc = zp_err_set(-ENOENT, "job %lld: no record in %s/results and the supervisor does not know it", only,
				cfg->run_dir);
	char *svg = NULL;
	size_t len = 0;
	FILE *f = rc ? NULL : open_memstream(&svg, &len);
	if (!rc && !f)
		rc = -ENOMEM;
	if (f) {
		time_range(&t);
		draw(f, &t, dropped);
		fclose(f);
		rc = zp_file_write_atomic(out, svg, len, NULL);
		if (rc)
			zp_err_set(rc, "%s: %s", out, zp_strerror(rc));
	}
	*jobs = (unsigned)t.n, *rows = 0;
	for (size_t i = 0; i < t.n; i++)
		*rows += t.j[i].nparts, free(t.j[i].p);
	free(t.j);
	free(svg);
	return rc;
}

static const char timeline_help[] =
	"usage: zkpipe timeline --config FILE [--job J] --out F.svg\n"
	"  The run's waterfall: one row per partition (grouped by job), one bar per stage (queued,\n"
	"  waiting for a slot, synthesis, READY, copy, GPU, finish), and per group a strip of slots\n"
	"  held and of GPU busy time. Finished jobs come from <run dir>/results/, active ones from\n"
	"  the supervisor when it runs. --job J draws that job only.\n";

int cmd_timeline(int argc, char **argv)
{
	static const struct option opts[] = { { "config", 1, 0, 'c' }, { "job", 1, 0, 'j' }, { "out", 1, 0, 'o' },
		{ "help", 0, 0, 'h' }, { 0 } };
	static struct zp_pipe_config cfg;
	const char *config = NULL, *out = NULL;
	long long only = -1;
	int o;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		char *end;
		switch (o) {
		case 'c': config = optarg; break;
		case 'o': out = optarg; break;
		case 'j':
			only = strtoll(optarg, &end, 10);
			if (*end || only < 0)
				return fprintf(stderr, "zkpipe timeline: --job %s: a job id\n", optarg), 2;
			break;
		case 'h': fputs(timeline_help, stdout); return 0;
		default: fputs(timeline_help, stderr); return 2;
		}
	}
	if (!config || !out || optind != argc)
		return fputs(timeline_help, stderr), 2;
	if (zp_pipe_config_load(&cfg, config))
		return fprintf(stderr, "zkpipe timeline: %s\n", zp_err_msg()), 2;
	char url[ZP_PIPE_URL_MAX];
	if (cfg.listen[0])
		snprintf(url, sizeof url, "%s", cfg.listen);
	else
		zp_api_default_url(url, sizeof url, cfg.run_dir);
	unsigned jobs, rows;
	zp_err_clear();
	int rc = zp_timeline_write(&cfg, url, only, out, &jobs, &rows);
	if (rc)
		return fprintf(stderr, "zkpipe timeline: %s\n", zp_err_text(rc)),
		       rc == -ENOENT ? 3 : 7;
	printf("%s: %u job(s), %u partition(s)\n", out, jobs, rows);
	return 0;
}
