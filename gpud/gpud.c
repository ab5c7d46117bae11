/*
 * zkpipe-gpud — prover: keeps every configured proving key resident (read with io_uring),
 * takes READY slots (highest priority, oldest job, lowest partition first), copies the
 * slot's w, a, b, c into its own buffers and releases the slot before proving, proves with
 * its backend (upload → H → MSMs → finish), verifies its own proof, writes it atomically,
 * marks the partition DONE and, when that was the job's last partition, assembles the job's
 * proofs.json.
 *
 *   zkpipe-gpud --config FILE --group NAME --index I
 *
 * The backend is the prover's ops table (prover/groth16.h: create, upload, h, msm,
 * destroy; finish on the host). [group] backend = cpu (default) | cuda picks it
 * (prover/backends.h); without CUDA or a GPU, cuda logs why and exits 1.
 *
 * Device pipeline (a backend with upload_async, i.e. cuda): the arena mapping is registered for
 * DMA at start (host_register; if that fails — memlock limit — it is logged once and uploads
 * stage through the backend's pinned buffers). Three threads:
 *   main  takes a READY slot, waits for a free device input set of its key (nbufs(): two when
 *         device memory allows, else one: copies then serialize with proving), copies w, a, b, c
 *         straight from the slot to the device (upload_async + upload_wait), keeps the public
 *         inputs, releases the slot — before the partition's H and MSMs start — and queues it;
 *   gpu   prove_buf (H + MSMs) per queued partition, in order, then frees the input set;
 *   tail  zp_g16_finish, self-verify, proof write, part_done (DONE only after the proof file
 *         is written), job assembly — for partition k while the GPU works on k+1.
 * A failed partition (CUDA error, out of memory, failed self-check) is failed with the error and
 * retried as fail_part says (a failed self-check too: on a GPU it may be the device's fault; the
 * attempt limit ends a partition that fails every time); gpud keeps serving. After
 * a sticky CUDA error (backend fatal(): illegal address and the like) gpud logs and exits 3,
 * and the supervisor restarts it (the arena gives its partitions back).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "backends.h"
#include "daemon.h"
#include "g16_json.h"
#include "gpud_ss.h"
#include "groth16.h"
#include "keyfile.h"
#include "keyload.h"
#include "pipe.h"
#include "setup.h"
#ifdef ZP_HAVE_CUDA
#include "setup_cuda.h"
#endif
#include "synth.h"
#include "zkey.h"
#include "zp_err.h"

enum { KEY_ZKEY, KEY_ZPK, KEY_DEVICE };

struct key {
	const struct zp_pipe_key *cfg;
	int kind;                  /* KEY_*: how zk, gk are owned (see load_key_*) */
	zp_pkey pk;                /* KEY_ZPK: the loaded .zpk (zk and gk are views into it) */
#ifdef ZP_HAVE_CUDA
	zp_cuda_key_dev kd;        /* KEY_DEVICE: the points in GPU memory until the backend adopts them */
#endif
	zp_zkey zk;
	zp_g16_key gk;
	zp_g16_vk vk;
	void *be_state;
	int state;                 /* 1 loaded, <0 error */
	int nbufs, busy[2];        /* device pipeline: input sets of be_state, in use */
	char err[200];
};

static struct zp_daemon D;
static struct key keys[ZP_PIPE_MAX_KEYS];
static const zp_g16_backend_ops *be = &zp_g16_backend_cpu;
static zp_fr *buf_w, *buf_abc;     /* the "device" copy of a slot (CPU backend) */
static uint64_t max_vars, max_domain;
static char gpu_desc[ZP_PIPE_GPU_NAME]; /* the GPU as configured (bus id or ordinal), "" = index */
static uint64_t parts_proved;           /* by this process */

static int ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

/* zkpipe's own key file (.zpk, prover/keyfile.h): loaded whole with io_uring; zk and gk are
 * views into k->pk (its H mode and root family as recorded in the file). */
static int load_key_zpk(struct key *k, size_t *len)
{
	zp_pkey_load_stats st;
	int r = zp_pkey_load(&k->pk, k->cfg->zkey, NULL, &st);
	if (r)
		return r;
	k->kind = KEY_ZPK;
	k->zk = k->pk.zk;
	k->gk = *zp_pkey_g16(&k->pk);
	k->gk.zkey = &k->zk;
	*len = st.bytes;
	if (k->pk.hdr->flags & ZP_PKEY_INSECURE)
		zp_log(D.who, "key %s: %s is an INSECURE development key (%s)", k->cfg->name, k->cfg->zkey, k->pk.hdr->origin);
	return 0;
}

/* setup = device: the synthetic circuit, then a development key made on this GPU with fresh
 * toxic waste (getrandom), its points left in device memory for the CUDA backend to adopt
 * (prover/setup_cuda.h). The circuit is freed at once (synthd has its own copy). */
