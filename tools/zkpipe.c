/*
 * zkpipe — the user's command line. One binary; subcommands dispatched from `cmds`:
 *
 *   zkpipe prove  --zkey K --wtns W --proof proof.json --public public.json [--r1cs R] ...
 *   zkpipe verify (--vk verification_key.json | --zkey K) --proof proof.json --public public.json
 *   zkpipe bench prove --zkey K --wtns W [--runs N]
 *
 * Later subcommands (demo, submit, wait, status, setup, key convert) add a row to `cmds`.
 * Exit codes are an interface: scripts rely on them (see exit_text, printed by --help).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmds.h"
#include "backends.h"
#include "g16_json.h"
#include "groth16.h"
#include "par.h"
#include "r1cs.h"
#include "wtns.h"
#include "zkey.h"
#include "cmd_util.h"
#include "zp_err.h"

enum {
	EX_OK = 0,          /* success: proof written / proof valid */
	EX_INVALID = 1,     /* verify: the proof is not valid for these public inputs */
	EX_USAGE = 2,       /* bad command line */
	EX_INPUT = 3,       /* an input file is missing, unreadable or malformed */
	EX_MISMATCH = 4,    /* inputs disagree: witness/r1cs/public inputs not for this key */
	EX_UNSAT = 5,       /* the witness does not satisfy the circuit */
	EX_SELFCHECK = 6,   /* prove: the new proof failed its pairing self-check */
	EX_OUTPUT = 7,      /* cannot write an output file */
	EX_NODEV = 8,       /* prove: the chosen backend is unavailable (not built with CUDA / no GPU) */
	EX_INTERNAL = 70,   /* anything else (out of memory, bug) */
};

static const char exit_text[] =
	"exit codes:\n"
	"  0  success (prove: proof and public inputs written; verify: proof is valid)\n"
	"  1  verify: the proof is NOT valid for these public inputs and key (pairing check fails,\n"
	"     or a proof point is off the curve or outside the subgroup)\n"
	"  2  usage error\n"
	"  3  an input file is missing, unreadable or malformed (message names file, section, field)\n"
	"  4  inputs disagree (witness, r1cs or public inputs are not for this key)\n"
	"  5  the witness does not satisfy the circuit (message names the first failing constraint)\n"
	"  6  prove: the proof failed its pairing self-check (nothing written)\n"
	"  7  cannot write an output file\n"
	"  8  prove: backend unavailable (--backend cuda: not built with CUDA, or no GPU)\n"
	" 70  internal error (out of memory, bug)\n"
	"errors go to stderr as one line: \"zkpipe <command>: <message>\"\n";

static int exit_for(int rc)
{
	switch (rc) {
	case ZP_EMISMATCH: return EX_MISMATCH;
	case ZP_EUNSAT: return EX_UNSAT;
	case ZP_EVERIFY: return EX_SELFCHECK;
	case -ENODEV: case -ENOTSUP: return EX_NODEV;
	case ZP_EFORMAT: case ZP_ETRUNC: case ZP_ENONCANON: case ZP_EVERSION:
	case ZP_EINVAL_POINT: case ZP_ESUBGROUP: case ZP_EFLAGS: case ZP_ENOTSQR:
	case -ENOENT: case -EACCES: case -EISDIR: case -EINVAL: case -EIO:
		return EX_INPUT;
	default: return EX_INTERNAL;
	}
}

