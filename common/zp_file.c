/*
 * zp_file.c — files on the ground floor (zp_file.h): the atomic writer, mkdir -p, regular-file opens,
 * the bounded whole-file read and the io_uring reader (one drain loop for every reader).
 */
#include "zp_file.h"
#include "zp_err.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WRITE_PIECE (8u << 20) /* bytes per write(2): the progress callback moves */

/* ---------------------------------------------------------------- atomic write */
static int write_all(int fd, const void *buf, size_t len, const zp_file_write_opts *o)
{
	const uint8_t *b = buf;
	while (len) {
		ssize_t w = write(fd, b, len > WRITE_PIECE ? WRITE_PIECE : len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		b += w, len -= (size_t)w;
		if (o->progress)
			o->progress(o->arg, (uint64_t)w);
	}
	return 0;
}

static int atomic_begin_at(zp_file_atomic *w, int dirfd, bool own_dir, const char *name, const zp_file_write_opts *o)
{
	static const zp_file_write_opts defaults = { 0 };
	*w = (zp_file_atomic){ .dirfd = dirfd, .fd = -1, .own_dir = own_dir, .o = o ? *o : defaults };
	unsigned mode = w->o.mode ? w->o.mode : 0600;
	int e = 0;
	if (snprintf(w->name, sizeof w->name, "%s", name) >= (int)sizeof w->name ||
	    snprintf(w->tmp, sizeof w->tmp, "%s.tmp.%d", name, (int)getpid()) >= (int)sizeof w->tmp)
		e = zp_err_set(-ENAMETOOLONG, "%s", name);
	/* O_EXCL | O_NOFOLLOW: whatever sits at the temporary name (a stale file of a dead process
	 * with our pid, or a planted symlink) is removed, never written through */
	if (!e && (w->fd = openat(dirfd, w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)) < 0 &&
	    errno == EEXIST && unlinkat(dirfd, w->tmp, 0) == 0)
		w->fd = openat(dirfd, w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (!e && w->fd < 0)
		e = zp_err_set(-errno, "%s: cannot create: %s", w->tmp, strerror(errno));
	/* the umask does not decide a file's mode: the caller does */
	if (!e && fchmod(w->fd, mode))
		e = zp_err_set(-errno, "%s: chmod: %s", w->tmp, strerror(errno));
	if (e) {
		if (w->fd >= 0) {
			close(w->fd);
			unlinkat(dirfd, w->tmp, 0);
		}
		if (own_dir)
			close(dirfd);
		w->fd = w->dirfd = -1;
	}
	return e;
}

int zp_file_atomic_write(zp_file_atomic *w, const void *buf, size_t len)
{
	int e = write_all(w->fd, buf, len, &w->o);
	return e ? zp_err_set(e, "%s: write: %s", w->tmp, strerror(-e)) : 0;
}

int zp_file_atomic_end(zp_file_atomic *w, int rc)
{
	int e = rc;
	if (w->fd < 0)
		return e;
	if (!e && !w->o.no_sync && fsync(w->fd))
		e = zp_err_set(-errno, "%s: fsync: %s", w->tmp, strerror(errno));
	if (close(w->fd) && !e)
		e = zp_err_set(-errno, "%s: close: %s", w->tmp, strerror(errno));
	/* rename replaces whatever is at name (a symlink too) without following it */
	if (!e && renameat(w->dirfd, w->tmp, w->dirfd, w->name))
		e = zp_err_set(-errno, "%s: rename into place: %s", w->name, strerror(errno));
	if (e)
		unlinkat(w->dirfd, w->tmp, 0);
	/* the rename is durable once the directory is (EINVAL: a file system without directory fsync) */
	else if (!w->o.no_sync && fsync(w->dirfd) && errno != EINVAL)
		e = zp_err_set(-errno, "fsync of the directory holding %s: %s", w->name, strerror(errno));
	if (w->own_dir)
		close(w->dirfd);
	w->fd = w->dirfd = -1;
	return e;
}

int zp_file_write_atomic_at(int dirfd, const char *name, const void *buf, size_t len, const zp_file_write_opts *o)
{
	zp_file_atomic w;
	int e = atomic_begin_at(&w, dirfd, false, name, o);
	return e ? e : zp_file_atomic_end(&w, zp_file_atomic_write(&w, buf, len));
}

/* dir gets the directory part of path ("." for none, "/" for the root); the name after it, or NULL. */
static const char *split_dir(const char *path, char dir[PATH_MAX])
{
	const char *s = strrchr(path, '/');
	size_t n = s ? (size_t)(s - path) : 0;
	if (n >= PATH_MAX)
		return NULL;
	if (!s)
		strcpy(dir, ".");
	else if (!n)
		strcpy(dir, "/");
	else
		memcpy(dir, path, n), dir[n] = 0;
	return s ? s + 1 : path;
}

static int open_parent(const char *path, char dir[PATH_MAX], const char **base)
{
	if (!(*base = split_dir(path, dir)))
		return zp_err_set(-ENAMETOOLONG, "%s", path);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return dfd < 0 ? zp_err_set(-errno, "%s: %s", dir, strerror(errno)) : dfd;
}

int zp_file_atomic_begin(zp_file_atomic *w, const char *path, const zp_file_write_opts *o)
{
	char dir[PATH_MAX];
	const char *base;
	w->fd = w->dirfd = -1; /* a failed begin leaves nothing for end */
	int dfd = open_parent(path, dir, &base);
	if (dfd < 0)
		return dfd;
	if (!*base) {
		close(dfd);
		return zp_err_set(-EISDIR, "%s: names a directory, not a file", path);
	}
	int r = atomic_begin_at(w, dfd, true, base, o);
	return r && strcmp(dir, ".") ? zp_err_wrap(r, "%s", dir) : r;
}

int zp_file_write_atomic(const char *path, const void *buf, size_t len, const zp_file_write_opts *o)
{
	zp_file_atomic w;
	int e = zp_file_atomic_begin(&w, path, o);
	return e ? e : zp_file_atomic_end(&w, zp_file_atomic_write(&w, buf, len));
}

int zp_file_fsync_parent(const char *path)
{
	char dir[PATH_MAX];
	const char *base;
	int fd = open_parent(path, dir, &base);
	if (fd < 0)
		return fd;
	/* EINVAL: a file system without directory fsync (it has nothing to flush) */
	int r = fsync(fd) && errno != EINVAL ? -errno : 0;
	close(fd);
	return r ? zp_err_set(r, "fsync %s", dir) : 0;
}

int zp_file_mkdirs(const char *path, unsigned mode)
{
	char p[PATH_MAX];
	if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p)
		return zp_err_set(-ENAMETOOLONG, "mkdir %s", path);
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s)
			continue;
		char c = *s;
		*s = 0;
		if (mkdir(p, mode) && errno != EEXIST)
			return zp_err_set(-errno, "mkdir %s: %s", p, strerror(errno));
		*s = c;
		if (!c)
			break;
	}
	struct stat st; /* EEXIST of the last one: it must be a directory */
	if (stat(p, &st))
		return zp_err_set(-errno, "mkdir %s: %s", p, strerror(errno));
	return S_ISDIR(st.st_mode) ? 0 : zp_err_set(-ENOTDIR, "mkdir %s: exists and is not a directory", p);
}