static int load_key_device(struct key *k)
{
#ifdef ZP_HAVE_CUDA
	zp_synth_params sp;
	zp_circuit c;
	zp_setup_stats st;
	int r;
	if (be != &zp_g16_backend_cuda)
		return zp_err_set(-EINVAL, "setup = device makes the key in GPU memory: it needs [group] backend = cuda "
				  "(this group's is %s)", be->name);
	if ((r = zp_synth_parse(&sp, k->cfg->synth)))
		return r;
	uint64_t t0 = zp_mono_ms();
	if ((r = zp_synth_circuit(&c, &sp)))
		return r;
	uint64_t t1 = zp_mono_ms();
	/* bellperson's coefficient H (as Filecoin's keys): the H step needs NTTs of size n only, where the
	 * snarkjs odd-root H needs 2n twiddles — beyond the GPU NTT's 2^27 at PoRep size */
	zp_setup_opts o = { .h_mode = ZP_H_COEFF, .roots = 5, .origin = k->cfg->synth, .stats = &st };
	r = zp_setup_device(&k->kd, &k->zk, &c, &o);
	zp_circuit_free(&c);
	if (r)
		return r;
	k->kind = KEY_DEVICE;
	zp_log(D.who, "key %s: INSECURE development key made on the GPU: circuit %llu ms, setup %.2f s (tables %.2f, "
	       "lagrange %.2f, A/B1/B2 %.2f, IC/C %.2f, H %.2f s)", k->cfg->name, (unsigned long long)(t1 - t0),
	       st.total, st.tables, st.lagrange, st.ab, st.c, st.h);
	k->gk = (zp_g16_key){ .zkey = &k->zk, .h_mode = ZP_H_COEFF, .roots = o.roots, .dev_points = &k->kd };
	return 0;
#else
	return zp_err_set(-ENOTSUP, "setup = device needs a build with CUDA and [group] backend = cuda");
#endif
}

static void load_keys(void)
{
	for (unsigned i = 0; i < D.cfg.n_keys; i++) {
		struct key *k = &keys[i];
		k->cfg = &D.cfg.keys[i];
		uint8_t *data = NULL;
		size_t len = 0;
		uint64_t t0 = zp_mono_ms();
		zp_err_clear();
		int r;
		if (k->cfg->setup_device) {
			r = load_key_device(k);
		} else if (ends_with(k->cfg->zkey, ".zpk")) {
			r = load_key_zpk(k, &len);
		} else {
			r = zp_key_read_file(k->cfg->zkey, &data, &len);
			if (!r)
				r = zp_zkey_parse(&k->zk, data, len, k->cfg->zkey);
			free(data);
			if (!r)
				r = zp_g16_key_init(&k->gk, &k->zk, ZP_H_SNARKJS);
		}
		if (!r && !(r = zp_zkey_vk(&k->vk, &k->zk)))
			r = be->create(&k->be_state, &k->gk);
#ifdef ZP_HAVE_CUDA
		zp_cuda_key_dev_free(&k->kd);   /* not adopted (create failed early): give the memory back */
#endif
		if (r) {
			k->state = r;
			snprintf(k->err, sizeof k->err, "key %s: %s", k->cfg->name,
				 zp_err_msg()[0] ? zp_err_msg() : zp_strerror(r));
			zp_log(D.who, "%s (its partitions will fail)", k->err);
			continue;
		}
		k->state = 1;
		if (k->zk.n_vars > max_vars)
			max_vars = k->zk.n_vars;
		if (k->zk.domain_size > max_domain)
			max_domain = k->zk.domain_size;
		zp_log(D.who, "key %s: %u vars, domain %u, %zu bytes in %llu ms (%s)", k->cfg->name,
		       k->zk.n_vars, k->zk.domain_size, len, (unsigned long long)(zp_mono_ms() - t0),
		       k->kind == KEY_DEVICE ? "made on the GPU" : "io_uring");
	}
}

/* <run dir>/keys/<name>.vk.json: every loaded key's verification key, so clients can check the
 * proofs of keys that exist only inside gpud; rewritten at every start. A setup = device key is
 * each gpud's own (its own toxic waste): <name>.<group>.gpud<i>.vk.json, and a partition's
 * part-<p>.gpu.json says which gpud proved it. */
static void write_vks(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 192]; /* dir is short: the run directory holds ipc sockets */
	zp_pipe_path(dir, sizeof dir, &D.cfg, "keys");
	if (mkdir(dir, 0755) && errno != EEXIST)
		return;
	for (unsigned i = 0; i < D.cfg.n_keys; i++) {
		if (keys[i].state != 1)
			continue;
		if (keys[i].kind == KEY_DEVICE) /* made here with this gpud's own toxic waste */
			snprintf(path, sizeof path, "%s/%s.%s.gpud%u.vk.json", dir, keys[i].cfg->name,
				 D.cfg.groups[D.group].name, D.index);
		else
			snprintf(path, sizeof path, "%s/%s.vk.json", dir, keys[i].cfg->name);
		char tmp[PATH_MAX + 224];
		snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
		if (zp_g16_vk_write_json(tmp, &keys[i].vk) || rename(tmp, path))
			zp_log(D.who, "key %s: cannot write %s", keys[i].cfg->name, path);
	}
}

static struct key *key_find(const char *name)
{
	for (unsigned i = 0; i < D.cfg.n_keys; i++)
		if (!strcmp(keys[i].cfg->name, name))
			return &keys[i];
	return NULL;
}

