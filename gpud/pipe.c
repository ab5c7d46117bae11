/*
 * pipe.c — gpud's device pipeline (a backend with the pipeline ops: cuda, or cpu_pipe in tests).
 *
 * The arena mapping is registered for DMA at start (host_register; if that fails — memlock limit —
 * it is logged once and uploads stage through the backend's pinned buffers). Three threads:
 *   main  (payload_zp.c take) waits for a free device input set of its key (nbufs(): two when
 *         device memory allows, else one: copies then serialize with proving), copies w, a, b, c
 *         straight from the slot to the device, keeps the public inputs, releases the slot —
 *         before the partition's H and MSMs start — and queues it (gpud_pipe_push);
 *   gpu   prove_buf (H + MSMs) per queued partition, in order, then frees the input set;
 *   tail  gpud_zp_tail: finish, self-verify, proof write, DONE (only after the proof file is
 *         written), job assembly — for partition k while the GPU works on k+1.
 * A failed partition (CUDA error, out of memory, failed self-check) is failed with the error and
 * retried as fail_part says (a failed self-check too: on a GPU it may be the device's fault; the
 * attempt limit ends a partition that fails every time); gpud keeps serving. After a sticky CUDA
 * error (backend fatal(): illegal address and the like) gpud logs and exits 3, and the supervisor
 * restarts it (the arena gives its partitions back).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "payload.h"
#include "sys.h"
#include "zp_err.h"
#include "zp_exit.h"

static void q_push(struct gpud_flight **q, struct gpud_flight *f)
{
	f->next = NULL;
	while (*q)
		q = &(*q)->next;
	*q = f;
}

static struct gpud_flight *q_pop(struct gpud_flight **q)
{
	struct gpud_flight *f = *q;
	if (f)
		*q = f->next;
	return f;
}

void gpud_flight_free(struct gpud *g, struct gpud_flight *f)
{
	pthread_mutex_lock(&g->pl.mu);
	g->pl.in_flight--;
	pthread_cond_broadcast(&g->pl.cv);
	pthread_mutex_unlock(&g->pl.mu);
	free(f->pub);
	free(f);
}

/* [debug] inject = what@n[, what@n ...] (tests of the device pipeline without a device): the n-th
 * proof attempt of a gpud meets `what` instead of proving — gpu-error (a CUDA error: the partition
 * fails and is retried, gpud serves on), sticky (a sticky CUDA error: gpud exits 16 for the
 * supervisor to restart it), bad-proof (the proof fails its self-check: failed and retried), hang (a
 * GPU call that never returns: the supervisor's stuck-daemon watchdog kills gpud). Each
 * fires once per run directory (a marker file), so a restarted gpud does not meet it again. */
bool gpud_inject_due(struct gpud *g, const char *what, unsigned attempt)
{
	char spec[sizeof g->d.cfg.inject], *save = NULL, path[PATH_MAX];
	snprintf(spec, sizeof spec, "%s", g->d.cfg.inject);
	for (char *t = strtok_r(spec, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
		char *at = strchr(t, '@');
		if (!at || (size_t)(at - t) != strlen(what) || strncmp(t, what, strlen(what)) || strtoul(at + 1, NULL, 10) != attempt)
			continue;
		if (snprintf(path, sizeof path, "%s/inject-%s-%u.fired", g->d.cfg.run_dir, what, attempt) >= (int)sizeof path)
			return false;
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0)
			return false;           /* fired already (by an earlier gpud of this run) */
		close(fd);
		zp_log(g->d.who, "[debug] inject: %s at proof attempt %u", what, attempt);
		return true;
	}
	return false;
}

/* [debug] inject = hang@n: a GPU call that never returns (until SIGTERM): the stuck-daemon
 * watchdog must see the heartbeat age although the main thread keeps ticking. */
static int hang(struct gpud *g)
{
	while (!zp_daemon_stopping(&g->d))
		usleep(10000);
	return zp_err_set(-ECANCELED, "[debug] inject: hung GPU call (hang) interrupted by SIGTERM");
}

/* A sticky device error: nothing more can run in this process. */
void gpud_check_fatal(struct gpud *g)
{
	if (g->pl.inj_sticky || (g->be->fatal && g->be->fatal())) {
		zp_log(g->d.who, "the GPU is in a sticky error state (%s): exiting so that the supervisor restarts gpud",
		       zp_err_msg()[0] ? zp_err_msg() : "see above");
		_exit(ZP_EX_GPU_STICKY);
	}
}

