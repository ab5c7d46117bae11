/*
 * g16_json.h — snarkjs's JSON files: proof.json, public.json, verification_key.json.
 *
 * Numbers are decimal strings of normal-form values; points are affine with a trailing
 * z ("1", or ["0","1","0"] for infinity); Fp2 is [c0, c1]. Readers accept exactly what
 * snarkjs writes, check every point on the curve and in the subgroup (snarkjs itself skips
 * the subgroup check), require public inputs < r, and name the file and field on error.
 */
#ifndef ZP_G16_JSON_H
#define ZP_G16_JSON_H

#include <stdint.h>

#include "groth16.h"

int zp_g16_proof_write_json(const char *path, const zp_g16_proof *p);
int zp_g16_proof_read_json(zp_g16_proof *p, const char *path);
int zp_g16_public_write_json(const char *path, const zp_fr *pub, uint32_t n);
/* The same text, malloc'ed (NULL when out of memory), for a caller that writes the file itself. */
char *zp_g16_proof_dumps(const zp_g16_proof *p);
char *zp_g16_public_dumps(const zp_fr *pub, uint32_t n);
/* *pub is malloc'ed (free it); n may be 0. */
int zp_g16_public_read_json(zp_fr **pub, uint32_t *n, const char *path);
/* protocol groth16, curve bls12381, nPublic, vk_alpha_1, vk_beta_2, vk_gamma_2, vk_delta_2, IC
 * (vk_alphabeta_12 is not needed and not read). */
int zp_g16_vk_read_json(zp_g16_vk *vk, const char *path);
/* The same fields (no vk_alphabeta_12: snarkjs's verifier recomputes it; zkpipe's ignores it). */
int zp_g16_vk_write_json(const char *path, const zp_g16_vk *vk);
/* The three readers on a NUL-terminated text held in memory (name stands for the file in messages). */
int zp_g16_proof_loads(zp_g16_proof *p, const char *text, const char *name);
int zp_g16_public_loads(zp_fr **pub, uint32_t *n, const char *text, const char *name);
int zp_g16_vk_loads(zp_g16_vk *vk, const char *text, const char *name);

#endif
