/*
 * arena.c — create, attach, check and unmap an arena. The layout itself is
 * documented in arena.h; this file computes it and checks it.
 */
#include "arena_impl.h"
#include "progress.h"
#include "zp_err.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define HDR_SIZE 4096u

uint64_t zp_now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

uint64_t zp_mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int zp_futex_wait(_Atomic uint32_t *w, uint32_t val, int timeout_ms)
{
	struct timespec t = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000 };
	/* Not FUTEX_PRIVATE: the word lives in memory shared between processes. */
	long r = syscall(SYS_futex, w, FUTEX_WAIT, val, timeout_ms < 0 ? NULL : &t, NULL, 0);
	return r < 0 ? -errno : 0;
}

void zp_futex_wake(_Atomic uint32_t *w, int n)
{
	syscall(SYS_futex, w, FUTEX_WAKE, n, NULL, NULL, 0);
}

void zp_arena_notify(_Atomic uint32_t *seq, _Atomic uint32_t *waiters)
{
	atomic_fetch_add_explicit(seq, 1, memory_order_seq_cst);
	if (atomic_load_explicit(waiters, memory_order_seq_cst))
		zp_futex_wake(seq, 1);
}

bool zp_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	if (n == 0 || n >= ZP_ARENA_NAME_MAX || name[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}

static uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

/* Fill the shape part of a header from params; ZP_ERANGE on any overflow. */
static int layout(const struct zp_arena_params *p, struct zp_arena_hdr *h)
{
	if (!p || !zp_name_ok(p->name))
		return zp_err_set(-EINVAL, "arena name '%s': use 1-%d of [A-Za-z0-9._-]",
				  p && p->name ? p->name : "(null)", ZP_ARENA_NAME_MAX - 1);
	if (!p->slot_count || p->slot_count > ZP_ARENA_MAX_SLOTS || !p->slot_size ||
	    !p->job_count || p->job_count > ZP_ARENA_MAX_JOBS || !p->max_parts ||
	    p->max_parts > ZP_ARENA_MAX_PARTS || !p->proc_count ||
	    p->proc_count > ZP_ARENA_MAX_PROCS || p->max_attempts > 255 ||
	    (unsigned)p->backing >= ZP_BACKING_COUNT)
		return zp_err_set(ZP_ERANGE, "arena %s: slots %u size %llu jobs %u parts %u procs %u",
				  p->name, p->slot_count, (unsigned long long)p->slot_size,
				  p->job_count, p->max_parts, p->proc_count);
	uint64_t ss, data, jobs, total;
	if (p->slot_size > UINT64_MAX - ZP_ARENA_ALIGN)
		return zp_err_set(ZP_ERANGE, "slot size %llu overflows", (unsigned long long)p->slot_size);
	ss = round_up(p->slot_size, ZP_ARENA_ALIGN);
	h->job_rec_size = sizeof(struct zp_arena_job) + (uint64_t)p->max_parts * sizeof(struct zp_arena_part);
	jobs = (uint64_t)p->job_count * h->job_rec_size;
	h->procs_off = HDR_SIZE;
	h->jobs_off = h->procs_off + (uint64_t)p->proc_count * sizeof(struct zp_arena_proc);
	h->slots_off = h->jobs_off + jobs;
	h->data_off = round_up(h->slots_off + (uint64_t)p->slot_count * sizeof(struct zp_arena_slot),
			       ZP_ARENA_ALIGN);
	if (__builtin_mul_overflow(ss, (uint64_t)p->slot_count, &data) ||
	    __builtin_add_overflow(data, h->data_off, &total) || total > (UINT64_MAX >> 2) ||
	    total > (uint64_t)SIZE_MAX / 2)
		return zp_err_set(ZP_ERANGE, "arena %s: %u slots x %llu bytes overflows", p->name,
				  p->slot_count, (unsigned long long)p->slot_size);
	h->slot_size = ss;
	h->total_size = total;
	h->slot_count = p->slot_count;
	h->job_count = p->job_count;
	h->max_parts = p->max_parts;
	h->proc_count = p->proc_count;
	h->max_attempts = p->max_attempts ? p->max_attempts : 3;
	return 0;
}

int zp_arena_size(const struct zp_arena_params *p, uint64_t *total)
{
	struct zp_arena_hdr h = { 0 };
	int r = layout(p, &h);
	if (r == 0 && total)
		*total = h.total_size;
	return r;
}

/* Map fd at a 2 MiB aligned address (huge pages need it; so does THP). */
int zp_map_aligned(int fd, uint64_t size, bool rdonly, int extra, uint8_t **out)
{
	size_t len = (size_t)size + ZP_ARENA_ALIGN;
	uint8_t *res = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED)
		return -errno;
	uint8_t *al = (uint8_t *)round_up((uintptr_t)res, ZP_ARENA_ALIGN);
	int prot = rdonly ? PROT_READ : PROT_READ | PROT_WRITE;
	uint8_t *m = mmap(al, (size_t)size, prot, MAP_SHARED | MAP_FIXED | extra, fd, 0);
	if (m == MAP_FAILED) {
		int e = -errno;
		munmap(res, len);
		return e;
	}
	if (al > res)
		munmap(res, (size_t)(al - res));
	if (res + len > al + size)
		munmap(al + size, (size_t)(res + len - (al + size)));
	*out = m;
	return 0;
}

