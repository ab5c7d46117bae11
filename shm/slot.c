/*
 * slot.c — the slot state machine: FREE → FILLING → READY → COPYING → FREE.
 *
 * Every transition is one CAS on the slot word; the expected value names the
 * state, the owner tag and the generation, so a stale handle fails (ZP_ESTALE).
 */
#include "arena_impl.h"
#include "zp_err.h"

#include <errno.h>
#include <limits.h>

/* Waiters rescan at least this often: hints can be lost. -1: never (tests/shm/test_wait.c sets it to
 * see that a release's futex wake alone brings a sleeping waiter back, whatever the machine's speed). */
int zp_wait_slice_ms = 100;

static void part_stamp(struct zp_arena *a, uint32_t job, uint32_t part, enum zp_stage st, uint64_t t)
{
	atomic_store_explicit(&part_at(a, job, part)->ts[st], t, memory_order_relaxed);
}

/* The partition a slot carries, if its handle still names a live job. */
static struct zp_arena_part *slot_part(struct zp_arena *a, const struct zp_arena_slot *sl,
				       unsigned *job_state)
{
	uint32_t j = (uint32_t)sl->job, gen = (uint32_t)(sl->job >> 32);
	if (j >= H(a)->job_count || sl->part >= H(a)->max_parts)
		return NULL;
	uint64_t jw = atomic_load_explicit(&job_at(a, j)->word, memory_order_acquire);
	if (zp_word_gen(jw) != gen)
		return NULL;
	*job_state = zp_word_state(jw);
	return part_at(a, j, sl->part);
}

/* One pass over the slots from a per-owner starting point (spreads claimants).
 * Step 1: CAS FREE|gen → FILLING|me|gen+1 (acq_rel). */
static int grab_free(struct zp_arena *a, uint32_t tag, zp_slot_h *out)
{
	uint32_t n = H(a)->slot_count;
	for (uint32_t k = 0, i = (tag * 7u) % n; k < n; k++, i = i + 1 == n ? 0 : i + 1) {
		uint32_t g;
		if (claim_free(&slot_at(a, i)->word, ZP_SLOT_FREE, slot_word(ZP_SLOT_FILLING, tag, 0), &g)) {
			*out = (zp_slot_h){ .idx = i, .gen = g };
			return 0;
		}
	}
	return -EAGAIN;
}

/* Find-or-wait loop shared by claimants and takers. */
static int wait_for(struct zp_arena *a, _Atomic uint32_t *seq, _Atomic uint32_t *waiters,
		    int timeout_ms, uint64_t *waited_ns, int (*try)(struct zp_arena *, void *), void *ctx)
{
	uint64_t t0 = 0, deadline = 0;
	for (;;) {
		uint32_t s = atomic_load_explicit(seq, memory_order_seq_cst);
		int r = try(a, ctx);
		if (r != -EAGAIN)
			goto out;
		if (timeout_ms == 0) {
			r = -ETIMEDOUT;
			goto out;
		}
		uint64_t now = zp_mono_ns();
		if (!t0) {
			t0 = now;
			deadline = timeout_ms < 0 ? UINT64_MAX : now + (uint64_t)timeout_ms * 1000000u;
		}
		if (now >= deadline) {
			r = -ETIMEDOUT;
			goto out;
		}
		uint64_t left_ms = (deadline - now) / 1000000u + 1;
		atomic_fetch_add_explicit(waiters, 1, memory_order_seq_cst);
		int slice = zp_wait_slice_ms, ms;
		if (deadline == UINT64_MAX)
			ms = slice; /* no timeout: the slice, or until woken */
		else
			ms = slice >= 0 && left_ms > (uint64_t)slice ? slice
			     : left_ms > INT_MAX ? INT_MAX : (int)left_ms;
		zp_futex_wait(seq, s, ms);
		atomic_fetch_sub_explicit(waiters, 1, memory_order_seq_cst);
		continue;
out:
		*waited_ns = t0 ? zp_mono_ns() - t0 : 0;
		return r;
	}
}

struct claim_ctx { uint32_t tag; zp_slot_h *out; };
static int try_claim(struct zp_arena *a, void *c)
{
	struct claim_ctx *x = c;
	return grab_free(a, x->tag, x->out);
}

