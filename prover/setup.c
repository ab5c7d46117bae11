/*
 * setup.c — development Groth16 setup (contract and formulas in setup.h).
 */
#include "setup_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bn254.h"
#include "bn254_ntt.h"
#include "ntt.h"
#include "par.h"
#include "progress.h"
#include "zp_err.h"

#define BLK 1024   /* points per task */

static int window_for(size_t n, int w)
{
	return w > 0 ? (w > 20 ? 20 : w) : n >= ((size_t)1 << 22) ? 16 : n >= ((size_t)1 << 16) ? 12 : 8;
}

#define CHUNK ((size_t)1 << 20)   /* Lagrange / H scalars per step */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* the curve-typed parts, once per curve (setup_tmpl.h) */
#define ZP_CN_BLS12_381
#include "curve_names.h"
#define KP(z) (z)
#define FR_ONE ZP_FR_ONE
#define G1_GEN ZP_G1_GEN
#define G2_GEN ZP_G2_GEN
#define CURVE zp_curve_bls12_381
#define ROOT(w, k, roots) zp_ntt_root(w, k, (roots) == 5 ? ZP_NTT_ROOT5 : ZP_NTT_ROOT7)
#include "setup_tmpl.h"
#include "curve_names.h" /* undefines the names */
#undef KP
#undef FR_ONE
#undef G1_GEN
#undef G2_GEN
#undef CURVE
#undef ROOT
#define ZP_CN_BN254
#include "curve_names.h"
#define KP(z) (&(z)->bn)
#define FR_ONE ZP_BN254_FR_ONE
#define G1_GEN ZP_BN254_G1_GEN
#define G2_GEN ZP_BN254_G2_GEN
#define CURVE zp_curve_bn254
#define ROOT(w, k, roots) ((void)(roots), zp_bn254_ntt_root(w, k))   /* family 5 (snarkjs's) only: zp_setup_header */
#include "setup_tmpl.h"

static bool is_bn254(const zp_circuit *c)
{
	return c->curve && c->curve->id == ZP_CURVE_BN254;
}

int zp_setup_run(zp_zkey *z, const zp_circuit *c, const zp_setup_opts *o, zp_setup_sink *sk)
{
	return is_bn254(c) ? setup_run_bn(z, c, o, sk) : setup_run_bls(z, c, o, sk);
}

/* ---- the CPU sink: the tables' points straight into the zp_pkey ---- */
struct cpu_sink { zp_setup_sink s; zp_pkey *k; };

static int cpu_points(zp_setup_sink *s, int sec, const zp_fr *k, size_t off, size_t n)
{
	zp_pkey *key = ((struct cpu_sink *)s)->k;
	if (zp_zkey_is_bn254(&key->zk))
		cpu_points_bn(s, key, sec, k, off, n);
	else
		cpu_points_bls(s, key, sec, k, off, n);
	return 0;
}

int zp_setup_header(zp_pkey_header *h, const zp_circuit *c, const zp_setup_opts *o)
{
	int rc;
	unsigned roots = o->roots ? o->roots : 5;
	const zp_curve *cv = zp_curve_of(c->curve);
	if (!c->has_c)
		return zp_err_set(ZP_EMISMATCH, "setup needs the circuit's C matrix (compile it from an .r1cs, or a "
				  "synthetic circuit); a circuit read from a .zkey has only A and B");
	if (roots != 5 && roots != 7)
		return zp_err_set(ZP_ERANGE, "setup: root family %u (5 or 7)", roots);
	if (cv->id == ZP_CURVE_BN254) {
		/* BN254 keys are snarkjs's: its roots, its odd-root H (the coefficient H and root family 7 are
		 * bellperson's, BLS12-381 only), and the doubled domain within Fr's 2-adicity 28 */
		if (o->h_mode != ZP_H_SNARKJS)
			return zp_err_set(ZP_ERANGE, "setup: the coefficient H query (--h-mode coeff) is bellperson's, for "
					  "BLS12-381 keys; this circuit is %s (use --h-mode snarkjs)", cv->name);
		if (roots != 5)
			return zp_err_set(ZP_ERANGE, "setup: root family %u is bellperson's, for BLS12-381 keys; this "
					  "circuit is %s (roots 5, snarkjs's)", roots, cv->name);
		if (c->log_domain > 27)
			return zp_err_set(ZP_ERANGE, "setup: domain 2^%u: %s keys reach 2^27 (the H query needs the doubled "
					  "domain, and Fr's 2-adicity is 28)", c->log_domain, cv->name);
	}
	if ((rc = zp_pkey_layout_curve(h, cv, c->n_vars, c->n_public, c->domain_size)))
		return rc;
	h->flags = ZP_PKEY_INSECURE;
	h->h_mode = o->h_mode;
	h->roots = roots;
	h->n_constraints = c->n_constraints;
	memcpy(h->fingerprint, c->fingerprint, 16);
	snprintf(h->origin, sizeof(h->origin), "zkpipe setup (INSECURE development key)%s%s", o->origin ? ": " : "",
		 o->origin ? o->origin : "");
	return 0;
}

/* setup_cuda.c's, in programs that link the CUDA prover (prover/backends.c says why weakly). */
int zp_setup_cuda_available(void) __attribute__((weak));
int zp_setup_cuda_host(zp_pkey *k, const zp_circuit *c, const zp_setup_opts *o) __attribute__((weak));

int zp_setup_cuda_check(const zp_circuit *c)
{
	if (is_bn254(c))
		return zp_err_set(ZP_ERANGE, "GPU setup into device memory (setup = device): curve %s not supported (the "
				  "device key's layout is BLS12-381's); make a %s key with zkpipe setup and give it as zkey =",
				  c->curve->name, c->curve->name);
	return 0;
}

int zp_setup_gpu_available(void)
{
	return zp_setup_cuda_available ? zp_setup_cuda_available() : 0;
}

int zp_setup(zp_pkey *k, const zp_circuit *c, const zp_setup_opts *o)
{
	static const zp_setup_opts defaults = { 0 };
	zp_setup_opts o2;
	zp_pkey_header h;
	int rc;
	memset(k, 0, sizeof(*k));
	if (!o)
		o = &defaults;
	if (o->device < -1 || o->device > 1)
		return zp_err_set(ZP_ERANGE, "setup: device %d (-1 auto, 0 CPU, 1 CUDA)", o->device);
	/* BN254 keys on the GPU are made when asked for (device = 1: cuda/setup.cu's BN254 instance); auto
	 * (device = -1) keeps them on the CPU, the path every oracle test checks */
	if (o->device == -1 && is_bn254(c)) {
		o2 = *o;
		o2.device = 0;
		o = &o2;
	}
	if (o->device) {
		if (zp_setup_cuda_host && (o->device == 1 || zp_setup_cuda_available()))
			return zp_setup_cuda_host(k, c, o);
		if (o->device == 1)
			return zp_err_set(-ENOTSUP, "setup on the GPU: this build has no CUDA (meson setup -Dcuda=enabled, "
					  "nvcc on PATH)");
	}
	if ((rc = zp_setup_header(&h, c, o)) || (rc = zp_pkey_alloc(k, &h)))
		return rc;
	struct cpu_sink s = { .s = { .points = cpu_points }, .k = k };
	if ((rc = zp_setup_run(&k->zk, c, o, &s.s))) {
		zp_pkey_free(k);
		return rc;
	}
	zp_pkey_seal(k);
	return 0;
}
