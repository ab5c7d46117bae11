/*
 * test_wait — a claimant that finds no FREE slot sleeps (no spinning: little
 * CPU over a 300 ms wait), times out, counts the wait and its duration; a
 * release in another process wakes it (futex, not the rescan slice: the slice
 * is off for that step, so only the wake can end the wait). No bound here
 * depends on the machine's speed: a loaded machine only lengthens waits, and
 * the checks are lower bounds, CPU time (not wall time) and states.
 * Also: gpud's order of service — priority, then oldest job, then lowest
 * partition — whatever the order the slots were filled in.
 */
#include "tshm.h"
#include "arena_impl.h"

#include <sys/resource.h>

static uint64_t cpu_us(void)
{
	struct rusage r;
	getrusage(RUSAGE_SELF, &r);
	return (uint64_t)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1000000 + r.ru_utime.tv_usec +
	       r.ru_stime.tv_usec;
}

static uint64_t mono_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000 + (uint64_t)t.tv_nsec / 1000;
}

/* 'S': pid is asleep (here: in the futex wait, once it counted itself a waiter). */
static char proc_state(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return '?';
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *e = strrchr(buf, ')');
	return e && e[1] == ' ' ? e[2] : '?';
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char m[] = "test_wait: the claimant was not woken by the release in 60 s\n";
	if (write(2, m, sizeof m - 1) < 0) {}
	_exit(1);
}

static void fill_ready(struct zp_arena *a, zp_proc_h me, zp_job_h j, uint32_t want_part)
{
	zp_part_h p;
	zp_slot_h s;
	REQUIRE(zp_arena_claim_part(a, me, &p) == 0);
	CHECK(p.job.idx == j.idx && p.part == want_part);
	REQUIRE(zp_arena_claim_slot(a, me, p, 0, &s) == 0);
	REQUIRE(zp_arena_mark_ready(a, me, s, 0) == 0);
}

int main(void)
{
	char name[64];
	t_name(name, sizeof name, "wait");
	struct zp_arena_params p = { .name = name, .slot_count = 1, .slot_size = 4096, .job_count = 4,
				     .max_parts = 4, .proc_count = 4, .backing = ZP_BACKING_SHM };
	struct zp_arena *a;
	REQUIRE(zp_arena_create(&p, &a) == 0);
	zp_proc_h me;
	REQUIRE(zp_arena_proc_register(a, 0, ZP_ROLE_TEST, "t", &me) == 0);
	zp_job_h jh;
	struct zp_job_spec js = { .key_id = "k", .nparts = 2 };
	REQUIRE(zp_arena_submit_job(a, &js, &jh, NULL) == 0);
	zp_part_h p0, p1;
	zp_slot_h s0, s1;
	REQUIRE(zp_arena_claim_part(a, me, &p0) == 0);
	REQUIRE(zp_arena_claim_slot(a, me, p0, 0, &s0) == 0);
	REQUIRE(zp_arena_claim_part(a, me, &p1) == 0);

	/* 1. No slot: time out after ~300 ms, sleeping. */
	uint64_t t0 = mono_us(), c0 = cpu_us();
	CHECK_EQ(zp_arena_claim_slot(a, me, p1, 300, &s1), -ETIMEDOUT);
	uint64_t dt = mono_us() - t0, dc = cpu_us() - c0;
	/* Lower bounds only: a loaded machine makes the wait end later, never earlier. CPU time
	 * is the process's own (a spinning claimant burns the whole 300 ms); waiting for a core
	 * on a busy machine does not add to it. */
	CHECK(dt >= 295000);
	CHECK(dc < 30000);
	CHECK_EQ(CNT(a, free_slot_waits), 1);
	CHECK(CNT(a, free_slot_wait_ns) >= 295000000ull);
	CHECK_EQ(zp_arena_claim_slot(a, me, p1, 0, &s1), -ETIMEDOUT);

	/* 2. Woken by a release in another process. The rescan slice is off and the claim has no
	 * timeout, so the wait ends only through the release's futex wake (before: "woken within
	 * 40 ms", which a loaded machine misses by just not running the claimant soon enough).
	 * The releaser waits until the claimant is asleep as a waiter, so the wake is needed. */
	REQUIRE(zp_arena_mark_ready(a, me, s0, 0) == 0);
	pid_t parent = getpid();
	pid_t c = fork();
	if (c == 0) {
		zp_proc_h g;
		zp_slot_h s;
		zp_part_h q;
		if (zp_arena_proc_register(a, 0, ZP_ROLE_GPUD, "g", &g) ||
		    zp_arena_take_ready(a, g, 1000, &s, &q))
			_exit(1);
		const struct zp_arena_hdr *h = zp_arena_hdr(a);
		int i = 0;
		for (; i < 120000; i++) { /* up to 120 s of 1 ms polls: a bound, not a speed */
			if (zp_arena_load32(&h->free_waiters) == 1 && proc_state(parent) == 'S')
				break;
			usleep(1000);
		}
		if (i == 120000)
			_exit(2);
		_exit(zp_arena_release_slot(a, g, s) == 0 ? 0 : 1);
	}
	zp_wait_slice_ms = -1;
	signal(SIGALRM, on_alarm);
	alarm(60);
	REQUIRE(zp_arena_claim_slot(a, me, p1, -1, &s1) == 0);
	alarm(0);
	zp_wait_slice_ms = 100;
	CHECK_EQ(t_wait(c), 0);
	CHECK_EQ(CNT(a, free_slot_waits), 2);
	REQUIRE(zp_arena_abandon_slot(a, me, s1) == 0);
	CHECK_EQ(zp_arena_part_fail(a, me, p1, 1, "test"), ZP_PART_PENDING);
	CHECK_EQ(zp_arena_reclaim_dead(a), 1); /* the child */

	/* 3. Order of service. Job A (p1 pending again), job B, job C with priority. */
	zp_arena_close(a);
	zp_arena_destroy(name, NULL);
	p.slot_count = 4;
	p.flags = ZP_ARENA_REPLACE;
	REQUIRE(zp_arena_create(&p, &a) == 0);
	REQUIRE(zp_arena_proc_register(a, 0, ZP_ROLE_TEST, "t", &me) == 0);
	zp_job_h A, B, C;
	js.nparts = 2;
	REQUIRE(zp_arena_submit_job(a, &js, &A, NULL) == 0);
	js.nparts = 1;
	REQUIRE(zp_arena_submit_job(a, &js, &B, NULL) == 0);
	fill_ready(a, me, A, 0);
	fill_ready(a, me, A, 1);
	fill_ready(a, me, B, 0);
	js.priority = 9;
	REQUIRE(zp_arena_submit_job(a, &js, &C, NULL) == 0);
	fill_ready(a, me, C, 0); /* claimed first: highest priority */
	zp_job_h want[4] = { C, A, A, B };
	uint32_t wpart[4] = { 0, 0, 1, 0 };
	for (int i = 0; i < 4; i++) {
		zp_slot_h s;
		zp_part_h q;
		REQUIRE(zp_arena_take_ready(a, me, 0, &s, &q) == 0);
		CHECK(q.job.idx == want[i].idx && q.job.gen == want[i].gen && q.part == wpart[i]);
		CHECK_EQ(zp_arena_release_slot(a, me, s), 0);
		CHECK_EQ(zp_arena_part_done(a, me, q), 0);
	}
	CHECK_EQ(zp_arena_job_state(a, A), ZP_JOB_DONE);
	CHECK_EQ(zp_arena_job_state(a, C), ZP_JOB_DONE);
	zp_arena_destroy(name, NULL);
	zp_arena_close(a);
	return t_fails ? 1 : 0;
}
