/*
 * arena.h — zkpipe's shared-memory arena: the one place where synthesizers,
 * GPU provers, the supervisor and the inspector meet.
 *
 * The state words in the arena are the truth; nanomsg messages are only hints.
 * Memory in flight is bounded by construction: slot_count × slot_size bytes,
 * allocated once when the arena is created, never grown.
 *
 * ======================================================================
 * LAYOUT (format zp_arena_format(); every offset a multiple of 64)
 * ======================================================================
 *
 *   offset 0          struct zp_arena_hdr        4096 bytes
 *   hdr.procs_off     struct zp_arena_proc  × proc_count        64 B each
 *   hdr.jobs_off      job records           × job_count   hdr.job_rec_size each:
 *                        struct zp_arena_job (1024 B)
 *                        struct zp_arena_part × max_parts (128 B each)
 *   hdr.slots_off     struct zp_arena_slot  × slot_count        64 B each
 *   hdr.data_off      slot data             × slot_count   hdr.slot_size each
 *                     (data_off and slot_size are multiples of 2 MiB)
 *   hdr.total_size    end (a multiple of 2 MiB)
 *
 * Header (written once by the creator before anyone can attach, except the
 * fields marked atomic):
 *   magic, version     "ZKPIPEAR", the format word zp_arena_format(): ZP_ARENA_VERSION in its
 *                      low byte, a hash of the shared structs' sizes and array bounds above it;
 *                      checked first on attach, so a build whose structs differ refuses the arena.
 *   shape              slot_count, slot_size, job_count, max_parts,
 *                      proc_count, max_attempts, and every offset: checked on
 *                      attach against the file size and the caller's shape.
 *   backing            enum zp_backing actually used; created_ns, creator_pid.
 *   free_seq/_waiters  futex word bumped (release) on every slot → FREE;
 *                      claimants sleep on it. ready_seq likewise for READY.
 *   job_seq            next job id (fetch_add by submitters).
 *   counters           64-bit atomics, relaxed fetch_add by whoever does the
 *                      counted thing; readers see a consistent-enough sum.
 *
 * Slot word (64 bits, changed only by CAS, acq_rel):
 *   bits 0-3 state (FREE FILLING READY COPYING) | 4-23 owner tag | 32-63 gen
 *   FREE → FILLING (synthd; gen+1) → READY (owner none) → COPYING (gpud)
 *        → FREE.  A reclaimer moves FILLING → FREE and COPYING → READY for
 *   a dead owner.  The generation names one occupancy: a handle {idx, gen}
 *   held by a stale owner fails every later CAS (ZP_ESTALE).
 *   The other slot fields (job, part, bytes, filler) are written by the
 *   FILLING owner before its release CAS to READY; readers load the word
 *   with acquire first.  The inspector reads them racily (display only).
 *
 * Owner tag (20 bits): process-table index (12 bits) | low 8 bits of that
 *   entry's generation << 12. ZP_TAG_NONE = all ones.  A reclaimer of entry
 *   {i, g} only touches words whose tag is exactly {i, g & 0xff}, so a new
 *   process registered at index i is never robbed by a late reclaimer.
 *
 * Partition word (64 bits, CAS only):
 *   bits 0-3 state | 4-23 owner tag | 24-31 attempts | 32-63 seq (+1 per CAS)
 *   PENDING → CLAIMED (synthd) → SYNTH (has a slot) → READY → PROVING (gpud)
 *   → DONE; any owned state → FAILED, or → PENDING with attempts+1.
 *   part.slot holds the packed handle of the slot carrying its data; the
 *   reclaimer uses it: a dead owner's partition whose slot is (back to)
 *   READY with that generation becomes READY (no re-synthesis); otherwise
 *   PENDING attempts+1, or FAILED once attempts reaches max_attempts.
 *   Stage timestamps (CLOCK_REALTIME ns) are single-writer: the owner of the
 *   stage.
 *
 * Job word: bits 0-3 state (FREE WRITING ACTIVE DONE FAILED) | 32-63 gen.
 *   A submitter CASes FREE → WRITING (gen+1), fills the record, then stores
 *   ACTIVE with release; claimants read ACTIVE with acquire, so the
 *   immutable fields (id, key, paths, nparts, priority) are safe unlocked.
 *   The first partition to fail claims err_owner by CAS and writes error.
 *
 * Process entry: word (state FREE/INIT/ALIVE/DEAD | gen), pid, start time
 *   (/proc/<pid>/stat field 22, because pids are reused), role, heartbeat.
 *   The registrar CASes FREE → INIT (gen+1), writes the fields, stores ALIVE
 *   (release); heartbeat is written by the process itself.  A reclaimer CASes
 *   ALIVE → DEAD, moves what the tag owns, then DEAD → FREE.
 *   heartbeat_ns is progress, not liveness: the last time the process made
 *   progress (its loop turned, or its busiest worker thread's stage moved), or
 *   a time in the future while it is in a declared long stage (start-up, a key
 *   load): the supervisor's watchdog ([limits] stuck_timeout_s) kills a daemon
 *   whose heartbeat_ns is older than the timeout (pipeline/daemon.c).
 *
 * Ordering rules that keep reclaim safe (numbered in slot.c / job.c):
 *   the slot CAS to READY precedes the partition CAS to READY; the slot CAS
 *   to COPYING precedes the partition CAS to PROVING; a reclaimer handles
 *   slots before partitions.
 *
 * WHO CALLS WHAT
 *   supervisor   zp_arena_create, zp_arena_proc_register, zp_arena_submit_job,
 *                zp_arena_reclaim_dead / zp_arena_reclaim_proc, zp_arena_job_free
 *   synthd       zp_arena_claim_part, zp_arena_claim_slot, zp_arena_slot_data,
 *                zp_arena_mark_ready (or zp_arena_abandon_slot + zp_arena_part_fail)
 *   gpud         zp_arena_take_ready, zp_arena_release_slot, zp_arena_part_stamp,
 *                zp_arena_part_done / zp_arena_part_fail
 *   zkpipe-shm   zp_arena_attach(ZP_ARENA_RDONLY) and the read-only views.
 * All functions are safe from any number of processes and threads at once.
 * After fork without exec a child may use an inherited mapping.
 */