static int fail(const char *cmd, int rc)
{
	const char *m = zp_err_msg();
	fprintf(stderr, "zkpipe %s: %s\n", cmd, m && *m ? m : zp_strerror(rc));
	return exit_for(rc);
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int parse_h_mode(const char *s, zp_h_mode *m)
{
	if (!strcmp(s, "snarkjs"))
		*m = ZP_H_SNARKJS;
	else if (!strcmp(s, "coeff"))
		*m = ZP_H_COEFF;
	else
		return -1;
	return 0;
}

/* ---- prove ---- */
static const char prove_help[] =
	"usage: zkpipe prove --zkey K --wtns W --proof proof.json --public public.json [options]\n"
	"  Proves witness W (circom .wtns) with snarkjs Groth16 key K (.zkey, bls12381) and writes\n"
	"  snarkjs's proof.json and public.json. The proof is pairing-checked before it is written.\n"
	"options:\n"
	"  --r1cs R         also check the witness against the circuit's constraints (names the first\n"
	"                   failing one) and that R is the circuit K was made for\n"
	"  --h-mode M       snarkjs (default: odd-root H points) | coeff (bellperson's coefficient H\n"
	"                   query, derived from K; slow to derive, same proof)\n"
	"  --backend B      cpu (default) | cuda (the GPU; ZP_CUDA_DEVICE picks one, default 0)\n"
	"  --threads N      worker threads (default: ZP_THREADS or the CPUs this process may use)\n"
	"  --r DEC --s DEC  fix the blinding (TESTING ONLY: a proof with known r, s is not zero-knowledge)\n"
	"  --quiet          no timing line on stderr\n";

struct prove_args {
	const char *zkey, *wtns, *proof, *pub, *r1cs, *r, *s, *backend;
	zp_h_mode h_mode;
	int quiet;
};

static int prove_run(const struct prove_args *a)
{
	zp_zkey k;
	zp_wtns w;
	zp_r1cs r1;
	zp_circuit cr;
	zp_g16_key key;
	zp_g16_proof proof;
	zp_fr r, s;
	zp_g16_prove_opts o = { 0 };
	const zp_circuit *circ;
	int rc, ex;
	double t0 = now();
	if ((rc = zp_g16_backend_find(&o.backend, a->backend)))
		return fail("prove", rc);
	if ((rc = zp_zkey_read(&k, a->zkey)))
		return fail("prove", rc);
	if ((rc = zp_wtns_read(&w, a->wtns))) {
		ex = fail("prove", rc);
		goto out_k;
	}
	circ = &k.circuit;
	if (a->r1cs) {
		if ((rc = zp_r1cs_read(&r1, a->r1cs))) {
			ex = fail("prove", rc);
			goto out_w;
		}
		if (r1.n_wires != k.n_vars || r1.n_outputs + r1.n_pub_inputs != k.n_public) {
			zp_err_set(ZP_EMISMATCH, "%s has %u wires and %u public values, %s has nVars %u and nPublic %u: "
				   "the r1cs is not the circuit of this key", a->r1cs, r1.n_wires,
				   r1.n_outputs + r1.n_pub_inputs, a->zkey, k.n_vars, k.n_public);
			zp_r1cs_free(&r1);
			ex = fail("prove", ZP_EMISMATCH);
			goto out_w;
		}
		if ((rc = zp_circuit_from_r1cs(&cr, &r1))) {
			zp_r1cs_free(&r1);
			ex = fail("prove", rc);
			goto out_w;
		}
		zp_r1cs_free(&r1);
		circ = &cr;
	}
	if (a->r) {
		if (zp_fr_from_dec(&r, a->r) || zp_fr_from_dec(&s, a->s)) {
			fprintf(stderr, "zkpipe prove: --r/--s must be decimal integers < r\n");
			ex = EX_USAGE;
			goto out_c;
		}
		o.r = &r;
		o.s = &s;
	}
	double t1 = now();
	if ((rc = zp_g16_key_init(&key, &k, a->h_mode))) {
		ex = fail("prove", rc);
		goto out_c;
	}
	double t2 = now();
	rc = zp_g16_prove(&proof, &key, circ, w.w, w.n, &o);
	double t3 = now();
	zp_g16_key_free(&key);
	if (rc) {
		ex = fail("prove", rc);
		goto out_c;
	}
	if ((rc = zp_g16_proof_write_json(a->proof, &proof)) ||
	    (rc = zp_g16_public_write_json(a->pub, w.w + 1, k.n_public))) {
		fail("prove", rc);
		ex = EX_OUTPUT;
		goto out_c;
	}
	if (!a->quiet)
		fprintf(stderr, "zkpipe prove: ok: %u wires, domain 2^%u, load %.3f s, prove %.3f s (%s backend, %d threads)\n",
			k.n_vars, k.log_domain, t1 - t0, t3 - t2, o.backend->name, zp_par_threads());
	ex = EX_OK;
out_c:
	if (circ == &cr)
		zp_circuit_free(&cr);
out_w:
	zp_wtns_free(&w);
out_k:
	zp_zkey_free(&k);
	return ex;
}

static int cmd_prove(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "zkey", 1, 0, 'k' }, { "wtns", 1, 0, 'w' }, { "proof", 1, 0, 'p' }, { "public", 1, 0, 'u' },
		{ "r1cs", 1, 0, 'c' }, { "h-mode", 1, 0, 'm' }, { "threads", 1, 0, 't' }, { "r", 1, 0, 'r' },
		{ "s", 1, 0, 's' }, { "quiet", 0, 0, 'q' }, { "backend", 1, 0, 'b' }, { "help", 0, 0, 'h' }, { 0 } };
	struct prove_args a = { 0 };
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'k': a.zkey = optarg; break;
		case 'w': a.wtns = optarg; break;
		case 'p': a.proof = optarg; break;
		case 'u': a.pub = optarg; break;
		case 'c': a.r1cs = optarg; break;
		case 'r': a.r = optarg; break;
		case 's': a.s = optarg; break;
		case 'q': a.quiet = 1; break;
		case 'b':
			if (strcmp(optarg, "cpu") && strcmp(optarg, "cuda")) {
				fprintf(stderr, "zkpipe prove: --backend is cpu or cuda\n");
				return EX_USAGE;
			}
			a.backend = optarg;
			break;
		case 't': zp_par_set_threads(atoi(optarg)); break;
		case 'm':
			if (parse_h_mode(optarg, &a.h_mode)) {
				fprintf(stderr, "zkpipe prove: --h-mode is snarkjs or coeff\n");
				return EX_USAGE;
			}
			break;
		case 'h': fputs(prove_help, stdout); fputs(exit_text, stdout); return EX_OK;
		default: fputs(prove_help, stderr); return EX_USAGE;
		}
	}
	if (!a.zkey || !a.wtns || !a.proof || !a.pub || optind != argc || !a.r != !a.s) {
		fputs(prove_help, stderr);
		return EX_USAGE;
	}
	return prove_run(&a);
}

