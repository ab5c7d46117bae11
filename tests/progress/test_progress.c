/*
 * test_progress.c — common/progress.h: on a log (a pipe) a line every $ZKPIPE_PROGRESS_S with
 * done, total, percentage and an ETA that counts down, and the final line; on a terminal (a
 * pty) one line redrawn with \r, ended by a newline; the JSON snapshot file is replaced whole
 * (valid, done moving, finished at the end); libraries' calls without a sink do nothing; many
 * threads adding at once lose no count.
 * No check depends on the machine's speed: the tests wait (bounded) for the lines they count to
 * appear instead of sleeping a while and counting what came (a loaded machine prints fewer lines
 * in 0.4 s: "log: 3 lines in ~0.4 s" was a race); sleeps left are lower bounds only.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/zp_test.h"
#include "knobs.h"
#include "progress.h"

static void sleep_ms(int ms) { usleep((useconds_t)ms * 1000); }

/* Read everything currently in fd (non-blocking). */
static size_t slurp(int fd, char *buf, size_t n)
{
	size_t k = 0;
	fcntl(fd, F_SETFL, O_NONBLOCK);
	for (;;) {
		ssize_t r = read(fd, buf + k, n - 1 - k);
		if (r <= 0)
			break;
		k += (size_t)r;
	}
	buf[k] = 0;
	return k;
}

static double unit_of(const char *u)
{
	return !strcmp(u, "KiB") ? 1024.0 : !strcmp(u, "MiB") ? 1048576.0 : !strcmp(u, "GiB") ? 1073741824.0 : 1;
}

static int count_of(const char *buf, const char *needle)
{
	int n = 0;
	for (const char *c = strstr(buf, needle); c; c = strstr(c + 1, needle))
		n++;
	return n;
}

/* Redraws of a terminal's one line: the \r not followed by \n (a pty turns \n into \r\n). */
static int redraws_of(const char *buf, const char *unused)
{
	(void)unused;
	int n = 0;
	for (const char *c = buf; *c; c++)
		n += c[0] == '\r' && c[1] != '\n';
	return n;
}

/* Read fd onto buf[*k..] until count(buf, needle) >= want. The bound (60 s) is for a printer
 * that never prints, not a speed: a slow machine only makes the lines come later. */
static bool read_until(int fd, char *buf, size_t n, size_t *k, int (*count)(const char *, const char *),
		       const char *needle, int want)
{
	fcntl(fd, F_SETFL, O_NONBLOCK);
	for (int waited = 0; waited < 60000;) {
		for (;;) {
			ssize_t r = read(fd, buf + *k, n - 1 - *k);
			if (r <= 0)
				break;
			*k += (size_t)r;
		}
		buf[*k] = 0;
		if (count(buf, needle) >= want)
			return true;
		if (*k + 1 >= n)
			return false;
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		if (poll(&pf, 1, 100) == 0)
			waited += 100;
	}
	return false;
}

static void test_no_sink(void)
{
	zp_progress_stage("nothing", 10, "items"); /* no sink installed: no effect, no crash */
	zp_progress_add(5);
	struct zp_progress_view v;
	CHECK(zp_progress_get(&v) == -ENOENT, "a view without a sink");
	CHECK(!zp_progress_active(), "active without a sink");
}

