/*
 * keyload.h — gpud's key loader: the whole file read with io_uring into one malloc'ed
 * buffer (the caller parses it and frees it).
 */
#ifndef ZP_GPUD_KEYLOAD_H
#define ZP_GPUD_KEYLOAD_H

#include <stddef.h>
#include <stdint.h>

int zp_key_read_file(const char *path, uint8_t **data, size_t *len);

#endif
