/*
 * zkpipe-gpud — prover: keeps every configured proving key resident (keys.c), takes READY slots
 * (highest priority, oldest job, lowest partition first) and proves each with the payload kind its
 * magic names (payload.h: check → take → release the slot → prove), with the group's backend.
 *
 *   zkpipe-gpud --config FILE --group NAME --index I
 *
 * The backend is the prover's ops table (prover/groth16.h). [group] backend = cpu (default) | cuda
 * picks it (prover/backends.h); without CUDA or a GPU, cuda logs why and exits 8 (backend
 * unavailable; the supervisor stops restarting it after 3 such starts). Exit codes: common/zp_exit.h.
 * ZKPIPE_GPUD_PIPELINE=1 with backend cpu takes the pipelined CPU backend (zp_g16_backend_cpu_pipe:
 * tests of the device pipeline on machines without a GPU). A backend with the pipeline ops runs
 * the device pipeline (pipe.c); the others prove in this thread.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "arena.h"
#include "knobs.h"
#include "backends.h"
#include "payload.h"
#include "config.h"
#include "health.h"
#include "sys.h"
#include "progress.h"
#include "zp_err.h"
#include "zp_exit.h"
#include "zp_mem.h"

/* ---------------------------------------------------------------- health file
 * <run>/health/<group>.gpud<i>.json (pipeline/health.c): the supervisor reads it to say per key
 * ready / loading / failed, and why this gpud failed at start. Rewritten at every change. */
void gpud_health_stage(struct gpud *g, const char *stage, const char *err)
{
	if (!g->health) {
		g->health = json_pack("{s:i, s:o}", "pid", (int)getpid(), "keys", json_object());
		for (unsigned i = 0; i < g->d.cfg.n_keys; i++)
			json_object_set_new(json_object_get(g->health, "keys"), g->d.cfg.keys[i].name,
					    json_pack("{s:s}", "state", "waiting"));
	}
	json_object_set_new(g->health, "stage", json_string(stage));
	json_object_set_new(g->health, "error", json_string(err ? err : ""));
	json_object_set_new(g->health, "updated_ns", json_integer((json_int_t)zp_now_ns()));
	if (zp_health_write(&g->d.cfg, g->d.group, g->d.index, g->health))
		zp_log(g->d.who, "cannot write the health file under %s/health", g->d.cfg.run_dir);
}

void gpud_health_key(struct gpud *g, const char *name, const char *state, const char *err, uint64_t bytes)
{
	if (!g->health)
		gpud_health_stage(g, "loading", NULL);
	json_object_set_new(json_object_get(g->health, "keys"), name,
			    json_pack("{s:s, s:s, s:I, s:I}", "state", state, "error", err ? err : "", "bytes",
				      (json_int_t)bytes, "since_ns", (json_int_t)zp_now_ns()));
	gpud_health_stage(g, "loading", NULL);
}

void gpud_health_key_detail(struct gpud *g, const struct gpud_key *k)
{
	json_t *e = json_object_get(json_object_get(g->health, "keys"), k->name);
	if (!e)
		return;
	json_object_set_new(e, "source", json_string(k->source ? k->source : "file"));
	zp_g16_mem_uses u;
	if (k->be_state && k->be->mem_uses && k->be->mem_uses(k->be_state, &u) == 0) {
		json_object_set_new(e, "device_memory",
				    json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "key", (json_int_t)u.key, "split_bases",
					      (json_int_t)u.split, "input_sets", (json_int_t)u.sets, "scratch",
					      (json_int_t)u.scratch, "tables", (json_int_t)u.tables, "other",
					      (json_int_t)u.other, "free", (json_int_t)u.free, "total", (json_int_t)u.total));
		const double G = 1073741824.0;
		zp_log(g->d.who, "key %s: device memory by use (GiB): key %.2f, split bases %.2f, input sets %.2f, scratch %.2f, "
		       "tables %.2f, other %.2f (context, other keys and processes), free %.2f of %.2f", k->name, u.key / G,
		       u.split / G, u.sets / G, u.scratch / G, u.tables / G, u.other / G, u.free / G, u.total / G);
	}
	gpud_health_stage(g, "loading", NULL);
}

/* What this gpud serves, in its health file: "serves" (the keys it can prove: configured keys that
 * loaded, registered Filecoin keys once loaded), "failed" (those it cannot), "parked" (served keys whose
 * device state was given back for another key's room: their next call takes them up again), "gpu" (the device-memory
 * cap it was given, [group] gpu_memory → ZP_CUDA_MEM_CAP_MB, and the card's size when the backend
 * says it); and its stage: "ready", or "degraded" when it has configured keys and serves none of them
 * nor any other (docs/pipeline.md, Decisions: "gpud serves what it can prove"). Returns the keys served. */
