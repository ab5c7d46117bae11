/*
 * ss_cmp.c — feeds one library with supraseal-c2's C ABI (supraseal/supraseal_abi.h), loaded by path
 * with dlopen, synthetic PoRep-shaped Assignments, fixed r, s and a .params key, and writes the proof
 * bytes; run once with libzkpipe-supraseal (through a running pipeline) and once with supraseal-c2
 * itself (built beside the project, never linked into it: tests/cuda/run-ssc2-cmp.sh), the two files
 * must be equal byte for byte (issue 32 item 5). Nothing of the library is linked: only its path.
 *
 *   ss_cmp prove LIB PARAMS SPEC K [--seed S] [--rs-seed N] [--reps R] [--out FILE]
 *        LIB     the library (libzkpipe-supraseal.so.0 or supraseal-c2's .so)
 *        SPEC    the synthetic circuit the key was made for (zkpipe setup --synth SPEC), e.g.
 *                n=65207,pub=328,bool=0.99 (prover/synth.h; "synth:" optional)
 *        K       partitions in one call: witness seeds S, S+1, ... (default S = 1)
 *        --rs-seed N  r, s of partition i drawn from seed N (default 1): the same in both runs
 *        --reps R     R + 1 calls with the same assignments and r, s (the first one loads the key):
 *                     every call must give the same bytes; times of calls 1..R are reported
 *        --out FILE   the proofs (384 bytes each, groth16_proof order) of the last call
 *        --dump DIR   the K partitions and their r, s from dump's DIR/part<i>.bin instead of synthesized
 *                     (same bytes for dump's seeds: the digest line says so; no circuit is built)
 *   ss_cmp cmp A B K   compares two proof files: which partitions and which of A, B, C differ
 *   ss_cmp dump SPEC K DIR [--seed S] [--rs-seed N]
 *        writes the same K partitions and r, s as prove would use to DIR/part<i>.bin for a caller in
 *        another language (the Rust crate's test, rust/supraseal-c2/examples/bellperson_drive.rs):
 *        6 × u64 LE (inputs, aux, abc_size, a_aux, b_inp, b_aux popcounts), then inputs ++ aux,
 *        a, b, c (abc_size each), the a_aux, b_inp, b_aux bit vectors (ceil(bits/64) u64 words
 *        each, as bellperson's BitVec<usize> raw slices), r, s (32 bytes each, Montgomery)
 *   ss_cmp verify PARAMS SPEC K FILE [--seed S] [--same | --dump DIR]
 *        pairing-checks the K proofs in FILE against the key's verifying key and the public inputs
 *        of the partitions with witness seeds S, S+1, ... (--same: every one of seed S; --dump DIR:
 *        every one of DIR/part0.bin, dump's file, its inputs read from there: no circuit or witness
 *        is built, which at 2^27 is a minute)
 *
 * prove prints (besides progress): "share: P % non-0/1 (N of M aux values)" measured on the
 * witnesses, "digest: X" (FNV-1a over every Assignment vector and r, s: the inputs were the same
 * when two runs print the same digest), every proof checked with a pairing against the key's
 * verifying key (zkpipe's own .params reader), and one line
 *   "result: calls R first_ms F median_ms M best_ms B"
 * Exit 0 pass, 1 fail, 2 usage.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ec.h"
#include "groth16.h"
#include "params.h"
#include "ss_part.h"
#include "ss_stats.h"
#include "supraseal_abi.h"
#include "synth.h"
#include "zp_err.h"

typedef zp_ss_error (*create_srs_fn)(zp_ss_srs *, const char *, bool);
typedef void (*drop_srs_fn)(zp_ss_srs *);
/* curio's 8-argument form: supranational's 6-argument one and libzkpipe-supraseal ignore the last two
 * (the caller cleans the stack; on SysV x86-64 they travel in registers), curio's takes NULL = its own
 * mutex and -1 = any GPU */
typedef zp_ss_error (*prove_fn)(const zp_ss_assignment *, size_t, const zp_fr *, const zp_fr *, zp_ss_proof *,
				const zp_ss_srs *, void *, int);

