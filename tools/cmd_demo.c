/*
 * cmd_demo.c — `zkpipe demo`: the whole pipeline on this machine in one command.
 *
 * Starts a supervisor on a temporary run directory (a small arena on whatever backing the
 * machine offers), submits a batch of jobs of the bundled circuit (examples/chain: 1000
 * constraints, 8 witnesses), shows progress live, verifies every proof, prints proofs per
 * second, each process's peak memory and the arena's counters, and shuts everything down.
 * --curve bn254 runs the same circuit on BN254 (examples/chain-bn254: circom --prime bn128, snarkjs's key);
 * the proofs are checked in the key's curve.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends.h"
#include "knobs.h"
#include "cmds.h"
#include "g16_json.h"
#include "groth16.h"
#include "config.h"
#include "sys.h"
#include "progress.h"
#include "zkey.h"
#include "zp_err.h"
#include "zp_file.h"

/* Paths here are built from PATH_MAX buffers; realpath/open report any that got cut. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

static const char demo_help[] =
	"usage: zkpipe demo [--jobs N] [--parts P] [--workers W] [--gpuds G] [--slots S] [--backend B] [--keep]\n"
	"  Runs supervisor + synthd x W + gpud x G on a temporary directory, proves\n"
	"  N jobs of P partitions of the bundled circuit, verifies every proof and reports.\n"
	"  --backend B      gpud's prover: cpu (default) or cuda (GPU i for gpud i; exit 8 without one)\n"
	"  --circuit DIR    circuit folder (chain.zkey, chain.r1cs, w*.wtns); default examples/chain\n"
	"  --curve C        bls12-381 (default: examples/chain) or bn254 (examples/chain-bn254, circom's bn128)\n"
	"  --keep           leave the temporary directory (logs, proofs, timeline.svg) in place\n";

struct demo {
	int jobs, parts, workers, gpuds, slots, keep;
	const char *backend, *example;   /* example: the bundled folder's name (chain | chain-bn254) */
	char circuit[PATH_MAX], self[PATH_MAX], tmp[PATH_MAX], url[ZP_PIPE_URL_MAX];
	pid_t sup;
	long long *ids;
};

static int find_file(char *out, const char *const *cands, int n)
{
	for (int i = 0; i < n; i++)
		if (cands[i] && realpath(cands[i], out) && access(out, R_OK) == 0)
			return 0;
	return -ENOENT;
}

static int locate(struct demo *d)
{
	char exe[PATH_MAX], a[PATH_MAX], b[PATH_MAX], c[PATH_MAX];
	ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[l > 0 ? l : 0] = 0;
	snprintf(d->self, sizeof d->self, "%s", dirname(exe));
	if (!d->circuit[0]) {
		char k[PATH_MAX];
		snprintf(a, sizeof a, "%s/../../examples/%s", d->self, d->example);
		snprintf(b, sizeof b, "%s/../share/zkpipe/examples/%s", d->self, d->example);
		/* the knob names examples/chain; the BN254 folder sits beside it */
		snprintf(k, sizeof k, "%s%s", zp_knobs()->examples ? zp_knobs()->examples : "",
			 strcmp(d->example, "chain") ? "-bn254" : "");
		const char *cands[] = { zp_knobs()->examples ? k : NULL, a, b };
		if (find_file(d->circuit, cands, 3))
			return fprintf(stderr, "zkpipe demo: cannot find examples/%s (give --circuit DIR)\n", d->example), -1;
	}
	snprintf(a, sizeof a, "%s/zkpipe-supervisor", d->self);
	snprintf(b, sizeof b, "%s/../supervisor/zkpipe-supervisor", d->self);
	const char *cands[] = { a, b };
	if (find_file(c, cands, 2))
		return fprintf(stderr, "zkpipe demo: cannot find zkpipe-supervisor next to %s\n", d->self), -1;
	snprintf(d->self, sizeof d->self, "%s", c); /* now: the supervisor binary */
	return 0;
}

