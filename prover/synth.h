/*
 * synth.h — synthetic PoRep-shaped circuits and their witnesses, for benchmarks and load tests
 * at any size up to a 2^27 domain (a Filecoin 32 GiB PoRep partition: ~130.3M constraints,
 * ~130.2M auxiliary variables, 328 public inputs, A/B/C ≈ 2.4 / 1.0 / 2.2 non-zeros per row,
 * a witness that is mostly bits).
 *
 * A synthetic circuit is a pure function of its parameters: zp_synth_circuit() regenerates it
 * in memory (multi-threaded, deterministic: same parameters, same CSR bytes, same fingerprint)
 * instead of reading a file; the parameters are the circuit's "file" (zp_synth_describe gives
 * their one-line text form, which zkpipe records in the keys it makes for it).
 *
 * Construction (docs/keys.md has the full story). Wires: 0 = ONE, 1..P public inputs, then one
 * auxiliary "output" wire z_i per row i (so aux = constraints, as in PoRep). Each row has a
 * kind, a hash of (seed, row):
 *   FREE   z·z = z                      (A 1, B 1, C 1)  z is a free input bit
 *   AND    x·y = z                      (A 1, B 1, C 1)  z = x∧y
 *   XOR    (2x)·y = x + y − z           (A 1, B 1, C 3)  z = x⊕y
 *   FIELD  (Σ α·u)·(Σ β·v) = Σ γ·t + z  (kA, kB, kC−1 + 1 terms) z a field element (gen 2: one of
 *                                       the γ·t is 2^k·ONE, k in 1..252, so z is not 0/1 but by chance)
 * Operands x, y, u, v, t are "level-0" wires only — ONE, public inputs, FREE rows' bits —
 * picked near the row (within ±window rows: CSR locality like a real circuit). So a witness
 * is two parallel passes: draw the level-0 values (bits from the witness seed), then every
 * other row's output from its own row. Bit rows make up bool_share of the rows; the FIELD
 * rows' term counts are set so the averages over all rows meet nnz_a, nnz_b, nnz_c (rounding
 * per row by a Bernoulli draw). FIELD coefficients are 1, −1 or powers of two (bit packing), so
 * the circuit keeps only their 1-byte codes (zp_csr.code, val = NULL: circuit.h) — 5 bytes per
 * non-zero instead of 36.
 * The Groth16 public-input rows (A[n_constraints + s][s] = 1) are added as zp_circuit requires.
 */
#ifndef ZP_SYNTH_H
#define ZP_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "circuit.h"
#include "field.h"
#include "synth_spec.h" /* the parameters and their text form (common/: the config checks them) */

/* Expected bytes of the circuit in memory (CSR of A, B, C: row pointers, columns and 1-byte
 * coefficient codes — synthetic circuits keep no 32-byte values, circuit.h), for sizing checks
 * and docs. */
uint64_t zp_synth_circuit_bytes(const zp_synth_params *p);

/* Build the circuit (has_c = true, n_constraints = p->n_constraints, finished: densities and
 * fingerprint). Multi-threaded (zp_par_for). */
int  zp_synth_circuit(zp_circuit *c, const zp_synth_params *p);

/* A satisfying witness for circuit c (built from p) and witness seed wseed: w has
 * zp_synth_n_vars(p) entries (caller's buffer). Multi-threaded, deterministic. */
int  zp_synth_witness(zp_fr *w, const zp_circuit *c, const zp_synth_params *p, uint64_t wseed);
/* The same, and a = A·w, b = B·w, c = C·w (domain_size values each) computed in the same pass
 * (each row's sums are what its output needs anyway): equal to zp_circuit_eval's, at a fraction of
 * its cost. a, b, c NULL: witness only.
 * How (docs/keys.md, Decisions: synthetic circuits): level 0 is kept as a bitmap (n/8 bytes of scratch,
 * allocated here) and the operands of every other row are read from it, not from w — by
 * construction they are level-0 wires; row sums come from the 1-byte coefficient codes and are
 * reduced once per row; w, a, b, c are written once, with streaming stores when 8-byte aligned
 * (x86-64; the pass ends with a store fence). A circuit without codes takes the reference pass. */
int  zp_synth_witness_abc(zp_fr *w, zp_fr *a, zp_fr *b, zp_fr *cc, const zp_circuit *c, const zp_synth_params *p,
			  uint64_t wseed);
/* The pre-2026-11-29 pass (reads every coefficient's 32-byte value, one modular add per term):
 * the same bytes, kept as the reference for tests and `zkpipe synth bench`. */
int  zp_synth_witness_abc_ref(zp_fr *w, zp_fr *a, zp_fr *b, zp_fr *cc, const zp_circuit *c,
			      const zp_synth_params *p, uint64_t wseed);

#endif
