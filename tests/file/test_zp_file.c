/*
 * test_zp_file.c — common/zp_file.h: the atomic writer never writes through a symlink planted at the
 * target or at its temporary name and leaves the old or the new content when the writer is SIGKILLed
 * at any point of a write (real child processes, killed while they wait inside the write); open-regular
 * refuses a FIFO without blocking; the bounded read refuses an oversized file naming it; the io_uring
 * reader calls its progress callback once per chunk, covers the file and names a truncation.
 */
#include "zp_err.h"
#include "zp_file.h"

#include "../common/zp_test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

static char D[PATH_MAX];

static const char *at(const char *leaf) { return zp_test_at(D, leaf); }

static void put(const char *leaf, const char *text) { zp_test_put(at(leaf), text); }

/* The file's bytes (NUL-terminated, malloc'ed) or NULL; through a plain read, not the code under test. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *b = malloc((size_t)n + 1);
	size_t got = b ? fread(b, 1, (size_t)n, f) : 0;
	fclose(f);
	if (b)
		b[got] = 0;
	if (len)
		*len = got;
	return b;
}

static bool is_text(const char *path, const char *want)
{
	char *b = slurp(path, NULL);
	bool ok = b && !strcmp(b, want);
	free(b);
	return ok;
}

static void planted_symlinks(void)
{
	put("victim", "V\n");
	/* at the target: replaced by the new file, the victim untouched */
	CHECK(symlink("victim", at("a.json")) == 0, "symlink");
	CHECK(zp_file_write_atomic(at("a.json"), "NEW", 3, NULL) == 0, "write over a symlink: %s", zp_err_msg());
	struct stat st;
	CHECK(lstat(at("a.json"), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600,
	      "the target is a regular file of mode 0600");
	CHECK(is_text(at("a.json"), "NEW"), "the new content at the target");
	CHECK(is_text(at("victim"), "V\n"), "the victim was written through the symlink at the target");

	/* at the temporary name <name>.tmp.<pid>: removed, never followed, nothing left behind */
	char tmp[64];
	snprintf(tmp, sizeof tmp, "b.json.tmp.%d", (int)getpid());
	CHECK(symlink("victim", at(tmp)) == 0, "symlink");
	zp_file_write_opts o = { .mode = 0640 };
	CHECK(zp_file_write_atomic(at("b.json"), "BEE", 3, &o) == 0, "write with a symlink at the tmp: %s", zp_err_msg());
	CHECK(is_text(at("victim"), "V\n"), "the victim was written through the symlink at the temporary name");
	CHECK(is_text(at("b.json"), "BEE"), "the new content");
	CHECK(lstat(at("b.json"), &st) == 0 && (st.st_mode & 0777) == 0640, "mode 0640 as asked (not the umask's)");
	CHECK(lstat(at(tmp), &st) != 0 && errno == ENOENT, "the temporary name is left behind");

	/* a symlinked directory at the tmp name cannot redirect the write either */
	CHECK(mkdir(at("elsewhere"), 0700) == 0, "mkdir");
	snprintf(tmp, sizeof tmp, "c.json.tmp.%d", (int)getpid());
	CHECK(symlink("elsewhere", at(tmp)) == 0, "symlink");
	CHECK(zp_file_write_atomic(at("c.json"), "C", 1, NULL) == 0, "write: %s", zp_err_msg());
	CHECK(is_text(at("c.json"), "C") && lstat(at("elsewhere/c.json"), &st) != 0, "written in place only");

	/* a relative name (no directory part) is written in the working directory */
	char cwd[PATH_MAX];
	CHECK(getcwd(cwd, sizeof cwd) && chdir(D) == 0, "chdir");
	CHECK(zp_file_write_atomic("rel.txt", "R", 1, NULL) == 0, "relative write: %s", zp_err_msg());
	CHECK(chdir(cwd) == 0 && is_text(at("rel.txt"), "R"), "relative name");

	/* the bounded read never follows a symlink */
	char *b = NULL;
	CHECK(symlink("victim", at("link")) == 0, "symlink");
	int r = zp_file_read(AT_FDCWD, at("link"), O_NOFOLLOW, 0, &b, NULL);
	CHECK(r == -ELOOP && strstr(zp_err_msg(), "link"), "read through a symlink: %d %s", r, zp_err_msg());
	/* ... unless asked to (a path the user names on a command line may be a link) */
	size_t bl = 0;
	r = zp_file_read(AT_FDCWD, at("link"), 0, 0, &b, &bl);
	CHECK(r == 0 && bl == 2 && !strcmp(b, "V\n"), "read following a symlink when asked: %d", r);
	free(b);
}