/* ---------------------------------------------------------------- regular files */
int zp_file_fd_regular(int fd, const char *name)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return zp_err_set(-errno, "%s: cannot stat", name);
	if (S_ISREG(st.st_mode))
		return 0;
	const char *what = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory"
			 : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : S_ISSOCK(st.st_mode) ? "a socket"
			 : "not a plain file";
	return zp_err_set(-EINVAL, "%s: not a regular file (%s)", name, what);
}

int zp_file_open_regular(const char *path, int dirfd, int flags, uint64_t max, uint64_t *size)
{
	/* O_NONBLOCK: opening a FIFO for reading would wait for a writer; a regular file ignores it */
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | flags);
	if (fd < 0)
		return zp_err_set(-errno, "%s: cannot open%s", path,
				  errno == ELOOP && (flags & O_NOFOLLOW) ? ": a symlink (not followed)" : "");
	struct stat st;
	int rc = zp_file_fd_regular(fd, path);
	if (!rc && fstat(fd, &st))
		rc = zp_err_set(-errno, "%s: cannot stat", path);
	if (!rc && max && (uint64_t)st.st_size > max)
		rc = zp_err_set(ZP_ERANGE, "%s: %" PRIu64 " bytes, more than the %" PRIu64 " allowed", path,
				(uint64_t)st.st_size, max);
	/* O_NONBLOCK did its work at open: off again, or an io_uring read of a cold page returns -EAGAIN
	 * instead of waiting for the disk */
	int fl = rc ? 0 : fcntl(fd, F_GETFL);
	if (!rc && (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK)))
		rc = zp_err_set(-errno, "%s: fcntl", path);
	if (rc) {
		close(fd);
		return rc;
	}
	if (size)
		*size = (uint64_t)st.st_size;
	return fd;
}

