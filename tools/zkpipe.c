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
#include <limits.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "cluster.h"
#include "backends.h"
#include "knobs.h"
#include "g16_json.h"
#include "groth16.h"
#include "par.h"
#include "r1cs.h"
#include "wtns.h"
#include "zkey.h"
#include "keyfile.h"
#include "config.h"
#include "witgen.h"
#include "cmd_util.h"
#include "zp_err.h"
#include "zp_exit.h"

/* The one exit-code table of every zkpipe binary: common/zp_exit.h. */
enum {
	EX_OK = ZP_EX_OK, EX_INVALID = ZP_EX_INVALID, EX_USAGE = ZP_EX_USAGE, EX_INPUT = ZP_EX_INPUT,
	EX_MISMATCH = ZP_EX_MISMATCH, EX_UNSAT = ZP_EX_UNSAT, EX_SELFCHECK = ZP_EX_SELFCHECK,
	EX_OUTPUT = ZP_EX_OUTPUT, EX_NODEV = ZP_EX_NODEV, EX_INTERNAL = ZP_EX_INTERNAL,
};
#define exit_text zp_exit_text

static int fail(const char *cmd, int rc) { return cx_fail(cmd, rc); }

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
	"usage: zkpipe prove --zkey K (--wtns W | --input input.json (--wasm C.wasm | --witness-bin G))\n"
	"                    --proof proof.json --public public.json [options]\n"
	"  Proves witness W (circom .wtns) with Groth16 key K and writes snarkjs's proof.json and\n"
	"  public.json. K is a snarkjs .zkey of either curve, BN254 (circom --prime bn128, the default;\n"
	"  Ethereum's) or BLS12-381 (--prime bls12381), or zkpipe's .zpk (zkpipe key convert / setup;\n"
	"  a .zpk holds no circuit: give --r1cs). The witness must be of the key's curve. The proof is\n"
	"  pairing-checked before it is written. Relative paths are the current directory's.\n"
	"  With --input the circuit's own witness generator computes W first (no .wtns to handle):\n"
	"  circom's wasm one (node <dir of C.wasm>/generate_witness.js) or its C++ one, each in its own\n"
	"  temporary directory, without a shell, under the limits below.\n"
	"options:\n"
	"  --r1cs R         also check the witness against the circuit's constraints (names the first\n"
	"                   failing one) and that R is the circuit K was made for\n"
	"  --h-mode M       snarkjs (default: odd-root H points) | coeff (bellperson's coefficient H\n"
	"                   query, derived from K; slow to derive, same proof); a .zpk has its own\n"
	"  --backend B      cpu (default) | cuda (the GPU; ZP_CUDA_DEVICE picks one, default 0)\n"
	"  --gpu-memory SIZE  with --backend cuda: plan device memory as if the card had SIZE (24G, 24GiB,\n"
	"                   24576M, bytes; 0 = the whole card; ZP_CUDA_MEM_CAP_MB in MiB does the same)\n"
	"  --threads N      worker threads (default: ZP_THREADS or the CPUs this process may use)\n"
	"  --witness-timeout S   the generator's wall-clock limit (default 60 s; CPU limit 2 x S)\n"
	"  --witness-memory SIZE its address-space limit (RLIMIT_AS, default 4G)\n"
	"  --node PATH      node for --wasm (default /usr/bin/node)\n"
	"  --r DEC --s DEC  fix the blinding (TESTING ONLY: a proof with known r, s is not zero-knowledge)\n"
	"  --quiet          no timing line on stderr\n";

struct prove_args {
	const char *zkey, *wtns, *proof, *pub, *r1cs, *r, *s, *backend, *input;
	struct zp_witgen gen;
	zp_h_mode h_mode;
	int quiet;
};

/* A key from a .zkey (points copied, circuit A/B inside) or a .zpk (one block; no circuit). */
struct loaded_key {
	int zpk;
	zp_zkey zk;
	zp_pkey pk;
	zp_g16_key gk;
};

static int key_load(struct loaded_key *L, const char *path, zp_h_mode hm)
{
	memset(L, 0, sizeof *L);
	int rc;
	if (!strcmp(cx_ext(path), "zpk")) {
		if ((rc = zp_pkey_load(&L->pk, path, NULL, NULL)))
			return rc;
		L->zpk = 1;
		L->zk = L->pk.zk;
		L->gk = *zp_pkey_g16(&L->pk);
		L->gk.zkey = &L->zk;
		return 0;
	}
	if ((rc = zp_zkey_read(&L->zk, path)))
		return rc;
	if ((rc = zp_g16_key_init(&L->gk, &L->zk, hm)))
		zp_zkey_free(&L->zk);
	return rc;
}