/*
 * CAVEATS
 *   - One build per arena. Every process that attaches must be built from the same arena.h and
 *     keyregion.h: the format word folds in the shared structs' sizes, so another build's arena
 *     (or a build of this version with other struct sizes) is refused with ZP_EVERSION naming
 *     both words. Stop the old build's service before starting an upgraded one; nothing reads
 *     or migrates a live arena across builds.
 *   - Same machine, same ABI. The arena holds raw C structs, atomics and futex words: it is
 *     never put on a network file system, copied to another host or read by a 32-bit or
 *     big-endian process.
 *   - Trust. Whoever can write the arena's file can corrupt it: it is the service user's, mode
 *     ZP_SHM_MODE (shm/backing.c), and a process that can write it is part of the service. Attach
 *     checks the header's own consistency (sizes, offsets, file length), not a writer's intent.
 *   - Do not fork a process that holds a slot or a partition and let both use the handles: a
 *     handle names one owner (its process entry); after fork without exec only one of the two
 *     may go on using it. A child may use an inherited mapping for its own registration.
 *   - Pids are reused: liveness is pid + start time (/proc/<pid>/stat field 22), never the pid
 *     alone; a process table entry that is not ALIVE must not be read as one.
 *   - The shared words are read with zp_arena_load64/32 (acquire). Fields that are not atomic
 *     are only stable in the states the LAYOUT above names (a job's fields once it is ACTIVE,
 *     a slot's while you own it); display code may read them racily, decisions may not.
 *   - Memory is bounded at creation (slot_count x slot_size) and never grows: a job that needs
 *     bigger slots needs a new arena (the supervisor re-creates it, migrating its jobs).
 *   - No process may hold a futex wait or a CAS loop on a word while it is being reclaimed by
 *     another: a reclaimer only touches words whose owner tag is the dead entry's.
 */
#ifndef ZP_SHM_ARENA_H
#define ZP_SHM_ARENA_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define ZP_ARENA_MAGIC   0x5241455049504b5aull /* "ZKPIPEAR" little-endian */
#define ZP_ARENA_VERSION 2u                    /* 2: the format word (zp_arena_format) */
#define ZP_ARENA_ALIGN   (2u << 20)            /* slot data alignment: 2 MiB */
#define ZP_ARENA_NAME_MAX 48