static int failf(const char *fmt, const char *a)
{
	fprintf(stderr, "ss_cmp: FAIL: ");
	fprintf(stderr, fmt, a);
	fprintf(stderr, "\n");
	return 1;
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int make_part(struct ss_part *P, const zp_circuit *c, const zp_synth_params *sp, uint64_t seed)
{
	size_t nv = c->n_vars, d = c->domain_size;
	P->w = malloc(nv * sizeof(zp_fr));
	P->a = malloc(d * sizeof(zp_fr)), P->b = malloc(d * sizeof(zp_fr)), P->c = malloc(d * sizeof(zp_fr));
	if (!P->w || !P->a || !P->b || !P->c)
		return zp_err_set(-ENOMEM, "witness: out of memory (%zu variables, domain %zu)", nv, d);
	int r = zp_synth_witness_abc(P->w, P->a, P->b, P->c, c, sp, seed);
	return r ? r : zp_bp_density_of(&P->d, c);
}

/* Partition i as dump wrote it to DIR/part<i>.bin, with its r and s: the bytes make_part and prove's r, s
 * give for dump's seeds, without the circuit or the witness being built (a minute at 2^27). r == NULL: the
 * inputs only (P->w's first n_public + 1 values; what verify needs, not the 16 GB of a 2^27 partition). */
static int load_part(struct ss_part *P, zp_fr *r, zp_fr *s, const char *dir, size_t i, uint32_t n_public)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/part%zu.bin", dir, i);
	memset(P, 0, sizeof *P);
	uint64_t h[6];
	FILE *fp = fopen(path, "re");
	if (!fp || fread(h, sizeof h, 1, fp) != 1 || h[0] != (uint64_t)n_public + 1 || h[1] > (1ull << 32) ||
	    h[2] > (1ull << 32)) {
		if (fp)
			fclose(fp);
		return zp_err_set(ZP_EFORMAT, "%s: not a dump of a circuit with %u public inputs", path, n_public);
	}
	struct zp_bp_density *d = &P->d;
	d->n_inp = h[0], d->n_aux = h[1], d->rows = h[2], d->pa = h[3], d->pbi = h[4], d->pba = h[5];
	if (!r) {
		bool got = (P->w = malloc(d->n_inp * sizeof(zp_fr))) && fread(P->w, sizeof(zp_fr), d->n_inp, fp) == d->n_inp;
		fclose(fp);
		return got ? 0 : zp_err_set(ZP_ETRUNC, "%s: short, or out of memory", path);
	}
	size_t wa = (d->n_aux + 63) / 64, wi = (d->n_inp + 63) / 64;
	d->words = 2 * (wa + 1) + wi + 1; /* zp_bp_density_of's layout: a spare zero word after each */
	d->a_aux = calloc(d->words, 8);
	P->w = malloc((d->n_inp + d->n_aux) * sizeof(zp_fr));
	P->a = malloc(d->rows * sizeof(zp_fr)), P->b = malloc(d->rows * sizeof(zp_fr)), P->c = malloc(d->rows * sizeof(zp_fr));
	bool ok = d->a_aux && P->w && P->a && P->b && P->c;
	if (ok) {
		d->b_aux = d->a_aux + wa + 1, d->b_inp = d->b_aux + wa + 1;
		ok = fread(P->w, sizeof(zp_fr), d->n_inp + d->n_aux, fp) == d->n_inp + d->n_aux &&
		     fread(P->a, sizeof(zp_fr), d->rows, fp) == d->rows && fread(P->b, sizeof(zp_fr), d->rows, fp) == d->rows &&
		     fread(P->c, sizeof(zp_fr), d->rows, fp) == d->rows && fread(d->a_aux, 8, wa, fp) == wa &&
		     fread(d->b_inp, 8, wi, fp) == wi && fread(d->b_aux, 8, wa, fp) == wa && fread(r, sizeof *r, 1, fp) == 1 &&
		     fread(s, sizeof *s, 1, fp) == 1;
	}
	fclose(fp);
	return ok ? 0 : zp_err_set(ZP_ETRUNC, "%s: short, or out of memory", path);
}

/* FNV-1a, 64-bit words at a time (a fingerprint of the inputs, not a security property) */
static uint64_t fnv(uint64_t h, const void *p, size_t bytes)
{
	const uint64_t *q = p;
	for (size_t i = 0; i < bytes / 8; i++)
		h = (h ^ q[i]) * 0x100000001b3ull;
	return h;
}

/* What prove, dump and verify share: SPEC's synthetic circuit, K partitions (1 to 64) with witness
 * seeds seed, seed + 1, ..., and the options after K that `opts` allows. */
