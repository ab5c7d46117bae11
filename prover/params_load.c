/*
 * params_load.c — .params at disk speed (params_load.h): an io_uring reader thread and decoding
 * threads joined by two queues of chunk buffers (free → reader → ready → decoder → free).
 */
#include "params_load.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "knobs.h"
#include "par.h"
#include "progress.h"
#include "serialize.h"
#include "zp_err.h"
#include "zp_file.h"

#define G1B 96u
#define G2B 192u
#define HEAD (3u * G1B + 3u * G2B)  /* alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2 */
#define CHUNK ((size_t)1 << 20)     /* a chunk: whole points, at most this many bytes (~0.3 s of checks) */
#define GPU_CHUNK ((size_t)16 << 20) /* on the GPU: ~175k G1 points a launch, 8 workers in flight */
#define GPU_WORKERS 8u
#define ALIGN 4096u
#define QD 32u

static const char *const vec_name[6] = { "IC", "h", "l", "a", "b_g1", "b_g2" };

/* params_load_cuda.c's, in programs that link the CUDA prover (prover/backends.c says why weakly) */
int zp_params_gpu_open(zp_params_gpu **w, size_t chunk) __attribute__((weak));
int zp_params_gpu_decode(zp_params_gpu *w, int g2, const void *src, uint64_t n, void *dst, bool no_subgroup,
			 uint64_t *bad) __attribute__((weak));
void zp_params_gpu_close(zp_params_gpu *w) __attribute__((weak));
int zp_params_gpu_host_alloc(void **p, size_t n) __attribute__((weak));
void zp_params_gpu_host_free(void *p) __attribute__((weak));

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* ---- the work: chunks of whole points of one vector ---- */
struct chunk {
	unsigned vec;
	uint64_t first, n;         /* points */
	uint64_t off;              /* file offset of the first point */
};

struct buf {
	zp_file_req rq;            /* the read issued (aligned for O_DIRECT: rq.off, rq.len): zp_file.h */
	uint8_t *mem;              /* CHUNK + 2 * ALIGN, aligned */
	struct chunk ck;
	struct buf *next;
};

struct loader {
	const char *path;
	const zp_params_info *c;
	const zp_params_dst *d;
	unsigned opts;             /* ZP_SER_* for the decoders */
	bool gpu;                  /* decoders are GPU workers */
	size_t chunk;
	pthread_mutex_t mu;
	pthread_cond_t cv_ready, cv_free;
	struct buf *free_q, *ready_q, *ready_tail;
	bool done_reading, stop;
	int err;                   /* first error; err_* say where */
	uint64_t err_chunk, err_index;
	unsigned err_vec;
	uint64_t points;
	char msg[256];
};

static void *dst_of(const struct loader *L, unsigned v)
{
	void *p[6] = { L->d->ic, L->d->h, L->d->l, L->d->a, L->d->b1, L->d->b2 };
	return p[v];
}

static uint64_t n_of(const zp_params_info *c, unsigned v)
{
	const uint32_t n[6] = { c->n_ic, c->n_h, c->n_l, c->n_a, c->n_b1, c->n_b2 };
	return n[v];
}

static uint64_t off_of(const zp_params_info *c, unsigned v)
{
	const uint64_t o[6] = { c->off_ic, c->off_h, c->off_l, c->off_a, c->off_b1, c->off_b2 };
	return o[v];
}

/* The chunk list, in file order. */
static struct chunk *plan_chunks(const zp_params_info *c, size_t chunk, size_t *nk)
{
	size_t k = 0, cap = 16;
	struct chunk *ck = malloc(cap * sizeof *ck);
	for (unsigned v = 0; ck && v < 6; v++) {
		uint64_t el = v == 5 ? G2B : G1B, per = chunk / el, n = n_of(c, v);
		for (uint64_t i = 0; i < n; i += per) {
			if (k == cap && !(ck = realloc(ck, (cap *= 2) * sizeof *ck)))
				return NULL;
			ck[k++] = (struct chunk){ v, i, n - i < per ? n - i : per, off_of(c, v) + i * el };
		}
	}
	*nk = k;
	return ck;
}

