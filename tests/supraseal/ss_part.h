/*
 * ss_part.h — one partition as bellperson's ProvingAssignment holds it after synthesis and the
 * input constraints, the shape ss_harness and ss_cmp hand to supraseal-c2's C ABI: the witness
 * (input_assignment = w[0 .. d.n_inp), aux_assignment = the rest), a/b/c = A·w, B·w, C·w over
 * d.rows, and the density bit vectors d (tests/common/bp_density.h).
 */
#ifndef ZP_TESTS_SS_PART_H
#define ZP_TESTS_SS_PART_H

#include <stdlib.h>

#include "../common/bp_density.h"
#include "supraseal_abi.h"

struct ss_part {
	zp_fr *w, *a, *b, *c;
	struct zp_bp_density d;
};

/* Field by field as bellperson's From<&ProvingAssignment> for supraseal_c2::Assignment; aux_off is
 * added to aux_assignment_size (the size-mismatch test; 0 otherwise). */
static inline zp_ss_assignment ss_assignment_of(const struct ss_part *P, long aux_off)
{
	const struct zp_bp_density *d = &P->d;
	return (zp_ss_assignment){
		.a_aux_density = d->a_aux, .a_aux_bit_len = d->n_aux, .a_aux_popcount = d->pa,
		.b_inp_density = d->b_inp, .b_inp_bit_len = d->n_inp, .b_inp_popcount = d->pbi,
		.b_aux_density = d->b_aux, .b_aux_bit_len = d->n_aux, .b_aux_popcount = d->pba,
		.a = P->a, .b = P->b, .c = P->c, .abc_size = d->rows,
		.inp_assignment_data = P->w, .inp_assignment_size = d->n_inp,
		.aux_assignment_data = P->w + d->n_inp, .aux_assignment_size = (size_t)((long)d->n_aux + aux_off),
	};
}

static inline void ss_part_free(struct ss_part *P)
{
	free(P->w), free(P->a), free(P->b), free(P->c);
	zp_bp_density_free(&P->d);
}

#endif
