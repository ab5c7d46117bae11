/*
 * payload_zp.c — zkpipe's own slot payload "ZZPSL01" (pipe.h struct zp_slot_payload: synthd's
 * partitions, w | a | b | c over the key's domain), proved with fresh r, s (the key's Fr, from getrandom;
 * [debug] fixed_blinding: fixed, tests only) and written as snarkjs JSON (part-<p>.proof.json,
 * .public.json) plus part-<p>.gpu.json.
 *
 * Two ways through take and prove, by backend:
 *   plain      (no pipeline ops: cpu) take copies w, a, b, c into gpud's buffers; prove runs
 *              upload → h → msm on them, then the tail below — all in the main thread.
 *   pipelined  (cuda, cpu_pipe) take waits for a free device input set of the key, copies the slot
 *              straight to it (upload_async + upload_wait: DMA when the arena is registered) and
 *              keeps the public inputs; prove queues the partition for the GPU thread, whose tail
 *              thread ends it with gpud_zp_tail (pipe.c).
 * Unknown magic also lands here (magic 0 in the ops table): check fails it as an unknown key.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "g16_json.h"
#include "payload.h"
#include "config.h"
#include "files.h"
#include "payload_zp.h"
#include "sys.h"
#include "zp_err.h"

static int zp_check(struct gpud *g, const uint8_t *slot, struct gpud_part *pp)
{
	struct zp_slot_payload p = *(const struct zp_slot_payload *)slot;
	struct gpud_key *k = p.magic == ZP_PAYLOAD_MAGIC ? gpud_key_find(g, p.key_id) : NULL;
	if (!k || !k->cfg) {
		snprintf(pp->why, sizeof pp->why, "gpud: slot payload for unknown key '%.*s'", ZP_KEY_ID_MAX, p.key_id);
		return -1;
	}
	if (k->state != 1) {
		snprintf(pp->why, sizeof pp->why, "gpud: %s %s: %s", k->cfg ? "key" : "srs", k->cfg ? k->name : k->path, k->err);
		return -1;
	}
	struct zp_slot_payload want = p;
	if (p.n_vars != k->zk.n_vars || p.domain != k->zk.domain_size ||
	    zp_payload_layout(&want, p.n_vars, p.domain) != p.bytes || want.off_c != p.off_c ||
	    p.bytes > zp_arena_slot_size(g->d.arena)) {
		snprintf(pp->why, sizeof pp->why, "gpud: payload shape (%u vars, domain %u) does not match key %s (%u, %u)",
			 p.n_vars, p.domain, k->name, k->zk.n_vars, k->zk.domain_size);
		return -1;
	}
	const zp_curve *pc = p.curve ? zp_curve_by_id(p.curve) : &zp_curve_bls12_381, *kc = zp_curve_of(k->zk.curve);
	if (pc != kc) {
		snprintf(pp->why, sizeof pp->why, "gpud: a %s partition (slot payload curve %u) for key %s, a %s key: the "
			 "curves differ", pc ? pc->name : "unknown-curve", p.curve, k->name, kc->name);
		return -1;
	}
	if (memcmp(p.fingerprint, k->zk.circuit.fingerprint, 16)) {
		snprintf(pp->why, sizeof pp->why,
			 "gpud: circuit fingerprint differs from key %s's: the r1cs is not this key's circuit", k->name);
		return -1;
	}
	pp->k = k;
	return 0;
}

/* The job's record, copied (the arena's record may be reused once the job ends). */
static struct gpud_flight *flight_new(struct gpud *g, struct gpud_part *pp)
{
	const struct zp_arena_job *jr = zp_arena_job_rec(g->d.arena, pp->ph.job.idx);
	struct gpud_flight *f = calloc(1, sizeof *f);
	if (f)
		f->pub = malloc(((size_t)pp->k->zk.n_public + 1) * sizeof(zp_fr));
	if (!f || !f->pub) {
		free(f);
		return NULL;
	}
	f->k = pp->k;
	f->ph = pp->ph;
	memcpy(f->out, jr->output, sizeof f->out);
	memcpy(f->key_id, jr->key_id, sizeof f->key_id);
	f->nparts = jr->nparts;
	f->job_id = jr->id;
	return f;
}

/* plain: w, a, b, c into gpud's own buffers */
static int take_plain(struct gpud *g, const uint8_t *base, struct gpud_part *pp)
{
	const struct zp_slot_payload *p = (const struct zp_slot_payload *)base;
	size_t d = (size_t)p->domain * sizeof(zp_fr);
	memcpy(g->buf_w, base + p->off_w, (size_t)p->n_vars * sizeof(zp_fr));
	memcpy(g->buf_abc, base + p->off_a, d);
	memcpy((uint8_t *)g->buf_abc + d, base + p->off_b, d);
	memcpy((uint8_t *)g->buf_abc + 2 * d, base + p->off_c, d);
	return 0;
}

