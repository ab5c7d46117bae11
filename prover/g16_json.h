/*
 * g16_json.h — snarkjs's JSON files: proof.json, public.json, verification_key.json.
 *
 * Numbers are decimal strings of normal-form values; points are affine with a trailing
 * z ("1", or ["0","1","0"] for infinity); Fp2 is [c0, c1]. Readers accept exactly what
 * snarkjs writes, check every point on the curve and in the subgroup (snarkjs itself skips
 * the subgroup check), require public inputs < r, and name the file and field on error.
 *
 * Curves: proofs and vks carry theirs ("curve": "bls12381" | "bn128", absent = bls12381, or for a proof
 * read with _curve the key's curve) and the readers set p->curve / vk->curve; public.json has no curve, so its readers and writers take one (the plain
 * forms are BLS12-381's, as before curves).
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
/* For a curve's key (public inputs are the curve's Fr). */
int zp_g16_public_write_json_curve(const char *path, const zp_curve *cv, const zp_fr *pub, uint32_t n);
char *zp_g16_public_dumps_curve(const zp_curve *cv, const zp_fr *pub, uint32_t n);
int zp_g16_public_read_json_curve(const zp_curve *cv, zp_fr **pub, uint32_t *n, const char *path);
/* A proof read against a key of curve cv: a proof without "curve" (rapidsnark's, and snarkjs's when the
 * field is dropped) is read as cv's; one that names a curve keeps it (zp_g16_verify refuses another
 * curve than the key's, naming both). cv NULL: BLS12-381, as zp_g16_proof_read_json. */
int zp_g16_proof_read_json_curve(const zp_curve *cv, zp_g16_proof *p, const char *path);
int zp_g16_proof_loads_curve(const zp_curve *cv, zp_g16_proof *p, const char *text, const char *name);
/* snarkjs's `zkey export soliditycalldata` text for proof p and its public inputs (without the final
 * newline; malloc'ed, NULL when out of memory): [a],[[b.x1,b.x0],[b.y1,b.y0]],[c],[inputs] in 0x hex. */
char *zp_g16_calldata(const zp_g16_proof *p, const zp_fr *pub, uint32_t n);
/* protocol groth16, curve bls12381 | bn128, nPublic, vk_alpha_1, vk_beta_2, vk_gamma_2, vk_delta_2, IC
 * (vk_alphabeta_12 is not needed and not read). */
int zp_g16_vk_read_json(zp_g16_vk *vk, const char *path);
/* The same fields (no vk_alphabeta_12: snarkjs's verifier recomputes it; zkpipe's ignores it). */
int zp_g16_vk_write_json(const char *path, const zp_g16_vk *vk);
/* The three readers on a NUL-terminated text held in memory (name stands for the file in messages). */
int zp_g16_proof_loads(zp_g16_proof *p, const char *text, const char *name);
int zp_g16_public_loads(zp_fr **pub, uint32_t *n, const char *text, const char *name);
int zp_g16_vk_loads(zp_g16_vk *vk, const char *text, const char *name);
int zp_g16_public_loads_curve(const zp_curve *cv, zp_fr **pub, uint32_t *n, const char *text, const char *name);

#endif
