/*
 * binfile.h — the iden3 binary container shared by circom .r1cs, .wtns and snarkjs .zkey.
 *
 *   magic[4] | u32 version | u32 nSections | nSections x { u32 id | u64 size | bytes[size] }
 *
 * All integers little-endian. Sections are found by id, never by position (circom writes an
 * r1cs as 2,1,3; snarkjs writes a zkey as 1,2,4,3,9,8,5,6,7,10). A file whose section table
 * runs past its end, or that repeats an id, is rejected at parse time, so later lookups
 * only ever see sections that lie wholly inside the buffer.
 *
 * Errors are returned as negative zp_err codes with a context message (file name, section,
 * what was expected) set through zp_err_set(); nothing here allocates except the section
 * table, and sizes taken from a file are bounded by the file's length before use.
 */
#ifndef ZP_BINFILE_H
#define ZP_BINFILE_H

#include <stddef.h>
#include <stdint.h>

#include "curve.h"

#include "field.h"

typedef struct {
	uint32_t id;
	uint64_t off;   /* offset of the section's first byte in the buffer */
	uint64_t size;
} zp_bin_section;

typedef struct {
	const uint8_t *data;
	size_t len;
	const char *name;       /* file name, for error messages; not owned */
	uint32_t version;
	uint32_t nsec;
	zp_bin_section *secs;   /* owned */
} zp_bin;

/* A bounded reader over one section; every get checks the remaining length. */
typedef struct {
	const uint8_t *p;
	uint64_t left;
	const char *file;
	uint32_t sec;
} zp_bin_cur;

/* A whole file, memory-mapped read-only (or an empty buffer for an empty file). */
typedef struct {
	const uint8_t *data;
	size_t len;
	int mapped;
} zp_bin_map;

/* Regular files only (opened O_NONBLOCK: a FIFO or device named instead never blocks the caller). */
int  zp_bin_map_file(zp_bin_map *m, const char *path);
void zp_bin_unmap(zp_bin_map *m);

/* Parse the container header and section table; magic is the expected 4 bytes. */
int  zp_bin_parse(zp_bin *b, const uint8_t *data, size_t len, const char *name, const char magic[4]);
void zp_bin_free(zp_bin *b);

/* The same checks on an open file, read with pread (data stays NULL: use zp_bin_section_find and
 * zp_bin_pread). For files a client names: nothing is mapped, and a file truncated while it is
 * read gives ZP_ETRUNC rather than SIGBUS. At most ZP_BIN_FD_MAX_SECTIONS sections (each costs
 * a read). */
#define ZP_BIN_FD_MAX_SECTIONS 64
int  zp_bin_parse_fd(zp_bin *b, int fd, const char *name, const char magic[4]);
int  zp_bin_pread(int fd, void *buf, size_t n, uint64_t off);   /* 0, -errno, ZP_ETRUNC at EOF */
/* (Opening a regular file: common/zp_file.h's zp_file_open_regular.) */
/* u32 at byte `at` of section id (header peeks of an r1cs or zkey: nothing else is read). */
int  zp_bin_peek_u32(const char *path, const char magic[4], uint32_t id, uint64_t at, uint32_t *v);
/* Find section id; ZP_EFORMAT "missing section" when absent. If want_size is not
 * UINT64_MAX the section must be exactly that long (ZP_EFORMAT naming both sizes). */
int  zp_bin_section_cur(const zp_bin *b, uint32_t id, uint64_t want_size, zp_bin_cur *c);
int  zp_bin_section_find(const zp_bin *b, uint32_t id, uint64_t want_size, const zp_bin_section **s);

int  zp_bin_get_u32(zp_bin_cur *c, uint32_t *v, const char *field);
int  zp_bin_get_u64(zp_bin_cur *c, uint64_t *v, const char *field);
int  zp_bin_get_bytes(zp_bin_cur *c, const uint8_t **p, uint64_t n, const char *field);
/* The section must be fully consumed (ZP_EFORMAT "trailing bytes" otherwise). */
int  zp_bin_expect_end(const zp_bin_cur *c);

/* Field header shared by r1cs, wtns and zkey: u32 n8 (must be 32) then prime[32], the scalar field r of
 * BLS12-381 or of BN254: *curve says which (anything else is ZP_EMISMATCH). */
int  zp_bin_read_fr_prime(zp_bin_cur *c, const zp_curve **curve);
/* le < the curve's r / q (fr_bytes / fp_bytes little-endian). */
int  zp_bin_fr_canonical_of(const zp_curve *cv, const uint8_t *le);
int  zp_bin_fp_canonical_of(const zp_curve *cv, const uint8_t *le);

#endif