static int write_config(struct demo *d, char *cfg)
{
	snprintf(cfg, PATH_MAX, "%s/zkpipe.ini", d->tmp);
	char *txt = NULL;
	int n = asprintf(&txt, "# written by zkpipe demo\n[run]\ndir = %s/run\nkeep_arena = no\nallow_input = %s\n"
			 "allow_output = %s/out\n\n[limits]\nmax_attempts = 3\n\n[key chain]\nzkey = %s/chain.zkey\n"
			 "r1cs = %s/chain.r1cs\n\n[group node0]\nnode = 0\ngpus = %d\nsynth_workers = %d\nslots = %d\n"
			 "slot_size = auto\njobs = 64\nmax_parts = %d\nsynth_threads = 1\nbackend = %s\n",
			 d->tmp, d->circuit, d->tmp, d->circuit, d->circuit, d->gpuds, d->workers, d->slots,
			 d->parts > 16 ? d->parts : 16, d->backend);
	if (n < 0)
		return -ENOMEM;
	int rc = zp_file_write_atomic(cfg, txt, (size_t)n, NULL);
	free(txt);
	if (rc)
		return rc;
	char out[PATH_MAX];
	snprintf(out, sizeof out, "%s/out", d->tmp);
	return mkdir(out, 0700) ? -errno : 0;
}

static pid_t start_supervisor(struct demo *d, const char *cfg)
{
	char log[PATH_MAX];
	snprintf(log, sizeof log, "%s/supervisor.log", d->tmp);
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd, 2);
		dup2(fd, 1);
		execl(d->self, d->self, "--config", cfg, (char *)NULL);
		_exit(127);
	}
	close(fd);
	return pid;
}

static int wait_up(struct demo *d)
{
	for (int i = 0; i < 200; i++) {
		json_t *req = json_pack("{s:s}", "op", "status"), *rep = zp_client_call(d->url, req, 500, 1);
		json_decref(req);
		if (rep)
			return json_decref(rep), 0;
		if (waitpid(d->sup, NULL, WNOHANG) == d->sup)
			break;
		usleep(50000);
	}
	fprintf(stderr, "zkpipe demo: the supervisor did not come up; see %s/supervisor.log\n", d->tmp);
	return -1;
}

static int submit_all(struct demo *d)
{
	for (int j = 0; j < d->jobs; j++) {
		json_t *in = json_array();
		char p[PATH_MAX + 16];
		for (int k = 0; k < d->parts; k++) {
			snprintf(p, sizeof p, "%s/w%d.wtns", d->circuit, (j * d->parts + k) % 8);
			json_array_append_new(in, json_string(p));
		}
		snprintf(p, sizeof p, "%s/out/job%d", d->tmp, j);
		json_t *req = json_pack("{s:s, s:s, s:o, s:s}", "op", "submit", "key", "chain", "inputs", in, "output", p);
		/* a token: the client's REQ socket re-sends a request unanswered after 1 s (pipeline/hint.c), and a
		 * loaded machine checking large witnesses takes longer: the re-sent submit is then the same job,
		 * not a refusal ("output ... in use by an active job") */
		char tok[64], *base = strrchr(d->tmp, '/');
		snprintf(tok, sizeof tok, "demo-%s-%d", base ? base + 1 : d->tmp, j);
		for (char *c = tok; *c; c++)
			if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-'))
				*c = '_';
		json_object_set_new(req, "token", json_string(tok));
		json_t *rep = zp_client_call(d->url, req, 5000, 0);
		json_decref(req);
		if (!rep)
			return -1;
		d->ids[j] = json_integer_value(json_object_get(rep, "job"));
		json_decref(rep);
	}
	return 0;
}

/* Live progress until every job is finished (common/progress.h on stdout: an updating line on
 * a terminal, a line a second otherwise); returns how many FAILED. */