static void test_log(const char *json)
{
	int p[2];
	CHECK(pipe(p) == 0, "pipe");
	setenv("ZKPIPE_PROGRESS_S", "0.05", 1);
	zp_knobs_reload();   /* knobs are read once */
	zp_progress_begin("test", p[1], json);
	zp_progress_stage("loading x", 100u << 20, "bytes");
	/* after each step, the next line the ticker prints (it prints by itself: no add after it) */
	char buf[65536];
	size_t k = 0;
	for (int i = 0; i < 20; i++) {
		zp_progress_add(5u << 20);
		CHECK(read_until(p[0], buf, sizeof buf, &k, count_of, "test[", i + 1), "log: no line %d", i + 1);
	}
	sleep_ms(60); /* a rate needs 50 ms of stage: a lower bound */
	struct zp_progress_view v;
	CHECK(zp_progress_get(&v) == 0 && v.done == 100u << 20 && v.total == 100u << 20, "view: done %llu",
	      (unsigned long long)v.done);
	CHECK(v.rate > 0, "a rate");
	zp_progress_end("loaded");
	slurp(p[0], buf + k, sizeof buf - k);
	close(p[0]);
	close(p[1]);
	CHECK(strstr(buf, "test[") && strstr(buf, "]: loaded, done in "), "log: the final line: %s", buf);
	/* lines: "HH:MM:SS.mmm test[pid]: loading x: A of 100.0 MiB (P %), R MiB/s, ETA E s" */
	int lines = 0, last_pct = -1, etas = 0, mono = 1, cr = 0;
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n")) {
		lines++;
		cr |= strchr(l, '\r') != NULL;
		char *pc = strstr(l, " %)");
		if (pc) {
			char *o = pc;
			while (o > l && o[-1] != '(')
				o--;
			int pct = atoi(o);
			mono &= pct >= last_pct;
			last_pct = pct;
		}
		char *e = strstr(l, "ETA ");
		if (e) {
			/* the ETA is what is left at the line's own rate (not "falls from line to line":
			 * a machine that stalls a moment lowers the rate, and the ETA rightly grows) */
			double eta = atof(e + 4), d = 0, t = 0, r = 0;
			char ud[16] = "", ut[16] = "", ur[16] = "";
			char *a = strstr(l, "loading x: "), *rr = strstr(l, "%), ");
			int ok = a && rr && sscanf(a + 11, "%lf %15s of %lf %15s", &d, ud, &t, ut) == 4 &&
				 sscanf(rr + 4, "%lf %15[^/]/s", &r, ur) == 2 && r > 0;
			double want = ok ? (t * unit_of(ut) - d * unit_of(ud)) / (r * unit_of(ur)) : -1;
			double off = eta - want < 0 ? want - eta : eta - want;
			CHECK(ok && off <= 1 + want / 10, "log: ETA %.0f s, %.2f s left at the line's rate: %s", eta,
			      want, l);
			etas++;
		}
	}
	CHECK(lines >= 21, "log: %d lines (20 steps, each followed by a line, and the final one)", lines);
	CHECK(etas >= 2, "log: %d lines with an ETA", etas);
	CHECK(mono, "log: percentages rise");
	CHECK(!cr, "log: no carriage returns in a log");
	/* the snapshot: one JSON object, finished, the last stage's name */
	FILE *f = fopen(json, "r");
	char js[4096] = "";
	CHECK(f && fgets(js, sizeof js, f), "snapshot %s readable", json);
	if (f)
		fclose(f);
	CHECK(js[0] == '{' && strstr(js, "\"finished\":true") && strstr(js, "\"stage\":\"loaded\"") &&
	      strstr(js, "\"who\":\"test\""), "snapshot: %s", js);
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", json);
	CHECK(access(tmp, F_OK) != 0, "no temporary left beside the snapshot");
}

static void test_tty(void)
{
	int m, s;
	if (openpty(&m, &s, NULL, NULL, NULL)) {
		printf("no pty (%s): terminal case skipped\n", strerror(errno));
		return;
	}
	zp_progress_begin("tty", s, NULL);
	zp_progress_stage("working", 50, "items");
	/* two redraws while the count moves (waited for, not slept for), then the end's newline */
	char buf[65536];
	size_t k = 0;
	for (int i = 0; i < 50; i++) {
		zp_progress_add(1);
		if (i == 10 || i == 30)
			CHECK(read_until(m, buf, sizeof buf, &k, redraws_of, NULL, i == 10 ? 1 : 2), "tty: no redraw");
	}
	zp_progress_end(NULL);
	CHECK(read_until(m, buf, sizeof buf, &k, count_of, "\n", 1), "tty: no final newline");
	slurp(m, buf + k, sizeof buf - k);
	int nls = count_of(buf, "\n");
	int redraws = redraws_of(buf, NULL);
	CHECK(redraws >= 2, "tty: %d redraws of one line", redraws);
	CHECK(nls == 1, "tty: %d newlines (one, at the end)", nls);
	CHECK(strstr(buf, "50 of 50 (100 %)") != NULL, "tty: the final line has the total: %s", buf);
	close(m);
	close(s);
}

