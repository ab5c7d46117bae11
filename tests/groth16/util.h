/* Shared helpers for the tests in tests/groth16 (file loading, checks). */
#ifndef ZP_TEST_G16_UTIL_H
#define ZP_TEST_G16_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zp_err.h"

static int test_failures;

#define CHECK(cond, ...)                                                            \
	do {                                                                        \
		if (!(cond)) {                                                      \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                               \
			fprintf(stderr, " [last error: %s]\n", zp_err_msg());       \
			test_failures++;                                            \
		}                                                                   \
	} while (0)

static inline uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc(n ? (size_t)n : 1);
	if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* Offset of section id's payload in an iden3 container buffer (or 0). */
static inline size_t section_off(const uint8_t *b, size_t len, uint32_t id, uint64_t *size)
{
	uint32_t n;
	memcpy(&n, b + 8, 4);
	size_t off = 12;
	for (uint32_t i = 0; i < n && off + 12 <= len; i++) {
		uint32_t sid;
		uint64_t sz;
		memcpy(&sid, b + off, 4);
		memcpy(&sz, b + off + 4, 8);
		if (sid == id) {
			if (size)
				*size = sz;
			return off + 12;
		}
		off += 12 + sz;
	}
	return 0;
}

#endif
