/*
 * backing.c — the four ways to get the arena's bytes, as const ops tables.
 *
 * Each create() checks the size up front (free huge pages, free tmpfs space)
 * so a short pool is an error at creation, never a SIGBUS on first touch.
 */
#include "arena_impl.h"
#include "knobs.h"
#include "par.h"
#include "progress.h"
#include "zp_err.h"

#include <errno.h>
#include <fcntl.h>
#include <hugetlbfs.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#ifndef HUGETLBFS_MAGIC
#define HUGETLBFS_MAGIC 0x958458f6
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef MFD_HUGE_2MB
#define MFD_HUGE_2MB (21u << 26)
#endif

#define SHM_DIR "/dev/shm"
#define HP_SYS "/sys/kernel/mm/hugepages/hugepages-2048kB/"

static long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;
	if (!f)
		return -errno;
	if (fscanf(f, "%ld", &v) != 1)
		v = -EIO;
	fclose(f);
	return v;
}

long zp_hugepages_free(void)
{
	long fr = read_long(HP_SYS "free_hugepages");
	long rs = read_long(HP_SYS "resv_hugepages");
	if (fr < 0)
		return fr;
	return rs > 0 ? fr - rs : fr;
}

static bool is_hugetlbfs(const char *dir)
{
	struct statfs s;
	return dir && statfs(dir, &s) == 0 && (unsigned long)s.f_type == HUGETLBFS_MAGIC &&
	       s.f_bsize == ZP_ARENA_ALIGN;
}

const char *zp_hugetlbfs_dir(const char *hdir)
{
	if (hdir && *hdir)
		return hdir;
	const char *env = zp_knobs()->hugetlbfs;
	if (env && *env)
		return env;
	if (!getenv("HUGETLB_VERBOSE"))
		setenv("HUGETLB_VERBOSE", "0", 0); /* libhugetlbfs: no warnings on stderr */
	return hugetlbfs_find_path_for_size(ZP_ARENA_ALIGN);
}

int zp_arena_path(char *buf, size_t n, const char *dir, const char *name, const char *suffix)
{
	int r = snprintf(buf, n, "%s/zkpipe.%s%s", dir, name, suffix ? suffix : "");
	return r < 0 || (size_t)r >= n ? -ENAMETOOLONG : 0;
}

/* where a user who asked for hugepages learns to enable them */
#define HUGE_DOC "docs/pipeline.md, \"Hugepages\""
#define HUGE_HOWTO "vm.nr_hugepages, a hugetlbfs mount, the memlock limit: " HUGE_DOC

static int pages_check(uint64_t bytes, const char *what)
{
	long fr = zp_hugepages_free();
	uint64_t need = bytes / ZP_ARENA_ALIGN;
	if (fr < 0)
		return zp_err_set(-ENOMEM, "%s: no 2 MiB hugepage pool (" HUGE_HOWTO ")", what);
	if ((uint64_t)fr < need)
		return zp_err_set(-ENOMEM, "%s: need %llu free 2 MiB pages, pool has %ld (sysctl vm.nr_hugepages; " HUGE_DOC ")",
				  what, (unsigned long long)need, fr);
	return 0;
}

/* Create the file at path exclusively and size it; fd or -errno (unlinked). O_EXCL never follows a
 * symlink at the name, and the mode is set explicitly (whatever the umask): the open check below
 * requires exactly ZP_SHM_MODE. */
static int create_file(const char *path, uint64_t bytes)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, ZP_SHM_MODE);
	if (fd < 0) {
		int e = -errno;
		int c = e == -EEXIST ? zp_shm_check_path(path) : 0; /* say whose it is when not ours */
		return c && c != -ENOENT ? c : e;
	}
	if (fchmod(fd, ZP_SHM_MODE) < 0 || ftruncate(fd, (off_t)bytes) < 0) {
		int e = -errno;
		close(fd);
		unlink(path);
		return e;
	}
	return fd;
}