static void put_free(struct zp_arena *a, struct zp_arena_slot *sl, uint64_t expect)
{
	cas(&sl->word, &expect, slot_word(ZP_SLOT_FREE, ZP_TAG_NONE, zp_word_gen(expect)));
	atomic_store_explicit(&sl->state_ns, zp_now_ns(), memory_order_relaxed);
	zp_arena_notify(&H(a)->free_seq, &H(a)->free_waiters);
}

/*
 * Claim protocol (synthd):
 *  1. check the partition is CLAIMED by me (else ZP_ESTALE);
 *  2. CAS a slot FREE → FILLING|me|gen+1, waiting on free_seq when none;
 *  3. write the slot's job/part fields (plain; published by mark_ready's CAS);
 *  4. store part.slot = handle (release), so a reclaimer can find the data;
 *  5. CAS the partition CLAIMED → SYNTH; if it moved (we were reclaimed),
 *     give the slot back and return ZP_ESTALE.
 */
int zp_arena_claim_slot(struct zp_arena *a, zp_proc_h me, zp_part_h ph, int timeout_ms,
			zp_slot_h *out)
{
	uint32_t tag = proc_tag(me);
	if (ph.job.idx >= H(a)->job_count || ph.part >= H(a)->max_parts)
		return ZP_ERANGE;
	struct zp_arena_part *pr = part_at(a, ph.job.idx, ph.part);
	uint64_t pw = atomic_load_explicit(&pr->word, memory_order_acquire);
	if (zp_word_state(pw) != ZP_PART_CLAIMED || zp_word_tag(pw) != tag)
		return ZP_ESTALE;
	uint64_t waited = 0;
	struct claim_ctx c = { tag, out };
	int r = wait_for(a, &H(a)->free_seq, &H(a)->free_waiters, timeout_ms, &waited, try_claim, &c);
	if (waited) {
		CNT_ADD(a, free_slot_waits, 1);
		CNT_ADD(a, free_slot_wait_ns, waited);
	}
	if (r < 0)
		return r;
	struct zp_arena_slot *sl = slot_at(a, out->idx);
	sl->job = pack_job(ph.job);
	sl->job_id = job_at(a, ph.job.idx)->id;
	sl->part = ph.part;
	sl->filler = tag;
	sl->bytes = 0;
	uint64_t now = zp_now_ns();
	atomic_store_explicit(&sl->state_ns, now, memory_order_relaxed);
	atomic_store_explicit(&pr->slot, pack_slot(*out), memory_order_release);
	uint64_t nw = part_word(ZP_PART_SYNTH, tag, zp_part_attempts(pw), zp_word_gen(pw) + 1);
	if (!cas(&pr->word, &pw, nw)) {
		put_free(a, sl, slot_word(ZP_SLOT_FILLING, tag, out->gen));
		return ZP_ESTALE;
	}
	part_stamp(a, ph.job.idx, ph.part, ZP_TS_SYNTH_START, now);
	CNT_ADD(a, synth_started, 1);
	return 0;
}

void *zp_arena_slot_data(const struct zp_arena *a, zp_slot_h s)
{
	if (s.idx >= H(a)->slot_count)
		return NULL;
	return a->base + H(a)->data_off + (uint64_t)s.idx * H(a)->slot_size;
}

/*
 * Ready protocol (synthd):
 *  1. record bytes and stage times while still FILLING (we are the only writer);
 *  2. CAS slot FILLING|me|gen → READY|none|gen (release publishes the data);
 *  3. CAS partition SYNTH|me → READY. A crash between 2 and 3 is repaired by
 *     the reclaimer, which sees the slot READY and makes the partition READY.
 */