static void key_free(struct loaded_key *L)
{
	if (L->zpk) {
		zp_pkey_free(&L->pk);
		return;
	}
	zp_g16_key_free(&L->gk);
	zp_zkey_free(&L->zk);
}

/* The circuit from --r1cs, checked against the key (wires, public count, .zpk fingerprint). */
static int circuit_of(zp_circuit *cr, const struct loaded_key *L, const char *r1cs, const char *zkey)
{
	zp_r1cs r1;
	int rc;
	if ((rc = zp_r1cs_read(&r1, r1cs)))
		return rc;
	if (r1.curve != zp_curve_of(L->zk.curve)) {
		rc = zp_err_set(ZP_EMISMATCH, "%s is a %s circuit, %s is a %s key: the curves differ", r1cs,
				r1.curve->name, zkey, zp_curve_of(L->zk.curve)->name);
		zp_r1cs_free(&r1);
		return rc;
	}
	if (r1.n_wires != L->zk.n_vars || r1.n_outputs + r1.n_pub_inputs != L->zk.n_public) {
		rc = zp_err_set(ZP_EMISMATCH, "%s has %u wires and %u public values, %s has nVars %u and nPublic %u: "
				"the r1cs is not the circuit of this key", r1cs, r1.n_wires,
				r1.n_outputs + r1.n_pub_inputs, zkey, L->zk.n_vars, L->zk.n_public);
		zp_r1cs_free(&r1);
		return rc;
	}
	rc = zp_circuit_from_r1cs(cr, &r1);
	zp_r1cs_free(&r1);
	if (!rc && L->zpk && (rc = zp_pkey_check_circuit(&L->pk, cr, r1cs)))
		zp_circuit_free(cr);
	return rc;
}

/* --input: the generator's witness, read, and its directory removed. */
static int witness_of_input(zp_wtns *w, const struct prove_args *a, uint32_t n_vars)
{
	char dir[PATH_MAX], wt[PATH_MAX];
	struct zp_witgen g = a->gen;
	const char *tmp = getenv("TMPDIR");
	g.max_out_bytes = (uint64_t)n_vars * 32 + (16u << 20);
	int fd = zp_witgen_open_input(a->input);
	if (fd < 0)
		return fd;
	int rc = zp_witgen_run(&g, fd, a->input, tmp && *tmp ? tmp : "/tmp", dir, sizeof dir, wt, sizeof wt);
	close(fd);
	if (!rc)
		rc = zp_wtns_read(w, wt);
	zp_witgen_cleanup(dir);
	return rc;
}

static int prove_run(const struct prove_args *a)
{
	struct loaded_key L;
	zp_wtns w;
	zp_circuit cr;
	zp_g16_proof proof;
	zp_fr r, s;
	zp_g16_prove_opts o = { 0 };
	const zp_circuit *circ;
	int rc, ex;
	double t0 = cx_now();
	if ((rc = zp_g16_backend_find(&o.backend, a->backend)))
		return fail("prove", rc);
	if ((rc = key_load(&L, a->zkey, a->h_mode)))
		return fail("prove", rc);
	double t1 = cx_now();
	if (L.zpk && !a->r1cs) {
		fprintf(stderr, "zkpipe prove: %s is a .zpk, which holds no circuit: give --r1cs (the circuit it was "
			"made for)\n", a->zkey);
		key_free(&L);
		return EX_USAGE;
	}
	rc = a->input ? witness_of_input(&w, a, L.zk.n_vars) : zp_wtns_read(&w, a->wtns);
	if (rc) {
		ex = fail("prove", rc);
		goto out_k;
	}
	const zp_curve *cv = zp_curve_of(L.zk.curve);
	if (w.curve != cv) {   /* before anything else about it: the numbers mean nothing in the other field */
		ex = fail("prove", zp_g16_check_witness(&L.zk, &w, a->input ? "the generated witness" : a->wtns));
		goto out_w;
	}
	double tw = cx_now();
	circ = &L.zk.circuit;
	if (a->r1cs) {
		if ((rc = circuit_of(&cr, &L, a->r1cs, a->zkey))) {
			ex = fail("prove", rc);
			goto out_w;
		}
		circ = &cr;
	}
	if (a->r) {
		if (cv->fr_from_dec(&r, a->r) || cv->fr_from_dec(&s, a->s)) {
			fprintf(stderr, "zkpipe prove: --r/--s must be decimal integers < r (%s)\n", cv->name);
			ex = EX_USAGE;
			goto out_c;
		}
		o.r = &r;
		o.s = &s;
	}
	double t2 = cx_now();
	rc = zp_g16_prove(&proof, &L.gk, circ, w.w, w.n, &o);
	double t3 = cx_now();
	if (rc) {
		ex = fail("prove", rc);
		goto out_c;
	}
	if ((rc = zp_g16_proof_write_json(a->proof, &proof)) ||
	    (rc = zp_g16_public_write_json_curve(a->pub, cv, w.w + 1, L.zk.n_public))) {
		fail("prove", rc);
		ex = EX_OUTPUT;
		goto out_c;
	}
	if (!a->quiet)
		fprintf(stderr, "zkpipe prove: ok: %s, %u wires, domain 2^%u, load %.3f s, %s %.3f s, prove %.3f s "
			"(%s backend, %d threads)\n", cv->name, L.zk.n_vars, L.zk.log_domain, t1 - t0,
			a->input ? "witness (generator)" : "witness", tw - t1, t3 - t2, o.backend->name, zp_par_threads());
	ex = EX_OK;
out_c:
	if (circ == &cr)
		zp_circuit_free(&cr);
out_w:
	zp_wtns_free(&w);
out_k:
	key_free(&L);
	return ex;
}

