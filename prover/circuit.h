/*
 * circuit.h — a compiled circuit: the R1CS matrices A, B, C in CSR form over the proving
 * domain, with densities and a fingerprint that ties the circuit to its proving key.
 *
 * Rows: every circuit has domain_size rows. Rows [0, n_constraints) are the circuit's own
 * constraints; rows n_constraints + s (s = 0..n_public) are the rows a Groth16 setup adds
 * (A[row][s] = 1, B = C = 0) so the public inputs are bound; the rest are empty. This is the
 * row space of a snarkjs .zkey's section 4, so a circuit built from an .r1cs and one built
 * from the .zkey alone have the same A and B and the same fingerprint.
 *
 * Values are zp_fr in Montgomery form; within a row, entries are sorted by column.
 * Circuits are immutable once built: evaluation may run on any number of threads.
 *
 * Coefficient codes: zp_circuit_finish (or zp_csr_code) gives every non-zero a 1-byte code next
 * to its value: ZP_COEF_ONE (1), 1..ZP_COEF_POW2_MAX (2^k), ZP_COEF_NEG1 (−1), ZP_COEF_OTHER
 * (anything else: read val). zp_csr_mul and the synthetic witness pass read the code and skip
 * the 32-byte val for the common small coefficients (synthetic circuits: all of them; circom:
 * the ±1s); zp_coef_values() maps a code to its value. The code is derived data: it is not part
 * of the fingerprint, and whoever changes val after finishing must finish again (or free code).
 * code NULL is allowed (the products then read val only). val NULL is allowed when code is set
 * and holds no ZP_COEF_OTHER (synthetic circuits: 1 byte per coefficient instead of 32); read
 * coefficients through zp_csr_coef(), which serves both forms, never m->val[k] directly.
 */
#ifndef ZP_CIRCUIT_H
#define ZP_CIRCUIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "curve.h"
#include "field.h"

typedef struct {
	uint32_t rows, cols;
	uint64_t nnz;
	uint64_t *row_ptr;      /* rows + 1 entries */
	uint32_t *col;          /* nnz */
	zp_fr *val;             /* nnz, Montgomery form; NULL: every value is given by code */
	uint8_t *code;          /* nnz coefficient codes (ZP_COEF_*), or NULL; set by zp_csr_code */
} zp_csr;

enum { ZP_COEF_ONE = 0, ZP_COEF_POW2_MAX = 253, ZP_COEF_NEG1 = 254, ZP_COEF_OTHER = 255 };

/* The value of every code (entry ZP_COEF_OTHER is zero: such entries use val). 256 entries. */
const zp_fr *zp_coef_values(void);
/* Fill m->code from m->val (allocates it; replaces an old one). Multi-threaded. A CSR without
 * val keeps its codes. */
int  zp_csr_code(zp_csr *m);
/* Coefficient k of m, from val or (val NULL) from its code. */
static inline const zp_fr *zp_csr_coef(const zp_csr *m, uint64_t k)
{
	return m->val ? &m->val[k] : &zp_coef_values()[m->code[k]];
}

enum { ZP_MAT_A = 0, ZP_MAT_B = 1, ZP_MAT_C = 2 };

typedef struct {
	uint32_t n_vars;        /* wires, including wire 0 = ONE */
	uint32_t n_public;      /* outputs + public inputs */
	uint32_t n_constraints; /* the circuit's own rows (0 when unknown: built from a key alone) */
	uint32_t domain_size;   /* rows; power of two >= n_constraints + n_public + 1 */
	uint32_t log_domain;
	bool has_c;             /* C known (built from an .r1cs); otherwise c = a o b */
	zp_csr m[3];
	/* densities: how many variables appear in A / B (bellperson's a/b density bitmaps) */
	uint64_t *a_vars, *b_vars;   /* bitmaps, n_vars bits */
	uint64_t a_count, b_count;
	uint8_t fingerprint[16];     /* XXH3-128 over n_vars, n_public, domain, A, B */
	const zp_curve *curve;       /* the values' field: NULL = BLS12-381 (every path above); BN254
	                              * circuits have val (no codes) and evaluate with BN254's Fr
	                              * (zp_circuit_eval / _check dispatch; zp_csr_mul is BLS12-381's) */
} zp_circuit;