#define ZP_ARENA_MAX_SLOTS 65535u
#define ZP_ARENA_MAX_JOBS  65535u
#define ZP_ARENA_MAX_PARTS 4096u
#define ZP_ARENA_MAX_PROCS 4095u

#define ZP_TAG_NONE 0xfffffu

enum zp_backing {
	ZP_BACKING_AUTO = 0,   /* try the others in this order */
	ZP_BACKING_HUGETLBFS,  /* named file on a hugetlbfs mount */
	ZP_BACKING_MEMFD,      /* memfd_create(MFD_HUGETLB) */
	ZP_BACKING_THP,        /* /dev/shm file + MADV_HUGEPAGE */
	ZP_BACKING_SHM,        /* /dev/shm file, pre-faulted */
	ZP_BACKING_COUNT,
};

enum zp_slot_state { ZP_SLOT_FREE, ZP_SLOT_FILLING, ZP_SLOT_READY, ZP_SLOT_COPYING };
enum zp_part_state {
	ZP_PART_PENDING, ZP_PART_CLAIMED, ZP_PART_SYNTH, ZP_PART_READY,
	ZP_PART_PROVING, ZP_PART_DONE, ZP_PART_FAILED,
};
enum zp_job_state { ZP_JOB_FREE, ZP_JOB_WRITING, ZP_JOB_ACTIVE, ZP_JOB_DONE, ZP_JOB_FAILED };
enum zp_proc_state { ZP_PROC_FREE, ZP_PROC_ALIVE, ZP_PROC_DEAD, ZP_PROC_INIT };
enum zp_role { ZP_ROLE_NONE, ZP_ROLE_SUPERVISOR, ZP_ROLE_SYNTHD, ZP_ROLE_GPUD, ZP_ROLE_CLIENT, ZP_ROLE_TEST };

/* Per-partition stage timestamps, CLOCK_REALTIME ns, 0 = not reached. */
enum zp_stage {
	ZP_TS_CLAIMED, ZP_TS_SYNTH_START, ZP_TS_SYNTH_END, ZP_TS_READY,
	ZP_TS_COPY_START, ZP_TS_COPY_END, ZP_TS_GPU_START, ZP_TS_GPU_END,
	ZP_TS_DONE, ZP_TS_COUNT,
};

/* Counters in the header, in display order. X(name, help). */
#define ZP_ARENA_COUNTERS(X) \
	X(parts_synthesized, "partitions synthesized (marked READY)") \
	X(parts_proved,      "partitions proved (DONE)") \
	X(parts_failed,      "partitions FAILED for good") \
	X(parts_retried,     "partitions sent back to PENDING") \
	X(slots_filled,      "slots FILLING -> READY") \
	X(slots_released,    "slots COPYING -> FREE") \
	X(slots_reclaimed,   "slots taken back from dead owners") \
	X(bytes_written,     "bytes written into slots") \
	X(free_slot_waits,   "claims that had to wait for a FREE slot") \
	X(free_slot_wait_ns, "time spent waiting for a FREE slot (ns)") \
	X(synth_started,     "stage: synthesis started (slot claimed)") \
	X(synth_done,        "stage: synthesis done (slot READY)") \
	X(abc_released,      "stage: a/b/c released (slot freed by gpud)") \
	X(proof_finalized,   "stage: proof finalized (partition DONE)") \
	X(jobs_submitted,    "jobs accepted") \
	X(jobs_done,         "jobs finished (DONE or FAILED)")

struct zp_arena_counters {
#define ZP_X(n, h) _Atomic uint64_t n;
	ZP_ARENA_COUNTERS(ZP_X)
#undef ZP_X
};

struct zp_arena_hdr {
	uint64_t magic;
	uint32_t version;
	uint32_t backing;          /* enum zp_backing in use */
	uint64_t total_size;
	uint64_t slot_size;
	uint32_t slot_count, job_count, max_parts, proc_count;
	uint32_t max_attempts, creator_pid;
	uint64_t procs_off, jobs_off, slots_off, data_off;
	uint64_t job_rec_size;
	uint64_t created_ns;
	char name[ZP_ARENA_NAME_MAX];
	char _pad0[256 - 152];
	/* futex words, each on its own line */
	_Alignas(64) _Atomic uint32_t free_seq;
	_Atomic uint32_t free_waiters;
	_Alignas(64) _Atomic uint32_t ready_seq;
	_Atomic uint32_t ready_waiters;
	_Alignas(64) _Atomic uint64_t job_seq;
	_Alignas(64) struct zp_arena_counters counters;
	char _pad1[4096 - 448 - sizeof(struct zp_arena_counters)];
};

