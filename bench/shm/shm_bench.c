/*
 * shm_bench — arena hand-off costs per backing kind:
 *   round trip: claim partition → claim slot → mark ready → take ready →
 *               release → done, one process, empty payload (ns per trip);
 *   hand-off:   a producer and a consumer process over 4 slots (trips/s);
 *   fill:       memset of a 64 MiB slot, after creation pre-faulted (GB/s).
 * Prints a table and appends it to the results file.
 *
 *   shm_bench [--results bench/RESULTS.md] [--seconds S]
 */
#include "arena.h"
#include "knobs.h"
#include "zp_err.h"

#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 4
#define SLOT_MB 64
#define PARTS 1024

struct row { const char *kind; double rt_ns, handoff, fill_gbs; int ok; };

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Keep one job with PENDING partitions available; free finished ones. */
static void feed(struct zp_arena *a)
{
	const struct zp_arena_hdr *h = zp_arena_hdr(a);
	for (uint32_t j = 0; j < h->job_count; j++) {
		uint64_t w = atomic_load(&zp_arena_job_rec(a, j)->word);
		if (zp_word_state(w) == ZP_JOB_DONE)
			zp_arena_job_free(a, (zp_job_h){ j, zp_word_gen(w) });
	}
	for (uint32_t j = 0; j < h->job_count; j++) {
		uint64_t w = atomic_load(&zp_arena_job_rec(a, j)->word);
		if (zp_word_state(w) != ZP_JOB_ACTIVE)
			continue;
		const struct zp_arena_part *p = zp_arena_part_rec(a, j, PARTS - 1);
		if (zp_word_state(atomic_load(&p->word)) == ZP_PART_PENDING)
			return;
	}
	zp_job_h jh;
	struct zp_job_spec js = { .key_id = "bench", .nparts = PARTS };
	zp_arena_submit_job(a, &js, &jh, NULL);
}

static int produce_one(struct zp_arena *a, zp_proc_h me, int timeout)
{
	zp_part_h p;
	zp_slot_h s;
	if (zp_arena_claim_part(a, me, &p) < 0) {
		feed(a);
		if (zp_arena_claim_part(a, me, &p) < 0)
			return -1;
	}
	if (zp_arena_claim_slot(a, me, p, timeout, &s) < 0)
		return -1;
	return zp_arena_mark_ready(a, me, s, 0);
}

static int consume_one(struct zp_arena *a, zp_proc_h me, int timeout)
{
	zp_part_h p;
	zp_slot_h s;
	int r = zp_arena_take_ready(a, me, timeout, &s, &p);
	if (r < 0)
		return r;
	zp_arena_release_slot(a, me, s);
	return zp_arena_part_done(a, me, p);
}

static double round_trip(struct zp_arena *a, zp_proc_h me, double secs)
{
	long n = 0;
	double t0 = now_s(), t;
	do {
		for (int i = 0; i < 1000; i++, n++)
			if (produce_one(a, me, 0) < 0 || consume_one(a, me, 0) < 0)
				return -1;
	} while ((t = now_s()) - t0 < secs);
	return (t - t0) * 1e9 / (double)n;
}

static double handoff(struct zp_arena *a, const char *name, double secs)
{
	pid_t c = fork();
	if (c == 0) {
		struct zp_arena *b;
		zp_proc_h g;
		if (zp_arena_attach(name, 0, NULL, NULL, &b) || zp_arena_proc_register(b, 0, ZP_ROLE_GPUD, "cons", &g))
			_exit(1);
		for (;;)
			consume_one(b, g, 100);
	}
	zp_proc_h me;
	zp_arena_proc_register(a, 0, ZP_ROLE_SYNTHD, "prod", &me);
	long n = 0;
	double t0 = now_s(), t;
	do {
		for (int i = 0; i < 256; i++)
			n += produce_one(a, me, 1000) == 0;
	} while ((t = now_s()) - t0 < secs);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	zp_arena_reclaim_dead(a);
	return (double)n / (t - t0);
}

static double fill(struct zp_arena *a)
{
	uint64_t sz = zp_arena_slot_size(a);
	double best = 0;
	for (int rep = 0; rep < 5; rep++) {
		double t0 = now_s();
		for (uint32_t i = 0; i < SLOTS; i++)
			memset(zp_arena_slot_data(a, (zp_slot_h){ i, 0 }), rep, sz);
		double gbs = (double)sz * SLOTS / (now_s() - t0) / 1e9;
		best = gbs > best ? gbs : best;
	}
	return best;
}

