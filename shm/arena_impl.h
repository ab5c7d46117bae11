/*
 * arena_impl.h — helpers shared inside shm/ only.
 */
#ifndef ZP_SHM_ARENA_IMPL_H
#define ZP_SHM_ARENA_IMPL_H

#include "arena.h"

#include <limits.h>
#include <stdbool.h>

struct zp_arena {
	uint8_t *base;             /* 2 MiB aligned start of the arena */
	uint64_t size;
	int fd;
	unsigned flags;            /* ZP_ARENA_RDONLY */
	enum zp_backing backing;
};

/* A backing kind: how to make, find and remove the bytes behind an arena. */
struct zp_backing_ops {
	enum zp_backing kind;
	const char *name;
	/* 0 if `bytes` could be created now; -errno / ZP_EFULL why not. */
	int (*probe)(const char *hdir, uint64_t bytes);
	/* Create the object, sized; returns an fd or -errno. */
	int (*create)(const char *name, const char *hdir, uint64_t bytes);
	/* Open an existing object by name; fd or -ENOENT. */
	int (*open)(const char *name, const char *hdir, bool rdonly);
	int (*unlink)(const char *name, const char *hdir);
	/* Extra work after mapping (madvise, pre-fault). */
	int (*prepare)(void *base, uint64_t bytes);
	/* After the header is written: publish the name (memfd locator). */
	int (*publish)(const char *name, int fd);
};

extern const struct zp_backing_ops *const zp_backings[ZP_BACKING_COUNT];

/* Word packing — see the layout block in arena.h. */
static inline uint64_t slot_word(unsigned st, uint32_t tag, uint32_t gen)
{
	return (uint64_t)st | (uint64_t)(tag & 0xfffff) << 4 | (uint64_t)gen << 32;
}
static inline uint64_t part_word(unsigned st, uint32_t tag, unsigned att, uint32_t seq)
{
	return (uint64_t)st | (uint64_t)(tag & 0xfffff) << 4 | (uint64_t)(att & 0xff) << 24 |
	       (uint64_t)seq << 32;
}
static inline uint64_t gen_word(unsigned st, uint32_t gen)
{
	return (uint64_t)st | (uint64_t)gen << 32;
}
static inline uint32_t proc_tag(zp_proc_h p) { return (p.idx & 0xfff) | (p.gen & 0xff) << 12; }
static inline uint64_t pack_slot(zp_slot_h s) { return (uint64_t)s.gen << 32 | (s.idx + 1); }
static inline zp_slot_h unpack_slot(uint64_t v)
{
	return (zp_slot_h){ .idx = (uint32_t)v - 1, .gen = (uint32_t)(v >> 32) };
}
static inline uint64_t pack_job(zp_job_h j) { return (uint64_t)j.gen << 32 | j.idx; }

static inline struct zp_arena_hdr *H(const struct zp_arena *a) { return (struct zp_arena_hdr *)a->base; }
static inline struct zp_arena_slot *slot_at(const struct zp_arena *a, uint32_t i)
{
	return (struct zp_arena_slot *)(a->base + H(a)->slots_off) + i;
}
static inline struct zp_arena_proc *proc_at(const struct zp_arena *a, uint32_t i)
{
	return (struct zp_arena_proc *)(a->base + H(a)->procs_off) + i;
}
static inline struct zp_arena_job *job_at(const struct zp_arena *a, uint32_t i)
{
	return (struct zp_arena_job *)(a->base + H(a)->jobs_off + (uint64_t)i * H(a)->job_rec_size);
}
static inline struct zp_arena_part *part_at(const struct zp_arena *a, uint32_t j, uint32_t p)
{
	return (struct zp_arena_part *)(job_at(a, j) + 1) + p;
}

#define CNT_ADD(a, field, v) atomic_fetch_add_explicit(&H(a)->counters.field, (v), memory_order_relaxed)

static inline bool cas(_Atomic uint64_t *w, uint64_t *old, uint64_t nw)
{
	return atomic_compare_exchange_strong_explicit(w, old, nw, memory_order_acq_rel,
						       memory_order_acquire);
}

/* Takes a record whose word is in state free_st: one CAS to low (the new state and tag, generation 0)
 * with the next generation, which goes to *gen. False when it was not free or another process took it. */
static inline bool claim_free(_Atomic uint64_t *word, unsigned free_st, uint64_t low, uint32_t *gen)
{
	uint64_t w = atomic_load_explicit(word, memory_order_relaxed);
	if (zp_word_state(w) != free_st)
		return false;
	*gen = zp_word_gen(w) + 1;
	return cas(word, &w, low | (uint64_t)*gen << 32);
}

uint64_t zp_mono_ns(void);
/* futex on a shared 32-bit word. */
int zp_futex_wait(_Atomic uint32_t *w, uint32_t val, int timeout_ms);
void zp_futex_wake(_Atomic uint32_t *w, int n);
/* How often a waiter rescans without a wake (ms; -1: never). 100; tests only change it. */
extern int zp_wait_slice_ms;
/* Bump seq and wake sleepers if any. */
void zp_arena_notify(_Atomic uint32_t *seq, _Atomic uint32_t *waiters);

/* The partition owned by a slot's claimant must move when a slot is
 * reclaimed; job.c exposes this for proc.c. */
int zp_part_reclaim(struct zp_arena *a, uint32_t job, uint32_t part, uint32_t tag, const char *why);

bool zp_name_ok(const char *name);
/* "<dir>/zkpipe.<name>" into buf; -ENAMETOOLONG. */
int zp_arena_path(char *buf, size_t n, const char *dir, const char *name, const char *suffix);
const char *zp_hugetlbfs_dir(const char *hdir);
/* Map fd's first size bytes shared at a 2 MiB aligned address (huge pages and THP need it). */
int zp_map_aligned(int fd, uint64_t size, bool rdonly, int extra, uint8_t **out);
/* Every shared object this service makes (arena, memfd locator, key and split regions) is a regular
 * file of the service's uid with exactly this mode; an open refuses anything else (backing.c). */
#define ZP_SHM_MODE 0600u
/* 0 when fd is such an object; -EPERM with the reason (path named) when not. */
int zp_shm_check_fd(int fd, const char *path);
/* The same by name, never through a symlink: 0, -ENOENT (none) or -EPERM / -errno with the reason. */
int zp_shm_check_path(const char *path);
/* 2 MiB pages free (free - reserved) in the default pool; -errno. */
long zp_hugepages_free(void);

#endif