/* pipelined: a free input set of the key, the slot straight to it, the public inputs kept */
static int take_dev(struct gpud *g, const uint8_t *base, struct gpud_part *pp)
{
	const struct zp_slot_payload *p = (const struct zp_slot_payload *)base;
	struct gpud_key *k = pp->k;
	struct gpud_flight *f = flight_new(g, pp);
	if (!f) {
		snprintf(pp->why, sizeof pp->why, "gpud: out of host memory");
		return -ENOMEM;
	}
	if (zp_arena_job_state(g->d.arena, pp->ph.job) != ZP_JOB_ACTIVE) {
		free(f->pub);
		free(f);
		return 1;
	}
	while ((f->buf = gpud_pipe_set_take(g, k, 200)) < 0)
		zp_daemon_tick(&g->d);
	pthread_mutex_lock(&g->pl.mu);
	g->pl.in_flight++;
	pthread_mutex_unlock(&g->pl.mu);
	zp_err_clear();
	int r = k->be->upload_async(k->be_state, f->buf, (const zp_fr *)(base + p->off_w), (const zp_fr *)(base + p->off_a),
				    (const zp_fr *)(base + p->off_b), (const zp_fr *)(base + p->off_c));
	int r2 = k->be->upload_wait(k->be_state, f->buf); /* also after a failed start: nothing reads the slot after */
	if (!r)
		r = r2;
	if (!r)
		memcpy(f->pub, base + p->off_w + sizeof(zp_fr), (size_t)k->zk.n_public * sizeof(zp_fr));
	pp->ctx = f;
	if (r) {
		snprintf(pp->why, sizeof pp->why, "copy to the GPU: %s", zp_err_text(r));
		return r;
	}
	return 0;
}

static int zp_take(struct gpud *g, uint8_t *slot, struct gpud_part *pp)
{
	return g->pipelined ? take_dev(g, slot, pp) : take_plain(g, slot, pp);
}

/* part-<p>.gpu.json: which gpud / GPU proved the partition (written before the proof,
 * so a complete proof always has its record; a redone partition overwrites it). */
static int write_gpu_record(struct gpud *g, const char *out, uint32_t part, uint64_t job)
{
	const struct zp_pipe_group *gr = &g->d.cfg.groups[g->d.group];
	char name[64], buf[512];
	const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
	int n = snprintf(buf, sizeof buf,
			 "{\"job\": %llu, \"part\": %u, \"group\": \"%s\", \"gpud\": %u, \"gpu\": \"%s\", "
			 "\"ordinal\": %d, \"cuda_visible_devices\": \"%s\", \"numa_node\": %d, \"pid\": %d, "
			 "\"backend\": \"%s\"}\n",
			 (unsigned long long)job, part, gr->name, g->d.index, g->gpu_desc, gr->gpu_ordinal[g->d.index],
			 cvd ? cvd : "", gr->gpu_node[g->d.index], (int)getpid(), g->be->name);
	snprintf(name, sizeof name, "part-%u.gpu.json", part);
	return zp_out_write(&g->d.cfg, out, name, buf, (size_t)n);
}

/* Both files through the output directory's openat walk (pipe.h): a symlink planted there, or a
 * component swapped for one, never redirects the write. */
static int write_proof(struct gpud *g, const char *out, uint32_t part, const zp_g16_proof *proof, const zp_fr *pub,
		       uint32_t np)
{
	char name[64], *txt = zp_g16_public_dumps_curve(proof->curve, pub, np);
	snprintf(name, sizeof name, "part-%u.public.json", part);
	int r = txt ? zp_out_write(&g->d.cfg, out, name, txt, strlen(txt)) : zp_err_set(-ENOMEM, "%s", name);
	free(txt);
	if (r)
		return r;
	txt = zp_g16_proof_dumps(proof);
	snprintf(name, sizeof name, "part-%u.proof.json", part);
	r = txt ? zp_out_write(&g->d.cfg, out, name, txt, strlen(txt)) : zp_err_set(-ENOMEM, "%s", name);
	free(txt);
	return r;
}

