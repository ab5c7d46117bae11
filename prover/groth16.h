/*
 * groth16.h — Groth16 proofs over BLS12-381 and BN254: prover (behind a backend ops table) and verifier.
 *
 * Curves (docs/prover.md "Curves in the prover"): the key says the curve (zp_zkey.curve); a BN254 key's,
 * proof's, vk's and MSM outputs' points are their .bn members (BN254 types, same names), the BLS12-381 ones the
 * top-level members. Scalars (witness, a, b, c, r, s, public inputs) are zp_fr containers holding the key's
 * curve's Fr in Montgomery form. zp_g16_finish / zp_g16_verify dispatch on the curve; a backend refuses a curve
 * it cannot prove in create() (ZP_ERANGE naming it). A NULL curve is BLS12-381.
 *
 * Proving is four stages, each a backend op, so a device backend (CUDA) plugs in by
 * providing its own table:
 *
 *   1. upload(w, a, b, c)  the full assignment w and a = A·w, b = B·w, c = C·w (or a o b).
 *                          The CPU backend proves in place: it may overwrite a, b, c.
 *   2. h()                 the quotient: H-MSM scalars by the key's H convention, and the H MSM.
 *   3. msm()               Σ w·A, Σ w·B1, Σ w·B2, Σ w·C over the wires each query covers.
 *   4. zp_g16_finish()     (host, constant time in r and s) blinds and combines:
 *                            A = α + ΣwA + r·δ1,  B = β2 + ΣwB2 + s·δ2,  B1 = β1 + ΣwB1 + s·δ1,
 *                            C = ΣwC + H + s·A + r·B1 − r·s·δ1.
 *
 * H conventions (zp_h_mode):
 *   ZP_H_SNARKJS — snarkjs's key: H points are the odd 2n-th-root Lagrange basis over δ;
 *                  scalars d_j = a'b' − c' on the odd roots (iNTT, ×ω_2n^i, NTT).
 *   ZP_H_COEFF   — bellperson's key: H points are τ^i·Z(τ)/δ; scalars are the coefficients of
 *                  h = (ab − c)/Z (iNTT, coset NTT with Fr's generator g = 7, divide by
 *                  Z(g·ω^j) = g^n − 1, coset iNTT). zp_g16_key_init(.., ZP_H_COEFF) derives
 *                  this query from a snarkjs key, so both conventions prove with one key and,
 *                  given the same r and s, give the same proof.
 *
 * Secrets: r and s are touched only by zp_g16_finish (constant-time scalar multiplication) and
 * wiped after use. The MSMs are variable-time in their scalars — the witness — as every fast MSM
 * is (common/msm.h); a prover on shared hardware leaks timing about the witness, not r or s.
 *
 * create() runs once per key and backend (zp_g16_prover_init); upload/h/msm once per proof.
 * Every prove draws r and s from getrandom(2) unless the caller fixes them, and verifies the
 * proof with a pairing check before returning it.
 */
#ifndef ZP_GROTH16_H
#define ZP_GROTH16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bn254.h"
#include "circuit.h"
#include "curve.h"
#include "ec.h"
#include "field.h"
#include "ntt.h"
#include "wtns.h"
#include "zkey.h"

typedef struct {
	zp_bn254_g1_affine a;
	zp_bn254_g2_affine b;
	zp_bn254_g1_affine c;
} zp_g16_proof_bn254;

typedef struct {
	zp_g1_affine a;
	zp_g2_affine b;
	zp_g1_affine c;
	const zp_curve *curve;  /* NULL = BLS12-381 (a, b, c); BN254: the points are bn's */
	zp_g16_proof_bn254 bn;
} zp_g16_proof;

/* A BLS12-381 proof's a ‖ b ‖ c: the struct's first 384 bytes, bellperson's / supraseal's binary
 * groth16_proof (gpud's part-<p>.proof.bin). Write and read those bytes, never sizeof(zp_g16_proof). */
#define ZP_G16_PROOF_BLS12_381_BYTES 384
_Static_assert(offsetof(zp_g16_proof, curve) == ZP_G16_PROOF_BLS12_381_BYTES, "a, b, c first, 384 bytes");

typedef enum { ZP_H_SNARKJS = 0, ZP_H_COEFF = 1 } zp_h_mode;

/* What the MSM stages produce (Jacobian, unblinded); a BN254 key's in bn. */
typedef struct {
	zp_bn254_g1_jac a, b1, c, h;
	zp_bn254_g2_jac b2;
} zp_g16_msm_out_bn254;

typedef struct {
	zp_g1_jac a, b1, c, h;
	zp_g2_jac b2;
	zp_g16_msm_out_bn254 bn;
} zp_g16_msm_out;

