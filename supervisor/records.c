/*
 * records.c — what the run directory remembers, so that no accepted job is lost or renamed:
 *
 *   tokens/<token>      the client id a submit token became; the arena record names in/<token>,
 *                       so a token lost to a crash or a full disk is rebuilt from the record
 *   results/<job>.json  written (fsync'ed) before the arena record is freed
 *   ids                 job ids never repeat for the life of the run directory: a created or
 *                       re-attached arena's next id is raised above every id on disk
 *                       (results/, cancel/, tokens/, a migration plan)
 *   migrate/<group>.json  the accepted jobs of an arena being re-created with another shape
 *                       (written before the old arena is destroyed, removed once every job
 *                       is in the new one: a crash in between resumes it)
 *
 * Temporaries (*.tmp.<pid>) a crash left are removed at start.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sup.h"
#include "config.h"
#include "files.h"
#include "rundir.h"
#include "sys.h"
#include "zp_err.h"
#include "zp_file.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

static const char *WHO = "supervisor";

void sup_debug_point(struct sup *sup, const char *name)
{
	if (!sup->cfg.crash_at[0] || strcmp(sup->cfg.crash_at, name))
		return;
	zp_log(WHO, "[debug] crash_at = %s: SIGKILL", name);
	kill(getpid(), SIGKILL);
}

/* ---------------------------------------------------------------- tokens */
bool sup_is_manifest(struct sup *sup, const char *path)
{
	char pre[PATH_MAX];
	zp_pipe_path(pre, sizeof pre, &sup->cfg, "in/");
	size_t l = strlen(pre);
	return !strncmp(path, pre, l) && path[l] && !strchr(path + l, '/');
}

static const char *token_of(struct sup *sup, const struct zp_arena_job *r)
{
	return sup_is_manifest(sup, r->inputs) ? strrchr(r->inputs, '/') + 1 : NULL;
}

long long sup_cluster_job(struct sup *sup, const struct zp_arena_job *r)
{
	const char *t = sup->cfg.cluster.database[0] ? token_of(sup, r) : NULL;
	long long id = 0, ep = 0;
	int n = 0;
	if (!t || sscanf(t, "c%llde%lld%n", &id, &ep, &n) != 2 || t[n] || id <= 0)
		return 0;
	return id;
}

static int read_u64_file(const char *path, uint64_t *v)
{
	*v = 0;
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	unsigned long long x = 0;
	int got = fscanf(f, "%llu", &x);
	fclose(f);
	*v = x;
	return got == 1 ? 0 : -EINVAL;
}

int sup_token_ensure(struct sup *sup, unsigned g, const struct zp_arena_job *r)
{
	const char *tok = token_of(sup, r);
	char path[PATH_MAX], txt[32];
	uint64_t have;
	if (!tok)
		return 0; /* not submitted through the API (libzkpipe-supraseal): no token */
	zp_pipe_path(path, sizeof path, &sup->cfg, "tokens/%s", tok);
	uint64_t cid = zp_job_client_id(g, r->id);
	if (read_u64_file(path, &have) == 0 && have == cid)
		return 0;
	int n = snprintf(txt, sizeof txt, "%llu\n", (unsigned long long)cid);
	return zp_file_write_atomic(path, txt, (size_t)n, NULL);
}

/* The live arena record (any group) whose manifest is in/<tok>. */
static bool record_of_token(struct sup *sup, const char *tok, unsigned *gout, uint32_t *jout)
{
	for (unsigned g = 0; g < sup->cfg.n_groups; g++) {
		struct zp_arena *a = sup->g[g].a;
		for (uint32_t j = 0; a && j < zp_arena_hdr(a)->job_count; j++) {
			const struct zp_arena_job *r = zp_arena_job_rec(a, j);
			unsigned st = zp_word_state(zp_arena_load64(&r->word));
			const char *t = token_of(sup, r);
			if (st >= ZP_JOB_ACTIVE && st <= ZP_JOB_FAILED && t && !strcmp(t, tok)) {
				*gout = g, *jout = j;
				return true;
			}
		}
	}
	return false;
}

