/*
 * upload.c — large host → device copies from memory that is not page-locked (zp_cuda.h, "uploads"):
 * a key's arrays from its key region (hugetlbfs) or from malloc'd memory. A copy from pageable memory
 * runs at a fraction of the link's speed, and page-locking 70 GiB before copying costs seconds of its
 * own; three ways round it, each measured by bench/keys/upload_bench.c:
 *   WHOLE  every source registered whole (cudaHostRegisterReadOnly), copied, unregistered: the way
 *          before (register, then copy: the two costs add up).
 *   PIN    the sources cut into pieces of `chunk` bytes (page-aligned cuts); `threads` pinning threads
 *          register piece i + 1, i + 2, … while piece i goes up (round robin over `streams` streams);
 *          each piece is unregistered once its copy has landed. Costs overlap: max(pinning, link).
 *   RING   `threads` threads memcpy the sources through pinned bounce buffers (two of `chunk` bytes
 *          each, one stream each): no registration at all; bound by the host's memcpy bandwidth.
 * A piece registers only the pages wholly its own: a page it shares with a neighbour (segments are not
 * page-aligned, and small arrays share heap pages) is registered by neither and its bytes go up as
 * pageable head and tail copies. CUDA refuses (cudaErrorInvalidValue) a copy whose host range is part
 * registered, part not, so two pieces may never race for a shared page (they did: the merged tree's
 * "upload: cudaMemcpyAsync: invalid argument"). A piece that cannot be registered (memlock, or its
 * pages registered by the caller) is copied as it is.
 * Progress: zp_progress_add per piece landed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "progress.h"
#include "zp_cuda.h"
#include "zp_err.h"
#include "cuda_try.h"

#define PAGE ((uintptr_t)4096)
#define MAX_THREADS 32u
#define MAX_STREAMS 16u

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

struct piece {
	void *d;
	const char *h;
	size_t len;
	void *reg;                 /* the pages registered (wholly its own), NULL when not */
	size_t reg_len;
	int keep;                  /* its segment's keep: left registered for the caller (opts.kept) */
	cudaEvent_t ev;            /* recorded after the piece's copy */
	_Atomic int state;         /* 0 waiting, 1 registered (or refused: reg NULL), 2 copy issued */
};

struct job {
	struct piece *p;
	size_t n;
	unsigned threads, streams;
	int dev;
	int roll;                  /* unregister each piece once it has landed (else all at the end) */
	int keep;                  /* the caller takes the keep pieces' registrations (opts.kept) */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	double pin_s;              /* summed over the pinning threads */
	double unpin_s;            /* not roll: unregistering at the end */
	_Atomic int err;
	char msg[256];
};

/* The pieces: every segment cut at page-aligned addresses every ~chunk bytes. */
static struct piece *cut(const zp_cuda_up_seg *s, unsigned ns, size_t chunk, size_t *np)
{
	size_t n = 0, cap = 64;
	struct piece *p = calloc(cap, sizeof *p);
	for (unsigned i = 0; p && i < ns; i++) {
		const char *h = s[i].h;
		size_t left = s[i].len, off = 0;
		while (left) {
			uintptr_t at = (uintptr_t)h + off, end = (at + chunk) & ~(PAGE - 1);
			size_t m = end > at && end - at < left ? end - at : left;
			if (n == cap) {
				struct piece *q = realloc(p, (cap *= 2) * sizeof *p);
				if (!q) {
					free(p);
					return NULL;
				}
				p = q;
			}
			memset(&p[n], 0, sizeof p[n]);
			p[n].d = (char *)s[i].d + off;
			p[n].h = h + off;
			p[n].len = m;
			p[n].keep = s[i].keep;
			n++;
			off += m;
			left -= m;
		}
	}
	*np = n;
	return p;
}

static void fail(struct job *j, const char *what, cudaError_t e)
{
	int z = 0;
	if (atomic_compare_exchange_strong(&j->err, &z, ZP_ECUDA))
		snprintf(j->msg, sizeof j->msg, "%s: %s", what, cudaGetErrorString(e));
}

/* The pages wholly inside piece k: [*lo, *hi), empty (lo == hi) when it holds none. */
static void own_pages(const struct piece *p, uintptr_t *lo, uintptr_t *hi)
{
	*lo = ((uintptr_t)p->h + PAGE - 1) & ~(PAGE - 1);
	*hi = ((uintptr_t)p->h + p->len) & ~(PAGE - 1);
	if (*hi < *lo)
		*hi = *lo;
}

