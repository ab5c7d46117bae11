/*
 * health.c — what the supervisor says about each key, and whether it can be served.
 *
 * At start every key is validated without loading it (pipeline/health.c: the zkey/zpk header,
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
#include "zp_err.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static const char *const state_name[] = { "loading", "ready", "failed" };

const char *sup_key_state_name(int s) { return state_name[s]; }

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
static bool fits(unsigned g, unsigned i)
{
	/* the arena's own slot size: a re-attached arena may differ from the config */
	uint64_t have = S.g[g].a ? zp_arena_slot_size(S.g[g].a) : S.cfg.groups[g].slot_size;
	return S.keys[i].valid && S.keys[i].shape.slot_bytes <= have;
}

int sup_keys_validate(void)
{
	for (unsigned i = 0; i < S.cfg.n_keys; i++) {
		struct key_health *k = &S.keys[i];
		int r = zp_pipe_key_shape(&S.cfg.keys[i], &k->shape);
		k->valid = r == 0;
		k->state = r ? KH_FAILED : KH_LOADING;
		if (r)
			snprintf(k->reason, sizeof k->reason, "%s", zp_err_msg()[0] ? zp_err_msg() : zp_strerror(r));
	}
	for (unsigned g = 0; g < S.cfg.n_groups; g++) {
		char why[64];
		if (S.cfg.groups[g].slot_size)
			continue;
		if (zp_pipe_slot_auto(&S.cfg, g, why, sizeof why)) {
			zp_log("supervisor", "%s", zp_err_msg());
			return -EINVAL;
		}
		char b[32];
		fmt_bytes(b, sizeof b, S.cfg.groups[g].slot_size);
		zp_log("supervisor", "group %s: slot_size = auto: %s (%s's need, rounded up to 2 MiB)",
		       S.cfg.groups[g].name, b, why);
	}
	return 0;
}

void sup_keys_fit(void)
{
	for (unsigned i = 0; i < S.cfg.n_keys; i++) {
		struct key_health *k = &S.keys[i];
		const struct zp_pipe_key *kc = &S.cfg.keys[i];
		if (!k->valid) {
			zp_log("supervisor", "key %s: FAILED validation: %s; submits for it are refused", kc->name, k->reason);
			continue;
		}
		char need[32], have[32];
		fmt_bytes(need, sizeof need, k->shape.slot_bytes);
		unsigned n_fit = 0;
		for (unsigned g = 0; g < S.cfg.n_groups; g++)
			n_fit += fits(g, i);
		zp_log("supervisor", "key %s: %s, %s, %u vars, %u public, domain 2^%u: a partition needs a slot of %s "
		       "(%llu bytes)", kc->name, k->shape.kind, zp_curve_of(k->shape.curve)->name, k->shape.n_vars,
		       k->shape.n_public, k->shape.log_domain,
		       need, (unsigned long long)k->shape.slot_bytes);
		if (k->shape.warning[0])
			zp_log("supervisor", "key %s: WARNING: %s", kc->name, k->shape.warning);
		if (!n_fit) {
			fmt_bytes(have, sizeof have, zp_arena_slot_size(S.g[0].a));
			k->state = KH_FAILED;
			snprintf(k->reason, sizeof k->reason, "a partition needs a slot of %llu bytes (%s); no group's slots "
				 "hold it ([group %s] slot_size = %s): set slot_size = auto or >= %s",
				 (unsigned long long)k->shape.slot_bytes, need, S.cfg.groups[0].name, have, need);
			zp_log("supervisor", "key %s: FAILED: %s; submits for it are refused", kc->name, k->reason);
		}
	}
}

/* One gpud's view of key i: KH_* (and its reason when failed; while loading, the key's bytes
 * and the seconds since this gpud began it, when it has). */
static int gpud_view(const struct child *c, unsigned i, char *why, size_t n, uint64_t *bytes, double *secs)
{
	if (c->given_up) {
		snprintf(why, n, "%s.%u@%s %s", "gpud", c->index, S.cfg.groups[c->group].name, c->give_up_reason);
		return KH_FAILED;
	}
	json_t *h = c->pid ? zp_health_read(&S.cfg, c->group, c->index, c->pid) : NULL;
	json_t *e = json_object_get(json_object_get(h, "keys"), S.cfg.keys[i].name);
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

void sup_keys_refresh(void)
{
	for (unsigned i = 0; i < S.cfg.n_keys; i++) {
		struct key_health *k = &S.keys[i];
		if (!k->valid || (k->state == KH_FAILED && !k->gpuds_total))
			continue; /* failed validation or fits no group: final */
		unsigned ready = 0, loading = 0, total = 0;
		uint64_t lb = 0;
		double ls = 0;
		char why[sizeof k->reason] = "";
		for (unsigned j = 0; j < S.nch; j++) {
			const struct child *c = &S.ch[j];
			if (c->role != ZP_ROLE_GPUD || !fits(c->group, i))
				continue;
			char w[sizeof k->reason] = "";
			uint64_t b = 0;
			double sec = 0;
			int v = gpud_view(c, i, w, sizeof w, &b, &sec);
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
			zp_log("supervisor", "key %s: FAILED: %s; submits for it are refused", S.cfg.keys[i].name, k->reason);
		else if (st != was)
			zp_log("supervisor", "key %s: %s (%u of %u gpud(s) ready)", S.cfg.keys[i].name, state_name[st], ready,
			       total);
	}
}

const char *sup_key_refusal(const char *name, char *buf, size_t n)
{
	for (unsigned i = 0; i < S.cfg.n_keys; i++) {
		if (strcmp(S.cfg.keys[i].name, name))
			continue;
		pthread_mutex_lock(&mu);
		bool failed = S.keys[i].state == KH_FAILED;
		if (failed)
			snprintf(buf, n, "key %s cannot be served: %s", name, S.keys[i].reason);
		pthread_mutex_unlock(&mu);
		return failed ? buf : NULL;
	}
	return NULL;
}

bool sup_group_serves(unsigned g, const char *name)
{
	for (unsigned i = 0; i < S.cfg.n_keys; i++) {
		if (strcmp(S.cfg.keys[i].name, name))
			continue;
		if (!fits(g, i))
			return false;
		for (unsigned j = 0; j < S.nch; j++)
			if (S.ch[j].group == g && S.ch[j].role == ZP_ROLE_GPUD && !S.ch[j].given_up)
				return true;
		return false;
	}
	return false;
}

void *sup_keys_json(void)
{
	json_t *a = json_array();
	pthread_mutex_lock(&mu);
	for (unsigned i = 0; i < S.cfg.n_keys; i++) {
		const struct key_health *k = &S.keys[i];
		json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i}", "name", S.cfg.keys[i].name, "state",
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

const char *sup_key_state(const char *name, char *why, size_t n)
{
	for (unsigned i = 0; i < S.cfg.n_keys; i++)
		if (!strcmp(S.cfg.keys[i].name, name)) {
			pthread_mutex_lock(&mu);
			int st = S.keys[i].state;
			snprintf(why, n, "%s", S.keys[i].reason);
			pthread_mutex_unlock(&mu);
			return state_name[st];
		}
	snprintf(why, n, "key %s is not in this supervisor's config", name);
	return "failed";
}
