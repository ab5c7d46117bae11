/*
 * zkpipe-synthd — synthesizer: claims a PENDING partition, owns a FREE slot before it
 * computes anything, writes the assignment w (read from the partition's witness source
 * straight into the slot; a witness of another curve than the key's circuit fails the partition, naming
 * both; the payload records the curve, its values are that curve's Fr) and a = A·w, b = B·w, c = C·w (or a∘b) into the same slot,
 * checks satisfiability, marks the slot READY and hints the gpuds.
 *
 *   zkpipe-synthd --config FILE --group NAME --index I
 *
 * Started by zkpipe-supervisor (fork+exec); registers itself in the group's arena process
 * table as "synthd.I". Keeps circuits it has loaded (one per key, lazily). A daemon whose
 * supervisor is gone (no ALIVE supervisor entry) for [limits] orphan_timeout_s exits.
 * SIGTERM: finish the partition in hand, then exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "circuit.h"
#include "daemon.h"
#include "config.h"
#include "files.h"
#include "paths.h"
#include "payload_zp.h"
#include "rundir.h"
#include "sys.h"
#include "witgen.h"
#include "jsonscan.h"
#include "r1cs.h"
#include "synth.h"
#include "wtns.h"
#include "zkey.h"
#include "zp_err.h"

static struct zp_daemon D;

/* ---- circuits, one per key, loaded on first use ---- */
struct circ_entry {
	char key[ZP_KEY_ID_MAX];
	zp_circuit c;
	zp_synth_params sp;       /* synthetic circuits: their parameters */
	int synth;
	int state;                /* 0 not loaded, 1 ok, <0 error code */
	char err[200];
};
static struct circ_entry circs[ZP_PIPE_MAX_KEYS];

/* ---- witness sources: where a partition's w comes from (manifest line = spec) ---- */
struct wsrc_ops {
	const char *prefix;       /* manifest lines starting with it; "" = plain path */
	/* fills w; returns 1 when it filled a, b, c too (else 0, or an error) */
	int (*fill)(const char *spec, void *w, const struct circ_entry *e, zp_fr *abc[3]);
};
static int wtns_fill(const char *spec, void *w, const struct circ_entry *e, zp_fr *abc[3])
{
	(void)abc;
	if (e->synth)
		return zp_err_set(ZP_EFORMAT, "'%s': key %s is a synthetic circuit (inputs are synth:<seed>)", spec, e->key);
	/* the manifest's canonical path, opened by the same confined walk as at submit: a file
	 * swapped for a FIFO, a device or a symlink since then fails this partition, never blocks */
	int fd = zp_path_open_input(D.cfg.allow_in, D.cfg.n_in, spec);
	if (fd < 0)
		return fd;
	int r = zp_wtns_read_fd_curve(fd, spec, e->c.curve, w, e->c.n_vars);
	close(fd);
	return r;
}
/* "synth:<seed>": the synthetic circuit's satisfying witness for that seed (prover/synth.h). */
static int synth_fill(const char *spec, void *w, const struct circ_entry *e, zp_fr *abc[3])
{
	char *end;
	errno = 0;
	unsigned long long seed = strtoull(spec, &end, 0);
	if (!e->synth)
		return zp_err_set(ZP_EFORMAT, "'synth:%s': key %s is not a synthetic circuit", spec, e->key);
	if (!*spec || *end || errno)
		return zp_err_set(ZP_EFORMAT, "'synth:%s': the witness seed is not a 64-bit integer", spec);
	int r = zp_synth_witness_abc(w, abc[0], abc[1], abc[2], &e->c, &e->sp, seed);
	return r ? r : 1;
}
/* "witgen:<path>": the .wtns the key's witness generator just wrote in its directory under
 * <run>/witgen (synthd's own file, outside allow_input): opened without following a symlink. */