/* Page-lock the pages wholly inside piece k (a page shared with a neighbour piece is nobody's). */
static void pin_piece(struct job *j, size_t k)
{
	struct piece *p = &j->p[k];
	uintptr_t lo, hi;
	own_pages(p, &lo, &hi);
	if (hi > lo && cudaHostRegister((void *)lo, hi - lo, cudaHostRegisterReadOnly) == cudaSuccess) {
		p->reg = (void *)lo;
		p->reg_len = hi - lo;
	} else {
		(void)cudaGetLastError(); /* overlapping a registered page, or memlock: copied as it is */
	}
	pthread_mutex_lock(&j->mu);
	atomic_store(&p->state, 1);
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
}

/* Unregister piece k once its copy has landed (wait: block for it). */
static int unpin_piece(struct job *j, size_t k, int wait)
{
	struct piece *p = &j->p[k];
	if (!p->reg || (j->keep && p->keep))
		return 1;
	if (atomic_load(&p->state) != 2)
		return 0;
	cudaError_t e = wait ? cudaEventSynchronize(p->ev) : cudaEventQuery(p->ev);
	if (e == cudaErrorNotReady) {
		(void)cudaGetLastError();
		return 0;
	}
	if (e != cudaSuccess)
		fail(j, "upload: copy", e);
	cudaHostUnregister(p->reg);
	p->reg = NULL;
	return 1;
}

struct pin_arg { struct job *j; unsigned t; };

static void *pinner(void *va)
{
	struct pin_arg *a = va;
	struct job *j = a->j;
	cudaSetDevice(j->dev);
	double t0 = now_s();
	size_t done = a->t; /* the next of this thread's pieces to unregister (roll) */
	for (size_t k = a->t; k < j->n && !atomic_load(&j->err); k += j->threads) {
		pin_piece(j, k);
		while (j->roll && done < k && unpin_piece(j, done, 0))
			done += j->threads;
	}
	double t1 = now_s();
	for (; j->roll && done < j->n; done += j->threads) {
		pthread_mutex_lock(&j->mu);
		while (atomic_load(&j->p[done].state) != 2 && !atomic_load(&j->err))
			pthread_cond_wait(&j->cv, &j->mu);
		pthread_mutex_unlock(&j->mu);
		unpin_piece(j, done, 1);
	}
	pthread_mutex_lock(&j->mu);
	j->pin_s += t1 - t0;
	pthread_mutex_unlock(&j->mu);
	return NULL;
}

