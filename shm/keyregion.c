/*
 * keyregion.c — create, fill, seal, attach and remove key regions (layout and protocol in
 * keyregion.h). The bytes come from the arena's backings (backing.c), memfd excepted.
 */
#include "keyregion.h"

#include "arena_impl.h"
#include "mac.h"
#include "progress.h"
#include "zp_err.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

_Static_assert(offsetof(struct zp_kreg_hdr, ident) == 24, "keyregion.h layout");
_Static_assert(offsetof(struct zp_kreg_hdr, created_ns) == 136, "keyregion.h layout");
_Static_assert(offsetof(struct zp_kreg_hdr, sect) == 152, "keyregion.h layout");
_Static_assert(offsetof(struct zp_kreg_hdr, hdr_xxh) == 664, "keyregion.h layout");
_Static_assert(offsetof(struct zp_kreg_hdr, mac) == 672, "keyregion.h layout");
_Static_assert(offsetof(struct zp_kreg_hdr, complete) == 2048, "keyregion.h layout");
_Static_assert(sizeof(struct zp_kreg_hdr) <= ZP_KREG_HDR, "keyregion.h layout");

#define SHM_DIR "/dev/shm"

/* The backings a region may live on, in the order they are tried (a memfd dies with its creator). */
static const enum zp_backing order[] = { ZP_BACKING_HUGETLBFS, ZP_BACKING_THP, ZP_BACKING_SHM };

static uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

static bool name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	if (n == 0 || n >= ZP_KREG_NAME_MAX || name[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
		      c == '_' || c == '-'))
			return false;
	}
	return true;
}

int zp_keyregion_name(char *buf, size_t n, const char *arena, const char *key)
{
	int r = snprintf(buf, n, "%s.key.%s", arena, key);
	if (r < 0 || (size_t)r >= n || !name_ok(buf))
		return zp_err_set(-ENAMETOOLONG, "key region for key '%s' of arena %s: name too long or not [A-Za-z0-9._-]",
				  key, arena);
	return 0;
}

int zp_keyregion_split_name(char *buf, size_t n, const char *arena, const char *key)
{
	int r = snprintf(buf, n, "%s.split.%s", arena, key);
	if (r < 0 || (size_t)r >= n || !name_ok(buf))
		return zp_err_set(-ENAMETOOLONG, "split region for key '%s' of arena %s: name too long or not [A-Za-z0-9._-]",
				  key, arena);
	return 0;
}

int zp_keyregion_file_ident(const char *path, const char *format, uint8_t ident[16])
{
	struct stat st;
	if (stat(path, &st) < 0)
		return zp_err_set(-errno, "key %s: %s", path, strerror(errno));
	struct { char fmt[16]; uint64_t dev, ino, size, mtime_s, mtime_ns; } v;
	memset(&v, 0, sizeof v); /* padding too: the hash covers every byte */
	snprintf(v.fmt, sizeof v.fmt, "%s", format);
	v.dev = (uint64_t)st.st_dev, v.ino = (uint64_t)st.st_ino, v.size = (uint64_t)st.st_size;
	v.mtime_s = (uint64_t)st.st_mtim.tv_sec, v.mtime_ns = (uint64_t)st.st_mtim.tv_nsec;
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits(&v, sizeof v));
	memcpy(ident, c.digest, 16);
	return 0;
}

/* ---- the MAC's secret ---- */
static uint8_t secret[32];
static bool have_secret;