/* Smallest power of two >= n; log in *lg. ZP_ERANGE beyond 2^28 (Fr's 2-adicity is 32,
 * and the H step needs the doubled domain). */
int  zp_domain_for(uint64_t n, uint32_t *size, uint32_t *lg);

/* Sort each row's entries by column (stable) — CSR builders call this. */
int  zp_csr_sort_rows(zp_csr *m);
void zp_csr_free(zp_csr *m);
/* y = M·w for rows [0, m->rows); w has m->cols entries (reduced: < r). Multi-threaded. Uses the
 * codes when present and lazily reduced sums; bytes equal zp_csr_mul_ref's. */
void zp_csr_mul(const zp_csr *m, const zp_fr *w, zp_fr *y);
/* The plain reference (zp_lc_term over val, one modular add per term) for tests and benchmarks. */
void zp_csr_mul_ref(const zp_csr *m, const zp_fr *w, zp_fr *y);

/* Fill densities, fingerprint and coefficient codes once m[] and the counts are set. */
int  zp_circuit_finish(zp_circuit *c);
void zp_circuit_free(zp_circuit *c);
/* Hex of the fingerprint into buf (33 bytes). */
void zp_circuit_fingerprint_hex(const zp_circuit *c, char buf[33]);

/* a = A·w, b = B·w, c = C·w (or a o b without C); each domain_size long. */
void zp_circuit_eval(const zp_circuit *c, const zp_fr *w, zp_fr *a, zp_fr *b, zp_fr *cc);
/* BN254 circuits' evaluation (zp_circuit_eval calls it for them) and one BN254 Fr product on zp_fr
 * containers. */
void zp_circuit_eval_bn254(const zp_circuit *c, const zp_fr *w, zp_fr *a, zp_fr *b, zp_fr *cc);
void zp_circuit_mul_bn254(zp_fr *r, const zp_fr *a, const zp_fr *b);
/* The same with zp_csr_mul_ref (tests and benchmarks: old vs new, same bytes). */
void zp_circuit_eval_ref(const zp_circuit *c, const zp_fr *w, zp_fr *a, zp_fr *b, zp_fr *cc);
/* a o b == c on every row; ZP_EUNSAT naming the first failing constraint otherwise.
 * Without C, returns 0 only when the added public rows hold (checks what can be checked). */
int  zp_circuit_check(const zp_circuit *c, const zp_fr *a, const zp_fr *b, const zp_fr *cc);

/* acc += coef·x, with the cases a mostly-bit witness and small coefficients make common done
 * without a product: x = 0 (nothing), x = 1 (add coef), coef = 1 (add x). */
static inline void zp_lc_term(zp_fr *acc, const zp_fr *coef, const zp_fr *x)
{
	const uint64_t *v = x->l, *one = ZP_FR_ONE.l;
	if (!(v[0] | v[1] | v[2] | v[3]))
		return;
	if (!((v[0] ^ one[0]) | (v[1] ^ one[1]) | (v[2] ^ one[2]) | (v[3] ^ one[3]))) {
		zp_fr_add(acc, acc, coef);
		return;
	}
	const uint64_t *k = coef->l;
	if (!((k[0] ^ one[0]) | (k[1] ^ one[1]) | (k[2] ^ one[2]) | (k[3] ^ one[3]))) {
		zp_fr_add(acc, acc, x);
		return;
	}
	zp_fr p;
	zp_fr_mul(&p, coef, x);
	zp_fr_add(acc, acc, &p);
}

#endif