struct zp_arena_proc {
	_Atomic uint64_t word;      /* state | gen << 32 */
	int32_t pid;
	uint32_t role;
	uint64_t start_time;        /* /proc/<pid>/stat field 22, clock ticks */
	_Atomic uint64_t heartbeat_ns;
	uint64_t registered_ns;
	char name[24];
};

struct zp_arena_slot {
	_Atomic uint64_t word;      /* state | tag << 4 | gen << 32 */
	_Atomic uint64_t state_ns;  /* last transition, CLOCK_REALTIME */
	uint64_t job;               /* packed job handle carried, written while FILLING */
	uint64_t job_id;
	uint32_t part;
	uint32_t filler;            /* tag of the process that filled it */
	uint64_t bytes;             /* payload bytes written */
	char _pad[16];
};

struct zp_arena_part {
	_Atomic uint64_t word;      /* state | tag << 4 | attempts << 24 | seq << 32 */
	_Atomic uint64_t slot;      /* packed slot handle, 0 = none */
	_Atomic uint64_t ts[ZP_TS_COUNT];
	uint64_t bytes;
	uint32_t last_owner_pid;
	char _pad[128 - 8 * (3 + ZP_TS_COUNT) - 4];
};

#define ZP_KEY_ID_MAX 64
#define ZP_PATH_MAX   368
#define ZP_ERRTXT_MAX 160

struct zp_arena_job {
	_Atomic uint64_t word;      /* state | gen << 32 */
	uint64_t id;
	uint32_t nparts, priority;
	uint64_t submit_ns;
	_Atomic uint64_t done_ns;
	_Atomic uint32_t parts_done, parts_failed;
	_Atomic uint32_t err_owner; /* 0, then 1 once a failure owns error[] */
	uint32_t flags;             /* ZP_JOB_EXTERNAL */
	char key_id[ZP_KEY_ID_MAX];
	char inputs[ZP_PATH_MAX];
	char output[ZP_PATH_MAX];
	char error[ZP_ERRTXT_MAX];
	char _pad[1024 - 56 - ZP_KEY_ID_MAX - 2 * ZP_PATH_MAX - ZP_ERRTXT_MAX];
	/* struct zp_arena_part parts[max_parts] follows */
};

_Static_assert(sizeof(struct zp_arena_hdr) == 4096, "header is one page");
_Static_assert(offsetof(struct zp_arena_hdr, free_seq) == 256, "futex line");
_Static_assert(offsetof(struct zp_arena_hdr, counters) == 448, "counters line");
_Static_assert(sizeof(struct zp_arena_proc) == 64, "proc record is one line");
_Static_assert(sizeof(struct zp_arena_slot) == 64, "slot record is one line");
_Static_assert(sizeof(struct zp_arena_part) == 128, "partition record is two lines");
_Static_assert(sizeof(struct zp_arena_job) == 1024, "job record head");

/* The format word of a shared-memory object: `version` (the layout's number, bumped by hand when
 * the meaning of a field changes) in the low byte, above it an FNV-1a hash of v[0..n) — the
 * shared structs' sizes, offsets and array bounds — so two builds whose structs differ write
 * different words even when nobody bumped the version. */