unsigned gpud_health_serving(struct gpud *g)
{
	if (!g->health)
		gpud_health_stage(g, "loading", NULL);
	json_t *serves = json_array(), *failed = json_array(), *parked = json_array();
	const struct gpud_key *first_failed = NULL;
	uint64_t total = 0;
	for (unsigned i = 0; i < g->n_keys; i++) {
		const struct gpud_key *k = &g->keys[i];
		zp_g16_mem_uses u;
		if (k->state == 1) {
			json_array_append_new(serves, json_string(k->name));
			if (k->parked) /* served, its device state given back for another key's room (keys.c) */
				json_array_append_new(parked, json_string(k->name));
			if (!total && k->be_state && k->be->mem_uses && k->be->mem_uses(k->be_state, &u) == 0)
				total = u.total;
		} else if (k->state < 0) {
			json_array_append_new(failed, json_string(k->name));
			first_failed = first_failed ? first_failed : k;
		}
	}
	unsigned n = (unsigned)json_array_size(serves);
	json_object_set_new(g->health, "serves", serves);
	json_object_set_new(g->health, "failed", failed);
	json_object_set_new(g->health, "parked", parked);
	const zp_knob_num *cap = &zp_knobs()->cuda_mem_cap_mb;
	json_t *gpu = json_pack("{s:s, s:I}", "backend", g->be->name, "memory_cap_bytes",
				(json_int_t)(cap->bad ? 0 : (uint64_t)cap->v << 20));
	if (total) /* the card as the backend sees it (the CUDA backend; the pipelined CPU backend's stand-in) */
		json_object_set_new(gpu, "memory_total_bytes", json_integer((json_int_t)total));
	json_object_set_new(g->health, "gpu", gpu);
	if (!n && g->d.cfg.n_keys && first_failed) {
		char why[ZP_ERR_MSG_MAX + 2 * ZP_KEY_ID_MAX + 64];
		snprintf(why, sizeof why, "serves no key: every configured key failed at load (key %s: %s)", first_failed->name,
			 first_failed->err);
		gpud_health_stage(g, "degraded", why);
	} else {
		gpud_health_stage(g, "ready", NULL);
	}
	return n;
}

