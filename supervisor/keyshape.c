/*
 * keyshape.c — what a configured key needs, read from its files without loading it (keyshape.h): the
 * zkey/zpk header or the synth parameters, the r1cs, the witness generator's files; and slot_size =
 * auto from the keys' needs. The supervisor's (it validates keys at start and on reload); it reads the
 * key files through the prover, which the pipeline library does not link.
 */
#include "keyshape.h"
#include "config.h"
#include "health.h"
#include "payload_zp.h"
#include "sys.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "circuit.h"
#include "keyfile.h"
#include "r1cs.h"
#include "synth.h"
#include "zkey.h"
#include "zp_err.h"

static bool ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

static int exec_ok(const char *what, const char *path, const char *key)
{
	struct stat st;
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return zp_err_set(-ENOENT, "key %s: %s %s: %s", key, what, path, errno ? strerror(errno) : "not a file");
	return 0;
}

/* The generator's files: wasm + generate_witness.js beside it, or the C++ binary (+ .dat). */
static int witgen_ok(const struct zp_pipe_key *k)
{
	char p[PATH_MAX + 32];
	if (k->wasm[0]) {
		int r = exec_ok("wasm", k->wasm, k->name);
		const char *sl = strrchr(k->wasm, '/');
		snprintf(p, sizeof p, "%.*s/generate_witness.js", (int)(sl ? sl - k->wasm : 1), sl ? k->wasm : ".");
		return r ? r : exec_ok("wasm's generator (beside it)", p, k->name);
	}
	if (k->witness_bin[0]) {
		if (access(k->witness_bin, X_OK))
			return zp_err_set(-errno, "key %s: witness_bin %s: %s", k->name, k->witness_bin, strerror(errno));
		snprintf(p, sizeof p, "%s.dat", k->witness_bin);
		return exec_ok("witness_bin's .dat (beside it)", p, k->name);
	}
	return 0;
}

int sup_key_shape(const struct zp_pipe_key *k, struct zp_key_shape *s)
{
	memset(s, 0, sizeof *s);
	zp_err_clear();
	int r;
	if (k->synth[0]) {
		zp_synth_params sp;
		if ((r = zp_synth_parse(&sp, k->synth)))
			return zp_err_wrap(r, "key %s: synth", k->name);
		s->n_vars = zp_synth_n_vars(&sp);
		s->n_public = sp.n_public;
		if ((r = zp_domain_for((uint64_t)sp.n_constraints + sp.n_public + 1, &s->domain, &s->log_domain)))
			return zp_err_wrap(r, "key %s: synth", k->name);
		snprintf(s->kind, sizeof s->kind, "%s", k->setup_device ? "synth, setup = device" : "synth");
		s->curve = &zp_curve_bls12_381;   /* synthetic circuits are BLS12-381's */
	}
	if (k->zkey[0] && ends_with(k->zkey, ".zpk")) {
		zp_pkey_header h;
		if ((r = zp_pkey_probe(&h, k->zkey)))
			return zp_err_wrap(r, "key %s", k->name);
		if (k->synth[0] && (h.n_vars != s->n_vars || h.domain_size != s->domain))
			return zp_err_set(ZP_EMISMATCH, "key %s: %s has %u vars, domain %u; synth = %s has %u vars, domain %u",
					  k->name, k->zkey, h.n_vars, h.domain_size, k->synth, s->n_vars, s->domain);
		s->n_vars = h.n_vars, s->n_public = h.n_public, s->domain = h.domain_size, s->log_domain = h.log_domain;
		s->curve = h.curve ? zp_curve_by_id(h.curve) : &zp_curve_bls12_381;  /* probe checked it */
		snprintf(s->kind, sizeof s->kind, "zpk");
		if (!k->synth[0] && !k->r1cs[0]) /* synthd builds a, b, c from the circuit, which a .zpk lacks */
			return zp_err_set(-EINVAL, "key %s: %s is a .zpk, which holds no circuit: give r1cs = (or synth =)",
					  k->name, k->zkey);
	} else if (k->zkey[0]) {
		zp_zkey z;
		if ((r = zp_zkey_probe(&z, k->zkey)))
			return zp_err_wrap(r, "key %s", k->name);
		s->n_vars = z.n_vars, s->n_public = z.n_public, s->domain = z.domain_size, s->log_domain = z.log_domain;
		s->curve = z.curve;
		snprintf(s->kind, sizeof s->kind, "zkey");
	}
	if (k->r1cs[0]) {
		uint32_t wires;
		const zp_curve *rc_cv;
		if ((r = zp_r1cs_peek(k->r1cs, &wires, &rc_cv)))
			return zp_err_wrap(r, "key %s: r1cs", k->name);
		if (s->curve && rc_cv != s->curve)
			return zp_err_set(ZP_EMISMATCH, "key %s: %s is a %s circuit, %s a %s key: the curves differ", k->name,
					  k->r1cs, rc_cv->name, k->zkey, s->curve->name);
		/* a warning, not a failure: partitions fail with the mismatch (synthd's fingerprint check), and
		 * tests use such a pair to drive a synthd past its memory limit (tests/pipeline/memlimit.sh) */
		if (wires != s->n_vars)
			snprintf(s->warning, sizeof s->warning, "%s has %u wires, the key %u vars: not this key's circuit "
				 "(its partitions will fail)", k->r1cs, wires, s->n_vars);
	}
	if ((r = witgen_ok(k)))
		return r;
	struct zp_slot_payload p;
	s->slot_bytes = zp_payload_layout(&p, s->n_vars, s->domain);
	return 0;
}

int sup_slot_auto(struct zp_pipe_config *c, unsigned g, char *why, size_t n)
{
	struct zp_pipe_group *gr = &c->groups[g];
	uint64_t need = 0;
	char first[400] = ""; /* the first key's reason, for the message when none could be read */
	why[0] = 0;
	for (unsigned i = 0; i < c->n_keys; i++) {
		struct zp_key_shape s;
		zp_err_clear();
		if (sup_key_shape(&c->keys[i], &s)) {
			if (!first[0])
				snprintf(first, sizeof first, "%s", zp_err_msg()[0] ? zp_err_msg() : "unreadable");
			continue; /* reported as the key's failure; it does not size the group */
		}
		if (s.slot_bytes > need) {
			need = s.slot_bytes;
			snprintf(why, n, "key %s", c->keys[i].name);
		}
	}
	if (!need)
		return zp_err_set(-EINVAL, "[group %s] slot_size = auto: no key could be read to size it (%s)", gr->name,
				  first);
	gr->slot_size = zp_pipe_slot_round(need);
	return 0;
}