int zp_file_read(int dirfd, const char *path, int flags, uint64_t max, char **buf, size_t *len)
{
	uint64_t size;
	int fd = zp_file_open_regular(path, dirfd, flags, max, &size);
	if (fd < 0)
		return fd;
	char *b = malloc(size + 1);
	size_t got = 0;
	int rc = b ? 0 : zp_err_set(-ENOMEM, "%s: %" PRIu64 " bytes", path, size);
	while (!rc && got < size) {
		ssize_t n = read(fd, b + got, size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = zp_err_set(-errno, "%s: read: %s", path, strerror(errno));
		else if (n == 0)
			rc = zp_err_set(ZP_ETRUNC, "%s: the file shrank while it was read (at byte %zu)", path, got);
		else
			got += (size_t)n;
	}
	close(fd);
	if (rc) {
		free(b);
		return rc;
	}
	b[got] = 0;
	*buf = b;
	if (len)
		*len = got;
	return 0;
}

/* ---------------------------------------------------------------- io_uring */
static void queue_req(struct io_uring *ring, int fd, zp_file_req *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring); /* never NULL: at most queue_depth in flight */
	io_uring_prep_read(sqe, fd, (uint8_t *)r->dst + r->got, (unsigned)(r->len - r->got), r->off + r->got);
	io_uring_sqe_set_data(sqe, r);
}

/* One completion: done, resumed (a short read), or an error naming the offset. */
static int reap(struct io_uring *ring, int fd, const char *path, const zp_file_stream_ops *ops, unsigned *inflight)
{
	struct io_uring_cqe *cqe;
	int rc = io_uring_wait_cqe(ring, &cqe);
	if (rc)
		return zp_err_set(rc, "%s: io_uring: %s", path, strerror(-rc));
	zp_file_req *r = io_uring_cqe_get_data(cqe);
	int res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	(*inflight)--;
	if (res < 0)
		return zp_err_set(res, "%s: read at %" PRIu64 ": %s", path, r->off + r->got, strerror(-res));
	if (res == 0 && r->got < r->need)
		return zp_err_set(ZP_ETRUNC, "%s: the file shrank while it was read (at byte %" PRIu64 ")", path,
				  r->off + r->got);
	r->got += (uint64_t)res;
	if (r->got < r->need && r->got < r->len) { /* a short read: the rest */
		queue_req(ring, fd, r);
		(*inflight)++;
		return 0;
	}
	return ops->done(ops->arg, r);
}

