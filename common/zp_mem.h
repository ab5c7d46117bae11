/*
 * zp_mem.h — aligned allocation with a size C11 allows.
 *
 * aligned_alloc requires the size to be a multiple of the alignment: glibc tolerates other sizes,
 * AddressSanitizer reports them, other C libraries may return NULL. zp_aligned_alloc rounds the
 * size up (NULL on overflow), so callers pass the bytes they need. Free with free().
 */
#ifndef ZP_MEM_H
#define ZP_MEM_H

#include <stdint.h>
#include <stdlib.h>

/* align: a power of two (a multiple of sizeof(void *)) */
static inline void *zp_aligned_alloc(size_t align, size_t size)
{
	if (size > SIZE_MAX - (align - 1))
		return NULL;
	return aligned_alloc(align, (size + align - 1) & ~(align - 1));
}

#endif
