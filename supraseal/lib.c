/*
 * lib.c — libzkpipe-supraseal: supraseal-c2's C ABI (supraseal_abi.h) on top of a running zkpipe
 * pipeline (docs/supraseal.md).
 *
 * The library is a synthesizer whose synthesis happened in the caller (bellperson): per call it
 * submits one external job (one partition per circuit), and for each partition claims it, owns
 * a FREE slot (the arena's futex wait), copies the assignment into the slot (payload "ZZPSS01",
 * pipeline/payload_ss.h), marks it READY and hints the group's gpuds. gpud proves and writes part-<p>.proof.bin
 * into the job's directory; the library waits for those files (inotify), returns the proofs in
 * the caller's layout, frees the job record and removes the directory.
 *
 * Environment:
 *   ZKPIPE_CONFIG     the supervisor's config file (required): run dir, groups, arenas
 *   ZKPIPE_GROUP      group to use (default: the first)
 *   ZKPIPE_PRIORITY   job priority (default 0; higher first)
 *   ZKPIPE_WAIT_S     give up when no gpud has been alive for this long (default 120)
 *
 * Fairness between caller processes: partitions take slots in job order (the oldest external
 * job that still has partitions to hand over goes first), which is also the order gpud proves
 * them in; a caller never holds more than one slot FILLING.
 */
#include "supraseal_abi.h"
#include "knobs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <immintrin.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "par.h"
#include "config.h"
#include "files.h"
#include "hint.h"
#include "rundir.h"
#include "sys.h"
#include "density.h"
#include "params.h"
#include "payload_ss.h"
#include "ss_stats.h"
#include "zp_err.h"
#include "zp_file.h"

