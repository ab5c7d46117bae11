/*
 * zp_file.h — files on the ground floor (zp_file.c): the one atomic writer, mkdir -p, opening a
 * regular file, a bounded whole-file read, and the one io_uring reader. Every part writes and reads
 * whole files through these; none above opens its own temporary or drains its own ring.
 *
 * Atomic write (the writer's contract):
 *   1. <name>.tmp.<pid> is created O_CREAT | O_EXCL | O_NOFOLLOW in the target's own directory (so the
 *      rename never crosses a file system); whatever sits at that name — a stale file of a dead process
 *      that had our pid, or a planted symlink — is unlinked (never followed) and the create retried once;
 *   2. the mode is set with fchmod (the umask does not decide it), every byte written (EINTR retried);
 *   3. fsync, close, rename over the target (a symlink there is replaced, never written through);
 *   4. fsync of the directory (EINVAL, a file system without directory fsync, is success).
 *   On any error the temporary is unlinked and the target is untouched: a reader — or a crash, or a
 *   SIGKILL of the writer at any instant — sees the old content or the new, never a mix (a killed
 *   writer leaves its <name>.tmp.<pid> behind: harmless, and replaced by a later writer of that pid). no_sync skips
 *   both fsyncs (still atomic for readers, not durable across a power cut): for files rewritten many
 *   times a second whose loss in a crash costs nothing (progress snapshots).
 *
 * Errors: -errno or a zp_err code, with zp_err_set's message naming the file.
 * Any thread; nothing here keeps state.
 */
#ifndef ZP_FILE_H
#define ZP_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>

typedef struct {
	unsigned mode;                                 /* the file's mode; 0: 0600 */
	bool no_sync;                                  /* skip the fsyncs (see above) */
	void (*progress)(void *arg, uint64_t bytes);   /* after each piece written (8 MiB at most) */
	void *arg;
} zp_file_write_opts;

/* The atomic write of buf (len bytes) to path (its directory opened by name) or to name inside the open
 * directory dirfd. o may be NULL (mode 0600, synced). */
int zp_file_write_atomic(const char *path, const void *buf, size_t len, const zp_file_write_opts *o);
int zp_file_write_atomic_at(int dirfd, const char *name, const void *buf, size_t len, const zp_file_write_opts *o);
/* The same writer for a file written in pieces (a key streamed out): begin creates the temporary (its
 * directory opened by name), write appends, end with rc == 0 syncs and renames it into place, with
 * rc != 0 (the caller's failure) removes it; end always closes and returns rc or its own first error.
 * A begin that fails leaves nothing to end. */
typedef struct {
	int dirfd, fd;
	bool own_dir;
	zp_file_write_opts o;
	char name[NAME_MAX + 1], tmp[NAME_MAX + 32];
} zp_file_atomic;
int zp_file_atomic_begin(zp_file_atomic *w, const char *path, const zp_file_write_opts *o);
int zp_file_atomic_write(zp_file_atomic *w, const void *buf, size_t len);
int zp_file_atomic_end(zp_file_atomic *w, int rc);
/* fsync the directory holding path (a rename or unlink there becomes durable). */
int zp_file_fsync_parent(const char *path);
/* mkdir -p with mode for each directory it makes (the operator's directories: the run directory). An
 * existing component is taken as the operator made it, a symlink too (/var/run is one); a path a client
 * names goes through pipeline/paths.c's confined walk instead, which refuses symlinks. */
int zp_file_mkdirs(const char *path, unsigned mode);

/* Open path (relative to dirfd, AT_FDCWD for the working directory) read-only, O_NONBLOCK (a FIFO named
 * instead never blocks the caller), flags added (O_NOFOLLOW, O_DIRECT); a regular file only, else -EINVAL
 * naming what it is. max > 0: a file larger than max bytes is refused (ZP_ERANGE, naming both sizes).
 * size (may be NULL) gets its size. The descriptor, or < 0. */
int zp_file_open_regular(const char *path, int dirfd, int flags, uint64_t max, uint64_t *size);
/* The same check on an open descriptor (name for the message). */
int zp_file_fd_regular(int fd, const char *name);

/* The whole of path (relative to dirfd; a regular file, opened with flags added: O_NOFOLLOW for a file
 * of ours, 0 for one the user names on a command line; at most max bytes: larger is ZP_ERANGE naming the
 * file) into a malloc'ed buffer with a NUL after the last byte (text parses in place); the caller frees
 * *buf. len may be NULL. */
#define ZP_FILE_JSON_MAX (256ull << 20) /* a JSON file read whole (proofs, keys' vk, records): no larger */
int zp_file_read(int dirfd, const char *path, int flags, uint64_t max, char **buf, size_t *len);

/* The io_uring reader: `queue_depth` reads of `chunk` bytes in flight over [0, size) of fd into dst (a
 * short read is resumed where it stopped; 0 bytes before size is a truncation: ZP_ETRUNC naming the file
 * and the offset). on_chunk (may be NULL) is called once per chunk when all of it has landed, in the
 * order chunks complete, with the chunk's offset and length; a non-zero return stops the read and is
 * returned. For O_DIRECT, dst, chunk and size must be multiples of the device's block (the caller's
 * business: keyfile.c pads its files to 4 KiB). Everything in flight is drained before it returns. */
typedef struct {
	unsigned queue_depth;                          /* 0: 8 */
	uint64_t chunk;                                /* 0: 4 MiB */
	int (*on_chunk)(void *arg, uint64_t off, uint64_t len);
	void *arg;
} zp_file_uring_opts;
int zp_file_uring_read(int fd, const char *path, void *dst, uint64_t size, const zp_file_uring_opts *o);
/* The whole of path (a regular file, symlinks followed: the operator's key files; at most max bytes when
 * max > 0) read so into a malloc'ed buffer the caller frees. */
int zp_file_uring_load(const char *path, uint64_t max, uint8_t **buf, size_t *len, const zp_file_uring_opts *o);

/* The general form under it, for readers whose destinations come from a pool (params_load.c): next()
 * gives the next read to queue (its dst, off, len and need: the bytes that must land, len - need being
 * alignment slack past the end of the file) or NULL for none now — idle says nothing is in flight, so
 * next may wait for a buffer, and NULL then ends the stream; done() is called when a read's need has
 * landed (got says how much did). A non-zero return from done stops the stream and is returned. */
typedef struct zp_file_req {
	void *dst;
	uint64_t off, len, need, got;
} zp_file_req;
typedef struct {
	unsigned queue_depth;
	zp_file_req *(*next)(void *arg, bool idle);
	int (*done)(void *arg, zp_file_req *r);
	void *arg;
} zp_file_stream_ops;
int zp_file_uring_stream(int fd, const char *path, const zp_file_stream_ops *ops);

#endif