static int progress(struct demo *d, json_t **last)
{
	int total = d->jobs * d->parts;
	long long shown = 0;
	if (!zp_knobs()->progress_s) {
		setenv("ZKPIPE_PROGRESS_S", "1", 1);
		zp_knobs_reload();   /* knobs are read once (common/knobs.h) */
	}
	zp_progress_begin("zkpipe demo", 1, NULL);
	zp_progress_stage("partitions proved", (uint64_t)total, "items");
	for (;;) {
		int finished = 0, failed = 0;
		for (int j = 0; j < d->jobs; j++) {
			json_t *req = json_pack("{s:s, s:I}", "op", "status", "job", (json_int_t)d->ids[j]);
			json_t *rep = zp_client_call(d->url, req, 2000, 1);
			json_decref(req);
			const char *st = rep ? json_string_value(json_object_get(rep, "state")) : "";
			finished += st && (!strcmp(st, "DONE") || !strcmp(st, "FAILED"));
			failed += st && !strcmp(st, "FAILED");
			json_decref(rep);
		}
		json_t *req = json_pack("{s:s}", "op", "status"), *s = zp_client_call(d->url, req, 2000, 1);
		json_decref(req);
		if (s) {
			json_decref(*last);
			*last = s;
			json_t *g = json_array_get(json_object_get(s, "groups"), 0), *sl = json_object_get(g, "slots");
			long long proved = json_integer_value(json_object_get(json_object_get(g, "counters"), "parts_proved"));
			char note[ZP_PROGRESS_NOTE_MAX];
			snprintf(note, sizeof note, "- jobs %d/%d, slots: %lld free %lld filling %lld ready %lld copying", finished,
				 d->jobs, json_integer_value(json_object_get(sl, "FREE")),
				 json_integer_value(json_object_get(sl, "FILLING")), json_integer_value(json_object_get(sl, "READY")),
				 json_integer_value(json_object_get(sl, "COPYING")));
			zp_progress_note(note);
			if (proved > shown) /* counted from 0, so the rate is this run's */
				zp_progress_add((uint64_t)(proved - shown)), shown = proved;
		}
		if (finished == d->jobs) {
			zp_progress_end(NULL);
			return failed;
		}
		if (waitpid(d->sup, NULL, WNOHANG) == d->sup) {
			fprintf(stderr, "\nzkpipe demo: the supervisor died; see %s/supervisor.log\n", d->tmp);
			return -1;
		}
		usleep(250000);
	}
}

static int verify_all(struct demo *d, int *valid)
{
	char p[PATH_MAX + 64];
	zp_zkey k;
	zp_g16_vk vk;
	snprintf(p, sizeof p, "%s/chain.zkey", d->circuit);
	int r = zp_zkey_read(&k, p);
	if (r || (r = zp_zkey_vk(&vk, &k)))
		return fprintf(stderr, "zkpipe demo: %s\n", zp_err_msg()), r;
	*valid = 0;
	for (int j = 0; j < d->jobs; j++) {
		struct stat st;
		snprintf(p, sizeof p, "%s/out/job%d/proofs.json", d->tmp, j);
		if (stat(p, &st))
			fprintf(stderr, "zkpipe demo: %s missing\n", p);
		for (int q = 0; q < d->parts; q++) {
			zp_g16_proof pr;
			zp_fr *pub = NULL;
			uint32_t np = 0;
			char pp[PATH_MAX + 64];
			snprintf(p, sizeof p, "%s/out/job%d/part-%d.proof.json", d->tmp, j, q);
			snprintf(pp, sizeof pp, "%s/out/job%d/part-%d.public.json", d->tmp, j, q);
			if (!zp_g16_proof_read_json(&pr, p) && !zp_g16_public_read_json_curve(vk.curve, &pub, &np, pp) &&
			    !zp_g16_verify(&vk, &pr, pub, np))
				(*valid)++;
			else
				fprintf(stderr, "zkpipe demo: job %d partition %d: proof INVALID or missing\n", j, q);
			free(pub);
		}
	}
	zp_g16_vk_free(&vk);
	zp_zkey_free(&k);
	return 0;
}

