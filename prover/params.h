/*
 * params.h — Filecoin/bellperson Groth16 parameter files (.params) to and from zkpipe keys.
 *
 *   big-endian, uncompressed zcash points (serialize.h), no padding, no checksum:
 *   alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2,
 *   u32 n + IC (n = inputs = n_public + 1)      u32 n + h (n = domain − 1: τ^i·Z(τ)/δ)
 *   u32 n + l (private wires)                   u32 n + a (G1)   u32 n + b_g1 (G1)   u32 n + b_g2 (G2)
 *   a, b_g1, b_g2 leave out points at infinity (bellperson filters them by value); which wires
 *   the rest belong to comes from the circuit's A / B densities (zp_circuit a_vars, b_vars),
 *   so reading needs the circuit and checks every count against it.
 *
 * The coefficient H query has domain − 1 points here and domain_size in a zkpipe key: the
 * last (τ^(n−1)·Z(τ)/δ) is not in the file and is left at infinity on reading — h's top
 * coefficient is zero for every satisfying witness, so it is never needed.
 * Reading decodes in parallel with the on-curve check, then checks the subgroup of every
 * point in parallel (zp_g1_affine_check_array): a .params file has no checksum to trust.
 * The file does not say which root of unity its Lagrange basis used: bellperson's is family 7
 * (the default of `roots`); keys made by zkpipe setup for zkpipe's prover are family 5.
 */
#ifndef ZP_PARAMS_H
#define ZP_PARAMS_H

#include <stdint.h>

#include "circuit.h"
#include "keyfile.h"
#include "zkey.h"

/* Counts and offsets of a .params file, from its count fields alone (params_scan.c). */
typedef struct {
	uint32_t n_ic, n_h, n_l, n_a, n_b1, n_b2;
	uint64_t off_ic, off_h, off_l, off_a, off_b1, off_b2; /* first point of each vector */
	uint64_t file_bytes;
	uint64_t domain;          /* n_h + 1, a power of two */
} zp_params_info;
/* Scan path's count fields: -errno ("key not found"), ZP_ETRUNC / ZP_EFORMAT with a message naming
 * the file (not a .params file, damaged, not a bellperson key's shape). */
int zp_params_scan(const char *path, zp_params_info *info);

/* A .params key as the file has it, for proving with density bitmaps (no circuit needed): zk holds
 * the counts the file gives (n_public = IC − 1, n_vars = IC + l, domain = h + 1), ic, l as the C
 * query, a (every input, then the aux wires in A), b1 and b2 (inputs in B, then aux wires in B) —
 * the compact vectors, nothing expanded per wire —; gk is ZP_H_COEFF, root family 7 (bellperson's),
 * compact (gk.n_a, gk.n_b), h_coeff the file's domain − 1 points (+ one at infinity). Every point is
 * decoded in parallel and checked on the curve and in its subgroup (the file has no checksum). */
typedef struct {
	zp_params_info in;
	zp_zkey zk;
	zp_g16_key gk;
} zp_params_key;
int  zp_params_load(zp_params_key *k, const char *path);
void zp_params_key_free(zp_params_key *k);

/* Read path into a new coefficient-H key for circuit c; roots (5 or 7, 0 = 7) is recorded. */
int zp_params_read(zp_pkey *k, const char *path, const zp_circuit *c, unsigned roots);
/* Only the verifying key (alpha_g1, beta_g2, gamma_g2, delta_g2, IC) from the head of a .params
 * file: the proving vectors are neither decoded nor checked. n_public: the circuit's public inputs
 * (IC must have n_public + 1 points). Free with zp_g16_vk_free (zkey.h). */
int zp_params_read_vk(zp_g16_vk *vk, const char *path, uint32_t n_public);
/* Write key k (coefficient H convention) as a .params file. */
int zp_params_write(const zp_pkey *k, const char *path);

#endif
