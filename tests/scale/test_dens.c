/* One prover for Filecoin keys: a bellperson .params key loaded compact (zp_params_load: a, b_g1,
 * b_g2 as the file has them) and proved through the CPU backend's density ops (dens_upload +
 * dens_prove, bitmaps from the circuit as bellperson hands them over) gives byte for byte the proof
 * of the same file read expanded for its circuit (zp_params_read) and proved through upload/h/msm,
 * with the same r, s — and the pipelined CPU backend gives the same bytes for both. Root family 7
 * (the key records it; before keys carried it, the expanded path assumed 5 and failed). A popcount
 * that disagrees with its bitmap, and a/b/c longer than the domain, are refused. args: DIR */
#include <unistd.h>

#include "density.h"
#include "groth16.h"
#include "params.h"
#include "setup.h"
#include "synth.h"
#include "util.h"
#include "../common/bp_density.h"

int main(int argc, char **argv)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/scale_dens.params", argc > 1 ? argv[1] : ".");
	zp_synth_params p;
	zp_synth_params_porep(&p, 700);
	p.n_public = 5;
	p.nnz_b = 0.9;    /* B leaves wires out: b_g1/b_g2 are compact */
	zp_circuit c;
	zp_pkey k, x;
	zp_rng g;
	zp_rng_seed(&g, 19);
	zp_fr toxic[5], r, s;
	for (int i = 0; i < 5; i++)
		zp_fr_random(&toxic[i], &g);
	zp_fr_random(&r, &g);
	zp_fr_random(&s, &g);
	CHECK(zp_synth_circuit(&c, &p) == 0, "synth");
	zp_setup_opts so = { .h_mode = ZP_H_COEFF, .roots = 7, .toxic = toxic };
	CHECK(zp_setup(&k, &c, &so) == 0, "setup");
	CHECK(zp_params_write(&k, path) == 0, "write");
	CHECK(zp_params_read(&x, path, &c, 0) == 0, "read expanded");
	CHECK(zp_pkey_g16(&x)->roots == 7, "expanded key: root family %u, want 7", zp_pkey_g16(&x)->roots);
	zp_params_key ck;
	CHECK(zp_params_load(&ck, path) == 0, "load compact: %s", zp_err_msg());
	ck.gk.zkey = &ck.zk;
	CHECK(ck.gk.compact && ck.gk.roots == 7 && ck.gk.n_a == c.a_count && ck.gk.n_b == c.b_count,
	      "compact key: compact %d roots %u n_a %u (%llu) n_b %u (%llu)", ck.gk.compact, ck.gk.roots, ck.gk.n_a,
	      (unsigned long long)c.a_count, ck.gk.n_b, (unsigned long long)c.b_count);

	/* the witness, a/b/c and the densities as bellperson hands them over */
	size_t nv = c.n_vars, d = c.domain_size, ninp = c.n_public + 1, naux = nv - ninp;
	zp_fr *w = malloc(nv * sizeof(zp_fr)), *abc = malloc(3 * d * sizeof(zp_fr)), *abc2 = malloc(3 * d * sizeof(zp_fr));
	struct zp_bp_density bd = { 0 };
	CHECK(zp_bp_density_of(&bd, &c) == 0, "density bitmaps");
	CHECK(zp_synth_witness(w, &c, &p, 3) == 0, "witness");
	zp_circuit_eval(&c, w, abc, abc + d, abc + 2 * d);
	CHECK(zp_density_popcount(bd.a_aux, naux) == bd.pa && zp_density_popcount(bd.b_inp, ninp) == bd.pbi, "popcount");
	zp_g16_dens_in in = { .inp = w, .aux = w + ninp, .abc = { abc, abc + d, abc + 2 * d }, .abc_len = bd.rows,
			      .a_aux = bd.a_aux, .b_inp = bd.b_inp, .b_aux = bd.b_aux, .a_aux_pop = bd.pa,
			      .b_inp_pop = bd.pbi, .b_aux_pop = bd.pba };
	/* the expanded key through upload/h/msm */
	zp_g16_prover pv;
	zp_g16_proof p_exp, p_cmp, p_pipe;
	zp_g16_prove_opts o = { .r = &r, .s = &s };
	memcpy(abc2, abc, 3 * d * sizeof(zp_fr));
	CHECK(zp_g16_prover_init(&pv, zp_pkey_g16(&x), NULL) == 0, "prover init");
	CHECK(zp_g16_prover_prove_abc(&pv, &p_exp, w, (uint32_t)nv, abc2, abc2 + d, abc2 + 2 * d, &o) == 0,
	      "expanded family-7 key: prove: %s", zp_err_msg());
	zp_g16_prover_free(&pv);

	/* the compact key through the density ops: CPU, then the pipelined CPU backend */
	const zp_g16_backend_ops *bes[2] = { &zp_g16_backend_cpu, &zp_g16_backend_cpu_pipe };
	zp_g16_proof *out[2] = { &p_cmp, &p_pipe };
	for (int b = 0; b < 2; b++) {
		void *st = NULL;
		CHECK(bes[b]->create(&st, &ck.gk) == 0, "backend %d: create: %s", b, zp_err_msg());
		CHECK(zp_bp_prove_dens(bes[b], st, &ck.zk, &in, &r, &s, out[b], NULL) == 0, "backend %d: dens prove: %s", b,
		      zp_err_msg());
		CHECK(!memcmp(out[b], &p_exp, sizeof p_exp), "backend %d: compact-key proof differs from the expanded key's", b);
		zp_g16_dens_in bad = in;
		bad.b_aux_pop++;
		zp_g16_msm_out mo;
		int rc = bes[b]->dens_upload(st, &bad);
		CHECK(rc == 0 && bes[b]->dens_prove(st, &mo) == ZP_EMISMATCH, "backend %d: wrong popcount accepted", b);
		bad = in;
		bad.abc_len = d + 1;
		CHECK(bes[b]->dens_upload(st, &bad) == ZP_EMISMATCH, "backend %d: a/b/c past the domain accepted", b);
		bes[b]->destroy(st);
	}
	zp_g16_vk vk;
	CHECK(zp_zkey_vk(&vk, &ck.zk) == 0 && zp_g16_verify(&vk, &p_cmp, w + 1, c.n_public) == 0, "the proof verifies");
	/* a compact key refuses the dense ops */
	void *st = NULL;
	CHECK(zp_g16_backend_cpu.create(&st, &ck.gk) == 0, "create");
	CHECK(zp_g16_backend_cpu.upload(st, w, abc, abc + d, abc + 2 * d) != 0, "a compact key took the dense upload");
	zp_g16_backend_cpu.destroy(st);
	zp_g16_vk_free(&vk);
	zp_params_key_free(&ck);
	zp_pkey_free(&x);
	zp_pkey_free(&k);
	zp_circuit_free(&c);
	free(w), free(abc), free(abc2);
	zp_bp_density_free(&bd);
	unlink(path);
	return DONE();
}
