/* g16_backend_cmp — the CUDA prover backend against the CPU backend (prover/backend_cuda.c).
 *
 *   g16_backend_cmp zkey ZKEY WTNS          snarkjs key + witness: prove with both backends, both
 *                                           H modes (snarkjs, coeff), fixed r and s; a BN254 (bn128)
 *                                           key: the snarkjs H mode (BN254 has no coeff mode)
 *   g16_backend_cmp synth LOG [RUNS] [BOOL] synthetic PoRep-shaped circuit of domain 2^LOG with a
 *                                           dev key made here (zp_setup), RUNS timed proofs each;
 *                                           BOOL = the share of bit rows (zp_synth bool_share,
 *                                           default 0.9; 1 = every auxiliary wire is 0/1)
 * The CUDA backend is also driven through its pipeline ops (upload_async, upload_wait, prove_buf)
 * on every input set it has; G16_CMP_REGISTER=1 registers the host buffers first (host_register:
 * direct DMA instead of staging). ZP_CUDA_MSM_CHUNK / ZP_CUDA_BUFS (backend_cuda.c) apply.
 * G16_CMP_SPLIT_STORE=1: the CUDA backend twice more with a split-bases store in host memory (groth16.h
 * zp_g16_split_store): made and kept the first time, taken from the store the second; both proofs the CPU's.
 *   g16_backend_cmp params LOG [RUNS [BOOL]] a compact .params key (bellperson's layout: zp_params_write,
 *                                           zp_params_load; B in 90 % of the rows, so A and B are
 *                                           compact) of a synthetic PoRep-shaped circuit of domain
 *                                           2^LOG, proved with the density bitmaps as bellperson hands
 *                                           them over: the CPU backend's density ops, then the CUDA
 *                                           backend's compact table (zp_g16_backend_for_key), RUNS
 *                                           proofs on one state: each the CPU's bytes; a wrong popcount
 *                                           and a/b/c past the domain refused, and the state proves
 *                                           again after them; the expanded table refuses the key.
 *                                           ZP_CUDA_KEY_STREAM / KEY_RES / MEM_CAP_MB apply (run-devmem-gpu.sh)
 *   g16_backend_cmp nodev                   CI: the cuda backend on a machine without a GPU must
 *                                           fail with -ENODEV and a message saying so; a compact key
 *                                           gets the compact ops table (zp_g16_backend_for_key), each
 *                                           table has only its format's per-proof ops
 *
 * A proof passes when the CUDA proof's bytes equal the CPU proof's (same r, s) and it verified
 * (zp_g16_prover_prove_abc pairing-checks every proof; a second zp_g16_verify checks again).
 * Prints per-stage times (upload, h, msm, finish) per backend. Exit 0 pass, 1 fail, 77 no GPU.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends.h"
#include "density.h"
#include "groth16.h"
#include "keyfile.h"
#include "par.h"
#include "params.h"
#include "setup.h"
#include "synth.h"
#include "wtns.h"
#include "zkey.h"
#include "zp_err.h"
#include "../common/bp_density.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

struct stages { double create, upload, h, msm, finish, total; };

/* One proof through the ops table, timed per stage; a, b, c are copied from src first (the CPU
 * backend clobbers them). Then the self-check as zp_g16_prover_prove_abc does. */
static int prove_timed(zp_g16_prover *p, zp_g16_proof *proof, const zp_fr *w, const zp_fr *src, zp_fr *abc,
		       size_t n, const zp_fr *r, const zp_fr *s, struct stages *t)
{
	const zp_zkey *k = p->key->zkey;
	zp_g16_msm_out mo;
	int rc;
	memcpy(abc, src, 3 * n * sizeof(zp_fr));
	double t0 = now();
	if ((rc = p->be->upload(p->state, w, abc, abc + n, abc + 2 * n)))
		return rc;
	double t1 = now();
	if ((rc = p->be->h(p->state)))
		return rc;
	double t2 = now();
	if ((rc = p->be->msm(p->state, &mo)))
		return rc;
	double t3 = now();
	zp_g16_finish(proof, k, &mo, r, s);
	double t4 = now();
	t->upload = t1 - t0;
	t->h = t2 - t1;
	t->msm = t3 - t2;
	t->finish = t4 - t3;
	t->total = t4 - t0;
	zp_g16_vk vk = { .alpha1 = k->alpha1, .beta2 = k->beta2, .gamma2 = k->gamma2, .delta2 = k->delta2,
			 .n_public = k->n_public, .ic = k->ic, .curve = k->curve,
			 .bn = { k->bn.alpha1, k->bn.beta2, k->bn.gamma2, k->bn.delta2, k->bn.ic } };
	return zp_g16_verify(&vk, proof, w + 1, k->n_public);
}

