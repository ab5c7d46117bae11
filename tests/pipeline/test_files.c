/*
 * test_files — pipeline/files.c and payload_zp.c as a unit: job manifests (written atomically,
 * one line per partition, read back by index), a job's output files (zp_out_write's modes,
 * zp_out_has not counting a symlink), job assembly (proofs.json from the part files, in
 * partition order; refused — and not written — when a part is missing, not JSON, a symlink, or
 * the output lies outside allow_output), and the slot payload's layout.
 */
#include "config.h"
#include "files.h"
#include "payload_zp.h"
#include "zp_err.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/zp_test.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

static char T[PATH_MAX];
static struct zp_pipe_config C;

static const char *at(const char *leaf) { return zp_test_at(T, leaf); }

static void put(const char *leaf, const char *text) { zp_test_put(at(leaf), text); }

static bool exists(const char *leaf)
{
	struct stat st;
	return lstat(at(leaf), &st) == 0;
}

static unsigned mode_of(const char *leaf)
{
	struct stat st;
	return lstat(at(leaf), &st) ? 0 : (unsigned)(st.st_mode & 0777);
}

static void manifests(void)
{
	const char *in[] = { "/a/w0.wtns", "/b/w1.wtns", "synth:7" };
	const char *m = at("in-tok");
	CHECK(zp_manifest_write(m, in, 3) == 0, "manifest write: %s", zp_err_msg());
	CHECK(mode_of("in-tok") == 0600, "manifest mode %o", mode_of("in-tok"));
	char line[64];
	for (uint32_t p = 0; p < 3; p++)
		CHECK(zp_manifest_line(m, p, line, sizeof line) == 0 && !strcmp(line, in[p]), "line %u: %s", p, line);
	CHECK(zp_manifest_line(m, 3, line, sizeof line) == ZP_ERANGE, "a partition past the last line");
	CHECK(zp_manifest_line(m, 0, line, 5) == -ENAMETOOLONG, "a line longer than the buffer");
	CHECK(zp_manifest_line(at("none"), 0, line, sizeof line) == -ENOENT, "a missing manifest");
	/* rewritten whole: a shorter manifest leaves nothing of the longer one */
	CHECK(zp_manifest_write(m, in + 2, 1) == 0 && zp_manifest_line(m, 0, line, sizeof line) == 0 &&
	      !strcmp(line, "synth:7") && zp_manifest_line(m, 1, line, sizeof line) == ZP_ERANGE, "rewrite");
	char tmp[64];
	snprintf(tmp, sizeof tmp, "in-tok.tmp.%d", (int)getpid());
	CHECK(!exists(tmp), "temporary left behind");
}

static void outputs(void)
{
	C.public_access = false;
	CHECK(zp_out_write(&C, at("out/j1"), "error.txt", "why", 3) == 0, "out_write: %s", zp_err_msg());
	CHECK(mode_of("out/j1/error.txt") == 0600, "private mode %o", mode_of("out/j1/error.txt"));
	C.public_access = true;
	CHECK(zp_out_write(&C, at("out/j1"), "pub.txt", "x", 1) == 0 && mode_of("out/j1/pub.txt") == 0644,
	      "public mode %o", mode_of("out/j1/pub.txt"));
	C.public_access = false;
	CHECK(zp_out_has(&C, at("out/j1"), "error.txt"), "out_has a regular file");
	CHECK(!zp_out_has(&C, at("out/j1"), "nothing"), "out_has a missing file");
	CHECK(symlink("error.txt", at("out/j1/link")) == 0 && !zp_out_has(&C, at("out/j1"), "link"),
	      "out_has counts a symlink");
	CHECK(zp_out_write(&C, at("outside"), "x", "x", 1) == -EACCES && !exists("outside/x"),
	      "out_write outside allow_output");
}

static const char *proof_json(uint32_t p)
{
	static char b[128];
	snprintf(b, sizeof b, "{\"pi_a\": [\"%u\"], \"protocol\": \"groth16\"}", p);
	return b;
}

static void write_parts(const char *dir, uint32_t n)
{
	char leaf[PATH_MAX], pub[64];
	for (uint32_t p = 0; p < n; p++) {
		snprintf(leaf, sizeof leaf, "%s/part-%u.proof.json", dir, p);
		put(leaf, proof_json(p));
		snprintf(leaf, sizeof leaf, "%s/part-%u.public.json", dir, p);
		snprintf(pub, sizeof pub, "[\"%u\", \"%u\"]", 100 + p, 200 + p);
		put(leaf, pub);
	}
}

/* proofs.json of job 42, key k, n partitions in order, each {proof, public} as written. */
static bool assembled(const char *dir, uint32_t n)
{
	char leaf[PATH_MAX];
	snprintf(leaf, sizeof leaf, "%s/proofs.json", dir);
	json_error_t e;
	json_t *j = json_load_file(at(leaf), 0, &e);
	json_t *parts = json_object_get(j, "partitions");
	bool ok = json_integer_value(json_object_get(j, "job")) == 42 &&
		  !strcmp(json_string_value(json_object_get(j, "key")) ?: "", "k") && json_array_size(parts) == n;
	for (uint32_t p = 0; ok && p < n; p++) {
		json_t *el = json_array_get(parts, p), *want = json_loads(proof_json(p), 0, &e);
		json_t *pub = json_object_get(el, "public");
		ok = json_equal(json_object_get(el, "proof"), want) && json_array_size(pub) == 2 &&
		     atoi(json_string_value(json_array_get(pub, 0)) ?: "") == (int)(100 + p) &&
		     atoi(json_string_value(json_array_get(pub, 1)) ?: "") == (int)(200 + p);
		json_decref(want);
	}
	json_decref(j);
	return ok;
}

