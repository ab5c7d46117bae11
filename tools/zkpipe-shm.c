/*
 * zkpipe-shm — read-only view of an arena: backing, layout, slots, jobs,
 * processes, counters. The mapping is PROT_READ: this tool cannot change the
 * arena, whatever it does.
 *
 *   zkpipe-shm [--json] [--watch[=SECONDS]] [--hugetlbfs DIR] NAME
 *   zkpipe-shm --remove [--hugetlbfs DIR] NAME     remove the arena and its key regions, or one key
 *                                                  region (refused while the arena is in use)
 *   zkpipe-shm --list [--json]                     every key region on this machine
 *   zkpipe-shm --help | --version
 * NAME is an arena or a key region ("<arena>.key.<key>", "<arena>.split.<key>": shm/keyregion.h).
 */
#include "arena.h"
#include "keyregion.h"
#include "zp_err.h"
#include "zp_exit.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double age_s(uint64_t ns, uint64_t now)
{
	return ns && now > ns ? (double)(now - ns) / 1e9 : 0.0;
}

/* Owner column: pid of the tag's process-table entry and whether it lives. */
static int owner_pid(const struct zp_arena *a, uint32_t tag, int *alive)
{
	*alive = 0;
	if (tag == ZP_TAG_NONE)
		return 0;
	const struct zp_arena_proc *p = zp_arena_proc_rec(a, zp_tag_idx(tag));
	if (!p)
		return 0;
	*alive = zp_arena_proc_alive(a, zp_tag_idx(tag)) == 1;
	return p->pid;
}

/* ---- key regions: gpud's decoded keys, tens of GiB at PoRep size, outliving the arena's processes */
struct regions { json_t *list; const char *hdir; };

static void region_add(const char *name, void *ctx)
{
	struct regions *r = ctx;
	struct zp_kreg_hdr h;
	uint64_t bytes = 0;
	enum zp_backing kind = ZP_BACKING_SHM;
	zp_err_clear();
	if (zp_keyregion_peek(name, r->hdir, &h, &bytes, &kind) < 0) {
		json_array_append_new(r->list, json_pack("{s:s, s:I, s:s}", "name", name, "bytes", (json_int_t)bytes,
							 "error", zp_err_msg()));
		return;
	}
	char key[65], fmt[17], curve[17];
	snprintf(key, sizeof key, "%.64s", h.key);
	snprintf(fmt, sizeof fmt, "%.16s", h.format);
	snprintf(curve, sizeof curve, "%.16s", h.curve);
	json_array_append_new(r->list, json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:b, s:i, s:b, s:I}", "name", name,
		"key", key, "format", fmt, "curve", curve, "backing", zp_backing_name(kind), "bytes", (json_int_t)bytes,
		"complete", h.complete == 1, "creator_pid", (int)h.creator_pid,
		"creator_alive", h.creator_pid && (kill((pid_t)h.creator_pid, 0) == 0 || errno == EPERM),
		"created_ns", (json_int_t)h.created_ns));
}

/* The key regions of arena (NULL: of every arena), as a JSON array. */
static json_t *regions_of(const char *arena, const char *hdir)
{
	struct regions r = { json_array(), hdir };
	zp_keyregion_each(arena, hdir, region_add, &r);
	return r.list;
}

static void regions_text(json_t *list)
{
	size_t i;
	json_t *e;
	printf("\nKEY REGION                                 KEY              CURVE      BACKING   MiB   STATE\n");
	json_array_foreach(list, i, e) {
		const char *err = json_string_value(json_object_get(e, "error"));
		printf("%-42s %-16.16s %-10s %-8s %6lld  %s\n", json_string_value(json_object_get(e, "name")),
		       err ? "?" : json_string_value(json_object_get(e, "key")),
		       err ? "?" : json_string_value(json_object_get(e, "curve")),
		       err ? "?" : json_string_value(json_object_get(e, "backing")),
		       json_integer_value(json_object_get(e, "bytes")) >> 20,
		       err ? err : json_is_true(json_object_get(e, "complete")) ? "complete" : "half-written");
	}
	if (!json_array_size(list))
		printf("(none)\n");
}

