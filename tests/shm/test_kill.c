/*
 * test_kill — a holder SIGKILLed mid-FILLING and mid-COPYING, then reclaim
 * (twice, and from two processes at once): the FILLING slot is FREE and its
 * partition PENDING with attempts+1; the COPYING slot is READY again with its
 * data intact and its partition READY (no re-synthesis); a partition whose
 * filler dies max_attempts times is FAILED and fails its job; a pid whose
 * start time changed counts as dead. Nothing lost, nothing proved twice.
 */
#include "tshm.h"

static char *worker;
static char name[64];

static pid_t hold(const char *mode, unsigned v[4])
{
	int fd = -1;
	char *args[] = { worker, (char *)mode, name, NULL };
	pid_t pid = t_spawn(args, &fd);
	char line[128];
	t_readline(fd, line, sizeof line);
	close(fd);
	REQUIRE(sscanf(line, "ok %u %u %u %u", &v[0], &v[1], &v[2], &v[3]) == 4);
	return pid;
}

static void kill_and_reclaim(struct zp_arena *a, pid_t pid, uint32_t slot, unsigned want_state)
{
	const struct zp_arena_slot *sl = zp_arena_slot_rec(a, slot);
	uint32_t owner = zp_tag_idx(zp_word_tag(atomic_load(&sl->word)));
	CHECK_EQ(zp_arena_proc_alive(a, owner), 1);
	kill(pid, SIGKILL);
	CHECK_EQ(t_wait(pid), 128 + SIGKILL);
	CHECK_EQ(zp_arena_proc_alive(a, owner), 0);
	/* Two reclaimers at once, then this process, then again: idempotent. */
	pid_t r[2];
	int fds[2];
	for (int i = 0; i < 2; i++) {
		char *args[] = { worker, "reclaim", name, NULL };
		r[i] = t_spawn(args, &fds[i]);
	}
	int n = zp_arena_reclaim_dead(a);
	CHECK(n >= 0);
	for (int i = 0; i < 2; i++) {
		char line[64];
		t_readline(fds[i], line, sizeof line);
		CHECK(strncmp(line, "ok", 2) == 0);
		close(fds[i]);
		CHECK_EQ(t_wait(r[i]), 0);
	}
	CHECK_EQ(zp_arena_reclaim_dead(a), 0);
	CHECK_EQ(zp_word_state(atomic_load(&sl->word)), want_state);
	CHECK_EQ(zp_word_state(atomic_load(&zp_arena_proc_rec(a, owner)->word)), ZP_PROC_FREE);
}

