/*
 * cmd_util.h — helpers shared by the subcommands in tools/cmd_*.c (setup, key, synth).
 * Exit codes are the same interface as zkpipe.c's (see `zkpipe --help`).
 */
#ifndef ZP_CMD_UTIL_H
#define ZP_CMD_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "circuit.h"
#include "r1cs.h"
#include "synth.h"
#include "zp_err.h"
#include "zp_exit.h"

/* The exit codes are common/zp_exit.h's (one table for every command). */
enum { CX_OK = ZP_EX_OK, CX_USAGE = ZP_EX_USAGE, CX_INPUT = ZP_EX_INPUT, CX_MISMATCH = ZP_EX_MISMATCH,
       CX_UNSAT = ZP_EX_UNSAT, CX_SELFCHECK = ZP_EX_SELFCHECK, CX_OUTPUT = ZP_EX_OUTPUT,
       CX_INTERNAL = ZP_EX_INTERNAL };

/* The exit code for an error code (zp_err / -errno). */
static inline int cx_exit_for(int rc)
{
	switch (rc) {
	case ZP_EMISMATCH: return ZP_EX_MISMATCH;
	case ZP_EUNSAT: return ZP_EX_UNSAT;
	case ZP_EVERIFY: return ZP_EX_SELFCHECK;
	case -ENODEV: case -ENOTSUP: return ZP_EX_NODEV;
	case ZP_EWITGEN: return ZP_EX_WITGEN;
	case ZP_EFORMAT: case ZP_ETRUNC: case ZP_ENONCANON: case ZP_EVERSION: case ZP_EINVAL_POINT:
	case ZP_ESUBGROUP: case ZP_EFLAGS: case ZP_ENOTSQR: case ZP_ERANGE:
	case -ENOENT: case -EACCES: case -EISDIR: case -EINVAL: case -EIO: case -ELOOP:
		return ZP_EX_INPUT;
	default: return ZP_EX_INTERNAL;
	}
}

/* One line "zkpipe <cmd>: <message>" on stderr; returns the exit code for rc. */
static inline int cx_fail(const char *cmd, int rc)
{
	const char *m = zp_err_msg();
	fprintf(stderr, "zkpipe %s: %s\n", cmd, m && *m ? m : zp_strerror(rc));
	return cx_exit_for(rc);
}

static inline double cx_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* "n=1048576,..." or "synth:n=..." */
static inline int cx_parse_synth(zp_synth_params *p, const char *s)
{
	char buf[512];
	if (strncmp(s, "synth:", 6)) {
		snprintf(buf, sizeof(buf), "synth:%s", s);
		s = buf;
	}
	return zp_synth_parse(p, s);
}

/* The circuit from --r1cs or --synth (exactly one). */
static inline int cx_circuit(zp_circuit *c, const char *r1cs, const char *synth, zp_synth_params *sp)
{
	int rc;
	if (synth) {
		if ((rc = cx_parse_synth(sp, synth)))
			return rc;
		return zp_synth_circuit(c, sp);
	}
	zp_r1cs r;
	if ((rc = zp_r1cs_read(&r, r1cs)))
		return rc;
	rc = zp_circuit_from_r1cs(c, &r);
	zp_r1cs_free(&r);
	return rc;
}

/* A command with subcommands ("zkpipe key info F"): with none, or with "--help", prints help (to
 * stderr and *ex = CX_USAGE, or to stdout and *ex = CX_OK) and returns NULL; else returns the
 * subcommand and takes it off argv, so getopt_long reads its options with it as argv[0]. */
static inline const char *cx_subcommand(int *argc, char ***argv, const char *help, int *ex)
{
	if (*argc < 2 || !strcmp((*argv)[1], "--help")) {
		fputs(help, *argc < 2 ? stderr : stdout);
		*ex = *argc < 2 ? CX_USAGE : CX_OK;
		return NULL;
	}
	(*argc)--;
	(*argv)++;
	return (*argv)[0];
}

static inline const char *cx_ext(const char *path)
{
	const char *d = strrchr(path, '.');
	return d ? d + 1 : "";
}

int cmd_setup(int argc, char **argv);
int cmd_key(int argc, char **argv);
int cmd_synth(int argc, char **argv);

#endif