#define fail_part(ph, retry, ...) zp_daemon_fail_part(&D, (ph), (retry), __VA_ARGS__)

/* Check the payload against the key. Returns the key or NULL (reason in why). */
static struct key *check_payload(zp_slot_h sh, struct zp_slot_payload *p, char *why, size_t n)
{
	const struct zp_slot_payload *sp = zp_arena_slot_data(D.arena, sh);
	*p = *sp;
	struct key *k = p->magic == ZP_PAYLOAD_MAGIC ? key_find(p->key_id) : NULL;
	if (!k) {
		snprintf(why, n, "gpud: slot payload for unknown key '%.*s'", ZP_KEY_ID_MAX, p->key_id);
		return NULL;
	}
	if (k->state != 1) {
		snprintf(why, n, "gpud: %s", k->err);
		return NULL;
	}
	struct zp_slot_payload want = *p;
	if (p->n_vars != k->zk.n_vars || p->domain != k->zk.domain_size ||
	    zp_payload_layout(&want, p->n_vars, p->domain) != p->bytes || want.off_c != p->off_c ||
	    p->bytes > zp_arena_slot_size(D.arena)) {
		snprintf(why, n, "gpud: payload shape (%u vars, domain %u) does not match key %s (%u, %u)",
			 p->n_vars, p->domain, k->cfg->name, k->zk.n_vars, k->zk.domain_size);
		return NULL;
	}
	if (memcmp(p->fingerprint, k->zk.circuit.fingerprint, 16)) {
		snprintf(why, n, "gpud: circuit fingerprint differs from key %s's: the r1cs is not this key's circuit",
			 k->cfg->name);
		return NULL;
	}
	return k;
}

/* Check the payload against the key; copy it out. Returns the key or NULL (reason in why). */
static struct key *copy_out(zp_slot_h sh, struct zp_slot_payload *p, char *why, size_t n)
{
	const struct zp_slot_payload *sp = zp_arena_slot_data(D.arena, sh);
	struct key *k = check_payload(sh, p, why, n);
	if (!k)
		return NULL;
	const uint8_t *base = (const uint8_t *)sp;
	size_t d = (size_t)p->domain * sizeof(zp_fr);
	memcpy(buf_w, base + p->off_w, (size_t)p->n_vars * sizeof(zp_fr));
	memcpy(buf_abc, base + p->off_a, d);
	memcpy((uint8_t *)buf_abc + d, base + p->off_b, d);
	memcpy((uint8_t *)buf_abc + 2 * d, base + p->off_c, d);
	return k;
}

/* Stages: upload, H, MSMs (backend), finish (host, constant time in r, s), self-verify. */
static int prove(struct key *k, zp_g16_proof *proof)
{
	zp_fr r, s;
	zp_g16_msm_out mo;
	size_t d = k->zk.domain_size;
	int rc;
	if ((rc = zp_fr_random_secure(&r)) || (rc = zp_fr_random_secure(&s)))
		return zp_err_set(rc, "getrandom for r and s");
	if (!(rc = be->upload(k->be_state, buf_w, buf_abc, buf_abc + d, buf_abc + 2 * d)) &&
	    !(rc = be->h(k->be_state)) && !(rc = be->msm(k->be_state, &mo)))
		zp_g16_finish(proof, &k->zk, &mo, &r, &s);
	explicit_bzero(&r, sizeof r);
	explicit_bzero(&s, sizeof s);
	if (rc)
		return rc;
	return zp_g16_verify(&k->vk, proof, buf_w + 1, k->zk.n_public);
}

/* part-<p>.gpu.json: which gpud / GPU proved the partition (written before the proof,
 * so a complete proof always has its record; a redone partition overwrites it). */
static int write_gpu_record(const char *out, uint32_t part, uint64_t job)
{
	const struct zp_pipe_group *gr = &D.cfg.groups[D.group];
	char path[PATH_MAX], buf[512];
	const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
	int n = snprintf(buf, sizeof buf,
			 "{\"job\": %llu, \"part\": %u, \"group\": \"%s\", \"gpud\": %u, \"gpu\": \"%s\", "
			 "\"ordinal\": %d, \"cuda_visible_devices\": \"%s\", \"numa_node\": %d, \"pid\": %d, "
			 "\"backend\": \"%s\"}\n",
			 (unsigned long long)job, part, gr->name, D.index, gpu_desc, gr->gpu_ordinal[D.index],
			 cvd ? cvd : "", gr->gpu_node[D.index], (int)getpid(), be->name);
	snprintf(path, sizeof path, "%s/part-%u.gpu.json", out, part);
	int r = zp_write_atomic(path, buf, (size_t)n);
	return r ? zp_err_set(r, "%s", path) : 0;
}

static int write_proof(const char *out, uint32_t part, const zp_g16_proof *proof, const zp_fr *pub, uint32_t np)
{
	char path[PATH_MAX], tmp[PATH_MAX + 32];
	int r;
	snprintf(path, sizeof path, "%s/part-%u.public.json", out, part);
	snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
	if ((r = zp_g16_public_write_json(tmp, pub, np)) || (rename(tmp, path) && (r = -errno)))
		return unlink(tmp), zp_err_set(r, "%s", path);
	snprintf(path, sizeof path, "%s/part-%u.proof.json", out, part);
	snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
	if ((r = zp_g16_proof_write_json(tmp, proof)) || (rename(tmp, path) && (r = -errno)))
		return unlink(tmp), zp_err_set(r, "%s", path);
	return 0;
}

