/*
 * witgen.h — a key's witness generator (circom's wasm through node, or its C++ binary) run by
 * synthd on a client's input.json, confined and bounded (witgen.c).
 */
#ifndef ZP_PIPE_WITGEN_H
#define ZP_PIPE_WITGEN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct zp_pipe_key;

struct zp_witgen {
	char wasm[PATH_MAX];       /* circom's <circuit>.wasm (generate_witness.js beside it), or "" */
	char bin[PATH_MAX];        /* circom's C++ generator, or "" */
	char node[PATH_MAX];       /* "" = /usr/bin/node */
	uint32_t timeout_s, cpu_s; /* wall clock (killed), RLIMIT_CPU */
	uint64_t mem_bytes;        /* RLIMIT_AS (node: RLIMIT_DATA) */
	uint64_t max_out_bytes;    /* RLIMIT_FSIZE: the witness it may write (0 = no limit) */
	uint64_t max_in_bytes;     /* input.json larger than this is refused (0: 64 MiB) */
	bool (*abort)(void *ctx);  /* polled while it runs (NULL: never): true kills it (-ECANCELED) */
	void *abort_ctx;
};
/* The generator of a configured key (wasm or witness_bin set), with its limits. */
void zp_witgen_of_key(struct zp_witgen *g, const struct zp_pipe_key *k, uint32_t n_vars);
/* Copy the open input.json in_fd (a regular file, bounded; input names it in messages) into a
 * fresh directory <parent>/zpwit.XXXXXX (path in dir), run the generator there on that copy,
 * leave the witness at wtns (inside dir). ZP_EWITGEN naming exit status / signal / limit /
 * timeout and the generator's last line; -ECANCELED when g->abort stopped it. The caller closes
 * in_fd, reads wtns, then zp_witgen_cleanup(dir) (also after a failure). The generator dies with
 * the caller (PR_SET_PDEATHSIG); the caller becomes a child subreaper and must run no other
 * children: every child left when the generator has ended is killed (its escaped descendants). */
int zp_witgen_run(const struct zp_witgen *g, int in_fd, const char *input, const char *parent, char *dir,
		  size_t dn, char *wtns, size_t wn);
/* open(path) for zp_witgen_run: O_RDONLY | O_NONBLOCK | O_NOFOLLOW (a FIFO is refused by fstat,
 * never waited on). Returns the fd or -errno. */
int zp_witgen_open_input(const char *path);
void zp_witgen_cleanup(const char *dir);

#endif