static int read_secret(const char *p)
{
	int fd = open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT
		       : errno == ELOOP ? zp_err_set(-EPERM, "%s: a symlink (refused)", p) : zp_err_set(-errno, "%s", p);
	struct stat st;
	uint8_t b[33];
	int r = fstat(fd, &st) < 0 ? -errno : 0;
	if (!r && (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 07777) != 0600))
		r = zp_err_set(-EPERM, "%s: not a 0600 regular file of uid %u (uid %u, mode %04o): refused", p,
			       (unsigned)geteuid(), (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	ssize_t n = r ? 0 : read(fd, b, sizeof b);
	close(fd);
	if (!r && n != 32)
		r = zp_err_set(ZP_EFORMAT, "%s: %zd bytes, a secret is 32", p, n);
	if (!r) {
		memcpy(secret, b, 32);
		have_secret = true;
	}
	return r;
}

int zp_keyregion_secret_load(const char *dir)
{
	char p[PATH_MAX], t[PATH_MAX];
	if (snprintf(p, sizeof p, "%s/shm.secret", dir) >= (int)sizeof p ||
	    snprintf(t, sizeof t, "%s/shm.secret.tmp.%d", dir, (int)getpid()) >= (int)sizeof t)
		return zp_err_set(-ENAMETOOLONG, "%s: path too long", dir);
	int r = read_secret(p);
	if (r != -ENOENT)
		return r; /* 0, or refused with the reason */
	/* made whole under a temporary name, then linked: a reader never sees a short secret, and of two
	 * makers one link wins (the other reads the winner's) */
	uint8_t b[32];
	if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
		return zp_err_set(-EIO, "getrandom for %s", p);
	unlink(t);
	int fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return zp_err_set(-errno, "%s", t);
	r = fchmod(fd, 0600) == 0 && write(fd, b, sizeof b) == (ssize_t)sizeof b && fsync(fd) == 0 ? 0 : -errno;
	close(fd);
	if (!r && link(t, p) < 0 && errno != EEXIST)
		r = -errno;
	unlink(t);
	if (r)
		return zp_err_set(r, "%s", p);
	return read_secret(p);
}

/* The secret, or NULL when there is none and none could be drawn (then no region is ever accepted). */
static const uint8_t *the_secret(void)
{
	/* none loaded: this process's own, so its regions are its own alone */
	if (!have_secret && getrandom(secret, sizeof secret, 0) == (ssize_t)sizeof secret)
		have_secret = true;
	return have_secret ? secret : NULL;
}

/* The header's MAC into out; false without a secret. */
static bool hdr_mac(const struct zp_kreg_hdr *h, uint8_t out[32])
{
	const uint8_t *k = the_secret();
	if (k)
		zp_hmac_sha256(k, 32, h, offsetof(struct zp_kreg_hdr, mac), out);
	else
		memset(out, 0, 32);
	return k != NULL;
}

static uint64_t hdr_hash(const struct zp_kreg_hdr *h)
{
	return XXH64(h, offsetof(struct zp_kreg_hdr, hdr_xxh), 0);
}

/* Fill the shape part of h from p (section offsets 2 MiB aligned). */
static int layout(const struct zp_keyregion_params *p, struct zp_kreg_hdr *h)
{
	if (!name_ok(p->name))
		return zp_err_set(-EINVAL, "key region name '%s': use 1-%d of [A-Za-z0-9._-]", p->name ? p->name : "(null)",
				  ZP_KREG_NAME_MAX - 1);
	if (p->n_sections > ZP_KREG_MAX_SECT)
		return zp_err_set(ZP_ERANGE, "key region %s: %u sections (at most %u)", p->name, p->n_sections,
				  ZP_KREG_MAX_SECT);
	uint64_t off = ZP_ARENA_ALIGN; /* the header page, then the first 2 MiB boundary */
	for (unsigned i = 0; i < p->n_sections; i++) {
		if (p->sect[i].bytes > (1ull << 46) || strlen(p->sect[i].name) >= sizeof h->sect[i].name)
			return zp_err_set(ZP_ERANGE, "key region %s: section %u (%s) too large or badly named", p->name, i,
					  p->sect[i].name);
		snprintf(h->sect[i].name, sizeof h->sect[i].name, "%s", p->sect[i].name);
		h->sect[i].off = off;
		h->sect[i].bytes = p->sect[i].bytes;
		off = round_up(off + p->sect[i].bytes, ZP_ARENA_ALIGN);
	}
	h->n_sections = p->n_sections;
	h->total_bytes = off;
	h->header_bytes = ZP_KREG_HDR;
	memcpy(h->ident, p->ident, sizeof h->ident);
	snprintf(h->key, sizeof h->key, "%s", p->key ? p->key : "");
	snprintf(h->format, sizeof h->format, "%s", p->format ? p->format : "");
	snprintf(h->curve, sizeof h->curve, "%s", p->curve ? p->curve : "");
	h->version = zp_keyregion_format();
	h->magic = ZP_KREG_MAGIC;
	return 0;
}

/* One backing: probe, create exclusively, map writable, prepare. */
static int try_backing(const struct zp_backing_ops *ops, const struct zp_keyregion_params *p, uint64_t bytes,
		       zp_keyregion *r)
{
	int e = ops->probe(p->hugetlbfs_dir, bytes);
	if (e < 0) { /* the backing's reason, said of this region (not of an arena) */
		char m[400];
		snprintf(m, sizeof m, "%s", zp_err_msg());
		char *suffix = strstr(m, zp_strerror(e)); /* zp_err_set appends ": <strerror>" again */
		if (suffix && suffix > m + 2 && !strcmp(suffix, zp_strerror(e)))
			suffix[-2] = 0;
		return zp_err_set(e, "key region %s on %s: %s", p->name, ops->name, m);
	}
	int fd = ops->create(p->name, p->hugetlbfs_dir, bytes);
	if (fd < 0) /* EEXIST: ours, another gpud's; EPERM: another user's, with the reason */
		return fd == -EEXIST || fd == -EPERM ? fd : zp_err_set(fd, "key region %s: create on %s", p->name, ops->name);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) { /* held while writing: the proof its writer lives */
		int x = -errno;
		close(fd);
		ops->unlink(p->name, p->hugetlbfs_dir);
		return zp_err_set(x, "key region %s: flock", p->name);
	}
	bool huge = ops->kind == ZP_BACKING_HUGETLBFS;
	if (!huge) {
		char st[ZP_PROGRESS_STAGE_MAX];
		snprintf(st, sizeof st, "key region %s: populating %s", p->name, ops->name);
		zp_progress_stage(st, bytes, "bytes");
	}
	/* no MAP_POPULATE on hugetlbfs (unlike the arena): a shared hugetlb mapping reserves its pages at
	 * mmap, so there is no SIGBUS to fear, and the loader's threads fault (zero) the pages in parallel
	 * as they write — one populating thread would zero 47 GiB alone */
	e = zp_map_aligned(fd, bytes, false, 0, &r->base);
	if (e == 0 && ops->prepare)
		e = ops->prepare(r->base, bytes);
	if (e < 0) {
		if (r->base)
			munmap(r->base, bytes);
		r->base = NULL;
		close(fd);
		ops->unlink(p->name, p->hugetlbfs_dir);
		return zp_err_set(e, "key region %s: map %s", p->name, ops->name);
	}
	r->fd = fd;
	r->size = bytes;
	r->backing = ops->kind;
	return 0;
}