enum { OPT_RS = 1, OPT_PROVE = 2, OPT_SAME = 4, OPT_DUMP = 8 }; /* --rs-seed; --reps and --out; --same; --dump */
struct ss_case {
	char spec[512]; /* SPEC with "synth:" */
	zp_synth_params sp;
	zp_circuit c;
	size_t k;
	uint64_t seed, rs_seed;
	int reps;
	int same;       /* verify --same: every proof of the one witness of seed S (a template partition proved K times) */
	const char *dump; /* --dump DIR: the partitions (and r, s) are dump's files there; the circuit is not built */
	const char *out;
};

static int parse_case(struct ss_case *cs, const char *spec, const char *k, int argc, char **argv, int from,
		      unsigned opts)
{
	long kk = atol(k);
	cs->seed = cs->rs_seed = 1, cs->reps = 1, cs->out = NULL, cs->same = 0, cs->dump = NULL;
	for (int i = from; i < argc; i++) {
		bool arg = i + 1 < argc;
		if (!strcmp(argv[i], "--seed") && arg) cs->seed = strtoull(argv[++i], NULL, 10);
		else if ((opts & OPT_RS) && !strcmp(argv[i], "--rs-seed") && arg) cs->rs_seed = strtoull(argv[++i], NULL, 10);
		else if ((opts & OPT_PROVE) && !strcmp(argv[i], "--reps") && arg) cs->reps = atoi(argv[++i]);
		else if ((opts & OPT_PROVE) && !strcmp(argv[i], "--out") && arg) cs->out = argv[++i];
		else if ((opts & OPT_SAME) && !strcmp(argv[i], "--same")) cs->same = 1;
		else if ((opts & OPT_DUMP) && !strcmp(argv[i], "--dump") && arg) cs->dump = argv[++i];
		else return failf("unknown option %s", argv[i]);
	}
	if (kk < 1 || kk > 64 || cs->reps < 0 || cs->reps > 100)
		return failf("%s", "K must be in [1, 64], --reps in [0, 100]");
	cs->k = (size_t)kk;
	snprintf(cs->spec, sizeof cs->spec, "%s%s", strncmp(spec, "synth:", 6) ? "synth:" : "", spec);
	memset(&cs->c, 0, sizeof cs->c);
	if (zp_synth_parse(&cs->sp, cs->spec) || (!cs->dump && zp_synth_circuit(&cs->c, &cs->sp)))
		return failf("circuit: %s", zp_err_msg());
	cs->c.n_public = cs->sp.n_public; /* what a --dump verify needs of the circuit */
	return 0;
}

/* Pairing-checks pf, the proof of partition P, against vk: 0 or the verifier's error. */
static int check_proof(const zp_g16_vk *vk, const zp_ss_proof *pf, const struct ss_part *P, uint32_t n_public)
{
	zp_g16_proof q;
	memset(&q, 0, sizeof q); /* a BLS12-381 proof (curve NULL) */
	memcpy(&q, pf, sizeof *pf);
	return zp_g16_verify(vk, &q, P->w + 1, n_public);
}

