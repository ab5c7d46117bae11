/*
 * test_backing — every backing kind forced in turn: created, written, seen by
 * a fork+exec'd read-only attacher (right kind, right bytes, writes fault).
 * As root: reserves 2 MiB pages through /proc/sys/vm/nr_hugepages, mounts
 * hugetlbfs on a temp dir, runs the hugetlbfs and memfd cases, checks a short
 * pool is refused at creation (not a SIGBUS later) and that AUTO picks
 * hugetlbfs when it can and falls back when it cannot; then unmounts and
 * restores nr_hugepages. THP is run with shmem_enabled=advise, restored after.
 * Exit 77 only when no kind at all can be exercised.
 */
#include "tshm.h"
#include "knobs.h"
#include "par.h"

#include <stdbool.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>

static char *worker;
static int ran;

static void run_kind(enum zp_backing k, const char *hdir, const char *name)
{
	struct zp_arena_params p = { .name = name, .slot_count = 3, .slot_size = 3 << 20, .job_count = 2,
				     .max_parts = 2, .proc_count = 4, .backing = k, .hugetlbfs_dir = hdir };
	struct zp_arena *a;
	int r = zp_arena_create(&p, &a);
	if (r < 0) {
		fprintf(stderr, "%s: create: %s\n", zp_backing_name(k), zp_err_msg());
		t_fails++;
		return;
	}
	CHECK_EQ(zp_arena_hdr(a)->backing, k);
	CHECK_EQ(zp_arena_slot_size(a), 4u << 20);
	zp_slot_h last = { 2, 0 };
	memset(zp_arena_slot_data(a, last), 0x5a, zp_arena_slot_size(a));
	char kind[8];
	snprintf(kind, sizeof kind, "%d", (int)k);
	char *args[] = { worker, "verify", (char *)name, kind, "90", NULL };
	CHECK_EQ(t_wait(t_spawn(args, NULL)), 0);
	zp_arena_close(a);
	CHECK_EQ(zp_arena_destroy(name, hdir), 0);
	struct zp_arena *b;
	CHECK_EQ(zp_arena_attach(name, ZP_ARENA_RDONLY, NULL, hdir, &b), -ENOENT);
	ran++;
	fprintf(stderr, "%s: ok\n", zp_backing_name(k));
}

/* Plain /dev/shm is pre-faulted at creation, on several threads in 64 MiB steps: every page of a
 * ~200 MiB arena (4 steps, the last short) is resident when create returns. */
static void populated_case(const char *name)
{
	zp_par_set_threads(3);
	struct zp_arena_params p = { .name = name, .slot_count = 3, .slot_size = 63 << 20, .job_count = 2,
				     .max_parts = 2, .proc_count = 4, .backing = ZP_BACKING_SHM };
	struct zp_arena *a;
	if (zp_arena_create(&p, &a) < 0) {
		fprintf(stderr, "shm populated: create: %s\n", zp_err_msg());
		t_fails++;
		zp_par_set_threads(0);
		return;
	}
	uint64_t bytes = zp_arena_hdr(a)->total_size, pages = bytes / 4096, in = 0;
	CHECK(bytes > 3 * (64ull << 20) && bytes % (64ull << 20) != 0);
	unsigned char *v = malloc(pages);
	REQUIRE(v);
	CHECK_EQ(mincore((void *)zp_arena_hdr(a), bytes, v), 0);
	for (uint64_t i = 0; i < pages; i++)
		in += v[i] & 1;
	CHECK_EQ(in, pages);
	free(v);
	zp_arena_close(a);
	CHECK_EQ(zp_arena_destroy(name, NULL), 0);
	zp_par_set_threads(0);
	fprintf(stderr, "shm: %llu of %llu pages resident after create\n", (unsigned long long)in,
		(unsigned long long)pages);
}

static int read_file(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t r = fread(buf, 1, n - 1, f);
	buf[r] = 0;
	fclose(f);
	return 0;
}

static int write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	int r = fputs(s, f) < 0 ? -1 : 0;
	return fclose(f) || r ? -1 : 0;
}