static int failures;

/* G16_CMP_SPLIT_STORE=1 (synth): a split-bases store in host memory (groth16.h zp_g16_split_store, gpud's
 * is a key region): the CUDA backend runs twice, first making the split bases and offering them to the
 * store, then taking them from it; both proofs must be the CPU's. */
static struct mstore {
	zp_g16_split_arr set[8];
	void *host[8];
	unsigned n, gets, hits, puts;
	bool sealed;
} ms;

static int ms_get(void *ctx, const zp_g16_split_arr *set, unsigned n, const void **host)
{
	struct mstore *m = ctx;
	m->gets++;
	if (!m->sealed || n != m->n)
		return -ENOENT;
	for (unsigned i = 0; i < n; i++) {
		if (strcmp(set[i].name, m->set[i].name) || set[i].parts != m->set[i].parts ||
		    set[i].points != m->set[i].points || set[i].pt_bytes != m->set[i].pt_bytes)
			return -ENOENT;
		host[i] = m->host[i];
	}
	m->hits++;
	return 0;
}

static int ms_begin(void *ctx, const zp_g16_split_arr *set, unsigned n, void **host)
{
	struct mstore *m = ctx;
	m->n = n, m->sealed = false;
	for (unsigned i = 0; i < n; i++) {
		m->set[i] = set[i];
		free(m->host[i]);
		if (!(m->host[i] = host[i] = malloc((set[i].parts - 1) * set[i].points * set[i].pt_bytes)))
			return -ENOMEM;
	}
	return 0;
}

static int ms_end(void *ctx, int rc)
{
	struct mstore *m = ctx;
	m->sealed = rc == 0;
	m->puts += rc == 0;
	return rc;
}

static const zp_g16_split_store ms_ops = { &ms, ms_get, ms_begin, ms_end };

static void check(int ok, const char *what)
{
	printf("| %-58s | %s |\n", what, ok ? "PASS" : "FAIL");
	if (!ok)
		failures++;
}

