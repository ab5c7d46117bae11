/*
 * jobs.c — the client API (submit, status, cancel; `wait` is a client-side status loop),
 * request validation, and the scan that records finished jobs and frees their records.
 *
 * Requests and replies are JSON objects: {"op": "submit" | "status" | "cancel", ...};
 * every reply has "ok" and, when not ok, "error" (one sentence naming the field at fault).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sup.h"
#include "config.h"
#include "files.h"
#include "hint.h"
#include "paths.h"
#include "r1cs.h"
#include "rundir.h"
#include "sys.h"
#include "synth.h"
#include "wtns.h"
#include "zkey.h"
#include "zp_err.h"
#include "zp_file.h"

/* ---------------------------------------------------------------- job records */
void *sup_job_json(struct sup *sup, struct zp_arena *a, unsigned g, uint32_t j)
{
	const struct zp_arena_job *r = zp_arena_job_rec(a, j);
	uint64_t w = zp_arena_load64(&r->word);
	json_t *parts = json_array();
	for (uint32_t p = 0; p < r->nparts; p++) {
		const struct zp_arena_part *pr = zp_arena_part_rec(a, j, p);
		uint64_t pw = zp_arena_load64(&pr->word);
		json_t *ts = json_object();
		for (unsigned s = 0; s < ZP_TS_COUNT; s++) {
			uint64_t t = zp_arena_load64(&pr->ts[s]);
			if (t)
				json_object_set_new(ts, zp_stage_name(s), json_integer((json_int_t)t));
		}
		json_array_append_new(parts, json_pack("{s:s, s:i, s:o}", "state", zp_part_state_name(zp_word_state(pw)),
						       "attempts", (int)zp_part_attempts(pw), "ts", ts));
	}
	json_t *o = json_pack("{s:b, s:I, s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:s, s:s, s:I, s:I, s:o}", "ok", 1,
			 "job", (json_int_t)zp_job_client_id(g, r->id), "group", sup->cfg.groups[g].name,
			 "state", zp_job_state_name(zp_word_state(w)), "key", r->key_id, "parts", (int)r->nparts,
			 "done", (int)zp_arena_load32(&r->parts_done),
			 "failed", (int)zp_arena_load32(&r->parts_failed), "priority", (int)r->priority,
			 "output", r->output, "error", r->error, "submit_ns", (json_int_t)r->submit_ns,
			 "done_ns", (json_int_t)zp_arena_load64(&r->done_ns), "partitions", parts);
	long long cj = sup_cluster_job(sup, r);
	if (o && cj) /* results/<job>.json keeps it: the timeline and status of a finished job name it */
		json_object_set_new(o, "cluster_job", json_integer(cj));
	return o;
}
#define job_json(g, j) sup_job_json(sup, sup->g[g].a, g, j)

static void result_path(struct sup *sup, char *buf, size_t n, uint64_t cid)
{
	zp_pipe_path(buf, n, &sup->cfg, "results/%llu.json", (unsigned long long)cid);
}

/* A DONE job's proofs.json is there, or made now; 0, or the error (zp_err_msg) when it
 * cannot be written. The gpud that finished the last partition usually wrote it already. */
static int proofs_complete(struct sup *sup, const struct zp_arena_job *r, uint64_t cid)
{
	if (r->flags & ZP_JOB_EXTERNAL)
		return 0; /* libzkpipe-supraseal: its caller reads part-<p>.proof.bin itself; no proofs.json */
	if (zp_out_has(&sup->cfg, r->output, "proofs.json"))
		return 0;
	int e = zp_job_assemble(&sup->cfg, r->output, cid, r->key_id, r->nparts);
	return e && !zp_out_has(&sup->cfg, r->output, "proofs.json") ? e : 0; /* a gpud may have won the race */
}

/* A job's output: a client's directory under allow_output, reached by the confined walk
 * (paths.h); a libzkpipe-supraseal job's is the run directory's own (ss/), written by path. */
static bool out_has(struct sup *sup, const struct zp_arena_job *r, const char *name)
{
	char f[PATH_MAX + 32];
	snprintf(f, sizeof f, "%s/%s", r->output, name);
	return r->flags & ZP_JOB_EXTERNAL ? access(f, F_OK) == 0 : zp_out_has(&sup->cfg, r->output, name);
}

static int out_write(struct sup *sup, const struct zp_arena_job *r, const char *name, const void *buf, size_t len)
{
	char f[PATH_MAX + 32];
	snprintf(f, sizeof f, "%s/%s", r->output, name);
	return r->flags & ZP_JOB_EXTERNAL ? zp_file_write_atomic(f, buf, len, NULL) : zp_out_write(&sup->cfg, r->output, name, buf, len);
}

/* Disk trouble (full, read-only) repeats every scan: say it at most every 10 s. */
static bool warn_due(void)
{
	static uint64_t last;
	uint64_t now = zp_mono_ms();
	if (last && now - last < 10000)
		return false;
	last = now;
	return true;
}

int sup_record_write(struct sup *sup, uint64_t cid, void *js)
{
	char res[PATH_MAX];
	result_path(sup, res, sizeof res, cid);
	char *txt = json_dumps(js, JSON_COMPACT);
	int r = txt ? zp_file_write_atomic(res, txt, strlen(txt), NULL) : zp_err_set(-ENOMEM, "results");
	free(txt);
	return r;
}