/* ---- verify ---- */
static const char verify_help[] =
	"usage: zkpipe verify (--vk verification_key.json | --zkey K) --proof proof.json --public public.json\n"
	"  Checks a snarkjs Groth16 proof (bls12381). Points must be on the curve and in the subgroup,\n"
	"  public inputs < r and as many as the key expects. Prints \"OK\" or \"INVALID\" on stdout.\n";

static int cmd_verify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "vk", 1, 0, 'v' }, { "zkey", 1, 0, 'k' }, { "proof", 1, 0, 'p' }, { "public", 1, 0, 'u' },
		{ "help", 0, 0, 'h' }, { 0 } };
	const char *vkp = NULL, *zk = NULL, *pp = NULL, *up = NULL;
	int c, rc;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'v': vkp = optarg; break;
		case 'k': zk = optarg; break;
		case 'p': pp = optarg; break;
		case 'u': up = optarg; break;
		case 'h': fputs(verify_help, stdout); fputs(exit_text, stdout); return EX_OK;
		default: fputs(verify_help, stderr); return EX_USAGE;
		}
	}
	if (!vkp == !zk || !pp || !up || optind != argc) {
		fputs(verify_help, stderr);
		return EX_USAGE;
	}
	zp_g16_vk vk;
	zp_g16_proof proof;
	zp_fr *pub = NULL;
	uint32_t npub;
	if (vkp) {
		rc = zp_g16_vk_read_json(&vk, vkp);
	} else {
		rc = zp_zkey_read_vk(&vk, zk);
	}
	if (rc)
		return fail("verify", rc);
	int ex;
	if ((rc = zp_g16_proof_read_json(&proof, pp)) || (rc = zp_g16_public_read_json(&pub, &npub, up))) {
		/* a proof point off the curve / out of the subgroup is an invalid proof, not a bad file */
		ex = (rc == ZP_EINVAL_POINT || rc == ZP_ESUBGROUP) ? (printf("INVALID\n"), fail("verify", rc), EX_INVALID)
								   : fail("verify", rc);
		goto out;
	}
	rc = zp_g16_verify(&vk, &proof, pub, npub);
	if (rc == 0) {
		printf("OK\n");
		ex = EX_OK;
	} else if (rc == ZP_EVERIFY) {
		printf("INVALID\n");
		fail("verify", rc);
		ex = EX_INVALID;
	} else {
		ex = fail("verify", rc);
	}
out:
	free(pub);
	zp_g16_vk_free(&vk);
	return ex;
}

/* ---- bench ---- */
static const char bench_help[] =
	"usage: zkpipe bench prove --zkey K --wtns W [--runs N] [--h-mode M] [--threads N]\n"
	"  Times the prover (key and witness loaded once; each run: a,b,c, H, MSMs, blinding and the\n"
	"  pairing self-check) and prints one line per run and the best: wall and process CPU seconds.\n";