static int gr_ordinal(void) { return D.cfg.groups[D.group].gpu_ordinal[D.index]; }

static void prove_one(zp_slot_h sh, zp_part_h ph)
{
	if (zp_ss_gpud_is_ours(zp_arena_slot_data(D.arena, sh))) { /* bellperson partition (supraseal/) */
		zp_ss_gpud_prove(&D, sh, ph);
		return;
	}
	struct zp_slot_payload p;
	char why[ZP_ERRTXT_MAX] = "";
	struct key *k = copy_out(sh, &p, why, sizeof why);
	zp_arena_release_slot(D.arena, D.me, sh); /* the slot is free before proving starts */
	if (!k) {
		fail_part(ph, 0, "%s", why);
		return;
	}
	const struct zp_arena_job *jr = zp_arena_job_rec(D.arena, ph.job.idx);
	char out[ZP_PATH_MAX], key[ZP_KEY_ID_MAX];
	memcpy(out, jr->output, sizeof out);
	memcpy(key, jr->key_id, sizeof key);
	uint32_t nparts = jr->nparts;
	uint64_t job_id = jr->id;
	if (zp_arena_job_state(D.arena, ph.job) != ZP_JOB_ACTIVE)
		return;
	if (zp_daemon_cancelled(&D, job_id)) {
		fail_part(ph, 0, "cancelled by client");
		return;
	}
	zp_arena_part_stamp(D.arena, ph, ZP_TS_GPU_START);
	zp_g16_proof proof;
	zp_err_clear();
	int r = prove(k, &proof);
	zp_daemon_sleep(&D, D.cfg.prove_delay_ms); /* [debug]: lets tests kill mid-proof */
	zp_arena_part_stamp(D.arena, ph, ZP_TS_GPU_END);
	if (r) {
		fail_part(ph, 1, "prove: %s", zp_err_msg()[0] ? zp_err_msg() : zp_strerror(r));
		return;
	}
	if ((r = write_gpu_record(out, ph.part, zp_daemon_client_id(&D, job_id))) ||
	    (r = write_proof(out, ph.part, &proof, buf_w + 1, k->zk.n_public))) {
		fail_part(ph, 1, "write proof: %s", zp_err_msg());
		return;
	}
	if ((r = zp_arena_part_done(D.arena, D.me, ph))) {
		zp_log(D.who, "part_done: %s (reclaimed under us; the partition is redone)", zp_strerror(r));
		return;
	}
	parts_proved++;
	zp_log(D.who, "job %llu part %u proved on GPU %d (%llu so far)",
	       (unsigned long long)zp_daemon_client_id(&D, job_id), ph.part, gr_ordinal(), (unsigned long long)parts_proved);
	if (zp_arena_job_state(D.arena, ph.job) == ZP_JOB_DONE) {
		uint64_t cid = zp_daemon_client_id(&D, job_id);
		if ((r = zp_job_assemble(out, cid, key, nparts)))
			zp_log(D.who, "job %llu: %s (the supervisor retries)", (unsigned long long)cid, zp_err_msg());
		zp_daemon_hint_sup(&D, "done");
	}
}

/* ---------------------------------------------------------------- device pipeline */

struct flight {                    /* one partition between copy and DONE */
	struct flight *next;
	struct key *k;
	zp_part_h ph;
	int buf;
	char out[ZP_PATH_MAX], key_id[ZP_KEY_ID_MAX];
	uint32_t nparts;
	uint64_t job_id;
	zp_fr *pub;                    /* n_public inputs, copied from the slot before its release */
	zp_g16_msm_out mo;
	unsigned attempt;              /* this gpud's proof attempts so far ([debug] inject) */
};

static pthread_mutex_t pl_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pl_cv = PTHREAD_COND_INITIALIZER; /* any change below */
static struct flight *gpu_q, *tail_q;                     /* FIFOs */
static unsigned in_flight;                                /* copied, not yet finished */
static int pl_stop, gpu_idle = 1;
static pthread_t gpu_th, tail_th;
static bool pipelined;

static void q_push(struct flight **q, struct flight *f)
{
	f->next = NULL;
	while (*q)
		q = &(*q)->next;
	*q = f;
}

static struct flight *q_pop(struct flight **q)
{
	struct flight *f = *q;
	if (f)
		*q = f->next;
	return f;
}

static void flight_free(struct flight *f)
{
	pthread_mutex_lock(&pl_mu);
	in_flight--;
	pthread_cond_broadcast(&pl_cv);
	pthread_mutex_unlock(&pl_mu);
	free(f->pub);
	free(f);
}