int zp_file_uring_stream(int fd, const char *path, const zp_file_stream_ops *ops)
{
	unsigned qd = ops->queue_depth ? ops->queue_depth : 8, inflight = 0;
	struct io_uring ring;
	int rc = io_uring_queue_init(qd, &ring, 0);
	if (rc)
		return zp_err_set(rc, "%s: io_uring: %s", path, strerror(-rc));
	for (bool more = true; !rc && (more || inflight);) {
		while (more && inflight < qd) {
			zp_file_req *r = ops->next(ops->arg, inflight == 0);
			if (!r) {
				more = inflight > 0; /* nothing now; with nothing in flight, nothing ever */
				break;
			}
			r->got = 0;
			queue_req(&ring, fd, r);
			inflight++;
		}
		if (!inflight)
			break;
		if ((rc = io_uring_submit(&ring)) < 0) {
			rc = zp_err_set(rc, "%s: io_uring submit: %s", path, strerror(-rc));
			break;
		}
		rc = reap(&ring, fd, path, ops, &inflight);
	}
	while (inflight) { /* drain before the caller's buffers go */
		struct io_uring_cqe *cqe;
		io_uring_submit(&ring);
		if (io_uring_wait_cqe(&ring, &cqe))
			break;
		io_uring_cqe_seen(&ring, cqe);
		inflight--;
	}
	io_uring_queue_exit(&ring);
	return rc;
}

/* The whole-file form: chunks in file order into one destination, a request slot per chunk in flight. */
struct whole {
	const zp_file_uring_opts *o;
	uint8_t *dst;
	uint64_t size, chunk, next;
	zp_file_req *slots;   /* queue_depth of them, reused as chunks complete */
	unsigned *free_ix, nfree;
};

static zp_file_req *whole_next(void *arg, bool idle)
{
	struct whole *w = arg;
	(void)idle;
	if (w->next >= w->size || !w->nfree)
		return NULL;
	zp_file_req *r = &w->slots[w->free_ix[--w->nfree]];
	uint64_t n = w->size - w->next < w->chunk ? w->size - w->next : w->chunk;
	*r = (zp_file_req){ .dst = w->dst + w->next, .off = w->next, .len = n, .need = n };
	w->next += n;
	return r;
}

static int whole_done(void *arg, zp_file_req *r)
{
	struct whole *w = arg;
	w->free_ix[w->nfree++] = (unsigned)(r - w->slots);
	return w->o->on_chunk ? w->o->on_chunk(w->o->arg, r->off, r->len) : 0;
}

int zp_file_uring_read(int fd, const char *path, void *dst, uint64_t size, const zp_file_uring_opts *o)
{
	static const zp_file_uring_opts defaults = { 0 };
	o = o ? o : &defaults;
	unsigned qd = o->queue_depth ? o->queue_depth : 8;
	struct whole w = { .o = o, .dst = dst, .size = size, .chunk = o->chunk ? o->chunk : 4u << 20,
			   .slots = calloc(qd, sizeof(zp_file_req)), .free_ix = calloc(qd, sizeof(unsigned)) };
	if (w.chunk > (1u << 30))
		w.chunk = 1u << 30; /* one read(2)'s length is an unsigned */
	int rc = w.slots && w.free_ix ? 0 : zp_err_set(-ENOMEM, "%s: read bookkeeping", path);
	for (unsigned i = 0; i < qd && !rc; i++)
		w.free_ix[w.nfree++] = qd - 1 - i;
	zp_file_stream_ops ops = { .queue_depth = qd, .next = whole_next, .done = whole_done, .arg = &w };
	if (!rc && size)
		rc = zp_file_uring_stream(fd, path, &ops);
	free(w.slots);
	free(w.free_ix);
	return rc;
}

int zp_file_uring_load(const char *path, uint64_t max, uint8_t **buf, size_t *len, const zp_file_uring_opts *o)
{
	uint64_t size;
	int fd = zp_file_open_regular(path, AT_FDCWD, 0, max, &size);
	if (fd < 0)
		return fd;
	uint8_t *b = malloc(size ? size : 1);
	int rc = b ? zp_file_uring_read(fd, path, b, size, o) : zp_err_set(-ENOMEM, "%s: %" PRIu64 " bytes", path, size);
	close(fd);
	if (rc) {
		free(b);
		return rc;
	}
	*buf = b;
	*len = size;
	return 0;
}
