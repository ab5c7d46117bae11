/*
 * health.h — gpud's health files, which the supervisor reads to say, per key, ready / loading / failed
 * (health.c, which also documents the file's format), and the slot rounding.
 */
#ifndef ZP_PIPE_HEALTH_H
#define ZP_PIPE_HEALTH_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

struct zp_pipe_config;

/* A slot size rounded up to the 2 MiB the backings allocate in (a key's shape and slot_size = auto:
 * supervisor/keyshape.h). */
uint64_t zp_pipe_slot_round(uint64_t bytes);
/* gpud's health file (<run>/health/<group>.gpud<i>.json; format in health.c). write takes a
 * json_t *; read returns a json_t * (caller decrefs) or NULL when absent or another pid's. */
int zp_health_path(char *buf, size_t n, const struct zp_pipe_config *c, unsigned g, unsigned i);
int zp_health_write(const struct zp_pipe_config *c, unsigned g, unsigned i, void *json);
void *zp_health_read(const struct zp_pipe_config *c, unsigned g, unsigned i, int pid);

#endif