/* Finish (host, constant time in r and s) and self-verify. 0, or the partition failed. */
static int finish_check(struct gpud *g, struct gpud_flight *f, zp_g16_proof *proof)
{
	struct gpud_key *k = f->k;
	zp_fr r, s;
	int rc;
	const zp_curve *cv = zp_curve_of(k->zk.curve);   /* r, s in the key's Fr (BN254's r is not BLS12-381's) */
	zp_err_clear();
	if (g->d.cfg.fixed_blinding)                      /* [debug] (tests only): the same proof every time */
		rc = cv->fr_from_dec(&r, "12345") || cv->fr_from_dec(&s, "67890") ? ZP_EFORMAT : 0;
	else if (!(rc = cv->fr_random_secure(&r)))
		rc = cv->fr_random_secure(&s);
	if (rc) {
		gpud_fail(g, f->ph, 1, "prove: getrandom for r and s: %s", zp_strerror(rc));
		return rc;
	}
	zp_g16_finish(proof, &k->zk, &f->mo, &r, &s);
	explicit_bzero(&r, sizeof r);
	explicit_bzero(&s, sizeof s);
	if (g->d.cfg.inject[0] && gpud_inject_due(g, "bad-proof", f->attempt))
		proof->c = proof->a;            /* a valid point, the wrong one: the pairing check fails */
	if ((rc = zp_g16_verify(&k->vk, proof, f->pub, k->zk.n_public))) {
		gpud_fail(g, f->ph, 1, "prove: self-check: %s", zp_err_text(rc));
		return rc;
	}
	return 0;
}

static bool out_full(int rc) { return rc == -ENOSPC || rc == -EROFS || rc == -EDQUOT; }

/* Sleep ms while the watchdog sees progress: the tail thread reports its stage's progress, the
 * main thread (plain backends) ticks. */
static void wait_beating(struct gpud *g, uint32_t ms)
{
	uint64_t end = zp_mono_ms() + ms;
	while (!zp_daemon_stopping(&g->d) && zp_mono_ms() < end) {
		usleep(10000);
		if (g->pipelined)
			zp_daemon_progress(&g->d, GPUD_W_TAIL);
		else
			zp_daemon_tick(&g->d);
	}
}

/* The partition's files. A full or read-only output (ENOSPC, EDQUOT, EROFS) keeps the proof here
 * and writes again with backoff (0.1 s doubling to 5 s) for up to [limits] write_retry_s, beating
 * meanwhile; the caller fails the partition without re-proving when it still cannot (a write
 * error is not cured by computing the proof again). *why says how long it waited. */
static int write_files(struct gpud *g, struct gpud_flight *f, const zp_g16_proof *proof, uint64_t cid, char *why,
		       size_t wn)
{
	uint64_t t0 = zp_mono_ms(), limit = (uint64_t)g->d.cfg.write_retry_s * 1000;
	uint32_t backoff = 100;
	why[0] = 0;
	for (bool told = false;; ) {
		zp_err_clear();
		int rc = write_gpu_record(g, f->out, f->ph.part, cid);
		if (!rc)
			rc = write_proof(g, f->out, f->ph.part, proof, f->pub, f->k->zk.n_public);
		uint64_t spent = zp_mono_ms() - t0;
		char msg[ZP_ERRTXT_MAX];
		snprintf(msg, sizeof msg, "%s", rc ? zp_err_msg() : "");
		if (!rc) {
			if (told)
				zp_log(g->d.who, "job %llu part %u: written after %.1f s (the kept proof)",
				       (unsigned long long)cid, f->ph.part, spent / 1e3);
			return 0;
		}
		if (!out_full(rc) || spent >= limit || zp_daemon_stopping(&g->d) ||
		    zp_arena_job_state(g->d.arena, f->ph.job) != ZP_JOB_ACTIVE || zp_daemon_cancelled(&g->d, f->job_id)) {
			if (out_full(rc))
				snprintf(why, wn, "%s (the output full or read-only for %.0f s; write_retry_s = %u)", msg,
					 spent / 1e3, g->d.cfg.write_retry_s);
			else
				snprintf(why, wn, "%s", msg);
			return rc;
		}
		if (!told)
			zp_log(g->d.who, "job %llu part %u: %s; the proof is kept and written again for up to %u s",
			       (unsigned long long)cid, f->ph.part, msg, g->d.cfg.write_retry_s);
		told = true;
		wait_beating(g, backoff);
		backoff = backoff * 2 > 5000 ? 5000 : backoff * 2;
	}
}

