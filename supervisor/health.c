/*
 * health.c — what the supervisor says about each key, and whether it can be served.
 *
 * At start every key is validated without loading it (keyshape.c: the zkey/zpk header,
 * curve and prime, the r1cs against it, the witness generator's files) and its slot need is
 * computed; `slot_size = auto` groups are sized from it; a key no group's slots can hold fails.
 * Then each gpud reports, per key, in its health file (waiting / loading / ready / failed), and
 * a gpud that fails at start the same way SUP_GIVE_UP times in a row is no longer restarted
 * (main.c). A key is
 *   ready    when at least one gpud of a group that can hold it has loaded it;
 *   loading  when none has yet but one still may (starting, loading, restarting);
 *   failed   otherwise (validation failed, every gpud failed it or was given up): submits for
 *            it are refused with the reason, and `zkpipe wait` on its jobs ends (exit 13).
 * The table is written by the main loop and read by the HTTP thread: one mutex.
 */
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "sup.h"
#include "config.h"
#include "health.h"
#include "sys.h"
#include "zp_err.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static const char *const state_name[] = { "loading", "ready", "failed" };

static void fmt_bytes(char *b, size_t n, uint64_t v)
{
	if (v >= 1ull << 30)
		snprintf(b, n, "%.2f GiB", v / (double)(1ull << 30));
	else if (v >= 1u << 20)
		snprintf(b, n, "%.2f MiB", v / (double)(1u << 20));
	else
		snprintf(b, n, "%.1f KiB", v / 1024.0);
}

/* Whether group g's slots hold key i's partitions. */
static bool fits(struct sup *sup, unsigned g, unsigned i)
{
	/* the arena's own slot size: a re-attached arena may differ from the config */
	uint64_t have = sup->g[g].a ? zp_arena_slot_size(sup->g[g].a) : sup->cfg.groups[g].slot_size;
	return sup->keys[i].valid && sup->keys[i].shape.slot_bytes <= have;
}

int sup_keys_validate(struct sup *sup)
{
	for (unsigned i = 0; i < sup->cfg.n_keys; i++) {
		struct key_health *k = &sup->keys[i];
		int r = sup_key_shape(&sup->cfg.keys[i], &k->shape);
		k->valid = r == 0;
		k->state = r ? KH_FAILED : KH_LOADING;
		if (r) { /* the reason without "key K: ", which every line that shows it says once */
			const char *m = zp_err_text(r);
			size_t kl = strlen(sup->cfg.keys[i].name);
			if (!strncmp(m, "key ", 4) && !strncmp(m + 4, sup->cfg.keys[i].name, kl) && !strncmp(m + 4 + kl, ": ", 2))
				m += 4 + kl + 2;
			snprintf(k->reason, sizeof k->reason, "%s", m);
		}
	}
	for (unsigned g = 0; g < sup->cfg.n_groups; g++) {
		char why[64];
		if (sup->cfg.groups[g].slot_size)
			continue;
		if (sup_slot_auto(&sup->cfg, g, why, sizeof why)) {
			zp_log("supervisor", "%s", zp_err_msg());
			return -EINVAL;
		}
		char b[32];
		fmt_bytes(b, sizeof b, sup->cfg.groups[g].slot_size);
		zp_log("supervisor", "group %s: slot_size = auto: %s (%s's need, rounded up to 2 MiB)",
		       sup->cfg.groups[g].name, b, why);
	}
	return 0;
}