int sup_token_lookup(struct sup *sup, const char *tok, uint64_t *cid)
{
	char path[PATH_MAX];
	zp_pipe_path(path, sizeof path, &sup->cfg, "tokens/%s", tok);
	if (read_u64_file(path, cid) == 0)
		return 1;
	unsigned g;
	uint32_t j;
	if (!record_of_token(sup, tok, &g, &j))
		return 0;
	const struct zp_arena_job *r = zp_arena_job_rec(sup->g[g].a, j);
	*cid = zp_job_client_id(g, r->id);
	if (sup_token_ensure(sup, g, r))
		zp_log(WHO, "token %s: %s", tok, zp_err_msg());
	return 1;
}

/* ---------------------------------------------------------------- output directories */
void sup_missing_from(const char *path, char *made)
{
	char p[PATH_MAX];
	struct stat st;
	made[0] = 0;
	if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p)
		return;
	/* walk up while missing: the last missing one is the highest a mkdir -p would create */
	while (p[0] && lstat(p, &st) != 0) {
		snprintf(made, PATH_MAX, "%s", p);
		char *s = strrchr(p, '/');
		if (!s || s == p)
			break;
		*s = 0;
	}
}

void sup_mkdirs_undo(const char *path, const char *made)
{
	if (!made[0])
		return;
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s", path);
	size_t stop = strlen(made);
	/* rmdir only empties; a directory someone filled meanwhile stays */
	while (strlen(p) >= stop) {
		if (rmdir(p) && errno != ENOENT) /* ENOENT: a mkdir -p that stopped half-way */
			break;
		char *s = strrchr(p, '/');
		if (!s || s == p)
			break;
		*s = 0;
	}
	zp_file_fsync_parent(made);
}

/* ---------------------------------------------------------------- ids on disk */
struct idmax { unsigned g; uint64_t max; };

static void id_seen(struct idmax *m, uint64_t cid)
{
	if ((cid & 0xff) == m->g && (cid >> 8) > m->max)
		m->max = cid >> 8;
}

static int id_from_name(const char *dir, const char *name, void *ctx)
{
	(void)dir;
	char *end;
	unsigned long long cid = strtoull(name, &end, 10);
	if (end != name && (!*end || !strcmp(end, ".json")))
		id_seen(ctx, cid);
	return 0;
}

static int id_from_token(const char *dir, const char *name, void *ctx)
{
	char p[PATH_MAX];
	uint64_t cid;
	snprintf(p, sizeof p, "%s/%s", dir, name);
	if (!strstr(name, ".tmp.") && read_u64_file(p, &cid) == 0)
		id_seen(ctx, cid);
	return 0;
}

/* The highest arena id group g has ever handed out, as far as the run directory knows. */
static uint64_t ids_on_disk(struct sup *sup, unsigned g)
{
	struct idmax m = { g, 0 };
	zp_pipe_each(&sup->cfg, "results", id_from_name, &m);
	zp_pipe_each(&sup->cfg, "cancel", id_from_name, &m);
	zp_pipe_each(&sup->cfg, "tokens", id_from_token, &m);
	return m.max;
}

/* ---------------------------------------------------------------- reshape */
static void diff_one(char *buf, size_t n, const char *key, uint64_t have, uint64_t want, uint64_t unit,
		     const char *suffix)
{
	size_t l = strlen(buf);
	if (have != want)
		snprintf(buf + l, n - l, "%s%s %llu%s -> %llu%s", l ? ", " : "", key, (unsigned long long)(have / unit),
			 suffix, (unsigned long long)(want / unit), suffix);
}

/* "slots 4 -> 6, slot_size 2M -> 4M": the config's words, so the operator sees what changed */
static void shape_diff(const struct zp_arena_hdr *h, const struct zp_arena_params *p, char *buf, size_t n)
{
	uint64_t want_slot = (p->slot_size + ZP_ARENA_ALIGN - 1) / ZP_ARENA_ALIGN * ZP_ARENA_ALIGN;
	buf[0] = 0;
	diff_one(buf, n, "slots", h->slot_count, p->slot_count, 1, "");
	diff_one(buf, n, "slot_size", h->slot_size, want_slot, 1u << 20, "M");
	diff_one(buf, n, "jobs", h->job_count, p->job_count, 1, "");
	diff_one(buf, n, "max_parts", h->max_parts, p->max_parts, 1, "");
	diff_one(buf, n, "process entries (synth_workers + gpus + 8)", h->proc_count, p->proc_count, 1, "");
}

