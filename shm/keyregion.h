/*
 * keyregion.h — a proving key's decoded points in shared memory that outlives gpud.
 *
 * A gpud that restarts (a sticky CUDA error, an OOM kill, an upgrade) would otherwise re-read and
 * re-check its key file: minutes at Filecoin scale. The first loader of a key writes the points,
 * in the form the prover uses, into a region; every later gpud of the group maps it read-only,
 * registers it with CUDA and uploads from it at link speed.
 *
 * LAYOUT  [header page (4096 B) | section 0 | section 1 | …], every section 2 MiB aligned.
 *   0    u64 magic "zpKeyReg"        8   u32 format word          12  u32 header_bytes (4096)
 *                        (zp_keyregion_format(): ZP_KREG_VERSION in the low byte, the header's struct
 *                        sizes and offsets folded in above it, as the arena's; another is refused)
 *   16   u64 total_bytes (the object's size)
 *   24   u8  ident[16]   the key's identity, as its loader defines it (zp_keyregion_file_ident:
 *                        XXH3-128 of format, device, inode, size and mtime of the key file)
 *   40   char key[64], format[16], curve[16]       what it holds (for zkpipe-shm, logs, errors)
 *   136  u64 created_ns   144 u32 creator_pid   148 u32 n_sections (≤ ZP_KREG_MAX_SECT)
 *   152  16 × {char name[16], u64 off, u64 bytes}  (32 B each: 512 B)
 *   664  u64 XXH64 of bytes [0, 664)   (the header as the creator wrote it)
 *   672  u8  mac[32]      HMAC-SHA-256 of bytes [0, 672) keyed by the service's secret (run dir's shm.secret)
 *   2048 u32 complete     written last, with release order, after every section is filled
 * The object is a file named zkpipe.<name> on hugetlbfs (2 MiB pages), else on /dev/shm with
 * transparent huge pages, else plain /dev/shm (pre-faulted by the creator) — the arena's backings
 * (shm/backing.c) less the memfd, which would not outlive its creator.
 *
 * PROTOCOL
 *   create   O_EXCL, mode 0600: one creator wins; it takes an exclusive flock on the object, writes
 *            the header (complete = 0) and its MAC, fills the sections through the writable view and
 *            seals (complete = 1, release; the flock is dropped). A creator that dies before sealing
 *            leaves complete = 0 and no flock: nobody uses that region; the next creator removes it
 *            (zp_keyregion_remove). "Its writer is alive" is the kernel's word (the flock is held),
 *            never a pid (creator_pid is for logs only).
 *   attach   read-only; refused unless the object is ours (backing.c: a regular file of this uid,
 *            mode 0600, no symlink), magic, version, header checksum, the MAC (only the service user
 *            can read the secret: a region made by anyone else, even of the same key file's identity,
 *            is not the key), sizes, sections and complete (acquire) are all right and ident is the
 *            caller's: a changed key file has another identity, so its old region is never used.
 *   remove   unlink: mappings in use stay valid until unmapped; the supervisor removes the
 *            regions of keys that left the config (zp_keyregion_prune).
 */
#ifndef ZP_SHM_KEYREGION_H
#define ZP_SHM_KEYREGION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "arena.h"

#define ZP_KREG_MAGIC    0x67655279654b707aull /* "zpKeyReg" read as a little-endian u64 */
#define ZP_KREG_VERSION  3u                    /* 2: the header's MAC; 3: the format word (zp_keyregion_format) */
#define ZP_KREG_MAX_SECT 16u
#define ZP_KREG_NAME_MAX 160                   /* "<arena>.key.<key>" */
#define ZP_KREG_HDR      4096u

struct zp_kreg_sect {
	char name[16];
	uint64_t off, bytes;
};

struct zp_kreg_hdr {
	uint64_t magic;
	uint32_t version, header_bytes;
	uint64_t total_bytes;
	uint8_t ident[16];
	char key[64], format[16], curve[16];
	uint64_t created_ns;
	uint32_t creator_pid, n_sections;
	struct zp_kreg_sect sect[ZP_KREG_MAX_SECT];
	uint64_t hdr_xxh;                  /* XXH64 of the bytes before it */
	uint8_t mac[32];                   /* at 672: HMAC-SHA-256 of bytes [0, 672) under the service's secret */
	uint8_t pad_[2048 - 704];
	_Atomic uint32_t complete;         /* at 2048: 1 once every section is written */
};

/* The sizes the key region's format word folds in, in this order. */
#define ZP_KREG_FORMAT_SIZES { \
	(uint32_t)sizeof(struct zp_kreg_hdr), (uint32_t)sizeof(struct zp_kreg_sect), ZP_KREG_MAX_SECT, ZP_KREG_HDR, \
	(uint32_t)offsetof(struct zp_kreg_hdr, sect), (uint32_t)offsetof(struct zp_kreg_hdr, hdr_xxh), \
	(uint32_t)offsetof(struct zp_kreg_hdr, mac), (uint32_t)offsetof(struct zp_kreg_hdr, complete) }
