/*
 * ss_harness.c — calls libzkpipe-supraseal exactly as bellperson (cuda-supraseal) does, on synthetic
 * PoRep-shaped partitions, and checks what comes back.
 *
 *   ss_harness keygen PARAMS ROWS PUB [--toxic-seed N] [--zpk FILE]
 *                                              dev key (roots 7, coefficient H) written as .params;
 *                                              toxic waste from seed N (pinned-bytes tests), else
 *                                              getrandom; --zpk also writes the key as a .zpk
 *   ss_harness prove PARAMS ROWS PUB K [opts]  K partitions in one call; every proof is verified
 *        --split          curio's start/finalize instead of generate_groth16_proofs_c
 *        --seed S         witness seeds S, S+1, ...
 *        --bad-witness    partition 0 does not satisfy the circuit (expects a failure message)
 *        --repeat R       R calls in a row (same circuits, fresh r, s)
 *        --stats          print the library's per-call stats (bench)
 *        --expect-code E  expect the call to fail with code E (errno number) and a message
 *        --aux-off D      pass aux_assignment_size + D (size mismatch test)
 *        --hold-ms M      sleep M ms between the calls (kill tests)
 *        --gate DIR       call r > 0 waits for DIR/go.<r>; DIR/done.<r> is written when call r ends
 *        --rs-seed N      r, s of every partition from seed N (not getrandom): pinned-bytes tests
 *        --out FILE       write the last call's proofs (384 bytes each, in order) to FILE
 *        --same-witness   every partition the same witness (one partition's memory: at 2^27 ten distinct
 *                         ones are ~170 GB, more than a 128 GiB GPU host holds; proofs still differ by r, s)
 *   ss_harness srs PARAMS [--expect-code E]    create_SRS only
 *
 * Synthesis is what bellperson's ProvingAssignment holds after synthesize + the input constraints:
 * input_assignment = [1, public...], aux_assignment = the private wires, a/b/c = A·w, B·w, C·w
 * over constraints + inputs (abc_size), density bit vectors of aux wires in A and in B and of
 * input wires in B (bitvec u64 words, LSB first). Exit 0 pass, 1 fail.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ec.h"
#include "groth16.h"
#include "keyfile.h"
#include "params.h"
#include "setup.h"
#include "ss_part.h"
#include "ss_stats.h"
#include "supraseal_abi.h"
#include "synth.h"
#include "zp_err.h"

static int failf(const char *fmt, const char *a)
{
	fprintf(stderr, "FAIL: ");
	fprintf(stderr, fmt, a);
	fprintf(stderr, "\n");
	return 1;
}

static void params_for(zp_synth_params *p, uint32_t rows, uint32_t pub)
{
	zp_synth_params_porep(p, rows);
	p->n_public = pub;
	p->window = 256;
	p->gen = 1;   /* the rows the pinned proof bytes (pinned.sh) were made with */
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int keygen(int argc, char **argv)
{
	const char *path = argv[2], *zpk = NULL;
	uint32_t rows = (uint32_t)atoi(argv[3]), pub = (uint32_t)atoi(argv[4]);
	zp_fr toxic[5];
	bool seeded = false;
	for (int i = 5; i < argc; i++) {
		if (!strcmp(argv[i], "--toxic-seed") && i + 1 < argc) {
			zp_rng g;
			zp_rng_seed(&g, strtoull(argv[++i], NULL, 10));
			for (int t = 0; t < 5; t++)
				zp_fr_random(&toxic[t], &g);
			seeded = true;
		} else if (!strcmp(argv[i], "--zpk") && i + 1 < argc) {
			zpk = argv[++i];
		} else {
			return failf("keygen: unknown option %s", argv[i]);
		}
	}
	zp_synth_params sp;
	params_for(&sp, rows, pub);
	zp_circuit c;
	zp_pkey k;
	zp_setup_opts o = { .h_mode = ZP_H_COEFF, .roots = 7, .origin = "ss_harness", .device = -1, /* GPU when there is one */
			    .toxic = seeded ? toxic : NULL };
	int r;
	if ((r = zp_synth_circuit(&c, &sp)) || (r = zp_setup(&k, &c, &o)))
		return failf("keygen: %s", zp_err_msg());
	if ((r = zp_params_write(&k, path)))
		return failf("params write: %s", zp_err_msg());
	if (zpk && (r = zp_pkey_write(&k, zpk)))
		return failf("zpk write: %s", zp_err_msg());
	printf("keygen: %s: %u rows, %u public, %u vars, domain %u\n", path, rows, pub, c.n_vars, c.domain_size);
	zp_pkey_free(&k);
	zp_circuit_free(&c);
	return 0;
}

