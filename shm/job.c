/*
 * job.c — the job table and per-partition state words.
 *
 * A job record is written by one submitter between FREE → WRITING and the
 * release store of ACTIVE; after that only the atomic words change.
 */
#include "arena_impl.h"
#include "zp_err.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static bool copy_str(char *dst, size_t n, const char *src)
{
	size_t l = src ? strlen(src) : 0;
	if (l >= n)
		return false;
	memcpy(dst, src ? src : "", l);
	memset(dst + l, 0, n - l);
	return true;
}

/* Reset a record under WRITING. Partition seqs continue from their old
 * value so a stale CAS aimed at a previous job in this record cannot match.
 * Words are left DONE here (not claimable); submit makes the first nparts
 * PENDING only after the job is ACTIVE, so a claimant never owns a partition
 * of a record that is still being written. */
static void job_reset(struct zp_arena *a, uint32_t j)
{
	for (uint32_t p = 0; p < H(a)->max_parts; p++) {
		struct zp_arena_part *pr = part_at(a, j, p);
		uint64_t w = atomic_load_explicit(&pr->word, memory_order_relaxed);
		atomic_store_explicit(&pr->word, part_word(ZP_PART_DONE, ZP_TAG_NONE, 0, zp_word_gen(w) + 1),
				      memory_order_relaxed);
		atomic_store_explicit(&pr->slot, 0, memory_order_relaxed);
		for (int s = 0; s < ZP_TS_COUNT; s++)
			atomic_store_explicit(&pr->ts[s], 0, memory_order_relaxed);
		pr->bytes = 0;
		pr->last_owner_pid = 0;
	}
}

static void job_open(struct zp_arena *a, uint32_t j, uint32_t nparts, const uint8_t *done)
{
	for (uint32_t p = 0; p < nparts; p++) {
		if (done && done[p])
			continue; /* migrated: its proof is on disk; job_reset left the word DONE */
		struct zp_arena_part *pr = part_at(a, j, p);
		uint64_t w = atomic_load_explicit(&pr->word, memory_order_relaxed);
		atomic_store_explicit(&pr->word, part_word(ZP_PART_PENDING, ZP_TAG_NONE, 0, zp_word_gen(w) + 1),
				      memory_order_release);
	}
}

int zp_arena_submit_job(struct zp_arena *a, const struct zp_job_spec *s, zp_job_h *h, uint64_t *id)
{
	if (a->flags & ZP_ARENA_RDONLY)
		return -EROFS;
	if (!s || !s->nparts || s->nparts > H(a)->max_parts || !s->key_id ||
	    strlen(s->key_id) >= ZP_KEY_ID_MAX || (s->inputs && strlen(s->inputs) >= ZP_PATH_MAX) ||
	    (s->output && strlen(s->output) >= ZP_PATH_MAX))
		return zp_err_set(ZP_ERANGE, "job: %u partitions (max %u) or a string too long",
				  s ? s->nparts : 0, H(a)->max_parts);
	zp_job_h dup;
	if (s->id && zp_arena_find_job(a, s->id, &dup) == 0)
		return zp_err_set(-EEXIST, "job id %llu is already in the arena", (unsigned long long)s->id);
	uint32_t ndone = 0;
	for (uint32_t p = 0; s->done && p < s->nparts; p++)
		ndone += s->done[p] != 0;
	if (ndone >= s->nparts)
		return zp_err_set(ZP_ERANGE, "job: every partition already DONE");
	if (s->id)
		zp_arena_job_ids_from(a, s->id + 1);
	for (uint32_t j = 0; j < H(a)->job_count; j++) {
		struct zp_arena_job *jr = job_at(a, j);
		uint32_t g;
		if (!claim_free(&jr->word, ZP_JOB_FREE, gen_word(ZP_JOB_WRITING, 0), &g))
			continue;
		job_reset(a, j);
		jr->id = s->id ? s->id : atomic_fetch_add_explicit(&H(a)->job_seq, 1, memory_order_relaxed);
		jr->nparts = s->nparts;
		jr->priority = s->priority;
		jr->submit_ns = zp_now_ns();
		atomic_store_explicit(&jr->done_ns, 0, memory_order_relaxed);
		atomic_store_explicit(&jr->parts_done, ndone, memory_order_relaxed);
		atomic_store_explicit(&jr->parts_failed, 0, memory_order_relaxed);
		atomic_store_explicit(&jr->err_owner, 0, memory_order_relaxed);
		copy_str(jr->key_id, sizeof jr->key_id, s->key_id);
		copy_str(jr->inputs, sizeof jr->inputs, s->inputs);
		copy_str(jr->output, sizeof jr->output, s->output);
		jr->flags = s->flags;
		memset(jr->error, 0, sizeof jr->error);
		/* Publish: claimants that see ACTIVE (acquire) see every field above. */
		atomic_store_explicit(&jr->word, gen_word(ZP_JOB_ACTIVE, g), memory_order_release);
		job_open(a, j, s->nparts, s->done);
		CNT_ADD(a, jobs_submitted, 1);
		*h = (zp_job_h){ j, g };
		if (id)
			*id = jr->id;
		return 0;
	}
	return zp_err_set(ZP_EFULL, "job table full (%u records)", H(a)->job_count);
}