/* This build's key-region format word: written by the creator, required on attach. */
static inline uint32_t zp_keyregion_format(void)
{
	static const uint32_t v[] = ZP_KREG_FORMAT_SIZES;
	return zp_format_fold(ZP_KREG_VERSION, v, sizeof v / sizeof v[0]);
}

/* What a creator asks for: section names and sizes, in order. */
struct zp_keyregion_params {
	const char *name;                  /* region name: [A-Za-z0-9._-], < ZP_KREG_NAME_MAX */
	const char *hugetlbfs_dir;         /* NULL: the knob / libhugetlbfs default */
	enum zp_backing backing;           /* AUTO: hugetlbfs, THP, shm in turn */
	uint8_t ident[16];
	const char *key, *format, *curve;
	unsigned n_sections;
	struct { const char *name; uint64_t bytes; } sect[ZP_KREG_MAX_SECT];
};

typedef struct {
	uint8_t *base;
	uint64_t size;
	int fd;
	bool writable;
	enum zp_backing backing;
	char name[ZP_KREG_NAME_MAX];
	char hdir[256];
} zp_keyregion;

/* The secret key regions are MACed with: <dir>/shm.secret (32 random bytes), made by the first caller
 * (O_EXCL, 0600) and read by the others, refused unless a regular file of this uid with mode 0600
 * (never through a symlink). dir is the run directory (0700, the service's). A process that never loads
 * one uses a random secret of its own: its regions are then its own alone. 0 or -errno with the reason. */
int zp_keyregion_secret_load(const char *dir);

/* Identity of a key file as its loader defines it: XXH3-128 of (format, st_dev, st_ino, st_size,
 * st_mtim). Not its content: hashing 47 GiB would cost what the region saves. An edit in place that
 * restores size and mtime goes unseen (as with make or rsync); anything else invalidates. */
int zp_keyregion_file_ident(const char *path, const char *format, uint8_t ident[16]);

/* The region name of key `key` in the group whose arena is `arena`: "<arena>.key.<key>". */
int zp_keyregion_name(char *buf, size_t n, const char *arena, const char *key);

/* The region of the split bases a device backend makes from that key (gpud/keystore.h):
 * "<arena>.split.<key>". Pruned with the key's. */
int zp_keyregion_split_name(char *buf, size_t n, const char *arena, const char *key);

/* Create (exclusive) and map writable; sections zeroed. -EEXIST when one exists (attach it, or
 * remove it if zp_keyregion_attach says it is stale); -ENOMEM/-ENOSPC with the backing's reason. */
int zp_keyregion_create(zp_keyregion *r, const struct zp_keyregion_params *p);
/* Writable pointer to section i of a region being created (NULL if out of range or sealed). */
void *zp_keyregion_wsect(zp_keyregion *r, unsigned i);
/* Mark complete (release) and turn the mapping read-only. */
int zp_keyregion_seal(zp_keyregion *r);

/* Attach read-only, checking everything (above). Errors: -ENOENT none; ZP_EMISMATCH another key
 * (ident differs: the file changed); ZP_ETRUNC half-written (complete = 0: its creator died or is
 * still writing — *creator_alive says which, when not NULL); ZP_EFORMAT / ZP_EVERSION damaged or
 * foreign. Each with a message naming the region. */
int zp_keyregion_attach(zp_keyregion *r, const char *name, const char *hdir, const uint8_t ident[16],
			bool *creator_alive);
const struct zp_kreg_hdr *zp_keyregion_hdr(const zp_keyregion *r);
/* Section by name: its bytes (read-only view) and size; NULL when absent. */
const void *zp_keyregion_sect(const zp_keyregion *r, const char *name, uint64_t *bytes);
void zp_keyregion_close(zp_keyregion *r);

/* Unlink region `name` from every backing (0 if one was removed, -ENOENT if none). */
int zp_keyregion_remove(const char *name, const char *hdir);
/* Remove every region "<arena>.key.*" and "<arena>.split.*" whose key is not in keep[0..n_keep) (a kept
 * key "k" keeps "k" and "k.gpud<i>", its setup = device regions, one per gpud): the supervisor, at start, for keys that
 * left the config. Returns how many were removed. */
int zp_keyregion_prune(const char *arena, const char *hdir, const char *const *keep, unsigned n_keep);

/* Every region of arena `arena` ("<arena>.key.*", "<arena>.split.*"; NULL: every zkpipe region, any
 * arena) on hugetlbfs and /dev/shm: fn(name, ctx) for each (name without "zkpipe."). Returns how many. */
int zp_keyregion_each(const char *arena, const char *hdir, void (*fn)(const char *name, void *ctx), void *ctx);
/* A copy of region `name`'s header (magic and checksum checked; the rest as found, complete or not),
 * its object's size and backing: what zkpipe-shm shows. Errors as zp_keyregion_attach, naming it. */
int zp_keyregion_peek(const char *name, const char *hdir, struct zp_kreg_hdr *h, uint64_t *bytes,
		      enum zp_backing *kind);
/* Whether name has the form of a region name ("<arena>.key.<k>" or "<arena>.split.<k>"); when arena is
 * not NULL it gets "<arena>" (n bytes). */
bool zp_keyregion_is_name(const char *name, char *arena, size_t n);

#endif
