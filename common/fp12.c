/*
 * fp12.c — BLS12-381's Fp6 and Fp12 (tower in fp12.h): tower_tmpl.h over fp2.c's Fp2 with ξ = 1 + u,
 * and what is this curve's own: its constants, the Frobenius table, the M-twist's sparse line products.
 */
#include "fp12.h"

#define FP_R_MOD_Q { .l = {  /* R mod q: Montgomery one */ \
	0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, \
	0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL } }

const zp_fp6 ZP_FP6_ZERO = { .c0 = { .c0 = { .l = { 0 } } } };
const zp_fp6 ZP_FP6_ONE = { .c0 = { .c0 = FP_R_MOD_Q } };
const zp_fp12 ZP_FP12_ZERO = { .c0 = { .c0 = { .c0 = { .l = { 0 } } } } };
const zp_fp12 ZP_FP12_ONE = { .c0 = { .c0 = { .c0 = FP_R_MOD_Q } } };

/*
 * Frobenius coefficients (tower_tmpl.h's FROB): FROB[i-1] = ξ^(i(q-1)/6), i = 1..5, in Montgomery form
 * (R = 2^384), computed once with Python integers: f2pow((1, 1), i*(q - 1)//6) * 2**384 % q, componentwise.
 * tests/pairing's fp12_laws checks the maps against a^(q^k) by plain exponentiation.
 */
static const zp_fp2 FROB[5] = {
	{ { { 0x07089552b319d465ULL, 0xc6695f92b50a8313ULL, 0x97e83cccd117228fULL,
	      0xa35baecab2dc29eeULL, 0x1ce393ea5daace4dULL, 0x08f2220fb0fb66ebULL } },  /* i = 1 */
	  { { 0xb2f66aad4ce5d646ULL, 0x5842a06bfc497cecULL, 0xcf4895d42599d394ULL,
	      0xc11b9cba40a8e8d0ULL, 0x2e3813cbe5a0de89ULL, 0x110eefda88847fafULL } } },
	{ { { 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
	      0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL } },  /* i = 2 */
	  { { 0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL,
	      0x8eb60ebe01bacb9eULL, 0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL } } },
	{ { { 0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL,
	      0xd1ca2087da74d4a7ULL, 0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL } },  /* i = 3 */
	  { { 0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL,
	      0xd1ca2087da74d4a7ULL, 0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL } } },
	{ { { 0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL,
	      0xa20d1b8c7e881024ULL, 0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL } },  /* i = 4 */
	  { { 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL,
	      0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL } } },
	{ { { 0x82d83cf50dbce43fULL, 0xa2813e53df9d018fULL, 0xc6f0caa53c65e181ULL,
	      0x7525cf528d50fe95ULL, 0x4a85ed50f4798a6bULL, 0x171da0fd6cf8eebdULL } },  /* i = 5 */
	  { { 0x3726c30af242c66cULL, 0x7c2ac1aad1b6fe70ULL, 0xa04007fbba4b14a2ULL,
	      0xef517c3266341429ULL, 0x0095ba654ed2226bULL, 0x02e370eccc86f7ddULL } } },
};

#define F6(x) zp_fp6_##x
#define F12(x) zp_fp12_##x
#define FP2_T zp_fp2
#define FP6_T zp_fp6
#define FP12_T zp_fp12
#define f2_add zp_fp2_add
#define f2_sub zp_fp2_sub
#define f2_neg zp_fp2_neg
#define f2_dbl zp_fp2_dbl
#define f2_mul zp_fp2_mul
#define f2_sqr zp_fp2_sqr
#define f2_inv zp_fp2_inv
#define f2_conj zp_fp2_conj
#define f2_is_zero zp_fp2_is_zero
#define f2_eq zp_fp2_eq
#define f2_random zp_fp2_random
#define f2_mul_xi zp_fp2_mul_nonres
#define FP12_ONE ZP_FP12_ONE
#define TOWER_M_TWIST
#include "tower_tmpl.h"