void zp_arena_job_ids_from(struct zp_arena *a, uint64_t first)
{
	uint64_t cur = atomic_load_explicit(&H(a)->job_seq, memory_order_relaxed);
	while (cur < first && !atomic_compare_exchange_weak(&H(a)->job_seq, &cur, first))
		;
}

int zp_arena_job_fail_done(struct zp_arena *a, zp_job_h h, const char *why)
{
	if (h.idx >= H(a)->job_count)
		return ZP_ERANGE;
	struct zp_arena_job *jr = job_at(a, h.idx);
	uint64_t w = gen_word(ZP_JOB_DONE, h.gen);
	uint32_t z = 0;
	if (atomic_load_explicit(&jr->word, memory_order_acquire) != w ||
	    !atomic_compare_exchange_strong(&jr->err_owner, &z, 1))
		return ZP_ESTALE;
	char t[ZP_ERRTXT_MAX];
	snprintf(t, sizeof t, "%s", why ? why : "failed"); /* cut to fit: copy_str refuses longer */
	copy_str(jr->error, sizeof jr->error, t);
	/* readers that see FAILED (acquire) see the error text */
	return cas(&jr->word, &w, gen_word(ZP_JOB_FAILED, h.gen)) ? 0 : ZP_ESTALE;
}

int zp_arena_find_job(const struct zp_arena *a, uint64_t id, zp_job_h *h)
{
	for (uint32_t j = 0; j < H(a)->job_count; j++) {
		struct zp_arena_job *jr = job_at(a, j);
		uint64_t w = atomic_load_explicit(&jr->word, memory_order_acquire);
		unsigned st = zp_word_state(w);
		if (st < ZP_JOB_ACTIVE || jr->id != id)
			continue;
		*h = (zp_job_h){ j, zp_word_gen(w) };
		return 0;
	}
	return -ENOENT;
}

int zp_arena_job_state(const struct zp_arena *a, zp_job_h h)
{
	if (h.idx >= H(a)->job_count)
		return ZP_ERANGE;
	uint64_t w = atomic_load_explicit(&job_at(a, h.idx)->word, memory_order_acquire);
	return zp_word_gen(w) == h.gen ? (int)zp_word_state(w) : ZP_ESTALE;
}

static bool in_flight(unsigned st)
{
	return st == ZP_PART_CLAIMED || st == ZP_PART_SYNTH || st == ZP_PART_PROVING;
}

int zp_arena_job_free(struct zp_arena *a, zp_job_h h)
{
	int st = zp_arena_job_state(a, h);
	if (st < 0)
		return st;
	if (st != ZP_JOB_DONE && st != ZP_JOB_FAILED)
		return -EBUSY;
	struct zp_arena_job *jr = job_at(a, h.idx);
	for (uint32_t p = 0; p < jr->nparts; p++)
		if (in_flight(zp_word_state(atomic_load(&part_at(a, h.idx, p)->word))))
			return -EBUSY; /* a FAILED job's other partitions still owned */
	uint64_t w = gen_word((unsigned)st, h.gen);
	return cas(&jr->word, &w, gen_word(ZP_JOB_FREE, h.gen)) ? 0 : ZP_ESTALE;
}

