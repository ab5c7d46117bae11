/*
 * zkpipe synth — synthetic PoRep-shaped circuits (prover/synth.h): sizes, synthesis benchmark
 * (witness + the three sparse products), and proving with a key made for them.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>

#include "backends.h"
#include "cmd_util.h"
#include "g16_json.h"
#include "groth16.h"
#include "keyfile.h"
#include "par.h"
#include "zp_mem.h"

static const char synth_help[] =
	"usage: zkpipe synth info  --synth SPEC\n"
	"       zkpipe synth bench --synth SPEC [--runs N] [--wseed S]\n"
	"       zkpipe synth prove --synth SPEC --key KEY.zpk [--wseed S] [--runs N] [--proof P --public U]\n"
	"                          [--backend cpu|cuda]\n"
	"  SPEC: n=ROWS[,pub=328,bool=0.9,free=0.3,a=2.4,b=1.0,c=2.2,win=65536,seed=1] (docs/keys.md).\n"
	"  bench: times one partition's synthesis — the fused witness + a, b, c pass, and zp_circuit_eval —\n"
	"         old (reference) vs new in the same run, checks the bytes are equal and a∘b = c.\n"
	"  prove: proves a fresh witness with a key from `zkpipe setup --synth`; each run is a one-shot\n"
	"         proof (zp_g16_prove: a CUDA backend makes no split-MSM bases for it).\n"
	"  --threads N   worker threads\n";

static int info(const zp_synth_params *p)
{
	zp_circuit c;
	uint32_t ds, lg;
	zp_domain_for((uint64_t)p->n_constraints + p->n_public + 1, &ds, &lg);
	uint64_t cb = zp_synth_circuit_bytes(p), wb = (uint64_t)zp_synth_n_vars(p) * 32, ab = 3ull * ds * 32;
	zp_pkey_header h;
	zp_pkey_layout(&h, zp_synth_n_vars(p), p->n_public, ds);
	printf("wires %u (public %u), constraints %u, domain 2^%u\n", zp_synth_n_vars(p), p->n_public, p->n_constraints, lg);
	printf("memory: circuit (CSR A, B, C) ~%.2f GiB, witness %.2f GiB, a/b/c %.2f GiB, key (.zpk) %.2f GiB\n",
	       cb / 1073741824.0, wb / 1073741824.0, ab / 1073741824.0, h.file_bytes / 1073741824.0);
	(void)c;
	return CX_OK;
}

static double best_of(double a, double b) { return a < b ? a : b; }

static uint64_t csr_bytes(const zp_circuit *c)
{
	uint64_t b = 0;
	for (int m = 0; m < 3; m++)
		b += (c->m[m].rows + 1ull) * 8 + c->m[m].nnz * (4 + (c->m[m].val ? 32 : 0) + (c->m[m].code ? 1 : 0));
	return b;
}

/* The circuit as it was before coefficient codes: 32-byte values, no codes (shares row_ptr and
 * col with c; free with old_free). */
static int old_form(zp_circuit *o, const zp_circuit *c)
{
	*o = *c;
	for (int m = 0; m < 3; m++) {
		zp_csr *s = &o->m[m];
		s->code = NULL;
		if (!(s->val = aligned_alloc(64, (s->nnz * sizeof(zp_fr) + 64) / 64 * 64)))
			return -ENOMEM;
		for (uint64_t k = 0; k < s->nnz; k++)
			s->val[k] = *zp_csr_coef(&c->m[m], k);
	}
	return 0;
}

static void old_free(zp_circuit *o)
{
	for (int m = 0; m < 3; m++)
		free(o->m[m].val);
}