static int cmd_prove(int argc, char **argv)
{
	if (argc < 6)
		return failf("%s", "usage: ss_cmp prove LIB PARAMS SPEC K [--seed S] [--rs-seed N] [--reps R] [--out FILE] [--dump DIR]");
	const char *lib = argv[2], *path = argv[3];
	struct ss_case cs;
	if (parse_case(&cs, argv[4], argv[5], argc, argv, 6, OPT_RS | OPT_PROVE | OPT_DUMP))
		return 1;
	const zp_circuit c = cs.c;
	const size_t K = cs.k;
	const int reps = cs.reps;
	zp_g16_vk vk;
	if (zp_params_read_vk(&vk, path, c.n_public))
		return failf("%s", zp_err_msg());

	double t0 = now_ms();
	struct ss_part *P = calloc(K, sizeof *P);
	zp_ss_assignment *as = calloc(K, sizeof *as);
	zp_fr *rr = calloc(K, sizeof(zp_fr)), *ss = calloc(K, sizeof(zp_fr));
	zp_ss_proof *pf = calloc(K, sizeof *pf), *first = calloc(K, sizeof *first);
	if (!P || !as || !rr || !ss || !pf || !first)
		return failf("%s", "out of memory");
	uint64_t nonbit = 0, naux = 0, dg = 0xcbf29ce484222325ull;
	zp_rng g;
	zp_rng_seed(&g, cs.rs_seed);
	for (size_t i = 0; i < K; i++) {
		zp_fr_random(&rr[i], &g), zp_fr_random(&ss[i], &g);
		if (cs.dump ? load_part(&P[i], &rr[i], &ss[i], cs.dump, i, c.n_public)
			    : make_part(&P[i], &c, &cs.sp, cs.seed + i))
			return failf("witness: %s", zp_err_msg());
		as[i] = ss_assignment_of(&P[i], 0);
		for (size_t j = 0; j < P[i].d.n_aux; j++) {
			const zp_fr *v = &P[i].w[P[i].d.n_inp + j];
			nonbit += !zp_fr_is_zero(v) && !zp_fr_eq(v, &ZP_FR_ONE);
		}
		naux += P[i].d.n_aux;
		dg = fnv(dg, P[i].w, (P[i].d.n_inp + P[i].d.n_aux) * sizeof(zp_fr));
		dg = fnv(dg, P[i].a, P[i].d.rows * sizeof(zp_fr));
		dg = fnv(dg, P[i].b, P[i].d.rows * sizeof(zp_fr));
		dg = fnv(dg, P[i].c, P[i].d.rows * sizeof(zp_fr));
		dg = fnv(dg, P[i].d.a_aux, (P[i].d.n_aux + 63) / 64 * 8);
		dg = fnv(dg, P[i].d.b_aux, (P[i].d.n_aux + 63) / 64 * 8);
		dg = fnv(dg, P[i].d.b_inp, (P[i].d.n_inp + 63) / 64 * 8);
		dg = fnv(dg, &rr[i], sizeof(zp_fr));
		dg = fnv(dg, &ss[i], sizeof(zp_fr));
	}
	if (cs.dump)
		printf("circuit: %s: %u public, %zu variables, %zu rows; %zu partition%s read from %s in %.0f ms\n", cs.spec,
		       c.n_public, P[0].d.n_inp + P[0].d.n_aux, P[0].d.rows, K, K == 1 ? "" : "s", cs.dump, now_ms() - t0);
	else
		printf("circuit: %s: %u constraints, %u public, %u variables, domain %u; %zu partition%s synthesized in %.0f ms\n",
		       cs.spec, c.n_constraints, c.n_public, c.n_vars, c.domain_size, K, K == 1 ? "" : "s", now_ms() - t0);
	printf("share: %.3f %% non-0/1 (%" PRIu64 " of %" PRIu64 " aux values)\n", 100.0 * (double)nonbit / (double)naux,
	       nonbit, naux);
	printf("digest: %016" PRIx64 " (assignments, density bitmaps, r, s)\n", dg);
	fflush(stdout);

	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return failf("dlopen: %s", dlerror());
	create_srs_fn create = (create_srs_fn)dlsym(h, "create_SRS");
	drop_srs_fn drop = (drop_srs_fn)dlsym(h, "drop_SRS");
	prove_fn prove = (prove_fn)dlsym(h, "generate_groth16_proofs_c");
	void (*stats)(struct zkpipe_ss_stats *) = (void (*)(struct zkpipe_ss_stats *))dlsym(h, "zkpipe_supraseal_stats");
	if (!create || !drop || !prove)
		return failf("%s does not export create_SRS, drop_SRS and generate_groth16_proofs_c", lib);
	zp_ss_srs srs = { 0 };
	zp_ss_error e = create(&srs, path, true);
	if (e.code) {
		fprintf(stderr, "ss_cmp: FAIL: create_SRS(%s): code %d: %s\n", path, e.code, e.message ? e.message : "");
		return 1;
	}
	double *ms = calloc((size_t)reps + 1, sizeof(double));
	int fails = 0;
	for (int call = 0; call <= reps; call++) {
		memset(pf, 0, K * sizeof *pf);
		double a = now_ms();
		e = prove(as, K, rr, ss, pf, &srs, NULL, -1);
		ms[call] = now_ms() - a;
		if (e.code) {
			fprintf(stderr, "ss_cmp: FAIL: call %d: code %d: %s\n", call, e.code, e.message ? e.message : "");
			return 1;
		}
		printf("call %d: %zu partition%s in %.1f ms\n", call, K, K == 1 ? "" : "s", ms[call]);
		if (stats) {   /* libzkpipe-supraseal's extension: where the call's time went */
			struct zkpipe_ss_stats st;
			stats(&st);
			printf("stats %d: setup %.1f first_ready %.1f slot_wait %.1f copy %.1f handoff %.1f prove %.1f wait %.1f; "
			       "last partition: ready %.1f gpu_start %.1f gpu_end %.1f done %.1f seen %.1f ms\n", call,
			       st.setup_ns / 1e6, st.first_ready_ns / 1e6, st.slot_wait_ns / 1e6, st.copy_ns / 1e6,
			       st.handoff_ns / 1e6, st.prove_ns / 1e6, st.wait_ns / 1e6, st.last_ready_at_ns / 1e6,
			       st.last_gpu_start_at_ns / 1e6, st.last_gpu_end_at_ns / 1e6, st.last_done_at_ns / 1e6,
			       st.seen_at_ns / 1e6);
		}
		if (call == 0)
			memcpy(first, pf, K * sizeof *pf);
		else if (memcmp(first, pf, K * sizeof *pf)) {
			fprintf(stderr, "ss_cmp: FAIL: call %d: the same assignments and r, s gave other proof bytes\n", call);
			fails++;
		}
	}
	for (size_t i = 0; i < K; i++) {
		int v = check_proof(&vk, &pf[i], &P[i], c.n_public);
		if (v) {
			fprintf(stderr, "ss_cmp: FAIL: partition %zu: the proof does not verify (%s)\n", i, zp_strerror(v));
			fails++;
		}
	}
	if (!fails)
		printf("verified: %zu proof%s (pairing check against the key's verifying key)\n", K, K == 1 ? "" : "s");
	if (cs.out) {
		FILE *fp = fopen(cs.out, "we");
		if (!fp || fwrite(pf, sizeof *pf, K, fp) != K || fclose(fp))
			return failf("cannot write %s", cs.out);
	}
	/* calls 1..R (the first call also loads the key in either library) */
	double best = 0, med = 0;
	if (reps > 0) {
		for (int i = 1; i <= reps; i++)
			for (int j = i + 1; j <= reps; j++)
				if (ms[j] < ms[i]) {
					double t = ms[i];
					ms[i] = ms[j], ms[j] = t;
				}
		best = ms[1], med = ms[1 + (reps - 1) / 2];
	}
	printf("result: calls %d first_ms %.1f median_ms %.1f best_ms %.1f\n", reps, ms[0], med, best);
	drop(&srs);
	return fails ? 1 : 0;
}