/* An object this service made is a regular file of its own uid with mode exactly ZP_SHM_MODE; anything
 * else at one of its names (another user's file, planted in world-writable /dev/shm before the service
 * made its own) is refused, with the reason. 0 or -EPERM (the message names the path and the owner). */
int zp_shm_check_fd(int fd, const char *path)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return zp_err_set(-errno, "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return zp_err_set(-EPERM, "%s: not a regular file (refused: this service makes only its own files there)",
				  path);
	if (st.st_uid != geteuid())
		return zp_err_set(-EPERM, "%s: owned by uid %u, not by uid %u, which runs this process: refused (another user "
				  "made it; remove it as root or uid %u, or name another arena)",
				  path, (unsigned)st.st_uid, (unsigned)geteuid(), (unsigned)st.st_uid);
	if ((st.st_mode & 07777) != ZP_SHM_MODE)
		return zp_err_set(-EPERM, "%s: mode %04o, not %04o as this service makes it: refused", path,
				  (unsigned)(st.st_mode & 07777), ZP_SHM_MODE);
	return 0;
}

/* The same check by name, never through a symlink: 0 ours, -ENOENT none, -EPERM with the reason. */
int zp_shm_check_path(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? -ENOENT : zp_err_set(-errno, "%s: %s", path, strerror(errno));
	if (S_ISLNK(st.st_mode))
		return zp_err_set(-EPERM, "%s: a symlink (never followed: refused)", path);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) { /* e.g. another user's 0600 file: say whose */
		int e = errno;
		if (e == ENOENT)
			return -ENOENT;
		if (st.st_uid != geteuid())
			return zp_err_set(-EPERM, "%s: owned by uid %u, not by uid %u, which runs this process: refused (another user "
					  "made it; remove it as root or uid %u, or name another arena; or run this as the service user)", path,
					  (unsigned)st.st_uid, (unsigned)geteuid(), (unsigned)st.st_uid);
		return zp_err_set(-e, "%s: %s", path, strerror(e));
	}
	int r = zp_shm_check_fd(fd, path);
	close(fd);
	return r;
}

/* Open an existing object: never through a symlink (O_NOFOLLOW), never blocking (a FIFO), and only one
 * zp_shm_check_fd accepts. fd, -ENOENT when there is none, or -EPERM / -EACCES with the reason. */
static int open_file(const char *path, bool rdonly)
{
	int fd = open(path, (rdonly ? O_RDONLY : O_RDWR) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (e == ENOENT)
			return -ENOENT;
		if (e == ELOOP)
			return zp_err_set(-EPERM, "%s: a symlink (never followed: refused)", path);
		int c = zp_shm_check_path(path); /* whose it is, when that is why */
		if (c && c != -ENOENT)
			return c;
		return zp_err_set(-e, "%s: %s", path, strerror(e));
	}
	int r = zp_shm_check_fd(fd, path);
	if (r) {
		close(fd);
		return r;
	}
	return fd;
}

static int unlink_path(const char *path)
{
	return unlink(path) < 0 ? -errno : 0;
}

/* ------------------------------------------------------------ hugetlbfs */
static int htlb_probe(const char *hdir, uint64_t bytes)
{
	const char *dir = zp_hugetlbfs_dir(hdir);
	struct statfs s;
	if (!dir || !is_hugetlbfs(dir))
		return zp_err_set(-ENOENT, "hugetlbfs: no 2 MiB mount%s%s (mount -t hugetlbfs -o pagesize=2M none "
				  "/dev/hugepages; " HUGE_HOWTO ")", dir ? " at " : "", dir ? dir : "");
	/* A mount with size= limits its own blocks: f_blocks is then non-zero. */
	if (statfs(dir, &s) == 0 && s.f_blocks && (uint64_t)s.f_bavail * s.f_bsize < bytes)
		return zp_err_set(-ENOMEM, "hugetlbfs %s: mount limit leaves %llu pages (its size= option; " HUGE_DOC ")",
				  dir, (unsigned long long)s.f_bavail);
	return pages_check(bytes, "hugetlbfs");
}