/* H + MSMs of one queued partition (or the injected failure standing in for them). */
static int gpu_one(struct gpud *g, struct gpud_flight *f)
{
	int r = 0;
	zp_err_clear();
	if (zp_arena_job_state(g->d.arena, f->ph.job) != ZP_JOB_ACTIVE)
		return 1;                     /* the job ended meanwhile (another partition failed it) */
	if (zp_daemon_cancelled(&g->d, f->job_id)) {
		gpud_fail(g, f->ph, 0, "cancelled by client");
		return 1;
	}
	zp_arena_part_stamp(g->d.arena, f->ph, ZP_TS_GPU_START);
	zp_daemon_stage(&g->d, GPUD_W_GPU, true); /* the heartbeat ages while this stage does not move */
	f->attempt = ++g->pl.inj_attempts;
	if (g->d.cfg.inject[0] && gpud_inject_due(g, "gpu-error", f->attempt))
		r = zp_err_set(ZP_ECUDA, "CUDA backend: [debug] inject: a CUDA error (gpu-error@%u)", f->attempt);
	else if (g->d.cfg.inject[0] && gpud_inject_due(g, "sticky", f->attempt))
		g->pl.inj_sticky = true,
		r = zp_err_set(ZP_ECUDA, "CUDA backend: [debug] inject: a sticky CUDA error (sticky@%u)", f->attempt);
	else if (g->d.cfg.inject[0] && gpud_inject_due(g, "hang", f->attempt))
		r = hang(g);
	else
		r = f->k->be->prove_buf(f->k->be_state, f->buf, &f->mo);
	/* [debug] prove_delay_ms: lets tests kill mid-proof (no tick here: main ticks) */
	for (uint64_t end = zp_mono_ms() + g->d.cfg.prove_delay_ms; !zp_daemon_stopping(&g->d) && zp_mono_ms() < end;)
		usleep(10000), zp_daemon_progress(&g->d, GPUD_W_GPU);
	zp_daemon_hold(&g->d, "proved", &f->ph, GPUD_W_GPU); /* [debug] hold_at = proved: still PROVING */
	zp_daemon_stage(&g->d, GPUD_W_GPU, false);
	zp_arena_part_stamp(g->d.arena, f->ph, ZP_TS_GPU_END);
	if (r) {
		gpud_fail(g, f->ph, 1, "prove: %s", zp_err_text(r));
		gpud_check_fatal(g);
	}
	return r;
}

static void *gpu_main(void *arg)
{
	struct gpud *g = arg;
	struct gpud_pipe *pl = &g->pl;
	for (;;) {
		pthread_mutex_lock(&pl->mu);
		while (!pl->gpu_q && !pl->stop)
			pthread_cond_wait(&pl->cv, &pl->mu);
		struct gpud_flight *f = q_pop(&pl->gpu_q);
		pl->gpu_idle = !f;
		pthread_mutex_unlock(&pl->mu);
		if (!f)
			return NULL;                  /* stopping and drained */
		int r = gpu_one(g, f);
		pthread_mutex_lock(&pl->mu);
		f->k->busy[f->buf] = 0;
		if (!r)
			q_push(&pl->tail_q, f);
		pl->gpu_idle = 1;
		pthread_cond_broadcast(&pl->cv);
		pthread_mutex_unlock(&pl->mu);
		if (r)
			gpud_flight_free(g, f);
	}
}

static void *tail_main(void *arg)
{
	struct gpud *g = arg;
	struct gpud_pipe *pl = &g->pl;
	for (;;) {
		pthread_mutex_lock(&pl->mu);
		while (!pl->tail_q && !(pl->stop && pl->gpu_idle && !pl->gpu_q))
			pthread_cond_wait(&pl->cv, &pl->mu);
		struct gpud_flight *f = q_pop(&pl->tail_q);
		pthread_mutex_unlock(&pl->mu);
		if (!f)
			return NULL;
		zp_daemon_stage(&g->d, GPUD_W_TAIL, true);
		gpud_zp_tail(g, f);
		zp_daemon_stage(&g->d, GPUD_W_TAIL, false);
		gpud_flight_free(g, f);
	}
}

void gpud_pipe_push(struct gpud *g, struct gpud_flight *f)
{
	pthread_mutex_lock(&g->pl.mu);
	q_push(&g->pl.gpu_q, f);
	pthread_cond_broadcast(&g->pl.cv);
	pthread_mutex_unlock(&g->pl.mu);
}

static struct timespec deadline(int ms)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	return until;
}

int gpud_pipe_set_take(struct gpud *g, struct gpud_key *k, int ms)
{
	int b = -1;
	struct timespec until = deadline(ms);
	pthread_mutex_lock(&g->pl.mu);
	for (;;) {
		for (int i = 0; i < k->nbufs && b < 0; i++)
			if (!k->busy[i])
				b = i;
		if (b >= 0 || pthread_cond_timedwait(&g->pl.cv, &g->pl.mu, &until))
			break;
	}
	if (b >= 0)
		k->busy[b] = 1;
	pthread_mutex_unlock(&g->pl.mu);
	return b;
}