/* Both backends on key/witness/a,b,c; runs timed proofs each; compare bytes. */
static int compare(const char *label, const zp_g16_key *key, const zp_fr *w, uint32_t nw, const zp_fr *abc_src,
		   int runs)
{
	const zp_g16_backend_ops *bes[3] = { &zp_g16_backend_cpu, &zp_g16_backend_cuda, &zp_g16_backend_cuda };
	int nbe = getenv("G16_CMP_SPLIT_STORE") ? 3 : 2;
	if (getenv("G16_CMP_HARNESS_ONLY")) /* checks this program itself on a machine without a GPU */
		bes[1] = bes[2] = &zp_g16_backend_cpu;
	zp_g16_key skey = *key;
	if (nbe == 3)
		skey.split_store = &ms_ops;
	size_t n = key->zkey->domain_size;
	zp_fr r, s;   /* the key's curve's Fr (groth16.h: zp_fr containers) */
	if (zp_zkey_is_bn254(key->zkey)) {
		zp_bn254_fr_from_u64((zp_bn254_fr *)&r, 123456789);
		zp_bn254_fr_from_dec((zp_bn254_fr *)&s, "987654321987654321987654321");
	} else {
		zp_fr_from_u64(&r, 123456789);
		zp_fr_from_dec(&s, "987654321987654321987654321");
	}
	zp_g16_proof pr[3];
	zp_fr *abc = aligned_alloc(64, (3 * n * sizeof(zp_fr) + 63) / 64 * 64);
	if (!abc)
		return -ENOMEM;
	for (int b = 0; b < nbe; b++) {
		zp_g16_prover p;
		struct stages best = { 0 }, t;
		double t0 = now();
		unsigned hits0 = ms.hits;
		int rc = zp_g16_prover_init(&p, b && nbe == 3 ? &skey : key, bes[b]);
		if (b && nbe == 3)
			printf("  %s %s (split store): %s\n", label, bes[b]->name,
			       ms.hits > hits0 ? "split bases from the store" : ms.puts ? "split bases made, kept in the store" : "no split bases");
		best.create = now() - t0;
		for (int i = 0; i < runs && !rc; i++) {
			zp_g16_proof q;
			rc = prove_timed(&p, i ? &q : &pr[b], w, abc_src, abc, n, &r, &s, &t);
			if (!rc && i && memcmp(&q, &pr[b], sizeof q))
				rc = zp_err_set(ZP_EVERIFY, "run %d's proof differs from run 1's", i + 1);
			if (!rc && (i == 0 || t.total < best.total))
				t.create = best.create, best = t;
		}
		/* the pipeline ops (gpud's device path), on every input set: the same bytes */
		for (int buf = 0; !rc && bes[b]->prove_buf && buf < bes[b]->nbufs(p.state); buf++) {
			zp_g16_proof q;
			zp_g16_msm_out mo;
			const zp_fr *sa = abc_src;
			if (!(rc = bes[b]->upload_async(p.state, buf, w, sa, sa + n, sa + 2 * n)) &&
			    !(rc = bes[b]->upload_wait(p.state, buf)) && !(rc = bes[b]->prove_buf(p.state, buf, &mo))) {
				zp_g16_finish(&q, key->zkey, &mo, &r, &s);
				if (memcmp(&q, &pr[b], sizeof q))
					rc = zp_err_set(ZP_EVERIFY, "prove_buf(%d)'s proof differs from the staged one", buf);
			}
			if (!rc)
				printf("  %s %s: pipeline ops on input set %d: same proof\n", label, bes[b]->name, buf);
		}
		/* the same through the library's own entry point: the same bytes */
		if (!rc) {
			zp_g16_proof q;
			zp_g16_prove_opts o = { .backend = bes[b], .r = &r, .s = &s };
			memcpy(abc, abc_src, 3 * n * sizeof(zp_fr));
			rc = zp_g16_prover_prove_abc(&p, &q, w, nw, abc, abc + n, abc + 2 * n, &o);
			if (!rc && memcmp(&q, &pr[b], sizeof q))
				rc = zp_err_set(ZP_EVERIFY, "zp_g16_prover_prove_abc's proof differs from the staged one");
		}
		zp_g16_prover_free(&p);
		char what[128];
		snprintf(what, sizeof what, "%s: %s backend proves and verifies", label, bes[b]->name);
		check(rc == 0, what);
		if (rc) {
			printf("  error: %s\n", zp_err_msg());
			free(abc);
			return rc;
		}
		printf("  %s %s: create %.3f s; best of %d: upload %.4f h %.4f msm %.4f finish %.4f total %.4f s\n",
		       label, bes[b]->name, best.create, runs, best.upload, best.h, best.msm, best.finish, best.total);
	}
	char what[128];
	snprintf(what, sizeof what, "%s: cuda proof == cpu proof (bytes, same r and s)", label);
	check(!memcmp(&pr[0], &pr[1], sizeof pr[0]), what);
	if (nbe == 3) {
		snprintf(what, sizeof what, "%s: split bases kept once, then taken from the store", label);
		check(ms.puts == 1 && ms.hits == 1, what);
		snprintf(what, sizeof what, "%s: cuda proof from stored split bases == cpu proof", label);
		check(!memcmp(&pr[0], &pr[2], sizeof pr[0]), what);
	}
	free(abc);
	return 0;
}

