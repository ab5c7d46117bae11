/*
 * test_keyregion — key regions (shm/keyregion.h) on every backing that can be exercised here:
 * hugetlbfs (as root: pages reserved through nr_hugepages, a temp mount), /dev/shm with THP or
 * plain. For each: create, fill, seal; attach read-only from this process and from a fork (bytes
 * right, a write faults); a second creator is refused; a region whose creator was SIGKILLed before
 * sealing is refused as half-written (creator dead) while one still being written says its creator
 * is alive; another identity is refused; a damaged header is refused; remove and prune (only the
 * keys that left the config). Then the file identity: a new mtime, size or inode changes it. Then what
 * another party may leave at a region's name (attacker_cases) and the MAC's secret (secret_case).
 */
#include "tshm.h"
#include "keyregion.h"
#include "knobs.h"
#include "mac.h"

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <sys/mount.h>
#include <sys/stat.h>

#define S0 (1u << 20)
#define S1 (3u << 20)

static const uint8_t ID_A[16] = { 1, 2, 3 }, ID_B[16] = { 9, 9, 9 };

static void params_for(struct zp_keyregion_params *p, const char *name, const char *hdir, enum zp_backing k)
{
	memset(p, 0, sizeof *p);
	p->name = name;
	p->hugetlbfs_dir = hdir;
	p->backing = k;
	memcpy(p->ident, ID_A, 16);
	p->key = "k", p->format = "zpk", p->curve = "bls12-381";
	p->n_sections = 2;
	p->sect[0].name = "a", p->sect[0].bytes = S0;
	p->sect[1].name = "b2", p->sect[1].bytes = S1;
}

/* Create, fill with a pattern, seal unless told not to. */
static int make(zp_keyregion *r, const struct zp_keyregion_params *p, bool seal)
{
	int e = zp_keyregion_create(r, p);
	if (e < 0)
		return e;
	memset(zp_keyregion_wsect(r, 0), 0xa5, S0);
	memset(zp_keyregion_wsect(r, 1), 0x3c, S1);
	return seal ? zp_keyregion_seal(r) : 0;
}

static bool all(const void *p, int v, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		if (b[i] != (uint8_t)v)
			return false;
	return true;
}

static void on_segv(int sig)
{
	(void)sig;
	_exit(9);
}

/* A forked attacher: sees the bytes, faults (SIGSEGV: exit 9 from its handler, which a sanitizer's own
 * handler would otherwise turn into a report) when it writes. */
static void child_checks(const char *name, const char *hdir)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_segv };
		sigaction(SIGSEGV, &sa, NULL);
		zp_keyregion r;
		if (zp_keyregion_attach(&r, name, hdir, ID_A, NULL))
			_exit(2);
		uint64_t n;
		const uint8_t *b = zp_keyregion_sect(&r, "b2", &n);
		if (!b || n != S1 || !all(b, 0x3c, n))
			_exit(3);
		((volatile uint8_t *)b)[0] = 0; /* read-only: SIGSEGV */
		_exit(4);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 9);
}