/* A proving key as the backends see it: the zkey plus, for ZP_H_COEFF, the coefficient
 * H query (domain_size points: τ^i·Z(τ)/δ, i = 0..n−1). */
typedef struct {
	const zp_zkey *zkey;
	zp_h_mode h_mode;
	unsigned roots;                 /* root family of the key's Lagrange basis (common/ntt.h): 5 (0 means
	                                 * 5: snarkjs, zkpipe setup's default) or 7 (bellperson .params,
	                                 * setup --roots 7). Every backend's H step runs on this family's
	                                 * domain: a key made with ω of one family proves only with it. */
	zp_g1_affine *h_coeff;          /* owned when h_mode == ZP_H_COEFF */
	void *dev_points;               /* NULL, or (CUDA builds) a zp_cuda_key_dev * whose device arrays
	                                 * hold A, B1, B2, C and H (the zkey's point arrays are then NULL;
	                                 * prover/setup_cuda.h): the CUDA backend's create() adopts them
	                                 * (frees them on destroy; one backend per key); the CPU backend
	                                 * refuses such a key */
	/* Compact A/B queries (a bellperson .params as the file has it, prover/params.h): zkey->a holds
	 * n_a points — every input, then the aux wires in A —, b1 and b2 n_b — the inputs in B, then the
	 * aux wires in B —, h_coeff domain points, the last at infinity (the file's domain − 1: h's top
	 * coefficient is zero; params.c and key regions add the last). Which wires they
	 * belong to comes with each proof as density bitmaps (zp_g16_dens_in): such a key proves only
	 * through dens_upload + dens_prove. compact = false: every query has one point per wire. */
	bool compact;
	uint32_t n_a, n_b;
	/* The key proves once (zp_g16_prove, `zkpipe prove`): a device backend then makes nothing that pays
	 * only when reused (the CUDA backend's split-MSM bases: cuda/zp_cuda_plan.h one_shot). */
	bool one_shot;
	/* Where a device backend may keep what it makes from the key at create and would make again at every
	 * start (the CUDA backend's split-MSM bases): NULL, none. gpud: a key region beside the key's. */
	const struct zp_g16_split_store *split_store;
	/* The key's host arrays stay mapped and unchanged while a backend made from it lives (gpud: a key
	 * region, closed only after the backend is destroyed): a device backend may keep them page-locked
	 * after its upload instead of unlocking them first (the CUDA backend: ~0.7 s less at a 2^27 restart). */
	bool host_stays;
	/* NULL, or (CUDA builds) a zp_cuda_dkeep *: the key's device arrays kept across processes. In: n != 0
	 * names an earlier start's arrays of this very key (gpud: from the supervisor); create takes their
	 * fds — adopts them (no upload, checked by checksum) or closes them — and sets n = 0. Out: a created
	 * backend whose arrays are all kept allocations fills it (fds the caller's). */
	void *dev_keep;
} zp_g16_key;

/* The split-MSM bases of one key array as a device backend makes them: `parts` copies of the array's
 * `points` points, copy j holding 2^(256j/parts)·P_i; the store keeps copies 1..parts−1 (copy 0 is the
 * key's own array): (parts − 1)·points·pt_bytes bytes. */
typedef struct { const char *name; unsigned parts; uint64_t points; unsigned pt_bytes; } zp_g16_split_arr;
typedef struct zp_g16_split_store {
	void *ctx;
	/* host[i] = the stored copies of set[i] when the store holds exactly this set (names, parts, counts,
	 * point sizes, made from this very key); else -ENOENT (a stale or half-written set is dropped). */
	int (*get)(void *ctx, const zp_g16_split_arr *set, unsigned n, const void **host);
	/* A writable place for each (the previous set replaced), to be filled and then ended: end(ctx, 0) keeps
	 * it for the next start, end(ctx, rc != 0) drops it. A failed begin costs only the next start. */
	int (*begin)(void *ctx, const zp_g16_split_arr *set, unsigned n, void **host);
	int (*end)(void *ctx, int rc);
} zp_g16_split_store;

/* Device memory by use, as a device backend planned it (the CUDA backend: cuda/zp_cuda_plan.h
 * zp_cuda_mem_uses; the pipelined CPU backend: its host stand-ins): whether a second key fits. */
typedef struct {
	uint64_t key, split, sets, scratch, tables, other, free, total;
} zp_g16_mem_uses;