static int run_zkey(const char *zk, const char *wt)
{
	zp_zkey k;
	zp_wtns w;
	if (zp_zkey_read(&k, zk) || zp_wtns_read(&w, wt)) {
		fprintf(stderr, "g16_backend_cmp: %s\n", zp_err_msg());
		return 1;
	}
	size_t n = k.domain_size;
	zp_fr *abc = aligned_alloc(64, (3 * n * sizeof(zp_fr) + 63) / 64 * 64);
	if (!abc)
		return 1;
	zp_circuit_eval(&k.circuit, w.w, abc, abc + n, abc + 2 * n);
	const char *base = strrchr(zk, '/') ? strrchr(zk, '/') + 1 : zk;
	for (int m = 0; m < (zp_zkey_is_bn254(&k) ? 1 : 2); m++) {
		zp_g16_key key;
		char label[96];
		snprintf(label, sizeof label, "%s (%s, 2^%u, %s H)", base, zp_zkey_is_bn254(&k) ? "bn254" : "bls12-381",
			 k.log_domain, m ? "coeff" : "snarkjs");
		if (zp_g16_key_init(&key, &k, m ? ZP_H_COEFF : ZP_H_SNARKJS)) {
			check(0, "key init");
			continue;
		}
		compare(label, &key, w.w, w.n, abc, 2);
		zp_g16_key_free(&key);
	}
	free(abc);
	zp_wtns_free(&w);
	zp_zkey_free(&k);
	return failures ? 1 : 0;
}

/* The PoRep-shaped synthetic circuit of domain 2^lg (bool_share, nnz_b: the defaults when < 0), its witness
 * (seed 42) and A·w, B·w, C·w in abc (three domain-sized vectors, 64-byte aligned): 0, or the exit code after
 * a message (2: bad parameters). */
struct porep_case { zp_synth_params sp; zp_circuit c; zp_fr *w, *abc; };

static int porep_case(struct porep_case *k, unsigned lg, double bool_share, double nnz_b)
{
	zp_synth_params_porep(&k->sp, (1u << lg) - 329 - 1);
	if (bool_share >= 0)
		k->sp.bool_share = bool_share;
	if (nnz_b >= 0)
		k->sp.nnz_b = nnz_b;
	if (zp_synth_check(&k->sp)) {
		fprintf(stderr, "g16_backend_cmp: %s\n", zp_err_msg());
		return 2;
	}
	if (zp_synth_circuit(&k->c, &k->sp)) {
		fprintf(stderr, "g16_backend_cmp: synth: %s\n", zp_err_msg());
		return 1;
	}
	size_t nv = k->c.n_vars, d = k->c.domain_size;
	k->w = aligned_alloc(64, (nv * sizeof(zp_fr) + 63) / 64 * 64);
	k->abc = aligned_alloc(64, (3 * d * sizeof(zp_fr) + 63) / 64 * 64);
	if (!k->w || !k->abc || zp_synth_witness(k->w, &k->c, &k->sp, 42)) {
		fprintf(stderr, "g16_backend_cmp: witness: %s\n", zp_err_msg());
		return 1;
	}
	zp_circuit_eval(&k->c, k->w, k->abc, k->abc + d, k->abc + 2 * d);
	return 0;
}

