/*
 * serialize.h — G1/G2 points to and from the encodings zkpipe meets.
 *
 * 1. zcash / bellperson bytes (Filecoin proofs and .params files):
 *      G1 compressed 48 B, uncompressed 96 B; G2 compressed 96 B, uncompressed 192 B.
 *      Coordinates big-endian, normal form; an Fp2 element is written c1 ‖ c0
 *      (imaginary part first).  The top three bits of byte 0 are flags:
 *        0x80 compressed   set exactly in the compressed forms
 *        0x40 infinity     then every other bit of the encoding is zero
 *        0x20 sign         compressed, finite only: y is the larger root,
 *                          zp_fp_is_lexlargest / zp_fp2_is_lexlargest
 *      Decoding checks, in this order, and returns the first failure:
 *        ZP_EFLAGS        compression bit wrong for the function, sign bit on an
 *                         uncompressed or infinite point, infinity with any other bit set
 *        ZP_ENONCANON     a coordinate >= q
 *        ZP_ENOTSQR       compressed x with no y on the curve
 *        ZP_EINVAL_POINT  uncompressed point not on the curve
 *        ZP_ESUBGROUP     on the curve but not in the order-r subgroup
 *      ZP_SER_NO_SUBGROUP skips the last check, for bulk loading of trusted keys:
 *      a subgroup check costs about as much as 130 (G1) or 65 (G2) doublings,
 *      the on-curve check two multiplications.
 *
 * 2. snarkjs JSON (proof.json, verification_key.json): decimal strings of normal-form
 *    affine coordinates, Fp2 as [c0, c1]:
 *      G1 [x, y, "1"]                       infinity ["0", "1", "0"]
 *      G2 [[x0, x1], [y0, y1], ["1", "0"]]  infinity [["0","0"], ["1","0"], ["0","0"]]
 *    The JSON itself is the caller's (jansson); these functions convert between
 *    points and the strings.  Parsing accepts z = 1 (or z absent: NULL) for a finite
 *    point and exactly the infinity above for z = 0; anything else is ZP_EFORMAT.
 *    Then the same field / curve / subgroup checks as above.
 *
 * 3. .zkey points: zp_g1_affine / zp_g2_affine already are the .zkey bytes
 *    (little-endian Montgomery, x ‖ y, Fp2 c0 ‖ c1, infinity all zero), so a reader
 *    may use a section in place.  zp_g1_affine_from_zkey_bytes copies and validates
 *    one point; zp_g1_affine_check_array validates a section in place.
 *
 * All functions are pure (no allocation, no global state besides zp_err_set's
 * thread-local message on failure) and thread-safe.  Decoders write *p only on success.
 */
#ifndef ZP_SERIALIZE_H
#define ZP_SERIALIZE_H

#include <stddef.h>
#include <stdint.h>

#include "ec.h"

#define ZP_G1_COMPRESSED_BYTES 48
#define ZP_G1_UNCOMPRESSED_BYTES 96
#define ZP_G2_COMPRESSED_BYTES 96
#define ZP_G2_UNCOMPRESSED_BYTES 192

#define ZP_SER_FLAG_COMPRESSED 0x80
#define ZP_SER_FLAG_INFINITY 0x40
#define ZP_SER_FLAG_SIGN 0x20

/* Decoder options (bit set). */
#define ZP_SER_NO_SUBGROUP 1u   /* trusted input: check the curve, not the subgroup */

/* ---- zcash / bellperson ---- */
void zp_g1_to_compressed(uint8_t out[ZP_G1_COMPRESSED_BYTES], const zp_g1_affine *p);
void zp_g1_to_uncompressed(uint8_t out[ZP_G1_UNCOMPRESSED_BYTES], const zp_g1_affine *p);
int  zp_g1_from_compressed(zp_g1_affine *p, const uint8_t in[ZP_G1_COMPRESSED_BYTES], unsigned opts);
int  zp_g1_from_uncompressed(zp_g1_affine *p, const uint8_t in[ZP_G1_UNCOMPRESSED_BYTES], unsigned opts);

void zp_g2_to_compressed(uint8_t out[ZP_G2_COMPRESSED_BYTES], const zp_g2_affine *p);
void zp_g2_to_uncompressed(uint8_t out[ZP_G2_UNCOMPRESSED_BYTES], const zp_g2_affine *p);
int  zp_g2_from_compressed(zp_g2_affine *p, const uint8_t in[ZP_G2_COMPRESSED_BYTES], unsigned opts);
int  zp_g2_from_uncompressed(zp_g2_affine *p, const uint8_t in[ZP_G2_UNCOMPRESSED_BYTES], unsigned opts);

/* ---- snarkjs decimal strings ---- */
#define ZP_SER_DEC_BUF 120   /* one Fp in decimal with its NUL (field.h's zp_fp_to_dec size) */

typedef struct { char c[3][ZP_SER_DEC_BUF]; } zp_g1_dec;      /* x, y, z */
typedef struct { char c[3][2][ZP_SER_DEC_BUF]; } zp_g2_dec;   /* [x0,x1], [y0,y1], [z0,z1] */

/* Fill *out with the snarkjs strings of p (affine, z = "1"; infinity as above). */
void zp_g1_to_dec(zp_g1_dec *out, const zp_g1_affine *p);
void zp_g2_to_dec(zp_g2_dec *out, const zp_g2_affine *p);
/* x, y: NUL-terminated decimal strings; z may be NULL (absent). */
int  zp_g1_from_dec(zp_g1_affine *p, const char *x, const char *y, const char *z, unsigned opts);
/* x[2], y[2] as c0, c1; z may be NULL, else z[2]. */
int  zp_g2_from_dec(zp_g2_affine *p, const char *const x[2], const char *const y[2],
		    const char *const z[2], unsigned opts);

/* ---- .zkey form ---- */
/* Each limb-encoded coordinate < q (as Montgomery residue), on the curve, in the subgroup
 * unless ZP_SER_NO_SUBGROUP.  0 or ZP_ENONCANON / ZP_EINVAL_POINT / ZP_ESUBGROUP. */
int  zp_g1_affine_from_zkey_bytes(zp_g1_affine *p, const uint8_t in[ZP_G1_UNCOMPRESSED_BYTES], unsigned opts);
int  zp_g2_affine_from_zkey_bytes(zp_g2_affine *p, const uint8_t in[ZP_G2_UNCOMPRESSED_BYTES], unsigned opts);
/* Validate n points in place, on the zp_par_for thread pool (par.h) when n is large;
 * on failure *bad (if not NULL) is the lowest bad index and the code is that point's. */
int  zp_g1_affine_check_array(const zp_g1_affine *p, size_t n, unsigned opts, size_t *bad);
int  zp_g2_affine_check_array(const zp_g2_affine *p, size_t n, unsigned opts, size_t *bad);

#endif