/*
 * A finished job: complete its output (a DONE job whose proofs.json cannot be written
 * becomes FAILED with the reason), make its token and results/<job>.json durable, then
 * free its record (unless retain_s keeps it; `now` frees regardless). The record is
 * freed only once results/ holds it, so an accepted job always answers status. Returns
 * 0 when the results file is on disk.
 */
int sup_finish_job(struct sup *sup, struct zp_arena *a, unsigned g, uint32_t j, bool now)
{
	const struct zp_arena_job *r = zp_arena_job_rec(a, j);
	uint64_t w = zp_arena_load64(&r->word);
	if (zp_word_state(w) != ZP_JOB_DONE && zp_word_state(w) != ZP_JOB_FAILED)
		return -EAGAIN;
	zp_job_h h = { j, zp_word_gen(w) };
	uint64_t cid = zp_job_client_id(g, r->id);
	char res[PATH_MAX];
	result_path(sup, res, sizeof res, cid);
	if (access(res, F_OK) != 0) {
		zp_err_clear();
		if (zp_word_state(w) == ZP_JOB_DONE && proofs_complete(sup, r, cid)) {
			char why[ZP_ERRTXT_MAX];
			snprintf(why, sizeof why, "proofs.json not written: %s", zp_err_msg());
			if (zp_arena_job_fail_done(a, h, why) == 0)
				zp_log("supervisor", "job %llu: FAILED, %s", (unsigned long long)cid, why);
			w = zp_arena_load64(&r->word);
		}
		if (zp_word_state(w) == ZP_JOB_FAILED && !out_has(sup, r, "error.txt")) { /* best effort: results/ has it too */
			char msg[ZP_ERRTXT_MAX + 2];
			int n = snprintf(msg, sizeof msg, "%.*s\n", ZP_ERRTXT_MAX, r->error);
			if (out_write(sup, r, "error.txt", msg, (size_t)n))
				zp_log("supervisor", "job %llu: %s", (unsigned long long)cid, zp_err_msg());
		}
		json_t *js = sup_job_json(sup, a, g, j);
		int e = sup_token_ensure(sup, g, r);
		if (!e)
			e = sup_record_write(sup, cid, js);
		json_decref(js);
		if (e) {
			if (warn_due())
				zp_log("supervisor", "job %llu: %s; its arena record is kept until the record is written",
				       (unsigned long long)cid, zp_err_msg());
			return e;
		}
		sup_observe_job(sup, a, g, j); /* once per job: its record is on disk now, later scans skip it */
		char cj[40] = "";
		if (sup_cluster_job(sup, r))
			snprintf(cj, sizeof cj, " (cluster job %lld)", sup_cluster_job(sup, r));
		zp_log("supervisor", "job %llu%s %s%s%.*s", (unsigned long long)cid, cj, zp_job_state_name(zp_word_state(w)),
		       r->error[0] ? ": " : "", ZP_ERRTXT_MAX, r->error);
	}
	uint64_t done = zp_arena_load64(&r->done_ns);
	if (!now && zp_now_ns() < done + (uint64_t)sup->cfg.retain_s * 1000000000ull)
		return 0;
	char man[ZP_PATH_MAX], out[ZP_PATH_MAX];
	memcpy(man, r->inputs, sizeof man);
	memcpy(out, r->output, sizeof out);
	bool external = r->flags & ZP_JOB_EXTERNAL;
	/* -EBUSY: partitions still owned (a FAILED job's others in flight); the next scan retries */
	if (zp_arena_job_free(a, h) == 0) {
		if (sup_is_manifest(sup, man))
			unlink(man); /* the manifest is read only while the job is ACTIVE; tokens/ keeps the id */
		/* what a writer killed mid-write left (a SIGKILLed gpud's part-N.*.tmp.<pid>): no
		 * partition of the job is owned any more, so nobody alive finishes it */
		sup_rm_output_tmps(sup, out, external);
	}
	return 0;
}

void sup_scan_jobs(struct sup *sup)
{
	for (unsigned g = 0; g < sup->cfg.n_groups; g++) {
		struct zp_arena *a = sup->g[g].a;
		for (uint32_t j = 0; j < zp_arena_hdr(a)->job_count; j++)
			sup_finish_job(sup, a, g, j, false);
	}
}

/* ---------------------------------------------------------------- replies */
static char *reply(json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	return s;
}

