/*
 * health.c — the gpud health files the supervisor reads to say, per key, ready / loading / failed, and
 * the slot rounding (a key's shape, which reads its files with the prover, is the supervisor's:
 * supervisor/keyshape.c).
 *
 * HEALTH FILE <run>/health/<group>.gpud<i>.json, written atomically by gpud at every change:
 *   {"pid", "stage": "starting" | "loading" | "ready" | "degraded" | "failed", "error",
 *    "keys": {"<key>": {"state": "waiting" | "loading" | "ready" | "failed", "error", "bytes"}},
 *    "serves": [key, ...], "failed": [key, ...], "parked": [key, ...] (served, device state given back),
 *    "gpu": {"backend", "memory_cap_bytes" (0 = the whole card), "memory_total_bytes" (when known)}}
 * degraded: up (its loop runs, registered Filecoin keys load) but every configured key failed at load.
 * The supervisor trusts a file only when its pid is the gpud it runs (a dead gpud's file is stale).
 */
#include "health.h"
#include "config.h"
#include "files.h"
#include "payload_zp.h"
#include "rundir.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zp_err.h"
#include "zp_file.h"

uint64_t zp_pipe_slot_round(uint64_t bytes)
{
	/* a 2 MiB multiple: the hugepage size every backing allocates slots in */
	return (bytes + (2u << 20) - 1) / (2u << 20) * (2u << 20);
}

/* ---------------------------------------------------------------- health files */
int zp_health_path(char *buf, size_t n, const struct zp_pipe_config *c, unsigned g, unsigned i)
{
	return zp_pipe_path(buf, n, c, "health/%s.gpud%u.json", c->groups[g].name, i);
}

int zp_health_write(const struct zp_pipe_config *c, unsigned g, unsigned i, void *json)
{
	char p[PATH_MAX], d[PATH_MAX];
	zp_pipe_path(d, sizeof d, c, "health");
	if (mkdir(d, 0700) && errno != EEXIST) /* like every run-directory file but the API socket */
		return -errno;
	if (zp_health_path(p, sizeof p, c, g, i))
		return -ENAMETOOLONG;
	char *txt = json_dumps(json, JSON_COMPACT);
	if (!txt)
		return -ENOMEM;
	int r = zp_file_write_atomic(p, txt, strlen(txt), NULL);
	free(txt);
	return r;
}

void *zp_health_read(const struct zp_pipe_config *c, unsigned g, unsigned i, int pid)
{
	char p[PATH_MAX];
	if (zp_health_path(p, sizeof p, c, g, i))
		return NULL;
	char *txt = NULL, keep[ZP_ERR_MSG_MAX]; /* gpud's file: never through a symlink, bounded; absent is no error */
	zp_err_save(keep);
	json_t *j = zp_file_read(AT_FDCWD, p, O_NOFOLLOW, ZP_FILE_JSON_MAX, &txt, NULL) ? NULL : json_loads(txt, 0, NULL);
	zp_err_restore(keep);
	free(txt);
	if (j && pid && json_integer_value(json_object_get(j, "pid")) != pid) {
		json_decref(j);
		return NULL;
	}
	return j;
}