/* A stage that counts nothing (a conversion) still prints its elapsed time every interval. */
static void test_silent_stage(void)
{
	int p[2];
	CHECK(pipe(p) == 0, "pipe");
	setenv("ZKPIPE_PROGRESS_S", "0.1", 1);
	zp_knobs_reload();
	zp_progress_begin("quiet", p[1], NULL);
	zp_progress_stage("converting", 0, "items");
	char buf[16384];
	size_t k = 0;
	CHECK(read_until(p[0], buf, sizeof buf, &k, count_of, "converting, ", 3), "a stage without counts: no lines");
	zp_progress_end("converted");
	slurp(p[0], buf + k, sizeof buf - k);
	close(p[0]);
	close(p[1]);
	int lines = 0;
	for (char *c = strstr(buf, "quiet["); c; c = strstr(c + 1, "quiet["))
		lines += strncmp(strchr(c, ' ') + 1, "converting, ", 12) == 0;
	CHECK(lines >= 3, "a stage without counts: %d lines:\n%s", lines, buf);
	CHECK(strstr(buf, "converted, done in ") != NULL, "final line: %s", buf);
}

static void *adder(void *arg)
{
	(void)arg;
	for (int i = 0; i < 100000; i++)
		zp_progress_add(1);
	return NULL;
}

static void test_threads(void)
{
	zp_progress_begin("threads", -1, NULL);
	zp_progress_stage("adding", 800000, "items");
	pthread_t t[8];
	for (int i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, adder, NULL);
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	struct zp_progress_view v;
	zp_progress_get(&v);
	CHECK(v.done == 800000, "threads: %llu of 800000 counted", (unsigned long long)v.done);
}

/* No ETA from the first few percent (issue 37: a small first chunk gave "ETA 3,691 s" for an 8 s run):
 * none at 0.5 %, one from 5 % on. Counts, not time: the same on any machine. */
static void test_early_eta(void)
{
	int p[2];
	CHECK(pipe(p) == 0, "pipe");
	zp_progress_begin("eta", p[1], NULL);
	zp_progress_stage("points", 65865, "items");
	zp_progress_add(329);
	sleep_ms(60); /* a rate > 0: the view needs 50 ms of stage (sleep is a lower bound) */
	struct zp_progress_view v;
	char line[512];
	CHECK(zp_progress_get(&v) == 0 && v.eta_s < 0, "an ETA at %llu of %llu: %.0f s", (unsigned long long)v.done,
	      (unsigned long long)v.total, v.eta_s);
	zp_progress_format(&v, line, sizeof line);
	CHECK(!strstr(line, "ETA"), "line at 0.5 %%: %s", line);
	zp_progress_add(3300);
	sleep_ms(20);
	CHECK(zp_progress_get(&v) == 0 && v.eta_s >= 0, "no ETA at %llu of %llu", (unsigned long long)v.done,
	      (unsigned long long)v.total);
	zp_progress_end(NULL);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	char dir[] = "/tmp/zp_progress.XXXXXX", json[64];
	if (!mkdtemp(dir))
		return 1;
	snprintf(json, sizeof json, "%s/p.json", dir);
	test_no_sink();
	test_log(json);
	test_tty();
	test_silent_stage();
	test_early_eta();
	test_threads();
	unlink(json);
	rmdir(dir);
	if (failures)
		return 1;
	printf("PASS\n");
	return 0;
}
