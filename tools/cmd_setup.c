/*
 * zkpipe setup — a Groth16 key for a circuit from random toxic waste. DEVELOPMENT AND
 * BENCHMARKS ONLY: one process knows the toxic waste; the key is flagged insecure.
 */
#include <getopt.h>

#include "bn254.h"
#include "cmd_util.h"
#include "curve.h"
#include "keyfile.h"
#include "params.h"
#include "par.h"
#include "progress.h"
#include "setup.h"

static const char setup_help[] =
	"usage: zkpipe setup (--r1cs R | --synth SPEC) --out KEY.zpk|KEY.params [options]\n"
	"  Makes an INSECURE development Groth16 key (random toxic waste drawn by this process: whoever\n"
	"  holds it can forge proofs). For benchmarks and tests only; never for production.\n"
	"  SPEC: synthetic PoRep-shaped circuit, n=ROWS[,pub=328,bool=0.9,free=0.3,a=2.4,b=1.0,c=2.2,\n"
	"        win=65536,seed=1] (see docs/keys.md)\n"
	"  The key's format is --out's extension: .zpk (zkpipe's), or .params (Filecoin/bellperson's:\n"
	"  BLS12-381, --h-mode coeff; bellperson's provers also expect --roots 7).\n"
	"options:\n"
	"  --h-mode M     snarkjs (default: odd-root H points) | coeff (bellperson's τ^i·Z(τ)/δ)\n"
	"  --roots F      5 (default: zkpipe's prover, snarkjs) | 7 (bellperson's root of unity)\n"
	"  --zkey Z       also write a snarkjs .zkey (snarkjs H only)\n"
	"  --curve C      bls12-381 | bn254 (bn128): the curve the key must be; default the r1cs's (its prime\n"
	"                 field); an r1cs of the other curve is refused. Synthetic circuits are BLS12-381's.\n"
	"                 BN254 keys use snarkjs's H and roots (no --h-mode coeff, --roots 7), on the CPU\n"
	"                 unless --gpu is given\n"
	"  --threads N    worker threads\n"
	"  --gpu          make the points on the GPU (CUDA builds; ZP_CUDA_DEVICE picks it): the same key,\n"
	"                 byte for byte, as the CPU's for the same toxic waste\n"
	"  --cpu          make them on the CPU. Default: the GPU when this build has CUDA and one is present\n"
	"                 (falling back to the CPU, with a warning, if the GPU setup fails), else the CPU\n"
	"  --toxic-seed S TESTS ONLY: toxic waste from a seeded generator instead of getrandom, so that two\n"
	"                 runs (e.g. --cpu and --gpu) make the same key\n";

