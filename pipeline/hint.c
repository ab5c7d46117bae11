/*
 * hint.c — nanomsg sockets for hints and the client API.
 *
 * Hints are never truth: every send is NN_DONTWAIT and a failure is ignored; every waiter
 * also wakes on its own timeout and rescans the arena. Receivers integrate with poll()
 * through NN_RCVFD. NN_RCVMAXSIZE is set explicitly: 1 MiB for every socket but the API's REP,
 * which takes up to ZP_API_RCV_HARD so that a request over ZP_API_MAX_MSG still reaches the
 * handler and gets an error reply (nanomsg drops a message over the receive maximum and closes
 * the connection: the client would only see silence). Past the hard cap that is still what
 * happens; the cap bounds the memory one request can take.
 */
#include "hint.h"
#include "rundir.h"
#include "zp_err.h"

#include <errno.h>
#include <fcntl.h>
#include <nanomsg/nn.h>
#include <nanomsg/pipeline.h>
#include <nanomsg/pubsub.h>
#include <nanomsg/reqrep.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int sock(int proto)
{
	int s = nn_socket(AF_SP, proto);
	if (s < 0)
		return zp_err_set(-nn_errno(), "nn_socket");
	int linger = 0, max = ZP_API_MAX_MSG;
	nn_setsockopt(s, NN_SOL_SOCKET, NN_LINGER, &linger, sizeof linger);
	nn_setsockopt(s, NN_SOL_SOCKET, NN_RCVMAXSIZE, &max, sizeof max);
	return s;
}

static int ep(int s, const char *url, bool bind)
{
	int r = bind ? nn_bind(s, url) : nn_connect(s, url);
	if (r < 0) {
		int e = nn_errno();
		nn_close(s);
		return zp_err_set(-e, "%s %s", bind ? "bind" : "connect", url);
	}
	return s;
}

/* s bound at url (closed on failure); a bound ipc socket's file may be left by a dead process: removed first. */
static int bind_at(int s, const char *url)
{
	if (s < 0)
		return s;
	if (!strncmp(url, "ipc://", 6))
		unlink(url + 6);
	return ep(s, url, true);
}

int zp_hint_pull(const char *url) { return bind_at(sock(NN_PULL), url); }

int zp_hint_pub(const char *url) { return bind_at(sock(NN_PUB), url); }

int zp_hint_sub(const char *url)
{
	int s = sock(NN_SUB);
	if (s < 0)
		return s;
	nn_setsockopt(s, NN_SUB, NN_SUB_SUBSCRIBE, "", 0);
	return ep(s, url, false);
}

int zp_hint_push(void) { return sock(NN_PUSH); }

int zp_hint_connect(int s, const char *url)
{
	return nn_connect(s, url) < 0 ? zp_err_set(-nn_errno(), "connect %s", url) : 0;
}

void zp_hint_send(int s, const char *what)
{
	if (s >= 0)
		(void)nn_send(s, what, strlen(what), NN_DONTWAIT);
}

int zp_hint_fd(int s)
{
	int fd = -1;
	size_t sz = sizeof fd;
	return nn_getsockopt(s, NN_SOL_SOCKET, NN_RCVFD, &fd, &sz) < 0 ? -nn_errno() : fd;
}

void zp_hint_drain(int s)
{
	void *m;
	while (nn_recv(s, &m, NN_MSG, NN_DONTWAIT) >= 0)
		nn_freemsg(m);
}

void zp_hint_close(int s)
{
	if (s >= 0)
		nn_close(s);
}

int zp_api_default_url(char *buf, size_t n, const char *run_dir)
{
	int l = snprintf(buf, n, "ipc://%s/api.ipc", run_dir);
	if (l < 0 || (size_t)l >= n || (size_t)l - 6 > ZP_IPC_PATH_MAX)
		return zp_err_set(-ENAMETOOLONG, "run directory %s too long for an ipc socket", run_dir);
	return 0;
}

/* REQ with a resend interval shorter than the timeout: a restarted supervisor gets the
 * request again (a submit carries a token, so a re-sent submit is not a second job). */
int zp_api_call(const char *url, const char *req, char **reply, int timeout_ms)
{
	size_t len = strlen(req);
	if (len > ZP_API_MAX_MSG)
		return zp_err_set(ZP_ERANGE, "request of %zu bytes exceeds %u", len, ZP_API_MAX_MSG);
	/* nanomsg retries a connect refused for permissions as if nobody listened: say so now, rather
	 * than "no reply" at the timeout (a missing socket is still waited for: a restart) */
	if (!strncmp(url, "ipc://", 6) && faccessat(AT_FDCWD, url + 6, W_OK, AT_EACCESS) && errno == EACCES)
		return zp_err_set(-EACCES, "%s: permission denied (the run directory and its socket are the service "
				  "user's only; the operator may open them to local users with [run] public = yes)", url);
	int s = sock(NN_REQ);
	if (s < 0)
		return s;
	int resend = 1000;
	nn_setsockopt(s, NN_REQ, NN_REQ_RESEND_IVL, &resend, sizeof resend);
	nn_setsockopt(s, NN_SOL_SOCKET, NN_RCVTIMEO, &timeout_ms, sizeof timeout_ms);
	nn_setsockopt(s, NN_SOL_SOCKET, NN_SNDTIMEO, &timeout_ms, sizeof timeout_ms);
	if ((s = ep(s, url, false)) < 0)
		return s;
	int r = 0;
	char *m = NULL;
	if (nn_send(s, req, len, 0) < 0) {
		r = zp_err_set(-nn_errno(), "send to %s", url);
	} else {
		int n = nn_recv(s, &m, NN_MSG, 0);
		if (n < 0) {
			int e = nn_errno();
			r = zp_err_set(-e, "%s: %s", url, e == ETIMEDOUT ? "no reply (is the supervisor running?)"
									: nn_strerror(e));
		} else if ((*reply = malloc((size_t)n + 1))) {
			memcpy(*reply, m, (size_t)n);
			(*reply)[n] = 0;
		} else {
			r = -ENOMEM;
		}
		if (m)
			nn_freemsg(m);
	}
	nn_close(s);
	return r;
}

int zp_api_rep(const char *url)
{
	int s = sock(NN_REP), max = ZP_API_RCV_HARD;
	if (s < 0)
		return s;
	nn_setsockopt(s, NN_SOL_SOCKET, NN_RCVMAXSIZE, &max, sizeof max);
	return bind_at(s, url);
}

int zp_api_serve_one(int s, char *(*fn)(void *ctx, const char *req, size_t len), void *ctx)
{
	char *m = NULL;
	int n = nn_recv(s, &m, NN_MSG, NN_DONTWAIT);
	if (n < 0)
		return 0;
	char *req = malloc((size_t)n + 1);
	if (req) {
		memcpy(req, m, (size_t)n);
		req[n] = 0;
	}
	nn_freemsg(m);
	char *rep = req ? fn(ctx, req, (size_t)n) : NULL;
	const char *out = rep ? rep : "{\"ok\":false,\"error\":\"out of memory\"}";
	(void)nn_send(s, out, strlen(out), NN_DONTWAIT);
	free(rep);
	free(req);
	return 1;
}
