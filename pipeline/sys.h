/*
 * sys.h — logging and process helpers (sys.c): log lines, error context, monotonic time, peak
 * RSS, NUMA pinning, the walk over this process's children.
 */
#ifndef ZP_PIPE_SYS_H
#define ZP_PIPE_SYS_H

#include <stdint.h>
#include <sys/types.h>

#include "zp_err.h" /* zp_err_wrap (was here): context for an error, never prefixed twice */

struct zp_pipe_config;

/* Log line to stderr: "<ts> <who>: msg". */
void zp_log(const char *who, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
uint64_t zp_mono_ms(void);
/* Peak RSS (VmHWM) of pid in KiB, 0 if unknown. */
uint64_t zp_proc_peak_rss_kib(int pid);
/* fn(pid, arg) for every child of this process, read from /proc/self/task/<tid>/children of every
 * thread (an orphan reparented to a subreaper goes to any of its threads). Returns how many pids it
 * visited; a pid cut by a thread's 4 KiB read is left for the next call; 0 also where the kernel has
 * no children files (CONFIG_PROC_CHILDREN). Used by witgen.c (kill_descendants) and the supervisor
 * (kill_strays). */
unsigned zp_each_child(void (*fn)(pid_t pid, void *arg), void *arg);
/* Pin the calling process to a group's node: CPUs from [topology] or libnuma, memory bound
 * to the node when it exists on this machine. Returns the CPU count pinned to (>0), 0 when
 * not pinned. */
int zp_pipe_pin(const struct zp_pipe_config *c, int node);

#endif