static void run(struct row *r, enum zp_backing k, const char *hdir, double secs)
{
	char name[64];
	snprintf(name, sizeof name, "bench-%d", (int)getpid());
	struct zp_arena_params p = { .name = name, .slot_count = SLOTS, .slot_size = (uint64_t)SLOT_MB << 20,
				     .job_count = 4, .max_parts = PARTS, .proc_count = 8, .backing = k,
				     .hugetlbfs_dir = hdir, .flags = ZP_ARENA_REPLACE };
	struct zp_arena *a;
	r->kind = zp_backing_name(k);
	if (zp_arena_create(&p, &a) < 0) {
		fprintf(stderr, "%s: %s\n", r->kind, zp_err_msg());
		return;
	}
	zp_proc_h me;
	zp_arena_proc_register(a, 0, ZP_ROLE_TEST, "bench", &me);
	r->fill_gbs = fill(a);
	r->rt_ns = round_trip(a, me, secs);
	zp_arena_proc_unregister(a, me);
	r->handoff = handoff(a, name, secs);
	r->ok = 1;
	zp_arena_close(a);
	zp_arena_destroy(name, hdir);
}

static void cpu_model(char *buf, size_t n)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	snprintf(buf, n, "unknown CPU");
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			snprintf(buf, n, "%s", strchr(line, ':') + 2);
			buf[strcspn(buf, "\n")] = 0;
			break;
		}
	if (f)
		fclose(f);
}

static void report(FILE *f, struct row *rows, int n, int argc, char **argv)
{
	struct utsname u;
	char cpu[128], date[64];
	time_t t = time(NULL);
	uname(&u);
	cpu_model(cpu, sizeof cpu);
	strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
	fprintf(f, "\n## shm arena hand-off (%s)\n\n", date);
	fprintf(f, "Machine: %s %s %s; %s; %ld CPUs\n\nCommand: `", u.sysname, u.release, u.machine, cpu,
		sysconf(_SC_NPROCESSORS_ONLN));
	for (int i = 0; i < argc; i++)
		fprintf(f, "%s%s", i ? " " : "", argv[i]);
	fprintf(f, "` (%d slots x %d MiB, empty payloads for the hand-off rows)\n\n", SLOTS, SLOT_MB);
	fprintf(f, "| backing | round trip, 1 process (ns) | hand-off, 2 processes (trips/s) | fill (GB/s) |\n");
	fprintf(f, "|---|---:|---:|---:|\n");
	for (int i = 0; i < n; i++)
		if (rows[i].ok)
			fprintf(f, "| %s | %.0f | %.0f | %.1f |\n", rows[i].kind, rows[i].rt_ns, rows[i].handoff,
				rows[i].fill_gbs);
		else
			fprintf(f, "| %s | n/a | n/a | n/a |\n", rows[i].kind);
}

int main(int argc, char **argv)
{
	const char *results = NULL;
	double secs = 1.0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--results") && i + 1 < argc)
			results = argv[++i];
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			secs = atof(argv[++i]);
	}
	struct row rows[4] = { 0 };
	char dir[] = "/tmp/zkpipe-bench-XXXXXX";
	long old_nr = -1;
	int pages = SLOTS * SLOT_MB / 2 + 2;
	bool mounted = geteuid() == 0 && mkdtemp(dir) && zp_hugetlbfs_prepare(dir, (uint64_t)pages, &old_nr) == 0;
	if (mounted)
		setenv("ZKPIPE_HUGETLBFS", dir, 1), zp_knobs_reload();
	run(&rows[0], ZP_BACKING_HUGETLBFS, mounted ? dir : NULL, secs);
	run(&rows[1], ZP_BACKING_MEMFD, NULL, secs);
	/* THP for shmem is off by default; as root, allow it (madvise) for this run. */
	const char *knob = "/sys/kernel/mm/transparent_hugepage/shmem_enabled";
	char old[128] = "";
	FILE *kf = fopen(knob, "r");
	if (kf) {
		if (!fgets(old, sizeof old, kf))
			old[0] = 0;
		fclose(kf);
	}
	char *o = strchr(old, '['), *e = o ? strchr(o, ']') : NULL;
	bool thp_set = geteuid() == 0 && o && e && zp_backing_probe(ZP_BACKING_THP, NULL, 1 << 21) < 0;
	if (thp_set && (kf = fopen(knob, "w"))) {
		fputs("advise", kf);
		fclose(kf);
	}
	run(&rows[2], ZP_BACKING_THP, NULL, secs);
	if (thp_set && (kf = fopen(knob, "w"))) {
		*e = 0;
		fputs(o + 1, kf);
		fclose(kf);
	}
	run(&rows[3], ZP_BACKING_SHM, NULL, secs);
	if (mounted) {
		umount(dir);
		rmdir(dir);
	}
	if (old_nr >= 0)
		zp_hugetlbfs_set_nr(old_nr);
	report(stdout, rows, 4, argc, argv);
	if (results) {
		FILE *f = fopen(results, "a");
		if (!f)
			return perror(results), 1;
		report(f, rows, 4, argc, argv);
		fclose(f);
	}
	return 0;
}
