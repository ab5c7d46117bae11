/*
 * test_paths — pipeline/files.c's confinement, as a unit: zp_path_resolve (symlinks, '.', '..',
 * the last component, a missing tail), zp_path_allowed, the O_NOFOLLOW openat walk
 * (zp_path_open_dir / zp_path_open_input: a swapped component, a FIFO, a directory) and
 * zp_file_write_atomic_at with symlinks planted at the final and the temporary name; with several
 * roots, the one that holds the path; no roots at all; and a directory swapped for a symlink
 * between the check and the open (what a client racing its own submit would do).
 */
#include "files.h"
#include "paths.h"
#include "zp_err.h"
#include "zp_file.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* paths here are a temp dir plus short leaves in PATH_MAX buffers */
#pragma GCC diagnostic ignored "-Wformat-truncation"

static int fails;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK(%s) failed [%s]\n", \
	__FILE__, __LINE__, #c, zp_err_msg()); fails++; } } while (0)

static char T[PATH_MAX], R[PATH_MAX]; /* temp dir as given, and resolved */
static char dirs[2][PATH_MAX];

static const char *at(const char *fmt, const char *leaf)
{
	static char b[4][PATH_MAX];
	static int k;
	char *o = b[k++ & 3];
	snprintf(o, PATH_MAX, fmt, T, leaf);
	return o;
}

static void fifo_hang(int sig)
{
	(void)sig;
	static const char m[] = "test_paths: opening a FIFO as an input waited (60 s)\n";
	if (write(2, m, sizeof m - 1) < 0) {}
	_exit(1);
}

static void sh(const char *cmd)
{
	char c[4 * PATH_MAX];
	snprintf(c, sizeof c, "cd '%s' && %s", T, cmd);
	if (system(c) != 0) {
		fprintf(stderr, "setup failed: %s\n", cmd);
		exit(1);
	}
}

static int resolves_to(const char *path, bool missing, const char *want_leaf)
{
	char out[PATH_MAX], want[PATH_MAX];
	zp_err_clear();
	if (zp_path_resolve(path, out, missing))
		return 0;
	snprintf(want, sizeof want, "%s%s", R, want_leaf);
	if (strcmp(out, want))
		fprintf(stderr, "  %s -> %s (wanted %s)\n", path, out, want);
	return !strcmp(out, want);
}

static int slurp_is(const char *path, const char *want)
{
	char b[64] = "";
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(b, 1, sizeof b - 1, f);
	fclose(f);
	b[n] = 0;
	return !strcmp(b, want);
}