/* [debug] inject = what@n[, what@n ...] (tests of the device pipeline without a device): the n-th
 * proof attempt of a gpud meets `what` instead of proving — gpu-error (a CUDA error: the partition
 * fails and is retried, gpud serves on), sticky (a sticky CUDA error: gpud exits 3 for the
 * supervisor to restart it), bad-proof (the proof fails its self-check: failed and retried). Each
 * fires once per run directory (a marker file), so a restarted gpud does not meet it again. */
static unsigned inj_attempts;
static bool inj_sticky;

static bool inject_due(const char *what, unsigned attempt)
{
	char spec[sizeof D.cfg.inject], *save = NULL, path[PATH_MAX];
	snprintf(spec, sizeof spec, "%s", D.cfg.inject);
	for (char *t = strtok_r(spec, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
		char *at = strchr(t, '@');
		if (!at || (size_t)(at - t) != strlen(what) || strncmp(t, what, strlen(what)) || strtoul(at + 1, NULL, 10) != attempt)
			continue;
		if (snprintf(path, sizeof path, "%s/inject-%s-%u.fired", D.cfg.run_dir, what, attempt) >= (int)sizeof path)
			return false;
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0)
			return false;           /* fired already (by an earlier gpud of this run) */
		close(fd);
		zp_log(D.who, "[debug] inject: %s at proof attempt %u", what, attempt);
		return true;
	}
	return false;
}

/* A sticky device error: nothing more can run in this process. */
static void check_fatal(void)
{
	if (inj_sticky || (be->fatal && be->fatal())) {
		zp_log(D.who, "the GPU is in a sticky error state (%s): exiting so that the supervisor restarts gpud",
		       zp_err_msg()[0] ? zp_err_msg() : "see above");
		_exit(3);
	}
}

static void *gpu_main(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&pl_mu);
		while (!gpu_q && !pl_stop)
			pthread_cond_wait(&pl_cv, &pl_mu);
		struct flight *f = q_pop(&gpu_q);
		gpu_idle = !f;
		pthread_mutex_unlock(&pl_mu);
		if (!f)
			return NULL;                  /* stopping and drained */
		int r = 0;
		zp_err_clear();
		if (zp_arena_job_state(D.arena, f->ph.job) != ZP_JOB_ACTIVE) {
			r = 1;                        /* the job ended meanwhile (another partition failed it) */
		} else if (zp_daemon_cancelled(&D, f->job_id)) {
			fail_part(f->ph, 0, "cancelled by client");
			r = 1;
		} else {
			zp_arena_part_stamp(D.arena, f->ph, ZP_TS_GPU_START);
			f->attempt = ++inj_attempts;
			if (D.cfg.inject[0] && inject_due("gpu-error", f->attempt))
				r = zp_err_set(ZP_ECUDA, "CUDA backend: [debug] inject: a CUDA error (gpu-error@%u)", f->attempt);
			else if (D.cfg.inject[0] && inject_due("sticky", f->attempt))
				inj_sticky = true,
				r = zp_err_set(ZP_ECUDA, "CUDA backend: [debug] inject: a sticky CUDA error (sticky@%u)", f->attempt);
			else
				r = be->prove_buf(f->k->be_state, f->buf, &f->mo);
			/* [debug] prove_delay_ms: lets tests kill mid-proof (no tick here: main ticks) */
			for (uint64_t end = zp_mono_ms() + D.cfg.prove_delay_ms; !zp_daemon_stopping(&D) && zp_mono_ms() < end;)
				usleep(10000);
			zp_arena_part_stamp(D.arena, f->ph, ZP_TS_GPU_END);
			if (r) {
				fail_part(f->ph, 1, "prove: %s", zp_err_msg()[0] ? zp_err_msg() : zp_strerror(r));
				check_fatal();
			}
		}
		pthread_mutex_lock(&pl_mu);
		f->k->busy[f->buf] = 0;
		if (!r)
			q_push(&tail_q, f);
		gpu_idle = 1;
		pthread_cond_broadcast(&pl_cv);
		pthread_mutex_unlock(&pl_mu);
		if (r)
			flight_free(f);
	}
}

/* Finish (host, constant time in r and s), self-verify, write, DONE, assemble. */
static void tail_one(struct flight *f)
{
	struct key *k = f->k;
	zp_g16_proof proof;
	zp_fr r, s;
	int rc;
	zp_err_clear();
	if ((rc = zp_fr_random_secure(&r)) || (rc = zp_fr_random_secure(&s))) {
		fail_part(f->ph, 1, "prove: getrandom for r and s: %s", zp_strerror(rc));
		return;
	}
	zp_g16_finish(&proof, &k->zk, &f->mo, &r, &s);
	explicit_bzero(&r, sizeof r);
	explicit_bzero(&s, sizeof s);
	if (D.cfg.inject[0] && inject_due("bad-proof", f->attempt))
		proof.c = proof.a;              /* a valid point, the wrong one: the pairing check fails */
	if ((rc = zp_g16_verify(&k->vk, &proof, f->pub, k->zk.n_public))) {
		fail_part(f->ph, 1, "prove: self-check: %s", zp_err_msg()[0] ? zp_err_msg() : zp_strerror(rc));
		return;
	}
	if ((rc = write_gpu_record(f->out, f->ph.part, zp_daemon_client_id(&D, f->job_id))) ||
	    (rc = write_proof(f->out, f->ph.part, &proof, f->pub, k->zk.n_public))) {
		fail_part(f->ph, 1, "write proof: %s", zp_err_msg());
		return;
	}
	if ((rc = zp_arena_part_done(D.arena, D.me, f->ph))) {
		zp_log(D.who, "part_done: %s (reclaimed under us; the partition is redone)", zp_strerror(rc));
		return;
	}
	parts_proved++;
	uint64_t cid = zp_daemon_client_id(&D, f->job_id);
	zp_log(D.who, "job %llu part %u proved on GPU %d (%llu so far)", (unsigned long long)cid, f->ph.part,
	       gr_ordinal(), (unsigned long long)parts_proved);
	if (zp_arena_job_state(D.arena, f->ph.job) == ZP_JOB_DONE) {
		if ((rc = zp_job_assemble(f->out, cid, f->key_id, f->nparts)))
			zp_log(D.who, "job %llu: %s (the supervisor retries)", (unsigned long long)cid, zp_err_msg());
		zp_daemon_hint_sup(&D, "done");
	}
}

