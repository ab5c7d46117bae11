/*
 * test_jobids — the job calls the supervisor's records rely on (issue 18 items 5, 6):
 * the next id is raised, never lowered (ids unique across arena re-creation); a job submitted
 * with its old id keeps it, moves the next id past it, and a second one with that id is
 * refused; partitions flagged done start DONE and count; a DONE job becomes FAILED with a
 * reason (proofs.json not written), an ACTIVE one does not.
 */
#include "tshm.h"

/* Drive the next partition through claim → ready → take → done, as one process. */
static void prove_one(struct zp_arena *a, zp_proc_h me)
{
	zp_part_h p, q;
	zp_slot_h s, t;
	REQUIRE(zp_arena_claim_part(a, me, &p) == 0);
	REQUIRE(zp_arena_claim_slot(a, me, p, 0, &s) == 0);
	REQUIRE(zp_arena_mark_ready(a, me, s, 64) == 0);
	REQUIRE(zp_arena_take_ready(a, me, 0, &t, &q) == 0);
	REQUIRE(zp_arena_release_slot(a, me, t) == 0);
	REQUIRE(zp_arena_part_done(a, me, q) == 0);
}

int main(void)
{
	char name[64];
	t_name(name, sizeof name, "jobids");
	struct zp_arena_params prm = { .name = name, .slot_count = 2, .slot_size = 4096, .job_count = 4,
				       .max_parts = 3, .proc_count = 4, .backing = ZP_BACKING_SHM };
	struct zp_arena *a;
	REQUIRE(zp_arena_create(&prm, &a) == 0);
	zp_proc_h me;
	REQUIRE(zp_arena_proc_register(a, 0, ZP_ROLE_SYNTHD, "jobids", &me) == 0);
	zp_job_h h;
	uint64_t id;
	struct zp_job_spec js = { .key_id = "k", .nparts = 1, .output = "/o" };

	/* a fresh arena starts at 1; raised to 50 it continues there; a lower floor changes nothing */
	REQUIRE(zp_arena_submit_job(a, &js, &h, &id) == 0);
	CHECK_EQ(id, 1);
	zp_arena_job_ids_from(a, 50);
	zp_arena_job_ids_from(a, 7);
	REQUIRE(zp_arena_submit_job(a, &js, &h, &id) == 0);
	CHECK_EQ(id, 50);

	/* a migrated job keeps its id; the next one is past it; the same id twice is refused */
	struct zp_job_spec mig = js;
	uint8_t done[3] = { 1, 0, 1 };
	mig.id = 90, mig.nparts = 3, mig.done = done;
	zp_job_h hm;
	REQUIRE(zp_arena_submit_job(a, &mig, &hm, &id) == 0);
	CHECK_EQ(id, 90);
	CHECK_EQ(zp_arena_job_rec(a, hm.idx)->parts_done, 2);
	CHECK_EQ(zp_word_state(zp_arena_part_rec(a, hm.idx, 0)->word), ZP_PART_DONE);
	CHECK_EQ(zp_word_state(zp_arena_part_rec(a, hm.idx, 1)->word), ZP_PART_PENDING);
	zp_job_h hx;
	CHECK_EQ(zp_arena_submit_job(a, &mig, &hx, &id), -EEXIST);
	uint8_t all[3] = { 1, 1, 1 };
	mig.id = 91, mig.done = all;
	CHECK_EQ(zp_arena_submit_job(a, &mig, &hx, &id), ZP_ERANGE); /* nothing left to prove */
	REQUIRE(zp_arena_submit_job(a, &js, &hx, &id) == 0);
	CHECK_EQ(id, 91);

	/* an ACTIVE job cannot be failed this way; once DONE it can, once */
	CHECK_EQ(zp_arena_job_fail_done(a, hm, "proofs.json not written"), ZP_ESTALE);
	zp_job_h first;
	REQUIRE(zp_arena_find_job(a, 1, &first) == 0);
	/* prove the first job's partition and the migrated job's remaining one (claim order:
	 * oldest id first among equal priorities) */
	for (int i = 0; i < 4 && zp_arena_job_state(a, hm) == ZP_JOB_ACTIVE; i++)
		prove_one(a, me);
	CHECK_EQ(zp_arena_job_state(a, hm), ZP_JOB_DONE);
	CHECK_EQ(zp_arena_job_rec(a, hm.idx)->parts_done, 3);
	CHECK_EQ(zp_arena_job_fail_done(a, hm, "proofs.json not written: No space left on device"), 0);
	CHECK_EQ(zp_arena_job_state(a, hm), ZP_JOB_FAILED);
	CHECK(!strcmp(zp_arena_job_rec(a, hm.idx)->error, "proofs.json not written: No space left on device"));
	CHECK_EQ(zp_arena_job_fail_done(a, hm, "again"), ZP_ESTALE);
	CHECK_EQ(zp_arena_job_free(a, hm), 0);

	zp_arena_destroy(name, NULL);
	zp_arena_close(a);
	if (t_fails)
		return 1;
	printf("ok\n");
	return 0;
}