static void text_view(const struct zp_arena *a)
{
	const struct zp_arena_hdr *h = zp_arena_hdr(a);
	uint64_t now = zp_now_ns();
	printf("arena %s  backing %s  version %u (format 0x%08x)  created %.0f s ago by pid %u\n", h->name,
	       zp_backing_name(h->backing), h->version & 0xffu, h->version, age_s(h->created_ns, now), h->creator_pid);
	printf("layout: %u slots x %llu MiB at +%llu, %u jobs x %u parts, %u procs, total %llu MiB\n",
	       h->slot_count, (unsigned long long)(h->slot_size >> 20), (unsigned long long)h->data_off,
	       h->job_count, h->max_parts, h->proc_count, (unsigned long long)(h->total_size >> 20));
	printf("\nSLOT  STATE    GEN  OWNER(pid)    JOB/PART      AGE(s)      BYTES\n");
	for (uint32_t i = 0; i < h->slot_count; i++) {
		const struct zp_arena_slot *s = zp_arena_slot_rec(a, i);
		uint64_t w = zp_arena_load64(&s->word);
		int alive, pid = owner_pid(a, zp_word_tag(w), &alive);
		char own[24] = "-", jp[24] = "-";
		if (pid)
			snprintf(own, sizeof own, "%d%s", pid, alive ? "" : " DEAD");
		if (zp_word_state(w) != ZP_SLOT_FREE)
			snprintf(jp, sizeof jp, "%llu/%u", (unsigned long long)s->job_id, s->part);
		printf("%4u  %-7s %4u  %-12s  %-12s %7.2f %10llu\n", i, zp_slot_state_name(zp_word_state(w)),
		       zp_word_gen(w), own, jp, age_s(zp_arena_load64(&s->state_ns), now),
		       (unsigned long long)s->bytes);
	}
	printf("\nJOB       STATE    PRIO  DONE/FAIL/N  KEY              PARTITIONS\n");
	for (uint32_t j = 0; j < h->job_count; j++) {
		const struct zp_arena_job *r = zp_arena_job_rec(a, j);
		uint64_t w = zp_arena_load64(&r->word);
		if (zp_word_state(w) < ZP_JOB_ACTIVE)
			continue;
		printf("%-8llu  %-7s %5u  %4u/%u/%-4u  %-16.16s ", (unsigned long long)r->id,
		       zp_job_state_name(zp_word_state(w)), r->priority, zp_arena_load32(&r->parts_done),
		       zp_arena_load32(&r->parts_failed), r->nparts, r->key_id);
		for (uint32_t p = 0; p < r->nparts && p < h->max_parts; p++) {
			uint64_t pw = zp_arena_load64(&zp_arena_part_rec(a, j, p)->word);
			printf("%c%s", p ? ' ' : '[', zp_part_state_name(zp_word_state(pw)));
			if (zp_part_attempts(pw))
				printf("(%u)", zp_part_attempts(pw));
		}
		printf("]\n");
		if (r->error[0])
			printf("          error: %.*s\n", (int)sizeof r->error, r->error);
	}
	printf("\nPROC  PID      ROLE        STATE  NAME              HEARTBEAT(s)\n");
	for (uint32_t i = 0; i < h->proc_count; i++) {
		const struct zp_arena_proc *p = zp_arena_proc_rec(a, i);
		uint64_t w = zp_arena_load64(&p->word);
		if (zp_word_state(w) == ZP_PROC_FREE)
			continue;
		printf("%4u  %-7d  %-10s  %-5s  %-16.16s  %7.2f\n", i, p->pid, zp_role_name(p->role),
		       zp_arena_proc_alive(a, i) == 1 ? "alive" : "DEAD", p->name,
		       age_s(zp_arena_load64(&p->heartbeat_ns), now));
	}
	printf("\nCOUNTERS\n");
#define ZP_X(n, help) printf("  %-18s %14llu   %s\n", #n, (unsigned long long)zp_arena_load64(&h->counters.n), help);
	ZP_ARENA_COUNTERS(ZP_X)
#undef ZP_X
}