/* One proof's input for a compact key, as bellperson's prover ABI hands it over (docs/supraseal.md):
 * w = inp (n_public + 1: [1, public...]) ++ aux (the private wires), a/b/c the evaluations over
 * abc_len <= domain rows (zero past them), and the three density bitmaps (u64 words, LSB first) with
 * the caller's popcounts, which the prover checks (ZP_EMISMATCH) before it gathers through them. */
typedef struct {
	const zp_fr *inp, *aux;
	const zp_fr *abc[3];
	uint64_t abc_len;
	const uint64_t *a_aux, *b_inp, *b_aux;
	uint64_t a_aux_pop, b_inp_pop, b_aux_pop;
} zp_g16_dens_in;

typedef struct zp_g16_backend_ops {
	const char *name;
	/* The curves it proves: bit 1 << zp_curve_id each; 0 = BLS12-381 only (backends from before curves).
	 * zp_g16_backend_supports() checks a key against it before create(). */
	unsigned curves;
	int  (*create)(void **state, const zp_g16_key *key);
	int  (*upload)(void *state, const zp_fr *w, zp_fr *a, zp_fr *b, zp_fr *c);
	int  (*h)(void *state);
	int  (*msm)(void *state, zp_g16_msm_out *out);
	void (*destroy)(void *state);
	/* Optional (NULL in the CPU backend): a daemon pipeline that copies partition k+1 while
	 * partition k computes. The state has nbufs() (1 or 2) device input sets. upload_async starts
	 * copying w, a, b, c into set buf (the caller's buffers are only read and must stay unchanged
	 * until upload_wait(buf) returns 0); prove_buf runs H and every MSM on set buf (after its copy)
	 * and leaves the set free. upload_async/upload_wait on one set may run in one thread while
	 * prove_buf runs on the other set in another thread; at most one prove_buf at a time. */
	int  (*nbufs)(void *state);
	int  (*upload_async)(void *state, int buf, const zp_fr *w, const zp_fr *a, const zp_fr *b, const zp_fr *c);
	int  (*upload_wait)(void *state, int buf);
	int  (*prove_buf)(void *state, int buf, zp_g16_msm_out *out);
	/* Optional: pin [p, p + len) for direct DMA by upload_async (0, or <0 and zp_err_msg(): the
	 * uploads then stage through the backend's own pinned buffer). Before any create(). */
	int  (*host_register)(void *p, size_t len);
	void (*host_unregister)(void *p);
	/* Optional: nonzero when the device cannot be used again by this process (a sticky error such as
	 * an illegal address): the caller should exit so that it is restarted. */
	int  (*fatal)(void);
	/* Compact keys (zp_g16_key.compact; create() of a backend without these refuses them).
	 * dens_upload takes one proof's input: when it returns (0 or an error) nothing reads the caller's
	 * memory any more — the CPU copies it into the state's buffers (a/b/c zero-padded to the domain),
	 * the CUDA backend DMAs it straight to the device when the range was host_register'ed, else
	 * copies it to its own host buffers first. dens_prove then checks the popcounts (ZP_EMISMATCH),
	 * gathers the A and B scalars through the bitmaps, runs H (the key's family and H mode) and the
	 * five MSMs (H over domain − 1 points). One proof at a time per state. */
	int  (*dens_upload)(void *state, const zp_g16_dens_in *in);
	int  (*dens_prove)(void *state, zp_g16_msm_out *out);
	/* Optional: the state's device memory by use (0, or -ENOTSUP). */
	int  (*mem_uses)(void *state, zp_g16_mem_uses *u);
	/* Optional: this backend's ops for compact keys when they are another table (the CUDA backend's
	 * zp_g16_backend_cuda_params): zp_g16_backend_for_key picks it by the key's format. NULL: this table
	 * takes both formats (the CPU backend). */
	const struct zp_g16_backend_ops *compact_ops;
	/* Optional: nonzero when the state reads the key's host point arrays after create (the CUDA backend
	 * streaming arrays that do not fit the card from them): the caller keeps them until destroy. NULL or
	 * 0: create copied what it needs (a caller may free the host points). */
	int  (*reads_host_key)(void *state);
} zp_g16_backend_ops;

/* The ops that prove key on backend be: be's compact table for a compact key when it has one, else be.
 * Every caller that creates a backend state picks its table so, and uses that table for the state. */
static inline const zp_g16_backend_ops *zp_g16_backend_for_key(const zp_g16_backend_ops *be, const zp_g16_key *key)
{
	return key->compact && be->compact_ops ? be->compact_ops : be;
}

extern const zp_g16_backend_ops zp_g16_backend_cpu;
/* The CPU backend behind the device pipeline's ops (nbufs 2, upload_async, upload_wait, prove_buf:
 * two host input sets standing in for a device's), for tests of gpud's pipeline on machines without
 * a GPU (ZKPIPE_GPUD_PIPELINE=1). Same proofs as zp_g16_backend_cpu. */