int cmd_setup(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "r1cs", 1, 0, 'r' }, { "synth", 1, 0, 'S' }, { "out", 1, 0, 'o' }, { "h-mode", 1, 0, 'm' },
		{ "roots", 1, 0, 'R' }, { "zkey", 1, 0, 'z' }, { "threads", 1, 0, 't' }, { "help", 0, 0, 'h' },
		{ "gpu", 0, 0, 'g' }, { "cpu", 0, 0, 'c' }, { "toxic-seed", 1, 0, 'T' }, { "curve", 1, 0, 'C' }, { 0 } };
	const char *r1cs = NULL, *synth = NULL, *out = NULL, *zk = NULL;
	const zp_curve *want = NULL;
	zp_setup_opts so = { .device = -1 };
	zp_setup_stats stats;
	zp_fr toxic[5];
	int c, rc, seeded = 0;
	uint64_t seed = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'r': r1cs = optarg; break;
		case 'S': synth = optarg; break;
		case 'o': out = optarg; break;
		case 'z': zk = optarg; break;
		case 'R': so.roots = (unsigned)atoi(optarg); break;
		case 't': zp_par_set_threads(atoi(optarg)); break;
		case 'g': so.device = 1; break;
		case 'c': so.device = 0; break;
		case 'T': seed = strtoull(optarg, NULL, 0); seeded = 1; break;
		case 'C':
			if (!(want = zp_curve_by_name(optarg))) {
				fprintf(stderr, "zkpipe setup: --curve %s: unknown curve (bls12-381, bn254)\n", optarg);
				return CX_USAGE;
			}
			break;
		case 'm':
			if (!strcmp(optarg, "snarkjs") || !strcmp(optarg, "coeff")) {
				so.h_mode = !strcmp(optarg, "coeff") ? ZP_H_COEFF : ZP_H_SNARKJS;
				break;
			}
			/* fall through */
		default: fputs(setup_help, stderr); return CX_USAGE;
		case 'h': fputs(setup_help, stdout); return CX_OK;
		}
	}
	if (!r1cs == !synth || !out || optind != argc || (zk && so.h_mode != ZP_H_SNARKJS)) {
		fputs(setup_help, stderr);
		return CX_USAGE;
	}
	const int to_params = !strcmp(cx_ext(out), "params");
	if (to_params && (so.h_mode != ZP_H_COEFF || (want && want->id != ZP_CURVE_BLS12_381))) {
		/* refused before the work: at 2^27 the setup takes minutes */
		rc = zp_err_set(ZP_EMISMATCH, "--out %s: .params (bellperson) keys are BLS12-381 keys with the coefficient H "
				"query: give --h-mode coeff%s", out, want && want->id != ZP_CURVE_BLS12_381 ? " and no --curve bn254" : "");
		return cx_fail("setup", rc);
	}
	fprintf(stderr, "zkpipe setup: WARNING: this is an INSECURE development key (single-party toxic waste); "
			"never use it in production\n");
	zp_circuit circ;
	zp_synth_params sp;
	zp_pkey k;
	char origin[200] = "";
	double t0 = cx_now();
	zp_progress_begin("zkpipe setup", 2, NULL); /* at 2^27 each stage takes minutes: show it moving */
	zp_progress_stage("building the circuit", 0, "items");
	if ((rc = cx_circuit(&circ, r1cs, synth, &sp)))
		return cx_fail("setup", rc);
	const zp_curve *cv = zp_curve_of(circ.curve);
	if (want && want != cv) {
		rc = zp_err_set(ZP_EMISMATCH, "--curve %s, but %s is a %s circuit%s: the curves differ", want->name,
				synth ? "the synthetic circuit" : r1cs, cv->name,
				synth ? " (synthetic circuits are BLS12-381's)" : " (the r1cs's prime field)");
		zp_circuit_free(&circ);
		return cx_fail("setup", rc);
	}
	if (to_params && cv->id != ZP_CURVE_BLS12_381) {
		rc = zp_err_set(ZP_EMISMATCH, "--out %s: .params (bellperson) keys are BLS12-381 keys; %s is a %s circuit", out,
				r1cs ? r1cs : "the synthetic circuit", cv->name);
		zp_circuit_free(&circ);
		return cx_fail("setup", rc);
	}
	if (cv->id != ZP_CURVE_BLS12_381 && so.device == -1)
		so.device = 0;   /* BN254: the CPU unless --gpu (zp_setup's auto does the same) */
	if (synth)
		zp_synth_describe(origin, sizeof(origin), &sp);
	else
		snprintf(origin, sizeof(origin), "r1cs %s", r1cs);
	so.origin = origin;
	so.stats = &stats;
	if (seeded) {
		zp_rng g;
		zp_rng_seed(&g, seed);
		for (int i = 0; i < 5; i++)
			if (cv->id == ZP_CURVE_BN254)
				zp_bn254_fr_random((zp_bn254_fr *)&toxic[i], &g);
			else
				zp_fr_random(&toxic[i], &g);
		so.toxic = toxic;
	}
	double t1 = cx_now();
	rc = zp_setup(&k, &circ, &so);
	const char *where = so.device == 0 ? "CPU" : "GPU";
	if (so.device == -1)
		where = zp_setup_gpu_available() ? "GPU" : "CPU";
	if (rc && so.device == -1 && where[0] == 'G') {
		fprintf(stderr, "zkpipe setup: warning: the GPU setup failed (%s); making the key on the CPU\n",
			zp_err_text(rc));
		so.device = 0;
		where = "CPU";
		rc = zp_setup(&k, &circ, &so);
	}
	explicit_bzero(toxic, sizeof toxic);
	if (rc) {
		zp_circuit_free(&circ);
		return cx_fail("setup", rc);
	}
	double t2 = cx_now();
	int ex = CX_OK;
	if ((rc = to_params ? zp_params_write(&k, out) : zp_pkey_write(&k, out)) || (zk && (rc = zp_pkey_write_zkey(&k, &circ, zk)))) {
		cx_fail("setup", rc);
		ex = CX_OUTPUT;
	}
	double t3 = cx_now();
	zp_progress_end(ex ? "failed" : "key written");
	char fp[33];
	zp_circuit_fingerprint_hex(&circ, fp);
	if (!ex)
		fprintf(stderr, "zkpipe setup: ok: %s, %u wires, %u public, domain 2^%u, circuit %s; circuit %.2f s, setup %.2f s, "
				"write %.2f s (%.1f MiB), %d threads, points on the %s\n"
				"zkpipe setup: stages: tables %.2f s, lagrange %.2f s, A/B1/B2 %.2f s, IC/C %.2f s, H %.2f s\n",
			cv->name, circ.n_vars, circ.n_public, circ.log_domain, fp, t1 - t0, t2 - t1, t3 - t2, k.mem_bytes / 1048576.0,
			zp_par_threads(), where, stats.tables, stats.lagrange, stats.ab, stats.c, stats.h);
	zp_pkey_free(&k);
	zp_circuit_free(&circ);
	return ex;
}
