/*
 * keyfile.h — zkpipe's own Groth16 proving key file (".zpk"): memory-mappable, loadable with
 * one O_DIRECT io_uring read stream into caller memory (which the caller may pin for the GPU),
 * every section checksummed.
 *
 * Layout (x86-64 little-endian; all offsets multiples of ZP_PKEY_ALIGN = 4096):
 *
 *   [0, 4096)        header (zp_pkey_header, exactly one page; its last 8 bytes are XXH64 of
 *                    the 4088 before them)
 *   sec 1 FIXED      alpha1, beta1, delta1 (G1), beta2, gamma2, delta2 (G2)      864 B (BN254: 576 B)
 *   sec 2 IC         n_public + 1 G1
 *   sec 3 A          n_vars G1         u_i(τ)
 *   sec 4 B1         n_vars G1         v_i(τ)
 *   sec 5 B2         n_vars G2         v_i(τ)
 *   sec 6 C          n_vars − n_public − 1 G1   (β·u_i + α·v_i + w_i)/δ for the private wires
 *   sec 7 H          domain_size G1    ZP_H_SNARKJS: L^(2n)_(2j+1)(τ)/δ;  ZP_H_COEFF: τ^i·Z(τ)/δ
 *   each section starts on a 4096 boundary, the gap after it is zero, the file ends on one.
 *
 * Curve: the header's curve field (0 = absent = BLS12-381, 2 = BN254; docs/keys.md) sets the point sizes
 * (G1/G2 96/192 bytes for BLS12-381, 64/128 for BN254) and which zkey members the views bind (zkey.h).
 *
 * Points are in the in-memory form (ec.h: affine, Montgomery, infinity = all zero; identical
 * to a .zkey's), so a loaded or mapped file is used in place: zp_pkey's zkey view points into
 * it. The circuit is not in the file: the header's fingerprint (zp_circuit's) ties the key to
 * it, and the prover refuses a circuit whose fingerprint differs. The header also records the
 * H convention, the root family the key's Lagrange basis was made with (5: snarkjs and zkpipe's
 * prover; 7: bellperson), the counts, each section's XXH64, a free-form origin text (for
 * synthetic circuits, their parameters) and flags — ZP_PKEY_INSECURE for a development key
 * whose toxic waste was drawn by one process (zkpipe setup): never use it in production.
 *
 * Checks on load and map, all before anything is handed out: magic, version, header checksum,
 * geometry (counts agree, sections aligned, in order, inside the file), file size, every
 * section's XXH64, optionally the expected fingerprint and a full curve/subgroup check of every
 * point (opts.check_points). Errors name the file, the section and what is wrong.
 */
#ifndef ZP_KEYFILE_H
#define ZP_KEYFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "groth16.h"
#include "zkey.h"

#define ZP_PKEY_MAGIC "zpG16key"
#define ZP_PKEY_VERSION 1
#define ZP_PKEY_ALIGN 4096
#define ZP_PKEY_INSECURE 1u       /* flag: development key (single-party toxic waste) */

enum { ZP_PKS_FIXED = 1, ZP_PKS_IC, ZP_PKS_A, ZP_PKS_B1, ZP_PKS_B2, ZP_PKS_C, ZP_PKS_H, ZP_PKS_N = 7 };

typedef struct {
	uint32_t id, elem_bytes;
	uint64_t offset, count, bytes, xxh64;
} zp_pkey_section;

typedef struct {
	char magic[8];
	uint32_t version, header_bytes;
	uint32_t flags, h_mode, roots, n_sections;
	uint32_t n_vars, n_public, domain_size, log_domain, n_constraints;
	uint32_t curve;                  /* 0 (absent: files from before curves) or 1: BLS12-381; 2: BN254 */
	uint8_t fingerprint[16];
	uint64_t file_bytes;
	zp_pkey_section sec[ZP_PKS_N];   /* sec[i].id = i + 1 */
	char origin[256];
	uint8_t zero[3472];
	uint64_t header_xxh64;
} zp_pkey_header;

