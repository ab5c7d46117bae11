/* Shared helpers for tests/scale. */
#ifndef ZP_TEST_SCALE_UTIL_H
#define ZP_TEST_SCALE_UTIL_H

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

#define DONE() (test_failures ? (fprintf(stderr, "%d failure(s)\n", test_failures), 1) : 0)

#endif