void gpud_pipe_set_give(struct gpud *g, struct gpud_key *k, int set)
{
	pthread_mutex_lock(&g->pl.mu);
	k->busy[set] = 0;
	pthread_cond_broadcast(&g->pl.cv);
	pthread_mutex_unlock(&g->pl.mu);
}

bool gpud_pipe_sets_free(struct gpud *g)
{
	bool ok = true;
	pthread_mutex_lock(&g->pl.mu);
	for (unsigned i = 0; i < g->d.cfg.n_keys && ok; i++)
		if (g->keys[i].state == 1) {
			bool any = false;
			for (int b = 0; b < g->keys[i].nbufs; b++)
				any |= !g->keys[i].busy[b];
			ok = any;
		}
	pthread_mutex_unlock(&g->pl.mu);
	return ok;
}

void gpud_pipe_wait(struct gpud *g, int ms)
{
	struct timespec until = deadline(ms);
	pthread_mutex_lock(&g->pl.mu);
	pthread_cond_timedwait(&g->pl.cv, &g->pl.mu, &until);
	pthread_mutex_unlock(&g->pl.mu);
}

void gpud_pipe_drain(struct gpud *g)
{
	if (!g->pipelined)
		return;
	pthread_mutex_lock(&g->pl.mu);
	while (g->pl.in_flight)
		pthread_cond_wait(&g->pl.cv, &g->pl.mu);
	pthread_mutex_unlock(&g->pl.mu);
}

/* The arena's registration for DMA, beside serving: page-locking 17 GB of 4 KiB pages takes ~2.5 s, which
 * gpud's "ready" (a restart with its key kept on the device: ~0.3 s) does not wait for. Until it is done,
 * the backend's copies see unregistered memory and stage through its pinned buffers (backend_cuda.c
 * copy_in checks every copy), at memcpy speed; one registration call, so no copy sees half of it. */
static void *reg_main(void *arg)
{
	struct gpud *g = arg;
	const struct zp_arena_hdr *h = zp_arena_hdr(g->d.arena);
	uint64_t t0 = zp_mono_ms();
	zp_err_clear();
	int r = g->be->host_register((void *)h, h->total_size);
	if (r)
		zp_log(g->d.who, "cannot register the arena (%llu bytes) for DMA: %s; copies stage through pinned "
		       "buffers instead", (unsigned long long)h->total_size, zp_err_text(r));
	else
		zp_log(g->d.who, "arena registered for DMA (%llu bytes, %llu ms, beside serving)",
		       (unsigned long long)h->total_size, (unsigned long long)(zp_mono_ms() - t0));
	return NULL;
}

/* Start the arena's registration for DMA and the gpu and tail threads. */
int gpud_pipe_start(struct gpud *g)
{
	pthread_mutex_init(&g->pl.mu, NULL);
	pthread_cond_init(&g->pl.cv, NULL);
	g->pl.gpu_idle = 1;
	if (g->be->host_register)
		g->pl.reg_started = !pthread_create(&g->pl.reg_th, NULL, reg_main, g);
	for (unsigned i = 0; i < g->d.cfg.n_keys; i++) {
		struct gpud_key *k = &g->keys[i];
		if (k->state != 1)
			continue;
		k->nbufs = k->be->nbufs ? k->be->nbufs(k->be_state) : 1;   /* a compact key's table has none (payload_ss.c) */
		if (k->nbufs < 1 || k->nbufs > 2)
			k->nbufs = 1;
		zp_log(g->d.who, "key %s: %d device input set(s)%s", k->name, k->nbufs,
		       k->nbufs == 2 ? " (copy overlaps proving)" : " (copies wait for the GPU)");
	}
	int r = pthread_create(&g->pl.gpu_th, NULL, gpu_main, g);
	if (r)
		return -r;
	if ((r = pthread_create(&g->pl.tail_th, NULL, tail_main, g)))
		return -r;
	return 0;
}

void gpud_pipe_stop(struct gpud *g)
{
	pthread_mutex_lock(&g->pl.mu);
	g->pl.stop = 1;
	pthread_cond_broadcast(&g->pl.cv);
	pthread_mutex_unlock(&g->pl.mu);
	pthread_join(g->pl.gpu_th, NULL);
	pthread_join(g->pl.tail_th, NULL);
	if (g->pl.reg_started)
		pthread_join(g->pl.reg_th, NULL);
	if (g->be->host_unregister)
		g->be->host_unregister((void *)zp_arena_hdr(g->d.arena));
}