static void *tail_main(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&pl_mu);
		while (!tail_q && !(pl_stop && gpu_idle && !gpu_q))
			pthread_cond_wait(&pl_cv, &pl_mu);
		struct flight *f = q_pop(&tail_q);
		pthread_mutex_unlock(&pl_mu);
		if (!f)
			return NULL;
		tail_one(f);
		flight_free(f);
	}
}

/* A free input set of key k, or -1 after waiting ms. */
static int buf_take(struct key *k, int ms)
{
	int b = -1;
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&pl_mu);
	for (;;) {
		for (int i = 0; i < k->nbufs && b < 0; i++)
			if (!k->busy[i])
				b = i;
		if (b >= 0 || pthread_cond_timedwait(&pl_cv, &pl_mu, &until))
			break;
	}
	if (b >= 0)
		k->busy[b] = 1;
	pthread_mutex_unlock(&pl_mu);
	return b;
}

/* Whether every loaded key has a free input set (the main loop takes a slot only then). */
static bool bufs_free(void)
{
	bool ok = true;
	pthread_mutex_lock(&pl_mu);
	for (unsigned i = 0; i < D.cfg.n_keys && ok; i++)
		if (keys[i].state == 1) {
			bool any = false;
			for (int b = 0; b < keys[i].nbufs; b++)
				any |= !keys[i].busy[b];
			ok = any;
		}
	pthread_mutex_unlock(&pl_mu);
	return ok;
}

/* Wait until nothing is in flight (before a supraseal partition, which uses the GPU its own way). */
static void pipe_drain(void)
{
	pthread_mutex_lock(&pl_mu);
	while (in_flight)
		pthread_cond_wait(&pl_cv, &pl_mu);
	pthread_mutex_unlock(&pl_mu);
}

static void prove_one_dev(zp_slot_h sh, zp_part_h ph)
{
	const uint8_t *base = zp_arena_slot_data(D.arena, sh);
	if (zp_ss_gpud_is_ours(base)) {
		pipe_drain();
		zp_ss_gpud_prove(&D, sh, ph);
		return;
	}
	struct zp_slot_payload p;
	char why[ZP_ERRTXT_MAX] = "";
	struct key *k = check_payload(sh, &p, why, sizeof why);
	if (!k) {
		zp_arena_release_slot(D.arena, D.me, sh);
		fail_part(ph, 0, "%s", why);
		return;
	}
	const struct zp_arena_job *jr = zp_arena_job_rec(D.arena, ph.job.idx);
	struct flight *f = calloc(1, sizeof *f);
	if (f)
		f->pub = malloc(((size_t)k->zk.n_public + 1) * sizeof(zp_fr));
	if (!f || !f->pub) {
		zp_arena_release_slot(D.arena, D.me, sh);
		if (f)
			free(f);
		fail_part(ph, 1, "gpud: out of host memory");
		return;
	}
	f->k = k;
	f->ph = ph;
	memcpy(f->out, jr->output, sizeof f->out);
	memcpy(f->key_id, jr->key_id, sizeof f->key_id);
	f->nparts = jr->nparts;
	f->job_id = jr->id;
	if (zp_arena_job_state(D.arena, ph.job) != ZP_JOB_ACTIVE) {
		zp_arena_release_slot(D.arena, D.me, sh);
		free(f->pub);
		free(f);
		return;
	}
	while ((f->buf = buf_take(k, 200)) < 0)
		zp_daemon_tick(&D);
	pthread_mutex_lock(&pl_mu);
	in_flight++;
	pthread_mutex_unlock(&pl_mu);
	/* the slot straight to the device (DMA when the arena is registered), then release it */
	zp_err_clear();
	int r = be->upload_async(k->be_state, f->buf, (const zp_fr *)(base + p.off_w), (const zp_fr *)(base + p.off_a),
				 (const zp_fr *)(base + p.off_b), (const zp_fr *)(base + p.off_c));
	int r2 = be->upload_wait(k->be_state, f->buf); /* also after a failed start: nothing reads the slot after */
	if (!r)
		r = r2;
	if (!r)
		memcpy(f->pub, base + p.off_w + sizeof(zp_fr), (size_t)k->zk.n_public * sizeof(zp_fr));
	zp_arena_release_slot(D.arena, D.me, sh); /* the slot is free before H and the MSMs start (stamps COPY_END) */
	if (r) {
		fail_part(ph, 1, "copy to the GPU: %s", zp_err_msg()[0] ? zp_err_msg() : zp_strerror(r));
		pthread_mutex_lock(&pl_mu);
		k->busy[f->buf] = 0;
		pthread_mutex_unlock(&pl_mu);
		flight_free(f);
		check_fatal();
		return;
	}
	pthread_mutex_lock(&pl_mu);
	q_push(&gpu_q, f);
	pthread_cond_broadcast(&pl_cv);
	pthread_mutex_unlock(&pl_mu);
}

