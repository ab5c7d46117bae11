/*
 * payload_ss.c — the Filecoin slot payload "ZZPSS01" (pipeline/payload_ss.h): bellperson's
 * partitions handed over by the client library (supraseal/lib.c, docs/supraseal.md).
 *
 * The key is the registered .params as the file has it (keys.c, format params: compact a, b_g1,
 * b_g2, nothing expanded per wire), proved by the group's backend like every other key, through
 * its density ops (prover/groth16.h dens_upload, dens_prove):
 *   check  the header against the key (counts, popcount totals, layout, size within the slot);
 *   take   dens_upload straight from the slot — the CUDA backend DMAs it to the device when the
 *          arena is registered, else copies it to its host buffers; the CPU backend copies it out,
 *          zero-padding a/b/c to the domain — and the caller's r, s copied out and wiped in the slot;
 *   prove  dens_prove (popcounts checked, A/B scalars gathered through the bitmaps, H in
 *          bellperson's convention — root family 7, coset generator 7, MSM over the file's n − 1
 *          coefficient points —, the L, A, B1, B2 MSMs), zp_g16_finish with the caller's r and s
 *          (so the proof is the one supraseal gives for the same r, s), the pairing check against
 *          the key's verifying key, part-<p>.proof.bin (tmp + rename, no fsync: the run
 *          directory is transient). A failure writes part-<p>.error (the caller wakes at once with
 *          that text) and FAILS the partition (not retried: the caller is waiting).
 * In a pipelined gpud the pipeline is drained first (the device proves one thing at a time).
 * tick: load newly registered keys, reclaim dead library callers (role CLIENT: nobody's
 * children), fail the unfilled partitions of external jobs whose submitter is gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "files.h"
#include "payload.h"
#include "rundir.h"
#include "sys.h"
#include "payload_ss.h"
#include "zp_err.h"
#include "zp_file.h"

/* What take keeps for prove. */
struct ss_ctx {
	struct zp_ss_payload p;
	zp_fr rs[2];
	zp_fr *pub;                     /* the partition's inputs ([1, public...]), for the self-check */
};

static int ss_check(struct gpud *g, const uint8_t *base, struct gpud_part *pp)
{
	if (!g->ss && !(g->ss = calloc(1, sizeof *g->ss))) { /* one partition at a time (the main thread) */
		snprintf(pp->why, sizeof pp->why, "gpud: out of host memory");
		return -ENOMEM;
	}
	struct zp_ss_payload *p = &g->ss->p;
	*p = *(const struct zp_ss_payload *)base;
	p->key_id[ZP_KEY_ID_MAX - 1] = 0;
	pp->ctx = g->ss;
	zp_err_clear();
	struct gpud_key *k = gpud_key_srs(g, p->key_id);
	if (!k) { /* a full key table says so (zp_err), else there is no registration */
		if (*zp_err_msg())
			snprintf(pp->why, sizeof pp->why, "gpud: %s", zp_err_msg());
		else
			snprintf(pp->why, sizeof pp->why, "gpud: srs %s is not registered in %s/srs", p->key_id, g->d.cfg.run_dir);
		return -1;
	}
	if (k->state != 1) {
		snprintf(pp->why, sizeof pp->why, "gpud: %s %s: %s", k->cfg ? "key" : "srs", k->cfg ? k->name : k->path, k->err);
		return -1;
	}
	if (gpud_key_unpark(g, k)) { /* parked for another key's room: back on the card, or why not */
		snprintf(pp->why, sizeof pp->why, "gpud: %s", zp_err_msg());
		return -1;
	}
	k->used_ms = zp_mono_ms();
	pp->k = k;
	const zp_params_info *in = &k->prm.in;
	struct zp_ss_payload want = *p;
	zp_ss_payload_layout(&want);
	if (p->inp != in->n_ic || p->aux != in->n_l || p->abc > in->domain || p->domain != in->domain ||
	    memcmp(&want.off_inp, &p->off_inp, sizeof(uint64_t) * 10) || p->bytes > zp_arena_slot_size(g->d.arena) ||
	    p->inp + p->a_aux_pop != in->n_a || p->b_inp_pop + p->b_aux_pop != in->n_b1) {
		snprintf(pp->why, sizeof pp->why, "gpud: partition shape (inputs %" PRIu64 ", aux %" PRIu64 ", abc %" PRIu64
			 ") does not match srs %s (IC %u, l %u, domain %" PRIu64 ")", p->inp, p->aux, p->abc, k->path,
			 in->n_ic, in->n_l, in->domain);
		return -1;
	}
	return 0;
}