/* Keep the lowest (vector, index) error: the one a sequential reader would have met first. */
static void set_err(struct loader *L, int rc, unsigned vec, uint64_t idx, const char *what)
{
	pthread_mutex_lock(&L->mu);
	if (!L->err || vec < L->err_vec || (vec == L->err_vec && idx < L->err_index)) {
		L->err = rc;
		L->err_vec = vec;
		L->err_index = idx;
		snprintf(L->msg, sizeof L->msg, "%s", what);
	}
	L->stop = true;
	pthread_cond_broadcast(&L->cv_ready);
	pthread_cond_broadcast(&L->cv_free);
	pthread_mutex_unlock(&L->mu);
}

/* Decode one chunk's points from its buffer into the destination, each fully checked. */
static void decode(struct loader *L, const struct buf *b)
{
	const struct chunk *ck = &b->ck;
	const uint8_t *src = b->mem + (ck->off - b->rq.off);
	bool g2 = ck->vec == 5;
	for (uint64_t i = 0; i < ck->n; i++) {
		int rc = g2 ? zp_g2_from_uncompressed((zp_g2_affine *)dst_of(L, 5) + ck->first + i, src + i * G2B, L->opts)
			    : zp_g1_from_uncompressed((zp_g1_affine *)dst_of(L, ck->vec) + ck->first + i, src + i * G1B, L->opts);
		if (rc) {
			set_err(L, rc, ck->vec, ck->first + i, zp_strerror(rc));
			return;
		}
	}
	zp_progress_add(ck->n * (g2 ? G2B : G1B));
}

/* The same on the GPU (params_load_cuda.c): a bad point is re-decoded on the CPU, whose message names
 * it exactly as the CPU path would — and which must agree that it is bad. */
static void decode_gpu(struct loader *L, zp_params_gpu *w, const struct buf *b)
{
	const struct chunk *ck = &b->ck;
	const uint8_t *src = b->mem + (ck->off - b->rq.off);
	bool g2 = ck->vec == 5;
	uint64_t el = g2 ? G2B : G1B, bad = 0;
	uint8_t *dst = (uint8_t *)dst_of(L, ck->vec) + ck->first * el;
	int rc = zp_params_gpu_decode(w, g2, src, ck->n, dst, (L->opts & ZP_SER_NO_SUBGROUP) != 0, &bad);
	if (rc < 0) {
		set_err(L, rc, ck->vec, ck->first, zp_err_msg());
		return;
	}
	if (rc > 0) {
		uint8_t tmp[sizeof(zp_g2_affine)];
		int crc = g2 ? zp_g2_from_uncompressed((zp_g2_affine *)tmp, src + bad * el, L->opts)
			     : zp_g1_from_uncompressed((zp_g1_affine *)tmp, src + bad * el, L->opts);
		if (crc)
			set_err(L, crc, ck->vec, ck->first + bad, zp_strerror(crc));
		else
			set_err(L, ZP_EMISMATCH, ck->vec, ck->first + bad, "the GPU rejects it (status %d) but the CPU accepts it");
		return;
	}
	zp_progress_add(ck->n * el);
}

static void *decoder(void *arg)
{
	struct loader *L = arg;
	zp_params_gpu *w = NULL;
	if (L->gpu) {
		int rc = zp_params_gpu_open(&w, L->chunk);
		if (rc)
			set_err(L, rc, 0, 0, zp_err_msg());
	}
	pthread_mutex_lock(&L->mu);
	for (;;) {
		while (!L->ready_q && !L->done_reading && !L->stop)
			pthread_cond_wait(&L->cv_ready, &L->mu);
		struct buf *b = L->ready_q;
		if (!b || L->stop)
			break;
		L->ready_q = b->next;
		if (!L->ready_q)
			L->ready_tail = NULL;
		pthread_mutex_unlock(&L->mu);
		if (w)
			decode_gpu(L, w, b);
		else
			decode(L, b);
		pthread_mutex_lock(&L->mu);
		L->points += b->ck.n;
		b->next = L->free_q;
		L->free_q = b;
		pthread_cond_signal(&L->cv_free);
	}
	pthread_mutex_unlock(&L->mu);
	if (w)
		zp_params_gpu_close(w);
	return NULL;
}

