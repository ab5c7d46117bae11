/*
 * dkeep.c — the supervisor's side of device-kept keys (pipeline/dkeep.h, docs/keys.md "Device-kept
 * keys"): it takes the fds a gpud offers (pidfd_getfd), holds them while that gpud lives and after it
 * dies — the bytes stay on the GPU, no CUDA here —, and hands them to the slot's next gpud. Handing over
 * gives them away: a gpud that adopts them offers them again, one that does not closes them, and the
 * memory then goes back to the device.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sup.h"
#include "sys.h"
#include "zp_err.h"

static const char *WHO = "supervisor";

static void drop(struct child *c)
{
	for (unsigned k = 0; k < c->n_dk; k++)
		for (int j = 0; j < ZP_DKEEP_ARRAYS; j++)
			if (c->dk[k].fd[j] >= 0)
				close(c->dk[k].fd[j]);
	c->n_dk = 0;
}

/* The offer of gpud c, if it has written one: taken (its file removed) when it is that very process's
 * and every fd came; a malformed offer is removed and logged. Bounded, never follows a link. */
void sup_dkeep_tick(struct sup *sup, struct child *c)
{
	char path[PATH_MAX], text[ZP_DKEEP_TEXT + 1];
	const struct zp_pipe_group *g = &sup->cfg.groups[c->group];
	if (c->role != ZP_ROLE_GPUD || !c->pid || c->pidfd < 0 || c->index >= g->gpus ||
	    zp_dkeep_path(path, sizeof path, &sup->cfg, g->name, c->index, 0))
		return;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return;
	struct stat st;
	ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() ? read(fd, text, sizeof text - 1) : -1;
	close(fd);
	zp_dkeep_rec r[ZP_DKEEP_KEYS];
	unsigned nr = 0;
	pid_t pid = 0;
	if (n < 0 || (size_t)n >= sizeof text - 1) {
		zp_log(WHO, "%s: not a device-kept keys offer (not a regular file of ours, or over %d bytes): removed", path, ZP_DKEEP_TEXT);
		unlink(path);
		return;
	}
	text[n] = 0;
	if (zp_dkeep_parse(text, r, ZP_DKEEP_KEYS, &nr, &pid)) {
		zp_log(WHO, "%s: %s: removed", path, zp_err_msg());
		unlink(path);
		return;
	}
	if (pid != c->pid)   /* an earlier gpud's, never taken: it is gone, and so are its fds */
		goto gone;
	for (unsigned k = 0; k < nr; k++)
		for (int j = 0; j < ZP_DKEEP_ARRAYS; j++) {
			int theirs = r[k].fd[j];
			r[k].fd[j] = (int)syscall(SYS_pidfd_getfd, c->pidfd, theirs, 0);
			if (r[k].fd[j] < 0) {
				zp_log(WHO, "gpud.%u@%s: its kept device key's fd %d: pidfd_getfd: %s (not held)", c->index, g->name,
				       theirs, strerror(errno));
				for (unsigned a = 0; a <= k; a++)
					for (int b = 0; b < (a == k ? j : ZP_DKEEP_ARRAYS); b++)
						close(r[a].fd[b]);
				goto gone;
			}
		}
	drop(c);
	memcpy(c->dk, r, nr * sizeof r[0]);
	c->n_dk = nr;
	zp_log(WHO, "gpud.%u@%s: holding %u key(s) it kept on the device (%.2f GiB) for its next start", c->index, g->name, nr,
	       zp_dkeep_bytes(r, nr) / 1073741824.0);
gone:
	unlink(path);
}

/* Before spawning gpud c: ZP_DKEEP=<text> naming fds 3, 4, ... in env (len bytes); *nfd, fds: what the
 * child must get as 3.. (spawn's child dup2s them). Empty text when nothing is held: the gpud then
 * keeps its keys and offers them. */
int sup_dkeep_env(struct child *c, char *env, size_t len, int *fds, unsigned *nfd)
{
	zp_dkeep_rec r[ZP_DKEEP_KEYS];
	unsigned m = 0;
	for (unsigned k = 0; k < c->n_dk; k++) {
		r[k] = c->dk[k];
		for (int j = 0; j < ZP_DKEEP_ARRAYS; j++) {
			fds[m] = c->dk[k].fd[j];
			r[k].fd[j] = 3 + (int)m++;
		}
	}
	*nfd = m;
	int w = snprintf(env, len, "ZP_DKEEP=");
	if (w < 0 || (size_t)w >= len)
		return -ENOSPC;
	return zp_dkeep_format(env + w, len - (size_t)w, r, c->n_dk, 0);
}

/* After the fork: the child has them; ours go. */
void sup_dkeep_handed(struct child *c)
{
	drop(c);
}
