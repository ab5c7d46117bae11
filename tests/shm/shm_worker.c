/*
 * shm_worker — helper program the shm tests fork+exec. One mode per role:
 *   synth NAME TALLY      claim partitions and slots, fill, mark READY until SIGTERM
 *   gpu NAME TALLY        take READY slots, check, release, mark DONE until SIGTERM
 *   hold-fill NAME        claim a partition and a slot, write half, print "ok", pause
 *   hold-copy NAME        take a READY slot, print "ok", pause
 *   reclaim NAME          reclaim dead processes, print "ok <n>"
 *   verify NAME KIND BYTE attach read-only, check backing and data, check writes fault
 * Exit 0 when every check held, 1 otherwise (message on stderr).
 */
#include "tshm.h"

#include <fcntl.h>
#include <sys/mman.h>

/* Under AddressSanitizer the "write to a read-only arena" child must still die of the SIGSEGV
 * itself (the parent checks the signal), not of ASAN's report of it (SIGABRT). */
#if defined(__SANITIZE_ADDRESS__)
#define SHM_WORKER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHM_WORKER_ASAN 1
#endif
#endif
#ifdef SHM_WORKER_ASAN
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "handle_segv=0"; }
#endif

#define PAYLOAD 4096u

/* What a filler writes at the start of a slot; holders counts owners. */
struct stamp {
	_Atomic uint32_t holders;
	uint32_t part;
	uint64_t job_id;
	uint32_t gen, pad;
};

static volatile sig_atomic_t stop;
static void on_term(int s) { stop = 1; }

static uint8_t pattern(uint64_t job, uint32_t part, uint32_t gen, uint32_t i)
{
	return (uint8_t)(job * 31 + part * 7 + gen * 3 + i);
}