static char *error_reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *error_reply(const char *fmt, ...)
{
	char m[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	return reply(json_pack("{s:b, s:s}", "ok", 0, "error", m));
}

/* An error a client acts on by its kind: "code" = unknown_job | key_failed | unknown_key (cmd_client.c's
 * exit codes). */
static char *error_reply_code(const char *code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *error_reply_code(const char *code, const char *fmt, ...)
{
	char m[ZP_ERR_MSG_MAX + 200]; /* "key K cannot be served: <the key's reason, whole>" */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	return reply(json_pack("{s:b, s:s, s:s}", "ok", 0, "error", m, "code", code));
}

/* ---------------------------------------------------------------- submit */
/* Wires the key's circuit has (the r1cs's nWires when configured: that is what synthd
 * evaluates; else the zkey's nVars), for a cheap witness check at submit. */
static int key_wires(struct sup *sup, const struct zp_pipe_key *k, uint32_t *n)
{
	zp_err_clear();
	if (k->synth[0]) {
		zp_synth_params sp;
		int r = zp_synth_parse(&sp, k->synth);
		*n = r ? 0 : zp_synth_n_vars(&sp);
		return r;
	}
	if (k->r1cs[0])
		return zp_r1cs_peek(k->r1cs, n, NULL);
	/* the key's header as validated at start (zkey or .zpk: a .zpk is no iden3 container) */
	for (unsigned i = 0; i < sup->cfg.n_keys; i++)
		if (&sup->cfg.keys[i] == k && sup->keys[i].valid)
			return *n = sup->keys[i].shape.n_vars, 0;
	zp_zkey z; /* nVars follows q, whose size says the curve: the header probe reads it for either */
	int r = zp_zkey_probe(&z, k->zkey);
	*n = r ? 0 : z.n_vars;
	return r;
}

/* The key's curve as validated at start (NULL when not known: the check is then synthd's). */
static const zp_curve *key_curve(struct sup *sup, const struct zp_pipe_key *k)
{
	for (unsigned i = 0; i < sup->cfg.n_keys; i++)
		if (&sup->cfg.keys[i] == k && sup->keys[i].valid)
			return sup->keys[i].shape.curve;
	return NULL;
}

static unsigned pending_parts(struct sup *sup, unsigned g)
{
	struct zp_arena *a = sup->g[g].a;
	unsigned n = 0;
	for (uint32_t j = 0; j < zp_arena_hdr(a)->job_count; j++) {
		const struct zp_arena_job *r = zp_arena_job_rec(a, j);
		if (zp_word_state(zp_arena_load64(&r->word)) == ZP_JOB_ACTIVE)
			n += r->nparts - zp_arena_load32(&r->parts_done);
	}
	return n;
}

/* A job that may still write into its output: ACTIVE, or FAILED with a partition still being
 * proved (its gpud writes the proof before it sees the job failed). */
static bool job_writes(struct zp_arena *a, uint32_t j)
{
	const struct zp_arena_job *r = zp_arena_job_rec(a, j);
	unsigned st = zp_word_state(zp_arena_load64(&r->word));
	if (st == ZP_JOB_ACTIVE)
		return true;
	for (uint32_t p = 0; st == ZP_JOB_FAILED && p < r->nparts; p++)
		if (zp_word_state(zp_arena_load64(&zp_arena_part_rec(a, j, p)->word)) == ZP_PART_PROVING)
			return true;
	return false;
}

/* Whether a job still writing (job_writes) has the directory canon names (opened as dfd): the
 * same canonical path, or the same directory reached another way (a bind mount), by st_dev/st_ino. */
static bool output_busy(struct sup *sup, const char *canon, int dfd)
{
	struct stat me;
	if (dfd >= 0 && fstat(dfd, &me))
		dfd = -1;
	for (unsigned g = 0; g < sup->cfg.n_groups; g++)
		for (uint32_t j = 0; j < zp_arena_hdr(sup->g[g].a)->job_count; j++) {
			const struct zp_arena_job *r = zp_arena_job_rec(sup->g[g].a, j);
			if (!job_writes(sup->g[g].a, j))
				continue;
			if (!strcmp(r->output, canon))
				return true;
			int o = dfd >= 0 ? zp_out_open(&sup->cfg, r->output) : -1;
			struct stat st;
			bool same = o >= 0 && !fstat(o, &st) && st.st_dev == me.st_dev && st.st_ino == me.st_ino;
			if (o >= 0)
				close(o);
			if (same)
				return true;
		}
	return false;
}

/* A synthetic key's partition: "synth:<witness seed>" (decimal or 0x hex, 64 bits). */
static bool synth_input_ok(const char *p)
{
	if (strncmp(p, "synth:", 6) || !p[6])
		return false;
	char *end;
	errno = 0;
	strtoull(p + 6, &end, 0);
	return !*end && !errno && p[6] != '-';
}

/* The first control character (< 0x20, 0x7f) in a path, 0 when none: refused in any path a request
 * names (a newline would split the manifest; the rest have no business in a file name). */
static unsigned control_char(const char *p)
{
	for (; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return (unsigned char)*p;
	return 0;
}

/* inputs[i] = p confined (canon gets the canonical path) and opened by the walk from its allowed
 * root, without blocking or following a symlink: *fd, or the error reply. */
static char *open_input(struct sup *sup, size_t i, const char *p, char *canon, int *fd)
{
	zp_err_clear();
	if (!sup->cfg.n_in)
		return error_reply("inputs[%zu]: no input directory is allowed ([run] allow_input is empty)", i);
	if (zp_path_allowed(sup->cfg.allow_in, sup->cfg.n_in, p, canon, false))
		return error_reply("inputs[%zu]: %s", i, zp_err_msg());
	*fd = zp_path_open_input(sup->cfg.allow_in, sup->cfg.n_in, canon);
	return *fd < 0 ? error_reply("inputs[%zu]: %s", i, zp_err_msg()) : NULL;
}

/* One witness file: confined, opened without blocking or following a symlink, a regular file,
 * and the header checks `zkpipe prove` makes (prover/wtns.h), reading only its header and w[0]. */
static char *check_wtns(struct sup *sup, size_t i, const char *p, const struct zp_pipe_key *k, uint32_t wires,
			char *canon)
{
	int fd = -1;
	char *err = open_input(sup, i, p, canon, &fd);
	if (err)
		return err;
	uint32_t nw = 0;
	const zp_curve *wc = NULL, *kc = key_curve(sup, k);
	int r = zp_wtns_check_fd_curve(fd, canon, &nw, &wc);
	close(fd);
	if (r)
		return error_reply("inputs[%zu]: %s", i, zp_err_msg());
	if (kc && wc != kc)
		return error_reply("inputs[%zu]: %s is a %s witness; key %s is a %s key: the curves differ", i, p, wc->name,
				   k->name, kc->name);
	if (nw != wires)
		return error_reply("inputs[%zu]: %s has %u values; key %s's circuit has %u wires", i, p, nw, k->name,
				   wires);
	return NULL;
}

static bool is_json(const char *p)
{
	size_t n = strlen(p);
	return n > 5 && !strcmp(p + n - 5, ".json");
}

/* input.json: the key has a generator; confined and opened like a witness (no blocking, no
 * symlink), a regular file of at most 64 MiB whose first non-blank byte (within its first 4 KiB)
 * is '{'. Bounded work on the supervisor's loop: one open, one fstat, one read of at most 4 KiB;
 * the file is parsed in full only by synthd (zp_json_scan before its generator runs), where a
 * malformed one fails its partition with the line and column. canon gets the manifest line: the
 * canonical path synthd opens by the same walk. */
static char *check_json_input(struct sup *sup, size_t i, const char *p, const struct zp_pipe_key *k, char *canon)
{
	if (!k->wasm[0] && !k->witness_bin[0])
		return error_reply("inputs[%zu]: %s is an input.json, but key %s names no witness generator "
				   "([key %s] wasm = or witness_bin =); give .wtns files", i, p, k->name, k->name);
	int fd = -1;
	char *err = open_input(sup, i, p, canon, &fd);
	if (err)
		return err;
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > (64 << 20)) {
		close(fd);
		return error_reply("inputs[%zu]: %s: not a regular file of at most 64 MiB", i, p);
	}
	char head[4096];
	ssize_t got = pread(fd, head, sizeof head, 0);
	int e = errno;
	close(fd);
	ssize_t at = 0;
	while (at < got && strchr(" \t\r\n", head[at]) && head[at])
		at++;
	if (got < 0)
		return error_reply("inputs[%zu]: %s: %s", i, p, strerror(e));
	if (at == got)
		return error_reply("inputs[%zu]: %s: not a JSON object (%s)", i, p,
				   got < (ssize_t)sizeof head ? "the file is empty or blank" : "no '{' in its first 4096 bytes");
	if (head[at] != '{')
		return error_reply("inputs[%zu]: %s: not a JSON object (the top level must be an object of signal names; "
				   "its first non-blank byte is 0x%02x at offset %zd)", i, p, (unsigned char)head[at], at);
	return NULL;
}

/* paths[i] = the manifest line: the canonical path (what synthd opens by the same walk). */
static char *check_inputs(struct sup *sup, json_t *inputs, const struct zp_pipe_key *k, uint32_t wires,
			  char (*paths)[PATH_MAX], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *p = json_string_value(json_array_get(inputs, i));
		if (!p)
			return error_reply("inputs[%zu]: not a string", i);
		if (control_char(p))
			return error_reply("inputs[%zu]: control character 0x%02x in the path", i, control_char(p));
		if (strlen(p) >= PATH_MAX - 1)
			return error_reply("inputs[%zu]: path longer than %d bytes", i, PATH_MAX - 2);
		if (k->synth[0]) { /* synthetic circuit: the witness is drawn by synthd from a seed */
			if (!synth_input_ok(p))
				return error_reply("inputs[%zu]: '%s': key %s is a synthetic circuit; its inputs are "
						   "\"synth:<witness seed>\" (a 64-bit integer)", i, p, k->name);
			snprintf(paths[i], PATH_MAX, "%s", p);
			continue;
		}
		if (is_json(p)) { /* an input.json: synthd runs the key's witness generator on it */
			char *err = check_json_input(sup, i, p, k, paths[i]);
			if (err)
				return err;
			continue;
		}
		char *err = check_wtns(sup, i, p, k, wires, paths[i]);
		if (err)
			return err;
	}
	return NULL;
}

/* A file a job writes into its output: proofs.json or error.txt, part-<p>.proof.json / .public.json /
 * .gpu.json. */
static bool job_file(const char *n)
{
	if (!strcmp(n, "proofs.json") || !strcmp(n, "error.txt"))
		return true;
	if (strncmp(n, "part-", 5) || !(n[5] >= '0' && n[5] <= '9'))
		return false;
	n += 5 + strspn(n + 5, "0123456789");
	return !strcmp(n, ".proof.json") || !strcmp(n, ".public.json") || !strcmp(n, ".gpu.json");
}

/* An earlier job's files in the output dfd (a finished job's: the busy ones are refused before):
 * without overwrite a refusal naming a few of them (a second job would mix its proofs with
 * theirs); with it they are removed (only those names: anything else there is the client's). */
static char *earlier_job_files(int dfd, const char *out, bool overwrite)
{
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return error_reply("output %s: %s", out, strerror(errno));
	}
	char names[200] = "";
	unsigned n = 0;
	int e = 0;
	for (struct dirent *de; (de = readdir(d));) {
		struct stat st; /* a job writes regular files (by rename: a symlink planted there is replaced, never followed) */
		if (!job_file(de->d_name) || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (overwrite) {
			if (unlinkat(dirfd(d), de->d_name, 0) && errno != ENOENT && !e)
				e = errno;
		} else if (n++ < 3)
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s%.60s", n > 1 ? ", " : "", de->d_name);
	}
	closedir(d);
	if (e)
		return error_reply("output %s: clearing the earlier job's files: %s", out, strerror(e));
	if (n)
		return error_reply("output %s holds an earlier job's files (%s%s): a second job would mix its proofs with "
				   "them; choose another directory, or overwrite (zkpipe submit --overwrite) to remove them first",
				   out, names, n > 3 ? ", ..." : "");
	return NULL;
}

/* The output directory: confined, resolved (canon is what the job records and every writer
 * walks to), not shared with an active job however it is spelled, created by the walk, holding
 * no earlier job's files (unless overwrite, which removes them). */
static char *check_output(struct sup *sup, const char *out, bool overwrite, char canon[PATH_MAX], char made[PATH_MAX])
{
	zp_err_clear();
	if (!sup->cfg.n_out)
		return error_reply("output: no output directory is allowed ([run] allow_output is empty)");
	if (control_char(out))
		return error_reply("output: control character 0x%02x in the path", control_char(out));
	if (zp_path_allowed(sup->cfg.allow_out, sup->cfg.n_out, out, canon, true))
		return error_reply("output: %s", zp_err_msg());
	if (strlen(canon) >= ZP_PATH_MAX)
		return error_reply("output: path longer than %d bytes", ZP_PATH_MAX - 1);
	if (output_busy(sup, canon, -1))
		return error_reply("output %s is in use by an active job", out);
	sup_missing_from(canon, made); /* a refused submit removes what it created (sup_mkdirs_undo) */
	int dfd = zp_path_open_dir(sup->cfg.allow_out, sup->cfg.n_out, canon, true, sup->cfg.public_access ? 0755 : 0700);
	if (dfd < 0)
		return error_reply("output: %s", zp_err_msg());
	bool busy = output_busy(sup, canon, dfd);
	char *err = busy ? error_reply("output %s is in use by an active job (the same directory as its output)", out)
			 : earlier_job_files(dfd, out, overwrite);
	close(dfd);
	return err;
}

static char *submit(struct sup *sup, json_t *req)
{
	const char *key = json_string_value(json_object_get(req, "key"));
	const char *out = json_string_value(json_object_get(req, "output"));
	const char *tok = json_string_value(json_object_get(req, "token"));
	json_t *inputs = json_object_get(req, "inputs");
	json_int_t prio = json_integer_value(json_object_get(req, "priority"));
	const struct zp_pipe_key *k = zp_pipe_key_find(&sup->cfg, key);
	if (!k) {
		char known[512] = "";
		for (unsigned i = 0; i < sup->cfg.n_keys; i++)
			snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", sup->cfg.keys[i].name);
		return error_reply_code("unknown_key", "unknown key '%s' (this supervisor serves: %s)", key, known);
	}
	/* a key that cannot be served refuses new jobs, after the token check below: a re-sent submit
	 * of a job accepted before the key failed still gets its job id (whose wait then ends) */
	char why[ZP_ERR_MSG_MAX + 128];
	const char *refused = sup_key_refusal(sup, key, why, sizeof why);
	if (!json_is_array(inputs) || !json_array_size(inputs))
		return error_reply("submit: \"inputs\" must be a non-empty array of witness paths");
	size_t n = json_array_size(inputs);
	int gbest = -1;
	unsigned serving = 0, most = 0;
	for (unsigned g = 0; g < sup->cfg.n_groups; g++) {
		if (!sup_group_serves(sup, g, key))
			continue; /* its slots cannot hold the key, or its gpuds were given up */
		serving++;
		most = sup->cfg.groups[g].max_parts > most ? sup->cfg.groups[g].max_parts : most;
		if (sup->cfg.groups[g].max_parts >= n && (gbest < 0 || pending_parts(sup, g) < pending_parts(sup, (unsigned)gbest)))
			gbest = (int)g;
	}
	if (!serving && !refused)
		refused = (snprintf(why, sizeof why, "key %s cannot be served: no group can prove it (its gpuds failed at "
				    "start, or its slots are too small; see zkpipe status)", key), why);
	if (gbest < 0 && !refused)
		return error_reply("too many partitions: %zu (the largest group serving key %s takes %u per job)", n, key,
				   most);
	if (!out)
		return error_reply("submit: \"output\" (a directory) is required");
	if (prio < 0 || prio > 1000000)
		return error_reply("submit: priority %lld out of range 0..1000000", (long long)prio);
	if (tok && !zp_token_ok(tok))
		return error_reply("submit: token must be 1-64 of [A-Za-z0-9_-]");
	char tbuf[ZP_TOKEN_MAX + 1];
	if (!tok) {
		int e = zp_token_random(tbuf, "");
		if (e)
			return error_reply("getrandom: %s", strerror(-e));
		tok = tbuf;
	}
	uint64_t dup_id;
	if (sup_token_lookup(sup, tok, &dup_id) == 1) /* a re-sent submit (REQ retries, client retries): the same job */
		return reply(json_pack("{s:b, s:I, s:b}", "ok", 1, "job", (json_int_t)dup_id, "duplicate", 1));
	if (refused)
		return error_reply_code("key_failed", "%s", refused);
	uint32_t wires = 0;
	if (key_wires(sup, k, &wires))
		return error_reply("key %s: %s", key, zp_err_msg());
	char (*paths)[PATH_MAX] = calloc(n, PATH_MAX);
	char *err = paths ? check_inputs(sup, inputs, k, wires, paths, n) : error_reply("out of memory");
	if (err) {
		free(paths);
		return err;
	}
	char canon[PATH_MAX], made[PATH_MAX] = ""; /* made: the first directory this submit created */
	err = check_output(sup, out, json_is_true(json_object_get(req, "overwrite")), canon, made);
	char man[PATH_MAX];
	if (!err && (zp_pipe_path(man, sizeof man, &sup->cfg, "in/%s", tok) || strlen(man) >= ZP_PATH_MAX))
		err = error_reply("run directory too long for a manifest path");
	const char **lines = err ? NULL : calloc(n, sizeof *lines);
	for (size_t i = 0; lines && i < n; i++)
		lines[i] = paths[i];
	if (!err && (!lines || zp_manifest_write(man, lines, (uint32_t)n)))
		err = error_reply("manifest: %s", lines ? zp_err_msg() : "out of memory");
	free(lines);
	free(paths);
	out = canon;
	unsigned g = (unsigned)gbest;
	zp_job_h h;
	uint64_t id;
	if (!err) {
		sup_debug_point(sup, "submit-after-manifest");
		struct zp_job_spec spec = { .key_id = key, .nparts = (uint32_t)n, .priority = (uint32_t)prio,
					    .inputs = man, .output = out };
		int r = zp_arena_submit_job(sup->g[g].a, &spec, &h, &id);
		if (r) {
			err = error_reply("group %s: %s; retry later", sup->cfg.groups[g].name,
					  zp_err_text(r));
			unlink(man);
			zp_file_fsync_parent(man);
		}
	}
	if (err) {
		sup_mkdirs_undo(canon, made); /* undone by canonical path: what the walk created */
		return err;
	}
	/* The arena record names in/<token>: a crash from here on leaves the token recoverable
	 * (sup_token_lookup, sup_records_start), so a retry finds this job, never a second one. */
	sup_debug_point(sup, "submit-before-token");
	uint64_t cid = zp_job_client_id(g, id);
	if (sup_cluster_job(sup, zp_arena_job_rec(sup->g[g].a, h.idx)))
		zp_log("supervisor", "job %llu: cluster job %lld (token %s), %u partition(s)", (unsigned long long)cid,
		       sup_cluster_job(sup, zp_arena_job_rec(sup->g[g].a, h.idx)), tok,
		       zp_arena_job_rec(sup->g[g].a, h.idx)->nparts);
	if (sup_token_ensure(sup, g, zp_arena_job_rec(sup->g[g].a, h.idx)))
		zp_log("supervisor", "job %llu: %s (kept in the arena record; written again before it is freed)",
		       (unsigned long long)cid, zp_err_msg());
	zp_hint_send(sup->g[g].pub, "job");
	return reply(json_pack("{s:b, s:I, s:s, s:s}", "ok", 1, "job", (json_int_t)cid, "group",
			       sup->cfg.groups[g].name, "token", tok));
}

/* ---------------------------------------------------------------- status, cancel */
static int find(struct sup *sup, uint64_t cid, unsigned *g, zp_job_h *h)
{
	*g = (unsigned)(cid & 0xff);
	if (*g >= sup->cfg.n_groups)
		return -ENOENT;
	return zp_arena_find_job(sup->g[*g].a, cid >> 8, h);
}

/* find, after recording a finished record first: DONE is said only once proofs.json is there
 * (the record may be freed by it: the answer then comes from results/). */
static int find_recorded(struct sup *sup, uint64_t cid, unsigned *g, zp_job_h *h)
{
	if (find(sup, cid, g, h) == 0)
		sup_finish_job(sup, sup->g[*g].a, *g, h->idx, false);
	return find(sup, cid, g, h);
}

static char *status_job(struct sup *sup, uint64_t cid)
{
	unsigned g;
	zp_job_h h;
	if (find_recorded(sup, cid, &g, &h) == 0) {
		json_t *j = job_json(g, h.idx);
		char why[ZP_ERR_MSG_MAX];
		const char *ks = sup_key_state(sup, json_string_value(json_object_get(j, "key")), why, sizeof why);
		json_object_set_new(j, "key_state", json_string(ks));
		json_object_set_new(j, "key_error", json_string(why));
		return reply(j);
	}
	char res[PATH_MAX];
	result_path(sup, res, sizeof res, cid);
	json_error_t e;
	char *txt = NULL;
	json_t *j = zp_file_read(AT_FDCWD, res, O_NOFOLLOW, ZP_FILE_JSON_MAX, &txt, NULL) ? NULL : json_loads(txt, 0, &e);
	free(txt);
	zp_err_clear(); /* an unknown job is the reply, not an error of ours */
	return j ? reply(j) : error_reply_code("unknown_job", "unknown job %llu", (unsigned long long)cid);
}

static char *cancel(struct sup *sup, uint64_t cid)
{
	unsigned g;
	zp_job_h h;
	if (find_recorded(sup, cid, &g, &h) != 0)
		return status_job(sup, cid); /* finished (its record) or unknown (the error) */
	int st = zp_arena_job_state(sup->g[g].a, h);
	if (st == ZP_JOB_ACTIVE) {
		char p[PATH_MAX];
		zp_pipe_path(p, sizeof p, &sup->cfg, "cancel/%llu", (unsigned long long)cid);
		int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (fd >= 0)
			close(fd);
		zp_hint_send(sup->g[g].pub, "job");
	}
	json_t *j = job_json(g, h.idx);
	json_object_set_new(j, "cancel_requested", json_boolean(st == ZP_JOB_ACTIVE));
	return reply(j);
}

void *sup_status_json(struct sup *sup)
{
	json_t *groups = json_array(), *procs = json_array();
	for (unsigned g = 0; g < sup->cfg.n_groups; g++) {
		struct zp_arena *a = sup->g[g].a;
		const struct zp_arena_hdr *h = zp_arena_hdr(a);
		unsigned slots[4] = { 0 }, jobs[5] = { 0 };
		for (uint32_t i = 0; i < h->slot_count; i++)
			slots[zp_word_state(zp_arena_load64(&zp_arena_slot_rec(a, i)->word)) & 3]++;
		for (uint32_t j = 0; j < h->job_count; j++) {
			unsigned s = zp_word_state(zp_arena_load64(&zp_arena_job_rec(a, j)->word));
			jobs[s < 5 ? s : 0]++;
		}
		json_t *cnt = json_object(), *sl = json_object(), *jb = json_object();
#define ZP_X(nm, help) json_object_set_new(cnt, #nm, json_integer((json_int_t)zp_arena_load64(&h->counters.nm)));
		ZP_ARENA_COUNTERS(ZP_X)
#undef ZP_X
		for (unsigned s = 0; s < 4; s++)
			json_object_set_new(sl, zp_slot_state_name(s), json_integer(slots[s]));
		for (unsigned s = 0; s < 5; s++)
			json_object_set_new(jb, zp_job_state_name(s), json_integer(jobs[s]));
		json_array_append_new(groups, json_pack("{s:s, s:s, s:s, s:i, s:I, s:I, s:I, s:o, s:o, s:o}", "name",
			sup->cfg.groups[g].name, "arena", h->name, "backing", zp_backing_name(h->backing),
			"node", sup->cfg.groups[g].node, "slot_count", (json_int_t)h->slot_count,
			"slot_size", (json_int_t)h->slot_size, "arena_bytes", (json_int_t)h->total_size,
			"slots", sl, "jobs", jb, "counters", cnt));
	}
	/* each group's gpuds: "serving" (all up and serving their keys), "starting", or "degraded" with the first
	 * reason (a gpud given up, one that serves no key, a key one of them failed) */
	char gwhy[ZP_PIPE_MAX_GROUPS][ZP_ERR_MSG_MAX + 128] = { { 0 } }; /* 9 KiB: the API and HTTP threads both ask */
	bool gstarting[ZP_PIPE_MAX_GROUPS] = { 0 };
	for (unsigned k = 0; k < sup->nch; k++) {
		const struct child *c = &sup->ch[k];
		json_array_append_new(procs, json_pack("{s:s, s:s, s:i, s:i, s:b, s:b, s:i, s:i, s:I}", "group",
			sup->cfg.groups[c->group].name, "role", sup_child_role(c), "index", (int)c->index,
			"pid", (int)c->pid, "alive", c->pid != 0, "adopted", c->pid && !c->ours,
			"restarts", (int)c->restarts, "oom_kills", (int)c->oom_kills,
			"peak_rss_kib", (json_int_t)c->peak_rss_kib));
		if (c->given_up) /* failed at start the same way SUP_GIVE_UP times: not restarted */
			json_object_update_new(json_array_get(procs, json_array_size(procs) - 1),
					       json_pack("{s:b, s:s}", "given_up", 1, "error", c->give_up_reason));
		const struct zp_pipe_group *gr = &sup->cfg.groups[c->group];
		if (c->role == ZP_ROLE_GPUD && c->index < gr->gpus) {
			json_t *o = json_array_get(procs, json_array_size(procs) - 1);
			json_object_set_new(o, "gpu", json_string(gr->gpu[c->index]));
			json_object_set_new(o, "gpu_ordinal", json_integer(gr->gpu_ordinal[c->index]));
			json_object_set_new(o, "numa_node", json_integer(gr->gpu_node[c->index]));
			json_object_set_new(o, "backend", json_string(gr->backend[0] ? gr->backend : "cpu"));
			/* per key, from its health file: where it came from (key region or file) and its device memory
			 * by use, so an operator sees whether a second key fits */
			json_t *h = c->pid ? zp_health_read(&sup->cfg, c->group, c->index, c->pid) : NULL;
			if (json_is_object(json_object_get(h, "keys")))
				json_object_set(o, "keys", json_object_get(h, "keys"));
			/* what it serves, and its device-memory cap ([group] gpu_memory; as gpud read it once it says so)
			 * and card: "gpu_memory": {cap (0 = the whole card), total (when its backend knows)} */
			static const char *const copy[] = { "stage", "serves", "failed", "parked" };
			for (unsigned i = 0; i < sizeof copy / sizeof *copy; i++)
				if (json_object_get(h, copy[i]))
					json_object_set(o, copy[i], json_object_get(h, copy[i]));
			json_t *hg = json_object_get(h, "gpu");
			json_t *cap = json_object_get(hg, "memory_cap_bytes"), *tot = json_object_get(hg, "memory_total_bytes");
			json_t *gm = json_pack("{s:I}", "cap", json_is_integer(cap) ? json_integer_value(cap) : (json_int_t)gr->gpu_memory);
			if (json_is_integer(tot))
				json_object_set(gm, "total", tot);
			json_object_set_new(o, "gpu_memory", gm);
			if (json_is_string(json_object_get(hg, "backend")))
				json_object_set(o, "backend", json_object_get(hg, "backend"));
			const char *stg = json_string_value(json_object_get(h, "stage"));
			char *why = gwhy[c->group];
			const size_t wn = sizeof gwhy[0];
			if (c->given_up && !why[0])
				snprintf(why, wn, "gpud.%u is not restarted: %s", c->index, c->give_up_reason);
			else if (stg && !strcmp(stg, "degraded") && !why[0])
				snprintf(why, wn, "gpud.%u %s", c->index, json_string_value(json_object_get(h, "error")));
			else if (!c->given_up && (!stg || (strcmp(stg, "ready") && strcmp(stg, "degraded"))))
				gstarting[c->group] = true;
			const char *kn;
			json_t *kv;
			json_object_foreach(json_object_get(h, "keys"), kn, kv)
				if (!why[0] && !strcmp(json_string_value(json_object_get(kv, "state")) ?: "", "failed"))
					snprintf(why, wn, "key %s failed on gpud.%u: %s", kn, c->index,
						 json_string_value(json_object_get(kv, "error")) ?: "");
			json_decref(h);
		} else {
			json_object_set_new(json_array_get(procs, json_array_size(procs) - 1), "numa_node",
					    json_integer(gr->node));
		}
	}
	for (unsigned g = 0; g < sup->cfg.n_groups; g++) {
		json_t *o = json_array_get(groups, g);
		json_object_set_new(o, "state", json_string(gwhy[g][0] ? "degraded" : gstarting[g] ? "starting" : "serving"));
		json_object_set_new(o, "error", json_string(gwhy[g]));
		json_object_set_new(o, "gpu_memory", json_integer((json_int_t)sup->cfg.groups[g].gpu_memory));
	}
	json_t *st = json_pack("{s:b, s:i, s:I, s:f, s:o, s:o, s:o}", "ok", 1, "pid", (int)getpid(), "peak_rss_kib",
			       (json_int_t)zp_proc_peak_rss_kib(getpid()), "uptime_s",
			       (double)(zp_now_ns() - sup->started_ns) / 1e9, "groups", groups, "processes", procs,
			       "keys", sup_keys_json(sup));
	sup_observe_status(sup, st);
	return st;
}

/* ---------------------------------------------------------------- request schema */
/* Every field a request may carry, its type and whether it is required: anything else, or a
 * field of another type, is refused naming the field, before the request is acted on. */
struct field {
	const char *name;
	json_type type;
	bool required;
};
struct op_schema {
	const char *op;
	const struct field *fields;
};
static const struct field submit_fields[] = { { "op", JSON_STRING, 1 }, { "key", JSON_STRING, 1 },
	{ "inputs", JSON_ARRAY, 1 }, { "output", JSON_STRING, 1 }, { "priority", JSON_INTEGER, 0 },
	{ "token", JSON_STRING, 0 }, { "overwrite", JSON_TRUE /* a boolean */, 0 }, { 0 } };
static const struct field status_fields[] = { { "op", JSON_STRING, 1 }, { "job", JSON_INTEGER, 0 }, { 0 } };
static const struct field cancel_fields[] = { { "op", JSON_STRING, 1 }, { "job", JSON_INTEGER, 1 }, { 0 } };
static const struct op_schema schemas[] = { { "submit", submit_fields }, { "status", status_fields },
					    { "cancel", cancel_fields } };

static const char *type_name(json_type t)
{
	switch (t) {
	case JSON_STRING: return "a string";
	case JSON_ARRAY: return "an array";
	case JSON_INTEGER: return "an integer";
	case JSON_OBJECT: return "an object";
	case JSON_TRUE: return "true or false";
	default: return "a JSON value of another type";
	}
}

static char *check_schema(json_t *j, const struct op_schema *sc)
{
	const char *k;
	json_t *v;
	json_object_foreach(j, k, v) {
		const struct field *f = sc->fields;
		while (f->name && strcmp(f->name, k))
			f++;
		if (!f->name)
			return error_reply("%s: unknown field \"%.64s\"", sc->op, k);
		if (json_typeof(v) != f->type && !(f->type == JSON_TRUE && json_is_boolean(v)))
			return error_reply("%s: \"%s\" must be %s", sc->op, k, type_name(f->type));
	}
	for (const struct field *f = sc->fields; f->name; f++)
		if (f->required && !json_object_get(j, f->name))
			return error_reply("%s: \"%s\" is required", sc->op, f->name);
	return NULL;
}

char *sup_api_handle(struct sup *sup, const char *req, size_t len)
{
	if (len > ZP_API_MAX_MSG)
		return error_reply("request of %zu bytes exceeds the %u-byte limit", len, ZP_API_MAX_MSG);
	json_error_t e;
	json_t *j = json_loadb(req, len, JSON_REJECT_DUPLICATES, &e);
	if (!j || !json_is_object(j)) {
		json_decref(j);
		return error_reply("request is not a JSON object%s%s", j ? "" : ": ", j ? "" : e.text);
	}
	json_t *jop = json_object_get(j, "op");
	const char *op = json_string_value(jop);
	const struct op_schema *sc = NULL;
	for (unsigned i = 0; op && i < sizeof schemas / sizeof *schemas; i++)
		if (!strcmp(op, schemas[i].op))
			sc = &schemas[i];
	char *r;
	if (!jop)
		r = error_reply("request without \"op\" (submit, status, cancel)");
	else if (!op)
		r = error_reply("\"op\" must be a string (submit, status, cancel)");
	else if (!sc)
		r = error_reply("unknown op '%.64s' (submit, status, cancel)", op);
	else if ((r = check_schema(j, sc)))
		;
	else if (!strcmp(op, "submit"))
		r = submit(sup, j);
	else {
		json_t *jid = json_object_get(j, "job");
		if (!strcmp(op, "status"))
			r = jid ? status_job(sup, (uint64_t)json_integer_value(jid)) : reply(sup_status_json(sup));
		else
			r = cancel(sup, (uint64_t)json_integer_value(jid));
	}
	json_decref(j);
	return r;
}
