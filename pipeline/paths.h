/*
 * paths.h — confinement of the paths a client names (paths.c).
 *
 * Confinement: a path a request names is resolved completely (symlinks, '.', '..', the last
 * component too; for an output, the part that does not exist yet is appended and may hold no
 * '.' or '..') and must lie under one of dirs (allow_input / allow_output, resolved at config
 * load). Every later open — at submit, in synthd, in gpud — walks from that root with openat
 * and O_NOFOLLOW, so a component swapped for a symlink after submit fails the open (-ELOOP or
 * -ENOTDIR) instead of leading elsewhere.
 */
#ifndef ZP_PIPE_PATHS_H
#define ZP_PIPE_PATHS_H

#include <limits.h>
#include <stdbool.h>

/* An absolute path resolved completely into out (above); may_be_missing: an output's tail that
 * does not exist yet. 0 or -errno (the message names the path). */
int zp_path_resolve(const char *path, char out[PATH_MAX], bool may_be_missing);
/* Resolve path into canon and check it lies under dirs: 0, -EACCES (outside), -errno. */
int zp_path_allowed(char (*dirs)[PATH_MAX], unsigned n, const char *path, char canon[PATH_MAX], bool may_be_missing);
/* The directory canon (canonical, under dirs) opened by the walk; create: mkdirat each missing
 * component with mode. Returns the fd or -errno. */
int zp_path_open_dir(char (*dirs)[PATH_MAX], unsigned n, const char *canon, bool create, unsigned mode);
/* A client's input file: the walk, then O_RDONLY | O_NONBLOCK | O_NOFOLLOW, regular files only
 * (a FIFO, device or directory is refused by name without waiting). Returns the fd or -errno. */
int zp_path_open_input(char (*dirs)[PATH_MAX], unsigned n, const char *canon);

#endif