/* The proof files, DONE (only after the files are written), job assembly. */
static void write_done(struct gpud *g, struct gpud_flight *f, const zp_g16_proof *proof)
{
	uint64_t cid = zp_daemon_client_id(&g->d, f->job_id);
	int rc;
	char why[ZP_ERRTXT_MAX + 96];
	if ((rc = write_files(g, f, proof, cid, why, sizeof why))) {
		/* not retried: another attempt would compute the same proof to fail the same write; a
		 * stop (SIGTERM) is not a write error, and the partition goes back for the next gpud */
		if (zp_daemon_cancelled(&g->d, f->job_id))
			gpud_fail(g, f->ph, 0, "cancelled by client");
		else
			gpud_fail(g, f->ph, zp_daemon_stopping(&g->d) ? 1 : 0, "write proof: %s", why);
		return;
	}
	if ((rc = zp_arena_part_done(g->d.arena, g->d.me, f->ph))) {
		zp_log(g->d.who, "part_done: %s (reclaimed under us; the partition is redone)", zp_strerror(rc));
		return;
	}
	g->parts_proved++;
	if (!strcmp(g->be->name, "cuda"))
		zp_log(g->d.who, "job %llu part %u proved on GPU %d (%llu so far)", (unsigned long long)cid, f->ph.part,
		       g->d.cfg.groups[g->d.group].gpu_ordinal[g->d.index], (unsigned long long)g->parts_proved);
	else /* a CPU backend: no GPU took part */
		zp_log(g->d.who, "job %llu part %u proved on the CPU (%s backend; %llu so far)", (unsigned long long)cid,
		       f->ph.part, g->be->name, (unsigned long long)g->parts_proved);
	if (zp_arena_job_state(g->d.arena, f->ph.job) == ZP_JOB_DONE) {
		if ((rc = zp_job_assemble(&g->d.cfg, f->out, cid, f->key_id, f->nparts)))
			zp_log(g->d.who, "job %llu: %s (the supervisor retries)", (unsigned long long)cid, zp_err_msg());
		zp_daemon_hint_sup(&g->d, "done");
	}
}

void gpud_zp_tail(struct gpud *g, struct gpud_flight *f)
{
	zp_g16_proof proof;
	if (!finish_check(g, f, &proof))
		write_done(g, f, &proof);
}

/* plain: upload, H, MSMs (backend) from gpud's buffers, then the tail. */
static void prove_plain(struct gpud *g, struct gpud_part *pp)
{
	struct gpud_key *k = pp->k;
	struct gpud_flight *f = flight_new(g, pp);
	if (!f) {
		gpud_fail(g, pp->ph, 1, "gpud: out of host memory");
		return;
	}
	if (zp_arena_job_state(g->d.arena, pp->ph.job) != ZP_JOB_ACTIVE)
		goto out;
	if (zp_daemon_cancelled(&g->d, f->job_id)) {
		gpud_fail(g, pp->ph, 0, "cancelled by client");
		goto out;
	}
	memcpy(f->pub, g->buf_w + 1, (size_t)k->zk.n_public * sizeof(zp_fr));
	zp_arena_part_stamp(g->d.arena, pp->ph, ZP_TS_GPU_START);
	zp_err_clear();
	size_t d = k->zk.domain_size;
	const zp_g16_backend_ops *be = k->be;
	int r = be->upload(k->be_state, g->buf_w, g->buf_abc, g->buf_abc + d, g->buf_abc + 2 * d);
	if (!r)
		r = be->h(k->be_state);
	if (!r)
		r = be->msm(k->be_state, &f->mo);
	zp_g16_proof proof;
	int bad = r ? (gpud_fail(g, pp->ph, 1, "prove: %s", zp_err_text(r)), 1)
		    : finish_check(g, f, &proof);
	zp_daemon_sleep(&g->d, g->d.cfg.prove_delay_ms); /* [debug]: lets tests kill mid-proof */
	zp_daemon_hold(&g->d, "proved", &pp->ph, -1);     /* [debug] hold_at = proved: still PROVING */
	zp_arena_part_stamp(g->d.arena, pp->ph, ZP_TS_GPU_END);
	if (!bad)
		write_done(g, f, &proof);
out:
	free(f->pub);
	free(f);
}

static void zp_prove(struct gpud *g, struct gpud_part *pp, int r)
{
	struct gpud_flight *f = pp->ctx;
	if (r < 0 && !f) {                       /* check failed (or no memory for the flight) */
		gpud_fail(g, pp->ph, r == -ENOMEM ? 1 : 0, "%s", pp->why);
		return;
	}
	if (r > 0)
		return;
	if (!g->pipelined) {
		prove_plain(g, pp);
		return;
	}
	if (r < 0) {                             /* the copy to the device failed */
		gpud_fail(g, pp->ph, 1, "%s", pp->why);
		gpud_pipe_set_give(g, f->k, f->buf);
		gpud_flight_free(g, f);
		gpud_check_fatal(g);
		return;
	}
	gpud_pipe_push(g, f);
}

const struct gpud_payload gpud_payload_zp = {
	.name = "zkpipe", .magic = 0, .check = zp_check, .take = zp_take, .prove = zp_prove,
};