static void init_hdr(struct zp_arena *a, const struct zp_arena_hdr *shape, const char *name)
{
	struct zp_arena_hdr *h = H(a);
	/* The mapping is fresh zeroed memory: all words FREE, generation 0. */
	memcpy(&h->total_size, &shape->total_size,
	       offsetof(struct zp_arena_hdr, name) - offsetof(struct zp_arena_hdr, total_size));
	h->backing = a->backing;
	h->created_ns = zp_now_ns();
	h->creator_pid = (uint32_t)getpid();
	strncpy(h->name, name, sizeof h->name - 1);
	for (uint32_t i = 0; i < h->slot_count; i++)
		atomic_store_explicit(&slot_at(a, i)->word, slot_word(ZP_SLOT_FREE, ZP_TAG_NONE, 0),
				      memory_order_relaxed);
	atomic_store_explicit(&h->job_seq, 1, memory_order_relaxed);
	h->version = zp_arena_format();
	/* Magic last, with release: an attacher that sees it sees the rest. */
	atomic_store_explicit((_Atomic uint64_t *)&h->magic, ZP_ARENA_MAGIC, memory_order_release);
}

/* One backing: probe, create, map, prepare. */
static int try_backing(const struct zp_backing_ops *ops, const struct zp_arena_params *p,
		       const struct zp_arena_hdr *shape, struct zp_arena *a)
{
	int r = ops->probe(p->hugetlbfs_dir, shape->total_size);
	if (r < 0)
		return r;
	if (p->flags & ZP_ARENA_REPLACE)
		zp_arena_destroy(p->name, p->hugetlbfs_dir);
	int fd = ops->create(p->name, p->hugetlbfs_dir, shape->total_size);
	if (fd < 0)
		return zp_err_set(fd, "arena %s: create %s", p->name, ops->name);
	bool huge = ops->kind == ZP_BACKING_HUGETLBFS || ops->kind == ZP_BACKING_MEMFD;
	char st[ZP_PROGRESS_STAGE_MAX];
	snprintf(st, sizeof st, "arena %s: %s %s", p->name, huge ? "mapping" : "populating", ops->name);
	zp_progress_stage(st, huge ? 0 : shape->total_size, "bytes"); /* huge: MAP_POPULATE, one call */
	r = zp_map_aligned(fd, shape->total_size, false, huge ? MAP_POPULATE : 0, &a->base);
	if (r == 0 && ops->prepare)
		r = ops->prepare(a->base, shape->total_size);
	a->fd = fd;
	a->size = shape->total_size;
	a->backing = ops->kind;
	if (r == 0) {
		init_hdr(a, shape, p->name);
		r = ops->publish ? ops->publish(p->name, fd) : 0;
	}
	if (r < 0) {
		if (a->base)
			munmap(a->base, a->size);
		a->base = NULL;
		close(fd);
		ops->unlink(p->name, p->hugetlbfs_dir);
		return zp_err_set(r, "arena %s: map %s", p->name, ops->name);
	}
	return 0;
}

/* -ENOENT when no backing has the name; 0 when one has an arena of ours there; else the refusal
 * (another user's object at the name: backing.c's open says whose). */
static int exists(const char *name, const char *hdir)
{
	for (int k = ZP_BACKING_HUGETLBFS; k < ZP_BACKING_COUNT; k++) {
		int fd = zp_backings[k]->open(name, hdir, true);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if (fd != -ENOENT)
			return fd;
	}
	return -ENOENT;
}

