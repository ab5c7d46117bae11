/*
 * dkeep.h — device-kept keys between gpud and the supervisor (docs/keys.md "Device-kept keys").
 *
 * A gpud whose CUDA backend made a key's arrays as kept allocations (cuda/keep.cu: device memory named
 * by file descriptors) offers them: it writes <run>/dkeep/<group>.gpud<i> (zp_dkeep_format, its pid on
 * the first line, its own fd numbers), and the supervisor, which never uses CUDA, takes the fds with
 * pidfd_getfd and removes the file. When that gpud dies, the bytes stay on the GPU; the next gpud of
 * the slot is started with the fds as 3, 4, ... and ZP_DKEEP naming them (the same text), adopts the
 * arrays of the keys it loads (checked by checksum) and closes the rest — their memory goes back then —
 * and offers what it adopted again. The text is bounded and parsed strictly: a line per key,
 *   K <ident: 32 hex> <curve> <wires> <domain> <H split> <witness split> <fd>:<bytes>:<sum hex> ×5
 */
#ifndef ZP_PIPE_DKEEP_H
#define ZP_PIPE_DKEEP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"

#define ZP_DKEEP_KEYS 8        /* kept keys per gpud */
#define ZP_DKEEP_ARRAYS 5      /* a, b1, b2, c, h (cuda/zp_cuda.h ZP_CUDA_DKEEP_N) */
#define ZP_DKEEP_TEXT 4096     /* the file's and the variable's bound */

typedef struct {
	uint8_t ident[16];     /* the key region's identity of the key file (gpud/keystore.h) */
	uint32_t curve, hsplit, wsplit;
	uint64_t nv, dom;
	int fd[ZP_DKEEP_ARRAYS];
	uint64_t bytes[ZP_DKEEP_ARRAYS], sum[ZP_DKEEP_ARRAYS];
} zp_dkeep_rec;

/* The records of text (pid: the "P <pid>" line's, 0 without one). -EINVAL naming the line when malformed. */
int zp_dkeep_parse(const char *text, zp_dkeep_rec *r, unsigned max, unsigned *n, pid_t *pid);
/* The text of n records (pid > 0: a "P <pid>" line first); -ENOSPC when it does not fit. */
int zp_dkeep_format(char *buf, size_t len, const zp_dkeep_rec *r, unsigned n, pid_t pid);
/* <run>/dkeep/<group>.gpud<index> (mkdir: make the folder). */
int zp_dkeep_path(char *buf, size_t len, const struct zp_pipe_config *cfg, const char *group, unsigned index, int mkdir);
/* The records' bytes on the device. */
uint64_t zp_dkeep_bytes(const zp_dkeep_rec *r, unsigned n);

#endif