static int cmd_cmp(int argc, char **argv)
{
	if (argc < 5)
		return failf("%s", "usage: ss_cmp cmp A B K");
	size_t K = (size_t)atol(argv[4]);
	zp_ss_proof *p[2];
	for (int f = 0; f < 2; f++) {
		FILE *fp = fopen(argv[2 + f], "re");
		p[f] = calloc(K + 1, sizeof(zp_ss_proof));
		if (!fp || !p[f] || fread(p[f], sizeof(zp_ss_proof), K + 1, fp) != K)
			return failf("%s: cannot read exactly K proofs", argv[2 + f]);
		fclose(fp);
	}
	int diff = 0;
	for (size_t i = 0; i < K; i++) {
		bool da = memcmp(&p[0][i].a, &p[1][i].a, sizeof p[0][i].a), db = memcmp(&p[0][i].b, &p[1][i].b, sizeof p[0][i].b),
		     dc = memcmp(&p[0][i].c, &p[1][i].c, sizeof p[0][i].c);
		if (da || db || dc) {
			printf("partition %zu: differs in%s%s%s\n", i, da ? " A" : "", db ? " B" : "", dc ? " C" : "");
			diff++;
		}
	}
	printf("%s: %zu proof%s, %d differ\n", diff ? "DIFFERENT" : "EQUAL", K, K == 1 ? "" : "s", diff);
	return diff ? 1 : 0;
}

static int write_all(FILE *fp, const void *p, size_t bytes) { return fwrite(p, 1, bytes, fp) == bytes ? 0 : -1; }