_Static_assert(sizeof(zp_pkey_section) == 40, "section record");
_Static_assert(sizeof(zp_pkey_header) == ZP_PKEY_ALIGN, "header is one page");

/* A proving key in one block of memory laid out exactly as the file. zk and g16 are views into
 * it (valid while the zp_pkey lives and is not moved: use zp_pkey_g16()). */
typedef struct {
	zp_pkey_header *hdr;   /* = mem */
	zp_zkey zk;            /* points; zk.circuit holds only counts and the fingerprint */
	zp_g16_key g16;
	void *mem;
	size_t mem_bytes;
	int owner;             /* 0 caller's memory, 1 malloc, 2 mmap */
} zp_pkey;

typedef struct {
	void *buf;                      /* caller memory (>= hdr.file_bytes, 4096-aligned for O_DIRECT); NULL: allocate */
	size_t buf_bytes;
	const uint8_t *fingerprint;     /* expected circuit fingerprint (16 bytes) or NULL */
	bool buffered;                  /* don't try O_DIRECT */
	bool check_points;              /* also check every point on the curve and in the subgroup */
	unsigned queue_depth;           /* io_uring reads in flight (0: 16) */
	size_t chunk_bytes;             /* bytes per read (0: 4 MiB) */
} zp_pkey_load_opts;

typedef struct {
	bool direct;                    /* O_DIRECT was used */
	double seconds;                 /* open to verified */
	uint64_t bytes;
} zp_pkey_load_stats;

/* Fill h's geometry (magic, version, counts, section table, file_bytes) for a key of these
 * counts; checksums are left zero. ZP_ERANGE for impossible counts. */
int  zp_pkey_layout(zp_pkey_header *h, uint32_t n_vars, uint32_t n_public, uint32_t domain_size);
/* The same for a curve's key (points of cv's sizes; h->curve set: 0 for BLS12-381, so its files are
 * unchanged, ZP_CURVE_BN254 for BN254). */
int  zp_pkey_layout_curve(zp_pkey_header *h, const zp_curve *cv, uint32_t n_vars, uint32_t n_public,
			  uint32_t domain_size);
/* Allocate a zeroed key of h's geometry (header copied) and bind the views. */
int  zp_pkey_alloc(zp_pkey *k, const zp_pkey_header *h);
/* Compute every section's checksum and the header's (call after filling the points). */
void zp_pkey_seal(zp_pkey *k);
/* Seal and write the whole key to path (written to path.tmp, then renamed). */
int  zp_pkey_write(zp_pkey *k, const char *path);

/* Read and validate the header of path (for sizing the caller's buffer: h->file_bytes). */
int  zp_pkey_probe(zp_pkey_header *h, const char *path);
/* Load through io_uring (O_DIRECT when the file system and buffer allow, buffered otherwise),
 * checking as above. opts and stats may be NULL. */
int  zp_pkey_load(zp_pkey *k, const char *path, const zp_pkey_load_opts *opts, zp_pkey_load_stats *stats);
/* Map read-only and check; the views point into the mapping. */
int  zp_pkey_map(zp_pkey *k, const char *path, const zp_pkey_load_opts *opts);
void zp_pkey_free(zp_pkey *k);

/* The key as the prover takes it. */
const zp_g16_key *zp_pkey_g16(zp_pkey *k);

/* Fingerprint check with a clear message (ZP_EMISMATCH). */
int  zp_pkey_check_circuit(const zp_pkey *k, const zp_circuit *c, const char *name);

/* From a snarkjs key (points copied; ZP_H_COEFF derives the coefficient H query from the
 * odd-root one: n log n scalar multiplications). */
int  zp_pkey_from_zkey(zp_pkey *k, const zp_zkey *z, zp_h_mode mode);
/* Write a snarkjs .zkey (sections 1-10; section 10 records no contributions) from a key in the
 * snarkjs convention and its circuit (section 4 comes from the circuit's A and B). */
int  zp_pkey_write_zkey(const zp_pkey *k, const zp_circuit *c, const char *path);

#endif