static json_t *json_view(const struct zp_arena *a)
{
	const struct zp_arena_hdr *h = zp_arena_hdr(a);
	json_t *o = json_pack("{s:s, s:s, s:i, s:I, s:i, s:I, s:i, s:i, s:i, s:I, s:I}", "name", h->name,
			      "backing", zp_backing_name(h->backing), "version", (int)(h->version & 0xffu),
			      "created_ns", (json_int_t)h->created_ns, "slot_count", h->slot_count,
			      "slot_size", (json_int_t)h->slot_size, "job_count", h->job_count,
			      "max_parts", h->max_parts, "proc_count", h->proc_count,
			      "data_off", (json_int_t)h->data_off, "total_size", (json_int_t)h->total_size);
	json_t *slots = json_array(), *jobs = json_array(), *procs = json_array(), *cnt = json_object();
	for (uint32_t i = 0; i < h->slot_count; i++) {
		const struct zp_arena_slot *s = zp_arena_slot_rec(a, i);
		uint64_t w = zp_arena_load64(&s->word);
		int alive, pid = owner_pid(a, zp_word_tag(w), &alive);
		json_array_append_new(slots, json_pack("{s:i, s:s, s:I, s:i, s:b, s:I, s:i, s:I, s:I}",
			"index", i, "state", zp_slot_state_name(zp_word_state(w)), "gen", (json_int_t)zp_word_gen(w),
			"owner_pid", pid, "owner_alive", alive, "job_id", (json_int_t)s->job_id, "part", s->part,
			"bytes", (json_int_t)s->bytes, "state_ns", (json_int_t)zp_arena_load64(&s->state_ns)));
	}
	for (uint32_t j = 0; j < h->job_count; j++) {
		const struct zp_arena_job *r = zp_arena_job_rec(a, j);
		uint64_t w = zp_arena_load64(&r->word);
		if (zp_word_state(w) < ZP_JOB_ACTIVE)
			continue;
		json_t *parts = json_array();
		for (uint32_t p = 0; p < r->nparts && p < h->max_parts; p++) {
			const struct zp_arena_part *pr = zp_arena_part_rec(a, j, p);
			uint64_t pw = zp_arena_load64(&pr->word);
			json_t *ts = json_object();
			for (unsigned s = 0; s < ZP_TS_COUNT; s++)
				json_object_set_new(ts, zp_stage_name(s), json_integer((json_int_t)zp_arena_load64(&pr->ts[s])));
			json_array_append_new(parts, json_pack("{s:s, s:i, s:o}", "state",
				zp_part_state_name(zp_word_state(pw)), "attempts", zp_part_attempts(pw), "ts", ts));
		}
		json_array_append_new(jobs, json_pack("{s:I, s:s, s:i, s:s, s:s, s:s, s:s, s:o}",
			"id", (json_int_t)r->id, "state", zp_job_state_name(zp_word_state(w)), "priority", r->priority,
			"key_id", r->key_id, "inputs", r->inputs, "output", r->output, "error", r->error,
			"partitions", parts));
	}
	for (uint32_t i = 0; i < h->proc_count; i++) {
		const struct zp_arena_proc *p = zp_arena_proc_rec(a, i);
		if (zp_word_state(zp_arena_load64(&p->word)) == ZP_PROC_FREE)
			continue;
		json_array_append_new(procs, json_pack("{s:i, s:i, s:s, s:s, s:b, s:I}", "index", i,
			"pid", p->pid, "role", zp_role_name(p->role), "name", p->name,
			"alive", zp_arena_proc_alive(a, i) == 1, "heartbeat_ns", (json_int_t)zp_arena_load64(&p->heartbeat_ns)));
	}
#define ZP_X(n, help) json_object_set_new(cnt, #n, json_integer((json_int_t)zp_arena_load64(&h->counters.n)));
	ZP_ARENA_COUNTERS(ZP_X)
#undef ZP_X
	json_object_set_new(o, "format", json_integer((json_int_t)h->version)); /* the whole format word (shm/arena.h) */
	json_object_set_new(o, "slots", slots);
	json_object_set_new(o, "jobs", jobs);
	json_object_set_new(o, "processes", procs);
	json_object_set_new(o, "counters", cnt);
	return o;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: zkpipe-shm [--json] [--watch[=SECONDS]] [--hugetlbfs DIR] NAME\n"
		   "       zkpipe-shm --remove [--hugetlbfs DIR] NAME\n"
		   "       zkpipe-shm --list [--json] [--hugetlbfs DIR]\n"
		   "       zkpipe-shm --help | --version\n"
		   "  Shows an arena read-only (the mapping is PROT_READ), with its key regions (gpud's decoded\n"
		   "  keys, <arena>.key.<key> and <arena>.split.<key>: kept across restarts, tens of GiB at PoRep\n"
		   "  size); NAME may also be one key region. --remove deletes the arena, its jobs and its key\n"
		   "  regions, or the one key region NAME, refusing (exit 15) while a process in the arena's\n"
		   "  table is alive: stop the supervisor and its daemons first. --list: every key region on\n"
		   "  this machine, of any arena (a removed arena's leftovers too). An arena's name is in the\n"
		   "  supervisor's log and `zkpipe status`.\n%s",
		f == stdout ? zp_exit_text : "");
}