/* An object by this name on any backing (a creator must not make a second one elsewhere). */
static int open_any(const char *name, const char *hdir, enum zp_backing *kind)
{
	for (unsigned i = 0; i < sizeof order / sizeof order[0]; i++) {
		if (order[i] == ZP_BACKING_THP)
			continue; /* THP and plain shm are the same /dev/shm file */
		int fd = zp_backings[order[i]]->open(name, hdir, true);
		if (fd >= 0) {
			*kind = order[i];
			return fd;
		}
		if (fd != -ENOENT)
			return fd; /* something not ours at the name: refused (backing.c says whose) */
	}
	return -ENOENT;
}

int zp_keyregion_create(zp_keyregion *r, const struct zp_keyregion_params *p)
{
	memset(r, 0, sizeof *r);
	r->fd = -1;
	struct zp_kreg_hdr shape;
	memset(&shape, 0, sizeof shape);
	int e = layout(p, &shape);
	if (e < 0)
		return e;
	enum zp_backing k;
	int fd = open_any(p->name, p->hugetlbfs_dir, &k);
	if (fd >= 0) {
		close(fd);
		return zp_err_set(-EEXIST, "key region %s exists (%s)", p->name, zp_backing_name(k));
	}
	if (fd != -ENOENT)
		return fd;
	e = -ENOENT;
	for (unsigned i = 0; i < sizeof order / sizeof order[0]; i++) {
		if (p->backing != ZP_BACKING_AUTO && p->backing != order[i])
			continue;
		zp_err_clear();
		if ((e = try_backing(zp_backings[order[i]], p, shape.total_bytes, r)) == 0 || e == -EEXIST || e == -EPERM)
			break;
	}
	if (e < 0)
		return e == -EEXIST ? zp_err_set(e, "key region %s exists", p->name) : e;
	struct zp_kreg_hdr *h = (struct zp_kreg_hdr *)r->base;
	memcpy(h, &shape, offsetof(struct zp_kreg_hdr, hdr_xxh));
	h->created_ns = zp_now_ns();
	h->creator_pid = (uint32_t)getpid();
	h->hdr_xxh = hdr_hash(h);
	hdr_mac(h, h->mac);
	r->writable = true;
	snprintf(r->name, sizeof r->name, "%s", p->name);
	snprintf(r->hdir, sizeof r->hdir, "%s", p->hugetlbfs_dir ? p->hugetlbfs_dir : "");
	return 0;
}

