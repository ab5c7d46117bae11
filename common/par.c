#include "par.h"
#include "knobs.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

static _Atomic int forced_threads;

int zp_par_threads(void)
{
	int f = atomic_load(&forced_threads);
	if (f > 0)
		return f;
	if (zp_knobs()->threads > 0)
		return zp_knobs()->threads;
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	return 1;
}

void zp_par_set_threads(int n) { atomic_store(&forced_threads, n > 0 ? n : 0); }

struct par_job {
	zp_par_fn fn;
	void *ctx;
	size_t n;
	atomic_size_t next;
};

struct par_worker {
	struct par_job *job;
	int id;
};

static void run_tasks(struct par_job *job, int worker)
{
	for (;;) {
		size_t i = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
		if (i >= job->n)
			return;
		job->fn(job->ctx, i, worker);
	}
}

static void *worker_main(void *arg)
{
	struct par_worker *w = arg;
	run_tasks(w->job, w->id);
	return NULL;
}

void zp_par_for(size_t n, zp_par_fn fn, void *ctx)
{
	struct par_job job = { .fn = fn, .ctx = ctx, .n = n };
	atomic_init(&job.next, 0);
	int t = zp_par_threads();
	if ((size_t)t > n)
		t = (int)n;
	pthread_t tids[256];
	struct par_worker ws[256];
	if (t > 256)
		t = 256;
	int started = 0;
	for (int k = 1; k < t; k++) {
		ws[k] = (struct par_worker){ .job = &job, .id = k };
		if (pthread_create(&tids[k], NULL, worker_main, &ws[k]) != 0)
			break;  /* fewer threads is still correct */
		started = k;
	}
	run_tasks(&job, 0);
	for (int k = 1; k <= started; k++)
		pthread_join(tids[k], NULL);
}