static void ready_push(struct loader *L, struct buf *b)
{
	pthread_mutex_lock(&L->mu);
	b->next = NULL;
	if (L->ready_tail)
		L->ready_tail->next = b;
	else
		L->ready_q = b;
	L->ready_tail = b;
	pthread_cond_signal(&L->cv_ready);
	pthread_mutex_unlock(&L->mu);
}

/* A free buffer, waiting for a decoder to give one back; NULL once the load stops. */
static struct buf *free_pop(struct loader *L, bool wait, double *idle)
{
	pthread_mutex_lock(&L->mu);
	double t0 = 0;
	while (wait && !L->free_q && !L->stop) {
		if (!t0)
			t0 = now_s();
		pthread_cond_wait(&L->cv_free, &L->mu);
	}
	if (t0)
		*idle += now_s() - t0;
	struct buf *b = L->stop ? NULL : L->free_q;
	if (b)
		L->free_q = b->next;
	pthread_mutex_unlock(&L->mu);
	return b;
}

/* Whether most of the file is in the page cache (a sample of its pages, by mincore). */
static bool mostly_cached(int fd, uint64_t size)
{
	if (size < ((uint64_t)64 << 20))
		return true;
	void *m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return true;
	long pg = sysconf(_SC_PAGESIZE);
	unsigned in = 0, n = 256;
	for (unsigned i = 0; i < n; i++) {
		uint64_t off = (size / n * i) & ~((uint64_t)pg - 1);
		unsigned char v = 0;
		if (mincore((uint8_t *)m + off, (size_t)pg, &v) == 0 && (v & 1))
			in++;
	}
	munmap(m, size);
	return in * 2 > n;
}

/* The reader: every chunk read into a free buffer and handed to the decoders, QD in flight
 * (common/zp_file.h's io_uring stream: it resumes short reads and names a truncation). */
struct reader {
	struct loader *L;
	const struct chunk *ck;
	size_t nk, next;
	bool direct;
	double *idle;
};

static zp_file_req *reader_next(void *arg, bool idle)
{
	struct reader *R = arg;
	struct buf *b = R->next < R->nk ? free_pop(R->L, idle, R->idle) : NULL;
	if (!b)
		return NULL;
	b->ck = R->ck[R->next++];
	uint64_t end = b->ck.off + b->ck.n * (b->ck.vec == 5 ? G2B : G1B);
	uint64_t off = R->direct ? b->ck.off & ~(uint64_t)(ALIGN - 1) : b->ck.off;
	uint64_t len = R->direct ? ((end + ALIGN - 1) & ~(uint64_t)(ALIGN - 1)) - off : end - off;
	b->rq = (zp_file_req){ .dst = b->mem, .off = off, .len = len, .need = end - off };
	return &b->rq;
}

static int reader_done(void *arg, zp_file_req *r)
{
	struct reader *R = arg;
	ready_push(R->L, (struct buf *)r); /* rq is the buffer's first member */
	return 0;
}

static int read_all(struct loader *L, int fd, bool direct, const struct chunk *ck, size_t nk, double *idle)
{
	struct reader R = { .L = L, .ck = ck, .nk = nk, .direct = direct, .idle = idle };
	zp_file_stream_ops ops = { .queue_depth = QD, .next = reader_next, .done = reader_done, .arg = &R };
	return zp_file_uring_stream(fd, L->path, &ops);
}