void *zp_keyregion_wsect(zp_keyregion *r, unsigned i)
{
	const struct zp_kreg_hdr *h = (const struct zp_kreg_hdr *)r->base;
	return r->writable && i < h->n_sections ? r->base + h->sect[i].off : NULL;
}

int zp_keyregion_seal(zp_keyregion *r)
{
	if (!r->writable)
		return zp_err_set(-EINVAL, "key region %s: not being created", r->name);
	struct zp_kreg_hdr *h = (struct zp_kreg_hdr *)r->base;
	/* every section's bytes before the flag: an attacher that sees complete sees them all */
	atomic_store_explicit(&h->complete, 1, memory_order_release);
	if (mprotect(r->base, r->size, PROT_READ) < 0)
		return zp_err_set(-errno, "key region %s: read-only", r->name);
	r->writable = false;
	flock(r->fd, LOCK_UN); /* written: nobody need wait for it */
	return 0;
}

/* A half-written region's writer lives while it holds the flock it took at create (the kernel drops it
 * when the writer dies): a pid in the header proves nothing (it may name any process). */
static bool writer_alive(int fd)
{
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
		flock(fd, LOCK_UN);
		return false;
	}
	return errno == EWOULDBLOCK;
}

/* Check a mapped header against the object's size and the caller's identity. */
static int check(const zp_keyregion *r, const uint8_t ident[16], bool *alive)
{
	const struct zp_kreg_hdr *h = (const struct zp_kreg_hdr *)r->base;
	if (h->magic != ZP_KREG_MAGIC)
		return zp_err_set(ZP_EFORMAT, "key region %s: not a key region (magic)", r->name);
	if (h->version != zp_keyregion_format() || h->header_bytes != ZP_KREG_HDR)
		return zp_err_set(ZP_EVERSION, "key region %s: format word 0x%08x (layout version %u), this build reads "
				  "0x%08x (layout version %u): made by a zkpipe build whose shared structs differ (it is "
				  "rebuilt from the key file)", r->name, h->version, h->version & 0xffu,
				  zp_keyregion_format(), ZP_KREG_VERSION);
	if (hdr_hash(h) != h->hdr_xxh)
		return zp_err_set(ZP_EFORMAT, "key region %s: header checksum mismatch", r->name);
	uint8_t mac[32];
	if (!hdr_mac(h, mac) || !zp_mac_equal(mac, h->mac, sizeof mac))
		return zp_err_set(ZP_EMISMATCH, "key region %s: its MAC is not this service's (not made by this service "
				  "from its key file, or under another run directory's secret): refused", r->name);
	if (h->total_bytes != r->size || h->n_sections > ZP_KREG_MAX_SECT)
		return zp_err_set(ZP_EFORMAT, "key region %s: header says %llu bytes, %u sections; the object has %llu",
				  r->name, (unsigned long long)h->total_bytes, h->n_sections, (unsigned long long)r->size);
	for (unsigned i = 0; i < h->n_sections; i++)
		if (h->sect[i].off < ZP_KREG_HDR || h->sect[i].off > r->size || h->sect[i].bytes > r->size - h->sect[i].off)
			return zp_err_set(ZP_EFORMAT, "key region %s: section %u (%.16s) outside the region", r->name, i,
					  h->sect[i].name);
	if (!atomic_load_explicit(&h->complete, memory_order_acquire)) {
		bool a = writer_alive(r->fd);
		if (alive)
			*alive = a;
		return zp_err_set(ZP_ETRUNC, "key region %s: half-written (its creator, pid %u, %s)", r->name,
				  h->creator_pid, a ? "is still writing it: it holds the region's lock" : "died before finishing");
	}
	if (memcmp(h->ident, ident, 16))
		return zp_err_set(ZP_EMISMATCH, "key region %s: made from another version of key %.64s (the file changed)",
				  r->name, h->key);
	return 0;
}