int zp_arena_mark_ready(struct zp_arena *a, zp_proc_h me, zp_slot_h s, uint64_t bytes)
{
	uint32_t tag = proc_tag(me);
	if (s.idx >= H(a)->slot_count || bytes > H(a)->slot_size)
		return ZP_ERANGE;
	struct zp_arena_slot *sl = slot_at(a, s.idx);
	uint64_t w = slot_word(ZP_SLOT_FILLING, tag, s.gen);
	if (atomic_load_explicit(&sl->word, memory_order_acquire) != w)
		return ZP_ESTALE;
	uint32_t j = (uint32_t)sl->job;
	struct zp_arena_part *pr = part_at(a, j, sl->part);
	uint64_t now = zp_now_ns();
	sl->bytes = bytes;
	pr->bytes = bytes;
	part_stamp(a, j, sl->part, ZP_TS_SYNTH_END, now);
	part_stamp(a, j, sl->part, ZP_TS_READY, now);
	atomic_store_explicit(&sl->state_ns, now, memory_order_relaxed);
	if (!cas(&sl->word, &w, slot_word(ZP_SLOT_READY, ZP_TAG_NONE, s.gen)))
		return ZP_ESTALE;
	CNT_ADD(a, slots_filled, 1);
	CNT_ADD(a, bytes_written, bytes);
	CNT_ADD(a, synth_done, 1);
	CNT_ADD(a, parts_synthesized, 1);
	uint64_t pw = atomic_load_explicit(&pr->word, memory_order_acquire);
	int r = 0;
	if (zp_word_state(pw) != ZP_PART_SYNTH || zp_word_tag(pw) != tag ||
	    !cas(&pr->word, &pw, part_word(ZP_PART_READY, ZP_TAG_NONE, zp_part_attempts(pw),
					   zp_word_gen(pw) + 1)))
		r = ZP_ESTALE; /* reclaimed under us; take_ready will drop the orphan slot */
	zp_arena_notify(&H(a)->ready_seq, &H(a)->ready_waiters);
	return r;
}

int zp_arena_abandon_slot(struct zp_arena *a, zp_proc_h me, zp_slot_h s)
{
	if (s.idx >= H(a)->slot_count)
		return ZP_ERANGE;
	struct zp_arena_slot *sl = slot_at(a, s.idx);
	uint64_t w = slot_word(ZP_SLOT_FILLING, proc_tag(me), s.gen);
	if (!cas(&sl->word, &w, slot_word(ZP_SLOT_FREE, ZP_TAG_NONE, s.gen)))
		return ZP_ESTALE;
	struct zp_arena_part *pr = part_at(a, (uint32_t)sl->job, sl->part);
	uint64_t ps = pack_slot(s);
	atomic_compare_exchange_strong(&pr->slot, &ps, 0);
	atomic_store_explicit(&sl->state_ns, zp_now_ns(), memory_order_relaxed);
	zp_arena_notify(&H(a)->free_seq, &H(a)->free_waiters);
	return 0;
}

/* Order of service: higher priority, then older job (smaller id), then lower partition. */
struct pick { uint32_t slot, prio; uint64_t id; uint32_t part; };
static bool better(const struct pick *x, const struct pick *y)
{
	if (x->prio != y->prio)
		return x->prio > y->prio;
	if (x->id != y->id)
		return x->id < y->id;
	return x->part < y->part;
}

/*
 * Take protocol (gpud):
 *  1. pick the best READY slot;
 *  2. CAS slot READY|gen → COPYING|me|gen;
 *  3. if its partition is READY and points at this slot, CAS it → PROVING|me;
 *     if the partition is still SYNTH (its synthd is between its two CASes, or
 *     died there), CAS the slot back to READY and skip it for now;
 *     if the partition no longer points here (job freed or failed, partition
 *     reclaimed), the slot is an orphan: free it.
 */
struct take_ctx { uint32_t tag; zp_slot_h *slot; zp_part_h *part; };

/* A READY slot whose partition is still SYNTH is skipped: its synthd is
 * between its two CASes (or died there and awaits the reclaimer). */
static bool blocked(struct zp_arena *a, const struct zp_arena_slot *sl)
{
	unsigned js = 0;
	struct zp_arena_part *pr = slot_part(a, sl, &js);
	return pr && js == ZP_JOB_ACTIVE &&
	       zp_word_state(atomic_load_explicit(&pr->word, memory_order_acquire)) == ZP_PART_SYNTH;
}

static uint32_t pick_ready(struct zp_arena *a)
{
	struct pick best = { .slot = UINT32_MAX };
	for (uint32_t i = 0; i < H(a)->slot_count; i++) {
		struct zp_arena_slot *sl = slot_at(a, i);
		uint64_t w = atomic_load_explicit(&sl->word, memory_order_acquire);
		if (zp_word_state(w) != ZP_SLOT_READY || blocked(a, sl))
			continue;
		uint32_t j = (uint32_t)sl->job;
		struct pick p = { i, j < H(a)->job_count ? job_at(a, j)->priority : 0, sl->job_id, sl->part };
		if (best.slot == UINT32_MAX || better(&p, &best))
			best = p;
	}
	return best.slot;
}

