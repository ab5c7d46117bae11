/*
 * synth_spec.h — a synthetic circuit's parameters and their one-line text form
 * ("synth:n=..,pub=..,..."), the "file" of a synthetic circuit (prover/synth.h builds the circuit and
 * its witnesses from them). Here, on the ground floor, because the pipeline's config checks a key's
 * `synth =` at parse time and the pipeline does not link the prover.
 */
#ifndef ZP_SYNTH_SPEC_H
#define ZP_SYNTH_SPEC_H

#include <stddef.h>
#include <stdint.h>

#define ZP_SYNTH_MAXT 256          /* terms per row and matrix */

typedef struct {
	uint32_t n_constraints;   /* rows; n_constraints + n_public + 1 <= 2^27 */
	uint32_t n_public;        /* public inputs (outputs + inputs in circom's terms) */
	double bool_share;        /* share of rows whose output wire is a bit, [0, 1] */
	double free_share;        /* share of bit rows that are FREE input bits, (0, 1] */
	double nnz_a, nnz_b, nnz_c;  /* target non-zeros per row of A, B, C */
	uint32_t window;          /* operands are taken within ±window rows */
	uint64_t seed;            /* the circuit's seed (witnesses have their own) */
	uint32_t gen;             /* construction: 2 (default) FIELD rows' C carries a 2^k·ONE term, so their
	                           * output is a field element and 1 − bool_share is the witness's non-bit share
	                           * (bool=0.75: 25.0 %, 0.99: 1.0 %); 1 the first rows, some of whose FIELD
	                           * outputs are bits (bool=0.75 gave 18.4 % non-bits, 0.99 0.75 %): kept so
	                           * that circuits and keys described without gen stay reproducible with gen=1 */
} zp_synth_params;

/* PoRep-shaped defaults for n rows: 328 public inputs, bool_share 0.9, free_share 0.3,
 * A/B/C = 2.4 / 1.0 / 2.2, window 65536, seed 1. */
void zp_synth_params_porep(zp_synth_params *p, uint32_t n_constraints);

/* ZP_ERANGE with a message when a parameter is out of range. */
int  zp_synth_check(const zp_synth_params *p);
uint32_t zp_synth_n_vars(const zp_synth_params *p);

/* One-line text form "synth:n=..,pub=..,bool=..,free=..,a=..,b=..,c=..,win=..,seed=.." and back. */
int  zp_synth_describe(char *buf, size_t len, const zp_synth_params *p);
int  zp_synth_parse(zp_synth_params *p, const char *s);

#endif