static void hugetlb_cases(const char *name)
{
	char dir[] = "/tmp/zkpipe-htlb-XXXXXX";
	long old_nr = -1;
	REQUIRE(mkdtemp(dir));
	/* 3 slots of 4 MiB + 2 MiB metadata = 7 pages per arena. */
	int r = zp_hugetlbfs_prepare(dir, 8, &old_nr);
	if (r < 0) {
		fprintf(stderr, "hugetlbfs: cannot prepare (%s); skipping hugepage kinds\n", zp_err_msg());
		goto out;
	}
	setenv("ZKPIPE_HUGETLBFS", dir, 1); /* for the exec'd verifier */
	zp_knobs_reload();
	run_kind(ZP_BACKING_HUGETLBFS, dir, name);
	run_kind(ZP_BACKING_MEMFD, dir, name);

	/* AUTO with room: hugetlbfs. */
	struct zp_arena_params p = { .name = name, .slot_count = 3, .slot_size = 4 << 20, .job_count = 1,
				     .max_parts = 1, .proc_count = 1, .hugetlbfs_dir = dir };
	struct zp_arena *a = NULL;
	CHECK_EQ(zp_arena_create(&p, &a), 0);
	if (a) {
		CHECK_EQ(zp_arena_hdr(a)->backing, ZP_BACKING_HUGETLBFS);
		zp_arena_close(a);
		zp_arena_destroy(name, dir);
	}
	/* A pool too short: refused at creation, nothing left behind. */
	p.slot_count = 64;
	p.backing = ZP_BACKING_HUGETLBFS;
	CHECK_EQ(zp_arena_create(&p, &a), -ENOMEM);
	CHECK(strstr(zp_err_msg(), "pages") != NULL);
	p.backing = ZP_BACKING_MEMFD;
	CHECK_EQ(zp_arena_create(&p, &a), -ENOMEM);
	CHECK_EQ(zp_arena_attach(name, ZP_ARENA_RDONLY, NULL, dir, &a), -ENOENT);
	/* AUTO with a short pool falls back to /dev/shm. */
	p.backing = ZP_BACKING_AUTO;
	a = NULL;
	CHECK_EQ(zp_arena_create(&p, &a), 0);
	if (a) {
		enum zp_backing b = zp_arena_hdr(a)->backing;
		CHECK(b == ZP_BACKING_THP || b == ZP_BACKING_SHM);
		zp_arena_close(a);
		zp_arena_destroy(name, dir);
	}
	unsetenv("ZKPIPE_HUGETLBFS");
	zp_knobs_reload();
out:
	umount(dir);
	rmdir(dir);
	if (old_nr >= 0)
		CHECK_EQ(zp_hugetlbfs_set_nr(old_nr), 0);
}

int main(int argc, char **argv)
{
	REQUIRE(argc == 2);
	worker = argv[1];
	char name[64];
	t_name(name, sizeof name, "backing");
	if (geteuid() == 0)
		hugetlb_cases(name);
	else
		fprintf(stderr, "not root: hugepage kinds not exercised\n");

	const char *knob = "/sys/kernel/mm/transparent_hugepage/shmem_enabled";
	char old[128] = "";
	bool thp_set = false;
	if (zp_backing_probe(ZP_BACKING_THP, NULL, 1 << 21) < 0 && geteuid() == 0 &&
	    read_file(knob, old, sizeof old) == 0 && write_file(knob, "advise") == 0)
		thp_set = true;
	if (zp_backing_probe(ZP_BACKING_THP, NULL, 1 << 21) == 0)
		run_kind(ZP_BACKING_THP, NULL, name);
	else
		fprintf(stderr, "shm-thp: not available here (%s)\n", zp_err_msg());
	if (thp_set) {
		char *o = strchr(old, '['), *e = o ? strchr(o, ']') : NULL;
		if (o && e) {
			*e = 0;
			CHECK_EQ(write_file(knob, o + 1), 0);
		}
	}
	run_kind(ZP_BACKING_SHM, NULL, name);
	populated_case(name);
	if (!ran)
		return 77;
	return t_fails ? 1 : 0;
}
