/*
 * zp_test.h — helpers shared by the C tests under tests/<area>/ (include it as
 * "../common/zp_test.h"). Header-only; everything is static, a test uses any subset.
 *
 *   failures, CHECK(cond, fmt, ...)   count a failed check and print "FAIL file:line: msg";
 *                                     define ZP_TEST_OWN_CHECK before including to keep an
 *                                     area's own CHECK (tests/ec has a one-argument one).
 *   zp_test_seed()                    seed for fresh random inputs: ZP_TEST_SEED if set (to
 *                                     repeat a failure), else time and pid; printed.
 *   zp_test_open_vectors(argc, argv)  fopen(argv[1]); usage or errno message and exit(1).
 *   zp_test_read_line(f, buf, n, &ln) next line of a vectors file into buf: 1, or 0 at end;
 *                                     ++*ln when ln is not NULL; a line longer than buf is
 *                                     an error (message, exit(1)), never split silently.
 *   zp_test_hex_be(out, n, s, len)    len hex digits (1..2n, either case) into n big-endian
 *                                     bytes, right-aligned: 0, or -1 on a bad digit or length.
 *   zp_test_tmpdir(name, dir)         a fresh /tmp/<name>.XXXXXX, resolved into dir[PATH_MAX];
 *                                     message and exit(1) when it cannot be made.
 *   zp_test_done(name, dir)           remove dir (when not NULL), print the verdict, return the
 *                                     exit status (0 when no CHECK failed).
 *   zp_test_at(dir, leaf)             "dir/leaf" in one of four static buffers, used in turn (up to
 *                                     four at once, e.g. in one call's arguments).
 *   zp_test_put(path, text)           path's content becomes text (fopen "w", not the code under
 *                                     test); message and exit(1) when it cannot be written.
 */
#ifndef ZP_TEST_H
#define ZP_TEST_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef ZP_TEST_OWN_CHECK
static int failures __attribute__((unused));
#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)
#endif

static inline uint64_t zp_test_seed(void)
{
	const char *e = getenv("ZP_TEST_SEED");
	uint64_t s = e ? strtoull(e, NULL, 0) : ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid();
	printf("seed %llu (set ZP_TEST_SEED to repeat)\n", (unsigned long long)s);
	return s;
}

static inline FILE *zp_test_open_vectors(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s vectors.txt\n", argv[0]);
		exit(1);
	}
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		exit(1);
	}
	return f;
}

static inline int zp_test_read_line(FILE *f, char *buf, size_t n, int *line_no)
{
	if (!fgets(buf, (int)n, f))
		return 0;
	if (line_no)
		++*line_no;
	size_t len = strlen(buf);
	if (len + 1 == n && buf[len - 1] != '\n' && !feof(f)) {
		fprintf(stderr, "vectors: line %d is longer than %zu bytes\n", line_no ? *line_no : 0, n - 1);
		exit(1);
	}
	return 1;
}

static inline int zp_test_hex_be(uint8_t *out, size_t n, const char *s, size_t len)
{
	if (len == 0 || len > 2 * n)
		return -1;
	memset(out, 0, n);
	for (size_t i = 0; i < len; i++) {
		char ch = s[len - 1 - i];
		int v = ch >= '0' && ch <= '9' ? ch - '0'
		      : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
		      : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
		if (v < 0)
			return -1;
		out[n - 1 - i / 2] |= (uint8_t)(v << (4 * (i % 2)));
	}
	return 0;
}

static inline void zp_test_tmpdir(const char *name, char dir[PATH_MAX])
{
	char tmpl[PATH_MAX];
	snprintf(tmpl, sizeof tmpl, "/tmp/%s.XXXXXX", name);
	if (!mkdtemp(tmpl) || !realpath(tmpl, dir)) {
		perror("mkdtemp");
		exit(1);
	}
}

static inline const char *zp_test_at(const char *dir, const char *leaf)
{
	static char b[4][PATH_MAX + 64];
	static unsigned k;
	char *o = b[k++ & 3];
	if ((size_t)snprintf(o, sizeof b[0], "%s/%s", dir, leaf) >= sizeof b[0]) {
		fprintf(stderr, "%s/%s: path too long\n", dir, leaf);
		exit(1);
	}
	return o;
}

static inline void zp_test_put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

#ifndef ZP_TEST_OWN_CHECK
static inline int zp_test_done(const char *name, const char *dir)
{
	if (dir) {
		char cmd[PATH_MAX + 16];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd)) {}
	}
	if (failures)
		fprintf(stderr, "%s: %d check(s) failed\n", name, failures);
	else
		printf("%s: all checks passed\n", name);
	return failures != 0;
}
#endif

#endif