static inline uint32_t zp_format_fold(uint32_t version, const uint32_t *v, unsigned n)
{
	uint32_t h = 2166136261u ^ version;
	for (unsigned i = 0; i < n; i++) {
		h ^= v[i];
		h *= 16777619u;
	}
	return (h & 0xffffff00u) | (version & 0xffu);
}
/* The sizes the arena's format word folds in, in this order (tests fold a changed list). */
#define ZP_ARENA_FORMAT_SIZES { \
	(uint32_t)sizeof(struct zp_arena_hdr), (uint32_t)offsetof(struct zp_arena_hdr, counters), \
	(uint32_t)sizeof(struct zp_arena_counters), (uint32_t)sizeof(struct zp_arena_proc), \
	(uint32_t)sizeof(struct zp_arena_slot), (uint32_t)sizeof(struct zp_arena_part), \
	(uint32_t)sizeof(struct zp_arena_job), ZP_TS_COUNT, ZP_KEY_ID_MAX, ZP_PATH_MAX, ZP_ERRTXT_MAX, \
	ZP_ARENA_NAME_MAX, (uint32_t)offsetof(struct zp_arena_job, error) }
/* This build's arena format word: what zp_arena_create writes and zp_arena_attach requires. */
static inline uint32_t zp_arena_format(void)
{
	static const uint32_t v[] = ZP_ARENA_FORMAT_SIZES;
	return zp_format_fold(ZP_ARENA_VERSION, v, sizeof v / sizeof v[0]);
}

/* ---------------------------------------------------------------- handles */
typedef struct { uint32_t idx, gen; } zp_slot_h;
typedef struct { uint32_t idx, gen; } zp_job_h;
typedef struct { zp_job_h job; uint32_t part; } zp_part_h;
typedef struct { uint32_t idx, gen; } zp_proc_h;

struct zp_arena; /* process-local view: mapping, fd, flags */

/* ---------------------------------------------------------------- lifecycle */
struct zp_arena_params {
	const char *name;          /* [A-Za-z0-9._-], 1..47 chars, no leading '.' */
	uint32_t slot_count;
	uint64_t slot_size;        /* rounded up to 2 MiB */
	uint32_t job_count;
	uint32_t max_parts;        /* partitions per job */
	uint32_t proc_count;
	uint32_t max_attempts;     /* 0 = 3 */
	enum zp_backing backing;   /* AUTO, or force one kind */
	const char *hugetlbfs_dir; /* NULL: $ZKPIPE_HUGETLBFS, then libhugetlbfs */
	unsigned flags;            /* ZP_ARENA_REPLACE */
};
#define ZP_ARENA_REPLACE 1u    /* create: remove an existing arena of that name */

#define ZP_ARENA_RDONLY  1u    /* attach: PROT_READ mapping */

/* The shape an attacher expects; zero fields are not checked. */
struct zp_arena_shape {
	uint32_t slot_count;
	uint64_t slot_size;
	uint32_t job_count, max_parts, proc_count;
};

/* Validate params and compute the total mapping size. 0 or ZP_ERANGE/-EINVAL. */
int zp_arena_size(const struct zp_arena_params *p, uint64_t *total);

/* Create and map. Errors: -EINVAL (name), ZP_ERANGE (sizes), -EEXIST,
 * -ENOMEM / ZP_EFULL (pool too small: checked before mapping), -errno. */
int zp_arena_create(const struct zp_arena_params *p, struct zp_arena **out);

/* Attach by name. ZP_EVERSION on another format, ZP_EMISMATCH on another
 * shape, ZP_ETRUNC on a file shorter than its header says, -ENOENT. */
int zp_arena_attach(const char *name, unsigned flags, const struct zp_arena_shape *expect,
		    const char *hugetlbfs_dir, struct zp_arena **out);
/* Attach an inherited fd (e.g. memfd passed across exec). */
int zp_arena_attach_fd(int fd, unsigned flags, const struct zp_arena_shape *expect,
		       struct zp_arena **out);

void zp_arena_close(struct zp_arena *a);
/* Remove the name (file or locator). Mappings stay valid until closed. */
int zp_arena_destroy(const char *name, const char *hugetlbfs_dir);

const struct zp_arena_hdr *zp_arena_hdr(const struct zp_arena *a);
int zp_arena_fd(const struct zp_arena *a);
const char *zp_backing_name(enum zp_backing b);
/* Whether a backing could be used now (pages free, mount present). 0 or -errno. */
int zp_backing_probe(enum zp_backing b, const char *hugetlbfs_dir, uint64_t bytes);

/* As root: make sure `dir` is a hugetlbfs mount with `pages` 2 MiB pages free,
 * raising /proc/sys/vm/nr_hugepages if needed. *old_nr gets the previous value
 * so the caller can restore it. */