void sup_keys_fit(struct sup *sup)
{
	for (unsigned i = 0; i < sup->cfg.n_keys; i++) {
		struct key_health *k = &sup->keys[i];
		const struct zp_pipe_key *kc = &sup->cfg.keys[i];
		if (!k->valid) {
			zp_log("supervisor", "key %s: FAILED validation: %s; submits for it are refused", kc->name, k->reason);
			continue;
		}
		char need[32], have[32];
		fmt_bytes(need, sizeof need, k->shape.slot_bytes);
		unsigned n_fit = 0;
		for (unsigned g = 0; g < sup->cfg.n_groups; g++)
			n_fit += fits(sup, g, i);
		zp_log("supervisor", "key %s: %s, %s, %u vars, %u public, domain 2^%u: a partition needs a slot of %s "
		       "(%llu bytes)", kc->name, k->shape.kind, zp_curve_of(k->shape.curve)->name, k->shape.n_vars,
		       k->shape.n_public, k->shape.log_domain,
		       need, (unsigned long long)k->shape.slot_bytes);
		if (k->shape.warning[0])
			zp_log("supervisor", "key %s: WARNING: %s", kc->name, k->shape.warning);
		if (!n_fit) {
			fmt_bytes(have, sizeof have, zp_arena_slot_size(sup->g[0].a));
			k->state = KH_FAILED;
			snprintf(k->reason, sizeof k->reason, "a partition needs a slot of %llu bytes (%s); no group's slots "
				 "hold it ([group %s] slot_size = %s): set slot_size = auto or >= %s",
				 (unsigned long long)k->shape.slot_bytes, need, sup->cfg.groups[0].name, have, need);
			zp_log("supervisor", "key %s: FAILED: %s; submits for it are refused", kc->name, k->reason);
		}
	}
}

/* One gpud's view of key i: KH_* (and its reason when failed; while loading, the key's bytes
 * and the seconds since this gpud began it, when it has). */
static int gpud_view(struct sup *sup, const struct child *c, unsigned i, char *why, size_t n, uint64_t *bytes,
		     double *secs)
{
	if (c->given_up) {
		snprintf(why, n, "%s.%u@%s %s", "gpud", c->index, sup->cfg.groups[c->group].name, c->give_up_reason);
		return KH_FAILED;
	}
	json_t *h = c->pid ? zp_health_read(&sup->cfg, c->group, c->index, c->pid) : NULL;
	json_t *e = json_object_get(json_object_get(h, "keys"), sup->cfg.keys[i].name);
	const char *st = json_string_value(json_object_get(e, "state"));
	int r = KH_LOADING;
	if (st && !strcmp(st, "loading")) {
		*bytes = (uint64_t)json_integer_value(json_object_get(e, "bytes"));
		uint64_t since = (uint64_t)json_integer_value(json_object_get(e, "since_ns")), now = zp_now_ns();
		*secs = since && now > since ? (now - since) / 1e9 : 0;
	}
	if (st && !strcmp(st, "ready"))
		r = KH_READY;
	else if (st && !strcmp(st, "failed")) {
		snprintf(why, n, "%s", json_string_value(json_object_get(e, "error")));
		r = KH_FAILED;
	}
	json_decref(h);
	return r;
}

void sup_keys_refresh(struct sup *sup)
{
	for (unsigned i = 0; i < sup->cfg.n_keys; i++) {
		struct key_health *k = &sup->keys[i];
		if (!k->valid || (k->state == KH_FAILED && !k->gpuds_total))
			continue; /* failed validation or fits no group: final */
		unsigned ready = 0, loading = 0, total = 0;
		uint64_t lb = 0;
		double ls = 0;
		char why[sizeof k->reason] = "";
		for (unsigned j = 0; j < sup->nch; j++) {
			const struct child *c = &sup->ch[j];
			if (c->role != ZP_ROLE_GPUD || !fits(sup, c->group, i))
				continue;
			char w[sizeof k->reason] = "";
			uint64_t b = 0;
			double sec = 0;
			int v = gpud_view(sup, c, i, w, sizeof w, &b, &sec);
			if (b > lb || sec > ls)
				lb = b, ls = sec;
			total++;
			ready += v == KH_READY;
			loading += v == KH_LOADING;
			if (v == KH_FAILED && !why[0])
				snprintf(why, sizeof why, "%s", w);
		}
		int st = ready ? KH_READY : loading ? KH_LOADING : KH_FAILED;
		pthread_mutex_lock(&mu);
		int was = k->state;
		k->state = st;
		k->gpuds_ready = ready, k->gpuds_loading = loading, k->gpuds_total = total;
		k->load_bytes = st == KH_LOADING ? lb : 0, k->load_s = st == KH_LOADING ? ls : 0;
		snprintf(k->reason, sizeof k->reason, "%s", st == KH_FAILED ? why : "");
		pthread_mutex_unlock(&mu);
		if (st != was && st == KH_FAILED)
			zp_log("supervisor", "key %s: FAILED: %s; submits for it are refused", sup->cfg.keys[i].name, k->reason);
		else if (st != was)
			zp_log("supervisor", "key %s: %s (%u of %u gpud(s) ready)", sup->cfg.keys[i].name, state_name[st], ready,
			       total);
	}
}

