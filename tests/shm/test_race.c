/*
 * test_race — many processes claim, fill, hand off and release slots for a
 * few seconds. Fails on: a second holder of a slot, a payload that is not the
 * one its partition wrote, a partition proved twice or never, counters that do
 * not balance, a slot not FREE at the end, or no claimant ever having waited.
 */
#include "tshm.h"

#include <fcntl.h>
#include <sys/mman.h>

#define SYNTHS 4
#define GPUS 2
#define SLOTS 3
#define PARTS 8
#define MAX_JOBS 100000
#define RUN_MS 3000

static void free_finished(struct zp_arena *a, uint64_t *done_parts)
{
	const struct zp_arena_hdr *h = zp_arena_hdr(a);
	for (uint32_t j = 0; j < h->job_count; j++) {
		const struct zp_arena_job *jr = zp_arena_job_rec(a, j);
		uint64_t w = atomic_load(&jr->word);
		zp_job_h jh = { j, zp_word_gen(w) };
		if (zp_word_state(w) == ZP_JOB_DONE && zp_arena_job_free(a, jh) == 0)
			*done_parts += jr->nparts;
		CHECK(zp_word_state(w) != ZP_JOB_FAILED);
	}
}

int main(int argc, char **argv)
{
	REQUIRE(argc == 2);
	char name[64], tally_path[128];
	t_name(name, sizeof name, "race");
	snprintf(tally_path, sizeof tally_path, "/dev/shm/zkpipe-test-tally-%d", (int)getpid());
	struct zp_arena_params p = { .name = name, .slot_count = SLOTS, .slot_size = 8192,
				     .job_count = 6, .max_parts = PARTS, .proc_count = 16,
				     .backing = ZP_BACKING_SHM };
	struct zp_arena *a;
	REQUIRE(zp_arena_create(&p, &a) == 0);
	size_t tsz = (size_t)(MAX_JOBS + 1) * PARTS * sizeof(uint32_t);
	int tfd = open(tally_path, O_RDWR | O_CREAT | O_EXCL, 0600);
	REQUIRE(tfd >= 0 && ftruncate(tfd, (off_t)tsz) == 0);
	uint32_t *tally = mmap(NULL, tsz, PROT_READ | PROT_WRITE, MAP_SHARED, tfd, 0);
	REQUIRE(tally != MAP_FAILED);

	pid_t kids[SYNTHS + GPUS];
	for (int i = 0; i < SYNTHS + GPUS; i++) {
		char *args[] = { argv[1], i < SYNTHS ? "synth" : "gpu", name, tally_path, NULL };
		kids[i] = t_spawn(args, NULL);
	}
	uint64_t t0 = t_ms(), submitted = 0, done = 0, last_id = 0;
	while (t_ms() - t0 < RUN_MS && last_id < MAX_JOBS) {
		zp_job_h jh;
		struct zp_job_spec js = { .key_id = "k", .nparts = 1 + (uint32_t)(last_id % PARTS),
					  .priority = (uint32_t)(last_id % 3) };
		int r = zp_arena_submit_job(a, &js, &jh, &last_id);
		if (r == 0)
			submitted += js.nparts;
		else if (r == ZP_EFULL)
			usleep(300);
		else
			CHECK_EQ(r, 0);
		free_finished(a, &done);
	}
	/* drain: a bound on a stall (60 s without one more partition done), not on the total time,
	 * which grows on a loaded machine (before: 20 s for whatever 3 s of submitting queued) */
	for (uint64_t seen = done, since = t_ms(); done < submitted && t_ms() - since < 60000;) {
		usleep(1000);
		free_finished(a, &done);
		if (done != seen)
			seen = done, since = t_ms();
	}
	CHECK_EQ(done, submitted);
	for (int i = 0; i < SYNTHS + GPUS; i++)
		kill(kids[i], SIGTERM);
	for (int i = 0; i < SYNTHS + GPUS; i++)
		CHECK_EQ(t_wait(kids[i]), 0);

	for (uint64_t id = 1; id <= last_id; id++) {
		uint32_t n = 1 + (uint32_t)((id - 1) % PARTS);
		for (uint32_t q = 0; q < PARTS; q++)
			if (tally[id * PARTS + q] != (q < n)) {
				fprintf(stderr, "job %llu part %u proved %u times\n",
					(unsigned long long)id, q, tally[id * PARTS + q]);
				t_fails++;
			}
	}
	CHECK(submitted > 100);
	CHECK_EQ(CNT(a, parts_proved), submitted);
	CHECK_EQ(CNT(a, parts_synthesized), submitted);
	CHECK_EQ(CNT(a, slots_filled), submitted);
	CHECK_EQ(CNT(a, slots_released), submitted);
	CHECK_EQ(CNT(a, synth_started), CNT(a, synth_done));
	CHECK_EQ(CNT(a, abc_released), CNT(a, proof_finalized));
	CHECK_EQ(CNT(a, bytes_written), submitted * 4096);
	CHECK_EQ(CNT(a, jobs_submitted), CNT(a, jobs_done));
	CHECK_EQ(CNT(a, slots_reclaimed), 0);
	CHECK_EQ(CNT(a, parts_retried), 0);
	CHECK(CNT(a, free_slot_waits) > 0);
	CHECK(CNT(a, free_slot_wait_ns) > 0);
	for (uint32_t i = 0; i < SLOTS; i++)
		CHECK_EQ(zp_word_state(atomic_load(&zp_arena_slot_rec(a, i)->word)), ZP_SLOT_FREE);
	for (uint32_t i = 0; i < 16; i++)
		CHECK_EQ(zp_word_state(atomic_load(&zp_arena_proc_rec(a, i)->word)), ZP_PROC_FREE);
	fprintf(stderr, "%llu partitions in %llu jobs, %llu waits for a free slot\n",
		(unsigned long long)submitted, (unsigned long long)last_id,
		(unsigned long long)CNT(a, free_slot_waits));
	unlink(tally_path);
	zp_arena_destroy(name, NULL);
	zp_arena_close(a);
	return t_fails ? 1 : 0;
}