/* old (the reference passes on the old circuit form) vs new, same run, same bytes checked */
static int bench(const zp_synth_params *p, int runs, uint64_t wseed)
{
	zp_circuit c;
	double t0 = cx_now();
	int rc = zp_synth_circuit(&c, p);
	if (rc)
		return cx_fail("synth bench", rc);
	double t1 = cx_now();
	size_t n = c.domain_size, nv = c.n_vars;
	zp_fr *w = malloc(nv * sizeof(zp_fr)), *w2 = malloc(nv * sizeof(zp_fr));
	zp_fr *abc = zp_aligned_alloc(64, 3 * n * sizeof(zp_fr)), *abc2 = zp_aligned_alloc(64, 3 * n * sizeof(zp_fr));
	if (!w || !w2 || !abc || !abc2) {
		rc = zp_err_set(-ENOMEM, "witness and a, b, c");
		goto out;
	}
	memset(abc, 0, 3 * n * sizeof(zp_fr));
	memset(abc2, 0, 3 * n * sizeof(zp_fr));
	zp_circuit old;
	memset(&old, 0, sizeof(old));
	if ((rc = old_form(&old, &c))) {
		rc = zp_err_set(-ENOMEM, "old-form circuit");
		goto out;
	}
	uint64_t nnz = c.m[0].nnz + c.m[1].nnz + c.m[2].nnz;
	printf("circuit: %u rows, domain 2^%u, nnz A %.3f B %.3f C %.3f per row; built in %.2f s (%d threads)\n",
	       p->n_constraints, c.log_domain, (double)c.m[0].nnz / p->n_constraints, (double)c.m[1].nnz / p->n_constraints,
	       (double)c.m[2].nnz / p->n_constraints, t1 - t0, zp_par_threads());
	double fo = 1e30, fn = 1e30, eo = 1e30, en = 1e30;
	for (int r = 0; r < runs && !rc; r++) {
		uint64_t s = wseed + (uint64_t)r;
		double a = cx_now();
		rc = zp_synth_witness_abc_ref(w, abc, abc + n, abc + 2 * n, &old, p, s);
		double b = cx_now();
		if (!rc)
			rc = zp_synth_witness_abc(w2, abc2, abc2 + n, abc2 + 2 * n, &c, p, s);
		double d = cx_now();
		if (!rc && (memcmp(w, w2, nv * sizeof(zp_fr)) || memcmp(abc, abc2, 3 * n * sizeof(zp_fr))))
			rc = zp_err_set(ZP_EMISMATCH, "fused pass: new and old bytes differ (run %d)", r + 1);
		double e = cx_now();
		if (!rc)
			zp_circuit_eval_ref(&old, w, abc, abc + n, abc + 2 * n);
		double f = cx_now();
		if (!rc)
			zp_circuit_eval(&c, w, abc2, abc2 + n, abc2 + 2 * n);
		double g = cx_now();
		if (!rc && memcmp(abc, abc2, 3 * n * sizeof(zp_fr)))
			rc = zp_err_set(ZP_EMISMATCH, "zp_circuit_eval: new and old bytes differ (run %d)", r + 1);
		if (!rc)
			rc = zp_circuit_check(&c, abc, abc + n, abc + 2 * n);
		printf("run %d: fused witness+abc old %.3f s new %.3f s; A·w B·w C·w old %.3f s new %.3f s%s\n", r + 1,
		       b - a, d - b, f - e, g - f, rc ? "" : "; bytes equal, a∘b = c holds");
		fo = best_of(fo, b - a), fn = best_of(fn, d - b), eo = best_of(eo, f - e), en = best_of(en, g - f);
	}
	if (!rc) {
		uint64_t bits = 0;
		for (uint32_t i = p->n_public + 1; i < c.n_vars; i++)
			bits += zp_fr_is_zero(&w[i]) || zp_fr_eq(&w[i], &ZP_FR_ONE);
		printf("aux values that are bits: %.1f%%; %.1f M non-zeros; circuit in memory: old %.3f GiB, new %.3f GiB\n",
		       100.0 * bits / (c.n_vars - p->n_public - 1), nnz / 1e6, csr_bytes(&old) / 1073741824.0,
		       csr_bytes(&c) / 1073741824.0);
		printf("| rows | bool | threads | fused old s | fused new s | speed-up | eval old s | eval new s | speed-up |\n");
		printf("| 2^%u | %.2f | %d | %.3f | %.3f | %.2fx | %.3f | %.3f | %.2fx |\n", c.log_domain,
		       p->bool_share, zp_par_threads(), fo, fn, fo / fn, eo, en, eo / en);
	}
	old_free(&old);
out:
	free(w);
	free(w2);
	free(abc);
	free(abc2);
	zp_circuit_free(&c);
	return rc ? cx_fail("synth bench", rc) : CX_OK;
}

