/*
 * proc.c — the process table, liveness, and reclaiming what the dead owned.
 *
 * A process is named by pid + start time (pids are reused within seconds).
 * The supervisor learns of deaths from pidfds; zp_arena_reclaim_dead is the
 * fallback scan that any tool can run, using /proc.
 */
#include "arena_impl.h"
#include "zp_err.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Field 22 of /proc/<pid>/stat, or 0 if the process is gone or a zombie. */
uint64_t zp_proc_start_time(int pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	char *p = strrchr(buf, ')'); /* comm may hold spaces and ')' */
	if (!p || p[1] != ' ')
		return 0;
	p += 2;
	if (*p == 'Z' || *p == 'X')
		return 0; /* dead; only its parent has not reaped it yet */
	for (int field = 3; field < 22; field++) {
		p = strchr(p, ' ');
		if (!p)
			return 0;
		p++;
	}
	return strtoull(p, NULL, 10);
}

int zp_arena_proc_register(struct zp_arena *a, int pid, enum zp_role role, const char *name,
			   zp_proc_h *out)
{
	if (a->flags & ZP_ARENA_RDONLY)
		return -EROFS;
	if (pid == 0)
		pid = getpid();
	uint64_t st = zp_proc_start_time(pid);
	if (!st)
		return zp_err_set(-ESRCH, "register pid %d: no such process", pid);
	for (uint32_t i = 0; i < H(a)->proc_count; i++) {
		struct zp_arena_proc *pr = proc_at(a, i);
		uint32_t g;
		if (!claim_free(&pr->word, ZP_PROC_FREE, gen_word(ZP_PROC_INIT, 0), &g))
			continue;
		pr->pid = pid;
		pr->role = role;
		pr->start_time = st;
		pr->registered_ns = zp_now_ns();
		atomic_store_explicit(&pr->heartbeat_ns, pr->registered_ns, memory_order_relaxed);
		memset(pr->name, 0, sizeof pr->name);
		strncpy(pr->name, name ? name : "", sizeof pr->name - 1);
		atomic_store_explicit(&pr->word, gen_word(ZP_PROC_ALIVE, g), memory_order_release);
		*out = (zp_proc_h){ i, g };
		return 0;
	}
	return zp_err_set(ZP_EFULL, "process table full (%u entries)", H(a)->proc_count);
}

void zp_arena_proc_heartbeat(struct zp_arena *a, zp_proc_h me)
{
	if (me.idx < H(a)->proc_count)
		atomic_store_explicit(&proc_at(a, me.idx)->heartbeat_ns, zp_now_ns(), memory_order_relaxed);
}

void zp_arena_proc_heartbeat_at(struct zp_arena *a, zp_proc_h me, uint64_t ns)
{
	if (me.idx < H(a)->proc_count)
		atomic_store_explicit(&proc_at(a, me.idx)->heartbeat_ns, ns, memory_order_relaxed);
}

int zp_arena_proc_alive(const struct zp_arena *a, uint32_t idx)
{
	if (idx >= H(a)->proc_count)
		return ZP_ERANGE;
	struct zp_arena_proc *pr = proc_at(a, idx);
	uint64_t w = atomic_load_explicit(&pr->word, memory_order_acquire);
	if (zp_word_state(w) == ZP_PROC_FREE)
		return ZP_ESTALE;
	if (zp_word_state(w) != ZP_PROC_ALIVE && zp_word_state(w) != ZP_PROC_INIT)
		return 0;
	if (zp_word_state(w) == ZP_PROC_INIT)
		return 1; /* its registrar is still writing it */
	return zp_proc_start_time(pr->pid) == pr->start_time;
}

/* Move what `tag` owns in the slot table. Slots first: the partition rules
 * look at slot states. */
