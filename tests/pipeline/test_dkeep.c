/*
 * test_dkeep — the text gpud and the supervisor pass device-kept keys in (pipeline/dkeep.c): what format
 * writes, parse reads back field for field; the pid line; every malformed line refused naming its number
 * (bad ident, a field missing or extra, an fd below 3, a zero size, a number past 64 bits, the same key
 * twice, too many keys, a pid line not first); text and lines over their bounds; format's -ENOSPC.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dkeep.h"
#include "zp_err.h"

static int fails;
#define CHECK(c, ...) do { if (!(c)) { fails++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

static zp_dkeep_rec rec(int seed)
{
	zp_dkeep_rec r;
	memset(&r, 0, sizeof r);
	for (int i = 0; i < 16; i++)
		r.ident[i] = (uint8_t)(seed * 37 + i * 11);
	r.curve = 1 + seed % 2, r.hsplit = 2, r.wsplit = seed % 2 ? 4 : 0, r.nv = 130300329ull + seed, r.dom = 1ull << 27;
	for (int j = 0; j < ZP_DKEEP_ARRAYS; j++)
		r.fd[j] = 3 + seed * 5 + j, r.bytes[j] = (12884901888ull + j) << 1, r.sum[j] = 0xfedcba9876543210ull ^ (uint64_t)(seed * 7 + j);
	return r;
}

static void refused(const char *text, const char *want)
{
	zp_dkeep_rec r[ZP_DKEEP_KEYS];
	unsigned n = 99;
	pid_t pid;
	int rc = zp_dkeep_parse(text, r, ZP_DKEEP_KEYS, &n, &pid);
	CHECK(rc == -EINVAL && strstr(zp_err_msg(), want), "refused %.60s...: rc %d, \"%s\" (want \"%s\")", text, rc, zp_err_msg(), want);
}

int main(void)
{
	zp_dkeep_rec in[3] = { rec(0), rec(1), rec(2) }, out[ZP_DKEEP_KEYS];
	char buf[ZP_DKEEP_TEXT + 1];
	unsigned n = 0;
	pid_t pid = 0;
	CHECK(!zp_dkeep_format(buf, sizeof buf, in, 3, 4242), "format: %s", zp_err_msg());
	CHECK(!zp_dkeep_parse(buf, out, ZP_DKEEP_KEYS, &n, &pid), "parse: %s", zp_err_msg());
	CHECK(n == 3 && pid == 4242, "n %u pid %d", n, (int)pid);
	for (unsigned k = 0; k < 3 && k < n; k++)
		CHECK(!memcmp(&in[k], &out[k], sizeof in[k]), "record %u differs after a round trip", k);
	CHECK(zp_dkeep_bytes(in, 3) == 3 * (5 * 25769803776ull + 20), "bytes %llu", (unsigned long long)zp_dkeep_bytes(in, 3));
	CHECK(!zp_dkeep_format(buf, sizeof buf, in, 0, 0) && !buf[0], "empty format");
	CHECK(!zp_dkeep_parse("", out, ZP_DKEEP_KEYS, &n, &pid) && n == 0 && pid == 0, "empty parse");

	/* one good line to break */
	char good[300];
	zp_dkeep_format(good, sizeof good, in, 1, 0);
	good[strcspn(good, "\n")] = 0;
	char t[1024];
	snprintf(t, sizeof t, "%s extra\n", good);
	refused(t, "line 1 is not a kept key");
	snprintf(t, sizeof t, "%.*s\n", (int)strlen(good) - 3, good); /* the last sum cut short is fine; its ':' part cut is not */
	{
		char *c = strrchr(t, ':');
		*c = 0;
		refused(t, "line 1 is not a kept key");
	}
	snprintf(t, sizeof t, "%s", good);
	t[2] = 'g';
	refused(t, "line 1 is not a kept key");                       /* ident not hex */
	snprintf(t, sizeof t, "%s", good);
	memmove(t + 2, t + 3, strlen(t + 3) + 1);
	refused(t, "line 1 is not a kept key");                       /* ident 31 digits */
	snprintf(t, sizeof t, "K %.32s 1 5 8 2 0 0 2:4096:1 3:4096:1 4:4096:1 5:4096:1 6:4096:1", good + 2);
	refused(t, "line 1 is not a kept key");                       /* fd 2 */
	snprintf(t, sizeof t, "K %.32s 1 5 8 2 0 0 3:0:1 4:4096:1 5:4096:1 6:4096:1 7:4096:1", good + 2);
	refused(t, "line 1 is not a kept key");                       /* zero bytes */
	snprintf(t, sizeof t, "K %.32s 1 99999999999999999999999 8 2 0 0 3:1:1 4:4096:1 5:4096:1 6:4096:1 7:4096:1", good + 2);
	refused(t, "line 1 is not a kept key");                       /* past 64 bits */
	snprintf(t, sizeof t, "K %.32s 1 5 8 2 0 0 3:1:1 4:4096:1 5:4096:1 6:4096:1", good + 2);
	refused(t, "line 1 is not a kept key");                       /* four arrays */
	snprintf(t, sizeof t, "%s\n%s\n", good, good);
	refused(t, "line 2: the same key twice");
	snprintf(t, sizeof t, "%s\nP 12\n", good);
	refused(t, "line 2: not \"P <pid>\" first");
	refused("P 0\n", "not \"P <pid>\" first");
	refused("P -3\n", "not \"P <pid>\" first");
	char *big = malloc(ZP_DKEEP_TEXT + 10);
	memset(big, '\n', ZP_DKEEP_TEXT + 9);
	big[ZP_DKEEP_TEXT + 9] = 0;
	refused(big, "bytes of text");
	memset(big, 'K', 400);
	big[400] = 0;
	refused(big, "line 1 is 400 bytes long");
	free(big);
	{
		zp_dkeep_rec many[ZP_DKEEP_KEYS + 1];
		char txt[ZP_DKEEP_TEXT * 2];
		for (int i = 0; i <= ZP_DKEEP_KEYS; i++)
			many[i] = rec(i);
		CHECK(!zp_dkeep_format(txt, sizeof txt, many, ZP_DKEEP_KEYS, 0), "format %d keys: %s", ZP_DKEEP_KEYS, zp_err_msg());
		CHECK(!zp_dkeep_parse(txt, out, ZP_DKEEP_KEYS, &n, &pid) && n == ZP_DKEEP_KEYS, "%d keys: %s", ZP_DKEEP_KEYS, zp_err_msg());
		CHECK(zp_dkeep_parse(txt, out, 2, &n, &pid) == -EINVAL && strstr(zp_err_msg(), "more than 2 keys"), "max: %s", zp_err_msg());
		CHECK(zp_dkeep_format(txt, 200, many, 2, 1) == -ENOSPC, "format into 200 bytes");
	}
	printf("%s: %d failure(s)\n", fails ? "FAIL" : "PASS", fails);
	return fails ? 1 : 0;
}