/* ---------------------------------------------------------------- started-by-us records
 * procs/<group>.<role>.<i> in the run directory (0700, this uid's): "<pid> <start time>" of the daemon
 * this service last started in that place, written right after its fork. A later supervisor adopts a
 * process only if such a record names it (and /proc says the same process, of our uid): the arena's
 * process table, which other processes write, is never a reason to adopt, signal or kill a pid. */
static void proc_record_path(struct sup *sup, unsigned g, enum zp_role role, unsigned idx, char *p, size_t n)
{
	zp_pipe_path(p, n, &sup->cfg, "procs/%s.%s.%u", sup->cfg.groups[g].name, zp_role_name(role), idx);
}

void sup_proc_record(struct sup *sup, unsigned g, enum zp_role role, unsigned idx, pid_t pid)
{
	char p[PATH_MAX], line[64];
	proc_record_path(sup, g, role, idx, p, sizeof p);
	int n = snprintf(line, sizeof line, "%d %llu\n", (int)pid, (unsigned long long)zp_proc_start_time(pid));
	if (zp_file_write_atomic(p, line, (size_t)n, NULL))
		zp_log(WHO, "%s: %s (a restarted supervisor will not adopt pid %d)", p, zp_err_msg(), (int)pid);
}

bool sup_proc_started(struct sup *sup, unsigned g, enum zp_role role, unsigned idx, pid_t pid, uint64_t st)
{
	char p[PATH_MAX], line[64];
	if ((role != ZP_ROLE_SYNTHD && role != ZP_ROLE_GPUD) || pid <= 0 || !st)
		return false;
	proc_record_path(sup, g, role, idx, p, sizeof p);
	int fd = open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat fs;
	ssize_t n = fstat(fd, &fs) == 0 && S_ISREG(fs.st_mode) && fs.st_uid == geteuid() ? read(fd, line, sizeof line - 1) : -1;
	close(fd);
	if (n <= 0)
		return false;
	line[n] = 0;
	int rp;
	unsigned long long rst;
	if (sscanf(line, "%d %llu", &rp, &rst) != 2 || rp != pid || rst != st)
		return false;
	char pp[64];
	struct stat ps;
	snprintf(pp, sizeof pp, "/proc/%d", (int)pid);
	return stat(pp, &ps) == 0 && ps.st_uid == geteuid() && zp_proc_start_time(pid) == st;
}

/* SIGTERM (then SIGKILL after stop_timeout_s) the daemons still registered in the old arena, so that
 * nothing works on it while its jobs move. A live process of another role refuses. */
static int stop_old_daemons(struct sup *sup, unsigned g, struct zp_arena *a, char *why, size_t n)
{
	const struct zp_arena_hdr *h = zp_arena_hdr(a);
	uint64_t t0 = zp_mono_ms();
	unsigned logged = 0;
	for (;;) {
		unsigned live = 0;
		bool hard = zp_mono_ms() - t0 > 1000ull * sup->cfg.stop_timeout_s;
		for (uint32_t i = 0; i < h->proc_count; i++) {
			const struct zp_arena_proc *p = zp_arena_proc_rec(a, i);
			if (zp_word_state(zp_arena_load64(&p->word)) != ZP_PROC_ALIVE ||
			    zp_arena_proc_alive(a, i) != 1 || p->pid == getpid())
				continue;
			if (p->role != ZP_ROLE_SYNTHD && p->role != ZP_ROLE_GPUD) {
				snprintf(why, n, "pid %d (%s) still uses the arena", p->pid, p->name);
				return -EBUSY;
			}
			const char *dot = strchr(p->name, '.');
			if (!sup_proc_started(sup, g, (enum zp_role)p->role, dot ? (unsigned)strtoul(dot + 1, NULL, 10) : ~0u,
					      p->pid, p->start_time))
				continue; /* not one this service started (its run directory has no record): never signalled */
			if (!live++ && !logged++)
				zp_log(WHO, "stopping the old arena's daemons");
			kill(p->pid, hard ? SIGKILL : SIGTERM);
		}
		if (!live)
			break;
		usleep(50000);
	}
	zp_arena_reclaim_dead(a);
	return 0;
}