static int reclaim_slots(struct zp_arena *a, uint32_t tag)
{
	int n = 0;
	for (uint32_t i = 0; i < H(a)->slot_count; i++) {
		struct zp_arena_slot *sl = slot_at(a, i);
		uint64_t w = atomic_load_explicit(&sl->word, memory_order_acquire);
		if (zp_word_tag(w) != tag)
			continue;
		unsigned st = zp_word_state(w);
		if (st != ZP_SLOT_FILLING && st != ZP_SLOT_COPYING)
			continue;
		/* FILLING: the half-written data is worthless → FREE.
		 * COPYING: the data is intact (copying only reads it) → READY. */
		unsigned to = st == ZP_SLOT_FILLING ? ZP_SLOT_FREE : ZP_SLOT_READY;
		if (!cas(&sl->word, &w, slot_word(to, ZP_TAG_NONE, zp_word_gen(w))))
			continue; /* another reclaimer did it */
		atomic_store_explicit(&sl->state_ns, zp_now_ns(), memory_order_relaxed);
		CNT_ADD(a, slots_reclaimed, 1);
		if (to == ZP_SLOT_FREE)
			zp_arena_notify(&H(a)->free_seq, &H(a)->free_waiters);
		else
			zp_arena_notify(&H(a)->ready_seq, &H(a)->ready_waiters);
		n++;
	}
	return n;
}

static int reclaim_parts(struct zp_arena *a, uint32_t tag, const char *why)
{
	int n = 0;
	for (uint32_t j = 0; j < H(a)->job_count; j++) {
		unsigned st = zp_word_state(atomic_load_explicit(&job_at(a, j)->word, memory_order_acquire));
		if (st == ZP_JOB_FREE || st == ZP_JOB_WRITING)
			continue;
		for (uint32_t p = 0; p < job_at(a, j)->nparts; p++)
			n += zp_part_reclaim(a, j, p, tag, why);
	}
	return n;
}

/*
 * Reclaim protocol (supervisor or any tool), idempotent:
 *  1. CAS the entry ALIVE|gen → DEAD|gen (or find it DEAD: another reclaimer
 *     is at work, or died mid-way; redo its work, every step is a CAS);
 *  2. slots owned by the tag: FILLING → FREE, COPYING → READY;
 *  3. partitions owned by the tag: → READY if their slot is READY, else
 *     PENDING with attempts+1, or FAILED at max_attempts;
 *  4. CAS DEAD|gen → FREE|gen. A new process registered at this index has
 *     another generation, hence another tag: steps 2-3 of a late reclaimer
 *     cannot touch it.
 */
int zp_arena_reclaim_proc(struct zp_arena *a, zp_proc_h p)
{
	return zp_arena_reclaim_proc_why(a, p, NULL);
}

int zp_arena_reclaim_proc_why(struct zp_arena *a, zp_proc_h p, const char *why)
{
	if (a->flags & ZP_ARENA_RDONLY)
		return -EROFS;
	if (p.idx >= H(a)->proc_count)
		return ZP_ERANGE;
	struct zp_arena_proc *pr = proc_at(a, p.idx);
	uint64_t w = atomic_load_explicit(&pr->word, memory_order_acquire);
	if (zp_word_gen(w) != p.gen || zp_word_state(w) == ZP_PROC_FREE)
		return 0;
	if (zp_word_state(w) != ZP_PROC_DEAD &&
	    !cas(&pr->word, &w, gen_word(ZP_PROC_DEAD, p.gen)) && zp_word_state(w) != ZP_PROC_DEAD)
		return zp_word_state(w) == ZP_PROC_FREE ? 0 : ZP_ESTALE;
	uint32_t tag = proc_tag(p);
	int n = reclaim_slots(a, tag);
	n += reclaim_parts(a, tag, why);
	uint64_t d = gen_word(ZP_PROC_DEAD, p.gen);
	cas(&pr->word, &d, gen_word(ZP_PROC_FREE, p.gen));
	return n;
}

int zp_arena_proc_unregister(struct zp_arena *a, zp_proc_h me)
{
	int r = zp_arena_reclaim_proc(a, me);
	return r < 0 ? r : 0;
}

int zp_arena_reclaim_dead(struct zp_arena *a)
{
	int n = 0;
	for (uint32_t i = 0; i < H(a)->proc_count; i++) {
		uint64_t w = atomic_load_explicit(&proc_at(a, i)->word, memory_order_acquire);
		unsigned st = zp_word_state(w);
		if (st == ZP_PROC_FREE || st == ZP_PROC_INIT)
			continue;
		if (st == ZP_PROC_ALIVE && zp_arena_proc_alive(a, i) != 0)
			continue;
		if (zp_arena_reclaim_proc(a, (zp_proc_h){ i, zp_word_gen(w) }) >= 0)
			n++;
	}
	return n;
}