/* Register the arena for DMA and start the gpu and tail threads. */
static int pipe_start(void)
{
	const struct zp_arena_hdr *h = zp_arena_hdr(D.arena);
	if (be->host_register) {
		zp_err_clear();
		int r = be->host_register((void *)h, h->total_size);
		if (r)
			zp_log(D.who, "cannot register the arena (%llu bytes) for DMA: %s; copies stage through pinned "
			       "buffers instead", (unsigned long long)h->total_size, zp_err_msg()[0] ? zp_err_msg() : zp_strerror(r));
		else
			zp_log(D.who, "arena registered for DMA (%llu bytes)", (unsigned long long)h->total_size);
	}
	for (unsigned i = 0; i < D.cfg.n_keys; i++)
		if (keys[i].state == 1) {
			keys[i].nbufs = be->nbufs(keys[i].be_state);
			if (keys[i].nbufs < 1 || keys[i].nbufs > 2)
				keys[i].nbufs = 1;
			zp_log(D.who, "key %s: %d device input set(s)%s", keys[i].cfg->name, keys[i].nbufs,
			       keys[i].nbufs == 2 ? " (copy overlaps proving)" : " (copies wait for the GPU)");
		}
	int r = pthread_create(&gpu_th, NULL, gpu_main, NULL);
	if (r)
		return -r;
	if ((r = pthread_create(&tail_th, NULL, tail_main, NULL)))
		return -r;
	return 0;
}

static void pipe_stop_join(void)
{
	pthread_mutex_lock(&pl_mu);
	pl_stop = 1;
	pthread_cond_broadcast(&pl_cv);
	pthread_mutex_unlock(&pl_mu);
	pthread_join(gpu_th, NULL);
	pthread_join(tail_th, NULL);
	if (be->host_unregister)
		be->host_unregister((void *)zp_arena_hdr(D.arena));
}

/* ZKPIPE_GPUD_PIPELINE=1 with backend cpu (tests of the pipeline on machines without a GPU): the CPU
 * backend behind the pipeline ops, two host "input sets" standing in for the device's. */
struct emu {
	void *cpu;
	size_t nv, dom;
	zp_fr *w[2], *abc[2];
};

static void emu_destroy(void *state)
{
	struct emu *e = state;
	if (!e)
		return;
	zp_g16_backend_cpu.destroy(e->cpu);
	for (int i = 0; i < 2; i++) {
		free(e->w[i]);
		free(e->abc[i]);
	}
	free(e);
}

static int emu_create(void **state, const zp_g16_key *key)
{
	struct emu *e = calloc(1, sizeof *e);
	if (!e)
		return -ENOMEM;
	e->nv = key->zkey->n_vars;
	e->dom = key->zkey->domain_size;
	int r = zp_g16_backend_cpu.create(&e->cpu, key);
	for (int i = 0; !r && i < 2; i++) {
		e->w[i] = malloc(e->nv * sizeof(zp_fr));
		e->abc[i] = malloc(3 * e->dom * sizeof(zp_fr));
		if (!e->w[i] || !e->abc[i])
			r = -ENOMEM;
	}
	if (r) {
		emu_destroy(e);
		return r;
	}
	*state = e;
	return 0;
}

static int emu_nbufs(void *state)
{
	(void)state;
	return 2;
}

static int emu_upload_async(void *state, int b, const zp_fr *w, const zp_fr *a, const zp_fr *bb, const zp_fr *c)
{
	struct emu *e = state;
	memcpy(e->w[b], w, e->nv * sizeof(zp_fr));
	memcpy(e->abc[b], a, e->dom * sizeof(zp_fr));
	memcpy(e->abc[b] + e->dom, bb, e->dom * sizeof(zp_fr));
	memcpy(e->abc[b] + 2 * e->dom, c, e->dom * sizeof(zp_fr));
	return 0;
}

static int emu_upload_wait(void *state, int b)
{
	(void)state, (void)b;
	return 0;
}

static int emu_prove_buf(void *state, int b, zp_g16_msm_out *out)
{
	struct emu *e = state;
	const zp_g16_backend_ops *c = &zp_g16_backend_cpu;
	int r = c->upload(e->cpu, e->w[b], e->abc[b], e->abc[b] + e->dom, e->abc[b] + 2 * e->dom);
	if (!r)
		r = c->h(e->cpu);
	return r ? r : c->msm(e->cpu, out);
}

