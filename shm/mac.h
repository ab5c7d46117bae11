/*
 * mac.h — SHA-256 and HMAC-SHA-256 (mac.c): the key regions' MAC (keyregion.h).
 */
#ifndef ZP_SHM_MAC_H
#define ZP_SHM_MAC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
	uint32_t h[8];
	uint64_t len;
	uint8_t buf[64];
	size_t n;
} zp_sha256;

void zp_sha256_init(zp_sha256 *s);
void zp_sha256_update(zp_sha256 *s, const void *data, size_t len);
void zp_sha256_final(zp_sha256 *s, uint8_t out[32]);
void zp_hmac_sha256(const uint8_t *key, size_t klen, const void *msg, size_t len, uint8_t out[32]);
/* Constant-time comparison. */
bool zp_mac_equal(const uint8_t *a, const uint8_t *b, size_t n);

#endif
