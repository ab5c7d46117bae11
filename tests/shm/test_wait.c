/*
 * test_wait — a claimant that finds no FREE slot sleeps (no spinning: little
 * CPU over a 300 ms wait), times out, counts the wait and its duration; a
 * release in another process wakes it promptly (futex, not the rescan slice).
 * Also: gpud's order of service — priority, then oldest job, then lowest
 * partition — whatever the order the slots were filled in.
 */
#include "tshm.h"

#include <sys/mman.h>
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
	CHECK(dt >= 295000 && dt < 2000000);
	CHECK(dc < 30000);
	CHECK_EQ(CNT(a, free_slot_waits), 1);
	CHECK(CNT(a, free_slot_wait_ns) >= 295000000ull);
	CHECK_EQ(zp_arena_claim_slot(a, me, p1, 0, &s1), -ETIMEDOUT);

	/* 2. Woken by a release in another process. */
	REQUIRE(zp_arena_mark_ready(a, me, s0, 0) == 0);
	uint64_t *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	REQUIRE(shared != MAP_FAILED);
	pid_t c = fork();
	if (c == 0) {
		zp_proc_h g;
		zp_slot_h s;
		zp_part_h q;
		if (zp_arena_proc_register(a, 0, ZP_ROLE_GPUD, "g", &g) ||
		    zp_arena_take_ready(a, g, 1000, &s, &q))
			_exit(1);
		usleep(150000);
		shared[0] = mono_us();
		_exit(zp_arena_release_slot(a, g, s) == 0 ? 0 : 1);
	}
	REQUIRE(zp_arena_claim_slot(a, me, p1, 5000, &s1) == 0);
	uint64_t lat = mono_us() - shared[0];
	CHECK_EQ(t_wait(c), 0);
	fprintf(stderr, "woken %llu us after the release\n", (unsigned long long)lat);
	CHECK(lat < 40000); /* the rescan slice is 100 ms: only a wake is this fast */
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