/* The first choice among PENDING partitions of ACTIVE jobs. */
static bool pick_part(struct zp_arena *a, uint32_t *job, uint32_t *part)
{
	bool found = false;
	uint32_t bprio = 0;
	uint64_t bid = 0;
	for (uint32_t j = 0; j < H(a)->job_count; j++) {
		struct zp_arena_job *jr = job_at(a, j);
		if (zp_word_state(atomic_load_explicit(&jr->word, memory_order_acquire)) != ZP_JOB_ACTIVE)
			continue;
		if (jr->flags & ZP_JOB_EXTERNAL)
			continue; /* filled by its submitter (zp_arena_claim_part_at) */
		if (found && (jr->priority < bprio || (jr->priority == bprio && jr->id > bid)))
			continue;
		for (uint32_t p = 0; p < jr->nparts; p++) {
			uint64_t w = atomic_load_explicit(&part_at(a, j, p)->word, memory_order_relaxed);
			if (zp_word_state(w) == ZP_PART_PENDING) {
				found = true;
				bprio = jr->priority, bid = jr->id, *job = j, *part = p;
				break;
			}
		}
	}
	return found;
}

/* Claim protocol (synthd): pick, then CAS PENDING → CLAIMED|me|seq+1; on a
 * lost race pick again. The job must still be ACTIVE after the CAS. */
int zp_arena_claim_part(struct zp_arena *a, zp_proc_h me, zp_part_h *out)
{
	uint32_t tag = proc_tag(me), j = 0, p = 0;
	while (pick_part(a, &j, &p)) {
		struct zp_arena_part *pr = part_at(a, j, p);
		uint64_t jw = atomic_load_explicit(&job_at(a, j)->word, memory_order_acquire);
		uint64_t w = atomic_load_explicit(&pr->word, memory_order_acquire);
		if (zp_word_state(w) != ZP_PART_PENDING || zp_word_state(jw) != ZP_JOB_ACTIVE)
			continue;
		uint64_t cw = part_word(ZP_PART_CLAIMED, tag, zp_part_attempts(w), zp_word_gen(w) + 1);
		if (!cas(&pr->word, &w, cw))
			continue;
		/* The record may have been refilled between the pick and the CAS:
		 * the word we won belongs to the job it holds now (PENDING words
		 * exist only in ACTIVE jobs), which cannot be freed while we own it. */
		jw = atomic_load_explicit(&job_at(a, j)->word, memory_order_acquire);
		if (zp_word_state(jw) != ZP_JOB_ACTIVE) {
			/* it failed under us: hand the word back */
			cas(&pr->word, &cw, part_word(ZP_PART_PENDING, ZP_TAG_NONE, zp_part_attempts(cw),
						     zp_word_gen(cw) + 1));
			continue;
		}
		pr->last_owner_pid = (uint32_t)getpid();
		atomic_store_explicit(&pr->slot, 0, memory_order_relaxed);
		atomic_store_explicit(&pr->ts[ZP_TS_CLAIMED], zp_now_ns(), memory_order_relaxed);
		*out = (zp_part_h){ .job = { j, zp_word_gen(jw) }, .part = p };
		return 0;
	}
	return -EAGAIN;
}