static int cmd_prove(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "zkey", 1, 0, 'k' }, { "wtns", 1, 0, 'w' }, { "proof", 1, 0, 'p' }, { "public", 1, 0, 'u' },
		{ "r1cs", 1, 0, 'c' }, { "h-mode", 1, 0, 'm' }, { "threads", 1, 0, 't' }, { "r", 1, 0, 'r' },
		{ "s", 1, 0, 's' }, { "quiet", 0, 0, 'q' }, { "backend", 1, 0, 'b' }, { "help", 0, 0, 'h' },
		{ "input", 1, 0, 'i' }, { "wasm", 1, 0, 'W' }, { "witness-bin", 1, 0, 'G' }, { "node", 1, 0, 'N' },
		{ "witness-timeout", 1, 0, 'T' }, { "witness-memory", 1, 0, 'M' }, { "gpu-memory", 1, 0, 'g' }, { 0 } };
	struct prove_args a = { 0 };
	const char *gpu_mem = NULL;
	int c;
	a.gen.timeout_s = 60;
	a.gen.mem_bytes = 4ull << 30;
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
		case 'i': a.input = optarg; break;
		case 'W': snprintf(a.gen.wasm, sizeof a.gen.wasm, "%s", optarg); break;
		case 'G': snprintf(a.gen.bin, sizeof a.gen.bin, "%s", optarg); break;
		case 'N': snprintf(a.gen.node, sizeof a.gen.node, "%s", optarg); break;
		case 'T':
			if ((a.gen.timeout_s = (uint32_t)strtoul(optarg, NULL, 10)) == 0) {
				fprintf(stderr, "zkpipe prove: --witness-timeout is a positive number of seconds\n");
				return EX_USAGE;
			}
			break;
		case 'M':
			if (zp_pipe_parse_size(optarg, &a.gen.mem_bytes) || !a.gen.mem_bytes) {
				fprintf(stderr, "zkpipe prove: --witness-memory is a size: 512M, 4G\n");
				return EX_USAGE;
			}
			break;
		case 'b':
			if (strcmp(optarg, "cpu") && strcmp(optarg, "cuda")) {
				fprintf(stderr, "zkpipe prove: --backend is cpu or cuda\n");
				return EX_USAGE;
			}
			a.backend = optarg;
			break;
		case 'g': gpu_mem = optarg; break;
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
	a.gen.cpu_s = 2 * a.gen.timeout_s;
	if (gpu_mem) { /* the CUDA plan reads ZP_CUDA_MEM_CAP_MB (common/knobs.h): set it, read the knobs again */
		uint64_t mib;
		int r = zp_pipe_parse_gpu_memory(gpu_mem, &mib);
		if (r) {
			fprintf(stderr, "zkpipe prove: --gpu-memory %s: %s (0 for the whole card, or a size from 1G: 24G, 24GiB, "
				"24576M, bytes)\n", gpu_mem, r == ZP_ERANGE ? "out of range" : "not a size");
			return EX_USAGE;
		}
		if (!a.backend || strcmp(a.backend, "cuda")) {
			fprintf(stderr, "zkpipe prove: --gpu-memory caps the GPU's memory: it needs --backend cuda\n");
			return EX_USAGE;
		}
		char v[32];
		snprintf(v, sizeof v, "%llu", (unsigned long long)mib);
		setenv("ZP_CUDA_MEM_CAP_MB", v, 1);
		zp_knobs_reload();
	}
	bool gen = a.gen.wasm[0] || a.gen.bin[0];
	if (!a.zkey || !a.wtns == !a.input || !a.proof || !a.pub || optind != argc || !a.r != !a.s ||
	    (a.input && (!gen || (a.gen.wasm[0] && a.gen.bin[0]))) || (!a.input && gen)) {
		fputs(prove_help, stderr);
		return EX_USAGE;
	}
	return prove_run(&a);
}

