/*
 * dkeep_test — kept device memory (cuda/keep.cu) across processes, as gpud and the supervisor use it:
 * a process makes an allocation, fills it and exports its fd; a holder that never touches CUDA (this
 * program's main process) takes the fd with pidfd_getfd and SIGKILLs the maker; a new process imports
 * the fd and finds the same bytes (checksum and a full copy back), changes some, exits; the next one
 * sees the change; once the holder closes its fd the memory is the device's again. And the refusals: a
 * wrong size, an fd that is not an allocation.
 *
 *   dkeep_test [MiB]        (default 1024; exits 77 without a GPU)
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "zp_cuda.h"
#include "zp_err.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void fill(uint64_t *h, size_t words, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
	for (size_t i = 0; i < words; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		h[i] = x;
	}
}

static int init(void)
{
	char desc[200];
	if (zp_cuda_init(0, desc, sizeof desc)) {
		fprintf(stderr, "init: %s\n", zp_err_msg());
		return 1;
	}
	return 0;
}

/* make BYTES SEED: allocate, fill, print "fd size sum free_before", wait to be killed. */
static int do_make(size_t bytes, uint64_t seed)
{
	void *d;
	int fd;
	size_t fr = 0, tot = 0;
	uint64_t sum;
	if (init() || zp_cuda_mem_info(&fr, &tot))
		return 1;
	size_t size = zp_cuda_dkeep_size(bytes);
	uint64_t *h = malloc(size);
	if (!h)
		return 1;
	fill(h, size / 8, seed);
	double t0 = now();
	if (zp_cuda_dkeep_alloc(&d, bytes, &fd)) {
		fprintf(stderr, "make: %s\n", zp_err_msg());
		return 1;
	}
	double t1 = now();
	if (zp_cuda_copy_to_dev(d, h, size, NULL) || zp_cuda_stream_sync(NULL) || zp_cuda_checksum(d, size, &sum, NULL)) {
		fprintf(stderr, "make: %s\n", zp_err_msg());
		return 1;
	}
	printf("%d %zu %" PRIx64 " %zu %.4f\n", fd, size, sum, fr, t1 - t0);
	fflush(stdout);
	for (;;)
		pause();
}

/* take FD SIZE SUM SEED FLIP: import, compare checksum and bytes; FLIP: change word 12345 and print the new sum. */
static int do_take(int fd, size_t size, uint64_t want, uint64_t seed, int flip)
{
	void *d;
	uint64_t sum;
	if (init())
		return 1;
	double t0 = now();
	if (zp_cuda_dkeep_import(&d, size, fd)) {
		fprintf(stderr, "take: %s\n", zp_err_msg());
		return 2;
	}
	double t1 = now();
	if (zp_cuda_checksum(d, size, &sum, NULL)) {
		fprintf(stderr, "take: %s\n", zp_err_msg());
		return 1;
	}
	double t2 = now();
	uint64_t *h = malloc(size), *back = malloc(size);
	if (!h || !back)
		return 1;
	fill(h, size / 8, seed);
	if (!flip && (zp_cuda_copy_to_host(back, d, size, NULL) || zp_cuda_stream_sync(NULL))) {
		fprintf(stderr, "take: %s\n", zp_err_msg());
		return 1;
	}
	int same = flip ? 1 : !memcmp(h, back, size);
	if (flip) { /* the device's word 12345, one bit changed */
		uint64_t w = 0;
		if (zp_cuda_copy_to_host(&w, (uint64_t *)d + 12345, 8, NULL) || zp_cuda_stream_sync(NULL))
			return 1;
		w ^= 1;
		if (zp_cuda_copy_to_dev((uint64_t *)d + 12345, &w, 8, NULL) || zp_cuda_stream_sync(NULL) ||
		    zp_cuda_checksum(d, size, &sum, NULL))
			return 1;
	}
	printf("%" PRIx64 " %d %.4f %.4f\n", sum, same && (flip || sum == want), t1 - t0, t2 - t1);
	fflush(stdout);
	zp_cuda_dkeep_free(d, size);
	return 0;
}

/* Run this program with args, fd (if >= 0) inherited; its first stdout line into line. */
static pid_t run(char *self, char **args, int fd, char *line, size_t n, int *status)
{
	int p[2];
	if (pipe(p))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		if (fd >= 0)
			fcntl(fd, F_SETFD, 0);
		char *argv[8] = { self };
		for (int i = 0; args[i] && i < 6; i++)
			argv[i + 1] = args[i];
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(p[1]);
	FILE *f = fdopen(p[0], "r");
	line[0] = 0;
	if (!fgets(line, (int)n, f))
		line[0] = 0;
	fclose(f);
	if (status) {
		waitpid(pid, status, 0);
		return pid;
	}
	return pid;
}