static int run_pin(struct job *j, cudaStream_t *st)
{
	pthread_t th[MAX_THREADS];
	struct pin_arg arg[MAX_THREADS];
	unsigned started = 0;
	int rc = 0;
	for (; started < j->threads; started++) {
		arg[started] = (struct pin_arg){ j, started };
		if (pthread_create(&th[started], NULL, pinner, &arg[started]))
			break;
	}
	if (started < j->threads) { /* fewer threads: the pieces of the missing ones would never be pinned */
		atomic_store(&j->err, -EAGAIN);
		snprintf(j->msg, sizeof j->msg, "upload: pinning threads");
	}
	for (size_t k = 0; k < j->n && !atomic_load(&j->err); k++) {
		struct piece *p = &j->p[k];
		pthread_mutex_lock(&j->mu);
		while (atomic_load(&p->state) < 1 && !atomic_load(&j->err))
			pthread_cond_wait(&j->cv, &j->mu);
		pthread_mutex_unlock(&j->mu);
		cudaStream_t sk = st[k % j->streams];
		cudaError_t e;
		if (p->reg) { /* pageable head, the registered pages, pageable tail: each range wholly one kind */
			size_t head = (size_t)((const char *)p->reg - p->h), tail = p->len - head - p->reg_len;
			e = head ? cudaMemcpyAsync(p->d, p->h, head, cudaMemcpyHostToDevice, sk) : cudaSuccess;
			if (e == cudaSuccess)
				e = cudaMemcpyAsync((char *)p->d + head, p->reg, p->reg_len, cudaMemcpyHostToDevice, sk);
			if (e == cudaSuccess && tail)
				e = cudaMemcpyAsync((char *)p->d + head + p->reg_len, (const char *)p->reg + p->reg_len, tail,
						    cudaMemcpyHostToDevice, sk);
		} else {
			e = cudaMemcpyAsync(p->d, p->h, p->len, cudaMemcpyHostToDevice, sk);
		}
		if (e == cudaSuccess)
			e = cudaEventRecord(p->ev, sk);
		if (e != cudaSuccess)
			fail(j, "upload: cudaMemcpyAsync", e);
		pthread_mutex_lock(&j->mu);
		atomic_store(&p->state, 2);
		pthread_cond_broadcast(&j->cv);
		pthread_mutex_unlock(&j->mu);
		if (e == cudaSuccess && k >= j->streams && cudaEventSynchronize(j->p[k - j->streams].ev) == cudaSuccess)
			zp_progress_add(j->p[k - j->streams].len);
	}
	for (size_t k = j->n > j->streams ? j->n - j->streams : 0; k < j->n && !atomic_load(&j->err); k++)
		if (cudaEventSynchronize(j->p[k].ev) == cudaSuccess)
			zp_progress_add(j->p[k].len);
	pthread_mutex_lock(&j->mu); /* wake pinners waiting on a piece that will never be issued */
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
	for (unsigned i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	double t0 = now_s();
	for (size_t k = 0; k < j->n; k++) /* not roll: every piece, now that all have landed; roll: after an error */
		if (j->p[k].reg && !(j->keep && j->p[k].keep && !atomic_load(&j->err))) {
			cudaEventSynchronize(j->p[k].ev);
			cudaHostUnregister(j->p[k].reg);
			j->p[k].reg = NULL;
		}
	j->unpin_s = now_s() - t0;
	if ((rc = atomic_load(&j->err)))
		return zp_err_set(rc, "%s", j->msg);
	return 0;
}

struct ring_arg {
	struct job *j;
	unsigned t;
	size_t chunk;
	char *buf[2];
	cudaEvent_t ev[2];
	cudaStream_t st;
	double cpy_s;
};

static void *ringer(void *va)
{
	struct ring_arg *a = va;
	struct job *j = a->j;
	cudaSetDevice(j->dev);
	unsigned b = 0;
	int used[2] = { 0, 0 };
	for (size_t k = a->t; k < j->n && !atomic_load(&j->err); k += j->threads, b ^= 1) {
		struct piece *p = &j->p[k];
		cudaError_t e = cudaSuccess;
		if (used[b] && (e = cudaEventSynchronize(a->ev[b])) != cudaSuccess) {
			fail(j, "upload: copy", e);
			break;
		}
		double t0 = now_s();
		for (size_t off = 0; off < p->len; off += a->chunk) { /* pieces are ≤ chunk + a page: one or two rounds */
			size_t m = p->len - off < a->chunk ? p->len - off : a->chunk;
			if (off && (e = cudaEventSynchronize(a->ev[b])) != cudaSuccess)
				break;
			memcpy(a->buf[b], p->h + off, m);
			if ((e = cudaMemcpyAsync((char *)p->d + off, a->buf[b], m, cudaMemcpyHostToDevice, a->st)) != cudaSuccess ||
			    (e = cudaEventRecord(a->ev[b], a->st)) != cudaSuccess)
				break;
		}
		a->cpy_s += now_s() - t0;
		if (e != cudaSuccess) {
			fail(j, "upload: bounce copy", e);
			break;
		}
		used[b] = 1;
		zp_progress_add(p->len);
	}
	cudaStreamSynchronize(a->st);
	return NULL;
}

static int run_ring(struct job *j, size_t chunk, double *cpy_s)
{
	struct ring_arg arg[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	unsigned made = 0, started = 0;
	int rc = 0;
	memset(arg, 0, sizeof arg);
	for (; made < j->threads; made++) {
		struct ring_arg *a = &arg[made];
		a->j = j, a->t = made, a->chunk = chunk;
		if (cudaHostAlloc((void **)&a->buf[0], chunk, cudaHostAllocDefault) != cudaSuccess ||
		    cudaHostAlloc((void **)&a->buf[1], chunk, cudaHostAllocDefault) != cudaSuccess ||
		    cudaEventCreateWithFlags(&a->ev[0], cudaEventDisableTiming) != cudaSuccess ||
		    cudaEventCreateWithFlags(&a->ev[1], cudaEventDisableTiming) != cudaSuccess ||
		    cudaStreamCreateWithFlags(&a->st, cudaStreamNonBlocking) != cudaSuccess) {
			(void)cudaGetLastError();
			rc = zp_err_set(-ENOMEM, "upload: %u pinned bounce buffers of %zu bytes", 2 * j->threads, chunk);
			made++;
			goto out;
		}
	}
	for (; started < j->threads; started++)
		if (pthread_create(&th[started], NULL, ringer, &arg[started]))
			break;
	if (started < j->threads) {
		atomic_store(&j->err, -EAGAIN);
		snprintf(j->msg, sizeof j->msg, "upload: copying threads");
	}
	for (unsigned i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		*cpy_s += arg[i].cpy_s;
	}
	if ((rc = atomic_load(&j->err)))
		rc = zp_err_set(rc, "%s", j->msg);
out:
	for (unsigned i = 0; i < made; i++) {
		struct ring_arg *a = &arg[i];
		if (a->st)
			cudaStreamDestroy(a->st);
		for (int b = 0; b < 2; b++) {
			if (a->ev[b])
				cudaEventDestroy(a->ev[b]);
			if (a->buf[b])
				cudaFreeHost(a->buf[b]);
		}
	}
	return rc;
}

/* Copy [h, h + len) to d in 1 GiB steps (progress), synchronously. */
static int copy_sync(void *d, const char *h, size_t len)
{
	int rc = 0;
	for (size_t off = 0, m; off < len; off += m) {
		m = len - off < ((size_t)1 << 30) ? len - off : (size_t)1 << 30;
		ZP_CUDA_TRY(cudaMemcpy((char *)d + off, h + off, m, cudaMemcpyHostToDevice));
		zp_progress_add(m);
	}
err:
	return rc;
}

static int run_whole(const zp_cuda_up_seg *s, unsigned ns, double *pin_s, double *unpin_s)
{
	int rc = 0;
	void *reg[64] = { 0 };
	size_t reg_len[64] = { 0 };
	unsigned nr = ns < 64 ? ns : 64;
	double t0 = now_s();
	for (unsigned i = 0; i < nr; i++) { /* the pages wholly a segment's own: see the header */
		struct piece p = { .h = s[i].h, .len = s[i].len };
		uintptr_t lo, hi;
		own_pages(&p, &lo, &hi);
		if (hi > lo && cudaHostRegister((void *)lo, hi - lo, cudaHostRegisterReadOnly) == cudaSuccess)
			reg[i] = (void *)lo, reg_len[i] = hi - lo;
		else
			(void)cudaGetLastError();
	}
	*pin_s = now_s() - t0;
	for (unsigned i = 0; !rc && i < ns; i++) {
		const char *h = s[i].h;
		size_t head = i < nr && reg[i] ? (size_t)((const char *)reg[i] - h) : s[i].len;
		size_t body = i < nr && reg[i] ? reg_len[i] : 0;
		if (!(rc = copy_sync(s[i].d, h, head)) && !(rc = copy_sync((char *)s[i].d + head, h + head, body)))
			rc = copy_sync((char *)s[i].d + head + body, h + head + body, s[i].len - head - body);
	}
	t0 = now_s();
	for (unsigned i = 0; i < nr; i++)
		if (reg[i])
			cudaHostUnregister(reg[i]);
	*unpin_s = now_s() - t0;
	return rc;
}

struct zp_cuda_up_kept {
	size_t n;
	void *reg[];
};

/* The registrations of the keep pieces (every piece has landed), in a list for zp_cuda_upload_release. */
static int kept_list(const struct piece *p, size_t n, zp_cuda_up_kept **out)
{
	size_t m = 0;
	for (size_t k = 0; k < n; k++)
		m += p[k].reg && p[k].keep;
	zp_cuda_up_kept *l = malloc(sizeof *l + (m ? m : 1) * sizeof(void *));
	if (!l)
		return -1;
	l->n = 0;
	for (size_t k = 0; k < n; k++)
		if (p[k].reg && p[k].keep)
			l->reg[l->n++] = p[k].reg;
	*out = l;
	return 0;
}

void zp_cuda_upload_release(zp_cuda_up_kept *kept)
{
	if (!kept)
		return;
	for (size_t i = 0; i < kept->n; i++)
		cudaHostUnregister(kept->reg[i]);
	free(kept);
}

const char *zp_cuda_upload_name(int how)
{
	static const char *const names[] = { "auto", "whole", "pin", "ring" };
	return how >= 0 && how <= ZP_CUDA_UP_RING ? names[how] : "?";
}

int zp_cuda_upload(const zp_cuda_up_seg *segs, unsigned nseg, const zp_cuda_up_opts *opts, zp_cuda_up_stats *stats)
{
	zp_cuda_up_opts o = opts ? *opts : (zp_cuda_up_opts){ 0 };
	zp_cuda_up_stats st = { 0 };
	double t0 = now_s();
	int rc = 0, dev = 0;
	if (o.kept)
		*o.kept = NULL; /* WHOLE, RING: nothing kept */
	if (o.how == ZP_CUDA_UP_AUTO)
		o.how = ZP_CUDA_UP_PIN;
	/* defaults: the fastest of bench/keys/upload_bench.c on the H200 host (bench/RESULTS.md, "restart") */
	if (!o.chunk)
		o.chunk = o.how == ZP_CUDA_UP_RING ? (size_t)64 << 20 : (size_t)256 << 20;
	if (!o.threads) /* PIN: the driver registers one range at a time (bench/RESULTS.md: 40 GB/s on hugetlbfs
			 * from 1 thread or 8); more pinners only contend with the copies for it */
		o.threads = o.how == ZP_CUDA_UP_RING ? 8 : 1;
	if (!o.streams)
		o.streams = 4;
	o.threads = o.threads > MAX_THREADS ? MAX_THREADS : o.threads;
	o.streams = o.streams > MAX_STREAMS ? MAX_STREAMS : o.streams;
	o.chunk = (o.chunk + PAGE - 1) & ~(size_t)(PAGE - 1);
	for (unsigned i = 0; i < nseg; i++)
		st.bytes += segs[i].len;
	st.how = o.how;
	ZP_CUDA_TRY(cudaGetDevice(&dev));
	if (o.how == ZP_CUDA_UP_WHOLE) {
		rc = run_whole(segs, nseg, &st.pin_s, &st.unpin_s);
		goto done;
	}
	{
		struct job j = { .threads = o.threads, .streams = o.streams, .dev = dev, .roll = o.roll, .keep = !!o.kept };
		cudaStream_t sts[MAX_STREAMS] = { 0 };
		if (!(j.p = cut(segs, nseg, o.chunk, &j.n)))
			return zp_err_set(-ENOMEM, "upload: piece list");
		pthread_mutex_init(&j.mu, NULL);
		pthread_cond_init(&j.cv, NULL);
		size_t ev_made = 0;
		unsigned st_made = 0;
		for (; ev_made < j.n; ev_made++)
			if (cudaEventCreateWithFlags(&j.p[ev_made].ev, cudaEventDisableTiming) != cudaSuccess)
				break;
		for (; st_made < o.streams; st_made++)
			if (cudaStreamCreateWithFlags(&sts[st_made], cudaStreamNonBlocking) != cudaSuccess)
				break;
		if (ev_made < j.n || st_made < o.streams) {
			(void)cudaGetLastError();
			rc = zp_err_set(ZP_ECUDA, "upload: %zu events, %u streams", j.n, o.streams);
		} else if (o.how == ZP_CUDA_UP_RING) {
			rc = run_ring(&j, o.chunk, &st.copy_s);
		} else {
			rc = run_pin(&j, sts);
			st.pin_s = j.pin_s;
			st.unpin_s = j.unpin_s;
			if (!rc && o.kept && kept_list(j.p, j.n, o.kept)) { /* no list: give them back now */
				for (size_t k = 0; k < j.n; k++)
					if (j.p[k].reg && j.p[k].keep)
						cudaHostUnregister(j.p[k].reg);
				rc = zp_err_set(-ENOMEM, "upload: the kept registrations' list");
			}
		}
		for (unsigned i = 0; i < st_made; i++) {
			cudaStreamSynchronize(sts[i]);
			cudaStreamDestroy(sts[i]);
		}
		for (size_t k = 0; k < ev_made; k++)
			cudaEventDestroy(j.p[k].ev);
		st.pieces = j.n;
		free(j.p);
		pthread_mutex_destroy(&j.mu);
		pthread_cond_destroy(&j.cv);
	}
done:
	st.secs = now_s() - t0;
	st.threads = o.how == ZP_CUDA_UP_WHOLE ? 1 : o.threads;
	st.streams = o.how == ZP_CUDA_UP_PIN ? o.streams : 1;
	st.chunk = o.chunk;
	if (stats)
		*stats = st;
	return rc;
err:
	return rc;
}