static int cmd_bench(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "zkey", 1, 0, 'k' }, { "wtns", 1, 0, 'w' }, { "runs", 1, 0, 'n' }, { "h-mode", 1, 0, 'm' },
		{ "threads", 1, 0, 't' }, { "help", 0, 0, 'h' }, { 0 } };
	const char *zk = NULL, *wt = NULL;
	int runs = 3, c, rc;
	zp_h_mode hm = ZP_H_SNARKJS;
	if (argc < 2 || strcmp(argv[1], "prove")) {
		fputs(bench_help, argc >= 2 && !strcmp(argv[1], "--help") ? stdout : stderr);
		return argc >= 2 && !strcmp(argv[1], "--help") ? EX_OK : EX_USAGE;
	}
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'k': zk = optarg; break;
		case 'w': wt = optarg; break;
		case 'n': runs = atoi(optarg); break;
		case 't': zp_par_set_threads(atoi(optarg)); break;
		case 'm':
			if (parse_h_mode(optarg, &hm)) {
				fprintf(stderr, "zkpipe bench: --h-mode is snarkjs or coeff\n");
				return EX_USAGE;
			}
			break;
		case 'h': fputs(bench_help, stdout); return EX_OK;
		default: fputs(bench_help, stderr); return EX_USAGE;
		}
	}
	if (!zk || !wt || runs < 1 || optind != argc) {
		fputs(bench_help, stderr);
		return EX_USAGE;
	}
	zp_zkey k;
	zp_wtns w;
	zp_g16_key key;
	double t0 = now();
	if ((rc = zp_zkey_read(&k, zk)))
		return fail("bench", rc);
	if ((rc = zp_wtns_read(&w, wt))) {
		zp_zkey_free(&k);
		return fail("bench", rc);
	}
	double t1 = now();
	if ((rc = zp_g16_key_init(&key, &k, hm)))
		goto out;
	printf("key: %u wires, %u public, domain 2^%u; load %.3f s; threads %d\n", k.n_vars, k.n_public, k.log_domain,
	       t1 - t0, zp_par_threads());
	double best = 1e30, best_cpu = 1e30;
	zp_g16_prover pr;
	if ((rc = zp_g16_prover_init(&pr, &key, NULL))) {
		zp_g16_key_free(&key);
		goto out;
	}
	for (int i = 0; i < runs && !rc; i++) {
		zp_g16_proof p;
		double a = now(), ac = cpu_now();
		rc = zp_g16_prover_prove(&pr, &p, &k.circuit, w.w, w.n, NULL);
		double d = now() - a, dc = cpu_now() - ac;
		if (!rc) {
			printf("run %d: prove %.3f s (cpu %.3f s)\n", i + 1, d, dc);
			best = d < best ? d : best;
			best_cpu = dc < best_cpu ? dc : best_cpu;
		}
	}
	if (!rc)
		printf("best: %.3f s (cpu %.3f s)\n", best, best_cpu);
	zp_g16_prover_free(&pr);
	zp_g16_key_free(&key);
out:
	zp_wtns_free(&w);
	zp_zkey_free(&k);
	return rc ? fail("bench", rc) : EX_OK;
}

/* ---- dispatch ---- */
static const struct {
	const char *name, *help;
	int (*run)(int argc, char **argv);
} cmds[] = {
	{ "prove", "prove one witness with a snarkjs .zkey (one-shot, no daemons)", cmd_prove },
	{ "verify", "verify a Groth16 proof (from verification_key.json or a .zkey)", cmd_verify },
	{ "bench", "benchmark: bench prove --zkey K --wtns W", cmd_bench },
	{ "setup", "INSECURE development key for an .r1cs or a synthetic circuit", cmd_setup },
	{ "key", "key convert (.zkey/.params/.zpk), key info, key bench-load", cmd_key },
	{ "synth", "synthetic PoRep-shaped circuits: info, bench, prove", cmd_synth },
	{ "demo", "run the whole pipeline on a bundled circuit and report (start here)", cmd_demo },
	{ "submit", "submit a job to a running supervisor; prints its id", cmd_submit },
	{ "wait", "wait for jobs to finish (exit 0 DONE, 8 FAILED, 9 timeout)", cmd_wait },
	{ "status", "supervisor, groups and processes, or one job's state", cmd_status },
	{ "cancel", "cancel a job", cmd_cancel },
	{ "timeline", "the run's waterfall as an SVG (a row per partition, a bar per stage)", cmd_timeline },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: zkpipe <command> [options]      (zkpipe <command> --help for its options)\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n%s", exit_text);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EX_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EX_OK;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].run(argc - 1, argv + 1);
	fprintf(stderr, "zkpipe: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EX_USAGE;
}