/* ---- verify ---- */
static const char verify_help[] =
	"usage: zkpipe verify (--vk verification_key.json | --zkey K) --proof proof.json --public public.json\n"
	"  Checks a snarkjs Groth16 proof (bls12381 or bn128: the key's curve, also for a proof without a\n"
	"  \"curve\" field, as rapidsnark writes them; a proof of the other curve is refused, exit 4).\n"
	"  Points must be on the curve and in the subgroup, public inputs < r and as many as the key\n"
	"  expects. Prints \"OK\" or \"INVALID\" on stdout.\n";

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
	/* public.json holds plain numbers: they are read in the vk's field; a proof without "curve" (rapidsnark's)
	 * is read in the vk's curve, one of the other curve is refused by zp_g16_verify, naming both */
	if ((rc = zp_g16_proof_read_json_curve(vk.curve, &proof, pp)) || (rc = zp_g16_public_read_json_curve(vk.curve, &pub, &npub, up))) {
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
	double t0 = cx_now();
	if ((rc = zp_zkey_read(&k, zk)))
		return fail("bench", rc);
	if ((rc = zp_wtns_read(&w, wt))) {
		zp_zkey_free(&k);
		return fail("bench", rc);
	}
	double t1 = cx_now();
	if ((rc = zp_g16_check_witness(&k, &w, wt)) || (rc = zp_g16_key_init(&key, &k, hm)))
		goto out;
	printf("key: %s, %u wires, %u public, domain 2^%u; load %.3f s; threads %d\n", zp_curve_of(k.curve)->name,
	       k.n_vars, k.n_public, k.log_domain, t1 - t0, zp_par_threads());
	double best = 1e30, best_cpu = 1e30;
	zp_g16_prover pr;
	if ((rc = zp_g16_prover_init(&pr, &key, NULL))) {
		zp_g16_key_free(&key);
		goto out;
	}
	for (int i = 0; i < runs && !rc; i++) {
		zp_g16_proof p;
		double a = cx_now(), ac = cpu_now();
		rc = zp_g16_prover_prove(&pr, &p, &k.circuit, w.w, w.n, NULL);
		double d = cx_now() - a, dc = cpu_now() - ac;
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

/* ---- export ---- */
static const char export_help[] =
	"usage: zkpipe export calldata --proof proof.json --public public.json [--curve C]\n"
	"       zkpipe export vk --key KEY.zpk|KEY.zkey --out verification_key.json\n"
	"       zkpipe export verifier --vk verification_key.json [--out Verifier.sol]   (BN254; --help)\n"
	"  calldata: prints the proof as the arguments of snarkjs's Solidity verifier (verifyProof(a, b, c,\n"
	"  input)): the text of `snarkjs zkey export soliditycalldata public.json proof.json` (G2 coordinates\n"
	"  in the EVM's order, c1 before c0). The public inputs are read in the proof's curve; --curve (bn128 |\n"
	"  bls12381) is the curve of a proof that names none (rapidsnark's; default bls12381).\n"
	"  vk: writes the key's verification key as snarkjs's verification_key.json (its curve's name;\n"
	"  snarkjs groth16 verify and zkpipe verify --vk read it).\n"
	"  verifier: a Solidity contract whose verifyProof(a, b, c, input) takes the calldata above\n"
	"  (BN254 keys: the EVM's pairing precompile).\n";

static int export_vk(int argc, char **argv)
{
	static const struct option opts[] = { { "key", 1, 0, 'k' }, { "out", 1, 0, 'o' }, { "help", 0, 0, 'h' }, { 0 } };
	const char *kp = NULL, *out = NULL;
	int c, rc;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'k': kp = optarg; break;
		case 'o': out = optarg; break;
		case 'h': fputs(export_help, stdout); return EX_OK;
		default: fputs(export_help, stderr); return EX_USAGE;
		}
	}
	if (!kp || !out || optind != argc) {
		fputs(export_help, stderr);
		return EX_USAGE;
	}
	zp_g16_vk vk;
	if (!strcmp(cx_ext(kp), "zpk")) {
		zp_pkey k;
		if ((rc = zp_pkey_map(&k, kp, NULL)))
			return fail("export vk", rc);
		rc = zp_zkey_vk(&vk, &k.zk);
		zp_pkey_free(&k);
		if (rc)
			return fail("export vk", zp_err_set(rc, "%s: verification key", kp));
	} else if ((rc = zp_zkey_read_vk(&vk, kp))) {
		return fail("export vk", rc);
	}
	rc = zp_g16_vk_write_json(out, &vk);
	zp_g16_vk_free(&vk);
	return rc ? fail("export vk", rc) : EX_OK;
}