static const zp_g16_backend_ops backend_emu = {
	.name = "cpu", .create = emu_create, .destroy = emu_destroy, .nbufs = emu_nbufs,
	.upload_async = emu_upload_async, .upload_wait = emu_upload_wait, .prove_buf = emu_prove_buf,
};

int main(int argc, char **argv)
{
	int r = zp_daemon_init(&D, argc, argv, ZP_ROLE_GPUD, "gpud");
	if (r)
		return r == 2 ? 2 : 1;
	/* [group] backend = cpu | cuda. gpud I serves the group's GPU I: the supervisor exports
	 * CUDA_DEVICE_ORDER=PCI_BUS_ID, CUDA_VISIBLE_DEVICES=<its ordinal>, ZP_CUDA_DEVICE=0, so
	 * the process sees exactly one device. Run by hand without them, we set the same here. */
	const struct zp_pipe_group *gr = &D.cfg.groups[D.group];
	if (D.index >= gr->gpus) {
		zp_log(D.who, "index %u: [group %s] has %u GPU(s)", D.index, gr->name, gr->gpus);
		zp_daemon_exit(&D);
		return 1;
	}
	if (!getenv("CUDA_VISIBLE_DEVICES")) {
		char dev[16];
		snprintf(dev, sizeof dev, "%d", gr->gpu_ordinal[D.index]);
		setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
		setenv("CUDA_VISIBLE_DEVICES", dev, 1);
		setenv("ZP_CUDA_DEVICE", "0", 1);
	}
	snprintf(gpu_desc, sizeof gpu_desc, "%s", gr->gpu[D.index][0] ? gr->gpu[D.index] : "");
	zp_log(D.who, "GPU %s%sordinal %d (CUDA_VISIBLE_DEVICES=%s), NUMA node %d", gpu_desc, gpu_desc[0] ? ", " : "",
	       gr->gpu_ordinal[D.index], getenv("CUDA_VISIBLE_DEVICES"), gr->gpu_node[D.index]);
	if ((r = zp_g16_backend_find(&be, D.cfg.groups[D.group].backend[0] ? D.cfg.groups[D.group].backend : "cpu"))) {
		zp_log(D.who, "%s", zp_err_msg());
		zp_daemon_exit(&D);
		return 1;
	}
	if (be == &zp_g16_backend_cpu && getenv("ZKPIPE_GPUD_PIPELINE") && !strcmp(getenv("ZKPIPE_GPUD_PIPELINE"), "1")) {
		be = &backend_emu;
		zp_log(D.who, "ZKPIPE_GPUD_PIPELINE=1: the CPU backend behind the device pipeline");
	}
	load_keys();
	write_vks();
	pipelined = be->upload_async && be->upload_wait && be->prove_buf && be->nbufs;
	if (pipelined && (r = pipe_start())) {
		zp_log(D.who, "cannot start the proving threads: %s", zp_strerror(r));
		zp_daemon_exit(&D);
		return 1;
	}
	if (!pipelined) { /* the CPU path proves from its own copy of the slot */
		buf_w = aligned_alloc(64, (max_vars * sizeof(zp_fr) + 63) / 64 * 64 + 64);
		buf_abc = aligned_alloc(64, 3 * max_domain * sizeof(zp_fr) + 64);
	}
	if (!pipelined && (!buf_w || !buf_abc)) {
		zp_log(D.who, "cannot allocate buffers for %llu vars / domain %llu", (unsigned long long)max_vars,
		       (unsigned long long)max_domain);
		zp_daemon_exit(&D);
		return 1;
	}
	zp_log(D.who, "backend %s ready", be->name);
	while (!zp_daemon_stopping(&D)) {
		zp_daemon_tick(&D);
		zp_ss_gpud_tick(&D);
		zp_slot_h sh;
		zp_part_h ph;
		if (pipelined && !bufs_free()) { /* the GPU holds every input set: take no slot yet */
			pthread_mutex_lock(&pl_mu);
			struct timespec until;
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_nsec += 200000000;
			if (until.tv_nsec >= 1000000000) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&pl_cv, &pl_mu, &until);
			pthread_mutex_unlock(&pl_mu);
			continue;
		}
		r = zp_arena_take_ready(D.arena, D.me, 0, &sh, &ph);
		if (r == 0) {
			if (pipelined)
				prove_one_dev(sh, ph);
			else
				prove_one(sh, ph);
			continue;
		}
		zp_daemon_wait_hint(&D, 200);
	}
	if (pipelined)
		pipe_stop_join();
	for (unsigned i = 0; i < D.cfg.n_keys; i++)
		if (keys[i].state == 1) {
			be->destroy(keys[i].be_state);
			zp_g16_vk_free(&keys[i].vk);
			if (keys[i].kind == KEY_ZPK) {
				zp_pkey_free(&keys[i].pk);
			} else {
				zp_g16_key_free(&keys[i].gk);
				zp_zkey_free(&keys[i].zk);
			}
		}
	zp_ss_gpud_exit();
	free(buf_w);
	free(buf_abc);
	zp_daemon_exit(&D);
	return 0;
}