static int json_file_write(const char *path, json_t *js)
{
	char *txt = json_dumps(js, JSON_COMPACT);
	int r = txt ? zp_file_write_atomic(path, txt, strlen(txt), NULL) : zp_err_set(-ENOMEM, "%s", path);
	free(txt);
	return r;
}

static void plan_path(struct sup *sup, char *buf, size_t n, unsigned g)
{
	zp_pipe_path(buf, n, &sup->cfg, "migrate/%s.json", sup->cfg.groups[g].name);
}

/* The accepted jobs of the old arena as a plan; refusal reasons appended to why. */
static json_t *plan_jobs(struct sup *sup, struct zp_arena *a, unsigned g, const struct zp_arena_params *p, char *why, size_t n)
{
	json_t *jobs = json_array();
	const struct zp_arena_hdr *h = zp_arena_hdr(a);
	unsigned active = 0;
	for (uint32_t j = 0; j < h->job_count; j++) {
		const struct zp_arena_job *r = zp_arena_job_rec(a, j);
		if (zp_word_state(zp_arena_load64(&r->word)) != ZP_JOB_ACTIVE)
			continue;
		uint64_t cid = zp_job_client_id(g, r->id);
		active++;
		if (r->nparts > p->max_parts)
			snprintf(why + strlen(why), n - strlen(why), "; job %llu has %u partitions (new max_parts %u)",
				 (unsigned long long)cid, r->nparts, p->max_parts);
		if (r->flags & ZP_JOB_EXTERNAL)
			snprintf(why + strlen(why), n - strlen(why), "; job %llu is filled by its submitter's process",
				 (unsigned long long)cid);
		if (!zp_pipe_key_find(&sup->cfg, r->key_id))
			snprintf(why + strlen(why), n - strlen(why), "; job %llu's key %s is no longer configured",
				 (unsigned long long)cid, r->key_id);
		json_t *done = json_array();
		for (uint32_t q = 0; q < r->nparts; q++) {
			uint64_t w = zp_arena_load64(&zp_arena_part_rec(a, j, q)->word);
			json_array_append_new(done, json_boolean(zp_word_state(w) == ZP_PART_DONE));
		}
		json_array_append_new(jobs, json_pack("{s:I, s:s, s:i, s:i, s:s, s:s, s:o}", "id", (json_int_t)r->id,
			"key", r->key_id, "nparts", (int)r->nparts, "priority", (int)r->priority, "inputs", r->inputs,
			"output", r->output, "done", done));
	}
	if (active > p->job_count)
		snprintf(why + strlen(why), n - strlen(why), "; %u accepted jobs, new jobs = %u", active, p->job_count);
	return jobs;
}

static int refuse(struct sup *sup, unsigned g, const char *name, const char *diff, const char *why, unsigned njobs)
{
	const char *gn = sup->cfg.groups[g].name;
	return zp_err_set(ZP_EMISMATCH, "group %s: arena %s: the config's shape cannot be applied (%s)%s. To resolve: "
			  "restore the old values in [group %s] of %s and restart (the accepted jobs finish), then "
			  "change them again; or drop the %u accepted job(s): zkpipe-shm --remove %s (once the old daemons "
			  "have exited, orphan_timeout_s after their supervisor)",
			  gn, name, diff, why, gn, sup->cfg.path, njobs, name);
}

/*
 * The config's shape differs from the arena's: check that its accepted jobs fit the new
 * shape (else refuse, touching nothing), stop the old arena's daemons, record its finished
 * jobs, write the accepted ones to migrate/<group>.json, destroy it, create the new one.
 * The plan is applied by migrate_resume (the same path a crash takes).
 */