static int htlb_create(const char *name, const char *hdir, uint64_t bytes)
{
	char p[PATH_MAX];
	int r = zp_arena_path(p, sizeof p, zp_hugetlbfs_dir(hdir), name, NULL);
	return r < 0 ? r : create_file(p, bytes);
}

static int htlb_open(const char *name, const char *hdir, bool rdonly)
{
	char p[PATH_MAX];
	const char *dir = zp_hugetlbfs_dir(hdir);
	if (!dir)
		return -ENOENT;
	int r = zp_arena_path(p, sizeof p, dir, name, NULL);
	return r < 0 ? r : open_file(p, rdonly);
}

static int htlb_unlink(const char *name, const char *hdir)
{
	char p[PATH_MAX];
	const char *dir = zp_hugetlbfs_dir(hdir);
	if (!dir)
		return -ENOENT;
	int r = zp_arena_path(p, sizeof p, dir, name, NULL);
	return r < 0 ? r : unlink_path(p);
}

/* ------------------------------------------------------------ memfd + MFD_HUGETLB */
static int memfd_probe(const char *hdir, uint64_t bytes)
{
	return pages_check(bytes, "memfd hugetlb");
}

static int memfd_create_(const char *name, const char *hdir, uint64_t bytes)
{
	char n[64];
	snprintf(n, sizeof n, "zkpipe.%s", name);
	int fd = memfd_create(n, MFD_CLOEXEC | MFD_HUGETLB | MFD_HUGE_2MB);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, ZP_SHM_MODE) < 0 || ftruncate(fd, (off_t)bytes) < 0) { /* the mode the open check wants */
		int e = -errno;
		close(fd);
		return e;
	}
	return fd;
}

/* A memfd has no name others can open: the creator leaves a locator file
 * "<pid> <fd>" in /dev/shm, and attachers open /proc/<pid>/fd/<fd>. */
static int memfd_publish(const char *name, int fd)
{
	char p[PATH_MAX], line[64];
	int r = zp_arena_path(p, sizeof p, SHM_DIR, name, ".memfd");
	if (r < 0)
		return r;
	int lf = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, ZP_SHM_MODE);
	if (lf < 0) {
		int e = -errno, c = e == -EEXIST ? zp_shm_check_path(p) : 0;
		return c && c != -ENOENT ? c : e;
	}
	if (fchmod(lf, ZP_SHM_MODE) < 0) {
		close(lf);
		return -errno;
	}
	int n = snprintf(line, sizeof line, "%d %d\n", (int)getpid(), fd);
	r = write(lf, line, (size_t)n) == n ? 0 : -EIO;
	close(lf);
	return r;
}