static int witgen_fill(const char *spec, void *w, const struct circ_entry *e, zp_fr *abc[3])
{
	(void)abc;
	int fd = open(spec, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return zp_err_set(-errno, "generated witness %s", spec);
	int r = zp_wtns_read_fd_curve(fd, spec, e->c.curve, w, e->c.n_vars);
	close(fd);
	return r;
}
static const struct wsrc_ops wsrc_wtns = { "", wtns_fill };
static const struct wsrc_ops wsrc_witgen = { "witgen:", witgen_fill };
static const struct wsrc_ops wsrc_synth = { "synth:", synth_fill };
static const struct wsrc_ops *const wsrcs[] = { &wsrc_wtns, &wsrc_synth, &wsrc_witgen };

static int load_circuit(const struct zp_pipe_key *k, struct circ_entry *e)
{
	zp_circuit *c = &e->c;
	int r;
	if (k->synth[0]) {
		e->synth = 1;
		if ((r = zp_synth_parse(&e->sp, k->synth)))
			return r;
		uint64_t t0 = zp_mono_ms();
		if ((r = zp_synth_circuit(c, &e->sp)))
			return r;
		zp_log(D.who, "key %s: synthetic circuit %u rows built in %llu ms", k->name, c->n_constraints,
		       (unsigned long long)(zp_mono_ms() - t0));
		return 0;
	}
	if (k->r1cs[0]) {
		zp_r1cs r1;
		if ((r = zp_r1cs_read(&r1, k->r1cs)))
			return r;
		r = zp_circuit_from_r1cs(c, &r1);
		zp_r1cs_free(&r1);
		return r;
	}
	zp_zkey z;
	if ((r = zp_zkey_read(&z, k->zkey)))
		return r;
	*c = z.circuit; /* keep the circuit, drop the points */
	memset(&z.circuit, 0, sizeof z.circuit);
	zp_zkey_free(&z);
	return 0;
}

static struct circ_entry *circuit_get(const struct zp_pipe_config *cfg, const char *key)
{
	for (unsigned i = 0; i < ZP_PIPE_MAX_KEYS; i++) {
		struct circ_entry *e = &circs[i];
		if (e->key[0] && strcmp(e->key, key))
			continue;
		if (e->state == 1 || (e->state < 0 && e->state != -ENOMEM))
			return e;
		const struct zp_pipe_key *k = zp_pipe_key_find(cfg, key);
		snprintf(e->key, sizeof e->key, "%s", key);
		if (!k) {
			e->state = -ENOENT;
			snprintf(e->err, sizeof e->err, "key '%s' is not in this synthd's config", key);
			return e;
		}
		zp_err_clear();
		zp_daemon_long_stage(&D, true); /* a circuit load (a zkey's read): the watchdog allows start_timeout_s */
		int r = load_circuit(k, e);
		zp_daemon_long_stage(&D, false);
		e->state = r ? r : 1;
		if (r)
			snprintf(e->err, sizeof e->err, "circuit of key %s: %s", key,
				 zp_err_text(r));
		return e;
	}
	return NULL;
}

/* Input faults do not go away on retry; resource faults might. */
static int retry_for(int r)
{
	switch (r) {
	case ZP_EMISMATCH: case ZP_EUNSAT: case ZP_EFORMAT: case ZP_ETRUNC: case ZP_ENONCANON:
	case ZP_ERANGE: case ZP_EVERSION: case -ENOENT: case -EACCES: case -EISDIR: case -ENAMETOOLONG:
	case -EINVAL: case -ELOOP: case -ENOTDIR: /* not a regular file; a symlink where none is followed */
	case ZP_EWITGEN:
		return 0;
	default:
		return 1;
	}
}

#define fail_part(ph, retry, ...) zp_daemon_fail_part(&D, (ph), (retry), __VA_ARGS__)

/* Wait for a FREE slot; the claim waits on the arena's futex, in slices so SIGTERM and
 * orphaning are noticed. */
static int get_slot(zp_part_h ph, zp_slot_h *sh)
{
	for (;;) {
		int r = zp_arena_claim_slot(D.arena, D.me, ph, 250, sh);
		if (r != -ETIMEDOUT)
			return r;
		zp_daemon_tick(&D);
		if (zp_daemon_stopping(&D))
			return -ECANCELED;
	}
}

static int fill_slot(zp_part_h ph, zp_slot_h sh, const struct circ_entry *e, const char *spec,
		     struct zp_slot_payload *hdr, uint64_t *bytes)
{
	uint8_t *base = zp_arena_slot_data(D.arena, sh);
	struct zp_slot_payload *p = (struct zp_slot_payload *)base;
	*p = *hdr;
	*bytes = p->bytes;
	const struct wsrc_ops *src = wsrcs[0];
	for (unsigned i = 0; i < sizeof wsrcs / sizeof *wsrcs; i++)
		if (wsrcs[i]->prefix[0] && !strncmp(spec, wsrcs[i]->prefix, strlen(wsrcs[i]->prefix)))
			src = wsrcs[i];
	zp_err_clear();
	const zp_circuit *c = &e->c;
	zp_fr *w = (zp_fr *)(base + p->off_w), *a = (zp_fr *)(base + p->off_a);
	zp_fr *b = (zp_fr *)(base + p->off_b), *cc = (zp_fr *)(base + p->off_c);
	zp_fr *abc[3] = { a, b, cc };
	int r = src->fill(spec + strlen(src->prefix), w, e, abc);
	if (r < 0)
		return r;
	if (r == 0)
		zp_circuit_eval(c, w, a, b, cc);
	else /* the source computed a, b, c itself: synthetic rows take c = a·b, so only its w can be
	      * wrong, which gpud's self-check would catch; the row check would re-read 12 GB at 2^27 */
		goto checked;
	if ((r = zp_circuit_check(c, a, b, cc)))
		return r;
checked:
	zp_daemon_sleep(&D, D.cfg.synth_delay_ms); /* [debug]: lets tests kill mid-synthesis */
	zp_daemon_hold(&D, "synthesized", &ph, -1); /* [debug] hold_at = synthesized: the slot still FILLING */
	return 0;
}

static void synth_part(zp_part_h ph, const struct circ_entry *e, const char *key, uint64_t job_id, const char *spec);

static bool is_json(const char *spec)
{
	size_t n = strlen(spec);
	return n > 5 && !strcmp(spec + n - 5, ".json");
}

/* <run>/witgen/<group>.synthd<i>: this synthd's generator directories, emptied at its start (one
 * synthd of a name runs at a time, so nothing there is anyone else's). */
static void witgen_parent(char *buf, size_t n)
{
	zp_pipe_path(buf, n, &D.cfg, "witgen/%s.synthd%u", D.cfg.groups[D.group].name, D.index);
}

static void witgen_clear(void)
{
	char top[PATH_MAX], mine[PATH_MAX];
	zp_pipe_path(top, sizeof top, &D.cfg, "witgen");
	if (mkdir(top, 0700) && errno != EEXIST)
		return;
	witgen_parent(mine, sizeof mine);
	zp_witgen_cleanup(mine);
}

/* The generator is stopped when synthd is (SIGTERM) or the client cancels its job. */
static bool witgen_abort(void *ctx)
{
	return zp_daemon_stopping(&D) || zp_daemon_cancelled(&D, *(const uint64_t *)ctx);
}

/* Run key's witness generator on the input.json at spec; spec becomes the .wtns it wrote (in
 * wdir, which the caller removes). */
static int witness_from_json(const char *key, const struct circ_entry *e, char *spec, size_t n, char *wdir,
			     size_t wn, uint64_t job_id)
{
	const struct zp_pipe_key *k = zp_pipe_key_find(&D.cfg, key);
	if (!k || (!k->wasm[0] && !k->witness_bin[0]))
		return zp_err_set(ZP_EFORMAT, "%s: key %s has no witness generator (wasm or witness_bin)", spec, key);
	char parent[PATH_MAX], wtns[PATH_MAX - 16], in[PATH_MAX]; /* wtns + "witgen:" fits spec */
	struct zp_witgen g;
	zp_witgen_of_key(&g, k, e->c.n_vars);
	g.abort = witgen_abort, g.abort_ctx = &job_id;
	witgen_parent(parent, sizeof parent);
	if (mkdir(parent, 0700) && errno != EEXIST)
		return zp_err_set(-errno, "%s: %s", parent, strerror(errno));
	snprintf(in, sizeof in, "%s", spec);
	uint64_t t0 = zp_mono_ms();
	/* the manifest's canonical path, by the same confined walk as a .wtns (never blocks) */
	int fd = zp_path_open_input(D.cfg.allow_in, D.cfg.n_in, in);
	if (fd < 0)
		return fd;
	/* the full parse is here, never in the supervisor (which read only its first bytes): bounded
	 * memory, any size of integer (field elements beyond 64 bits) */
	/* a declared long stage: the watchdog allows the generator its own bound (witness_timeout_s)
	 * plus 30 s for the copy, the scan and the kill, however short stuck_timeout_s is */
	zp_daemon_long_stage_for(&D, g.timeout_s + 30);
	int r = zp_json_scan_object(fd, in);
	if (!r)
		r = zp_witgen_run(&g, fd, in, parent, wdir, wn, wtns, sizeof wtns);
	zp_daemon_long_stage(&D, false);
	close(fd);
	if (r)
		return r;
	zp_log(D.who, "key %s: witness of %s generated in %llu ms", key, in, (unsigned long long)(zp_mono_ms() - t0));
	snprintf(spec, n, "witgen:%s", wtns); /* our own file under the run directory, not under allow_input */
	return 0;
}

static void synth_one(zp_part_h ph)
{
	const struct zp_arena_job *jr = zp_arena_job_rec(D.arena, ph.job.idx);
	char key[ZP_KEY_ID_MAX], manifest[ZP_PATH_MAX], spec[PATH_MAX];
	memcpy(key, jr->key_id, sizeof key);
	memcpy(manifest, jr->inputs, sizeof manifest);
	uint64_t job_id = jr->id;
	if (zp_arena_job_state(D.arena, ph.job) != ZP_JOB_ACTIVE)
		return; /* freed under us: the claim is stale and harmless */
	if (zp_daemon_cancelled(&D, job_id)) {
		fail_part(ph, 0, "cancelled by client");
		return;
	}
	struct circ_entry *e = circuit_get(&D.cfg, key);
	if (!e || e->state != 1) {
		fail_part(ph, e && e->state == -ENOMEM, "synthd: %s", e ? e->err : "too many keys");
		return;
	}
	zp_err_clear();
	int r = zp_manifest_line(manifest, ph.part, spec, sizeof spec);
	if (r) {
		fail_part(ph, 0, "%s", zp_err_msg());
		return;
	}
	/* an input.json: the key's own witness generator makes the .wtns first, before a slot is
	 * taken (it may run for seconds); the witness is then read like any other */
	char wdir[PATH_MAX] = "";
	if (is_json(spec) && (r = witness_from_json(key, e, spec, sizeof spec, wdir, sizeof wdir, job_id))) {
		char m[ZP_ERRTXT_MAX];
		snprintf(m, sizeof m, "%s", zp_err_msg());
		zp_witgen_cleanup(wdir);
		if (r == -ECANCELED && zp_daemon_cancelled(&D, job_id))
			fail_part(ph, 0, "cancelled by client");
		else if (r == -ECANCELED)
			fail_part(ph, 1, "synthd stopping");
		else
			fail_part(ph, retry_for(r), "%s", m);
		return;
	}
	synth_part(ph, e, key, job_id, spec);
	zp_witgen_cleanup(wdir);
}

static void synth_part(zp_part_h ph, const struct circ_entry *e, const char *key, uint64_t job_id, const char *spec)
{
	int r;
	struct zp_slot_payload hdr = { .job_id = job_id, .part = ph.part, .n_public = e->c.n_public,
				       .has_c = e->c.has_c, .curve = zp_curve_of(e->c.curve)->id };
	snprintf(hdr.key_id, sizeof hdr.key_id, "%s", key);
	memcpy(hdr.fingerprint, e->c.fingerprint, 16);
	uint64_t need = zp_payload_layout(&hdr, e->c.n_vars, e->c.domain_size);
	if (need > zp_arena_slot_size(D.arena)) {
		fail_part(ph, 0, "partition needs %llu bytes; the group's slots hold %llu",
			  (unsigned long long)need, (unsigned long long)zp_arena_slot_size(D.arena));
		return;
	}
	zp_slot_h sh;
	if ((r = get_slot(ph, &sh)) < 0) {
		if (r == -ECANCELED)
			fail_part(ph, 1, "synthd stopping");
		return; /* ZP_ESTALE: reclaimed while we waited; nothing is ours */
	}
	uint64_t bytes = 0;
	r = fill_slot(ph, sh, e, spec, &hdr, &bytes);
	if (r) {
		char m[ZP_ERRTXT_MAX];
		snprintf(m, sizeof m, "%s", zp_err_text(r));
		zp_arena_abandon_slot(D.arena, D.me, sh);
		fail_part(ph, retry_for(r), "%s", m);
		return;
	}
	if ((r = zp_arena_mark_ready(D.arena, D.me, sh, bytes)) < 0)
		zp_log(D.who, "mark_ready: %s (reclaimed under us)", zp_strerror(r));
	zp_daemon_hint_gpuds(&D);
}

int main(int argc, char **argv)
{
	int r = zp_daemon_init(&D, argc, argv, ZP_ROLE_SYNTHD, "synthd");
	if (r)
		return zp_daemon_init_exit(r);
	zp_limit_memory(&D);
	witgen_clear(); /* what a killed predecessor's generators left */
	/* synthetic circuits are built now, not at the first partition: at PoRep size that is half a
	 * minute, which then overlaps gpud's key loading instead of the first proof */
	for (unsigned i = 0; i < D.cfg.n_keys; i++)
		if (D.cfg.keys[i].synth[0]) {
			struct circ_entry *e = circuit_get(&D.cfg, D.cfg.keys[i].name);
			if (e && e->state != 1)
				zp_log(D.who, "%s", e->err);
		}
	while (!zp_daemon_stopping(&D)) {
		zp_daemon_tick(&D);
		zp_part_h ph;
		if (!zp_daemon_gate(&D, "synth")) { /* [debug] hold_at = synth: the test holds the partitions */
			zp_daemon_wait_hint(&D, 50);
			continue;
		}
		r = zp_arena_claim_part(D.arena, D.me, &ph);
		if (r)
			zp_daemon_gate_unused(&D);
		else
			zp_daemon_gate_used(&D, ph);
		if (r == -EAGAIN) {
			zp_daemon_wait_hint(&D, 200);
			continue;
		}
		if (r == 0)
			synth_one(ph);
	}
	zp_daemon_exit(&D);
	return 0;
}