int zp_arena_create(const struct zp_arena_params *p, struct zp_arena **out)
{
	struct zp_arena_hdr shape = { 0 };
	int r = layout(p, &shape);
	if (r < 0)
		return r;
	if (!(p->flags & ZP_ARENA_REPLACE) && (r = exists(p->name, p->hugetlbfs_dir)) != -ENOENT)
		return r == 0 ? zp_err_set(-EEXIST, "arena %s already exists", p->name) : r; /* r: whose it is */
	struct zp_arena *a = calloc(1, sizeof *a);
	if (!a)
		return -ENOMEM;
	a->fd = -1;
	if (p->backing != ZP_BACKING_AUTO) {
		r = try_backing(zp_backings[p->backing], p, &shape, a);
	} else {
		r = -ENODEV;
		for (int k = ZP_BACKING_HUGETLBFS; k < ZP_BACKING_COUNT && r < 0; k++)
			r = try_backing(zp_backings[k], p, &shape, a);
	}
	if (r < 0) {
		free(a);
		return r;
	}
	*out = a;
	return 0;
}

static int check_shape(const struct zp_arena_hdr *h, const struct zp_arena_shape *e)
{
	if (!e)
		return 0;
	if ((e->slot_count && e->slot_count != h->slot_count) ||
	    (e->slot_size && round_up(e->slot_size, ZP_ARENA_ALIGN) != h->slot_size) ||
	    (e->job_count && e->job_count != h->job_count) ||
	    (e->max_parts && e->max_parts != h->max_parts) ||
	    (e->proc_count && e->proc_count != h->proc_count))
		return zp_err_set(ZP_EMISMATCH,
				  "arena %s has %u slots x %llu B, %u jobs x %u parts, %u procs",
				  h->name, h->slot_count, (unsigned long long)h->slot_size,
				  h->job_count, h->max_parts, h->proc_count);
	return 0;
}

/* Everything the header claims must agree with itself and with the file. */
static int check_hdr(const struct zp_arena_hdr *h, uint64_t file_size)
{
	if (h->magic != ZP_ARENA_MAGIC)
		return zp_err_set(ZP_EFORMAT, "not a zkpipe arena (bad magic)");
	if (h->version != zp_arena_format())
		return zp_err_set(ZP_EVERSION, "arena %.47s: format word 0x%08x (layout version %u), this build reads "
				  "0x%08x (layout version %u): made by a zkpipe build whose shared structs differ (one build "
				  "per arena: stop the other build's service first)",
				  h->name, h->version, h->version & 0xffu, zp_arena_format(), ZP_ARENA_VERSION);
	struct zp_arena_params p = {
		.name = "x", .slot_count = h->slot_count, .slot_size = h->slot_size,
		.job_count = h->job_count, .max_parts = h->max_parts, .proc_count = h->proc_count,
		.max_attempts = h->max_attempts,
	};
	struct zp_arena_hdr e = { 0 };
	if (layout(&p, &e) < 0 || e.total_size != h->total_size || e.data_off != h->data_off ||
	    e.slots_off != h->slots_off || e.jobs_off != h->jobs_off ||
	    e.job_rec_size != h->job_rec_size || h->backing >= ZP_BACKING_COUNT)
		return zp_err_set(ZP_EFORMAT, "arena %.47s: header sizes are inconsistent", h->name);
	if (file_size < h->total_size)
		return zp_err_set(ZP_ETRUNC, "arena %.47s: file is %llu bytes, header says %llu",
				  h->name, (unsigned long long)file_size,
				  (unsigned long long)h->total_size);
	return 0;
}

