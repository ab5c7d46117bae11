/*
 * test_splitstore.c — the split bases' store (gpud/keystore.h zp_keystore_split_*), on /dev/shm:
 * kept and given back byte for byte; never given for another set, another key region (even of the same
 * key file: a key region made again), a dropped or a half-written one (its writer killed), each of
 * which is removed; the base follows the key region's header and the circuit's fingerprint.
 */
#include "keystore.h"
#include "../shm/tshm.h"

#include <sys/wait.h>

static const zp_g16_split_arr SET[2] = { { "h", 2, 1000, 96 }, { "b2", 4, 300, 192 } };

static void fill(void **host, unsigned n, const zp_g16_split_arr *set, uint8_t seed)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t len = (uint64_t)(set[i].parts - 1) * set[i].points * set[i].pt_bytes;
		for (uint64_t k = 0; k < len; k++)
			((uint8_t *)host[i])[k] = (uint8_t)(k * 31 + i + seed);
	}
}

static int same(const void **host, unsigned n, const zp_g16_split_arr *set, uint8_t seed)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t len = (uint64_t)(set[i].parts - 1) * set[i].points * set[i].pt_bytes;
		for (uint64_t k = 0; k < len; k++)
			if (((const uint8_t *)host[i])[k] != (uint8_t)(k * 31 + i + seed))
				return 0;
	}
	return 1;
}

/* A key region (meta only, enough for the base) standing in for a key's. */
static void key_region(zp_keystore_key *k, const char *name, uint8_t fp)
{
	struct zp_keyregion_params p = { .name = name, .key = "k", .format = "zpk", .curve = "bls12-381",
					  .backing = ZP_BACKING_SHM, .n_sections = 1 };
	p.sect[0].name = "meta";
	p.sect[0].bytes = 4096;
	memset(k, 0, sizeof *k);
	zp_keyregion_remove(name, NULL);
	REQUIRE(zp_keyregion_create(&k->reg, &p) == 0);
	REQUIRE(zp_keyregion_seal(&k->reg) == 0);
	memset(k->zk.circuit.fingerprint, fp, 16);
}

int main(void)
{
	setenv("ZKPIPE_HUGETLBFS", "/nonexistent", 1); /* /dev/shm: no hugepages needed */
	char kn[64], sn[96];
	t_name(kn, sizeof kn, "ss.key.k");
	REQUIRE(zp_keyregion_split_name(sn, sizeof sn, kn, "k") == 0);
	zp_keystore_key k1, k2;
	key_region(&k1, kn, 1);
	uint8_t b1[16], b1f[16], b2[16];
	zp_keystore_split_base(&k1, b1);
	k1.zk.circuit.fingerprint[0] ^= 1;
	zp_keystore_split_base(&k1, b1f);
	k1.zk.circuit.fingerprint[0] ^= 1;
	CHECK(memcmp(b1, b1f, 16) != 0); /* the fingerprint is part of it */

	zp_keystore_split s;
	const void *got[2];
	void *w[2];
	zp_keystore_split_init(&s, sn, NULL, b1);
	CHECK_EQ(zp_keystore_split_get(&s, SET, 2, got), -ENOENT);
	/* kept, then given back */
	REQUIRE(zp_keystore_split_begin(&s, SET, 2, w) == 0);
	fill(w, 2, SET, 7);
	CHECK_EQ(zp_keystore_split_end(&s, 0), 0);
	zp_keystore_split_close(&s);
	zp_keystore_split_init(&s, sn, NULL, b1);
	CHECK_EQ(zp_keystore_split_get(&s, SET, 2, got), 0);
	CHECK(same(got, 2, SET, 7));
	zp_keystore_split_close(&s);
	/* another set (parts): refused and removed */
	zp_g16_split_arr other[2] = { SET[0], SET[1] };
	other[0].parts = 4;
	CHECK_EQ(zp_keystore_split_get(&s, other, 2, got), -ENOENT);
	CHECK_EQ(zp_keystore_split_get(&s, SET, 2, got), -ENOENT);
	/* another key region of the same name (the key made again): another base, refused */
	REQUIRE(zp_keystore_split_begin(&s, SET, 2, w) == 0);
	fill(w, 2, SET, 9);
	CHECK_EQ(zp_keystore_split_end(&s, 0), 0);
	zp_keyregion_close(&k1.reg);
	usleep(2000);
	key_region(&k2, kn, 1);
	zp_keystore_split_base(&k2, b2);
	CHECK(memcmp(b1, b2, 16) != 0);
	zp_keystore_split_init(&s, sn, NULL, b2);
	CHECK_EQ(zp_keystore_split_get(&s, SET, 2, got), -ENOENT);
	zp_keystore_split_init(&s, sn, NULL, b1);
	CHECK_EQ(zp_keystore_split_get(&s, SET, 2, got), -ENOENT); /* removed by the refusal above */
	/* dropped: end with an error */
	zp_keystore_split_init(&s, sn, NULL, b2);
	REQUIRE(zp_keystore_split_begin(&s, SET, 2, w) == 0);
	CHECK(zp_keystore_split_end(&s, -EIO) != 0);
	CHECK_EQ(zp_keystore_split_get(&s, SET, 2, got), -ENOENT);
	/* half-written: its writer dies before the end */
	pid_t pid = fork();
	if (pid == 0) {
		zp_keystore_split c;
		zp_keystore_split_init(&c, sn, NULL, b2);
		_exit(zp_keystore_split_begin(&c, SET, 2, w) == 0 ? 0 : 1);
	}
	int wst;
	REQUIRE(waitpid(pid, &wst, 0) == pid && WIFEXITED(wst) && WEXITSTATUS(wst) == 0);
	char path[160];
	snprintf(path, sizeof path, "/dev/shm/zkpipe.%s", sn);
	CHECK(access(path, F_OK) == 0);                            /* left behind, incomplete */
	CHECK_EQ(zp_keystore_split_get(&s, SET, 2, got), -ENOENT); /* never used, and removed */
	CHECK(access(path, F_OK) != 0);
	/* and made again from scratch */
	REQUIRE(zp_keystore_split_begin(&s, SET, 2, w) == 0);
	fill(w, 2, SET, 3);
	CHECK_EQ(zp_keystore_split_end(&s, 0), 0);
	CHECK_EQ(zp_keystore_split_get(&s, SET, 2, got), 0);
	CHECK(same(got, 2, SET, 3));
	zp_keystore_split_close(&s);
	zp_keyregion_close(&k2.reg);
	zp_keyregion_remove(kn, NULL);
	zp_keyregion_remove(sn, NULL);
	if (t_fails)
		fprintf(stderr, "%d check(s) failed\n", t_fails);
	else
		fprintf(stderr, "split store: ok\n");
	return t_fails ? 1 : 0;
}