static void report(struct demo *d, json_t *s, double secs, int valid)
{
	int total = d->jobs * d->parts;
	printf("\nverified %d/%d proofs (pairing check against the key's verification key)\n", valid, total);
	printf("throughput: %d partitions in %.2f s = %.2f proofs/s\n", total, secs, total / secs);
	printf("\npeak memory (VmHWM):\n  supervisor          pid %-7lld %8lld KiB\n",
	       json_integer_value(json_object_get(s, "pid")), json_integer_value(json_object_get(s, "peak_rss_kib")));
	size_t i;
	json_t *p, *g = json_array_get(json_object_get(s, "groups"), 0);
	json_array_foreach(json_object_get(s, "processes"), i, p)
		printf("  %-6s %-7s %-3lld  pid %-7lld %8lld KiB  restarts %lld\n", json_string_value(json_object_get(p, "group")),
		       json_string_value(json_object_get(p, "role")), json_integer_value(json_object_get(p, "index")),
		       json_integer_value(json_object_get(p, "pid")), json_integer_value(json_object_get(p, "peak_rss_kib")),
		       json_integer_value(json_object_get(p, "restarts")));
	long long sc = json_integer_value(json_object_get(g, "slot_count")), ss = json_integer_value(json_object_get(g, "slot_size"));
	printf("\narena %s on %s: %lld slots x %lld MiB = %lld MiB of slot data (%lld MiB mapped in all)\n",
	       json_string_value(json_object_get(g, "arena")), json_string_value(json_object_get(g, "backing")), sc,
	       ss >> 20, (sc * ss) >> 20, json_integer_value(json_object_get(g, "arena_bytes")) >> 20);
	const char *k;
	json_t *v;
	printf("arena counters:\n");
	json_object_foreach(json_object_get(g, "counters"), k, v)
		printf("  %-20s %lld\n", k, json_integer_value(v));
}

static int shutdown_sup(struct demo *d)
{
	kill(d->sup, SIGTERM);
	for (int i = 0; i < 300; i++) {
		int st;
		if (waitpid(d->sup, &st, WNOHANG) == d->sup)
			return printf("\nsupervisor and daemons shut down (%s)\n",
				      WIFEXITED(st) && !WEXITSTATUS(st) ? "clean" : "with errors"), 0;
		usleep(50000);
	}
	kill(d->sup, SIGKILL);
	waitpid(d->sup, NULL, 0);
	return -1;
}

/* The run's waterfall beside the logs (zkpipe timeline). */
static void keep_timeline(struct demo *d, const char *cfgpath)
{
	static struct zp_pipe_config cfg;
	char out[PATH_MAX];
	unsigned jobs, rows;
	snprintf(out, sizeof out, "%s/timeline.svg", d->tmp);
	zp_err_clear();
	if (zp_pipe_config_load(&cfg, cfgpath) || zp_timeline_write(&cfg, NULL, -1, out, &jobs, &rows))
		fprintf(stderr, "zkpipe demo: timeline: %s\n", zp_err_msg());
	else
		printf("timeline of %u jobs (%u partitions): %s\n", jobs, rows, out);
}