int zp_keyregion_attach(zp_keyregion *r, const char *name, const char *hdir, const uint8_t ident[16],
			bool *creator_alive)
{
	memset(r, 0, sizeof *r);
	r->fd = -1;
	if (creator_alive)
		*creator_alive = false;
	if (!name_ok(name))
		return zp_err_set(-EINVAL, "key region name '%s'", name ? name : "(null)");
	snprintf(r->name, sizeof r->name, "%s", name);
	snprintf(r->hdir, sizeof r->hdir, "%s", hdir ? hdir : "");
	int fd = open_any(name, hdir, &r->backing);
	if (fd == -ENOENT)
		return zp_err_set(-ENOENT, "key region %s not found", name);
	if (fd < 0)
		return fd; /* another user's object at the name (backing.c says whose): refused */
	struct stat st;
	if (fstat(fd, &st) < 0 || (uint64_t)st.st_size < ZP_ARENA_ALIGN) {
		close(fd);
		return zp_err_set(ZP_EFORMAT, "key region %s: %lld bytes, shorter than a header", name,
				  (long long)st.st_size);
	}
	r->size = (uint64_t)st.st_size;
	int e = zp_map_aligned(fd, r->size, true, 0, &r->base);
	if (e < 0) {
		close(fd);
		return zp_err_set(e, "key region %s: map", name);
	}
	r->fd = fd;
	if ((e = check(r, ident, creator_alive)) < 0) {
		zp_keyregion_close(r);
		return e;
	}
	if (r->backing == ZP_BACKING_SHM) { /* a /dev/shm file: THP if the creator asked for it */
		int adv = madvise(r->base, r->size, MADV_HUGEPAGE);
		(void)adv; /* advisory only */
	}
	return 0;
}

const struct zp_kreg_hdr *zp_keyregion_hdr(const zp_keyregion *r)
{
	return (const struct zp_kreg_hdr *)r->base;
}

const void *zp_keyregion_sect(const zp_keyregion *r, const char *name, uint64_t *bytes)
{
	const struct zp_kreg_hdr *h = zp_keyregion_hdr(r);
	for (unsigned i = 0; h && i < h->n_sections; i++)
		if (!strncmp(h->sect[i].name, name, sizeof h->sect[i].name)) {
			if (bytes)
				*bytes = h->sect[i].bytes;
			return r->base + h->sect[i].off;
		}
	return NULL;
}

void zp_keyregion_close(zp_keyregion *r)
{
	if (r->base)
		munmap(r->base, r->size);
	if (r->fd >= 0)
		close(r->fd);
	r->base = NULL;
	r->fd = -1;
}

int zp_keyregion_remove(const char *name, const char *hdir)
{
	if (!name_ok(name))
		return -EINVAL;
	int r = -ENOENT;
	if (zp_backings[ZP_BACKING_HUGETLBFS]->unlink(name, hdir) == 0)
		r = 0;
	if (zp_backings[ZP_BACKING_SHM]->unlink(name, hdir) == 0)
		r = 0;
	return r;
}

/* Remove the regions "zkpipe.<arena>.<kind>.<k>" in dir whose k is not kept. */
static int prune_dir(const char *dir, const char *kind, const char *arena, const char *hdir, const char *const *keep,
		     unsigned n_keep)
{
	char pre[ZP_KREG_NAME_MAX + 16];
	int n = 0, pl = snprintf(pre, sizeof pre, "zkpipe.%s.%s.", arena, kind);
	DIR *d = dir ? opendir(dir) : NULL;
	if (!d || pl < 0 || (size_t)pl >= sizeof pre) {
		if (d)
			closedir(d);
		return 0;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, pre, (size_t)pl))
			continue;
		const char *k = de->d_name + pl;
		bool kept = false;
		for (unsigned i = 0; i < n_keep && !kept; i++) {
			size_t kl = strlen(keep[i]);
			/* "k", or "k.gpud<i>": a setup = device key's region is per gpud (gpud/keys.c) */
			kept = !strcmp(k, keep[i]) ||
			       (!strncmp(k, keep[i], kl) && !strncmp(k + kl, ".gpud", 5) && k[kl + 5] &&
				strspn(k + kl + 5, "0123456789") == strlen(k + kl + 5));
		}
		if (!kept && zp_keyregion_remove(de->d_name + strlen("zkpipe."), hdir) == 0)
			n++;
	}
	closedir(d);
	return n;
}

