/*
 * cmds.h — the `zkpipe` subcommands that talk to a running supervisor (cmd_client.c) and
 * the demo (cmd_demo.c). Each takes argv with argv[0] = the subcommand's name.
 *
 * Exit codes: common/zp_exit.h (one table for every command).
 */
#ifndef ZP_TOOLS_CMDS_H
#define ZP_TOOLS_CMDS_H

#include <jansson.h>

#include "zp_exit.h"

enum { EX_JOB_FAILED = ZP_EX_JOB_FAILED, EX_TIMEOUT = ZP_EX_TIMEOUT, EX_API = ZP_EX_API,
       EX_NO_JOB = ZP_EX_NO_JOB, EX_KEY = ZP_EX_KEY };

int cmd_submit(int argc, char **argv);
int cmd_wait(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_timeline(int argc, char **argv);
/* `zkpipe export verifier` (cmd_verifier.c): a Solidity verifier of a BN254 vk; argv[0] = "verifier". */
int cmd_export_verifier(int argc, char **argv);

struct zp_pipe_config;
/* Draw the run's waterfall (cmd_timeline.c) into out: finished jobs from the run directory's
 * results/, active ones from the supervisor at url (NULL: none); only >= 0 draws that job
 * alone (-ENOENT, no file, when it is unknown). *jobs and *rows get what was drawn. */
int zp_timeline_write(const struct zp_pipe_config *cfg, const char *url, long long only, const char *out,
		      unsigned *jobs, unsigned *rows);

/* One request; NULL with a message on stderr when unreachable or not ok (unless quiet). */
json_t *zp_client_call(const char *url, json_t *req, int timeout_ms, int quiet);
/* Wait for jobs to finish; prints one line per job unless quiet. Returns 0 / EX_*. */
int zp_client_wait(const char *url, const long long *ids, int n, double timeout_s, int quiet);

#endif