int cmd_demo(int argc, char **argv)
{
	static const struct option opts[] = { { "jobs", 1, 0, 'j' }, { "parts", 1, 0, 'p' }, { "workers", 1, 0, 'w' },
		{ "gpuds", 1, 0, 'g' }, { "slots", 1, 0, 's' }, { "circuit", 1, 0, 'c' }, { "keep", 0, 0, 'k' },
		{ "backend", 1, 0, 'b' }, { "curve", 1, 0, 'C' }, { "help", 0, 0, 'h' }, { 0 } };
	struct demo d = { .jobs = 8, .parts = 4, .workers = 2, .gpuds = 1, .backend = "cpu", .example = "chain" };
	const zp_curve *cv;
	int o;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'j': d.jobs = atoi(optarg); break;
		case 'p': d.parts = atoi(optarg); break;
		case 'w': d.workers = atoi(optarg); break;
		case 'g': d.gpuds = atoi(optarg); break;
		case 's': d.slots = atoi(optarg); break;
		case 'c': /* absolute: the daemons run elsewhere and the config's allow_input must name it */
			if (!realpath(optarg, d.circuit))
				return fprintf(stderr, "zkpipe demo: --circuit %s: %s\n", optarg, strerror(errno)), 2;
			break;
		case 'k': d.keep = 1; break;
		case 'b': d.backend = optarg; break;
		case 'C':
			if (!(cv = zp_curve_by_name(optarg)))
				return fprintf(stderr, "zkpipe demo: --curve is bls12-381 or bn254, not %s\n", optarg), 2;
			d.example = cv->id == ZP_CURVE_BN254 ? "chain-bn254" : "chain";
			break;
		case 'h': fputs(demo_help, stdout); return 0;
		default: fputs(demo_help, stderr); return 2;
		}
	}
	if (d.jobs < 1 || d.parts < 1 || d.parts > 4096 || d.workers < 1 || d.gpuds < 1)
		return fputs(demo_help, stderr), 2;
	if (strcmp(d.backend, "cpu") && strcmp(d.backend, "cuda"))
		return fprintf(stderr, "zkpipe demo: --backend %s: cpu or cuda\n", d.backend), 2;
	const zp_g16_backend_ops *be;
	zp_err_clear();
	if (zp_g16_backend_find(&be, d.backend)) /* say why here, not in a gpud's log */
		return fprintf(stderr, "zkpipe demo: %s\n", zp_err_msg()), 8;
	if (!d.slots)
		d.slots = 2 * d.workers;
	if (locate(&d))
		return 3;
	snprintf(d.tmp, sizeof d.tmp, "/tmp/zkpipe-demo.XXXXXX");
	char cfg[PATH_MAX];
	if (!mkdtemp(d.tmp) || write_config(&d, cfg))
		return fprintf(stderr, "zkpipe demo: temporary directory: %s\n", strerror(errno)), 7;
	snprintf(d.url, sizeof d.url, "ipc://%s/run/api.ipc", d.tmp);
	d.ids = calloc((size_t)d.jobs, sizeof *d.ids);
	printf("zkpipe demo: %d jobs x %d partitions of %s (circuit chain, 1000 constraints%s)\n"
	       "  supervisor + %d synthd + %d gpud (%s backend), %d slots; run directory %s/run\n",
	       d.jobs, d.parts, d.circuit, strcmp(d.example, "chain") ? ", BN254" : "", d.workers, d.gpuds, d.backend,
	       d.slots, d.tmp);
	d.sup = start_supervisor(&d, cfg);
	int rc = 0, valid = 0, failed = 0;
	json_t *last = NULL;
	if (d.sup < 0 || wait_up(&d)) {
		rc = 70;
		goto out;
	}
	uint64_t t0 = zp_mono_ms();
	if (submit_all(&d) || (failed = progress(&d, &last)) < 0) {
		rc = EX_API;
		goto out;
	}
	double secs = (zp_mono_ms() - t0) / 1e3;
	if (verify_all(&d, &valid)) {
		rc = 70;
		goto out;
	}
	report(&d, last, secs, valid);
	if (failed || valid != d.jobs * d.parts)
		rc = failed ? EX_JOB_FAILED : 1;
out:
	if (d.sup > 0 && shutdown_sup(&d))
		rc = rc ? rc : 70;
	if (d.keep || rc) {
		keep_timeline(&d, cfg); /* after the supervisor's last scan: every finished job has its record */
		printf("logs and proofs kept in %s\n", d.tmp);
	} else {
		char cmd[PATH_MAX + 16];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", d.tmp);
		if (system(cmd))
			fprintf(stderr, "zkpipe demo: could not remove %s\n", d.tmp);
	}
	json_decref(last);
	free(d.ids);
	return rc;
}