int zp_keyregion_prune(const char *arena, const char *hdir, const char *const *keep, unsigned n_keep)
{
	const char *hd = zp_hugetlbfs_dir(hdir);
	int n = 0;
	for (int k = 0; k < 2; k++) {
		const char *kind = k ? "split" : "key";
		n += prune_dir(hd, kind, arena, hdir, keep, n_keep);
		n += prune_dir(SHM_DIR, kind, arena, hdir, keep, n_keep);
	}
	return n;
}

/* ---------------------------------------------------------------- listing (zkpipe-shm) */
bool zp_keyregion_is_name(const char *name, char *arena, size_t n)
{
	if (!name_ok(name))
		return false;
	const char *k = strstr(name, ".key."), *sp = strstr(name, ".split.");
	const char *at = k && (!sp || k < sp) ? k : sp;
	if (!at || at == name || !at[at == k ? 5 : 7])
		return false;
	if (arena)
		snprintf(arena, n, "%.*s", (int)(at - name), name);
	return true;
}

static int each_dir(const char *dir, const char *arena, void (*fn)(const char *, void *), void *ctx)
{
	DIR *d = dir ? opendir(dir) : NULL;
	int n = 0;
	if (!d)
		return 0;
	char a[ZP_KREG_NAME_MAX];
	for (struct dirent *de; (de = readdir(d));) {
		const char *nm = de->d_name + 7;
		if (strncmp(de->d_name, "zkpipe.", 7) || !zp_keyregion_is_name(nm, a, sizeof a) || (arena && strcmp(a, arena)))
			continue;
		fn(nm, ctx);
		n++;
	}
	closedir(d);
	return n;
}

int zp_keyregion_each(const char *arena, const char *hdir, void (*fn)(const char *name, void *ctx), void *ctx)
{
	const char *hd = zp_hugetlbfs_dir(hdir);
	int n = each_dir(hd, arena, fn, ctx);
	if (!hd || strcmp(hd, SHM_DIR))
		n += each_dir(SHM_DIR, arena, fn, ctx);
	return n;
}

int zp_keyregion_peek(const char *name, const char *hdir, struct zp_kreg_hdr *h, uint64_t *bytes,
		      enum zp_backing *kind)
{
	if (!name_ok(name))
		return zp_err_set(-EINVAL, "key region name '%s'", name ? name : "(null)");
	int fd = open_any(name, hdir, kind);
	if (fd < 0)
		return zp_err_set(-ENOENT, "key region %s not found", name);
	struct stat st;
	uint8_t *base = NULL;
	int e = 0;
	if (fstat(fd, &st) < 0 || (uint64_t)st.st_size < ZP_ARENA_ALIGN)
		e = zp_err_set(ZP_EFORMAT, "key region %s: %lld bytes, shorter than a header", name, (long long)st.st_size);
	else if ((e = zp_map_aligned(fd, ZP_ARENA_ALIGN, true, 0, &base)) < 0) /* the header's first 2 MiB page */
		e = zp_err_set(e, "key region %s: map", name);
	close(fd);
	if (e < 0)
		return e;
	memcpy(h, base, sizeof *h);
	munmap(base, ZP_ARENA_ALIGN);
	*bytes = (uint64_t)st.st_size;
	if (h->magic != ZP_KREG_MAGIC)
		return zp_err_set(ZP_EFORMAT, "key region %s: not a key region (magic)", name);
	if (hdr_hash(h) != h->hdr_xxh || h->n_sections > ZP_KREG_MAX_SECT)
		return zp_err_set(ZP_EFORMAT, "key region %s: header checksum mismatch", name);
	return 0;
}
