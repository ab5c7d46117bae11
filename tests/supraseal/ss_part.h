/*
 * ss_part.h — one partition as bellperson's ProvingAssignment holds it after synthesis and the
 * input constraints, the shape ss_harness and ss_cmp hand to supraseal-c2's C ABI: the witness
 * (input_assignment = w[0 .. n_inp), aux_assignment = the rest), a/b/c = A·w, B·w, C·w over
 * constraints + inputs (abc), and the density bit vectors of aux wires in A and in B and of input
 * wires in B (bitvec u64 words, LSB first) with their popcounts.
 */
#ifndef ZP_TESTS_SS_PART_H
#define ZP_TESTS_SS_PART_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "circuit.h"
#include "supraseal_abi.h"
#include "zp_err.h"

struct ss_part {
	zp_fr *w, *a, *b, *c;
	uint64_t *a_aux, *b_inp, *b_aux;
	size_t n_inp, n_aux, abc, pa, pbi, pba;
};

static inline bool ss_bit_get(const uint64_t *v, size_t i) { return v[i / 64] >> (i % 64) & 1; }
static inline void ss_bit_set(uint64_t *v, size_t i) { v[i / 64] |= 1ull << (i % 64); }

/* The counts and density bit vectors of c (the witness and a/b/c are the caller's). */
static inline int ss_part_shape(struct ss_part *P, const zp_circuit *c)
{
	P->n_inp = (size_t)c->n_public + 1;
	P->n_aux = c->n_vars - P->n_inp;
	P->abc = (size_t)c->n_constraints + P->n_inp; /* bellperson: one extra constraint per input */
	size_t wa = (P->n_aux + 63) / 64 + 1, wi = (P->n_inp + 63) / 64 + 1;
	P->a_aux = calloc(wa, 8), P->b_aux = calloc(wa, 8), P->b_inp = calloc(wi, 8);
	if (!P->a_aux || !P->b_aux || !P->b_inp)
		return zp_err_set(-ENOMEM, "density bitmaps: out of memory");
	P->pa = P->pba = P->pbi = 0;
	for (size_t i = 0; i < P->n_inp; i++)
		if (ss_bit_get(c->b_vars, i))
			ss_bit_set(P->b_inp, i), P->pbi++;
	for (size_t i = 0; i < P->n_aux; i++) {
		if (ss_bit_get(c->a_vars, P->n_inp + i))
			ss_bit_set(P->a_aux, i), P->pa++;
		if (ss_bit_get(c->b_vars, P->n_inp + i))
			ss_bit_set(P->b_aux, i), P->pba++;
	}
	return 0;
}

/* Field by field as bellperson's From<&ProvingAssignment> for supraseal_c2::Assignment; aux_off is
 * added to aux_assignment_size (the size-mismatch test; 0 otherwise). */
static inline zp_ss_assignment ss_assignment_of(const struct ss_part *P, long aux_off)
{
	return (zp_ss_assignment){
		.a_aux_density = P->a_aux, .a_aux_bit_len = P->n_aux, .a_aux_popcount = P->pa,
		.b_inp_density = P->b_inp, .b_inp_bit_len = P->n_inp, .b_inp_popcount = P->pbi,
		.b_aux_density = P->b_aux, .b_aux_bit_len = P->n_aux, .b_aux_popcount = P->pba,
		.a = P->a, .b = P->b, .c = P->c, .abc_size = P->abc,
		.inp_assignment_data = P->w, .inp_assignment_size = P->n_inp,
		.aux_assignment_data = P->w + P->n_inp, .aux_assignment_size = (size_t)((long)P->n_aux + aux_off),
	};
}

static inline void ss_part_free(struct ss_part *P)
{
	free(P->w), free(P->a), free(P->b), free(P->c), free(P->a_aux), free(P->b_inp), free(P->b_aux);
}

#endif