int main(int argc, char **argv)
{
	REQUIRE(argc == 2);
	worker = argv[1];
	t_name(name, sizeof name, "kill");
	struct zp_arena_params p = { .name = name, .slot_count = 2, .slot_size = 1 << 16,
				     .job_count = 4, .max_parts = 4, .proc_count = 8,
				     .max_attempts = 2, .backing = ZP_BACKING_SHM };
	struct zp_arena *a;
	REQUIRE(zp_arena_create(&p, &a) == 0);
	zp_proc_h me;
	REQUIRE(zp_arena_proc_register(a, 0, ZP_ROLE_TEST, "test", &me) == 0);
	zp_job_h jh;
	uint64_t id;
	struct zp_job_spec js = { .key_id = "key", .nparts = 2, .inputs = "in", .output = "out" };
	REQUIRE(zp_arena_submit_job(a, &js, &jh, &id) == 0);
	const struct zp_arena_part *p0 = zp_arena_part_rec(a, jh.idx, 0);
	const struct zp_arena_part *p1 = zp_arena_part_rec(a, jh.idx, 1);

	/* 1. Killed mid-FILLING: slot → FREE, partition 0 → PENDING, attempts 1. */
	unsigned v[4];
	pid_t pid = hold("hold-fill", v);
	CHECK_EQ(v[3], 0);
	CHECK_EQ(zp_word_state(atomic_load(&p0->word)), ZP_PART_SYNTH);
	kill_and_reclaim(a, pid, v[0], ZP_SLOT_FREE);
	CHECK_EQ(zp_word_state(atomic_load(&p0->word)), ZP_PART_PENDING);
	CHECK_EQ(zp_part_attempts(atomic_load(&p0->word)), 1);
	CHECK_EQ(CNT(a, slots_reclaimed), 1);
	CHECK_EQ(CNT(a, parts_retried), 1);

	/* 2. Synthesize partition 0 here, then a gpud dies mid-COPYING. */
	zp_part_h ph;
	zp_slot_h sh;
	REQUIRE(zp_arena_claim_part(a, me, &ph) == 0);
	CHECK_EQ(ph.part, 0);
	REQUIRE(zp_arena_claim_slot(a, me, ph, 0, &sh) == 0);
	memset(zp_arena_slot_data(a, sh), 0xab, 4096);
	REQUIRE(zp_arena_mark_ready(a, me, sh, 4096) == 0);
	pid = hold("hold-copy", v);
	CHECK_EQ(v[0], sh.idx);
	CHECK_EQ(zp_word_state(atomic_load(&p0->word)), ZP_PART_PROVING);
	kill_and_reclaim(a, pid, sh.idx, ZP_SLOT_READY);
	CHECK_EQ(zp_word_gen(atomic_load(&zp_arena_slot_rec(a, sh.idx)->word)), sh.gen);
	CHECK_EQ(zp_word_state(atomic_load(&p0->word)), ZP_PART_READY);
	CHECK_EQ(zp_part_attempts(atomic_load(&p0->word)), 1); /* no new attempt: data survived */
	zp_slot_h s2;
	zp_part_h q;
	REQUIRE(zp_arena_take_ready(a, me, 0, &s2, &q) == 0);
	CHECK(s2.idx == sh.idx && s2.gen == sh.gen && q.part == 0);
	CHECK_EQ(((uint8_t *)zp_arena_slot_data(a, s2))[4095], 0xab);
	CHECK_EQ(zp_arena_release_slot(a, me, s2), 0);
	CHECK_EQ(zp_arena_release_slot(a, me, s2), ZP_ESTALE); /* twice is a stale handle */
	CHECK_EQ(zp_arena_part_done(a, me, q), 0);

	/* 3. Partition 1's filler dies max_attempts (2) times → FAILED, job FAILED. */
	for (int k = 0; k < 2; k++) {
		pid = hold("hold-fill", v);
		CHECK_EQ(v[3], 1);
		kill_and_reclaim(a, pid, v[0], ZP_SLOT_FREE);
	}
	CHECK_EQ(zp_word_state(atomic_load(&p1->word)), ZP_PART_FAILED);
	CHECK_EQ(zp_arena_job_state(a, jh), ZP_JOB_FAILED);
	CHECK(strstr(zp_arena_job_rec(a, jh.idx)->error, "attempts") != NULL);
	CHECK_EQ(zp_arena_claim_part(a, me, &ph), -EAGAIN);

	/* Balance: one synthesis, one proof, one failure, no slot held. */
	CHECK_EQ(CNT(a, parts_synthesized), 1);
	CHECK_EQ(CNT(a, parts_proved), 1);
	CHECK_EQ(CNT(a, parts_failed), 1);
	CHECK_EQ(CNT(a, slots_filled), 1);
	CHECK_EQ(CNT(a, slots_released), 1);
	CHECK_EQ(CNT(a, jobs_done), 1);
	for (uint32_t i = 0; i < 2; i++)
		CHECK_EQ(zp_word_state(atomic_load(&zp_arena_slot_rec(a, i)->word)), ZP_SLOT_FREE);
	CHECK_EQ(zp_arena_job_free(a, jh), 0);

	/* 4. pid reuse: same pid, another start time → dead. */
	struct zp_arena_proc *mine = (struct zp_arena_proc *)zp_arena_proc_rec(a, me.idx);
	CHECK_EQ(zp_arena_proc_alive(a, me.idx), 1);
	mine->start_time += 1;
	CHECK_EQ(zp_arena_proc_alive(a, me.idx), 0);
	CHECK_EQ(zp_arena_reclaim_dead(a), 1);
	CHECK_EQ(zp_arena_proc_alive(a, me.idx), ZP_ESTALE);

	zp_arena_destroy(name, NULL);
	zp_arena_close(a);
	return t_fails ? 1 : 0;
}
