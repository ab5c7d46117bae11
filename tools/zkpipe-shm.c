/*
 * zkpipe-shm — read-only view of an arena: backing, layout, slots, jobs,
 * processes, counters. The mapping is PROT_READ: this tool cannot change the
 * arena, whatever it does.
 *
 *   zkpipe-shm [--json] [--watch[=SECONDS]] [--hugetlbfs DIR] NAME
 *   zkpipe-shm --remove [--hugetlbfs DIR] NAME     remove the arena (refused while in use)
 *   zkpipe-shm --help | --version
 */
#include "arena.h"
#include "zp_err.h"
#include "zp_exit.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
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

static void text_view(const struct zp_arena *a)
{
	const struct zp_arena_hdr *h = zp_arena_hdr(a);
	uint64_t now = zp_now_ns();
	printf("arena %s  backing %s  version %u  created %.0f s ago by pid %u\n", h->name,
	       zp_backing_name(h->backing), h->version, age_s(h->created_ns, now), h->creator_pid);
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
			      "backing", zp_backing_name(h->backing), "version", h->version,
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
		   "       zkpipe-shm --help | --version\n"
		   "  Shows an arena read-only (the mapping is PROT_READ). --remove deletes it, and its jobs,\n"
		   "  refusing (exit 15) while a process in its table is alive: stop the supervisor and its\n"
		   "  daemons first. An arena's name is in the supervisor's log and `zkpipe status`.\n%s",
		f == stdout ? zp_exit_text : "");
}

/* --remove: only when no process of its table is alive (a live one would keep a mapping of a
 * deleted arena and lose its jobs silently). A process attaching between the check and the
 * unlink keeps its mapping; the next supervisor then creates a new arena. */
static int remove_arena(const char *name, const char *hdir)
{
	struct zp_arena *a;
	int r = zp_arena_attach(name, ZP_ARENA_RDONLY, NULL, hdir, &a);
	if (r < 0) {
		fprintf(stderr, "zkpipe-shm: %s\n", zp_err_msg()[0] ? zp_err_msg() : zp_strerror(r));
		return r == -ENOENT || r == -EACCES || r == -EPERM ? ZP_EX_INPUT : ZP_EX_INTERNAL;
	}
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
	if (live) {
		fprintf(stderr, "zkpipe-shm: not removed (%u live process(es)); stop the supervisor (SIGTERM) first\n", live);
		return ZP_EX_BUSY;
	}
	if ((r = zp_arena_destroy(name, hdir)) < 0) {
		fprintf(stderr, "zkpipe-shm: remove %s: %s\n", name, zp_err_msg()[0] ? zp_err_msg() : zp_strerror(r));
		return ZP_EX_INTERNAL;
	}
	printf("removed arena %s\n", name);
	return ZP_EX_OK;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, 0, 'j' }, { "watch", optional_argument, 0, 'w' },
		{ "hugetlbfs", required_argument, 0, 'H' }, { "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' }, { "remove", no_argument, 0, 'r' }, { 0 },
	};
	int json = 0, c, rm = 0;
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
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1 || (rm && (json || watch > 0))) {
		usage(stderr);
		return 2;
	}
	if (rm)
		return remove_arena(argv[optind], hdir);
	struct zp_arena *a;
	int r = zp_arena_attach(argv[optind], ZP_ARENA_RDONLY, NULL, hdir, &a);
	if (r < 0) {
		fprintf(stderr, "zkpipe-shm: %s\n", zp_err_msg()[0] ? zp_err_msg() : zp_strerror(r));
		return 1;
	}
	do {
		if (watch > 0 && !json)
			printf("\033[H\033[2J");
		if (json) {
			json_t *o = json_view(a);
			json_dumpf(o, stdout, JSON_INDENT(watch > 0 ? 0 : 2) | JSON_COMPACT * (watch > 0));
			printf("\n");
			json_decref(o);
		} else {
			text_view(a);
		}
		fflush(stdout);
		if (watch > 0)
			usleep((useconds_t)(watch * 1e6));
	} while (watch > 0);
	zp_arena_close(a);
	return 0;
}