static void fifo_and_bounds(void)
{
	CHECK(mkfifo(at("fifo"), 0600) == 0, "mkfifo");
	/* no writer: an open without O_NONBLOCK would hang here (the test's timeout would fail it) */
	int r = zp_file_open_regular(at("fifo"), AT_FDCWD, O_NOFOLLOW, 0, NULL);
	CHECK(r == -EINVAL && strstr(zp_err_msg(), "FIFO") && strstr(zp_err_msg(), "fifo"),
	      "a FIFO refused naming it: %d %s", r, zp_err_msg());
	char *b = NULL;
	r = zp_file_read(AT_FDCWD, at("fifo"), O_NOFOLLOW, 100, &b, NULL);
	CHECK(r == -EINVAL && !b, "the bounded read refuses a FIFO too: %d", r);
	r = zp_file_open_regular(D, AT_FDCWD, 0, 0, NULL);
	CHECK(r == -EINVAL && strstr(zp_err_msg(), "directory"), "a directory refused: %s", zp_err_msg());

	/* bounded: at the limit it reads, one byte over is refused naming the file and both sizes */
	put("ten", "0123456789");
	size_t len = 0;
	r = zp_file_read(AT_FDCWD, at("ten"), O_NOFOLLOW, 10, &b, &len);
	CHECK(r == 0 && len == 10 && !strcmp(b, "0123456789"), "10 bytes within a 10-byte bound: %d", r);
	free(b);
	b = NULL;
	r = zp_file_read(AT_FDCWD, at("ten"), O_NOFOLLOW, 9, &b, &len);
	CHECK(r == ZP_ERANGE && !b, "10 bytes over a 9-byte bound: %d", r);
	CHECK(strstr(zp_err_msg(), at("ten")) && strstr(zp_err_msg(), "10") && strstr(zp_err_msg(), "9"),
	      "the refusal names the file and the sizes: %s", zp_err_msg());
	int dfd = open(D, O_RDONLY | O_DIRECTORY);
	r = zp_file_read(dfd, "ten", O_NOFOLLOW, 0, &b, &len); /* relative to a directory descriptor */
	CHECK(r == 0 && len == 10, "read at a directory: %d", r);
	free(b);
	close(dfd);

	/* mkdirs: the whole chain with the mode; a file in the way is named */
	CHECK(zp_file_mkdirs(at("m/n/o"), 0750) == 0, "mkdirs: %s", zp_err_msg());
	struct stat st;
	CHECK(stat(at("m/n/o"), &st) == 0 && S_ISDIR(st.st_mode), "made");
	CHECK(zp_file_mkdirs(at("m/n/o"), 0750) == 0, "again: nothing to do");
	r = zp_file_mkdirs(at("ten/x"), 0700);
	CHECK(r == -ENOTDIR && strstr(zp_err_msg(), "ten"), "a file in the way: %d %s", r, zp_err_msg());
	r = zp_file_mkdirs(at("ten"), 0700);
	CHECK(r == -ENOTDIR, "the last component a file: %d", r);
	CHECK(zp_file_fsync_parent(at("ten")) == 0, "fsync of the parent");
}

struct count { uint64_t chunks, bytes, max_len; };

static int on_chunk(void *arg, uint64_t off, uint64_t len)
{
	struct count *c = arg;
	c->chunks++, c->bytes += len;
	c->max_len = len > c->max_len ? len : c->max_len;
	return off == 0 && len == 7 ? -ECANCELED : 0; /* a callback's refusal stops the read (the 7-byte case) */
}

static void write_progress(void *arg, uint64_t n)
{
	struct count *c = arg;
	c->chunks++, c->bytes += n;
	c->max_len = n > c->max_len ? n : c->max_len;
}