static int run_synth(unsigned lg, int runs, double bool_share)
{
	struct porep_case k;
	double t0 = now();
	int rc = porep_case(&k, lg, bool_share, -1);
	if (rc)
		return rc;
	zp_circuit c = k.c;
	zp_fr *w = k.w, *abc = k.abc;
	uint32_t nv = c.n_vars;
	size_t n = c.domain_size;
	double t1 = now();
	zp_pkey pk;
	zp_setup_opts so = { .h_mode = ZP_H_SNARKJS, .roots = 5, .origin = "g16_backend_cmp" };
	if (zp_setup(&pk, &c, &so)) {
		fprintf(stderr, "g16_backend_cmp: setup: %s\n", zp_err_msg());
		return 1;
	}
	double t2 = now();
	static const zp_fr zero;
	size_t nb = 0;
	for (uint32_t i = 0; i < nv; i++)
		nb += !memcmp(&w[i], &zero, sizeof zero) || !memcmp(&w[i], &ZP_FR_ONE, sizeof zero);
	printf("  synth 2^%u: %u wires (%.2f%% 0/1), %u rows; circuit+witness %.1f s, dev key %.1f s (%d threads)\n", lg,
	       nv, 100.0 * (double)nb / nv, c.n_constraints, t1 - t0, t2 - t1, zp_par_threads());
	if (getenv("G16_CMP_REGISTER") && zp_g16_backend_cuda.host_register) {
		int r1 = zp_g16_backend_cuda.host_register(w, (size_t)nv * sizeof(zp_fr));
		int r2 = r1 ? r1 : zp_g16_backend_cuda.host_register(abc, 3 * n * sizeof(zp_fr));
		printf("  host_register(w, a|b|c): %s\n", r2 ? zp_err_msg() : "ok (direct DMA)");
	}
	char label[64];
	snprintf(label, sizeof label, "synth 2^%u bool %.2f (snarkjs H)", lg, k.sp.bool_share);
	compare(label, zp_pkey_g16(&pk), w, nv, abc, runs);
	if (getenv("G16_CMP_REGISTER") && zp_g16_backend_cuda.host_unregister) {
		zp_g16_backend_cuda.host_unregister(w);
		zp_g16_backend_cuda.host_unregister(abc);
	}
	zp_pkey_free(&pk);
	zp_circuit_free(&c);
	free(w);
	free(abc);
	return failures ? 1 : 0;
}