static void run_kind(enum zp_backing k, const char *hdir)
{
	char name[96];
	snprintf(name, sizeof name, "t-kr-%d.key.k%d", (int)getpid(), (int)k);
	struct zp_keyregion_params p;
	params_for(&p, name, hdir, k);
	zp_keyregion r, q;
	zp_keyregion_remove(name, hdir);

	/* 1. a creator SIGKILLed before sealing: half-written, creator dead */
	pid_t pid = fork();
	if (pid == 0) {
		zp_keyregion w;
		if (make(&w, &p, false))
			_exit(2);
		raise(SIGKILL);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	CHECK(WIFSIGNALED(st));
	bool alive = true;
	CHECK_EQ(zp_keyregion_attach(&q, name, hdir, ID_A, &alive), ZP_ETRUNC);
	CHECK(!alive);
	CHECK_EQ(zp_keyregion_create(&r, &p), -EEXIST); /* it is still there: the caller removes it */
	CHECK_EQ(zp_keyregion_remove(name, hdir), 0);

	/* 2. being written by a live creator: half-written, creator alive */
	REQUIRE(make(&r, &p, false) == 0);
	CHECK_EQ(zp_keyregion_hdr(&r)->n_sections, 2);
	CHECK_EQ(zp_keyregion_attach(&q, name, hdir, ID_A, &alive), ZP_ETRUNC);
	CHECK(alive);
	CHECK_EQ(zp_keyregion_seal(&r), 0);
	CHECK(zp_keyregion_wsect(&r, 0) == NULL);
	CHECK_EQ(r.backing, k);

	/* 3. sealed: attach, bytes, read-only, here and in a fork */
	CHECK_EQ(zp_keyregion_attach(&q, name, hdir, ID_A, NULL), 0);
	uint64_t n = 0;
	const void *a = zp_keyregion_sect(&q, "a", &n);
	CHECK(a && n == S0 && all(a, 0xa5, n));
	CHECK(((uintptr_t)a & (ZP_ARENA_ALIGN - 1)) == 0);
	CHECK(zp_keyregion_sect(&q, "nope", NULL) == NULL);
	CHECK(!strcmp(zp_keyregion_hdr(&q)->format, "zpk"));
	zp_keyregion_close(&q);
	child_checks(name, hdir);

	/* 4. a second creator is refused; another key version is refused */
	CHECK_EQ(zp_keyregion_create(&q, &p), -EEXIST);
	CHECK_EQ(zp_keyregion_attach(&q, name, hdir, ID_B, NULL), ZP_EMISMATCH);
	zp_keyregion_close(&r);

	/* 5. a damaged header (one byte of the key name) is refused */
	if (k != ZP_BACKING_HUGETLBFS) { /* hugetlbfs files take no write(2) */
		char path[256];
		snprintf(path, sizeof path, "/dev/shm/zkpipe.%s", name);
		int fd = open(path, O_RDWR);
		/* 5a. the format word of a build whose header structs differ is refused, saying so */
		uint32_t sizes[] = ZP_KREG_FORMAT_SIZES, word = zp_keyregion_format();
		sizes[0] += 64;
		uint32_t other = zp_format_fold(ZP_KREG_VERSION, sizes, sizeof sizes / sizeof sizes[0]);
		CHECK(other != word);
		CHECK(fd >= 0 && pwrite(fd, &other, 4, 8) == 4);
		CHECK_EQ(zp_keyregion_attach(&q, name, hdir, ID_A, NULL), ZP_EVERSION);
		char want[64];
		snprintf(want, sizeof want, "format word 0x%08x", other);
		CHECK(strstr(zp_err_msg(), want) && strstr(zp_err_msg(), "shared structs differ") &&
		      strstr(zp_err_msg(), name));
		CHECK(pwrite(fd, &word, 4, 8) == 4);
		CHECK_EQ(zp_keyregion_attach(&q, name, hdir, ID_A, NULL), 0);
		zp_keyregion_close(&q);
		CHECK(fd >= 0 && pwrite(fd, "X", 1, 41) == 1);
		close(fd);
		CHECK_EQ(zp_keyregion_attach(&q, name, hdir, ID_A, NULL), ZP_EFORMAT);
	}
	CHECK_EQ(zp_keyregion_remove(name, hdir), 0);
	CHECK_EQ(zp_keyregion_attach(&q, name, hdir, ID_A, NULL), -ENOENT);
	CHECK_EQ(zp_keyregion_remove(name, hdir), -ENOENT);
	fprintf(stderr, "%s: ok\n", zp_backing_name(k));
}

/* The supervisor's prune: regions of keys no longer configured go, the others stay. */
static void prune_case(const char *hdir)
{
	char arena[64], na[128], nb[128];
	snprintf(arena, sizeof arena, "t-pr%d", (int)getpid());
	REQUIRE(zp_keyregion_name(na, sizeof na, arena, "keep") == 0);
	REQUIRE(zp_keyregion_name(nb, sizeof nb, arena, "gone") == 0);
	struct zp_keyregion_params p;
	zp_keyregion r;
	params_for(&p, na, hdir, ZP_BACKING_SHM);
	REQUIRE(make(&r, &p, true) == 0);
	zp_keyregion_close(&r);
	p.name = nb;
	REQUIRE(make(&r, &p, true) == 0);
	zp_keyregion_close(&r);
	char sa[128], sb[128]; /* the split bases' regions of both keys: pruned with their keys */
	REQUIRE(zp_keyregion_split_name(sa, sizeof sa, arena, "keep") == 0);
	REQUIRE(zp_keyregion_split_name(sb, sizeof sb, arena, "gone") == 0);
	p.name = sa;
	REQUIRE(make(&r, &p, true) == 0);
	zp_keyregion_close(&r);
	p.name = sb;
	REQUIRE(make(&r, &p, true) == 0);
	zp_keyregion_close(&r);
	char nd[128], ne[128]; /* a setup = device key's region per gpud: kept with its key; a longer name is not */
	REQUIRE(zp_keyregion_name(nd, sizeof nd, arena, "keep.gpud3") == 0);
	REQUIRE(zp_keyregion_name(ne, sizeof ne, arena, "keep.gpudx") == 0);
	p.name = nd;
	REQUIRE(make(&r, &p, true) == 0);
	zp_keyregion_close(&r);
	p.name = ne;
	REQUIRE(make(&r, &p, true) == 0);
	zp_keyregion_close(&r);
	const char *keep[] = { "keep", "other" };
	CHECK_EQ(zp_keyregion_prune(arena, hdir, keep, 2), 3);
	CHECK_EQ(zp_keyregion_attach(&r, nd, hdir, ID_A, NULL), 0);
	zp_keyregion_close(&r);
	CHECK_EQ(zp_keyregion_attach(&r, ne, hdir, ID_A, NULL), -ENOENT);
	CHECK_EQ(zp_keyregion_attach(&r, na, hdir, ID_A, NULL), 0);
	zp_keyregion_close(&r);
	CHECK_EQ(zp_keyregion_attach(&r, sa, hdir, ID_A, NULL), 0);
	zp_keyregion_close(&r);
	CHECK_EQ(zp_keyregion_attach(&r, nb, hdir, ID_A, NULL), -ENOENT);
	CHECK_EQ(zp_keyregion_attach(&r, sb, hdir, ID_A, NULL), -ENOENT);
	CHECK_EQ(zp_keyregion_prune(arena, hdir, NULL, 0), 3);
	CHECK_EQ(zp_keyregion_attach(&r, na, hdir, ID_A, NULL), -ENOENT);
	CHECK_EQ(zp_keyregion_attach(&r, sa, hdir, ID_A, NULL), -ENOENT);
	char bad[16];
	CHECK(zp_keyregion_name(bad, sizeof bad, arena, "a-key-name-far-too-long") < 0);
	CHECK(zp_keyregion_name(na, sizeof na, arena, "../x") < 0);
}

static void ident_case(void)
{
	char path[] = "/tmp/zkpipe-kr-XXXXXX";
	int fd = mkstemp(path);
	REQUIRE(fd >= 0 && write(fd, "abcd", 4) == 4);
	uint8_t i0[16], i1[16], i2[16];
	REQUIRE(zp_keyregion_file_ident(path, "zpk", i0) == 0);
	CHECK_EQ(zp_keyregion_file_ident(path, "zkey", i1), 0);
	CHECK(memcmp(i0, i1, 16) != 0); /* the format is part of the identity */
	struct timespec ts[2] = { { 1000, 0 }, { 1000, 0 } };
	CHECK_EQ(futimens(fd, ts), 0);
	CHECK_EQ(zp_keyregion_file_ident(path, "zpk", i1), 0);
	CHECK(memcmp(i0, i1, 16) != 0); /* new mtime */
	CHECK(pwrite(fd, "x", 1, 4) == 1);
	CHECK_EQ(futimens(fd, ts), 0);
	CHECK_EQ(zp_keyregion_file_ident(path, "zpk", i2), 0);
	CHECK(memcmp(i1, i2, 16) != 0); /* new size, same mtime */
	CHECK(pwrite(fd, "y", 1, 0) == 1);
	CHECK_EQ(futimens(fd, ts), 0);
	CHECK_EQ(zp_keyregion_file_ident(path, "zpk", i1), 0);
	CHECK(memcmp(i1, i2, 16) == 0); /* in place, size and mtime restored: unseen (documented) */
	close(fd);
	unlink(path);
	CHECK(zp_keyregion_file_ident(path, "zpk", i1) == -ENOENT);
}

/* What another party can leave at a region's name (issue 31): a region MACed under another secret (made
 * by the same code from the same key identity, as an attacker with their own setup would), another uid's
 * object, a file of ours with another mode, and a half-written region whose recorded creator pid is alive
 * but who holds no lock (it exec'd: its fd, O_CLOEXEC, went, and the flock with it). */
static void attacker_cases(const char *other_secret_dir)
{
	char name[96];
	snprintf(name, sizeof name, "t-kr-%d.key.att", (int)getpid());
	struct zp_keyregion_params p;
	params_for(&p, name, NULL, ZP_BACKING_SHM);
	zp_keyregion r, q;
	zp_keyregion_remove(name, NULL);

	/* another secret, the same identity: refused (MAC), then removed and made again by us */
	pid_t pid = fork();
	if (pid == 0) {
		zp_keyregion w;
		_exit(zp_keyregion_secret_load(other_secret_dir) || make(&w, &p, true) ? 2 : 0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	REQUIRE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_EQ(zp_keyregion_attach(&q, name, NULL, ID_A, NULL), ZP_EMISMATCH);
	CHECK(strstr(zp_err_msg(), "MAC") != NULL);
	CHECK_EQ(zp_keyregion_remove(name, NULL), 0);
	REQUIRE(make(&r, &p, true) == 0);
	zp_keyregion_close(&r);
	CHECK_EQ(zp_keyregion_attach(&q, name, NULL, ID_A, NULL), 0);
	zp_keyregion_close(&q);

	char path[256];
	snprintf(path, sizeof path, "/dev/shm/zkpipe.%s", name);
	/* ours, but not the mode we make: refused with the reason */
	CHECK_EQ(chmod(path, 0644), 0);
	CHECK_EQ(zp_keyregion_attach(&q, name, NULL, ID_A, NULL), -EPERM);
	CHECK(strstr(zp_err_msg(), "mode 0644") != NULL);
	CHECK_EQ(chmod(path, 0600), 0);
	/* another uid's: refused, never "not found", and never made a second time beside it */
	if (geteuid() == 0) {
		CHECK_EQ(chown(path, 65534, 65534), 0);
		CHECK_EQ(zp_keyregion_attach(&q, name, NULL, ID_A, NULL), -EPERM);
		CHECK(strstr(zp_err_msg(), "owned by uid 65534") != NULL);
		CHECK_EQ(zp_keyregion_create(&q, &p), -EPERM);
	}
	/* a symlink at the name: never followed */
	CHECK_EQ(unlink(path), 0);
	CHECK_EQ(symlink("/etc/passwd", path), 0);
	CHECK_EQ(zp_keyregion_attach(&q, name, NULL, ID_A, NULL), -EPERM);
	CHECK(strstr(zp_err_msg(), "symlink") != NULL);
	CHECK_EQ(unlink(path), 0);

	/* half-written, its creator's pid alive (it exec'd sleep) but no lock held: its writer is dead */
	pid = fork();
	if (pid == 0) {
		zp_keyregion w;
		if (make(&w, &p, false))
			_exit(2);
		execl("/bin/sleep", "sleep", "60", (char *)NULL);
		_exit(3);
	}
	bool alive = true;
	int rc = -1;
	for (int i = 0; i < 1200; i++) { /* until the child has exec'd (its comm is sleep's); 60 s bound */
		char cp[64], comm[32] = "";
		snprintf(cp, sizeof cp, "/proc/%d/comm", (int)pid);
		FILE *f = fopen(cp, "r");
		if (f) {
			if (!fgets(comm, sizeof comm, f))
				comm[0] = 0;
			fclose(f);
		}
		if (!strncmp(comm, "sleep", 5) && (rc = zp_keyregion_attach(&q, name, NULL, ID_A, &alive)) == ZP_ETRUNC)
			break;
		usleep(50000);
	}
	CHECK(kill(pid, 0) == 0); /* the pid it names lives */
	CHECK_EQ(rc, ZP_ETRUNC);
	CHECK(!alive);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	CHECK_EQ(zp_keyregion_remove(name, NULL), 0);
	fprintf(stderr, "attacker cases: ok\n");
}

/* SHA-256 (FIPS 180-4 examples) and HMAC-SHA-256 (RFC 4231 cases 1, 2 and 6: a key longer than a block). */
static bool hex_is(const uint8_t *d, const char *hex)
{
	char b[65];
	for (int i = 0; i < 32; i++)
		snprintf(b + 2 * i, 3, "%02x", d[i]);
	return !strcmp(b, hex);
}

static void mac_case(void)
{
	uint8_t d[32], k[131];
	zp_sha256 s;
	const char *m[] = { "", "abc", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq" };
	const char *h[] = { "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
			    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" };
	for (int i = 0; i < 3; i++) {
		zp_sha256_init(&s);
		zp_sha256_update(&s, m[i], strlen(m[i]));
		zp_sha256_final(&s, d);
		CHECK(hex_is(d, h[i]));
	}
	memset(k, 0x0b, 20);
	zp_hmac_sha256(k, 20, "Hi There", 8, d);
	CHECK(hex_is(d, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"));
	zp_hmac_sha256((const uint8_t *)"Jefe", 4, "what do ya want for nothing?", 28, d);
	CHECK(hex_is(d, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
	memset(k, 0xaa, 131);
	const char *t6 = "Test Using Larger Than Block-Size Key - Hash Key First";
	zp_hmac_sha256(k, 131, t6, strlen(t6), d);
	CHECK(hex_is(d, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"));
}

/* The secret: made once (0600), read by later callers; refused through a symlink or with another mode. */
static void secret_case(const char *dir)
{
	char p[300], q[300];
	struct stat st;
	snprintf(p, sizeof p, "%s/shm.secret", dir);
	CHECK_EQ(zp_keyregion_secret_load(dir), 0);
	CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0600 && st.st_size == 32);
	CHECK_EQ(zp_keyregion_secret_load(dir), 0);
	snprintf(q, sizeof q, "%s/moved", dir);
	CHECK_EQ(rename(p, q), 0);
	CHECK_EQ(symlink(q, p), 0);
	CHECK_EQ(zp_keyregion_secret_load(dir), -EPERM);
	CHECK_EQ(unlink(p), 0);
	CHECK_EQ(rename(q, p), 0);
	CHECK_EQ(chmod(p, 0644), 0);
	CHECK_EQ(zp_keyregion_secret_load(dir), -EPERM);
	CHECK_EQ(chmod(p, 0600), 0);
	CHECK_EQ(zp_keyregion_secret_load(dir), 0);
}

static void hugetlb_cases(void)
{
	char dir[] = "/tmp/zkpipe-krh-XXXXXX";
	long old_nr = -1;
	REQUIRE(mkdtemp(dir));
	/* header 2 MiB + a 2 MiB + b2 4 MiB = 4 pages a region */
	if (zp_hugetlbfs_prepare(dir, 6, &old_nr) < 0)
		fprintf(stderr, "hugetlbfs: cannot prepare (%s); not exercised\n", zp_err_msg());
	else
		run_kind(ZP_BACKING_HUGETLBFS, dir);
	umount(dir);
	rmdir(dir);
	if (old_nr >= 0)
		CHECK_EQ(zp_hugetlbfs_set_nr(old_nr), 0);
}

/* Run in a mount namespace whose /dev/shm is a 4 MiB tmpfs (meson: shm_keyregion_full): an 8 MiB region
 * does not fit, and the refusal speaks of the key region, not of an arena. */
static int shm_full_case(void)
{
	char name[96];
	snprintf(name, sizeof name, "t-kr-%d.key.full", (int)getpid());
	struct zp_keyregion_params p;
	params_for(&p, name, NULL, ZP_BACKING_SHM);
	zp_keyregion r;
	CHECK_EQ(zp_keyregion_create(&r, &p), -ENOSPC);
	const char *m = zp_err_msg();
	fprintf(stderr, "full /dev/shm: %s\n", m);
	CHECK(strstr(m, "key region") != NULL && strstr(m, name) != NULL);
	CHECK(strstr(m, "arena") == NULL);
	return t_fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "shm-full"))
		return shm_full_case();
	/* the secret every process of this test shares (a run directory's, as gpud's), and another one */
	char sd[] = "/tmp/zkpipe-krs-XXXXXX", od[] = "/tmp/zkpipe-kro-XXXXXX";
	REQUIRE(mkdtemp(sd) && mkdtemp(od));
	mac_case();
	secret_case(sd);
	if (geteuid() == 0)
		hugetlb_cases();
	else
		fprintf(stderr, "not root: hugetlbfs not exercised\n");
	if (zp_backing_probe(ZP_BACKING_THP, NULL, 8 << 20) == 0)
		run_kind(ZP_BACKING_THP, NULL);
	run_kind(ZP_BACKING_SHM, NULL);
	prune_case(NULL);
	attacker_cases(od);
	ident_case();
	char rm[128];
	snprintf(rm, sizeof rm, "rm -rf %s %s", sd, od);
	if (system(rm)) {}
	return t_fails ? 1 : 0;
}
