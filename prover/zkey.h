/*
 * zkey.h — reader for snarkjs Groth16 proving keys (.zkey, iden3 container, magic "zkey").
 *
 *   §1 u32 protocol (1 = groth16)
 *   §2 u32 n8q (48 | 32), q, u32 n8r (32), r, u32 nVars, u32 nPublic, u32 domainSize,
 *      alpha1, beta1, beta2, gamma2, delta1, delta2
 *   §3 IC: nPublic + 1 G1        §4 u32 nCoefs x {u32 matrix, u32 row, u32 wire, value[32]}
 *   §5 A: nVars G1   §6 B1: nVars G1   §7 B2: nVars G2
 *   §8 C: nVars - nPublic - 1 G1 (wires nPublic+1 ...)   §9 H: domainSize G1
 *
 * Points are affine, little-endian Montgomery coordinates — the in-memory zp_fp bytes — so
 * after a canonicity check (< q) they are copied as they are. All-zero bytes are the point at
 * infinity (x = y = 0 is not on the curve, so the encoding is unambiguous); ec.h's affine
 * structs have exactly this layout.
 *
 * §4 values are coef·R² mod r (R = 2^256) in plain LE; the reader turns them into zp_fr
 * Montgomery form of coef, and builds the circuit's A and B (no C) from them.
 *
 * Curves: q and r say the curve (BLS12-381: n8q 48; BN254, snarkjs's bn128: n8q 32); k->curve keeps
 * it. A BLS12-381 key's points are the top-level members; a BN254 key's are in k->bn (same names, BN254
 * types) and the top-level point arrays are NULL (docs/prover.md "Curves in the prover"). The same for
 * zp_g16_vk.
 */
#ifndef ZP_ZKEY_H
#define ZP_ZKEY_H

#include <stddef.h>
#include <stdint.h>

#include "bn254.h"
#include "circuit.h"
#include "curve.h"
#include "ec.h"
#include "field.h"

/* A BN254 key's points: the BLS12-381 members' names and meaning, BN254's types. */
typedef struct {
	zp_bn254_g1_affine alpha1, beta1, delta1;
	zp_bn254_g2_affine beta2, gamma2, delta2;
	zp_bn254_g1_affine *ic, *a, *b1, *c, *h;
	zp_bn254_g2_affine *b2;
} zp_zkey_bn254;

typedef struct {
	zp_bn254_g1_affine alpha1;
	zp_bn254_g2_affine beta2, gamma2, delta2;
	zp_bn254_g1_affine *ic;
} zp_g16_vk_bn254;

typedef struct {
	zp_g1_affine alpha1;
	zp_g2_affine beta2, gamma2, delta2;
	uint32_t n_public;
	zp_g1_affine *ic;       /* n_public + 1 */
	const zp_curve *curve;  /* NULL = BLS12-381 */
	zp_g16_vk_bn254 bn;     /* curve BN254: the points */
} zp_g16_vk;

typedef struct {
	uint32_t n_vars, n_public, domain_size, log_domain;
	zp_g1_affine alpha1, beta1, delta1;
	zp_g2_affine beta2, gamma2, delta2;
	zp_g1_affine *ic;       /* n_public + 1 */
	zp_g1_affine *a, *b1;   /* n_vars */
	zp_g2_affine *b2;       /* n_vars */
	zp_g1_affine *c;        /* n_vars - n_public - 1 (wires n_public+1 ...) */
	zp_g1_affine *h;        /* domain_size: snarkjs odd-root Lagrange H points */
	zp_circuit circuit;     /* A, B from §4; has_c = false */
	const zp_curve *curve;  /* from §2's q and r; NULL (a key built by hand) = BLS12-381 */
	zp_zkey_bn254 bn;       /* curve BN254: the points (the members above are then zero / NULL) */
} zp_zkey;

static inline bool zp_zkey_is_bn254(const zp_zkey *k)
{
	return k->curve && k->curve->id == ZP_CURVE_BN254;
}

int  zp_zkey_parse(zp_zkey *k, const uint8_t *data, size_t len, const char *name);
int  zp_zkey_read(zp_zkey *k, const char *path);
void zp_zkey_free(zp_zkey *k);
/* Header only (sections 1 and 2: protocol, curve and prime, counts, fixed points checked):
 * fills n_vars, n_public, domain_size, log_domain and the fixed points; nothing to free.
 * Cheap (the file is mapped, not read): what the supervisor checks before it serves a key. */
int  zp_zkey_probe(zp_zkey *k, const char *path);
int  zp_zkey_probe_buf(zp_zkey *k, const uint8_t *data, size_t len, const char *name);

/* Only what a verifier needs (§1, §2, §3) from a .zkey file, without loading the proving key. */
int  zp_zkey_read_vk(zp_g16_vk *vk, const char *path);
/* A verification key view of k (points copied; free with zp_g16_vk_free). */
int  zp_zkey_vk(zp_g16_vk *vk, const zp_zkey *k);
void zp_g16_vk_free(zp_g16_vk *vk);

#endif
