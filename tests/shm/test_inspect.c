/*
 * test_inspect — zkpipe-shm --json (fork+exec'd) reports what the arena
 * holds: backing, a READY slot with its job/partition, a FILLING slot whose
 * owner is alive, the job's partition states, the process, the counters; and
 * the arena's metadata is byte-for-byte unchanged after it ran.
 */
#include "tshm.h"

#include <jansson.h>

int main(int argc, char **argv)
{
	REQUIRE(argc == 2);
	char name[64];
	t_name(name, sizeof name, "inspect");
	struct zp_arena_params p = { .name = name, .slot_count = 3, .slot_size = 4096, .job_count = 2,
				     .max_parts = 3, .proc_count = 4, .backing = ZP_BACKING_SHM };
	struct zp_arena *a;
	REQUIRE(zp_arena_create(&p, &a) == 0);
	zp_proc_h me;
	REQUIRE(zp_arena_proc_register(a, 0, ZP_ROLE_SYNTHD, "inspect", &me) == 0);
	zp_job_h jh;
	uint64_t id;
	struct zp_job_spec js = { .key_id = "key-7", .nparts = 3, .priority = 4, .output = "/o" };
	REQUIRE(zp_arena_submit_job(a, &js, &jh, &id) == 0);
	zp_part_h p0, p1;
	zp_slot_h s0, s1;
	REQUIRE(zp_arena_claim_part(a, me, &p0) == 0 && zp_arena_claim_slot(a, me, p0, 0, &s0) == 0);
	REQUIRE(zp_arena_mark_ready(a, me, s0, 1234) == 0);
	REQUIRE(zp_arena_claim_part(a, me, &p1) == 0 && zp_arena_claim_slot(a, me, p1, 0, &s1) == 0);

	const struct zp_arena_hdr *h = zp_arena_hdr(a);
	size_t meta = (size_t)h->data_off;
	void *before = malloc(meta);
	memcpy(before, h, meta);

	int fd;
	char *args[] = { argv[1], "--json", name, NULL };
	pid_t pid = t_spawn(args, &fd);
	FILE *f = fdopen(fd, "r");
	json_error_t err;
	json_t *o = json_loadf(f, 0, &err);
	fclose(f);
	CHECK_EQ(t_wait(pid), 0);
	REQUIRE(o != NULL);
	CHECK(memcmp(before, h, meta) == 0);

	CHECK(!strcmp(json_string_value(json_object_get(o, "backing")), "shm"));
	CHECK_EQ(json_integer_value(json_object_get(o, "slot_count")), 3);
	json_t *sl = json_object_get(o, "slots");
	json_t *r0 = json_array_get(sl, s0.idx), *r1 = json_array_get(sl, s1.idx);
	CHECK(!strcmp(json_string_value(json_object_get(r0, "state")), "READY"));
	CHECK_EQ(json_integer_value(json_object_get(r0, "bytes")), 1234);
	CHECK_EQ(json_integer_value(json_object_get(r0, "job_id")), id);
	CHECK(!strcmp(json_string_value(json_object_get(r1, "state")), "FILLING"));
	CHECK_EQ(json_integer_value(json_object_get(r1, "owner_pid")), getpid());
	CHECK(json_is_true(json_object_get(r1, "owner_alive")));
	CHECK_EQ(json_integer_value(json_object_get(r1, "part")), 1);
	json_t *job = json_array_get(json_object_get(o, "jobs"), 0);
	CHECK(!strcmp(json_string_value(json_object_get(job, "key_id")), "key-7"));
	json_t *parts = json_object_get(job, "partitions");
	CHECK_EQ(json_array_size(parts), 3);
	CHECK(!strcmp(json_string_value(json_object_get(json_array_get(parts, 0), "state")), "READY"));
	CHECK(!strcmp(json_string_value(json_object_get(json_array_get(parts, 1), "state")), "SYNTH"));
	CHECK(!strcmp(json_string_value(json_object_get(json_array_get(parts, 2), "state")), "PENDING"));
	json_t *ts = json_object_get(json_array_get(parts, 0), "ts");
	CHECK(json_integer_value(json_object_get(ts, "ready")) > 0);
	CHECK_EQ(json_integer_value(json_object_get(ts, "done")), 0);
	json_t *pr = json_array_get(json_object_get(o, "processes"), 0);
	CHECK(!strcmp(json_string_value(json_object_get(pr, "role")), "synthd"));
	json_t *c = json_object_get(o, "counters");
	CHECK_EQ(json_integer_value(json_object_get(c, "slots_filled")), 1);
	CHECK_EQ(json_integer_value(json_object_get(c, "bytes_written")), 1234);
	CHECK_EQ(json_integer_value(json_object_get(c, "synth_started")), 2);

	/* The text view runs too, on an arena with a job and dead-or-alive owners. */
	char *targs[] = { argv[1], name, NULL };
	pid = t_spawn(targs, &fd);
	char line[256];
	char mypid[16];
	snprintf(mypid, sizeof mypid, " %d ", (int)getpid());
	int got = 0;
	while (t_readline(fd, line, sizeof line) > 0)
		got += strstr(line, "FILLING") && strstr(line, mypid);
	close(fd);
	CHECK_EQ(t_wait(pid), 0);
	CHECK_EQ(got, 1);
	json_decref(o);
	free(before);
	zp_arena_destroy(name, NULL);
	zp_arena_close(a);
	return t_fails ? 1 : 0;
}