static int ss_take(struct gpud *g, uint8_t *base, struct gpud_part *pp)
{
	struct ss_ctx *c = pp->ctx;
	const struct zp_ss_payload *p = &c->p;
	struct gpud_key *k = pp->k;
	size_t fr = sizeof(zp_fr);
	gpud_pipe_drain(g);
	zp_fr *pub = realloc(c->pub, p->inp * fr + 64);
	if (pub)
		memcpy(c->pub = pub, base + p->off_inp, p->inp * fr);
	zp_g16_dens_in in = {
		.inp = (const zp_fr *)(base + p->off_inp), .aux = (const zp_fr *)(base + p->off_aux),
		.abc = { (const zp_fr *)(base + p->off_a), (const zp_fr *)(base + p->off_b), (const zp_fr *)(base + p->off_c) },
		.abc_len = p->abc,
		.a_aux = (const uint64_t *)(base + p->off_a_aux), .b_inp = (const uint64_t *)(base + p->off_b_inp),
		.b_aux = (const uint64_t *)(base + p->off_b_aux),
		.a_aux_pop = p->a_aux_pop, .b_inp_pop = p->b_inp_pop, .b_aux_pop = p->b_aux_pop,
	};
	zp_err_clear();
	int r = pub ? k->be->dens_upload(k->be_state, &in) : zp_err_set(-ENOMEM, "%" PRIu64 " inputs", p->inp);
	memcpy(c->rs, base + p->off_rs, 2 * fr);
	explicit_bzero(base + p->off_rs, 2 * fr); /* r, s do not outlive their use */
	if (r)
		snprintf(pp->why, sizeof pp->why, "gpud: %s%s", r == -ENOMEM ? "" : "copy to the GPU: ",
			 zp_err_text(r));
	return r;
}

/* Write a small file for the library into its out directory: common/zp_file.h's atomic write (tmp +
 * rename; the temporary made O_EXCL | O_NOFOLLOW, so whatever sits at its name — a stale file or a
 * planted symlink — is replaced, never written through; the file and the directory fsynced). */
static int put_file(const char *path, const void *buf, size_t n)
{
	return zp_file_write_atomic(path, buf, n, NULL);
}