static void uring(void)
{
	size_t n = (1u << 20) + 12345; /* not a multiple of the chunk: a short last one */
	uint8_t *src = malloc(n), *dst = malloc(n);
	for (size_t i = 0; i < n; i++)
		src[i] = (uint8_t)(i * 2654435761u >> 13);
	zp_file_write_opts wo = { 0 };
	CHECK(zp_file_write_atomic(at("data"), src, n, &wo) == 0, "write: %s", zp_err_msg());
	uint64_t size = 0;
	int fd = zp_file_open_regular(at("data"), AT_FDCWD, 0, 0, &size);
	CHECK(fd >= 0 && size == n, "open: %d", fd);
	CHECK((fcntl(fd, F_GETFL) & O_NONBLOCK) == 0, "O_NONBLOCK is off once the file is known regular");
	struct count c = { 0 };
	zp_file_uring_opts o = { .queue_depth = 4, .chunk = 4096, .on_chunk = on_chunk, .arg = &c };
	memset(dst, 0, n);
	int r = zp_file_uring_read(fd, at("data"), dst, n, &o);
	CHECK(r == 0, "uring read: %d %s", r, zp_err_msg());
	CHECK(!memcmp(src, dst, n), "the bytes read are the file's");
	CHECK(c.chunks == (n + 4095) / 4096 && c.bytes == n && c.max_len == 4096,
	      "progress: %llu chunks of %llu bytes (want %zu, %zu)", (unsigned long long)c.chunks,
	      (unsigned long long)c.bytes, (n + 4095) / 4096, n);

	/* the file is shorter than asked: ZP_ETRUNC naming it and where */
	r = zp_file_uring_read(fd, at("data"), dst, n, &(zp_file_uring_opts){ 0 });
	CHECK(r == 0, "default depth and chunk: %d", r);
	uint8_t *big = malloc(n + 8192);
	r = zp_file_uring_read(fd, at("data"), big, n + 8192, NULL);
	CHECK(r == ZP_ETRUNC && strstr(zp_err_msg(), "data") && strstr(zp_err_msg(), "shrank"),
	      "truncation: %d %s", r, zp_err_msg());
	/* a callback's error stops the read and comes back */
	c = (struct count){ 0 };
	o.chunk = 7;
	r = zp_file_uring_read(fd, at("data"), dst, n, &o);
	CHECK(r == -ECANCELED && c.chunks >= 1, "callback stop: %d", r);
	close(fd);

	/* the whole-file load */
	uint8_t *buf = NULL;
	size_t len = 0;
	c = (struct count){ 0 };
	o = (zp_file_uring_opts){ .queue_depth = 8, .chunk = 1 << 16, .on_chunk = on_chunk, .arg = &c };
	r = zp_file_uring_load(at("data"), 0, &buf, &len, &o);
	CHECK(r == 0 && len == n && !memcmp(buf, src, n) && c.bytes == n, "load: %d", r);
	free(buf);
	r = zp_file_uring_load(at("data"), n - 1, &buf, &len, &o);
	CHECK(r == ZP_ERANGE && strstr(zp_err_msg(), "data"), "load over its bound: %d", r);

	/* the writer's progress: every byte counted, in pieces of at most 8 MiB */
	size_t wn = (20u << 20) + 3;
	uint8_t *w = calloc(1, wn);
	struct count wc = { 0 };
	wo = (zp_file_write_opts){ .progress = write_progress, .arg = &wc };
	CHECK(w && zp_file_write_atomic(at("big"), w, wn, &wo) == 0, "big write: %s", zp_err_msg());
	CHECK(wc.bytes == wn && wc.chunks == 3 && wc.max_len == (8u << 20), "writer progress: %llu bytes in %llu pieces",
	      (unsigned long long)wc.bytes, (unsigned long long)wc.chunks);
	free(w);
	free(src);
	free(dst);
	free(big);
}

/* ---- SIGKILL at every point of a write ---- */
static int to_parent[2], from_parent[2];
static uint64_t stop_at; /* bytes written before the child reports and waits to be killed */
static uint64_t written;

static void child_progress(void *arg, uint64_t n)
{
	(void)arg;
	written += n;
	if (written >= stop_at) {
		char x = 1;
		if (write(to_parent[1], &x, 1) != 1)
			_exit(3);
		read(from_parent[0], &x, 1); /* never answered: killed here, mid-write */
		_exit(4);
	}
}

/* A child rewrites `name` (old content: 'A' bytes) with 'B' bytes in 8 MiB pieces; it is SIGKILLed after
 * stop_at bytes (or, with stop_at past the end, after it returns: 'B' then). */
static void kill_mid_write(const char *name, size_t newlen, uint64_t stop, bool after)
{
	CHECK(pipe(to_parent) == 0 && pipe(from_parent) == 0, "pipe");
	pid_t pid = fork();
	if (pid == 0) {
		uint8_t *b = malloc(newlen);
		memset(b, 'B', newlen);
		stop_at = stop, written = 0;
		zp_file_write_opts o = { .progress = child_progress };
		int r = zp_file_write_atomic(at(name), b, newlen, &o);
		char x = r == 0 ? 2 : 5;
		if (write(to_parent[1], &x, 1) != 1)
			_exit(3);
		read(from_parent[0], &x, 1);
		_exit(4);
	}
	char x = 0;
	CHECK(read(to_parent[0], &x, 1) == 1, "the child reports");
	CHECK(after ? x == 2 : x == 1, "the child stopped %s (%d)", after ? "after the write" : "mid-write", x);
	kill(pid, SIGKILL);
	int st;
	waitpid(pid, &st, 0);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "killed by SIGKILL");
	for (int i = 0; i < 2; i++)
		close(to_parent[i]), close(from_parent[i]);
	size_t len;
	char *got = slurp(at(name), &len);
	bool old = got && len == 1000, new = got && len == newlen;
	for (size_t i = 0; got && i < len && (old || new); i++)
		old = old && got[i] == 'A', new = new && got[i] == 'B';
	CHECK(after ? new : old, "after a SIGKILL %s byte %llu the file is %s (%zu bytes, first %c)",
	      after ? "after" : "at", (unsigned long long)stop, after ? "new" : "old", got ? len : 0, got ? got[0] : '-');
	free(got);
}