int zp_hugetlbfs_prepare(const char *dir, uint64_t pages, long *old_nr);
int zp_hugetlbfs_set_nr(long nr);

/* ---------------------------------------------------------------- processes */
/* Register pid (0 = caller) with its start time. */
int zp_arena_proc_register(struct zp_arena *a, int pid, enum zp_role role,
			   const char *name, zp_proc_h *out);
void zp_arena_proc_heartbeat(struct zp_arena *a, zp_proc_h me);
/* Store heartbeat_ns = ns (CLOCK_REALTIME): an older one (a worker's last progress) or a later
 * one (a declared long stage's allowance). */
void zp_arena_proc_heartbeat_at(struct zp_arena *a, zp_proc_h me, uint64_t ns);
/* 1 alive, 0 dead (gone, zombie, or pid reused), ZP_ESTALE if the entry moved on. */
int zp_arena_proc_alive(const struct zp_arena *a, uint32_t idx);
/* Unregister a live process that owns nothing (clean exit). */
int zp_arena_proc_unregister(struct zp_arena *a, zp_proc_h me);
/* Take back everything entry `p` owns and free the entry. Idempotent. Returns
 * the number of slots + partitions moved, or <0. */
int zp_arena_reclaim_proc(struct zp_arena *a, zp_proc_h p);
/* The same, with the reason a partition that runs out of attempts fails with ("synthd.0
 * OOM-killed at 48 MiB limit"); NULL = "owner died". */
int zp_arena_reclaim_proc_why(struct zp_arena *a, zp_proc_h p, const char *why);
/* Reclaim every registered process that is no longer alive. Returns how many. */
int zp_arena_reclaim_dead(struct zp_arena *a);
uint64_t zp_proc_start_time(int pid); /* 0 if gone */

/* ---------------------------------------------------------------- jobs */
struct zp_job_spec {
	const char *key_id;
	uint32_t nparts;
	uint32_t priority;          /* higher first */
	const char *inputs, *output;
	uint32_t flags;             /* ZP_JOB_EXTERNAL */
	uint64_t id;                /* 0: the next id (job_seq); else this id (a job migrated from an
	                             * arena of another shape), and job_seq moves past it */
	const uint8_t *done;        /* NULL, or nparts flags: partitions already DONE (migration) */
};
/* Job flag: the submitter fills the partitions itself (libzkpipe-supraseal: synthesis done in
 * the caller's process). zp_arena_claim_part never picks them; the submitter claims each one
 * by index with zp_arena_claim_part_at, then uses the synthd calls (claim_slot, mark_ready). */
#define ZP_JOB_EXTERNAL 1u
int zp_arena_submit_job(struct zp_arena *a, const struct zp_job_spec *s, zp_job_h *h, uint64_t *id);
/* Raise the next job id to at least `first` (ids stay unique across arena re-creation:
 * the run directory remembers the ids it has handed out). Never lowers it. */
void zp_arena_job_ids_from(struct zp_arena *a, uint64_t first);
/* DONE → FAILED with `why` (the job's output could not be completed, e.g. proofs.json not
 * writable). ZP_ESTALE when the handle moved on or the job is not DONE. */
int zp_arena_job_fail_done(struct zp_arena *a, zp_job_h h, const char *why);
/* ACTIVE, DONE or FAILED job with this id; -ENOENT otherwise. */
int zp_arena_find_job(const struct zp_arena *a, uint64_t id, zp_job_h *h);
/* enum zp_job_state of a live handle, or ZP_ESTALE. */
int zp_arena_job_state(const struct zp_arena *a, zp_job_h h);
/* Return a DONE/FAILED job's record to FREE (after the client has its result). */
int zp_arena_job_free(struct zp_arena *a, zp_job_h h);
const struct zp_arena_job *zp_arena_job_rec(const struct zp_arena *a, uint32_t idx);
const struct zp_arena_part *zp_arena_part_rec(const struct zp_arena *a, uint32_t job, uint32_t part);

/* ---------------------------------------------------------------- synthd */
/* Claim the first PENDING partition (highest priority, oldest job, lowest
 * partition). -EAGAIN if none. */
