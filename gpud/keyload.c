/*
 * keyload.c — read a proving key file into memory with io_uring: QD reads of CHUNK bytes
 * in flight, so a large key streams at the device's speed instead of one read at a time.
 */
#include "keyload.h"
#include "progress.h"
#include "zp_err.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define QD    8
#define CHUNK (4u << 20)

static int submit(struct io_uring *ring, int fd, uint8_t *buf, uint64_t off, uint64_t len)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_read(sqe, fd, buf + off, (unsigned)len, off);
	io_uring_sqe_set_data64(sqe, off << 8 | 0); /* offset identifies the request */
	return 0;
}

int zp_key_read_file(const char *path, uint8_t **data, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return zp_err_set(-errno, "key %s", path);
	struct stat st;
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	uint64_t size = (uint64_t)st.st_size, next = 0, done = 0;
	uint8_t *buf = malloc(size ? size : 1);
	struct io_uring ring;
	int r = buf ? io_uring_queue_init(QD, &ring, 0) : -ENOMEM;
	if (r) {
		free(buf);
		close(fd);
		return zp_err_set(r, "key %s: io_uring", path);
	}
	unsigned inflight = 0;
	char what[ZP_PROGRESS_STAGE_MAX];
	snprintf(what, sizeof what, "reading %s", path);
	zp_progress_stage(what, size, "bytes");
	while (!r && done < size) {
		while (inflight < QD && next < size) {
			uint64_t n = size - next < CHUNK ? size - next : CHUNK;
			submit(&ring, fd, buf, next, n);
			next += n, inflight++;
		}
		io_uring_submit(&ring);
		struct io_uring_cqe *cqe;
		if ((r = io_uring_wait_cqe(&ring, &cqe)))
			break;
		uint64_t off = io_uring_cqe_get_data64(cqe) >> 8;
		int res = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		inflight--;
		if (res < 0) {
			r = res;
		} else if (res == 0) {
			r = ZP_ETRUNC; /* the file shrank under us */
		} else {
			done += (uint64_t)res;
			zp_progress_add((uint64_t)res);
			uint64_t end = (off / CHUNK + 1) * CHUNK;
			if (end > size)
				end = size;
			if (off + (uint64_t)res < end) { /* short read: ask for the rest */
				submit(&ring, fd, buf, off + (uint64_t)res, end - off - (uint64_t)res);
				inflight++;
			}
		}
	}
	/* drain what is still in flight before freeing the buffer */
	while (inflight--) {
		struct io_uring_cqe *cqe;
		io_uring_submit(&ring);
		if (io_uring_wait_cqe(&ring, &cqe))
			break;
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	close(fd);
	if (r) {
		free(buf);
		return zp_err_set(r, "key %s: read", path);
	}
	*data = buf;
	*len = size;
	return 0;
}