int zp_arena_attach_fd(int fd, unsigned flags, const struct zp_arena_shape *expect,
		       struct zp_arena **out)
{
	struct stat st;
	struct zp_arena_hdr h;
	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size < HDR_SIZE)
		return zp_err_set(ZP_ETRUNC, "arena file is %lld bytes", (long long)st.st_size);
	/* Read the header through a small mapping (hugetlbfs has no read()). */
	void *m = mmap(NULL, ZP_ARENA_ALIGN, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		m = mmap(NULL, HDR_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	memcpy(&h, m, sizeof h);
	munmap(m, (uint64_t)st.st_size >= ZP_ARENA_ALIGN ? ZP_ARENA_ALIGN : HDR_SIZE);
	int r = check_hdr(&h, (uint64_t)st.st_size);
	if (r == 0)
		r = check_shape(&h, expect);
	if (r < 0)
		return r;
	struct zp_arena *a = calloc(1, sizeof *a);
	if (!a)
		return -ENOMEM;
	r = zp_map_aligned(fd, h.total_size, flags & ZP_ARENA_RDONLY, 0, &a->base);
	if (r < 0) {
		free(a);
		return r;
	}
	a->fd = fd;
	a->size = h.total_size;
	a->flags = flags;
	a->backing = (enum zp_backing)h.backing;
	*out = a;
	return 0;
}

int zp_arena_attach(const char *name, unsigned flags, const struct zp_arena_shape *expect,
		    const char *hdir, struct zp_arena **out)
{
	if (!zp_name_ok(name))
		return zp_err_set(-EINVAL, "arena name '%s'", name ? name : "(null)");
	/* hugetlbfs, /dev/shm (THP and plain share it), then the memfd locator. */
	static const enum zp_backing order[] = { ZP_BACKING_HUGETLBFS, ZP_BACKING_SHM, ZP_BACKING_MEMFD };
	int fd = -ENOENT;
	for (unsigned i = 0; i < 3 && fd == -ENOENT; i++)
		fd = zp_backings[order[i]]->open(name, hdir, flags & ZP_ARENA_RDONLY);
	if (fd == -ENOENT)
		return zp_err_set(-ENOENT, "arena %s not found", name);
	if (fd < 0) /* there, but not ours (or not ours to open): its path and the reason, never "not found" */
		return fd;
	int r = zp_arena_attach_fd(fd, flags, expect, out);
	if (r < 0)
		close(fd);
	return r;
}

void zp_arena_close(struct zp_arena *a)
{
	if (!a)
		return;
	if (a->base)
		munmap(a->base, a->size);
	if (a->fd >= 0)
		close(a->fd);
	free(a);
}

int zp_arena_destroy(const char *name, const char *hdir)
{
	if (!zp_name_ok(name))
		return -EINVAL;
	int r = -ENOENT;
	static const enum zp_backing order[] = { ZP_BACKING_HUGETLBFS, ZP_BACKING_SHM, ZP_BACKING_MEMFD };
	for (unsigned i = 0; i < 3; i++)
		if (zp_backings[order[i]]->unlink(name, hdir) == 0)
			r = 0;
	return r;
}

const struct zp_arena_hdr *zp_arena_hdr(const struct zp_arena *a) { return H(a); }
int zp_arena_fd(const struct zp_arena *a) { return a->fd; }
uint64_t zp_arena_slot_size(const struct zp_arena *a) { return H(a)->slot_size; }

const struct zp_arena_slot *zp_arena_slot_rec(const struct zp_arena *a, uint32_t i)
{
	return i < H(a)->slot_count ? slot_at(a, i) : NULL;
}
const struct zp_arena_proc *zp_arena_proc_rec(const struct zp_arena *a, uint32_t i)
{
	return i < H(a)->proc_count ? proc_at(a, i) : NULL;
}
const struct zp_arena_job *zp_arena_job_rec(const struct zp_arena *a, uint32_t i)
{
	return i < H(a)->job_count ? job_at(a, i) : NULL;
}
const struct zp_arena_part *zp_arena_part_rec(const struct zp_arena *a, uint32_t j, uint32_t p)
{
	return j < H(a)->job_count && p < H(a)->max_parts ? part_at(a, j, p) : NULL;
}

#define NAME_OF(tab, i) ((unsigned)(i) < sizeof(tab) / sizeof(tab[0]) ? tab[i] : "?")
const char *zp_slot_state_name(unsigned s)
{
	static const char *const t[] = { "FREE", "FILLING", "READY", "COPYING" };
	return NAME_OF(t, s);
}
const char *zp_part_state_name(unsigned s)
{
	static const char *const t[] = { "PENDING", "CLAIMED", "SYNTH", "READY", "PROVING", "DONE", "FAILED" };
	return NAME_OF(t, s);
}
const char *zp_job_state_name(unsigned s)
{
	static const char *const t[] = { "FREE", "WRITING", "ACTIVE", "DONE", "FAILED" };
	return NAME_OF(t, s);
}
const char *zp_role_name(unsigned r)
{
	static const char *const t[] = { "none", "supervisor", "synthd", "gpud", "client", "test" };
	return NAME_OF(t, r);
}
const char *zp_stage_name(unsigned s)
{
	static const char *const t[] = { "claimed", "synth_start", "synth_end", "ready", "copy_start",
					 "copy_end", "gpu_start", "gpu_end", "done" };
	return NAME_OF(t, s);
}