static int failures;
static void row(const char *what, int ok, const char *note)
{
	printf("| %s | %s | %s |\n", what, ok ? "PASS" : "FAIL", note);
	failures += !ok;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "make"))
		return do_make(strtoull(argv[2], 0, 0), strtoull(argv[3], 0, 0));
	if (argc > 1 && !strcmp(argv[1], "take"))
		return do_take(atoi(argv[2]), strtoull(argv[3], 0, 0), strtoull(argv[4], 0, 16), strtoull(argv[5], 0, 0),
			       atoi(argv[6]));
	if (argc > 1 && !strcmp(argv[1], "free")) {
		size_t fr = 0, tot = 0;
		if (init() || zp_cuda_mem_info(&fr, &tot))
			return 1;
		printf("%zu\n", fr);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "bogus")) { /* import /dev/null as an allocation, and a wrong size */
		if (init())
			return 1;
		void *d;
		int fd = open("/dev/null", O_RDONLY);
		int r1 = zp_cuda_dkeep_import(&d, zp_cuda_dkeep_size(1), fd);
		printf("%d %s\n", r1, zp_err_msg());
		return 0;
	}
	size_t mib = argc > 1 ? strtoull(argv[1], 0, 0) : 1024, bytes = mib << 20;
	char line[512], a1[32], a2[32], a3[32], a4[32], a5[32];
	int st;
	printf("| check | result | note |\n|---|---|---|\n");
	snprintf(a1, sizeof a1, "%zu", bytes);
	pid_t maker = run(argv[0], (char *[]){ "make", a1, "7", NULL }, -1, line, sizeof line, NULL);
	int mfd = -1;
	size_t size = 0, free0 = 0;
	uint64_t sum = 0;
	double alloc_s = 0;
	if (sscanf(line, "%d %zu %" SCNx64 " %zu %lf", &mfd, &size, &sum, &free0, &alloc_s) != 5) {
		kill(maker, SIGKILL);
		waitpid(maker, &st, 0);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
			return 77;
		printf("no CUDA device or no fd export (maker said \"%s\"): skip\n", line);
		return 77;
	}
	int pfd = (int)syscall(SYS_pidfd_open, maker, 0);
	int held = pfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pfd, mfd, 0);
	char note[400];
	snprintf(note, sizeof note, "%zu bytes, maker's fd %d, held as %d (allocation %.3f s)", size, mfd, held, alloc_s);
	row("holder takes the maker's fd (pidfd_getfd)", held >= 0, note);
	kill(maker, SIGKILL);
	waitpid(maker, &st, 0);
	row("maker SIGKILLed", WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "");
	if (held < 0)
		goto out;
	snprintf(a1, sizeof a1, "%d", held);
	snprintf(a2, sizeof a2, "%zu", size);
	snprintf(a3, sizeof a3, "%" PRIx64, sum);
	snprintf(a4, sizeof a4, "7");
	snprintf(a5, sizeof a5, "0");
	run(argv[0], (char *[]){ "take", a1, a2, a3, a4, a5, NULL }, held, line, sizeof line, &st);
	uint64_t got = 0;
	int same = 0;
	double imp = 0, cks = 0;
	int n = sscanf(line, "%" SCNx64 " %d %lf %lf", &got, &same, &imp, &cks);
	snprintf(note, sizeof note, "import + map %.4f s, checksum %.4f s (%.1f GB/s); sum %" PRIx64 " vs %" PRIx64, imp, cks,
		 cks > 0 ? size / cks / 1e9 : 0, got, sum);
	row("a new process imports the same bytes after the maker died", n == 4 && same == 1 && WIFEXITED(st) && !WEXITSTATUS(st), note);
	snprintf(a5, sizeof a5, "1");
	run(argv[0], (char *[]){ "take", a1, a2, a3, a4, a5, NULL }, held, line, sizeof line, &st);
	uint64_t flipped = 0;
	n = sscanf(line, "%" SCNx64, &flipped);
	row("a change is seen by the checksum", n == 1 && flipped != sum, "one bit of word 12345");
	run(argv[0], (char *[]){ "take", a1, a2, a3, a4, "1", NULL }, held, line, sizeof line, &st);
	/* the third process flips the bit back: the sum returns to the original */
	n = sscanf(line, "%" SCNx64, &got);
	row("the change persisted into the next process (flipped back)", n == 1 && got == sum, "");
	snprintf(a2, sizeof a2, "%zu", size * 2);
	run(argv[0], (char *[]){ "take", a1, a2, a3, a4, "0", NULL }, held, line, sizeof line, &st);
	row("import with a wrong size is refused", WIFEXITED(st) && WEXITSTATUS(st) == 2, "");
	run(argv[0], (char *[]){ "bogus", NULL }, -1, line, sizeof line, &st);
	line[strcspn(line, "\n")] = 0;
	row("an fd that is not an allocation is refused", atoi(line) < 0 && strstr(line, "kept device memory"), line);
	close(held);
	run(argv[0], (char *[]){ "free", NULL }, -1, line, sizeof line, &st);
	size_t free1 = strtoull(line, 0, 0);
	snprintf(note, sizeof note, "free %zu MiB before the allocation, %zu MiB after the last fd closed", free0 >> 20, free1 >> 20);
	row("the memory goes back once no fd or mapping is left", free1 + size / 2 >= free0, note);
out:
	printf("\n%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