/* ---------------------------------------------------------------- errors */
static zp_ss_error ss_err(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static zp_ss_error ss_err(int code, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = snprintf(buf, sizeof buf, "zkpipe: ");
	vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
	va_end(ap);
	return (zp_ss_error){ code ? code : EIO, strdup(buf) };
}

static const zp_ss_error SS_OK = { 0, NULL };

/* errno for a zkpipe code */
static int errno_of(int r)
{
	if (r > ZP_ERR_BASE && r < 0)
		return -r;
	switch (r) {
	case ZP_EFORMAT: case ZP_ETRUNC: return EBADMSG;
	case ZP_EMISMATCH: case ZP_ERANGE: return EINVAL;
	case ZP_EFULL: return EBUSY;
	case ZP_EVERIFY: return EIO;
	default: return EIO;
	}
}

/* ---------------------------------------------------------------- connection */
static struct {
	pthread_mutex_t mu;
	bool up;
	struct zp_pipe_config cfg;
	unsigned group;
	struct zp_arena *arena;
	int push;                 /* PUSH to every gpud of the group */
	pthread_mutex_t push_mu;
	_Atomic uint64_t seq;
	uint64_t my_start;
} C = { .mu = PTHREAD_MUTEX_INITIALIZER, .push_mu = PTHREAD_MUTEX_INITIALIZER, .push = -1 };

static bool role_alive(enum zp_role role)
{
	const struct zp_arena_hdr *h = zp_arena_hdr(C.arena);
	for (uint32_t i = 0; i < h->proc_count; i++) {
		const struct zp_arena_proc *pr = zp_arena_proc_rec(C.arena, i);
		uint64_t w = zp_arena_load64(&pr->word);
		if (zp_word_state(w) == ZP_PROC_ALIVE && pr->role == (uint32_t)role && zp_arena_proc_alive(C.arena, i) == 1)
			return true;
	}
	return false;
}

static void rm_dir(const char *dir)
{
	DIR *dp = opendir(dir);
	if (dp) {
		struct dirent *e;
		char f[PATH_MAX + 260];
		while ((e = readdir(dp)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				snprintf(f, sizeof f, "%s/%s", dir, e->d_name);
				unlink(f);
			}
		closedir(dp);
	}
	rmdir(dir);
}

/* A directory of a caller that died before cleaning up. */
static int sweep_dead_dir(const char *dir, const char *name, void *ctx)
{
	(void)ctx;
	int pid = atoi(name);
	if (pid <= 0 || pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
		return 0;
	char sub[PATH_MAX + 260];
	snprintf(sub, sizeof sub, "%s/%s", dir, name);
	rm_dir(sub);
	return 0;
}

static void sweep_dead_dirs(void)
{
	zp_pipe_each(&C.cfg, "ss", sweep_dead_dir, NULL);
}

/* Attach to the group's arena; checked on every call (a supervisor may come and go). */
static zp_ss_error connect_pipeline(void)
{
	pthread_mutex_lock(&C.mu);
	zp_ss_error e = SS_OK;
	if (C.up) {
		if (!role_alive(ZP_ROLE_SUPERVISOR) && !role_alive(ZP_ROLE_GPUD))
			e = ss_err(ECONNREFUSED, "no zkpipe daemon is running on %s (no live supervisor or gpud in arena %s)",
				   C.cfg.run_dir, C.cfg.groups[C.group].arena);
		pthread_mutex_unlock(&C.mu);
		return e;
	}
	const char *cfgp = zp_knobs()->config;
	if (!cfgp || !cfgp[0]) {
		e = ss_err(EINVAL, "ZKPIPE_CONFIG is not set: it must name the zkpipe supervisor's config file");
		goto out;
	}
	zp_err_clear();
	int r = zp_pipe_config_load(&C.cfg, cfgp);
	if (r) {
		e = ss_err(errno_of(r), "%s", zp_err_text(r));
		goto out;
	}
	const char *gname = zp_knobs()->group;
	int g = gname && gname[0] ? zp_pipe_group_find(&C.cfg, gname) : 0;
	if (g < 0) {
		e = ss_err(EINVAL, "ZKPIPE_GROUP=%s: no such group in %s", gname, C.cfg.path);
		goto out;
	}
	C.group = (unsigned)g;
	const struct zp_pipe_group *gr = &C.cfg.groups[g];
	r = zp_arena_attach(gr->arena, 0, NULL, NULL, &C.arena);
	if (r) {
		e = ss_err(r == -ENOENT ? ECONNREFUSED : errno_of(r),
			   "no zkpipe pipeline is running for %s: arena %s of group %s: %s (start zkpipe-supervisor --config %s)",
			   C.cfg.path, gr->arena, gr->name, zp_err_text(r), C.cfg.path);
		goto out;
	}
	if (!role_alive(ZP_ROLE_SUPERVISOR) && !role_alive(ZP_ROLE_GPUD)) {
		e = ss_err(ECONNREFUSED, "no zkpipe daemon is running on %s (arena %s exists but has no live supervisor or gpud)",
			   C.cfg.run_dir, gr->arena);
		zp_arena_close(C.arena);
		C.arena = NULL;
		goto out;
	}
	/* fault the slots into this process's page tables once, not on every call's first copy */
	for (uint32_t i = 0; i < zp_arena_hdr(C.arena)->slot_count; i++)
		madvise(zp_arena_slot_data(C.arena, (zp_slot_h){ i, 0 }), zp_arena_slot_size(C.arena), MADV_POPULATE_WRITE);
	C.push = zp_hint_push();
	char url[ZP_PIPE_URL_MAX];
	for (uint32_t i = 0; C.push >= 0 && i < gr->gpus; i++)
		if (!zp_pipe_url(url, sizeof url, &C.cfg, "%s.g%u", gr->name, i))
			zp_hint_connect(C.push, url);
	char dir[PATH_MAX];
	if (!zp_pipe_path(dir, sizeof dir, &C.cfg, "ss"))
		zp_file_mkdirs(dir, 0700);
	if (!zp_pipe_path(dir, sizeof dir, &C.cfg, "srs"))
		zp_file_mkdirs(dir, 0700);
	C.my_start = zp_proc_start_time(getpid());
	sweep_dead_dirs();
	C.up = true;
out:
	pthread_mutex_unlock(&C.mu);
	return e;
}

static void hint_gpuds(void)
{
	if (C.push < 0)
		return;
	pthread_mutex_lock(&C.push_mu);
	zp_hint_send(C.push, "ready");
	pthread_mutex_unlock(&C.push_mu);
}

/* ---------------------------------------------------------------- SRS */
struct srs {
	_Atomic long refs;
	char path[PATH_MAX];       /* as the caller named it (cache key) */
	char real[PATH_MAX];
	char id[ZP_KEY_ID_MAX];
	zp_params_info in;
	bool cached;
};

#define CACHE_MAX 4
static struct srs *cache[CACHE_MAX]; /* most recent first, each holds one reference */
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;

static void srs_unref(struct srs *s)
{
	if (s && atomic_fetch_sub(&s->refs, 1) == 1)
		free(s);
}

/* <run>/srs/<id> = real, unless it is there already: gpud loads each registered file once, whoever asks. */
static zp_ss_error srs_register(const struct srs *s)
{
	char reg[PATH_MAX], dir[PATH_MAX];
	struct stat st;
	if (zp_pipe_path(reg, sizeof reg, &C.cfg, "srs/%s", s->id + strlen(ZP_SS_KEY_PREFIX)) ||
	    zp_pipe_path(dir, sizeof dir, &C.cfg, "srs"))
		return ss_err(ENAMETOOLONG, "run directory path too long");
	if (stat(reg, &st) == 0)
		return SS_OK;
	char line[PATH_MAX + 1];
	int n = snprintf(line, sizeof line, "%s\n", s->real), r;
	if ((r = zp_file_mkdirs(dir, 0700)) || (r = zp_file_write_atomic(reg, line, (size_t)n, NULL)))
		return ss_err(errno_of(r), "register %s in %s: %s", s->real, reg, zp_strerror(r));
	return SS_OK;
}

static zp_ss_error srs_open(const char *path, struct srs **out)
{
	struct srs *s = calloc(1, sizeof *s);
	if (!s)
		return ss_err(ENOMEM, "SRS handle");
	atomic_store(&s->refs, 1);
	snprintf(s->path, sizeof s->path, "%s", path);
	zp_err_clear();
	int r = zp_ss_srs_id(path, s->id, s->real);
	if (!r)
		r = zp_params_scan(s->real, &s->in);
	if (r) {
		free(s);
		return ss_err(errno_of(r), "%s", zp_err_text(r));
	}
	zp_ss_error e = srs_register(s);
	if (e.code) {
		free(s);
		return e;
	}
	hint_gpuds();
	*out = s;
	return SS_OK;
}

/* A call's id and counts: the handle's. Its registration gone — the supervisor's start removes one whose
 * file changed, a new run directory has none — the handle is registered again, following its file: one
 * that changed since create_SRS (a new mtime: another id) is scanned again and taken when its counts are
 * the same (a re-downloaded .params), refused otherwise; one that went fails the call. A long-lived
 * caller (bellperson keeps its SRS for the process's life) so never needs a restart for it. */
static pthread_mutex_t srs_mu = PTHREAD_MUTEX_INITIALIZER;

static zp_ss_error srs_for_call(const struct srs *cs, char id[ZP_KEY_ID_MAX])
{
	struct srs *s = (struct srs *)cs; /* the library's own object: a handle follows its file */
	char reg[PATH_MAX];
	struct stat st;
	zp_ss_error e = SS_OK;
	pthread_mutex_lock(&srs_mu);
	if (zp_pipe_path(reg, sizeof reg, &C.cfg, "srs/%s", s->id + strlen(ZP_SS_KEY_PREFIX)))
		e = ss_err(ENAMETOOLONG, "run directory path too long");
	else if (stat(reg, &st) != 0) {
		char nid[ZP_KEY_ID_MAX], real[PATH_MAX];
		zp_params_info ni;
		zp_err_clear();
		int r = zp_ss_srs_id(s->path, nid, real);
		if (!r && strcmp(nid, s->id) && !(r = zp_params_scan(real, &ni))) {
			if (memcmp(&ni, &s->in, sizeof ni))
				e = ss_err(EINVAL, "%s changed since create_SRS into another key (IC %u, l %u, a %u, b %u, h %u; was "
					   "IC %u, l %u, a %u, b %u, h %u): create the SRS again", real, ni.n_ic, ni.n_l, ni.n_a,
					   ni.n_b1, ni.n_h, s->in.n_ic, s->in.n_l, s->in.n_a, s->in.n_b1, s->in.n_h);
			else {
				snprintf(s->id, sizeof s->id, "%s", nid);
				snprintf(s->real, sizeof s->real, "%s", real);
			}
		}
		if (r)
			e = ss_err(errno_of(r), "%s", zp_err_text(r));
		if (!e.code && !(e = srs_register(s)).code)
			hint_gpuds();
	}
	memcpy(id, s->id, ZP_KEY_ID_MAX); /* its counts never change: a file with others is refused */
	pthread_mutex_unlock(&srs_mu);
	return e;
}

zp_ss_error create_SRS(zp_ss_srs *ret, const char *srs_path, bool use_cache)
{
	if (!ret || !srs_path)
		return ss_err(EINVAL, "create_SRS: NULL argument");
	ret->ptr = NULL;
	zp_ss_error e = connect_pipeline();
	if (e.code)
		return e;
	if (!use_cache) {
		struct srs *s;
		if ((e = srs_open(srs_path, &s)).code)
			return e;
		ret->ptr = s;
		return SS_OK;
	}
	pthread_mutex_lock(&cache_mu);
	for (int i = 0; i < CACHE_MAX; i++)
		if (cache[i] && !strcmp(cache[i]->path, srs_path)) {
			struct srs *s = cache[i];
			memmove(cache + 1, cache, (size_t)i * sizeof *cache);
			cache[0] = s;
			atomic_fetch_add(&s->refs, 1);
			ret->ptr = s;
			pthread_mutex_unlock(&cache_mu);
			return SS_OK;
		}
	struct srs *s;
	if ((e = srs_open(srs_path, &s)).code) {
		pthread_mutex_unlock(&cache_mu);
		return e;
	}
	s->cached = true;
	srs_unref(cache[CACHE_MAX - 1]); /* least recently used */
	memmove(cache + 1, cache, (CACHE_MAX - 1) * sizeof *cache);
	cache[0] = s;
	atomic_fetch_add(&s->refs, 1); /* the cache's and the caller's */
	ret->ptr = s;
	pthread_mutex_unlock(&cache_mu);
	return SS_OK;
}

void evict_SRS(const zp_ss_srs *ref)
{
	const struct srs *s = ref ? ref->ptr : NULL;
	if (!s)
		return;
	pthread_mutex_lock(&cache_mu);
	for (int i = 0; i < CACHE_MAX; i++)
		if (cache[i] && !strcmp(cache[i]->path, s->path)) {
			struct srs *v = cache[i];
			memmove(cache + i, cache + i + 1, (size_t)(CACHE_MAX - 1 - i) * sizeof *cache);
			cache[CACHE_MAX - 1] = NULL;
			srs_unref(v);
			break;
		}
	pthread_mutex_unlock(&cache_mu);
}

void drop_SRS(zp_ss_srs *ref)
{
	if (ref && ref->ptr) {
		srs_unref((struct srs *)ref->ptr);
		ref->ptr = NULL;
	}
}

zp_ss_srs clone_SRS(const zp_ss_srs *rhs)
{
	struct srs *s = rhs ? (struct srs *)rhs->ptr : NULL;
	if (s)
		atomic_fetch_add(&s->refs, 1);
	return (zp_ss_srs){ s };
}

/* ---------------------------------------------------------------- calls */
struct pending {
	uint64_t magic;
	zp_job_h job;
	uint64_t job_id;
	uint32_t n;
	zp_proc_h me;
	bool registered;
	char out[PATH_MAX];
	struct zkpipe_ss_stats st;
	uint64_t t0;
};
#define PENDING_MAGIC 0x676e69646e657053ull

static __thread struct zkpipe_ss_stats last_stats;

/* The caller's sizes against the key, as supraseal asserts them (but as errors). */
static zp_ss_error check_call(const zp_ss_assignment *p, size_t n, const zp_fr *r_s, const zp_fr *s_s,
			      const struct srs *s, uint64_t slot_size, uint32_t max_parts)
{
	const zp_params_info *in = &s->in;
	if (!n)
		return ss_err(EINVAL, "no circuits to prove");
	if (!p || !r_s || !s_s)
		return ss_err(EINVAL, "NULL provers, r_s or s_s");
	if (n > max_parts)
		return ss_err(E2BIG, "%zu circuits in one call; group %s takes at most %u per job (max_parts)", n,
			      C.cfg.groups[C.group].name, max_parts);
	for (size_t c = 0; c < n; c++) {
		const zp_ss_assignment *a = &p[c];
		if (!a->inp_assignment_data || (a->aux_assignment_size && !a->aux_assignment_data) || !a->a || !a->b || !a->c ||
		    (a->aux_assignment_size && (!a->a_aux_density || !a->b_aux_density)) || !a->b_inp_density)
			return ss_err(EINVAL, "circuit %zu: a NULL vector", c);
		if (a->inp_assignment_size != in->n_ic)
			return ss_err(EINVAL, "circuit %zu: %zu inputs, the key %s has %u (IC points)", c, a->inp_assignment_size,
				      s->real, in->n_ic);
		if (a->aux_assignment_size != in->n_l)
			return ss_err(EINVAL, "circuit %zu: %zu auxiliary variables, the key %s has %u (L points)", c,
				      a->aux_assignment_size, s->real, in->n_l);
		if (a->a_aux_bit_len != a->aux_assignment_size || a->b_aux_bit_len != a->aux_assignment_size ||
		    a->b_inp_bit_len != a->inp_assignment_size)
			return ss_err(EINVAL, "circuit %zu: density lengths (a_aux %zu, b_inp %zu, b_aux %zu) differ from the "
					      "assignment sizes (inputs %zu, aux %zu)", c, a->a_aux_bit_len, a->b_inp_bit_len,
				      a->b_aux_bit_len, a->inp_assignment_size, a->aux_assignment_size);
		if (a->inp_assignment_size + a->a_aux_popcount != in->n_a)
			return ss_err(EINVAL, "circuit %zu: inputs + A density = %zu, the key %s has %u A points", c,
				      a->inp_assignment_size + a->a_aux_popcount, s->real, in->n_a);
		if (a->b_inp_popcount + a->b_aux_popcount != in->n_b1)
			return ss_err(EINVAL, "circuit %zu: B density = %zu, the key %s has %u B points", c,
				      a->b_inp_popcount + a->b_aux_popcount, s->real, in->n_b1);
		if (zp_density_popcount(a->a_aux_density, a->a_aux_bit_len) != a->a_aux_popcount ||
		    zp_density_popcount(a->b_inp_density, a->b_inp_bit_len) != a->b_inp_popcount ||
		    zp_density_popcount(a->b_aux_density, a->b_aux_bit_len) != a->b_aux_popcount)
			return ss_err(EINVAL, "circuit %zu: a density popcount does not match its bit vector", c);
		if (a->abc_size > in->domain || a->abc_size < a->inp_assignment_size)
			return ss_err(EINVAL, "circuit %zu: abc_size %zu, the key's domain is %" PRIu64 " (h has %u points)", c,
				      a->abc_size, in->domain, in->n_h);
		if (a->abc_size != p[0].abc_size)
			return ss_err(EINVAL, "only equally sized circuits are supported (circuit %zu: abc_size %zu, circuit 0: %zu)",
				      c, a->abc_size, p[0].abc_size);
	}
	struct zp_ss_payload pl = { .inp = p[0].inp_assignment_size, .aux = p[0].aux_assignment_size, .abc = p[0].abc_size };
	uint64_t need = zp_ss_payload_layout(&pl);
	if (need > slot_size)
		return ss_err(EFBIG, "a partition needs %" PRIu64 " bytes of slot; group %s's slots hold %" PRIu64
				     " (raise slot_size in %s)", need, C.cfg.groups[C.group].name, slot_size, C.cfg.path);
	return SS_OK;
}

/* Copy-in. The caller's vectors are cold (synthesis wrote them long ago, or a proof ran since) and
 * the slot is read next by gpud, not by us: streaming (non-temporal) stores skip the read-for-
 * ownership of every destination line and leave the caller's cache alone, which is what a plain
 * memcpy of these sizes does not do (glibc streams only above a threshold scaled to the L3 size).
 * All the big vectors go through ONE zp_par_for over their concatenation (1 MiB tasks), not one
 * thread spawn + join per vector. Slot offsets are 64-byte aligned (zp_ss_payload_layout). A CPU
 * without AVX2 copies with memcpy (bench/RESULTS.md "libzkpipe-supraseal: per-partition overhead":
 * stream vs memcpy within noise at 2^14-2^17, the gain was the single spawn; streaming kept). */
__attribute__((target("avx2"))) static void copy_stream(uint8_t *dst, const uint8_t *src, size_t n)
{
	size_t head = (64 - ((uintptr_t)dst & 63)) & 63;
	if (head > n)
		head = n;
	memcpy(dst, src, head);
	dst += head, src += head, n -= head;
	size_t body = n & ~(size_t)127;
	for (size_t o = 0; o < body; o += 128) {
		__m256i x0 = _mm256_loadu_si256((const __m256i *)(src + o)), x1 = _mm256_loadu_si256((const __m256i *)(src + o + 32));
		__m256i x2 = _mm256_loadu_si256((const __m256i *)(src + o + 64)), x3 = _mm256_loadu_si256((const __m256i *)(src + o + 96));
		_mm256_stream_si256((__m256i *)(dst + o), x0);
		_mm256_stream_si256((__m256i *)(dst + o + 32), x1);
		_mm256_stream_si256((__m256i *)(dst + o + 64), x2);
		_mm256_stream_si256((__m256i *)(dst + o + 96), x3);
	}
	memcpy(dst + body, src + body, n - body);
	_mm_sfence(); /* streamed lines visible before mark_ready publishes the slot */
}
static void copy_plain(uint8_t *dst, const uint8_t *src, size_t n) { memcpy(dst, src, n); }

enum { NSEG = 5, COPY_CHUNK = 1u << 20 };
struct pcopy {
	uint8_t *dst[NSEG];
	const uint8_t *src[NSEG];
	size_t n[NSEG];
	void (*copy)(uint8_t *, const uint8_t *, size_t);
};
static void pcopy_task(void *vc, size_t i, int w)
{
	(void)w;
	struct pcopy *c = vc;
	size_t lo = i * COPY_CHUNK, hi = lo + COPY_CHUNK, base = 0;
	for (int k = 0; k < NSEG && base < hi; base += c->n[k], k++) {
		size_t a = lo > base ? lo - base : 0, b = hi - base < c->n[k] ? hi - base : c->n[k];
		if (a < b)
			c->copy(c->dst[k] + a, c->src[k] + a, b - a);
	}
}
static void pcopy_all(struct pcopy *c)
{
	c->copy = __builtin_cpu_supports("avx2") ? copy_stream : copy_plain;
	size_t total = 0;
	for (int k = 0; k < NSEG; k++)
		total += c->n[k];
	size_t tasks = (total + COPY_CHUNK - 1) / COPY_CHUNK;
	if (tasks <= 1) {
		if (tasks)
			pcopy_task(c, 0, 0);
		return;
	}
	zp_par_for(tasks, pcopy_task, c);
}

static void fill_slot(uint8_t *base, const struct zp_ss_payload *hdr, const zp_ss_assignment *a, const zp_fr *r,
		      const zp_fr *s)
{
	const struct zp_ss_payload *p = hdr;
	size_t fr = sizeof(zp_fr);
	memcpy(base, hdr, sizeof *hdr);
	struct pcopy c = {
		.dst = { base + p->off_inp, base + p->off_aux, base + p->off_a, base + p->off_b, base + p->off_c },
		.src = { (const uint8_t *)a->inp_assignment_data, (const uint8_t *)a->aux_assignment_data,
			 (const uint8_t *)a->a, (const uint8_t *)a->b, (const uint8_t *)a->c },
		.n = { p->inp * fr, p->aux * fr, p->abc * fr, p->abc * fr, p->abc * fr },
	};
	pcopy_all(&c);
	uint64_t wa = (p->aux + 63) / 64, wi = (p->inp + 63) / 64;
	if (wa) {
		memcpy(base + p->off_a_aux, a->a_aux_density, wa * 8);
		memcpy(base + p->off_b_aux, a->b_aux_density, wa * 8);
	}
	memcpy(base + p->off_b_inp, a->b_inp_density, wi * 8);
	memcpy(base + p->off_rs, r, fr);
	memcpy(base + p->off_rs + fr, s, fr);
}

/* Whether an older external job still has partitions to hand over (then it goes first). */
static bool older_waiting(uint64_t my_id)
{
	const struct zp_arena_hdr *h = zp_arena_hdr(C.arena);
	for (uint32_t j = 0; j < h->job_count; j++) {
		const struct zp_arena_job *jr = zp_arena_job_rec(C.arena, j);
		uint64_t w = zp_arena_load64(&jr->word);
		if (zp_word_state(w) != ZP_JOB_ACTIVE || !(jr->flags & ZP_JOB_EXTERNAL) || jr->id >= my_id)
			continue;
		for (uint32_t p = 0; p < jr->nparts; p++) {
			unsigned st = zp_word_state(zp_arena_load64(&zp_arena_part_rec(C.arena, j, p)->word));
			if (st == ZP_PART_PENDING || st == ZP_PART_CLAIMED)
				return true;
		}
	}
	return false;
}

static void pending_free(struct pending *pd, bool cancel)
{
	if (!pd)
		return;
	if (cancel && pd->job_id != UINT64_MAX) {
		char f[PATH_MAX], d[PATH_MAX];
		if (!zp_pipe_path(d, sizeof d, &C.cfg, "cancel") && !zp_file_mkdirs(d, 0700) &&
		    !zp_pipe_path(f, sizeof f, &C.cfg, "cancel/%llu", (unsigned long long)(pd->job_id << 8 | C.group)))
			zp_file_write_atomic(f, "", 0, NULL);
		/* partitions not handed over yet: fail them now (we own them or they are PENDING) */
		for (uint32_t p = 0; p < pd->n; p++) {
			zp_part_h ph = { pd->job, p };
			zp_arena_claim_part_at(C.arena, pd->me, ph);
			zp_arena_part_fail(C.arena, pd->me, ph, 0, "cancelled by the caller");
		}
	}
	if (pd->registered)
		zp_arena_proc_unregister(C.arena, pd->me);
	if (pd->out[0])
		rm_dir(pd->out);
	pd->magic = 0;
	free(pd);
}

static zp_ss_error start(const zp_ss_assignment provers[], size_t n, const zp_fr r_s[], const zp_fr s_s[],
			 const zp_ss_srs *srs, struct pending **out)
{
	*out = NULL;
	uint64_t t0 = zp_now_ns();
	zp_ss_error e = connect_pipeline();
	if (e.code)
		return e;
	const struct srs *s = srs ? srs->ptr : NULL;
	if (!s)
		return ss_err(EINVAL, "SRS handle is empty (create_SRS failed or it was dropped)");
	const struct zp_arena_hdr *h = zp_arena_hdr(C.arena);
	if ((e = check_call(provers, n, r_s, s_s, s, h->slot_size, h->max_parts)).code)
		return e;
	char id[ZP_KEY_ID_MAX];
	if ((e = srs_for_call(s, id)).code)
		return e;
	struct pending *pd = calloc(1, sizeof *pd);
	if (!pd)
		return ss_err(ENOMEM, "call state");
	pd->magic = PENDING_MAGIC;
	pd->n = (uint32_t)n;
	pd->job_id = UINT64_MAX;
	pd->t0 = t0;
	pd->st.parts = (uint32_t)n;
	/* a process-table entry for this call: what it owns is reclaimed if the caller dies */
	int r;
	for (int tries = 0; (r = zp_arena_proc_register(C.arena, 0, ZP_ROLE_CLIENT, "supraseal", &pd->me)) == ZP_EFULL &&
			    tries < 600; tries++)
		usleep(100000);
	if (r) {
		free(pd);
		return ss_err(errno_of(r), "register in arena %s: %s", h->name, zp_err_msg());
	}
	pd->registered = true;
	snprintf(pd->out, sizeof pd->out, "%s/ss/%d.%llu", C.cfg.run_dir, (int)getpid(),
		 (unsigned long long)atomic_fetch_add(&C.seq, 1));
	if ((r = zp_file_mkdirs(pd->out, 0700))) {
		pd->out[0] = 0;
		pending_free(pd, false);
		return ss_err(errno_of(r), "mkdir %s/ss/...: %s", C.cfg.run_dir, zp_strerror(r));
	}
	char inputs[64];
	snprintf(inputs, sizeof inputs, ZP_SS_INPUT_PREFIX "%d:%llu", (int)getpid(), (unsigned long long)C.my_start);
	const char *pr = zp_knobs()->priority;
	struct zp_job_spec spec = { .key_id = id, .nparts = (uint32_t)n, .priority = pr ? (uint32_t)atoi(pr) : 0,
				    .inputs = inputs, .output = pd->out, .flags = ZP_JOB_EXTERNAL };
	zp_err_clear();
	if ((r = zp_arena_submit_job(C.arena, &spec, &pd->job, &pd->job_id))) {
		pending_free(pd, false);
		return ss_err(r == ZP_EFULL ? EBUSY : errno_of(r), "submit: %s", zp_err_msg());
	}
	pd->st.setup_ns = zp_now_ns() - t0;
	struct zp_ss_payload hdr = { .magic = ZP_SS_PAYLOAD_MAGIC, .job_id = pd->job_id, .inp = provers[0].inp_assignment_size,
				     .aux = provers[0].aux_assignment_size, .abc = provers[0].abc_size, .domain = s->in.domain };
	snprintf(hdr.key_id, sizeof hdr.key_id, "%s", id);
	zp_ss_payload_layout(&hdr);
	for (uint32_t p = 0; p < n; p++) {
		zp_part_h ph = { pd->job, p };
		if ((r = zp_arena_claim_part_at(C.arena, pd->me, ph))) {
			pending_free(pd, true);
			return ss_err(EIO, "partition %u of job %llu was taken from this caller (%s)", p,
				      (unsigned long long)pd->job_id, zp_strerror(r));
		}
		uint64_t tw = zp_now_ns();
		for (uint64_t k = 1; older_waiting(pd->job_id); k++) {
			struct timespec ts = { 0, 500000 };
			nanosleep(&ts, NULL);
			if (k % 500 == 0 && !role_alive(ZP_ROLE_SUPERVISOR) && !role_alive(ZP_ROLE_GPUD)) {
				pending_free(pd, true);
				return ss_err(ECONNREFUSED, "no zkpipe daemon is running any more on %s", C.cfg.run_dir);
			}
		}
		zp_slot_h sh;
		for (;;) {
			r = zp_arena_claim_slot(C.arena, pd->me, ph, 250, &sh);
			if (r != -ETIMEDOUT)
				break;
			if (!role_alive(ZP_ROLE_SUPERVISOR) && !role_alive(ZP_ROLE_GPUD)) {
				pending_free(pd, true);
				return ss_err(ECONNREFUSED, "no zkpipe daemon is running any more on %s", C.cfg.run_dir);
			}
		}
		if (r) {
			pending_free(pd, true);
			return ss_err(EIO, "claim a slot: %s", zp_strerror(r));
		}
		uint64_t tf = zp_now_ns();
		hdr.part = p;
		hdr.a_aux_pop = provers[p].a_aux_popcount;
		hdr.b_inp_pop = provers[p].b_inp_popcount;
		hdr.b_aux_pop = provers[p].b_aux_popcount;
		fill_slot(zp_arena_slot_data(C.arena, sh), &hdr, &provers[p], &r_s[p], &s_s[p]);
		uint64_t tr = zp_now_ns();
		if ((r = zp_arena_mark_ready(C.arena, pd->me, sh, hdr.bytes)) < 0) {
			pending_free(pd, true);
			return ss_err(EIO, "mark the slot READY: %s (reclaimed under us?)", zp_strerror(r));
		}
		hint_gpuds();
		if (p == 0)
			pd->st.first_ready_ns = zp_now_ns() - t0;
		pd->st.slot_wait_ns += tf - tw;
		pd->st.copy_ns += tr - tf;
		pd->st.bytes += hdr.bytes;
	}
	pd->st.start_ns = zp_now_ns() - t0;
	*out = pd;
	return SS_OK;
}

static zp_ss_error read_proof(const char *out, uint32_t p, zp_ss_proof *proof, bool *got, char *err, size_t en)
{
	char f[PATH_MAX + 32];
	snprintf(f, sizeof f, "%s/part-%u.proof.bin", out, p);
	int fd = open(f, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t k = read(fd, proof, sizeof *proof);
		close(fd);
		if (k != (ssize_t)sizeof *proof)
			return ss_err(EIO, "%s: short proof file", f);
		*got = true;
		return SS_OK;
	}
	snprintf(f, sizeof f, "%s/part-%u.error", out, p);
	fd = open(f, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t k = read(fd, err, en - 1);
		close(fd);
		err[k > 0 ? k : 0] = 0;
		return ss_err(EIO, "partition %u: %s", p, err[0] ? err : "failed");
	}
	return SS_OK;
}

/* Read every partition not yet in got[]; *have counts those read. Stops at the first failure. */
static zp_ss_error read_missing(const struct pending *pd, zp_ss_proof proofs[], bool *got, uint32_t *have, char *err,
				size_t en)
{
	for (uint32_t p = 0; p < pd->n; p++)
		if (!got[p]) {
			zp_ss_error e = read_proof(pd->out, p, &proofs[p], &got[p], err, en);
			if (e.code)
				return e;
			*have += got[p];
		}
	return SS_OK;
}

static zp_ss_error finish(struct pending *pd, zp_ss_proof proofs[])
{
	zp_ss_error e = SS_OK;
	uint64_t tw = zp_now_ns();
	/* one inotify instance per thread, kept: closing one waits for an RCU grace period (~10 ms) */
	static __thread int in_fd = -1;
	if (in_fd < 0)
		in_fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	int in = in_fd, wd = -1;
	if (in >= 0 && (wd = inotify_add_watch(in, pd->out, IN_MOVED_TO | IN_CLOSE_WRITE)) < 0)
		in = -1;
	bool *got = calloc(pd->n, sizeof(bool));
	uint32_t have = 0;
	char err[ZP_ERRTXT_MAX + 1];
	long wait_s = zp_knobs()->wait_s ? atol(zp_knobs()->wait_s) : 120;
	uint64_t last_gpud = zp_mono_ms(), last_check = 0;
	if (!got) {
		e = ss_err(ENOMEM, "wait state");
		goto out;
	}
	for (;;) {
		if ((e = read_missing(pd, proofs, got, &have, err, sizeof err)).code)
			goto out;
		if (have == pd->n)
			break;
		uint64_t now = zp_mono_ms();
		if (now - last_check >= 250) {
			last_check = now;
			int st = zp_arena_job_state(C.arena, pd->job);
			if (st == ZP_JOB_FAILED || st < 0) {
				/* a last look at the files: the proofs, or the failure, may be there by now */
				if ((e = read_missing(pd, proofs, got, &have, err, sizeof err)).code)
					goto out;
				if (have == pd->n)
					break;
				const struct zp_arena_job *jr = zp_arena_job_rec(C.arena, pd->job.idx);
				e = st < 0 ? ss_err(EIO, "job %llu vanished from the arena", (unsigned long long)pd->job_id)
					   : ss_err(EIO, "job %llu failed: %.*s", (unsigned long long)pd->job_id, ZP_ERRTXT_MAX,
						    jr->error);
				goto out;
			}
			if (role_alive(ZP_ROLE_GPUD))
				last_gpud = now;
			else if (wait_s > 0 && now - last_gpud > (uint64_t)wait_s * 1000) {
				e = ss_err(ETIMEDOUT, "no gpud has been alive on %s for %ld s (ZKPIPE_WAIT_S)", C.cfg.run_dir,
					   wait_s);
				goto out;
			}
		}
		if (in >= 0) {
			struct pollfd pf = { .fd = in, .events = POLLIN };
			if (poll(&pf, 1, 250) > 0) {
				char buf[4096];
				while (read(in, buf, sizeof buf) > 0)
					;
			}
		} else {
			usleep(2000);
		}
	}
	/* stage times of each partition, before the record goes */
	uint64_t tdone = zp_now_ns();
	for (uint32_t p = 0; p < pd->n; p++) {
		const struct zp_arena_part *pr = zp_arena_part_rec(C.arena, pd->job.idx, p);
		uint64_t ts[ZP_TS_COUNT];
		for (int i = 0; i < ZP_TS_COUNT; i++)
			ts[i] = zp_arena_load64(&pr->ts[i]);
		if (ts[ZP_TS_GPU_END] > ts[ZP_TS_GPU_START])
			pd->st.prove_ns += ts[ZP_TS_GPU_END] - ts[ZP_TS_GPU_START];
		if (ts[ZP_TS_GPU_START] > ts[ZP_TS_READY])
			pd->st.handoff_ns += ts[ZP_TS_GPU_START] - ts[ZP_TS_READY];
		if (ts[ZP_TS_COPY_END] > ts[ZP_TS_COPY_START])
			pd->st.copy_out_ns += ts[ZP_TS_COPY_END] - ts[ZP_TS_COPY_START];
		if (p == pd->n - 1) { /* the last partition's timeline, from the call's start */
			pd->st.last_ready_at_ns = ts[ZP_TS_READY] - pd->t0;
			pd->st.last_gpu_start_at_ns = ts[ZP_TS_GPU_START] - pd->t0;
			pd->st.last_gpu_end_at_ns = ts[ZP_TS_GPU_END] - pd->t0;
			pd->st.last_done_at_ns = ts[ZP_TS_DONE] > pd->t0 ? ts[ZP_TS_DONE] - pd->t0 : 0;
		}
	}
	pd->st.seen_at_ns = tdone - pd->t0;
	/* the last part_done follows its proof file by microseconds; then the record is ours to free */
	for (int i = 0; i < 2000 && zp_arena_job_state(C.arena, pd->job) == ZP_JOB_ACTIVE; i++) {
		struct timespec ts = { 0, 500000 };
		nanosleep(&ts, NULL);
	}
	zp_arena_job_free(C.arena, pd->job);
	pd->st.wait_ns = tdone - tw;
out:
	if (wd >= 0) {
		char buf[4096];
		inotify_rm_watch(in_fd, wd);
		while (read(in_fd, buf, sizeof buf) > 0)
			;
	}
	free(got);
	struct zkpipe_ss_stats st = pd->st;
	uint64_t t0 = pd->t0;
	pending_free(pd, e.code != 0);
	st.total_ns = zp_now_ns() - t0;
	last_stats = st;
	return e;
}

zp_ss_error generate_groth16_proofs_c(const zp_ss_assignment provers[], size_t num_circuits, const zp_fr r_s[],
				      const zp_fr s_s[], zp_ss_proof proofs[], const zp_ss_srs *srs)
{
	if (!proofs)
		return ss_err(EINVAL, "proofs is NULL");
	struct pending *pd;
	zp_ss_error e = start(provers, num_circuits, r_s, s_s, srs, &pd);
	if (e.code)
		return e;
	return finish(pd, proofs);
}

/* ---- curio's split API ---- */
void *create_gpu_mutex(void)
{
	pthread_mutex_t *m = malloc(sizeof *m);
	if (m)
		pthread_mutex_init(m, NULL);
	return m;
}

void destroy_gpu_mutex(void *mtx)
{
	if (mtx) {
		pthread_mutex_destroy(mtx);
		free(mtx);
	}
}

zp_ss_error generate_groth16_proofs_start_c(const zp_ss_assignment provers[], size_t num_circuits, const zp_fr r_s[],
					    const zp_fr s_s[], const zp_ss_srs *srs, void *gpu_mtx, int gpu_index,
					    void **pending_out)
{
	(void)gpu_mtx;
	(void)gpu_index;
	if (!pending_out)
		return ss_err(EINVAL, "pending_out is NULL");
	*pending_out = NULL;
	struct pending *pd;
	zp_ss_error e = start(provers, num_circuits, r_s, s_s, srs, &pd);
	if (!e.code)
		*pending_out = pd;
	return e;
}

zp_ss_error finalize_groth16_proof_c(void *handle, zp_ss_proof proofs[])
{
	struct pending *pd = handle;
	if (!pd || pd->magic != PENDING_MAGIC)
		return ss_err(EINVAL, "finalize: not a pending proof handle");
	if (!proofs) {
		pending_free(pd, true);
		return ss_err(EINVAL, "finalize: proofs is NULL");
	}
	return finish(pd, proofs);
}

void destroy_pending_proof(void *handle)
{
	struct pending *pd = handle;
	if (pd && pd->magic == PENDING_MAGIC)
		pending_free(pd, true);
}

/* ---- zkpipe extension ---- */
void zkpipe_supraseal_stats(struct zkpipe_ss_stats *out)
{
	if (out)
		*out = last_stats;
}