static int make_part(struct ss_part *P, const zp_circuit *c, const zp_synth_params *sp, uint64_t seed, bool bad)
{
	size_t nv = c->n_vars, d = c->domain_size;
	zp_fr *w = malloc(nv * sizeof(zp_fr)), *a = malloc(d * sizeof(zp_fr)), *b = malloc(d * sizeof(zp_fr)),
	      *cc = malloc(d * sizeof(zp_fr));
	if (!w || !a || !b || !cc)
		return -ENOMEM;
	int r = zp_synth_witness(w, c, sp, seed);
	if (r)
		return r;
	zp_circuit_eval(c, w, a, b, cc);
	if (bad) { /* one aux value off: a/b/c no longer satisfy a∘b = c */
		zp_fr one = ZP_FR_ONE;
		zp_fr_add(&w[nv - 1], &w[nv - 1], &one);
		zp_circuit_eval(c, w, a, b, cc);
		zp_fr_add(&cc[0], &cc[0], &one);
	}
	P->w = w, P->a = a, P->b = b, P->c = cc;
	return zp_bp_density_of(&P->d, c);
}

static int check_error(zp_ss_error e, int expect, const char *what)
{
	if (expect < 0) {
		if (e.code) {
			fprintf(stderr, "FAIL: %s: code %d: %s\n", what, e.code, e.message ? e.message : "(no message)");
			free(e.message);
			return 1;
		}
		return 0;
	}
	if (e.code != expect || !e.message || !e.message[0]) {
		fprintf(stderr, "FAIL: %s: expected code %d with a message, got %d: %s\n", what, expect, e.code,
			e.message ? e.message : "(none)");
		free(e.message);
		return 1;
	}
	printf("%s: code %d as expected: %s\n", what, e.code, e.message);
	free(e.message);
	return 2; /* expected failure seen */
}

static int cmd_srs(int argc, char **argv)
{
	int expect = -1;
	for (int i = 3; i < argc; i++)
		if (!strcmp(argv[i], "--expect-code") && i + 1 < argc)
			expect = atoi(argv[++i]);
	zp_ss_srs srs;
	int r = check_error(create_SRS(&srs, argv[2], false), expect, "create_SRS");
	if (r == 1)
		return 1;
	if (r == 0) {
		zp_ss_srs c2 = clone_SRS(&srs);
		if (c2.ptr != srs.ptr)
			return failf("clone_SRS: %s", "another handle");
		drop_SRS(&c2);
		drop_SRS(&srs);
	}
	return 0;
}

/* --gate DIR: call rep > 0 waits for DIR/go.<rep>; DIR/done.<rep> says call rep ended (the test's steps between
 * calls of one process — one SRS handle — without a sleep that guesses how long they take) */
static int gate_wait(const char *dir, int rep)
{
	char f[PATH_MAX];
	snprintf(f, sizeof f, "%s/go.%d", dir, rep);
	while (access(f, F_OK) != 0)
		usleep(20000);
	return 0;
}

static int gate_done(const char *dir, int rep)
{
	char f[PATH_MAX];
	snprintf(f, sizeof f, "%s/done.%d", dir, rep);
	FILE *fp = fopen(f, "we");
	return fp && fclose(fp) == 0 ? 0 : failf("cannot write %s", f);
}