static void sigkill(void)
{
	char old[1001];
	memset(old, 'A', 1000);
	old[1000] = 0;
	size_t newlen = (24u << 20) + 777; /* four pieces of at most 8 MiB */
	uint64_t points[] = { 8u << 20, 16u << 20, 24u << 20 }; /* after the first, second, third piece */
	for (unsigned i = 0; i < sizeof points / sizeof *points; i++) {
		put("k.bin", old);
		kill_mid_write("k.bin", newlen, points[i], false);
	}
	/* stopped after the last piece (written == newlen): killed before the fsync and rename */
	put("k.bin", old);
	kill_mid_write("k.bin", newlen, newlen, false);
	/* killed once the write has returned: the new content */
	put("k.bin", old);
	kill_mid_write("k.bin", newlen, UINT64_MAX, true);
	/* a stale temporary with our pid (a dead process's) is replaced, not written through or refused */
	char tmp[64];
	snprintf(tmp, sizeof tmp, "k.bin.tmp.%d", (int)getpid());
	put(tmp, "stale");
	CHECK(zp_file_write_atomic(at("k.bin"), "fresh", 5, NULL) == 0 && is_text(at("k.bin"), "fresh"),
	      "a write after the kills: %s", zp_err_msg());
}

/* the streamed form: pieces appended, renamed into place only at a successful end; a failed end (the
 * caller's error) leaves the old target and no temporary */
static void streamed(void)
{
	char tmp[64];
	struct stat st;
	zp_file_atomic w;
	put("s.bin", "OLD");
	zp_file_write_opts o = { .mode = 0644 };
	CHECK(zp_file_atomic_begin(&w, at("s.bin"), &o) == 0, "begin: %s", zp_err_msg());
	snprintf(tmp, sizeof tmp, "s.bin.tmp.%d", (int)getpid());
	CHECK(zp_file_atomic_write(&w, "AB", 2) == 0 && zp_file_atomic_write(&w, "CD", 2) == 0, "write");
	CHECK(is_text(at("s.bin"), "OLD"), "the target changed before the end");
	CHECK(zp_file_atomic_end(&w, 0) == 0, "end: %s", zp_err_msg());
	CHECK(is_text(at("s.bin"), "ABCD") && lstat(at("s.bin"), &st) == 0 && (st.st_mode & 0777) == 0644,
	      "the pieces, in order, mode 0644");
	CHECK(lstat(at(tmp), &st) != 0 && errno == ENOENT, "the temporary left behind");

	CHECK(zp_file_atomic_begin(&w, at("s.bin"), NULL) == 0 && zp_file_atomic_write(&w, "XX", 2) == 0, "begin 2");
	CHECK(zp_file_atomic_end(&w, -EIO) == -EIO, "a failed end returns the caller's error");
	CHECK(is_text(at("s.bin"), "ABCD"), "a failed stream replaced the target");
	CHECK(lstat(at(tmp), &st) != 0 && errno == ENOENT, "a failed stream left its temporary");

	/* a symlink at the temporary name is removed, never written through */
	put("victim2", "V\n");
	CHECK(symlink("victim2", at(tmp)) == 0, "symlink");
	CHECK(zp_file_atomic_begin(&w, at("s.bin"), NULL) == 0 && zp_file_atomic_write(&w, "Y", 1) == 0 &&
	      zp_file_atomic_end(&w, 0) == 0, "stream with a symlink at the tmp: %s", zp_err_msg());
	CHECK(is_text(at("victim2"), "V\n") && is_text(at("s.bin"), "Y"), "written through the planted symlink");

	/* a directory that does not exist: begin fails naming it, and there is nothing to end */
	int r = zp_file_atomic_begin(&w, at("no/such/s.bin"), NULL);
	CHECK(r == -ENOENT && strstr(zp_err_msg(), "no/such"), "begin in a missing directory: %d %s", r, zp_err_msg());
	CHECK(zp_file_atomic_end(&w, r) == r, "end after a failed begin");
}

int main(void)
{
	zp_test_tmpdir("zp_file", D);
	planted_symlinks();
	streamed();
	fifo_and_bounds();
	uring();
	sigkill();
	return zp_test_done("zp_file", D);
}
