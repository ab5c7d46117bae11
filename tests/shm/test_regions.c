/*
 * test_regions — zkpipe-shm and key regions (issue 37): `zkpipe-shm ARENA` (text and --json) lists
 * the arena's key regions with key, curve, size and state; `zkpipe-shm REGION` shows one region (not
 * "bad magic"); `--remove REGION` removes it, refused (exit 15) while a process of its arena is alive;
 * `--remove ARENA` removes the arena and its key regions and leaves another arena's; `--remove` of an
 * arena already gone still clears its leftover regions; `--list` shows every arena's regions.
 */
#include "tshm.h"
#include "keyregion.h"
#include "zp_exit.h"

#include <jansson.h>

static void region(const char *name, const char *key, const char *curve)
{
	struct zp_keyregion_params p = { .name = name, .backing = ZP_BACKING_SHM, .key = key, .format = "zkey",
					 .curve = curve, .n_sections = 1 };
	p.sect[0].name = "pts", p.sect[0].bytes = 4096;
	zp_keyregion r;
	REQUIRE(zp_keyregion_create(&r, &p) == 0);
	memset(zp_keyregion_wsect(&r, 0), 0x5a, 4096);
	REQUIRE(zp_keyregion_seal(&r) == 0);
	zp_keyregion_close(&r);
}

static bool exists(const char *name)
{
	char p[256];
	snprintf(p, sizeof p, "/dev/shm/zkpipe.%s", name);
	return access(p, F_OK) == 0;
}

/* Run zkpipe-shm with args; its stdout in out (n bytes); the exit status. */
static int run(char *const args[], char *out, size_t n)
{
	int fd = -1;
	pid_t pid = t_spawn(args, &fd);
	size_t k = 0;
	for (ssize_t r; k + 1 < n && (r = read(fd, out + k, n - 1 - k)) > 0;)
		k += (size_t)r;
	out[k] = 0;
	close(fd);
	return t_wait(pid);
}

int main(int argc, char **argv)
{
	REQUIRE(argc == 2);
	char *tool = argv[1];
	char a[64], b[64], ka[128], sa[128], kb[128], out[16384];
	t_name(a, sizeof a, "rega");
	t_name(b, sizeof b, "regb");
	snprintf(ka, sizeof ka, "%s.key.chain", a);
	snprintf(sa, sizeof sa, "%s.split.chain", a);
	snprintf(kb, sizeof kb, "%s.key.other", b);
	struct zp_arena_params p = { .name = a, .slot_count = 1, .slot_size = 4096, .job_count = 1, .max_parts = 1,
				     .proc_count = 2, .backing = ZP_BACKING_SHM };
	struct zp_arena *ar;
	REQUIRE(zp_arena_create(&p, &ar) == 0);
	region(ka, "chain", "bn254");
	region(sa, "chain", "bn254");
	region(kb, "other", "bls12-381");

	/* the arena's view lists its two regions, not the other arena's */
	CHECK_EQ(run((char *[]){ tool, a, NULL }, out, sizeof out), 0);
	CHECK(strstr(out, "KEY REGION") && strstr(out, ka) && strstr(out, sa) && !strstr(out, kb));
	CHECK(strstr(out, "bn254") && strstr(out, "complete"));
	CHECK_EQ(run((char *[]){ tool, "--json", a, NULL }, out, sizeof out), 0);
	json_error_t e;
	json_t *o = json_loads(out, 0, &e);
	REQUIRE(o);
	json_t *kr = json_object_get(o, "key_regions");
	CHECK_EQ(json_array_size(kr), 2);
	size_t i;
	json_t *x;
	json_array_foreach(kr, i, x) {
		CHECK(!strcmp(json_string_value(json_object_get(x, "key")), "chain"));
		CHECK(json_is_true(json_object_get(x, "complete")));
		CHECK(json_integer_value(json_object_get(x, "bytes")) >= 4096);
	}
	json_decref(o);
	/* one region by name: its header, not "bad magic" */
	CHECK_EQ(run((char *[]){ tool, ka, NULL }, out, sizeof out), 0);
	CHECK(strstr(out, ka) && strstr(out, "section pts"));
	/* --remove of a region while a process of its arena is alive: refused; then removed */
	zp_proc_h me;
	REQUIRE(zp_arena_proc_register(ar, 0, ZP_ROLE_GPUD, "regions", &me) == 0);
	CHECK_EQ(run((char *[]){ tool, "--remove", sa, NULL }, out, sizeof out), ZP_EX_BUSY);
	CHECK(exists(sa));
	REQUIRE(zp_arena_proc_unregister(ar, me) == 0);
	CHECK_EQ(run((char *[]){ tool, "--remove", sa, NULL }, out, sizeof out), 0);
	CHECK(!exists(sa) && exists(ka) && strstr(out, "removed key region"));
	/* --remove ARENA takes its regions with it, not another arena's */
	zp_arena_close(ar);
	CHECK_EQ(run((char *[]){ tool, "--remove", a, NULL }, out, sizeof out), 0);
	CHECK(strstr(out, "removed arena") && strstr(out, "1 key region(s)"));
	CHECK(!exists(a) && !exists(ka) && exists(kb));
	/* --list: every arena's regions */
	CHECK_EQ(run((char *[]){ tool, "--list", NULL }, out, sizeof out), 0);
	CHECK(strstr(out, kb) != NULL);
	/* an arena already gone: --remove still clears its leftover regions; then there is nothing left */
	CHECK(!exists(b));
	CHECK_EQ(run((char *[]){ tool, "--remove", b, NULL }, out, sizeof out), 0);
	CHECK(!exists(kb) && strstr(out, "1 key region(s)"));
	CHECK_EQ(run((char *[]){ tool, "--remove", b, NULL }, out, sizeof out), ZP_EX_INPUT);
	zp_keyregion_remove(ka, NULL);
	zp_keyregion_remove(sa, NULL);
	zp_keyregion_remove(kb, NULL);
	zp_arena_destroy(a, NULL);
	return t_fails ? 1 : 0;
}