static int cmd_prove(int argc, char **argv)
{
	if (argc < 6)
		return failf("%s", "usage: prove PARAMS ROWS PUB K [opts]");
	const char *path = argv[2];
	uint32_t rows = (uint32_t)atoi(argv[3]), pub = (uint32_t)atoi(argv[4]);
	size_t K = (size_t)atoi(argv[5]);
	bool split = false, bad = false, stats = false, same = false;
	int expect = -1, repeat = 1, hold_ms = 0;
	long aux_off = 0;
	uint64_t seed = 1, rs_seed = 0;
	const char *out = NULL, *gate = NULL;
	for (int i = 6; i < argc; i++) {
		if (!strcmp(argv[i], "--split")) split = true;
		else if (!strcmp(argv[i], "--bad-witness")) bad = true;
		else if (!strcmp(argv[i], "--stats")) stats = true;
		else if (!strcmp(argv[i], "--same-witness")) same = true;
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--expect-code") && i + 1 < argc) expect = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--aux-off") && i + 1 < argc) aux_off = atol(argv[++i]);
		else if (!strcmp(argv[i], "--hold-ms") && i + 1 < argc) hold_ms = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--rs-seed") && i + 1 < argc) rs_seed = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
		else if (!strcmp(argv[i], "--gate") && i + 1 < argc) gate = argv[++i];
		else return failf("unknown option %s", argv[i]);
	}
	zp_synth_params sp;
	params_for(&sp, rows, pub);
	zp_circuit c;
	if (zp_synth_circuit(&c, &sp))
		return failf("circuit: %s", zp_err_msg());
	/* the verifying key, read back from the .params head with zkpipe's own reader (the proving
	 * vectors are gpud's business: decoding and checking them here took minutes at 2^24) */
	zp_g16_vk vk;
	if (zp_params_read_vk(&vk, path, c.n_public))
		return failf("params read: %s", zp_err_msg());
	struct ss_part *P = calloc(K, sizeof *P);
	zp_ss_assignment *as = calloc(K, sizeof *as);
	zp_fr *r_s = calloc(K, sizeof(zp_fr)), *s_s = calloc(K, sizeof(zp_fr));
	zp_ss_proof *proofs = calloc(K, sizeof *proofs);
	double tw = now_s();
	for (size_t i = 0; i < K; i++) {
		if (same && i > 0)
			P[i] = P[0];
		else if (make_part(&P[i], &c, &sp, seed + i, bad && i == 0))
			return failf("witness: %s", zp_err_msg());
		as[i] = ss_assignment_of(&P[i], aux_off);
	}
	if (stats)
		printf("witness: %zu partition%s synthesized in %.3f s\n", same ? (size_t)1 : K, same || K == 1 ? "" : "s",
		       now_s() - tw);
	zp_ss_srs srs;
	if (check_error(create_SRS(&srs, path, true), -1, "create_SRS"))
		return 1;
	int fails = 0;
	for (int rep = 0; rep < repeat; rep++) {
		if (gate && rep > 0 && gate_wait(gate, rep))
			return 1;
		zp_rng g;
		zp_rng_seed(&g, rs_seed);
		for (size_t i = 0; i < K; i++) {
			if (rs_seed)
				zp_fr_random(&r_s[i], &g), zp_fr_random(&s_s[i], &g);
			else
				zp_fr_random_secure(&r_s[i]), zp_fr_random_secure(&s_s[i]);
		}
		memset(proofs, 0, K * sizeof *proofs);
		double t0 = now_s();
		zp_ss_error e;
		if (split) {
			void *pend = NULL;
			void *mtx = create_gpu_mutex();
			e = generate_groth16_proofs_start_c(as, K, r_s, s_s, &srs, mtx, -1, &pend);
			if (!e.code)
				e = finalize_groth16_proof_c(pend, proofs);
			destroy_gpu_mutex(mtx);
		} else {
			e = generate_groth16_proofs_c(as, K, r_s, s_s, proofs, &srs);
		}
		double dt = now_s() - t0;
		int er = check_error(e, bad ? EIO : expect, split ? "start/finalize" : "generate_groth16_proofs_c");
		if (er == 1)
			return 1;
		if (er == 2)
			goto next;
		for (size_t i = 0; i < K; i++) {
			zp_g16_proof pf;
			memset(&pf, 0, sizeof pf);   /* a BLS12-381 proof (curve NULL) */
			memcpy(&pf, &proofs[i], sizeof proofs[i]);
			int v = zp_g16_verify(&vk, &pf, P[i].w + 1, pub);
			if (v) {
				fprintf(stderr, "FAIL: call %d partition %zu: proof does not verify (%s)\n", rep, i, zp_strerror(v));
				fails++;
			}
		}
		printf("call %d: %zu partitions proved and verified in %.3f s\n", rep, K, dt);
		if (out) {
			FILE *fp = fopen(out, "we");
			if (!fp || fwrite(proofs, sizeof *proofs, K, fp) != K || fclose(fp))
				return failf("cannot write %s", out);
		}
		if (stats) {
			struct zkpipe_ss_stats st;
			zkpipe_supraseal_stats(&st);
			printf("stats: parts %u bytes %" PRIu64 " total_ms %.3f start_ms %.3f slot_wait_ms %.3f copy_ms %.3f "
			       "handoff_ms %.3f prove_ms %.3f wait_ms %.3f setup_ms %.3f first_ready_ms %.3f take_ms %.3f\n", st.parts,
			       st.bytes, st.total_ns / 1e6, st.start_ns / 1e6, st.slot_wait_ns / 1e6, st.copy_ns / 1e6,
			       st.handoff_ns / 1e6, st.prove_ns / 1e6, st.wait_ns / 1e6, st.setup_ns / 1e6, st.first_ready_ns / 1e6,
			       st.copy_out_ns / 1e6);
			printf("timeline: ready_ms %.3f gpu_start_ms %.3f gpu_end_ms %.3f done_ms %.3f seen_ms %.3f total_ms %.3f\n",
			       st.last_ready_at_ns / 1e6, st.last_gpu_start_at_ns / 1e6, st.last_gpu_end_at_ns / 1e6,
			       st.last_done_at_ns / 1e6, st.seen_at_ns / 1e6, st.total_ns / 1e6);
		}
next:
		if (gate && gate_done(gate, rep))
			return 1;
		if (hold_ms)
			usleep((useconds_t)hold_ms * 1000);
	}
	/* the same r, s twice must give the same proof (the prover is deterministic given r, s) */
	if (!bad && expect < 0 && K >= 1) {
		zp_ss_proof p2[1];
		zp_ss_error e = generate_groth16_proofs_c(as, 1, r_s, s_s, p2, &srs);
		if (check_error(e, -1, "determinism call"))
			return 1;
		if (memcmp(&p2[0], &proofs[0], sizeof p2[0]))
			return failf("%s", "same assignment and r, s gave a different proof");
	}
	drop_SRS(&srs);
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "keygen"))
		return keygen(argc, argv);
	if (argc >= 3 && !strcmp(argv[1], "srs"))
		return cmd_srs(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "prove"))
		return cmd_prove(argc, argv);
	fprintf(stderr, "usage: ss_harness keygen|srs|prove ...\n");
	return 2;
}
