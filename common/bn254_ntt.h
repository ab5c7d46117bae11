/*
 * bn254_ntt.h — number-theoretic transforms over BN254's Fr (2-adicity 28), with ntt.h's conventions:
 * zp_bn254_fr in Montgomery form, in place, natural order in and out;
 *   forward  a[i] <- Σ_j a[j]·ω_n^(ij);   inverse  a[j] <- n^-1 Σ_i a[i]·ω_n^(-ij);
 *   coset forward with s: scale a_j by s^j, then forward; coset inverse: inverse, then scale by s^-j.
 * Roots: ω_{2^28} = 5^((r-1)/2^28) (5 the least non-residue: ffjavascript's Fr.w[28], whose squares are
 * the roots of snarkjs's and rapidsnark's domains; tests/bn254 checks every ω_{2^k} against Fr.w[k]),
 * ω_{2^k} = ω_{2^(k+1)}^2. zp_bn254_ntt_h_snarkjs is ntt.h's snarkjs H step (cosets at ω_{2n}).
 * Algorithm, memory, threads: ntt.h's (one implementation, ntt_tmpl.h, for both curves' Fr).
 */
#ifndef ZP_BN254_NTT_H
#define ZP_BN254_NTT_H

#include "bn254.h"
#include "ntt.h"   /* ZP_NTT_DOMAIN_PRIVATE */

#define ZP_BN254_NTT_MAX_LOG 28

typedef struct {
	unsigned log_n;
	size_t n;
	zp_bn254_fr omega, omega_inv, n_inv, omega_2n;
	ZP_NTT_DOMAIN_PRIVATE(zp_bn254_fr)
} zp_bn254_ntt_domain;

/* ω_{2^k}, 0 <= k <= 28, Montgomery form; ZP_ERANGE otherwise. */
int zp_bn254_ntt_root(zp_bn254_fr *w, unsigned k);
/* ZP_ERANGE if log_n > 28 (2^28 needs ω_{2n} for the snarkjs coset: log_n <= 27 for h_snarkjs), -ENOMEM. */
int zp_bn254_ntt_domain_init(zp_bn254_ntt_domain *d, unsigned log_n);
void zp_bn254_ntt_domain_free(zp_bn254_ntt_domain *d);
int zp_bn254_ntt_forward(zp_bn254_ntt_domain *d, zp_bn254_fr *a);
int zp_bn254_ntt_inverse(zp_bn254_ntt_domain *d, zp_bn254_fr *a);
int zp_bn254_ntt_coset_forward(zp_bn254_ntt_domain *d, zp_bn254_fr *a, const zp_bn254_fr *shift);
int zp_bn254_ntt_coset_inverse(zp_bn254_ntt_domain *d, zp_bn254_fr *a, const zp_bn254_fr *shift);
/* a, b, c evaluations on the domain -> a[i] = A·B - C at ω_{2n}^(2i+1) (b, c clobbered). */
int zp_bn254_ntt_h_snarkjs(zp_bn254_ntt_domain *d, zp_bn254_fr *a, zp_bn254_fr *b, zp_bn254_fr *c);

#endif