static int reshape(struct sup *sup, unsigned g, const struct zp_arena_params *p, struct zp_arena **out)
{
	struct zp_arena *old;
	struct zp_arena_shape any = { 0 };
	int r = zp_arena_attach(p->name, 0, &any, p->hugetlbfs_dir, &old);
	if (r)
		return zp_err_wrap(r, "arena %s", p->name);
	char diff[256], why[1024] = "", plan[PATH_MAX];
	shape_diff(zp_arena_hdr(old), p, diff, sizeof diff);
	json_t *jobs = plan_jobs(sup, old, g, p, why, sizeof why); /* a first look, daemons still running */
	unsigned njobs = (unsigned)json_array_size(jobs);
	json_decref(jobs);
	if (!why[0]) {
		zp_log(WHO, "group %s: arena %s has another shape than the config (%s): re-creating it, keeping its jobs",
		       sup->cfg.groups[g].name, p->name, diff);
		if (stop_old_daemons(sup, g, old, why + 2, sizeof why - 2))
			memcpy(why, "; ", 2);
	}
	for (uint32_t j = 0; !why[0] && j < zp_arena_hdr(old)->job_count; j++)
		if ((r = sup_finish_job(sup, old, g, j, true)) && r != -EAGAIN)
			snprintf(why + strlen(why), sizeof why - strlen(why), "; job %llu's record cannot be written (%s)",
				 (unsigned long long)zp_job_client_id(g, zp_arena_job_rec(old, j)->id), zp_err_msg());
	jobs = why[0] ? NULL : plan_jobs(sup, old, g, p, why, sizeof why);
	if (why[0]) {
		json_decref(jobs);
		zp_arena_close(old);
		return refuse(sup, g, p->name, diff, why, njobs);
	}
	njobs = (unsigned)json_array_size(jobs);
	json_t *pl = json_pack("{s:s, s:o}", "arena", p->name, "jobs", jobs);
	plan_path(sup, plan, sizeof plan, g);
	r = njobs ? json_file_write(plan, pl) : 0;
	json_decref(pl);
	if (r) {
		zp_arena_close(old);
		return zp_err_wrap(r, "group %s: migration plan", sup->cfg.groups[g].name);
	}
	sup_debug_point(sup, "reshape-after-plan");
	zp_arena_close(old);
	zp_arena_destroy(p->name, p->hugetlbfs_dir);
	zp_log(WHO, "group %s: arena %s destroyed (%s); %u accepted job(s) move to the new one", sup->cfg.groups[g].name,
	       p->name, diff, njobs);
	sup_debug_point(sup, "reshape-after-destroy"); /* the next start creates the arena and resumes the plan */
	return zp_arena_create(p, out);
}

/* Apply migrate/<group>.json (left by reshape, or by a crash during it), then remove it. */
static int migrate_resume(struct sup *sup, unsigned g)
{
	char plan[PATH_MAX];
	plan_path(sup, plan, sizeof plan, g);
	json_error_t e;
	char *txt = NULL;
	int rr = zp_file_read(AT_FDCWD, plan, O_NOFOLLOW, ZP_FILE_JSON_MAX, &txt, NULL);
	if (rr)
		return rr == -ENOENT ? (zp_err_clear(), 0) : rr; /* none: nothing to resume */
	json_t *pl = json_loads(txt, 0, &e);
	free(txt);
	if (!pl)
		return zp_err_set(ZP_EFORMAT, "%s: %s", plan, e.text);
	struct zp_arena *a = sup->g[g].a;
	size_t i;
	json_t *jb;
	int bad = 0;
	json_array_foreach(json_object_get(pl, "jobs"), i, jb) {
		uint64_t id = (uint64_t)json_integer_value(json_object_get(jb, "id"));
		zp_job_h h;
		if (zp_arena_find_job(a, id, &h) == 0)
			continue;
		json_t *dj = json_object_get(jb, "done");
		uint8_t done[1024] = { 0 };
		unsigned nd = 0;
		for (size_t q = 0; q < json_array_size(dj) && q < sizeof done; q++)
			nd += done[q] = json_is_true(json_array_get(dj, q));
		struct zp_job_spec spec = {
			.key_id = json_string_value(json_object_get(jb, "key")),
			.nparts = (uint32_t)json_integer_value(json_object_get(jb, "nparts")),
			.priority = (uint32_t)json_integer_value(json_object_get(jb, "priority")),
			.inputs = json_string_value(json_object_get(jb, "inputs")),
			.output = json_string_value(json_object_get(jb, "output")), .id = id, .done = done };
		int r = zp_arena_submit_job(a, &spec, &h, NULL);
		uint64_t cid = zp_job_client_id(g, id);
		if (r) {
			zp_log(WHO, "group %s: job %llu could not be migrated: %s", sup->cfg.groups[g].name,
			       (unsigned long long)cid, zp_err_text(r));
			bad = r;
			continue;
		}
		zp_log(WHO, "group %s: migrated job %llu (%u partitions, %u already proved) into the new arena",
		       sup->cfg.groups[g].name, (unsigned long long)cid, spec.nparts, nd);
	}
	json_decref(pl);
	if (bad)
		return zp_err_set(bad, "group %s: migration incomplete (%s is kept)", sup->cfg.groups[g].name, plan);
	unlink(plan);
	zp_file_fsync_parent(plan);
	return 0;
}