/* The six fixed points, read and fully checked (a few hundred bytes). */
static int read_fixed(int fd, const char *path, zp_zkey *z)
{
	uint8_t h[HEAD];
	if (pread(fd, h, HEAD, 0) != (ssize_t)HEAD)
		return zp_err_set(ZP_ETRUNC, "%s: shorter than its fixed points", path);
	int rc;
	if ((rc = zp_g1_from_uncompressed(&z->alpha1, h, 0)) || (rc = zp_g1_from_uncompressed(&z->beta1, h + G1B, 0)))
		return zp_err_set(rc, "%s: alpha_g1/beta_g1: %s", path, zp_strerror(rc));
	if ((rc = zp_g2_from_uncompressed(&z->beta2, h + 2 * G1B, 0)) ||
	    (rc = zp_g2_from_uncompressed(&z->gamma2, h + 2 * G1B + G2B, 0)))
		return zp_err_set(rc, "%s: beta_g2/gamma_g2: %s", path, zp_strerror(rc));
	if ((rc = zp_g1_from_uncompressed(&z->delta1, h + 2 * G1B + 2 * G2B, 0)) ||
	    (rc = zp_g2_from_uncompressed(&z->delta2, h + 3 * G1B + 2 * G2B, 0)))
		return zp_err_set(rc, "%s: delta_g1/delta_g2: %s", path, zp_strerror(rc));
	return 0;
}

static int open_for(const char *path, uint64_t size, enum zp_params_io io, bool *direct)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return zp_err_set(-errno, "%s: %s", path, strerror(errno));
	*direct = io == ZP_PARAMS_IO_DIRECT || (io == ZP_PARAMS_IO_AUTO && !mostly_cached(fd, size));
	if (*direct) {
		int dfd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_DIRECT);
		if (dfd >= 0) {
			close(fd);
			return dfd;
		}
		*direct = false; /* a file system without O_DIRECT (tmpfs): buffered */
	}
	return fd;
}

/* Whether the points go to the GPU (opts, else ZP_PARAMS_GPU; auto: when a worker opens). Asked for and
 * impossible: an error saying why. */
static int want_gpu(const zp_params_load_opts *o, const char *path, bool *gpu)
{
	enum zp_params_dev dev = o->dev;
	const zp_knob_num *k = &zp_knobs()->params_gpu;
	int rc;
	*gpu = false;
	if (dev == ZP_PARAMS_DEV_AUTO) {
		if ((rc = zp_knob_get(k, path)))
			return rc;
		dev = k->v == 1 ? ZP_PARAMS_DEV_GPU : k->v == 0 ? ZP_PARAMS_DEV_CPU : ZP_PARAMS_DEV_AUTO;
	}
	if (dev == ZP_PARAMS_DEV_CPU)
		return 0;
	zp_params_gpu *w = NULL;
	rc = zp_params_gpu_open ? zp_params_gpu_open(&w, 4096)
				: zp_err_set(-ENODEV, "this program does not link the CUDA prover");
	if (w)
		zp_params_gpu_close(w);
	if (!rc) {
		*gpu = true;
		return 0;
	}
	if (dev == ZP_PARAMS_DEV_GPU) {
		char why[256];
		snprintf(why, sizeof why, "%s", zp_err_msg());
		return zp_err_set(rc, "%s: decoding on the GPU was asked for: %s", path, why);
	}
	zp_err_clear(); /* auto: the CPU then */
	return 0;
}