static int run_params(unsigned lg, int runs, double bool_share)
{
	struct porep_case k;
	int rc = porep_case(&k, lg, bool_share, 0.9); /* B leaves wires out: b_g1 / b_g2 compact */
	if (rc)
		return rc;
	zp_circuit c = k.c;
	zp_fr *w = k.w, *abc = k.abc;
	size_t nv = c.n_vars, d = c.domain_size, ninp = c.n_public + 1;
	struct zp_bp_density bd = { 0 };
	if (zp_bp_density_of(&bd, &c)) {
		fprintf(stderr, "g16_backend_cmp: %s\n", zp_err_msg());
		return 1;
	}
	zp_g16_dens_in in = { .inp = w, .aux = w + ninp, .abc = { abc, abc + d, abc + 2 * d }, .abc_len = bd.rows,
			      .a_aux = bd.a_aux, .b_inp = bd.b_inp, .b_aux = bd.b_aux,
			      .a_aux_pop = bd.pa, .b_inp_pop = bd.pbi, .b_aux_pop = bd.pba };
	/* the key: bellperson's coefficient H, root family 7, written as a .params and loaded compact */
	char path[] = "/tmp/g16cmp-XXXXXX";
	int fd = mkstemp(path);
	zp_pkey pk;
	zp_params_key ck;
	zp_fr r, s;
	zp_rng g;
	zp_rng_seed(&g, 7);
	zp_fr_random(&r, &g);
	zp_fr_random(&s, &g);
	zp_setup_opts so = { .h_mode = ZP_H_COEFF, .roots = 7, .origin = "g16_backend_cmp" };
	double t0 = now();
	if (fd < 0 || zp_setup(&pk, &c, &so) || zp_params_write(&pk, path) || zp_params_load(&ck, path)) {
		fprintf(stderr, "g16_backend_cmp: the .params key: %s\n", zp_err_msg());
		if (fd >= 0)
			unlink(path), close(fd);
		return 1;
	}
	unlink(path);
	close(fd);
	zp_pkey_free(&pk);
	ck.gk.zkey = &ck.zk;
	printf("  params 2^%u bool %.2f: %zu wires, A %u points, B %u (compact), key %.1f s\n", lg, k.sp.bool_share, nv,
	       ck.gk.n_a, ck.gk.n_b, now() - t0);
	check(ck.gk.compact && ck.gk.n_b < nv, "the key is compact");
	/* the CPU's density ops: the reference bytes */
	zp_g16_proof ref, pf;
	void *st = NULL;
	double ms = 0;
	rc = zp_g16_backend_cpu.create(&st, &ck.gk);
	if (!rc)
		rc = zp_bp_prove_dens(&zp_g16_backend_cpu, st, &ck.zk, &in, &r, &s, &ref, &ms);
	if (st)
		zp_g16_backend_cpu.destroy(st);
	printf("  cpu: %s (%.0f ms)\n", rc ? zp_err_msg() : "ok", ms);
	check(!rc, "CPU density ops prove");
	zp_g16_vk vk;
	check(!zp_zkey_vk(&vk, &ck.zk) && !zp_g16_verify(&vk, &ref, w + 1, c.n_public), "the CPU proof verifies");
	/* the CUDA backend: its compact table, picked by the key's format */
	const zp_g16_backend_ops *be = zp_g16_backend_for_key(&zp_g16_backend_cuda, &ck.gk);
	check(be == &zp_g16_backend_cuda_params && !be->upload && be->dens_prove, "the compact table for a compact key");
	st = NULL;
	check(zp_g16_backend_cuda.create(&st, &ck.gk) == ZP_ERANGE && !st, "the expanded table refuses a compact key");
	int reg = getenv("G16_CMP_REGISTER") && be->host_register &&
		  !be->host_register(w, nv * sizeof(zp_fr)) && !be->host_register(abc, 3 * d * sizeof(zp_fr)) &&
		  !be->host_register(bd.a_aux, bd.words * 8);
	if (getenv("G16_CMP_REGISTER"))
		printf("  host_register(w, a|b|c, bits): %s\n", reg ? "ok (direct DMA)" : zp_err_msg());
	t0 = now();
	rc = be->create(&st, &ck.gk);
	printf("  cuda create: %s (%.2f s)\n", rc ? zp_err_msg() : "ok", now() - t0);
	check(!rc, "CUDA compact create");
	for (int i = 0; !rc && i < (runs > 0 ? runs : 1); i++) {
		memset(&pf, 0, sizeof pf);
		int prc = zp_bp_prove_dens(be, st, &ck.zk, &in, &r, &s, &pf, &ms);
		printf("  cuda proof %d: %s (%.1f ms)%s\n", i, prc ? zp_err_msg() : "ok", ms,
		       !prc && !memcmp(&pf, &ref, ZP_G16_PROOF_BLS12_381_BYTES) ? ", the CPU's bytes" : "");
		check(!prc && !memcmp(&pf, &ref, ZP_G16_PROOF_BLS12_381_BYTES), "CUDA compact proof = the CPU's bytes");
	}
	if (!rc) {
		zp_g16_dens_in bad = in;
		zp_g16_msm_out mo;
		bad.b_aux_pop++;
		int urc = be->dens_upload(st, &bad), prc = urc ? urc : be->dens_prove(st, &mo);
		printf("  wrong popcount: %s\n", zp_err_msg());
		check(!urc && prc == ZP_EMISMATCH, "a wrong popcount refused at prove");
		bad = in;
		bad.abc_len = d + 1;
		check(be->dens_upload(st, &bad) == ZP_EMISMATCH, "a/b/c past the domain refused");
		check(be->dens_prove(st, &mo) != 0, "no proof without an upload");
		memset(&pf, 0, sizeof pf);
		int arc = zp_bp_prove_dens(be, st, &ck.zk, &in, &r, &s, &pf, &ms);
		check(!arc && !memcmp(&pf, &ref, ZP_G16_PROOF_BLS12_381_BYTES), "after the refusals: the CPU's bytes again");
		be->destroy(st);
	}
	if (reg) {
		be->host_unregister(w);
		be->host_unregister(abc);
		be->host_unregister(bd.a_aux);
	}
	zp_g16_vk_free(&vk);
	zp_params_key_free(&ck);
	zp_circuit_free(&c);
	free(w);
	free(abc);
	zp_bp_density_free(&bd);
	return failures ? 1 : 0;
}