static int cmd_dump(int argc, char **argv)
{
	if (argc < 5)
		return failf("%s", "usage: ss_cmp dump SPEC K DIR [--seed S] [--rs-seed N]");
	const char *dir = argv[4];
	struct ss_case cs;
	if (parse_case(&cs, argv[2], argv[3], argc, argv, 5, OPT_RS))
		return 1;
	zp_rng g;
	zp_rng_seed(&g, cs.rs_seed);
	for (size_t i = 0; i < cs.k; i++) {
		struct ss_part P;
		zp_fr r, s;
		if (make_part(&P, &cs.c, &cs.sp, cs.seed + i))
			return failf("witness: %s", zp_err_msg());
		zp_fr_random(&r, &g), zp_fr_random(&s, &g);
		char path[4096];
		snprintf(path, sizeof path, "%s/part%zu.bin", dir, i);
		FILE *fp = fopen(path, "we");
		if (!fp)
			return failf("cannot create %s", path);
		uint64_t hdr[6] = { P.d.n_inp, P.d.n_aux, P.d.rows, P.d.pa, P.d.pbi, P.d.pba };
		size_t wa = (P.d.n_aux + 63) / 64 * 8, wi = (P.d.n_inp + 63) / 64 * 8;
		int e = write_all(fp, hdr, sizeof hdr) || write_all(fp, P.w, (P.d.n_inp + P.d.n_aux) * sizeof(zp_fr)) ||
			write_all(fp, P.a, P.d.rows * sizeof(zp_fr)) || write_all(fp, P.b, P.d.rows * sizeof(zp_fr)) ||
			write_all(fp, P.c, P.d.rows * sizeof(zp_fr)) || write_all(fp, P.d.a_aux, wa) ||
			write_all(fp, P.d.b_inp, wi) || write_all(fp, P.d.b_aux, wa) || write_all(fp, &r, sizeof r) ||
			write_all(fp, &s, sizeof s);
		if (fclose(fp) || e)
			return failf("cannot write %s", path);
		ss_part_free(&P);
	}
	printf("dumped: %zu partition%s of %s to %s\n", cs.k, cs.k == 1 ? "" : "s", cs.spec, dir);
	return 0;
}

static int cmd_verify(int argc, char **argv)
{
	if (argc < 6)
		return failf("%s", "usage: ss_cmp verify PARAMS SPEC K FILE [--seed S] [--same | --dump DIR]");
	const char *path = argv[2], *file = argv[5];
	struct ss_case cs;
	if (parse_case(&cs, argv[3], argv[4], argc, argv, 6, OPT_SAME | OPT_DUMP))
		return 1;
	cs.same |= !!cs.dump;
	const size_t k = cs.k;
	zp_g16_vk vk;
	if (zp_params_read_vk(&vk, path, cs.c.n_public))
		return failf("%s", zp_err_msg());
	zp_ss_proof *pf = calloc(k + 1, sizeof *pf);
	FILE *fp = fopen(file, "re");
	if (!pf || !fp || fread(pf, sizeof *pf, k + 1, fp) != k)
		return failf("%s: cannot read exactly K proofs", file);
	fclose(fp);
	int fails = 0;
	struct ss_part P;
	if (cs.dump && load_part(&P, NULL, NULL, cs.dump, 0, cs.c.n_public))
		return failf("%s", zp_err_msg());
	for (size_t i = 0; i < k; i++) {
		if (!cs.dump && (!cs.same || !i) && make_part(&P, &cs.c, &cs.sp, cs.seed + (cs.same ? 0 : i)))
			return failf("witness: %s", zp_err_msg());
		int v = check_proof(&vk, &pf[i], &P, cs.c.n_public);
		if (v) {
			fprintf(stderr, "ss_cmp: FAIL: %s: partition %zu: the proof does not verify (%s)\n", file, i,
				zp_strerror(v));
			fails++;
		}
		if (!cs.same || i == k - 1)
			ss_part_free(&P);
	}
	if (fails)
		return 1;
	printf("verified: %s: %zu proof%s (pairing check against the key's verifying key)\n", file, k, k == 1 ? "" : "s");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "dump"))
		return cmd_dump(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "verify"))
		return cmd_verify(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "prove"))
		return cmd_prove(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "cmp"))
		return cmd_cmp(argc, argv);
	fprintf(stderr, "usage: ss_cmp prove LIB PARAMS SPEC K [opts] | cmp A B K | dump SPEC K DIR [opts] | "
			"verify PARAMS SPEC K FILE [--seed S] [--same | --dump DIR]\n");
	return 2;
}