int zp_arena_claim_part_at(struct zp_arena *a, zp_proc_h me, zp_part_h want)
{
	if (want.job.idx >= H(a)->job_count || want.part >= H(a)->max_parts)
		return ZP_ERANGE;
	struct zp_arena_job *jr = job_at(a, want.job.idx);
	struct zp_arena_part *pr = part_at(a, want.job.idx, want.part);
	uint64_t jw = atomic_load_explicit(&jr->word, memory_order_acquire);
	uint64_t w = atomic_load_explicit(&pr->word, memory_order_acquire);
	if (zp_word_state(jw) != ZP_JOB_ACTIVE || zp_word_gen(jw) != want.job.gen || want.part >= jr->nparts ||
	    zp_word_state(w) != ZP_PART_PENDING)
		return ZP_ESTALE;
	uint64_t cw = part_word(ZP_PART_CLAIMED, proc_tag(me), zp_part_attempts(w), zp_word_gen(w) + 1);
	if (!cas(&pr->word, &w, cw))
		return ZP_ESTALE;
	jw = atomic_load_explicit(&jr->word, memory_order_acquire);
	if (zp_word_state(jw) != ZP_JOB_ACTIVE || zp_word_gen(jw) != want.job.gen) {
		/* the record moved on between the loads and the CAS: hand the word back */
		cas(&pr->word, &cw, part_word(ZP_PART_PENDING, ZP_TAG_NONE, zp_part_attempts(cw), zp_word_gen(cw) + 1));
		return ZP_ESTALE;
	}
	pr->last_owner_pid = (uint32_t)getpid();
	atomic_store_explicit(&pr->slot, 0, memory_order_relaxed);
	atomic_store_explicit(&pr->ts[ZP_TS_CLAIMED], zp_now_ns(), memory_order_relaxed);
	return 0;
}

static struct zp_arena_part *part_of(struct zp_arena *a, zp_part_h h)
{
	if (h.job.idx >= H(a)->job_count || h.part >= H(a)->max_parts)
		return NULL;
	uint64_t jw = atomic_load_explicit(&job_at(a, h.job.idx)->word, memory_order_acquire);
	return zp_word_gen(jw) == h.job.gen ? part_at(a, h.job.idx, h.part) : NULL;
}

void zp_arena_part_stamp(struct zp_arena *a, zp_part_h h, enum zp_stage st)
{
	struct zp_arena_part *pr = part_of(a, h);
	if (pr && (unsigned)st < ZP_TS_COUNT)
		atomic_store_explicit(&pr->ts[st], zp_now_ns(), memory_order_relaxed);
}

/* Close the job when its last partition ends; a first failure fails it at once. */
static void job_account(struct zp_arena *a, uint32_t j, uint32_t gen, bool failed, const char *why)
{
	struct zp_arena_job *jr = job_at(a, j);
	uint32_t done = failed ? atomic_fetch_add(&jr->parts_failed, 1) + 1 + atomic_load(&jr->parts_done)
			       : atomic_fetch_add(&jr->parts_done, 1) + 1 + atomic_load(&jr->parts_failed);
	if (failed) {
		uint32_t z = 0;
		if (atomic_compare_exchange_strong(&jr->err_owner, &z, 1))
			copy_str(jr->error, sizeof jr->error, why ? why : "failed");
	}
	if (!failed && done < jr->nparts)
		return;
	uint64_t w = atomic_load_explicit(&jr->word, memory_order_acquire);
	if (zp_word_state(w) != ZP_JOB_ACTIVE || zp_word_gen(w) != gen)
		return;
	uint64_t nw = gen_word(failed ? ZP_JOB_FAILED : ZP_JOB_DONE, zp_word_gen(w));
	if (cas(&jr->word, &w, nw)) {
		atomic_store_explicit(&jr->done_ns, zp_now_ns(), memory_order_relaxed);
		CNT_ADD(a, jobs_done, 1);
	}
}

int zp_arena_part_done(struct zp_arena *a, zp_proc_h me, zp_part_h h)
{
	struct zp_arena_part *pr = part_of(a, h);
	if (!pr)
		return ZP_ESTALE;
	uint64_t w = atomic_load_explicit(&pr->word, memory_order_acquire);
	if (zp_word_state(w) != ZP_PART_PROVING || zp_word_tag(w) != proc_tag(me))
		return ZP_ESTALE;
	atomic_store_explicit(&pr->ts[ZP_TS_DONE], zp_now_ns(), memory_order_relaxed);
	if (!cas(&pr->word, &w, part_word(ZP_PART_DONE, ZP_TAG_NONE, zp_part_attempts(w), zp_word_gen(w) + 1)))
		return ZP_ESTALE;
	CNT_ADD(a, parts_proved, 1);
	CNT_ADD(a, proof_finalized, 1);
	job_account(a, h.job.idx, h.job.gen, false, NULL);
	return 0;
}