/* CI, no GPU: choosing cuda is a clear error, not a crash. */
static int run_nodev(void)
{
	const zp_g16_backend_ops *be;
	zp_err_clear();
	int rc = zp_g16_backend_find(&be, "cuda");
	if (rc == 0) {
		printf("a CUDA device is present: this check is for machines without one\n");
		return 77;
	}
	printf("zp_g16_backend_find(cuda): %d: %s\n", rc, zp_err_msg());
	check(rc == -ENODEV && be == NULL && strstr(zp_err_msg(), "no CUDA GPU"), "no GPU: -ENODEV, message names it");
	/* the ops table directly: create() checks too, no crash, no state */
	zp_zkey zk = { .n_vars = 4, .n_public = 1, .domain_size = 4, .log_domain = 2 };
	zp_g16_key key = { .zkey = &zk, .h_mode = ZP_H_SNARKJS };
	zp_g16_prover p;
	rc = zp_g16_prover_init(&p, &key, &zp_g16_backend_cuda);
	check(rc == -ENODEV && p.state == NULL, "no GPU: zp_g16_prover_init(cuda) fails cleanly");
	zp_g16_prover_free(&p);
	/* the ops table by the key's format (issue 32 item 4): a compact key gets the compact table, whose
	 * create fails as cleanly; neither table has the other format's per-proof ops */
	zp_g16_key ck = { .zkey = &zk, .h_mode = ZP_H_COEFF, .compact = true, .n_a = 2, .n_b = 1 };
	check(zp_g16_backend_for_key(&zp_g16_backend_cuda, &ck) == &zp_g16_backend_cuda_params &&
	      zp_g16_backend_for_key(&zp_g16_backend_cuda, &key) == &zp_g16_backend_cuda &&
	      zp_g16_backend_for_key(&zp_g16_backend_cpu, &ck) == &zp_g16_backend_cpu, "the ops table by the key's format");
	check(!zp_g16_backend_cuda.dens_upload && !zp_g16_backend_cuda.dens_prove && zp_g16_backend_cuda.prove_buf &&
	      zp_g16_backend_cuda_params.dens_upload && zp_g16_backend_cuda_params.dens_prove &&
	      !zp_g16_backend_cuda_params.upload && !zp_g16_backend_cuda_params.prove_buf, "each table its format's ops");
	void *st = NULL;
	rc = zp_g16_backend_cuda_params.create(&st, &ck);
	check(rc == -ENODEV && st == NULL, "no GPU: the compact table's create fails cleanly");
	check(zp_g16_backend_find(&be, "cpu") == 0 && be == &zp_g16_backend_cpu, "cpu backend by name");
	check(zp_g16_backend_find(&be, "opencl") == ZP_ERANGE, "unknown backend name rejected");
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "nodev"))
		return run_nodev();
	const zp_g16_backend_ops *be;
	char desc[160] = "";
	int rc = getenv("G16_CMP_HARNESS_ONLY") ? 0 : zp_g16_backend_find(&be, "cuda");
	if (rc) {
		printf("skip: %s\n", zp_err_msg());
		return 77;
	}
	if (!getenv("G16_CMP_HARNESS_ONLY"))
		zp_g16_backend_cuda_probe(desc, sizeof desc);
	printf("# device: %s\n", desc);
	if (argc == 4 && !strcmp(argv[1], "zkey"))
		return run_zkey(argv[2], argv[3]);
	if (argc >= 3 && argc <= 5 && !strcmp(argv[1], "synth"))
		return run_synth((unsigned)atoi(argv[2]), argc >= 4 ? atoi(argv[3]) : 3, argc == 5 ? atof(argv[4]) : -1);
	if (argc >= 3 && argc <= 5 && !strcmp(argv[1], "params"))
		return run_params((unsigned)atoi(argv[2]), argc >= 4 ? atoi(argv[3]) : 2, argc == 5 ? atof(argv[4]) : -1);
	fprintf(stderr, "usage: g16_backend_cmp zkey ZKEY WTNS | synth LOG [RUNS [BOOL]] | params LOG [RUNS [BOOL]] | nodev\n");
	return 2;
}
