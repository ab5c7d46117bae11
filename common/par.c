#include "par.h"
#include "knobs.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
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

/* The threads of one zp_par_for made per call (the pool is busy: a nested or concurrent call). */
static void par_for_spawn(struct par_job *job, int t)
{
	pthread_t tids[256];
	struct par_worker ws[256];
	int started = 0;
	for (int k = 1; k < t; k++) {
		ws[k] = (struct par_worker){ .job = job, .id = k };
		if (pthread_create(&tids[k], NULL, worker_main, &ws[k]) != 0)
			break;  /* fewer threads is still correct */
		started = k;
	}
	run_tasks(job, 0);
	for (int k = 1; k <= started; k++)
		pthread_join(tids[k], NULL);
}

/*
 * The pool: workers 1 .. made, started on first need and kept, each waiting for the next job's
 * generation. One caller at a time holds `owner` for a whole job; a caller that finds it held (a
 * zp_par_for inside a task, or two threads' loops at once) makes its own threads as before, so no
 * call waits for another's. A forked child starts with no workers (pthread_atfork).
 */
static struct {
	pthread_mutex_t owner, mu;
	pthread_cond_t work, done;
	struct par_job *job;
	unsigned long gen;
	int want;      /* workers 1 .. want − 1 take part in job gen */
	int running;   /* of those, the ones not yet finished */
	int made;      /* workers started (ids 1 .. made) */
	unsigned long start_gen[256];   /* the generation each worker was made in: its first job is the next */
} pool = { .owner = PTHREAD_MUTEX_INITIALIZER, .mu = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER,
	    .done = PTHREAD_COND_INITIALIZER };

static void *pool_main(void *arg)
{
	int id = (int)(intptr_t)arg;
	pthread_mutex_lock(&pool.mu);
	unsigned long seen = pool.start_gen[id];
	for (;;) {
		while (pool.gen == seen)
			pthread_cond_wait(&pool.work, &pool.mu);
		seen = pool.gen;
		if (id >= pool.want)
			continue;
		struct par_job *job = pool.job;
		pthread_mutex_unlock(&pool.mu);
		run_tasks(job, id);
		pthread_mutex_lock(&pool.mu);
		if (--pool.running == 0)
			pthread_cond_signal(&pool.done);
	}
	return NULL;
}

static void pool_child(void)
{
	pthread_mutex_init(&pool.owner, NULL);
	pthread_mutex_init(&pool.mu, NULL);
	pthread_cond_init(&pool.work, NULL);
	pthread_cond_init(&pool.done, NULL);
	pool.job = NULL;
	pool.want = pool.running = pool.made = 0;
}

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static void pool_init(void) { pthread_atfork(NULL, NULL, pool_child); }

/* workers 1 .. t − 1 exist when this returns t; fewer (creation failed) returns less. Called with mu. */
static int pool_grow(int t)
{
	while (pool.made < t - 1) {
		pthread_attr_t at;
		pthread_t tid;
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		pool.start_gen[pool.made + 1] = pool.gen;
		int rc = pthread_create(&tid, &at, pool_main, (void *)(intptr_t)(pool.made + 1));
		pthread_attr_destroy(&at);
		if (rc != 0)
			break;
		pool.made++;
	}
	return pool.made + 1 < t ? pool.made + 1 : t;
}

void zp_par_for(size_t n, zp_par_fn fn, void *ctx)
{
	struct par_job job = { .fn = fn, .ctx = ctx, .n = n };
	atomic_init(&job.next, 0);
	int t = zp_par_threads();
	if ((size_t)t > n)
		t = (int)n;
	if (t > 256)
		t = 256;
	if (t <= 1) {
		run_tasks(&job, 0);
		return;
	}
	pthread_once(&pool_once, pool_init);
	if (pthread_mutex_trylock(&pool.owner) != 0) {
		par_for_spawn(&job, t);
		return;
	}
	pthread_mutex_lock(&pool.mu);
	t = pool_grow(t);
	pool.job = &job;
	pool.want = t;
	pool.running = t - 1;
	pool.gen++;
	pthread_cond_broadcast(&pool.work);
	pthread_mutex_unlock(&pool.mu);
	run_tasks(&job, 0);
	pthread_mutex_lock(&pool.mu);
	while (pool.running > 0)
		pthread_cond_wait(&pool.done, &pool.mu);
	pool.job = NULL;
	pthread_mutex_unlock(&pool.mu);
	pthread_mutex_unlock(&pool.owner);
}