extern const zp_g16_backend_ops zp_g16_backend_cpu_pipe;

/* The key's root family as common/ntt.h names it (roots 0 or 5: ZP_NTT_ROOT5, 7: ZP_NTT_ROOT7). */
static inline enum zp_ntt_roots zp_g16_key_roots(const zp_g16_key *key)
{
	return key->roots == 7 ? ZP_NTT_ROOT7 : ZP_NTT_ROOT5;
}

/* 0 when backend be proves key's curve, else ZP_ERANGE naming the backend and the curve (a backend that
 * declares no curves proves BLS12-381 only; CPU and CUDA declare both). zp_g16_prover_init calls it; so must
 * any caller of be->create(). */
int  zp_g16_backend_supports(const zp_g16_backend_ops *be, const zp_g16_key *key);

/* Build the ZP_H_COEFF key from a snarkjs key: Q_i = −2·ω_2n^i·Σ_j ω_n^(ij)·H_j (a point NTT;
 * n log n scalar multiplications — for tests and conversions, not the hot path). */
int  zp_g16_key_init(zp_g16_key *key, const zp_zkey *zkey, zp_h_mode mode);
void zp_g16_key_free(zp_g16_key *key);

typedef struct {
	const zp_g16_backend_ops *backend;  /* zp_g16_prove only; NULL = CPU */
	const zp_fr *r, *s;                 /* NULL = fresh from getrandom(2) */
	bool skip_check;                    /* skip the C-matrix satisfiability check */
	bool skip_verify;                   /* skip the pairing self-check (benchmarks only) */
} zp_g16_prove_opts;

/* A prover for one key on one backend: the backend's per-key state (NTT tables, MSM scratch; on a
 * device, the key resident in device memory) is made once by init and reused by every proof.
 * One proof at a time per prover. */
typedef struct {
	const zp_g16_key *key;
	const zp_g16_backend_ops *be;
	void *state;
} zp_g16_prover;

int  zp_g16_prover_init(zp_g16_prover *p, const zp_g16_key *key, const zp_g16_backend_ops *backend /* NULL = CPU */);
void zp_g16_prover_free(zp_g16_prover *p);

/* Prove with assignment w (n_vars values, Montgomery) for circuit circ: the key's own circuit
 * or one compiled from the r1cs (fingerprints must match; then every constraint is checked
 * first). Errors: ZP_EMISMATCH (sizes/fingerprint), ZP_EUNSAT (names the first failing
 * constraint), ZP_EVERIFY (the self-check failed). On error *proof is zeroed. */
int  zp_g16_prover_prove(zp_g16_prover *p, zp_g16_proof *proof, const zp_circuit *circ,
			 const zp_fr *w, uint32_t n_w, const zp_g16_prove_opts *opts);

/* The same from a, b, c already computed (a synthesizer's output: domain_size values each, rows
 * past the circuit zero); the backend may overwrite a, b, c (the CPU backend proves in place).
 * No constraint check (there is no C here to check against): the self-check still runs. */
int  zp_g16_prover_prove_abc(zp_g16_prover *p, zp_g16_proof *proof, const zp_fr *w, uint32_t n_w,
			     zp_fr *a, zp_fr *b, zp_fr *c, const zp_g16_prove_opts *opts);

/* One-shot: init, prove, free. */
int  zp_g16_prove(zp_g16_proof *proof, const zp_g16_key *key, const zp_circuit *circ,
		  const zp_fr *w, uint32_t n_w, const zp_g16_prove_opts *opts);

void zp_g16_finish(zp_g16_proof *proof, const zp_zkey *key, const zp_g16_msm_out *m,
		   const zp_fr *r, const zp_fr *s);

/* The witness w fits key k: same curve (ZP_EMISMATCH naming both curves), n = nVars. name: for messages. */
int  zp_g16_check_witness(const zp_zkey *k, const zp_wtns *w, const char *name);

/* Verify: e(A,B) = e(α,β)·e(Σ pub·IC, γ)·e(C, δ). Points of the proof are checked on the curve
 * and in the subgroup, public inputs must be < r (they are zp_fr, so they are). Returns 0
 * when valid, ZP_EVERIFY when not, another code for malformed input; a proof of the other curve than
 * vk's is ZP_EMISMATCH naming both. */
int  zp_g16_verify(const zp_g16_vk *vk, const zp_g16_proof *proof, const zp_fr *pub, uint32_t n_pub);

#endif
