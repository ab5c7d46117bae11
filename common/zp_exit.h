/*
 * zp_exit.h — the exit codes of every zkpipe binary (zkpipe and its subcommands,
 * zkpipe-supervisor, zkpipe-synthd, zkpipe-gpud, zkpipe-shm): ONE table, so a script reads
 * the same number the same way whichever command it ran. The codes are an interface: add new
 * ones at the end, never renumber (docs/pipeline.md "Exit codes" and prover/README.md list
 * them; `zkpipe --help` prints zp_exit_text).
 */
#ifndef ZP_EXIT_H
#define ZP_EXIT_H

#include <stdio.h>
#include <string.h>

#ifndef ZP_VERSION
#define ZP_VERSION "unknown"
#endif

enum zp_exit {
	ZP_EX_OK = 0,          /* success */
	ZP_EX_INVALID = 1,     /* verify: the proof is not valid */
	ZP_EX_USAGE = 2,       /* bad command line */
	ZP_EX_INPUT = 3,       /* an input file is missing, unreadable or malformed */
	ZP_EX_MISMATCH = 4,    /* inputs disagree (witness / r1cs / public inputs not for this key) */
	ZP_EX_UNSAT = 5,       /* the witness does not satisfy the circuit */
	ZP_EX_SELFCHECK = 6,   /* prove: the new proof failed its pairing self-check */
	ZP_EX_OUTPUT = 7,      /* cannot write an output file */
	ZP_EX_NODEV = 8,       /* backend unavailable: cuda without a CUDA build or without a GPU */
	ZP_EX_TIMEOUT = 9,     /* wait: timed out (the job may still finish) */
	ZP_EX_API = 10,        /* the supervisor could not be reached, or refused the request */
	ZP_EX_JOB_FAILED = 11, /* a job ended FAILED (or was cancelled) */
	ZP_EX_NO_JOB = 12,     /* the supervisor does not know this job */
	ZP_EX_KEY = 13,        /* the key is unknown or cannot be served (failed validation or loading; no cluster node serves it) */
	ZP_EX_CONFIG = 14,     /* the config file is wrong (the message names file, line, key) */
	ZP_EX_BUSY = 15,       /* in use: an arena with live processes, a run dir with a supervisor */
	ZP_EX_GPU_STICKY = 16, /* gpud: the GPU is in a sticky error state (the supervisor restarts it) */
	ZP_EX_START = 17,      /* a daemon or the supervisor could not start (arena, sockets, run dir) */
	ZP_EX_WITGEN = 18,     /* the witness generator failed (exit status, limit or timeout named) */
	ZP_EX_INTERNAL = 70,   /* anything else (out of memory, bug) */
};

static const char zp_exit_text[] =
	"exit codes (the same for every zkpipe binary; scripts may rely on them):\n"
	"  0  success (prove: proof written; verify: proof is valid; wait: every job DONE)\n"
	"  1  verify: the proof is NOT valid for these public inputs and key (pairing check fails,\n"
	"     or a proof point is off the curve or outside the subgroup)\n"
	"  2  usage error (bad command line)\n"
	"  3  an input file is missing, unreadable or malformed (message names file, section, field)\n"
	"  4  inputs disagree (witness, r1cs or public inputs are not for this key)\n"
	"  5  the witness does not satisfy the circuit (message names the first failing constraint)\n"
	"  6  prove: the proof failed its pairing self-check (nothing written)\n"
	"  7  cannot write an output file\n"
	"  8  backend unavailable (cuda: not built with CUDA, or no GPU)\n"
	"  9  wait: timed out (the job may still finish)\n"
	" 10  the supervisor could not be reached, or refused the request (reason on stderr)\n"
	" 11  a job ended FAILED or was cancelled\n"
	" 12  unknown job (the supervisor has no such job)\n"
	" 13  the key is unknown or cannot be served (it failed validation or loading; no node of\n"
	"     the cluster serves it; reason on stderr)\n"
	" 14  config error (message names the file, line, key and the accepted values)\n"
	" 15  in use (zkpipe-shm --remove: processes are attached; another supervisor on the run dir)\n"
	" 16  gpud: the GPU is in a sticky error state (the supervisor restarts gpud)\n"
	" 17  a daemon or the supervisor could not start (arena, sockets, run directory)\n"
	" 18  the witness generator failed (its exit status, a resource limit or its timeout)\n"
	" 70  internal error (out of memory, bug)\n"
	"errors go to stderr as one line: \"zkpipe <command>: <message>\"\n";

/* --help / --version handled the same way by every binary: 1 if argv[1] was one of them
 * (printed to stdout; the caller exits ZP_EX_OK). */
static inline int zp_exit_version(const char *prog, const char *arg)
{
	if (strcmp(arg, "--version") && strcmp(arg, "-V"))
		return 0;
	printf("%s %s\n", prog, ZP_VERSION);
	return 1;
}

#endif