static int try_take(struct zp_arena *a, void *c)
{
	struct take_ctx *x = c;
	for (;;) {
		uint32_t i = pick_ready(a);
		if (i == UINT32_MAX)
			return -EAGAIN;
		struct zp_arena_slot *sl = slot_at(a, i);
		uint64_t w = atomic_load_explicit(&sl->word, memory_order_acquire);
		if (zp_word_state(w) != ZP_SLOT_READY)
			continue;
		uint32_t gen = zp_word_gen(w);
		uint64_t cw = slot_word(ZP_SLOT_COPYING, x->tag, gen);
		if (!cas(&sl->word, &w, cw))
			continue;
		zp_slot_h sh = { i, gen };
		unsigned js = 0;
		struct zp_arena_part *pr = slot_part(a, sl, &js);
		uint64_t pw = pr ? atomic_load_explicit(&pr->word, memory_order_acquire) : 0;
		bool mine = pr && js == ZP_JOB_ACTIVE &&
			    atomic_load_explicit(&pr->slot, memory_order_acquire) == pack_slot(sh);
		bool took = false;
		while (mine && !took && zp_word_state(pw) == ZP_PART_READY)
			took = cas(&pr->word, &pw, part_word(ZP_PART_PROVING, x->tag,
							     zp_part_attempts(pw), zp_word_gen(pw) + 1));
		if (took) {
			*x->slot = sh;
			*x->part = (zp_part_h){ .job = { (uint32_t)sl->job, (uint32_t)(sl->job >> 32) },
						.part = sl->part };
			uint64_t now = zp_now_ns();
			atomic_store_explicit(&sl->state_ns, now, memory_order_relaxed);
			part_stamp(a, x->part->job.idx, x->part->part, ZP_TS_COPY_START, now);
			return 0;
		}
		if (mine && zp_word_state(pw) == ZP_PART_SYNTH) {
			cas(&sl->word, &cw, slot_word(ZP_SLOT_READY, ZP_TAG_NONE, gen));
			return -EAGAIN; /* the next wake or slice rescans */
		}
		put_free(a, sl, cw); /* orphan: its partition went elsewhere */
		CNT_ADD(a, slots_reclaimed, 1);
	}
}

int zp_arena_take_ready(struct zp_arena *a, zp_proc_h me, int timeout_ms, zp_slot_h *slot,
			zp_part_h *part)
{
	uint64_t waited;
	struct take_ctx c = { proc_tag(me), slot, part };
	return wait_for(a, &H(a)->ready_seq, &H(a)->ready_waiters, timeout_ms, &waited, try_take, &c);
}

/* Release protocol (gpud): stamp copy end, CAS COPYING|me|gen → FREE|gen, wake one claimant. */
int zp_arena_release_slot(struct zp_arena *a, zp_proc_h me, zp_slot_h s)
{
	if (s.idx >= H(a)->slot_count)
		return ZP_ERANGE;
	struct zp_arena_slot *sl = slot_at(a, s.idx);
	uint64_t w = slot_word(ZP_SLOT_COPYING, proc_tag(me), s.gen);
	if (atomic_load_explicit(&sl->word, memory_order_acquire) != w)
		return ZP_ESTALE;
	uint32_t j = (uint32_t)sl->job, p = sl->part;
	uint64_t now = zp_now_ns();
	if (j < H(a)->job_count && p < H(a)->max_parts)
		part_stamp(a, j, p, ZP_TS_COPY_END, now);
	if (!cas(&sl->word, &w, slot_word(ZP_SLOT_FREE, ZP_TAG_NONE, s.gen)))
		return ZP_ESTALE;
	atomic_store_explicit(&sl->state_ns, now, memory_order_relaxed);
	CNT_ADD(a, slots_released, 1);
	CNT_ADD(a, abc_released, 1);
	zp_arena_notify(&H(a)->free_seq, &H(a)->free_waiters);
	return 0;
}
