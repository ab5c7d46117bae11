/*
 * files.h — the files the pipeline writes and reads by name (files.c): job manifests and a job's
 * output directory (header peeks of key files: prover/r1cs.h, zkey.h; atomic writes: zp_file.h).
 *
 * PROOF OUTPUT (job.output, a directory the supervisor creates under allow_output):
 *   part-<p>.proof.json / part-<p>.public.json  snarkjs's formats, one pair per partition
 *   proofs.json  the job's proof: {"job", "key", "partitions": [{"proof", "public"}, ...]},
 *                written once every partition is DONE; its presence means the job is complete.
 *   error.txt    a FAILED job's reason.
 * Every file is written by common/zp_file.h's atomic writer inside the directory opened by an openat
 * walk from the allowed root (paths.h).
 */
#ifndef ZP_PIPE_FILES_H
#define ZP_PIPE_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zp_file.h"

struct zp_pipe_config;

/* Job manifest: write lines atomically; read line `part`. */
int zp_manifest_write(const char *path, const char *const *inputs, uint32_t n);
int zp_manifest_line(const char *path, uint32_t part, char *buf, size_t n);

/* A job's output directory (canonical, under allow_output) opened by the walk. */
int zp_out_open(const struct zp_pipe_config *c, const char *out);
/* <out>/<name> written atomically inside the walked directory; mode 0644 with public = yes
 * (the submitter reads its proofs), else 0600, like the directory's 0755 / 0700. */
int zp_out_write(const struct zp_pipe_config *c, const char *out, const char *name, const void *buf, size_t len);
/* <out>/<name> exists as a regular file (a symlink there does not count). */
bool zp_out_has(const struct zp_pipe_config *c, const char *out, const char *name);
/* Assemble <out>/proofs.json from the part files (read without following symlinks). */
int zp_job_assemble(const struct zp_pipe_config *c, const char *out, uint64_t job, const char *key, uint32_t nparts);

#endif
