/*
 * keystore.h — gpud's proving keys kept in key regions (shm/keyregion.h), so that a restarted gpud
 * takes its key from shared memory (already decoded and checked, page-locked for the GPU) instead of
 * re-reading and re-checking its file.
 *
 * A region holds one key as the backends read it: section "meta" (struct zp_keystore_meta: counts,
 * the six fixed points, H mode, root family, the circuit's fingerprint), then "ic", "a", "b1", "b2",
 * "c", "h" — the point arrays in their in-memory form (h: the H query of the key's H mode). A compact
 * key (a Filecoin .params as the file has it) has the compact vectors and its counts in meta.
 *
 *   put     a key loaded the ordinary way is copied into a new region (the previous one of that name,
 *           stale or half-written, is removed first) and sealed; the views then point into it
 *   get     the region attached read-only and its views made: nothing read from the key file
 *   params  a .params file loaded straight into a new region (prover/params_load.h: io_uring, every
 *           point checked), sealed
 * Curves: a region holds a key of either curve. The curve is recorded twice — the region header's curve
 * name (zp_curve.name) and meta.curve — and sets the point sizes of the sections and which zkey members
 * the views bind (zk.bn for BN254). get refuses (ZP_EFORMAT) a region whose two records disagree, name an
 * unknown curve or whose sections are not that curve's sizes: a key is never read in the other curve's
 * layout. A BLS12-381 region is laid out exactly as before curves (curve 0). .params and device keys are
 * BLS12-381's.
 * The views (zk, gk; gk.zkey = &zk) are valid while the region is attached: a caller that copies them
 * re-points gk.zkey at its copy of zk. Never zp_g16_key_free / zp_zkey_free them: zp_keystore_close.
 */
#ifndef ZP_GPUD_KEYSTORE_H
#define ZP_GPUD_KEYSTORE_H

#include "groth16.h"
#include "keyregion.h"
#include "params_load.h"

#define ZP_KEYSTORE_VERSION 1u

struct zp_keystore_meta {
	uint32_t version, n_vars, n_public, domain_size, log_domain, n_constraints;
	uint32_t h_mode, roots, compact, n_a, n_b;
	uint32_t curve;            /* 0: BLS12-381 (the former reserved word: regions from before curves), 2: BN254 */
	uint8_t fingerprint[16];
	union {                    /* the fixed points in the curve's types (BN254's are smaller: same meta size) */
		struct {
			zp_g1_affine alpha1, beta1, delta1;
			zp_g2_affine beta2, gamma2, delta2;
		};
		struct {
			zp_bn254_g1_affine alpha1, beta1, delta1;
			zp_bn254_g2_affine beta2, gamma2, delta2;
		} bn;
	};
	uint64_t n[6];             /* points in ic, a, b1, b2, c, h */
};

typedef struct {
	zp_keyregion reg;
	zp_zkey zk;
	zp_g16_key gk;
} zp_keystore_key;

/* Copy src (host points; not a key made on the device) into a new region `name`; k's views then
 * point into it. format: the key loader's name for it (zp_keyregion_file_ident's too). -EEXIST when
 * another process made this key's region meanwhile (get it), -EBUSY while one is writing it; a stale
 * or half-written region of that name (its creator dead) is replaced. The same for params and begin. */
int zp_keystore_put(zp_keystore_key *k, const char *name, const char *hdir, const uint8_t ident[16],
		    const char *format, const char *key, const zp_g16_key *src);
/* A .params file (zp_params_scan, then zp_params_load_into: io_uring, every point checked) straight into a
 * new region, as the compact key zp_params_load would make (root family 7, coefficient H). */
int zp_keystore_params(zp_keystore_key *k, const char *name, const char *hdir, const uint8_t ident[16], const char *key,
		       const char *path, const zp_params_load_opts *opts, zp_params_load_stats *stats);
/* A key whose points the caller writes itself (a key made in device memory: copied back): begin makes
 * the region from src's counts and fixed points, wsect gives a section ("a", "b1", "b2", "c", "h", "ic")
 * to write, seal (rc: the caller's result so far; non-zero drops the region) makes the views. */
int zp_keystore_begin(zp_keystore_key *k, const char *name, const char *hdir, const uint8_t ident[16],
		      const char *format, const char *key, const zp_g16_key *src);
void *zp_keystore_wsect(zp_keystore_key *k, const char *sect, uint64_t *bytes);
int zp_keystore_seal(zp_keystore_key *k, const char *name, const char *hdir, int rc);
/* Attach region `name` if it holds this identity's key, complete: 0; else the region's refusal
 * (zp_keyregion_attach: -ENOENT, ZP_EMISMATCH, ZP_ETRUNC, ...) or ZP_EFORMAT for a bad meta. */
int zp_keystore_get(zp_keystore_key *k, const char *name, const char *hdir, const uint8_t ident[16]);
/* Remove a region that get refused, unless its creator is still writing it (then -EBUSY). */
int zp_keystore_drop(const char *name, const char *hdir);
void zp_keystore_close(zp_keystore_key *k);

/* ---- split bases (groth16.h zp_g16_split_store) in a region of their own, "<arena>.split.<key>" ----
 * What the CUDA backend makes from a key at every start (its split-MSM bases: 12 GiB and ~1 s at 2^27),
 * kept beside the key's region by the first gpud and uploaded by the next instead of made again. The
 * region's identity is zp_keystore_split_ident's: the key region it was made from (its header: the key
 * file's identity, curve, sections, creation time and creator — a key region made again, even of the same
 * file, is another key region) and the circuit's fingerprint, with the set (names, parts, counts, point
 * sizes); one made from anything else, half-written, or of another set is never used: get drops it. */
typedef struct {
	zp_keyregion reg;
	char name[ZP_KREG_NAME_MAX];
	const char *hdir;
	uint8_t base[16];          /* zp_keystore_split_base of the key it belongs to */
	bool writing;
	unsigned hits, kept;       /* sets given back, sets kept (for the caller's log) */
	uint64_t bytes;            /* of the last set given back or kept */
} zp_keystore_split;
/* s empty (no region), for the split region `name` (zp_keyregion_split_name) of the key whose region
 * gave base (zp_keystore_split_base). */
void zp_keystore_split_init(zp_keystore_split *s, const char *name, const char *hdir, const uint8_t base[16]);
/* The part of the split regions' identity that comes from the key: k's region header and fingerprint. */
void zp_keystore_split_base(const zp_keystore_key *k, uint8_t base[16]);
int zp_keystore_split_get(zp_keystore_split *s, const zp_g16_split_arr *set, unsigned n, const void **host);
int zp_keystore_split_begin(zp_keystore_split *s, const zp_g16_split_arr *set, unsigned n, void **host);
int zp_keystore_split_end(zp_keystore_split *s, int rc);
void zp_keystore_split_close(zp_keystore_split *s);
/* The store's table for a backend (ctx: s). */
void zp_keystore_split_store(zp_keystore_split *s, zp_g16_split_store *ops);

#endif
