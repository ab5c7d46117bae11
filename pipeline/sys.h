/*
 * sys.h — logging and process helpers (sys.c): log lines, error context, monotonic time, peak
 * RSS, NUMA pinning.
 */
#ifndef ZP_PIPE_SYS_H
#define ZP_PIPE_SYS_H

#include <stdint.h>

#include "zp_err.h" /* zp_err_wrap (was here): context for an error, never prefixed twice */

struct zp_pipe_config;

/* Log line to stderr: "<ts> <who>: msg". */
void zp_log(const char *who, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
uint64_t zp_mono_ms(void);
/* Peak RSS (VmHWM) of pid in KiB, 0 if unknown. */
uint64_t zp_proc_peak_rss_kib(int pid);
/* Pin the calling process to a group's node: CPUs from [topology] or libnuma, memory bound
 * to the node when it exists on this machine. Returns the CPU count pinned to (>0), 0 when
 * not pinned. */
int zp_pipe_pin(const struct zp_pipe_config *c, int node);

#endif