static int prove(const zp_synth_params *p, const char *key, uint64_t wseed, int runs, const char *proof, const char *pub,
		 const char *backend)
{
	zp_g16_prove_opts o = { 0 };
	int brc = zp_g16_backend_find(&o.backend, backend);
	if (brc)
		return cx_fail("synth prove", brc);
	zp_circuit c;
	zp_pkey k;
	zp_fr *w = NULL;
	double t0 = cx_now();
	int rc = zp_synth_circuit(&c, p);
	if (rc)
		return cx_fail("synth prove", rc);
	double t1 = cx_now();
	zp_pkey_load_opts lo = { .fingerprint = c.fingerprint };
	zp_pkey_load_stats st;
	if ((rc = zp_pkey_load(&k, key, &lo, &st))) {
		zp_circuit_free(&c);
		return cx_fail("synth prove", rc);
	}
	printf("circuit %.2f s; key %s: %.2f GiB in %.2f s (%s)%s\n", t1 - t0, key, st.bytes / 1073741824.0, st.seconds,
	       st.direct ? "O_DIRECT" : "buffered", k.hdr->flags & ZP_PKEY_INSECURE ? " [INSECURE development key]" : "");
	if (!(w = malloc((size_t)c.n_vars * sizeof(zp_fr)))) {
		rc = zp_err_set(-ENOMEM, "witness");
		goto out;
	}
	for (int r = 0; r < runs && !rc; r++) {
		zp_g16_proof pr;
		double a = cx_now();
		if ((rc = zp_synth_witness(w, &c, p, wseed + (uint64_t)r)))
			break;
		double b = cx_now();
		if ((rc = zp_g16_prove(&pr, zp_pkey_g16(&k), &c, w, c.n_vars, &o)))
			break;
		double e = cx_now();
		printf("run %d: witness %.3f s, prove (a/b/c, H, MSMs, self-check) %.3f s (%s backend)\n", r + 1, b - a, e - b,
		       o.backend->name);
		if (r == 0 && proof && ((rc = zp_g16_proof_write_json(proof, &pr)) ||
					(rc = zp_g16_public_write_json(pub, w + 1, c.n_public))))
			break;
	}
out:
	free(w);
	zp_pkey_free(&k);
	zp_circuit_free(&c);
	return rc ? cx_fail("synth prove", rc) : CX_OK;
}

int cmd_synth(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "synth", 1, 0, 'S' }, { "key", 1, 0, 'k' }, { "wseed", 1, 0, 'w' }, { "runs", 1, 0, 'n' },
		{ "proof", 1, 0, 'p' }, { "public", 1, 0, 'u' }, { "threads", 1, 0, 't' }, { "backend", 1, 0, 'b' },
		{ "help", 0, 0, 'h' }, { 0 } };
	const char *spec = NULL, *key = NULL, *proof = NULL, *pub = NULL, *backend = "cpu";
	uint64_t wseed = 1;
	int c, ex, runs = 1, rc;
	const char *sub = cx_subcommand(&argc, &argv, synth_help, &ex);
	if (!sub)
		return ex;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'S': spec = optarg; break;
		case 'k': key = optarg; break;
		case 'w': wseed = strtoull(optarg, NULL, 0); break;
		case 'n': runs = atoi(optarg); break;
		case 'p': proof = optarg; break;
		case 'u': pub = optarg; break;
		case 't': zp_par_set_threads(atoi(optarg)); break;
		case 'b': backend = optarg; break;
		case 'h': fputs(synth_help, stdout); return CX_OK;
		default: fputs(synth_help, stderr); return CX_USAGE;
		}
	}
	zp_synth_params p;
	if (!spec || optind != argc || runs < 1 || !proof != !pub) {
		fputs(synth_help, stderr);
		return CX_USAGE;
	}
	if ((rc = cx_parse_synth(&p, spec)))
		return cx_fail("synth", rc);
	if (!strcmp(sub, "info"))
		return info(&p);
	if (!strcmp(sub, "bench"))
		return bench(&p, runs, wseed);
	if (!strcmp(sub, "prove") && key)
		return prove(&p, key, wseed, runs, proof, pub, backend);
	fputs(synth_help, stderr);
	return CX_USAGE;
}