static void assembly(void)
{
	mkdir(at("out/j2"), 0700);
	write_parts("out/j2", 3);
	CHECK(zp_job_assemble(&C, at("out/j2"), 42, "k", 3) == 0, "assemble: %s", zp_err_msg());
	CHECK(assembled("out/j2", 3), "proofs.json of 3 partitions");
	CHECK(mode_of("out/j2/proofs.json") == 0600, "proofs.json mode %o", mode_of("out/j2/proofs.json"));

	/* a missing partition: refused, naming it; no proofs.json */
	mkdir(at("out/j3"), 0700);
	write_parts("out/j3", 2);
	zp_err_clear();
	int r = zp_job_assemble(&C, at("out/j3"), 42, "k", 3);
	CHECK(r == -ENOENT && strstr(zp_err_msg(), "partition 2") && !exists("out/j3/proofs.json"),
	      "missing part 2: %d %s", r, zp_err_msg());
	/* a part that is not JSON */
	mkdir(at("out/j4"), 0700);
	write_parts("out/j4", 2);
	put("out/j4/part-1.public.json", "[\"1\",");
	r = zp_job_assemble(&C, at("out/j4"), 42, "k", 2);
	CHECK(r < 0 && !exists("out/j4/proofs.json"), "part not JSON: %d", r);
	/* a part planted as a symlink (to another job's proof) is not followed */
	mkdir(at("out/j5"), 0700);
	write_parts("out/j5", 2);
	unlink(at("out/j5/part-1.proof.json"));
	CHECK(symlink("../j2/part-1.proof.json", at("out/j5/part-1.proof.json")) == 0, "symlink");
	zp_err_clear();
	r = zp_job_assemble(&C, at("out/j5"), 42, "k", 2);
	CHECK(r < 0 && strstr(zp_err_msg(), "symlink") && !exists("out/j5/proofs.json"), "symlinked part: %d %s", r,
	      zp_err_msg());
	/* an output directory outside allow_output, or reached through a symlink */
	mkdir(at("outside/j6"), 0700);
	write_parts("outside/j6", 1);
	r = zp_job_assemble(&C, at("outside/j6"), 42, "k", 1);
	CHECK(r == -EACCES && !exists("outside/j6/proofs.json"), "outside allow_output: %d", r);
	CHECK(symlink("../outside/j6", at("out/j7")) == 0, "symlink");
	r = zp_job_assemble(&C, at("out/j7"), 42, "k", 1);
	CHECK(r < 0 && !exists("outside/j6/proofs.json"), "output through a symlink: %d", r);
	/* public = yes: the submitter reads its proofs */
	C.public_access = true;
	CHECK(zp_job_assemble(&C, at("out/j2"), 42, "k", 3) == 0 && mode_of("out/j2/proofs.json") == 0644,
	      "public proofs.json mode %o", mode_of("out/j2/proofs.json"));
	C.public_access = false;
	/* zero partitions: an empty list, still a complete record */
	mkdir(at("out/j8"), 0700);
	CHECK(zp_job_assemble(&C, at("out/j8"), 42, "k", 0) == 0 && assembled("out/j8", 0), "no partitions");
}

static void payload(void)
{
	struct zp_slot_payload p;
	memset(&p, 0xff, sizeof p);
	uint64_t n = zp_payload_layout(&p, 3, 8);
	CHECK(p.magic == ZP_PAYLOAD_MAGIC && p.n_vars == 3 && p.domain == 8, "header");
	CHECK(p.off_w == 4096 && p.off_a == 4096 + 128 && p.off_b == p.off_a + 8 * 32 && p.off_c == p.off_b + 8 * 32 &&
	      p.bytes == p.off_c + 8 * 32 && n == p.bytes, "layout w %llu a %llu bytes %llu",
	      (unsigned long long)p.off_w, (unsigned long long)p.off_a, (unsigned long long)p.bytes);
	n = zp_payload_layout(&p, 2, 1u << 20); /* w exactly 64 bytes: no padding */
	CHECK(p.off_a == 4096 + 64 && n == 4096 + 64 + 3ull * 32 * (1u << 20), "layout at 2^20: %llu",
	      (unsigned long long)n);
	CHECK(sizeof p <= 4096, "header fits its page");
}

int main(void)
{
	umask(022); /* the modes below are the files' own, not narrowed by ours */
	zp_test_tmpdir("zp_files", T);
	mkdir(at("out"), 0700);
	mkdir(at("out/j1"), 0700);
	mkdir(at("outside"), 0700);
	snprintf(C.allow_out[0], PATH_MAX, "%s", at("out"));
	C.n_out = 1;
	manifests();
	outputs();
	assembly();
	payload();
	return zp_test_done("files", T);
}