int sup_arena_open(struct sup *sup, unsigned g, const struct zp_arena_params *p)
{
	struct zp_arena_shape shape = { .slot_count = p->slot_count, .slot_size = p->slot_size, .job_count = p->job_count,
					.max_parts = p->max_parts, .proc_count = p->proc_count };
	struct group *G = &sup->g[g];
	int r = zp_arena_attach(p->name, 0, &shape, p->hugetlbfs_dir, &G->a);
	if (r == ZP_EMISMATCH) {
		r = reshape(sup, g, p, &G->a);
		G->created = r == 0;
	} else if (r == -ENOENT) {
		r = zp_arena_create(p, &G->a);
		G->created = r == 0;
	}
	if (r)
		return r == ZP_EMISMATCH ? r : zp_err_wrap(r, "group %s: arena %s", sup->cfg.groups[g].name, p->name);
	uint64_t hw = ids_on_disk(sup, g);
	zp_arena_job_ids_from(G->a, hw + 1);
	if (hw && G->created)
		zp_log(WHO, "group %s: new arena; job ids continue after %llu (the run directory's highest)",
		       sup->cfg.groups[g].name, (unsigned long long)zp_job_client_id(g, hw));
	return migrate_resume(sup, g);
}

/* ---------------------------------------------------------------- start-up */
static int rm_tmp(const char *dir, const char *name, void *ctx)
{
	(void)ctx;
	char p[PATH_MAX];
	if (!strstr(name, ".tmp."))
		return 0;
	snprintf(p, sizeof p, "%s/%s", dir, name);
	if (unlink(p) == 0)
		zp_log(WHO, "removed stale %s", p);
	return 0;
}

/* <out>/<x>.tmp.<pid> of a writer that is gone (a live adopted gpud may be writing one). A
 * client's output is opened by the confined walk (a directory swapped for a symlink is not
 * swept); a libzkpipe-supraseal job's is the run directory's own. */
void sup_rm_output_tmps(struct sup *sup, const char *out, bool external)
{
	int fd = external ? open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : zp_out_open(&sup->cfg, out);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (fd >= 0 && !d)
		close(fd);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		const char *t = strstr(e->d_name, ".tmp.");
		char *end;
		long pid = t ? strtol(t + 5, &end, 10) : 0;
		if (pid > 0 && !*end && kill((pid_t)pid, 0) && errno == ESRCH && unlinkat(dirfd(d), e->d_name, 0) == 0)
			zp_log(WHO, "removed stale %s/%s", out, e->d_name);
	}
	if (d)
		closedir(d);
}

static int orphan_manifest(const char *dir, const char *name, void *sup)
{
	unsigned g;
	uint32_t j;
	char p[PATH_MAX];
	if (record_of_token(sup, name, &g, &j))
		return 0;
	snprintf(p, sizeof p, "%s/%s", dir, name);
	unlink(p); /* a submit that crashed before its arena record, or a freed job's */
	return 0;
}

/* A token whose job is neither in the (re-created) arena nor in results/ was accepted by an
 * arena that is gone: say so in its record instead of "unknown job". */
struct lost_ctx { struct sup *sup; unsigned g; };