static void part_error(struct gpud *g, zp_part_h ph, const char *out, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void part_error(struct gpud *g, zp_part_h ph, const char *out, const char *fmt, ...)
{
	char why[ZP_ERRTXT_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (out && out[0]) {
		char f[PATH_MAX];
		snprintf(f, sizeof f, "%s/part-%u.error", out, ph.part);
		put_file(f, why, strlen(why)); /* wakes the caller at once */
	}
	int st = zp_arena_part_fail(g->d.arena, g->d.me, ph, 0, why);
	zp_log(g->d.who, "supraseal part %u: %s -> %s", ph.part, why, st >= 0 ? zp_part_state_name((unsigned)st) : zp_strerror(st));
	zp_daemon_hint_sup(&g->d, "fail");
}

/* The backend's density path, finish with the caller's r, s, the pairing check. */
static int prove_one(struct gpud *g, struct gpud_key *k, struct ss_ctx *c, zp_g16_proof *proof, char *why, size_t wn)
{
	zp_g16_msm_out mo;
	int r = k->be->dens_prove(k->be_state, &mo);
	if (r) {
		snprintf(why, wn, "gpud: %s%s", r == ZP_EMISMATCH ? "" : "H/MSM: ", zp_err_text(r));
		return r;
	}
	zp_g16_finish(proof, &k->zk, &mo, &c->rs[0], &c->rs[1]);
	if ((r = zp_g16_verify(&k->vk, proof, c->pub + 1, k->zk.n_public)))
		snprintf(why, wn, "gpud: the proof failed its pairing check: the assignment does not satisfy the "
				  "circuit of %s (or a/b/c are not its evaluations)", k->path);
	return r;
}

static void ss_prove(struct gpud *g, struct gpud_part *pp, int bad)
{
	struct ss_ctx *c = pp->ctx;
	zp_part_h ph = pp->ph;
	const struct zp_arena_job *jr = zp_arena_job_rec(g->d.arena, ph.job.idx);
	char out[ZP_PATH_MAX], path[PATH_MAX];
	memcpy(out, jr->output, sizeof out);
	uint64_t job_id = jr->id;
	if (!c) {                                /* no memory for the state */
		part_error(g, ph, out, "%s", pp->why);
		return;
	}
	if (zp_arena_job_state(g->d.arena, ph.job) != ZP_JOB_ACTIVE)
		goto wipe;
	if (bad) {
		part_error(g, ph, out, "%s", pp->why);
		goto wipe;
	}
	if (zp_daemon_cancelled(&g->d, job_id)) {
		part_error(g, ph, out, "cancelled by client");
		goto wipe;
	}
	zp_arena_part_stamp(g->d.arena, ph, ZP_TS_GPU_START);
	zp_g16_proof proof;
	zp_err_clear();
	int r = prove_one(g, pp->k, c, &proof, pp->why, sizeof pp->why);
	zp_daemon_sleep(&g->d, g->d.cfg.prove_delay_ms); /* [debug]: lets tests kill mid-proof */
	zp_arena_part_stamp(g->d.arena, ph, ZP_TS_GPU_END);
	if (r) {
		part_error(g, ph, out, "%s", pp->why);
		goto wipe;
	}
	snprintf(path, sizeof path, "%s/part-%u.proof.bin", out, ph.part);
	if ((r = put_file(path, &proof, ZP_G16_PROOF_BLS12_381_BYTES))) {   /* bellperson's groth16_proof */
		part_error(g, ph, NULL, "write proof: %s", zp_err_msg());
		goto wipe;
	}
	if ((r = zp_arena_part_done(g->d.arena, g->d.me, ph)))
		zp_log(g->d.who, "supraseal part_done: %s", zp_strerror(r));
	else if (zp_arena_job_state(g->d.arena, ph.job) == ZP_JOB_DONE)
		zp_daemon_hint_sup(&g->d, "done");
wipe:
	explicit_bzero(c->rs, sizeof c->rs);
}

/* ---------------------------------------------------------------- housekeeping */
static int load_registered_one(const char *dir, const char *name, void *g)
{
	(void)dir;
	if (strlen(name) != 16 || strchr(name, '.'))
		return 0;
	char id[ZP_KEY_ID_MAX];
	snprintf(id, sizeof id, ZP_SS_KEY_PREFIX "%s", name);
	gpud_key_srs(g, id);
	return 0;
}

static void load_registered(struct gpud *g)
{
	zp_pipe_each(&g->d.cfg, "srs", load_registered_one, g);
}

/* External jobs whose submitter is gone: fail their unfilled (PENDING) partitions. */
static void fail_orphans(struct gpud *g)
{
	struct zp_daemon *d = &g->d;
	const struct zp_arena_hdr *h = zp_arena_hdr(d->arena);
	for (uint32_t j = 0; j < h->job_count; j++) {
		const struct zp_arena_job *jr = zp_arena_job_rec(d->arena, j);
		uint64_t w = zp_arena_load64(&jr->word);
		if (zp_word_state(w) != ZP_JOB_ACTIVE || !(jr->flags & ZP_JOB_EXTERNAL))
			continue;
		int pid = 0;
		unsigned long long start = 0;
		if (sscanf(jr->inputs, ZP_SS_INPUT_PREFIX "%d:%llu", &pid, &start) != 2 ||
		    (pid > 0 && zp_proc_start_time(pid) == start))
			continue;
		zp_job_h jh = { j, zp_word_gen(w) };
		uint32_t np = jr->nparts;
		for (uint32_t p = 0; p < np; p++) {
			zp_part_h ph = { jh, p };
			if (zp_arena_claim_part_at(d->arena, d->me, ph) == 0) {
				zp_arena_part_fail(d->arena, d->me, ph, 0, "the calling process died before handing this partition over");
				zp_log(d->who, "supraseal job %llu part %u: caller pid %d is gone: FAILED", (unsigned long long)jr->id,
				       p, pid);
			}
		}
		zp_daemon_hint_sup(d, "fail");
	}
}

static void ss_tick(struct gpud *g)
{
	struct zp_daemon *d = &g->d;
	uint64_t now = zp_mono_ms();
	if (now - g->last_ss_tick_ms < 250)
		return;
	g->last_ss_tick_ms = now;
	load_registered(g);
	/* library callers (role CLIENT) are nobody's children: reclaim the dead ones here */
	const struct zp_arena_hdr *h = zp_arena_hdr(d->arena);
	for (uint32_t i = 0; i < h->proc_count; i++) {
		const struct zp_arena_proc *pr = zp_arena_proc_rec(d->arena, i);
		uint64_t w = zp_arena_load64(&pr->word);
		if (zp_word_state(w) == ZP_PROC_FREE || pr->role != ZP_ROLE_CLIENT)
			continue;
		if (zp_word_state(w) == ZP_PROC_DEAD || zp_arena_proc_alive(d->arena, i) == 0) {
			int n = zp_arena_reclaim_proc(d->arena, (zp_proc_h){ i, zp_word_gen(w) });
			if (n > 0)
				zp_log(d->who, "reclaimed %d slot(s)/partition(s) of dead caller pid %d", n, pr->pid);
		}
	}
	fail_orphans(g);
}

const struct gpud_payload gpud_payload_ss = {
	.name = "filecoin", .magic = ZP_SS_PAYLOAD_MAGIC, .check = ss_check, .take = ss_take, .prove = ss_prove,
	.tick = ss_tick,
};
