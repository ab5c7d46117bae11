/*
 * setup.h — Groth16 setup from random toxic waste, for DEVELOPMENT AND BENCHMARKS ONLY.
 *
 * One process draws τ, α, β, γ, δ (getrandom(2), or the caller's values in tests) and knows
 * them while it runs: anyone who has them can forge proofs. Keys made here carry
 * ZP_PKEY_INSECURE in their header, and the CLI says so. Production keys come from a
 * multi-party ceremony (snarkjs .zkey, Filecoin .params) and are converted, never made here.
 *
 * For a circuit with A, B, C (has_c: compiled from an .r1cs or synthetic) over domain n with
 * root ω (family 5 — what zkpipe's prover and snarkjs use — or 7, bellperson's):
 *   L_j(τ) = (τ^n − 1)·ω^j / (n·(τ − ω^j)),  u_i = Σ_r A[r][i]·L_r(τ), v_i, w_i likewise;
 *   A_i = u_i·G1, B1_i = v_i·G1, B2_i = v_i·G2, IC_i = (β·u_i + α·v_i + w_i)/γ·G1 (i <= P),
 *   C_i = (β·u_i + α·v_i + w_i)/δ·G1 (i > P);
 *   H, ZP_H_SNARKJS: H_j = L^(2n)_(2j+1)(τ)/δ·G1 (odd points of the doubled domain);
 *   H, ZP_H_COEFF:   H_i = τ^i·(τ^n − 1)/δ·G1, i < n.
 * Points come from fixed-base windowed tables of G1 and G2 (window 8–16 bits by size, one
 * mixed addition per window, no doublings) on the zp_par_for pool; not constant time (the
 * key is insecure anyway). Memory: the key itself plus 3 Fr per wire (u, v, w) and two
 * chunks of 2^20 Fr (the Lagrange values and the H scalars are made chunk by chunk).
 *
 * GPU (opts.device, CUDA builds: prover/setup_cuda.c): the same scalars and the same host-built
 * tables; the points are made by cuda/setup.cu (zp_cuda_g1/g2_fixed_base: one mixed addition per
 * window, batch inversion to affine on the device), scalars going up and points coming back in
 * chunks of 2^22. Affine points are unique, so with the same toxic waste the key is byte for
 * byte the CPU's. The device is ZP_CUDA_DEVICE (default 0), as for the CUDA prover backend.
 */
#ifndef ZP_SETUP_H
#define ZP_SETUP_H

#include "circuit.h"
#include "groth16.h"
#include "keyfile.h"

/* Seconds per stage (tables: the fixed-base tables built on the host and, on the GPU, uploaded;
 * lagrange: u, v, w; ab: A, B1, B2 points; c: IC and C; h: H scalars and points). */
typedef struct { double tables, lagrange, ab, c, h, total; } zp_setup_stats;

typedef struct {
	zp_h_mode h_mode;
	unsigned roots;          /* 5 (0 means 5) or 7 */
	const zp_fr *toxic;      /* NULL: OS CSPRNG; else {τ, α, β, γ, δ} (tests) */
	const char *origin;      /* recorded in the key header (e.g. synthetic parameters) */
	int window_bits;         /* 0: by size */
	int device;              /* 0: CPU (default); 1: CUDA (-ENOTSUP without CUDA, -ENODEV without a
	                          * GPU); -1: CUDA when built with it and a GPU is present, else CPU */
	zp_setup_stats *stats;   /* NULL or filled on success */
} zp_setup_opts;

/* 1 when this build has CUDA and a CUDA device is present (what device = -1 picks), else 0. */
int zp_setup_gpu_available(void);

/* Make a key for circuit c into *k (allocated; free with zp_pkey_free). */
int zp_setup(zp_pkey *k, const zp_circuit *c, const zp_setup_opts *o);

#endif