static int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "proof", 1, 0, 'p' }, { "public", 1, 0, 'u' }, { "curve", 1, 0, 'C' }, { "help", 0, 0, 'h' }, { 0 } };
	const char *pp = NULL, *up = NULL;
	const zp_curve *cv = NULL;
	int c, rc;
	if (argc >= 2 && !strcmp(argv[1], "vk"))
		return export_vk(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "verifier"))
		return cmd_export_verifier(argc - 1, argv + 1);
	if (argc < 2 || strcmp(argv[1], "calldata")) {
		int help = argc >= 2 && !strcmp(argv[1], "--help");
		fputs(export_help, help ? stdout : stderr);
		return help ? EX_OK : EX_USAGE;
	}
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p': pp = optarg; break;
		case 'u': up = optarg; break;
		case 'C':
			if (!(cv = zp_curve_by_name(optarg))) {
				fprintf(stderr, "zkpipe export calldata: --curve is bn128 or bls12381, not %s\n", optarg);
				return EX_USAGE;
			}
			break;
		case 'h': fputs(export_help, stdout); return EX_OK;
		default: fputs(export_help, stderr); return EX_USAGE;
		}
	}
	if (!pp || !up || optind != argc) {
		fputs(export_help, stderr);
		return EX_USAGE;
	}
	zp_g16_proof proof;
	zp_fr *pub = NULL;
	uint32_t npub;
	if ((rc = zp_g16_proof_read_json_curve(cv, &proof, pp)) ||
	    (rc = zp_g16_public_read_json_curve(proof.curve, &pub, &npub, up)))
		return fail("export calldata", rc);
	char *text = zp_g16_calldata(&proof, pub, npub);
	free(pub);
	if (!text)
		return fail("export calldata", zp_err_set(-ENOMEM, "calldata text"));
	printf("%s\n", text);
	free(text);
	return EX_OK;
}

/* ---- dispatch ---- */
static const struct {
	const char *name, *help;
	int (*run)(int argc, char **argv);
} cmds[] = {
	{ "prove", "prove one witness with a snarkjs .zkey (one-shot, no daemons)", cmd_prove },
	{ "verify", "verify a Groth16 proof (from verification_key.json or a .zkey)", cmd_verify },
	{ "bench", "benchmark: bench prove --zkey K --wtns W", cmd_bench },
	{ "export", "export calldata (a proof as a Solidity verifier's arguments) | vk (a key's vk JSON) | verifier (Solidity, BN254)", cmd_export },
	{ "setup", "INSECURE development key for an .r1cs or a synthetic circuit", cmd_setup },
	{ "key", "key convert (.zkey/.params/.zpk), key info, key bench-load", cmd_key },
	{ "synth", "synthetic PoRep-shaped circuits: info, bench, prove", cmd_synth },
	{ "demo", "run the whole pipeline on a bundled circuit and report (start here)", cmd_demo },
	{ "submit", "submit a job to a running supervisor; prints its id", cmd_submit },
	{ "wait", "wait for jobs to finish (exit 0 DONE, 11 FAILED, 12 unknown, 13 key failed, 9 timeout)", cmd_wait },
	{ "status", "supervisor, groups and processes, or one job's state", cmd_status },
	{ "cancel", "cancel a job", cmd_cancel },
	{ "timeline", "the run's waterfall as an SVG (a row per partition, a bar per stage)", cmd_timeline },
	{ "cluster", "cluster mode: init the database's schema, list nodes (docs/cluster.md)", zp_cluster_cli },
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
	if (zp_exit_version("zkpipe", argv[1]))
		return EX_OK;
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EX_OK;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name)) {
			/* submit / wait / status / cancel against the cluster's database instead of a supervisor */
			bool db = cmds[i].run == cmd_submit || cmds[i].run == cmd_wait || cmds[i].run == cmd_status ||
				  cmds[i].run == cmd_cancel;
			if (db && zp_cluster_cli_wants(argc - 1, argv + 1))
				return zp_cluster_cli(argc - 1, argv + 1);
			return cmds[i].run(argc - 1, argv + 1);
		}
	fprintf(stderr, "zkpipe: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EX_USAGE;
}