int zp_arena_claim_part(struct zp_arena *a, zp_proc_h me, zp_part_h *out);
/* Claim one given PENDING partition (PENDING → CLAIMED by me), any job kind. ZP_ESTALE when it
 * is not PENDING or its job is not that ACTIVE job any more. */
int zp_arena_claim_part_at(struct zp_arena *a, zp_proc_h me, zp_part_h want);
/* Claim a FREE slot for a CLAIMED partition, waiting up to timeout_ms
 * (-1 forever) without spinning. -ETIMEDOUT, ZP_ESTALE (partition taken). */
int zp_arena_claim_slot(struct zp_arena *a, zp_proc_h me, zp_part_h part, int timeout_ms,
			zp_slot_h *out);
void *zp_arena_slot_data(const struct zp_arena *a, zp_slot_h s);
uint64_t zp_arena_slot_size(const struct zp_arena *a);
/* FILLING → READY, then the partition SYNTH → READY. */
int zp_arena_mark_ready(struct zp_arena *a, zp_proc_h me, zp_slot_h s, uint64_t bytes);
/* FILLING → FREE without a result (synthesis failed); partition untouched. */
int zp_arena_abandon_slot(struct zp_arena *a, zp_proc_h me, zp_slot_h s);

/* ---------------------------------------------------------------- gpud */
/* Take the READY slot of the oldest job / lowest partition: slot → COPYING,
 * partition → PROVING. Waits up to timeout_ms. -ETIMEDOUT if none. */
int zp_arena_take_ready(struct zp_arena *a, zp_proc_h me, int timeout_ms,
			zp_slot_h *slot, zp_part_h *part);
/* COPYING → FREE (a/b/c no longer needed); wakes a waiting claimant. */
int zp_arena_release_slot(struct zp_arena *a, zp_proc_h me, zp_slot_h s);
/* Record a stage time for a partition you own. */
void zp_arena_part_stamp(struct zp_arena *a, zp_part_h p, enum zp_stage st);
/* PROVING → DONE; the job becomes DONE with its last partition. */
int zp_arena_part_done(struct zp_arena *a, zp_proc_h me, zp_part_h p);
/* Owned partition → PENDING (retry, attempts+1) or FAILED (no retry, or out of
 * attempts; the job becomes FAILED). Returns the new state. */
int zp_arena_part_fail(struct zp_arena *a, zp_proc_h me, zp_part_h p, int retry, const char *why);

/* ---------------------------------------------------------------- inspection */
/* Readers of the shared words other modules look at (a record's word, state_ns, ts[], done_ns,
 * parts_done / parts_failed, heartbeat_ns, the counters), through the const views below: a
 * const pointer in, the value out, never a cast that drops const. Memory order acquire: it
 * pairs with the release (or seq_cst) store or RMW that published the value, so what the writer
 * wrote before it (a job's fields before its word turns ACTIVE) is visible to the reader after
 * it. Nothing more is promised: a reader that loads two words may see them from different
 * moments (the record may move on in between). */
static inline uint64_t zp_arena_load64(const _Atomic uint64_t *w) { return atomic_load_explicit(w, memory_order_acquire); }
static inline uint32_t zp_arena_load32(const _Atomic uint32_t *w) { return atomic_load_explicit(w, memory_order_acquire); }
static inline unsigned zp_word_state(uint64_t w) { return (unsigned)(w & 0xf); }
static inline uint32_t zp_word_tag(uint64_t w) { return (uint32_t)((w >> 4) & 0xfffff); }
static inline uint32_t zp_word_gen(uint64_t w) { return (uint32_t)(w >> 32); }
static inline unsigned zp_part_attempts(uint64_t w) { return (unsigned)((w >> 24) & 0xff); }
static inline uint32_t zp_tag_idx(uint32_t tag) { return tag & 0xfff; }

const struct zp_arena_slot *zp_arena_slot_rec(const struct zp_arena *a, uint32_t idx);
const struct zp_arena_proc *zp_arena_proc_rec(const struct zp_arena *a, uint32_t idx);
const char *zp_slot_state_name(unsigned s);
const char *zp_part_state_name(unsigned s);
const char *zp_job_state_name(unsigned s);
const char *zp_role_name(unsigned r);
const char *zp_stage_name(unsigned s);
uint64_t zp_now_ns(void); /* CLOCK_REALTIME */

#endif