/* 0 when no process of arena's table is alive (or there is no such arena); else ZP_EX_BUSY, each
 * live one named. */
static int arena_idle(const char *name, const char *hdir, bool *exists)
{
	struct zp_arena *a;
	*exists = false;
	int r = zp_arena_attach(name, ZP_ARENA_RDONLY, NULL, hdir, &a);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {   /* another user's object, a symlink, a wrong mode: said, never taken for "no arena" */
		fprintf(stderr, "zkpipe-shm: %s\n", zp_err_text(r));
		return r == -EACCES || r == -EPERM ? ZP_EX_INPUT : ZP_EX_INTERNAL;
	}
	*exists = true;
	const struct zp_arena_hdr *h = zp_arena_hdr(a);
	unsigned live = 0;
	for (uint32_t i = 0; i < h->proc_count; i++) {
		const struct zp_arena_proc *p = zp_arena_proc_rec(a, i);
		if (zp_word_state(zp_arena_load64(&p->word)) == ZP_PROC_ALIVE && zp_arena_proc_alive(a, i) == 1) {
			fprintf(stderr, "zkpipe-shm: arena %s is in use: %s (%s) pid %u is alive\n", name, p->name,
				zp_role_name(p->role), p->pid);
			live++;
		}
	}
	zp_arena_close(a);
	if (live)
		fprintf(stderr, "zkpipe-shm: not removed (%u live process(es)); stop the supervisor (SIGTERM) first\n", live);
	return live ? ZP_EX_BUSY : 0;
}

struct rm_ctx { const char *hdir; unsigned n, failed; uint64_t bytes; };

static void region_rm(const char *name, void *ctx)
{
	struct rm_ctx *c = ctx;
	struct zp_kreg_hdr h;
	uint64_t bytes = 0;
	enum zp_backing kind;
	zp_keyregion_peek(name, c->hdir, &h, &bytes, &kind);
	if (zp_keyregion_remove(name, c->hdir) == 0) {
		c->n++;
		c->bytes += bytes;
	} else {
		c->failed++;
		fprintf(stderr, "zkpipe-shm: remove key region %s: %s\n", name, strerror(errno));
	}
}

/* --remove of a key region by name: refused while its arena's processes live (a gpud proving from it
 * would reload its key file at its next start, silently). */
static int remove_region(const char *name, const char *arena, const char *hdir)
{
	bool exists;
	int ex = arena_idle(arena, hdir, &exists);
	if (ex)
		return ex;
	struct zp_kreg_hdr h;
	uint64_t bytes = 0;
	enum zp_backing kind;
	zp_keyregion_peek(name, hdir, &h, &bytes, &kind);
	if (zp_keyregion_remove(name, hdir) < 0) {
		fprintf(stderr, "zkpipe-shm: remove key region %s: %s\n", name, strerror(errno));
		return ZP_EX_INTERNAL;
	}
	printf("removed key region %s (%llu MiB)\n", name, (unsigned long long)(bytes >> 20));
	return ZP_EX_OK;
}

/* --remove: only when no process of its table is alive (a live one would keep a mapping of a
 * deleted arena and lose its jobs silently). A process attaching between the check and the
 * unlink keeps its mapping; the next supervisor then creates a new arena. */
static int remove_arena(const char *name, const char *hdir)
{
	struct zp_arena *a;
	int r = zp_arena_attach(name, ZP_ARENA_RDONLY, NULL, hdir, &a);
	char arena[ZP_KREG_NAME_MAX];
	if (r < 0 && zp_keyregion_is_name(name, arena, sizeof arena)) {
		return remove_region(name, arena, hdir);
	}
	if (r < 0 && r != -ENOENT) { /* there, but not readable as an arena: say why, remove nothing */
		fprintf(stderr, "zkpipe-shm: %s\n", zp_err_text(r));
		return r == -EACCES || r == -EPERM ? ZP_EX_INPUT : ZP_EX_INTERNAL;
	}
	bool exists = r == 0;
	if (r == 0)
		zp_arena_close(a);
	int ex = exists ? arena_idle(name, hdir, &exists) : 0;
	if (ex)
		return ex;
	if (exists && (r = zp_arena_destroy(name, hdir)) < 0) {
		fprintf(stderr, "zkpipe-shm: remove %s: %s\n", name, zp_err_text(r));
		return ZP_EX_INTERNAL;
	}
	/* its key regions go with it (also those an earlier removal left) */
	struct rm_ctx c = { hdir, 0, 0, 0 };
	zp_keyregion_each(name, hdir, region_rm, &c);
	if (!exists && !c.n && !c.failed) {
		fprintf(stderr, "zkpipe-shm: no arena or key region named %s\n", name);
		return ZP_EX_INPUT;
	}
	if (exists)
		printf("removed arena %s", name);
	if (c.n && exists)
		printf(" and its %u key region(s) (%llu MiB)", c.n, (unsigned long long)(c.bytes >> 20));
	else if (c.n)
		printf("removed %u key region(s) of arena %s (%llu MiB)", c.n, name, (unsigned long long)(c.bytes >> 20));
	printf("\n");
	return c.failed ? ZP_EX_INTERNAL : ZP_EX_OK;
}