static int memfd_open(const char *name, const char *hdir, bool rdonly)
{
	char p[PATH_MAX], line[64];
	int pid, fd;
	int r = zp_arena_path(p, sizeof p, SHM_DIR, name, ".memfd");
	if (r < 0)
		return r;
	int lf = open_file(p, true); /* the locator is checked like any object: ours, 0600, no symlink */
	if (lf < 0)
		return lf;
	ssize_t n = read(lf, line, sizeof line - 1);
	close(lf);
	if (n <= 0)
		return ZP_EFORMAT;
	line[n] = 0;
	if (sscanf(line, "%d %d", &pid, &fd) != 2 || pid <= 0 || fd < 0)
		return ZP_EFORMAT;
	snprintf(p, sizeof p, "/proc/%d/fd/%d", pid, fd);
	/* a magic link: followed on purpose (O_NOFOLLOW would refuse it); what it reaches is checked */
	int mfd = open(p, (rdonly ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (mfd < 0)
		return -errno;
	if ((r = zp_shm_check_fd(mfd, p))) {
		close(mfd);
		return r;
	}
	return mfd;
}

static int memfd_unlink(const char *name, const char *hdir)
{
	char p[PATH_MAX];
	int r = zp_arena_path(p, sizeof p, SHM_DIR, name, ".memfd");
	return r < 0 ? r : unlink_path(p);
}

/* ------------------------------------------------------------ /dev/shm (THP or plain) */
static int shm_space(uint64_t bytes)
{
	struct statvfs s;
	if (statvfs(SHM_DIR, &s) < 0)
		return -errno;
	if ((uint64_t)s.f_bavail * s.f_frsize < bytes)
		return zp_err_set(-ENOSPC, SHM_DIR ": %llu bytes free, %llu needed",
				  (unsigned long long)s.f_bavail * s.f_frsize,
				  (unsigned long long)bytes);
	return 0;
}

static int thp_probe(const char *hdir, uint64_t bytes)
{
	char buf[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/shmem_enabled", "r");
	if (!f)
		return zp_err_set(-ENOTSUP, "THP: no shmem_enabled knob");
	if (!fgets(buf, sizeof buf, f))
		buf[0] = 0;
	fclose(f);
	if (strstr(buf, "[never]") || strstr(buf, "[deny]"))
		return zp_err_set(-ENOTSUP, "THP: shmem_enabled is %s", strtok(buf, "\n"));
	return shm_space(bytes);
}

static int shm_probe(const char *hdir, uint64_t bytes) { return shm_space(bytes); }

static int shm_create(const char *name, const char *hdir, uint64_t bytes)
{
	char p[PATH_MAX];
	int r = zp_arena_path(p, sizeof p, SHM_DIR, name, NULL);
	return r < 0 ? r : create_file(p, bytes);
}

static int shm_open_(const char *name, const char *hdir, bool rdonly)
{
	char p[PATH_MAX];
	int r = zp_arena_path(p, sizeof p, SHM_DIR, name, NULL);
	return r < 0 ? r : open_file(p, rdonly);
}

static int shm_unlink_(const char *name, const char *hdir)
{
	char p[PATH_MAX];
	int r = zp_arena_path(p, sizeof p, SHM_DIR, name, NULL);
	return r < 0 ? r : unlink_path(p);
}

/* Fault every page in now, by the creator: first touch of 4 KiB shared pages is slow and would
 * otherwise land on a synthesizer's hot path, and a full tmpfs must be found now (ENOMEM), not as a
 * SIGBUS later. On the CPUs this process may use (common/par.h), in 64 MiB steps: one thread faults
 * tmpfs pages at ~1.5 GiB/s (a 38 GiB key region 25 s, a 20 GiB arena 13 s, measured on the GPU host),
 * and each step counts on the creator's progress line (the stage is the caller's, which names the object). */
#define POP_STEP (64ull << 20)
struct pop { uint8_t *base; uint64_t bytes; _Atomic int err; };

static void pop_step(void *ctx, size_t i, int worker)
{
	(void)worker;
	struct pop *p = ctx;
	if (atomic_load_explicit(&p->err, memory_order_relaxed))
		return; /* one failed: the rest is not needed */
	uint64_t off = (uint64_t)i * POP_STEP, n = p->bytes - off < POP_STEP ? p->bytes - off : POP_STEP;
	if (madvise(p->base + off, n, MADV_POPULATE_WRITE) != 0) {
		if (errno != EINVAL) { /* ENOMEM/EFAULT: out of tmpfs memory, report now */
			int none = 0;
			atomic_compare_exchange_strong(&p->err, &none, -errno);
			return;
		}
		for (uint64_t o = off; o < off + n; o += 4096) /* a kernel before 5.14: touch each page */
			((volatile uint8_t *)p->base)[o] = 0;
	}
	zp_progress_add(n);
}

static int populate(void *base, uint64_t bytes)
{
	struct pop p = { .base = base, .bytes = bytes }; /* err 0 */
	zp_par_for((size_t)((bytes + POP_STEP - 1) / POP_STEP), pop_step, &p);
	return atomic_load(&p.err);
}

static int thp_prepare(void *base, uint64_t bytes)
{
	if (madvise(base, bytes, MADV_HUGEPAGE) < 0)
		return -errno;
	return populate(base, bytes);
}

static const struct zp_backing_ops htlb_ops = {
	.kind = ZP_BACKING_HUGETLBFS, .name = "hugetlbfs",
	.probe = htlb_probe, .create = htlb_create, .open = htlb_open, .unlink = htlb_unlink,
};
static const struct zp_backing_ops memfd_ops = {
	.kind = ZP_BACKING_MEMFD, .name = "memfd-hugetlb",
	.probe = memfd_probe, .create = memfd_create_, .open = memfd_open,
	.unlink = memfd_unlink, .publish = memfd_publish,
};
static const struct zp_backing_ops thp_ops = {
	.kind = ZP_BACKING_THP, .name = "shm-thp",
	.probe = thp_probe, .create = shm_create, .open = shm_open_, .unlink = shm_unlink_,
	.prepare = thp_prepare,
};
static const struct zp_backing_ops shm_ops = {
	.kind = ZP_BACKING_SHM, .name = "shm",
	.probe = shm_probe, .create = shm_create, .open = shm_open_, .unlink = shm_unlink_,
	.prepare = populate,
};

const struct zp_backing_ops *const zp_backings[ZP_BACKING_COUNT] = {
	[ZP_BACKING_HUGETLBFS] = &htlb_ops,
	[ZP_BACKING_MEMFD] = &memfd_ops,
	[ZP_BACKING_THP] = &thp_ops,
	[ZP_BACKING_SHM] = &shm_ops,
};

const char *zp_backing_name(enum zp_backing b)
{
	if (b == ZP_BACKING_AUTO)
		return "auto";
	return (unsigned)b < ZP_BACKING_COUNT ? zp_backings[b]->name : "unknown";
}

int zp_backing_probe(enum zp_backing b, const char *hdir, uint64_t bytes)
{
	if (b <= ZP_BACKING_AUTO || b >= ZP_BACKING_COUNT)
		return -EINVAL;
	return zp_backings[b]->probe(hdir, bytes);
}

int zp_hugetlbfs_set_nr(long nr)
{
	FILE *f = fopen("/proc/sys/vm/nr_hugepages", "w");
	if (!f)
		return -errno;
	int r = fprintf(f, "%ld\n", nr) > 0 ? 0 : -EIO;
	if (fclose(f) != 0 && !r)
		r = -errno;
	return r;
}

int zp_hugetlbfs_prepare(const char *dir, uint64_t pages, long *old_nr)
{
	long nr = read_long("/proc/sys/vm/nr_hugepages");
	if (nr < 0)
		return (int)nr;
	if (old_nr)
		*old_nr = nr;
	long fr = zp_hugepages_free();
	if (fr < 0 || (uint64_t)fr < pages) {
		int r = zp_hugetlbfs_set_nr(nr + (long)pages - (fr > 0 ? fr : 0));
		if (r < 0)
			return zp_err_set(r, "raising /proc/sys/vm/nr_hugepages");
		fr = zp_hugepages_free();
		if (fr < 0 || (uint64_t)fr < pages)
			return zp_err_set(-ENOMEM, "kernel gave only %ld free hugepages", fr);
	}
	if (is_hugetlbfs(dir))
		return 0;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	if (mount("zkpipe-hugetlbfs", dir, "hugetlbfs", 0, "pagesize=2M,mode=0700") < 0)
		return zp_err_set(-errno, "mount hugetlbfs on %s", dir);
	return 0;
}
