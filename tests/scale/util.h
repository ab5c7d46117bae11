/* Shared helpers for tests/scale: the groth16 tests' CHECK (with the last zkpipe error) plus DONE(). */
#ifndef ZP_TEST_SCALE_UTIL_H
#define ZP_TEST_SCALE_UTIL_H

#include "../groth16/util.h"

#define DONE() (test_failures ? (fprintf(stderr, "%d failure(s)\n", test_failures), 1) : 0)

#endif