/* NAME that is a key region: its header, read-only. */
static int show_region(const char *name, const char *hdir, int json)
{
	struct zp_kreg_hdr h;
	uint64_t bytes = 0;
	enum zp_backing kind;
	int r = zp_keyregion_peek(name, hdir, &h, &bytes, &kind);
	if (r < 0 && r != ZP_EFORMAT) {
		fprintf(stderr, "zkpipe-shm: %s\n", zp_err_msg());
		return ZP_EX_INPUT;
	}
	json_t *one = json_array();
	struct regions rs = { one, hdir };
	region_add(name, &rs);
	json_t *e = json_array_get(one, 0);
	if (json) {
		json_dumpf(e, stdout, JSON_INDENT(2));
		printf("\n");
	} else {
		regions_text(one);
		for (unsigned i = 0; r == 0 && i < h.n_sections; i++)
			printf("  section %-16.16s %12llu bytes at +%llu\n", h.sect[i].name, (unsigned long long)h.sect[i].bytes,
			       (unsigned long long)h.sect[i].off);
	}
	json_decref(one);
	return r < 0 ? ZP_EX_INPUT : ZP_EX_OK;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, 0, 'j' }, { "watch", optional_argument, 0, 'w' },
		{ "hugetlbfs", required_argument, 0, 'H' }, { "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' }, { "remove", no_argument, 0, 'r' }, { "list", no_argument, 0, 'l' },
		{ 0 },
	};
	int json = 0, c, rm = 0, list = 0;
	double watch = 0;
	const char *hdir = NULL;
	while ((c = getopt_long(argc, argv, "jw::H:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'w': watch = optarg ? atof(optarg) : 1.0; break;
		case 'H': hdir = optarg; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("zkpipe-shm %s\n", ZP_VERSION); return 0;
		case 'r': rm = 1; break;
		case 'l': list = 1; break;
		default: usage(stderr); return 2;
		}
	}
	if (list) {
		if (optind != argc || rm || watch > 0) {
			usage(stderr);
			return 2;
		}
		json_t *l = regions_of(NULL, hdir);
		if (json) {
			json_dumpf(l, stdout, JSON_INDENT(2));
			printf("\n");
		} else {
			regions_text(l);
		}
		json_decref(l);
		return 0;
	}
	if (optind != argc - 1 || (rm && (json || watch > 0))) {
		usage(stderr);
		return 2;
	}
	if (rm)
		return remove_arena(argv[optind], hdir);
	struct zp_arena *a;
	int r = zp_arena_attach(argv[optind], ZP_ARENA_RDONLY, NULL, hdir, &a);
	if (r < 0 && zp_keyregion_is_name(argv[optind], NULL, 0) && watch <= 0)
		return show_region(argv[optind], hdir, json);
	if (r < 0) {
		fprintf(stderr, "zkpipe-shm: %s\n", zp_err_text(r));
		return 1;
	}
	do {
		if (watch > 0 && !json)
			printf("\033[H\033[2J");
		if (json) {
			json_t *o = json_view(a);
			json_object_set_new(o, "key_regions", regions_of(argv[optind], hdir));
			json_dumpf(o, stdout, JSON_INDENT(watch > 0 ? 0 : 2) | JSON_COMPACT * (watch > 0));
			printf("\n");
			json_decref(o);
		} else {
			text_view(a);
			json_t *l = regions_of(argv[optind], hdir);
			regions_text(l);
			json_decref(l);
		}
		fflush(stdout);
		if (watch > 0)
			usleep((useconds_t)(watch * 1e6));
	} while (watch > 0);
	zp_arena_close(a);
	return 0;
}
