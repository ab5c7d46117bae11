/*
 * test_params — bad parameters are rejected before anything is created, and
 * attaching to an arena of another version or shape is a clear error.
 */
#include "tshm.h"

#include <fcntl.h>
#include <sys/stat.h>

static int create_rc(struct zp_arena_params p)
{
	struct zp_arena *a = NULL;
	int r = zp_arena_create(&p, &a);
	if (r == 0) {
		zp_arena_destroy(p.name, NULL);
		zp_arena_close(a);
	}
	return r;
}

int main(void)
{
	char name[64], path[128];
	t_name(name, sizeof name, "params");
	struct zp_arena_params ok = { .name = name, .slot_count = 2, .slot_size = 1, .job_count = 2,
				      .max_parts = 2, .proc_count = 2, .backing = ZP_BACKING_SHM };
	struct zp_arena_params p;

	p = ok, p.slot_size = 0;
	CHECK_EQ(create_rc(p), ZP_ERANGE);
	p = ok, p.slot_count = 0;
	CHECK_EQ(create_rc(p), ZP_ERANGE);
	p = ok, p.slot_size = UINT64_MAX - 5;
	CHECK_EQ(create_rc(p), ZP_ERANGE);
	p = ok, p.slot_size = 1ull << 62, p.slot_count = 8;
	CHECK_EQ(create_rc(p), ZP_ERANGE);
	p = ok, p.proc_count = ZP_ARENA_MAX_PROCS + 1;
	CHECK_EQ(create_rc(p), ZP_ERANGE);
	p = ok, p.max_parts = 0;
	CHECK_EQ(create_rc(p), ZP_ERANGE);
	p = ok, p.name = "a/b";
	CHECK_EQ(create_rc(p), -EINVAL);
	p = ok, p.name = "";
	CHECK_EQ(create_rc(p), -EINVAL);
	p = ok, p.name = "..";
	CHECK_EQ(create_rc(p), -EINVAL);
	p = ok, p.name = "0123456789012345678901234567890123456789012345678";
	CHECK_EQ(create_rc(p), -EINVAL);
	CHECK(zp_err_msg()[0] != 0); /* the message says what was wrong */
	uint64_t total = 0;
	CHECK_EQ(zp_arena_size(&ok, &total), 0);
	CHECK_EQ(total, ZP_ARENA_ALIGN + 2 * ZP_ARENA_ALIGN); /* metadata rounded up + 2 slots of 2 MiB */

	/* Create, and refuse a second create of the same name. */
	struct zp_arena *a, *b;
	REQUIRE(zp_arena_create(&ok, &a) == 0);
	CHECK_EQ(zp_arena_create(&ok, &b), -EEXIST);
	const struct zp_arena_hdr *h = zp_arena_hdr(a);
	CHECK_EQ(h->slot_size, ZP_ARENA_ALIGN);
	CHECK_EQ(h->data_off % ZP_ARENA_ALIGN, 0);
	CHECK_EQ((uintptr_t)zp_arena_slot_data(a, (zp_slot_h){ 1, 0 }) % ZP_ARENA_ALIGN, 0);
	CHECK_EQ(h->backing, ZP_BACKING_SHM);

	/* Shape checks on attach. */
	struct zp_arena_shape good = { .slot_count = 2, .slot_size = 1, .job_count = 2 };
	struct zp_arena_shape bad = { .slot_count = 3 };
	CHECK_EQ(zp_arena_attach(name, 0, &good, NULL, &b), 0);
	zp_arena_close(b);
	CHECK_EQ(zp_arena_attach(name, ZP_ARENA_RDONLY, &bad, NULL, &b), ZP_EMISMATCH);
	bad = (struct zp_arena_shape){ .slot_size = 3 * ZP_ARENA_ALIGN };
	CHECK_EQ(zp_arena_attach(name, ZP_ARENA_RDONLY, &bad, NULL, &b), ZP_EMISMATCH);
	CHECK_EQ(zp_arena_attach("no-such-arena-zz", 0, NULL, NULL, &b), -ENOENT);
	CHECK_EQ(zp_arena_attach("x/y", 0, NULL, NULL, &b), -EINVAL);

	/* Another layout version. */
	struct zp_arena_hdr *wh = (struct zp_arena_hdr *)h;
	CHECK_EQ(wh->version, zp_arena_format());
	CHECK_EQ(wh->version & 0xffu, ZP_ARENA_VERSION);
	wh->version = zp_arena_format() + 1;
	CHECK_EQ(zp_arena_attach(name, ZP_ARENA_RDONLY, NULL, NULL, &b), ZP_EVERSION);
	CHECK(strstr(zp_err_msg(), "version") != NULL);
	/* The same layout version from a build whose shared structs differ (one more counter, a
	 * longer path field): another format word, refused with a message that says so and names
	 * the arena and both words. */
	uint32_t sizes[] = ZP_ARENA_FORMAT_SIZES;
	unsigned nsizes = sizeof sizes / sizeof sizes[0];
	for (unsigned i = 0; i < nsizes; i++) {
		sizes[i] += 8;
		uint32_t other = zp_format_fold(ZP_ARENA_VERSION, sizes, nsizes);
		sizes[i] -= 8;
		CHECK(other != zp_arena_format());
		CHECK_EQ(other & 0xffu, ZP_ARENA_VERSION);
		wh->version = other;
		CHECK_EQ(zp_arena_attach(name, ZP_ARENA_RDONLY, NULL, NULL, &b), ZP_EVERSION);
		char want[64];
		snprintf(want, sizeof want, "format word 0x%08x", other);
		CHECK(strstr(zp_err_msg(), want) != NULL);
		CHECK(strstr(zp_err_msg(), name) != NULL);
		CHECK(strstr(zp_err_msg(), "shared structs differ") != NULL);
	}
	wh->version = zp_arena_format();
	CHECK_EQ(zp_arena_attach(name, ZP_ARENA_RDONLY, NULL, NULL, &b), 0);
	zp_arena_close(b);
	/* Inconsistent sizes in the header. */
	wh->slot_count++;
	CHECK_EQ(zp_arena_attach(name, ZP_ARENA_RDONLY, NULL, NULL, &b), ZP_EFORMAT);
	wh->slot_count--;
	/* A truncated file. */
	snprintf(path, sizeof path, "/dev/shm/zkpipe.%s", name);
	int fd = open(path, O_RDWR);
	REQUIRE(fd >= 0);
	CHECK_EQ(ftruncate(fd, (off_t)(h->total_size - ZP_ARENA_ALIGN)), 0);
	CHECK_EQ(zp_arena_attach(name, ZP_ARENA_RDONLY, NULL, NULL, &b), ZP_ETRUNC);
	CHECK_EQ(ftruncate(fd, 100), 0);
	CHECK_EQ(zp_arena_attach(name, ZP_ARENA_RDONLY, NULL, NULL, &b), ZP_ETRUNC);
	close(fd);
	zp_arena_close(a);
	/* Not an arena at all. */
	fd = open(path, O_RDWR | O_TRUNC);
	CHECK(fd >= 0 && ftruncate(fd, 8192) == 0);
	close(fd);
	CHECK_EQ(zp_arena_attach(name, ZP_ARENA_RDONLY, NULL, NULL, &b), ZP_EFORMAT);
	CHECK_EQ(zp_arena_destroy(name, NULL), 0);
	CHECK_EQ(zp_arena_destroy(name, NULL), -ENOENT);

	/* Jobs: bad specs, full table, find by id, handles go stale. */
	p = ok, p.job_count = 1;
	REQUIRE(zp_arena_create(&p, &a) == 0);
	zp_job_h j, j2;
	uint64_t id;
	struct zp_job_spec js = { .key_id = "k", .nparts = 3 };
	CHECK_EQ(zp_arena_submit_job(a, &js, &j, &id), ZP_ERANGE);
	js.nparts = 2;
	CHECK_EQ(zp_arena_submit_job(a, &js, &j, &id), 0);
	CHECK_EQ(zp_arena_submit_job(a, &js, &j2, NULL), ZP_EFULL);
	CHECK_EQ(zp_arena_find_job(a, id, &j2), 0);
	CHECK(j2.idx == j.idx && j2.gen == j.gen);
	CHECK_EQ(zp_arena_find_job(a, id + 1, &j2), -ENOENT);
	CHECK_EQ(zp_arena_job_free(a, j), -EBUSY);
	zp_arena_destroy(name, NULL);
	zp_arena_close(a);
	return t_fails ? 1 : 0;
}