static int lost_job(const char *dir, const char *name, void *ctx)
{
	struct sup *sup = ((struct lost_ctx *)ctx)->sup;
	unsigned g = ((struct lost_ctx *)ctx)->g;
	char p[PATH_MAX], res[PATH_MAX];
	uint64_t cid;
	zp_job_h h;
	snprintf(p, sizeof p, "%s/%s", dir, name);
	if (strstr(name, ".tmp.") || read_u64_file(p, &cid) || (cid & 0xff) != g ||
	    zp_arena_find_job(sup->g[g].a, cid >> 8, &h) == 0)
		return 0;
	zp_pipe_path(res, sizeof res, &sup->cfg, "results/%llu.json", (unsigned long long)cid);
	if (access(res, F_OK) == 0)
		return 0;
	/* what the record held is gone with the arena: the fields status prints, empty */
	json_t *js = json_pack("{s:b, s:I, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:[], s:s}", "ok", 1, "job",
			       (json_int_t)cid, "group", sup->cfg.groups[g].name, "state", "FAILED", "token", name, "key", "",
			       "parts", 0, "done", 0, "failed", 0, "output", "", "partitions", "error",
			       "lost: its arena was re-created (removed while the supervisor was down) before it finished");
	if (sup_record_write(sup, cid, js) == 0)
		zp_log(WHO, "job %llu (token %s) was lost with its arena: recorded FAILED", (unsigned long long)cid, name);
	json_decref(js);
	return 0;
}

void sup_records_start(struct sup *sup)
{
	static const char *const sub[] = { "", "in", "results", "tokens", "cancel", "migrate" };
	for (unsigned i = 0; i < sizeof sub / sizeof *sub; i++)
		zp_pipe_each(&sup->cfg, sub[i], rm_tmp, NULL);
	for (unsigned g = 0; g < sup->cfg.n_groups; g++) {
		struct zp_arena *a = sup->g[g].a;
		for (uint32_t j = 0; j < zp_arena_hdr(a)->job_count; j++) {
			const struct zp_arena_job *r = zp_arena_job_rec(a, j);
			unsigned st = zp_word_state(zp_arena_load64(&r->word));
			if (st < ZP_JOB_ACTIVE || st > ZP_JOB_FAILED)
				continue;
			sup_rm_output_tmps(sup, r->output, r->flags & ZP_JOB_EXTERNAL);
			if (sup_token_ensure(sup, g, r)) /* a crash between submit and its token */
				zp_log(WHO, "%s", zp_err_msg());
		}
		if (sup->g[g].created)
			zp_pipe_each(&sup->cfg, "tokens", lost_job, &(struct lost_ctx){ sup, g });
	}
	zp_pipe_each(&sup->cfg, "in", orphan_manifest, sup);
}

void sup_drop_jobs(struct sup *sup, unsigned g)
{
	struct zp_arena *a = sup->g[g].a;
	for (uint32_t j = 0; j < zp_arena_hdr(a)->job_count; j++) {
		const struct zp_arena_job *r = zp_arena_job_rec(a, j);
		unsigned st = zp_word_state(zp_arena_load64(&r->word));
		uint64_t cid = zp_job_client_id(g, r->id);
		if (st == ZP_JOB_DONE || st == ZP_JOB_FAILED) /* still here: its record could not be written */
			zp_log(WHO, "WARNING: job %llu (%s) is lost with the arena (keep_arena = no): its record could "
			       "not be written to results/", (unsigned long long)cid, zp_job_state_name(st));
		if (st != ZP_JOB_ACTIVE)
			continue;
		json_t *js = sup_job_json(sup, a, g, j);
		json_object_set_new(js, "state", json_string("FAILED"));
		json_object_set_new(js, "error", json_string("dropped: the supervisor stopped with keep_arena = no "
							     "before the job finished"));
		zp_log(WHO, "WARNING: job %llu dropped unfinished (keep_arena = no): recorded FAILED%s",
		       (unsigned long long)cid, sup_token_ensure(sup, g, r) || sup_record_write(sup, cid, js) ? " -- NOT recorded" : "");
		json_decref(js);
	}
}