static uint32_t *map_tally(const char *path)
{
	int fd = open(path, O_RDWR);
	REQUIRE(fd >= 0);
	off_t n = lseek(fd, 0, SEEK_END);
	void *m = mmap(NULL, (size_t)n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIRE(m != MAP_FAILED);
	close(fd);
	return m;
}

static void fill(struct zp_arena *a, zp_slot_h s, zp_part_h p, int half)
{
	struct stamp *st = zp_arena_slot_data(a, s);
	uint64_t id = zp_arena_job_rec(a, p.job.idx)->id;
	if (half) /* hold modes: a killed predecessor may have left its mark */
		atomic_store(&st->holders, 0);
	if (atomic_fetch_add(&st->holders, 1) != 0) {
		fprintf(stderr, "slot %u gen %u: second holder while FILLING\n", s.idx, s.gen);
		exit(1);
	}
	st->job_id = id, st->part = p.part, st->gen = s.gen;
	uint8_t *d = (uint8_t *)(st + 1);
	uint32_t n = half ? PAYLOAD / 2 : PAYLOAD;
	for (uint32_t i = 0; i < n; i++)
		d[i] = pattern(id, p.part, s.gen, i);
}

static int synth(struct zp_arena *a, zp_proc_h me)
{
	while (!stop) {
		zp_part_h p;
		zp_slot_h s;
		if (zp_arena_claim_part(a, me, &p) < 0) {
			usleep(500);
			continue;
		}
		int r;
		while ((r = zp_arena_claim_slot(a, me, p, 200, &s)) == -ETIMEDOUT)
			;
		REQUIRE(r == 0);
		fill(a, s, p, 0);
		if (rand() % 4 == 0)
			usleep((useconds_t)(rand() % 200));
		struct stamp *st = zp_arena_slot_data(a, s);
		REQUIRE(atomic_fetch_sub(&st->holders, 1) == 1);
		REQUIRE(zp_arena_mark_ready(a, me, s, PAYLOAD) == 0);
	}
	return 0;
}

static int check_slot(struct zp_arena *a, zp_slot_h s, zp_part_h p)
{
	struct stamp *st = zp_arena_slot_data(a, s);
	uint64_t id = zp_arena_job_rec(a, p.job.idx)->id;
	if (atomic_fetch_add(&st->holders, 1) != 0 || st->job_id != id || st->part != p.part ||
	    st->gen != s.gen) {
		fprintf(stderr, "slot %u: holders/job %llu part %u gen %u, expected job %llu part %u gen %u\n",
			s.idx, (unsigned long long)st->job_id, st->part, st->gen,
			(unsigned long long)id, p.part, s.gen);
		return 1;
	}
	const uint8_t *d = (const uint8_t *)(st + 1);
	for (uint32_t i = 0; i < PAYLOAD; i++)
		if (d[i] != pattern(id, p.part, s.gen, i)) {
			fprintf(stderr, "slot %u: payload byte %u wrong\n", s.idx, i);
			return 1;
		}
	atomic_fetch_sub(&st->holders, 1);
	return 0;
}

static int gpu(struct zp_arena *a, zp_proc_h me, uint32_t *tally)
{
	uint32_t mp = zp_arena_hdr(a)->max_parts;
	while (!stop) {
		zp_slot_h s;
		zp_part_h p;
		int r = zp_arena_take_ready(a, me, 100, &s, &p);
		if (r == -ETIMEDOUT)
			continue;
		REQUIRE(r == 0);
		if (check_slot(a, s, p))
			return 1;
		uint64_t id = zp_arena_job_rec(a, p.job.idx)->id;
		REQUIRE(zp_arena_release_slot(a, me, s) == 0);
		atomic_fetch_add((_Atomic uint32_t *)&tally[id * mp + p.part], 1);
		REQUIRE(zp_arena_part_done(a, me, p) == 0);
	}
	return 0;
}

static int hold_fill(struct zp_arena *a, zp_proc_h me)
{
	zp_part_h p;
	zp_slot_h s;
	REQUIRE(zp_arena_claim_part(a, me, &p) == 0);
	REQUIRE(zp_arena_claim_slot(a, me, p, 1000, &s) == 0);
	fill(a, s, p, 1);
	printf("ok %u %u %u %u\n", s.idx, s.gen, p.job.idx, p.part);
	fflush(stdout);
	for (;;)
		pause();
}

static int hold_copy(struct zp_arena *a, zp_proc_h me)
{
	zp_part_h p;
	zp_slot_h s;
	REQUIRE(zp_arena_take_ready(a, me, 1000, &s, &p) == 0);
	printf("ok %u %u %u %u\n", s.idx, s.gen, p.job.idx, p.part);
	fflush(stdout);
	for (;;)
		pause();
}

/* Read-only view: the data is there, the kind is right, and a write faults. */
static int verify(const char *name, int kind, int byte)
{
	struct zp_arena *a;
	int r = zp_arena_attach(name, ZP_ARENA_RDONLY, NULL, NULL, &a);
	if (r < 0) {
		fprintf(stderr, "attach %s: %s\n", name, zp_err_msg());
		return 1;
	}
	if ((int)zp_arena_hdr(a)->backing != kind) {
		fprintf(stderr, "backing %u, expected %d\n", zp_arena_hdr(a)->backing, kind);
		zp_arena_close(a);
		return 1;
	}
	zp_slot_h s = { zp_arena_hdr(a)->slot_count - 1, 0 };
	volatile uint8_t *d = zp_arena_slot_data(a, s);
	uint64_t n = zp_arena_slot_size(a);
	if (d[0] != byte || d[n - 1] != byte) {
		fprintf(stderr, "data %x %x, expected %x\n", d[0], d[n - 1], byte);
		zp_arena_close(a);
		return 1;
	}
	pid_t c = fork();
	if (c == 0) {
		d[0] = 0; /* must fault: the mapping is PROT_READ */
		_exit(0);
	}
	int st = t_wait(c);
	if (st != 128 + SIGSEGV) {
		fprintf(stderr, "write to read-only arena: child status %d\n", st);
		zp_arena_close(a);
		return 1;
	}
	zp_arena_close(a);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	const char *mode = argv[1], *name = argv[2];
	if (!strcmp(mode, "verify"))
		return argc < 5 ? 2 : verify(name, atoi(argv[3]), atoi(argv[4]));
	signal(SIGTERM, on_term);
	srand((unsigned)getpid());
	struct zp_arena *a;
	REQUIRE(zp_arena_attach(name, 0, NULL, NULL, &a) == 0);
	if (!strcmp(mode, "reclaim")) {
		int n = zp_arena_reclaim_dead(a);
		printf("ok %d\n", n);
		zp_arena_close(a);
		return n < 0;
	}
	zp_proc_h me;
	REQUIRE(zp_arena_proc_register(a, 0, ZP_ROLE_TEST, mode, &me) == 0);
	int r = 2;
	if (!strcmp(mode, "synth"))
		r = synth(a, me);
	else if (!strcmp(mode, "gpu") && argc > 3)
		r = gpu(a, me, map_tally(argv[3]));
	else if (!strcmp(mode, "hold-fill"))
		r = hold_fill(a, me);
	else if (!strcmp(mode, "hold-copy"))
		r = hold_copy(a, me);
	zp_arena_proc_unregister(a, me);
	zp_arena_close(a);
	return r;
}