int main(void)
{
	umask(022);
	snprintf(T, sizeof T, "/tmp/zp_paths.XXXXXX");
	if (!mkdtemp(T) || !realpath(T, R))
		return perror("mkdtemp"), 1;
	sh("mkdir -p in/sub out/a outside && echo V > victim && echo W > in/w.wtns && mkfifo in/fifo "
	   "&& ln -s ../outside out/esc && ln -s a out/alias && ln -s ../victim in/link.wtns");
	snprintf(dirs[0], PATH_MAX, "%s/in", R);
	snprintf(dirs[1], PATH_MAX, "%s/out", R);

	/* resolution: the kernel resolves what exists, the missing tail is appended */
	CHECK(resolves_to(at("%s/out/./a/", ""), false, "/out/a"));
	CHECK(resolves_to(at("%s/out/a/../a//%s", "j1"), true, "/out/a/j1"));
	CHECK(resolves_to(at("%s/out/alias%s", ""), false, "/out/a"));          /* last component a symlink */
	CHECK(resolves_to(at("%s/out/esc/%s", "x/y"), true, "/outside/x/y"));   /* through a symlink */
	CHECK(!resolves_to(at("%s/out/new/../%s", "x"), true, "/out/x"));       /* '..' after a missing dir */
	CHECK(!resolves_to(at("%s/out/%s", "missing"), false, "/out/missing")); /* must exist */
	CHECK(!resolves_to("relative/path", true, ""));
	CHECK(!resolves_to(at("%s/out/a\x01%s", "b"), true, "/out/a\x01b"));    /* control character */

	/* containment after resolution */
	char canon[PATH_MAX];
	CHECK(zp_path_allowed(&dirs[1], 1, at("%s/out/alias/%s", "j"), canon, true) == 0);
	CHECK(zp_path_allowed(&dirs[1], 1, at("%s/out/esc%s", ""), canon, true) == -EACCES);
	CHECK(zp_path_allowed(&dirs[1], 1, at("%s/out/../%s", "victim"), canon, true) == -EACCES);
	CHECK(zp_path_allowed(&dirs[0], 1, at("%s/in/%s", "link.wtns"), canon, false) == -EACCES);
	snprintf(canon, sizeof canon, "%s/outx", R);                      /* a prefix is not a parent */
	CHECK(zp_path_allowed(&dirs[1], 1, canon, canon, true) == -EACCES);

	/* no existence oracle: a missing path inside and an existing one outside get one sentence, one code */
	char m1[600], m2[600], m3[600];
	CHECK(zp_path_allowed(&dirs[0], 1, at("%s/in/%s", "missing.wtns"), canon, false) == -EACCES);
	snprintf(m1, sizeof m1, "%s", zp_err_msg());
	CHECK(zp_path_allowed(&dirs[0], 1, at("%s/%s", "victim"), canon, false) == -EACCES);
	snprintf(m2, sizeof m2, "%s", zp_err_msg());
	CHECK(zp_path_allowed(&dirs[0], 1, at("%s/%s", "no-such-file"), canon, false) == -EACCES);
	snprintf(m3, sizeof m3, "%s", zp_err_msg());
	CHECK(strstr(m1, "does not exist or is outside the directories the config allows") != NULL);
	CHECK(!strcmp(strstr(m1, "' "), strstr(m2, "' ")) && !strcmp(strstr(m2, "' "), strstr(m3, "' ")));
	CHECK(zp_path_allowed(&dirs[0], 1, at("%s/in/sub/%s", "nope/x.wtns"), canon, false) == -EACCES); /* missing dir */
	/* the text first: a path outside the allowed directories as written is refused even where a symlink
	 * outside them would lead back in (outside/back -> ../in) */
	sh("ln -s ../in outside/back");
	CHECK(zp_path_allowed(&dirs[0], 1, at("%s/outside/back/%s", "w.wtns"), canon, false) == -EACCES);
	CHECK(zp_path_allowed(&dirs[0], 1, at("%s/in/../in/./%s", "w.wtns"), canon, false) == 0); /* '..' by text */
	CHECK(zp_path_allowed(&dirs[0], 1, at("%s/in/../../../../..%s", "/etc/hostname"), canon, false) == -EACCES);

	/* the walk: creates, and never follows a symlink below the root */
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/out/a/new/deeper", R);
	int fd = zp_path_open_dir(&dirs[1], 1, p, true, 0700);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	snprintf(p, sizeof p, "%s/out/alias/new", R);
	int r = zp_path_open_dir(&dirs[1], 1, p, false, 0); /* O_DIRECTORY | O_NOFOLLOW on a link: ENOTDIR */
	CHECK(r == -ENOTDIR || r == -ELOOP);
	snprintf(p, sizeof p, "%s/outside", R);
	CHECK(zp_path_open_dir(&dirs[1], 1, p, true, 0700) == -EACCES);

	/* inputs: a regular file opens; a FIFO, a directory, a symlink are refused without waiting */
	snprintf(p, sizeof p, "%s/in/w.wtns", R);
	fd = zp_path_open_input(&dirs[0], 1, p);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	/* a FIFO without a writer: an open that waited would wait forever (no "< 2 s" wall-clock
	 * check, which a stalled machine can fail): the alarm turns that hang into a failure */
	signal(SIGALRM, fifo_hang);
	alarm(60);
	snprintf(p, sizeof p, "%s/in/fifo", R);
	CHECK(zp_path_open_input(&dirs[0], 1, p) == -EINVAL);
	alarm(0);
	snprintf(p, sizeof p, "%s/in/sub", R);
	CHECK(zp_path_open_input(&dirs[0], 1, p) == -EINVAL);
	snprintf(p, sizeof p, "%s/in/link.wtns", R);
	CHECK(zp_path_open_input(&dirs[0], 1, p) == -ELOOP);

	/* writes: symlinks to the victim at the final and the temporary name are replaced */
	char tmpname[64];
	snprintf(tmpname, sizeof tmpname, "proof.json.tmp.%d", (int)getpid());
	sh("ln -s ../../victim out/a/proof.json");
	char cmd[128];
	snprintf(cmd, sizeof cmd, "ln -s ../../victim out/a/%s", tmpname);
	sh(cmd);
	snprintf(p, sizeof p, "%s/out/a", R);
	int dfd = zp_path_open_dir(&dirs[1], 1, p, false, 0);
	CHECK(dfd >= 0);
	zp_file_write_opts wo = { .mode = 0640 };
	CHECK(zp_file_write_atomic_at(dfd, "proof.json", "NEW", 3, &wo) == 0);
	struct stat st;
	CHECK(fstatat(dfd, "proof.json", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	      (st.st_mode & 0777) == 0640);
	CHECK(fstatat(dfd, tmpname, &st, AT_SYMLINK_NOFOLLOW) != 0); /* nothing left behind */
	close(dfd);
	CHECK(slurp_is(at("%s/%s", "victim"), "V\n"));
	CHECK(slurp_is(at("%s/out/a/%s", "proof.json"), "NEW"));

	/* several roots: the path's own root is used (canon is the resolved path), none = nothing */
	snprintf(p, sizeof p, "%s/out/a/j2", R);
	CHECK(zp_path_allowed(dirs, 2, at("%s/in/../out/a/%s", "j2"), canon, true) == 0 && !strcmp(canon, p));
	snprintf(p, sizeof p, "%s/in/w.wtns", R);
	CHECK(zp_path_allowed(dirs, 2, at("%s/in/%s", "w.wtns"), canon, false) == 0 && !strcmp(canon, p));
	CHECK(zp_path_allowed(dirs, 0, at("%s/in/%s", "w.wtns"), canon, false) == -EACCES);
	CHECK(zp_path_allowed(dirs, 2, "in/w.wtns", canon, false) == -EINVAL);      /* relative */
	snprintf(p, sizeof p, "%s/in/w.wtns", R);
	CHECK(zp_path_open_input(&dirs[1], 1, p) == -EACCES);                       /* an input under the output root */
	CHECK(zp_path_open_input(dirs, 0, p) == -EACCES);
	/* created directories get the mode asked for */
	snprintf(p, sizeof p, "%s/out/m1/m2", R);
	fd = zp_path_open_dir(&dirs[1], 1, p, true, 0750);
	CHECK(fd >= 0 && stat(p, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == (0750 & ~022u));
	if (fd >= 0)
		close(fd);
	/* checked, then swapped: out/b resolved and allowed, then replaced by a symlink to outside;
	 * the walk refuses it and nothing is created or written outside */
	sh("mkdir -p out/b");
	CHECK(zp_path_allowed(&dirs[1], 1, at("%s/out/b/%s", "job"), canon, true) == 0);
	sh("mv out/b out/b.old && ln -s ../outside out/b");
	r = zp_path_open_dir(&dirs[1], 1, canon, true, 0700);
	CHECK(r == -ELOOP || r == -ENOTDIR);
	CHECK(stat(at("%s/outside/%s", "job"), &st) != 0);
	snprintf(p, sizeof p, "%s/in/sub/x.wtns", R);
	sh("echo X > in/sub/x.wtns && mv in/sub in/sub.old && ln -s ../outside in/sub && cp in/sub.old/x.wtns outside/");
	CHECK(zp_path_open_input(&dirs[0], 1, p) == -ELOOP || zp_path_open_input(&dirs[0], 1, p) == -ENOTDIR);

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", T);
	if (system(cmd)) {}
	if (fails)
		fprintf(stderr, "%d check(s) failed\n", fails);
	return fails != 0;
}