const char *sup_key_refusal(struct sup *sup, const char *name, char *buf, size_t n)
{
	for (unsigned i = 0; i < sup->cfg.n_keys; i++) {
		if (strcmp(sup->cfg.keys[i].name, name))
			continue;
		pthread_mutex_lock(&mu);
		bool failed = sup->keys[i].state == KH_FAILED;
		if (failed)
			snprintf(buf, n, "key %s cannot be served: %s", name, sup->keys[i].reason);
		pthread_mutex_unlock(&mu);
		return failed ? buf : NULL;
	}
	return NULL;
}

bool sup_group_serves(struct sup *sup, unsigned g, const char *name)
{
	for (unsigned i = 0; i < sup->cfg.n_keys; i++) {
		if (strcmp(sup->cfg.keys[i].name, name))
			continue;
		if (!fits(sup, g, i))
			return false;
		for (unsigned j = 0; j < sup->nch; j++)
			if (sup->ch[j].group == g && sup->ch[j].role == ZP_ROLE_GPUD && !sup->ch[j].given_up)
				return true;
		return false;
	}
	return false;
}

void *sup_keys_json(struct sup *sup)
{
	json_t *a = json_array();
	pthread_mutex_lock(&mu);
	for (unsigned i = 0; i < sup->cfg.n_keys; i++) {
		const struct key_health *k = &sup->keys[i];
		json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i}", "name", sup->cfg.keys[i].name, "state",
				      state_name[k->state], "error", k->reason, "gpuds_ready", (int)k->gpuds_ready,
				      "gpuds_loading", (int)k->gpuds_loading, "gpuds", (int)k->gpuds_total);
		if (k->state == KH_LOADING) /* progress: which gpuds are done, how big, how long so far */
			json_object_update_new(o, json_pack("{s:I, s:f}", "loading_bytes", (json_int_t)k->load_bytes,
							    "loading_s", k->load_s));
		if (k->valid && k->shape.warning[0])
			json_object_set_new(o, "warning", json_string(k->shape.warning));
		if (k->valid)
			json_object_update_new(o, json_pack("{s:s, s:s, s:i, s:i, s:i, s:I}", "kind", k->shape.kind,
							    "curve", zp_curve_of(k->shape.curve)->name, "n_vars",
							    (int)k->shape.n_vars, "n_public", (int)k->shape.n_public,
							    "domain", (int)k->shape.domain, "slot_bytes",
							    (json_int_t)k->shape.slot_bytes));
		json_array_append_new(a, o);
	}
	pthread_mutex_unlock(&mu);
	return a;
}

const char *sup_key_state(struct sup *sup, const char *name, char *why, size_t n)
{
	for (unsigned i = 0; i < sup->cfg.n_keys; i++)
		if (!strcmp(sup->cfg.keys[i].name, name)) {
			pthread_mutex_lock(&mu);
			int st = sup->keys[i].state;
			snprintf(why, n, "%s", sup->keys[i].reason);
			pthread_mutex_unlock(&mu);
			return state_name[st];
		}
	snprintf(why, n, "key %s is not in this supervisor's config", name);
	return "failed";
}