/* Move an owned partition word `w` to PENDING (attempts+1) or FAILED.
 * Returns the new state, or -EAGAIN when the CAS lost a race. */
static int part_retry_or_fail(struct zp_arena *a, uint32_t j, uint32_t gen, struct zp_arena_part *pr, uint64_t w,
			      bool retry, const char *why)
{
	unsigned att = zp_part_attempts(w) + 1;
	unsigned st = retry && att < H(a)->max_attempts ? ZP_PART_PENDING : ZP_PART_FAILED;
	uint64_t nw = part_word(st, ZP_TAG_NONE, att > 255 ? 255 : att, zp_word_gen(w) + 1);
	if (!cas(&pr->word, &w, nw))
		return -EAGAIN;
	atomic_store_explicit(&pr->slot, 0, memory_order_relaxed);
	if (st == ZP_PART_PENDING) {
		CNT_ADD(a, parts_retried, 1);
	} else {
		CNT_ADD(a, parts_failed, 1);
		job_account(a, j, gen, true, why);
	}
	return (int)st;
}

int zp_arena_part_fail(struct zp_arena *a, zp_proc_h me, zp_part_h h, int retry, const char *why)
{
	struct zp_arena_part *pr = part_of(a, h);
	if (!pr)
		return ZP_ESTALE;
	uint64_t w = atomic_load_explicit(&pr->word, memory_order_acquire);
	if (!in_flight(zp_word_state(w)) || zp_word_tag(w) != proc_tag(me))
		return ZP_ESTALE;
	int r = part_retry_or_fail(a, h.job.idx, h.job.gen, pr, w, retry, why);
	return r == -EAGAIN ? ZP_ESTALE : r;
}

/*
 * Reclaim one partition owned by a dead `tag` (called after its slots were
 * reclaimed). If the slot it points at is READY with the same generation and
 * carries it, its data survived: → READY. Otherwise → PENDING attempts+1 or
 * FAILED. CAS only, so concurrent reclaimers move it once. Returns 1 if moved.
 */
int zp_part_reclaim(struct zp_arena *a, uint32_t j, uint32_t p, uint32_t tag, const char *why)
{
	struct zp_arena_part *pr = part_at(a, j, p);
	for (;;) {
		uint64_t w = atomic_load_explicit(&pr->word, memory_order_acquire);
		if (zp_word_tag(w) != tag || !in_flight(zp_word_state(w)))
			return 0;
		uint64_t sv = atomic_load_explicit(&pr->slot, memory_order_acquire);
		bool kept = false;
		if (sv && zp_word_state(w) != ZP_PART_CLAIMED) {
			zp_slot_h sh = unpack_slot(sv);
			struct zp_arena_slot *sl = sh.idx < H(a)->slot_count ? slot_at(a, sh.idx) : NULL;
			uint64_t sw = sl ? atomic_load_explicit(&sl->word, memory_order_acquire) : 0;
			kept = sl && zp_word_state(sw) == ZP_SLOT_READY && zp_word_gen(sw) == sh.gen &&
			       (uint32_t)sl->job == j && sl->part == p;
		}
		if (kept) {
			uint64_t nw = part_word(ZP_PART_READY, ZP_TAG_NONE, zp_part_attempts(w), zp_word_gen(w) + 1);
			if (cas(&pr->word, &w, nw)) {
				zp_arena_notify(&H(a)->ready_seq, &H(a)->ready_waiters);
				return 1;
			}
			continue;
		}
		uint32_t gen = zp_word_gen(atomic_load_explicit(&job_at(a, j)->word, memory_order_acquire));
		char msg[ZP_ERRTXT_MAX];
		snprintf(msg, sizeof msg, "%s; out of attempts", why ? why : "owner died");
		if (part_retry_or_fail(a, j, gen, pr, w, true, msg) >= 0)
			return 1;
	}
}
