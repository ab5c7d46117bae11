/*
 * test_writers.c — the prover's file writers (a proof's JSON, a .zpk key, a .params export) never write through a symlink
 * planted at their temporary name (each was its own tmp + rename: json_dump_file and open(O_TRUNC)
 * followed it, overwriting the victim); they write through common/zp_file.h now. Uses only the prover's
 * public calls, so it runs against the code before zp_file too.
 */
#include "g16_json.h"
#include "groth16.h"
#include "keyfile.h"
#include "params.h"
#include "setup.h"
#include "synth.h"
#include "zp_err.h"

#include "../common/zp_test.h"

#include <errno.h>
#include <sys/stat.h>

static char D[PATH_MAX];

static const char *at(const char *leaf) { return zp_test_at(D, leaf); }

static bool victim_intact(void)
{
	char b[16] = { 0 };
	FILE *f = fopen(at("victim"), "r");
	size_t n = f ? fread(b, 1, sizeof b - 1, f) : 0;
	if (f)
		fclose(f);
	return n == 2 && !strcmp(b, "V\n");
}

/* symlinks to the victim at every temporary name a writer of `name` has used */
static void plant(const char *name)
{
	char t[128];
	snprintf(t, sizeof t, "%s.tmp", name);
	if (symlink("victim", at(t))) {}
	snprintf(t, sizeof t, "%s.tmp.%d", name, (int)getpid());
	if (symlink("victim", at(t))) {}
}

static bool regular(const char *name)
{
	struct stat st;
	return lstat(at(name), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

int main(void)
{
	zp_test_tmpdir("zp_writers", D);
	FILE *f = fopen(at("victim"), "w");
	fputs("V\n", f);
	fclose(f);

	zp_g16_proof p;
	memset(&p, 0, sizeof p);
	plant("proof.json");
	int r = zp_g16_proof_write_json(at("proof.json"), &p);
	CHECK(r == 0 && regular("proof.json"), "proof JSON written: %d %s", r, zp_err_msg());
	CHECK(victim_intact(), "the proof writer wrote through the symlink at its temporary name");

	zp_pkey_header h;
	zp_pkey k;
	CHECK(zp_pkey_layout(&h, 8, 1, 16) == 0 && zp_pkey_alloc(&k, &h) == 0, "a small key: %s", zp_err_msg());
	plant("k.zpk");
	r = zp_pkey_write(&k, at("k.zpk"));
	CHECK(r == 0 && regular("k.zpk"), "key written: %d %s", r, zp_err_msg());
	CHECK(victim_intact(), "the key writer wrote through the symlink at its temporary name");

	/* the .params export streams through the same writer: no symlink followed, and a failed write
	 * (a directory that is not there) leaves nothing at the path */
	zp_synth_params sp;
	zp_synth_params_porep(&sp, 64);
	zp_circuit c;
	zp_setup_opts so = { .h_mode = ZP_H_COEFF };
	zp_pkey_free(&k);
	CHECK(zp_synth_circuit(&c, &sp) == 0 && zp_setup(&k, &c, &so) == 0, "a small coefficient-H key: %s", zp_err_msg());
	plant("k.params");
	r = zp_params_write(&k, at("k.params"));
	CHECK(r == 0 && regular("k.params"), ".params written: %d %s", r, zp_err_msg());
	CHECK(victim_intact(), "the .params writer wrote through the symlink at its temporary name");
	/* a symlink at the target itself is replaced, not written through (the stdio writer before followed it) */
	if (symlink("victim", at("k2.params"))) {}
	r = zp_params_write(&k, at("k2.params"));
	CHECK(r == 0 && regular("k2.params"), ".params over a symlink: %d %s", r, zp_err_msg());
	CHECK(victim_intact(), "the .params writer wrote through the symlink at its target");
	r = zp_params_write(&k, at("none/k.params"));
	CHECK(r < 0 && strstr(zp_err_msg(), "none"), "a .params into a missing directory: %d %s", r, zp_err_msg());
	zp_pkey_free(&k);
	zp_circuit_free(&c);
	return zp_test_done("zp_writers", D);
}