int zp_params_load_into(const char *path, const zp_params_info *c, const zp_params_dst *d, zp_zkey *fixed,
			const zp_params_load_opts *opts, zp_params_load_stats *stats)
{
	zp_params_load_opts o = opts ? *opts : (zp_params_load_opts){ 0 };
	zp_params_load_stats st = { 0 };
	double t0 = now_s();
	bool gpu = false;
	int grc = want_gpu(&o, path, &gpu);
	if (grc)
		return grc;
	unsigned nt = o.threads ? o.threads : gpu ? GPU_WORKERS : (unsigned)zp_par_threads();
	size_t chunk = gpu ? GPU_CHUNK : CHUNK;
	size_t nk = 0;
	struct chunk *ck = plan_chunks(c, chunk, &nk);
	if (!ck)
		return zp_err_set(-ENOMEM, "%s: chunk list", path);
	/* the fixed points through a buffered descriptor (an O_DIRECT one reads only aligned ranges) */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		free(ck);
		return zp_err_set(-errno, "%s: %s", path, strerror(errno));
	}
	int rc = read_fixed(fd, path, fixed);
	close(fd);
	fd = rc ? -1 : open_for(path, c->file_bytes, o.io, &st.direct);
	if (fd < 0) {
		free(ck);
		return rc ? rc : fd;
	}
	struct loader L = { .path = path, .c = c, .d = d, .opts = o.no_subgroup ? ZP_SER_NO_SUBGROUP : 0, .gpu = gpu,
			    .chunk = chunk };
	pthread_mutex_init(&L.mu, NULL);
	pthread_cond_init(&L.cv_ready, NULL);
	pthread_cond_init(&L.cv_free, NULL);
	unsigned nb = QD + 2 * nt;
	struct buf *bufs = calloc(nb, sizeof *bufs);
	uint8_t *mem = NULL;
	size_t bl = chunk + 2 * ALIGN;
	if (!rc && (!bufs || (gpu ? zp_params_gpu_host_alloc((void **)&mem, nb * bl) /* page-locked: DMA at link speed */
				  : posix_memalign((void **)&mem, ALIGN, nb * bl))))
		rc = zp_err_set(-ENOMEM, "%s: %u read buffers", path, nb);
	for (unsigned i = 0; !rc && i < nb; i++) {
		bufs[i].mem = mem + i * bl;
		bufs[i].next = L.free_q;
		L.free_q = &bufs[i];
	}
	pthread_t *th = rc ? NULL : calloc(nt, sizeof *th);
	unsigned started = 0;
	if (!rc && !th)
		rc = -ENOMEM;
	char stage[ZP_PROGRESS_STAGE_MAX];
	snprintf(stage, sizeof stage, "loading %.44s (%s, checks on the %s)", path, st.direct ? "O_DIRECT" : "buffered",
		 gpu ? "GPU" : "CPU");
	if (!rc)
		zp_progress_stage(stage, c->file_bytes - HEAD - 24, "bytes");
	for (; !rc && started < nt; started++)
		if (pthread_create(&th[started], NULL, decoder, &L))
			break;
	if (!rc && !started)
		rc = zp_err_set(-EAGAIN, "%s: no decoding thread", path);
	int rrc = rc ? rc : read_all(&L, fd, st.direct, ck, nk, &st.reader_idle_s);
	pthread_mutex_lock(&L.mu);
	L.done_reading = true;
	if (rrc)
		L.stop = true;
	pthread_cond_broadcast(&L.cv_ready);
	pthread_mutex_unlock(&L.mu);
	for (unsigned i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (!rc)
		rc = rrc;
	if (!rc && L.err)
		rc = zp_err_set(L.err, "%s: %s point %" PRIu64 ": %s", path, vec_name[L.err_vec], L.err_index, L.msg);
	close(fd);
	free(th);
	if (gpu && mem)
		zp_params_gpu_host_free(mem);
	else
		free(mem);
	free(bufs);
	free(ck);
	pthread_mutex_destroy(&L.mu);
	pthread_cond_destroy(&L.cv_ready);
	pthread_cond_destroy(&L.cv_free);
	st.secs = now_s() - t0;
	st.bytes = c->file_bytes;
	st.points = L.points;
	st.threads = started;
	st.gpu = gpu;
	if (stats)
		*stats = st;
	return rc;
}