/* A start-up failure: said in the log and the health file, then exit with its code. */
static int start_failed(struct gpud *g, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int start_failed(struct gpud *g, int code, const char *fmt, ...)
{
	char m[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	zp_log(g->d.who, "%s", m);
	gpud_health_stage(g, "failed", m);
	zp_daemon_exit(&g->d);
	return code;
}

static const struct gpud_payload *const kinds[] = { &gpud_payload_ss, &gpud_payload_zp };

/* The kind whose magic the payload starts with; zkpipe's own kind for any other. */
static const struct gpud_payload *kind_of(const uint8_t *slot)
{
	uint64_t magic;
	memcpy(&magic, slot, sizeof magic);
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (kinds[i]->magic == magic)
			return kinds[i];
	return &gpud_payload_zp;
}

static void prove_slot(struct gpud *g, zp_slot_h sh, zp_part_h ph)
{
	uint8_t *slot = zp_arena_slot_data(g->d.arena, sh);
	const struct gpud_payload *kind = kind_of(slot);
	struct gpud_part pp = { .sh = sh, .ph = ph };
	int r = kind->check(g, slot, &pp);
	if (!r)
		r = kind->take(g, slot, &pp);
	zp_arena_release_slot(g->d.arena, g->d.me, sh); /* the slot is free before proving starts */
	kind->prove(g, &pp, r);
}

/* gpud I serves the group's GPU I: the supervisor exports CUDA_DEVICE_ORDER=PCI_BUS_ID,
 * CUDA_VISIBLE_DEVICES=<its ordinal>, ZP_CUDA_DEVICE=0, so the process sees exactly one device.
 * Run by hand without them, we set the same here. */
static int pick_gpu(struct gpud *g)
{
	const struct zp_pipe_group *gr = &g->d.cfg.groups[g->d.group];
	unsigned i = g->d.index;
	if (i >= gr->gpus)
		return start_failed(g, ZP_EX_CONFIG, "index %u: [group %s] has %u GPU(s)", i, gr->name, gr->gpus);
	gpud_health_stage(g, "starting", NULL);
	if (!getenv("CUDA_VISIBLE_DEVICES")) {
		char dev[16];
		snprintf(dev, sizeof dev, "%d", gr->gpu_ordinal[i]);
		setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
		setenv("CUDA_VISIBLE_DEVICES", dev, 1);
		setenv("ZP_CUDA_DEVICE", "0", 1);
		zp_knobs_reload();   /* ZP_CUDA_DEVICE is read once (common/knobs.h): read it again now */
	}
	snprintf(g->gpu_desc, sizeof g->gpu_desc, "%s", gr->gpu[i][0] ? gr->gpu[i] : "");
	zp_log(g->d.who, "GPU %s%sordinal %d (CUDA_VISIBLE_DEVICES=%s), NUMA node %d", g->gpu_desc,
	       g->gpu_desc[0] ? ", " : "", gr->gpu_ordinal[i], getenv("CUDA_VISIBLE_DEVICES"), gr->gpu_node[i]);
	return 0;
}

static int pick_backend(struct gpud *g)
{
	const char *name = g->d.cfg.groups[g->d.group].backend;
	int r = zp_g16_backend_find(&g->be, name[0] ? name : "cpu");
	if (r) { /* the backends' messages name themselves ("backend cuda: no CUDA GPU"): no second prefix */
		const char *m = zp_err_text(r);
		bool own = !strncmp(m, "backend ", 8);
		return start_failed(g, ZP_EX_NODEV, "%s%s%s%s", own ? "" : "backend ", own ? "" : name, own ? "" : ": ", m);
	}
	if (g->be == &zp_g16_backend_cpu && zp_knobs()->gpud_pipeline) {
		g->be = &zp_g16_backend_cpu_pipe;
		zp_log(g->d.who, "ZKPIPE_GPUD_PIPELINE=1: the CPU backend behind the device pipeline");
	}
	if (g->d.cfg.fixed_blinding)
		zp_log(g->d.who, "[debug] fixed_blinding: proofs use fixed r, s (TESTS ONLY: not zero-knowledge)");
	return 0;
}

/* The plain path proves from its own copy of the slot (payload_zp.c take). */
static int plain_buffers(struct gpud *g)
{
	g->buf_w = zp_aligned_alloc(64, g->max_vars * sizeof(zp_fr) + 64);
	g->buf_abc = zp_aligned_alloc(64, 3 * g->max_domain * sizeof(zp_fr) + 64);
	if (g->buf_w && g->buf_abc)
		return 0;
	return start_failed(g, ZP_EX_INTERNAL, "cannot allocate buffers for %llu vars / domain %llu",
			    (unsigned long long)g->max_vars, (unsigned long long)g->max_domain);
}

static void serve(struct gpud *g)
{
	while (!zp_daemon_stopping(&g->d)) {
		zp_daemon_tick(&g->d);
		for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
			if (kinds[i]->tick)
				kinds[i]->tick(g);
		if (g->pipelined && !gpud_pipe_sets_free(g)) { /* the GPU holds every input set: take no slot yet */
			gpud_pipe_wait(g, 200);
			continue;
		}
		zp_slot_h sh;
		zp_part_h ph;
		if (!zp_daemon_gate(&g->d, "prove")) { /* [debug] hold_at = prove: READY slots wait for the test */
			zp_daemon_wait_hint(&g->d, 50);
			continue;
		}
		if (zp_arena_take_ready(g->d.arena, g->d.me, 0, &sh, &ph) == 0) {
			zp_daemon_gate_used(&g->d, ph);
			prove_slot(g, sh, ph);
			continue;
		}
		zp_daemon_gate_unused(&g->d);
		zp_daemon_wait_hint(&g->d, 200);
	}
}

static struct gpud G;

int main(int argc, char **argv)
{
	struct gpud *g = &G;
	int r = zp_daemon_init(&g->d, argc, argv, ZP_ROLE_GPUD, "gpud");
	if (r)
		return zp_daemon_init_exit(r);
	if ((r = pick_gpu(g)) || (r = pick_backend(g)))
		return r;
	gpud_keys_load(g);
	zp_progress_stage("writing verification keys", 0, "items");
	gpud_keys_write_vks(g);
	zp_progress_stage("starting the prover", 0, "items");
	g->pipelined = g->be->upload_async && g->be->upload_wait && g->be->prove_buf && g->be->nbufs;
	if (g->pipelined && (r = gpud_pipe_start(g)))
		return start_failed(g, ZP_EX_START, "cannot start the proving threads: %s", zp_strerror(r));
	if (!g->pipelined && (r = plain_buffers(g)))
		return r;
	char list[512] = "", bad[512] = "";
	for (unsigned i = 0; i < g->n_keys; i++) {
		char *l = g->keys[i].state == 1 ? list : bad;
		snprintf(l + strlen(l), sizeof list - strlen(l), "%s%s", l[0] ? ", " : "", g->keys[i].name);
	}
	const zp_knob_num *cap = &zp_knobs()->cuda_mem_cap_mb;
	char capt[64] = "";
	if (!cap->bad && cap->v)
		snprintf(capt, sizeof capt, " (device memory capped at %ld MiB: [group] gpu_memory)", cap->v);
	if (gpud_health_serving(g)) {
		zp_log(g->d.who, "backend %s ready for key(s) %s%s%s%s", g->be->name, list, bad[0] ? "; FAILED: " : "", bad, capt);
		zp_progress_end("ready");
	} else if (bad[0]) {
		/* up, for the Filecoin keys a client may register, but this gpud proves none of its own keys */
		zp_log(g->d.who, "backend %s up but DEGRADED: it serves no key (FAILED: %s); registered Filecoin keys still load%s",
		       g->be->name, bad, capt);
		zp_progress_end("degraded: serves no key");
	} else {
		zp_log(g->d.who, "backend %s ready (no configured key: registered Filecoin keys load on first use)%s",
		       g->be->name, capt);
		zp_progress_end("ready");
	}
	serve(g);
	if (g->pipelined)
		gpud_pipe_stop(g);
	gpud_keys_free(g);
	free(g->buf_w);
	free(g->buf_abc);
	zp_daemon_exit(&g->d);
	return 0;
}
